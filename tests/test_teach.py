"""Teaching the tray an owner's dice (lab.teach, vision.taught): on small data made here.

The owner's dice are not our drawing: blue bodies with white pips, and the 6 face carries a
star instead of six pips (as some real dice carry a logo). The shipped d6 model has never seen
such a 6; after teaching on a dozen photos of them, fresh photos are read right, and nothing is
read wrong without abstaining.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from lab.teach import TeachError, main, teach
from lab.teachbench import owner_photos
from vision.dicesets import load
from vision.pipeline import Recognizer
from vision.taught import TaughtError, TaughtModel


def _photos(folder: Path, n: int, seed: int) -> list[list[dict]]:
    """``n`` rendered photos of the owner's dice, every face shown, as a labelled folder."""
    return owner_photos(folder, n, seed)


def _face_at(dice, cx: float, cy: float):
    hit = [d for d in dice if d.x <= cx <= d.x + d.w and d.y <= cy <= d.y + d.h]
    return hit[0].face if hit else None


@pytest.fixture(scope="module")
def taught(tmp_path_factory):
    root = tmp_path_factory.mktemp("teach")
    _photos(root / "photos", 12, seed=11)
    # a short teaching (teach's own: 48 copies, 20 epochs): measured on the shipped network:
    # 2 of the 4 fresh stars read under the taught threshold after 4 epochs, all 4 after 6
    record = teach(
        root / "photos", "d6", root / "taught", seed=1, copies=8, clf_epochs=6, det_epochs=2
    )
    print("held-out:", record["heldout"], "seconds:", record["seconds"])
    return root, record


def test_the_taught_folder_records_what_it_was_taught_with(taught):
    root, _ = taught
    saved = json.loads((root / "taught" / "taught.json").read_text())
    assert saved["dice_set"] == "d6"
    assert saved["taught_with"]["photos"] == 12 and saved["taught_with"]["dice"] == 48
    assert saved["taught_with"]["faces"]["d6:6"] == 8
    assert saved["taught_at"].startswith("20")
    held = saved["heldout"]
    # cross-validated: every die read by a model taught without its photo (4 folds)
    assert saved["taught_with"]["folds"] == 4
    assert held["photos"] == 12 and held["dice"] == 48
    assert 0 <= held["face_right"] <= 1 and held["wrong_count"] == 0
    assert held["face_right"] >= held["shipped_models"]["face_right"]
    model = TaughtModel.load(root / "taught", "d6")
    assert model.classifier_dir == root / "taught"
    card = json.loads((root / "taught" / "classifier-d6.json").read_text())
    assert card["threshold"] == saved["thresholds"]["classifier"]["threshold"]
    assert "agree_threshold" in card["turned"]
    # the shipped network it was taught beside, by its SHA-256 (read beside another, it is
    # not backed by it: tests/test_classify.py)
    from vision.classify import file_sha256, model_paths

    assert card["shipped_sha256"] == file_sha256(model_paths("d6")[0])
    # the detector is taught only when the shipped one misses dice, and kept only when it
    # found a quarter of the photos it was not taught on better
    if "kept_shipped_detector" in held["detector"]:
        assert model.detector_dir is None and "detector.onnx" not in saved["models"]
        assert saved["thresholds"]["detector"] is None
    else:
        assert model.detector_dir == root / "taught" and "detector.onnx" in saved["models"]


def test_fresh_photos_of_the_owners_dice_are_read_and_the_star_is_a_six(taught, tmp_path):
    root, _ = taught
    truth = _photos(tmp_path / "fresh", 6, seed=99)
    plain = Recognizer(load("d6"))
    mine = Recognizer(load("d6"), taught=root / "taught")
    stars_before = stars_after = stars = wrong = right = 0
    for i, labels in enumerate(truth):
        frame = cv2.imread(str(tmp_path / "fresh" / "images" / f"{i:03d}.jpg"))
        for rec in (plain, mine):
            rec.reset()
        before = plain.read(frame, fine=True).dice
        after = mine.read(frame, fine=True).dice
        for lab in labels:
            cx, cy = lab["x"] + lab["w"] / 2, lab["y"] + lab["h"] / 2
            got = _face_at(after, cx, cy)
            right += got == lab["face"]
            wrong += got is not None and got != lab["face"]
            if lab["face"] == "6":
                stars += 1
                stars_before += _face_at(before, cx, cy) == "6"
                stars_after += got == "6"
    assert wrong == 0  # never sure and wrong
    assert right >= 0.8 * 24  # 24 dice in 6 fresh photos
    assert stars_after >= 0.75 * stars > stars_before


