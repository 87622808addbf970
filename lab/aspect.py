"""Do photos of any aspect ratio get the boxes their 4:3 original gets?

Each labelled 640x480 photo of the matteop65 webcam set (../shared/realdice, MIT, (c) 2021
Matteo A. Penlington) is read as ``dicetray recognize`` finds dice (``Detector.detect_fine``),
then cut to other shapes (square, upright 3:4, panoramas, shapes a little off 4:3) at its
centre and at one seeded off-centre place, and each cut is read again. Against the
original's boxes that lie whole in the cut (moved into it), per shape:

- ``iou``: the median of each such box's best IoU with the cut's boxes (0 when none);
- ``found``: the share of them with a cut box of IoU 0.5 or more;
- ``aspect``: the median of (width / height of the cut's box) / (that of the original's),
  over the boxes found, and ``aspect_10``: the share of them within 10% of 1;
- ``extra``: boxes of the cut, clear of its edges, that overlap no box of the original
  (IoU < 0.3): dice the cut made up;
- ``label_iou``: the median IoU of the cut's boxes with the labelled dice whole in the cut
  (the die box round the labelled pip pattern, ``lab.labels.matteop65_die_side``), beside
  ``label_iou_4x3``, the original's on the same dice.

Target (issue 34): on square and 3:4 cuts, median IoU >= 0.8 and median aspect within 10%.

    python -m lab.aspect                  # the valid split (86 photos)
    python -m lab.aspect --photos 40 --json
    dicetray eval --aspect
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from lab.labels import REALDICE_DIR, matteop65_die_side, read_label_rows

# (name, width, height) of the cuts of a 640x480 photo
SHAPES = (
    ("square 1:1", 480, 480),
    ("upright 3:4", 360, 480),
    ("tall 1:2", 240, 480),
    ("wide 16:9", 640, 360),
    ("panorama 8:3", 640, 240),
    ("5:4", 600, 480),
    ("1.45:1", 640, 440),
)
TARGET_SHAPES = ("square 1:1", "upright 3:4")
TARGET_IOU = 0.8
TARGET_ASPECT = 0.10


def _iou(a, b) -> float:
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / max(a[2] * a[3] + b[2] * b[3] - inter, 1e-6)


def _inside(box, w: int, h: int) -> bool:
    return box[0] >= 0 and box[1] >= 0 and box[0] + box[2] <= w and box[1] + box[3] <= h


def die_box(row: dict) -> tuple[float, float, float, float]:
    """The die box round a matteop65 label (which covers the top face's pips only)."""
    x, y, w, h = (float(row[k]) for k in ("x", "y", "w", "h"))
    side = matteop65_die_side(w, h, int(row["value"]))
    return (x + w / 2 - side / 2, y + h / 2 - side / 2, side, side)


def photos(root: Path, split: str = "valid", limit: int | None = None) -> list[tuple[str, list]]:
    """(file, die boxes of its labels) of the photos of ``split`` ("valid", "train", "all")."""
    by_file: dict[str, list] = defaultdict(list)
    for row in read_label_rows(root / "labels.csv"):
        if split in ("all", row["split"]):
            by_file[row["file"]].append(die_box(row))
    files = sorted(by_file)[:limit]
    return [(f, by_file[f]) for f in files]


def cuts(w: int, h: int, rng: np.random.Generator, scale: float = 1.0):
    """(shape name, x0, y0, cut w, cut h): each shape (``scale`` times its size) at the
    centre and at one other place."""
    for name, cw, ch in SHAPES:
        cw, ch = round(cw * scale), round(ch * scale)
        yield name, (w - cw) // 2, (h - ch) // 2, cw, ch
        yield name, int(rng.integers(0, w - cw + 1)), int(rng.integers(0, h - ch + 1)), cw, ch


def run(
    root: Path | str = REALDICE_DIR / "matteop65_webcam",
    split: str = "valid",
    limit: int | None = None,
    detector=None,
    seed: int = 34,
    scale: float = 1.0,
) -> dict:
    """The figures per shape (see the module's doc). ``scale``: each photo is enlarged so
    many times first (2: 1280x960 photos, large enough to be read in windows when far from
    4:3, ``vision.detect.WINDOWS_FROM``)."""
    from vision.detect import Detector

    root = Path(root)
    det = detector or Detector()
    rng = np.random.default_rng(seed)
    acc: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    listed = photos(root, split, limit)
    t0 = time.perf_counter()
    read = 0
    for file, labels in listed:
        img = cv2.imread(str(root / "images" / file), cv2.IMREAD_COLOR)
        if img is None:
            continue
        read += 1
        if scale != 1.0:
            img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
            labels = [tuple(v * scale for v in lab) for lab in labels]
        h, w = img.shape[:2]
        ref = det.detect_fine(img).boxes
        for name, x0, y0, cw, ch in cuts(w, h, rng, scale):
            cut = np.ascontiguousarray(img[y0 : y0 + ch, x0 : x0 + cw])
            got = det.detect_fine(cut).boxes
            a = acc[name]
            a["cuts"].append(1)
            every = [(x - x0, y - y0, bw, bh) for x, y, bw, bh in ref]
            moved = [b for b in every if _inside(b, cw, ch)]
            for m in moved:
                best = max(got, key=lambda g: _iou(g, m), default=None)
                iou = _iou(best, m) if best is not None else 0.0
                a["iou"].append(iou)
                if iou >= 0.5:
                    a["aspect"].append((best[2] / best[3]) / (m[2] / m[3]))
            # a die the cut cuts is boxed as far as it shows: only boxes clear of the edge
            a["extra"] += [
                1
                for g in got
                if _inside((g[0] - 2, g[1] - 2, g[2] + 4, g[3] + 4), cw, ch)
                and all(_iou(g, m) < 0.3 for m in every)
            ]
            for lab in labels:
                lab_cut = (lab[0] - x0, lab[1] - y0, lab[2], lab[3])
                if not _inside(lab_cut, cw, ch):
                    continue
                a["label_iou"].append(max((_iou(g, lab_cut) for g in got), default=0.0))
                a["label_iou_4x3"].append(max((_iou(r, lab) for r in ref), default=0.0))
    shapes = {}
    for name, _cw, _ch in SHAPES:
        a = acc.get(name, {})
        ious, asp = a.get("iou", []), a.get("aspect", [])
        shapes[name] = {
            "cuts": len(a.get("cuts", [])),
            "boxes": len(ious),
            "iou": round(statistics.median(ious), 3) if ious else None,
            "found": round(sum(i >= 0.5 for i in ious) / len(ious), 4) if ious else None,
            "aspect": round(statistics.median(asp), 3) if asp else None,
            "aspect_10": round(sum(abs(r - 1) <= 0.1 for r in asp) / len(asp), 4) if asp else None,
            "extra": len(a.get("extra", [])),
            "label_iou": _med(a.get("label_iou")),
            "label_iou_4x3": _med(a.get("label_iou_4x3")),
        }
    met = all(
        shapes[s]["iou"] is not None
        and shapes[s]["iou"] >= TARGET_IOU
        and shapes[s]["aspect"] is not None
        and abs(shapes[s]["aspect"] - 1) <= TARGET_ASPECT
        for s in TARGET_SHAPES
    )
    return {
        "set": root.name,
        "split": split,
        "scale": scale,
        "photos": read,
        "seconds": round(time.perf_counter() - t0, 1),
        "shapes": shapes,
        "target_met": met,
    }


def _med(values) -> float | None:
    return round(statistics.median(values), 3) if values else None


def _enlarged(scale: float) -> str:
    return "" if scale == 1.0 else f" enlarged {scale:g} times"


def format_result(r: dict) -> str:
    lines = [
        (
            f"Boxes of cut photos against their 4:3 original's ({r['set']}, {r['split']}, "
            f"{r['photos']} photos{_enlarged(r['scale'])}, each cut at its centre and one "
            f"other place, {r['seconds']} s):"
        ),
        (
            f"  {'shape':13} {'boxes':>5} {'IoU':>6} {'found':>7} {'aspect':>7} {'in 10%':>7} "
            f"{'extra':>5}   {'vs labels: cut':>14} {'4:3':>5}"
        ),
    ]

    def f(v, fmt):
        return "-" if v is None else format(v, fmt)

    for name, s in r["shapes"].items():
        lines.append(
            f"  {name:13} {s['boxes']:5d} {f(s['iou'], '6.3f')} {f(s['found'], '7.1%')} "
            f"{f(s['aspect'], '7.3f')} {f(s['aspect_10'], '7.1%')} {s['extra']:5d}   "
            f"{f(s['label_iou'], '14.3f')} {f(s['label_iou_4x3'], '5.3f')}"
        )
    lines.append(
        f"  target: square and 3:4 cuts median IoU >= {TARGET_IOU} and median aspect within "
        f"{TARGET_ASPECT:.0%}: {'met' if r['target_met'] else 'NOT met'}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m lab.aspect",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--folder",
        default=str(REALDICE_DIR / "matteop65_webcam"),
        help="the matteop65_webcam folder (images/ + labels.csv)",
    )
    p.add_argument("--split", default="valid", choices=("valid", "train", "all"))
    p.add_argument("--photos", type=int, default=None, help="at most this many photos")
    p.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="enlarge each photo so many times first (2: large photos, read in windows "
        "when far from 4:3)",
    )
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    folder = Path(args.folder)
    if not (folder / "labels.csv").is_file():
        print(f"lab.aspect: {folder}: no labels.csv there (give --folder)", file=sys.stderr)
        return 2
    if args.photos is not None and args.photos < 1:
        p.error("--photos needs at least 1")
    if not 0.5 <= args.scale <= 8:
        p.error("--scale: from 0.5 to 8")
    r = run(folder, args.split, args.photos, scale=args.scale)
    if not r["photos"]:
        print(
            f"lab.aspect: {folder}: no photo of split {args.split} could be read", file=sys.stderr
        )
        return 2
    print(json.dumps(r, indent=1) if args.json else format_result(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
