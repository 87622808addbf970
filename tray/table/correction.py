"""Dice vision could not read, and rolls read wrong: the correction flow.

A settled roll with unread dice opens a :class:`Correction`: the unread dice are marked, the
roller's button (or Up/Down, or a tap) cycles the selected die's face, a long press (Enter)
confirms; nothing is scored until the roll is whole. Key C opens the last journaled roll for a
correction after the fact (``Journal.correct``: the state is recomputed from the journal).

:class:`CorrectionFlow` holds these steps for :class:`tray.table.table.Table`.

>>> c = Correction([Slot("d6:3"), Slot(None, ("d6:1", "d6:2"), was_unread=True)], selected=1)
>>> c.whole, c.cycle(), c.specs()
(False, None, ['d6:3', 'd6:1'])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tray.rules import engine
from tray.rules.engine import RuleError
from tray.table.moments import MESSAGE_S, Message

#: of the last ``UNSURE_OF`` rolls the camera settled, ``UNSURE_HINT`` or more with dice it
#: could not read bring, once a game, a hint once that roll is corrected: dice the reader does
#: not know (another art, colours, a tray) or a poor light, which teaching mends. Short
#: enough for the message box of an 800x480 screen.
UNSURE_HINT, UNSURE_OF = 3, 5
HINT_TEXT = "Dice often unread? Light the tray. The rolls you correct teach it your dice"


@dataclass
class Slot:
    """One die of a roll being corrected: its reading (``spec`` None when unread) and the
    ``die:face`` candidates a player cycles through (unread dice only).

    >>> Slot(None, ("d6:1", "d6:2"), index=1, was_unread=True).value
    'd6:2'
    """

    spec: str | None
    candidates: tuple[str, ...] = ()
    index: int = -1  # into candidates; -1 = not chosen yet
    was_unread: bool = False
    box: tuple[int, int, int, int] | None = None
    hint: str | None = None  # the reader's guess (one of the candidates): a first press shows it

    @property
    def value(self) -> str | None:
        if self.index >= 0 and self.candidates:
            return self.candidates[self.index]
        return self.spec

    @property
    def start(self) -> int:
        """The candidate a first press shows: the reader's guess, else the first."""
        return self.candidates.index(self.hint) if self.hint in self.candidates else 0

    @property
    def guess(self) -> str | None:
        """The reader's guess while no face is chosen (a hint, not a value).

        >>> Slot(None, ("d6:1", "d6:2"), hint="d6:2").guess
        'd6:2'
        """
        return self.hint if self.index < 0 and self.hint in self.candidates else None

    def presses_to(self, i: int) -> int:
        """How many presses (steps forward) until candidate ``i`` shows.

        >>> Slot(None, ("d6:1", "d6:2", "d6:3"), hint="d6:2").presses_to(0)
        3
        """
        n = len(self.candidates)
        return (i - self.index) % n if self.index >= 0 else (i - self.start) % n + 1


@dataclass
class Correction:
    """A roll under correction: the dice, which one is selected, and what confirming does
    (``event`` None: a new roll to append; an int: ``Journal.correct`` of that event).

    >>> c = Correction([Slot(None, ("d6:1", "d6:2"), was_unread=True)])
    >>> c.cycle(); c.cycle(); c.specs(), c.whole
    (['d6:2'], True)
    """

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
            s.index = (s.start if step > 0 else s.start - 1) % len(s.candidates)
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


def candidates_for(
    layout: dict[str, list[str]], die: str | None, spec: engine.RollSpec | None, known: list[str]
) -> tuple[str, ...]:
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


def guess_of(candidates: tuple[str, ...], reading) -> str | None:
    """The candidate that is the reader's guess for an unread die (its ``guess`` face, on
    its die where that was read): the first press shows it. None without one.

    >>> from vision.types import DieReading
    >>> guess_of(("d6:1", "d6:2", "d6:3"), DieReading(0, 0, 9, 9, "d6", None, 0.5, guess="3"))
    'd6:3'
    """
    guess = getattr(reading, "guess", None)
    for c in candidates:
        die, face = c.split(":", 1)
        if face == guess and reading.die in (None, die):
            return c
    return None


def reading_slot(candidates: tuple[str, ...], reading, spec: str | None = None) -> Slot:
    """The slot of a die as vision read it: as ``spec`` (one of ``candidates``), or not at all
    (``spec`` None: unread, and a first press shows the reader's guess where it has one)."""
    return Slot(
        spec,
        candidates,
        candidates.index(spec) if spec else -1,
        was_unread=spec is None,
        box=(reading.x, reading.y, reading.w, reading.h),
        hint=guess_of(candidates, reading) if spec is None else None,
    )


