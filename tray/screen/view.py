"""The view model: everything a screen shows, as plain data built from the game state.

The display (tray/screen/display.py) only draws a :class:`View`; everything it says is decided here
from the engine's ``state``, its ``expect()`` and the table logic (tray/table/actions.py). That keeps
the screen testable without pygame: tests check the prompt, the scores, who has chosen (never
what), the banner and the messages through the View.

>>> from tray.table.actions import Table, MemoryJournal
>>> from tray.screen.view import build_view
>>> table = Table(MemoryJournal.create(None, "toss-up", ["Ana", "Ben"], {}, None))
>>> view = build_view(table, t=0.0)
>>> view.prompt, [(row.name, row.score) for row in view.players]
('Ana: roll all 10 dice', [('Ana', '0'), ('Ben', '0')])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tray.screen.story import LOSS_KINDS, story_of
from tray.table.actions import Table, choice_label, classify_decision, show_value

# detail keys that could give away a hidden choice, or that the screen shows elsewhere
_HIDDEN_DETAIL = {
    "pending",
    "choices",
    "chosen",
    "secret",
    "awaiting",
    "waiting",
    "in_out",
    "hidden",
    "choice",
}

#: one colour per seat (seat 1 red, 2 blue, ...), on the scoreboard, the turn and the history
PLAYER_COLOURS = [
    (235, 87, 75),
    (74, 152, 245),
    (245, 200, 55),
    (80, 200, 115),
    (195, 115, 235),
    (250, 145, 55),
    (60, 205, 205),
    (240, 120, 175),
    (175, 195, 85),
    (200, 165, 125),
]

_TITLES = {
    "tally-up": "Tally Up!",
    "toss-up": "Toss Up!",
    "bank": "Bank",
    "diced-out": "DICEDOUT!",
    "rollers": "Rollers",
}


@dataclass
class PlayerRow:
    """One line of the scoreboard. ``chosen``: this player has made a hidden choice (the
    screen never learns which). ``tag``: public status words ("IN", "OUT", "banked", ...)."""

    seat: int
    name: str
    score: str
    active: bool = False
    chosen: bool = False
    awaited: bool = False
    tag: str = ""
    winner: bool = False
    colour: tuple[int, int, int] = (200, 200, 200)
    lost: str = ""  # "lost 350" after a bust, until the next roll
    note: str = ""  # "+18 last round"


@dataclass
class DieView:
    """A die to draw. ``die``/``face`` None when unread; ``unsure`` marks a die read by a
    person or not yet read; ``selected`` is the die a correction works on."""

    die: str | None
    face: str | None
    unsure: bool = False
    selected: bool = False
    kept: bool = False  # Rollers: saved (kept out of the next roll)

    @property
    def spec(self) -> str | None:
        return f"{self.die}:{self.face}" if self.die and self.face else None


@dataclass
class ChoiceView:
    label: str
    highlighted: bool = False
    index: int = 0  # into the decision's choices
    pinned: bool = False  # kept in sight when not every choice fits (the hint names it)


@dataclass
class View:
    """What the play screen shows (screen = "play", "end")."""

    screen: str
    game_id: str
    title: str
    dice_set: str
    round_text: str
    players: list[PlayerRow]
    prompt: str
    totals: list[tuple[str, str]] = field(default_factory=list)
    roll: list[DieView] = field(default_factory=list)
    roll_caption: str = ""
    banner: str | None = None
    banner_kind: str | None = None
    message: str | None = None
    message_kind: str | None = None
    countdown: int | None = None
    chosen_text: str = ""
    reveal: dict | None = None
    choices: list[ChoiceView] = field(default_factory=list)
    chooser: str | None = None
    help: str = ""
    winner: str | None = None
    camera_lost: bool = False
    table_actions: list[str] = field(default_factory=list)
    sheet: list = field(default_factory=list)  # (label, marked, circled)
    confirm: str | None = None  # label of the on-screen confirm button, when one is useful
    odds: list = field(default_factory=list)  # live odds lines (tray/screen/odds_view.py)
    # the table menu (a long press with nothing to decide; key E) or the end screen's choices
    # (rematch / another game / start screen); a tap on line i is ("menu", i)
    menu_title: str | None = None
    menu: list[ChoiceView] = field(default_factory=list)
    turn: str | None = None  # the active player's name (whose turn it is)
    turn_colour: tuple[int, int, int] | None = None
    in_out: tuple[list[str], list[str]] | None = None  # Tally Up!: (IN names, OUT names) now
    events: list[str] = field(default_factory=list)  # the last events in words, newest last
    history: list[tuple[str, list[str]]] = field(default_factory=list)  # ("Round 1", scores)
    cue: str | None = None  # the sound of the latest event: roll, bust, reveal, win
    cue_count: int = 0  # journal events so far: the cue plays when this grows
    join: dict | None = None  # phones joining (--web): QR rows, table and seat codes


@dataclass
class StartView:
    """The start screen: choose the game, the players, their names and the options."""

    games: list[tuple[str, str]]  # (id, title)
    game_index: int
    players: list[str]
    min_players: int
    max_players: int
    options: list[tuple[str, str]]  # (name, value shown)
    focus: int  # 0 game, 1 players, 2.. options, last = start
    resume: str | None = None  # "Resume Bank (Ana, Ben)?" when a game is unfinished
    message: str | None = None
    # the lines below the values (focus == len(value lines) + i highlights actions[i]):
    # "Start", "Resume ...", "Discard the unfinished game", "Quit the table"; a tap on one is
    # ("start", line, 0)
    actions: list[str] = field(default_factory=list)
    editing: bool = False  # the focused value changes with short presses
    question: str | None = None  # "Quit dicetray?": answers No / Yes, ("confirm", i)
    answers: list[str] = field(default_factory=list)
    answer: int = 0


_OPTION_WORDS = {
    "every_player_once": "everyone rolls once",
    "press_window_s": "press window (s)",
    "doubles_rule": "doubles",
    "tie_break": "tie-break round",
}


def option_label(name: str) -> str:
    """A game option's name as the start screen says it ("press_window_s" -> "press window (s)").

    >>> option_label("press_window_s"), option_label("rounds")
    ('press window (s)', 'rounds')
    """
    return _OPTION_WORDS.get(name, name.replace("_", " "))


_ACTION_WORDS = {
    "start": "Start",
    "discard": "Discard the unfinished game",
    "quit": "Quit the table",
    "history": "Table history",
    "howto": "How to play",
}


def start_view(menu) -> StartView:
    """The StartView of a tray.table.menu.StartMenu.

    >>> from tray.table.menu import StartMenu
    >>> start_view(StartMenu(["Ana", "Ben"], default_game="bank")).actions
    ['Start', 'Quit the table', 'Table history', 'How to play Bank']
    """
    e = menu.engine
    opts = [(option_label(n), show_value(menu.value(n))) for n in menu.option_names()]
    actions = [
        (menu.resume or "Resume")
        if a == "resume"
        else f"How to play {title_of(menu.game_id)}"
        if a == "howto"
        else _ACTION_WORDS[a]
        for a in menu.actions()
    ]
    question, answers, answer = None, [], 0
    if menu.confirm is not None:
        question, answers, answer = menu.confirm.shown()
    return StartView(
        menu.games,
        menu.game_index,
        menu.players,
        e.MIN_PLAYERS,
        e.MAX_PLAYERS,
        opts,
        menu.focus,
        menu.resume,
        menu.message,
        actions,
        menu.editing,
        question,
        answers,
        answer,
    )


@dataclass
class SetupView:
    """The set-up screen: the live camera picture with the dice it finds."""

    frame: object  # BGR ndarray or None
    boxes: list[tuple[int, int, int, int, str, bool]]  # x, y, w, h, label, read
    status: str
    dice_set: str
    message: str | None = None


@dataclass
class HowToView:
    """The how-to-play page of one game (tray/screen/howto.py).

    >>> how_to_view("bank").title
    'Bank'
    """

    game_id: str
    title: str
    goal: str
    points: list[str]
    buttons: str


def how_to_view(game_id: str) -> HowToView:
    """The how-to-play page of ``game_id`` as a view."""
    from tray.screen.howto import how_to

    page = how_to(game_id)
    return HowToView(game_id, title_of(game_id), page.goal, list(page.points), page.buttons)


def colour_of(seat: int) -> tuple[int, int, int]:
    """The colour of seat ``seat`` (0-based)."""
    return PLAYER_COLOURS[seat % len(PLAYER_COLOURS)]


def title_of(game_id: str) -> str:
    """The game's name as people write it."""
    return _TITLES.get(game_id, game_id)


