"""What every frame source shares: the frame it hands on, its interface, its errors, its
pace, and the calibration's software corrections (tray crop, colour gains).

Every source has one interface::

    read(timeout=1.0) -> ndarray | None   # BGR uint8, 480x640x3; None = no frame in time
    close()                               # release the device (also: use it as a context manager)
    fps, name                             # frames per second it delivers, a short label

``read`` never raises because a camera went quiet or was unplugged: it returns None (a camera
dropout) and the app shows a message and carries on when frames return. The sources are
``hardware.picam`` (the Pi camera), ``hardware.webcam`` (any OpenCV camera or video),
``hardware.replay`` (recorded frames) and ``hardware.sim.tray`` (the simulated tray);
``hardware.guard`` keeps pictures that cannot show dice from the game, and
``hardware.camera`` chooses a source from the config.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import cv2
import numpy as np

SIZE = (640, 480)  # (width, height) of every frame handed on


class CameraError(RuntimeError):
    """A frame source that cannot be opened; the message says what to check or do."""


class SourceError(CameraError, ValueError):
    """A frame source named wrong (in ``camera.source`` or ``--source``): a user's mistake,
    which the commands report with exit 2 (no restart loop), not a camera failure.

    >>> isinstance(SourceError("no such folder"), (CameraError, ValueError))
    True
    """


def to_frame(image: np.ndarray, size: tuple[int, int] | None = SIZE) -> np.ndarray:
    """Any OpenCV image as a BGR uint8 frame of ``size`` (width, height); None keeps its size.

    >>> to_frame(np.zeros((240, 320), np.uint8)).shape
    (480, 640, 3)
    """
    if image.dtype != np.uint8:
        if image.dtype == np.uint16:
            image = (image >> 8).astype(np.uint8)
        else:
            image = np.clip(image, 0, 255).astype(np.uint8)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = np.ascontiguousarray(image[:, :, :3])
    elif image.shape[2] == 1:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if size is not None and (image.shape[1], image.shape[0]) != tuple(size):
        interp = cv2.INTER_AREA if image.shape[1] > size[0] else cv2.INTER_LINEAR
        image = cv2.resize(image, tuple(size), interpolation=interp)
    return np.ascontiguousarray(image)


class FrameSource:
    """Base of every source: context manager, ``frames()`` iterator, and the shared fields.

    >>> class Grey(FrameSource):
    ...     def read(self, timeout=1.0):
    ...         return np.full((480, 640, 3), 128, np.uint8)
    >>> with Grey() as g:
    ...     int(g.read()[0, 0, 0]), g.fps, g.name
    (128, 30.0, 'Grey')
    """

    fps: float = 30.0

    @property
    def name(self) -> str:
        """A short label of the source for logs and the screen."""
        return type(self).__name__

    def read(self, timeout: float = 1.0) -> np.ndarray | None:
        """The next frame, or None when none came within ``timeout`` seconds."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the device; reading after close returns None."""

    def frames(self, timeout: float = 1.0, stop_after_none: int = 1) -> Iterator[np.ndarray]:
        """Yield frames until ``stop_after_none`` reads in a row return None."""
        misses = 0
        while misses < stop_after_none:
            frame = self.read(timeout)
            if frame is None:
                misses += 1
                continue
            misses = 0
            yield frame

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def wait_for_frame(src, timeout: float) -> bool:
    """Pace a source at ``src.fps`` with its own clock and sleep; False when the next frame
    is due later than ``timeout`` (the caller reports no frame, as a camera would)."""
    now = src.clock()
    if src._next_due is None:
        src._next_due = now
    wait = src._next_due - now
    if wait > timeout:
        src.sleep(max(0.0, timeout))
        return False
    if wait > 0:
        src.sleep(wait)
    src._next_due = max(src._next_due, now - 1.0 / src.fps) + 1.0 / src.fps
    return True


# --- software corrections ------------------------------------------------------------------


def gain_lut(gains: Iterable[float]) -> np.ndarray:
    """A (1, 256, 3) lookup table multiplying blue, green, red by ``gains`` (clipped at 255)."""
    ramp = np.arange(256, dtype=np.float32)
    lut = np.stack([np.clip(ramp * float(g), 0, 255) for g in gains], axis=1)
    return np.round(lut).astype(np.uint8).reshape(1, 256, 3)


def apply_gains(frame: np.ndarray, gains: Iterable[float]) -> np.ndarray:
    """``frame`` with its blue, green and red channels multiplied by ``gains``.

    >>> apply_gains(np.full((2, 2, 3), 100, np.uint8), [1.0, 1.5, 3.0])[0, 0].tolist()
    [100, 150, 255]
    """
    return cv2.LUT(frame, gain_lut(gains))


class Adjusted(FrameSource):
    """A source seen through the calibration: the tray crop (scaled back to 640x480) and
    software colour gains. Other attributes (``throw``, ``truth``...) pass through.

    >>> class Flat(FrameSource):
    ...     def read(self, timeout=1.0):
    ...         return np.full((480, 640, 3), 100, np.uint8)
    >>> cam = Adjusted(Flat(), crop=[80, 60, 480, 360], gains=[1.0, 1.0, 1.2])
    >>> cam.read()[240, 320].tolist(), cam.read().shape
    ([100, 100, 120], (480, 640, 3))
    """

    def __init__(self, source: FrameSource, crop=None, gains=None, size=SIZE):
        self.source = source
        self.crop = tuple(int(v) for v in crop) if crop else None
        self.gains = [float(g) for g in gains] if gains else None
        self.size = tuple(size)
        self._lut = None
        if self.gains and any(abs(g - 1.0) > 1e-6 for g in self.gains):
            self._lut = gain_lut(self.gains)

    @property
    def fps(self) -> float:  # type: ignore[override]
        return self.source.fps

    @property
    def name(self) -> str:
        return self.source.name

    def read(self, timeout: float = 1.0) -> np.ndarray | None:
        """The next frame of the source, cropped to the tray and colour-corrected."""
        frame = self.source.read(timeout)
        return None if frame is None else self.adjust(frame)

    def adjust(self, frame: np.ndarray) -> np.ndarray:
        """A frame of the source as this view shows it: cropped, resized, colour-corrected."""
        if self.crop:
            x, y, w, h = self.crop
            frame = frame[y : y + h, x : x + w]
            frame = cv2.resize(frame, self.size, interpolation=cv2.INTER_LINEAR)
        if self._lut is not None:
            frame = cv2.LUT(frame, self._lut)
        return frame

    def close(self) -> None:
        self.source.close()

    def __getattr__(self, item):
        if item == "source":
            raise AttributeError(item)
        return getattr(self.source, item)
