"""dicetray recognize / eval / bench: the exact output forms others read."""

import csv
import json
from pathlib import Path

import cv2
import numpy as np

from hardware.sim.render import render_scene
from hardware.sim.styles import random_style
from tray.cli import main
from vision.dicesets import load

REALDICE_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "realdice"


def _image(tmp_path, set_id, dice, name="scene.jpg", seed=5):
    rng = np.random.default_rng(seed)
    frame, labels = render_scene(load(set_id), dice, rng, style=random_style(rng, (45, 60)))
    path = tmp_path / name
    cv2.imwrite(str(path), frame)
    return str(path), labels


def test_recognize_json_form(tmp_path, capsys):
    p1, _labels = _image(tmp_path, "tally-up", [("red", "star"), ("up", "x2")])
    p2, _ = _image(tmp_path, "tally-up", [("blue", "100")], "b.jpg", seed=6)
    assert main(["recognize", p1, p2, "--dice-set", "tally-up", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [o["image"] for o in out] == [p1, p2]
    for obj in out:
        for d in obj["dice"]:
            assert set(d) == {"x", "y", "w", "h", "die", "face", "confidence"}
            assert all(isinstance(d[k], int) for k in "xywh")
            assert d["face"] is None or isinstance(d["face"], str)
            assert 0 <= d["confidence"] <= 1
    assert len(out[0]["dice"]) == 2 and len(out[1]["dice"]) == 1
    read = {(d["die"], d["face"]) for d in out[0]["dice"] if d["face"]}
    assert read <= {("red", "star"), ("up", "x2")}


def test_recognize_reports_a_bad_image_and_still_reads_the_others(tmp_path, capsys):
    good, _ = _image(tmp_path, "d6", [("d6", "3")])
    bad = tmp_path / "not-an-image.jpg"
    bad.write_text("hello")
    code = main(["recognize", str(bad), good, "--dice-set", "d6", "--json"])
    captured = capsys.readouterr()
    assert code == 2
    assert "not an image" in captured.err
    out = json.loads(captured.out)
    assert [o["image"] for o in out] == [str(bad), good] and "error" in out[0]


def test_recognize_reads_a_folder_of_photos_and_says_when_a_folder_has_none(tmp_path, capsys):
    (tmp_path / "tray" / "images").mkdir(parents=True)
    two, _ = _image(tmp_path / "tray" / "images", "d6", [("d6", "3"), ("d6", "5")], "b.jpg")
    one, _ = _image(tmp_path / "tray" / "images", "d6", [("d6", "2")], "a.png", seed=6)
    (tmp_path / "tray" / "images" / "notes.txt").write_text("not a photo")
    (tmp_path / "empty").mkdir()
    # a labelled folder: its images/, photos by name, other files left out
    assert main(["recognize", str(tmp_path / "tray"), str(tmp_path / "empty"), "--json"]) == 2
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert [o["image"] for o in out] == [one, two, str(tmp_path / "empty")]
    assert [len(o["dice"]) for o in out[:2]] == [1, 2]
    assert "a folder without photos in it" in out[2]["error"] in captured.err


def test_recognize_unknown_dice_set_is_a_clear_error(tmp_path, capsys):
    good, _ = _image(tmp_path, "d6", [("d6", "3")])
    assert main(["recognize", good, "--dice-set", "yahtzee"]) == 2
    assert "unknown dice set 'yahtzee'" in capsys.readouterr().err


def test_eval_prints_its_figures(capsys):
    assert (
        main(["eval", "--sets", "toss-up", "--n", "3", "--throws", "1", "--no-real", "--json"]) == 0
    )
    report = json.loads(capsys.readouterr().out)
    for path in ("rendered", "rendered_photo"):
        fig = report[path]["toss-up"]
        assert {"recall", "precision", "face_accuracy", "abstained", "confusion"} <= set(fig)
        assert fig["labelled"] > 0
    assert {"rolls", "wrong_faces_when_sure", "frames_rest_to_roll_median"} <= set(
        report["throws"]["toss-up"]
    )
    lamp = report["lamp"]["toss-up"]  # the same throw with a lamp switched on mid-throw
    assert lamp["throws"] == 1 and lamp["wrong_faces_when_sure"] == 0
    lights = report["far_light"]["toss-up"]  # a lamp far from the white balance, both ways
    assert set(lights) == {"warm lamp (warmth 3)", "cold light (warmth -3)"}
    assert all(f["labelled"] > 0 and f["wrong_count"] == 0 for f in lights.values())
    odd = report["odd_floor"]["toss-up"]  # trays unlike the named floors
    assert odd["labelled"] > 0 and odd["wrong_count"] == 0


def test_bench_json_form(capsys):
    assert main(["bench", "--frames", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["frame_ms"]) == {"2", "6", "10"}
    assert all(v > 0 for v in result["frame_ms"].values())
    assert result["classifier_ms_per_die"] > 0


def test_recognize_real_photos_json_form_finds_the_labelled_dice(capsys):
    images = sorted(str(p) for p in REALDICE_FIXTURES.glob("*.jpg"))
    assert main(["recognize", *images, "--dice-set", "d6", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [o["image"] for o in out] == images
    labels: dict[str, list] = {}
    with open(REALDICE_FIXTURES / "labels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            labels.setdefault(row["file"], []).append(row)
    found = total = 0
    for obj in out:
        for d in obj["dice"]:
            assert set(d) == {"x", "y", "w", "h", "die", "face", "confidence"}
            assert d["die"] in (None, "d6") and d["face"] in (None, "1", "2", "3", "4", "5", "6")
        for row in labels[Path(obj["image"]).name]:
            cx = float(row["x"]) + float(row["w"]) / 2
            cy = float(row["y"]) + float(row["h"]) / 2
            total += 1
            found += any(
                d["x"] <= cx <= d["x"] + d["w"] and d["y"] <= cy <= d["y"] + d["h"]
                for d in obj["dice"]
            )
    assert total == 5 and found >= 4


def test_the_dark_dice_rows_draw_dark_dice_on_a_white_tray_and_read_them():
    """``dicetray eval``'s dark-dice rows (d6 only): the set drawn dark with coloured marks
    (``lab.evaluate.dark_dice``, its doctest), on a white or paper tray, read as the d6 set."""
    import doctest

    from lab import evaluate

    assert doctest.testmod(evaluate).failed == 0
    fig = evaluate.eval_rendered("d6", 4, dark=True)
    assert fig["labelled"] > 0 and fig["matched"] > 0
    assert fig["face_accuracy"] > 0.5
