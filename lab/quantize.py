"""Make a classifier 8-bit but for its ends, for speed at the table (``python -m lab.quantize``).

onnxruntime's static quantization (QDQ format: weights int8 per output channel, activations
uint8) makes an exported float classifier 8-bit but for its first and last convolution, its
two heads and their softmax, which stay float: the first reads the picture itself, the last
makes the ``features`` teaching fits its heads on, and the confidences keep their resolution
near 1. The shipped d6 network is made so: 0.18-0.19 ms a die in ``dicetray bench`` against
0.27-0.32 ms float, its thresholds set again on it reading as many calibration dice (1,361
read once against 1,375, 1,433 at four turns against 1,431).
The activations' ranges are read on crops of rendered scenes and synthetic crops, not-a-die
ones among them, of a seed of their own (``SEED``: never a calibration, judge or evaluation
seed). Its answers change a little, so its thresholds are set again afterwards, on it:

    python -m lab.train --sets d6 --out DIR               # float, from lab.train
    python -m lab.quantize --sets d6 --models DIR         # in place, the card says so
    python -m lab.train --sets d6 --calibrate --out DIR   # its thresholds

``lab.onnxtorch`` reads a quantized network back as a float one (teaching's ``--deep``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from vision.classcard import model_paths
from vision.crops import to_input
from vision.dicesets import SET_IDS
from vision.onnx import MODELS_DIR, file_sha256

SEED = 404  # the rendered scenes whose crops set the activations' ranges
SCENES = 600
SYNTHETIC = 2000  # synthetic crops (lab.synth), not-a-die ones among them
FLOAT_OPS = ("Gemm", "Softmax")  # what stays float: the two heads and their confidences
# and the first and last convolutions: the first reads the picture itself, the last makes
# ``features``, the map teaching fits its heads on
FLOAT_CONVS = ("first", "last")


def _float_nodes(graph) -> list[str]:
    """The names of the nodes ``quantize`` leaves float (``FLOAT_OPS``, ``FLOAT_CONVS``)."""
    convs = [n.name for n in graph.node if n.op_type == "Conv"]
    ends = {"first": convs[0], "last": convs[-1]} if convs else {}
    return [n.name for n in graph.node if n.op_type in FLOAT_OPS] + [
        ends[c] for c in FLOAT_CONVS if c in ends
    ]


def is_quantized(path: Path) -> bool:
    """Whether the ONNX file at ``path`` is already quantized (has QDQ nodes)."""
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    return any(n.op_type in ("QuantizeLinear", "DequantizeLinear") for n in model.graph.node)


def _reader(input_name: str, crops: np.ndarray, batch: int = 32):
    from onnxruntime.quantization import CalibrationDataReader

    class Crops(CalibrationDataReader):
        def __init__(self):
            self._batches = iter(
                {input_name: to_input(crops[i : i + batch])} for i in range(0, len(crops), batch)
            )

        def get_next(self):
            return next(self._batches, None)

    return Crops()


def quantize(
    set_id: str,
    models_dir: Path = MODELS_DIR,
    scenes: int = SCENES,
    synthetic: int = SYNTHETIC,
    log=print,
) -> dict:
    """Quantize ``models_dir``'s classifier of ``set_id`` in place and say so in its card
    (``quantized``); its thresholds are then out of date (``lab.train --calibrate``).
    Raises ValueError for a network already quantized."""
    import onnx
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from lab.trainset import make_rendered, make_synthetic
    from vision.onnx import open_session

    onnx_path, meta_path = model_paths(set_id, models_dir)
    if is_quantized(onnx_path):
        raise ValueError(f"{onnx_path} is already quantized")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    size = int(meta.get("input_size", 64))
    made = make_rendered(set_id, scenes, SEED, size=size)
    if made is None:
        raise ValueError("no rendered scenes (hardware.sim.render) to read the ranges on")
    # and synthetic crops, a sixth of them not dice (felt, hands, coins, clutter): the ranges
    # must hold what the not-a-die answer is read from, or a cup in the tray reads as a die
    negatives = make_synthetic(set_id, synthetic, SEED, size=size)[0]
    crops = np.concatenate([made[0], negatives])
    name = open_session(onnx_path).get_inputs()[0].name
    float_sha = file_sha256(onnx_path)
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(onnx_path), str(pre))
        graph = onnx.load(str(pre)).graph
        quantize_static(
            str(pre),
            str(onnx_path),
            _reader(name, crops),
            quant_format=QuantFormat.QDQ,
            nodes_to_exclude=_float_nodes(graph),
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
        )
    meta["quantized"] = {
        "by": "onnxruntime.quantization.quantize_static (QDQ)",
        "float": list(FLOAT_OPS) + [f"{c} Conv" for c in FLOAT_CONVS],
        "weights": "int8, per output channel",
        "activations": "uint8, ranges (min-max) on "
        f"{len(made[0])} crops of {scenes} rendered scenes and {len(negatives)} synthetic "
        f"crops, not-a-die ones among them (seed {SEED})",
        "float_sha256": float_sha,
    }
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    log(f"{onnx_path}: quantized on {len(crops)} crops; set its thresholds again")
    return meta["quantized"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m lab.quantize",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("--sets", nargs="+", default=["d6"], choices=SET_IDS)
    p.add_argument("--models", default=str(MODELS_DIR), help="the folder of the classifiers")
    p.add_argument("--scenes", type=int, default=SCENES)
    args = p.parse_args(argv)
    for s in args.sets:
        try:
            quantize(s, Path(args.models), args.scenes)
        except (ValueError, FileNotFoundError) as exc:
            print(f"lab.quantize: {exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
