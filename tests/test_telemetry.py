"""onnxruntime telemetry is off in code for every session (vision.onnx.open_session)."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import onnxruntime as ort

from vision.onnx import open_session

MODELS = Path(__file__).resolve().parents[1] / "models"


def test_every_session_is_opened_with_telemetry_off(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with mock.patch.object(
        ort, "disable_telemetry_events", wraps=ort.disable_telemetry_events
    ) as off:
        for name in ("detector.onnx", "classifier-d6.onnx"):
            open_session(MODELS / name).run(None, _feed(open_session(MODELS / name)))
    assert off.call_count == 4
    assert not list(tmp_path.glob("deviceid*")), list(tmp_path.iterdir())


def _feed(session):
    import numpy as np

    feed = {}
    for i in session.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in i.shape]
        feed[i.name] = np.zeros(shape, np.float32)
    return feed


def test_opening_a_model_writes_no_device_id_and_no_cache(tmp_path):
    """In a fresh process, with only the environment the user has: nothing lands in the home
    folder or the working folder (onnxruntime otherwise writes ~/.cache/Microsoft/...)."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("ORT_")}
    env["HOME"] = str(tmp_path / "home")
    (tmp_path / "home").mkdir()
    code = (
        "from pathlib import Path; from vision.onnx import open_session; "
        f"open_session(Path({str(MODELS / 'detector.onnx')!r}))"
    )
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, check=True)
    assert not (tmp_path / "home" / ".cache").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]
