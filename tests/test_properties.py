"""Property tests for every rules engine: random legal play to the end, with many player counts
and options, checking the invariants each game promises at every step."""

from __future__ import annotations

import copy
import json
import random
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tray.playthrough import choose, default_layout, throw
from tray.rules import games
from tray.rules.engine import RuleError
from tray.rules.journal import Journal, replay

MAX_EVENTS = 5000
SUMMARY_KEYS = {"game", "players", "round", "active", "finished", "winner"}

# Values each option is tried with (keys an engine does not have are left out).
OPTION_CHOICES = {
    "bank": {"rounds": [10, 15, 20], "doubles_rule": ["double_then_add", "double_only"]},
    "tally-up": {
        "target": [300, 1000, 2500],
        "every_player_once": [False, True],
        "high_stakes": [False, True],
    },
    "toss-up": {"tie_break": [False, True]},
    "diced-out": {
        "circled": [[2, 12], [], [7], [2, 3, 11, 12]],
        "rerolls": [0, 1, 3],
        "rounds": [1, 2, 4],
    },
    "rollers": {"target": [3, 4, 5]},
}
# How often the random players take the engine's suggested choice: Rollers games played with
# purely random saves and uses run to thousands of events, so its players follow more advice.
DEFAULT_RATES = {"rollers": [0.5, 0.9]}
# Rollers games are the longest (hundreds of events, each costly to apply): fewer of them.
MAX_EXAMPLES = {"rollers": 12}
MAX_TRIED_PLAYERS = 10  # every seat count a game allows (all allow at most 10)


@st.composite
def setups(draw, game_id):
    engine = games.get(game_id)
    n = draw(st.integers(engine.MIN_PLAYERS, min(engine.MAX_PLAYERS, MAX_TRIED_PLAYERS)))
    options = {}
    for key, values in OPTION_CHOICES[game_id].items():
        if key in engine.OPTIONS and draw(st.booleans()):
            options[key] = copy.deepcopy(draw(st.sampled_from(values)))
    return {
        "players": [f"P{i + 1}" for i in range(n)],
        "options": options,
        "seed": draw(st.integers(0, 2**32 - 1)),
        "roll_rate": draw(st.sampled_from([0.3, 0.6, 0.9])),
        "table_rate": draw(st.sampled_from([0.0, 0.0, 0.003, 0.3])),
        "default_rate": draw(st.sampled_from(DEFAULT_RATES.get(game_id, [0.2, 0.5, 0.9]))),
    }


def illegal_events(engine, state, e, last_spec, rng):
    """Events the rules must refuse in ``state`` (whose expect() is ``e``)."""
    n = len(state["players"])
    names = sorted({a for d in e.decisions for a in d.actions}) or ["bank"]
    out = [
        {"type": "roll", "dice": ["nosuch:1"]},
        {"type": "action", "player": n + 2, "action": rng.choice(names)},
        {"type": "teleport"},
    ]
    if e.roll is not None:
        extra = throw(e.roll, rng, state["layout"])
        extra["dice"].append(extra["dice"][0])  # one die too many
        out.append(extra)
    elif last_spec is not None:
        out.append(throw(last_spec, rng, state["layout"]))  # a roll nobody asked for
    return out


def check_step(game_id, engine, prev, state):
    """The invariants between two successive states."""
    n = len(state["players"])
    scores = state["scores"]
    assert len(scores) == n
    assert all(isinstance(s, int) and s >= 0 for s in scores), scores
    # every game's scores only grow (nothing ever takes banked points away)
    assert all(b >= a for a, b in zip(prev["scores"], scores, strict=True)), (
        prev["scores"],
        scores,
    )
    if game_id == "bank":
        assert state["total"] >= 0
        assert 1 <= state["round"] <= state["options"]["rounds"]
    elif game_id == "diced-out":
        for rounds in state["round_scores"]:
            assert all(0 <= r <= 77 for r in rounds), rounds
    elif game_id == "rollers":
        table = 55 * n
        chips = state["chips"]
        assert all(0 <= c <= table for c in chips), chips
        if state["round"] == prev["round"]:
            assert sum(chips) <= sum(prev["chips"]), (prev["chips"], chips)


def check_summary(engine, state):
    summ = engine.summary(state)
    assert SUMMARY_KEYS <= set(summ), SUMMARY_KEYS - set(summ)
    assert [p["name"] for p in summ["players"]] == state["players"]
    assert [p["score"] for p in summ["players"]] == state["scores"]
    assert summ["finished"] == state["finished"]
    if not state["finished"]:
        assert summ["winner"] is None
    else:
        win = summ["winner"]
        assert win in state["players"] or (
            isinstance(win, list) and win and set(win) <= set(state["players"])
        )
    assert json.loads(json.dumps(summ)) == summ
    return summ


