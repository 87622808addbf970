"""The vision commands: ``dicetray recognize``, ``dicetray eval`` and ``dicetray bench``."""

from __future__ import annotations

import argparse
import json
import sys

import cv2
from tqdm import tqdm

from vision.dicesets import SET_IDS, DiceSetError, load
from vision.taught import TaughtError


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
    p.add_argument("--taught", metavar="DIR", default=None,
                   help="a taught folder (dicetray teach) for your own dice and tray")
    p.add_argument("--fast", action="store_true",
                   help="read each photo as a camera frame (one detector pass) instead of "
                        "also searching it at twice the scale for small dice")
    args = p.parse_args(argv)
    try:
        from vision.pipeline import Recognizer

        rec = Recognizer(load(args.dice_set), threshold=args.threshold, taught=args.taught)
    except (DiceSetError, TaughtError, FileNotFoundError, RuntimeError) as exc:
        print(f"dicetray recognize: {exc}", file=sys.stderr)
        return 2
    results, failed = [], 0
    for path in tqdm(args.images, desc="reading photos", unit="photo", file=sys.stderr,
                     disable=None if len(args.images) > 3 else True, leave=False):
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
