"""The committed classifier models: they load, know the dice-set files, read faces, abstain."""

import json
from pathlib import Path

import numpy as np
import pytest

from lab.synth import SyntheticDice, negative_crop
from vision.classcard import ModelError, model_paths
from vision.classify import TURNS, FaceClassifier
from vision.dicesets import SET_IDS, load
from vision.faceart import draw_face
from vision.frameread import read_boxes, touching
from vision.onnx import MODELS_DIR

# Models that do not yet reach the read rate asked of them (see models/README.md, "Limits"):
# the test still runs and reports xfail with the figure instead of hiding the shortfall.
KNOWN_WEAK = {
    "tally-up": "tally-up model (thresholds 0.99 once / 0.97 at four "
    "turns) abstains on some faces, mostly the Up Die's, never reading "
    "one wrong (60 and 62 of 72 on felt, 129 of 150 augmented)"
}


def _require(ok: bool, set_id: str, what: str) -> None:
    if not ok and set_id in KNOWN_WEAK:
        pytest.xfail(f"{KNOWN_WEAK[set_id]}: {what}")
    assert ok, what


@pytest.fixture(scope="module", params=SET_IDS)
def clf(request):
    return FaceClassifier(request.param)


def test_models_are_small_and_described():
    for set_id in SET_IDS:
        onnx_path, meta_path = model_paths(set_id)
        assert onnx_path.stat().st_size < 1_000_000
        meta = json.loads(meta_path.read_text())
        assert meta["dice_set"] == set_id and 0.5 <= meta["threshold"] < 1


# Read once (the camera loop's first read), a few faces on a near-white tray fall under a
# threshold that four turns pass; the camera loop reads such a die again at four turns on a
# still frame, so the four-turn read below is held to the full rate.
ONCE_WEAK = {
    "rollers": "rollers model (threshold 0.93 read once) reads the black "
    "die's 4 and 5 on a near-white tray at 0.58 and 0.77; at four turns "
    "it reads all 36"
}


@pytest.mark.parametrize("turns", [1, TURNS])
def test_every_face_of_every_die_is_read_on_felt(clf, turns):
    ds = clf.dice_set
    crops, truth = [], []
    for felt in [(40, 90, 30), (90, 50, 20), (200, 210, 215)]:
        for die in ds.dice:
            for face in dict.fromkeys(die.faces):
                img = np.full((100, 100, 3), felt, np.uint8)
                img[20:80, 20:80] = draw_face(ds, die.id, face, 60)
                crops.append(clf.crop(img, (20, 20, 60, 60)))
                truth.append((die.id, face))
    readings = clf.classify(crops, turns)
    got = [(r.die, r.face) for r in readings]
    wrong = [(t, g) for t, g in zip(truth, got, strict=True) if g[1] is not None and g != t]
    read = sum(g == t for t, g in zip(truth, got, strict=True))
    assert not wrong
    what = f"read {read} of {len(truth)} at {turns} turn(s)"
    if turns == 1 and ds.id in ONCE_WEAK and read < 0.95 * len(truth):
        pytest.xfail(f"{ONCE_WEAK[ds.id]}: {what}")
    _require(read >= 0.95 * len(truth), ds.id, what)


def test_augmented_held_out_crops_are_read_or_abstained_never_wrong(clf):
    synth = SyntheticDice(clf.dice_set, size=clf.input_size, canvas=2 * clf.input_size)
    rng = np.random.default_rng(424242)
    samples = [synth.sample(rng, strength=0.6) for _ in range(150)]
    readings = clf.classify([s[0] for s in samples])
    wrong = [
        (s[1:], (r.die, r.face))
        for s, r in zip(samples, readings, strict=True)
        if r.face is not None and (r.die, r.face) != s[1:]
    ]
    read = sum(r.face is not None for r in readings)
    _require(len(wrong) <= 1, clf.dice_set.id, f"wrong {wrong}")
    _require(read >= 0.9 * len(samples), clf.dice_set.id, f"read {read} of {len(samples)}")


def test_not_a_die_is_abstained_on(clf):
    rng = np.random.default_rng(7)
    readings = clf.classify([negative_crop(rng, size=clf.input_size) for _ in range(60)])
    assert sum(r.face is not None for r in readings) <= 2


