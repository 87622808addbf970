"""From the inputs to the table: the player buttons' queue (short and long presses), keys and
taps, and the presses a simulated player makes to send an event.

Controls (buttons, keys, touch all do the same things):

=====================  ==========================================  ============================
what                   button                                      keys / touch
=====================  ==========================================  ============================
IN/OUT in secret       press: 1st IN, 2nd OUT, ... (toggles);       keys 1-0; tap your name
                       the active player's long press reveals now   Enter / "Reveal"
bank / stop / Tally!   press                                       keys 1-0; tap your name
a choice (marks,       press = next choice, long press = confirm   arrows + Enter; tap a
plans)                                                             choice twice
Rollers: what to save  press = next die, long = keep / let go;     arrows + Enter; tap a die
                       on "Roll the others": long = save those
fix an unread die      the roller: press = next face, long = OK    Left/Right die, Up/Down
                                                                   face, Enter; tap the die
table menu: undo, end  long press with nothing to decide; long     U / Backspace undo; E end
the game, leave        again = undo, short = next line              (asks); Esc steps back
correct the last roll  table menu: "Correct the last roll"; short  C, then as above
                       = next face, long = next die (last: save)
end screen             press = next, long = OK (rematch, another   arrows + Enter; tap
                       game, back to the start screen)
set-up camera view     -                                           S
throw (simulated tray) -                                           T
=====================  ==========================================  ============================

>>> from tray.table.memory import MemoryJournal
>>> table = Table(MemoryJournal.create(None, "bank", ["Ana", "Ben"], {}, None))
>>> table.roll(["d6:2", "d6:3"], t=0.0)
True
>>> handle_key(table, "e", t=1.0), handle_key(table, "e", t=2.0), table.expect().finished
('asked', 'sent', True)
"""

from __future__ import annotations

from collections.abc import Callable

from tray.table.choices import classify_decision
from tray.table.table import Table


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
        return (
            [(p, False)]
            if (cur is None and want == "in") or cur == "out"
            else [(p, False), (p, False)]
            if cur is None
            else [(p, False)]
        )
    if kind == "single":
        return [(p, False)] if d.choices[0] == event else []
    if kind == "choice" and table.save_builder(p) is not None:
        return [(p, long) for long in table.saves.plan(event)]
    if kind == "choice":
        try:
            target = list(d.choices).index(event)
        except ValueError:
            return []
        n = len(d.choices)
        steps = (target - table.highlighted(p)) % n
        return [(p, False)] * steps + [(p, True)]
    return []


def menu_plan(table: Table, key: str, seat: int = 0) -> list[tuple[int, bool]]:
    """The presses (seat, long) that choose ``key`` in the menu on the table (the end screen's
    "rematch" / "another" / "menu", the table menu's "undo" / "end_game" / "leave"), opening
    the table menu first when needed. Empty when the key is not offered."""
    if table.menu is None:
        if table.expect().finished or table.decision_of(seat) is not None:
            return []
        probe = Table.__new__(Table)  # the table menu's lines, without opening it
        probe.__dict__.update(table.__dict__)
        probe.undo_request(table.now, seat)
        lines = probe.menu.plan(key)
        return [(seat, True)] + [(seat, long) for long in lines] if lines else []
    owner = table.menu.owner if table.menu.owner is not None else seat
    return [(owner, long) for long in table.menu.plan(key)]


LONG_PRESS_S = 0.8


