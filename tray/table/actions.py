"""What a button press, a key, a tap or a settled roll means for the game on the table.

This module is the app's logic without pygame, without a camera and without a clock of its
own: every method takes the time ``t`` (seconds, any monotonic origin) from the caller, so
tests drive it instantly. It sits between the inputs and the journal (tray/rules/journal.py):

* **Rolls.** A settled roll is taken only when the game waits for one and it is the roll the
  game expects (``engine.check_roll`` with ``expect().roll``); otherwise :attr:`Table.message`
  says what is wrong and nothing is scored. Dice vision could not read open a correction: the
  unread dice are marked, a player cycles the face of the selected die (keys Up/Down, a tap, or
  the roller's button) and confirms (Enter, a long press); nothing is scored until the roll is
  whole. A correction after the fact goes through ``Journal.correct``, undo through
  ``Journal.undo``.
* **IN/OUT in secret.** A press toggles that player's hidden choice (first press IN, the next
  OUT, and so on). The screen shows who has chosen, never what. When everyone awaited has
  chosen, or when the active player confirms (long press / Enter; players who did not press
  take the game's suggested default), a countdown "1… 2… 3…" runs, then all choices go to the
  engine together, in seat order.
* **One-press decisions.** Bank: a press banks at once. Toss Up!: the active player's press
  stops. Tally Up!: the first press after three stars wins the +200; when the window
  (option ``press_window_s``) runs out, the table sends ``action(-1, "window_closed")``.
* **Choices** (DICEDOUT! extra mark and reroll loss, Rollers saves and how to apply): the
  engine's suggested default is highlighted; a short press of the deciding player moves the
  highlight to the next choice, a long press (or Enter, or a second tap) confirms.

>>> from tray.table.actions import Table, MemoryJournal
>>> table = Table(MemoryJournal.create(None, "bank", ["Ana", "Ben"], {}, None))
>>> table.roll(["d6:3", "d6:1", "d6:2"], t=0.0)     # the game waits for two dice
False
>>> table.message.text
'3 dice seen: roll both dice'
>>> table.roll(["d6:3", "d6:1"], t=1.0), table.state["total"]
(True, 4)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tray.rules import engine
from tray.rules.engine import Decision, Expect, RuleError

#: ``state["last"]["kind"]`` values worth a banner, with the words on it.
BIG_MOMENTS = {
    "bust": "BUST!",
    "tally_up": "TALLY UP!",
    "diced_out": "DICEDOUT!",
    "dicedout": "DICEDOUT!",
    "zap": "ZAP!",
    "seven": "SEVEN!",
    "round_over_seven": "SEVEN!",
    "all_green": "ALL GREEN!",
    "complete": "ALL MARKED!",
    "seventy": "SEVENTY!",
    "doubles": "DOUBLES!",
    "round_end": "ROUND OVER",
    "game_over": "GAME OVER",
}



def moment_of(last) -> str | None:
    """The big-moment kind of ``state["last"]`` (a key of BIG_MOMENTS), or None."""
    if not isinstance(last, dict):
        return None
    kind = last.get("kind")
    if kind == "roll" and last.get("all_back"):
        return "all_green"
    if kind in ("apply", "roll") and last.get("round_over") and last.get("round_end"):
        return "round_end"
    return kind if kind in BIG_MOMENTS else None


COUNTDOWN_S = 3.0
UNDO_CONFIRM_S = 5.0
MESSAGE_S = 6.0
BANNER_S = 3.0


@dataclass
class Message:
    """A message overlay: ``kind`` is "wrong_roll", "unreadable", "camera", "info" or "error"."""

    text: str
    kind: str = "info"
    until: float | None = None  # None: until cleared


@dataclass
class Slot:
    """One die of a roll being corrected: its reading (``spec`` None when unread) and the
    ``die:face`` candidates a player cycles through (unread dice only)."""

    spec: str | None
    candidates: tuple[str, ...] = ()
    index: int = -1          # into candidates; -1 = not chosen yet
    was_unread: bool = False
    box: tuple[int, int, int, int] | None = None

    @property
    def value(self) -> str | None:
        if self.index >= 0 and self.candidates:
            return self.candidates[self.index]
        return self.spec


@dataclass
class Correction:
    """A roll under correction: the dice, which one is selected, and what confirming does
    (``event`` None: a new roll to append; an int: ``Journal.correct`` of that event)."""

    slots: list[Slot]
    selected: int = 0
    event: int | None = None

    @property
    def whole(self) -> bool:
        return all(s.value is not None for s in self.slots)

    def specs(self) -> list[str]:
        return [s.value for s in self.slots if s.value is not None]

    def cycle(self, step: int = 1) -> None:
        """Show the next (or previous) face on the selected die."""
        if not self.slots:
            return
        s = self.slots[self.selected]
        if not s.candidates:
            return
        if s.index < 0:
            s.index = 0 if step > 0 else len(s.candidates) - 1
        else:
            s.index = (s.index + step) % len(s.candidates)

    def select(self, i: int) -> None:
        if self.slots:
            self.selected = i % len(self.slots)

    def next_unfixed(self) -> bool:
        """Select the next die still unread; False when none is left."""
        n = len(self.slots)
        for k in range(1, n + 1):
            i = (self.selected + k) % n
            if self.slots[i].value is None:
                self.selected = i
                return True
        return False


def candidates_for(layout: dict[str, list[str]], die: str | None, spec: engine.RollSpec | None,
                   known: list[str]) -> tuple[str, ...]:
    """Every ``die:face`` an unread die may be, the likeliest first.

    A die whose colour was read offers only its faces; otherwise the dice the game waits for
    (minus those already read) come first, then the other dice of the set.
    """
    if die is not None and die in layout:
        dice = [die]
    else:
        wanted: list[str] = []
        if spec is not None:
            pool = list(spec.dice) if spec.dice is not None else list(spec.choose_from or ())
            for k in known:
                d = k.split(":", 1)[0]
                if spec.dice is not None and d in pool:
                    pool.remove(d)
            wanted = [d for d in dict.fromkeys(pool) if d in layout]
        dice = wanted + [d for d in layout if d not in wanted]
    out = []
    for d in dice:
        for f in dict.fromkeys(layout[d]):
            out.append(f"{d}:{f}")
    return tuple(out)


def choice_label(event: dict, players: list[str] | None = None) -> str:
    """Short words for an action event offered as a choice ("mark 11", "save 1, 3", "stop")."""
    name = str(event.get("action", "?")).replace("_", " ")
    extras = {k: v for k, v in event.items() if k not in ("type", "player", "action")}
    parts = [name]
    for k, v in extras.items():
        if k in ("target", "victim", "who", "loser") and isinstance(v, int) and players \
                and 0 <= v < len(players):
            parts.append(players[v])
        elif isinstance(v, list):
            parts.append(f"{k} " + (", ".join(str(x) for x in v) if v else "none"))
        elif isinstance(v, dict):
            parts.append(", ".join(f"{a}={b}" for a, b in v.items()))
        else:
            parts.append(f"{k} {v}" if k not in ("number", "value", "section") else str(v))
    return " ".join(parts)


def classify_decision(d: Decision) -> str:
    """How a player answers a decision with buttons: "secret" (IN/OUT toggle), "single" (one
    press sends it), "choice" (cycle + confirm) or "none" (nothing a button can send)."""
    if d.secret:
        return "secret"
    if len(d.choices) == 1:
        return "single"
    if len(d.choices) > 1:
        return "choice"
    return "none"


class MemoryJournal:
    """An in-memory stand-in with the Journal API (state, expect, append, undo, correct,
    events), for screenshots and tests that need no file. Same semantics: a refused event
    leaves it unchanged.

    >>> j = MemoryJournal.create(None, "bank", ["Ana", "Ben"], {}, None)
    >>> j.expect().roll.dice
    ('d6', 'd6')
    """

    def __init__(self, game_id: str, players: list[str], options: dict, layout: dict):
        from tray.rules import games

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
            from tray.rules import games
            from vision import dicesets

            layout = dicesets.load(games.get(game_id).DICE_SET).layout()
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


class Table:
    """The table between the inputs and the journal. All inputs carry the time ``t``.

    ``journal``: a tray.rules.journal.Journal (or MemoryJournal). ``countdown_s``: the IN/OUT
    countdown. ``on_event(kind, text)``: called for every log line ("roll", "action", "banner",
    "refused", ...), e.g. to print a game log or take screenshots.

    >>> from tray.table.actions import Table, MemoryJournal
    >>> table = Table(MemoryJournal.create(None, "tally-up", ["Ana", "Ben"], {}, None))
    >>> table.roll(["red:200", "blue:100", "green:150"], t=0.0)
    True
    >>> table.press(1, t=1.0), table.chosen()      # Ben chose (IN), nobody sees what
    ('chose', [1])
    """

    def __init__(self, journal, countdown_s: float = COUNTDOWN_S,
                 on_event: Callable[[str, str], None] | None = None):
        self.journal = journal
        self.countdown_s = countdown_s
        self.on_event = on_event
        self.secret: dict[int, str] = {}
        self.countdown_from: float | None = None
        self.highlight: dict[int, int] = {}
        self.correction: Correction | None = None
        self.message: Message | None = None
        self.banner: tuple[str, str, float] | None = None   # (kind, text, until)
        self.window_from: float | None = None
        self.camera_lost_since: float | None = None
        self.revealed: dict | None = None   # {"in": [names], "out": [names]} of the last reveal
        self.log: list[str] = []
        self.last_roll: list[str] = []   # the dice of the last roll taken, for the screen
        self.rolls_taken = 0             # rolls this table sent to the journal
        self.undo_asked: float | None = None
        self.now = 0.0
        self._expect_cache: Expect | None = None

    # ------------------------------------------------------------------ state
    @property
    def state(self) -> dict:
        return self.journal.state

    def expect(self) -> Expect:
        if self._expect_cache is None:
            self._expect_cache = self.journal.expect()
        return self._expect_cache

    @property
    def players(self) -> list[str]:
        return list(self.state.get("players", []))

    def name(self, p: int) -> str:
        if p < 0:
            return "table"
        pl = self.players
        return pl[p] if 0 <= p < len(pl) else f"player {p + 1}"

    def decision_of(self, player: int) -> Decision | None:
        for d in self.expect().decisions:
            if d.player == player:
                return d
        return None

    def secret_decisions(self) -> list[Decision]:
        return [d for d in self.expect().decisions if d.secret]

    def counting_down(self) -> bool:
        return self.countdown_from is not None

    def countdown_number(self, t: float) -> int | None:
        """1, 2 or 3 while the countdown runs, else None."""
        if self.countdown_from is None:
            return None
        return min(3, int((t - self.countdown_from) / max(self.countdown_s, 1e-9) * 3) + 1)

    def chosen(self) -> list[int]:
        """Seats that have made their hidden choice (never what they chose)."""
        return sorted(self.secret)

    def window_decision(self) -> dict | None:
        """The table event that closes a timed press window, if the game has one open."""
        for d in self.expect().decisions:
            if d.player == -1:
                for c in d.choices:
                    if c.get("action") == "window_closed":
                        return c
        return None

    def window_seconds(self) -> float:
        return float(self.state.get("options", {}).get("press_window_s", 5))

    # ---------------------------------------------------------------- journal
    def _emit(self, kind: str, text: str) -> None:
        self.log.append(text)
        if self.on_event is not None:
            self.on_event(kind, text)

    def _changed(self, t: float) -> None:
        self._expect_cache = None
        self.secret.clear()
        self.highlight.clear()
        self.countdown_from = None
        self.window_from = None
        e = self.expect()
        if self.window_decision() is not None:
            self.window_from = t
        last = self.state.get("last") or {}
        kind = last.get("kind") if isinstance(last, dict) else None
        moment = moment_of(last)
        if kind == "reveal":
            self.revealed = {k: [self.name(x) if isinstance(x, int) else str(x)
                                 for x in last.get(k, [])] for k in ("in", "out")}
        if moment is not None:
            self.banner = (moment, BIG_MOMENTS[moment], t + BANNER_S)
            self._emit("banner", BIG_MOMENTS[moment])
        if e.finished:
            self.banner = ("game_over", "GAME OVER", t + 1e9)
            self._emit("finished", "game over")

    def send(self, event: dict, t: float) -> bool:
        """Append an engine event to the journal (written before anything shows it). A refused
        event shows its message and changes nothing. Returns whether it was taken."""
        self.now = t
        who = ""
        if event.get("type") == "roll":
            spec = self.expect().roll
            who = f"{self.name(spec.roller)} " if spec is not None else ""
        try:
            self.journal.append(event)
        except RuleError as exc:
            self.message = Message(str(exc), "wrong_roll" if event.get("type") == "roll"
                                   else "error", t + MESSAGE_S)
            self._emit("refused", f"refused: {exc}")
            return False
        except OSError as exc:  # journal.JournalWriteError: a full disk; nothing written is lost
            self.message = Message(str(exc), "error")
            self._emit("refused", f"not written: {exc}")
            return False
        if event.get("type") == "roll":
            self.last_roll = list(event.get("dice", []))
            self.rolls_taken += 1
        self._emit(event.get("type", "event"), who + self.describe(event))
        if self.message is not None and self.message.kind in ("wrong_roll", "unreadable", "error"):
            self.message = None
        self._changed(t)
        return True

    def describe(self, event: dict) -> str:
        """One log line for an event ("Ana rolled red:star, blue:100", "Ben: bank")."""
        if event.get("type") == "roll":
            return "rolled " + ", ".join(event.get("dice", []))
        if event.get("type") == "action":
            return f"{self.name(event.get('player', -1))}: {choice_label(event, self.players)}"
        return str(event)

    # ----------------------------------------------------------------- inputs
    def press(self, player: int, t: float, long: bool = False) -> str:
        """A player's button (or key 1-0, or a tap on their name). Returns what it did, in
        words (also the answer the tests check)."""
        self.now = t
        if self.expect().finished:
            return "game over"
        spec = self.expect().roll
        if self.correction is not None and self.correction.event is None and (
                spec is None or player == spec.roller or self.decision_of(player) is None):
            # the roller's button fixes an unread die: short = next face, long = confirm
            # (another player with a decision of their own, like banking, keeps it)
            if long:
                return self.confirm_correction(t)
            self.correction.cycle(1)
            return "cycled face"
        d = self.decision_of(player)
        if d is None:
            if long:
                return self.undo_request(t)
            return f"nothing for {self.name(player)} to decide now"
        kind = classify_decision(d)
        if kind == "secret":
            if long and self._is_active(player):
                self.start_countdown(t)
                return "countdown"
            cur = self.secret.get(player)
            self.secret[player] = "in" if cur in (None, "out") else "out"
            if all(s.player in self.secret for s in self.secret_decisions()):
                self.start_countdown(t)
            return "chose"
        if kind == "single":
            return "sent" if self.send(dict(d.choices[0]), t) else "refused"
        if kind == "choice":
            if long:
                return "sent" if self.confirm_choice(player, t) else "refused"
            i = self.highlighted(player)
            self.highlight[player] = (i + 1) % len(d.choices)
            return "cycled"
        return "nothing to press"

    def _is_active(self, player: int) -> bool:
        return player == self.state.get("active")

    def highlighted(self, player: int) -> int:
        """Index into that player's decision choices currently highlighted (default first)."""
        if player in self.highlight:
            return self.highlight[player]
        d = self.decision_of(player)
        if d is None or not d.choices:
            return 0
        if d.default is not None:
            for i, c in enumerate(d.choices):
                if c == d.default:
                    return i
        return 0

    def pick(self, player: int, index: int, t: float) -> str:
        """A tap on a choice: the first tap highlights it, a tap on the highlighted one sends it."""
        d = self.decision_of(player)
        if d is None or not d.choices:
            return "nothing to pick"
        index %= len(d.choices)
        if self.highlighted(player) == index and player in self.highlight:
            return "sent" if self.confirm_choice(player, t) else "refused"
        self.highlight[player] = index
        return "highlighted"

    def cycle_choice(self, player: int, step: int = 1) -> None:
        d = self.decision_of(player)
        if d is not None and d.choices and not d.secret:
            self.highlight[player] = (self.highlighted(player) + step) % len(d.choices)

    def confirm_choice(self, player: int, t: float) -> bool:
        d = self.decision_of(player)
        if d is None or not d.choices:
            return False
        return self.send(dict(d.choices[self.highlighted(player)]), t)

    def chooser(self) -> int | None:
        """The seat whose multi-choice decision keys (arrows, Enter) act on: the active player's
        if they have one, else the first such decision."""
        ds = [d for d in self.expect().decisions if classify_decision(d) == "choice" and d.player >= 0]
        for d in ds:
            if self._is_active(d.player):
                return d.player
        return ds[0].player if ds else None

    def confirm(self, t: float) -> str:
        """Enter / OK: confirm a correction, start the countdown, or send the highlighted choice."""
        if self.correction is not None:
            return self.confirm_correction(t)
        if self.secret_decisions():
            self.start_countdown(t)
            return "countdown"
        p = self.chooser()
        if p is not None:
            return "sent" if self.confirm_choice(p, t) else "refused"
        return "nothing to confirm"

    def start_countdown(self, t: float) -> None:
        if self.countdown_from is None and self.secret_decisions():
            self.countdown_from = t
            self._emit("countdown", "1... 2... 3...")

    def table_action(self, name: str, t: float) -> bool:
        """A table-level action offered by the game (player -1), e.g. "end game early"."""
        for d in self.expect().decisions:
            if d.player == -1:
                for c in d.choices:
                    if c.get("action") == name:
                        return self.send(dict(c), t)
        self.message = Message(f"'{name.replace('_', ' ')}' is not possible now", "error",
                               t + MESSAGE_S)
        return False

    def table_actions(self) -> list[str]:
        """Names of the table-level actions the game offers now (not timed ones)."""
        out = []
        for d in self.expect().decisions:
            if d.player == -1:
                out += [c.get("action") for c in d.choices if c.get("action") != "window_closed"]
        return out

    def undo_request(self, t: float) -> str:
        """A long press with nothing to decide: the first asks, a second one within
        UNDO_CONFIRM_S undoes the last event (so a slip of the thumb undoes nothing)."""
        if self.undo_asked is not None and t - self.undo_asked <= UNDO_CONFIRM_S:
            self.undo_asked = None
            return self.undo(t)
        self.undo_asked = t
        self.message = Message("Undo the last event? Long-press again to undo it", "info",
                               t + UNDO_CONFIRM_S)
        return "undo asked"

    def undo(self, t: float) -> str:
        """Undo the last event (Journal.undo)."""
        self.correction = None
        try:
            self.journal.undo()
        except (RuleError, ValueError, OSError) as exc:
            self.message = Message(str(exc), "error", t + MESSAGE_S)
            return "nothing to undo"
        self._emit("undo", "undo")
        self.message = Message("Last event undone", "info", t + MESSAGE_S / 2)
        self.banner = None
        self._changed(t)
        return "undone"

    # ------------------------------------------------------------------ rolls
    def settled(self, roll, t: float) -> str:
        """A SettledRoll from vision (or anything with ``.dice`` of DieReading)."""
        readings = list(roll.dice)
        specs = [r.spec for r in readings]
        if all(s is not None for s in specs):
            return "taken" if self.roll(specs, t) else "refused"
        spec = self.expect().roll
        if spec is None:
            self._no_roll_wanted(t)
            return "refused"
        layout = self.state.get("layout") or {}
        known = [s for s in specs if s is not None]
        slots = []
        for r in readings:
            if r.spec is not None:
                slots.append(Slot(r.spec, box=(r.x, r.y, r.w, r.h)))
            else:
                slots.append(Slot(None, candidates_for(layout, r.die, spec, known), was_unread=True,
                                  box=(r.x, r.y, r.w, r.h)))
        self.correction = Correction(slots)
        self.correction.selected = next(i for i, s in enumerate(slots) if s.value is None)
        n = sum(1 for s in slots if s.was_unread)
        self.message = Message(
            f"{n} {'die' if n == 1 else 'dice'} could not be read: pick the face shown "
            "(Up/Down or the roller's button), then confirm (Enter or a long press)",
            "unreadable")
        self._emit("unreadable", f"{n} unread: waiting for a correction")
        return "correcting"

    def _no_roll_wanted(self, t: float) -> None:
        e = self.expect()
        self.message = Message(f"No roll now. {e.prompt}", "wrong_roll", t + MESSAGE_S)
        self._emit("refused", "roll ignored: no roll expected")

    def roll(self, specs: list[str], t: float) -> bool:
        """A whole roll of ``die:face`` specs: checked against what the game waits for, then
        journaled; otherwise a message says what is wrong and nothing is scored."""
        self.now = t
        e = self.expect()
        if e.finished:
            return False
        if e.roll is None:
            self._no_roll_wanted(t)
            return False
        if self.countdown_from is not None or self.secret:
            self.message = Message("Wait for the reveal before rolling", "wrong_roll", t + MESSAGE_S)
            return False
        try:
            engine.check_roll(e.roll, [engine.parse_die(s) for s in specs],
                              self.state.get("layout") or {})
        except RuleError as exc:
            text = self._roll_words(specs) or str(exc)
            self.message = Message(text, "wrong_roll", t + MESSAGE_S)
            self._emit("refused", f"refused roll {', '.join(specs)}: {text}")
            return False
        self.correction = None
        return self.send(engine.roll(*specs), t)

    def _roll_words(self, specs: list[str]) -> str | None:
        """The game's own words for a refused roll (its rules know best what to say), or None.
        The engine is pure: asking it changes nothing."""
        try:
            self.journal.game.apply(self.state, engine.roll(*specs))
        except RuleError as exc:
            return str(exc)
        except (ValueError, TypeError, KeyError):
            return None
        return None

    def confirm_correction(self, t: float) -> str:
        c = self.correction
        if c is None:
            return "nothing to confirm"
        if not c.whole:
            c.next_unfixed()
            self.message = Message("Some dice are still unread: pick their faces first",
                                   "unreadable")
            return "still unread"
        if c.event is None:
            ok = self.roll(c.specs(), t)
            if ok:
                self.correction = None
            return "taken" if ok else "refused"
        try:
            self.journal.correct(c.event, c.specs())
        except (RuleError, OSError) as exc:
            self.message = Message(str(exc), "error", t + MESSAGE_S)
            return "refused"
        self.correction = None
        self._emit("correct", f"corrected roll {c.event}: {', '.join(c.specs())}")
        self._changed(t)
        return "corrected"

    def correct_last(self, t: float) -> str:
        """Open the last journaled roll for a correction after the fact (key C)."""
        events = list(getattr(self.journal, "events", []))
        for i in range(len(events) - 1, -1, -1):
            if events[i].get("type") == "roll":
                layout = self.state.get("layout") or {}
                slots = []
                for s in events[i]["dice"]:
                    die = s.split(":", 1)[0]
                    cands = candidates_for(layout, die, None, [])
                    slots.append(Slot(s, cands, cands.index(s) if s in cands else -1))
                self.correction = Correction(slots, 0, event=self._journal_number(i))
                self.message = Message("Correct the last roll: Left/Right pick a die, Up/Down its "
                                       "face, Enter saves", "info")
                return "correcting"
        return "no roll to correct"

    @staticmethod
    def _journal_number(index: int) -> int:
        """The event number Journal.correct expects for ``journal.events[index]`` (1-based)."""
        return index + 1

    def cancel(self, t: float) -> None:
        """Escape: drop a correction in progress and clear messages."""
        self.correction = None
        self.message = None

    # ------------------------------------------------------------------ clock
    def tick(self, t: float) -> None:
        """Time passes: ends the countdown with the reveal, closes a press window, expires
        messages and banners."""
        self.now = t
        if self.countdown_from is not None and t - self.countdown_from >= self.countdown_s:
            self.reveal(t)
        if self.window_from is not None and t - self.window_from >= self.window_seconds():
            ev = self.window_decision()
            self.window_from = None
            if ev is not None:
                self.send(dict(ev), t)
        if self.message is not None and self.message.until is not None and t >= self.message.until:
            self.message = None
        if self.banner is not None and t >= self.banner[2]:
            self.banner = None

    def reveal(self, t: float) -> None:
        """Send every hidden choice to the engine, in seat order; players who did not choose
        take the game's suggested default."""
        self.countdown_from = None
        choices = dict(self.secret)
        for d in sorted(self.secret_decisions(), key=lambda d: d.player):
            if d.player not in choices:
                ev = d.default if d.default is not None else (d.choices[0] if d.choices else None)
                choices[d.player] = ev.get("action") if ev else "in"
        ins = [self.name(p) for p in sorted(choices) if choices[p] == "in"]
        outs = [self.name(p) for p in sorted(choices) if choices[p] != "in"]
        for p in sorted(choices):
            d = self.decision_of(p)
            if d is None:
                continue
            ev = next((dict(c) for c in d.choices if c.get("action") == choices[p]), None)
            if ev is None:
                ev = engine.action(p, choices[p])
            if not self.send(ev, t):   # send() clears the hidden choices: ours are in `choices`
                break
        self.secret.clear()
        self.revealed = {"in": ins, "out": outs}
        self._emit("reveal", f"reveal: IN {', '.join(ins) or '-'} / OUT {', '.join(outs) or '-'}")

    def camera(self, ok: bool, t: float, lost_after: float = 2.0) -> None:
        """Report whether a frame came in. After ``lost_after`` seconds without frames the
        screen says the camera is gone; the game is kept and carries on when frames return."""
        if ok:
            if self.camera_lost_since is not None:
                self.camera_lost_since = None
                if self.message is not None and self.message.kind == "camera":
                    self.message = None
                    self._emit("camera", "camera back")
            return
        if self.camera_lost_since is None:
            self.camera_lost_since = t
        if t - self.camera_lost_since >= lost_after and (
                self.message is None or self.message.kind != "camera"):
            self.message = Message("Camera lost: check its cable. The game is kept and goes on "
                                   "when the picture comes back.", "camera")
            self._emit("camera", "camera lost")


