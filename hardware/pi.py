"""Raspberry Pi specifics: is this a Pi, how the screen is reached, and the table's check.

``python -m hardware.pi [--config FILE]`` checks everything a table needs, each line with its
fix (hardware/PI.md): the camera (picamera2 and a camera listed), the KMS/EGL libraries
pygame-ce draws with, onnxruntime and the models, numpy against apt's picamera2, the GPIO
back-end, the configured pins, access to the GPIO chip, the journal folder and the config.
Off a Pi it runs too and reports what is missing; the exit code is 1 when anything needs
fixing, else 0.

>>> isinstance(is_raspberry_pi(), bool)
True
>>> display_env({"DISPLAY": ":0"})
{}
>>> display_env({})
{'SDL_VIDEODRIVER': 'kmsdrm'}
>>> numpy_check("2.2.4", "2.2.4").ok           # Trixie: apt's numpy is 2.2, and that is right
True
>>> numpy_check("2.3.1", "1.24.2").ok          # Bookworm with numpy 2 from PyPI: broken
False
>>> [c.ok for c in pin_checks([17, 27], [5, 2])]
[False]
"""

from __future__ import annotations

import ctypes.util
import grp
import importlib
import importlib.metadata
import os
import sys
from dataclasses import dataclass
from pathlib import Path

MODEL_FILE = Path("/proc/device-tree/model")
APT_DIST = Path("/usr/lib/python3/dist-packages")  # where apt's Python packages live
DEV = Path("/dev")
# BCM pins that are not free for buttons: GPIO0/1 = ID EEPROM (and the camera's I2C on early
# boards), GPIO2/3 = I2C1 (SDA/SCL, also HATs and camera add-ons).
RESERVED_PINS = {
    0: "ID EEPROM / camera I2C (ID_SD)",
    1: "ID EEPROM / camera I2C (ID_SC)",
    2: "I2C SDA",
    3: "I2C SCL",
}
GPIO_MAX = 27
KMS_LIBS = {"gbm": "libgbm1", "drm": "libdrm2", "EGL": "libegl1 libegl-mesa0", "GLESv2": "libgles2"}
LGPIO_LEAST = (0, 2, 2)  # PyPI's 0.0.0.2 is an empty stub (gpiozero #1115, #1131)
INSTALL = "hardware/install-pi.sh"


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
    else SDL's KMS/DRM driver (the Pi's screen straight from the console, as the console
    drop-in of the user service sets it). A driver already chosen in SDL_VIDEODRIVER is kept."""
    env = os.environ if environ is None else environ
    if env.get("SDL_VIDEODRIVER") or env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return {}
    return {"SDL_VIDEODRIVER": "kmsdrm"}


@dataclass
class Check:
    """One line of the check: ok (True/False/None = only a note), what was found, the fix.

    >>> Check("gpio", False, "lgpio missing", "sudo apt install python3-lgpio").line()
    '[FIX] gpio       lgpio missing\\n      fix: sudo apt install python3-lgpio'
    """

    name: str
    ok: bool | None
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = {True: "ok ", False: "FIX", None: " - "}[self.ok]
        text = f"[{mark}] {self.name:<10} {self.detail}"
        return text + (f"\n      fix: {self.fix}" if self.fix and self.ok is False else "")


def _version(v: str) -> tuple[int, ...]:
    out = []
    for part in v.split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        if not digits:
            break
        out.append(int(digits))
        if not part.isdigit():
            break
    return tuple(out)


def apt_version(name: str, apt_dist: Path = APT_DIST) -> str | None:
    """The version of ``name`` apt installed (its metadata in ``apt_dist``), or None."""
    for dist in importlib.metadata.distributions(path=[str(apt_dist)]):
        if (dist.metadata["Name"] or "").lower() == name.lower():
            return dist.version
    return None


# ------------------------------------------------------------------------------ the checks
def camera_check(importer=importlib.import_module) -> list[Check]:
    """picamera2 importable (from apt) and at least one camera listed by libcamera."""
    try:
        cls = importer("picamera2").Picamera2
    except ImportError:
        return [
            Check(
                "picamera2",
                False,
                "not importable",
                f"sudo apt install python3-picamera2 and a venv with system site "
                f"packages ({INSTALL} does both)",
            )
        ]
    except Exception as exc:  # noqa: BLE001 - a broken install fails in many ways
        return [
            Check(
                "picamera2",
                False,
                f"fails to import: {exc}",
                "most often a numpy that is not apt's: see the numpy line, then run "
                f"{INSTALL} again",
            )
        ]
    try:
        cameras = cls.global_camera_info()
    except Exception as exc:  # noqa: BLE001 - libcamera errors are not typed
        cameras, why = [], f" ({exc})"
    else:
        why = ""
    names = ", ".join(str(c.get("Model", "?")) for c in cameras)
    return [
        Check("picamera2", True, "imports"),
        Check(
            "camera",
            bool(cameras),
            f"listed: {names}" if cameras else f"no camera listed{why}",
            "check the ribbon cable (contacts towards the board), that you are in group "
            "video (`id`), and run `rpicam-hello --list-cameras`; on a Pi 4 with Camera "
            "Module 3 update the OS",
        ),
    ]


def kms_check(find=None) -> Check:
    """The libraries pygame-ce's SDL opens to draw through KMS/DRM and EGL."""
    find = find or ctypes.util.find_library
    missing = [name for name in KMS_LIBS if not find(name)]
    if not missing:
        return Check("kms/egl", True, "libgbm, libdrm, libEGL and libGLESv2 found")
    pkgs = " ".join(dict.fromkeys(" ".join(KMS_LIBS[m] for m in missing).split()))
    return Check(
        "kms/egl",
        False,
        "missing: " + ", ".join(f"lib{m}" for m in missing),
        f"sudo apt install {pkgs}",
    )