class ButtonMapper:
    """Turns the button queue's events (hardware.buttons.ButtonPress / ButtonRelease) into
    Table presses, telling short from long presses.

    When the buttons report releases (``PlayerButtons(..., releases=True)``), a GPIO press
    whose meaning depends on its length (a multi-choice decision, a die correction, the active
    player's IN/OUT confirm, a menu) is decided at the release: held ``long_s`` or more = long.
    Every other press acts at once, at the time the contact closed, so "first press wins" is
    fair. Presses from sources that never report a release (keys 1-0, taps, simulated
    players) are short at once; the app maps Shift+key to a long press.

    >>> from hardware.buttons import ButtonPress
    >>> from tray.table.memory import MemoryJournal
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
        if t.correction is not None or t.menu is not None or t.expect().finished:
            return True
        d = t.decision_of(player)
        if d is None:
            return True  # a long press undoes
        kind = classify_decision(d)
        return kind == "choice" or (kind == "secret" and t._is_active(player))

    def handle(self, ev, t: float | None = None) -> str | None:
        """Apply one queue event; returns what the table did (None while waiting a release)."""
        now = getattr(ev, "time", 0.0) if t is None else t
        held = getattr(ev, "held", None)
        if held is not None:  # a release
            start = self.pending.pop(ev.player, None)
            if start is None:
                return None
            return self.table.press(ev.player, now, long=held >= self.long_s)
        if getattr(ev, "long", False):
            return self.table.press(ev.player, now, long=True)
        if getattr(ev, "source", "gpio") == "gpio" and self.waits_for_release(ev.player):
            self.pending[ev.player] = now
            return None
        return self.table.press(ev.player, now)


def handle_key(table: Table, key: str, t: float, shift: bool = False) -> str:
    """A key on the keyboard (pygame key name, e.g. "1", "return", "up", "u"), in words.

    1-9, 0: the buttons of seats 1-10 (Shift = long press). Enter/Space: confirm. Up/Down:
    the face of the selected die, or the highlighted choice (or menu line). Left/Right: the
    selected die, or the highlighted choice. U/Backspace: undo. C: correct the last roll. E:
    end the game early (when the game allows it: asks first, E again ends it). Escape: step
    back out of a menu or a correction; it never leaves the table.
    """
    key = key.lower()
    said = _menu_key(table, key, t)
    if said is not None:
        return said
    if len(key) == 1 and key.isdigit():
        seat = (int(key) - 1) % 10
        if seat >= len(table.players):
            return "no such player"
        return table.press(seat, t, long=shift)
    if key in _ARROW_STEP:
        return _arrow_key(table, key)
    action = _KEY_ACTIONS.get(key)
    return action(table, t) if action is not None else "unknown key"


_ARROW_STEP = {"up": -1, "down": 1, "left": -1, "right": 1}


def _menu_key(table: Table, key: str, t: float) -> str | None:
    """An arrow moves in the menu on the table, Escape steps back out of it (None: no menu is
    open, or the key does something else)."""
    m = table.menu
    if m is None:
        return None
    if key in _ARROW_STEP:
        m.move(_ARROW_STEP[key])
        m.opened = t
        return "moved"
    if key == "escape":
        if not m.back():
            table.close_menu()
        return "back"
    return None


def _arrow_key(table: Table, key: str) -> str:
    """Up/Down: the face of the die being corrected; Left/Right: which die. With no
    correction, any arrow cycles the highlighted choice."""
    step = _ARROW_STEP[key]
    c = table.correction
    if c is not None:
        if key in ("up", "down"):
            c.cycle(step)
            return "cycled face"
        c.select(c.selected + step)
        return "selected die"
    p = table.chooser()
    if p is None:
        return "nothing to change"
    table.cycle_choice(p, step)
    return "cycled"


def _cancel(table: Table, t: float) -> str:
    table.cancel(t)
    return "cancelled"


# the keys that do one thing whatever is on the table (after the menu, seats and arrows)
_KEY_ACTIONS: dict[str, Callable[[Table, float], str]] = {
    **dict.fromkeys(("return", "enter", "keypad enter", "space"), lambda tb, t: tb.confirm(t)),
    **dict.fromkeys(("u", "backspace"), lambda tb, t: tb.undo(t)),
    "c": lambda tb, t: tb.correct_last(t),
    "e": lambda tb, t: tb.ask_end(t),
    "escape": _cancel,
}


def handle_tap(table: Table, target: tuple | None, t: float) -> str:
    """A tap on the screen, given what it landed on (``Display.hit``), in words."""
    if target and target[0] == "menu" and table.menu is not None:
        return table.menu_pick(target[1], t)
    if table.expect().finished and target != ("button", "undo"):
        return "nothing there"  # the end screen: only its lines (and undo) tap
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
        if name == "end_game":
            return table.ask_end(t)
        return "sent" if table.table_action(name, t) else "refused"
    return "nothing there"


def press_length(ev, pending: dict[int, float], releases: bool, long_s: float) -> bool | None:
    """Whether a button-queue event makes a long press (True), a short one (False), or is to
    wait for its release (None): GPIO buttons that report releases are decided when let go
    (held ``long_s`` or more is long); keys and taps are short at once unless marked long.
    ``pending`` holds the presses waiting for their release, by player."""
    held = getattr(ev, "held", None)
    if held is not None:
        if pending.pop(ev.player, None) is None:
            return None
        return held >= long_s
    if getattr(ev, "long", False):
        return True
    if releases and getattr(ev, "source", "gpio") == "gpio":
        pending[ev.player] = getattr(ev, "time", 0.0)
        return None
    return False


class MenuButtons:
    """The button queue on the start screen: every press is short or long (decided at the
    release for GPIO buttons that report releases; keys and taps are short at once), and goes
    to ``menu.press(long)``.

    >>> from hardware.buttons import ButtonPress, ButtonRelease
    >>> from tray.table.menu import StartMenu
    >>> menu = StartMenu(["Ana", "Ben"], default_game="bank")
    >>> mb = MenuButtons(menu, releases=True, long_s=0.8)
    >>> mb.handle(ButtonPress(1, 0.0)), menu.focus            # waits for the release
    (None, 0)
    >>> mb.handle(ButtonRelease(1, 0.1, 0.1)), menu.focus     # short: the next line
    ('moved', 1)
    """

    def __init__(self, menu, releases: bool = False, long_s: float = LONG_PRESS_S):
        self.menu = menu
        self.releases = releases
        self.long_s = long_s
        self.pending: dict[int, float] = {}

    def handle(self, ev) -> str | None:
        """Apply one queue event: "moved", "chose" (an outcome), or None (waiting)."""
        long = press_length(ev, self.pending, self.releases, self.long_s)
        if long is None:
            return None
        return "chose" if self.menu.press(long) else "moved"
