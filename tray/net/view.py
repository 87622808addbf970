"""What one client may see of the table: the state projected per viewer.

The game loop builds a :class:`Snapshot` of the table after every turn that changed something:
a ``public`` part every phone, the tournament page and the broker may see, and a ``private``
part per seat that only the phone holding that seat's claim gets (its own hidden IN/OUT choice,
what its presses do now). :func:`player_view` puts them together for one viewer, like
boardgame.io's ``playerView`` or OpenSpiel's observers. The hidden choices live only in
``Table.secret`` until the reveal: the public part names who has chosen, never what.

>>> from tray.table.memory import MemoryJournal
>>> from tray.table.table import Table
>>> table = Table(MemoryJournal.create(None, "tally-up", ["Ana", "Ben"], {}, None))
>>> table.roll(["red:200", "blue:100", "green:150"], t=0.0)
True
>>> table.press(1, t=1.0)                          # Ben chooses IN, in secret
'chose'
>>> snap = snapshot(table, events=1)
>>> [p["chosen"] for p in player_view(snap, None)["players"]]
[False, True]
>>> player_view(snap, 1)["you"]["decision"]["mine"], player_view(snap, 0)["you"]["decision"]["mine"]
('in', None)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from tray.table.choices import choice_label, classify_decision
from tray.table.table import Table

LOG_LINES = 12  # the last event lines a phone shows


@dataclass
class Snapshot:
    """The table at one moment: ``public`` for everyone, ``private[seat]`` for that seat's
    phone alone."""

    public: dict
    private: dict[int, dict] = field(default_factory=dict)

    def key(self) -> str:
        """A text that changes whenever anything a viewer could see changes."""
        return json.dumps([self.public, self.private], sort_keys=True, default=str)


def _dice(specs: list[str]) -> list[dict]:
    out = []
    for s in specs:
        die, _, face = str(s).partition(":")
        out.append({"die": die, "face": face})
    return out


def _odds(state: dict) -> list[dict]:
    """The odds of the decision at hand as short lines (empty when nothing is left to chance,
    or the game has no odds)."""
    from tray.rules.odds import odds_json

    try:
        options = odds_json(state)["options"]
    except (ValueError, KeyError, TypeError):
        return []
    out = []
    for o in options[:6]:
        line = {
            "choice": str(o.get("choice", "")),
            "p_bust": round(float(o.get("p_bust", 0.0)), 4),
            "expect": round(float(o.get("expected_points", 0.0)), 2),
        }
        out.append(line)
    return out


def _press_words(table: Table, seat: int) -> dict:
    """What this seat's button does now: the decision, its choices and what a press and a
    long press mean (the same as on the tray: the phone's button goes the GPIO button's way)."""
    players = table.players
    if table.expect().finished or table.menu is not None:
        m = table.menu
        if m is None or (m.owner is not None and m.owner != seat):
            return {"kind": "none", "press": "", "hold": ""}
        title, labels, focus = m.shown()
        return {
            "kind": "menu",
            "title": title,
            "labels": list(labels),
            "highlighted": int(focus),
            "press": "next line",
            "hold": "OK",
        }
    c = table.correction
    spec = table.expect().roll
    if c is not None and (seat == table.correction_owner or (spec and spec.roller == seat)):
        return {"kind": "correct", "press": "next face", "hold": "this die is right"}
    d = table.decision_of(seat)
    if d is None:
        return {"kind": "none", "press": "", "hold": "table menu (undo, end, leave)"}
    kind = classify_decision(d)
    if kind == "secret":
        return {
            "kind": "secret",
            "mine": table.secret.get(seat),
            "press": "IN / OUT (each press switches)",
            "hold": "reveal now" if table._is_active(seat) else "",
        }
    if kind == "single":
        return {
            "kind": "single",
            "labels": [choice_label(d.choices[0], players)],
            "press": choice_label(d.choices[0], players),
            "hold": "",
        }
    b = table.save_builder(seat) if kind == "choice" else None
    if b is not None:
        return {
            "kind": "choice",
            "labels": list(b.labels()),
            "highlighted": int(b.focus),
            "press": "next",
            "hold": "keep / let go, or OK",
        }
    if kind == "choice":
        return {
            "kind": "choice",
            "labels": [choice_label(x, players) for x in d.choices],
            "highlighted": table.highlighted(seat),
            "press": "next choice",
            "hold": "OK",
        }
    return {"kind": "none", "press": "", "hold": ""}


def snapshot(
    table: Table,
    *,
    events: int,
    table_code: str = "",
    phones: list[int] | None = None,
    odds: list[dict] | None = None,
) -> Snapshot:
    """The table now, split into what everyone may see and what each seat alone may see.

    ``events``: journal records so far (header excluded; the broker's ``index``).
    ``phones``: seats held by a phone. ``odds``: the odds lines (computed once per journal
    change by the caller; None: computed here)."""
    state = table.state
    e = table.expect()
    game = table.journal.game
    summary = game.summary(state)
    names = table.players
    active = state.get("active")
    awaited = {d.player for d in e.decisions if d.player >= 0}
    if e.roll is not None:
        awaited.add(e.roll.roller)
    phones = phones or []
    players = []
    for i, row in enumerate(summary.get("players", [])):
        players.append(
            {
                "seat": i,
                "name": row.get("name"),
                "score": row.get("score"),
                "active": active == i,
                "awaited": i in awaited and i not in table.secret and not e.finished,
                "chosen": i in table.secret,  # who has chosen, never what
                "phone": i in phones,
            }
        )
    total = state.get("total", state.get("running"))
    public = {
        "table": table_code,
        "game": state.get("game"),
        "title": getattr(game, "TITLE", state.get("game")),
        "dice_set": getattr(game, "DICE_SET", ""),
        "players": players,
        "turn": names[active] if isinstance(active, int) and 0 <= active < len(names) else None,
        "turn_seat": active if isinstance(active, int) else None,
        "round": state.get("round"),
        "finished": bool(e.finished),
        "winner": summary.get("winner"),
        "events": int(events),
        "prompt": e.prompt,
        "roll": _dice(table.last_roll),
        "total": total if isinstance(total, (int, float)) else None,
        "odds": _odds(state) if odds is None else odds,
        "countdown": table.counting_down(),
        "reveal": table.revealed,
        "message": table.message.text if table.message is not None else None,
        "log": list(table.log[-LOG_LINES:]),
        "summary": summary,
    }
    private = {}
    for i in range(len(names)):
        private[i] = {"seat": i, "name": names[i], "decision": _press_words(table, i)}
    return Snapshot(public, private)


def player_view(snap: Snapshot, seat: int | None) -> dict:
    """What the viewer holding ``seat`` (None: a phone that only watches) receives: the public
    part, plus ``you`` (that seat's private part) for a seat's own phone."""
    view = dict(snap.public)
    view["you"] = snap.private.get(seat) if seat is not None else None
    return view
