"""The view model: everything a screen shows, as plain data built from the game state.

The display (tray/screen/display.py) only draws a :class:`View`; everything it says is decided here
from the engine's ``state``, its ``expect()`` and the table logic (tray/table/table.py). That keeps
the screen testable without pygame: tests check the prompt, the scores, who has chosen (never
what), the banner and the messages through the View.

>>> from tray.table.memory import MemoryJournal

>>> from tray.table.table import Table
>>> from tray.screen.view import build_view
>>> table = Table(MemoryJournal.create(None, "toss-up", ["Ana", "Ben"], {}, None))
>>> view = build_view(table, t=0.0)
>>> view.prompt, [(row.name, row.score) for row in view.players]
('Ana: roll all 10 dice', [('Ana', '0'), ('Ben', '0')])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tray.rules import games
from tray.rules.engine import Facts, and_list
from tray.screen.howto import how_to
from tray.screen.story import story_of
from tray.table.choices import choice_label, classify_decision
from tray.table.menu import show_value
from tray.table.table import Table

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
    guess: str | None = None  # unread: the reader's likeliest ``die:face``, drawn faintly

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
    lowest_wins: bool
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
        else menu.teach
        if a == "teach"
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
    page = how_to(game_id)
    return HowToView(game_id, title_of(game_id), page.goal, list(page.points), page.buttons)


def colour_of(seat: int) -> tuple[int, int, int]:
    """The colour of seat ``seat`` (0-based)."""
    return PLAYER_COLOURS[seat % len(PLAYER_COLOURS)]


def title_of(game_id: str) -> str:
    """The game's name as people write it (its engine's TITLE)."""
    return games.get(game_id).TITLE


def facts_words(facts: Facts) -> list[tuple[str, str]]:
    """The figures of a game's :class:`Facts` as (label, words) pairs, the locked dice second
    (their colours only: the label says they are dice, and a third figure still fits beside).

    >>> facts = Facts(figures=(("Running total", 450), ("Target", 2500)), locked=("red", "blue"))
    >>> facts_words(facts)
    [('Running total', '450'), ('Locked', 'red, blue'), ('Target', '2500')]
    """
    out = [(label, str(value)) for label, value in facts.figures]
    if facts.locked:
        out.insert(1, ("Locked", ", ".join(facts.locked)))
    return out


def build_view(table: Table, t: float) -> View:
    """The View of the game ``table`` runs, at time ``t``."""
    state = table.state
    e = table.expect()
    game = table.journal.game
    game_id = game.GAME_ID
    players = list(state["players"])
    active = state["active"]
    facts = game.facts(state)
    secret_ds = table.secret_decisions()
    awaited = {d.player for d in secret_ds}
    summary = game.summary(state)
    winners = _winners(summary, e.finished)
    chosen = set(table.chosen())
    story = story_of(table.journal)
    roll = _dice(table, facts)
    chooser = table.chooser()
    saves = table.save_builder(chooser) if chooser is not None else None
    choices = _choices(table, e, players, chooser, saves, roll)
    shown = table.menu_shown()
    banner_kind, banner_text = _banner(table, facts, players, winners, e.finished)
    msg = table.message
    on_turn = isinstance(active, int) and 0 <= active < len(players) and not e.finished
    return View(
        screen="end" if e.finished else "play",
        game_id=game_id,
        title=title_of(game_id),
        dice_set=game.DICE_SET,
        lowest_wins=game.LOWEST_WINS,
        round_text=f"Round {state['round']}" + (f" of {facts.rounds}" if facts.rounds else ""),
        players=_rows(state, summary, facts, story, awaited, chosen, winners),
        prompt=_prompt(table, e, players, awaited, t),
        totals=facts_words(facts),
        sheet=list(facts.sheet),
        roll=roll,
        # the message says what to fix, the hint how: not a third time
        roll_caption="" if table.correction is not None else _loss_caption(story, players),
        banner=banner_text,
        banner_kind=banner_kind,
        message=msg.text if msg else None,
        message_kind=msg.kind if msg else None,
        countdown=table.countdown_number(t),
        chosen_text=_chosen_text(players, awaited, chosen),
        reveal=(
            table.revealed
            if table.revealed and not secret_ds and facts.reveal is not None
            else None
        ),
        choices=choices,
        chooser=players[chooser] if chooser is not None else None,
        help=_help(table, e, players, chooser, saves, bool(secret_ds), shown is not None),
        winner=", ".join(winners) if winners else None,
        camera_lost=bool(msg and msg.kind == "camera"),
        table_actions=table.table_actions(),
        confirm=_confirm_word(table, choices, bool(secret_ds)),
        menu_title=shown[0] if shown is not None else None,
        menu=_menu_lines(shown),
        turn=players[active] if on_turn else None,
        turn_colour=colour_of(active) if isinstance(active, int) else None,
        in_out=_in_out(facts, players),
        events=story.lines,
        history=_history(story.rounds, len(players)),
        cue=_cue(facts, table.journal, e.finished),
        cue_count=len(getattr(table.journal, "events", [])),
    )


def _winners(summary: dict, finished: bool) -> list:
    """The winners' names once the game is over (one, or those sharing the win)."""
    winner = summary.get("winner") if finished else None
    return winner if isinstance(winner, list) else ([winner] if winner else [])