def check_final(game_id, engine, state, setup):
    summ = check_summary(engine, state)
    win = summ["winner"]
    names = win if isinstance(win, list) else [win]
    score = dict(zip(state["players"], state["scores"], strict=True))
    if game_id == "toss-up":
        assert all(score[w] > 100 for w in names), (names, score)
    if game_id == "diced-out":  # the game total is the sum of the round scores
        assert state["scores"] == [sum(r) for r in state["round_scores"]]
        assert all(len(r) == state["options"]["rounds"] for r in state["round_scores"])
    if game_id == "bank" and not state.get("ended_early"):
        assert state["round"] == state["options"]["rounds"]


def run_game(game_id, setup):
    """Play one random game, checking every step; returns (events, states)."""
    engine = games.get(game_id)
    rng = random.Random(setup["seed"])
    bad_rng = random.Random(setup["seed"] + 1)
    state = engine.new_game(setup["players"], default_layout(game_id), setup["options"])
    check_summary(engine, state)
    events, states = [], [state]
    last_spec = None
    while True:
        e = engine.expect(state)
        if e.finished:
            break
        assert len(events) < MAX_EVENTS, f"{game_id} did not end in {MAX_EVENTS} events"
        assert e.prompt, "expect() must say in words what happens next"
        bad_events = illegal_events(engine, state, e, last_spec, bad_rng)
        if bad_rng.random() < 0.7:  # checked at a random 30% of the steps, to keep it fast
            bad_events = []
        for bad in bad_events:
            before = copy.deepcopy(state)
            with pytest.raises(RuleError):
                engine.apply(state, bad)
            assert state == before, f"refused {bad} changed the state"
        if e.roll is not None:
            last_spec = e.roll
        ev = choose(
            e,
            rng,
            state["layout"],
            roll_rate=setup["roll_rate"],
            table_rate=setup["table_rate"],
            default_rate=setup["default_rate"],
        )
        before = copy.deepcopy(state)
        new = engine.apply(state, ev)
        assert state == before, "apply() changed its input"
        check_step(game_id, engine, state, new)
        assert json.loads(json.dumps(new)) == new, "a state must be plain JSON data"
        events.append(ev)
        states.append(new)
        state = new
    # a finished game refuses everything
    for ev in events[-1:]:
        with pytest.raises(RuleError):
            engine.apply(state, ev)
    check_final(game_id, engine, state, setup)
    return events, states


def check_journal(game_id, setup, events, states):
    """Write the game to a journal with a detour (an event undone), replay it, then try a
    correction of a random roll: accepted -> replay agrees; refused -> nothing written."""
    rng = random.Random(setup["seed"] + 2)
    detour_at = rng.randrange(len(events)) if events else -1
    with tempfile.TemporaryDirectory() as tmp, mock.patch("tray.rules.journal.os.fsync"):
        path = Path(tmp) / "game.jsonl"
        j = Journal.create(
            path, game_id, setup["players"], setup["options"], default_layout(game_id)
        )
        assert j.state == states[0]
        for i, ev in enumerate(events):
            if i == detour_at:
                other = choose(j.expect(), rng, j.state["layout"], table_rate=0.3)
                j.append(other)
                assert j.undo() == states[i]
            assert j.append(ev) == states[i + 1]
        assert replay(path) == states[-1]
        rolls = [k for k, ev in enumerate(events, start=1) if ev["type"] == "roll"]
        if not rolls:
            return
        k = rng.choice(rolls)
        layout = states[0]["layout"]
        dice = [
            f"{d.split(':')[0]}:{rng.choice(layout[d.split(':')[0]])}"
            for d in events[k - 1]["dice"]
        ]
        size = path.stat().st_size
        before = j.state
        try:
            after = j.correct(k, dice)
        except RuleError as exc:
            assert path.stat().st_size == size and j.state == before, exc
        else:
            assert replay(path) == after
            assert j.events[k - 1]["dice"] == dice


