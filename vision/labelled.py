"""A labelled photo folder: ``images/`` + ``labels.csv``, as teaching and ``dicetray eval`` read it.

``labels.csv`` has one row per labelled die: ``file,split,x,y,w,h,value[,die]`` — ``file``
inside ``images/``; ``split`` free text (a set's own split or source); ``x,y`` the top-left
corner and ``w,h`` the size of the die's box in the photo's pixels; ``value`` the face's name
in the dice set (``1``..``6`` for d6, ``(200)`` or ``x2`` for Tally Up!); ``die`` the die's
name for sets of several dice (it may be left out where the face names the die).

Everything is checked before anything is used, and each problem is one line naming the file,
the row and the fix (:class:`LabelError`).

    >>> import tempfile, pathlib, cv2, numpy as np
    >>> from vision.labelled import read_folder
    >>> root = pathlib.Path(tempfile.mkdtemp()); (root / "images").mkdir()
    >>> _ = cv2.imwrite(str(root / "images" / "a.jpg"), np.zeros((100, 120, 3), np.uint8))
    >>> _ = (root / "labels.csv").write_text("file,split,x,y,w,h,value\\na.jpg,t,10,10,30,30,6\\n")
    >>> photos = read_folder(root, "d6")
    >>> [(p.file, [(lab.die, lab.face) for lab in p.labels]) for p in photos]
    [('a.jpg', [('d6', '6')])]
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from vision.dicesets import DiceSet, load

COLUMNS = ("file", "x", "y", "w", "h", "value")
MAX_PIXELS = 64_000_000  # a photo larger than this is refused (about 9000 x 7000)
EDGE = 0.05  # a box may leave the photo by this share of its side


class LabelError(ValueError):
    """A labelled folder that can't be used, with the file, the row and the fix."""


@dataclass(frozen=True)
class Label:
    """One labelled die: its box in photo pixels, die id and face id."""

    x: float
    y: float
    w: float
    h: float
    die: str
    face: str
    split: str = ""


@dataclass
class Photo:
    """One photo of the folder and its labelled dice."""

    file: str
    path: Path
    labels: list[Label] = field(default_factory=list)
    size: tuple[int, int] = (0, 0)  # (width, height)
    # turned as its EXIF orientation says (as phones and viewers show it); False: a phone photo
    # whose boxes fit only its pixels in their stored order (some tools label that frame)
    upright: bool = True

    def image(self) -> np.ndarray:
        """The photo as a BGR array."""
        img = cv2.imread(
            str(self.path),
            cv2.IMREAD_COLOR if self.upright else cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION,
        )
        if img is None:
            raise LabelError(f"{self.path}: cannot be read as an image")
        return img

    def decoded(self) -> tuple[np.ndarray, Photo]:
        """The photo as ``dicetray recognize`` reads it (a large one decoded at 1/2, 1/4 or
        1/8 of its size, ``vision.cli.read_photo``) and this photo with its labels in those
        pixels: a 12 MP phone photo takes 9 MB instead of 36, and teaching cuts its crops
        from the pixels the table reads."""
        from vision.cli import DECODE_SIDE, PhotoError, read_photo

        if max(self.size) <= DECODE_SIDE:  # read whole (die crops of any size too)
            return self.image(), self
        try:
            img, scale = read_photo(str(self.path), upright=self.upright)
        except PhotoError as exc:
            raise LabelError(f"{self.path}: {exc}") from None
        if scale == 1.0:
            return img, self
        labels = [
            replace(lab, x=lab.x / scale, y=lab.y / scale, w=lab.w / scale, h=lab.h / scale)
            for lab in self.labels
        ]
        return img, replace(self, labels=labels, size=(img.shape[1], img.shape[0]))


def _die_of(ds: DiceSet, face: str, die: str, where: str) -> str:
    if die:
        if die not in ds.die_ids:
            raise LabelError(
                f"{where}: die {die!r} is not a die of the {ds.id} set (its dice: "
                f"{', '.join(ds.die_ids)}): fix the die column"
            )
        if face not in ds.die(die).faces:
            raise LabelError(
                f"{where}: the {die} die of the {ds.id} set has no face {face!r} "
                f"(its faces: {', '.join(dict.fromkeys(ds.die(die).faces))})"
            )
        return die
    if face not in ds.face_ids:
        raise LabelError(
            f"{where}: {face!r} is not a face of the {ds.id} set (its faces: "
            f"{', '.join(ds.face_ids)}): fix the value column"
        )
    owners = [d.id for d in ds.dice if face in d.faces]
    if len(owners) > 1:
        raise LabelError(
            f"{where}: face {face!r} is on several dice of the {ds.id} set "
            f"({', '.join(owners)}): add a die column naming the die"
        )
    return owners[0]