def _in_out(facts: Facts, players: list[str]) -> tuple[list[str], list[str]] | None:
    """Who went IN and who stayed OUT at the last reveal, by name."""
    if facts.in_out is None:
        return None
    return [players[p] for p in facts.in_out[0]], [players[p] for p in facts.in_out[1]]


def _rows(
    state: dict,
    summary: dict,
    facts: Facts,
    story,
    awaited: set[int],
    chosen: set[int],
    winners: list,
) -> list[PlayerRow]:
    """The scoreboard: one row a seat (``awaited``: seats choosing IN/OUT in secret,
    ``chosen``: those that have)."""
    scores = [p["score"] for p in summary["players"]]
    players = list(state["players"])
    gains = _last_gains(story.rounds, len(players))
    return [
        PlayerRow(
            i,
            name,
            str(scores[i]),
            state["active"] == i,
            i in chosen,
            i in awaited,
            facts.status.get(i, ""),
            name in winners,
            colour_of(i),
            f"lost {story.losses[i]}" if story.losses.get(i) else "",
            gains.get(i, ""),
        )
        for i, name in enumerate(players)
    ]


def _loss_caption(story, players: list[str]) -> str:
    """Under the dice after a loss: who lost what, plainly (the banner calls the moment)."""
    if not story.losses:
        return ""
    what = story.loss or "Bust"
    lost = {p: n for p, n in sorted(story.losses.items()) if n}
    amounts = set(lost.values())
    if not lost:
        return f"{what}: nothing was at stake"
    if len(amounts) == 1 and len(lost) > 1:
        return f"{what}: " + and_list([players[p] for p in lost]) + f" lost {amounts.pop()} each"
    return f"{what}: " + ", ".join(f"{players[p]} lost {n}" for p, n in lost.items())


def _dice(table: Table, facts: Facts) -> list[DieView]:
    """The dice row: a correction in progress, else the last roll."""
    c = table.correction
    if c is None:
        specs = facts.last_roll or _last_journal_roll(table.journal)
        roll = []
        for spec in specs:
            die, face = spec.split(":", 1)
            roll.append(DieView(die, face))
        return roll
    roll = []
    for i, slot in enumerate(c.slots):
        v = slot.value
        die, face = v.split(":", 1) if v else (None, None)
        roll.append(
            DieView(
                die,
                face,
                unsure=slot.was_unread or c.event is not None,
                selected=i == c.selected,
                guess=slot.guess,
            )
        )
    return roll


def _choices(table: Table, e, players: list[str], chooser, saves, roll) -> list[ChoiceView]:
    """The deciding player's choices (none while dice are being corrected: the presses set the
    dice first). Rollers' saves go die by die, the dice row showing which and what."""
    if chooser is None or table.correction is not None:
        return []
    if saves is not None:
        n = len(saves.roll)
        if len(roll) == n:
            for i, dv in enumerate(roll):
                dv.selected, dv.kept = i == saves.focus, i in saves.keep
        return [
            ChoiceView(lab, i == saves.focus, i, pinned=i >= n)
            for i, lab in enumerate(saves.labels())
        ]
    d = table.decision_of(chooser)
    hi = table.highlighted(chooser)
    labels = (e.detail or {}).get("labels")
    if not (isinstance(labels, list) and len(labels) == len(d.choices)):
        labels = [choice_label(c, players) for c in d.choices]
    return [ChoiceView(str(lab), i == hi, i) for i, lab in enumerate(labels)]