def onnx_check(models_dir: Path | None = None) -> Check:
    """onnxruntime imports and every committed model opens."""
    try:
        import onnxruntime

        import vision.onnx  # noqa: F401 - sets ORT_DISABLE_TELEMETRY before onnxruntime loads
    except Exception as exc:  # noqa: BLE001 - missing or broken wheel
        return Check(
            "onnx",
            False,
            f"onnxruntime does not import ({exc})",
            f"{INSTALL} (pip install -e '.[pi]' in the venv)",
        )
    from vision.onnx import MODELS_DIR, open_session

    base = models_dir or MODELS_DIR
    models = sorted(base.glob("*.onnx"))
    if not models:
        return Check(
            "onnx",
            False,
            f"no models in {base}",
            "git checkout models/ (they are committed with the code)",
        )
    for path in models:
        try:
            open_session(path)
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own types
            return Check(
                "onnx",
                False,
                f"{path.name} does not load ({exc})",
                "git checkout models/ or pull again; `dicetray train` remakes them",
            )
    return Check("onnx", True, f"onnxruntime {onnxruntime.__version__}, {len(models)} models load")


def numpy_check(numpy_version: str, apt_numpy: str | None, where: str = "") -> Check:
    """numpy must be the one apt's picamera2 was built with: apt's own (1.24 on Bookworm, 2.2
    on Trixie). Which major version it is does not matter; being another one does."""
    at = f" ({where})" if where else ""
    if apt_numpy is None:
        return Check(
            "numpy", None, f"{numpy_version}{at}; apt has no numpy, so no picamera2 to match"
        )
    if _version(numpy_version)[:2] == _version(apt_numpy)[:2]:
        return Check("numpy", True, f"{numpy_version}{at}, as apt's picamera2 needs")
    return Check(
        "numpy",
        False,
        f"{numpy_version}{at}, but apt's picamera2 is built against numpy {apt_numpy}",
        f"remove the venv's own numpy "
        "(`~/.local/share/dicetray/venv/bin/pip uninstall numpy`) or run "
        f"{INSTALL} again: it pins apt's numpy",
    )


def gpio_lib_check(importer=importlib.import_module) -> Check:
    """lgpio, gpiozero's back-end on Raspberry Pi OS, importable and not PyPI's stub."""
    try:
        lgpio = importer("lgpio")
    except ImportError:
        return Check(
            "lgpio",
            False,
            "not importable (gpiozero falls back to a mock: buttons do nothing)",
            "sudo apt install python3-lgpio (the venv sees it)",
        )
    try:
        version = importlib.metadata.version("lgpio")
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    if (version != "?" and _version(version) < LGPIO_LEAST) or not hasattr(lgpio, "SET_PULL_NONE"):
        return Check(
            "lgpio",
            False,
            f"{version} is PyPI's empty stub (gpiozero #1115, #1131)",
            "~/.local/share/dicetray/venv/bin/pip uninstall lgpio (apt's "
            "python3-lgpio is then used)",
        )
    return Check("lgpio", True, f"{version}")


def pin_checks(buttons: list[int], leds: list[int]) -> list[Check]:
    """The configured pins: BCM numbers 0..27, no pin twice, none of the camera/I2C pins."""
    problems = []
    seen: dict[int, str] = {}
    for key, pins in (("buttons", buttons), ("leds", leds)):
        for i, pin in enumerate(pins):
            name = f"pins.{key}[{i}] = {pin}"
            if not isinstance(pin, int) or not 0 <= pin <= GPIO_MAX:
                problems.append(f"{name}: BCM GPIO numbers are 0..{GPIO_MAX}")
            elif pin in RESERVED_PINS:
                problems.append(f"{name}: GPIO{pin} is {RESERVED_PINS[pin]}")
            elif pin in seen:
                problems.append(f"{name}: already {seen[pin]}")
            seen.setdefault(pin, name)
    if problems:
        return [
            Check(
                "pins",
                False,
                "; ".join(problems),
                "pick free pins (GPIO4-27 apart from those in use; see hardware/PI.md "
                "wiring) in [pins] of the config",
            )
        ]
    return [Check("pins", True, f"buttons {buttons}" + (f", leds {leds}" if leds else ""))]


