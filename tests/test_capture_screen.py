"""The capture screen of ``dicetray calibrate --teach`` in the window: a tap lands on what the
screen drew there (tray/app/capture_cmd.py's window pump, tray/screen/capture.py)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import numpy as np

from tray.app.capture_cmd import screen_drawer, window_pump
from tray.screen.capture import build_capture_view
from tray.screen.display import Display
from tray.table.capture import Capture, CaptureSession
from tray.table.capture_folder import CaptureFolder
from vision.dicesets import load
from vision.types import DieReading, SettledRoll


def test_a_tap_on_a_die_of_the_throw_selects_it(tmp_path, monkeypatch):
    import pygame

    display = Display(size=(1024, 600), headless=True)
    cap = Capture(CaptureFolder(tmp_path, load("toss-up")), per_face=2)
    roll = SettledRoll(
        (
            DieReading(100, 100, 60, 60, "toss", "green", 0.99),
            DieReading(400, 200, 60, 60, "toss", "red", 0.99),
        )
    )
    cap.settled(roll, np.full((480, 640, 3), 200, np.uint8), 0.0)
    session = CaptureSession(cap, None, None, None, display=display, drawer=None)
    screen_drawer(display)(cap, None, None)
    assert cap.correction.selected == 0
    area = next(r for r, target in display.hits if target == ("die", 1))
    tap = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=area.center, button=1)
    monkeypatch.setattr(pygame.event, "get", lambda: [tap])
    window_pump(session, np.random.default_rng(0))(1.0)
    assert cap.correction.selected == 1  # the tap chose the die drawn there
    assert build_capture_view(cap, None, None).boxes[1][6]  # and the screen shows it selected
