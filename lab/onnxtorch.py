"""Run an ONNX model as a torch module, so that teaching can fine-tune the shipped networks.

The dicetray networks use a handful of ONNX operators (convolutions, pooling, linear layers,
softmax, slicing, nearest-neighbour upsampling); :class:`OnnxModule` runs exactly those with
torch, with the model's weights as trainable parameters, and exports back to ONNX with the
same input and output names. (onnx2torch does this for every operator, but it needs a
torchvision built for the same torch, which the pinned CPU torch of the train extra lacks.)

    >>> import numpy as np, onnx, torch, onnxruntime as ort
    >>> from pathlib import Path
    >>> from lab.onnxtorch import OnnxModule
    >>> path = Path(__file__).resolve().parent.parent / "models" / "classifier-rollers.onnx"
    >>> net = OnnxModule(onnx.load(str(path)))
    >>> x = np.random.default_rng(0).random((2, 3, 64, 64), np.float32)
    >>> ours = net(torch.from_numpy(x))[1].detach().numpy()
    >>> theirs = ort.InferenceSession(str(path)).run(["face_prob"], {"crops": x})[0]
    >>> bool(np.abs(ours - theirs).max() < 1e-4)
    True
"""

from __future__ import annotations

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn
from torch.nn import functional as F


class UnsupportedModel(ValueError):
    """The model uses an operator this module does not run."""


def _attrs(node) -> dict:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _pads(p):
    """ONNX pads (begin..., end...) as F.pad's (last dim first)."""
    half = len(p) // 2
    out = []
    for b, e in zip(reversed(p[:half]), reversed(p[half:]), strict=True):
        out += [b, e]
    return out


def dequantized(model: onnx.ModelProto) -> onnx.ModelProto:
    """The float network of an 8-bit one (``lab.quantize``: QuantizeLinear / DequantizeLinear
    pairs round its activations, DequantizeLinear turns its stored weights into floats): the
    weights made floats once, each activation's rounding and range left out (a range that
    starts at zero is the ReLU the quantizer folded into it: a Relu again; an upper bound
    would stop the gradient of a logit teaching must move). A float model is returned as it
    is."""
    if not any(n.op_type in ("QuantizeLinear", "DequantizeLinear") for n in model.graph.node):
        return model
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    graph = copy.graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    made: dict[str, np.ndarray] = {}  # a weight's float value
    rename: dict[str, str] = {}  # an activation's rounded copy -> the activation itself
    quantized: dict[str, tuple] = {}  # QuantizeLinear output -> (input, scale, zero point)
    keep = []
    for n in graph.node:
        if n.op_type == "QuantizeLinear":
            quantized[n.output[0]] = (n.input[0], inits[n.input[1]], inits[n.input[2]])
        elif n.op_type == "DequantizeLinear" and n.input[0] in quantized:
            x, _, zero = quantized[n.input[0]]
            if int(zero) == np.iinfo(zero.dtype).min:  # a range from zero: a ReLU folded in
                keep.append(onnx.helper.make_node("Relu", [x], [n.output[0]]))
            else:
                rename[n.output[0]] = x
        elif n.op_type == "DequantizeLinear" and n.input[0] in inits:
            q = inits[n.input[0]].astype(np.float64)
            scale = inits[n.input[1]].astype(np.float64)
            zero = inits[n.input[2]].astype(np.float64) if len(n.input) > 2 else 0.0
            if scale.ndim == 1 and q.ndim > 1:  # one scale per channel along ``axis``
                shape = [1] * q.ndim
                shape[_attrs(n).get("axis", 1)] = -1
                scale, zero = scale.reshape(shape), np.reshape(zero, shape if np.ndim(zero) else ())
            made[n.output[0]] = ((q - zero) * scale).astype(np.float32)
        else:
            keep.append(n)
    for n in keep:
        n.input[:] = [rename.get(name, name) for name in n.input]
    outputs = {o.name for o in graph.output}
    keep += [onnx.helper.make_node("Identity", [x], [y]) for y, x in rename.items() if y in outputs]
    used = {name for n in keep for name in n.input}
    out = onnx.helper.make_graph(
        keep,
        graph.name,
        list(graph.input),
        list(graph.output),
        [i for i in graph.initializer if i.name in used and i.name not in made]
        + [numpy_helper.from_array(v, name) for name, v in made.items() if name in used],
    )
    return onnx.helper.make_model(out, opset_imports=model.opset_import)