def _pretty_key(key: str) -> str:
    return key.replace("_", " ").strip().capitalize()


def _pretty_value(value) -> str | None:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float, str)):
        return str(value)
    if (
        isinstance(value, (list, tuple))
        and all(isinstance(v, (int, str)) for v in value)
        and len(value) <= 12
    ):
        return ", ".join(str(v) for v in value) if value else "-"
    return None


def totals_of(detail: dict) -> list[tuple[str, str]]:
    """The running/turn totals and other short facts of ``expect().detail``, in words."""
    out = []
    for k, v in (detail or {}).items():
        if k in _HIDDEN_DETAIL or k.startswith("_"):
            continue
        shown = _pretty_value(v)
        if shown is not None:
            out.append((_pretty_key(k), shown))
    # the totals first
    out.sort(key=lambda kv: 0 if "total" in kv[0].lower() else 1)
    return out[:6]


def game_facts(state: dict, detail: dict) -> tuple[list[tuple[str, str]], dict[int, str], list]:
    """Per game: the totals line, public per-player status words, and a score sheet row.

    Returns ``(totals, tags, sheet)``: totals as (label, value) pairs ("Running total", "450"),
    tags {seat: "OUT"}, sheet a list of (label, marked, circled) for DICEDOUT!'s active player
    or Rollers' board. Only public facts: never a hidden IN/OUT choice.
    """
    game = state.get("game")
    n = len(state.get("players", []))
    totals: list[tuple[str, str]] = []
    tags: dict[int, str] = {}
    sheet: list = []
    a = state.get("active")
    try:
        if game == "tally-up":
            totals.append(("Running total", str(state.get("running", 0))))
            if state.get("locked"):
                totals.append(("Locked", ", ".join(state["locked"])))
            opts = state.get("options", {})
            if not opts.get("every_player_once"):
                totals.append(("Target", str(opts.get("target"))))
            else:
                totals.append(("Game", "everyone active once"))
            for p, is_in in enumerate(state.get("in", [])):
                tags[p] = "IN" if is_in else "OUT"
        elif game == "toss-up":
            totals.append(("Turn points", str(state.get("turn_points", 0))))
            totals.append(("Dice left", str(state.get("left", 10))))
            if detail.get("set_aside"):
                totals.append(("Set aside", str(detail["set_aside"])))
            for p in detail.get("remaining", []) or []:
                if isinstance(p, int) and 0 <= p < n:
                    tags[p] = "last turn"
        elif game == "bank":
            totals.append(("Total", str(state.get("total", 0))))
            # the roll number and the phase are in the prompt: not repeated here
            for p, b in enumerate(state.get("banked", [])):
                if b:
                    tags[p] = "banked"
        elif game == "diced-out":
            rer = state.get("rerolls", [])
            for p in range(n):
                out = (state.get("out") or [None] * n)[p]
                if out == "diced_out":
                    tags[p] = "DICEDOUT!"
                elif out == "complete":
                    tags[p] = "complete"
                elif p < len(rer):
                    tags[p] = f"{rer[p]} rerolls"
            if isinstance(a, int) and 0 <= a < n:
                totals.append(("Unmarked", str(detail.get("unmarked_total", [0] * n)[a])))
                totals.append(("Rerolls", str(rer[a] if a < len(rer) else "")))
                circled = set(state.get("options", {}).get("circled", []))
                marks = set(state.get("marks", [[]] * n)[a])
                sheet = [(str(k), k in marks, k in circled) for k in range(2, 13)]
        elif game == "rollers":
            chips = state.get("chips") or detail.get("chips")
            if isinstance(chips, list) and isinstance(a, int) and a < len(chips):
                totals.append(("Chips", str(chips[a])))
            # the roll number is in the prompt ("roll 1 of 3"): not repeated here
            boards = state.get("boards") or detail.get("boards")
            if isinstance(boards, list) and isinstance(a, int) and a < len(boards):
                sheet = _rollers_sheet(boards[a])
            if isinstance(chips, list):
                for p, c in enumerate(chips):
                    tags[p] = f"{c} chips"
    except (TypeError, ValueError, KeyError, IndexError):
        pass  # a state from another version of an engine: show what the generic view can
    if not totals:
        totals = totals_of(detail)
    return totals, tags, sheet