def test_layout_edit_is_respected(tmp_path):
    """A die whose file no longer allows a face is never read with that face."""
    ds = load("tally-up")
    text = (
        Path(ds.path)
        .read_text()
        .replace(
            'faces = ["star", "100", "100", "100", "100", "(100)"]',
            'faces = ["star", "100", "100", "100", "100", "100"]',
        )
    )
    path = tmp_path / "tally.toml"
    path.write_text(text)
    clf = FaceClassifier(load(path))
    img = np.full((100, 100, 3), (40, 90, 30), np.uint8)
    img[20:80, 20:80] = draw_face(ds, "blue", "(100)", 60)
    r = clf.classify([clf.crop(img, (20, 20, 60, 60))])[0]
    assert (r.die, r.face) != ("blue", "(100)")


def test_unknown_face_in_data_file_asks_for_retraining(tmp_path):
    text = (
        Path(load("d6").path)
        .read_text()
        .replace(
            '"6" = { mark = "pips", count = 6 }',
            '"6" = { mark = "pips", count = 6 }\n"7" = { mark = "pips", count = 7 }',
        )
    )
    text = text.replace(
        'faces = ["1", "2", "3", "4", "5", "6"]', 'faces = ["1", "2", "3", "4", "5", "7"]'
    )
    path = tmp_path / "d6.toml"
    path.write_text(text)
    with pytest.raises(ModelError, match="dicetray train --sets d6"):
        FaceClassifier(load(path))


def test_missing_model_says_how_to_make_it(tmp_path):
    with pytest.raises(ModelError, match="run `dicetray train`"):
        FaceClassifier("d6", models_dir=tmp_path)


def test_models_dir_is_the_committed_folder():
    assert MODELS_DIR.name == "models" and (MODELS_DIR / "classifier-d6.onnx").exists()


def test_per_die_thresholds_are_used_and_an_explicit_threshold_overrides_them(tmp_path):
    import shutil

    onnx_path, meta_path = model_paths("d6")
    shutil.copy(onnx_path, tmp_path / onnx_path.name)
    meta = json.loads(meta_path.read_text())
    meta["threshold"], meta["die_thresholds"] = 0.999999, {"d6": 0.5}
    (tmp_path / meta_path.name).write_text(json.dumps(meta))
    img = np.full((100, 100, 3), (40, 90, 30), np.uint8)
    img[20:80, 20:80] = draw_face(load("d6"), "d6", "5", 60)
    own = FaceClassifier("d6", models_dir=tmp_path)
    assert own.classify([own.crop(img, (20, 20, 60, 60))])[0].face == "5"
    strict = FaceClassifier("d6", models_dir=tmp_path, threshold=0.999999)
    assert strict.classify([strict.crop(img, (20, 20, 60, 60))])[0].face is None


def test_a_die_in_doubt_is_read_again_at_four_turns_with_its_own_threshold(tmp_path):
    import shutil

    onnx_path, meta_path = model_paths("d6")
    shutil.copy(onnx_path, tmp_path / onnx_path.name)
    meta = json.loads(meta_path.read_text())
    meta["threshold"], meta["die_thresholds"] = 1.01, {}
    meta.pop("pip_agree_threshold", None)  # no read once, not even with the pips agreeing
    meta["turned"] = {"threshold": 0.5, "die_thresholds": {}}
    (tmp_path / meta_path.name).write_text(json.dumps(meta))
    clf = FaceClassifier("d6", models_dir=tmp_path)
    img = np.full((100, 300, 3), (40, 90, 30), np.uint8)
    img[20:80, 20:80] = draw_face(load("d6"), "d6", "3", 60)
    img[20:80, 200:260] = draw_face(load("d6"), "d6", "6", 60)
    boxes = [(20, 20, 60, 60), (200, 20, 60, 60)]
    assert [r.face for r in read_boxes(clf, img, boxes)] == [None, None]
    assert [r.face for r in read_boxes(clf, img, boxes, retry=True)] == ["3", "6"]
    assert [r.face for r in clf.classify([clf.crop(img, b) for b in boxes], turns=4)] == ["3", "6"]


