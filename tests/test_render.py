"""Renderer: same seed same frame, labels where the dice are drawn, throws in phases."""

import itertools

import numpy as np
import pytest

from hardware.sim.render import compose, place_dice, render_scene, render_throw
from hardware.sim.styles import Style, random_style
from vision.dicesets import SET_IDS, load


def _dice(ds, n):
    out = []
    for d in ds.dice:
        for k in range(d.count):
            out.append((d.id, d.faces[k % 6]))
    return out[:n]


def test_same_seed_same_frame_other_seed_other_frame():
    ds = load("tally-up")
    dice = _dice(ds, 4)
    a, la = render_scene(ds, dice, np.random.default_rng(7))
    b, lb = render_scene(ds, dice, np.random.default_rng(7))
    c, _ = render_scene(ds, dice, np.random.default_rng(8))
    assert (a == b).all() and la == lb
    assert a.shape == (480, 640, 3) and a.dtype == np.uint8
    assert (a != c).any()


@pytest.mark.parametrize("set_id", SET_IDS)
def test_labels_in_order_inside_frame_and_on_the_dice(set_id):
    ds = load(set_id)
    dice = _dice(ds, 5)
    rng = np.random.default_rng(11)
    style = Style(noise=0.0, jpeg=0, glare=0.0, die_px=(40.0, 60.0))
    poses = place_dice(ds, dice, rng, style)
    frame, labels = compose(ds, poses, rng, style)
    empty, _ = compose(ds, [], rng, style)
    assert [(lab["die"], lab["face"]) for lab in labels] == dice
    changed = np.abs(frame.astype(int) - empty.astype(int)).sum(2) > 30
    for lab in labels:
        x, y, w, h = lab["x"], lab["y"], lab["w"], lab["h"]
        assert 0 <= x and 0 <= y and x + w <= 640 and y + h <= 480
        assert 30 <= w <= 90 and 30 <= h <= 90
        inner = changed[y + h // 4 : y + 3 * h // 4, x + w // 4 : x + 3 * w // 4]
        assert inner.mean() > 0.5, f"nothing drawn inside the box of {lab}"
    # outside every (slightly grown) box, the dice change little (only shadows)
    outside = np.ones_like(changed)
    for lab in labels:
        g = int(0.3 * lab["w"]) + 4
        outside[
            max(0, lab["y"] - g) : lab["y"] + lab["h"] + g,
            max(0, lab["x"] - g) : lab["x"] + lab["w"] + g,
        ] = False
    assert changed[outside].mean() < 0.01


def test_dice_do_not_overlap():
    ds = load("toss-up")
    rng = np.random.default_rng(3)
    style = random_style(rng, die_px=(50.0, 60.0))
    _, labels = render_scene(ds, _dice(ds, 10), rng, style=style)
    assert len(labels) == 10
    centres = [(lab["x"] + lab["w"] / 2, lab["y"] + lab["h"] / 2) for lab in labels]
    for i in range(10):
        for j in range(i + 1, 10):
            d = np.hypot(centres[i][0] - centres[j][0], centres[i][1] - centres[j][1])
            assert d > 40  # sides are at least 50 px: centres cannot come closer than that


def test_unknown_die_is_a_clear_error():
    with pytest.raises(KeyError, match="no die 'purple'"):
        render_scene(load("d6"), [("purple", "1")], np.random.default_rng(0))


def test_throw_phases_in_order_and_rest_frames_still():
    ds = load("d6")
    rng = np.random.default_rng(5)
    style = Style(noise=0.0, jpeg=0, die_px=(40.0, 50.0))
    seq = list(render_throw(ds, [("d6", "2"), ("d6", "6")], rng, style=style, rest_frames=5))
    phases = [t["phase"] for _, t in seq]
    assert [t["frame"] for _, t in seq] == list(range(len(seq)))
    order = [p for i, p in enumerate(phases) if i == 0 or phases[i - 1] != p]
    assert order == ["empty", "moving", "rest", "hand", "empty"]
    assert phases.count("rest") == 5
    rest = [(f, t) for f, t in seq if t["phase"] == "rest"]
    assert all(t["labels"] == rest[0][1]["labels"] for _, t in rest)
    assert [(lab["die"], lab["face"]) for lab in rest[0][1]["labels"]] == [("d6", "2"), ("d6", "6")]
    assert max(np.abs(f.astype(int) - rest[0][0]).max() for f, _ in rest) == 0
    moving = [f for f, t in seq if t["phase"] == "moving"]
    steps = [np.abs(a.astype(int) - b.astype(int)).mean() for a, b in itertools.pairwise(moving)]
    assert max(steps) > 1.0  # the dice really move
    assert seq[-1][1]["labels"] == []
    assert np.abs(seq[-1][0].astype(int) - seq[0][0].astype(int)).max() == 0  # tray empty again


def test_throw_without_hand_ends_at_rest():
    seq = list(
        render_throw(
            load("toss-up"), [("toss", "red")], np.random.default_rng(1), rest_frames=3, hand=False
        )
    )
    assert seq[-1][1]["phase"] == "rest"
    assert "hand" not in {t["phase"] for _, t in seq}


def test_odd_floors_are_drawn_only_when_asked_for():
    """The detector's training puts some trays on odd floors (hardware.sim.styles.ODD_FLOORS: a
    grain as fine as pips, a printed board, speckle); no seeded style draws them, so the held-out
    scenes of ``dicetray eval`` keep their frames, and each odd floor has a pattern of its own."""
    from dataclasses import replace

    from hardware.sim.styles import ODD_FLOORS, Style, odd_floor_style, random_style, tray_floor

    rng = np.random.default_rng(0)
    assert not {random_style(rng, wide=w).floor for w in (True, False) for _ in range(300)} & set(
        ODD_FLOORS
    )

    def texture(style):  # the floor's spread of levels against its level, per colour
        f = tray_floor(replace(style, rim=0, gradient=(0.0, 0.0)), 320, 240)
        return float((f.std(axis=(0, 1)) / f.mean(axis=(0, 1))).mean())

    plain = texture(Style())
    seen = set()
    for i in range(12):
        style = odd_floor_style(Style(seed=i), np.random.default_rng(i))
        seen.add(style.floor)
        assert texture(style) > 1.1 * plain
    assert seen == set(ODD_FLOORS)
