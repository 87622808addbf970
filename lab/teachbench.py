"""Teaching's cost and gain on an owner's set the project never drew (``dicetray bench --teach``).

The owner's dice are blue with white pips and carry a star where the d6 set says six pips, as
real dice with a logo on the 6 do. ``photos`` rendered photos of them (4 dice each, every face
shown) are taught (``lab.teach``), 30 fresh photos (other seeds) are read with the shipped
models and with the taught folder, and the command prints the time teaching took (wall and
CPU), the memory it needed at most, and both readings' figures. Other cases (``--case``):
Rollers dice printed with digits, phone photos of a table full of see-through dice, and an
everyday mixed collection of d6 in seven colourways.

    dicetray bench --teach --photos 20
    dicetray bench --teach --case phone-d6
"""

from __future__ import annotations

import csv
import os
import platform
import resource
import struct
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.dicesets import load, parse


def _d6_marked_six(name: str, mark: str, body: str):
    """A d6 set of one owner's dice: pips on 1-5, ``mark`` on the 6, white ink on ``body``."""
    return parse(
        {
            "id": "d6",
            "name": name,
            "faces": {str(n): {"mark": "pips", "count": n} for n in range(1, 6)}
            | {"6": {"mark": mark}},
            "die": [
                {
                    "id": "d6",
                    "count": 5,
                    "body": body,
                    "ink": "#f4f4f4",
                    "faces": ["1", "2", "3", "4", "5", "6"],
                }
            ],
        }
    )