class OnnxModule(nn.Module):
    """An ONNX graph as a torch module: weights of Conv and Gemm nodes are parameters, every
    other initializer and constant a buffer; ``forward`` returns the graph outputs in order."""

    OPS = frozenset(
        {
            "Conv",
            "Relu",
            "MaxPool",
            "AveragePool",
            "GlobalAveragePool",
            "Flatten",
            "Gemm",
            "Softmax",
            "Identity",
            "Constant",
            "Sigmoid",
            "Slice",
            "Resize",
            "Concat",
            "Sub",
            "Add",
            "Mul",
            "Div",
            "Clip",
            "BatchNormalization",
            "Reshape",
            "MatMul",
            "ReduceMean",
        }
    )

    def __init__(self, model: onnx.ModelProto):
        super().__init__()
        graph = dequantized(model).graph
        unknown = sorted({n.op_type for n in graph.node} - self.OPS)
        if unknown:
            raise UnsupportedModel(
                f"the model uses ONNX operators teaching cannot fine-tune: {', '.join(unknown)}"
            )
        # weights of convolutions, linear layers and batch norms, and the biases torch's
        # exporter writes as an Add after a MatMul (what this module exports itself)
        trainable = {
            name
            for n in graph.node
            if n.op_type in ("Conv", "Gemm", "MatMul", "BatchNormalization", "Add")
            for name in n.input[1:]
        }
        self.params = nn.ParameterDict()
        self._names: dict[str, str] = {}
        consts: dict[str, torch.Tensor] = {}
        for i, init in enumerate(graph.initializer):
            arr = torch.from_numpy(np.array(numpy_helper.to_array(init)))
            if init.name in trainable and arr.is_floating_point():
                key = f"p{i}"
                self.params[key] = nn.Parameter(arr.clone())
                self._names[init.name] = key
            else:
                consts[init.name] = arr
        for node in graph.node:
            if node.op_type == "Constant":
                consts[node.output[0]] = torch.from_numpy(
                    np.array(numpy_helper.to_array(_attrs(node)["value"]))
                )
        for k, (name, value) in enumerate(consts.items()):
            self.register_buffer(f"c{k}", value, persistent=True)
            self._names[name] = f"c{k}"
        self.nodes = [
            (n.op_type, list(n.input), list(n.output), _attrs(n))
            for n in graph.node
            if n.op_type != "Constant"
        ]
        self.inputs = [i.name for i in graph.input if i.name not in self._names]
        self.outputs = [o.name for o in graph.output]

    def _get(self, env: dict, name: str):
        if name in env:
            return env[name]
        key = self._names[name]
        return self.params[key] if key in self.params else getattr(self, key)

    #: True: every Softmax gives log-probabilities, from the logits (for training: the log of
    #: a softmax output that rounded to nothing has no gradient, and then a sure wrong answer
    #: can never be taught away); the ONNX exported is unchanged
    log_probs = False

    def forward(self, *args):
        env = dict(zip(self.inputs, args, strict=True))
        for op, ins, outs, a in self.nodes:
            x = [self._get(env, n) if n else None for n in ins]
            if op == "Softmax" and self.log_probs:
                env[outs[0]] = torch.log_softmax(x[0], a.get("axis", -1))
                continue
            env[outs[0]] = self._run(op, x, a)
        result = [env[o] for o in self.outputs]
        return tuple(result) if len(result) > 1 else result[0]

    @staticmethod
    def _run(op: str, x: list, a: dict):
        """Operator ``op`` on inputs ``x`` (None for an input left out) with attributes ``a``."""
        run = _OPS.get(op)
        if run is None:
            raise UnsupportedModel(op)
        return run(x, a)


def _conv(x: list, a: dict):
    pads = a.get("pads", [0, 0, 0, 0])
    inp = x[0]
    if pads[:2] != pads[2:]:
        inp, pads = F.pad(inp, _pads(pads)), [0, 0, 0, 0]
    return F.conv2d(
        inp,
        x[1],
        x[2] if len(x) > 2 else None,
        a.get("strides", [1, 1]),
        pads[:2],
        a.get("dilations", [1, 1]),
        a.get("group", 1),
    )


def _pool(pool):
    def run(x: list, a: dict):
        k, s = a["kernel_shape"], a.get("strides", a["kernel_shape"])
        pads = a.get("pads", [0, 0, 0, 0])
        return pool(x[0], k, s, pads[:2], ceil_mode=bool(a.get("ceil_mode", 0)))

    return run