class CorrectionFlow:
    """The correction steps of :class:`tray.table.table.Table` (a mixin: it uses the table's
    journal, expect(), roll(), message and _emit).

    >>> from tray.table.memory import MemoryJournal
    >>> from tray.table.table import Table
    >>> table = Table(MemoryJournal.create(None, "bank", ["Ana", "Ben"], {}, None))
    >>> table.roll(["d6:3", "d6:4"], t=0.0), table.correct_last(t=1.0)
    (True, 'correcting')
    >>> table.correction.cycle(); table.confirm_correction(t=2.0), table.state["total"]
    ('corrected', 8)
    """

    correction: Correction | None
    correction_owner: int | None
    unsure_rolls: list[bool]  # the last settled rolls: had they dice vision could not read
    hinted: bool | str  # the teaching hint: given this game, or "due"
    # called with [((x, y, w, h), "die:face"), ...] when the players set the faces of a
    # settled roll's unread dice and the game took it (tray/table/played.py keeps it)
    on_corrected_roll: Callable[[list], None] | None
    # called with the journal number of a roll corrected after the fact (key C) and its new
    # "die:face" specs (in the order of its dice), when they changed: a kept photo of it no
    # longer has the faces the game took
    on_roll_recorrected: Callable[[int, list], None] | None

    def settled(self, roll, t: float) -> str:
        """A SettledRoll from vision (or anything with ``.dice`` of DieReading)."""
        readings = list(roll.dice)
        specs = [r.spec for r in readings]
        self.unsure_rolls = ([*self.unsure_rolls, None in specs])[-UNSURE_OF:]
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
                # a die read for sure can be set too (Left/Right or a tap selects it): the
                # players see the whole roll, and fix a die read wrong before it is scored
                cands = candidates_for(layout, r.die, None, [])
                index = cands.index(r.spec) if r.spec in cands else -1
                slots.append(Slot(r.spec, cands, index, box=(r.x, r.y, r.w, r.h)))
            else:
                slots.append(reading_slot(candidates_for(layout, r.die, spec, known), r))
        self.correction = Correction(slots)
        self.correction.selected = next(i for i, s in enumerate(slots) if s.value is None)
        n = sum(1 for s in slots if s.was_unread)
        if not self.hinted and sum(self.unsure_rolls) >= UNSURE_HINT:
            self.hinted = "due"  # said once this roll is taken, not over its instructions
            self._emit("hint", "dice often unread: light the tray, or teach it the dice")
        # what is wrong; how to fix it is the screen's hint (the roller's button, then keys)
        self.message = Message(
            f"{n} {'die' if n == 1 else 'dice'} could not be read: set "
            f"{'it' if n == 1 else 'each'} to the face it shows",
            "unreadable",
        )
        self._emit("unreadable", f"{n} unread: waiting for a correction")
        return "correcting"

    def _no_roll_wanted(self, t: float) -> None:
        e = self.expect()
        self.message = Message(f"No roll now. {e.prompt}", "wrong_roll", t + MESSAGE_S)
        self._emit("refused", "roll ignored: no roll expected")

    def confirm_correction(self, t: float) -> str:
        c = self.correction
        if c is None:
            return "nothing to confirm"
        if not c.whole:
            c.next_unfixed()
            self.message = Message(
                "Some dice are still unread: pick their faces first", "unreadable"
            )
            return "still unread"
        if c.event is None:
            ok = self.roll(c.specs(), t)
            if ok:
                self.correction = None
                if self.on_corrected_roll is not None and all(s.box for s in c.slots):
                    self.on_corrected_roll([(s.box, s.value) for s in c.slots])
                if self.hinted == "due":
                    self.hinted = True
                    self.message = Message(HINT_TEXT, "info", t + 2 * MESSAGE_S)
            return "taken" if ok else "refused"
        events = getattr(self.journal, "events", [])
        before = events[c.event - 1].get("dice") if 0 < c.event <= len(events) else None
        try:
            self.journal.correct(c.event, c.specs())
        except (RuleError, OSError) as exc:
            self.message = Message(str(exc), "error", t + MESSAGE_S)
            return "refused"
        self.correction = None
        self._emit("correct", f"corrected roll {c.event}: {', '.join(c.specs())}")
        if self.on_roll_recorrected is not None and before != list(c.specs()):
            self.on_roll_recorrected(c.event, list(c.specs()))
        self._changed(t)
        # the "Correct the last roll: ..." instructions go: a short note says it is done
        self.message = Message("Roll corrected: the game is recomputed", "info", t + MESSAGE_S / 2)
        return "corrected"

    def correct_last(self, t: float) -> str:
        """Open the last journaled roll for a correction after the fact (key C)."""
        self.correction_owner = None  # keys and taps (the table menu sets its opener)
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
                self.message = Message(
                    "Correct the last roll: set each die to the face it shows", "info"
                )
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
