"""Real photo sets the project has no reader of its own for (part of ``dicetray eval``).

Any folder in the labelled-photo layout (``images/`` + ``labels.csv``:
``file,split,x,y,w,h,value[,die]``, see ``vision.labelled``) found in ``--realdice`` beside the
three known sets (``KNOWN``), or ``--realdice`` itself when it is such a folder, is read
as it is:
- its dice set is the first of d6, tally-up, toss-up and rollers that has every face and die
  its labels name;
- none of it was trained on, so every photo is held out: read as ``dicetray recognize`` reads
  photos and as camera frames; a set of die crops (one die filling each image) crop by crop;
- taught (``lab.teach``) with a few of its photos, scored on the others: its own ``train``
  split when it has one beside others (at most ``TEACH`` photos of it, ``TEACH_CROPS`` crops),
  else that many photos chosen as an owner takes them (most dice first, every face shown).

A folder that cannot be read is reported with the reason, and the others still are.

    >>> from pathlib import Path
    >>> folders(Path("/nonexistent"))
    []
"""

from __future__ import annotations

import csv
import os
import shutil
import tempfile
from pathlib import Path

from lab.evalteach import covering
from lab.evaluate import Tally, read_photos
from vision.classify import TURNS, FaceClassifier
from vision.dicesets import SET_IDS, load
from vision.frameread import read_boxes
from vision.labelled import LabelError, Photo, crops_only, read_folder

KNOWN = ("matteop65_webcam", "rune55_gray", "chase_casino_crops")  # read by lab.evaluate
TEACH = 20  # teaching photos at most
TEACH_CROPS = 48  # ... or crops (about as many dice as 16 photos of three)
TRAIN_SPLITS = ("train", "training", "teach")


def folders(realdice: Path) -> list[tuple[str, Path]]:
    """(name, folder) of each labelled folder of ``realdice`` that is not one of ``KNOWN``."""
    if (realdice / "labels.csv").is_file():
        return [] if realdice.name in KNOWN else [(realdice.name, realdice)]
    if not realdice.is_dir():
        return []
    return [
        (d.name, d)
        for d in sorted(realdice.iterdir())
        if d.is_dir() and d.name not in KNOWN and (d / "labels.csv").is_file()
    ]


def read_set(folder: Path) -> tuple[str, list[Photo]]:
    """The folder's dice set (guessed from its labels) and photos; LabelError (d6's reason)
    when no dice set has every face and die it names."""
    first = None
    for set_id in SET_IDS:
        try:
            return set_id, read_folder(folder, set_id)
        except LabelError as exc:
            first = first or exc
    raise first


