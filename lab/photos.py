"""Readers of labelled real-photo sets: ``images/`` + ``labels.csv`` (see ``vision.labelled``).

The real photo sets (``read_matteop65``, ``read_rune55``, ``read_chase``) are not shipped with
dicetray: they are looked for in ``REALDICE_DIR``, a ``shared/realdice`` folder beside the
repository, or wherever ``--realdice DIR`` points. Only training and evaluation read them;
nothing at the table needs them, and the tests that read them say so and skip when they are
absent. Attribution of those sets is in models/README.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from lab.labels import REALDICE_DIR, matteop65_die_side, read_label_rows, rune55_split
from vision.crops import CROP_MARGIN, INPUT_SIZE, crop_matrix

# --------------------------------------------------------------------------------------------
# real photos


@dataclass
class RealCrop:
    """One labelled real die: the crop, its pip value, the split or source, and the image."""

    crop: np.ndarray
    value: int
    split: str  # matteop65: "train" | "valid"; rune55: "train" | "valid" (by base name)
    source: str  # "matteop65_webcam" or the rune55 source column
    file: str
    part: str = ""  # "train" | "calibrate" | "judge" (lab.splits)


def _parts(root: Path) -> dict[str, str]:
    """{file: part} of a known set's folder (``lab.splits``: train, calibrate or judge)."""
    from lab.splits import entries

    return {f: e.part for (name, f), e in entries(root.parent).items() if name == root.name}


def _rows_with_images(root: Path):
    """Each row of ``root``'s labels.csv with its photo (``images/<file>``), read once for the
    rows that follow one another; rows whose photo cannot be read are left out."""
    last, img = None, None
    for row in read_label_rows(root / "labels.csv"):
        if row["file"] != last:
            last = row["file"]
            img = cv2.imread(str(root / "images" / last), cv2.IMREAD_COLOR)
        if img is not None:
            yield row, img


