"""A small stand-in for the real photo sets (../shared/realdice layout), drawn by the
renderer: the three known sets with their own label columns and splits."""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np

from hardware.sim.render import render_scene
from hardware.sim.styles import random_style
from vision.dicesets import load

MATTEOP65 = [("train_dice_1.jpg", "train"), ("train_dice_2.jpg", "train")] + [
    (f"valid_{k}.jpg", "valid") for k in range(1, 7)
]
# rune55: (file, source); "i_jpg.rf.*" files all share the base "i" (grouped by look)
RUNE55 = [
    ("00001_jpg.rf.aaa.jpg", "numeric_tube"),
    ("00001_jpg.rf.bbb.jpg", "numeric_tube"),  # a copy of the one above
    ("00002_jpg.rf.ccc.jpg", "numeric_tube"),
    ("00003_jpg.rf.ddd.jpg", "numeric_tube"),
    ("00004_jpg.rf.eee.jpg", "numeric_tube"),
    ("00005_jpg.rf.fff.jpg", "numeric_tube"),
    ("PXL_1_jpg.rf.ggg.jpg", "PXL_phone"),
    ("PXL_2_jpg.rf.hhh.jpg", "PXL_phone"),
    ("PXL_3_jpg.rf.iii.jpg", "PXL_phone"),
    ("i_jpg.rf.p01.jpg", "i_single"),
    ("i_jpg.rf.p02.jpg", "i_single"),  # the one above, flipped
    ("i_jpg.rf.p03.jpg", "i_single"),
    ("i_jpg.rf.p04.jpg", "i_single"),
]
COPIES = {"00001_jpg.rf.bbb.jpg": "as it is", "i_jpg.rf.p02.jpg": "flipped"}
CHASE = [("train", 1), ("train", 2), ("val", 3), ("val", 4), ("test", 5), ("test", 6)]


def _scene(rng, n_dice: int, px=(50, 70)):
    ds = load("d6")
    dice = [("d6", str(int(v))) for v in rng.integers(1, 7, n_dice)]
    return render_scene(ds, dice, rng, style=random_style(rng, die_px=px))


def build(root: Path, seed: int = 3) -> dict[str, int]:
    """Write the three sets under ``root``; returns the labelled dice of each source."""
    rng = np.random.default_rng(seed)
    dice: dict[str, int] = {}
    m = root / "matteop65_webcam"
    (m / "images").mkdir(parents=True)
    with open(m / "labels.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "split", "x", "y", "w", "h", "value"])
        for name, split in MATTEOP65:
            frame, labels = _scene(rng, 3)
            cv2.imwrite(str(m / "images" / name), frame)
            for lab in labels:
                # its boxes hold the pips only: the middle half of the die
                w.writerow(
                    [
                        name,
                        split,
                        lab["x"] + lab["w"] / 4,
                        lab["y"] + lab["h"] / 4,
                        lab["w"] / 2,
                        lab["h"] / 2,
                        lab["face"],
                    ]
                )
                dice["matteop65_webcam"] = dice.get("matteop65_webcam", 0) + 1
    r = root / "rune55_gray"
    (r / "images").mkdir(parents=True)
    with open(r / "labels.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "source", "x", "y", "w", "h", "value"])
        last = None
        for name, source in RUNE55:
            if name not in COPIES:
                frame, labels = _scene(rng, 2)
                last = (frame, labels)
            frame, labels = last
            if COPIES.get(name) == "flipped":
                frame = frame[:, ::-1].copy()
                fw = frame.shape[1]
                labels = [{**lab, "x": fw - lab["x"] - lab["w"]} for lab in labels]
            cv2.imwrite(str(r / "images" / name), frame)
            for lab in labels:
                w.writerow([name, source, lab["x"], lab["y"], lab["w"], lab["h"], lab["face"]])
                dice[source] = dice.get(source, 0) + 1
    c = root / "chase_casino_crops"
    (c / "images").mkdir(parents=True)
    with open(c / "labels.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "split", "x", "y", "w", "h", "value"])
        for k, (split, value) in enumerate(CHASE):
            frame, labels = render_scene(
                load("d6"), [("d6", str(value))], rng, style=random_style(rng, die_px=(60, 64))
            )
            lab = labels[0]
            x0, y0 = int(lab["x"]) - 4, int(lab["y"]) - 4
            crop = frame[y0 : y0 + int(lab["h"]) + 8, x0 : x0 + int(lab["w"]) + 8]
            name = f"{split}_{value}_{k}.jpg"
            cv2.imwrite(str(c / "images" / name), crop)
            h, wd = crop.shape[:2]
            w.writerow([name, split, 0, 0, wd, h, value])
            dice["chase_casino_crops"] = dice.get("chase_casino_crops", 0) + 1
    return dice