def _size(path: Path) -> tuple[tuple[int, int], tuple[int, int]]:
    """(width, height) of an image turned upright by its EXIF orientation, and of its pixels
    in their stored order (the same unless a phone stored a portrait photo on its side)."""
    img = cv2.imread(str(path), cv2.IMREAD_REDUCED_GRAYSCALE_8)
    if img is None:
        raise LabelError(
            f"{path}: cannot be read as an image (missing, damaged or not a "
            "photo): replace it or remove its rows from labels.csv"
        )
    # IMREAD_UNCHANGED keeps the stored order; the reduced read above is turned upright
    full = cv2.imread(str(path), cv2.IMREAD_UNCHANGED) if img.size * 64 <= MAX_PIXELS else None
    if full is None:
        raise LabelError(f"{path}: larger than {MAX_PIXELS // 1_000_000} megapixels: scale it down")
    stored = (full.shape[1], full.shape[0])
    turned = stored[0] != stored[1] and (img.shape[1] > img.shape[0]) != (stored[0] > stored[1])
    return (stored[::-1] if turned else stored), stored


def _outside(lab: Label, size: tuple[int, int]) -> bool:
    pw, ph = size
    return (
        lab.x < -EDGE * lab.w
        or lab.y < -EDGE * lab.h
        or lab.x + lab.w > pw + EDGE * lab.w
        or lab.y + lab.h > ph + EDGE * lab.h
    )


def read_folder(folder: Path | str, dice_set: str | DiceSet) -> list[Photo]:
    """The photos of a labelled folder with their labels, checked against ``dice_set``.

    Raises :class:`LabelError` for a folder that is missing or empty, a ``labels.csv`` that is
    missing, empty or lacks a column, a row naming a face or die the set lacks, a number that is
    not one, a box outside its photo, and an image that can't be read."""
    ds = dice_set if isinstance(dice_set, DiceSet) else load(dice_set)
    folder = Path(folder)
    if not folder.is_dir():
        raise LabelError(
            f"{folder} is not a folder: give the folder that holds images/ and labels.csv"
        )
    csv_path = folder / "labels.csv"
    if not csv_path.is_file():
        raise LabelError(
            f"{folder} has no labels.csv: it needs images/ and a labels.csv with "
            "the columns file,split,x,y,w,h,value[,die] (one row per die)"
        )
    try:
        text = csv_path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelError(
            f"{csv_path}: cannot be read as UTF-8 text "
            f"({exc.__class__.__name__}): save it as CSV, UTF-8"
        ) from None
    rows = list(csv.DictReader(text.splitlines()))
    missing = [
        c
        for c in COLUMNS
        if c not in (rows[0].keys() if rows else next(csv.reader(text.splitlines()), []))
    ]
    if missing:
        raise LabelError(
            f"{csv_path}: no column {', '.join(missing)} (the header must be "
            "file,split,x,y,w,h,value and, for sets of several dice, die)"
        )
    if not rows:
        raise LabelError(f"{csv_path}: no labelled dice: add one row per die")
    photos: dict[str, Photo] = {}
    lines: dict[str, list[int]] = {}
    stored: dict[str, tuple[int, int]] = {}
    for n, row in enumerate(rows, start=2):
        where = f"{csv_path} line {n}"
        name = (row.get("file") or "").strip()
        if not name or Path(name).name != name:
            raise LabelError(f"{where}: file {name!r} must be a file name inside images/")
        try:
            x, y, w, h = (float(row[k]) for k in ("x", "y", "w", "h"))
        except (TypeError, ValueError):
            raise LabelError(f"{where}: x, y, w and h must be numbers (pixels)") from None
        if not all(math.isfinite(v) for v in (x, y, w, h)) or w <= 0 or h <= 0:
            raise LabelError(f"{where}: the box needs a positive width and height")
        face = (row.get("value") or "").strip()
        die = _die_of(ds, face, (row.get("die") or "").strip(), where)
        photo = photos.get(name)
        if photo is None:
            path = folder / "images" / name
            if not path.is_file():
                raise LabelError(
                    f"{where}: images/{name} is not there: add the photo or remove its rows"
                )
            size, stored[name] = _size(path)
            photo = photos[name] = Photo(name, path, size=size)
        photo.labels.append(Label(x, y, w, h, die, face, (row.get("split") or "").strip()))
        lines.setdefault(name, []).append(n)
    for name, photo in photos.items():
        out = [
            (n, lab)
            for n, lab in zip(lines[name], photo.labels, strict=True)
            if _outside(lab, photo.size)
        ]
        if not out:
            continue
        # a phone photo stored on its side, labelled in its stored pixels: read it so
        if stored[name] != photo.size and not any(
            _outside(lab, stored[name]) for lab in photo.labels
        ):
            photo.size, photo.upright = stored[name], False
            continue
        n, lab = out[0]
        pw, ph = photo.size
        raise LabelError(
            f"{csv_path} line {n}: the box {lab.x:g},{lab.y:g} {lab.w:g}x{lab.h:g} "
            f"lies outside images/{name} ({pw}x{ph}): fix the box"
        )
    return sorted(photos.values(), key=lambda p: p.file)


def crops_only(photos: list[Photo]) -> bool:
    """Whether the folder holds die crops (each photo one die filling it), not tray photos:
    then only the classifier can learn from it."""
    return all(
        len(p.labels) == 1 and p.labels[0].w >= 0.8 * p.size[0] and p.labels[0].h >= 0.8 * p.size[1]
        for p in photos
    )