def read_matteop65(
    root: Path | str = REALDICE_DIR / "matteop65_webcam",
    size: int = INPUT_SIZE,
    rng: np.random.Generator | None = None,
    angle: float = 0.0,
    jitter: float = 0.0,
    zoom: tuple[float, float] | None = None,
) -> list[RealCrop]:
    """Crops of the matteop65 webcam set (MIT, (c) 2021 Matteo A. Penlington).

    Its boxes cover only the pip pattern. The die box is taken as 2.2x the box side (a fixed
    50 px for the single pip of a 1), which is the box the detector is trained to find on these
    photos (lab/train_detector.py), and the crop is cut around it as ``cut_crop`` cuts a
    detected box (CROP_MARGIN times its side), so training and running crops match.
    """
    root = Path(root)
    parts = _parts(root)
    out = []
    for row, img in _rows_with_images(root):
        f = row["file"]
        x, y, w, h = (float(row[k]) for k in ("x", "y", "w", "h"))
        value = int(row["value"])
        # cut around the die box as the pipeline cuts a detected box
        side = matteop65_die_side(w, h, value) * CROP_MARGIN
        cx, cy, side = _moved(rng, x + w / 2, y + h / 2, side, jitter, zoom)
        m = crop_matrix(cx, cy, side, size, angle_deg=angle)
        crop = cv2.warpAffine(
            img, m, (size, size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
        )
        out.append(RealCrop(crop, value, row["split"], "matteop65_webcam", f, parts.get(f, "")))
    return out


def _moved(
    rng: np.random.Generator | None,
    cx: float,
    cy: float,
    side: float,
    jitter: float,
    zoom: tuple[float, float] | None,
) -> tuple[float, float, float]:
    """A crop's centre and side as a training copy cuts them: with ``rng``, shifted and
    resized by up to ``jitter`` of its side, then the side scaled by a factor drawn
    log-uniformly from ``zoom`` (a label box tighter or looser than this source's, as another
    labeller or detector draws); without ``rng`` as they are."""
    if rng is None:
        return cx, cy, side
    if jitter:
        cx += rng.uniform(-jitter, jitter) * side
        cy += rng.uniform(-jitter, jitter) * side
        side *= rng.uniform(1 - jitter, 1 + jitter)
    if zoom is not None:
        side *= float(np.exp(rng.uniform(np.log(zoom[0]), np.log(zoom[1]))))
    return cx, cy, side


def _cut_row(
    img: np.ndarray,
    row: dict,
    size: int,
    rng: np.random.Generator | None,
    angle: float,
    jitter: float,
    antialias: bool,
    zoom: tuple[float, float] | None = None,
) -> np.ndarray:
    """The crop of a labels.csv row's box as the pipeline cuts a detected box (``CROP_MARGIN``
    round the box, the edge repeated outside), turned by ``angle`` degrees and, with ``rng``,
    shifted and resized by up to ``jitter`` of its side. ``antialias``: a box over twice the
    crop is blurred first and shrunk with INTER_AREA."""
    x, y, w, h = (float(row[k]) for k in ("x", "y", "w", "h"))
    side = max(w, h) * CROP_MARGIN
    cx, cy, side = _moved(rng, x + w / 2, y + h / 2, side, jitter, zoom)
    m = crop_matrix(cx, cy, side, size, angle_deg=angle)
    shrink = antialias and side > 2 * size
    src = cv2.GaussianBlur(img, (0, 0), 0.45 * side / size) if shrink else img
    return cv2.warpAffine(
        src,
        m,
        (size, size),
        flags=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def read_rune55(
    root: Path | str = REALDICE_DIR / "rune55_gray",
    size: int = INPUT_SIZE,
    rng: np.random.Generator | None = None,
    angle: float = 0.0,
    jitter: float = 0.0,
    zoom: tuple[float, float] | None = None,
) -> list[RealCrop]:
    """Crops of the rune55 set (Roboflow "rune55" v3, CC BY 4.0; via N3VERS4YDIE, MIT).

    Its boxes cover the die's top face or the die, so crops are cut as the pipeline cuts them.
    ``split`` by base name (``rune55_split``), so rotated copies of one photo stay together;
    ``part``: train, calibrate or judge (``lab.splits``).
    """
    root = Path(root)
    parts = _parts(root)
    out = []
    for row, img in _rows_with_images(root):
        f = row["file"]
        crop = _cut_row(img, row, size, rng, angle, jitter, antialias=True, zoom=zoom)
        out.append(
            RealCrop(crop, int(row["value"]), rune55_split(f), row["source"], f, parts.get(f, ""))
        )
    return out


def read_chase(
    root: Path | str = REALDICE_DIR / "chase_casino_crops",
    size: int = INPUT_SIZE,
    rng: np.random.Generator | None = None,
    angle: float = 0.0,
    jitter: float = 0.0,
    zoom: tuple[float, float] | None = None,
) -> list[RealCrop]:
    """Crops of translucent casino dice (chase_casino_crops: github
    chaseelliottpatterson/dice-reader @ee67b72, MIT, (c) 2024 Chase).

    Each image is one die crop cut by the author's detector; the die fills most of it, so the
    whole image is taken as the die box and cut as ``cut_crop`` cuts a detected box (the edge
    repeated outside). The author's ``val`` and ``test`` splits are both held out from
    training (split ``valid`` and ``test`` here); only ``valid`` helps set thresholds.
    """
    root = Path(root)
    parts = _parts(root)
    out = []
    for row in read_label_rows(root / "labels.csv"):
        img = cv2.imread(str(root / "images" / row["file"]), cv2.IMREAD_COLOR)
        if img is None:
            continue
        crop = _cut_row(img, row, size, rng, angle, jitter, antialias=False, zoom=zoom)
        split = {"train": "train", "val": "valid"}.get(row["split"], "test")
        out.append(
            RealCrop(
                crop,
                int(row["value"]),
                split,
                "chase_casino_crops",
                row["file"],
                parts.get(row["file"], ""),
            )
        )
    return out


def real_backgrounds(
    root: Path | str = REALDICE_DIR / "matteop65_webcam", limit: int = 40
) -> list[np.ndarray]:
    """Some real photos with their dice painted out, for negative (not-a-die) crops."""
    root = Path(root)
    rows = read_label_rows(root / "labels.csv") if (root / "labels.csv").exists() else []
    by_file: dict[str, list[dict]] = {}
    for r in rows:
        by_file.setdefault(r["file"], []).append(r)
    out = []
    for f in sorted(by_file)[:limit]:
        img = cv2.imread(str(root / "images" / f), cv2.IMREAD_COLOR)
        if img is None:
            continue
        mask = np.zeros(img.shape[:2], np.uint8)
        for r in by_file[f]:
            x, y, w, h = (float(r[k]) for k in ("x", "y", "w", "h"))
            s = 50.0 if r["value"] == "1" else 2.4 * max(w, h)
            cx, cy = x + w / 2, y + h / 2
            cv2.rectangle(mask, (int(cx - s), int(cy - s)), (int(cx + s), int(cy + s)), 255, -1)
        out.append(cv2.inpaint(img, mask, 3, cv2.INPAINT_TELEA))
    return out
