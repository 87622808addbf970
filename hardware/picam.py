"""The Raspberry Pi camera through picamera2, the only module that imports it (from the Pi's
apt, not PyPI), and only when a :class:`PiCamera` is created.
"""

from __future__ import annotations

import numpy as np

from hardware.frames import SIZE, CameraError, FrameSource, to_frame

PICAMERA_MISSING = (
    "picamera2 is not installed: on Raspberry Pi OS run `sudo apt install "
    "python3-picamera2` and create the venv with --system-site-packages "
    "(see hardware/PI.md)"
)


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
