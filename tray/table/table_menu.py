"""The table menu and the end screen's choices, worked by buttons alone (a mixin of
:class:`tray.table.table.Table`).

A long press with nothing to decide opens the table menu with "Undo the last event"
highlighted (so two long presses undo); a short press steps to "Correct the last roll",
"End the game now" (when the game allows it: asks first), "Leave: back to the start screen"
(the game is kept) and "Back to the game". Only the opener's button works it (others keep
playing), and it closes itself when left alone for UNDO_CONFIRM_S. Key E asks "End the game
now?" directly. When the game is over, :func:`end_menu` offers a rematch, another game or the
start screen; :attr:`outcome` tells the app loop what was chosen.

>>> from tray.table.memory import MemoryJournal
>>> from tray.table.table import Table
>>> table = Table(MemoryJournal.create(None, "bank", ["Ana", "Ben"], {}, None))
>>> table.press(1, t=0.0, long=True), table.menu_shown()[1][:2]
('undo asked', ['Undo the last event', 'End the game now'])
"""

from __future__ import annotations

from tray.table.menu import ButtonMenu
from tray.table.moments import UNDO_CONFIRM_S, Message


class TableMenuFlow:
    """The menu steps of the Table (uses its journal, message, table_actions, undo,
    correct_last and table_action).

    >>> from tray.table.memory import MemoryJournal
    >>> from tray.table.table import Table
    >>> table = Table(MemoryJournal.create(None, "toss-up", ["Ana", "Ben"], {}, None))
    >>> [table.press(0, t=0.0, long=long) for long in (True, False, True)]
    ['undo asked', 'moved', 'leave']
    """

    menu: ButtonMenu | None
    outcome: str | None

    def undo_request(self, t: float, player: int | None = None) -> str:
        """A long press with nothing to decide: opens the table menu with "Undo the last event"
        highlighted, so a second long press within UNDO_CONFIRM_S undoes (a slip of the thumb
        undoes nothing); a short press steps to the other lines."""
        lines = [("undo", "Undo the last event")]
        if any(e.get("type") == "roll" for e in getattr(self.journal, "events", [])):
            lines.append(("correct", "Correct the last roll"))
        if "end_game" in self.table_actions():
            lines.append(
                ("end_game", "End the game now", "End the game now? The scores stand as they are")
            )
        lines += [
            ("leave", "Leave: back to the start screen (the game is kept)"),
            ("back", "Back to the game"),
        ]
        self.menu = ButtonMenu("Table menu", lines, owner=player, opened=t)
        self.message = Message(
            "Undo the last event? Long-press again to undo it "
            "(a short press shows the other choices)",
            "info",
            t + UNDO_CONFIRM_S,
        )
        return "undo asked"

    def ask_end(self, t: float) -> str:
        """Key E / the "end game" button: ask "End the game now?" (the game must allow it)."""
        if "end_game" not in self.table_actions():
            return "nothing to end"
        if (
            self.menu is not None
            and self.menu.asking is not None
            and self.menu.asking.key == "end_game"
        ):
            self.menu.answer = 1  # E again, or a second tap: yes
            return self._menu_ok(t)
        self.undo_request(t)
        self.menu.focus = self.menu.line_keys().index("end_game")
        self.menu.ok()
        self.message = Message(
            "End the game now? Press E again (or choose Yes) to end it", "info", t + UNDO_CONFIRM_S
        )
        return "asked"

    def close_menu(self) -> None:
        """Close the table menu (not the end screen's choices)."""
        if self.menu is not None and not self.expect().finished:
            self.menu = None
            if self.message is not None and self.message.kind == "info":
                self.message = None

    def menu_shown(self) -> tuple[str, list[str], int] | None:
        """(title, lines, highlighted) of the menu on screen, or None."""
        return self.menu.shown() if self.menu is not None else None

    def _menu_press(self, long: bool, t: float) -> str:
        if not long:
            self.menu.move(1)
            self.menu.opened = t
            if not self.expect().finished:
                self.message = None
            return "moved"
        return self._menu_ok(t)

    def _menu_ok(self, t: float) -> str:
        """OK on the highlighted line of the menu; returns what it did."""
        return self._menu_do(self.menu.ok(), t)

    def menu_pick(self, index: int, t: float) -> str:
        """A tap on line ``index`` of the menu: the first highlights it, a second one is OK."""
        if self.menu is None:
            return "nothing there"
        before = self.menu.question
        key = self.menu.pick(index)
        if key is None and self.menu.question == before:
            self.menu.opened = t
            return "highlighted"
        return self._menu_do(key, t)

    def _menu_do(self, key: str | None, t: float) -> str:
        self.menu.opened = t
        if key is None:
            return "asked" if self.menu.question else "kept"
        if key in ("rematch", "another", "menu"):
            self.outcome = key
            return key
        self.menu_owner = self.menu.owner if self.menu is not None else None
        self.close_menu()
        if key == "undo":
            return self.undo(t)
        if key == "correct":
            owner = self.menu_owner
            res = self.correct_last(t)
            if res == "correcting" and owner is not None:
                self.correction_owner = owner  # their button works it (the screen says how)
            return res
        if key == "end_game":
            return "sent" if self.table_action("end_game", t) else "refused"
        if key == "leave":
            self.outcome = "leave"
            return "leave"
        return "back"


def end_menu() -> ButtonMenu:
    """The end screen's choices: a rematch with the same options (highlighted), another game,
    or back to the start screen."""
    return ButtonMenu(
        "What next?",
        [
            ("rematch", "Rematch: same game, same options"),
            ("another", "Another game"),
            ("menu", "Back to the start screen"),
        ],
    )
