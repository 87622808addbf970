"""Which real photos train, which calibrate and which judge: one fixed split of every source.

The real photo sets of ../shared/realdice (see lab.photos) are cut into three disjoint parts:

- ``train``: photos a network learns from (the detector and the d6 classifier);
- ``calibrate``: photos that set abstention thresholds (``lab.calibrate.calibrate_file``), never
  scored;
- ``judge``: photos that are scored (``dicetray eval``), never trained on and never used to
  set a threshold.

Copies of one photo never straddle two parts. Photos are grouped first:

- rune55_gray: by the text before ``_jpg.rf.`` (Roboflow's turned and flipped copies of a
  photo share it). The i_single photos all share the base ``i``: they are grouped by look
  instead (``look_groups``: 16 x 16 grey thumbnails that match under a quarter turn or a
  flip, with the same pip values labelled);
- matteop65_webcam and chase_casino_crops: each file its own group.

Then, per set:

- matteop65_webcam: the author's ``train`` trains; the author's ``valid`` frames are halved
  by file name into calibrate and judge;
- rune55_gray: a group with a file on the training side of ``lab.labels.rune55_split`` (about
  four bases in five: the side the shipped models trained on) trains; the other groups are
  halved by group into calibrate and judge;
- chase_casino_crops: the author's ``train`` trains, ``val`` calibrates, ``test`` judges.

Halving uses the SHA-256 of the file or group name, so the split never depends on the order of
the rows or on the machine. For leave-one-source-out (``lab.loso``) the sources are
``SOURCES``: matteop65_webcam, each rune55 source (its ``source`` column), and
chase_casino_crops.

    >>> half("valid_3.jpg"), half("valid_4.jpg")
    ('judge', 'calibrate')
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from lab.labels import REALDICE_DIR, read_label_rows, rune55_base, rune55_split

PARTS = ("train", "calibrate", "judge")
SETS = ("matteop65_webcam", "rune55_gray", "chase_casino_crops")
RUNE55_SOURCES = ("numeric_tube", "PXL_phone", "i_single", "randomid_single", "IMG_phone")
SOURCES = ("matteop65_webcam", *RUNE55_SOURCES, "chase_casino_crops")
LOOK_MATCH = 0.1  # mean absolute difference of normalised thumbnails under which two
# i_single photos are copies (measured on its 104 photos: turned copies 0.00-0.09; at 0.1,
# 81 groups of 1-3 photos, none larger, as Roboflow makes at most three copies of a photo)


@dataclass(frozen=True)
class Entry:
    """One real file: its set, source (the leave-one-source-out unit), group and part."""

    set: str
    file: str
    source: str
    group: str
    part: str


def half(name: str) -> str:
    """Calibrate or judge, by the SHA-256 of ``name`` (stable on every machine; a CRC's low
    bit is linear in the name, and names that differ in one digit fall together)."""
    return "calibrate" if hashlib.sha256(name.encode("utf-8")).digest()[0] % 2 else "judge"


def _thumbs(path: Path) -> list[np.ndarray] | None:
    """The photo's 16 x 16 grey thumbnail (zero mean, unit spread) at its eight quarter
    turns and flips, or None when it cannot be read."""
    g = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    if g is None:
        return None
    t = cv2.resize(g, (16, 16), interpolation=cv2.INTER_AREA).astype(np.float32)
    t = (t - t.mean()) / (t.std() + 1e-6)
    return [np.rot90(t, k) for k in range(4)] + [np.rot90(t[:, ::-1], k) for k in range(4)]


def look_groups(paths: dict[str, Path], values: dict[str, tuple]) -> dict[str, str]:
    """Files grouped by look: two files whose thumbnails match (``LOOK_MATCH``) under some
    turn or flip and that have the same pip values labelled are one group (and groups are
    joined through shared members). Returns {file: group}, the group named by its first
    file in sorted order; a file that cannot be read is a group of its own."""
    names = sorted(paths)
    thumbs = {f: _thumbs(paths[f]) for f in names}
    parent = {f: f for f in names}

    def root(f):
        while parent[f] != f:
            parent[f] = parent[parent[f]]
            f = parent[f]
        return f

    for i, a in enumerate(names):
        if thumbs[a] is None:
            continue
        for b in names[i + 1 :]:
            if thumbs[b] is None or values.get(a) != values.get(b):
                continue
            d = min(float(np.abs(thumbs[a][0] - t).mean()) for t in thumbs[b])
            if d < LOOK_MATCH:
                ra, rb = root(a), root(b)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
    return {f: root(f) for f in names}


def _matteop65(root: Path) -> list[Entry]:
    split = {}
    for r in read_label_rows(root / "labels.csv"):
        split.setdefault(r["file"], r["split"])
    return [
        Entry("matteop65_webcam", f, "matteop65_webcam", f, "train" if s == "train" else half(f))
        for f, s in sorted(split.items())
    ]


def _rune55(root: Path) -> list[Entry]:
    source, values = {}, defaultdict(list)
    for r in read_label_rows(root / "labels.csv"):
        source.setdefault(r["file"], r["source"])
        values[r["file"]].append(r["value"])
    group = {f: rune55_base(f) for f in source}
    # one base for every i_single photo: grouped by look instead
    by_look = [f for f in source if len(rune55_base(f)) <= 2]
    if by_look:
        group.update(
            look_groups(
                {f: root / "images" / f for f in by_look},
                {f: tuple(sorted(values[f])) for f in by_look},
            )
        )
    trains = {group[f] for f in source if rune55_split(f) == "train"}
    return [
        Entry(
            "rune55_gray",
            f,
            source[f],
            group[f],
            "train" if group[f] in trains else half(f"rune55_gray/{group[f]}"),
        )
        for f in sorted(source)
    ]


def _chase(root: Path) -> list[Entry]:
    part = {"train": "train", "val": "calibrate", "test": "judge"}
    return [
        Entry("chase_casino_crops", r["file"], "chase_casino_crops", r["file"], part[r["split"]])
        for r in read_label_rows(root / "labels.csv")
    ]


@lru_cache(maxsize=8)
def _entries(realdice: str, stamp: tuple) -> dict[tuple[str, str], Entry]:
    root = Path(realdice)
    out = {}
    for name, reader in (
        ("matteop65_webcam", _matteop65),
        ("rune55_gray", _rune55),
        ("chase_casino_crops", _chase),
    ):
        if (root / name / "labels.csv").is_file():
            out.update({(e.set, e.file): e for e in reader(root / name)})
    return out


def entries(realdice: Path | str = REALDICE_DIR) -> dict[tuple[str, str], Entry]:
    """{(set, file): Entry} of every real file the known sets label (sets not there are
    left out). Computed once per folder state (the labels files' times)."""
    root = Path(realdice).resolve()
    stamp = tuple(
        (root / s / "labels.csv").stat().st_mtime_ns if (root / s / "labels.csv").is_file() else 0
        for s in SETS
    )
    return _entries(str(root), stamp)


def part_of(set_name: str, file: str, realdice: Path | str = REALDICE_DIR) -> str:
    """The part (``PARTS``) of one file of a known set; KeyError for a file it does not label."""
    return entries(realdice)[(set_name, file)].part


def source_of(set_name: str, file: str, realdice: Path | str = REALDICE_DIR) -> str:
    """The leave-one-source-out source (``SOURCES``) of one file of a known set."""
    return entries(realdice)[(set_name, file)].source


def table(realdice: Path | str = REALDICE_DIR) -> dict[str, dict[str, dict[str, int]]]:
    """Per source and part, the photos (files) and labelled dice: what a model card states.

    {source: {part: {"photos": n, "dice": n}}}"""
    root = Path(realdice)
    dice = Counter()
    for s in SETS:
        if (root / s / "labels.csv").is_file():
            dice.update((s, r["file"]) for r in read_label_rows(root / s / "labels.csv"))
    out: dict[str, dict[str, dict[str, int]]] = {}
    for key, e in sorted(entries(realdice).items()):
        cell = out.setdefault(e.source, {}).setdefault(e.part, {"photos": 0, "dice": 0})
        cell["photos"] += 1
        cell["dice"] += dice[key]
    return {s: {p: out[s][p] for p in PARTS if p in out[s]} for s in SOURCES if s in out}


RULES = (
    "matteop65_webcam: author's train trains, author's valid halved by file (SHA-256) into "
    "calibrate and judge; rune55_gray: photos grouped by base name (i_single by look), a "
    "group with a file on rune55_split's training side trains, the others halved by group "
    "into calibrate and judge; chase_casino_crops: author's train / val / test"
)
