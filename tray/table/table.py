"""The table between the inputs and the journal: what a press, a key, a tap or a settled roll
means for the game on the table.

No pygame, no camera and no clock of its own: every method takes the time ``t`` (seconds, any
monotonic origin) from the caller, so tests drive it instantly.

* **Rolls.** A settled roll is taken only when the game waits for one and it is the roll the
  game expects (``engine.check_roll``); otherwise :attr:`Table.message` says what is wrong and
  nothing is scored. Unread dice open a correction (tray/table/correction.py).
* **IN/OUT in secret.** A press toggles that player's hidden choice (first press IN, the next
  OUT, ...). The screen shows who has chosen, never what. When everyone awaited has chosen, or
  when the active player confirms (long press / Enter), a countdown "1... 2... 3..." runs,
  then all choices go to the engine together, in seat order.
* **One-press decisions.** Bank: a press banks at once. Toss Up!: the active player's press
  stops. Tally Up!: the first press after three stars wins the +200; when the window runs
  out, the table sends ``action(-1, "window_closed")``.
* **Choices**: a short press of the deciding player highlights the next choice, a long press
  (Enter, a second tap) confirms. Rollers' saves are chosen die by die (tray/table/choices.py).
* **The table menu.** A long press with nothing to decide opens it, "Undo the last event"
  highlighted (so two long presses undo); a short press steps to "End the game" (when the game
  allows it: asks first), "Leave: back to the start screen" (the game is kept) and "Back to
  the game". It closes itself when left alone. Key E asks "End the game now?" directly.
* **The end screen.** Short press = next of "Rematch", "Another game", "Back to the menu";
  long press = OK. :attr:`Table.outcome` tells the app loop what was chosen.

>>> from tray.table.memory import MemoryJournal
>>> table = Table(MemoryJournal.create(None, "bank", ["Ana", "Ben"], {}, None))
>>> table.roll(["d6:3", "d6:1", "d6:2"], t=0.0)     # the game waits for two dice
False
>>> table.message.text
'3 dice seen: roll both dice'
>>> table.roll(["d6:3", "d6:1"], t=1.0), table.state["total"]
(True, 4)
"""

from __future__ import annotations

from collections.abc import Callable

from tray.rules import engine
from tray.rules.engine import Decision, Expect, RuleError
from tray.table.choices import SaveBuilder, choice_label, classify_decision, is_save_choice
from tray.table.correction import Correction, CorrectionFlow
from tray.table.dice_words import count_words, dice_words
from tray.table.menu import ButtonMenu
from tray.table.moments import (
    BANNER_S,
    BIG_MOMENTS,
    COUNTDOWN_S,
    MESSAGE_S,
    UNDO_CONFIRM_S,
    Message,
    moment_of,
    watch_camera,
)
from tray.table.table_menu import TableMenuFlow, end_menu