def press_plan(table: Table, event: dict) -> list[tuple[int, bool]]:
    """The button presses (seat, long) that make ``table`` send ``event`` — how a simulated
    player acts through the same mapping as a person. Empty when no button sends it."""
    p = event.get("player", -1)
    d = table.decision_of(p)
    if d is None or p < 0:
        return []
    kind = classify_decision(d)
    if kind == "secret":
        want = event.get("action")
        cur = table.secret.get(p)
        if cur == want:
            return []
        return [(p, False)] if (cur is None and want == "in") or cur == "out" else \
            [(p, False), (p, False)] if cur is None else [(p, False)]
    if kind == "single":
        return [(p, False)] if d.choices[0] == event else []
    if kind == "choice":
        try:
            target = list(d.choices).index(event)
        except ValueError:
            return []
        n = len(d.choices)
        steps = (target - table.highlighted(p)) % n
        return [(p, False)] * steps + [(p, True)]
    return []


def asdict(obj: Any) -> Any:
    """dataclass -> dict, for debugging output."""
    return dataclasses.asdict(obj) if dataclasses.is_dataclass(obj) else obj


__all__ = [
    "BIG_MOMENTS",
    "ButtonMapper",
    "Correction",
    "MemoryJournal",
    "Message",
    "Slot",
    "Table",
    "candidates_for",
    "choice_label",
    "classify_decision",
    "moment_of",
    "press_plan",
]


