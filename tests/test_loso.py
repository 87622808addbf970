"""Leave-one-source-out (lab.loso, ``dicetray eval --loso``) end to end on a small stand-in
for the real sets, with a stub trainer (no network is trained in the tests): every source is
left out once, the trainer never gets it, its thresholds are set without its photos, and all
of its photos are read on both paths."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import realdicekit

from lab import loso
from lab.calibrate import calibration_data
from vision.classcard import model_paths
from vision.detect import Detector


@pytest.fixture(scope="module")
def realdice(tmp_path_factory):
    root = tmp_path_factory.mktemp("realdice")
    return root, realdicekit.build(root)


class Spy:
    """A detector that counts what it is asked."""

    def __init__(self):
        self.detector = Detector()
        self.calls = 0

    def __getattr__(self, name):
        method = getattr(self.detector, name)

        def call(*a, **kw):
            self.calls += 1
            return method(*a, **kw)

        return call


def test_each_source_is_left_out_once_and_read_whole(realdice, tmp_path):
    root, dice = realdice
    trained = {}

    def stub_trainer(sources, folder):
        # stands in for fine-tuning: the shipped network, as a fold's network
        trained[folder.name] = list(sources)
        for path in model_paths("d6"):
            shutil.copy(path, folder / path.name)

    spy = Spy()
    detector = loso.CachedDetector(spy, tmp_path / "detections.pkl")
    cal = calibration_data("d6", 64, 0, 0, 1, 1, root, detector=detector)
    report = loso.run(root, stub_trainer, detector, tmp_path / "folds", cal, log=lambda *_: None)

    assert list(report["folds"]) == [s for s in loso.SOURCES if s in dice]
    for source, fold in report["folds"].items():
        assert source not in trained[source] and set(trained[source]) == set(dice) - {source}
        # its thresholds were set without its photos
        assert source not in fold["calibrated_on"]
        for path in ("photo", "camera", "boxes_photo", "boxes_camera"):
            f = fold["figures"][path]
            assert f["dice"] == dice[source]  # every photo of it, whatever its part
            assert 0 <= f["wrong"] <= 1 and abs(f["right"] + f["asked"] + f["wrong"] - 1) < 1e-9
        b = fold["figures"]["boxes_photo"]
        assert b["found"] == 1.0
        # the best guesses: every die read right is one, and the ceiling lies under them
        assert b["right"] <= b["best_guess"] and 0 <= b["ceiling"] <= b["best_guess"]
        assert b["guess_counts"][0] == dice[source]
    # the stand-in's dice are clear rendered ones: the detector finds most of them
    assert report["all"]["photo"]["found"] >= 0.8
    assert report["all"]["photo"]["dice"] == sum(dice.values())
    pooled = report["all"]["boxes_photo"]["guess_counts"]
    assert pooled[0] == sum(dice.values()) and pooled[2] <= pooled[1] <= pooled[0]
    text = loso.format_report(report, "test")
    assert "all sources" in text and "SHIPPED detector" in text and "ceiling" in text
    for source in dice:
        assert source in text

    # the detector is asked once per photo and pass: a second run asks it nothing
    detector.save()
    again = loso.CachedDetector(spy, tmp_path / "detections.pkl")
    calls = spy.calls
    loso.run(root, stub_trainer, again, tmp_path / "folds2", cal, ["numeric_tube"], lambda *_: 0)
    assert spy.calls == calls and again.asked == 0

    # reuse: a fold already trained is calibrated and scored again, not trained again
    trained.clear()
    folds = tmp_path / "folds"
    redo = loso.run(root, stub_trainer, again, folds, cal, ["numeric_tube"], lambda *_: 0, True)
    assert trained == {} and redo["folds"]["numeric_tube"]["reused"] is True
    assert redo["folds"]["numeric_tube"]["figures"] == report["folds"]["numeric_tube"]["figures"]
    (folds / "PXL_phone" / "classifier-d6.onnx").unlink()  # a fold cut short: trained again
    loso.run(root, stub_trainer, again, folds, cal, ["PXL_phone"], lambda *_: 0, True)
    assert list(trained) == ["PXL_phone"]


def test_camera_spoil_keeps_the_die_and_changes_the_look():
    rng = np.random.default_rng(2)
    crop = np.full((64, 64, 3), 235, np.uint8)
    crop[28:36, 28:36] = 20  # one black pip on a white die
    outs = [loso.camera_spoil(crop, rng) for _ in range(40)]
    assert all(o.shape == crop.shape and o.dtype == np.uint8 for o in outs)
    assert np.mean([np.abs(o.astype(int) - crop).mean() > 2 for o in outs]) > 0.5
    # the pip is still darker than the body in nearly all of them
    assert np.mean([o[30:34, 30:34].mean() < o[5:15, 5:15].mean() for o in outs]) > 0.9


def test_dicetray_eval_loso_without_photos_says_so(tmp_path, capsys):
    from lab.cli import main_eval

    assert main_eval(["--loso", "--realdice", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert "no real photo set" in err and len(err.strip().splitlines()) == 1


def test_a_fold_heard_with_a_second_network_shows_the_threshold_of_the_two():
    row = {"dice": 10, "found": 1.0, "right": 0.5, "asked": 0.5, "wrong": 0.0}
    figures = dict.fromkeys(("photo", "camera", "boxes_photo", "boxes_camera"), row)
    fold = {"figures": figures, "threshold_once": 0.94, "threshold_turned": 0.88}
    assert "joint" not in loso.format_fold("numeric_tube", fold)
    fold["threshold_joint"] = 0.73
    assert loso.format_fold("numeric_tube", fold).endswith("0.940/0.880 joint 0.730")


def test_an_unseen_run_of_some_sources_leaves_the_other_folds_calibrated(tmp_path):
    """``--unseen --sources S`` calibrates a fresh copy of S's folds only: the copies of other
    sources, calibrated by an earlier run, are not put back to their uncalibrated cards."""
    for name in ("PXL_phone", "i_single"):
        (tmp_path / "folds" / name).mkdir(parents=True)
        (tmp_path / "folds" / name / "classifier-d6.json").write_text("as trained")
    (tmp_path / "unseen" / "PXL_phone").mkdir(parents=True)
    (tmp_path / "unseen" / "PXL_phone" / "classifier-d6.json").write_text("calibrated")
    out = loso.unseen_copy(tmp_path / "folds", tmp_path / "unseen", ["i_single"])
    assert out == tmp_path / "unseen"
    assert (out / "PXL_phone" / "classifier-d6.json").read_text() == "calibrated"
    assert (out / "i_single" / "classifier-d6.json").read_text() == "as trained"
    loso.unseen_copy(tmp_path / "folds", out, None)  # every source: each copied afresh
    assert (out / "PXL_phone" / "classifier-d6.json").read_text() == "as trained"


def test_the_loose_recipe_cuts_real_crops_at_other_scales_of_the_box():
    from lab.photos import _cut_row

    img = np.zeros((300, 300, 3), np.uint8)
    img[110:190, 110:190] = 255  # a white die of 80 px, its box labelled tight
    row = {"x": 110, "y": 110, "w": 80, "h": 80}
    rng = np.random.default_rng(0)

    def white(zoom):
        crop = _cut_row(img, row, 64, rng, 0.0, 0.0, antialias=False, zoom=zoom)
        return float((crop > 127).mean())

    plain = white(None)
    assert plain == pytest.approx(1 / 1.35**2, abs=0.03)  # the die as the table cuts it
    assert white((1.6, 1.6)) == pytest.approx(plain / 1.6**2, abs=0.02)  # a looser box
    assert white((0.85, 0.85)) == pytest.approx(min(1.0, plain / 0.85**2), abs=0.03)
    assert loso.RECIPES["loose"]["zoom"] == (0.85, 1.6)
    shares = [white(loso.RECIPES["loose"]["zoom"]) for _ in range(200)]
    assert min(shares) < 0.24 < 0.6 < max(shares)  # copies from both ends of the range


def test_a_cached_base_drawn_with_other_side_marks_is_refused_not_mixed(tmp_path):
    folder = tmp_path / "base"
    folder.mkdir()
    (folder / "classifier-d6.pt").write_bytes(b"a network")
    np.savez(folder / "crops.npz", x=np.zeros((1, 64, 64, 3), np.uint8))
    (folder / "base.json").write_text('{"seconds": 300, "side_marks": 0.4}', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"side marks 0\.4, not 0\.0: give another --cache"):
        loso.Base(folder).ensure(1)
    same = loso.Base(folder, side_marks=0.4)
    same.ensure(1)  # the same drawing: kept, nothing trained
    assert same.seconds == 300
    (folder / "base.json").write_text('{"seconds": 305}', encoding="utf-8")  # before the option
    plain = loso.Base(folder)
    plain.ensure(1)
    assert plain.seconds == 305
