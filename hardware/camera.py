"""Frame sources: the Pi camera, any OpenCV camera, recorded frames, and the simulated tray.

Every source has one interface::

    read(timeout=1.0) -> ndarray | None   # BGR uint8, 480x640x3; None = no frame in time
    close()                               # release the device (also: use it as a context manager)
    fps, name                             # frames per second it delivers, a short label

``read`` never raises because a camera went quiet or was unplugged: it returns None (a camera
dropout) and the app shows a message and carries on when frames return.

``open_source(spec)`` builds one from the config string ``camera.source``::

    >>> with open_source("sim:d6", realtime=False) as cam:    # doctest: +SKIP
    ...     cam.throw(["d6:3", "d6:5"])
    ...     frame = cam.read()
    ...     frame.shape, cam.truth["phase"]
    ((480, 640, 3), 'moving')

Only :class:`PiCamera` touches picamera2, and only when it is created.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

SIZE = (640, 480)  # (width, height) of every frame handed on
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov", ".m4v", ".webm", ".h264")
PICAMERA_MISSING = (
    "picamera2 is not installed: on Raspberry Pi OS run `sudo apt install "
    "python3-picamera2` and create the venv with --system-site-packages "
    "(see hardware/PI.md)"
)

__all__ = [
    "PICAMERA_MISSING",
    "Adjusted",
    "CameraError",
    "FrameSource",
    "Guarded",
    "OpenCVCamera",
    "PiCamera",
    "ReplaySource",
    "SimulatedTray",
    "apply_gains",
    "open_source",
    "picamera_available",
]


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


# --- camera faults -------------------------------------------------------------------------

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


# --- Raspberry Pi camera -------------------------------------------------------------------


def _import_picamera2():
    try:
        from picamera2 import Picamera2
    except ImportError:
        raise CameraError(PICAMERA_MISSING) from None
    return Picamera2


def picamera_available() -> bool:
    """True when picamera2 imports and libcamera reports at least one camera."""
    try:
        cls = _import_picamera2()
        return bool(cls.global_camera_info())
    except Exception:  # noqa: BLE001 - any failure means: no usable Pi camera
        return False


class PiCamera(FrameSource):
    """The Raspberry Pi camera through picamera2: 640x480 ``RGB888`` (BGR order for OpenCV).

    After calibration (``exposure_us``, ``analogue_gain``, ``colour_gains`` [red, blue]) the
    picture is fixed: AeEnable and AwbEnable off, so colours do not drift between frames.
    Uncalibrated, exposure and white balance run automatically. ``lens_position`` (dioptres)
    fixes the focus of cameras that have autofocus (Camera Module 3).

    ``picamera2_class`` replaces ``picamera2.Picamera2`` (tests); by default it is imported
    here, and only here, with a clear message when it is missing.

    >>> cam = PiCamera(exposure_us=8000, analogue_gain=2.0,
    ...                colour_gains=[1.9, 1.5])               # doctest: +SKIP
    >>> frame = cam.read()                                    # doctest: +SKIP
    """

    def __init__(
        self,
        fps: float = 30,
        exposure_us: int = 0,
        analogue_gain: float = 0.0,
        colour_gains=None,
        lens_position: float | None = None,
        size=SIZE,
        camera_num: int = 0,
        picamera2_class=None,
    ):
        cls = picamera2_class or _import_picamera2()
        self.fps = float(fps)
        self.size = tuple(size)
        self._job = None
        self._closed = False
        try:
            if not cls.global_camera_info():
                raise CameraError(
                    "no Raspberry Pi camera found: check the ribbon cable (contacts "
                    "towards the board), then run `rpicam-hello --list-cameras`"
                )
            self.cam = cls(camera_num)
            frame_us = int(1_000_000 / self.fps)
            config = self.cam.create_video_configuration(
                main={"size": self.size, "format": "RGB888"},
                controls={"FrameDurationLimits": (frame_us, frame_us)},
                buffer_count=4,
            )
            self.cam.configure(config)
            self.cam.start()
        except CameraError:
            raise
        except Exception as exc:  # noqa: BLE001 - libcamera errors come in many types
            raise CameraError(
                f"the Pi camera could not start ({exc}); is another program "
                "using it? Stop it (e.g. `sudo systemctl stop dicetray`) and "
                "retry"
            ) from None
        self.set_fixed(exposure_us, analogue_gain, colour_gains)
        if lens_position is not None:
            self.set_focus(lens_position)

    @property
    def name(self) -> str:
        return "picamera"

    def set_fixed(self, exposure_us: int, analogue_gain: float, colour_gains) -> None:
        """Fix exposure and white balance (AE/AWB off); zeros/None switch them back to auto."""
        controls: dict = {}
        if exposure_us and analogue_gain:
            controls.update(
                AeEnable=False, ExposureTime=int(exposure_us), AnalogueGain=float(analogue_gain)
            )
        else:
            controls["AeEnable"] = True
        if colour_gains:
            red, blue = colour_gains
            controls.update(AwbEnable=False, ColourGains=(float(red), float(blue)))
        else:
            controls["AwbEnable"] = True
        self.cam.set_controls(controls)

    def set_auto(self) -> None:
        """Automatic exposure and white balance (calibration lets them converge first)."""
        self.set_fixed(0, 0.0, None)

    def set_focus(self, lens_position: float) -> None:
        """Fixed focus in dioptres, on cameras with a lens motor (others ignore it)."""
        if "LensPosition" not in getattr(self.cam, "camera_controls", {}):
            return
        controls = {"LensPosition": float(lens_position)}
        try:
            from libcamera import controls as lc

            controls["AfMode"] = lc.AfModeEnum.Manual
        except ImportError:
            controls["AfMode"] = 0  # libcamera's AfModeManual
        self.cam.set_controls(controls)

    def metadata(self) -> dict:
        """The current frame's ExposureTime, AnalogueGain, ColourGains (and Lux when known)."""
        md = self.cam.capture_metadata()
        return {
            k: md[k]
            for k in ("ExposureTime", "AnalogueGain", "ColourGains", "Lux", "LensPosition")
            if k in md
        }

    def read(self, timeout: float = 1.0) -> np.ndarray | None:
        """The next frame, or None when the camera gave none within ``timeout`` seconds."""
        if self._closed:
            return None
        try:
            if self._job is None:
                self._job = self.cam.capture_array("main", wait=False)
            array = self.cam.wait(self._job, timeout=timeout)
        except TimeoutError:
            return None  # the request stays pending; the next read waits for it
        except Exception:  # noqa: BLE001 - a failed request is a dropout, not a crash
            self._job = None
            return None
        self._job = None
        return to_frame(array, self.size)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for step in ("stop", "close"):
            try:
                getattr(self.cam, step)()
            except Exception:  # noqa: BLE001 - closing a failed camera must not fail
                continue