def _help(
    table: Table, e, players: list[str], chooser, saves, secret: bool, menu_open: bool
) -> str:
    """The hint line: what the buttons do now."""
    if e.finished:
        return (
            "Short press = next, long press = OK: a rematch, "
            "another game or the start screen (arrows + Enter)"
        )
    if menu_open:
        return "Menu: short press = next line, long press = OK (or tap a line)"
    if table.correction is not None:
        return _correction_help(table, players, e)
    if saves is not None:
        return (
            f"{players[chooser]}: short press = next die, long press = keep it or let "
            "it go; long press on Roll the others to roll"
        )
    if chooser is not None:
        return f"{players[chooser]}: short press = next choice, long press = OK"
    if secret:
        return "IN/OUT in secret: press your button (1st press IN, 2nd OUT). All reveal together."
    singles = [d for d in e.decisions if classify_decision(d) == "single" and d.player >= 0]
    if singles:
        acts = sorted({choice_label(d.choices[0]) for d in singles})
        return "Press your button to " + " / ".join(acts)
    return "Roll the dice into the tray" if e.roll is not None else ""


def _chosen_text(players: list[str], awaited: set[int], chosen: set[int]) -> str:
    """While IN/OUT is chosen in secret: who has chosen (never what) and who is awaited."""
    if not awaited:
        return ""
    done = [players[p] for p in sorted(awaited) if p in chosen]
    wait = [players[p] for p in sorted(awaited) if p not in chosen]
    return (
        "Chosen: "
        + (", ".join(done) or "nobody yet")
        + ("  |  waiting for " + ", ".join(wait) if wait else "")
    )


def _banner(
    table: Table, facts: Facts, players: list[str], winners: list, finished: bool
) -> tuple[str | None, str | None]:
    """(kind, text) of the banner: the table's moment, named for whose it is; the winners at
    the end."""
    if finished:
        if winners:
            return "game_over", (
                ("Winner: " if len(winners) == 1 else "Shared win: ") + ", ".join(winners)
            )
        return "game_over", "Game over"
    if table.banner is None:
        return None, None
    kind, text = table.banner[0], table.banner[1]
    who = facts.actor
    if who is not None and 0 <= who < len(players) and kind != "game_over":
        text = f"{players[who]}: {text}"  # whose moment it is
    return kind, text


def _prompt(table: Table, e, players: list[str], awaited: set[int], t: float) -> str:
    """The prompt line: the engine's, but naming the one player left IN, counting down the
    reveal, or the seconds left of a timed press window."""
    window = table.window_decision()
    if window is not None and table.window_from is not None:
        left = max(0.0, table.window_seconds() - (t - table.window_from))
        return f"{e.prompt}  ({math.ceil(left)} s)"
    if table.countdown_from is not None:
        return "Reveal in..."
    prompt = e.prompt
    if len(awaited) == 1 and prompt.startswith("Everyone IN:"):
        # "Everyone IN" reads wrong when one player is left IN: name them
        prompt = players[next(iter(awaited))] + prompt[len("Everyone IN") :]
    return prompt


def _menu_lines(shown: tuple[str, list[str], int] | None) -> list[ChoiceView]:
    """The lines of the menu on screen (``Table.menu_shown``), the highlighted one marked."""
    if shown is None:
        return []
    return [ChoiceView(lab, i == shown[2], i) for i, lab in enumerate(shown[1])]


def _confirm_word(table: Table, choices: list[ChoiceView], secret: bool) -> str | None:
    """The word on the confirm button (Enter / "OK" / "Reveal"), or None when it does nothing."""
    if choices or table.correction is not None:
        return "OK"
    if secret and table.countdown_from is None:
        return "Reveal"
    return None


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


def _cue(facts: Facts, journal, finished: bool) -> str | None:
    """The sound the latest journal event deserves (tray/screen/sound.py), or None."""
    if finished:
        return "win"
    events = list(getattr(journal, "events", []))
    if not events:
        return None
    if facts.loss:
        return "bust"
    if facts.reveal is not None:
        return "reveal"
    return "roll" if events[-1].get("type") == "roll" else None
