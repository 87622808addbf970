"""Menus worked with the player buttons alone: a short press moves to the next line, a long
press is OK. Anything that throws something away (end the game, discard, quit) asks first:
"No, go back" is highlighted, a short press moves to "Yes", a long press does it.

* :class:`ButtonMenu`: a list of lines (the end screen's rematch / another game / menu, the
  table menu during a game), each optionally asking for confirmation.
* :class:`StartMenu`: the start screen: the game, the number of players, the options, Start,
  resume or discard an unfinished game, quit the table.

Keys and taps do the same (arrows + Enter; Esc only steps back out of a question).

>>> m = ButtonMenu("Game over", [("rematch", "Rematch"), ("menu", "Back to the menu")])
>>> m.press(long=False), m.press(long=True)
(None, 'menu')
"""

from __future__ import annotations

from dataclasses import dataclass

from tray.rules import games

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

NO = "No, go back"


@dataclass
class MenuLine:
    """One line of a ButtonMenu: ``key`` is what choosing it returns; ``ask``: the question
    asked before (None: no question).

    >>> MenuLine("quit", "Quit the table", "Quit dicetray?").ask
    'Quit dicetray?'
    """

    key: str
    label: str
    ask: str | None = None


class ButtonMenu:
    """A list of lines worked by one button (short = next, long = OK) or keys.

    ``lines``: (key, label) or (key, label, question) tuples. Choosing a line with a question
    first shows the question with "No, go back" (highlighted) and "Yes, <label>".

    >>> m = ButtonMenu("Table", [("undo", "Undo"), ("end", "End the game", "End it now?")])
    >>> m.press(False), m.press(True), m.question
    (None, None, 'End it now?')
    >>> m.press(False), m.press(True)
    (None, 'end')
    """

    def __init__(
        self, title: str, lines, focus: int = 0, owner: int | None = None, opened: float = 0.0
    ):
        self.title = title
        self.lines = [MenuLine(*line) if not isinstance(line, MenuLine) else line for line in lines]
        self.focus = focus % max(1, len(self.lines))
        self.owner = owner  # the seat whose button works it (None: anyone's)
        self.opened = opened  # time of the last press (menus close when left alone)
        self.asking: MenuLine | None = None
        self.answer = 0  # 0 = "No, go back", 1 = "Yes"

    @property
    def question(self) -> str | None:
        return self.asking.ask if self.asking is not None else None

    def shown(self) -> tuple[str, list[str], int]:
        """(title, the lines' words, the highlighted line) as the screen shows them now."""
        if self.asking is not None:
            label = self.asking.label
            return self.asking.ask, [NO, f"Yes, {label[:1].lower()}{label[1:]}"], self.answer
        return self.title, [line.label for line in self.lines], self.focus

    def line_keys(self) -> list[str]:
        return [line.key for line in self.lines]

    def move(self, step: int = 1) -> None:
        """Highlight the next (or previous) line."""
        if self.asking is not None:
            self.answer = (self.answer + step) % 2
        elif self.lines:
            self.focus = (self.focus + step) % len(self.lines)

    def ok(self) -> str | None:
        """OK on the highlighted line: its key, or None (a question opened, or answered No)."""
        if self.asking is not None:
            line, yes = self.asking, self.answer == 1
            self.asking, self.answer = None, 0
            return line.key if yes else None
        if not self.lines:
            return None
        line = self.lines[self.focus]
        if line.ask:
            self.asking, self.answer = line, 0
            return None
        return line.key

    def back(self) -> bool:
        """Esc: leave a question (True), else nothing to step back from (False)."""
        if self.asking is None:
            return False
        self.asking, self.answer = None, 0
        return True

    def press(self, long: bool) -> str | None:
        """A button: short = next line, long = OK."""
        if long:
            return self.ok()
        self.move(1)
        return None

    def pick(self, index: int) -> str | None:
        """A tap on line ``index``: the first tap highlights it, a tap on the highlighted one
        is OK."""
        n = 2 if self.asking is not None else len(self.lines)
        if not 0 <= index < n:
            return None
        if (self.answer if self.asking is not None else self.focus) == index:
            return self.ok()
        if self.asking is not None:
            self.answer = index
        else:
            self.focus = index
        return None

    def plan(self, key: str) -> list[bool]:
        """The presses (long?) that choose ``key`` from here, answering Yes to its question:
        how a simulated player works the menu with its button."""
        if key not in self.line_keys() or self.asking is not None:
            return []
        i = self.line_keys().index(key)
        out = [False] * ((i - self.focus) % len(self.lines)) + [True]
        if self.lines[i].ask:
            out += [False, True]
        return out


