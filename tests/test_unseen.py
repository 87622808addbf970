"""Floors under the d6 thresholds set on unseen dice (lab.unseen): each source's train and
calibrate photos read by a fold that never saw it, a floor where those dice are read wrong,
and a card whose thresholds sit on its floors and keep them when calibrated again."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import realdicekit

from lab import splits
from lab.calibrate import Calibration, calibrate_file
from lab.train import kept_floors
from lab.trainset import Crops
from lab.unseen import KEYS, PARTS, Answers, floors, fold_answers, unseen_crops
from vision.classcard import model_paths, second_path
from vision.classify import TURNS


@pytest.fixture(scope="module")
def realdice(tmp_path_factory):
    root = tmp_path_factory.mktemp("realdice")
    realdicekit.build(root)
    return root


def _answers(conf: np.ndarray, face: np.ndarray, truth: np.ndarray, side: float) -> Answers:
    """Answers of d6 crops whose best guess is ``face`` (index) at confidence ``conf``, the
    same at every turn, by both networks."""
    n = len(conf)
    face_p = np.tile(((1.0 - conf) / 6.0)[:, None], (1, 7)).astype(np.float32)
    face_p[np.arange(n), face] = conf
    die_p = np.ones((n, 1), np.float32)
    turned = (np.repeat(die_p[None], TURNS, 0), np.repeat(face_p[None], TURNS, 0))
    crops = Crops(
        np.zeros((n, 64, 64, 3), np.uint8),
        np.zeros(n, np.int64),
        truth.astype(np.int64),
        ["PXL_phone"] * (n // 2) + ["i_single"] * (n - n // 2),
        np.full(n, side),
        [""] * n,
    )
    return Answers(crops, turned, turned, ([None] * n, [None] * n))


def test_a_floor_sits_above_the_unseen_dice_read_wrong():
    rng = np.random.default_rng(0)
    n = 1200
    truth = rng.integers(0, 6, n)
    conf = np.full(n, 0.97, np.float32)
    face = truth.copy()
    wrong = np.arange(0, 60, 5)  # 12 dice read wrong at 0.9: far over 0.5% of 1,200
    face[wrong] = (truth[wrong] + 1) % 6
    conf[wrong] = 0.9
    big = _answers(conf, face, truth, side=80.0)
    got = floors(big, big, per_source=None)
    for key in ("once", "turned", "joint"):
        assert 0.9 < got[key]["threshold"] <= 0.97 + 1e-6, key
        assert got[key]["bound"]["read_wrong"] == 0
        assert got[key]["set_on"] == {"PXL_phone": n // 2, "i_single": n - n // 2}
    # no small dice here: their floors rest on none and read nothing
    assert got["small_once"]["bound"]["calibration_dice"] == 0

    # the same dice all read right: every one read, down to the least sure
    right = _answers(conf, truth, truth, side=80.0)
    joint = floors(right, right, per_source=None)["joint"]
    assert joint["threshold"] == pytest.approx(0.9) and joint["bound"]["read"] == n

    # without one source: the floors rest on the other's dice alone
    alone = floors(big.without("PXL_phone"), big.without("PXL_phone"), per_source=None)
    assert alone["once"]["set_on"] == {"i_single": n - n // 2}
    assert set(alone) == set(KEYS)
    # each source weighs alike: at most PER_SOURCE dice of each
    capped = floors(big, big, per_source=100)
    assert capped["joint"]["set_on"] == {"PXL_phone": 100, "i_single": 100}
    assert big.capped(100).crops.group.count("i_single") == 100


def test_unseen_dice_come_from_train_and_calibrate_photos_read_by_their_own_fold(
    realdice, tmp_path
):
    parts = {f"{k[0]}/{k[1]}": e.part for k, e in splits.entries(realdice).items()}
    crops = unseen_crops(realdice, detector=None)
    for path in ("camera", "photo"):
        used = {parts[f] for f in crops[path].file}
        assert used == set(PARTS), (path, used)  # never a judge photo
    # a fold per source: the shipped networks stand in for the folds' own
    onnx, card = model_paths("d6")
    folds = tmp_path / "folds"
    for source in set(crops["photo"].group):
        (folds / source).mkdir(parents=True)
        for f in (onnx, card, second_path("d6")):
            shutil.copy(f, folds / source / f.name)
    got = fold_answers(folds, crops["photo"], log=lambda *_: None)
    n = len(crops["photo"])
    assert got.first[1].shape == (TURNS, n, 7) and got.joint[1].shape == (TURNS, n, 7)
    first, again = got.pips
    assert len(first) == len(again) == n
    # looking again only adds counts where the first look gave none
    assert all(a == f for f, a in zip(first, again, strict=True) if f is not None)
    # the joint answers are the mean of two networks: not the first's alone
    assert not np.allclose(got.first[1], got.joint[1])
    # a source without a fold is refused
    shutil.rmtree(folds / "PXL_phone")
    with pytest.raises(FileNotFoundError, match="PXL_phone"):
        fold_answers(folds, crops["photo"], log=lambda *_: None)


def test_a_card_keeps_its_floors_and_its_thresholds_sit_on_them(realdice, tmp_path):
    from lab.trainset import real_calibration

    onnx, card_path = model_paths("d6")
    for f in (onnx, card_path, second_path("d6")):
        shutil.copy(f, tmp_path / f.name)
    data = Calibration(None, None, real_calibration(realdice, size=64))
    plain = calibrate_file("d6", tmp_path, data, lambda *_: None, realdice, unseen={})
    assert "unseen" not in plain
    high = {key: {"threshold": 0.995} for key in KEYS}
    card = calibrate_file("d6", tmp_path, data, lambda *_: None, realdice, unseen=high)
    assert card["threshold"] >= 0.995 and card["turned"]["threshold"] >= 0.995
    assert card["joint"]["threshold"] >= 0.995
    assert card["small"]["once"]["threshold"] >= 0.995
    assert card["small"]["turned"]["threshold"] >= 0.995
    assert card["joint"]["small"]["threshold"] >= 0.995
    assert "unseen" in card["calibration"]["rule"]
    # calibrated again without saying: the card's own floors hold
    again = calibrate_file("d6", tmp_path, data, lambda *_: None, realdice)
    assert again["unseen"] == high and again["joint"]["threshold"] >= 0.995
    assert json.loads((tmp_path / card_path.name).read_text())["unseen"] == high
    # {}: none, the thresholds as before
    none = calibrate_file("d6", tmp_path, data, lambda *_: None, realdice, unseen={})
    assert "unseen" not in none and none["threshold"] == plain["threshold"]


def test_loso_sets_each_folds_floors_without_it_and_writes_a_card_over_all(realdice, tmp_path):
    """lab.loso --unseen: a fold's floors rest on the other sources' unseen dice only;
    --unseen-write: the floors of every source go under a card's thresholds and into it."""
    from lab.loso import CachedDetector, _unseen
    from lab.trainset import real_calibration
    from vision.detect import Detector

    onnx, card_path = model_paths("d6")
    folds = tmp_path / "folds"
    for source in splits.SOURCES:
        (folds / source).mkdir(parents=True)
        for f in (onnx, card_path, second_path("d6")):
            shutil.copy(f, folds / source / f.name)
    cal = Calibration(None, None, real_calibration(realdice, size=64))
    quiet = lambda *_: None  # noqa: E731
    floors_for = _unseen(realdice, CachedDetector(Detector()), folds, cal, "tag", None, quiet)
    got = floors_for("PXL_phone")
    assert set(got) == set(KEYS)
    assert "PXL_phone" not in got["joint"]["set_on"] and got["joint"]["set_on"]
    out = tmp_path / "models"
    out.mkdir()
    for f in (onnx, card_path, second_path("d6")):
        shutil.copy(f, out / f.name)
    assert _unseen(realdice, CachedDetector(Detector()), folds, cal, "tag", out, quiet) is None
    card = json.loads((out / card_path.name).read_text())
    assert card["unseen"]["folds"] == "tag" and card["unseen"]["parts"] == list(PARTS)
    assert "PXL_phone" in card["unseen"]["joint"]["set_on"]
    assert card["joint"]["threshold"] >= card["unseen"]["joint"]["threshold"]


def test_a_network_trained_again_keeps_the_floors_of_the_card_it_replaces(tmp_path):
    """``lab.train`` writes a fresh card: the floors (set by lab.unseen on dice no network of
    the recipe saw) come from the card it replaces, else from the one beside the network it
    went on from; a card without them, or one that can't be read, gives none."""
    floors = {"once": {"threshold": 0.98}, "joint": {"threshold": 0.86}}
    shipped, fresh = tmp_path / "shipped", tmp_path / "fresh"
    shipped.mkdir()
    fresh.mkdir()
    (shipped / "classifier-d6.json").write_text(json.dumps({"threshold": 0.9, "unseen": floors}))
    assert kept_floors("d6", shipped) == floors
    assert kept_floors("d6", fresh, shipped / "classifier-d6.pt") == floors
    assert kept_floors("d6", fresh) is None
    assert kept_floors("rollers", shipped, shipped / "classifier-rollers.pt") is None
    (fresh / "classifier-d6.json").write_text("{not json")
    assert kept_floors("d6", fresh, shipped / "classifier-d6.pt") == floors
    (fresh / "classifier-d6.json").write_text(json.dumps({"threshold": 0.9}))
    assert kept_floors("d6", fresh) is None
