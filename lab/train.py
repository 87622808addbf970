"""Retrain the die classifiers (``dicetray train`` / ``python -m lab.train``).

Needs the optional training extra: ``pip install -e '.[train]'`` (torch, onnx). Nothing
else in dicetray imports torch. For each dice set it:

1. makes training crops (``lab.trainset``): synthetic dice drawn from the dice-set file,
   crops of rendered tray scenes, "not a die" crops, and for the pip set ``d6`` the
   ``train`` photos (``lab.splits``) of ``--realdice`` (not shipped; licences there);
2. trains a small two-head CNN (die identity, face mark + ``none``) on the CPU;
3. sets the abstention thresholds (``lab.calibrate``): for reads once and at four turns,
   the lowest whose wrong-read rate is bounded by 0.5% at 95% confidence
   (``vision.risk.choose``) on held-out rendered dice and, for d6, the ``calibrate`` photos'
   dice cut at the detector's boxes; never on a ``judge`` photo;
4. writes ``models/classifier-<set>.onnx`` and ``.json`` (the card says the bound, the dice
   that set it, and which photos of each real source train, calibrate and judge).

    python -m lab.train --sets d6 tally-up --samples 30000 --epochs 14
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from lab import farprint
from lab.calibrate import calibrate_file, calibration_data, recalibrate
from lab.labels import REALDICE_DIR
from lab.trainset import (
    REAL_AUGMENTS,
    class_lists,
    make_rendered,
    make_synthetic,
    mined_negatives,
    real_d6,
)
from lab.unseen import format_floors
from vision.crops import CROP_MARGIN
from vision.dicesets import SET_IDS, load

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
REPO_REALDICE = Path(__file__).resolve().parent.parent.parent / "shared" / "realdice"


def build_model(n_dice: int, n_faces: int):
    """The two-head CNN (about 116k parameters, under 500 KB as ONNX).

    The first conv reads every input pixel at stride 2, then two depthwise-separable convs
    keep half the input resolution (32 x 32) before the first pooling: the Up Die's small
    text (+1 against +3, +100 against -100) and a 1 against a 2 on a small die are lost when
    the first layers pool. Separable convs at 32 x 32 and 16 x 16 make it about three times
    cheaper per die than full conv blocks (0.30 against 0.93 ms per die in
    onnxruntime on one thread). ``forward_features`` gives the last conv map (80 x 8 x 8)
    before global pooling: the ONNX ``features`` output a taught head is fitted on.
    """
    from torch import nn

    def block(cin, cout, stride=1):
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )

    def sep(cin, cout):
        return nn.Sequential(
            nn.Conv2d(cin, cin, 3, 1, padding=1, groups=cin, bias=False),
            nn.BatchNorm2d(cin),
            nn.ReLU(inplace=True),
            nn.Conv2d(cin, cout, 1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )

    class DieNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(
                block(3, 24, 2),
                sep(24, 32),
                sep(32, 48),
                nn.MaxPool2d(2),  # 1/4
                sep(48, 64),
                sep(64, 64),
                nn.MaxPool2d(2),  # 1/8
                block(64, 80),
                block(80, 80),
            )
            self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.die = nn.Linear(80, n_dice)
            self.face = nn.Linear(80, n_faces)

        def forward_features(self, x):
            return self.body(x - 0.5)

        def forward(self, x):
            h = self.pool(self.forward_features(x))
            return self.die(h), self.face(h)

    return DieNet(), exported_classifier()


def exported_classifier():
    """The ONNX wrapper class of a two-head classifier (``forward_features``, ``pool``,
    ``die``, ``face``): outputs die_prob, face_prob and features, as the table reads them."""
    import torch
    from torch import nn

    class Exported(nn.Module):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, x):
            feats = self.net.forward_features(x)
            h = self.net.pool(feats)
            return (torch.softmax(self.net.die(h), 1), torch.softmax(self.net.face(h), 1), feats)

    return Exported


def _onnx_start(path: Path, dice: list[str], faces: list[str]):
    """A shipped classifier (ONNX, any architecture ``lab.onnxtorch`` runs) as a torch module
    that gives the log-probabilities of its two heads: cross-entropy on them is the
    log-likelihood of the softmax outputs, so training goes on where the network stands."""
    import onnx
    from torch import nn

    from lab.onnxtorch import OnnxModule

    meta_path = path.with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"--init {path}: its card {meta_path} cannot be read ({exc})") from None
    if (meta.get("dice"), meta.get("faces")) != (dice, faces):
        raise SystemExit(f"--init {path}: its classes are not those of the dice set")

    class LogProbs(nn.Module):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, x):
            return self.net(x)[:2]

    net = OnnxModule(onnx.load(str(path)))
    net.log_probs = True  # log-probabilities from the logits (lab.onnxtorch)
    return LogProbs(net)


def _to_tensor(x):
    import torch

    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2))).float().div_(255.0)


def fit(
    net,
    x: np.ndarray,
    yd: np.ndarray,
    yf: np.ndarray,
    epochs: int,
    lr: float,
    batch: int = 128,
    seed: int = 1,
    log=print,
    tag: str = "",
) -> None:
    """Train ``net`` (two heads: die, face) on uint8 crops ``x`` (die -1: not a die, no die
    loss) for ``epochs`` with AdamW and a one-cycle learning rate peaking at ``lr``. Each
    batch is turned by a random quarter turn (a die seen from above lies at any turn) and its
    brightness scaled by 0.8-1.2; crops become floats one batch at a time."""
    import torch
    from tqdm import tqdm

    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    per_epoch = max(1, len(x) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * per_epoch)
    YD = torch.from_numpy(np.asarray(yd, np.int64))
    YF = torch.from_numpy(np.asarray(yf, np.int64))
    rng = np.random.default_rng(seed)
    t1 = time.time()
    for epoch in tqdm(
        range(epochs), desc=f"training {tag}", unit="epoch", file=sys.stderr, disable=None
    ):
        net.train()
        order = rng.permutation(len(x))
        total = 0.0
        for i in range(per_epoch):
            idx = np.sort(order[i * batch : (i + 1) * batch])
            xb = _to_tensor(x[idx])
            k = int(rng.integers(0, 4))  # a die seen from above can lie at any turn
            if k:
                xb = torch.rot90(xb, k, (2, 3))
            xb = xb * torch.empty(len(xb), 1, 1, 1).uniform_(0.8, 1.2)
            d_logit, f_logit = net(xb.clamp_(0, 1))
            tidx = torch.from_numpy(idx)
            total += step(opt, sched, two_head_loss(d_logit, f_logit, YD[tidx], YF[tidx]))
        log(
            f"[{tag}] epoch {epoch + 1}/{epochs} loss {total / per_epoch:.4f} "
            f"({time.time() - t1:.0f} s)"
        )
    net.eval()


def two_head_loss(d_logit, f_logit, die_y, face_y, smoothing: float = 0.0):
    """Cross-entropy of the face head, plus the die head's on crops that show a die (die
    label -1: not a die)."""
    import torch.nn.functional as F

    loss = F.cross_entropy(f_logit, face_y, label_smoothing=smoothing)
    has_die = die_y >= 0
    if has_die.any():
        loss = loss + F.cross_entropy(d_logit[has_die], die_y[has_die])
    return loss


def step(opt, sched, loss) -> float:
    """One optimiser and learning-rate step on ``loss``; the loss as a float."""
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    return float(loss.detach())


def export(
    net,
    Exported,
    out_dir: Path,
    set_id: str,
    size: int,
    meta: dict,
    from_onnx=False,
    builder: str = "lab.train.build_model",
):
    """Write ``classifier-<set>.onnx`` (outputs die_prob, face_prob, features), its JSON card
    ``meta`` (thresholds to be set by :func:`calibrate_file`) and, for a network built by
    :func:`build_model`, the torch checkpoint ``classifier-<set>.pt`` (to go on from)."""
    import torch

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    onnx_path = out_dir / f"classifier-{set_id}.onnx"
    dummy = torch.zeros(1, 3, size, size)
    if from_onnx:
        from lab import onnxtorch

        onnxtorch.export(net.net, onnx_path, dummy, batch_axis=True)
    else:
        torch.onnx.export(
            Exported(net).eval(),
            dummy,
            str(onnx_path),
            input_names=["crops"],
            output_names=["die_prob", "face_prob", "features"],
            dynamic_axes={
                "crops": {0: "n"},
                "die_prob": {0: "n"},
                "face_prob": {0: "n"},
                "features": {0: "n"},
            },
            opset_version=17,
            dynamo=False,
        )
    meta = {"parameters": int(sum(p.numel() for p in net.parameters())), **meta}
    (out_dir / f"classifier-{set_id}.json").write_text(json.dumps(meta, indent=1) + "\n")
    if not from_onnx:
        torch.save(
            {
                "state_dict": net.state_dict(),
                "dice": meta["dice"],
                "faces": meta["faces"],
                "input_size": size,
                "builder": builder,
            },
            out_dir / f"classifier-{set_id}.pt",
        )
    return onnx_path


def kept_floors(set_id: str, out_dir: Path, init=None) -> dict | None:
    """The floors set on unseen dice (``lab.unseen``, a card's ``unseen``) that a network
    trained again keeps: those of the card it replaces in ``out_dir``, else of the card beside
    the network it went on from (``init``); None where neither has any. They were set on dice
    of sources the recipe's networks never saw, not on one network, and a fresh card that
    lacked them would be calibrated without them (``tests/test_unseen.py``)."""
    folders = [Path(out_dir)] + ([Path(init).parent] if init else [])
    for folder in folders:
        try:
            floors = json.loads((folder / f"classifier-{set_id}.json").read_text()).get("unseen")
        except (OSError, ValueError, AttributeError):
            continue
        if floors:
            return floors
    return None


def card(set_id: str, size: int, **trained) -> dict:
    """A new classifier's JSON card before calibration (thresholds a placeholder)."""
    dice, faces = class_lists(load(set_id))
    return {
        "dice_set": set_id,
        "dice": dice,
        "faces": faces,
        "input_size": size,
        "crop_margin": CROP_MARGIN,
        "threshold": 0.97,  # set by calibrate_file
        "trained": trained,
    }


def load_network(init: str | Path, set_id: str):
    """(net, Exported, from_onnx) of a network to go on from: a checkpoint
    ``classifier-<set>.pt`` of :func:`build_model`, or any ``classifier-<set>.onnx`` with its
    card."""
    import torch

    dice, faces = class_lists(load(set_id))
    if str(init).endswith(".onnx"):  # a shipped network of any architecture (ONNX + JSON)
        return _onnx_start(Path(init), dice, faces), None, True
    net, Exported = build_model(len(dice), len(faces))
    ckpt = torch.load(init, map_location="cpu")
    if (ckpt.get("dice"), ckpt.get("faces")) != (dice, faces):
        raise SystemExit(f"--init {init}: its classes are not those of {set_id}")
    net.load_state_dict(ckpt["state_dict"])
    return net, Exported, False


def train_set(set_id: str, args, log=print) -> dict:
    """Train, calibrate, export and measure the classifier of one dice set."""
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    ds = load(set_id)
    dice, faces = class_lists(ds)
    t0 = time.time()
    n = args.samples if set_id != "toss-up" else args.samples // 2
    size = args.input_size
    x, yd, yf = make_synthetic(set_id, n, args.seed, args.workers, size=size)
    rendered = (
        make_rendered(set_id, args.rendered_scenes, args.seed, args.workers, size, args.partial)
        if args.rendered_scenes
        else None
    )
    if rendered is not None:
        x, yd, yf = (np.concatenate([a, b]) for a, b in zip((x, yd, yf), rendered, strict=False))
    realdice = Path(args.realdice)
    real_train = None
    if set_id == "d6":
        real_train = real_d6(
            realdice,
            "train",
            args.real_copies,
            args.seed,
            size,
            augment=REAL_AUGMENTS[args.real_augment],
        )
        if real_train is not None:
            rx, ry, _ = real_train
            x = np.concatenate([x, rx])
            yd = np.concatenate([yd, np.zeros(len(ry), np.int64)])
            yf = np.concatenate([yf, ry])
    mined = (
        mined_negatives(set_id, args.mined_scenes, args.seed + 31, size, realdice)
        if args.mined_scenes
        else np.zeros((0, size, size, 3), np.uint8)
    )
    if len(mined):
        reps = max(1, args.real_copies // 2)  # turned copies: they are few
        mx = np.concatenate([np.rot90(mined, k % 4, (1, 2)) for k in range(reps)])
        x = np.concatenate([x, mx])
        yd = np.concatenate([yd, np.full(len(mx), -1, np.int64)])
        yf = np.concatenate([yf, np.full(len(mx), len(faces) - 1, np.int64)])
    log(f"[{set_id}] {len(mined)} mined not-a-die crops")
    log(
        f"[{set_id}] {len(x)} training crops ({0 if rendered is None else len(rendered[0])} "
        f"rendered, {0 if real_train is None else len(real_train[0])} real) "
        f"in {time.time() - t0:.0f} s"
    )
    data = calibration_data(
        set_id, size, args.holdout, args.holdout_scenes, args.seed, args.workers, realdice
    )
    if args.init:  # go on from a trained network
        net, Exported, from_onnx = load_network(args.init, set_id)
        log(f"[{set_id}] starting from {args.init}")
    else:
        (net, Exported), from_onnx = build_model(len(dice), len(faces)), False
    lr = args.lr or (3e-4 if from_onnx else 1e-3 if args.init else 3e-3)
    fit(net, x, yd, yf, args.epochs, lr, args.batch, args.seed, log, set_id)
    meta = card(
        set_id,
        size,
        samples=len(x),
        epochs=args.epochs,
        seed=args.seed,
        rendered_crops=0 if rendered is None else len(rendered[0]),
        real_crops=0 if real_train is None else len(real_train[0]),
        seconds=round(time.time() - t0),
    )
    if args.init:  # a run that went on from another network says which, and how
        meta["trained"].update(init=str(args.init), lr=lr)
    out_dir = Path(args.out)
    if floors := kept_floors(set_id, out_dir, args.init):
        meta["unseen"] = floors
        log(f"[{set_id}] thresholds over the floors of the card it replaces (unseen)")
    onnx_path = export(net, Exported, out_dir, set_id, size, meta, from_onnx)
    log(f"[{set_id}] wrote {onnx_path} ({onnx_path.stat().st_size / 1024:.0f} KB)")
    far = None  # a set whose faces carry print: floors on prints this network never saw
    if set_id in farprint.SETS and args.far_scenes:
        far = farprint.far_floors(set_id, out_dir, args.far_scenes, workers=args.workers)
        log(f"[{set_id}] floors on far prints:\n{format_floors(far)}")
    return calibrate_file(set_id, out_dir, data, log, realdice, far_print=far)


def main(argv: list[str] | None = None) -> int:
    """``dicetray train``: retrain the classifiers of the given dice sets."""
    p = argparse.ArgumentParser(
        prog="dicetray train",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--sets", nargs="+", default=list(SET_IDS), choices=SET_IDS)
    p.add_argument("--samples", type=int, default=12000, help="synthetic crops per set")
    p.add_argument(
        "--rendered-scenes",
        type=int,
        default=4000,
        help="rendered tray scenes per set to crop dice from (0: none)",
    )
    p.add_argument(
        "--real-copies", type=int, default=6, help="augmented copies of each real training die (d6)"
    )
    p.add_argument(
        "--mined-scenes",
        type=int,
        default=1500,
        help="rendered scenes to mine the detector's false boxes from (0: none)",
    )
    p.add_argument(
        "--real-augment",
        default="none",
        choices=tuple(REAL_AUGMENTS),
        help="d6: also spoil the real training copies as another camera would "
        "(camera_spoil; lab.loso --recipe camera measures it)",
    )
    p.add_argument("--holdout", type=int, default=4000, help="held-out synthetic crops")
    p.add_argument(
        "--holdout-scenes",
        type=int,
        default=500,
        help="held-out rendered scenes (for the threshold and the figures)",
    )
    p.add_argument(
        "--partial",
        type=float,
        default=0.3,
        help="share of rendered dice of 50+ px also cut as a corner-only crop, labelled not-a-die",
    )
    p.add_argument(
        "--far-scenes",
        type=int,
        default=farprint.SCENES,
        help="Rollers, Tally Up!: scenes of far prints the thresholds' floors are set on "
        "(lab.farprint; 0: none)",
    )
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument(
        "--init",
        default=None,
        metavar="PT",
        help="go on training from this network (one set): a checkpoint "
        "classifier-<set>.pt, or a classifier-<set>.onnx with its .json",
    )
    p.add_argument(
        "--lr",
        type=float,
        default=None,
        help="peak learning rate (default 3e-3; 1e-3 from a .pt, 3e-4 from an .onnx)",
    )
    p.add_argument(
        "--input-size", type=int, default=64, help="crop side in pixels fed to the model"
    )
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--realdice", default=str(REPO_REALDICE if REPO_REALDICE.exists() else REALDICE_DIR)
    )
    p.add_argument("--out", default=str(MODELS_DIR))
    p.add_argument(
        "--detector", action="store_true", help="also retrain the die detector (lab.train_detector)"
    )
    p.add_argument(
        "--calibrate",
        action="store_true",
        help="only set the thresholds of the models in --out afresh (no training)",
    )
    args = p.parse_args(argv)
    if args.init and len(args.sets) != 1:
        p.error("--init goes with one set (--sets SET)")
    if args.calibrate:
        for s in args.sets:
            recalibrate(s, args)
        return 0
    try:
        import torch  # noqa: F401
    except ImportError:
        print("dicetray train needs torch: pip install -e '.[train]'", file=sys.stderr)
        return 2
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    for s in args.sets:
        train_set(s, args)
    if args.detector:
        from lab import train_detector

        return int(train_detector.main([]) or 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
