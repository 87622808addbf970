"""Face art: every face of every shipped set renders, differs from its die's other faces,
and edited dice-set data renders with no code change."""

import numpy as np
import pytest

from vision.dicesets import SET_IDS, load, parse
from vision.faceart import draw_face, draw_side, face_rgba


def _faces(ds):
    for die in ds.dice:
        yield die, list(dict.fromkeys(die.faces))


@pytest.mark.parametrize("set_id", SET_IDS)
def test_every_face_renders_and_differs_from_its_siblings(set_id):
    ds = load(set_id)
    for die, faces in _faces(ds):
        imgs = {f: draw_face(ds, die.id, f, 48).astype(np.int16) for f in faces}
        for f, img in imgs.items():
            assert img.shape == (48, 48, 3)
            assert img.std() > 8, f"{die.id}:{f} shows no mark"
        for i, a in enumerate(faces):
            for b in faces[i + 1 :]:
                differ = (np.abs(imgs[a] - imgs[b]).max(2) > 40).mean()
                assert differ > 0.01, f"{set_id} {die.id}: faces {a} and {b} look the same"


def test_circled_number_differs_from_plain_mostly_at_the_ring():
    ds = load("tally-up")
    plain = draw_face(ds, "red", "200", 64).astype(int)
    ring = draw_face(ds, "red", "(200)", 64).astype(int)
    changed = np.abs(plain - ring).sum(2) > 60
    yy, xx = np.mgrid[0:64, 0:64]
    r = np.hypot(xx - 31.5, yy - 31.5)
    assert changed.any()
    assert (r[changed] > 18).mean() > 0.8  # the change is the ring, not the number


def test_pips_count_matches_dark_blobs():
    import cv2

    ds = load("d6")
    for n in range(1, 7):
        img = draw_face(ds, "d6", str(n), 96)
        dark = (cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) < 80).astype(np.uint8)
        dark[:8], dark[-8:], dark[:, :8], dark[:, -8:] = 0, 0, 0, 0  # ignore the edge
        count, _ = cv2.connectedComponents(dark)
        assert count - 1 == n


def test_edited_set_with_new_face_and_colour_renders(tmp_path):
    text = """
id = "custom"
[faces]
"skull" = { mark = "text", text = "RIP" }
"blue" = { mark = "light", color = "#2040e0" }
"7" = { mark = "pips", count = 7 }
"(9)" = { mark = "number", text = "9", circle = true }
[[die]]
id = "teal"
body = "#108080"
ink = "#f0f0f0"
faces = ["skull", "blue", "7", "(9)", "7", "7"]
"""
    p = tmp_path / "custom.toml"
    p.write_text(text)
    ds = load(p)
    imgs = [draw_face(ds, "teal", f, 40).astype(int) for f in ("skull", "blue", "7", "(9)")]
    assert tuple(imgs[0][20, 2]) != tuple(draw_face(load("d6"), "d6", "1", 40)[20, 2])
    centre = imgs[1][16:24, 16:24].reshape(-1, 3).mean(0)
    assert centre[0] > 150 and centre[2] < 90  # the blue light, in BGR
    for i in range(4):
        for j in range(i + 1, 4):
            assert (np.abs(imgs[i] - imgs[j]).max(2) > 40).mean() > 0.01


def test_cache_and_rng_variation():
    ds = load("rollers")
    a, _ = face_rgba(ds, "black", "zap", 32)
    b, _ = face_rgba(ds, "black", "zap", 32)
    assert a is b  # cached
    assert not a.flags.writeable
    r1 = draw_face(ds, "black", "zap", 32, np.random.default_rng(1))
    r2 = draw_face(ds, "black", "zap", 32, np.random.default_rng(1))
    r3 = draw_face(ds, "black", "zap", 32, np.random.default_rng(2))
    assert (r1 == r2).all() and (r1 != r3).any()


def test_clear_errors_and_side_strip():
    ds = load("toss-up")
    with pytest.raises(ValueError, match="no face 'blue'"):
        draw_face(ds, "toss", "blue")
    with pytest.raises(ValueError, match="no die 'red'"):
        draw_face(ds, "red", "green")
    with pytest.raises(ValueError, match="at least 8 px"):
        draw_face(ds, "toss", "green", 4)
    side = draw_side(ds, "toss", "red", 30, 6, light=0.5)
    assert side.shape == (6, 30, 3)
    assert side.mean() < draw_face(ds, "toss", "red", 30).mean()


def test_parse_is_the_only_source_of_looks():
    data = {
        "id": "x",
        "faces": {"a": {"mark": "star", "color": "#ff0000"}},
        "die": [{"id": "d", "body": "#000000", "ink": "#ffffff", "faces": ["a"] * 6}],
    }
    ds = parse(data)
    img = draw_face(ds, "d", "a", 32)
    assert img[16, 16, 2] > 200 and img[16, 16, 0] < 60  # red star in the middle