def test_a_four_turn_read_takes_a_sure_upright_read_only_when_allowed_and_never_two_faces():
    """Photos: the mean of four turns abstains but the upright read alone is sure: the die is
    taken, unless the model says its upright threshold rests on too few held-out dice
    (``upright_alone`` false, written by teaching). Two sure reads of different faces abstain."""
    clf = FaceClassifier("d6")
    n_faces = len(clf.faces) + 1

    def heads(upright_face: int, other_face: int, other_p: float):
        face = np.full((4, 1, n_faces), 0.0, np.float32)
        face[0, 0, upright_face] = 1.0
        face[1:, 0, other_face] = other_p
        face[1:, 0, -1] = 1.0 - other_p
        return np.ones((4, 1, 1), np.float32), face

    crop = [np.zeros((64, 64, 3), np.uint8)]
    clf.answer_with(lambda crops, turns: heads(2, 2, 0.5))  # upright sure of '3', mean 0.625
    assert clf.classify(crop, 4)[0].face == "3"
    clf.upright_alone = False
    assert clf.classify(crop, 4)[0].face is None
    both = FaceClassifier("d6", threshold=0.5)  # both reads sure at 0.5
    both.answer_with(lambda crops, turns: heads(2, 4, 1.0))  # upright '3', the mean '5' (0.75)
    assert both.classify(crop, 4)[0].face is None
    both.answer_with(lambda crops, turns: heads(2, 2, 1.0))  # both '3'
    assert both.classify(crop, 4)[0].face == "3"


def test_a_die_not_read_keeps_its_best_guess_and_one_that_is_no_die_none():
    """Under the threshold the face is not read, but the best guess goes with the reading
    (``guess``: offered first to whoever sets the die by hand); a read die has no guess, nor
    a crop the network takes for no die."""
    clf = FaceClassifier("d6", threshold=0.9)
    n_faces = len(clf.faces) + 1

    def heads(face_p: dict):
        face = np.zeros((1, 1, n_faces), np.float32)
        for k, p in face_p.items():
            face[0, 0, k] = p
        return np.ones((1, 1, 1), np.float32), face

    crop = [np.zeros((64, 64, 3), np.uint8)]
    clf.answer_with(lambda crops, turns: heads({3: 0.6, 4: 0.4}))
    r = clf.classify(crop)[0]
    assert (r.face, r.guess) == (None, "4")
    clf.answer_with(lambda crops, turns: heads({3: 0.95, 4: 0.05}))
    r = clf.classify(crop)[0]
    assert (r.face, r.guess) == ("4", None)
    clf.answer_with(lambda crops, turns: heads({3: 0.3, n_faces - 1: 0.7}))
    assert clf.classify(crop)[0].guess is None


def test_a_four_turn_read_is_withdrawn_when_one_turn_is_fairly_sure_of_another_face():
    """Three turns read '3' and one turn reads '5' at 0.6: the mean is sure of '3' but the
    network does not see the same die from every side, so the die is asked about. A turn
    under ``TURN_DOUBT`` sure of another face leaves the reading alone."""
    from vision.classify import TURN_DOUBT

    clf = FaceClassifier("d6", threshold=0.8)
    n_faces = len(clf.faces) + 1

    def heads(odd_p: float):
        face = np.zeros((4, 1, n_faces), np.float32)
        face[:, 0, 2] = 1.0  # '3' at every turn ...
        face[3, 0, 2], face[3, 0, 4] = 1.0 - odd_p, odd_p  # ... but the last: '5'
        return np.ones((4, 1, 1), np.float32), face

    crop = [np.zeros((64, 64, 3), np.uint8)]
    clf.answer_with(lambda crops, turns: heads(0.6))  # mean '3' at 0.85
    assert clf.best_guesses(crop, 4) == [("d6", "3")]
    assert clf.classify(crop, 4)[0].face is None
    clf.answer_with(lambda crops, turns: heads(TURN_DOUBT - 0.05))
    assert clf.classify(crop, 4)[0].face == "3"


