"""Real photo sets the project has no reader of its own for (lab.othersets): any labelled
folder beside the known sets in ``dicetray eval --realdice DIR`` is read as it is, its dice
set guessed from its labels; a folder that cannot be read is reported, the others still are."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.sim.render import render_scene
from lab import othersets
from lab.cli import main_eval
from vision.dicesets import load


def _scene_folder(folder: Path, set_id: str, n: int, seed: int, splits=None) -> int:
    """``n`` rendered photos of ``set_id`` dice as a labelled folder; returns the dice."""
    ds = load(set_id)
    rng = np.random.default_rng(seed)
    (folder / "images").mkdir(parents=True)
    dice_count = 0
    with open(folder / "labels.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "split", "x", "y", "w", "h", "value", "die"])
        for i in range(n):
            picks = [ds.dice[k % len(ds.dice)] for k in range(4)]
            dice = [(d.id, d.faces[(i + k) % 6]) for k, d in enumerate(picks)]
            frame, labels = render_scene(ds, dice, rng)
            name = f"{i:02d}.jpg"
            cv2.imwrite(str(folder / "images" / name), frame)
            for lab in labels:
                w.writerow(
                    [
                        name,
                        splits[i] if splits else "all",
                        lab["x"],
                        lab["y"],
                        lab["w"],
                        lab["h"],
                        lab["face"],
                        lab["die"],
                    ]
                )
                dice_count += 1
    return dice_count


@pytest.fixture(scope="module")
def realdice(tmp_path_factory):
    root = tmp_path_factory.mktemp("realdice")
    dice = _scene_folder(root / "blue_tray", "d6", 4, 5, ["train", "train", "valid", "valid"])
    _scene_folder(root / "tally_photos", "tally-up", 2, 6)
    # die crops: each image one die filling it
    (root / "crops" / "images").mkdir(parents=True)
    rows = ["file,split,x,y,w,h,value"]
    frame, labels = render_scene(
        load("d6"), [("d6", str(k)) for k in range(1, 7)], np.random.default_rng(7)
    )
    for i, lab in enumerate(labels):
        x, y, w, h = lab["x"], lab["y"], lab["w"], lab["h"]
        cv2.imwrite(
            str(root / "crops" / "images" / f"{i}.png"),
            frame[max(0, y - 4) : y + h + 4, max(0, x - 4) : x + w + 4],
        )
        rows.append(f"{i}.png,test,0,0,{w + 8},{h + 8},{lab['face']}")
    (root / "crops" / "labels.csv").write_text("\n".join(rows) + "\n")
    # a folder naming a face no dice set has, and a known set the project reads its own way
    _scene_folder(root / "broken", "d6", 1, 8)
    text = (root / "broken" / "labels.csv").read_text().splitlines()
    text[1] = ",".join([*text[1].split(",")[:6], "9", "d6"])
    (root / "broken" / "labels.csv").write_text("\n".join(text) + "\n")
    _scene_folder(root / "matteop65_webcam", "d6", 1, 9)
    return root, dice


def test_every_labelled_folder_but_the_known_sets_is_found(realdice):
    root, _ = realdice
    assert [n for n, _ in othersets.folders(root)] == [
        "blue_tray",
        "broken",
        "crops",
        "tally_photos",
    ]
    # --realdice may also be one labelled folder itself
    assert othersets.folders(root / "blue_tray") == [("blue_tray", root / "blue_tray")]


def test_each_set_is_read_with_the_dice_set_its_labels_name(realdice):
    root, dice = realdice
    out = othersets.zero_shot(root)
    blue = out["real"]["blue_tray (d6, never trained on)"]
    assert blue["labelled"] == dice == 16
    assert blue["recall"] >= 0.9 and blue["wrong_count"] == 0
    assert "blue_tray (d6, never trained on)" in out["real_camera_path"]
    tally = out["real"]["tally_photos (tally-up, never trained on)"]
    assert tally["labelled"] == 8 and tally["wrong_count"] == 0
    crops = out["real_crops"]["crops (d6, never trained on), photo path"]
    assert crops["labelled"] == 6 and crops["wrong_count"] == 0
    assert "crops (d6, never trained on), camera path" in out["real_crops"]
    assert "the d6 die of the d6 set has no face '9'" in out["skipped"]["broken"]


def test_a_set_with_a_train_split_teaches_with_it_and_is_scored_on_the_rest(realdice):
    root, _ = realdice
    set_id, photos = othersets.read_set(root / "blue_tray")
    teach, test = othersets.split_teach(photos, crops=False)
    assert set_id == "d6"
    assert [p.file for p in teach] == ["00.jpg", "01.jpg"]
    assert [p.file for p in test] == ["02.jpg", "03.jpg"]
    # without a train split: at most half the photos teach, every face shown first
    _, crops = othersets.read_set(root / "crops")
    teach, test = othersets.split_teach(crops, crops=True)
    assert len(teach) == 3 and len(test) == 3
    assert not {p.file for p in teach} & {p.file for p in test}


def test_a_set_too_small_to_teach_says_why_and_keeps_its_zero_shot_figures(realdice):
    root, _ = realdice
    row = othersets.taught(root / "blue_tray")["blue_tray"]
    assert row["teach_photos"] == 2 and row["test_photos"] == 2
    assert row["zero_shot"]["labelled"] == 8
    assert "taught" not in row and "0 times" in row["not_taught"]


def test_dicetray_eval_reads_other_sets_and_guesses_the_set_of_photos(realdice, capsys):
    root, _ = realdice
    assert main_eval(["--real-only", "--no-teach", "--realdice", str(root), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "blue_tray (d6, never trained on)" in report["real"]
    assert report["rendered"] == {} and "broken" in report["skipped"]
    assert main_eval(["--photos", str(root / "tally_photos"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dice_set"] == "tally-up" and report["zero_shot"]["labelled"] == 8
    assert main_eval(["--photos", str(root / "broken")]) == 2
    assert "has no face '9'" in capsys.readouterr().err