def _reduce_mean(x: list, a: dict):
    axes = a.get("axes")
    if axes is None and len(x) > 1 and x[1] is not None:
        axes = x[1].tolist()
    keep = bool(a.get("keepdims", 1))
    return x[0].mean(dim=tuple(axes), keepdim=keep) if axes else x[0].mean()


def _gemm(x: list, a: dict):
    w = x[1].t() if a.get("transB", 0) else x[1]
    xa = x[0].t() if a.get("transA", 0) else x[0]
    out = a.get("alpha", 1.0) * (xa @ w)
    return out + a.get("beta", 1.0) * x[2] if len(x) > 2 and x[2] is not None else out


def _clip(x: list, a: dict):
    lo = x[1] if len(x) > 1 and x[1] is not None else a.get("min")
    hi = x[2] if len(x) > 2 and x[2] is not None else a.get("max")
    return torch.clamp(x[0], None if lo is None else float(lo), None if hi is None else float(hi))


def _slice(x: list, a: dict):
    starts, ends = x[1].tolist(), x[2].tolist()
    axes = x[3].tolist() if len(x) > 3 and x[3] is not None else range(len(starts))
    steps = x[4].tolist() if len(x) > 4 and x[4] is not None else [1] * len(starts)
    idx = [slice(None)] * x[0].dim()
    for s, e, ax, st in zip(starts, ends, axes, steps, strict=True):
        idx[ax] = slice(s, min(e, x[0].shape[ax]), st)
    return x[0][tuple(idx)]


def _resize(x: list, a: dict):
    scales = x[2] if len(x) > 2 and x[2] is not None and x[2].numel() else None
    if a.get("mode", b"nearest") not in (b"nearest", "nearest") or scales is None:
        raise UnsupportedModel("Resize other than nearest by scales")
    return F.interpolate(x[0], scale_factor=[float(v) for v in scales[2:]], mode="nearest")


#: the operators run, each as ``run(inputs, attributes)``
_OPS = {
    "Conv": _conv,
    "Relu": lambda x, a: F.relu(x[0]),
    "MaxPool": _pool(F.max_pool2d),
    "AveragePool": _pool(F.avg_pool2d),
    "GlobalAveragePool": lambda x, a: x[0].mean(dim=(2, 3), keepdim=True),
    "ReduceMean": _reduce_mean,
    "Flatten": lambda x, a: torch.flatten(x[0], a.get("axis", 1)),
    "Gemm": _gemm,
    "MatMul": lambda x, a: x[0] @ x[1],
    "Softmax": lambda x, a: torch.softmax(x[0], a.get("axis", -1)),
    "Sigmoid": lambda x, a: torch.sigmoid(x[0]),
    "Identity": lambda x, a: x[0],
    "Sub": lambda x, a: x[0] - x[1],
    "Add": lambda x, a: x[0] + x[1],
    "Mul": lambda x, a: x[0] * x[1],
    "Div": lambda x, a: x[0] / x[1],
    "Clip": _clip,
    "Concat": lambda x, a: torch.cat(x, a.get("axis", 0)),
    "Reshape": lambda x, a: torch.reshape(x[0], [int(v) for v in x[1]]),
    "BatchNormalization": lambda x, a: F.batch_norm(
        x[0], x[3], x[4], x[1], x[2], False, 0.0, a.get("epsilon", 1e-5)
    ),
    "Slice": _slice,
    "Resize": _resize,
}


def freeze_first_convs(net: OnnxModule, k: int) -> int:
    """Keep the weights of the first ``k`` convolutions as they are (their gradient is never
    computed: cheaper, and steadier when there are few photos). Returns how many it froze."""
    done = 0
    for op, ins, _, _ in net.nodes:
        if op == "Conv" and done < k:
            for name in ins[1:]:
                key = net._names.get(name)
                if key in net.params:
                    net.params[key].requires_grad_(False)
            done += 1
    return done


def export(net: OnnxModule, path, example: torch.Tensor, batch_axis: bool) -> None:
    """Write ``net`` as ONNX to ``path`` with its original input and output names."""
    axes = {n: {0: "n"} for n in net.inputs + net.outputs} if batch_axis else None
    was, net.log_probs = net.log_probs, False  # the file gives probabilities, as it came
    try:
        with torch.no_grad():
            torch.onnx.export(
                net,
                (example,),
                str(path),
                input_names=net.inputs,
                output_names=net.outputs,
                dynamic_axes=axes,
                opset_version=17,
                dynamo=False,
            )
    finally:
        net.log_probs = was
