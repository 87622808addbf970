"""Teaching's cost and gain on an owner's set the project never drew (``dicetray bench --teach``).

The owner's dice are blue with white pips and carry a star where the d6 set says six pips, as
real dice with a logo on the 6 do. ``photos`` rendered photos of them (4 dice each, every face
shown) are taught (``lab.teach``), 30 fresh photos (other seeds) are read with the shipped
models and with the taught folder, and the command prints the time teaching took (wall and
CPU), the memory it needed at most, and both readings' figures.

    dicetray bench --teach --photos 20
"""

from __future__ import annotations

import csv
import os
import platform
import resource
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from vision.dicesets import load, parse

OWNER = parse({
    "id": "d6", "name": "an owner's blue dice, star on the 6",
    "faces": {str(n): {"mark": "pips", "count": n} for n in range(1, 6)} | {
        "6": {"mark": "star"}},
    "die": [{"id": "d6", "count": 5, "body": "#2446b8", "ink": "#f4f4f4",
             "faces": ["1", "2", "3", "4", "5", "6"]}],
})


def owner_photos(folder: Path, n: int, seed: int, dice_set=OWNER) -> list[list[dict]]:
    """``n`` rendered photos of the owner's dice (4 a photo, every face shown), written as a
    labelled folder (``images/`` + ``labels.csv``); returns the labels per photo."""
    from lab.render import render_scene

    rng = np.random.default_rng(seed)
    (folder / "images").mkdir(parents=True)
    truth = []
    with open(folder / "labels.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "split", "x", "y", "w", "h", "value"])
        for i in range(n):
            faces = [str((i + k) % 6 + 1) for k in range(4)]
            frame, labels = render_scene(dice_set, [("d6", f) for f in faces], rng)
            name = f"{i:03d}.jpg"
            cv2.imwrite(str(folder / "images" / name), frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
            for lab in labels:
                w.writerow([name, "owner", lab["x"], lab["y"], lab["w"], lab["h"],
                            lab["face"]])
            truth.append(labels)
    return truth


def rollers_digit_photos(folder: Path, n: int, seed: int) -> None:
    """``n`` rendered photos of Rollers dice printed with digits for 1-5 (the black ZAP die
    and 4 wild dice each, faces cycling), on one tray under one light: the held-out other
    style (checked cloth, green fluorescent light, serif print) that training never drew,
    written as a labelled folder with the die column. The dice are 44-60 px across, as the
    tray's camera should see them (hardware/PI.md); until session 8 the style's own random
    size made them 19-26 px, too small to read for sure (``vision.pipeline.SMALL_PX``)."""
    from lab.render import other_style, render_scene

    ds = load("rollers")
    style = other_style(np.random.default_rng(5), die_px=(44.0, 60.0), digits=True)
    rng = np.random.default_rng(seed)
    byid = {d.id: d for d in ds.dice}
    (folder / "images").mkdir(parents=True)
    with open(folder / "labels.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "split", "x", "y", "w", "h", "value", "die"])
        for i in range(n):
            dice = [(d.id, d.faces[(i + k) % 6])
                    for k, d in enumerate([byid["black"]] + [byid["wild"]] * 4)]
            frame, labels = render_scene(ds, dice, rng, style=style)
            name = f"{i:03d}.jpg"
            cv2.imwrite(str(folder / "images" / name), frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
            for lab in labels:
                w.writerow([name, "owner", lab["x"], lab["y"], lab["w"], lab["h"],
                            lab["face"], lab["die"]])


# what --case names: (the dice set taught, the photo writer, what the dice are)
CASES = {
    "owner-d6": (lambda: OWNER, lambda folder, n, seed: owner_photos(folder, n, seed),
                 "blue d6 with a star on the 6", 4),
    "rollers-digits": (lambda: load("rollers"), rollers_digit_photos,
                       "Rollers dice with digits for 1-5", 5),
}


def _peak_mb() -> float:
    """The most memory this process (and any children) held, in MB (Linux: ru_maxrss KB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return round(max(own, kids) / 1024, 1)


def run(photos: int = 20, fresh: int = 30, seed: int = 0, progress=None,
        case: str = "owner-d6", **teaching) -> dict:
    """Teach ``case``'s set (see ``CASES``) from ``photos`` photos and score ``fresh`` others;
    ``teaching``: ``lab.teach.teach``'s own settings (copies, clf_epochs, det_epochs), its
    defaults else."""
    from lab.evalteach import score_folder
    from lab.labelled import read_folder
    from lab.teach import teach

    with tempfile.TemporaryDirectory(prefix="dicetray-teachbench-") as tmp:
        root = Path(tmp)
        dice_set, write, what, per_photo = CASES[case]
        dice_set = dice_set()
        write(root / "photos", photos, 11)
        write(root / "fresh", fresh, 99)
        before = _peak_mb()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        record = teach(root / "photos", dice_set, root / "taught", progress=progress,
                       seed=seed, **teaching)
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        peak = _peak_mb()
        read = read_folder(root / "fresh", dice_set)
        figures = {}
        for name, taught in (("zero_shot", None), ("taught", root / "taught")):
            f = score_folder(read, dice_set, taught)
            figures[name] = {k: f[k] for k in ("labelled", "recall", "face_accuracy",
                                                "abstained", "wrong", "wrong_count")}
    return {"case": case, "what": what, "photos": photos, "dice": photos * per_photo,
            "fresh_photos": fresh,
            "teach_wall_s": round(wall, 1), "teach_cpu_s": round(cpu, 1),
            "peak_memory_mb": peak, "memory_before_teaching_mb": before,
            "cv_figures": {k: record["heldout"].get(k)
                           for k in ("dice", "face_right", "abstained", "wrong_count")},
            "thresholds": record["thresholds"]["classifier"],
            "fresh": figures, "cpu": platform.processor() or platform.machine(),
            "cores": os.cpu_count()}


def format_result(r: dict) -> str:
    z, t = r["fresh"]["zero_shot"], r["fresh"]["taught"]
    lines = [f"dicetray bench --teach ({r['cpu']}, {r['cores']} cores):",
             (f"  taught {r['what']} from {r['photos']} "
              f"photos ({r['dice']} dice): {r['teach_wall_s']:.0f} s wall, "
              f"{r['teach_cpu_s']:.0f} s CPU, {r['peak_memory_mb']:.0f} MB at most"),
             (f"  {r['fresh_photos']} fresh photos ({z['labelled']} dice): found / right / "
              "abstained / wrong")]
    for name, f in (("shipped", z), ("taught", t)):
        lines.append(f"    {name:8} {f['recall']:7.1%} {f['face_accuracy']:7.1%} "
                     f"{f['abstained']:7.1%} {f['wrong']:7.2%} ({f['wrong_count']})")
    return "\n".join(lines)
