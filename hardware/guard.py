"""Pictures that cannot show dice (black, white, noise, one flat colour, too small, not an
image) kept from the game: :class:`Guarded` wraps any source and says what is wrong.
"""

from __future__ import annotations

import contextlib

import cv2
import numpy as np

from hardware.frames import SIZE, FrameSource, to_frame

CAMERA_LOST = (
    "Camera lost: check its cable. The game is kept and goes on when the picture comes back."
)
PICTURE_BLACK = (
    "The picture is black: is the lens covered? The game is kept and goes on when "
    "the picture comes back."
)
PICTURE_WHITE = (
    "The picture is all white: too much light on the lens? The game is kept and "
    "goes on when the picture comes back."
)
PICTURE_NOISE = (
    "The picture is only noise: check the camera cable. The game is kept and goes "
    "on when the picture comes back."
)
PICTURE_FLAT = (
    "The picture is one flat colour: is the lens capped, or the camera stuck? The game is "
    "kept and goes on when the picture comes back."
)
BAD_FRAME = "A bad frame from the camera was skipped."
MIN_PICTURE_SIDE = 32  # a smaller picture cannot show a die
FLAT_SPAN = 3  # grey levels between the darkest and lightest 1%: under this, one flat colour


def picture_too_small(width: int, height: int) -> str:
    """The status for a camera whose pictures are too small to show dice.

    >>> picture_too_small(1, 1).split(":")[0]
    'The camera sends pictures of 1x1 pixels'
    """
    return (
        f"The camera sends pictures of {width}x{height} pixels: too small to show dice (at "
        f"least {MIN_PICTURE_SIDE} a side); check its settings. The game is kept and goes on "
        "when the picture comes back."
    )


def picture_fault(frame: np.ndarray) -> str | None:
    """What is wrong with a whole frame that shows no tray at all (black, white, one flat
    colour, noise), or None.

    >>> picture_fault(np.zeros((480, 640, 3), np.uint8)) == PICTURE_BLACK
    True
    >>> noise = np.random.default_rng(0).integers(0, 256, (480, 640, 3), dtype=np.uint8)
    >>> picture_fault(noise) == PICTURE_NOISE
    True
    >>> picture_fault(np.full((480, 640, 3), 90, np.uint8)) == PICTURE_FLAT   # a stuck camera
    True
    """
    grey = frame[::4, ::4].mean(axis=2, dtype=np.float32)
    lo, hi = np.percentile(grey, (1, 99))
    if hi < 40:
        return PICTURE_BLACK
    if lo > 215:
        return PICTURE_WHITE
    if hi - lo < FLAT_SPAN:  # not even sensor noise: a stuck or capped camera, not a tray
        return PICTURE_FLAT
    # neighbouring pixels of a real picture are alike; those of noise are not
    if float(np.abs(np.diff(grey, axis=1)).mean()) > 45:
        return PICTURE_NOISE
    return None


def _as_frame(image, size) -> np.ndarray | None:
    """``image`` as a BGR uint8 frame of ``size``, or None when it cannot be one."""
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or 0 in image.shape[:2]:
        return None
    if image.ndim == 3 and image.shape[2] not in (1, 3, 4):
        return None
    if image.dtype.kind == "f":
        image = np.nan_to_num(image, nan=0.0, posinf=255.0, neginf=0.0)
        if image.size and float(image.max()) <= 1.0:
            image = image * 255.0  # a float picture in 0..1
    elif image.dtype.kind not in "uib":
        return None
    elif image.dtype.kind == "b":
        image = image.astype(np.uint8) * 255
    return to_frame(image, size)


class Guarded(FrameSource):
    """Any frame source made safe for the table: ``read`` never raises and hands on only
    whole BGR uint8 frames of ``size``; ``status`` says in words what is wrong (None: fine).

    A source that raises (``RuntimeError``, ``OSError``, ``cv2.error``, anything) is a lost
    camera ("Camera lost"); a frame that cannot be a picture (0x0, odd channels, not numbers)
    is skipped ("bad frame"); grey, BGRA and float frames are converted; a picture too small
    to show dice (under 32 px a side), or black, white, one flat colour or noise, is not read
    (the dice cannot be seen) and ``status`` says why. Counters:
    ``errors``, ``bad_frames``, ``faulty_pictures``. Other attributes pass through.

    >>> class Broken(FrameSource):
    ...     def read(self, timeout=1.0):
    ...         raise OSError(5, "Input/output error")
    >>> cam = Guarded(Broken())
    >>> cam.read() is None, cam.status.startswith("Camera lost"), cam.errors
    (True, True, 1)
    """

    def __init__(self, source: FrameSource, size=SIZE):
        self.source = source
        self.size = tuple(size) if size else None
        self.status: str | None = None
        self.errors = self.bad_frames = self.faulty_pictures = 0

    @property
    def fps(self) -> float:  # type: ignore[override]
        return getattr(self.source, "fps", 30.0)

    @property
    def name(self) -> str:
        return getattr(self.source, "name", "camera")

    def read(self, timeout: float = 1.0) -> np.ndarray | None:
        """The next good frame, or None (no frame, a fault: see ``status``)."""
        try:
            image = self.source.read(timeout)
        except Exception:  # noqa: BLE001 - whatever a driver throws, the table goes on
            self.errors += 1
            self.status = CAMERA_LOST
            return None
        if image is None:
            return None
        shape = getattr(image, "shape", None)
        if isinstance(shape, tuple) and len(shape) >= 2 and 0 < min(shape[:2]) < MIN_PICTURE_SIDE:
            self.faulty_pictures += 1
            self.status = picture_too_small(int(shape[1]), int(shape[0]))
            return None
        try:
            frame = _as_frame(image, self.size)
        except (cv2.error, ValueError, TypeError, MemoryError):
            frame = None
        if frame is None:
            self.bad_frames += 1
            self.status = BAD_FRAME
            return None
        fault = picture_fault(frame)
        if fault is not None:
            self.faulty_pictures += 1
            self.status = fault
            return None
        self.status = None
        return frame

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a failed camera must not fail
            self.source.close()

    def __getattr__(self, item):
        if item == "source":
            raise AttributeError(item)
        return getattr(self.source, item)
