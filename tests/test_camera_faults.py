"""Camera faults never end a game: hardware.guard.Guarded and the app loop around it."""

from __future__ import annotations

import os

import cv2
import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

from hardware.frames import FrameSource
from hardware.guard import (
    BAD_FRAME,
    CAMERA_LOST,
    PICTURE_BLACK,
    PICTURE_NOISE,
    PICTURE_WHITE,
    Guarded,
)
from hardware.replay import ReplaySource
from tray.app.session import Session
from tray.layouts import default_layout
from tray.rules.journal import Journal
from tray.table.table import Table
from vision.types import FrameReading

GOOD = np.full((480, 640, 3), 90, np.uint8)
GOOD[200:260, 300:360] = 230  # something to see
NOISE = np.random.default_rng(1).integers(0, 256, (480, 640, 3), dtype=np.uint8)


def _raise(exc):
    def f():
        raise exc

    return f


FAULTS = [
    (_raise(RuntimeError("libcamera: request failed")), CAMERA_LOST),
    (_raise(OSError(19, "No such device")), CAMERA_LOST),
    (_raise(cv2.error("OpenCV(4.x) error: (-215)")), CAMERA_LOST),
    (lambda: np.zeros((0, 0, 3), np.uint8), BAD_FRAME),
    (lambda: np.zeros((480, 640, 2), np.uint8), BAD_FRAME),
    (lambda: np.zeros((480, 640, 3), np.uint8), PICTURE_BLACK),
    (lambda: np.full((480, 640, 3), 255, np.uint8), PICTURE_WHITE),
    (lambda: NOISE, PICTURE_NOISE),
]
CONVERTED = [
    lambda: GOOD[:, :, 1],  # grey
    lambda: cv2.cvtColor(GOOD, cv2.COLOR_BGR2BGRA),  # BGRA
    lambda: GOOD.astype(np.float32),  # float 0..255
    lambda: GOOD.astype(np.float64) / 255.0,  # float 0..1
    lambda: cv2.resize(GOOD, (320, 240)),  # another size
]


class Script(FrameSource):
    def __init__(self, items):
        self.items = list(items)

    def read(self, timeout=1.0):
        return self.items.pop(0)() if self.items else None


@pytest.mark.parametrize("make, status", FAULTS)
def test_a_fault_is_a_status_not_an_exception(make, status):
    cam = Guarded(Script([make, lambda: GOOD]))
    assert cam.read() is None and cam.status == status
    assert cam.read() is not None and cam.status is None  # the picture came back


@pytest.mark.parametrize("make", CONVERTED)
def test_odd_frames_are_converted_to_bgr_640x480(make):
    frame = Guarded(Script([make])).read()
    assert frame.shape == (480, 640, 3) and frame.dtype == np.uint8
    assert abs(int(frame[230, 330, 1]) - 230) <= 2 and abs(int(frame[10, 10, 0]) - 90) <= 2


class Seen:
    """A recognizer that records the frames it was given."""

    def __init__(self):
        self.frames = []

    def read(self, frame):
        self.frames.append(frame)
        return FrameReading((), empty=True)


class NoSettle:
    status = "empty"

    def update(self, reading):
        return None


def test_the_loop_survives_every_fault_and_shows_what_is_wrong(tmp_path):
    j = Journal.create(tmp_path / "g.jsonl", "bank", ["Ana", "Ben"], {}, default_layout("bank"))
    j.append({"type": "roll", "dice": ["d6:3", "d6:4"]})
    table = Table(j)
    rec = Seen()
    items = []
    for make, _ in FAULTS:
        items += [make] * 5 + [lambda: GOOD]
    s = Session(table, Guarded(Script(items)), rec, NoSettle(), read_timeout=0.0, lost_after=0.1)
    t, shown = 0.0, set()
    for _ in range(len(items)):
        s.step(t)
        if table.message is not None and table.message.kind == "camera":
            shown.add(table.message.text)
        t += 0.05
    assert shown == {status for _, status in FAULTS}
    assert table.state["total"] == 70 and len(Journal.open(j.path).events) == 1  # game kept
    assert len(rec.frames) == len(FAULTS)  # only the good frames were read
    assert all(f.shape == (480, 640, 3) and f.dtype == np.uint8 for f in rec.frames)
    assert table.message is None  # the good frame cleared the camera message


def test_a_bad_frame_in_a_replay_folder_is_skipped_and_counted(tmp_path):
    for i in range(4):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), GOOD)
    (tmp_path / "f2.png").write_bytes(b"\x89PNG\r\n\x1a\n this is not a picture")
    src = ReplaySource(tmp_path, realtime=False)
    frames = list(src.frames())
    assert len(frames) == 3 and src.skipped == [tmp_path / "f2.png"]


def _bank_table(tmp_path, frames, recognizer):
    """A Bank table fed ``frames`` (callables) through the real Session loop:
    (table, session, rolls settled)."""
    from vision.settle import Settler

    table = Table(
        Journal.create(tmp_path / "g.jsonl", "bank", ["Ana", "Ben"], {}, default_layout("bank"))
    )
    settled = []
    s = Session(table, Script(frames), recognizer, Settler(), read_timeout=0.0)
    s.on_settled = lambda roll, t: settled.append(roll)
    return table, s, settled


def _steps(s, table, n: int, t: float, dt: float) -> tuple[list, float]:
    """``n`` turns of the loop ``dt`` seconds apart from ``t``: (the message after each, t)."""
    said = []
    for _ in range(n):
        s.step(t, draw=False)
        said.append(table.message.text if table.message else None)
        t += dt
    return said, t