class Table(CorrectionFlow, TableMenuFlow):
    """The table between the inputs and the journal. All inputs carry the time ``t``.

    ``journal``: a tray.rules.journal.Journal (or MemoryJournal). ``countdown_s``: the IN/OUT
    countdown. ``on_event(kind, text)``: called for every log line ("roll", "action", "banner",
    "refused", ...), e.g. to print a game log or take screenshots.

    >>> from tray.table.memory import MemoryJournal

    >>> from tray.table.table import Table
    >>> table = Table(MemoryJournal.create(None, "tally-up", ["Ana", "Ben"], {}, None))
    >>> table.roll(["red:200", "blue:100", "green:150"], t=0.0)
    True
    >>> table.press(1, t=1.0), table.chosen()      # Ben chose (IN), nobody sees what
    ('chose', [1])
    """

    def __init__(
        self,
        journal,
        countdown_s: float = COUNTDOWN_S,
        on_event: Callable[[str, str], None] | None = None,
    ):
        self.journal = journal
        self.countdown_s = countdown_s
        self.on_event = on_event
        self.secret: dict[int, str] = {}
        self.countdown_from: float | None = None
        self.highlight: dict[int, int] = {}
        self.correction: Correction | None = None
        self.correction_owner: int | None = None  # whose button corrects the last roll
        self.unsure_rolls: list[bool] = []  # settled rolls with unread dice (hint)
        self.hinted = False
        self.on_corrected_roll = None  # a corrected roll, to keep for teaching (played.py)
        self.on_roll_recorrected = None  # ... and one corrected later (key C): kept anew
        self.menu_owner: int | None = None  # who chose the last table-menu line
        self.message: Message | None = None
        self.banner: tuple[str, str, float] | None = None  # (kind, text, until)
        self.window_from: float | None = None
        self.camera_lost_since: float | None = None
        self.shaky_since: float | None = None  # the dice look "moving" but barely move
        self.blocked_since: float | None = None  # something not a die lies in the tray
        self.calibration_told = False  # the tray unlike the calibration's: said
        self.revealed: dict | None = None  # {"in": [names], "out": [names]} of the last reveal
        self.log: list[str] = []
        self.last_roll: list[str] = []  # the dice of the last roll taken, for the screen
        self.rolls_taken = 0  # rolls this table sent to the journal
        self.menu: ButtonMenu | None = None  # the table menu, or the end screen's choices
        self.outcome: str | None = None  # "rematch", "another", "menu" or "leave"
        self.saves: SaveBuilder | None = None  # Rollers' save chosen die by die
        self.event_round = None  # the round an event was made in (log lines)
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
        self.saves = None
        self.menu = None
        self.countdown_from = None
        self.window_from = None
        e = self.expect()
        if self.window_decision() is not None:
            self.window_from = t
        last = self.state.get("last") or {}
        kind = last.get("kind") if isinstance(last, dict) else None
        moment = moment_of(last)
        if kind == "reveal":
            self.revealed = {
                k: [self.name(x) if isinstance(x, int) else str(x) for x in last.get(k, [])]
                for k in ("in", "out")
            }
        if moment is not None:
            self.banner = (moment, BIG_MOMENTS[moment], t + BANNER_S)
            self._emit("banner", BIG_MOMENTS[moment])
        if e.finished:
            self.banner = ("game_over", "GAME OVER", t + 1e9)
            self.menu = end_menu()
            self._emit("finished", "game over")

    def send(self, event: dict, t: float) -> bool:
        """Append an engine event to the journal (written before anything shows it). A refused
        event shows its message and changes nothing. Returns whether it was taken."""
        self.now = t
        who = ""
        self.event_round = self.state.get("round")
        if event.get("type") == "roll":
            spec = self.expect().roll
            who = f"{self.name(spec.roller)} " if spec is not None else ""
        try:
            self.journal.append(event)
        except RuleError as exc:
            self.message = Message(
                str(exc), "wrong_roll" if event.get("type") == "roll" else "error", t + MESSAGE_S
            )
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
            if self.menu is None:
                self.menu = end_menu()
            return self._menu_press(long, t)
        if self.menu is not None and t - self.menu.opened > UNDO_CONFIRM_S:
            self.close_menu()
        if self.menu is not None and self.menu.owner in (None, player):
            return self._menu_press(long, t)
        said = self._correction_press(player, long, t)
        if said is not None:
            return said
        d = self.decision_of(player)
        if d is None:
            if long:
                return self.undo_request(t, player)
            return f"nothing for {self.name(player)} to decide now"
        kind = classify_decision(d)
        if kind == "secret":
            return self._secret_press(player, long, t)
        if kind == "single":
            return "sent" if self.send(dict(d.choices[0]), t) else "refused"
        if kind == "choice":
            return self._choice_press(player, len(d.choices), long, t)
        return "nothing to press"

    def _correction_press(self, player: int, long: bool, t: float) -> str | None:
        """A press that works the die correction under way, in words (None: this press does
        not touch it)."""
        spec = self.expect().roll
        c = self.correction
        if c is None:
            return None
        if c.event is not None:
            if player != self.correction_owner:
                return None
            # correcting the last roll from the table menu: short = next face, long = this
            # die is right (on the last die: save the roll)
            if not long:
                c.cycle(1)
                return "cycled face"
            if c.selected < len(c.slots) - 1:
                c.select(c.selected + 1)
                return "next die"
            return self.confirm_correction(t)
        if spec is None or player == spec.roller or self.decision_of(player) is None:
            # the roller's button fixes an unread die: short = next face, long = confirm
            # (another player with a decision of their own, like banking, keeps it)
            if long:
                return self.confirm_correction(t)
            c.cycle(1)
            return "cycled face"
        return None

    def _secret_press(self, player: int, long: bool, t: float) -> str:
        """IN/OUT in secret: a press toggles; the active player's long press reveals now."""
        if long and self._is_active(player):
            self.start_countdown(t)
            return "countdown"
        cur = self.secret.get(player)
        self.secret[player] = "in" if cur in (None, "out") else "out"
        if all(s.player in self.secret for s in self.secret_decisions()):
            self.start_countdown(t)
        return "chose"

    def _choice_press(self, player: int, n_choices: int, long: bool, t: float) -> str:
        """A choice among ``n_choices``: short = next one, long = send the highlighted one
        (Rollers' saves: the save builder's next die, or keep / let go)."""
        if self.save_builder(player) is not None:
            ev = self.saves.press(long)
            if ev is not None:
                return "sent" if self.send(ev, t) else "refused"
            if long and self.saves.focus >= len(self.saves.roll):
                self.message = Message(
                    "Keeping every die is Stop: let one go, or stop", "error", t + MESSAGE_S
                )
                return "refused"
            return "kept" if long else "cycled"
        if long:
            return "sent" if self.confirm_choice(player, t) else "refused"
        i = self.highlighted(player)
        self.highlight[player] = (i + 1) % n_choices
        return "cycled"

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
        """A tap on a choice: the first tap highlights it, a tap on the highlighted one sends it
        (Rollers' saves: a tap on a die keeps it or lets it go, on "Roll the others" sends)."""
        d = self.decision_of(player)
        if d is None or not d.choices:
            return "nothing to pick"
        b = self.save_builder(player)
        if b is not None:
            b.focus = index % len(b.labels())
            return self.press(player, t, long=True)
        index %= len(d.choices)
        if self.highlighted(player) == index and player in self.highlight:
            return "sent" if self.confirm_choice(player, t) else "refused"
        self.highlight[player] = index
        return "highlighted"

    def cycle_choice(self, player: int, step: int = 1) -> None:
        d = self.decision_of(player)
        if self.save_builder(player) is not None:
            self.saves.move(step)
        elif d is not None and d.choices and not d.secret:
            self.highlight[player] = (self.highlighted(player) + step) % len(d.choices)

    def confirm_choice(self, player: int, t: float) -> bool:
        d = self.decision_of(player)
        if d is None or not d.choices:
            return False
        if self.save_builder(player) is not None:
            return self.press(player, t, long=True) == "sent"
        return self.send(dict(d.choices[self.highlighted(player)]), t)

    def chooser(self) -> int | None:
        """The seat whose multi-choice decision keys (arrows, Enter) act on: the active player's
        if they have one, else the first such decision."""
        ds = [
            d for d in self.expect().decisions if classify_decision(d) == "choice" and d.player >= 0
        ]
        for d in ds:
            if self._is_active(d.player):
                return d.player
        return ds[0].player if ds else None

    def confirm(self, t: float) -> str:
        """Enter / OK: the highlighted line of a menu, confirm a correction, start the
        countdown, or send the highlighted choice."""
        if self.menu is not None:
            return self._menu_ok(t)
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
        self.message = Message(
            f"'{name.replace('_', ' ')}' is not possible now", "error", t + MESSAGE_S
        )
        return False

    def table_actions(self) -> list[str]:
        """Names of the table-level actions the game offers now (not timed ones)."""
        out = []
        for d in self.expect().decisions:
            if d.player == -1:
                out += [c.get("action") for c in d.choices if c.get("action") != "window_closed"]
        return out

    def save_builder(self, player: int) -> SaveBuilder | None:
        """The die-by-die save choice of ``player``, when their decision is Rollers' save."""
        d = self.decision_of(player)
        if not is_save_choice(d):
            return None
        if self.saves is None or self.saves.decision is not d:
            roll = (self.expect().detail or {}).get("last_roll") or []
            self.saves = SaveBuilder(d, list(roll))
        return self.saves

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
            self.message = Message(
                "Wait for the reveal before rolling", "wrong_roll", t + MESSAGE_S
            )
            return False
        try:
            engine.check_roll(
                e.roll, [engine.parse_die(s) for s in specs], self.state.get("layout") or {}
            )
        except RuleError as exc:
            text = self._roll_words(specs) or str(exc)
            wanted, ids = e.roll.dice, [s.split(":", 1)[0] for s in specs]
            kinds = len(self.state.get("layout") or {})
            if wanted is not None and sorted(ids) != sorted(wanted) and kinds > 1:
                # dice of several kinds: the rules name them by id ("up and up"); say it as
                # players do (a game of one kind of dice says it well: "roll both dice")
                seen = count_words(len(ids)) + " seen"
                if len(ids) == len(wanted):
                    seen += f" ({dice_words(ids)})"
                text = f"Roll the {dice_words(wanted)}: {seen}"
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

    # ------------------------------------------------------------------ clock
    def tick(self, t: float) -> None:
        """Time passes: ends the countdown with the reveal, closes a press window, expires
        messages and banners."""
        self.now = t
        if self.menu is not None and t - self.menu.opened > UNDO_CONFIRM_S:
            self.close_menu()
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
            if not self.send(ev, t):  # send() clears the hidden choices: ours are in `choices`
                break
        self.secret.clear()
        self.revealed = {"in": ins, "out": outs}
        self._emit("reveal", f"reveal: IN {', '.join(ins) or '-'} / OUT {', '.join(outs) or '-'}")

    def camera(self, ok: bool, t: float, lost_after: float = 2.0) -> None:
        """Report whether a frame came in. After ``lost_after`` seconds without frames the
        screen says the camera is gone; the game is kept and carries on when frames return."""
        change = watch_camera(
            self,
            ok,
            t,
            lost_after,
            "Camera lost: check its cable. The game is kept and goes on "
            "when the picture comes back.",
        )
        if change:
            self._emit("camera", "camera back" if change == "back" else "camera lost")