class StartMenu:
    """The start screen's logic: the game, the number of players (as the game allows), the
    options, then the actions: Start, Resume / Discard an unfinished game, Quit the table.

    Buttons: a short press moves to the next line; a long press on a value line lets its value
    be changed (short = next value, long = done); a long press on an action does it (Discard
    and Quit ask first). Keys: Up/Down a line, Left/Right its value, Enter does the highlighted
    action (on a value line: Start), R resumes. Taps on < and > change a value.

    ``outcome`` says what was chosen: "start", "teach" (offered by the app through
    ``teach``, the line's words), "resume", "discard" or "quit" (None: nothing yet); the app
    acts on it and calls :meth:`clear`.

    >>> m = StartMenu(["Ana", "Ben", "Cy"], default_game="bank")
    >>> m.game_id, len(m.players)
    ('bank', 3)
    >>> m.key("down"); m.key("left"); len(m.players)
    2
    >>> m.key("return"); m.outcome
    'start'
    """

    def __init__(
        self,
        names: list[str],
        default_game: str = "tally-up",
        options: dict | None = None,
        players: int | None = None,
    ):
        self.games = [(gid, games.get(gid).TITLE) for gid in games.GAME_IDS]
        ids = [g for g, _ in self.games]
        self.game_index = ids.index(default_game) if default_game in ids else 0
        fallback = ["Ana", "Ben", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo"]
        self.names = list(names) + [n for n in fallback if n not in names]
        self.n_players = players or max(2, min(len(names) or 2, 4))
        self.overrides = {g: dict(v) for g, v in (options or {}).items() if isinstance(v, dict)}
        self.focus = 0
        self.editing = False  # a long press on a value line: short presses change it
        self.outcome: str | None = None
        self.resume: str | None = None
        self.resume_path = None
        self.teach: str | None = None  # the line offering to teach from kept rolls, or None
        self.message: str | None = None
        self.confirm: ButtonMenu | None = None
        self._clamp()

    # ----------------------------------------------------------------- what is chosen
    @property
    def game_id(self) -> str:
        return self.games[self.game_index][0]

    @property
    def engine(self):
        return games.get(self.game_id)

    @property
    def players(self) -> list[str]:
        return self.names[: self.n_players]

    def _clamp(self) -> None:
        e = self.engine
        self.n_players = max(e.MIN_PLAYERS, min(self.n_players, e.MAX_PLAYERS, len(self.names)))

    def option_names(self) -> list[str]:
        """The options shown (scalars; list options keep their value)."""
        return [k for k, v in self.engine.OPTIONS.items() if isinstance(v, (bool, int, float, str))]

    def chosen_options(self) -> dict:
        return dict(self.overrides.get(self.game_id, {}))

    def value(self, name: str):
        return self.chosen_options().get(name, self.engine.OPTIONS[name])

    def set_game(
        self, game_id: str, options: dict | None = None, players: list[str] | None = None
    ) -> None:
        """Show ``game_id`` (with these options and players) as the choice, e.g. after a game."""
        ids = [g for g, _ in self.games]
        if game_id in ids:
            self.game_index = ids.index(game_id)
        if options is not None:
            self.overrides[game_id] = dict(options)
        if players:
            self.names = list(players) + [n for n in self.names if n not in players]
            self.n_players = len(players)
        self._clamp()
        self.editing = False
        self.confirm = None

    def offer_resume(self, path, words: str | None) -> None:
        """Offer the unfinished game at ``path`` (None: no offer); the focus goes to Resume."""
        self.resume_path, self.resume = path, (words if path is not None else None)
        self.focus = self.actions().index("resume") + self.rows() if path is not None else 0

    # ----------------------------------------------------------------------- lines
    def rows(self) -> int:
        """How many value lines (game, players, options) there are."""
        return 2 + len(self.option_names())

    def actions(self) -> list[str]:
        """The action lines below the values, in order."""
        return (
            ["start"]
            + (["teach"] if self.teach else [])
            + (["resume", "discard"] if self.resume_path is not None else [])
            + ["quit", "history", "howto"]
        )

    def lines(self) -> int:
        return self.rows() + len(self.actions())

    def action_at(self, line: int) -> str | None:
        return self.actions()[line - self.rows()] if line >= self.rows() else None

    def change(self, row: int, step: int) -> None:
        """Change value line ``row`` by ``step`` (+1 / -1)."""
        self.message = None
        if row == 0:
            self.game_index = (self.game_index + step) % len(self.games)
            self._clamp()
            self.focus = min(self.focus, self.lines() - 1)
        elif row == 1:  # wraps round, so one button reaches every count
            e = self.engine
            top = min(e.MAX_PLAYERS, len(self.names))
            n = self.n_players + step
            self.n_players = e.MIN_PLAYERS if n > top else top if n < e.MIN_PLAYERS else n
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
                base = self.engine.OPTIONS[name]
                inc = max(1, round(abs(base) / 10)) if base else 1
                new = max(1, cur + step * inc)
            else:
                return
            self.overrides.setdefault(self.game_id, {})[name] = new

    def do(self, action: str | None) -> None:
        """Choose an action line: Start / Resume at once, Discard / Quit after a question."""
        if action in ("start", "teach", "resume", "history", "howto"):
            self.outcome = action
        elif action == "discard":
            what = (self.resume or "").removeprefix("Resume ")  # "Bank with Ana and Ben ..."
            self.confirm = ButtonMenu(
                "", [("discard", "Discard it", f"Discard the unfinished game? {what}".strip())]
            )
            self.confirm.ok()
        elif action == "quit":
            self.confirm = ButtonMenu(
                "",
                [("quit", "Quit the table", "Quit dicetray? The table stays off until restarted")],
            )
            self.confirm.ok()

    def clear(self) -> None:
        """Forget the outcome (the app acted on it)."""
        self.outcome = None

    # ---------------------------------------------------------------------- inputs
    def press(self, long: bool) -> str | None:
        """A player's button (any seat): short = next line (or value), long = OK. Returns the
        outcome when one was chosen."""
        self.message = None
        if self.confirm is not None:
            return self._answer(self.confirm.press(long), long)
        if self.editing:
            if long:
                self.editing = False
            else:
                self.change(self.focus, 1)
            return None
        if not long:
            self.focus = (self.focus + 1) % self.lines()
            return None
        if self.focus < self.rows():
            self.editing = True
            return None
        self.do(self.action_at(self.focus))
        return self.outcome

    def _answer(self, key: str | None, long: bool) -> str | None:
        if key is not None:
            self.outcome = key
        if long:
            self.confirm = None
        return self.outcome

    def key(self, name: str) -> None:
        """A key on the start screen."""
        name = name.lower()
        self.message = None
        if self.confirm is not None:
            if name in ("up", "down", "left", "right"):
                self.confirm.move(1)
            elif name in ("return", "enter", "keypad enter", "space"):
                self._answer(self.confirm.ok(), True)
            elif name == "escape":
                self.confirm = None
            return
        if name == "up":
            self.focus = (self.focus - 1) % self.lines()
        elif name == "down":
            self.focus = (self.focus + 1) % self.lines()
        elif name in ("left", "right") and self.focus < self.rows():
            self.change(self.focus, 1 if name == "right" else -1)
        elif name in ("return", "enter", "keypad enter", "space"):
            self.do(self.action_at(self.focus) or "start")
        elif name == "r" and self.resume_path is not None:
            self.outcome = "resume"
        elif name == "escape":
            self.editing = False

    def tap(self, target) -> None:
        """A tap on the start screen (``Display.hit``): ("start", line, step),
        ("button", "resume"), ("confirm", 0 or 1)."""
        if not target:
            return
        if target[0] == "confirm" and self.confirm is not None:
            if target[1] == 1:
                self.outcome = self.confirm.asking.key if self.confirm.asking else None
            self.confirm = None
            return
        if target == ("button", "resume") and self.resume_path is not None:
            self.outcome = "resume"
            return
        if target[0] != "start":
            return
        _, line, step = target
        if line >= self.rows():
            self.do(self.action_at(min(line, self.lines() - 1)))
        elif step:
            self.change(line, step)
        else:
            self.focus = line

    # ------------------------------------------------------------------ simulated
    def plan(self, game_id: str, n_players: int, options: dict) -> list[bool]:
        """The presses (long?) that set this game, player count and options, then Start:
        how a simulated player works the start screen with a button. Raises ValueError when
        a value cannot be reached by stepping."""
        sim = _Shadow(self)
        out: list[bool] = []
        ids = [g for g, _ in self.games]
        out += (
            sim.go(0)
            + [True]
            + [False] * ((ids.index(game_id) - self.game_index) % len(ids))
            + [True]
        )
        sim.menu.game_index = ids.index(game_id)
        sim.menu._clamp()
        out += sim.go(1)
        if sim.menu.n_players != n_players:
            out += [True]
            for _ in range(sim.menu.engine.MAX_PLAYERS * 2):
                if sim.menu.n_players == n_players:
                    break
                sim.menu.change(1, 1)
                out.append(False)
            else:
                raise ValueError(f"{n_players} players cannot be chosen for {game_id}")
            out.append(True)
        for name, want in options.items():
            if name not in sim.menu.option_names():
                raise ValueError(f"{game_id} has no option {name!r} on the start screen")
            row = 2 + sim.menu.option_names().index(name)
            out += [*sim.go(row), True]
            for _ in range(200):
                if sim.menu.value(name) == want:
                    break
                sim.menu.change(row, 1)
                out.append(False)
            else:
                raise ValueError(f"option {name}={want!r} cannot be chosen on the start screen")
            out.append(True)
        out += [*sim.go(sim.menu.rows()), True]  # Start: the first action line
        return out


class _Shadow:
    """A copy of a StartMenu's choices, stepped ahead to plan presses."""

    def __init__(self, menu: StartMenu):
        import copy

        self.menu = copy.deepcopy(menu)
        self.menu.confirm = None

    def go(self, line: int) -> list[bool]:
        steps = (line - self.menu.focus) % self.menu.lines()
        self.menu.focus = line
        return [False] * steps


def show_value(v) -> str:
    """An option's value in words ("on", "double then add")."""
    if isinstance(v, bool):
        return "on" if v else "off"
    return str(v).replace("_", " ")
