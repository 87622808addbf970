"""``pip install .`` (not editable) gives a dicetray that finds its models: the wheel carries
them under ``share/dicetray/models`` and ``vision.onnx.shipped_models`` finds them there, with
no checkout beside the installed code."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_wheel_install_finds_the_shipped_models(tmp_path):
    src = tmp_path / "src"  # a copy: building in place would leave build/ in the checkout
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pt")
    for name in ("tray", "vision", "hardware", "lab", "models"):
        shutil.copytree(ROOT / name, src / name, ignore=skip)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    command = Path(sys.executable).parent / "dicetray"  # the environment's own, if installed
    had_command = command.is_file()
    wheels, prefix = tmp_path / "wheels", tmp_path / "prefix"
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(src)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = wheels.glob("dicetray-*.whl")
    # --ignore-installed: else pip uninstalls the environment's own dicetray (the editable
    # install `make` made) before installing into the prefix, and `make run` then finds no
    # dicetray command
    subprocess.run(
        [
            *pip,
            "install",
            "--no-deps",
            "--no-index",
            "--ignore-installed",
            "--prefix",
            str(prefix),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    assert command.is_file() == had_command, "installing the wheel removed the env's dicetray"
    (site,) = prefix.glob("lib/python3*/site-packages")
    # -S: no site-packages, so neither the checkout's editable install nor cwd can answer
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import vision.onnx as o; "
        "print(o.__file__); print(o.MODELS_DIR)"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", probe, str(site)],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.split("\n")
    assert Path(out[0]).is_relative_to(site)  # the installed code, not the checkout's
    models = Path(out[1])
    assert models == (prefix / "share" / "dicetray" / "models").resolve()
    shipped = sorted(p.name for p in (ROOT / "models").glob("*.onnx"))
    assert "detector.onnx" in shipped
    assert sorted(p.name for p in models.glob("*.onnx")) == shipped
    for name in shipped:
        assert _sha(models / name) == _sha(ROOT / "models" / name), name
        meta = Path(name).with_suffix(".json").name
        if name.endswith("-second.onnx"):  # a second network's card is its first's "joint"
            first = models / name.replace("-second.onnx", ".json")
            assert json.loads(first.read_text(encoding="utf-8"))["joint"]["network"] == name
            continue
        assert (models / meta).read_bytes() == (ROOT / "models" / meta).read_bytes()
