"""The fixed split of the real photo sets (lab.splits): every photo is in one part (train,
calibrate, judge), copies of a photo never straddle two, the split does not move, and the
thresholds are set on calibrate photos only (lab.train)."""

from __future__ import annotations

import json
import shutil
from collections import defaultdict

import numpy as np
import pytest
import realdicekit

from lab import splits
from lab.labels import REALDICE_DIR
from lab.photos import read_chase, read_matteop65, read_rune55


@pytest.fixture(scope="module")
def realdice(tmp_path_factory):
    root = tmp_path_factory.mktemp("realdice")
    dice = realdicekit.build(root)
    return root, dice


def test_every_file_is_in_one_part_and_no_group_straddles_two(realdice):
    root, dice = realdice
    got = splits.entries(root)
    assert {e.source for e in got.values()} == set(dice)
    assert {e.part for e in got.values()} == set(splits.PARTS)
    parts_of_group = defaultdict(set)
    for e in got.values():
        parts_of_group[(e.set, e.group)].add(e.part)
    assert all(len(p) == 1 for p in parts_of_group.values())
    # Roboflow copies share a base name; an i_single copy (flipped) is found by its look
    assert got[("rune55_gray", "00001_jpg.rf.bbb.jpg")].group == "00001"
    a, b = got[("rune55_gray", "i_jpg.rf.p01.jpg")], got[("rune55_gray", "i_jpg.rf.p02.jpg")]
    assert a.group == b.group and a.part == b.part == "train"
    # the copy alone would have been held out; its group trains, so it does too
    assert splits.rune55_split("i_jpg.rf.p02.jpg") == "valid"
    # the authors' splits: matteop65 train trains; chase val calibrates, test judges
    assert got[("matteop65_webcam", "train_dice_1.jpg")].part == "train"
    assert {e.part for k, e in got.items() if k[1].startswith("val_")} == {"calibrate"}
    assert {e.part for k, e in got.items() if k[1].startswith("test_")} == {"judge"}


def test_the_split_is_stable(realdice, tmp_path):
    root, _ = realdice
    first = splits.entries(root)
    copy = tmp_path / "again"
    shutil.copytree(root, copy)  # another folder, files written again: the same parts
    again = splits.entries(copy)
    assert {k: e.part for k, e in first.items()} == {k: e.part for k, e in again.items()}
    # halving by the name's SHA-256: pinned, as models' cards and eval rows depend on it
    assert [splits.half(f"valid_{k}.jpg") for k in range(1, 7)] == [
        "judge",
        "judge",
        "judge",
        "calibrate",
        "calibrate",
        "calibrate",
    ]
    # the readers carry the part of each crop
    crops = read_matteop65(root / "matteop65_webcam", size=32)
    assert {c.part for c in crops} == {"train", "calibrate", "judge"}
    assert all(c.part == first[("matteop65_webcam", c.file)].part for c in crops)
    assert {c.part for c in read_rune55(root / "rune55_gray", size=32)} <= set(splits.PARTS)
    assert [c.part for c in read_chase(root / "chase_casino_crops", size=32)] == [
        "train",
        "train",
        "calibrate",
        "calibrate",
        "judge",
        "judge",
    ]


@pytest.mark.skipif(
    not (REALDICE_DIR / "rune55_gray").exists(),
    reason=f"the real photo sets are not shipped; looked for in {REALDICE_DIR}",
)
def test_the_real_sets_split_as_the_model_card_says():
    got = splits.table(REALDICE_DIR)
    photos = {s: {p: c["photos"] for p, c in parts.items()} for s, parts in got.items()}
    assert photos == {
        "matteop65_webcam": {"train": 310, "calibrate": 45, "judge": 41},
        "numeric_tube": {"train": 259, "calibrate": 24, "judge": 41},
        "PXL_phone": {"train": 21, "calibrate": 4, "judge": 3},
        "i_single": {"train": 86, "calibrate": 8, "judge": 10},
        "randomid_single": {"train": 74, "calibrate": 8, "judge": 11},
        "IMG_phone": {"train": 14, "calibrate": 1, "judge": 3},
        "chase_casino_crops": {"train": 110, "calibrate": 59, "judge": 110},
    }


def test_thresholds_are_set_on_calibrate_photos_only(realdice, tmp_path):
    """lab.trainset.real_calibration reads the calibrate photos alone (at the detector's
    boxes), and calibrate_file refuses crops of any other photo before it writes a card."""
    from lab.calibrate import Calibration, calibrate_file
    from lab.trainset import Crops, real_calibration
    from vision.classcard import model_paths

    root, _ = realdice
    parts = {f"{k[0]}/{k[1]}": e.part for k, e in splits.entries(root).items()}
    real = real_calibration(root, size=64)
    for path in ("camera", "photo"):
        files = set(real[path].file)
        assert files and {parts[f] for f in files} == {"calibrate"}
        assert len(real[path]) == len(real[path].group) == len(real[path].side)
    # every calibrate photo of a photo set gave dice; chase's two val crops are there
    wanted = {f for f, p in parts.items() if p == "calibrate"}
    assert set(real["photo"].file) == wanted

    # a judge photo slipped into the data: refused, and the card is left as it was
    judge = next(f for f, p in parts.items() if p == "judge")
    bad = Crops(
        np.zeros((1, 64, 64, 3), np.uint8),
        np.zeros(1, np.int64),
        np.zeros(1, np.int64),
        ["matteop65_webcam"],
        np.zeros(1),
        [judge],
    )
    onnx_path, meta_path = model_paths("d6")
    shutil.copy(onnx_path, tmp_path / onnx_path.name)
    shutil.copy(meta_path, tmp_path / meta_path.name)
    before = (tmp_path / meta_path.name).read_text()
    data = Calibration(None, None, {"camera": bad, "photo": Crops.join([real["photo"], bad])})
    with pytest.raises(ValueError, match="not calibrate photos"):
        calibrate_file("d6", tmp_path, data, realdice=root)
    with pytest.raises(ValueError):
        calibrate_file("d6", tmp_path, data)  # no folder to check the parts against
    assert (tmp_path / meta_path.name).read_text() == before
    # the calibrate photos alone: thresholds set, the card says on what
    card = calibrate_file("d6", tmp_path, Calibration(None, None, real), realdice=root)
    assert set(card["turned"]["set_on"]) <= set(splits.SOURCES)
    assert card["real_photos"]["per_source"]["matteop65_webcam"]["calibrate"]["photos"] == 3
    assert json.loads((tmp_path / meta_path.name).read_text())["bound"] == card["bound"]