def test_training_can_go_on_from_a_shipped_onnx_network_of_any_architecture(tmp_path):
    """`lab.train --init classifier-<set>.onnx`: the shipped network becomes a torch module
    giving the log-probabilities of its heads (what onnxruntime gives, logged), and a network
    whose card names other classes is refused with one line."""
    import shutil

    import onnxruntime as ort
    import torch

    from lab.train import _onnx_start
    from lab.trainset import class_lists
    from vision.classcard import model_paths

    ds = load("tally-up")
    dice, faces = class_lists(ds)
    onnx_path, meta_path = model_paths("tally-up", MODELS_DIR)
    net = _onnx_start(onnx_path, dice, faces)
    x = np.random.default_rng(0).random((3, 3, 64, 64), np.float32)
    log_die, log_face = net(torch.from_numpy(x))
    die_p, face_p = ort.InferenceSession(str(onnx_path)).run(
        ["die_prob", "face_prob"], {"crops": x}
    )
    assert np.allclose(np.exp(log_face.detach().numpy()), face_p, atol=1e-4)
    assert np.allclose(np.exp(log_die.detach().numpy()), die_p, atol=1e-4)
    assert any(p.requires_grad for p in net.parameters())
    # what training writes back (lab.onnxtorch.export) is again a network it can go on from
    from lab import onnxtorch

    again = tmp_path / "again" / onnx_path.name
    again.parent.mkdir()
    onnxtorch.export(net.net, again, torch.zeros(1, 3, 64, 64), batch_axis=True)
    again.with_suffix(".json").write_text(meta_path.read_text())
    log_face2 = _onnx_start(again, dice, faces)(torch.from_numpy(x))[1]
    assert np.allclose(log_face2.detach().numpy(), log_face.detach().numpy(), atol=1e-4)
    other = tmp_path / onnx_path.name
    shutil.copy(onnx_path, other)
    other.with_suffix(".json").write_text(meta_path.read_text().replace('"x2"', '"x3"'))
    with pytest.raises(SystemExit, match="its classes are not those"):
        _onnx_start(other, dice, faces)


def test_fine_tuning_can_teach_away_an_answer_the_network_is_sure_of():
    """Teaching trains on log-probabilities taken from the logits (``OnnxModule.log_probs``):
    a class the network gives far under 1e-7 still has a gradient towards it. With
    log(p + 1e-7) it would have none, and a network sure that an owner's
    star was a 4 never learned the star."""
    import onnx
    import torch

    from lab.onnxtorch import OnnxModule
    from vision.classcard import model_paths

    net = OnnxModule(onnx.load(str(model_paths("d6", MODELS_DIR)[0])))
    x = torch.zeros(1, 3, 64, 64)
    logits = next(ins[0] for op, ins, outs, a in net.nodes if outs[0] == "face_prob")
    gemm = next(ins for op, ins, outs, a in net.nodes if outs[0] == logits)
    weight, face_bias = net.params[net._names[gemm[1]]], net.params[net._names[gemm[2]]]
    with torch.no_grad():  # the face head gives face 0 about 1e-18
        weight.zero_()
        face_bias.zero_()
        face_bias[0] = -40.0
    _, face_p, _ = net(x)
    assert float(face_p[0, 0]) < 1e-15
    old = torch.log(face_p[0, 0] + 1e-7)
    old.backward()
    old_grad = float(face_bias.grad[0])
    face_bias.grad = None
    net.log_probs = True
    _, log_face, _ = net(x)
    log_face[0, 0].backward()
    assert abs(old_grad) < 1e-9 and float(face_bias.grad[0]) > 0.99
    net.log_probs = False
    assert np.allclose(net(x)[1].detach().numpy(), face_p.detach().numpy())


def test_a_taught_network_is_backed_by_the_shipped_one(tmp_path, taught_copy):
    """A die the taught network abstains on is read by the shipped network when that one is
    sure; a die the two are sure of as different faces is in doubt; a card saying
    ``"backed": false`` (or an explicit threshold) reads the taught network alone."""
    ds = load("d6")
    img = np.full((100, 100, 3), (40, 90, 30), np.uint8)
    img[20:80, 20:80] = draw_face(ds, "d6", "6", 60)
    shipped = FaceClassifier("d6")
    crop = [shipped.crop(img, (20, 20, 60, 60))]
    assert shipped.classify(crop)[0].face == "6"

    never_sure = taught_copy(tmp_path / "unsure", threshold=1.01, turned={"threshold": 1.01})
    assert FaceClassifier("d6", taught=never_sure).classify(crop)[0].face == "6"
    assert FaceClassifier("d6", taught=never_sure).classify(crop, 4)[0].face == "6"
    alone = taught_copy(tmp_path / "alone", threshold=1.01, backed=False)
    assert FaceClassifier("d6", taught=alone).classify(crop)[0].face is None
    assert FaceClassifier("d6", taught=never_sure, threshold=1.01).classify(crop)[0].face is None

    faces = json.loads(model_paths("d6", MODELS_DIR)[1].read_text())["faces"]
    swapped = [{"6": "1", "1": "6"}.get(f, f) for f in faces]  # sure of a 1 where it is a 6
    other = taught_copy(tmp_path / "other", faces=swapped)
    r = FaceClassifier("d6", taught=other).classify(crop)[0]
    assert r.face is None and r.die == "d6"


