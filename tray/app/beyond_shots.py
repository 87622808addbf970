"""Screenshots of the screens beyond scoring (called by ``dicetray screenshots``): a bot seat
saying what it chose, the live odds panel of every game, and the three Table history pages
(from games the bots play into a temporary journal folder).

>>> from tray.app.beyond_shots import beyond_views   # used by screenshots.shots
"""

from __future__ import annotations

import random
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from tray.app.session import make_journal
from tray.history import read_folder
from tray.rules import bots
from tray.rules.engine import roll
from tray.screen.history_screen import history_pages
from tray.screen.odds_view import odds_lines
from tray.screen.view import build_view
from tray.table.bot_seats import BotSeats
from tray.table.memory import MemoryJournal
from tray.table.table import Table


def _table(game: str, players: list[str], events: list[dict], options=None) -> Table:
    table = Table(MemoryJournal.create(None, game, players, options or {}, None))
    for ev in events:
        assert table.send(ev, 0.0), ev
    table.banner = None
    return table


def odds_tables() -> list[tuple[str, Table]]:
    """A table per game at a decision worth its odds."""
    r = roll
    return [
        ("tally-up-odds-dice", _table("tally-up", ["Ana", "Ben", "Cy"], [])),
        (
            "tally-up-odds-in-out",
            _table("tally-up", ["Ana", "Ben", "Cy"], [r("red:200", "orange:(200)", "blue:100")]),
        ),
        (
            "toss-up-odds",
            _table(
                "toss-up",
                ["Ana", "Ben"],
                [r(*["toss:green"] * 6 + ["toss:yellow"] * 3 + ["toss:red"])],
            ),
        ),
        (
            "bank-odds",
            _table(
                "bank",
                ["Ana", "Ben", "Cy"],
                [r("d6:3", "d6:4"), r("d6:2", "d6:5"), r("d6:6", "d6:3")],
                {"rounds": 10},
            ),
        ),
        (
            "diced-out-odds",
            _table(
                "diced-out",
                ["Ana", "Ben"],
                [r("d6:6", "d6:6"), r("d6:1", "d6:2"), r("d6:3", "d6:4"), r("d6:1", "d6:5")],
            ),
        ),
        (
            "rollers-odds",
            _table(
                "rollers",
                ["Ana", "Ben"],
                [
                    r("wild:5"),
                    r("black:2"),
                    r("wild:1", "wild:3", "wild:3", "wild:star", "wild:4", "black:5"),
                ],
            ),
        ),
    ]


def bot_table() -> Table:
    """Toss Up! with a bot seat that has just chosen to stop (its pause still running)."""
    table = _table("toss-up", ["Ana", "Bot"], [roll(*["toss:red"] * 10)])
    seats = BotSeats(table, pause_s=1.5)
    for greens in (10, 10, 7):
        table.roll(["toss:green"] * greens + ["toss:yellow"] * (10 - greens), 1.0)
        seats.tick(1.1)
    return table


def history_folder(folder: Path, games: int = 6) -> Path:
    """Bot games (best, careful, random) written as journals into ``folder``."""
    rng = random.Random(4)
    two, three = ["Bot", "Bot careful"], ["Bot", "Bot careful", "Bot random"]
    plan = [
        ("toss-up", three, {}),
        ("bank", two, {"rounds": 10}),
        ("toss-up", three, {}),
        ("diced-out", two, {}),
        ("toss-up", three, {}),
        ("bank", two, {"rounds": 10}),
    ][:games]
    for i, (game, names, options) in enumerate(plan):
        began = datetime(2026, 11, 20 + i, 12, tzinfo=UTC)  # as its file name says
        j = make_journal(
            folder / f"2026-11-2{i}_12-00-00_{game}.jsonl", game, names, options, began
        )
        seats = [bots.Bot(game, bots.policy_of_name(n)) for n in names]
        while not j.finished:
            for ev in bots.step(j.state, seats, rng):
                j.append(ev)
                if j.finished:
                    break
    (folder / "notes.jsonl").write_text("not a journal\n")
    return folder


def beyond_views() -> list[tuple[str, object]]:
    """(name, view) of each screen: the bot seat, the odds panels, the history pages."""
    out: list[tuple[str, object]] = [("bot-seat-chose", build_view(bot_table(), 1.2))]
    for name, table in odds_tables():
        view = build_view(table, 0.5)
        view.odds = odds_lines(table.state)
        out.append((name, view))
    with tempfile.TemporaryDirectory() as tmp:
        pages = history_pages(*read_folder(history_folder(Path(tmp))))
    out += [(f"history-{i}", page) for i, page in enumerate(pages, 1)]
    return out