LONG_PRESS_S = 0.8


class ButtonMapper:
    """Turns the button queue's events (hardware.buttons.ButtonPress / ButtonRelease) into
    Table presses, telling short from long presses.

    When the buttons report releases (``PlayerButtons(..., releases=True)``), a press whose
    meaning depends on its length (a multi-choice decision, a die correction, the active
    player's IN/OUT confirm) is decided at the release: held ``long_s`` or more = long. Every
    other press acts at once, at the time the contact closed, so "first press wins" is fair.
    Without releases (keys), every press is short; the app maps Shift+key to a long press.

    >>> from hardware.buttons import ButtonPress
    >>> table = Table(MemoryJournal.create(None, "toss-up", ["Ana", "Ben"], {}, None))
    >>> table.roll(["toss:green"] * 4 + ["toss:yellow"] * 6, t=0.0)
    True
    >>> ButtonMapper(table, releases=True).handle(ButtonPress(0, 1.0))   # Ana stops at once
    'sent'
    """

    def __init__(self, table: Table, releases: bool = False, long_s: float = LONG_PRESS_S):
        self.table = table
        self.releases = releases
        self.long_s = long_s
        self.pending: dict[int, float] = {}

    def waits_for_release(self, player: int) -> bool:
        """Whether a press of ``player`` means something different when held."""
        if not self.releases:
            return False
        t = self.table
        if t.correction is not None:
            return True
        d = t.decision_of(player)
        if d is None:
            return True   # a long press undoes
        kind = classify_decision(d)
        return kind == "choice" or (kind == "secret" and t._is_active(player))

    def handle(self, ev, t: float | None = None) -> str | None:
        """Apply one queue event; returns what the table did (None while waiting a release)."""
        now = getattr(ev, "time", 0.0) if t is None else t
        held = getattr(ev, "held", None)
        if held is not None:   # a release
            start = self.pending.pop(ev.player, None)
            if start is None:
                return None
            return self.table.press(ev.player, now, long=held >= self.long_s)
        if getattr(ev, "long", False):
            return self.table.press(ev.player, now, long=True)
        if self.waits_for_release(ev.player):
            self.pending[ev.player] = now
            return None
        return self.table.press(ev.player, now)


