"""An in-memory journal with the Journal API, for screenshots and tests that need no file."""

from __future__ import annotations

from tray.layouts import default_layout
from tray.rules import engine, games
from tray.rules.engine import Expect, RuleError


class MemoryJournal:
    """An in-memory stand-in with the Journal API (state, expect, append, undo, correct,
    events), for screenshots and tests that need no file. Same semantics: a refused event
    leaves it unchanged.

    >>> j = MemoryJournal.create(None, "bank", ["Ana", "Ben"], {}, None)
    >>> j.expect().roll.dice
    ('d6', 'd6')
    """

    def __init__(self, game_id: str, players: list[str], options: dict, layout: dict):
        self.game = games.get(game_id)
        self.game_id = game_id
        self.players = list(players)
        self.options = dict(options or {})
        self.layout = layout
        self._start = self.game.new_game(list(players), layout, dict(options or {}))
        self.events: list[dict] = []
        self._states = [self._start]
        self.path = None

    @classmethod
    def create(cls, path, game_id, players, options, layout):
        """Like ``Journal.create`` (``path`` ignored; ``layout`` None = the game's dice set)."""
        if layout is None:
            layout = default_layout(game_id)
        return cls(game_id, players, options, layout)

    @property
    def state(self) -> dict:
        return self._states[-1]

    def expect(self) -> Expect:
        return self.game.expect(self.state)

    def append(self, event: dict) -> dict:
        new = self.game.apply(self.state, event)
        self.events.append(event)
        self._states.append(new)
        return new

    def undo(self) -> dict:
        if not self.events:
            raise RuleError("Nothing to undo: the game has just started")
        self.events.pop()
        self._states.pop()
        return self.state

    def correct(self, event_number: int, dice: list[str]) -> dict:
        """Replace the dice of roll event ``event_number`` (1-based, like Journal.correct)."""
        events = [dict(e) for e in self.events]
        if not (1 <= event_number <= len(events)) or events[event_number - 1].get("type") != "roll":
            raise RuleError(f"There is no roll {event_number} to correct")
        events[event_number - 1] = engine.roll(*dice)
        states = [self._start]
        for i, e in enumerate(events, 1):
            try:
                states.append(self.game.apply(states[-1], e))
            except RuleError as exc:
                raise RuleError(f"That correction makes event {i} impossible: {exc}") from None
        self.events, self._states = events, states
        return self.state