@pytest.mark.parametrize("game_id", games.GAME_IDS)
def test_random_legal_play_keeps_every_invariant(game_id):
    # no shrinking: a failing game is reported as drawn (shrinking whole games takes minutes)
    @settings(
        max_examples=MAX_EXAMPLES.get(game_id, 30),
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(setup=setups(game_id))
    def prop(setup):
        events, states = run_game(game_id, setup)
        assert states[-1]["finished"]
        check_journal(game_id, setup, events, states)

    prop()


@pytest.mark.parametrize("game_id", games.GAME_IDS)
def test_the_engine_module_has_the_interface(game_id):
    engine = games.get(game_id)
    for name in (
        "GAME_ID",
        "TITLE",
        "DICE_SET",
        "MIN_PLAYERS",
        "MAX_PLAYERS",
        "OPTIONS",
        "new_game",
        "expect",
        "apply",
        "summary",
    ):
        assert hasattr(engine, name), f"{game_id} has no {name}"
    assert engine.GAME_ID == game_id
    assert 2 <= engine.MIN_PLAYERS <= engine.MAX_PLAYERS
    state = engine.new_game([f"P{i}" for i in range(engine.MIN_PLAYERS)], default_layout(game_id))
    for key in (
        "game",
        "players",
        "scores",
        "round",
        "active",
        "finished",
        "layout",
        "options",
        "last",
    ):
        assert key in state, f"{game_id} state has no {key!r}"
    assert state["options"] == {**engine.OPTIONS, **state["options"]}
    with pytest.raises(RuleError):
        engine.new_game(["Solo"] * (engine.MIN_PLAYERS - 1), default_layout(game_id))


# ------------------------------------------------------------------ the random player itself


def test_play_is_deterministic_for_a_seed():
    from tray.playthrough import play

    a = play("bank", ["Ann", "Ben"], {"rounds": 10}, seed=5)
    assert a == play("bank", ["Ann", "Ben"], {"rounds": 10}, seed=5)
    assert a != play("bank", ["Ann", "Ben"], {"rounds": 10}, seed=6)


def test_throw_takes_distinct_dice_from_choose_from_and_faces_from_the_layout():
    from tray.rules.engine import RollSpec, check_roll, parse_die

    layout = {"red": ["star", "200"], "blue": ["100"], "green": ["150"], "up": ["x2"]}
    spec = RollSpec(roller=0, count=3, dice_set="tally-up", choose_from=("red", "blue", "green"))
    rng = random.Random(0)
    for _ in range(50):
        ev = throw(spec, rng, layout)
        dice = [parse_die(d) for d in ev["dice"]]
        check_roll(spec, dice, layout)
        assert sorted(d for d, _ in dice) == ["blue", "green", "red"]


def test_choose_takes_table_actions_only_when_asked_or_when_nothing_else_can_happen():
    from tray.rules.engine import Decision, Expect, RollSpec, action

    end = action(-1, "end_game")
    table = Decision(player=-1, actions=("end_game",), choices=(end,), default=end)
    spec = RollSpec(roller=0, count=2, dice_set="d6", dice=("d6", "d6"))
    rng = random.Random(1)
    with_roll = Expect(prompt="roll", roll=spec, decisions=(table,))
    assert all(choose(with_roll, rng)["type"] == "roll" for _ in range(200))
    assert choose(with_roll, rng, table_rate=1.0) == end
    only_table = Expect(prompt="nobody pressed?", decisions=(table,))
    assert choose(only_table, rng) == end
    with pytest.raises(ValueError, match="game is over"):
        choose(Expect(prompt="over", finished=True), rng)


def test_choose_follows_the_default_at_the_default_rate():
    from tray.rules.engine import Decision, Expect, action

    options = tuple(action(0, "mark", number=n) for n in range(2, 13))
    d = Decision(player=0, actions=("mark",), choices=options, default=options[-1])
    e = Expect(prompt="mark one", decisions=(d,))
    rng = random.Random(2)
    assert all(choose(e, rng, default_rate=1.0) == options[-1] for _ in range(20))
    picks = {choose(e, rng, default_rate=0.0)["number"] for _ in range(300)}
    assert picks == set(range(2, 13))


def test_format_playthrough_lists_every_event_with_what_follows():
    from tray.playthrough import format_playthrough, play

    events = play("bank", ["Ann", "Ben"], {"rounds": 10}, seed=4)
    text = format_playthrough(
        "bank", {"players": ["Ann", "Ben"], "options": {"rounds": 10}, "seed": 4}, events
    )
    lines = text.splitlines()
    assert lines[0] == '# Bank (bank): players Ann, Ben; options {"rounds":10}; seed 4'
    assert sum(1 for x in lines if x[:1].isdigit()) == len(events)
    assert lines[-2].startswith("   > Game over")
    assert lines[-1].startswith("summary: ") and '"finished":true' in lines[-1]
