"""hardware.guard.Guarded on pictures that cannot show dice: a camera sending 1x1 (or any
too small) pictures, or one flat colour, is said like a black, white or noise picture, and
nothing it sends crashes the guard (before: such frames were passed on silently, no message
and no rolls)."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

from hardware.frames import FrameSource
from hardware.guard import PICTURE_FLAT, Guarded, picture_fault
from tray.app.session import Session
from tray.layouts import default_layout
from tray.rules.journal import Journal
from tray.table.table import Table
from vision.types import FrameReading

GOOD = np.full((480, 640, 3), 90, np.uint8)
GOOD[200:260, 300:360] = 230  # something to see


class Script(FrameSource):
    def __init__(self, items):
        self.items = list(items)

    def read(self, timeout=1.0):
        return self.items.pop(0)() if self.items else None


TINY = [
    lambda: np.full((1, 1, 3), 128, np.uint8),
    lambda: np.full((1, 1), 128, np.uint8),  # grey
    lambda: np.full((1, 1, 4), 128, np.uint8),  # BGRA
    lambda: np.full((1, 1, 3), np.nan, np.float32),
    lambda: np.ones((1, 1, 3), bool),
    lambda: np.full((1, 640, 3), 128, np.uint8),  # one line
    lambda: np.full((31, 40, 3), 128, np.uint8),
]


@pytest.mark.parametrize("make", TINY)
def test_a_picture_too_small_to_show_dice_is_said(make):
    cam = Guarded(Script([make, lambda: GOOD]))
    assert cam.read() is None
    h, w = make().shape[:2]
    assert cam.status.startswith(f"The camera sends pictures of {w}x{h} pixels: too small")
    assert cam.faulty_pictures == 1
    assert cam.read() is not None and cam.status is None  # the picture came back


FLAT = [
    lambda: np.full((480, 640, 3), 128, np.uint8),  # flat grey
    lambda: np.full((480, 640, 3), (0, 128, 0), np.uint8),  # flat green
    lambda: np.full((240, 320), 77, np.uint8),  # flat grey, grey and smaller
    lambda: np.full((480, 640, 3), 0.5, np.float32),  # flat grey, floats in 0..1
    lambda: np.full((32, 32, 3), 128, np.uint8),  # large enough, but flat
]


@pytest.mark.parametrize("make", FLAT)
def test_a_flat_picture_is_said(make):
    cam = Guarded(Script([make, lambda: GOOD]))
    assert cam.read() is None and cam.status == PICTURE_FLAT and cam.faulty_pictures == 1
    assert cam.read() is not None and cam.status is None


def test_an_even_picture_with_sensor_noise_is_a_tray_not_a_fault():
    """An empty tray of one felt colour still has the camera's noise: it is read."""
    rng = np.random.default_rng(0)
    felt = np.clip(rng.normal(90, 1.5, (480, 640, 3)), 0, 255).astype(np.uint8)
    assert picture_fault(felt) is None
    assert Guarded(Script([lambda: felt])).read() is not None


class Seen:
    def __init__(self):
        self.frames = []

    def read(self, frame):
        self.frames.append(frame)
        return FrameReading((), empty=True)


class NoSettle:
    status = "empty"

    def update(self, reading):
        return None


def test_the_table_shows_the_fault_and_goes_on(tmp_path):
    j = Journal.create(tmp_path / "g.jsonl", "bank", ["Ana", "Ben"], {}, default_layout("bank"))
    table = Table(j)
    rec = Seen()
    items = [TINY[0]] * 5 + [lambda: GOOD] + [FLAT[0]] * 5 + [lambda: GOOD]
    s = Session(table, Guarded(Script(items)), rec, NoSettle(), read_timeout=0.0, lost_after=0.1)
    t, shown = 0.0, []
    for _ in range(len(items)):
        s.step(t)
        if table.message is not None and table.message.kind == "camera":
            shown.append(table.message.text)
        t += 0.05
    assert any(m.startswith("The camera sends pictures of 1x1 pixels") for m in shown)
    assert PICTURE_FLAT in shown
    assert len(rec.frames) == 2  # only the good frames were read
    assert table.message is None  # the good frame cleared the camera message
