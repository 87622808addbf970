"""``dicetray recognize``: a photo it cannot read is said once, on stderr (before: on stderr
and again on stdout), and a --threshold that is no confidence is refused (before: NaN, 2 or
-1 were taken, and every face came out unread without a word)."""

from __future__ import annotations

import pytest

from vision.cli import main_recognize


def test_an_unreadable_photo_is_said_once_on_stderr(tmp_path, capsys):
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a photo\n")
    assert main_recognize([str(bad)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    said = f"dicetray recognize: {bad}: not an image OpenCV can read (or a damaged file)"
    assert err.splitlines() == [said + ": give JPEG or PNG photos"]


@pytest.mark.parametrize("value", ["nan", "2", "-1", "inf", "1.0000001"])
def test_a_threshold_that_is_no_confidence_is_refused(value, tmp_path, capsys):
    assert main_recognize([str(tmp_path / "a.jpg"), "--threshold", value]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert "is not a confidence: give a number from 0 to 1" in err


def test_dice_not_read_come_with_the_face_they_most_likely_show(tmp_path, capsys):
    """``--json``: a die under the confidence asked for is not read (face null) but carries
    ``guess``, the reader's best face, which the table offers first; here every die of a
    rendered photo, read at a threshold no die reaches, is guessed right."""
    import json

    import cv2
    import numpy as np

    from hardware.sim.render import render_scene
    from hardware.sim.styles import random_style
    from vision.dicesets import load

    rng = np.random.default_rng(3)
    dice = [("d6", face) for face in "2356"]
    frame, labels = render_scene(load("d6"), dice, rng, style=random_style(rng, die_px=(50, 70)))
    cv2.imwrite(str(tmp_path / "tray.png"), frame)
    assert main_recognize([str(tmp_path / "tray.png"), "--json", "--threshold", "1.0"]) == 0
    (result,) = json.loads(capsys.readouterr().out)
    assert [d["face"] for d in result["dice"]] == [None] * 4
    assert sorted(d["guess"] for d in result["dice"]) == sorted(lab["face"] for lab in labels)