@contextmanager
def _labels_csv(folder: Path, die: bool = False):
    """The writer of a labelled folder's ``labels.csv`` (its ``images/`` made), the header
    written (with the die column where ``die``)."""
    (folder / "images").mkdir(parents=True)
    with open(folder / "labels.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "split", "x", "y", "w", "h", "value"] + (["die"] if die else []))
        yield w


OWNER = _d6_marked_six("an owner's blue dice, star on the 6", "star", "#2446b8")


def owner_photos(
    folder: Path, n: int, seed: int, dice_set=OWNER, rolled: bool = False
) -> list[list[dict]]:
    """``n`` rendered photos of the owner's dice (4 a photo, every face shown; ``rolled``:
    the faces a throw gives), written as a labelled folder (``images/`` + ``labels.csv``);
    returns the labels per photo."""
    from hardware.sim.render import render_scene

    rng = np.random.default_rng(seed)
    truth = []
    with _labels_csv(folder) as w:
        for i in range(n):
            faces = [str(int(rng.integers(1, 7)) if rolled else (i + k) % 6 + 1) for k in range(4)]
            frame, labels = render_scene(dice_set, [("d6", f) for f in faces], rng)
            name = f"{i:03d}.jpg"
            cv2.imwrite(str(folder / "images" / name), frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
            for lab in labels:
                w.writerow([name, "owner", lab["x"], lab["y"], lab["w"], lab["h"], lab["face"]])
            truth.append(labels)
    return truth


def rollers_digit_photos(folder: Path, n: int, seed: int, rolled: bool = False) -> None:
    """``n`` rendered photos of Rollers dice printed with digits for 1-5 (the black ZAP die
    and 4 wild dice each, faces cycling, or as thrown with ``rolled``), on one tray under one
    light: the held-out other
    style (checked cloth, green fluorescent light, serif print) that training never drew,
    written as a labelled folder with the die column. The dice are 44-60 px across, as the
    tray's camera should see them (hardware/PI.md); the style's own random size
    would make them 19-26 px, too small to read for sure (``vision.pipeline.SMALL_PX``)."""
    from hardware.sim.render import render_scene
    from hardware.sim.styles import other_style

    ds = load("rollers")
    style = other_style(np.random.default_rng(5), die_px=(44.0, 60.0), digits=True)
    rng = np.random.default_rng(seed)
    byid = {d.id: d for d in ds.dice}
    with _labels_csv(folder, die=True) as w:
        for i in range(n):
            dice = [
                (d.id, d.faces[int(rng.integers(6)) if rolled else (i + k) % 6])
                for k, d in enumerate([byid["black"]] + [byid["wild"]] * 4)
            ]
            frame, labels = render_scene(ds, dice, rng, style=style)
            name = f"{i:03d}.jpg"
            cv2.imwrite(str(folder / "images" / name), frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
            for lab in labels:
                w.writerow(
                    [name, "owner", lab["x"], lab["y"], lab["w"], lab["h"], lab["face"], lab["die"]]
                )


# a phone owner's set: see-through blue dice whose 6 carries a lightning bolt
PHONE = _d6_marked_six("see-through blue dice, a bolt on the 6", "zap", "#1f4fd0")
PHONE_SIZE = (3024, 4032)  # a 12 MP phone photo held upright (width, height)
PHONE_DICE = 24


def with_orientation(jpeg: bytes, orientation: int) -> bytes:
    """``jpeg`` with an EXIF block holding only an orientation tag (6: the stored pixels are
    to be turned 90 degrees clockwise to view, as a phone held upright writes its photos)."""
    tiff = (
        b"II*\x00"
        + struct.pack("<I", 8)
        + struct.pack("<H", 1)
        + struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0)
        + struct.pack("<I", 0)
    )
    app1 = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


def phone_photos(folder: Path, n: int, seed: int) -> None:
    """``n`` phone photos of a table of ``PHONE_DICE`` see-through blue dice (a bolt on the
    6, every face shown 4 times a photo, many dice touching), 3024x4032 held upright, stored
    as a phone stores them (landscape pixels and an EXIF orientation tag), labelled as they
    are seen. One setup for every seed: a wood table in one light, dice 150-190 px across,
    as an owner's photos of their own set are often taken (blue see-through dice with a
    symbol on the 6, top-down 12 MP phone photos, 14 taught and 6 to score)."""
    from hardware.sim.looks import Look
    from hardware.sim.render import render_scene
    from hardware.sim.styles import FLOORS, random_style

    setup = replace(
        random_style(np.random.default_rng(22), (150.0, 190.0)),
        floor="wood",
        floor_bgr=FLOORS["wood"],
        rim=0,
        look=Look(translucent=0.5, pip=0.9),
    )
    rng = np.random.default_rng(seed)
    with _labels_csv(folder) as w:
        for i in range(n):
            dice = [("d6", str((i + k) % 6 + 1)) for k in range(PHONE_DICE)]
            frame, labels = render_scene(
                PHONE,
                dice,
                rng,
                size=PHONE_SIZE,
                style=replace(setup, seed=int(rng.integers(1 << 30))),
            )
            stored = cv2.rotate(frame, cv2.ROTATE_90_COUNTERCLOCKWISE)
            jpeg = cv2.imencode(".jpg", stored, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
            name = f"IMG_{4540 + i}.jpeg"
            (folder / "images" / name).write_bytes(with_orientation(jpeg, 6))
            for lab in labels:
                w.writerow([name, "phone", lab["x"], lab["y"], lab["w"], lab["h"], lab["face"]])


# an everyday collection: d6 of the seven colourways of ``lab.everyday`` in one tray
MIXED_DICE = 8


def mixed_photos(folder: Path, n: int, seed: int) -> None:
    """``n`` photos of an everyday mixed collection of d6 (``MIXED_DICE`` a photo, each of a
    colourway of ``lab.everyday.COLOURWAYS`` drawn at random, rolled; the see-through bodies
    where the photo's light shows them so, half the photos holding one), on a white tray,
    25-50 px across, as the camera of a tray sees a collection a family owns; labelled as the
    d6 set (the taught set: one die kind, many looks)."""
    from hardware.sim.looks import Look
    from hardware.sim.render import render_scene
    from hardware.sim.styles import FLOORS, random_style
    from lab.everyday import COLOURWAYS

    looks = parse(
        {
            "id": "d6",
            "name": "an everyday mixed collection",
            "faces": {str(n): {"mark": "pips", "count": n} for n in range(1, 7)},
            "die": [
                {"id": f"c{i}", "count": 3, "body": body, "ink": pips, "faces": list("123456")}
                for i, (_name, body, pips, _see) in enumerate(COLOURWAYS)
            ],
        }
    )
    setup = replace(
        random_style(np.random.default_rng(7), (25.0, 50.0)),
        floor="white",
        floor_bgr=FLOORS["white"],
    )
    rng = np.random.default_rng(seed)
    with _labels_csv(folder) as w:
        for i in range(n):
            kinds = rng.choice(len(COLOURWAYS), size=MIXED_DICE)
            style = replace(setup, seed=int(rng.integers(1 << 30)))
            if any(COLOURWAYS[k][3] for k in kinds) and rng.random() < 0.5:
                style = replace(style, look=Look(translucent=0.5))
            dice = [(f"c{k}", str(int(rng.integers(1, 7)))) for k in kinds]
            frame, labels = render_scene(looks, dice, rng, style=style, fit=True)
            name = f"{i:03d}.jpg"
            cv2.imwrite(str(folder / "images" / name), frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
            for lab in labels:
                w.writerow([name, "mixed", lab["x"], lab["y"], lab["w"], lab["h"], lab["face"]])


# what --case names: (the dice set taught, the photo writer, what the dice are, dice a photo,
# teaching photos and fresh photos by default)
CASES = {
    "owner-d6": (
        lambda: OWNER,
        lambda folder, n, seed, rolled=False: owner_photos(folder, n, seed, rolled=rolled),
        "blue d6 with a star on the 6",
        4,
        20,
        30,
    ),
    "rollers-digits": (
        lambda: load("rollers"),
        rollers_digit_photos,
        "Rollers dice with digits for 1-5",
        5,
        20,
        30,
    ),
    "phone-d6": (
        lambda: PHONE,
        phone_photos,
        "see-through blue d6 with a bolt on the 6, 12 MP phone photos",
        PHONE_DICE,
        14,
        6,
    ),
    "mixed-d6": (
        lambda: load("d6"),
        mixed_photos,
        "an everyday mixed collection of d6, seven colourways, 25-50 px on a white tray",
        MIXED_DICE,
        25,
        25,
    ),
}


# the seeds the photos are drawn with: teaching photos, and fresh ones FRESH_OFFSET on
PHOTO_SEED = 11
FRESH_OFFSET = 88


def _teach_apart(root: Path, set_id: str, seed: int, deep: bool, teaching: dict):
    """Teach in a process of its own, as ``dicetray teach`` runs: (record, wall s, CPU s,
    the most memory it held in MB, whether it loaded torch). The photos were rendered in
    this process, so only a child's own figures are teaching's; its peak memory is the one
    it reports of itself: on Linux its own address space's high-water mark (``VmHWM``), as
    ``ru_maxrss`` starts a forked child at the size of this process (4 GB after rendering
    12 MP photos) and ``RUSAGE_CHILDREN`` keeps the largest child ever waited for."""
    import json
    import subprocess

    module = "lab.teach" if deep else "vision.teach"
    code = (
        f"import json, resource, sys; from {module} import teach; "
        "r = teach(sys.argv[1], sys.argv[2], sys.argv[3], seed=int(sys.argv[4]), **json.loads("
        "sys.argv[5])); r['torch_loaded'] = 'torch' in sys.modules; "
        "r['peak_kb'] = int(next(l.split()[1] for l in open('/proc/self/status') "
        "if l.startswith('VmHWM:'))) if sys.platform == 'linux' else "
        "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; print(json.dumps(r))"
    )
    args = [str(root / "photos"), set_id, str(root / "taught"), str(seed), json.dumps(teaching)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - wall0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"teaching failed: {done.stderr.strip().splitlines()[-1:]}")
    record = json.loads(done.stdout.strip().splitlines()[-1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak = round(record.pop("peak_kb") / 1024, 1)
    return record, wall, cpu, peak, record.pop("torch_loaded")


def _cv_figures(record: dict) -> dict:
    """What teaching's cross-validation read of the teaching dice (its ``taught.json``)."""
    return {k: record["heldout"].get(k) for k in ("dice", "face_right", "abstained", "wrong_count")}


def _fresh_figures(root: Path, dice_set) -> dict:
    """``root/fresh`` read with the shipped models ("zero_shot") and ``root/taught``
    ("taught"): found, right, asked and wrong of its labelled dice."""
    from lab.evalteach import score_folder
    from vision.labelled import read_folder

    read = read_folder(root / "fresh", dice_set)
    keys = ("labelled", "recall", "face_accuracy", "abstained", "wrong", "wrong_count")
    return {
        name: {k: f[k] for k in keys}
        for name, taught in (("zero_shot", None), ("taught", root / "taught"))
        for f in [score_folder(read, dice_set, taught)]
    }


def run(
    photos: int | None = None,
    fresh: int | None = None,
    seed: int = 0,
    progress=None,
    case: str = "owner-d6",
    deep: bool = False,
    photo_seed: int = PHOTO_SEED,
    **teaching,
) -> dict:
    """Teach ``case``'s set (see ``CASES``) from ``photos`` photos and score ``fresh`` others
    (None: the case's own numbers), with the table's own teaching (``vision.teach``) or, with
    ``deep``, torch fine-tuning (``lab.teach``; ``teaching``: its settings: copies,
    clf_epochs, det_epochs). The photos are drawn with ``photo_seed``, the fresh ones with
    ``photo_seed + FRESH_OFFSET``."""

    if teaching and not deep:
        raise ValueError(f"{', '.join(teaching)}: settings of --deep teaching only")

    with tempfile.TemporaryDirectory(prefix="dicetray-teachbench-") as tmp:
        root = Path(tmp)
        dice_set, write, what, per_photo, n_photos, n_fresh = CASES[case]
        dice_set = dice_set()
        photos = n_photos if photos is None else photos
        fresh = n_fresh if fresh is None else fresh
        write(root / "photos", photos, photo_seed)
        write(root / "fresh", fresh, photo_seed + FRESH_OFFSET)
        if progress:
            progress("teaching", 0, 1)
        record, wall, cpu, peak, torch_loaded = _teach_apart(
            root, dice_set.id, seed, deep, teaching
        )
        if progress:
            progress("teaching", 1, 1)
        figures = _fresh_figures(root, dice_set)
    return {
        "case": case,
        "what": what,
        "photos": photos,
        "photo_seed": photo_seed,
        "dice": photos * per_photo,
        "fresh_photos": fresh,
        "teach_wall_s": round(wall, 1),
        "teach_cpu_s": round(cpu, 1),
        "peak_memory_mb": peak,
        "cv_figures": _cv_figures(record),
        "method": "deep (torch fine-tuning)" if deep else "head (numpy, no torch)",
        "torch_loaded": torch_loaded,
        "thresholds": record["thresholds"]["classifier"],
        "fresh": figures,
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
    }


# the cases a table's camera sees (640x480 frames): the rolls of a game can be played on them
PLAYED_CASES = ("owner-d6", "rollers-digits")


def keep_played(rolls: Path, out: Path, dice_set) -> dict:
    """The rolls of a game as the table keeps them (``tray/table/played.py``): each labelled
    photo of ``rolls`` read as the camera reads a settled roll, with the shipped models; a roll
    with a die asked about is corrected by the players and written to ``out`` (a labelled
    folder): the asked dice with the face they show, the dice read for sure with the face read
    (wrong, should the reader have been wrong and sure and the players not have fixed it on
    the correction screen). A roll with a die not found, or more boxes than dice, is refused
    by the game and not kept. Returns counts."""
    from lab.evaluate import match
    from vision.labelled import read_folder
    from vision.pipeline import Recognizer

    rec = Recognizer(dice_set)
    counts = {"rolls": 0, "read_whole": 0, "refused": 0, "kept": 0, "dice_kept": 0}
    counts["asked"] = counts["kept_wrong"] = 0
    with _labels_csv(out, die=True) as w:
        for photo in read_folder(rolls, dice_set):
            img, photo = photo.decoded()
            counts["rolls"] += 1
            rec.reset()
            found = rec.read(img, fine=False).dice
            labels = [
                {"x": b.x, "y": b.y, "w": b.w, "h": b.h, "die": b.die, "face": b.face}
                for b in photo.labels
            ]
            pairs = match(labels, found)
            if len(found) != len(labels) or any(f is None for _, f in pairs):
                counts["refused"] += 1
                continue
            if all(found[f].face is not None for _, f in pairs):
                counts["read_whole"] += 1
                continue
            counts["kept"] += 1
            name = photo.path.name
            cv2.imwrite(str(out / "images" / name), img)
            for li, fi in pairs:
                d, truth = found[fi], labels[li]
                counts["asked"] += d.face is None
                counts["kept_wrong"] += d.face is not None and d.face != truth["face"]
                face = truth["face"] if d.face is None else d.face
                w.writerow([name, "played", d.x, d.y, d.w, d.h, face, d.die or truth["die"]])
                counts["dice_kept"] += 1
    return counts


def run_played(
    rolls: int,
    case: str = "owner-d6",
    seed: int = 0,
    photo_seed: int = PHOTO_SEED,
    progress=None,
) -> dict:
    """Teaching from play: ``rolls`` rolls of ``case``'s dice (the faces thrown, drawn with
    ``photo_seed``) played at the table with the shipped models; the rolls the players had
    to correct are kept (:func:`keep_played`), taught from, and the fresh photos of
    :func:`run` (the same seeds) are read with the shipped models and the taught folder."""

    if case not in PLAYED_CASES:
        raise ValueError(f"--played: the camera's cases only ({', '.join(PLAYED_CASES)})")
    with tempfile.TemporaryDirectory(prefix="dicetray-playedbench-") as tmp:
        root = Path(tmp)
        dice_set, write, what, _per_photo, _n_photos, n_fresh = CASES[case]
        dice_set = dice_set()
        write(root / "rolls", rolls, photo_seed, rolled=True)
        write(root / "fresh", n_fresh, photo_seed + FRESH_OFFSET)
        if progress:
            progress("playing", 0, 2)
        counts = keep_played(root / "rolls", root / "photos", dice_set)
        if progress:
            progress("teaching", 1, 2)
        record, wall, _cpu, peak, _ = _teach_apart(root, dice_set.id, seed, False, {})
        if progress:
            progress("teaching", 2, 2)
        fresh = _fresh_figures(root, dice_set)
    return {
        "case": case,
        "what": what,
        "photo_seed": photo_seed,
        "played": counts,
        "teach_wall_s": round(wall, 1),
        "peak_memory_mb": peak,
        "cv_figures": _cv_figures(record),
        "fresh_photos": n_fresh,
        "fresh": fresh,
    }


def format_played(r: dict) -> str:
    """:func:`run_played`'s result for the terminal."""
    c, z, t = r["played"], r["fresh"]["zero_shot"], r["fresh"]["taught"]
    cv = r["cv_figures"]

    def row(f: dict) -> str:
        return (
            f"{f['recall']:.1%} / {f['face_accuracy']:.1%} / {f['abstained']:.1%} / "
            f"{f['wrong']:.2%} ({f['wrong_count']})"
        )

    return "\n".join(
        [
            f"dicetray bench --teach --played {c['rolls']} ({r['what']}, seed {r['photo_seed']}):",
            (
                f"  played {c['rolls']} rolls: {c['read_whole']} read whole, {c['refused']} "
                f"refused (a die missed), {c['kept']} corrected and kept ({c['dice_kept']} "
                f"dice: {c['asked']} set by the players, {c['kept_wrong']} read wrong and sure, "
                "kept as read)"
            ),
            f"  taught from them in {r['teach_wall_s']:.0f} s, {r['peak_memory_mb']:.0f} MB "
            + (
                f"at most; cross-validated {cv['face_right']:.1%} right, "
                f"{cv['wrong_count']} wrong of {cv['dice']}"
                if cv.get("face_right") is not None
                else "at most; too few dice to judge a taught head: the shipped models kept"
            ),
            f"  {r['fresh_photos']} fresh photos ({z['labelled']} dice): found / right / "
            "asked / wrong",
            f"    shipped models: {row(z)}",
            f"    taught:         {row(t)}",
        ]
    )


def format_result(r: dict) -> str:
    z, t = r["fresh"]["zero_shot"], r["fresh"]["taught"]
    lines = [
        f"dicetray bench --teach ({r['cpu']}, {r['cores']} cores):",
        (
            f"  taught {r['what']} from {r['photos']} photos ({r['dice']} dice, "
            f"seed {r['photo_seed']}): {r['teach_wall_s']:.0f} s wall, "
            f"{r['teach_cpu_s']:.0f} s CPU, {r['peak_memory_mb']:.0f} MB at most"
        ),
        (
            f"  by {r['method']}; torch {'loaded' if r['torch_loaded'] else 'not loaded'}; "
            f"cross-validated: {r['cv_figures']['face_right']:.1%} right, "
            f"{r['cv_figures']['wrong_count']} wrong of {r['cv_figures']['dice']}"
            if r["cv_figures"].get("face_right") is not None
            else f"  by {r['method']}; torch {'loaded' if r['torch_loaded'] else 'not loaded'}"
        ),
        (
            f"  {r['fresh_photos']} fresh photos ({z['labelled']} dice): found / right / "
            "abstained / wrong"
        ),
    ]
    for name, f in (("shipped", z), ("taught", t)):
        lines.append(
            f"    {name:8} {f['recall']:7.1%} {f['face_accuracy']:7.1%} "
            f"{f['abstained']:7.1%} {f['wrong']:7.2%} ({f['wrong_count']})"
        )
    return "\n".join(lines)
