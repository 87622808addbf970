"""A phone claims a seat and plays a whole game through the tray's page, as a player would:
it reads its own view on the WebSocket and presses its seat's button; every press goes into the
button queue where GPIO presses go. The other seat plays with its (simulated) GPIO button, and
a third phone only watches: it never learns a hidden IN/OUT choice before the reveal."""

from __future__ import annotations

import json
import random

import pytest
from netkit import Phone, http, local_presses, table_on_web, throw

from tray.rules.journal import Journal


def _phone_acts(phone: Phone, rng: random.Random, plan: dict) -> bool:
    """One press when the phone's own view asks for one; True when it pressed."""
    you = (phone.state or {}).get("you")
    if not you or phone.state.get("finished"):
        return False
    d = you["decision"]
    if d["kind"] == "secret":
        want = plan.setdefault(("secret", phone.state["events"]), rng.choice(["in", "out"]))
        if d["mine"] == want:
            return False
        phone.send({"type": "press", "long": False})
        return True
    if d["kind"] == "single":
        if rng.random() < 0.5:
            phone.send({"type": "press"})
            return True
        return False
    if d["kind"] == "choice":
        target = plan.setdefault(("choice", phone.state["events"]), rng.randrange(len(d["labels"])))
        phone.send({"type": "press", "long": d["highlighted"] == target})
        return True
    return False


@pytest.mark.parametrize("seed", [3])
def test_a_claimed_seat_plays_a_whole_game_and_the_secret_is_kept(tmp_path, seed):
    session, net = table_on_web(tmp_path, "tally-up", ("Ana", "Ben"))
    table = session.table
    try:
        watcher = Phone(net)
        ben = Phone(net)
        # the code the tray's screen shows for Ben's seat
        code = next(s["code"] for s in net.join_info()["seats"] if s["name"] == "Ben")
        ben.send({"type": "claim", "seat": 1, "code": code})
        ben.wait_for(lambda s: s["you"] is not None and s["you"]["name"] == "Ben")
        assert ben.token and net.claims.claimed() == [1]
        session.step(0.0)  # the loop's next turn: the scoreboard shows Ben's phone
        assert watcher.wait_for(lambda s: s["players"][1]["phone"])["you"] is None

        rng = random.Random(seed)
        plan: dict = {}
        t, last_seen, secret_views, own_secret_seen = 0.0, None, [], set()
        for _ in range(20000):
            if table.expect().finished:
                break
            e = table.expect()
            people = [d for d in e.decisions if d.player >= 0]
            if e.roll is not None and not people and not table.counting_down():
                throw(session, rng, t)
            for d in people:
                if d.player == 0 and d.player not in table.secret and rng.random() < 0.3:
                    choice = dict(d.default or rng.choice(d.choices))
                    local_presses(session, 0, choice, t)
            session.step(t)
            t += 0.1
            for p in (ben, watcher):
                p.read(timeout=0.02)
            if ben.state is not None and ben.state != last_seen:
                last_seen = ben.state
                _phone_acts(ben, rng, plan)
            if 1 in table.secret:  # Ben has chosen, the reveal is to come
                secret_views.append(json.dumps(watcher.state))
                mine = (ben.state or {}).get("you", {}).get("decision", {}).get("mine")
                if mine is not None:
                    own_secret_seen.add(mine)
        assert table.expect().finished, "the game did not end"
        session.step(t)
        final = watcher.wait_for(lambda s: s["finished"])
        # the same scores as the journal replays to (dicetray replay)
        summary = Journal.open(table.journal.path).summary()
        assert [(p["name"], p["score"]) for p in final["players"]] == [
            (p["name"], p["score"]) for p in summary["players"]
        ]
        assert final["winner"] == summary["winner"]
        # Ben's own phone saw his hidden choice; nothing the watcher got ever held it
        assert own_secret_seen, "Ben never made a hidden choice from his phone"
        assert secret_views, "the watcher was never looked at while a choice was hidden"
        for m in watcher.messages:
            text = json.dumps(m)
            assert '"mine"' not in text and '"decision"' not in text
            if m["type"] == "state":
                assert m["state"]["you"] is None
        # presses came from the phone: Ben's decisions are in the journal
        bens = [r for r in Journal.open(table.journal.path).events if r.get("player") == 1]
        assert bens, "no event of Ben's was sent from his phone"
        status, state = http(net, "/api/state")
        assert status == 200 and state["finished"] and state["events"] == final["events"]
        ben.close()
        watcher.close()
    finally:
        net.close()
