"""Retrain the die detector (``python -m lab.train_detector``; ``dicetray train --detector``).

Needs the training extra (torch). Training images:
- rendered trays (``hardware.sim.render``) of all four dice sets, 0-10 dice of 20-120 px, many
  floors and lights, some with a hand reaching in (its mask is the hand target); some with
  11-30 dice of 20-56 px, as in photos of a dice collection; and a share on
  trays unlike the named floors (``hardware.sim.styles.ODD_FLOORS``: grain, board, speckle);
- the real photos of ``--realdice`` (not shipped; training splits only): matteop65_webcam (MIT,
  (c) 2021 Matteo A. Penlington; boxes there cover the pip pattern, so the die box is taken as
  2.2x that, 50 px for a single pip) and rune55_gray (Roboflow "rune55" v3, CC BY 4.0, via
  N3VERS4YDIE/dice-recognition, MIT; 640x640 stretched, resized here to 640x480).
Writes ``models/detector.onnx`` and ``models/detector.json`` and prints held-out figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from hardware.sim.looks import recoloured
from lab.labels import matteop65_die_side, read_label_rows, rune55_split
from lab.synth import ANY_COLOUR, worker_pool
from vision.detect import NET_H, NET_W, SIZE_UNIT, STRIDE, decode
from vision.dicesets import SET_IDS, load

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
REPO_REALDICE = Path(__file__).resolve().parent.parent.parent / "shared" / "realdice"
OUT_W, OUT_H = NET_W // STRIDE, NET_H // STRIDE
CROWD_SHARE = 0.15  # rendered trays with 11-30 small dice, many touching (photos of collections)
ODD_FLOOR_SHARE = 0.3  # ... on a tray unlike the named floors (hardware.sim.styles.ODD_FLOORS): a
# wood grain as fine as pips hid dice from a net trained without them


def targets(boxes, hand: np.ndarray | None, frame_w: int, frame_h: int):
    """Heat (H x W), size (2 x H x W), size mask (H x W) and hand (H x W) targets."""
    heat = np.zeros((OUT_H, OUT_W), np.float32)
    size = np.zeros((2, OUT_H, OUT_W), np.float32)
    smask = np.zeros((OUT_H, OUT_W), np.float32)
    cw, ch = frame_w / OUT_W, frame_h / OUT_H
    ys, xs = np.mgrid[0:OUT_H, 0:OUT_W].astype(np.float32)
    for x, y, w, h in boxes:
        cx, cy = (x + w / 2) / cw - 0.5, (y + h / 2) / ch - 0.5
        sigma = max(0.6, min(w / cw, h / ch) / 5.0)
        g = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma**2))
        ci, cj = round(cy), round(cx)
        if not (0 <= ci < OUT_H and 0 <= cj < OUT_W):
            continue
        g[ci, cj] = 1.0
        heat = np.maximum(heat, g)
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                i, j = ci + di, cj + dj
                if 0 <= i < OUT_H and 0 <= j < OUT_W:
                    size[0, i, j] = np.log(max(w, 2) / SIZE_UNIT)
                    size[1, i, j] = np.log(max(h, 2) / SIZE_UNIT)
                    smask[i, j] = 1.0 if (di, dj) == (0, 0) else max(smask[i, j], 0.3)
    heat[heat < 1e-3] = 0
    hand_t = (
        np.zeros((OUT_H, OUT_W), np.float32)
        if hand is None
        else cv2.resize(hand, (OUT_W, OUT_H), interpolation=cv2.INTER_AREA)
    )
    return heat, size, smask, hand_t


def _rendered_chunk(args):
    from hardware.sim import render, styles

    seed, n = args
    rng = np.random.default_rng(seed)
    sets = [load(s) for s in SET_IDS]
    out = []
    for _ in range(n):
        ds = sets[int(rng.integers(0, len(sets)))]
        if ds.id in ANY_COLOUR and rng.random() < ANY_COLOUR[ds.id]:
            ds = recoloured(ds, rng, k=4)[0]  # pip dice come in every colour
        pool = [d for d in ds.dice for _ in range(max(d.count, 3))]
        if rng.random() < CROWD_SHARE:  # a photo of a dice collection: many small dice
            k = int(rng.integers(11, 31))
            lo = float(rng.uniform(20, 40))
            style = styles.random_style(
                rng, die_px=(lo, lo * float(rng.uniform(1.1, 1.4))), wide=True
            )
        else:
            k = 0 if rng.random() < 0.08 else int(rng.integers(1, 11))
            style = styles.random_style(rng, wide=True)
        if rng.random() < ODD_FLOOR_SHARE:
            style = styles.odd_floor_style(style, rng)
        dice = [
            (d.id, d.faces[int(rng.integers(0, 6))])
            for d in (pool[int(i)] for i in rng.integers(0, len(pool), k))
        ]
        while True:
            try:
                poses = render.place_dice(ds, dice, rng, style)
                break
            except ValueError:
                dice = dice[:-1]
        hand = render.random_hand(rng) if rng.random() < 0.2 else None
        frame, labels = render.compose(ds, poses, rng, style, hand=hand)
        hmask = render.hand_mask(hand) if hand else None
        boxes = []
        for lab in labels:
            cx, cy = int(lab["x"] + lab["w"] / 2), int(lab["y"] + lab["h"] / 2)
            if hmask is not None and hmask[min(cy, 479), min(cx, 639)] > 0.3:
                continue  # under the hand: not visible, not a die to find
            boxes.append((lab["x"], lab["y"], lab["w"], lab["h"]))
        small = cv2.resize(frame, (NET_W, NET_H), interpolation=cv2.INTER_AREA)
        out.append((small, targets(boxes, hmask, 640, 480), boxes))
    return out


def real_images(realdice: Path, split: str):
    """(small frame, targets, boxes in 640x480 frame px, source) of the real photo sets."""
    out = []
    m = realdice / "matteop65_webcam"
    if (m / "labels.csv").exists():
        rows: dict[str, list] = {}
        for r in read_label_rows(m / "labels.csv"):
            if r["split"] == split:
                rows.setdefault(r["file"], []).append(r)
        for f, rs in sorted(rows.items()):
            img = cv2.imread(str(m / "images" / f))
            if img is None:
                continue
            boxes = []
            for r in rs:
                x, y, w, h = (float(r[k]) for k in "xywh")
                side = matteop65_die_side(w, h, int(r["value"]))
                cx, cy = x + w / 2, y + h / 2
                boxes.append((cx - side / 2, cy - side / 2, side, side))
            small = cv2.resize(img, (NET_W, NET_H), interpolation=cv2.INTER_AREA)
            out.append((small, targets(boxes, None, 640, 480), boxes, "matteop65_webcam"))
    r55 = realdice / "rune55_gray"
    if (r55 / "labels.csv").exists():
        rows = {}
        src = {}
        for r in read_label_rows(r55 / "labels.csv"):
            if rune55_split(r["file"]) == split:
                rows.setdefault(r["file"], []).append(r)
                src[r["file"]] = r["source"]
        for f, rs in sorted(rows.items()):
            img = cv2.imread(str(r55 / "images" / f))
            if img is None:
                continue
            sx, sy = 640 / img.shape[1], 480 / img.shape[0]
            img = cv2.resize(img, (640, 480), interpolation=cv2.INTER_AREA)
            boxes = [
                (float(r["x"]) * sx, float(r["y"]) * sy, float(r["w"]) * sx, float(r["h"]) * sy)
                for r in rs
            ]
            small = cv2.resize(img, (NET_W, NET_H), interpolation=cv2.INTER_AREA)
            out.append((small, targets(boxes, None, 640, 480), boxes, src[f]))
    return out


def build_model():
    """The detector network (about 60k parameters)."""
    import torch
    from torch import nn

    def cbr(cin, cout, s=1, d=1, k=3):
        return nn.Sequential(
            nn.Conv2d(cin, cout, k, s, padding=d * (k // 2), dilation=d, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = cbr(3, 12, 2)
            self.c2 = cbr(12, 24, 2)
            self.c3 = cbr(24, 24)
            self.c4 = cbr(24, 40, 2)
            self.c5 = cbr(40, 40)
            self.c6 = cbr(40, 40, d=2)
            self.c7 = cbr(64, 24, k=1)
            self.c8 = cbr(24, 24)
            self.head = nn.Conv2d(24, 4, 1)

        def forward_features(self, x):
            """The 24-channel stride-4 map that feeds the 1x1 head (ONNX ``features``)."""
            x = x - 0.5
            a = self.c3(self.c2(self.c1(x)))
            b = self.c6(self.c5(self.c4(a)))
            b = nn.functional.interpolate(b, scale_factor=2.0, mode="nearest")
            return self.c8(self.c7(torch.cat([a, b], 1)))

        def forward(self, x):
            o = self.head(self.forward_features(x))
            return o[:, 0:1], o[:, 1:3], o[:, 3:4]

    class Exported(nn.Module):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, x):
            feats = self.net.forward_features(x)
            o = self.net.head(feats)
            return torch.sigmoid(o[:, 0:1]), o[:, 1:3], torch.sigmoid(o[:, 3:4]), feats

    return Net(), Exported


def _batch(items, idx, rng):
    import torch

    xs, hs, ss, ms, hands = [], [], [], [], []
    for i in idx:
        small, (heat, size, smask, hand), *_ = items[i]
        if rng.random() < 0.5:  # dice and floors of other colours: turn the hue
            hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
            hsv[..., 0] = ((hsv[..., 0].astype(np.int32) + int(rng.integers(0, 180))) % 180).astype(
                np.uint8
            )
            small = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
        if rng.random() < 0.5:
            small, heat, size, smask, hand = (
                small[:, ::-1],
                heat[:, ::-1],
                size[:, :, ::-1],
                smask[:, ::-1],
                hand[:, ::-1],
            )
        if rng.random() < 0.5:
            small, heat, size, smask, hand = (
                small[::-1],
                heat[::-1],
                size[:, ::-1],
                smask[::-1],
                hand[::-1],
            )
        xs.append(np.ascontiguousarray(small.transpose(2, 0, 1)))
        hs.append(np.ascontiguousarray(heat))
        ss.append(np.ascontiguousarray(size))
        ms.append(np.ascontiguousarray(smask))
        hands.append(np.ascontiguousarray(hand))
    x = torch.from_numpy(np.stack(xs)).float().div_(255.0)
    gain = torch.empty(len(x), 3, 1, 1).uniform_(0.75, 1.25)
    x = (x * gain * torch.empty(len(x), 1, 1, 1).uniform_(0.7, 1.3)).clamp_(0, 1)
    return (
        x,
        torch.from_numpy(np.stack(hs))[:, None],
        torch.from_numpy(np.stack(ss)),
        torch.from_numpy(np.stack(ms))[:, None],
        torch.from_numpy(np.stack(hands))[:, None],
    )


def evaluate(predict, items, threshold):
    """Recall, precision (centre-in-box matching, one match each) over (small, _, boxes) items."""
    tp = fp = fn = 0
    for small, _t, boxes, *_ in items:
        heat, size, _hand = predict(small)
        found, _ = decode(heat, size, 640, 480, threshold)
        used = set()
        for x, y, w, h in boxes:
            cx, cy = x + w / 2, y + h / 2
            hit = None
            for k, (fx, fy, fw, fh) in enumerate(found):
                if k not in used and fx <= cx <= fx + fw and fy <= cy <= fy + fh:
                    hit = k
                    break
            if hit is None:
                fn += 1
            else:
                used.add(hit)
                tp += 1
        fp += len(found) - len(used)
    return tp / max(tp + fn, 1), tp / max(tp + fp, 1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m lab.train_detector",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--rendered", type=int, default=3000)
    p.add_argument("--real-copies", type=int, default=3)
    p.add_argument("--epochs", type=int, default=14)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--realdice", default=str(REPO_REALDICE))
    p.add_argument("--out", default=str(MODELS_DIR))
    p.add_argument(
        "--init",
        default=None,
        help="start from this checkpoint (models/detector.pt) instead of from scratch",
    )
    args = p.parse_args(argv)
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    t0 = time.time()
    jobs = [(args.seed * 100 + i, args.rendered // 8) for i in range(8)]
    with worker_pool(2) as pool:
        rendered = [x for part in pool.map(_rendered_chunk, jobs) for x in part]
    realdice = Path(args.realdice)
    real = real_images(realdice, "train")
    items = rendered + real * args.real_copies
    print(
        f"{len(rendered)} rendered + {len(real)} real training images ({time.time() - t0:.0f} s)",
        flush=True,
    )
    with worker_pool(2) as pool:
        held_rendered = [
            x for part in pool.map(_rendered_chunk, [(999001, 150), (999002, 150)]) for x in part
        ]
    held_real = real_images(realdice, "valid")

    net, Exported = build_model()
    if args.init:
        net.load_state_dict(torch.load(args.init))
        print(f"starting from {args.init}", flush=True)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = args.epochs * (len(items) // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=steps)
    rng = np.random.default_rng(args.seed)
    from tqdm import tqdm

    for epoch in tqdm(
        range(args.epochs),
        desc="training the detector",
        unit="epoch",
        file=sys.stderr,
        disable=None,
    ):
        net.train()
        order = rng.permutation(len(items))
        total = 0.0
        nb = len(items) // args.batch
        for b in range(nb):
            x, heat, size, smask, hand = _batch(
                items, order[b * args.batch : (b + 1) * args.batch], rng
            )
            ph, ps, pm = net(x)
            p_ = torch.sigmoid(ph).clamp(1e-4, 1 - 1e-4)
            pos = heat.eq(1).float()
            npos = pos.sum().clamp(min=1)
            focal = (
                -(
                    pos * (1 - p_) ** 2 * torch.log(p_)
                    + (1 - pos) * (1 - heat) ** 4 * p_**2 * torch.log(1 - p_)
                ).sum()
                / npos
            )
            sl = (smask * (ps - size).abs()).sum() / smask.sum().clamp(min=1)
            hl = F.binary_cross_entropy_with_logits(pm, hand)
            loss = focal + sl + hl
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
        print(
            f"epoch {epoch + 1}/{args.epochs} loss {total / max(nb, 1):.3f} "
            f"({time.time() - t0:.0f} s)",
            flush=True,
        )

    net.eval()
    exp = Exported(net).eval()

    def predict(small):
        with torch.no_grad():
            x = torch.from_numpy(np.ascontiguousarray(small.transpose(2, 0, 1))[None]).float()
            h, s, m, _ = exp(x / 255.0)
        return h[0, 0].numpy(), s[0].numpy(), m[0, 0].numpy()

    best = None
    for th in (0.25, 0.3, 0.35, 0.4, 0.5):
        r1, p1 = evaluate(predict, held_rendered, th)
        r2, p2 = evaluate(predict, held_real, th)
        score = min(r1, r2) + 0.5 * min(p1, p2)
        print(f"threshold {th}: rendered R {r1:.4f} P {p1:.4f}  real R {r2:.4f} P {p2:.4f}")
        if best is None or score > best[0]:
            best = (score, th, r1, p1, r2, p2)
    _, th, r1, p1, r2, p2 = best
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        exp,
        torch.zeros(1, 3, NET_H, NET_W),
        str(out / "detector.onnx"),
        input_names=["frame"],
        output_names=["heat", "size", "hand", "features"],
        opset_version=17,
        dynamo=False,
    )
    meta = {
        "input": [NET_W, NET_H],
        "stride": STRIDE,
        "size_unit": SIZE_UNIT,
        "threshold": th,
        "hand_share": 0.04,
        "parameters": int(sum(q.numel() for q in net.parameters())),
        "trained": {
            "rendered": len(rendered),
            "real": len(real),
            "real_copies": args.real_copies,
            "epochs": args.epochs,
            "seed": args.seed,
            "seconds": round(time.time() - t0),
        },
        "figures": {
            "heldout_rendered": {"recall": r1, "precision": p1},
            "real_valid": {"recall": r2, "precision": p2},
        },
    }
    (out / "detector.json").write_text(json.dumps(meta, indent=1) + "\n")
    torch.save(net.state_dict(), out / "detector.pt")  # for --init (fine-tuning)
    print(json.dumps(meta, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
