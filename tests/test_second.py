"""A second network on reads at four turns: each turn's answers are the mean of the two
networks' (``FaceClassifier.use_second``), the card's ``joint`` part holds the thresholds set on
that mean (``lab.calibrate.calibrate_joint``), and the table hears it only when the card vouches for
that very file."""

from __future__ import annotations

import json
import shutil

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from hardware.sim.render import render_scene
from hardware.sim.styles import random_style
from lab import calibrate, trainset
from lab.loso import with_second
from vision.classcard import model_paths, second_path
from vision.classify import TURNS, FaceClassifier
from vision.dicesets import load
from vision.frameread import read_boxes
from vision.onnx import file_sha256


def _always(path, face: int, p: float = 0.9) -> None:
    """An ONNX network of the d6 classifier's inputs and outputs that gives every crop face
    ``face`` at probability ``p`` (the rest spread over the other six classes)."""
    rest = np.log((1 - p) / 6)
    logits = np.full(7, rest, np.float32)
    logits[face] = np.log(p)
    init = [
        helper.make_tensor("wf", TensorProto.FLOAT, [3, 7], np.zeros(21, np.float32)),
        helper.make_tensor("bf", TensorProto.FLOAT, [7], logits),
        helper.make_tensor("wd", TensorProto.FLOAT, [3, 1], np.zeros(3, np.float32)),
        helper.make_tensor("bd", TensorProto.FLOAT, [1], np.zeros(1, np.float32)),
    ]
    nodes = [
        helper.make_node("GlobalAveragePool", ["crops"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"]),
        helper.make_node("Gemm", ["flat", "wf", "bf"], ["face_logits"]),
        helper.make_node("Softmax", ["face_logits"], ["face_prob"], axis=1),
        helper.make_node("Gemm", ["flat", "wd", "bd"], ["die_logits"]),
        helper.make_node("Softmax", ["die_logits"], ["die_prob"], axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "always",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, 64, 64])],
        [
            helper.make_tensor_value_info("die_prob", TensorProto.FLOAT, ["n", 1]),
            helper.make_tensor_value_info("face_prob", TensorProto.FLOAT, ["n", 7]),
        ],
        init,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


@pytest.fixture
def models(tmp_path):
    """A models folder holding the shipped d6 classifier and its card."""
    for f in model_paths("d6"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def _crops(n_scenes: int = 4, seed: int = 4):
    """Labelled d6 crops of rendered trays: (crops, die indices, face indices)."""
    rng = np.random.default_rng(seed)
    clf = FaceClassifier("d6")
    crops, faces = [], []
    for _ in range(n_scenes):
        dice = [("d6", str(int(v))) for v in rng.integers(1, 7, 5)]
        frame, labels = render_scene(load("d6"), dice, rng, style=random_style(rng))
        crops += [clf.crop(frame, (b["x"], b["y"], b["w"], b["h"])) for b in labels]
        faces += [int(b["face"]) - 1 for b in labels]
    return np.stack(crops), np.zeros(len(crops), np.int64), np.array(faces, np.int64)


def _vouch(models, threshold: float = 0.6, sha: str | None = None, small=None) -> None:
    """Write a ``joint`` part naming the second network into the card of ``models`` (with a
    threshold of small dice, ``small``, when given)."""
    card = model_paths("d6", models)[1]
    meta = json.loads(card.read_text(encoding="utf-8"))
    second = second_path("d6", models)
    meta["joint"] = {
        "network": second.name,
        "sha256": sha or file_sha256(second),
        "threshold": threshold,
        "pip_agree_threshold": None,
        "upright_alone": False,
    }
    if small is not None:
        meta["joint"]["small"] = {"threshold": small}
    card.write_text(json.dumps(meta), encoding="utf-8")


def test_at_four_turns_each_turn_hears_the_mean_of_the_two_networks(models):
    crops, _, _ = _crops(2)
    alone = FaceClassifier("d6", models_dir=models)
    assert not alone.second
    _always(second_path("d6", models), face=2)
    both = FaceClassifier("d6", models_dir=models)
    both.use_second(second_path("d6", models))
    assert both.second
    # read once: the first network alone, as before (the camera's read keeps its speed)
    assert np.allclose(both.probabilities(crops, 1)[1], alone.probabilities(crops, 1)[1])
    # at four turns: the mean of the two at every turn, so a 3 at 0.9 pulls every die
    face_1 = alone.probabilities(crops, TURNS)[1]
    face_2 = both.probabilities(crops, TURNS)[1]
    always = np.full(7, 0.1 / 6)
    always[2] = 0.9
    assert np.allclose(face_2, (face_1 + always) / 2, atol=1e-5)
    assert np.allclose(
        both.answers(crops, both=True)[1][:, 2],
        (alone.answers(crops)[1][:, 2] + 0.9) / 2,
        atol=1e-5,
    )


def test_the_table_hears_a_second_network_only_where_the_card_vouches_for_it(models):
    _always(second_path("d6", models), face=2)
    assert not FaceClassifier("d6", models_dir=models).second  # no "joint" in the card
    _vouch(models, threshold=0.6)
    clf = FaceClassifier("d6", models_dir=models)
    assert clf.second and clf._cuts[TURNS][0] == 0.6 and not clf.upright_alone
    # the one-read thresholds are the card's own
    assert clf._cuts[1][0] == json.loads(model_paths("d6", models)[1].read_text())["threshold"]
    # not when asked for the network alone, for one threshold, or for another file
    assert not FaceClassifier("d6", models_dir=models, second=False).second
    assert not FaceClassifier("d6", models_dir=models, threshold=0.9).second
    _vouch(models, sha="0" * 64)
    clf = FaceClassifier("d6", models_dir=models)
    assert not clf.second
    turned = json.loads(model_paths("d6", models)[1].read_text())["turned"]["threshold"]
    assert clf._cuts[TURNS][0] == turned  # read alone, by the thresholds set for it alone


def test_a_second_network_like_the_first_sets_the_thresholds_the_first_sets(models):
    """Calibrated with a copy of itself as the second network, the mean is the network's own
    answer: the card's ``joint`` threshold is its four-turn one, with the same bound."""
    x, die, face = _crops(6)
    data = calibrate.Calibration(trainset.Crops.of(x, die, face, "rendered"), None, {})
    card = calibrate.calibrate_file("d6", models, data, log=lambda *_: None)
    assert "joint" not in card
    shutil.copy(model_paths("d6", models)[0], second_path("d6", models))
    card = calibrate.calibrate_file("d6", models, data, log=lambda *_: None)
    joint = card["joint"]
    assert joint["network"] == "classifier-d6-second.onnx"
    assert joint["sha256"] == file_sha256(second_path("d6", models))
    assert joint["threshold"] == card["turned"]["threshold"]
    assert joint["bound"] == card["turned"]["bound"]
    assert joint["upright_alone"] == card.get("upright_alone", True)
    # and the threshold of small dice read by the two, the first network's own for them
    assert joint["small"]["threshold"] == card["small"]["turned"]["threshold"]
    assert FaceClassifier("d6", models_dir=models).small_joint
    # the same dice taken for small ones (30 px): a floor set on unseen dice (lab.unseen's
    # ``small_joint``) over the threshold they set lifts it
    small = trainset.Crops(
        x, die, face, ["rendered"] * len(x), np.full(len(x), 30.0), [""] * len(x)
    )
    small_data = calibrate.Calibration(small, None, {})
    low = calibrate.calibrate_file("d6", models, small_data, log=lambda *_: None, unseen={})
    assert low["joint"]["small"]["threshold"] < 0.99 and "floor" not in low["joint"]["small"]
    floors = {"small_joint": {"threshold": 0.99}}
    high = calibrate.calibrate_file("d6", models, small_data, log=lambda *_: None, unseen=floors)
    assert high["joint"]["small"]["threshold"] == high["joint"]["small"]["floor"] == 0.99
    assert FaceClassifier("d6", models_dir=models).second
    # how the second network was made stays on the card while it is the same file
    path = model_paths("d6", models)[1]
    card["joint"]["trained"] = {"init": "a copy of the first"}
    path.write_text(json.dumps(card), encoding="utf-8")
    again = calibrate.calibrate_file("d6", models, data, log=lambda *_: None)
    assert again["joint"]["trained"] == {"init": "a copy of the first"}
    _always(second_path("d6", models), face=2)
    assert (
        "trained" not in calibrate.calibrate_file("d6", models, data, log=lambda *_: None)["joint"]
    )


def test_a_second_network_sure_of_the_wrong_face_is_not_trusted(models):
    """A second network that calls every die a 3 at 0.99: the thresholds of the mean read no
    die wrong beyond the bound, so the calibration dice that are no 3 are not read as 3s."""
    x, die, face = _crops(6)
    data = calibrate.Calibration(trainset.Crops.of(x, die, face, "rendered"), None, {})
    _always(second_path("d6", models), face=2, p=0.99)
    joint = calibrate.calibrate_file("d6", models, data, log=lambda *_: None)["joint"]
    assert joint["bound"]["read_wrong"] == 0  # (too few dice to spend a wrong read on)
    clf = FaceClassifier("d6", models_dir=models)
    assert clf.second
    read = clf.classify(list(x), TURNS)
    wrong = [r.face for r, f in zip(read, face, strict=True) if r.face and r.face != str(f + 1)]
    assert wrong == []


def test_leave_one_source_out_folds_gain_the_other_recipes_network(tmp_path):
    first, second = tmp_path / "small", tmp_path / "big"
    for src in ("a", "b"):
        (first / src).mkdir(parents=True)
        (second / src).mkdir(parents=True)
        for f in model_paths("d6", first / src):
            f.write_text(f"{src} first {f.suffix}")
        model_paths("d6", second / src)[0].write_text(f"{src} second")
    out = with_second(first, second, tmp_path / "both")
    for src in ("a", "b"):
        assert second_path("d6", out / src).read_text() == f"{src} second"
        assert model_paths("d6", out / src)[0].read_text() == f"{src} first .onnx"
    # a card calibrated with this pair (its joint names the second network) is kept when the
    # folds are put together again; one that was not, or whose first network changed, is not
    calibrated = {"joint": {"sha256": file_sha256(second_path("d6", out / "a"))}}
    for src in ("a", "b"):
        model_paths("d6", out / src)[1].write_text(json.dumps(calibrated))
    model_paths("d6", first / "b")[0].write_text("b first, trained again")
    with_second(first, second, out)
    assert json.loads(model_paths("d6", out / "a")[1].read_text()) == calibrated
    assert model_paths("d6", out / "b")[1].read_text() == "b first .json"
    model_paths("d6", second / "b")[0].unlink()
    with pytest.raises(FileNotFoundError, match="no fold b"):
        with_second(first, second, tmp_path / "again")


def test_a_die_in_doubt_on_a_still_tray_is_read_again_only_once(monkeypatch):
    """The camera reads a die in doubt again at four turns on a still frame; on the next
    still frame the same die, in the same place, keeps that reading (``held``) instead of
    costing four more reads of each network. A die elsewhere is read again."""
    rng = np.random.default_rng(7)
    frame, labels = render_scene(load("d6"), [("d6", "3"), ("d6", "5")], rng)
    boxes = [(b["x"], b["y"], b["w"], b["h"]) for b in labels]
    clf = FaceClassifier("d6")
    clf.use_thresholds(1, 1.01)  # the one read is in doubt about every die
    calls = []
    classify = clf._classify

    def counted(crops, turns=1, quick=False):
        if not (quick and turns == TURNS):  # (not the tight crops' check)
            calls.append((len(crops), turns))
        return classify(crops, turns, quick)

    monkeypatch.setattr(clf, "_classify", counted)
    held: list = []
    first = read_boxes(clf, frame, boxes, retry=True, held=held)
    assert calls == [(2, 1), (2, TURNS)] and len(held) == 2
    assert sorted(r.face for r in first) == ["3", "5"]
    again = read_boxes(clf, frame, boxes, retry=True, held=held)
    assert calls[2:] == [(2, 1)] and again == first
    x, y, w, h = boxes[0]
    moved = [(x + w / 2, y, w, h), boxes[1]]
    read_boxes(clf, frame, moved, retry=True, held=held)
    assert calls[3:] == [(2, 1), (1, TURNS)]


def test_with_a_second_network_a_still_tray_is_read_as_a_photo_is(models):
    """On a still frame every die is read again at four turns by both networks, and that
    reading stands: a second network sure of another face leaves a die the first network
    alone is sure of unread (asked), where without it the one read would stand."""
    rng = np.random.default_rng(7)
    frame, labels = render_scene(load("d6"), [("d6", "3"), ("d6", "5")], rng)
    boxes = [(b["x"], b["y"], b["w"], b["h"]) for b in labels]
    alone = FaceClassifier("d6", models_dir=models)
    assert sorted(r.face for r in read_boxes(alone, frame, boxes, retry=True)) == ["3", "5"]
    _always(second_path("d6", models), face=2, p=0.99)
    _vouch(models, threshold=0.73)
    both = FaceClassifier("d6", models_dir=models)
    moving = read_boxes(both, frame, boxes)  # a moving frame: the one read, as before
    assert sorted(r.face for r in moving) == ["3", "5"]
    still = read_boxes(both, frame, boxes, retry=True)
    assert [r.face for r, b in zip(still, labels, strict=True) if b["face"] == "3"] == ["3"]
    assert [r.face for r, b in zip(still, labels, strict=True) if b["face"] == "5"] == [None]


def test_dice_under_small_px_are_read_by_the_first_network_alone(models):
    """The threshold of dice under SMALL_PX (the card's ``small``) was set on the first
    network's confidences: such dice are read by it alone, photo and still tray alike, while
    larger dice hear the second network (here one sure of a 3 on every crop)."""
    from vision.pipeline import SMALL_PX, Recognizer

    for f in ("detector.onnx", "detector.json"):
        shutil.copy(model_paths("d6")[0].with_name(f), models / f)
    _always(second_path("d6", models), face=2, p=0.99)
    _vouch(models, threshold=0.73)
    ds = load("d6")
    rng = np.random.default_rng(11)
    for px, heard in ((20, False), (48, True)):
        style = random_style(rng, (px, px + 1))
        frame, _ = render_scene(ds, [("d6", "5"), ("d6", "6")], rng, style=style)
        rec = Recognizer(ds, models_dir=models)
        assert rec.classifier.second and not rec.classifier.small_joint
        found = rec.read(frame, fine=True).dice
        assert len(found) == 2 and all(max(d.w, d.h) < SMALL_PX for d in found) != heard
        rec.read(frame)
        still = sorted(str(d.face) for d in rec.read(frame).dice)
        want = ["None", "None"] if heard else ["5", "6"]
        assert sorted(str(d.face) for d in found) == still == want


def test_a_photos_small_dice_hear_both_networks_where_the_card_set_their_threshold_so(models):
    """A card whose ``joint`` part sets a threshold of small dice on the two networks' mean
    (``lab.calibrate.calibrate_joint``): a photo's dice under SMALL_PX are read by both at four
    turns, at that threshold (here a first network that takes every crop for a 5 at 0.6, a
    second sure of a 3: their mean reads the 3s shown at about 0.53), and so are a still
    camera tray's, read again at four turns; a moving frame's are the first network's alone
    (not sure of its 5)."""
    from vision.pipeline import SMALL_PX, Recognizer

    for f in ("detector.onnx", "detector.json"):
        shutil.copy(model_paths("d6")[0].with_name(f), models / f)
    _always(model_paths("d6", models)[0], face=4, p=0.6)
    _always(second_path("d6", models), face=2, p=0.99)
    ds = load("d6")
    rng = np.random.default_rng(11)
    style = random_style(rng, (20, 21))
    frame, _ = render_scene(ds, [("d6", "3"), ("d6", "3")], rng, style=style)
    first_cut = FaceClassifier(ds, models_dir=models, second=False).small_threshold(TURNS)
    for small, want in ((0.3, ["3", "3"]), (0.999, ["None", "None"])):
        _vouch(models, threshold=0.3, small=small)
        rec = Recognizer(ds, models_dir=models)
        assert rec.classifier.small_joint and rec.classifier.small_threshold(TURNS) == small
        assert rec._whole.small_threshold(TURNS) == first_cut  # the first network's own
        found = rec.read(frame, fine=True).dice
        assert len(found) == 2 and all(max(d.w, d.h) < SMALL_PX for d in found)
        assert sorted(str(d.face) for d in found) == want
        rec.reset()
        rec.read(frame)
        still = rec.read(frame).dice
        assert still and all(str(d.face) == want[0] for d in still)
        rec.read(np.zeros_like(frame))  # the dice went: the next frame moves
        moving = rec.read(frame).dice
        assert moving and all(d.face is None for d in moving)


def test_a_photos_small_dice_the_pips_agree_with_are_read_under_their_threshold(models):
    """A card whose ``joint`` ``small`` part sets a threshold for small dice the pips agree
    with (``lab.calibrate.choose_small_pips``): a photo's die under SMALL_PX read by the two
    networks under the threshold of small dice is read when the pips counted on it agree
    with its face and its confidence reaches that threshold. The networks here read every
    crop as a 3 at about 0.53: shown 3s, the pips agree; shown 5s, they do not."""
    from vision.pipeline import SMALL_PX, Recognizer

    for f in ("detector.onnx", "detector.json"):
        shutil.copy(model_paths("d6")[0].with_name(f), models / f)
    _always(model_paths("d6", models)[0], face=4, p=0.6)
    _always(second_path("d6", models), face=2, p=0.99)
    ds = load("d6")
    card = model_paths("d6", models)[1]
    for shown, pips_cut, want in (("3", 0.5, "3"), ("3", 0.6, "None"), ("5", 0.5, "None")):
        rng = np.random.default_rng(13)
        style = random_style(rng, (24, 25))
        frame, _ = render_scene(ds, [("d6", shown), ("d6", shown)], rng, style=style)
        _vouch(models, threshold=0.3, small=0.999)
        meta = json.loads(card.read_text(encoding="utf-8"))
        meta["joint"]["small"]["pip_agree_threshold"] = pips_cut
        card.write_text(json.dumps(meta), encoding="utf-8")
        rec = Recognizer(ds, models_dir=models)
        assert rec.classifier.small_pip_threshold() == pips_cut
        found = rec.read(frame, fine=True).dice
        assert len(found) == 2 and all(max(d.w, d.h) < SMALL_PX for d in found)
        assert [str(d.face) for d in found] == [want, want], (shown, pips_cut)
