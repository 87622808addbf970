"""The game so far, read from the journal: the score after every round and who lost what.

The view model (tray/screen/view.py) shows a per-round score history and, after a bust, what
each player lost. Both need more than the current state (a Tally Up! bust resets everyone to
IN; the +200 press replaces the bust in ``state["last"]``), so :func:`story_of` replays the
journal's events through the game's pure ``apply`` once per change of the journal and keeps
the answer.

>>> from tray.table.actions import Table, MemoryJournal
>>> table = Table(MemoryJournal.create(None, "bank", ["Ana", "Ben"], {"rounds": 10}, None))
>>> for dice in (["d6:2", "d6:3"], ["d6:4", "d6:1"], ["d6:6", "d6:2"], ["d6:5", "d6:2"]):
...     _ = table.roll(dice, 0.0)
>>> s = story_of(table.journal)
>>> s.rounds, s.losses
([(1, [0, 0])], {0: 18, 1: 18})
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from tray.table.dice_words import face_words

#: ``last["kind"]`` of the events where players lose what they had at stake
LOSS_KINDS = ("bust", "tally_up", "seven")


@dataclass
class Story:
    """``rounds``: (round number, [score of each seat at its end]) for every finished round.
    ``losses``: {seat: points lost} at the latest bust-like moment, kept until the next roll
    (the bust's banner, its row tags and its caption all read it). ``lines``: the last events,
    in words, newest last."""

    rounds: list[tuple[int, list]] = field(default_factory=list)
    losses: dict[int, int] = field(default_factory=dict)
    loss_kind: str | None = None
    lines: list[str] = field(default_factory=list)


_cache: dict[int, tuple[str, Story]] = {}


def _scores(game, state: dict) -> list:
    try:
        return [p.get("score", 0) for p in game.summary(state).get("players", [])]
    except (KeyError, TypeError, ValueError):
        return list(state.get("scores", []))


def losses_of(last: dict | None, players: int) -> dict[int, int]:
    """{seat: points lost} that one ``state["last"]`` records (empty when nobody lost)."""
    if not isinstance(last, dict):
        return {}
    kind = last.get("kind")
    if kind == "bust" and isinstance(last.get("busted"), list):  # Tally Up!
        return {p: int(last.get("lost", 0)) for p in last["busted"] if 0 <= p < players}
    if kind == "tally_up" and isinstance(last.get("in"), list):  # Tally Up! three stars
        return {p: int(last.get("lost", 0)) for p in last["in"] if 0 <= p < players}
    if kind == "bust" and isinstance(last.get("player"), int):  # Toss Up!
        return {last["player"]: int(last.get("lost", 0))}
    if kind == "seven" and isinstance(last.get("lost"), list):  # Bank, phase 2
        return {p: int(last.get("lost_total", 0)) for p in last["lost"] if 0 <= p < players}
    return {}


def _line(before: dict, state: dict, event: dict, players: list[str]) -> str:
    """One event in words, for the caption."""
    last = state.get("last") if isinstance(state.get("last"), dict) else {}
    who = last.get("player", before.get("active"))
    name = players[who] if isinstance(who, int) and 0 <= who < len(players) else None
    if event.get("type") == "roll":
        dice = [face_words(s.split(":", 1)[1]) for s in event.get("dice", [])]
        head = f"{name} rolled" if name else "Rolled"
        counts = {f: dice.count(f) for f in dict.fromkeys(dice)}
        if len(dice) > 4 and len(counts) <= 3 and not any(f[0].isdigit() for f in counts):
            # many dice, few named faces: "6 green, 4 yellow" (never "3 5" for three 5s)
            text = f"{head} " + ", ".join(f"{n} {f}" for f, n in counts.items())
        else:  # as they lie: "4, 2", "star, circled 200, 100"
            text = f"{head} {', '.join(dice)}"
        pts = last.get("points")
        if isinstance(pts, int) and pts:
            text += f": {pts:+d}"
        return text
    if event.get("type") == "action":
        p = event.get("player", -1)
        actor = players[p] if isinstance(p, int) and 0 <= p < len(players) else "table"
        what = str(event.get("action", "")).replace("_", " ")
        if what in ("in", "out"):
            return ""  # a secret choice: the reveal says it all at once
        return f"{actor}: {what}"
    return ""


def story_of(journal) -> Story:
    """The :class:`Story` of ``journal`` (a Journal or MemoryJournal), replayed once per change."""
    events = list(getattr(journal, "events", []))
    key = json.dumps(events, sort_keys=True, default=str)
    hit = _cache.get(id(journal))
    if hit is not None and hit[0] == key:
        return hit[1]
    game = journal.game
    now = journal.state
    players = list(now.get("players", []))
    story = Story()
    try:
        state = game.new_game(players, now.get("layout"), dict(now.get("options") or {}))
        for ev in events:
            before = state
            state = game.apply(state, ev)
            last = state.get("last") if isinstance(state.get("last"), dict) else {}
            if state.get("round") != before.get("round") or (
                state.get("finished") and not before.get("finished")
            ):
                story.rounds.append(
                    (before.get("round", len(story.rounds) + 1), _scores(game, state))
                )
            lost = losses_of(last, len(players))
            if lost:
                story.losses, story.loss_kind = lost, last.get("kind")
            elif ev.get("type") == "roll":
                story.losses, story.loss_kind = {}, None
            if last.get("kind") == "reveal":
                ins = [players[p] for p in last.get("in", []) if 0 <= p < len(players)]
                outs = [players[p] for p in last.get("out", []) if 0 <= p < len(players)]
                line = "Reveal: " + (f"{', '.join(outs)} OUT" if outs else "nobody OUT")
                if ins:
                    line += f", {', '.join(ins)} IN"
            else:
                line = _line(before, state, ev, players)
            if line:
                story.lines.append(line)
    except Exception:  # noqa: BLE001 - a journal from another engine version: show no history
        story = Story()
    story.lines = story.lines[-3:]
    _cache.clear()  # one table at a time: keep memory flat
    _cache[id(journal)] = (key, story)
    return story