def test_a_taught_card_can_stop_the_shipped_network_standing_in_at_one_read(tmp_path, taught_copy):
    """``"shipped_backs": false`` in a part of a taught card (set by teaching when the shipped
    network was sure and wrong on its cross-validated dice): at those turns a die the taught
    network abstains on is not read by the shipped one; at the other turns it still is."""
    ds = load("d6")
    img = np.full((100, 100, 3), (40, 90, 30), np.uint8)
    img[20:80, 20:80] = draw_face(ds, "d6", "6", 60)
    crop = [FaceClassifier("d6").crop(img, (20, 20, 60, 60))]
    once = taught_copy(
        tmp_path / "once", threshold=1.01, shipped_backs=False, turned={"threshold": 1.01}
    )
    clf = FaceClassifier("d6", taught=once)
    assert clf.classify(crop)[0].face is None
    assert clf.classify(crop, 4)[0].face == "6"
    clf.use_thresholds(4, 1.01, backed=False)
    assert clf.classify(crop, 4)[0].face is None


def test_a_taught_folder_read_beside_another_shipped_network_reads_alone(tmp_path, taught_copy):
    """A taught card names the shipped network it was taught beside (``shipped_sha256``,
    written by teaching). Beside that network the shipped one stands in and the agreement
    rule holds; once the shipped network has changed (dicetray updated since teaching),
    neither does: the taught network reads alone, and says why. A card without the name (a
    folder taught by an older dicetray) is read as before."""
    from vision.onnx import file_sha256

    ds = load("d6")
    img = np.full((100, 100, 3), (40, 90, 30), np.uint8)
    img[20:80, 20:80] = draw_face(ds, "d6", "6", 60)
    shipped = FaceClassifier("d6")
    crop = [shipped.crop(img, (20, 20, 60, 60))]
    same = taught_copy(
        tmp_path / "same",
        threshold=1.01,
        agree_threshold=0.0,
        shipped_sha256=file_sha256(shipped.model_path),
    )
    clf = FaceClassifier("d6", taught=same)
    assert clf.stale is None and clf.shipped is not None
    assert clf.classify(crop)[0].face == "6"  # the shipped network stands in
    changed = taught_copy(
        tmp_path / "changed",
        threshold=1.01,
        agree_threshold=0.0,
        turned={"threshold": 1.01, "agree_threshold": 0.0},
        shipped_sha256="0" * 64,
    )
    clf = FaceClassifier("d6", taught=changed)
    assert clf.shipped is None and "has changed since" in clf.stale
    assert clf.classify(crop)[0].face is None  # taught alone, never sure at 1.01
    assert clf.classify(crop, 4)[0].face is None
    legacy = taught_copy(tmp_path / "legacy", threshold=1.01)
    assert FaceClassifier("d6", taught=legacy).classify(crop)[0].face == "6"


def test_a_taught_network_agreeing_with_the_shipped_one_is_trusted_lower_down(
    tmp_path, taught_copy
):
    """A taught card's ``agree_threshold`` (set by teaching's cross-validation): a die the
    taught network reads below its own threshold is taken when the shipped network's best
    guess is the same face and the taught confidence reaches the agree threshold; never when
    the best guesses differ, and never below the agree threshold."""
    ds = load("d6")
    img = np.full((100, 100, 3), (40, 90, 30), np.uint8)
    img[20:80, 20:80] = draw_face(ds, "d6", "4", 60)
    shipped = FaceClassifier("d6")
    crop = [shipped.crop(img, (20, 20, 60, 60))]
    conf = FaceClassifier("d6", threshold=0.0).classify(crop)[0].confidence
    # taught (here: the shipped weights) never sure alone; the shipped one never sure either
    # (its own card is read for the backing, so its threshold is raised by hand below)
    agree = taught_copy(tmp_path / "agree", threshold=1.01, agree_threshold=conf - 0.01)
    clf = FaceClassifier("d6", taught=agree)
    clf.shipped.use_thresholds(1, 1.01)
    r = clf.classify(crop)[0]
    assert (r.die, r.face) == ("d6", "4") and r.confidence == pytest.approx(conf)
    too_low = taught_copy(tmp_path / "low", threshold=1.01, agree_threshold=conf + 0.001)
    clf = FaceClassifier("d6", taught=too_low)
    clf.shipped.use_thresholds(1, 1.01)
    assert clf.classify(crop)[0].face is None
    faces = json.loads(model_paths("d6", MODELS_DIR)[1].read_text())["faces"]
    swapped = [{"4": "5", "5": "4"}.get(f, f) for f in faces]  # its best guess is a 5
    other = taught_copy(tmp_path / "other", faces=swapped, threshold=1.01, agree_threshold=0.0)
    clf = FaceClassifier("d6", taught=other)
    clf.shipped.use_thresholds(1, 1.01)
    assert clf.classify(crop)[0].face is None