def handle_key(table: Table, key: str, t: float, shift: bool = False) -> str:
    """A key on the keyboard (pygame key name, e.g. "1", "return", "up", "u"), in words.

    1-9, 0: the buttons of seats 1-10 (Shift = long press). Enter/Space: confirm. Up/Down:
    the face of the selected die, or the highlighted choice. Left/Right: the selected die, or
    the highlighted choice. U/Backspace: undo. C: correct the last roll. E: end the game early
    (when the game allows it). Escape: drop a correction.
    """
    key = key.lower()
    if len(key) == 1 and key.isdigit():
        seat = (int(key) - 1) % 10
        if seat >= len(table.players):
            return "no such player"
        return table.press(seat, t, long=shift)
    if key in ("return", "enter", "keypad enter", "space"):
        return table.confirm(t)
    c = table.correction
    if key in ("up", "down"):
        if c is not None:
            c.cycle(1 if key == "down" else -1)
            return "cycled face"
        p = table.chooser()
        if p is not None:
            table.cycle_choice(p, 1 if key == "down" else -1)
            return "cycled"
        return "nothing to change"
    if key in ("left", "right"):
        if c is not None:
            c.select(c.selected + (1 if key == "right" else -1))
            return "selected die"
        p = table.chooser()
        if p is not None:
            table.cycle_choice(p, 1 if key == "right" else -1)
            return "cycled"
        return "nothing to change"
    if key in ("u", "backspace"):
        return table.undo(t)
    if key == "c":
        return table.correct_last(t)
    if key == "e":
        acts = table.table_actions()
        if acts:
            return "sent" if table.table_action(acts[0], t) else "refused"
        return "nothing to end"
    if key == "escape":
        table.cancel(t)
        return "cancelled"
    return "unknown key"