def split_teach(photos: list[Photo], crops: bool) -> tuple[list[Photo], list[Photo]]:
    """(teaching photos, scored photos), see the module's text."""
    n = TEACH_CROPS if crops else TEACH
    split = {p.file: (p.labels[0].split.strip().lower() if p.labels else "") for p in photos}
    train = [p for p in photos if split[p.file] in TRAIN_SPLITS]
    pool, rest = (
        (train, [p for p in photos if p not in train])
        if train and len(train) < len(photos)
        else (photos, None)
    )
    # most dice first, as an owner throws all their dice; then every face shown
    order = sorted(pool, key=lambda p: (-len(p.labels), p.file))
    by = {p.file: [{"value": f"{lab.die}/{lab.face}"} for lab in p.labels] for p in order}
    want = min(n, len(pool)) if rest is not None else min(n, len(pool) // 2)
    names = set(covering(by, [p.file for p in order], want))
    teach = [p for p in photos if p.file in names]
    return teach, (rest if rest is not None else [p for p in photos if p.file not in names])


def figures(set_id: str, photos: list[Photo], crops: bool, fine: bool = True, taught=None) -> dict:
    """Found / right / abstained / wrong on ``photos``: as photos (``fine``) or camera
    frames, or crop by crop for a set of crops (as a photo is read, or once and a die in
    doubt again at four turns)."""
    if not crops:
        return read_photos(set_id, photos, taught=taught, fine=fine)
    from types import SimpleNamespace

    clf, tally = FaceClassifier(load(set_id), taught=taught), Tally()
    for photo in photos:
        img = photo.image()
        h, w = img.shape[:2]
        how = {"turns": TURNS} if fine else {"retry": True}
        r = read_boxes(clf, img, [(0, 0, w, h)], **how)[0]
        lab = photo.labels[0]
        tally.add(
            [{"x": 0, "y": 0, "w": w, "h": h, "die": lab.die, "face": lab.face}],
            [SimpleNamespace(x=0, y=0, w=w, h=h, die=r.die, face=r.face)],
        )
    fig = tally.figures()
    fig.pop("confusion", None)
    return fig


def write_subset(photos: list[Photo], out: Path) -> Path:
    """``photos`` as a labelled folder of their own (the images linked, or copied where links
    cannot be made), for ``lab.teach``."""
    (out / "images").mkdir(parents=True)
    with open(out / "labels.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "split", "x", "y", "w", "h", "value", "die"])
        for p in photos:
            try:
                os.symlink(p.path.resolve(), out / "images" / p.file)
            except OSError:
                shutil.copyfile(p.path, out / "images" / p.file)
            for lab in p.labels:
                w.writerow([p.file, lab.split, lab.x, lab.y, lab.w, lab.h, lab.face, lab.die])
    return out


def zero_shot(realdice: Path) -> dict:
    """{"real": ..., "real_camera_path": ..., "real_crops": ..., "skipped": ...}: figures of
    every other set, keyed as ``lab.evaluate`` keys its real rows."""
    out: dict = {"real": {}, "real_camera_path": {}, "real_crops": {}, "skipped": {}}
    for name, folder in folders(realdice):
        try:
            set_id, photos = read_set(folder)
            crops = crops_only(photos)
            label = f"{name} ({set_id}, never trained on)"
            if crops:
                for path, fine in (("photo", True), ("camera", False)):
                    out["real_crops"][f"{label}, {path} path"] = figures(set_id, photos, True, fine)
            else:
                out["real"][label] = figures(set_id, photos, False, True)
                out["real_camera_path"][label] = figures(set_id, photos, False, False)
        except LabelError as exc:
            out["skipped"][name] = str(exc)
    return out


def taught(realdice: Path, progress=None, deep: bool = False, **teaching) -> dict:
    """{name: {"teach_photos", "test_photos", "zero_shot", "taught" | "not_taught", ...}}: each
    other set taught with a few of its photos and scored on the others (``lab.evalteach``'s
    rows), by ``vision.teach`` or, ``deep``, ``lab.teach`` (``teaching``: its settings)."""
    if deep:
        from lab.teach import TeachError, teach
    else:
        from vision.teach import TeachError, teach

    out = {}
    sets = folders(realdice)
    for i, (name, folder) in enumerate(sets):
        try:
            set_id, photos = read_set(folder)
        except LabelError as exc:
            out[name] = {"teach_photos": 0, "test_photos": 0, "not_taught": str(exc)}
            continue
        crops = crops_only(photos)
        teach_set, test = split_teach(photos, crops)
        row = {
            "teach_photos": len(teach_set),
            "test_photos": len(test),
            "dice_set": set_id,
            "zero_shot": figures(set_id, test, crops),
        }
        with tempfile.TemporaryDirectory() as tmp:
            try:
                record = teach(
                    write_subset(teach_set, Path(tmp) / "photos"),
                    set_id,
                    Path(tmp) / "taught",
                    **teaching,
                )
            except TeachError as exc:  # its teaching photos cannot teach: say why
                row["not_taught"] = str(exc)
            else:
                row.update(
                    teach_seconds=record["seconds"],
                    taught_own_heldout=record["heldout"],
                    taught=figures(set_id, test, crops, taught=Path(tmp) / "taught"),
                )
        out[name] = row
        if progress:
            progress(name, i + 1, len(sets))
    return out