def _rollers_sheet(board) -> list:
    """Rollers board sections 1..5 as (label, marked = closed, circled = open)."""
    out = []
    items = board.items() if isinstance(board, dict) else enumerate(board, 1)
    for k, v in items:
        v = str(v)
        out.append((str(k), v == "closed", v == "open"))
    return out


def roll_from_last(state: dict) -> list[str]:
    """The ``die:face`` specs of the last roll the state describes."""
    last = state.get("last") or {}
    for key in ("roll", "dice"):
        v = last.get(key) if isinstance(last, dict) else None
        if isinstance(v, list) and all(isinstance(s, str) and ":" in s for s in v):
            return v
    v = state.get("last_roll")
    if isinstance(v, list) and all(isinstance(s, str) and ":" in s for s in v):
        return v
    return []


def build_view(table: Table, t: float) -> View:
    """The View of the game ``table`` runs, at time ``t``."""
    state = table.state
    e = table.expect()
    game_id = state.get("game", getattr(table.journal, "game_id", ""))
    players = list(state.get("players", []))
    summary = table.journal.game.summary(state)
    scores = {p["name"]: p.get("score", 0) for p in summary.get("players", [])}
    active = state.get("active")
    totals, tags, sheet = game_facts(state, e.detail or {})
    secret_ds = table.secret_decisions()
    awaited = {d.player for d in secret_ds}
    chosen = set(table.chosen())
    winner = summary.get("winner") if e.finished else None
    winners = winner if isinstance(winner, list) else ([winner] if winner else [])
    story = story_of(table.journal)
    history = _history(story.rounds, len(players))
    gains = _last_gains(story.rounds, len(players))
    in_out = None
    if game_id == "tally-up" and isinstance(state.get("in"), list):
        in_out = (
            [players[p] for p, i in enumerate(state["in"]) if i],
            [players[p] for p, i in enumerate(state["in"]) if not i],
        )
    rows = []
    for i, name in enumerate(players):
        score = scores.get(
            name,
            state.get("scores", [0] * len(players))[i] if i < len(state.get("scores", [])) else 0,
        )
        tag = tags.get(i, "")
        lost = f"lost {story.losses[i]}" if story.losses.get(i) else ""
        rows.append(
            PlayerRow(
                i,
                name,
                str(score),
                active == i,
                i in chosen,
                i in awaited,
                tag,
                name in winners,
                colour_of(i),
                lost,
                gains.get(i, ""),
            )
        )
    round_text = f"Round {state.get('round', 1)}"
    if isinstance(state.get("options"), dict) and state["options"].get("rounds"):
        round_text += f" of {state['options']['rounds']}"

    # dice: a correction in progress, else the last roll
    roll: list[DieView] = []
    caption = ""
    if story.losses:
        # the banner calls the moment; the caption says plainly who lost what
        what = {"tally_up": "Three stars", "seven": "Seven"}.get(story.loss_kind or "", "Bust")
        lost = {p: n for p, n in sorted(story.losses.items()) if n}
        amounts = set(lost.values())
        if not lost:
            caption = f"{what}: nothing was at stake"
        elif len(amounts) == 1 and len(lost) > 1:
            caption = (
                f"{what}: " + _names([players[p] for p in lost]) + f" lost {amounts.pop()} each"
            )
        else:
            caption = f"{what}: " + ", ".join(f"{players[p]} lost {n}" for p, n in lost.items())
    if table.correction is not None:
        for i, s in enumerate(table.correction.slots):
            v = s.value
            die, face = v.split(":", 1) if v else (None, None)
            roll.append(
                DieView(
                    die,
                    face,
                    unsure=s.was_unread or table.correction.event is not None,
                    selected=i == table.correction.selected,
                )
            )
        caption = ""  # the message says what to fix, the hint how: not a third time
    else:
        specs = roll_from_last(state) or _last_journal_roll(table.journal)
        for spec in specs:
            die, face = spec.split(":", 1)
            roll.append(DieView(die, face))

    # choices of the deciding player
    choices: list[ChoiceView] = []
    chooser = table.chooser()
    help_ = ""
    if chooser is not None:
        d = table.decision_of(chooser)
        hi = table.highlighted(chooser)
        labels = (e.detail or {}).get("labels")
        if not (isinstance(labels, list) and len(labels) == len(d.choices)):
            labels = [choice_label(c, players) for c in d.choices]
        choices = [ChoiceView(str(lab), i == hi, i) for i, lab in enumerate(labels)]
        help_ = f"{players[chooser]}: short press = next choice, long press = OK"
        saves = table.save_builder(chooser)
        if saves is not None:  # Rollers: die by die, the dice row showing which and what
            n = len(saves.roll)
            choices = [
                ChoiceView(lab, i == saves.focus, i, pinned=i >= n)
                for i, lab in enumerate(saves.labels())
            ]
            if len(roll) == n and table.correction is None:
                for i, dv in enumerate(roll):
                    dv.selected, dv.kept = i == saves.focus, i in saves.keep
            help_ = (
                f"{players[chooser]}: short press = next die, long press = keep it or let "
                "it go; long press on Roll the others to roll"
            )
    elif secret_ds:
        help_ = "IN/OUT in secret: press your button (1st press IN, 2nd OUT). All reveal together."
    else:
        singles = [d for d in e.decisions if classify_decision(d) == "single" and d.player >= 0]
        if singles:
            acts = sorted({choice_label(d.choices[0]) for d in singles})
            help_ = "Press your button to " + " / ".join(acts)
        elif e.roll is not None:
            help_ = "Roll the dice into the tray"

    if table.correction is not None:  # the presses set the dice first: no choices till then
        help_, choices = _correction_help(table, players, e), []
    chosen_text = ""
    if secret_ds:
        done = [players[p] for p in sorted(awaited) if p in chosen]
        wait = [players[p] for p in sorted(awaited) if p not in chosen]
        chosen_text = (
            "Chosen: "
            + (", ".join(done) or "nobody yet")
            + ("  |  waiting for " + ", ".join(wait) if wait else "")
        )

    banner_text = banner_kind = None
    if table.banner is not None:
        banner_kind, banner_text = table.banner[0], table.banner[1]
        who = (state.get("last") or {}).get("player")
        if isinstance(who, int) and 0 <= who < len(players) and banner_kind != "game_over":
            banner_text = f"{players[who]}: {banner_text}"  # whose moment it is
    if e.finished:
        banner_kind = "game_over"
        if winners:
            banner_text = ("Winner: " if len(winners) == 1 else "Shared win: ") + ", ".join(winners)
        else:
            banner_text = "Game over"

    msg = table.message
    prompt = e.prompt
    if len(awaited) == 1 and prompt.startswith("Everyone IN:"):
        # "Everyone IN" reads wrong when one player is left IN: name them
        prompt = players[next(iter(awaited))] + prompt[len("Everyone IN") :]
    if table.countdown_from is not None:
        prompt = "Reveal in..."
    shown = table.menu_shown()
    menu_title, menu = None, []
    if shown is not None:
        menu_title = shown[0]
        menu = [ChoiceView(lab, i == shown[2], i) for i, lab in enumerate(shown[1])]
        if not e.finished:
            help_ = "Menu: short press = next line, long press = OK (or tap a line)"
    window = table.window_decision()
    if window is not None and table.window_from is not None:
        left = max(0.0, table.window_seconds() - (t - table.window_from))
        prompt = f"{e.prompt}  ({math.ceil(left)} s)"
    return View(
        screen="end" if e.finished else "play",
        game_id=game_id,
        title=title_of(game_id),
        dice_set=getattr(table.journal.game, "DICE_SET", game_id),
        round_text=round_text,
        players=rows,
        prompt=prompt,
        totals=totals,
        sheet=sheet,
        roll=roll,
        roll_caption=caption,
        banner=banner_text,
        banner_kind=banner_kind,
        message=msg.text if msg else None,
        message_kind=msg.kind if msg else None,
        countdown=table.countdown_number(t),
        chosen_text=chosen_text,
        reveal=(
            table.revealed
            if (
                table.revealed
                and not secret_ds
                and (state.get("last") or {}).get("kind") == "reveal"
            )
            else None
        ),
        choices=choices,
        chooser=players[chooser] if chooser is not None else None,
        help=help_
        if not e.finished
        else (
            "Short press = next, long press = OK: a rematch, "
            "another game or the start screen (arrows + Enter)"
        ),
        winner=", ".join(winners) if winners else None,
        camera_lost=bool(msg and msg.kind == "camera"),
        table_actions=table.table_actions(),
        confirm=(
            "OK"
            if (choices or table.correction is not None)
            else "Reveal"
            if secret_ds and table.countdown_from is None
            else None
        ),
        menu_title=menu_title,
        menu=menu,
        turn=players[active]
        if isinstance(active, int) and 0 <= active < len(players) and not e.finished
        else None,
        turn_colour=colour_of(active) if isinstance(active, int) else None,
        in_out=in_out,
        events=story.lines,
        history=history,
        cue=_cue(state, table.journal, e.finished),
        cue_count=len(getattr(table.journal, "events", [])),
    )


