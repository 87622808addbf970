"""Floors set on prints never trained on (lab.farprint): far looks bend glyphs beyond every
training look, a network reads them for its floors, and a card keeps them only while it is
the network that read them."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import numpy as np

from hardware.sim.looks import (
    FAR_WARP,
    FAR_WIDEN,
    WARP_MAX,
    draw_face_mask,
    far_look,
    random_look,
)
from hardware.sim.styles import far_print_style, other_style
from lab.calibrate import Calibration, calibrate_file
from lab.farprint import far_crops, far_floors
from lab.trainset import Crops, make_rendered
from vision.classcard import model_paths
from vision.dicesets import load
from vision.onnx import file_sha256


def test_far_prints_are_bent_beyond_every_training_look_and_are_not_the_judges():
    rng = np.random.default_rng(8)
    train = [random_look(rng) for _ in range(400)]
    far = [far_look(rng, digits=1.0) for _ in range(100)]
    assert max(look.warp for look in train) <= WARP_MAX < FAR_WARP[0]
    assert all(FAR_WARP[0] <= look.warp <= FAR_WARP[1] for look in far)
    widen = [look.widen for look in train]
    assert FAR_WIDEN[0][1] <= min(widen) and max(widen) <= FAR_WIDEN[1][0]
    assert {look.widen < 1 for look in far} == {True, False}
    assert all(look.digits for look in far)
    # its stars are bent too, which no training look's are
    star = load("tally-up").faces["star"]

    def drawn(look):
        return draw_face_mask(star, 64, np.random.default_rng(3), look=look)[0][0] > 0.5

    a, b = drawn(replace(far[0], bend_marks=False)), drawn(far[0])
    assert (a & b).sum() / (a | b).sum() < 0.85 and not any(look.bend_marks for look in train)
    # a far print is a training font bent: never the held-out other style's font or tray
    judge = other_style(np.random.default_rng(1))
    for _ in range(20):
        style = far_print_style(rng)
        assert style.look.font != judge.look.font and style.floor != judge.floor


def test_far_print_floors_are_read_by_the_network_they_belong_to(tmp_path):
    onnx, card = model_paths("rollers")
    for f in (onnx, card):
        shutil.copy(f, tmp_path / f.name)
    crops = far_crops("rollers", 64, scenes=8, seed=5, workers=1)
    assert len(crops) > 20 and set(crops.group) == {"far print", "small-dice scenes"}
    fl = far_floors("rollers", tmp_path, scenes=8, seed=5, workers=1)
    assert fl["sha256"] == file_sha256(tmp_path / onnx.name) and fl["scenes"] == 8
    for key in ("once", "turned", "small_once", "small_turned"):
        assert 0.5 <= fl[key]["threshold"] <= 1.0
        # a handful of dice holds the wrong-read rate to far more than 0.5%, and says so
        b = fl[key]["bound"]
        assert b["calibration_dice"] < 200 and b["wrong_rate_bound"] > 0.02


def test_a_card_keeps_far_print_floors_only_for_the_network_that_read_them(tmp_path):
    onnx, card_path = model_paths("rollers")
    for f in (onnx, card_path):
        shutil.copy(f, tmp_path / f.name)
    x, d, f, side = make_rendered("rollers", 60, 31, 1, 64)
    crops = Crops(x, d, f, ["rendered"] * len(x), side, [""] * len(x))
    data = Calibration(crops, None, {"camera": None, "photo": None})
    quiet = lambda *_: None  # noqa: E731
    plain = calibrate_file("rollers", tmp_path, data, quiet, far_print={})
    assert "far_print" not in plain
    sha = file_sha256(tmp_path / onnx.name)
    high = {key: {"threshold": 0.9991} for key in ("once", "turned", "small_once", "small_turned")}
    got = calibrate_file("rollers", tmp_path, data, quiet, far_print={"sha256": sha, **high})
    assert got["threshold"] >= 0.9991 and got["turned"]["threshold"] >= 0.9991
    assert got["small"]["once"]["threshold"] >= 0.9991
    assert "far_print" in got["calibration"]["rule"]
    # calibrated again without saying: the card's own floors hold while the network is the same
    again = calibrate_file("rollers", tmp_path, data, quiet)
    assert again["far_print"]["sha256"] == sha and again["threshold"] >= 0.9991
    # floors another network read (here: the card says another file) are not this one's
    meta = json.loads((tmp_path / card_path.name).read_text())
    meta["far_print"]["sha256"] = "0" * 64
    (tmp_path / card_path.name).write_text(json.dumps(meta))
    told = []
    other = calibrate_file("rollers", tmp_path, data, told.append)
    assert "far_print" not in other and any("another network" in line for line in told)
    assert json.loads((tmp_path / card_path.name).read_text()).get("far_print") is None
