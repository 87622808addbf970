"""What several test files share."""

import json
import os
import shutil
from pathlib import Path

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    # one thread of torch (teaching) per worker: `make test` runs two workers on two cores,
    # and two workers teaching at once with two OpenMP threads each took 160 s for a teaching
    # fixture that takes 16 s alone. Set before anything imports torch.
    os.environ.setdefault("OMP_NUM_THREADS", "1")


def _taught_copy(folder: Path, **card) -> Path:
    """A taught folder holding the shipped d6 classifier with its card changed by ``card``
    (a stand-in for a fine-tuned network: its weights are the shipped ones)."""
    from vision.classcard import model_paths
    from vision.onnx import MODELS_DIR

    onnx_path, meta_path = model_paths("d6", MODELS_DIR)
    folder.mkdir()
    shutil.copy(onnx_path, folder / onnx_path.name)
    meta = json.loads(meta_path.read_text())
    for part in (meta, meta.get("turned", {})):  # a taught card sets its own, or none
        part.pop("pip_agree_threshold", None)
        part.pop("pip_agree_bound", None)
    meta.update(card)
    (folder / meta_path.name).write_text(json.dumps(meta))
    (folder / "taught.json").write_text(
        json.dumps({"format": 1, "dice_set": "d6", "models": [onnx_path.name, meta_path.name]})
    )
    return folder


@pytest.fixture
def taught_copy():
    """``taught_copy(folder, **card)``: see ``_taught_copy``."""
    return _taught_copy
