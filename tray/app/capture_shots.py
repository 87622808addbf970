"""Screenshots of the guided capture (``dicetray calibrate --teach``), for ``dicetray
screenshots`` and the layout test: per dice set, the live tray waiting for a throw and a throw
under review (one die accepted, one unsure); then teaching's progress.

The tray picture is rendered by the simulated tray (hardware/sim/render.py) with the dice where
the render put them.

>>> from tray.app.capture_shots import capture_views   # used by screenshots.shots
"""

from __future__ import annotations

import tempfile

import numpy as np

from hardware.sim.render import render_scene
from tray.screen.capture import TeachView, build_capture_view
from tray.table.capture import Capture
from tray.table.capture_folder import CaptureFolder


def _throw(ds, rng) -> tuple[object, list]:
    """A rendered tray with 4-6 dice of the set (frame or None, readings)."""
    from vision.types import DieReading

    n = 6 if len(ds.dice) > 1 else 4
    dice = [(d.id, d.faces[i % 6]) for i, d in enumerate((ds.dice * 6)[:n])]
    frame, labels = render_scene(ds, dice, rng)
    return frame, [
        DieReading(lab["x"], lab["y"], lab["w"], lab["h"], lab["die"], lab["face"], 0.99)
        for lab in labels
    ]


def capture_views(set_ids: list[str]) -> list[tuple[str, object]]:
    """(name, view) of the capture screens of each dice set, then the teaching screen."""
    from vision.dicesets import load
    from vision.types import DieReading, SettledRoll

    out: list[tuple[str, object]] = []
    rng = np.random.default_rng(11)
    name = ""
    for set_id in set_ids:
        ds = load(set_id)
        name = ds.name
        with tempfile.TemporaryDirectory() as tmp:
            cap = Capture(CaptureFolder(tmp, ds), per_face=3)
            for i, key in enumerate(cap.coverage.keys):  # part of the way there
                cap.coverage.add(*key, n=(i * 2) % 4)
            frame, readings = _throw(ds, rng)
            live = SettledRoll(tuple(readings))
            out.append((f"capture-{set_id}-throw", build_capture_view(cap, frame, live)))
            last = readings[-1]
            unsure = DieReading(last.x, last.y, last.w, last.h, None, None, 0.4)
            cap.settled(SettledRoll((*readings[:-1], unsure)), frame, 1.0)
            cap.select(0)
            cap.accept(1.5)  # the first die is right
            out.append((f"capture-{set_id}-review", build_capture_view(cap, None, None)))
    out.append(
        (
            "capture-teaching",
            TeachView(
                f"Teaching {name}",
                "teaching in folds",
                3,
                10,
                "about 01:15 left",
                "120 photos from my-dice",
            ),
        )
    )
    return out
