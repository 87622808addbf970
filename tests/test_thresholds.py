"""The shipped models' abstention thresholds bound the wrong-read rate (lab.train
.choose_thresholds, vision.risk.choose at 0.5%, 95%), decided by the table's own code."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from hardware.sim.render import render_scene
from hardware.sim.styles import random_style
from lab import calibrate, trainset
from vision.classcard import model_paths
from vision.classify import TURNS, FaceClassifier
from vision.dicesets import load
from vision.risk import NEVER


@pytest.fixture
def clf(tmp_path):
    onnx_path, meta_path = model_paths("d6")
    shutil.copy(onnx_path, tmp_path / onnx_path.name)
    shutil.copy(meta_path, tmp_path / meta_path.name)
    return FaceClassifier("d6", models_dir=tmp_path)


def test_stored_answers_give_what_the_classifier_reads(clf):
    """``decisions`` (the classifier fed the network's stored answers) reads what
    ``FaceClassifier.classify`` reads of the crops themselves, once and at four turns."""
    rng = np.random.default_rng(4)
    crops = []
    for _ in range(6):
        dice = [("d6", str(int(v))) for v in rng.integers(1, 7, 4)]
        frame, labels = render_scene(load("d6"), dice, rng, style=random_style(rng))
        crops += [clf.crop(frame, (b["x"], b["y"], b["w"], b["h"])) for b in labels]
    crops = np.stack(crops)
    die_t, face_t = calibrate.turn_outputs(clf, crops)
    assert die_t.shape[:2] == face_t.shape[:2] == (TURNS, len(crops))
    for turns in (1, TURNS):
        want = clf.classify(crops, turns)
        got = calibrate.decisions(clf, die_t, face_t, turns)
        assert [(r.die, r.face) for r in got] == [(r.die, r.face) for r in want]
        assert np.allclose([r.confidence for r in got], [r.confidence for r in want], atol=1e-5)
    assert clf.answer_with(None) is None  # the classifier is left as it was


ANSWERS: dict[int, tuple] = {}


def _answers(reads, monkeypatch, groups=None):
    """Crops whose network answers are given: ``reads`` is a list of (truth face 0-5,
    upright face, upright p, other turns' face, other turns' p, none p, die -1 / 0, side
    px); ``groups``: each crop's group (default "rendered")."""
    n = len(reads)
    die_t = np.ones((TURNS, n, 1), np.float32)
    face_t = np.zeros((TURNS, n, 7), np.float32)
    for i, (_, up, p_up, mean, p_other, none, _, _) in enumerate(reads):
        face_t[0, i, up] = p_up
        face_t[1:, i, mean] = p_other
        face_t[:, i, 6] += none
    x = np.zeros((n, 1, 1, 3), np.uint8)
    ANSWERS[id(x)] = (x, die_t, face_t)  # (x kept: its id stays its own)
    monkeypatch.setattr(calibrate, "turn_outputs", lambda clf, crops, **_: ANSWERS[id(crops)][1:])
    return trainset.Crops(
        x,
        np.array([r[6] for r in reads], np.int64),
        np.array([r[0] for r in reads], np.int64),
        groups or ["rendered"] * n,
        np.array([r[7] for r in reads], np.float64),
        [""] * n,
    )


def _die(face, p, wrong=False, side=0.0):
    read = (face + 1) % 6 if wrong else face
    return (face, read, p, read, p, 0.0, 0, side)


def test_one_wrong_read_in_a_thousand_is_spent_three_are_not(clf, monkeypatch):
    """1,000 dice read right at 0.99, 50 at 0.95, and k of those at 0.95 read wrong: one
    wrong in 1,050 keeps the bound (0.45% <= 0.5%) and the threshold comes down to read
    them; three (0.74%) do not, and it stays where none is read wrong."""
    for k, want in ((1, 0.95), (3, 0.99)):
        reads = [_die(i % 6, 0.99) for i in range(1000)]
        reads += [_die(i % 6, 0.95, wrong=i < k) for i in range(50)]
        crops = _answers(reads, monkeypatch)
        out = calibrate.choose_thresholds(clf, crops, crops, log=lambda *_: None)
        assert out["once"]["threshold"] == pytest.approx(want, abs=1e-6)
        assert out["once"]["bound"]["read_wrong"] == (1 if k == 1 else 0)
        assert out["once"]["bound"]["wrong_rate_bound"] == 0.005
        assert out["upright_alone"]
        for key in ("once", "turned"):
            f = out[key]["figures"]["rendered"]
            assert f["dice"] == 1050 and f["wrong_count"] == (1 if k == 1 else 0)
            assert f["read_right"] == pytest.approx((1049 if k == 1 else 1000) / 1050, abs=1e-4)


def test_a_not_a_die_the_table_keeps_holds_the_threshold_above_it(clf, monkeypatch):
    reads = [_die(i % 6, 0.99) for i in range(1000)] + [_die(i % 6, 0.95) for i in range(50)]
    # a crumb read as a 2 at 0.97: no threshold lets it pass
    crumb = (0, 1, 0.97, 1, 0.97, 0.0, -1, 0.0)
    crops = _answers([*reads, crumb], monkeypatch)
    out = calibrate.choose_thresholds(clf, crops, crops, log=lambda *_: None)
    assert out["once"]["threshold"] > 0.97 and out["once"]["not_a_die_passed"] == 0
    assert out["turned"]["threshold"] > 0.97 and out["turned"]["not_a_die_passed"] == 0
    # one the table drops anyway (the classifier sure it is no die): no matter
    crumb = (0, 1, 0.97, 1, 0.97, 0.95, -1, 0.0)
    crops = _answers([*reads, crumb], monkeypatch)
    out = calibrate.choose_thresholds(clf, crops, crops, log=lambda *_: None)
    assert out["once"]["threshold"] == pytest.approx(0.95, abs=1e-6)


def test_small_dice_get_a_threshold_bounded_on_them_alone(clf, monkeypatch):
    """Dice of MIN_READ_PX to SMALL_PX get a threshold of their own, set by the same bound on
    the small dice alone (``choose_small``): one wrong in 1,100 small dice is spent, three
    are not, and the threshold of the other dice does not move for them. Too few small dice
    to show that rate: the bound the card states is what they can show."""
    reads = [_die(i % 6, 0.99) for i in range(1000)] + [_die(i % 6, 0.95) for i in range(50)]
    for k, want in ((1, 0.95), (3, 0.99)):
        small = [_die(i % 6, 0.99, side=30.0) for i in range(1050)]
        small += [_die(i % 6, 0.95, wrong=i < k, side=30.0) for i in range(50)]
        crops = _answers(reads + small, monkeypatch)
        out = calibrate.choose_thresholds(clf, crops, crops, log=lambda *_: None)
        assert out["once"]["threshold"] == pytest.approx(0.95, abs=1e-6)
        for key in ("once", "turned"):
            part = out["small"][key]
            assert part["threshold"] == pytest.approx(want, abs=1e-6)
            assert part["set_on"] == {"rendered": 1100}
            f = out[key]["figures"]["rendered"]
            assert f["wrong_count"] == (1 if k == 1 else 0)
            assert f["read_right"] == pytest.approx((2149 if k == 1 else 2100) / 2150, abs=1e-4)
    few = [_die(i % 6, 0.999, side=30.0) for i in range(20)]
    crops = _answers(reads + few, monkeypatch)
    out = calibrate.choose_thresholds(clf, crops, crops, log=lambda *_: None)
    bound = out["small"]["once"]["bound"]
    assert bound["calibration_dice"] == 20 and bound["wrong_rate_bound"] > 0.1
    # a die under MIN_READ_PX is never read, however sure
    tiny = [_die(i % 6, 0.999, side=20.0) for i in range(6)]
    crops = _answers(reads + tiny, monkeypatch)
    out = calibrate.choose_thresholds(clf, crops, crops, log=lambda *_: None)
    assert out["once"]["figures"]["rendered"]["asked"] == pytest.approx(6 / 1056, abs=1e-4)


def test_the_scenes_of_small_dice_set_only_the_threshold_of_small_dice(clf, monkeypatch):
    """The calibration scenes of small dice only (``SMALL_SCENES``) hold dice of 40 px and
    more too: those do not move the threshold of all dice, their small dice set theirs."""
    reads = [_die(i % 6, 0.99) for i in range(1000)] + [_die(i % 6, 0.95) for i in range(50)]
    small = [_die(i % 6, 0.99, side=30.0) for i in range(1050)]
    small += [_die(i % 6, 0.95, wrong=i < 3, side=30.0) for i in range(50)]
    larger = [_die(i % 6, 0.95, wrong=True, side=44.0) for i in range(5)]
    groups = ["rendered"] * len(reads) + [calibrate.SMALL_SCENES] * (len(small) + len(larger))
    crops = _answers(reads + small + larger, monkeypatch, groups)
    out = calibrate.choose_thresholds(clf, crops, crops, log=lambda *_: None)
    assert out["once"]["threshold"] == pytest.approx(0.95, abs=1e-6)
    assert out["once"]["set_on"] == {"rendered": 1050}
    assert out["small"]["once"]["threshold"] == pytest.approx(0.99, abs=1e-6)
    assert out["small"]["once"]["set_on"] == {calibrate.SMALL_SCENES: 1100}
    # measured, not set on: the larger dice read wrong show in its figures
    assert out["once"]["figures"][calibrate.SMALL_SCENES]["wrong_count"] == 5


def test_upright_reads_taken_alone_count_against_the_four_turn_threshold(clf, monkeypatch):
    """At four turns a die whose upright read alone is sure is read whatever the four-turn
    threshold: three such dice read wrong in 1,050 break the bound at every candidate, and
    the four-turn read then reads nothing, not even upright alone (the card says so)."""
    reads = [_die(i % 6, 0.99) for i in range(1000)] + [_die(i % 6, 0.95) for i in range(47)]
    camera = _answers(reads, monkeypatch)
    # cut as photos are: upright sure (0.999) of a wrong face, the other turns unsure (0.3)
    odd = [(f, (f + 1) % 6, 0.999, (f + 1) % 6, 0.3, 0.0, 0, 0.0) for f in range(3)]
    photo = _answers(reads + odd, monkeypatch)
    out = calibrate.choose_thresholds(clf, camera, photo, log=lambda *_: None)
    assert out["once"]["threshold"] == pytest.approx(0.95, abs=1e-6)
    assert out["turned"]["threshold"] == NEVER and not out["upright_alone"]
    f = out["turned"]["figures"]["rendered"]
    assert f["wrong_count"] == 0 and f["read_right"] == 0.0
    # without them the four-turn read reads (and may take upright reads alone)
    out = calibrate.choose_thresholds(clf, camera, camera, log=lambda *_: None)
    assert out["turned"]["threshold"] <= 1.0 and out["upright_alone"]
    assert out["turned"]["figures"]["rendered"]["read_right"] == 1.0


def _pips_count(clf, reads, monkeypatch):
    """vision.pips.read_many counting, on each crop of ``reads``, the pips of the face it
    is read as: on all the crops at once (as choose_pip_agree asks), or on the crops of
    the indices the table's decision code is handed (lab.calibrate.decisions)."""
    from types import SimpleNamespace

    from vision import classify, pips

    counts = [clf.pip_faces[clf.faces[r[1]]] for r in reads]

    def read_many(crops, again=True):
        return [
            SimpleNamespace(count=counts[int(c)] if np.ndim(c) == 0 else counts[k])
            for k, c in enumerate(crops)
        ]

    monkeypatch.setattr(pips, "read_many", read_many)
    monkeypatch.setattr(classify, "read_many", read_many)


def test_a_best_guess_the_pips_agree_with_is_read_from_a_lower_threshold(clf, monkeypatch):
    """1,000 dice read right at 0.99 and 300 at 0.6: at the threshold 0.95 the 300 are asked
    about; the pips counted agreeing with the best guess, they are read from 0.6, as long as
    the wrong-read rate of all the reads keeps its bound."""
    reads = [_die(i % 6, 0.99) for i in range(1000)] + [_die(i % 6, 0.6) for i in range(300)]
    crops = _answers(reads, monkeypatch)
    _pips_count(clf, reads, monkeypatch)
    clf.use_thresholds(1, 0.95)
    die_t, face_t = calibrate.turn_outputs(clf, crops.x)
    out = calibrate.choose_pip_agree(clf, crops, die_t, face_t, 1, 0.5, 0.0)
    assert out["pip_agree_threshold"] == pytest.approx(0.6, abs=1e-6)
    assert out["pip_agree_bound"]["read"] == 1300 and out["pip_agree_bound"]["read_wrong"] == 0
    # read at the table with that card: the 300 are read, and right
    clf._pip_agree[1] = out["pip_agree_threshold"]
    got = calibrate.decisions(clf, die_t, face_t, 1)
    assert all(r.face == clf.faces[i % 6] for i, r in enumerate(got[1000:]))
    clf._pip_agree[1] = None

    # 20 of the 300 read wrong with the pips agreeing (a pip counter fooled as the network
    # is): 20 wrong in 1,300 breaks the bound at 0.6, and nothing is read lower down
    reads = [_die(i % 6, 0.99) for i in range(1000)]
    reads += [_die(i % 6, 0.6, wrong=i < 20) for i in range(300)]
    crops = _answers(reads, monkeypatch)
    _pips_count(clf, reads, monkeypatch)
    die_t, face_t = calibrate.turn_outputs(clf, crops.x)
    out = calibrate.choose_pip_agree(clf, crops, die_t, face_t, 1, 0.5, 0.0)
    assert out["pip_agree_threshold"] is None
    assert "pip_counts" not in vars(clf) and clf._pip_agree[1] is None  # left as it was


def test_pips_agreeing_on_a_crumb_hold_the_pip_threshold_above_it(clf, monkeypatch):
    reads = [_die(i % 6, 0.99) for i in range(1000)] + [_die(i % 6, 0.6) for i in range(300)]
    crumb = (0, 1, 0.7, 1, 0.7, 0.0, -1, 0.0)  # no die, read as a 2 at 0.7, two marks on it
    crops = _answers([*reads, crumb], monkeypatch)
    _pips_count(clf, [*reads, crumb], monkeypatch)
    clf.use_thresholds(1, 0.95)
    die_t, face_t = calibrate.turn_outputs(clf, crops.x)
    out = calibrate.choose_pip_agree(clf, crops, die_t, face_t, 1, 0.5, 0.0)
    assert out["pip_agree_threshold"] is None or out["pip_agree_threshold"] > 0.7


def test_small_dice_the_pips_agree_with_are_read_under_the_small_threshold(clf, monkeypatch):
    """A photo's dice under SMALL_PX are read at their own threshold (0.95 here); those the
    classifier reads from a lower confidence because the pips agree (0.6) are read too from
    a threshold set on the small dice alone (``choose_small_pips``), while their wrong-read
    rate keeps its bound; 20 wrong among them break it, and none is read so."""
    large = [_die(i % 6, 0.99) for i in range(1000)]
    for k, want in ((0, 0.6), (20, None)):
        small = [_die(i % 6, 0.99, side=30.0) for i in range(1000)]
        small += [_die(i % 6, 0.6, wrong=i < k, side=30.0) for i in range(300)]
        reads = large + small
        crops = _answers(reads, monkeypatch)
        _pips_count(clf, reads, monkeypatch)
        clf.use_thresholds(1, 0.95)
        die_t, face_t = calibrate.turn_outputs(clf, crops.x)
        out = calibrate.choose_small_pips(clf, crops, die_t, face_t, 1, 0.95, 0.5)
        got = out["pip_agree_threshold"]
        assert got == want if want is None else got == pytest.approx(want, abs=1e-6)
        assert out["pip_agree_bound"]["calibration_dice"] == 1300  # the small dice alone
        assert clf._pip_agree[1] is None  # left as it was