def _correction_help(table: Table, players: list[str], e) -> str:
    """How the dice under correction are set: the button first, then the keys."""
    c = table.correction
    if c.event is None:  # unread dice of a new roll: the roller's button
        who = e.roll.roller if e.roll is not None else None
        press = "Short press"
        if isinstance(who, int) and 0 <= who < len(players):
            press = f"{players[who]}: short press"
        return f"{press} = next face, long press = OK (keys: Up/Down, Enter)"
    owner = table.correction_owner
    if isinstance(owner, int) and 0 <= owner < len(players):
        return (
            f"{players[owner]}: short press = next face, long press = next die, then save "
            "(keys: arrows, Enter)"
        )
    return "Tap a die or press Left/Right to pick it, Up/Down for its face, Enter to save"


def _names(names: list[str]) -> str:
    """ "Ana", "Ana and Ben", "Ana, Ben and Cy"."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _history(rounds: list, n: int) -> list[tuple[str, list[str]]]:
    """The per-round score table: ("Round 1", [each seat's score at its end]), oldest first."""
    return [(f"Round {r}", [str(x) for x in scores[:n]]) for r, scores in rounds]


def _last_gains(rounds: list, n: int) -> dict[int, str]:
    """{seat: "+18 last round"} from the last two rounds of the history."""
    if not rounds:
        return {}
    now = rounds[-1][1]
    before = rounds[-2][1] if len(rounds) > 1 else [0] * len(now)
    out = {}
    for p in range(min(n, len(now), len(before))):
        try:
            gain = now[p] - before[p]
        except TypeError:
            continue
        if gain:
            out[p] = f"{gain:+d} last round"
    return out


def _last_journal_roll(journal) -> list[str]:
    """The dice of the journal's last roll event (an undone roll is gone from the journal)."""
    for ev in reversed(list(getattr(journal, "events", []))):
        if ev.get("type") == "roll":
            return [s for s in ev.get("dice", []) if isinstance(s, str) and ":" in s]
    return []


def _cue(state: dict, journal, finished: bool) -> str | None:
    """The sound the latest journal event deserves (tray/screen/sound.py), or None."""
    if finished:
        return "win"
    events = list(getattr(journal, "events", []))
    if not events:
        return None
    last = state.get("last") if isinstance(state.get("last"), dict) else {}
    kind = last.get("kind")
    if kind in LOSS_KINDS:
        return "bust"
    if kind == "reveal":
        return "reveal"
    return "roll" if events[-1].get("type") == "roll" else None