# --- any OpenCV camera -------------------------------------------------------------------


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


# --- recorded frames --------------------------------------------------------------------

_UNREADABLE = np.zeros((0, 0), np.uint8)  # _load's mark of a frame file that cannot be read


def _natural_key(path: Path):
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", path.name)]


def _wait_for_frame(src, timeout: float) -> bool:
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
        if self.realtime and not _wait_for_frame(self, timeout):
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


# --- the simulated tray ------------------------------------------------------------------


class SimulatedTray(FrameSource):
    """A dice tray rendered live (``hardware.sim.render``), for demos and tests.

    Between throws it shows the empty tray. :meth:`throw` drops dice in: frames of dice
    tumbling ("moving"), then resting ("rest"); the resting dice stay until :meth:`pick_up`
    (or, with ``auto_pickup=True``, a rendered hand takes them away). ``truth`` is the truth of
    the last frame: {"phase": "empty"|"moving"|"rest"|"hand", "labels": [...], "frame": i,
    "dice": [...]}. :meth:`drop_out` makes the camera go quiet. Everything random comes from
    its own numpy Generator seeded with ``seed``. ``realtime=False`` renders frames as fast as
    they are read (headless demos, tests).

    >>> tray = SimulatedTray("tally-up", seed=3, realtime=False)   # doctest: +SKIP
    >>> tray.throw(["red:star", "blue"])                           # doctest: +SKIP
    ['red:star', 'blue:100']
    """

    def __init__(
        self,
        diceset="d6",
        seed: int = 0,
        fps: float = 30,
        realtime: bool = True,
        size=SIZE,
        style=None,
        rest_frames: int = 12,
        auto_pickup: bool = False,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        from hardware.sim import render
        from vision.dicesets import DiceSet, load

        self.render = render
        self.diceset = diceset if isinstance(diceset, DiceSet) else load(diceset)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.fps = float(fps)
        self.size = tuple(size)
        self.realtime = realtime
        self.rest_frames = rest_frames
        self.auto_pickup = auto_pickup
        self.clock, self.sleep = clock, sleep
        if style is None and hasattr(render, "random_style"):
            style = render.random_style(self.rng)
        self.style = style
        self.frame_index = -1
        self.throws = 0
        self.truth: dict = {"phase": "empty", "labels": [], "frame": -1, "dice": []}
        self._lock = threading.RLock()
        self._empty: np.ndarray | None = None
        self._throw: Iterator | None = None
        self._hold: tuple[np.ndarray, dict] | None = None  # resting dice awaiting pick-up
        self._dice: list[str] = []
        self._drop_frames = 0
        self._drop_until: float | None = None
        self._next_due: float | None = None
        self._closed = False

    @property
    def name(self) -> str:
        return f"sim:{self.diceset.id}"

    @property
    def phase(self) -> str:
        """What the tray shows now: "empty", "moving", "rest" or "hand"."""
        return self.truth.get("phase", "empty")

    def _pool(self) -> list[str]:
        return [d.id for d in self.diceset.dice for _ in range(d.count)]

    def resolve(self, dice=None, count: int | None = None) -> list[str]:
        """The ``die:face`` specs a throw of ``dice`` / ``count`` random dice lands on.

        Items of ``dice`` are "die:face" (as given) or a die id (a random face of that die);
        with ``dice`` None, ``count`` dice are drawn at random from the set (as many of each
        kind as the set has, more only when the set has too few).
        """
        with self._lock:
            if dice is None:
                if count is None or count < 1:
                    raise ValueError("throw needs dice (like ['red:star', 'blue']) or count >= 1")
                pool = self._pool()
                replace = count > len(pool)
                picks = self.rng.choice(len(pool), size=count, replace=replace)
                dice = [pool[int(i)] for i in picks]
            out = []
            for spec in dice:
                die_id, _, face = str(spec).partition(":")
                try:
                    die = self.diceset.die(die_id)
                except KeyError:
                    raise ValueError(
                        f"{die_id!r} is not a die of the {self.diceset.id} set; "
                        f"its dice are {', '.join(self.diceset.die_ids)}"
                    ) from None
                if not face:
                    face = die.faces[int(self.rng.integers(len(die.faces)))]
                elif face not in die.faces:
                    raise ValueError(
                        f"{die_id} has no face {face!r}; its faces are "
                        f"{', '.join(dict.fromkeys(die.faces))}"
                    )
                out.append(f"{die_id}:{face}")
            return out

    def throw(self, dice=None, count: int | None = None) -> list[str]:
        """Throw dice into the tray (replacing any there); returns the faces they will show."""
        specs = self.resolve(dice, count)
        pairs = [tuple(s.split(":", 1)) for s in specs]
        with self._lock:
            self._throw = iter(
                self.render.render_throw(
                    self.diceset,
                    pairs,
                    self.rng,
                    size=self.size,
                    style=self.style,
                    fps=self.fps,
                    rest_frames=self.rest_frames,
                    hand=self.auto_pickup,
                    fit=True,  # a crowded throw lands anyway, as in a real tray
                )
            )
            self._hold = None
            self._dice = specs
            self.throws += 1
        return specs

    def pick_up(self) -> None:
        """Take the dice out: the tray is empty from the next frame on."""
        with self._lock:
            self._throw = None
            self._hold = None
            self._dice = []

    def drop_out(self, seconds: float | None = None, frames: int | None = None) -> None:
        """Make the camera go quiet for ``frames`` reads or ``seconds`` of the clock.

        The tray goes on meanwhile: a throw in progress keeps moving while nobody sees it.
        """
        with self._lock:
            if frames:
                self._drop_frames += int(frames)
            if seconds:
                self._drop_until = self.clock() + float(seconds)

    def _empty_frame(self) -> np.ndarray:
        if self._empty is None:
            frame, _ = self.render.render_scene(
                self.diceset, [], self.rng, size=self.size, style=self.style
            )
            self._empty = to_frame(frame, self.size)
        return self._empty

    def _step(self) -> tuple[np.ndarray, dict]:
        """Advance the scene one frame."""
        if self._throw is not None:
            try:
                frame, truth = next(self._throw)
                frame = to_frame(frame, self.size)
                truth = dict(truth)
                if truth.get("phase") == "rest" and not self.auto_pickup:
                    self._hold = (frame, truth)
                return frame, truth
            except StopIteration:
                self._throw = None
                if self.auto_pickup:
                    self._dice = []
        if self._hold is not None:
            return self._hold[0], dict(self._hold[1])
        return self._empty_frame(), {"phase": "empty", "labels": []}

    def read(self, timeout: float = 1.0) -> np.ndarray | None:
        """The next frame of the tray (paced at ``fps`` when realtime), None while dropped out."""
        if self._closed:
            return None
        if self.realtime and not _wait_for_frame(self, timeout):
            return None
        with self._lock:
            frame, truth = self._step()
            self.frame_index += 1
            truth["frame"] = self.frame_index
            truth["dice"] = list(self._dice) if truth.get("phase") != "empty" else []
            self.truth = truth
            dropped = False
            if self._drop_frames > 0:
                self._drop_frames -= 1
                dropped = True
            if self._drop_until is not None:
                if self.clock() < self._drop_until:
                    dropped = True
                else:
                    self._drop_until = None
        if dropped:
            if self.realtime:
                self.sleep(max(0.0, min(timeout, 1.0 / self.fps)))
            return None
        return frame.copy()

    def close(self) -> None:
        self._closed = True


# --- choosing a source from the config -----------------------------------------------------


def _opencv_probe(index: int = 0) -> bool:
    if os.name == "posix" and not Path(f"/dev/video{index}").exists():
        return False
    cap = cv2.VideoCapture(index)
    try:
        return bool(cap.isOpened() and cap.read()[0])
    finally:
        cap.release()


@dataclass
class CameraConfig:
    """Where frames come from and the fixed picture settings calibration found: the
    ``[camera]`` table of the table's config file (tray/app/config.py checks every key).

    ``exposure_us`` / ``analogue_gain`` / ``colour_gains`` are for the Pi camera (0 = not
    calibrated: automatic). ``software_gains`` (blue, green, red multipliers) and ``crop``
    (x, y, w, h of the tray in the 640x480 frame; empty = whole frame) apply to every source.

    >>> CameraConfig().source
    'auto'
    """

    source: str = "auto"
    fps: int = 30
    exposure_us: int = 0
    analogue_gain: float = 0.0
    colour_gains: list[float] = field(default_factory=list)  # [red, blue]; empty = auto
    lens_position: float | None = None  # dioptres; None = leave as is
    software_gains: list[float] = field(default_factory=lambda: [1.0, 1.0, 1.0])
    crop: list[int] = field(default_factory=list)  # [x, y, w, h]; empty = all
    # the empty tray's median (B, G, R) at calibration: frames are read in that light
    tray_light: list[float] = field(default_factory=list)  # empty = the session's first

    @property
    def calibrated(self) -> bool:
        """True when fixed exposure and white balance were written by ``dicetray calibrate``."""
        return self.exposure_us > 0 and self.analogue_gain > 0 and len(self.colour_gains) == 2


def open_source(
    spec: str = "auto",
    camera=None,
    dice_set="d6",
    seed: int = 0,
    realtime: bool = True,
    sim_options: dict | None = None,
) -> FrameSource:
    """A frame source from a ``camera.source`` string.

    ``"picamera"``, ``"opencv:0"`` / ``"opencv:/dev/video0"`` / ``"opencv:FILE"``,
    ``"replay:DIR"`` (or a video), ``"sim"`` / ``"sim:SET"`` (the simulated tray with that dice
    set, default ``dice_set``), ``"auto"`` (the Pi camera if there is one, else OpenCV camera
    0 if it delivers a frame, else the simulated tray). ``camera`` is a
    :class:`CameraConfig`: its Pi camera settings are used, and its tray ``crop``
    and ``software_gains`` are applied to the frames of every source (:class:`Adjusted`).
    ``realtime=False`` makes replays and the simulated tray run as fast as they are read.

    >>> open_source("webcam")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hardware.camera.SourceError: unknown camera source 'webcam': use auto, picamera, opencv:0, ...
    """
    spec = (spec or "auto").strip()
    kind, _, arg = spec.partition(":")
    fps = getattr(camera, "fps", 30) if camera is not None else 30
    if kind == "auto":
        if picamera_available():
            kind = "picamera"
        elif _opencv_probe(0):
            kind, arg = "opencv", "0"
        else:
            kind, arg = "sim", ""
    if kind == "picamera":
        source: FrameSource = PiCamera(
            fps=fps,
            exposure_us=getattr(camera, "exposure_us", 0) if camera else 0,
            analogue_gain=getattr(camera, "analogue_gain", 0.0) if camera else 0.0,
            colour_gains=getattr(camera, "colour_gains", None) if camera else None,
            lens_position=getattr(camera, "lens_position", None) if camera else None,
        )
    elif kind == "opencv" and arg:
        source = OpenCVCamera(arg, realtime=realtime)
    elif kind == "replay" and arg:
        source = ReplaySource(arg, realtime=realtime)
    elif kind == "sim":
        source = SimulatedTray(
            arg or dice_set, seed=seed, fps=fps, realtime=realtime, **(sim_options or {})
        )
    else:
        raise SourceError(
            f"unknown camera source {spec!r}: use auto, picamera, opencv:0, "
            "opencv:/dev/video0, replay:FOLDER or sim"
        )
    crop = list(getattr(camera, "crop", []) or []) if camera is not None else []
    gains = list(getattr(camera, "software_gains", []) or []) if camera is not None else []
    if crop or (gains and any(abs(g - 1.0) > 1e-6 for g in gains)):
        return Adjusted(source, crop=crop or None, gains=gains or None)
    return source


# --- record / measure a source: python -m hardware.camera SPEC ------------------------------


def main(argv: list[str] | None = None) -> int:
    """Read frames from a source, print the frame rate and dropouts, optionally save them.

    ``python -m hardware.camera picamera --frames 300 --save rec/`` records a sequence that
    ``replay:rec/`` plays back at the same pace (JPEG frames + expected.json with the fps).
    """
    import argparse
    import sys

    ap = argparse.ArgumentParser(
        prog="python -m hardware.camera",
        description="Measure a frame source and record its frames.",
    )
    ap.add_argument(
        "source", nargs="?", default="auto", help="auto, picamera, opencv:0, replay:DIR, sim[:SET]"
    )
    ap.add_argument("--frames", type=int, default=120, help="frames to read (default 120)")
    ap.add_argument("--save", help="folder to write the frames to (JPEG) with expected.json")
    ap.add_argument(
        "--throw", type=int, default=0, help="simulated tray: throw this many random dice first"
    )
    ap.add_argument(
        "--fast",
        action="store_true",
        help="replay / simulated tray: as fast as possible instead of real time",
    )
    ap.add_argument(
        "--config",
        help="apply the [camera] settings (crop, gains) of this config file, as "
        "dicetray calibrate --write wrote them",
    )
    args = ap.parse_args(argv)
    camera = None
    if args.config:
        import tomllib

        try:
            with open(args.config, "rb") as f:
                camera = CameraConfig(**tomllib.load(f).get("camera", {}))
        except (OSError, ValueError, TypeError) as exc:  # TOMLDecodeError is a ValueError
            print(f"python -m hardware.camera: {args.config}: {exc}", file=sys.stderr)
            return 2
    try:
        source = open_source(args.source, camera=camera, realtime=not args.fast)
    except (CameraError, ValueError) as exc:
        print(f"python -m hardware.camera: {exc}", file=sys.stderr)
        return 1
    out_dir = Path(args.save) if args.save else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    with source:
        if args.throw and hasattr(source, "throw"):
            print("throw:", " ".join(source.throw(count=args.throw)))
        got = misses = 0
        start = time.perf_counter()
        gaps = []
        last = start
        while got + misses < args.frames:
            frame = source.read(timeout=1.0)
            now = time.perf_counter()
            if frame is None:
                misses += 1
                continue
            gaps.append(now - last)
            last = now
            if out_dir:
                cv2.imwrite(
                    str(out_dir / f"frame{got:05d}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 90]
                )
            got += 1
        elapsed = time.perf_counter() - start
    span = sum(gaps[1:])  # first frame to last frame
    fps = (got - 1) / span if got > 1 and span > 0 else 0.0
    worst = max(gaps[1:], default=0.0) * 1000
    print(
        f"{source.name}: {got} frames, {misses} dropouts in {elapsed:.2f} s = {fps:.1f} fps "
        f"(nominal {source.fps:g}); slowest gap {worst:.1f} ms"
    )
    if out_dir:
        (out_dir / "expected.json").write_text(
            json.dumps(
                {
                    "source": source.name,
                    "fps": round(fps if fps > 0 and not args.fast else source.fps, 2),
                    "frames": got,
                    "throws": [],
                },
                indent=1,
            ),
            encoding="utf-8",
        )
        print(f"saved to {out_dir} (play back with --source replay:{out_dir})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
