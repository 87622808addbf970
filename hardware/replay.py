"""Recorded frames played back at their recording's pace (a folder of frames or a video):
the fixtures tests replay, and the tray without a camera."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import cv2
import numpy as np

from hardware.frames import SIZE, FrameSource, SourceError, to_frame, wait_for_frame

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")

_UNREADABLE = np.zeros((0, 0), np.uint8)  # _load's mark of a frame file that cannot be read


def _natural_key(path: Path):
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", path.name)]


class ReplaySource(FrameSource):
    """Recorded frames played back: a folder of JPEG/PNG frames (sorted by name) or a video.

    The pace is the recording's: ``fps`` from the folder's ``expected.json`` (fixtures) or the
    video, else 30 (``fps=`` overrides). ``realtime=False`` hands on the next frame at once
    (tests). ``loop`` starts again at the end; otherwise reads return None once it is over
    (``finished`` is then True). ``dropouts``: (first frame, count) pairs of frames that are
    lost — reads return None in their place — to rehearse a camera dropout. A frame file that
    cannot be read as an image is skipped (the next one is handed on) and listed in
    ``skipped``.

    >>> src = ReplaySource("fixtures/throws/d6-0", realtime=False)   # doctest: +SKIP
    >>> src.read().shape, src.index                                   # doctest: +SKIP
    ((480, 640, 3), 0)
    """

    def __init__(
        self,
        path,
        fps: float | None = None,
        realtime: bool = True,
        loop: bool = False,
        dropouts: Iterable[tuple[int, int]] = (),
        size=SIZE,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.path = Path(path)
        self.size = tuple(size) if size else None
        self.realtime = realtime
        self.loop = loop
        self.clock, self.sleep = clock, sleep
        self.dropouts = [(int(a), int(n)) for a, n in dropouts]
        self.index = -1  # index of the frame last handed on (or lost)
        self.finished = False
        self.skipped: list[Path] = []  # frame files that could not be read (once a pass)
        self.expected: dict = {}
        self._files: list[Path] = []
        self._video = None
        if self.path.is_dir():
            self._files = sorted(
                (p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES),
                key=_natural_key,
            )
            if not self._files:
                raise SourceError(
                    f"{self.path} holds no JPEG or PNG frames: record some, or "
                    "point replay: at a fixtures/throws/<sequence> folder"
                )
            exp = self.path / "expected.json"
            if exp.is_file():
                try:
                    self.expected = json.loads(exp.read_text(encoding="utf-8"))
                except (OSError, ValueError) as exc:
                    raise SourceError(
                        f"{exp} is not valid JSON ({exc}): fix or remove it"
                    ) from None
            rec_fps = self.expected.get("fps") if isinstance(self.expected, dict) else None
            self.fps = float(fps or rec_fps or 30.0)
        elif self.path.is_file():
            self._video = cv2.VideoCapture(str(self.path))
            if not self._video.isOpened():
                raise SourceError(f"cannot play {self.path}: not a video file OpenCV can read")
            vfps = self._video.get(cv2.CAP_PROP_FPS) or 0.0
            self.fps = float(fps or (vfps if 1 <= vfps <= 240 else 30.0))
        else:
            raise SourceError(f"{self.path} does not exist: give a folder of frames or a video")
        self._next_due = None

    @property
    def name(self) -> str:
        return f"replay:{self.path}"

    def __len__(self) -> int:
        """Frames in a folder (a video reports its frame count, maybe approximate)."""
        if self._files:
            return len(self._files)
        return int(self._video.get(cv2.CAP_PROP_FRAME_COUNT)) if self._video else 0

    def _lost(self, index: int) -> bool:
        return any(a <= index < a + n for a, n in self.dropouts)

    def _load(self, index: int) -> np.ndarray | None:
        if self._files:
            if index >= len(self._files):
                return None
            image = cv2.imread(str(self._files[index]), cv2.IMREAD_UNCHANGED)
            if image is None or image.size == 0:
                return _UNREADABLE
            return image
        ok, image = self._video.read()
        return image if ok else None

    def _rewind(self) -> None:
        self.index = -1
        if self._video is not None:
            self._video.set(cv2.CAP_PROP_POS_FRAMES, 0)

    def read(self, timeout: float = 1.0) -> np.ndarray | None:
        """The next recorded frame at the recording's pace; None for a lost frame or the end."""
        if self.finished:
            return None
        if self.realtime and not wait_for_frame(self, timeout):
            return None
        self.index += 1
        image = self._load(self.index)
        while image is _UNREADABLE:  # a damaged frame file: skipped and counted
            self.skipped.append(self._files[self.index])
            self.index += 1
            image = self._load(self.index)
        if image is None:
            if not self.loop:
                self.finished = True
                return None
            self._rewind()
            self.index += 1
            image = self._load(self.index)
            if image is None or image is _UNREADABLE:
                self.finished = True
                return None
        if self._lost(self.index):
            return None
        return to_frame(image, self.size)

    def close(self) -> None:
        self.finished = True
        if self._video is not None:
            self._video.release()
            self._video = None
