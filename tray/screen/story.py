"""The game so far, read from the journal: the score after every round and who lost what.

The view model (tray/screen/view.py) shows a per-round score history and, after a bust, what
each player lost. Both need more than the current state (a Tally Up! bust resets everyone to
IN; the +200 press replaces the bust in ``state["last"]``), so :func:`story_of` replays the
journal's events through the game's pure ``apply`` once per change of the journal and keeps
the answer.

>>> from tray.table.memory import MemoryJournal

>>> from tray.table.table import Table
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

from tray.rules.engine import RuleError
from tray.table.dice_words import face_words


@dataclass
class Story:
    """``rounds``: (round number, [score of each seat at its end]) for every finished round.
    ``losses``: {seat: points lost} at the latest bust-like moment, kept until the next roll
    (the bust's banner, its row tags and its caption all read it), ``loss`` its words ("Bust",
    "Three stars", "Seven"). ``lines``: the last events, in words, newest last."""

    rounds: list[tuple[int, list]] = field(default_factory=list)
    losses: dict[int, int] = field(default_factory=dict)
    loss: str = ""
    lines: list[str] = field(default_factory=list)


_cache: dict[int, tuple[str, Story]] = {}


def _scores(game, state: dict) -> list:
    return [p.get("score", 0) for p in game.summary(state).get("players", [])]


def _line(before: dict, facts, event: dict, players: list[str]) -> str:
    """One event in words, for the caption (``facts``: the game's Facts after it)."""
    who = facts.actor if facts.actor is not None else before.get("active")
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
        if facts.points:
            text += f": {facts.points:+d}"
        return text
    if event.get("type") == "action":
        p = event.get("player", -1)
        actor = players[p] if isinstance(p, int) and 0 <= p < len(players) else "table"
        what = str(event.get("action", "")).replace("_", " ")
        if what in ("in", "out"):
            return ""  # a secret choice: the reveal says it all at once
        return f"{actor}: {what}"
    return ""


def _reveal_line(reveal: tuple, players: list[str]) -> str:
    """ "Reveal: Ben OUT, Ana IN" from the seats (IN, OUT) a reveal shows."""
    ins, outs = ([players[p] for p in seats if 0 <= p < len(players)] for seats in reveal)
    line = "Reveal: " + (f"{', '.join(outs)} OUT" if outs else "nobody OUT")
    return line + (f", {', '.join(ins)} IN" if ins else "")


def story_of(journal) -> Story:
    """The :class:`Story` of ``journal`` (a Journal or MemoryJournal), replayed once per change."""
    events = list(getattr(journal, "events", []))
    key = json.dumps(events, sort_keys=True, default=str)
    hit = _cache.get(id(journal))
    if hit is not None and hit[0] == key:
        return hit[1]
    game = journal.game
    now = journal.state
    players = list(now["players"])
    story = Story()
    try:
        state = game.new_game(players, now["layout"], dict(now["options"]))
        for ev in events:
            before = state
            state = game.apply(state, ev)
            facts = game.facts(state)
            if state["round"] != before["round"] or (state["finished"] and not before["finished"]):
                story.rounds.append((before["round"], _scores(game, state)))
            if facts.losses:
                story.losses, story.loss = dict(facts.losses), facts.loss
            elif ev.get("type") == "roll":
                story.losses, story.loss = {}, ""
            if facts.reveal is not None:
                line = _reveal_line(facts.reveal, players)
            else:
                line = _line(before, facts, ev, players)
            if line:
                story.lines.append(line)
    except RuleError:  # a journal the engine no longer replays (another version): no history
        story = Story()
    story.lines = story.lines[-3:]
    _cache.clear()  # one table at a time: keep memory flat
    _cache[id(journal)] = (key, story)
    return story
