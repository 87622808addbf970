"""The vision commands: ``dicetray recognize``, ``dicetray eval`` and ``dicetray bench``."""

from __future__ import annotations

import argparse
import json
import struct
import sys
from pathlib import Path

import cv2
import imagesize
import numpy as np
from tqdm import tqdm

from vision.dicesets import SET_IDS, DiceSetError, load
from vision.taught import TaughtError

#: photos are decoded at most this large on their longer side (a JPEG is decoded at 1/2, 1/4
#: or 1/8 of its size straight from the file, so a huge photo never fills the memory)
DECODE_SIDE = 3200
MIN_SIDE = 32  # a smaller picture cannot show a die
MAX_SIDE = DECODE_SIDE * 8
_REDUCED = {
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}


class PhotoError(ValueError):
    """A photo that cannot be read; the message says why (without the file name)."""


def read_photo(path: str, upright: bool = True) -> tuple[np.ndarray, float]:
    """A photo as a BGR frame, and the scale from its pixels back to the photo's.

    ``upright``: turned as its EXIF orientation says (as a phone or a viewer shows it); else
    in the pixels' stored order (the frame some labelling tools give their boxes in).

    The size comes from the file header first (``imagesize``): too small a picture, or one
    too large to hold in memory even reduced, is refused unread (PhotoError); a large one is
    decoded reduced (JPEG: by the decoder itself).

    >>> read_photo("/nonexistent.jpg")
    Traceback (most recent call last):
    ...
    vision.cli.PhotoError: no such file: check the path
    """
    p = Path(path)
    if not p.is_file():
        raise PhotoError(
            "no such file: check the path"
            if not p.exists()
            else "a folder without photos in it: give JPEG or PNG photos"
            if p.is_dir()
            else "not a file: give photos (JPEG or PNG)"
        )
    try:
        w, h = imagesize.get(str(p))
    except (OSError, ValueError, struct.error) as exc:
        raise PhotoError(f"cannot read the file ({exc})") from None
    factor = 1
    if w > 0 and h > 0:
        if min(w, h) < MIN_SIDE:
            raise PhotoError(
                f"the picture is {w}x{h} pixels: too small to show dice (at least "
                f"{MIN_SIDE} pixels a side)"
            )
        if max(w, h) > MAX_SIDE or w * h > MAX_SIDE * MAX_SIDE // 2:
            raise PhotoError(
                f"the picture claims {w}x{h} pixels: too large to read (at most "
                f"{MAX_SIDE} pixels a side): shrink it first"
            )
        while factor < 8 and max(w, h) / factor > DECODE_SIDE:
            factor *= 2
    flags = _REDUCED.get(factor, cv2.IMREAD_COLOR)
    frame = cv2.imread(str(p), flags if upright else flags | cv2.IMREAD_IGNORE_ORIENTATION)
    if frame is None or frame.size == 0:
        raise PhotoError(
            "not an image OpenCV can read (or a damaged file): give JPEG or PNG photos"
        )
    if min(frame.shape[:2]) < MIN_SIDE:
        raise PhotoError(
            f"the picture is {frame.shape[1]}x{frame.shape[0]} pixels: too small to show dice"
        )
    # (the longer sides: the header's size is the upright one)
    return frame, (max(w, h) / max(frame.shape[:2])) if w > 0 else 1.0


PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


def photo_paths(paths: list[str]) -> list[str]:
    """``paths`` with each folder replaced by the photos in it, by name (a labelled folder's
    ``images/`` where it has one). Files are kept as given: a bad one is reported when read.

    >>> photo_paths(["a.jpg", "b.png"])
    ['a.jpg', 'b.png']
    """
    out = []
    for path in paths:
        p = Path(path)
        if not p.is_dir():
            out.append(path)
            continue
        if (p / "images").is_dir():
            p = p / "images"
        photos = sorted(
            str(f) for f in p.iterdir() if f.is_file() and f.suffix.lower() in PHOTO_SUFFIXES
        )
        # an empty folder stays in the list, and is reported as holding no photos
        out += photos or [str(p)]
    return out


def main_recognize(argv: list[str]) -> int:
    """``dicetray recognize IMAGE... --dice-set SET [--json]``."""
    p = argparse.ArgumentParser(
        prog="dicetray recognize", description="Read the dice in photos of the tray."
    )
    p.add_argument(
        "images",
        nargs="+",
        metavar="IMAGE",
        help="photos, or folders of photos (a labelled folder: its images/)",
    )
    p.add_argument(
        "--dice-set",
        default="d6",
        help=f"one of {', '.join(SET_IDS)} or a dice-set TOML file (default d6)",
    )
    p.add_argument("--json", action="store_true", help="print a JSON list (one object per image)")
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="least confidence to report a face (default: the model's)",
    )
    p.add_argument(
        "--taught",
        metavar="DIR",
        default=None,
        help="a taught folder (dicetray teach) for your own dice and tray",
    )
    p.add_argument(
        "--fast",
        action="store_true",
        help="read each photo as a camera frame (one detector pass) instead of "
        "also searching it at twice the scale for small dice",
    )
    args = p.parse_args(argv)
    if args.threshold is not None and not 0.0 <= args.threshold <= 1.0:  # NaN fails too
        print(
            f"dicetray recognize: --threshold {args.threshold} is not a confidence: give a "
            "number from 0 to 1 (like 0.9), or leave it out for the model's own",
            file=sys.stderr,
        )
        return 2
    try:
        from vision.pipeline import Recognizer

        rec = Recognizer(load(args.dice_set), threshold=args.threshold, taught=args.taught)
    except (DiceSetError, TaughtError, FileNotFoundError, RuntimeError) as exc:
        print(f"dicetray recognize: {exc}", file=sys.stderr)
        return 2
    for stale in (rec.classifier.stale, rec.detector.stale):
        if stale:
            print(f"dicetray recognize: {stale}", file=sys.stderr)
    args.images = photo_paths(args.images)
    results, failed = [], 0
    # each photo on its own: a bad one is an error entry
    for path in tqdm(
        args.images,
        desc="reading photos",
        unit="photo",
        file=sys.stderr,
        disable=None if len(args.images) > 3 else True,
        leave=False,
    ):
        try:
            frame, scale = read_photo(path)
            rec.reset()
            reading = rec.read(frame, fine=not args.fast)
        except PhotoError as exc:
            error = str(exc)
        except (cv2.error, ValueError, MemoryError) as exc:
            error = f"cannot be read ({type(exc).__name__}): not a photo of the tray?"
        else:
            dice = [d.to_json() for d in reading.dice]
            for d in dice:  # boxes in the photo's own pixels
                d.update({k: round(d[k] * scale) for k in "xywh"})
            results.append({"image": path, "dice": dice})
            continue
        print(f"dicetray recognize: {path}: {error}", file=sys.stderr)
        results.append({"image": path, "error": error})
        failed += 1
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for r in results:
            if "error" in r:
                continue  # said once, on stderr, as it happened
            print(f"{r['image']}: {len(r['dice'])} dice")
            for d in r["dice"]:
                face = d["face"]
                if face is None:
                    likely = f", likeliest {d['guess']}" if d.get("guess") else ""
                    face = f"?  (not sure{likely}: re-roll or fix)"
                print(
                    f"  {d['die'] or '?':>8}:{face:<6} conf {d['confidence']:.3f}  "
                    f"box {d['x']},{d['y']} {d['w']}x{d['h']}"
                )
    return 2 if failed else 0