def test_a_taught_folder_for_another_set_is_refused(taught):
    root, _ = taught
    with pytest.raises(TaughtError, match="taught for the 'd6' dice set, not 'toss-up'"):
        Recognizer(load("toss-up"), taught=root / "taught")
    with pytest.raises(TaughtError, match="not a taught folder"):
        TaughtModel.load(root / "photos", "d6")


def _folder(tmp_path: Path, rows: list[str], image=True) -> Path:
    folder = tmp_path / "photos"
    (folder / "images").mkdir(parents=True)
    if image:
        cv2.imwrite(str(folder / "images" / "a.jpg"), np.full((240, 320, 3), 90, np.uint8))
    (folder / "labels.csv").write_text(
        "file,split,x,y,w,h,value,die\n" + "".join(r + "\n" for r in rows), encoding="utf-8"
    )
    return folder


@pytest.mark.parametrize(
    "rows, set_id, message",
    [
        (["a.jpg,s,10,10,40,40,7,d6"], "d6", "has no face '7'"),
        (["a.jpg,s,10,10,40,40,6,red"], "d6", "die 'red' is not a die of the d6 set"),
        (["a.jpg,s,300,200,60,60,6,d6"], "d6", "lies outside images/a.jpg (320x240)"),
        (["a.jpg,s,10,10,-4,40,6,d6"], "d6", "positive width and height"),
        (["a.jpg,s,ten,10,40,40,6,d6"], "d6", "must be numbers"),
        (["b.jpg,s,10,10,40,40,6,d6"], "d6", "images/b.jpg is not there"),
        (["a.jpg,s,10,10,40,40,1,"], "rollers", "face '1' is on several dice"),
        ([], "d6", "no labelled dice"),
        (
            ["a.jpg,s,10,10,40,40,6,d6", "a.jpg,s,60,10,40,40,6,d6"],
            "d6",
            "face '1' 0 times, face '2' 0 times",
        ),
    ],
)
def test_bad_labels_get_one_clear_line_and_write_nothing(tmp_path, capsys, rows, set_id, message):
    folder = _folder(tmp_path, rows)
    out = tmp_path / "taught"
    assert main([str(folder), "--dice-set", set_id, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("dicetray teach: ") and message in err
    assert "Traceback" not in err and not out.exists()


def test_an_unreadable_image_an_empty_folder_and_a_file_as_out_are_refused(tmp_path):
    folder = _folder(tmp_path, ["a.jpg,s,10,10,40,40,6,d6"], image=False)
    (folder / "images" / "a.jpg").write_bytes(b"not a jpeg at all")
    with pytest.raises(TeachError, match="cannot be read as an image"):
        teach(folder, "d6", tmp_path / "out")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(TeachError, match="has no labels.csv"):
        teach(empty, "d6", tmp_path / "out")
    good = _folder(tmp_path / "g", ["a.jpg,s,10,10,40,40,6,d6"])
    (tmp_path / "file").write_text("x")
    with pytest.raises(TeachError, match="is a file"):
        teach(good, "d6", tmp_path / "file")
    assert not (tmp_path / "out").exists()


def test_the_config_names_taught_folders_and_the_table_refuses_one_for_another_set(
    taught, tmp_path, capsys
):
    from tray.table.config import ConfigError, load_config
    from tray.table.demo import main_demo as demo_main

    root, _ = taught
    cfg_path = tmp_path / "config.toml"
    cfg_path.write_text(f'[vision]\ntaught = "{root / "taught"}"\n', encoding="utf-8")
    cfg = load_config(cfg_path)
    assert cfg.vision.taught_for("d6") == root / "taught"
    assert cfg.vision.taught_for("tally-up") is None  # taught for d6: not used there
    cfg_path.write_text('[vision]\ntaught = { toss-up = "/nowhere" }\n', encoding="utf-8")
    assert load_config(cfg_path).vision.taught_for("toss-up").name == "nowhere"
    cfg_path.write_text("[vision]\ntaught = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="vision.taught must be a taught folder"):
        load_config(cfg_path)
    # a demo of Tally Up! read with a d6 taught folder: one clear line, exit 2
    code = demo_main(
        [
            "--game",
            "tally-up",
            "--headless",
            "--out",
            str(tmp_path / "demo"),
            "--taught",
            str(root / "taught"),
            "--max-seconds",
            "5",
        ]
    )
    assert code == 2
    assert "taught for the 'd6' dice set, not 'tally-up'" in capsys.readouterr().err


def test_eval_reports_a_real_set_its_photos_cannot_teach_instead_of_crashing(monkeypatch, tmp_path):
    """``dicetray eval``'s teaching of each real set: a set whose teaching photos miss a face
    gets its zero-shot figures and the reason, and the other sets go on."""
    from lab import evalteach
    from lab import teach as teach_mod

    figures = {"recall": 1.0, "face_accuracy": 0.5, "abstained": 0.5, "wrong": 0.0}
    monkeypatch.setattr(
        evalteach,
        "real_setups",
        lambda _root: [("few_photos", {}, tmp_path, ["a.jpg"], ["b.jpg"], False)],
    )
    monkeypatch.setattr(evalteach, "write_folder", lambda out, *a: out)
    monkeypatch.setattr(evalteach, "_score", lambda *a: dict(figures))

    def refuse(*_a, **_k):
        raise teach_mod.TeachError("the photos show face '5' 0 times")

    monkeypatch.setattr(teach_mod, "teach", refuse)
    report = evalteach.run(tmp_path)
    assert report["few_photos"]["not_taught"] == "the photos show face '5' 0 times"
    assert report["few_photos"]["zero_shot"] == figures and "taught" not in report["few_photos"]
    text = "\n".join(evalteach.format_lines(report))
    assert "not taught: the photos show face '5' 0 times" in text


def test_the_teaching_benchmark_prints_time_memory_and_both_readings():
    """``dicetray bench --teach`` (lab.teachbench), here with tiny settings: teaching's wall
    and CPU time and peak memory, and the fresh photos read with the shipped and the taught
    models."""
    from lab import teachbench

    r = teachbench.run(photos=6, fresh=2, copies=2, clf_epochs=1, det_epochs=1)
    assert r["photos"] == 6 and r["dice"] == 24 and r["cv_figures"]["dice"] == 24
    assert r["teach_wall_s"] > 0 and r["teach_cpu_s"] > 0
    assert r["peak_memory_mb"] >= r["memory_before_teaching_mb"] > 0
    for kind in ("zero_shot", "taught"):
        assert r["fresh"][kind]["labelled"] == 8
    text = teachbench.format_result(r)
    assert "from 6 photos (24 dice)" in text and "MB at most" in text
    assert text.count("%") >= 8


def test_the_rollers_digit_case_writes_a_labelled_folder_of_both_dice(tmp_path):
    """``dicetray bench --teach --case rollers-digits``: photos of the black ZAP die and four
    wild dice printed with digits, a die column naming each, readable as a labelled folder."""
    from vision.labelled import read_folder
    from lab.teachbench import rollers_digit_photos

    rollers_digit_photos(tmp_path / "r", 2, seed=3)
    photos = read_folder(tmp_path / "r", load("rollers"))
    assert [len(p.labels) for p in photos] == [5, 5]
    assert sorted({lab.die for p in photos for lab in p.labels}) == ["black", "wild"]
    assert {lab.face for lab in photos[0].labels} == {"1", "2", "3", "4", "5"}


def test_a_weak_taught_network_gets_no_say(taught, tmp_path, monkeypatch):
    """A taught network whose best guess is right on under ``WEAK`` of the cross-validated
    dice reads nothing, alone or agreeing with the shipped network (on rune55
    randomid_single such a network, 0.99 sure, agreed with the shipped one's wrong best
    guess). The same photos that teach the star in the fixture then teach nothing: on the
    folds the taught network reads no more than the shipped models, and the taught folder
    keeps the shipped classifier."""
    import lab.teach as teaching

    root, strong = taught
    assert strong["heldout"]["face_right"] > strong["heldout"]["shipped_models"]["face_right"]
    monkeypatch.setattr(teaching, "WEAK", 1.01)  # every best guess counts as weak
    record = teach(
        root / "photos", "d6", tmp_path / "taught", seed=1, copies=8, clf_epochs=4, det_epochs=0
    )
    held = record["heldout"]
    assert held["face_right"] == held["shipped_models"]["face_right"]
    assert held["wrong_count"] == held["shipped_models"]["wrong_count"]
    assert "kept_shipped_models" in held and record["thresholds"]["classifier"] is None
    assert TaughtModel.load(tmp_path / "taught", "d6").classifier_dir is None


def test_eval_teaches_each_real_set_from_photos_the_shipped_models_never_saw(tmp_path):
    """``dicetray eval`` teaches a real set from some of its held-out photos and scores the
    others: no teaching photo is on the training side, the rotated copies of one photo stay
    on one side, at most half of the photos teach, and those with more dice teach first."""
    from lab import evalteach
    from lab.photos import rune55_split

    root = tmp_path / "rune55_gray"
    root.mkdir()
    names = [f"{i:05d}_jpg.rf.{c}.jpg" for i in range(60) for c in "ab"]
    rows = ["file,source,x,y,w,h,value"] + [  # photo k holds 1 + k % 4 dice
        f"{n},numeric_tube,{60 * d},0,50,50,{1 + (i + d) % 6}"
        for i, n in enumerate(names)
        for d in range(1 + (i // 2) % 4)
    ]
    (root / "labels.csv").write_text("\n".join(rows) + "\n")
    [(name, by, _images, teach, test, _pip)] = list(evalteach.real_setups(tmp_path))
    held = [n for n in names if rune55_split(n) != "train"]
    assert name == "rune55_gray/numeric_tube" and teach and test
    assert set(teach) <= set(held) and set(test) <= set(held)
    bases = lambda files: {f.split("_jpg")[0] for f in files}
    assert not bases(teach) & bases(test)
    assert len(teach) <= len(bases(held)) // 2
    assert bases(teach) | bases(test) == bases(held)
    most = max(len(by[f]) for f in held)  # most teaching photos hold the most dice
    assert sum(len(by[f]) == most for f in teach) > len(teach) // 2


def test_photos_with_too_few_dice_teach_nothing_and_say_why(taught, tmp_path, monkeypatch):
    """Photos holding under ``MIN_CV`` dice cannot judge a taught network (taught on the 25
    dice of 20 matteop65 photos, one read a tilted 1 as a 2 at 0.991), so no classifier is
    taught: the taught folder keeps the shipped classifier and says how many dice it needs."""
    import lab.teach as teaching

    root, _ = taught
    monkeypatch.setattr(teaching, "MIN_CV", 49)  # the fixture's photos hold 48 dice
    record = teach(
        root / "photos", "d6", tmp_path / "taught", seed=1, copies=8, clf_epochs=4, det_epochs=0
    )
    held = record["heldout"]
    assert held["photos"] == 12 and held["dice"] == 48 and record["taught_with"]["folds"] == 0
    assert "the photos hold 48 dice" in held["kept_shipped_models"]
    assert "49 at least" in held["kept_shipped_models"]
    assert record["thresholds"]["classifier"] is None
    assert TaughtModel.load(tmp_path / "taught", "d6").classifier_dir is None


def test_a_large_photo_is_taught_from_the_pixels_the_table_reads(tmp_path):
    """A 12 MP phone photo is decoded at half size, as ``dicetray recognize`` reads it, and
    its labelled boxes follow: a die cut from it is the same die at the same place."""
    from vision.labelled import read_folder
    from lab.render import random_style, render_scene

    rng = np.random.default_rng(4)
    frame, labels = render_scene(
        load("d6"),
        [("d6", "5"), ("d6", "2")],
        rng,
        size=(4032, 3024),
        style=random_style(rng, (240, 240)),
    )
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "big.jpg"), frame)
    (tmp_path / "labels.csv").write_text(
        "file,split,x,y,w,h,value\n"
        + "".join(
            f"big.jpg,t,{lab['x']:.1f},{lab['y']:.1f},{lab['w']:.1f},{lab['h']:.1f},{lab['face']}\n"
            for lab in labels
        )
    )
    photo = read_folder(tmp_path, "d6")[0]
    img, half = photo.decoded()
    assert img.shape[:2] == (1512, 2016) and half.size == (2016, 1512)
    for full, small in zip(photo.labels, half.labels):
        assert (small.x, small.y, small.w, small.h) == pytest.approx(
            (full.x / 2, full.y / 2, full.w / 2, full.h / 2)
        )
        assert small.face == full.face
        # the die is where the label says: the crop there is mostly die, not tray
        cut = img[int(small.y) : int(small.y + small.h), int(small.x) : int(small.x + small.w)]
        full_cut = frame[int(full.y) : int(full.y + full.h), int(full.x) : int(full.x + full.w)]
        assert abs(float(cut.mean()) - float(full_cut.mean())) < 6


class _FakeHeld:
    """Cross-validated dice as ``lab.teach._choose`` sees them: each die's taught confidence,
    whether its best guess is right, whether the shipped network's best guess agrees, and
    (optional) what the shipped network reads for sure: None (nothing), True (right), False
    (wrong)."""

    def __init__(self, dice):
        self.dice = [d if len(d) == 4 else (*d, None) for d in dice]

    def read(self, turns, alone, agree, backed=True):
        right = wrong = 0
        for conf, ok, agrees, shipped_sure in self.dice:
            if conf >= alone or (backed and agree is not None and agrees and agree <= conf):
                right += ok
                wrong += not ok
            elif backed and shipped_sure is not None:  # the shipped network stands in
                right += shipped_sure
                wrong += not shipped_sure
        return right, wrong, len(self.dice) - right - wrong


def test_teaching_chooses_a_taught_threshold_under_the_agree_floor_when_it_reads_more():
    """The taught network alone may be trusted from the shipped network's own threshold up,
    even where that is under the least agree threshold: Rollers printed with digits (100
    cross-validated dice) read 66 right at 0.85 and none wrong, but teaching chose 0.99 and
    read 60, because no agree value could go with 0.85."""
    from lab.teach import _choose

    held = [
        _FakeHeld(
            [
                (0.86, True, False),
                (0.88, True, False),
                (0.95, True, False),
                (0.999, True, True),
                (0.6, False, False),
            ]
        )
    ]
    assert _choose(held, 4, (0.85, 0.9)) == {
        "threshold": 0.85,
        "die_thresholds": {},
        "agree_threshold": None,
    }
    # a wrong die at 0.9 keeps the taught network alone above it (the highest threshold that
    # reads as many), and a die both networks agree on is read from the agree floor
    held = [_FakeHeld([(0.9, False, False), (0.91, True, True), (0.97, True, False)])]
    assert _choose(held, 4, (0.85, 0.9)) == {
        "threshold": 0.97,
        "die_thresholds": {},
        "agree_threshold": 0.9,
    }


def test_teaching_stops_the_shipped_network_standing_in_where_it_was_sure_and_wrong():
    """When every taught threshold reads a cross-validated die wrong because the shipped
    network, standing in, was sure of a wrong face, the thresholds are chosen with its sure
    reads no longer standing in (``"shipped_backs": false``); where they never were wrong,
    nothing changes. When the taught network is wrong at the top itself (measured: Rollers
    printed with digits, read once: 1 of 100 dice read wrong by it at 0.99), it never reads
    alone."""
    from lab.teach import _choose

    dice = [
        (0.99, True, True, True),
        (0.97, True, True, None),
        (0.6, True, False, False),
        (0.3, False, False, True),
    ]
    assert _choose([_FakeHeld(dice)], 1, (0.94, 0.9)) == {
        "threshold": 0.97,
        "die_thresholds": {},
        "agree_threshold": None,
        "shipped_backs": False,
    }
    safe = [d[:3] + (True,) if d[3] is False else d for d in dice]  # the shipped one right
    assert _choose([_FakeHeld(safe)], 1, (0.94, 0.9)) == {
        "threshold": 0.99,
        "die_thresholds": {},
        "agree_threshold": 0.97,
    }
    # the taught network wrong at the top as well: it never reads alone, and the shipped one
    # stands in only where it was never wrong
    worst = [(0.999, False, False, None)]
    assert _choose([_FakeHeld(dice + worst)], 1, (0.94, 0.9)) == {
        "threshold": 1.01,
        "die_thresholds": {},
        "agree_threshold": None,
        "shipped_backs": False,
    }
    assert _choose([_FakeHeld(safe + worst)], 1, (0.94, 0.9)) == {
        "threshold": 1.01,
        "die_thresholds": {},
        "agree_threshold": None,
    }


def test_a_taught_network_better_at_the_camera_and_as_good_on_photos_is_kept():
    """Teaching keeps a taught classifier when its cross-validated reads beat the shipped
    models' as photos are read (four turns), or as the camera reads (once) while as photos it
    reads as many right and no more wrong (measured: chase_casino_crops' casino dice, read
    once, 95.8% right taught against 87.5%, were thrown away because at four turns the taught
    network was weak and the shipped one read alone). Never when it reads more dice wrong."""
    from lab.teach import _beats_shipped

    def held(photo, camera, shipped_photo, shipped_camera):
        f = lambda right, wrong: {"face_right": right, "wrong_count": wrong}
        return {
            **f(*photo),
            "shipped_models": f(*shipped_photo),
            "camera_path": {**f(*camera), "shipped_models": f(*shipped_camera)},
        }

    assert _beats_shipped(held((0.875, 0), (0.958, 0), (0.875, 0), (0.875, 0)))
    assert _beats_shipped(held((0.95, 0), (0.80, 0), (0.90, 0), (0.85, 0)))  # as before
    assert not _beats_shipped(held((0.875, 0), (0.875, 0), (0.875, 0), (0.875, 0)))
    assert not _beats_shipped(held((0.85, 0), (0.958, 0), (0.875, 0), (0.875, 0)))
    assert not _beats_shipped(held((0.875, 0), (0.958, 1), (0.875, 0), (0.875, 0)))
    assert not _beats_shipped(held((0.95, 1), (0.958, 0), (0.90, 0), (0.875, 0)))
    assert _beats_shipped({"face_right": 0.9, "wrong_count": 0})  # nothing to compare with


def test_a_taught_network_weak_at_four_turns_reads_photos_once(taught, tmp_path):
    """A taught card that never lets its network read alone at four turns but does read
    once (teaching's cross-validation found it weak turned, sure upright) reads photos as the
    camera reads them: once, at the one-turn thresholds, backed by the shipped network as at
    the camera. Cards that read at four turns read photos at four turns."""
    import shutil

    from vision.classify import TURNS, FaceClassifier

    root, _ = taught
    folder = tmp_path / "taught"
    shutil.copytree(root / "taught", folder)
    card = folder / "classifier-d6.json"
    meta = json.loads(card.read_text())
    meta.update(threshold=0.6, agree_threshold=None)
    meta["turned"] = {"threshold": 1.01, "die_thresholds": {}, "agree_threshold": None}
    card.write_text(json.dumps(meta))
    img = cv2.imread(str(next((root / "photos" / "images").iterdir())))
    h, w = img.shape[:2]
    crops = [img[y : y + h // 2, x : x + w // 2] for y in (0, h // 2) for x in (0, w // 2)]
    crops = [cv2.resize(c, (64, 64)) for c in crops]

    once = FaceClassifier("d6", taught=folder)
    assert once.photos_once
    calls = []
    real = once._turned
    once._turned = lambda c, turns: calls.append(turns) or real(c, turns)
    assert once.classify(crops, TURNS) == once.classify(crops, 1)
    assert calls == [1, 1]
    assert not FaceClassifier("d6", taught=root / "taught").photos_once
    assert not FaceClassifier("d6").photos_once
    once.use_thresholds(TURNS, 0.9)  # teaching trying thresholds: read as asked
    assert not once.photos_once


def test_photos_of_many_dice_teach_with_fewer_crops_of_each():
    """48 crops of each die up to 100 dice; beyond, the crops in all stay about 4,800 (a
    table of 24 dice in 14 photos: 14 a die), so teaching time does not grow with the dice."""
    from lab.teach import CROP_BUDGET, copies_for

    assert [copies_for(n) for n in (1, 80, 100)] == [48, 48, 48]
    assert copies_for(336) == 14 and copies_for(336) * 336 <= CROP_BUDGET
    assert copies_for(5000) == 12  # never under MIN_COPIES
