"""Command lines of the workshop: ``dicetray eval`` and ``dicetray bench``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from lab.photos import REALDICE_DIR
from vision.dicesets import SET_IDS

DEFAULT_REALDICE = REALDICE_DIR


def main_eval(argv: list[str]) -> int:
    """``dicetray eval``: accuracy figures on rendered held-out scenes and real photos."""
    from lab import evaluate

    p = argparse.ArgumentParser(prog="dicetray eval", description=evaluate.__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sets", nargs="+", default=list(SET_IDS), choices=SET_IDS)
    p.add_argument("--n", "--scenes", dest="scenes", type=int, default=150,
                   help="rendered held-out scenes per dice set (default 150)")
    p.add_argument("--throws", type=int, default=20, help="rendered throws per dice set")
    p.add_argument("--realdice", default=str(DEFAULT_REALDICE))
    p.add_argument("--no-real", action="store_true", help="skip the real photo sets")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.scenes < 1 or args.throws < 0:
        p.error("--n needs at least 1 scene and --throws 0 or more")
    if not args.no_real and args.realdice != str(DEFAULT_REALDICE) and not Path(
            args.realdice).is_dir():
        p.error(f"--realdice {args.realdice}: no such folder: give the folder of the real "
                "photo sets, or --no-real")
    report = evaluate.run(args.sets, args.scenes, args.throws,
                          None if args.no_real else Path(args.realdice))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(evaluate.format_report(report))
    return 0


def main_bench(argv: list[str]) -> int:
    """``dicetray bench``: pipeline milliseconds per frame and classifier ms per die."""
    from lab import bench

    p = argparse.ArgumentParser(prog="dicetray bench", description=bench.__doc__)
    p.add_argument("--dice-set", default="d6", choices=SET_IDS)
    p.add_argument("--frames", type=int, default=60, help="frames timed per dice count")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    result = bench.run(args.dice_set, args.frames)
    if args.json:
        print(json.dumps(result))
    else:
        print(bench.format_result(result))
    return 0