def test_a_shaking_camera_is_said_on_screen_and_play_goes_on_once_it_is_firm(tmp_path):
    """A camera shaking by more than the pipeline takes out (``vision.detect.SHAKE_PX``: a
    pixel or two is, see tests/test_pipeline.py) makes every frame "moving", and no roll is
    taken; after SHAKY_S seconds of it the screen says why, and the message goes as soon as
    the picture keeps still and the throw settles."""
    from hardware.sim.render import render_scene
    from tray.table.moments import SHAKY_S, SHAKY_TEXT
    from vision.detect import SHAKE_PX
    from vision.dicesets import load
    from vision.pipeline import Recognizer

    frame, _ = render_scene(load("d6"), [("d6", "3"), ("d6", "5")], np.random.default_rng(4))
    step = int(SHAKE_PX) + 2
    moves = [(step, 0), (0, step), (-step, 0), (0, -step)] * 10

    def shaken(dx, dy):
        return cv2.warpAffine(
            frame, np.float32([[1, 0, dx], [0, 1, dy]]), (640, 480), borderMode=cv2.BORDER_REPLICATE
        )

    items = [lambda m=m: shaken(*m) for m in moves] + [lambda: frame] * 6
    table, s, settled = _bank_table(tmp_path, items, Recognizer("d6"))
    said, t = _steps(s, table, len(moves), 0.0, SHAKY_S / 20)
    assert not settled and said[-1] == SHAKY_TEXT and said[0] is None
    _steps(s, table, 6, t, 0.05)
    assert table.message is None
    assert [sorted(d.face for d in r.dice) for r in settled] == [["3", "5"]]
    assert "camera shaking" in table.log and "camera still" in table.log


def test_a_cup_left_in_the_tray_is_said_on_screen_and_play_goes_on_once_it_is_out(tmp_path):
    """A cup put down in the tray (after the tray model has learnt the empty tray) shows
    something that is not a die in every frame, and no roll can be taken; after BLOCKED_S
    seconds the screen says so, and the message goes as soon as the tray is clear. The throw
    after it gives its roll."""
    from hardware.sim.render import compose, place_dice
    from hardware.sim.styles import random_style
    from tray.table.moments import BLOCKED_S, BLOCKED_TEXT
    from vision.dicesets import load
    from vision.pipeline import Recognizer

    ds = load("d6")
    rng = np.random.default_rng(7)
    style = random_style(rng)
    empty, _ = compose(ds, [], rng, style)
    thrown, _ = compose(ds, place_dice(ds, [("d6", "2"), ("d6", "6")], rng, style), rng, style)
    cup = empty.copy()
    cv2.circle(cup, (200, 300), 70, (60, 60, 200), -1, cv2.LINE_AA)  # a red cup, seen from above
    cv2.circle(cup, (200, 300), 52, (30, 30, 120), -1, cv2.LINE_AA)

    steps = 24
    items = [lambda: empty] * 4 + [lambda: cup] * steps + [lambda: empty] * 3 + [lambda: thrown] * 6
    table, s, settled = _bank_table(tmp_path, items, Recognizer(ds))
    said, t = _steps(s, table, 4 + steps, 0.0, 1.5 * BLOCKED_S / steps)
    assert said[-1] == BLOCKED_TEXT and said[4] is None and not settled
    _steps(s, table, 9, t, 0.05)
    assert table.message is None
    assert [sorted(d.face for d in r.dice) for r in settled] == [["2", "6"]]
    assert "tray blocked" in table.log and "tray clear" in table.log


def test_a_tray_unlike_the_calibration_is_said_once_and_its_dice_are_still_read(tmp_path):
    """A ``camera.tray_light`` calibrated on another tray (a dark cloth; the tray now is
    over ``REFERENCE_OFF`` times brighter in every colour): the session reads the dice in its own
    first light, as without a calibration, and the screen says once that the tray is unlike
    the calibration's, how to set it again, and the log keeps it. A calibrated tray says
    nothing."""
    from hardware.sim.render import compose, place_dice
    from hardware.sim.styles import random_style
    from tray.table.moments import UNLIKE_TEXT
    from vision.dicesets import load
    from vision.pipeline import Recognizer, tray_level

    ds = load("d6")
    rng = np.random.default_rng(3)
    style = random_style(rng)
    empty, _ = compose(ds, [], rng, style)
    thrown, _ = compose(ds, place_dice(ds, [("d6", "4"), ("d6", "1")], rng, style), rng, style)
    items = [lambda: empty] * 4 + [lambda: thrown] * 6
    dark = [v / 3 for v in tray_level(empty)]
    table, s, settled = _bank_table(tmp_path, items, Recognizer(ds, first_light=dark))
    said, _ = _steps(s, table, 10, 0.0, 0.1)
    assert said[0] == UNLIKE_TEXT and "dicetray calibrate --write" in UNLIKE_TEXT
    assert table.log.count("tray unlike calibration") == 1
    assert [sorted(d.face for d in r.dice) for r in settled] == [["1", "4"]]

    table, s, settled = _bank_table(
        tmp_path / "b", items, Recognizer(ds, first_light=tray_level(empty))
    )
    said, _ = _steps(s, table, 10, 0.0, 0.1)
    assert UNLIKE_TEXT not in said and "tray unlike calibration" not in table.log
    assert [sorted(d.face for d in r.dice) for r in settled] == [["1", "4"]]
