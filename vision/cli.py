"""The vision commands: ``dicetray recognize``, ``dicetray eval`` and ``dicetray bench``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

from vision.dicesets import SET_IDS, DiceSetError, load

REPO = Path(__file__).resolve().parent.parent
DEFAULT_REALDICE = REPO.parent / "shared" / "realdice"


def main_recognize(argv: list[str]) -> int:
    """``dicetray recognize IMAGE... --dice-set SET [--json]``."""
    p = argparse.ArgumentParser(prog="dicetray recognize",
                                description="Read the dice in photos of the tray.")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--dice-set", default="d6",
                   help=f"one of {', '.join(SET_IDS)} or a dice-set TOML file (default d6)")
    p.add_argument("--json", action="store_true", help="print a JSON list (one object per image)")
    p.add_argument("--threshold", type=float, default=None,
                   help="least confidence to report a face (default: the model's)")
    p.add_argument("--fast", action="store_true",
                   help="read each photo as a camera frame (one detector pass) instead of "
                        "also searching it at twice the scale for small dice")
    args = p.parse_args(argv)
    try:
        from vision.pipeline import Recognizer

        rec = Recognizer(load(args.dice_set), threshold=args.threshold)
    except (DiceSetError, FileNotFoundError, RuntimeError) as exc:
        print(f"dicetray recognize: {exc}", file=sys.stderr)
        return 2
    results, failed = [], 0
    for path in args.images:
        frame = cv2.imread(path, cv2.IMREAD_COLOR)
        if frame is None:
            print(f"dicetray recognize: cannot read image {path!r} (missing, or not an image)",
                  file=sys.stderr)
            failed += 1
            continue
        rec.reset()
        reading = rec.read(frame, fine=not args.fast)
        results.append({"image": path, "dice": [d.to_json() for d in reading.dice]})
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for r in results:
            print(f"{r['image']}: {len(r['dice'])} dice")
            for d in r["dice"]:
                face = d["face"] if d["face"] is not None else "?  (not sure: re-roll or fix)"
                print(f"  {d['die'] or '?':>8}:{face:<6} conf {d['confidence']:.3f}  "
                      f"box {d['x']},{d['y']} {d['w']}x{d['h']}")
    return 1 if failed else 0


def main_eval(argv: list[str]) -> int:
    """``dicetray eval``: accuracy figures on rendered held-out scenes and real photos."""
    from vision import evaluate

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
    report = evaluate.run(args.sets, args.scenes, args.throws,
                          None if args.no_real else Path(args.realdice))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(evaluate.format_report(report))
    return 0


def main_bench(argv: list[str]) -> int:
    """``dicetray bench``: pipeline milliseconds per frame and classifier ms per die."""
    from vision import bench

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
