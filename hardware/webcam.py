"""Any camera or video OpenCV can open: a USB webcam, a device path, a file or a stream."""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from hardware.frames import SIZE, CameraError, FrameSource, to_frame


def _parse_target(index_or_path):
    if isinstance(index_or_path, int):
        return index_or_path
    s = str(index_or_path)
    return int(s) if s.isdigit() else s


class OpenCVCamera(FrameSource):
    """A USB webcam (``0``, ``"/dev/video0"``) or any video file/stream OpenCV can open.

    A background thread grabs frames; ``read`` hands on the newest one. When the camera stops
    delivering (unplugged), reads return None and the thread reopens it every ``reconnect_s``
    seconds until it is back. A video file plays at its own frame rate and starts again at its
    end; with ``realtime=False`` every frame of a file is delivered in order, as fast as it is
    read (tests). ``capture_factory`` replaces ``cv2.VideoCapture`` (tests).

    >>> cam = OpenCVCamera(0)              # doctest: +SKIP
    >>> frame = cam.read(timeout=1.0)      # doctest: +SKIP
    """

    def __init__(
        self,
        index_or_path=0,
        size=SIZE,
        fps: float | None = None,
        realtime: bool = True,
        reconnect_s: float = 1.0,
        loop: bool = True,
        capture_factory: Callable | None = None,
    ):
        self.target = _parse_target(index_or_path)
        self.size = tuple(size)
        self.realtime = realtime
        self.reconnect_s = reconnect_s
        self.loop = loop
        self.is_file = isinstance(self.target, str) and Path(self.target).is_file()
        self._factory = capture_factory or cv2.VideoCapture
        self.reconnects = 0
        self.frames_read = 0
        self._stop = threading.Event()
        self._queue: queue.Queue = queue.Queue(maxsize=1)
        cap = self._open()
        if cap is None:
            raise CameraError(self._not_found())
        cam_fps = cap.get(cv2.CAP_PROP_FPS) or 0.0
        self.fps = float(fps or (cam_fps if 1 <= cam_fps <= 240 else 30.0))
        self._cap = cap
        self._thread = threading.Thread(
            target=self._grab, name=f"opencv-{self.target}", daemon=True
        )
        self._thread.start()

    @property
    def name(self) -> str:
        return f"opencv:{self.target}"

    def _not_found(self) -> str:
        if isinstance(self.target, int):
            return (
                f"no camera at index {self.target}: plug in a USB camera, check "
                "`ls /dev/video*`, or choose another with --source opencv:N"
            )
        if isinstance(self.target, str) and self.target.startswith("/dev/"):
            return (
                f"cannot open camera {self.target}: check it is plugged in and that your "
                "user is in the `video` group (`sudo adduser $USER video`)"
            )
        return f"cannot open {self.target}: not a camera or video file OpenCV can read"

    def _open(self):
        cap = self._factory(self.target)
        if not cap.isOpened():
            cap.release()
            return None
        if isinstance(self.target, int) or not self.is_file:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        return cap

    def _deliver(self, frame: np.ndarray) -> None:
        if self.is_file and not self.realtime:
            while not self._stop.is_set():  # every frame, in order
                try:
                    self._queue.put(frame, timeout=0.05)
                    return
                except queue.Full:
                    continue
            return
        with contextlib.suppress(queue.Empty):  # newest frame wins
            self._queue.get_nowait()
        self._queue.put_nowait(frame)

    def _grab(self) -> None:
        next_due = time.monotonic()
        while not self._stop.is_set():
            if self._cap is None:
                if self.is_file and not self.loop:
                    self._stop.wait(0.05)
                    continue
                self._cap = self._open()
                if self._cap is None:
                    self._stop.wait(self.reconnect_s)
                    continue
                self.reconnects += 1
            ok, frame = self._cap.read()
            if not ok or frame is None:
                self._cap.release()
                self._cap = None
                continue
            self.frames_read += 1
            frame = to_frame(frame, self.size)
            if self.is_file and self.realtime:
                next_due += 1.0 / self.fps
                delay = next_due - time.monotonic()
                if delay > 0:
                    self._stop.wait(delay)
                else:
                    next_due = time.monotonic()
            self._deliver(frame)
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    def read(self, timeout: float = 1.0) -> np.ndarray | None:
        """The newest frame (every frame of a file with realtime=False), or None on a dropout."""
        if self._stop.is_set():
            return None
        try:
            return self._queue.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
