"""Small real dice no network trained on: ``python -m lab.smalldice FOLDS``.

A camera over a wide tray, or a photo of a table full of dice, sees dice 25-50 px across; the
real photo sets mostly hold larger ones. Each real photo source is read by its
leave-one-source-out fold (``FOLDS/<source>``: the d6 classifier files ``lab.loso`` trained
without the source and calibrated) with its photos as they are and shrunk so that their median
die is ``--die-px`` across (pasted on a canvas of the photo's own size, filled with its edge
colour: the frame keeps its size, the dice shrink), through the table's two paths (``photo``:
as ``dicetray recognize`` reads a photo; ``camera``: one frame). The labelled die boxes are
also read alone at four turns by the first network alone at its threshold of small dice (the
card's ``small``, as a card calibrated before the joint's ``small`` reads a photo's small
dice: ``small``) and by the two networks' mean at the card's ``joint`` threshold (as a
larger die is read: ``joint``): which of the two reads small dice better. Nothing is set on
these photos; the figures only judge.

    python -m lab.smalldice ~/.cache/dicetray/loso/folds/RECIPE-unseen --die-px 0 24 32 40

(``--die-px 0``: the photos as they are.) Found, right, asked and wrong as in ``lab.loso``:
right, asked and wrong are shares of the dice found.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from lab.loso import Count, _count, _photos, present_sources

CHASE = "chase_casino_crops"  # crops of one die: no photo to shrink


def shrunk(img: np.ndarray, labels: list[dict], boxes: list, die_px: float):
    """``img`` scaled so that the median of ``boxes``' longer sides is ``die_px`` (never
    enlarged; 0: as it is), centred on a canvas of its own size filled with the median colour
    of its edge; the labels and boxes moved alike: (canvas, labels, boxes).

    >>> img = np.full((40, 80, 3), 9, np.uint8)
    >>> die = {"x": 0, "y": 0, "w": 20, "h": 20}
    >>> canvas, labels, boxes = shrunk(img, [die], [(0, 0, 20, 20)], 10)
    >>> canvas.shape, labels[0], boxes[0]
    ((40, 80, 3), {'x': 20.0, 'y': 10.0, 'w': 10.0, 'h': 10.0}, (20.0, 10.0, 10.0, 10.0))
    """
    side = float(np.median([max(b[2], b[3]) for b in boxes])) if boxes else 0.0
    s = min(1.0, die_px / side) if die_px > 0 and side > 0 else 1.0
    if s >= 1.0:
        return img, labels, [tuple(float(v) for v in b) for b in boxes]
    h, w = img.shape[:2]
    small = cv2.resize(
        img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA
    )
    edge = np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]])
    canvas = np.empty_like(img)
    canvas[:] = np.median(edge, axis=0).astype(img.dtype)
    oy, ox = (h - small.shape[0]) // 2, (w - small.shape[1]) // 2
    canvas[oy : oy + small.shape[0], ox : ox + small.shape[1]] = small

    def moved(x, y, bw, bh):
        return x * s + ox, y * s + oy, bw * s, bh * s

    labels = [
        {**lab, **dict(zip("xywh", moved(lab["x"], lab["y"], lab["w"], lab["h"]), strict=True))}
        for lab in labels
    ]
    return canvas, labels, [moved(*b) for b in boxes]


def score(realdice: Path, source: str, models_dir: Path, die_px: float) -> dict:
    """One source's photos (shrunk to ``die_px``) read with the classifier in
    ``models_dir``: {"photo", "camera", "small", "joint": figures (``Count.figures``)}."""
    from lab.evalteach import left_out_models
    from lab.evaluate import Tally
    from vision.classify import TURNS, FaceClassifier
    from vision.dicesets import load
    from vision.frameread import read_boxes
    from vision.pipeline import Recognizer

    ds = load("d6")
    with tempfile.TemporaryDirectory() as tmp:
        models = left_out_models(models_dir, Path(tmp) / "models")
        rec = Recognizer(ds, models_dir=models)
        first = FaceClassifier(ds, models_dir=models, second=False)
        joint = FaceClassifier(ds, models_dir=models)
        small_cut = first.small_threshold(TURNS)
        counts = {k: Count() for k in ("photo", "camera", "small", "joint")}
        for img, labels, boxes in _photos(realdice, source):
            img, labels, boxes = shrunk(img, labels, boxes, die_px)
            for path, fine in (("photo", True), ("camera", False)):
                rec.reset()
                t = Tally()
                t.add(labels, rec.read(img, fine=fine).dice)
                counts[path].add(_count(t))
            how = {"turns": TURNS, "check_small": 0.0, "check_large": 0.0}
            for name, clf in (("small", first), ("joint", joint)):
                t = Tally()
                for lab, r in zip(labels, read_boxes(clf, img, boxes, **how), strict=True):
                    if name == "small" and small_cut is not None and r.confidence < small_cut:
                        r = replace(r, face=None)
                    t.add_crop((lab["die"], lab["face"]), r)
                counts[name].add(_count(t))
    return {k: c.figures() for k, c in counts.items()}


def run(realdice: Path, folds: Path, sizes, sources=None, log=print) -> dict:
    """{source: {die px: figures}} for every photo source with a fold in ``folds``."""
    out = {}
    for source in sources or present_sources(realdice):
        if source == CHASE or not (folds / source / "classifier-d6.onnx").is_file():
            continue
        for px in sizes:
            out.setdefault(source, {})[px] = got = score(realdice, source, folds / source, px)
            log(format_row(source, px, got))
    return out


def _cell(f: dict) -> str:
    return f"{f['right']:6.1%} {f['wrong']:6.2%}"


def format_row(source: str, px: float, f: dict) -> str:
    size = "as is" if not px else f"{px:g} px"
    return f"{source:18} {size:>6} {f['photo']['dice']:5} {f['photo']['found']:6.1%} " + "  ".join(
        _cell(f[k]) for k in ("photo", "camera", "small", "joint")
    )


HEADER = f"{'source':18} {'dice':>6} {'n':>5} {'found':>6} " + "  ".join(
    f"{k + ' right/wrong':>13}" for k in ("photo", "camera", "small", "joint")
)


def main(argv: list[str] | None = None) -> int:
    from lab.labels import REALDICE_DIR

    p = argparse.ArgumentParser(prog="python -m lab.smalldice", description=__doc__.split("\n")[0])
    p.add_argument("folds", help="a folder of lab.loso folds, one per source left out")
    p.add_argument("--die-px", type=float, nargs="+", default=[0, 32], help="0: as they are")
    p.add_argument("--sources", nargs="+", default=None)
    p.add_argument("--realdice", default=str(REALDICE_DIR))
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    realdice, folds = Path(args.realdice), Path(args.folds)
    if not present_sources(realdice):
        print(f"lab.smalldice: no real photo set in {realdice} (--realdice)", file=sys.stderr)
        return 2
    if not folds.is_dir():
        print(f"lab.smalldice: no folds in {folds} (lab.loso writes them)", file=sys.stderr)
        return 2
    print(HEADER, file=sys.stderr)
    out = run(realdice, folds, args.die_px, args.sources, log=lambda s: print(s, file=sys.stderr))
    if args.json:
        print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