def handle_tap(table: Table, target: tuple | None, t: float) -> str:
    """A tap on the screen, given what it landed on (``Display.hit``), in words."""
    if not target:
        return "nothing there"
    kind = target[0]
    if kind == "player":
        return table.press(target[1], t)
    if kind == "choice":
        p = table.chooser()
        return table.pick(p, target[1], t) if p is not None else "nothing to pick"
    if kind == "die":
        c = table.correction
        if c is None:
            return table.correct_last(t)
        if c.selected == target[1]:
            c.cycle(1)
            return "cycled face"
        c.select(target[1])
        return "selected die"
    if kind == "button":
        name = target[1]
        if name == "undo":
            return table.undo(t)
        if name == "ok":
            return table.confirm(t)
        return "sent" if table.table_action(name, t) else "refused"
    return "nothing there"


#: the values a start-screen option steps through (other ints step by about a tenth)
OPTION_VALUES = {
    ("bank", "rounds"): [10, 15, 20],
    ("bank", "doubles_rule"): ["double_then_add", "double_only"],
    ("tally-up", "target"): [1000, 1500, 2000, 2500, 3000, 4000, 5000],
    ("tally-up", "press_window_s"): [3, 5, 8, 10],
    ("diced-out", "rounds"): [1, 2, 3, 4, 5, 6],
    ("diced-out", "rerolls"): [0, 1, 2, 3, 4, 5],
    ("rollers", "target"): [3, 4, 5],
}