def test_no_agreement_with_a_shipped_network_that_takes_the_box_for_no_die(tmp_path, taught_copy):
    """The agree path needs the shipped network to see a die: its best face on a box it
    calls "none" is no opinion (measured: a 2 seen askew, shipped "none" 0.67 and "1"
    0.21, taught "1" 0.90, was read as a 1). The shipped network's reading is scripted."""
    from vision.classify import CropReading

    ds = load("d6")
    img = np.full((100, 100, 3), (40, 90, 30), np.uint8)
    img[20:80, 20:80] = draw_face(ds, "d6", "4", 60)
    taught = taught_copy(tmp_path / "taught", threshold=1.01, agree_threshold=0.0)
    clf = FaceClassifier("d6", taught=taught)
    crop = [clf.crop(img, (20, 20, 60, 60))]

    def shipped_says(none):
        clf.shipped._classify = lambda crops, turns: (
            [CropReading("d6", None, 0.21, 0.21, 1.0, not_a_die=none)],
            [("d6", "4")],
        )
        return clf.classify(crop)[0].face

    assert shipped_says(none=0.1) == "4"  # two networks agreeing: read
    assert shipped_says(none=0.67) is None  # the shipped one sees no die: no agreement


def test_rollers_printed_with_digits_in_a_typeface_never_trained_on_are_never_read_wrong():
    # The held-out other style (a Times italic, light, floor never trained on) with digits
    # for 1-5, read at four turns: the shipped network reads 36 of these 119 for sure and
    # none wrong (34-36 and none on seeds 7 and 8), asking about the rest. Its thresholds
    # sit on floors set on prints bent past its training (lab.farprint); over the thresholds
    # of its training looks alone it read about half and 3 wrong (a 3 as a 5, a 4 as a star).
    from hardware.sim.render import render_scene
    from hardware.sim.styles import other_style

    ds = load("rollers")
    clf = FaceClassifier(ds)
    rng = np.random.default_rng(2024)
    dice = [d for d in ds.dice for _ in range(d.count)]
    crops, truth = [], []
    for _ in range(30):
        pick = rng.choice(len(dice), size=int(rng.integers(2, 7)), replace=False)
        throw = [(dice[i].id, dice[i].faces[int(rng.integers(0, 6))]) for i in pick]
        frame, labels = render_scene(ds, throw, rng, style=other_style(rng, digits=True))
        for lab in labels:
            crops.append(clf.crop(frame, (lab["x"], lab["y"], lab["w"], lab["h"])))
            truth.append((lab["die"], lab["face"]))
    got = [(r.die, r.face) for r in clf.classify(crops, TURNS)]
    wrong = [(t, g) for t, g in zip(truth, got, strict=True) if g[1] is not None and g != t]
    right = sum(g == t for t, g in zip(truth, got, strict=True))
    assert len(truth) > 80 and not wrong, wrong
    assert right >= 0.2 * len(truth), f"read {right} of {len(truth)}"