def gpiochip_check(dev: Path = DEV) -> Check:
    """A GPIO chip device exists and this user may open it (group gpio on Raspberry Pi OS)."""
    chips = sorted(dev.glob("gpiochip*"))
    if not chips:
        return Check(
            "gpiochip",
            False,
            f"no {dev}/gpiochip* (not a Pi, or GPIO is off)",
            "on a Pi this is always there; off a Pi the buttons run on a mock",
        )
    usable = [c for c in chips if os.access(c, os.R_OK | os.W_OK)]
    if not usable:
        try:
            group = grp.getgrgid(chips[0].stat().st_gid).gr_name
        except (KeyError, OSError):
            group = "gpio"
        return Check(
            "gpiochip",
            False,
            f"{', '.join(c.name for c in chips)} not open to this user",
            f"sudo usermod -aG {group} $USER, then log out and in again",
        )
    return Check("gpiochip", True, ", ".join(c.name for c in usable) + " open to this user")


def journal_check(directory: Path) -> Check:
    """The journal folder is writable (or can be made: its nearest existing parent is)."""
    here = directory
    while not here.exists() and here != here.parent:
        here = here.parent
    if here.is_dir() and os.access(here, os.W_OK | os.X_OK):
        return Check(
            "journal",
            True,
            f"{directory} writable" + ("" if here == directory else " (made on the first game)"),
        )
    return Check(
        "journal",
        False,
        f"{directory} is not writable ({here} is not a writable folder)",
        f"sudo chown -R $USER {here}, or set journal.directory in the config to a folder of yours",
    )


def _os_name(path: Path = Path("/etc/os-release")) -> str:
    try:
        pairs = dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    except OSError:
        return "unknown system"
    return pairs.get("PRETTY_NAME", "unknown system").strip('"')


def run_checks(config_path: str | None = None) -> list[Check]:
    """Everything :func:`main` reports, as data."""
    model = pi_model()
    checks = [
        Check(
            "board", True if model else None, (model or "not a Raspberry Pi") + f" ({_os_name()})"
        )
    ]
    checks += camera_check()
    checks.append(kms_check())
    checks.append(onnx_check())
    import numpy

    checks.append(
        numpy_check(
            numpy.__version__, apt_version("numpy"), str(Path(numpy.__file__).parent.parent)
        )
    )
    checks.append(gpio_lib_check())
    checks.append(gpiochip_check())
    from tray.app.config import ConfigError, default_path, load_config

    path = Path(config_path).expanduser() if config_path else default_path()
    try:
        cfg = load_config(path)
    except ConfigError as exc:
        checks.append(Check("config", False, str(exc), "correct that key in the config file"))
        return checks
    if cfg.path is None:
        checks.append(
            Check(
                "config",
                False,
                f"{path} missing: no buttons are configured",
                f"cp config.example.toml {path} and set the names and pins ({INSTALL} does it)",
            )
        )
    else:
        checks.append(
            Check(
                "config",
                True,
                f"{path}: camera {cfg.camera.source}"
                + (
                    ", calibrated"
                    if cfg.camera.calibrated or cfg.camera.crop
                    else ", not calibrated yet: run `dicetray calibrate --write`"
                ),
            )
        )
        checks += pin_checks(cfg.pins.buttons, cfg.pins.leds)
    checks.append(journal_check(cfg.journal.directory))
    checks.append(Check("screen", None, screen_note()))
    return checks


def screen_note(environ=None) -> str:
    """Where the table will draw, as the check says it.

    >>> screen_note({"SDL_VIDEODRIVER": "dummy"})
    'SDL_VIDEODRIVER=dummy is set: the table draws with that driver'
    >>> screen_note({"WAYLAND_DISPLAY": "wayland-0"})
    'desktop session (Wayland/X11)'
    """
    env = os.environ if environ is None else environ
    if env.get("SDL_VIDEODRIVER"):
        return f"SDL_VIDEODRIVER={env['SDL_VIDEODRIVER']} is set: the table draws with that driver"
    if display_env(env):
        return (
            "no desktop here: the table draws through KMS/DRM "
            "(SDL_VIDEODRIVER=kmsdrm, the service's console drop-in)"
        )
    return "desktop session (Wayland/X11)"


def main(argv: list[str] | None = None) -> int:
    """Print the check; exit 1 when something needs fixing, else 0."""
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m hardware.pi", description="Check everything a dicetray table needs."
    )
    ap.add_argument("--config", help="config file to check (default: the one play uses)")
    args = ap.parse_args(argv)
    checks = run_checks(args.config)
    for c in checks:
        print(c.line())
    bad = [c.name for c in checks if c.ok is False]
    print(f"\n{len(bad)} to fix: {', '.join(bad)}" if bad else "\nall set")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
