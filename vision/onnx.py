"""One way to open an ONNX model at the table: one thread, quiet, and no telemetry.

onnxruntime can send usage events and write a device id (``~/.cache/Microsoft/...``); a dice
tray in a living room phones nobody. So this module, the only way the table opens a model,
sets ``ORT_DISABLE_TELEMETRY`` before onnxruntime is first imported (onnxruntime then creates
no uploader, no device id and no cache) and switches telemetry events off on every session.

    >>> from pathlib import Path
    >>> from vision.onnx import open_session
    >>> s = open_session(Path(__file__).resolve().parent.parent / "models" / "detector.onnx")
    >>> [o.name for o in s.get_outputs()][:3]
    ['heat', 'size', 'hand']
"""

from __future__ import annotations

import hashlib
import os
from importlib import metadata
from pathlib import Path

# read by onnxruntime when it initialises, so set before it is first imported
os.environ["ORT_DISABLE_TELEMETRY"] = "1"


MODELS_ENV = "DICETRAY_MODELS"  # another folder of models to read as the shipped ones


def shipped_models() -> Path:
    """The folder of the shipped models: ``models/`` of a checkout (``pip install -e .``), or
    where ``pip install .`` put them (``share/dicetray/models`` under the install's prefix,
    found from the files the install recorded); the folder ``DICETRAY_MODELS`` names, when
    set (networks measured in the workshop, read by the table's own code)."""
    if os.environ.get(MODELS_ENV):
        return Path(os.environ[MODELS_ENV]).resolve()
    checkout = Path(__file__).resolve().parent.parent / "models"
    if (checkout / "detector.onnx").is_file():
        return checkout
    try:
        files = metadata.files("dicetray") or []
    except metadata.PackageNotFoundError:
        files = []
    for f in files:
        if f.name == "detector.onnx" and f.parent.name == "models":
            return Path(f.locate()).resolve().parent
    return checkout


MODELS_DIR = shipped_models()


def open_session(path: Path | str):
    """An onnxruntime CPU session for ``path`` on one thread, telemetry off."""
    import onnxruntime as ort

    ort.disable_telemetry_events()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


def file_sha256(path: Path) -> str:
    """The SHA-256 of a model file, in hex (a taught folder names the shipped network it was
    taught beside by it)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
