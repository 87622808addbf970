"""What a loop of camera frames does alike at a game and in the guided capture.

Each turn reads a frame from a source (None: none came in time), feeds it to vision
(``Recognizer.read``, ``Settler.update``), watches the camera's moments (a lost camera, a
shaking picture, a blocked tray, a tray unlike its calibration) on whoever shows the
messages, and hands the queued button events on. A game's loop
(:class:`tray.app.session.Session`) and the guided capture's
(:class:`tray.table.capture.CaptureSession`) are such loops; what a settled roll or a button
means is theirs.

>>> from types import SimpleNamespace as NS
>>> class Camera:                                   # one frame, then none
...     frames = ["frame 1"]
...     def read(self, timeout):
...         return self.frames.pop(0) if self.frames else None
>>> class Reader:
...     def read(self, frame):
...         return NS(dice=(), hand=True, motion=0.0)   # something in the tray
>>> class Settle:
...     def update(self, reading):
...         return None                              # nothing settled yet
>>> owner = NS(message=None, shaky_since=None, blocked_since=None, calibration_told=False,
...            camera=lambda ok, t, lost_after: print("a frame came:", ok))
>>> loop = FrameLoop(Camera(), Reader(), Settle())
>>> frame = loop.read_frame(owner, t=0.0)
a frame came: True
>>> loop.see(frame, owner, t=0.0), loop.last_frame
((None, []), 'frame 1')
>>> loop.see(frame, owner, t=6.0)                   # blocked for 6 s: the table says so
(None, ['tray blocked'])
>>> loop.read_frame(owner, t=7.0)
a frame came: False
"""

from __future__ import annotations

import queue
from dataclasses import dataclass, field
from typing import Any

from tray.table.moments import watch_blocked, watch_calibration, watch_shaking


@dataclass(eq=False, repr=False)
class FrameLoop:
    """The parts of a loop of camera frames and its settings. ``last_frame`` and
    ``last_reading`` keep the last frame seen and what vision read in it. A loop says in
    :meth:`handle` what a button event does.
    """

    source: Any  # read(timeout) gives a frame, or None; None for no camera at all
    recognizer: Any  # vision: read(frame) gives a reading
    settler: Any  # vision: update(reading) gives a settled roll, or None
    events: queue.Queue | None = None  # the button queue (a new one when None)
    display: Any = None
    releases: bool = False  # the buttons report their releases: a press held long_s is long
    long_s: float = 0.8
    read_timeout: float = 1.0  # how long a read waits for a frame
    lost_after: float = 2.0  # seconds without a frame before the camera is said to be lost
    last_frame: Any = field(default=None, init=False)
    last_reading: Any = field(default=None, init=False)

    def __post_init__(self) -> None:
        if self.events is None:
            self.events = queue.Queue()

    def read_frame(self, owner, t: float):
        """The source's next frame, or None (none came in time, or there is no source);
        ``owner.camera`` (a Table or a Capture) is told whether one came."""
        if self.source is None:
            return None
        frame = self.source.read(timeout=self.read_timeout)
        owner.camera(frame is not None, t, lost_after=self.lost_after)
        return frame

    def see(self, frame, owner, t: float) -> tuple[object | None, list[str]]:
        """Feeds ``frame`` to vision and keeps it and its reading. Returns the roll that
        settled with it (None while the dice move) and what changed on ``owner``'s camera
        messages (``tray.table.moments``), as words for a log: "camera shaking", "camera
        still", "tray blocked", "tray clear", "tray unlike calibration"."""
        self.last_frame = frame
        reading = self.recognizer.read(frame)
        self.last_reading = reading
        settled = self.settler.update(reading)
        changes = []
        change = watch_shaking(owner, reading, getattr(self.settler, "status", ""), t)
        if change:
            changes.append(f"camera {change}")
        change = watch_blocked(owner, reading, t)
        if change:
            changes.append(f"tray {change}")
        change = watch_calibration(owner, self.recognizer, t)
        if change:
            changes.append(change)
        return settled, changes

    def drain(self, t: float | None = None) -> None:
        """Hands every button event waiting in the queue to :meth:`handle`, without waiting
        for more."""
        while True:
            try:
                ev = self.events.get_nowait()
            except queue.Empty:
                return
            self.handle(ev)

    def handle(self, ev) -> None:
        """What a button event (``hardware.buttons``) does: each loop says."""
        raise NotImplementedError
