"""What a button press, a key, a tap or a settled roll means for the game on the table: the
names the screen, the app loop and the tests use, gathered from the small modules that hold
them (this module imports nothing from tray/screen: the screen may know the table, never the
other way round).

=========================  =================================================================
module                     holds
=========================  =================================================================
tray/table/table.py        :class:`Table`: rolls, presses, IN/OUT, choices, menus, undo, clock
tray/table/correction.py   unread dice and corrections after the fact (:class:`Correction`)
tray/table/table_menu.py   the table menu (undo, correct, end, leave) and the end screen's choices
tray/table/choices.py      how a decision is answered with buttons; Rollers' die-by-die saves
tray/table/menu.py         menus worked by buttons alone; the start screen (:class:`StartMenu`)
tray/table/presses.py      the button queue (short / long), keys, taps; a simulated hand's plan
tray/table/moments.py      banners, messages, timings
tray/table/memory.py       :class:`MemoryJournal` (no file: screenshots, tests)
=========================  =================================================================

>>> from tray.table.actions import Table, MemoryJournal
>>> table = Table(MemoryJournal.create(None, "tally-up", ["Ana", "Ben"], {}, None))
>>> table.roll(["red:200", "blue:100", "green:150"], t=0.0)
True
>>> table.press(1, t=1.0), table.chosen()      # Ben chose (IN), nobody sees what
('chose', [1])
"""

from __future__ import annotations

from tray.table.choices import SaveBuilder, choice_label, classify_decision, is_save_choice
from tray.table.correction import Correction, Slot, candidates_for
from tray.table.memory import MemoryJournal
from tray.table.menu import OPTION_VALUES, ButtonMenu, StartMenu, show_value
from tray.table.moments import (
    BANNER_S,
    BIG_MOMENTS,
    COUNTDOWN_S,
    MESSAGE_S,
    UNDO_CONFIRM_S,
    Message,
    moment_of,
)
from tray.table.presses import (
    LONG_PRESS_S,
    ButtonMapper,
    handle_key,
    handle_tap,
    menu_plan,
    press_plan,
)
from tray.table.table import Table, end_menu

__all__ = [
    "BANNER_S",
    "BIG_MOMENTS",
    "COUNTDOWN_S",
    "LONG_PRESS_S",
    "MESSAGE_S",
    "OPTION_VALUES",
    "UNDO_CONFIRM_S",
    "ButtonMapper",
    "ButtonMenu",
    "Correction",
    "MemoryJournal",
    "Message",
    "SaveBuilder",
    "Slot",
    "StartMenu",
    "Table",
    "candidates_for",
    "choice_label",
    "classify_decision",
    "end_menu",
    "handle_key",
    "handle_tap",
    "is_save_choice",
    "menu_plan",
    "moment_of",
    "press_plan",
    "show_value",
]
