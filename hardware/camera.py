"""Choosing a frame source from the config string ``camera.source``, and recording one.

``open_source(spec)`` builds one (the sources and their one interface: ``hardware.frames``)::

    >>> with open_source("sim:d6", realtime=False) as cam:    # doctest: +SKIP
    ...     cam.throw(["d6:3", "d6:5"])
    ...     frame = cam.read()
    ...     frame.shape, cam.truth["phase"]
    ((480, 640, 3), 'moving')

``python -m hardware.camera SOURCE`` measures a source's frame rate and records its frames.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2

from hardware.frames import Adjusted, CameraError, FrameSource, SourceError
from hardware.picam import PiCamera, picamera_available
from hardware.replay import ReplaySource
from hardware.sim.tray import SimulatedTray
from hardware.webcam import OpenCVCamera

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
    hardware.frames.SourceError: unknown camera source 'webcam': use auto, picamera, opencv:0, ...
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