class StartMenu:
    """The start screen's logic: the game, the number of players (as the game allows), their
    names and the options, changed by keys (Up/Down a line, Left/Right its value, Enter starts)
    or taps on < and >.

    >>> m = StartMenu(["Ana", "Ben", "Cy"], default_game="bank")
    >>> m.game_id, len(m.players)
    ('bank', 3)
    >>> m.key("down"); m.key("left"); len(m.players)
    2
    >>> m.key("return"); m.started
    True
    """

    def __init__(self, names: list[str], default_game: str = "tally-up",
                 options: dict | None = None, players: int | None = None):
        from tray.rules import games

        self.games = [(gid, games.get(gid).TITLE) for gid in games.GAME_IDS]
        ids = [g for g, _ in self.games]
        self.game_index = ids.index(default_game) if default_game in ids else 0
        fallback = ["Ana", "Ben", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo"]
        self.names = list(names) + [n for n in fallback if n not in names]
        self.n_players = players or max(2, min(len(names) or 2, 4))
        self.overrides = {g: dict(v) for g, v in (options or {}).items() if isinstance(v, dict)}
        self.focus = 0
        self.started = False
        self.resume: str | None = None
        self.resume_path = None
        self.message: str | None = None
        self._clamp()

    @property
    def game_id(self) -> str:
        return self.games[self.game_index][0]

    @property
    def engine(self):
        from tray.rules import games

        return games.get(self.game_id)

    @property
    def players(self) -> list[str]:
        return self.names[:self.n_players]

    def _clamp(self) -> None:
        e = self.engine
        self.n_players = max(e.MIN_PLAYERS, min(self.n_players, e.MAX_PLAYERS, len(self.names)))

    def option_names(self) -> list[str]:
        """The options shown (scalars; list options keep their value)."""
        return [k for k, v in self.engine.OPTIONS.items() if isinstance(v, (bool, int, float, str))]

    def chosen_options(self) -> dict:
        opts = dict(self.overrides.get(self.game_id, {}))
        return opts

    def value(self, name: str):
        return self.chosen_options().get(name, self.engine.OPTIONS[name])

    def rows(self) -> int:
        return 2 + len(self.option_names())

    def change(self, row: int, step: int) -> None:
        """Change line ``row`` by ``step`` (+1 / -1)."""
        self.message = None
        if row == 0:
            self.game_index = (self.game_index + step) % len(self.games)
            self._clamp()
        elif row == 1:
            self.n_players += step
            self._clamp()
        elif 2 <= row < self.rows():
            name = self.option_names()[row - 2]
            cur = self.value(name)
            values = OPTION_VALUES.get((self.game_id, name))
            if isinstance(cur, bool):
                new = not cur
            elif values:
                i = values.index(cur) if cur in values else 0
                new = values[(i + step) % len(values)]
            elif isinstance(cur, (int, float)):
                inc = max(1, round(abs(self.engine.OPTIONS[name]) / 10)) if self.engine.OPTIONS[name] else 1
                new = max(1, cur + step * inc)
            else:
                return
            self.overrides.setdefault(self.game_id, {})[name] = new

    def key(self, name: str) -> None:
        """A key on the start screen."""
        name = name.lower()
        if name == "up":
            self.focus = (self.focus - 1) % (self.rows() + 1)
        elif name == "down":
            self.focus = (self.focus + 1) % (self.rows() + 1)
        elif name in ("left", "right"):
            self.change(self.focus, 1 if name == "right" else -1)
        elif name in ("return", "enter", "keypad enter"):
            self.started = True

    def tap(self, target) -> None:
        """A tap on the start screen (``Display.hit``)."""
        if not target or target[0] != "start":
            return
        _, row, step = target
        if row >= self.rows():
            self.started = True
        elif step:
            self.change(row, step)
        else:
            self.focus = row

    def view(self):
        from tray.screen.view import StartView

        e = self.engine
        opts = [(n.replace("_", " "), _show(self.value(n))) for n in self.option_names()]
        return StartView(self.games, self.game_index, self.players, e.MIN_PLAYERS,
                         e.MAX_PLAYERS, opts, self.focus, self.resume, self.message)


def _show(v) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    return str(v).replace("_", " ")
