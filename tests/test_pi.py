"""The Raspberry Pi install and check: hardware/install-pi.sh (dry run, refusals), the user unit
and autostart runner (no hard-coded user; restart rules by exit code), and the verdicts of
``python -m hardware.pi`` on faked environments."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import types
import typing
from pathlib import Path

import pytest

from hardware import pi

ROOT = Path(__file__).resolve().parents[1]
HW = ROOT / "hardware"
SCRIPT = HW / "install-pi.sh"
needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

# ------------------------------------------------------------------------ install-pi.sh


def _fake_tools(tmp_path: Path) -> tuple[Path, Path]:
    """A bin folder whose sudo/apt/systemctl/... only record that they were called."""
    bin_dir, log = tmp_path / "bin", tmp_path / "called.log"
    bin_dir.mkdir(parents=True)
    for tool in (
        "sudo",
        "apt-get",
        "apt-cache",
        "systemctl",
        "loginctl",
        "usermod",
        "install",
        "ln",
        "cp",
        "mkdir",
        "rm",
        "labwc",
    ):
        f = bin_dir / tool
        f.write_text(f'#!/bin/sh\necho "{tool} $*" >> "{log}"\n')
        f.chmod(0o755)
    return bin_dir, log


def _run_script(
    tmp_path: Path,
    *args: str,
    os_release: str = "ID=debian\nVERSION_CODENAME=bookworm\n",
    labwc: bool = False,
):
    home = tmp_path / "home"
    home.mkdir(parents=True, exist_ok=True)
    bin_dir, log = _fake_tools(tmp_path)
    if not labwc:
        (bin_dir / "labwc").unlink()
    release = tmp_path / "os-release"
    release.write_text(os_release)
    env = {
        "HOME": str(home),
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "DICETRAY_OS_RELEASE": str(release),
    }
    proc = subprocess.run(
        ["bash", str(SCRIPT), *args],
        env=env,
        capture_output=True,
        check=False,
        text=True,
        timeout=60,
    )
    return proc, home, log


@needs_bash
def test_dry_run_prints_every_step_in_order_and_writes_nothing(tmp_path):
    proc, home, log = _run_script(tmp_path, "--dry-run", "--session", "console")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    steps = re.findall(r"^==> step (\d+): (.*)$", out, re.MULTILINE)
    assert [int(n) for n, _ in steps] == list(range(1, len(steps) + 1))
    titles = [t for _, t in steps]
    order = [
        "check the system",
        "apt packages",
        "groups",
        "virtual environment",
        "pin apt's numpy",
        "install dicetray",
        "config file",
        "systemd user service",
        "start it now",
        "check everything",
    ]
    assert [next(i for i, t in enumerate(titles) if t.startswith(o)) for o in order] == list(
        range(len(order))
    )
    for cmd in (
        "+ sudo apt-get install -y --no-install-recommends python3-picamera2",
        "libgbm1",
        "libegl1",
        "libgles2",
        "python3-lgpio",
        "-m venv --system-site-packages",
        "pip install --quiet -c",
        "-e " + str(ROOT) + r"\[pi\]",
        "install -m 644 " + str(HW / "dicetray.service"),
        "dicetray-console.conf",
        "systemctl --user add-wants default.target dicetray.service",
        "systemctl --user restart dicetray.service",
        "python -m hardware.pi",
        "dry run: nothing was run or written.",
    ):
        assert cmd in out, cmd
    assert not log.exists(), log.read_text()  # no tool was called
    assert list(home.iterdir()) == []  # and nothing was written


@needs_bash
def test_dry_run_desktop_and_autostart_lines_name_no_user(tmp_path):
    proc, home, log = _run_script(tmp_path, "--dry-run", labwc=True)  # auto: labwc found
    assert proc.returncode == 0, proc.stderr
    assert "systemd user service dicetray.service (desktop session)" in proc.stdout
    assert "systemctl --user import-environment WAYLAND_DISPLAY" in proc.stdout
    assert "systemctl --user enable dicetray.service" in proc.stdout
    proc, home, log = _run_script(tmp_path / "2", "--dry-run", "--autostart", labwc=True)
    assert proc.returncode == 0, proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if 'dicetray-session"' in ln)
    assert '"$HOME/.local/share/dicetray/dicetray-session"' in line and str(home) not in line
    assert not log.exists() and list(home.iterdir()) == []


def test_scripts_run_as_pi_md_calls_them():
    """PI.md runs hardware/install-pi.sh directly: a clone must give it the executable bit."""
    for script in ("install-pi.sh", "pi-emulated-check.sh", "dicetray-session.sh"):
        assert os.access(HW / script, os.X_OK), f"chmod +x hardware/{script} (git too)"
        assert (HW / script).read_text().startswith("#!/"), script


@needs_bash
def test_refuses_off_debian_unless_dry_run(tmp_path):
    fedora = "ID=fedora\nVERSION_CODENAME=\n"
    proc, home, log = _run_script(tmp_path, os_release=fedora)
    assert proc.returncode == 1
    assert "refusing: this is not Debian or Raspberry Pi OS" in proc.stderr
    assert "step 2" not in proc.stdout and not log.exists() and list(home.iterdir()) == []
    proc, _, log = _run_script(tmp_path / "2", "--dry-run", os_release=fedora)
    assert proc.returncode == 0 and "a real run would refuse" in proc.stdout
    bad = subprocess.run(
        ["bash", str(SCRIPT), "--session", "tv"], capture_output=True, check=False, text=True
    )
    assert bad.returncode == 2 and "--session is auto, desktop or console" in bad.stderr


@needs_bash
def test_autostart_block_is_written_once_and_removed_cleanly(tmp_path):
    """Our lines in ~/.config/labwc/autostart: replaced in place on a second run, the user's own
    lines kept, removed whole when switching to the console."""
    autostart = tmp_path / "labwc" / "autostart"
    lib = HW / "autostart-block.sh"

    def bash(code: str) -> None:
        subprocess.run(
            ["bash", "-c", f'dry=0; . "{lib}"; {code}'], check=True, capture_output=True, text=True
        )

    bash(f'write_block "{autostart}" "first"')  # a new file
    assert autostart.read_text().splitlines()[1] == "first"
    autostart.write_text("wf-panel-pi &\n" + autostart.read_text() + "kanshi &\n")
    bash(f'write_block "{autostart}" "second line 1\nsecond line 2"')
    bash(f'write_block "{autostart}" "second line 1\nsecond line 2"')
    lines = autostart.read_text().splitlines()
    assert lines[:2] == ["wf-panel-pi &", "kanshi &"] and "first" not in lines
    assert lines[2:] == [
        "# >>> dicetray (hardware/install-pi.sh) >>>",
        "second line 1",
        "second line 2",
        "# <<< dicetray <<<",
    ]
    bash(f'drop_block "{autostart}"; drop_block "{autostart}"')
    assert autostart.read_text() == "wf-panel-pi &\nkanshi &\n"


# ------------------------------------------------------------------ unit files, autostart


def _installed_texts() -> dict[str, str]:
    texts = {
        p.name: p.read_text()
        for p in (
            HW / "dicetray.service",
            HW / "dicetray-console.conf",
            HW / "dicetray-session.sh",
            HW / "autostart-block.sh",
        )
    }
    # the autostart lines the script writes
    script = SCRIPT.read_text()
    texts["autostart"] = "\n".join(
        re.findall(r'write_block "\$AUTOSTART" "(.*?)"\n', script, re.DOTALL)
    )
    return texts


def test_unit_files_carry_no_user_home_uid_or_socket():
    texts = _installed_texts()
    assert texts["autostart"].count("systemctl") == 2
    for name, text in texts.items():
        body = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#"))
        for bad in (
            "/home/",
            "User=",
            "Group=",
            "/run/user",
            "wayland-1",
            "1000",
            "XDG_RUNTIME_DIR=",
            "WAYLAND_DISPLAY=",
            "/root",
        ):
            assert bad not in body, (name, bad)
    unit = texts["dicetray.service"]
    assert re.search(
        r"^ExecStart=%h/\.local/share/dicetray/venv/bin/dicetray play$", unit, re.MULTILINE
    )
    for rule in (
        "Restart=on-failure",
        "RestartPreventExitStatus=2",
        "StartLimitBurst=5",
        "WantedBy=graphical-session.target",
    ):
        assert re.search(rf"^{re.escape(rule)}$", unit, re.MULTILINE), rule
    assert "SDL_VIDEODRIVER=kmsdrm" in texts["dicetray-console.conf"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_accepts_the_unit_and_its_console_drop_in(tmp_path):
    """systemd itself reads the unit as installed: %h resolves to the user's home, no unknown
    key, the console drop-in applies."""
    home, units = tmp_path / "home", tmp_path / "units"
    exe = home / ".local/share/dicetray/venv/bin/dicetray"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    (units / "dicetray.service.d").mkdir(parents=True)
    shutil.copy(HW / "dicetray.service", units / "dicetray.service")
    shutil.copy(HW / "dicetray-console.conf", units / "dicetray.service.d" / "console.conf")
    env = dict(os.environ, HOME=str(home), XDG_RUNTIME_DIR=str(tmp_path))
    proc = subprocess.run(
        ["systemd-analyze", "--user", "verify", str(units / "dicetray.service")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0 and "Unknown" not in proc.stderr, proc.stderr
    exe.unlink()  # and it does look in that home
    proc = subprocess.run(
        ["systemd-analyze", "--user", "verify", str(units / "dicetray.service")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode != 0 and str(exe) in proc.stderr


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs sh")
@pytest.mark.parametrize(
    ("codes", "runs", "rc"),
    [
        ([1, 139, 0], 3, 0),  # two crashes restarted, then "quit" from the menu: stop
        ([2, 0], 1, 2),  # a bad config: no restart loop
        ([0], 1, 0),
        ([1] * 8, 5, 1),  # crashing for ever: gives up after 5
    ],
)
def test_autostart_runner_restart_rules(tmp_path, codes, runs, rc):
    seq, count = tmp_path / "codes", tmp_path / "runs"
    seq.write_text("\n".join(map(str, codes)) + "\n")
    fake = tmp_path / "dicetray"
    fake.write_text(
        f'#!/bin/sh\n[ "$1" = play ] || exit 99\necho x >> "{count}"\n'
        f'n=$(wc -l < "{count}")\nexit $(sed -n "${{n}}p" "{seq}")\n'
    )
    fake.chmod(0o755)
    env = dict(os.environ, DICETRAY_BIN=str(fake), DICETRAY_RESTART_SEC="0")
    proc = subprocess.run(
        ["sh", str(HW / "dicetray-session.sh")],
        env=env,
        capture_output=True,
        check=False,
        text=True,
        timeout=30,
    )
    assert (proc.returncode, len(count.read_text().split())) == (rc, runs), proc.stderr


# ---------------------------------------------------------------------------- the checker


def test_kms_check_names_the_missing_packages():
    assert pi.kms_check(find=lambda name: f"lib{name}.so.1").ok is True
    c = pi.kms_check(find=lambda name: None if name in ("gbm", "EGL") else f"lib{name}.so")
    assert c.ok is False and "libgbm, libEGL" in c.detail
    assert c.fix == "sudo apt install libgbm1 libegl1 libegl-mesa0"


def test_kms_check_uses_find_library(monkeypatch):
    monkeypatch.setattr(pi.ctypes.util, "find_library", lambda name: None)
    assert pi.kms_check().ok is False


def _dist(folder: Path, name: str, version: str) -> None:
    info = folder / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


@pytest.mark.parametrize(
    ("apt", "venv", "ok"),
    [
        ("1.24.2", "1.24.2", True),  # Bookworm, apt's numpy kept
        ("1.24.2", "2.3.1", False),  # Bookworm, numpy 2 from PyPI: picamera2 breaks
        ("2.2.4", "2.2.4", True),  # Trixie: numpy 2.2 is right, not a FIX
        ("2.2.4", "1.26.4", False),  # Trixie with an old numpy pulled in
    ],
)
def test_numpy_rule_bookworm_and_trixie(tmp_path, apt, venv, ok):
    _dist(tmp_path, "numpy", apt)
    assert pi.apt_version("numpy", tmp_path) == apt
    c = pi.numpy_check(venv, pi.apt_version("numpy", tmp_path))
    assert c.ok is ok and (c.fix == "" or "pip uninstall numpy" in c.fix)


def test_numpy_without_apt_is_only_a_note(tmp_path):
    assert pi.apt_version("numpy", tmp_path) is None
    assert pi.numpy_check("2.4.0", None).ok is None


def _importer(module=None, error=None):
    def imp(name):
        if error:
            raise error
        return module

    return imp


def test_camera_check_verdicts():
    class Cam:
        cameras: typing.ClassVar[list] = [{"Model": "imx708"}]

        @classmethod
        def global_camera_info(cls):
            return cls.cameras

    mod = types.SimpleNamespace(Picamera2=Cam)
    assert [(c.name, c.ok) for c in pi.camera_check(_importer(mod))] == [
        ("picamera2", True),
        ("camera", True),
    ]
    Cam.cameras = []
    assert pi.camera_check(_importer(mod))[1].ok is False
    [c] = pi.camera_check(_importer(error=ImportError("no module")))
    assert c.ok is False and "python3-picamera2" in c.fix
    [c] = pi.camera_check(_importer(error=ValueError("numpy.dtype size changed")))
    assert c.ok is False and "numpy" in c.fix


def test_lgpio_stub_is_flagged(monkeypatch):
    assert pi.gpio_lib_check(_importer(error=ImportError())).ok is False
    real = types.SimpleNamespace(SET_PULL_NONE=0)
    versions = {"lgpio": "0.2.2.0"}
    monkeypatch.setattr(pi.importlib.metadata, "version", lambda name: versions[name])
    assert pi.gpio_lib_check(_importer(real)).ok is True
    stub = pi.gpio_lib_check(_importer(types.SimpleNamespace()))  # no SET_PULL_NONE
    assert stub.ok is False and "stub" in stub.detail and "pip uninstall lgpio" in stub.fix
    versions["lgpio"] = "0.0.0.2"
    assert pi.gpio_lib_check(_importer(real)).ok is False


@pytest.mark.parametrize(
    ("buttons", "leds", "words"),
    [
        ([17, 27, 22], [5, 6, 13], None),
        ([17, 2], [], "GPIO2 is I2C SDA"),
        ([17, 0], [], "camera I2C"),
        ([17, 27], [17, 6], "pins.leds[0] = 17: already pins.buttons[0]"),
        ([17, 40], [], "0..27"),
    ],
)
def test_pin_checks(buttons, leds, words):
    [c] = pi.pin_checks(buttons, leds)
    assert c.ok is (words is None)
    assert words is None or words in c.detail


def test_gpiochip_check(tmp_path, monkeypatch):
    assert pi.gpiochip_check(tmp_path).ok is False
    (tmp_path / "gpiochip0").write_text("")
    assert pi.gpiochip_check(tmp_path).ok is True
    monkeypatch.setattr(pi.os, "access", lambda path, mode: False)
    c = pi.gpiochip_check(tmp_path)
    assert c.ok is False and "usermod -aG" in c.fix


def test_journal_check(tmp_path):
    assert pi.journal_check(tmp_path / "a" / "b").ok is True  # made on the first game
    (tmp_path / "file").write_text("")
    c = pi.journal_check(tmp_path / "file" / "journals")
    assert c.ok is False and "journal.directory" in c.fix


def test_onnx_check(tmp_path):
    assert pi.onnx_check().ok is True  # the committed models
    assert pi.onnx_check(tmp_path).ok is False
    (tmp_path / "detector.onnx").write_bytes(b"not a model")
    c = pi.onnx_check(tmp_path)
    assert c.ok is False and "detector.onnx" in c.detail


def _all_fine(monkeypatch):
    ok = pi.Check("x", True, "fine")
    monkeypatch.setattr(pi, "camera_check", lambda: [ok])
    monkeypatch.setattr(pi, "kms_check", lambda: ok)
    monkeypatch.setattr(pi, "onnx_check", lambda: ok)
    monkeypatch.setattr(pi, "gpio_lib_check", lambda: ok)
    monkeypatch.setattr(pi, "gpiochip_check", lambda: ok)
    monkeypatch.setattr(pi, "apt_version", lambda name: None)


def test_main_exit_code_follows_the_verdicts(tmp_path, monkeypatch, capsys):
    _all_fine(monkeypatch)
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[pins]\nbuttons = [17, 27]\n[journal]\ndirectory = "{tmp_path / "j"}"\n')
    assert pi.main(["--config", str(cfg)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("all set")
    cfg.write_text("[pins]\nbuttons = [17, 3]\n")
    assert pi.main(["--config", str(cfg)]) == 1
    out = capsys.readouterr().out
    assert "[FIX] pins" in out and "GPIO3 is I2C SCL" in out and "1 to fix: pins" in out


def test_main_runs_off_a_pi(tmp_path):
    """The real check in a subprocess, as a user runs it: it lists what is missing, no traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", "hardware.pi", "--config", str(tmp_path / "none.toml")],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr
    assert "[FIX] config" in proc.stdout and "kms/egl" in proc.stdout
    assert proc.returncode == (1 if "[FIX]" in proc.stdout else 0)


def test_screen_note_names_a_chosen_driver():
    assert pi.screen_note({"SDL_VIDEODRIVER": "dummy"}).startswith("SDL_VIDEODRIVER=dummy is set")
    assert pi.screen_note({"DISPLAY": ":0"}) == "desktop session (Wayland/X11)"
    assert "KMS/DRM" in pi.screen_note({})
