"""lab.smalldice: real photos shrunk so their dice are small, read by a source's left-out fold
(here a stand-in for the real sets, and the shipped network as every fold's)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import realdicekit

from lab import smalldice
from vision.classcard import model_paths, second_path


def test_shrunk_sets_the_median_die_and_keeps_the_frame():
    img = np.zeros((300, 400, 3), np.uint8)
    img[:, :, 1] = 120  # a green tray
    boxes = [(10, 10, 80, 80), (200, 100, 60, 64), (300, 200, 90, 70)]
    labels = [{"x": x, "y": y, "w": w, "h": h, "face": "3"} for x, y, w, h in boxes]
    canvas, moved, small = smalldice.shrunk(img, labels, boxes, 32)
    assert canvas.shape == img.shape
    assert np.median([max(b[2], b[3]) for b in small]) == pytest.approx(32, abs=0.5)
    assert all(0 <= b[0] and b[0] + b[2] <= 400 and 0 <= b[1] and b[1] + b[3] <= 300 for b in small)
    assert [m["face"] for m in moved] == ["3"] * 3 and moved[0]["w"] == small[0][2]
    assert canvas[0, 0].tolist() == [0, 120, 0]  # filled with the photo's edge colour
    # never enlarged; 0: as it is
    for px in (0, 200):
        same, lab2, box2 = smalldice.shrunk(img, labels, boxes, px)
        assert same is img and lab2 == labels and box2 == [tuple(map(float, b)) for b in boxes]


def test_each_source_is_read_on_every_path(tmp_path):
    root = tmp_path / "realdice"
    dice = realdicekit.build(root)
    folds = tmp_path / "folds"
    for source in ("numeric_tube", "chase_casino_crops"):
        (folds / source).mkdir(parents=True)
        for path in (*model_paths("d6"), second_path("d6")):
            shutil.copy(path, folds / source / path.name)
    lines = []
    out = smalldice.run(root, folds, [0, 24], log=lines.append)
    assert list(out) == ["numeric_tube"]  # no fold for the others; chase's crops are no photo
    for px in (0, 24):
        for path in ("photo", "camera", "small", "joint"):
            f = out["numeric_tube"][px][path]
            assert f["dice"] == dice["numeric_tube"]
            assert abs(f["right"] + f["asked"] + f["wrong"] - 1) < 1e-9
        assert out["numeric_tube"][px]["small"]["found"] == 1.0  # the labelled boxes
    # the stand-in's dice are clear: as they are, found and mostly read
    assert out["numeric_tube"][0]["photo"]["found"] >= 0.8
    assert out["numeric_tube"][0]["joint"]["right"] >= 0.8
    assert len(lines) == 2 and "24 px" in lines[1] and "as is" in lines[0]


def test_without_photos_or_folds_it_says_so(tmp_path, capsys):
    assert smalldice.main([str(tmp_path), "--realdice", str(tmp_path / "none")]) == 2
    assert "no real photo set" in capsys.readouterr().err
    root = tmp_path / "realdice"
    realdicekit.build(root)
    assert smalldice.main([str(tmp_path / "nofolds"), "--realdice", str(root)]) == 2
    err = capsys.readouterr().err
    assert "no folds" in err and len(err.strip().splitlines()) == 1
