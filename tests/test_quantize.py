"""8-bit classifiers (lab.quantize): the network quantized in place with its heads and
confidences float, the card saying so, and teaching's torch module reading a quantized
network as a float one."""

from __future__ import annotations

import json
import shutil

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from lab import quantize
from lab.onnxtorch import OnnxModule, export
from vision.classcard import model_paths
from vision.crops import to_input

onnx_path, meta_path = model_paths("d6")


def _crops(n: int = 24) -> np.ndarray:
    from hardware.sim.render import render_scene
    from hardware.sim.styles import random_style
    from vision.crops import cut_crop
    from vision.dicesets import load

    rng = np.random.default_rng(2)
    out = []
    while len(out) < n:
        dice = [("d6", str(int(v))) for v in rng.integers(1, 7, 4)]
        frame, labels = render_scene(load("d6"), dice, rng, style=random_style(rng))
        out += [cut_crop(frame, (b["x"], b["y"], b["w"], b["h"]), 64) for b in labels]
    return np.stack(out[:n])


@pytest.fixture(scope="module")
def quantized(tmp_path_factory):
    """A float d6 network (the shipped 8-bit one read back as float, ``lab.onnxtorch``) and a
    copy of it quantized (few crops for the ranges): (its folder, the card's entry, the float
    network's path)."""
    floats = tmp_path_factory.mktemp("float")
    float_path = floats / onnx_path.name
    net = OnnxModule(onnx.load(str(onnx_path)))
    export(net, float_path, torch.zeros(1, 3, 64, 64), batch_axis=True)
    folder = tmp_path_factory.mktemp("q")
    shutil.copy(float_path, folder / onnx_path.name)
    card = json.loads(meta_path.read_text(encoding="utf-8"))
    card.pop("quantized")
    (folder / meta_path.name).write_text(json.dumps(card), encoding="utf-8")
    made = quantize.quantize("d6", folder, scenes=8, synthetic=64, log=lambda *_: None)
    return folder, made, float_path


def test_the_shipped_d6_network_is_8_bit_and_its_card_says_so():
    """The d6 network the table reads is the 8-bit one, and its card names what stayed float."""
    card = json.loads(meta_path.read_text(encoding="utf-8"))
    assert quantize.is_quantized(onnx_path)
    assert card["quantized"]["float"] == ["Gemm", "Softmax", "first Conv", "last Conv"]


def test_a_float_network_is_quantized_in_place_and_reads_as_before(quantized):
    """Quantized: the card says so and on what, the same best guess for the crops and close
    confidences, the heads and their softmax float; a second time is refused."""
    folder, made, float_path = quantized
    path = folder / onnx_path.name
    assert quantize.is_quantized(path) and not quantize.is_quantized(float_path)
    card = json.loads((folder / meta_path.name).read_text(encoding="utf-8"))
    assert card["quantized"] == made and "seed 404" in made["activations"]
    assert made["float"] == ["Gemm", "Softmax", "first Conv", "last Conv"]
    model = onnx.load(str(path))
    quantized_inputs = {n.output[0] for n in model.graph.node if n.op_type == "DequantizeLinear"}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    ends = {convs[0].name, convs[-1].name}
    for n in model.graph.node:
        # the heads, their softmax, the first and the last convolution: float weights, never
        # rounded to 8 bits; every other convolution's weights are
        rounded = set(n.input[1:2]) & quantized_inputs
        if n.op_type in ("Gemm", "Softmax") or n.name in ends:
            assert not set(n.input[1:]) & quantized_inputs, n.name
        elif n.op_type == "Conv":
            assert rounded, n.name
    x = to_input(_crops())
    before = ort.InferenceSession(str(float_path)).run(["face_prob"], {"crops": x})[0]
    after = ort.InferenceSession(str(path)).run(["face_prob"], {"crops": x})[0]
    assert np.array_equal(before.argmax(1), after.argmax(1))
    assert np.abs(before - after).max() < 0.1
    with pytest.raises(ValueError, match="already quantized"):
        quantize.quantize("d6", folder, scenes=8, synthetic=64, log=lambda *_: None)


def test_teaching_reads_a_quantized_network_as_a_float_one(quantized):
    """``OnnxModule`` takes the weights as floats and drops each activation's rounding (a
    range from zero stays the ReLU the quantizer folded into it): its answers are the
    quantized network's within rounding, and no 8-bit step is left to train through."""
    path = quantized[0] / onnx_path.name
    model = onnx.load(str(path))
    net = OnnxModule(model)
    assert not {"QuantizeLinear", "DequantizeLinear"} & {n[0] for n in net.nodes}
    x = to_input(_crops())
    ours = [t.detach().numpy() for t in net(torch.from_numpy(x))]
    names = [o.name for o in model.graph.output]
    theirs = dict(zip(names, ort.InferenceSession(str(path)).run(names, {"crops": x}), strict=True))
    ours = dict(zip(net.outputs, ours, strict=True))
    assert np.array_equal(ours["face_prob"].argmax(1), theirs["face_prob"].argmax(1))
    assert np.abs(ours["face_prob"] - theirs["face_prob"]).max() < 0.05
    # the features teaching fits its head on: the same map but for rounding and the top of
    # the ranges (read here on few crops, so tight)
    off = np.abs(ours["features"] - theirs["features"]).mean()
    assert off < 0.1 * np.abs(theirs["features"]).mean()
