"""dicetray recognize reads each photo on its own, within bounded memory; bad dice-set files."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from hardware.sim.render import render_scene
from hardware.sim.styles import random_style
from tray.cli import main
from vision import cli as vcli
from vision.dicesets import DiceSetError, load


def _scene(tmp_path, name="scene.jpg"):
    rng = np.random.default_rng(5)
    frame, _ = render_scene(
        load("d6"), [("d6", "3"), ("d6", "5")], rng, style=random_style(rng, (45, 60))
    )
    path = tmp_path / name
    cv2.imwrite(str(path), frame)
    return path, frame


def _claiming(tmp_path, w, h):
    """A real little JPEG whose header claims ``w`` x ``h`` pixels."""
    _, data = cv2.imencode(".jpg", np.full((16, 16, 3), 128, np.uint8))
    data = bytearray(data.tobytes())
    sof = data.index(b"\xff\xc0")
    data[sof + 5 : sof + 9] = h.to_bytes(2, "big") + w.to_bytes(2, "big")
    path = tmp_path / f"claims-{w}x{h}.jpg"
    path.write_bytes(bytes(data))
    return path


def test_bad_photos_get_an_error_entry_and_the_others_are_read(tmp_path, capsys):
    good, _ = _scene(tmp_path)
    bad = []
    for w, h in ((1, 1), (3, 3), (1, 5000), (5000, 1)):
        p = tmp_path / f"{w}x{h}.png"
        cv2.imwrite(str(p), np.full((h, w, 3), 200, np.uint8))
        bad.append(p)
    bad.append(_claiming(tmp_path, 65000, 65000))
    names = [str(p) for p in bad[:2]] + [str(good)] + [str(p) for p in bad[2:]]
    assert main(["recognize", *names, "--dice-set", "d6", "--json", "--fast"]) == 2
    out = capsys.readouterr()
    entries = json.loads(out.out)
    assert [e["image"] for e in entries] == names
    by_name = {e["image"]: e for e in entries}
    assert len(by_name[str(good)]["dice"]) == 2
    for p in bad:
        assert "error" in by_name[str(p)], by_name[str(p)]
    assert "too small" in by_name[str(bad[0])]["error"]
    assert "too large" in by_name[str(bad[-1])]["error"]
    assert "Traceback" not in out.err and out.err.count("\n") == len(bad)


def test_a_large_photo_is_decoded_reduced_and_boxes_come_back_in_its_pixels(tmp_path, monkeypatch):
    path, frame = _scene(tmp_path)
    big = cv2.resize(frame, (frame.shape[1] * 4, frame.shape[0] * 4))
    cv2.imwrite(str(path), big)
    monkeypatch.setattr(vcli, "DECODE_SIDE", big.shape[1] // 4)
    decoded, scale = vcli.read_photo(str(path))
    assert decoded.shape[:2] == frame.shape[:2] and scale == 4.0


@pytest.mark.parametrize(
    "text, words",
    [
        ('id = "x"\ndie = [1, 2]\n[faces]\none = { mark = "pips", count = 1 }\n', "[[die]] table"),
        (
            (
                'id = "x"\n[faces]\none = { mark = "pips", count = 1 }\n[[die]]\nid = "a"\n'
                'body = "#ffffff"\nink = "#000000"\n'
                'faces = [[1], "one", "one", "one", "one", "one"]\n'
            ),
            "not in [faces]",
        ),
        ('id = "x"\n[faces]\none = { mark = "pips", count = true }\n', "count must be"),
        ("x = " + "[" * 50_000 + "]" * 50_000 + "\n", "nest far too deeply"),
    ],
)
def test_bad_dice_set_files_are_a_clear_error(tmp_path, capsys, text, words):
    p = tmp_path / "mine.toml"
    p.write_text(text)
    with pytest.raises(DiceSetError, match=words.replace("[", r"\[")):
        load(p)
    assert main(["recognize", str(p), "--dice-set", str(p)]) == 2
    err = capsys.readouterr().err
    assert "mine.toml" in err and "Traceback" not in err
