"""Raspberry Pi specifics: is this a Pi, how the screen is reached, and a set-up check.

``python -m hardware.pi`` prints a check of everything dicetray needs on a Pi (see
hardware/PI.md): the board, picamera2 and the camera, numpy's version (apt's picamera2 needs
numpy 1.x), the GPIO back-end, the user's groups, the screen, and the config file. Off a Pi it
says what it finds and runs anyway, so it can be tried anywhere.

>>> isinstance(is_raspberry_pi(), bool)
True
>>> display_env({"DISPLAY": ":0"})
{}
>>> display_env({})
{'SDL_VIDEODRIVER': 'kmsdrm'}
"""

from __future__ import annotations

import grp
import importlib
import os
import pwd
import sys
from dataclasses import dataclass
from pathlib import Path

MODEL_FILE = Path("/proc/device-tree/model")


def pi_model(model_file: Path = MODEL_FILE) -> str | None:
    """The board name ("Raspberry Pi 5 Model B Rev 1.0") or None when not on a Pi."""
    try:
        text = model_file.read_bytes().rstrip(b"\x00").decode("ascii", "replace").strip()
    except OSError:
        return None
    return text if text.startswith("Raspberry Pi") else None


def is_raspberry_pi(model_file: Path = MODEL_FILE) -> bool:
    """True on a Raspberry Pi (from the device tree's model name)."""
    return pi_model(model_file) is not None


def display_env(environ=None) -> dict[str, str]:
    """The SDL settings to draw on the attached screen: none under a desktop (X11/Wayland),
    else SDL's KMS/DRM driver (the Pi's screen straight from the console, as the systemd unit
    runs it). A driver already chosen in SDL_VIDEODRIVER is kept."""
    env = os.environ if environ is None else environ
    if env.get("SDL_VIDEODRIVER") or env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return {}
    return {"SDL_VIDEODRIVER": "kmsdrm"}


@dataclass
class Check:
    """One line of the set-up check: ok (True/False/None = only a note) and what to do.

    >>> Check("gpio", False, "lgpio missing").ok
    False
    """

    name: str
    ok: bool | None
    detail: str


def _user_groups() -> set[str]:
    user = pwd.getpwuid(os.getuid()).pw_name
    groups = {g.gr_name for g in grp.getgrall() if user in g.gr_mem}
    groups.add(grp.getgrgid(os.getgid()).gr_name)
    return groups


def run_checks(config_path: str | None = None) -> list[Check]:
    """Everything :func:`main` reports, as data."""
    checks: list[Check] = []
    model = pi_model()
    checks.append(Check("board", True if model else None,
                        model or "not a Raspberry Pi (buttons run on a mock, camera on OpenCV "
                                 "or the simulated tray)"))
    import numpy
    major = int(numpy.__version__.split(".")[0])
    try:
        importlib.import_module("picamera2")
        has_picamera2 = True
    except ImportError:
        has_picamera2 = False
    except Exception as exc:  # noqa: BLE001 - a broken install fails in many ways
        has_picamera2 = False
        checks.append(Check("picamera2", False, f"installed but fails to import ({exc}); "
                            "most often numpy 2 from PyPI: see hardware/PI.md step 3"))
    if has_picamera2:
        checks.append(Check("picamera2", True, "imports"))
        from hardware.camera import picamera_available
        found = picamera_available()
        checks.append(Check("camera", found, "a camera is connected" if found else
                            "no camera found: check the ribbon cable and run "
                            "`rpicam-hello --list-cameras`"))
    elif model:
        checks.append(Check("picamera2", False, "missing: `sudo apt install python3-picamera2` "
                            "and make the venv with --system-site-packages"))
    ok_numpy = major < 2 or not model
    checks.append(Check("numpy", ok_numpy if model else None,
                        f"{numpy.__version__} from {Path(numpy.__file__).parent.parent}" + (
                            "" if ok_numpy else ": apt's picamera2 needs apt's numpy 1.x; "
                            "reinstall with the constraint of hardware/PI.md step 4")))
    if model:
        try:
            importlib.import_module("lgpio")
            checks.append(Check("gpio", True, "lgpio back-end for gpiozero"))
        except ImportError:
            checks.append(Check("gpio", False, "lgpio missing: `sudo apt install python3-lgpio` "
                                "or `pip install -e '.[pi]'`"))
        groups = _user_groups()
        missing = [g for g in ("video", "gpio", "input", "render") if g not in groups]
        checks.append(Check("groups", not missing, "ok" if not missing else
                            f"add the user to {', '.join(missing)}: "
                            f"`sudo usermod -aG {','.join(missing)} $USER`, then log in again"))
    env = display_env()
    checks.append(Check("screen", None, "desktop session (X11/Wayland)" if not env else
                        "no desktop: pygame draws through KMS/DRM (SDL_VIDEODRIVER=kmsdrm)"))
    from tray.table.config import ConfigError, default_path, load_config
    path = Path(config_path).expanduser() if config_path else default_path()
    try:
        cfg = load_config(path)
        if cfg.path is None:
            checks.append(Check("config", None, f"{path} missing: defaults are used (copy "
                                "config.example.toml there)"))
        else:
            checks.append(Check("config", True, f"{path}: {len(cfg.pins.buttons)} buttons, "
                                f"camera {cfg.camera.source}" + (
                                    ", calibrated" if cfg.camera.calibrated or cfg.camera.crop
                                    else ", not calibrated: run `dicetray calibrate --write`")))
    except ConfigError as exc:
        checks.append(Check("config", False, str(exc)))
    return checks


def main(argv: list[str] | None = None) -> int:
    """Print the set-up check; exit 1 when something needs fixing."""
    import argparse
    ap = argparse.ArgumentParser(prog="python -m hardware.pi",
                                 description="Check a Raspberry Pi is set up for dicetray.")
    ap.add_argument("--config", help="config file to check")
    args = ap.parse_args(argv)
    checks = run_checks(args.config)
    for c in checks:
        mark = {True: "ok ", False: "FIX", None: " - "}[c.ok]
        print(f"[{mark}] {c.name:<10} {c.detail}")
    return 1 if any(c.ok is False for c in checks) else 0


if __name__ == "__main__":
    sys.exit(main())