@pytest.mark.parametrize("warmth", [3.0, -3.0])
def test_tally_up_under_a_lamp_far_from_the_white_balance_is_never_read_wrong(warmth):
    """A tungsten lamp after calibrating by daylight (warmth 3: blue x0.55, red x1.39), or a
    cold light as far the other way. A Tally Up! network trained on lights within about 15%
    read a purple die as red for sure (21 of 324 dice in 60 scenes at warmth 3) and one as
    blue at -3; the shipped one, trained with a quarter of its lights that far off
    (``hardware.sim.looks.FAR_LIGHTS``), reads none wrong and most right."""
    from hardware.sim.render import render_scene
    from hardware.sim.styles import far_light_style

    ds = load("tally-up")
    clf = FaceClassifier(ds)
    rng = np.random.default_rng(17)
    crops, truth = [], []
    for _ in range(16):
        throw = [(d.id, d.faces[int(rng.integers(0, 6))]) for d in ds.dice]
        frame, labels = render_scene(ds, throw, rng, style=far_light_style(rng, warmth))
        for lab in labels:
            crops.append(clf.crop(frame, (lab["x"], lab["y"], lab["w"], lab["h"])))
            truth.append((lab["die"], lab["face"]))
    got = [(r.die, r.face) for r in clf.classify(crops)]
    wrong = [(t, g) for t, g in zip(truth, got, strict=True) if g[1] is not None and g != t]
    right = sum(g == t for t, g in zip(truth, got, strict=True))
    assert len(truth) >= 100 and not wrong, wrong
    assert right >= 0.75 * len(truth), f"read {right} of {len(truth)}"


def test_read_outputs_hears_the_pips_as_classify_does():
    """A best guess under the threshold is read when the pips counted agree with it (from
    ``pip_agree_threshold``); a sure read they contradict is withdrawn; no count, no change.
    Teaching judges the shipped models' reads of an owner's dice through this."""
    clf = FaceClassifier("d6")
    die = np.ones((1, 1), np.float32)

    def faces(three: float):
        f = np.full((1, 7), (1.0 - three) / 6, np.float32)
        f[0, 2] = three  # face "3"
        return f

    cut = clf._pip_agree[1]
    unsure, sure = faces((cut + clf.threshold) / 2), faces(0.99)
    assert clf.read_outputs(die, unsure, 1).face is None
    assert clf.read_outputs(die, unsure, 1, pips=3).face == "3"
    assert clf.read_outputs(die, unsure, 1, pips=2).face is None
    assert clf.read_outputs(die, sure, 1).face == "3"
    assert clf.read_outputs(die, sure, 1, pips=2).face is None
    assert clf.read_outputs(die, faces(cut / 2), 1, pips=3).face is None  # under the pip cut


def _counting(clf, monkeypatch, tight_face=None):
    """``clf._classify`` counting the crops of each call; from the second call on (the tight
    crops) its best guess is ``tight_face`` when given."""
    calls, real = [], clf._classify

    def counted(crops, turns=1, quick=False):
        out, best = real(crops, turns, quick)
        if calls and tight_face is not None:
            best = [(b[0], tight_face) for b in best]
        calls.append(len(crops))
        return out, best

    monkeypatch.setattr(clf, "_classify", counted)
    return calls


def _three_dice(ds, die: str, faces) -> tuple[np.ndarray, list]:
    """Two dice lying against each other and one apart, drawn 60 px on felt."""
    img = np.full((100, 320, 3), (40, 90, 30), np.uint8)
    boxes = [(20, 20, 60, 60), (78, 20, 60, 60), (230, 20, 60, 60)]
    for (x, y, w, h), face in zip(boxes, faces, strict=True):
        img[y : y + h, x : x + w] = draw_face(ds, die, face, w)
    return img, boxes


def test_every_die_read_at_four_turns_keeps_its_face_only_when_its_tight_crop_agrees(
    monkeypatch,
):
    """A photo's dice (read at four turns) are read again on crops of ``TIGHT`` times their
    own box, in one more call for all, and keep their faces only when the best guess there
    is the same: a crop holding part of a neighbour, or a face seen small, was read as
    another face for sure, and the tight crop of a die lying apart catches that too."""
    clf = FaceClassifier("d6")
    img, boxes = _three_dice(load("d6"), "d6", ("3", "6", "2"))
    assert touching(boxes) == {0, 1}
    calls = _counting(clf, monkeypatch)
    assert [r.face for r in read_boxes(clf, img, boxes, turns=4)] == ["3", "6", "2"]
    assert calls == [3, 3]  # the photo's dice, then all three on tight crops
    calls = _counting(clf, monkeypatch, tight_face="1")
    assert [r.face for r in read_boxes(clf, img, boxes, turns=4)] == [None, None, None]


