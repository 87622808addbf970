"""``dicetray replay JOURNAL``: where a game journal leads, as a scoreboard or JSON.

Kept apart from ``tray.rules.journal`` so that the journal never imports the playthrough
module (which writes journals): ``journal <- playthrough <- replay``, no circle.

>>> from tray.replay import scoreboard
>>> print(scoreboard({"game": "bank", "round": 3, "active": "Ann", "finished": False,
...                   "players": [{"name": "Ann", "score": 40}, {"name": "Ben", "score": 12}]}))
bank: round 3, Ann to play
  Ann       40
  Ben       12
"""

from __future__ import annotations

import argparse
import json
import sys

from tray.playthrough import format_playthrough
from tray.rules.journal import Journal, JournalError


def scoreboard(summary: dict, title: str | None = None) -> str:
    """A readable scoreboard from a game's ``summary``."""
    players = summary.get("players", [])
    width = max([len(p["name"]) for p in players] + [4])
    status = "finished" if summary.get("finished") else f"{summary.get('active')} to play"
    lines = [f"{title or summary.get('game')}: round {summary.get('round')}, {status}"]
    win = summary.get("winner")
    winners = set(win if isinstance(win, list) else [win] if win else [])
    for p in players:
        mark = "  <- winner" if p["name"] in winners else ""
        lines.append(f"  {p['name']:<{width}}  {p['score']:>6}{mark}")
    if summary.get("finished"):
        if isinstance(win, list):
            lines.append(f"Shared win: {', '.join(win)}")
        elif win:
            lines.append(f"Winner: {win}")
    return "\n".join(lines)


def main_replay(argv: list[str]) -> int:
    """``dicetray replay JOURNAL [--json] [--events] [--salvage]``: where a journal leads.

    A journal that cannot be read is one line on stderr naming the file, the line and the
    fix, exit 2. ``--salvage`` shows the good part of a damaged journal instead.
    """
    parser = argparse.ArgumentParser(
        prog="dicetray replay", description="Replay a game journal and print where the game stands."
    )
    parser.add_argument("journal", help="a game journal (.jsonl)")
    parser.add_argument(
        "--json", action="store_true", help="print the game summary as JSON instead of a scoreboard"
    )
    parser.add_argument(
        "--events",
        action="store_true",
        help="also list every effective event with the state after it",
    )
    parser.add_argument(
        "--salvage",
        action="store_true",
        help="a damaged journal: show where its good part (before the damage) leads",
    )
    args = parser.parse_args(argv)
    try:
        j = Journal.open(args.journal, salvage=args.salvage)
    except JournalError as exc:
        print(f"dicetray replay: {exc}", file=sys.stderr)
        return 2
    summary = j.summary()
    if j.damage is not None:
        print(
            f"dicetray replay: {j.damage}; showing the {len(j.events)} good events before it",
            file=sys.stderr,
        )
    if args.events:
        print(format_playthrough(j.game_id, j.header, j.events))
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        if j.partial_tail:
            print("(the last line of the journal was cut off and is not counted)")
        print(scoreboard(summary, getattr(j.game, "TITLE", j.game_id)))
    return 0
