"""The ``dicetray odds`` and ``dicetray duel`` commands (the logic is in tray/rules/odds.py and
tray/rules/bots.py; this module only reads arguments and files and prints).

    dicetray odds JOURNAL [--after N] [--json]
    dicetray duel --game G --players best,random [--games N] [--seed S] [--json]

Example::

    >>> main_duel(["--game", "toss-up", "--players", "best,random", "--games", "4", "--json"])
    ... # doctest: +ELLIPSIS
    {"games": 4, "wins": {...}, ...}
    0
"""

from __future__ import annotations

import argparse
import json
import sys

from tray.layouts import default_layout
from tray.rules import bots, games
from tray.rules.journal import Journal, JournalError
from tray.rules.odds import odds_json


def main_odds(argv: list[str]) -> int:
    """``dicetray odds JOURNAL``: the odds of the decision the journal's game waits for."""
    ap = argparse.ArgumentParser(
        prog="dicetray odds", description="the odds of each option of the decision at hand"
    )
    ap.add_argument("journal", help="a game journal (*.jsonl)")
    ap.add_argument(
        "--after",
        type=int,
        default=None,
        metavar="N",
        help="the state after engine event N instead of the last one",
    )
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args(argv)
    try:
        j = Journal.open(args.journal)
        state = j.state if args.after is None else j.state_after(args.after)
    except FileNotFoundError:
        print(f"dicetray odds: no such journal {args.journal}", file=sys.stderr)
        return 2
    except (JournalError, ValueError, IndexError, OSError) as err:
        print(f"dicetray odds: cannot read {args.journal}: {err}", file=sys.stderr)
        return 2
    out = odds_json(state)
    if args.json:
        print(json.dumps(out))
        return 0
    if not out["options"]:
        where = "" if args.after is None else f" after event {args.after}"
        print(f"{out['game']}{where}: nothing left to chance at this point")
        return 0
    prompt = j.game.expect(state).prompt  # the decision at that event, not at the end
    where = "" if args.after is None else f" after event {args.after} of {len(j.events)}"
    print(f"{out['game']}{where}: {prompt}")
    for o in out["options"]:
        extra = "  ".join(
            f"{k} {v:.1%}"
            for k, v in o.items()
            if k.startswith("p_") and k not in ("p_bust", "p_bust_exact")
        )
        print(
            f"  {o['choice']:<28} bust {o['p_bust']:6.1%}  expected {o['expected_points']:8.1f}"
            f"  {extra}"
        )
    return 0


def main_duel(argv: list[str]) -> int:
    """``dicetray duel``: computer players against each other on the rules engine alone."""
    ap = argparse.ArgumentParser(
        prog="dicetray duel", description="computer players against each other (no vision)"
    )
    ap.add_argument("--game", required=True, choices=games.GAME_IDS)
    ap.add_argument(
        "--players",
        default="best,random",
        help="comma-separated policies, one a seat: " + ", ".join(bots.POLICIES),
    )
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.players.split(",") if n.strip()]
    if args.games < 1:
        print("dicetray duel: --games must be 1 or more", file=sys.stderr)
        return 2
    try:
        result = bots.duel(args.game, names, args.games, default_layout(args.game), args.seed)
    except ValueError as err:
        print(f"dicetray duel: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{args.game}: {result['games']} games, seats rotate every game")
    for seat, wins in result["wins"].items():
        print(f"  {seat:<14} {wins:>6} wins  ({wins / result['games']:.1%})")
    if result["shared"]:
        print(f"  shared wins counted for each winner: {result['shared']} games")
    return 0