def test_a_die_read_once_on_a_still_tray_is_checked_on_its_tight_crop_when_touching(
    monkeypatch,
):
    """Read once (a still tray's dice, a set without a second network), only the dice lying
    against another are read again on their tight crops: every still frame pays for it."""
    clf = FaceClassifier("rollers")
    img, boxes = _three_dice(load("rollers"), "wild", ("star", "star", "star"))
    calls = _counting(clf, monkeypatch, tight_face="2")
    faces = [r.face for r in read_boxes(clf, img, boxes, retry=True)]
    assert calls == [3, 2]  # the tray's dice, then the two touching ones on tight crops
    assert faces == [None, None, "star"]


def _pip_counter(monkeypatch, count: int) -> list:
    """vision.pips.read_many counting ``count`` pips on every crop: how many crops it is
    handed, call by call."""
    from types import SimpleNamespace

    from vision import classify

    calls = []

    def read_many(crops, again=True):
        calls.append(len(crops))
        return [SimpleNamespace(count=count) for _ in crops]

    monkeypatch.setattr(classify, "read_many", read_many)
    return calls


def _dice_apart(sides=(60, 60, 60)) -> tuple[np.ndarray, list]:
    """A 3, a 6 and a 2 lying apart on felt, drawn ``sides`` px across."""
    img = np.full((100, 420, 3), (40, 90, 30), np.uint8)
    boxes = [(20 + 140 * k, 20, side, side) for k, side in enumerate(sides)]
    for (x, y, w, h), face in zip(boxes, ("3", "6", "2"), strict=True):
        img[y : y + h, x : x + w] = draw_face(load("d6"), "d6", face, w)
    return img, boxes


def test_a_moving_frame_counts_no_pips_and_a_still_tray_counts_them_where_a_read_stands(
    monkeypatch,
):
    """A moving frame's one read is never scored (rolls come from still frames): the pips are
    not counted on it, so a count of one pip on every die withdraws nothing. On a still tray
    they are, on every read that is scored: the one read of a network alone (then each die
    read again at four turns, the pips heard again), but with a second network only the
    dice read at four turns, whose reading replaces the one read's, and a box read again at
    the median size, whose one read stands."""
    img, boxes = _dice_apart()
    first = FaceClassifier("d6", second=False)
    calls = _pip_counter(monkeypatch, 1)
    assert [r.face for r in read_boxes(first, img, boxes)] == ["3", "6", "2"]
    assert calls == []
    assert [r.face for r in read_boxes(first, img, boxes, retry=True)] == [None] * 3
    assert calls == [3, 3]  # the one read of the three, then the three at four turns
    both = FaceClassifier("d6")
    calls.clear()
    assert [r.face for r in read_boxes(both, img, boxes)] == ["3", "6", "2"]
    assert [r.face for r in read_boxes(both, img, boxes, retry=True)] == [None] * 3
    assert calls == [3]  # the three at four turns only
    img, boxes = _dice_apart((60, 60, 40))  # the 2 under 0.8 of the median die
    calls.clear()
    assert [r.face for r in read_boxes(both, img, boxes, retry=True)] == [None] * 3
    assert calls == [2, 2]  # the 2 and its median-size crop, then the others at four turns


def test_the_threshold_of_small_dice_is_the_cards_and_only_for_its_own_network(tmp_path):
    """``small_threshold`` is the card's ``small`` part (once, four turns); a threshold given
    to the classifier, or a card with no such part, sets none (the table then reads small
    dice at ``vision.pipeline.SMALL_SURE``)."""
    meta = json.loads(model_paths("d6")[1].read_text(encoding="utf-8"))
    clf = FaceClassifier("d6", second=False)
    assert clf.small_threshold(1) == meta["small"]["once"]["threshold"]
    assert clf.small_threshold(TURNS) == meta["small"]["turned"]["threshold"]
    # with the second network: at four turns the threshold set on the two's mean
    both = FaceClassifier("d6")
    assert both.small_joint and both.small_threshold(1) == meta["small"]["once"]["threshold"]
    assert both.small_threshold(TURNS) == meta["joint"]["small"]["threshold"]
    assert FaceClassifier("d6", threshold=0.5).small_threshold(1) is None
    onnx_path, meta_path = model_paths("d6")
    (tmp_path / onnx_path.name).write_bytes(onnx_path.read_bytes())
    meta.pop("small")
    meta.pop("joint", None)
    (tmp_path / meta_path.name).write_text(json.dumps(meta), encoding="utf-8")
    assert FaceClassifier("d6", models_dir=tmp_path).small_threshold(1) is None
