"""The table's history on the screen (from the start menu's "Table history"): three pages
built from the journal folder by tray/history.py: who won what (games played and won, longest
streaks, best scores), the dice (face counts and a fairness verdict per die) and the last
finished game's round-by-round score chart. A press (or any key) turns the page; after the
last page, or on Esc / a long press, the start screen comes back.

>>> pages = history_pages([], [])
>>> [p.title for p in pages]
['Table history: players', 'Table history: dice', 'Table history: last game']
>>> pages[0].lines[0]
'No games played yet'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tray.history import chart, dice_fairness, history
from tray.rules import games
from tray.screen import theme as th
from tray.screen.chart import draw_chart
from tray.screen.draw_play import header
from tray.screen.theme import BASE_H, HEADER_H, MIN_CAP
from tray.table.dice_words import die_name, face_words


@dataclass
class HistoryView:
    """One page: a title, lines of text, and (chart page) the players and their scores per
    round. ``page`` / ``pages`` number it."""

    title: str
    lines: list[str] = field(default_factory=list)
    chart_title: str = ""
    chart_players: list[str] = field(default_factory=list)
    chart_points: list[list[int]] = field(default_factory=list)
    page: int = 1
    pages: int = 3


def history_pages(records, notes: list[str]) -> list[HistoryView]:
    """The three pages for the games read (``tray.history.read_folder``) and skip notes."""
    h = history(records)
    who = []
    for name, p in list(h["players"].items())[:8]:
        who.append(f"{name}: won {p['won']} of {p['played']}, longest streak {p['longest_streak']}")
    for game, rows in h["best_scores"].items():
        word = "lowest" if games.get(game).LOWEST_WINS else "best"
        tops = ", ".join(f"{r['player']} {r['score']}" for r in rows[:3])
        who.append(f"{games.get(game).TITLE} {word}: {tops}")
    if not who:
        who = ["No games played yet"]
    if notes:
        who.append(f"({len(notes)} file{'s' if len(notes) > 1 else ''} in the folder skipped)")
    dice = []
    for d in dice_fairness(records):
        dice.append(f"{_dice_title(d['dice_set'], d['die'])}: {d['rolls']} rolls, {d['verdict']}")
        dice.append("    " + ", ".join(f"{face_words(f)}: {c}" for f, c in d["counts"].items()))
    if not dice:
        dice = ["No rolls recorded yet"]
    last = next((r for r in reversed(records) if r.final.get("finished")), None)
    chart_page = HistoryView("Table history: last game", page=3)
    if last is None:
        chart_page.lines = ["No finished game yet"]
    else:
        chart_page.chart_title = f"{games.get(last.game).TITLE}: scores round by round"
        chart_page.chart_players = list(last.final["players"])
        chart_page.chart_points = chart(last)
    return [
        HistoryView("Table history: players", who[:11], page=1),
        HistoryView("Table history: dice", dice[:11], page=2),
        chart_page,
    ]


def _dice_title(set_id: str, die: str) -> str:
    """Which dice, as players call them: "Standard dice", "Toss Up! dice", "Tally Up!: Up Die"."""
    from vision.dicesets import DiceSetError, load

    try:
        ds = load(set_id)
    except (DiceSetError, OSError):
        return f"{set_id}: {die_name(die)}"
    name = ds.name.removesuffix(" d6")  # "Standard d6" -> "Standard"
    if len(ds.dice) == 1:
        return f"{name} dice"
    many = any(x.id == die and x.count > 1 for x in ds.dice)
    return f"{name}: {die_name(die, many)}"


def draw_history(d, v: HistoryView) -> None:
    """Draw one history page on the Display ``d``."""
    title, _, part = v.title.partition(": ")
    header(d, "History", "bank", f"{part or title} {v.page}/{v.pages}")
    y = HEADER_H + 14
    if v.chart_points:
        rect = d.R(8, y, d.width - 16, BASE_H - y - 52)
        draw_chart(
            d.surface,
            (rect.x, rect.y, rect.w, rect.h),
            v.chart_title,
            v.chart_players,
            v.chart_points,
            display=d,
        )
    bottom = BASE_H - 22 - d.line_h(MIN_CAP)
    for line in v.lines:
        warn = any(w in line for w in ("suspicious", "uneven"))
        colour = th.ORANGE if warn else th.GREEN if "looks fair" in line else th.TEXT
        x = 16 + (28 if line.startswith(" ") else 0)  # a die's face counts, under its name
        h = d.wrapped_h(line, d.width - 16 - x, th.CAP_BODY, False, 2)
        if y + h > bottom:
            break
        y = d.wrap(line, (x, y, d.width - 16 - x, h), th.CAP_BODY, colour, max_lines=2) + 10
    d.text(
        "Short press = next page, long press = back (or Esc)",
        (d.width / 2, BASE_H - 22),
        MIN_CAP,
        th.DIM,
        anchor="center",
        max_w=d.width - 32,
    )
