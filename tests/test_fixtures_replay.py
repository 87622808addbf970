"""Recorded throw fixtures: complete, still where they say rest, regenerable from their seeds,
and (once the pipeline's models are on main) the coin-in-tray trouble sequence replays right.

The replay of the ordinary sequences and of hand-over-dice through the pipeline is in
tests/test_throw_fixtures.py; this file checks the recordings themselves.
"""

import itertools
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.dicesets import load

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "throws"
SEQUENCES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.json").exists())


def _meta(name):
    return json.loads((FIXTURES / name / "expected.json").read_text())


def _frame(name, i):
    img = cv2.imread(str(FIXTURES / name / f"{i:04d}.jpg"))
    assert img is not None, f"fixtures/throws/{name}/{i:04d}.jpg is missing or unreadable"
    return img


def test_every_set_and_both_trouble_cases_are_recorded():
    sets = {_meta(n)["dice_set"] for n in SEQUENCES}
    assert {"d6", "tally-up", "toss-up", "rollers"} <= sets
    assert {"hand-over-dice", "coin-in-tray"} <= set(SEQUENCES)
    size = sum(f.stat().st_size for f in FIXTURES.rglob("*") if f.is_file())
    assert size < 8_000_000


@pytest.mark.parametrize("name", SEQUENCES)
def test_sequence_is_complete_and_consistent(name):
    meta = _meta(name)
    ds = load(meta["dice_set"])
    assert meta["fps"] > 0
    frames = sorted((FIXTURES / name).glob("*.jpg"))
    assert [f.name for f in frames] == [f"{i:04d}.jpg" for i in range(meta["frames"])]
    assert _frame(name, 0).shape == (480, 640, 3)
    last = -1
    for throw in meta["throws"]:
        assert last < throw["rest_from"] <= throw["rest_to"] < meta["frames"]
        last = throw["rest_to"]
        for spec in throw["dice"]:
            die, face = spec.split(":", 1)
            assert ds.allows(die, face), f"{name}: {spec} is not a face of {ds.id}"


@pytest.mark.parametrize("name", SEQUENCES)
def test_resting_frames_are_still_and_the_throw_before_them_moves(name):
    meta = _meta(name)
    for throw in meta["throws"]:
        a, b = throw["rest_from"], throw["rest_to"]
        rest = [_frame(name, i).astype(np.int16) for i in range(a, b + 1)]
        for x, y in itertools.pairwise(rest):
            change = np.abs(x - y).max(axis=2)
            assert change.mean() < 6 and (change > 60).mean() < 0.0005, (
                f"{name}: frames {a}..{b} should be still (sensor noise only)"
            )
        if name != "hand-over-dice":  # its dice lie still from the start
            before = _frame(name, a - 6).astype(np.int16)  # mid-throw
            assert (np.abs(before - rest[0]).max(axis=2) > 60).mean() > 0.001


def test_regenerating_gives_the_same_recording(tmp_path):
    from lab.fixtures import SEQUENCES as SPECS
    from lab.fixtures import make_throws

    set_id, throws = SPECS["d6"]
    meta = make_throws("d6", set_id, throws, 1000, tmp_path)
    assert meta == _meta("d6")
    for i in (0, meta["throws"][0]["rest_from"], meta["frames"] - 1):
        again = cv2.imread(str(tmp_path / "d6" / f"{i:04d}.jpg")).astype(np.int16)
        assert np.abs(again - _frame("d6", i)).mean() < 1.0


def test_coin_in_tray_replays_to_the_dice_only():
    from vision.pipeline import Recognizer
    from vision.settle import Settler

    meta = _meta("coin-in-tray")
    rec = Recognizer(load(meta["dice_set"]))
    settler = Settler()
    rolls = []
    for i in range(meta["frames"]):
        roll = settler.update(rec.read(_frame("coin-in-tray", i)))
        if roll is not None:
            rolls.append((i, roll))
    assert len(rolls) == 1, [r.specs() for _, r in rolls]
    frame, roll = rolls[0]
    throw = meta["throws"][0]
    assert throw["rest_from"] <= frame < throw["rest_from"] + 5
    coin = meta["foreign"]
    on_coin = [
        d
        for d in roll.dice
        if coin["x"] <= d.centre[0] <= coin["x"] + coin["w"]
        and coin["y"] <= d.centre[1] <= coin["y"] + coin["h"]
    ]
    assert all(not d.read for d in on_coin), "the coin was read as a die face"
    assert sorted(roll.specs()) == sorted(throw["dice"])
