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

from tray.table.actions import Table, choice_label, classify_decision

# detail keys that could give away a hidden choice, or that the screen shows elsewhere
_HIDDEN_DETAIL = {"pending", "choices", "chosen", "secret", "awaiting", "waiting", "in_out",
                  "hidden", "choice"}

_TITLES = {"tally-up": "Tally Up!", "toss-up": "Toss Up!", "bank": "Bank",
           "diced-out": "DICEDOUT!", "rollers": "Rollers"}


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


@dataclass
class DieView:
    """A die to draw. ``die``/``face`` None when unread; ``unsure`` marks a die read by a
    person or not yet read; ``selected`` is the die a correction works on."""

    die: str | None
    face: str | None
    unsure: bool = False
    selected: bool = False

    @property
    def spec(self) -> str | None:
        return f"{self.die}:{self.face}" if self.die and self.face else None


@dataclass
class ChoiceView:
    label: str
    highlighted: bool = False
    index: int = 0    # into the decision's choices


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
    sheet: list = field(default_factory=list)   # (label, marked, circled)
    confirm: str | None = None   # label of the on-screen confirm button, when one is useful


@dataclass
class StartView:
    """The start screen: choose the game, the players, their names and the options."""

    games: list[tuple[str, str]]          # (id, title)
    game_index: int
    players: list[str]
    min_players: int
    max_players: int
    options: list[tuple[str, str]]        # (name, value shown)
    focus: int                            # 0 game, 1 players, 2.. options, last = start
    resume: str | None = None             # "Resume Bank (Ana, Ben)?" when a game is unfinished
    message: str | None = None


@dataclass
class SetupView:
    """The set-up screen: the live camera picture with the dice it finds."""

    frame: object                         # BGR ndarray or None
    boxes: list[tuple[int, int, int, int, str, bool]]   # x, y, w, h, label, read
    status: str
    dice_set: str
    message: str | None = None


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
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, str)) for v in value) \
            and len(value) <= 12:
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
    out.sort(key=lambda kv: (0 if "total" in kv[0].lower() else 1))
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
            totals.append(("Roll", str(detail.get("roll_number", ""))))
            totals.append(("Phase", str(detail.get("phase", ""))))
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
            rolls = state.get("rolls", detail.get("rolls"))
            if isinstance(rolls, int):
                totals.append(("Roll", f"{rolls} of 3"))
            boards = state.get("boards") or detail.get("boards")
            if isinstance(boards, list) and isinstance(a, int) and a < len(boards):
                sheet = _rollers_sheet(boards[a])
            if isinstance(chips, list):
                for p, c in enumerate(chips):
                    tags[p] = f"{c} chips"
    except (TypeError, ValueError, KeyError, IndexError):
        pass   # a state from another version of an engine: show what the generic view can
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


def last_caption(state: dict, players: list[str]) -> str:
    """Words on what the last event did ("Bust: the running total is lost", "+350")."""
    last = state.get("last") or {}
    if not isinstance(last, dict):
        return ""
    if isinstance(last.get("text"), str):
        return last["text"]
    kind = last.get("kind")
    if kind in ("reveal", "chosen"):
        return ""
    parts = []
    if kind:
        parts.append(str(kind).replace("_", " ").capitalize())
    pts = last.get("points")
    if isinstance(pts, (int, float)):
        parts.append(f"{pts:+d}" if isinstance(pts, int) else str(pts))
    who = last.get("player")
    if isinstance(who, int) and 0 <= who < len(players):
        parts.append(f"({players[who]})")
    return " ".join(parts)


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
    rows = []
    for i, name in enumerate(players):
        score = scores.get(name, state.get("scores", [0] * len(players))[i]
                           if i < len(state.get("scores", [])) else 0)
        tag = tags.get(i, "")
        if table.revealed and not secret_ds and not tag:
            if name in table.revealed.get("in", []):
                tag = "IN"
            elif name in table.revealed.get("out", []):
                tag = "OUT"
        rows.append(PlayerRow(i, name, str(score), active == i, i in chosen, i in awaited, tag,
                              name in winners))
    round_text = f"Round {state.get('round', 1)}"
    if isinstance(state.get("options"), dict) and state["options"].get("rounds"):
        round_text += f" of {state['options']['rounds']}"

    # dice: a correction in progress, else the last roll
    roll: list[DieView] = []
    caption = last_caption(state, players)
    if table.correction is not None:
        for i, s in enumerate(table.correction.slots):
            v = s.value
            die, face = (v.split(":", 1) if v else (None, None))
            roll.append(DieView(die, face, unsure=s.was_unread or table.correction.event is not None,
                                selected=i == table.correction.selected))
        caption = ("Correcting the last roll" if table.correction.event is not None
                   else "Fix the marked dice, then confirm")
    else:
        specs = roll_from_last(state) or list(table.last_roll)
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
        help_ = (f"{players[chooser]}: short press = next choice, long press = confirm "
                 "(keys: arrows + Enter, or tap)")
    elif secret_ds:
        help_ = ("IN/OUT in secret: press your button (1st press IN, 2nd OUT, ...). "
                 "The reveal counts down once everyone has chosen.")
    else:
        singles = [d for d in e.decisions if classify_decision(d) == "single" and d.player >= 0]
        if singles:
            acts = sorted({choice_label(d.choices[0]) for d in singles})
            help_ = "Press your button to " + " / ".join(acts)
        elif e.roll is not None:
            help_ = "Roll the dice into the tray"

    chosen_text = ""
    if secret_ds:
        done = [players[p] for p in sorted(awaited) if p in chosen]
        wait = [players[p] for p in sorted(awaited) if p not in chosen]
        chosen_text = ("Chosen: " + (", ".join(done) or "nobody yet")
                       + ("  |  waiting for " + ", ".join(wait) if wait else ""))

    banner_text = banner_kind = None
    if table.banner is not None:
        banner_kind, banner_text = table.banner[0], table.banner[1]
    if e.finished:
        banner_kind = "game_over"
        if winners:
            banner_text = ("Winner: " if len(winners) == 1 else "Shared win: ") + ", ".join(winners)
        else:
            banner_text = "Game over"

    msg = table.message
    prompt = e.prompt
    if table.countdown_from is not None:
        prompt = "Reveal in..."
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
        reveal=table.revealed if (table.revealed and not secret_ds) else None,
        choices=choices,
        chooser=players[chooser] if chooser is not None else None,
        help=help_ if not e.finished else "Press any button or Enter for a rematch, Esc to leave",
        winner=", ".join(winners) if winners else None,
        camera_lost=bool(msg and msg.kind == "camera"),
        table_actions=table.table_actions(),
        confirm=("OK" if (choices or table.correction is not None)
                 else "Reveal" if secret_ds and table.countdown_from is None else None),
    )
