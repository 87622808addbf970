"""Retrain the die classifiers (``dicetray train`` / ``python -m lab.train``).

Needs the optional training extra: ``pip install -e '.[train]'`` (torch, onnx). Nothing
else in dicetray imports torch. For each dice set it:

1. makes training crops: synthetic dice drawn from the dice-set file (``vision.crops``:
   any rotation, offset, tilt and side faces, shadows, glare, blur, noise, white balance,
   JPEG), crops of rendered tray scenes (``hardware.sim.render``) when present, "not a die" crops
   (felt, skin, clutter), and for the pip set ``d6`` the ``train`` photos (``lab.splits``)
   of ``--realdice`` (not shipped; matteop65_webcam: MIT, (c) 2021 Matteo A. Penlington;
   rune55_gray: Roboflow "rune55" v3, CC BY 4.0, via N3VERS4YDIE/dice-recognition, MIT);
2. trains a small two-head CNN (die identity, face mark + ``none``) on the CPU;
3. sets the abstention thresholds (``calibrate_file``): for reads once and at four turns,
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
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np

from hardware.sim.looks import FAR_LIGHTS
from hardware.sim.render import rendered_crops
from lab.labels import REALDICE_DIR, matteop65_die_side
from lab.photos import read_chase, read_matteop65, read_rune55, real_backgrounds
from lab.synth import ANY_COLOUR, SyntheticDice, negative_crop, recolour_crop, worker_pool
from vision.crops import CROP_MARGIN, INPUT_SIZE, NONE_CLASS, cut_crop
from vision.dicesets import SET_IDS, load
from vision.risk import ALPHA, DELTA, NEVER, choose, choose_sequence

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
REPO_REALDICE = Path(__file__).resolve().parent.parent.parent / "shared" / "realdice"


def class_lists(ds) -> tuple[list[str], list[str]]:
    """The two heads' classes of a dice set: die ids, and face ids plus ``none``."""
    faces = list(dict.fromkeys(f for d in ds.dice for f in d.faces))
    return [d.id for d in ds.dice], [*faces, NONE_CLASS]


def _synth_chunk(args):
    set_id, seed, n, n_neg, random_colours, strength, size, backgrounds = args
    ds = load(set_id)
    rng = np.random.default_rng(seed)
    synth = SyntheticDice(ds, size=size, random_colours=random_colours, canvas=2 * size, wide=True)
    dice, faces = class_lists(ds)
    xs, yd, yf = [], [], []
    for _ in range(n):
        img, die, face = synth.sample(rng, strength=strength)
        xs.append(img)
        yd.append(dice.index(die))
        yf.append(faces.index(face))
    bgs = (
        real_backgrounds(limit=12)
        if backgrounds and (REALDICE_DIR / "matteop65_webcam").exists()
        else None
    )
    for _ in range(n_neg):
        xs.append(negative_crop(rng, size=size, backgrounds=bgs, far_lights=FAR_LIGHTS))
        yd.append(-1)
        yf.append(len(faces) - 1)
    return np.stack(xs), np.array(yd, np.int64), np.array(yf, np.int64)


def _rendered_chunk(args):
    set_id, seed, scenes, size, partial, die_px = args
    ds = load(set_id)
    dice, faces = class_lists(ds)
    rng = np.random.default_rng(seed)
    xs, yd, yf, sides = [], [], [], []
    for crop, die, face, side in rendered_crops(
        ds,
        rng,
        scenes,
        size=size,
        random_colours=ANY_COLOUR.get(set_id, 0.0),
        partial=partial,
        die_px=die_px,
    ):
        xs.append(crop)
        yd.append(-1 if die is None else dice.index(die))
        yf.append(faces.index(face))
        sides.append(side)
    if not xs:
        return None
    return (
        np.stack(xs),
        np.array(yd, np.int64),
        np.array(yf, np.int64),
        np.array(sides, np.float64),
    )


def make_synthetic(
    set_id: str,
    n: int,
    seed: int,
    workers: int = 2,
    neg_share: float = 0.15,
    strength: float = 1.0,
    size: int = INPUT_SIZE,
    backgrounds: bool = True,
):
    """``n`` synthetic crops (+ negatives) of a set, made in ``workers`` processes.
    ``backgrounds``: some not-a-die crops are cut from real photos with their dice painted
    out (``real_backgrounds``); False: none (a network that never sees a real photo)."""
    random_colours = ANY_COLOUR.get(set_id, 0.0)
    chunks = max(workers * 4, 1)
    per = n // chunks
    neg = int(per * neg_share)
    jobs = [
        (set_id, seed * 1000 + i, per, neg, random_colours, strength, size, backgrounds)
        for i in range(chunks)
    ]
    with worker_pool(workers) as pool:
        parts = pool.map(_synth_chunk, jobs)
    return tuple(np.concatenate(p) for p in zip(*parts, strict=False))


def make_rendered(
    set_id: str,
    scenes: int,
    seed: int,
    workers: int = 2,
    size: int = INPUT_SIZE,
    partial: float = 0.0,
    die_px: tuple[float, float] | None = None,
):
    """Crops of rendered scenes: (crops, die index, face index, die side in pixels), or None
    when hardware.sim.render is not there (``partial``, ``die_px``: see
    ``hardware.sim.render.rendered_crops``)."""
    jobs = [
        (set_id, seed * 1000 + 500 + i, scenes // (workers * 2), size, partial, die_px)
        for i in range(workers * 2)
    ]
    with worker_pool(workers) as pool:
        parts = [p for p in pool.map(_rendered_chunk, jobs) if p is not None]
    if not parts:
        return None
    return tuple(np.concatenate(p) for p in zip(*parts, strict=False))


def _real_photos(realdice: Path, part: str, sources=None):
    """(set name, image, label rows, file) of each real d6 photo of one part (``lab.splits``:
    train, calibrate or judge) that can be read; ``sources``: only photos of these sources
    (``lab.splits.SOURCES``), else all."""
    from lab.evaluate import _real_sets

    for name, s, path, rows, _, _ in _real_sets(realdice):
        source = name.split("/")[-1]
        if s != part or (sources is not None and source not in sources):
            continue
        if (img := cv2.imread(str(path))) is not None:
            yield name, img, rows, path.name


def mined_negatives(
    set_id: str,
    scenes: int,
    seed: int,
    size: int = INPUT_SIZE,
    realdice: Path | None = None,
    models_dir: Path | None = None,
):
    """Hard "not a die" crops: what the detector finds that is no die.

    Runs the detector (``models/detector.onnx``) over rendered scenes of the set and, for the
    pip set, over the training photos of ``realdice`` (both passes, as photos are read), and
    cuts a crop of every box that holds no labelled die centre and whose centre is not within a
    die's side of a labelled die's centre. Returns an N x size x size x 3 array (possibly empty).
    """
    from hardware.sim.render import render_scene
    from hardware.sim.styles import random_style
    from lab.evaluate import _random_dice
    from vision.detect import Detector

    try:
        det = Detector(models_dir)
    except FileNotFoundError:
        return np.zeros((0, size, size, 3), np.uint8)
    ds = load(set_id)
    rng = np.random.default_rng(seed)
    out = []

    def misses(frame, die_boxes, fine):
        found = (det.detect_fine if fine else det.detect)(frame).boxes
        for x, y, w, h in found:
            cx, cy = x + w / 2, y + h / 2
            # near a die (its side faces, a half box) is no clear negative: skipped
            if any(
                (x <= bx + bw / 2 <= x + w and y <= by + bh / 2 <= y + h)
                or (abs(cx - bx - bw / 2) <= bw and abs(cy - by - bh / 2) <= bh)
                for bx, by, bw, bh in die_boxes
            ):
                continue
            out.append(cut_crop(frame, (x, y, w, h), size))

    for _ in range(scenes):
        try:
            frame, labels = render_scene(
                ds,
                _random_dice(ds, rng, int(rng.integers(1, 7))),
                rng,
                style=random_style(rng, wide=True, far_lights=FAR_LIGHTS),
            )
        except ValueError:  # the dice did not fit this tray: another scene
            continue
        misses(frame, [(lab["x"], lab["y"], lab["w"], lab["h"]) for lab in labels], False)
    if set_id == "d6" and realdice is not None:
        for name, img, rows, _ in _real_photos(realdice, "train"):
            boxes = []
            for r in rows:
                x, y, w, h = (float(r[k]) for k in "xywh")
                if name.startswith("matteop65"):  # its boxes hold only the pips
                    side = matteop65_die_side(w, h, int(r["value"]))
                    x, y, w, h = x + w / 2 - side / 2, y + h / 2 - side / 2, side, side
                boxes.append((x, y, w, h))
            misses(img, boxes, True)
    return np.stack(out) if out else np.zeros((0, size, size, 3), np.uint8)


# Real photos of coloured dice are few (rune55 PXL_phone), and the dice the tray will see
# come in every colour: those photos get more copies, and most copies of every real crop
# after the first are repainted in other colours (``recolour_crop``).
REAL_WEIGHT = {"PXL_phone": 4, "chase_casino_crops": 4}
RECOLOUR_SHARE = 0.6


def camera_spoil(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A real die crop as another camera would have taken it (``--recipe camera``): fewer
    pixels on the die (shrunk to 14-40 px and back), another light and white balance, more or
    less colour, gamma and contrast (``lab.synth.spoil``: also blur, noise, JPEG, grey), a
    glare spot, and a slight tilt of the view.

    >>> import numpy as np
    >>> out = camera_spoil(np.full((64, 64, 3), 200, np.uint8), np.random.default_rng(0))
    >>> out.shape, out.dtype
    ((64, 64, 3), dtype('uint8'))
    """
    from hardware.sim.looks import FAR_LIGHTS
    from lab.synth import spoil

    n = crop.shape[0]
    img = crop
    if rng.random() < 0.3:  # a slight tilt: the corners moved by up to 6% of the side
        src = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
        dst = src + rng.uniform(-0.06, 0.06, (4, 2)).astype(np.float32) * n
        m = cv2.getPerspectiveTransform(src, dst)
        img = cv2.warpPerspective(img, m, (n, n), borderMode=cv2.BORDER_REPLICATE)
    if rng.random() < 0.4:  # a far or low-resolution camera: fewer pixels on the die
        s = int(rng.integers(14, 41))
        img = cv2.resize(cv2.resize(img, (s, s), interpolation=cv2.INTER_AREA), (n, n))
    f = img.astype(np.float32)
    if rng.random() < 0.4:  # saturation: from grey to vivid
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.float32)
        hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.0, 1.6), 0, 255)
        f = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    if rng.random() < 0.4:  # gamma
        f = 255.0 * (f / 255.0) ** np.float32(rng.uniform(0.6, 1.6))
    if rng.random() < 0.15:  # a glare spot
        cx, cy = rng.uniform(0.2, 0.8, 2) * n
        r = rng.uniform(0.05, 0.15) * n
        yy, xx = np.mgrid[0:n, 0:n]
        spot = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r)).astype(np.float32)
        f = f + spot[..., None] * rng.uniform(80, 200)
    return spoil(np.clip(f, 0, 255), rng, strength=0.7, far_lights=FAR_LIGHTS)


# what may augment the real training crops (``--real-augment``)
REAL_AUGMENTS = {"none": None, "camera": camera_spoil}


def real_d6(
    realdice: Path,
    part: str,
    copies: int,
    seed: int,
    size: int = INPUT_SIZE,
    sources=None,
    augment=None,
):
    """Real d6 crops of one part (``lab.splits``), cut at the labelled boxes: for ``train``,
    ``copies`` randomly turned/jittered copies of each die (the first plain, the others
    weighted by ``REAL_WEIGHT``, recoloured and, with ``augment(crop, rng) -> crop``, spoiled
    further); for any other part one plain crop of each. ``sources``: only these sources
    (``lab.splits.SOURCES``), else all. Returns (crops, faces 0-5, sources) or None."""
    rng = np.random.default_rng(seed)
    xs, ys, src = [], [], []
    for c in range(copies if part == "train" else 1):
        kw = (
            {"rng": rng, "jitter": 0.08, "angle": float(rng.uniform(0, 360))}
            if part == "train"
            else {}
        )
        for reader, sub in (
            (read_matteop65, "matteop65_webcam"),
            (read_rune55, "rune55_gray"),
            (read_chase, "chase_casino_crops"),
        ):
            if not (realdice / sub).exists():
                continue
            for rc in reader(realdice / sub, size=size, **kw):
                if rc.part != part or (sources is not None and rc.source not in sources):
                    continue
                for _ in range(REAL_WEIGHT.get(rc.source, 1) if c else 1):
                    crop = rc.crop
                    if c and rng.random() < RECOLOUR_SHARE:
                        crop = recolour_crop(crop, rng)
                    if c and augment is not None:
                        crop = augment(crop, rng)
                    xs.append(crop)
                    ys.append(rc.value - 1)
                    src.append(rc.source)
    if not xs:
        return None
    return np.stack(xs), np.array(ys, np.int64), src


@dataclass
class Crops:
    """Labelled crops that set thresholds: the crops, die index (-1: not a die), face index,
    the group each comes from (``rendered``, ``synthetic`` or a real source), the die's side
    in its photo's pixels (0 where there is no photo: rendered, synthetic and crop sets) and
    its file (empty where there is none)."""

    x: np.ndarray
    die: np.ndarray
    face: np.ndarray
    group: list[str]
    side: np.ndarray
    file: list[str]

    @classmethod
    def of(cls, x, die, face, group: str) -> Crops:
        n = len(x)
        return cls(x, np.asarray(die), np.asarray(face), [group] * n, np.zeros(n), [""] * n)

    def __len__(self) -> int:
        return len(self.x)

    def take(self, keep) -> Crops:
        keep = np.asarray(keep, bool)
        return Crops(
            self.x[keep],
            self.die[keep],
            self.face[keep],
            [g for g, k in zip(self.group, keep, strict=False) if k],
            self.side[keep],
            [f for f, k in zip(self.file, keep, strict=False) if k],
        )

    @staticmethod
    def join(parts) -> Crops | None:
        parts = [p for p in parts if p is not None and len(p)]
        if not parts:
            return None
        return Crops(
            np.concatenate([p.x for p in parts]),
            np.concatenate([p.die for p in parts]),
            np.concatenate([p.face for p in parts]),
            [g for p in parts for g in p.group],
            np.concatenate([p.side for p in parts]),
            [f for p in parts for f in p.file],
        )


def real_calibration(
    realdice: Path,
    size: int = INPUT_SIZE,
    sources=None,
    detector=None,
    models_dir: Path | None = None,
    margin: float = CROP_MARGIN,
    parts: tuple[str, ...] = ("calibrate",),
) -> dict[str, Crops | None]:
    """The ``calibrate`` photos' dice (``lab.splits``; ``parts``: the photos of these parts,
    never ``judge`` for a threshold) as the table cuts them: at the boxes
    the detector finds in each photo (one pass, as the camera reads: ``"camera"``; the fine
    search, as photos are read: ``"photo"``), each found box holding a labelled die's centre
    labelled with that die's face; the crop sets' dice at their whole crop (both paths). No
    photo of another part is read. ``sources``: only these (``lab.splits.SOURCES``).
    ``detector``: a ``vision.detect.Detector`` (default: the one in ``models_dir``)."""
    from lab.evaluate import match
    from vision.detect import Detector

    if detector is None:
        try:
            detector = Detector(models_dir)
        except FileNotFoundError:
            return {"camera": None, "photo": None}
    out = {"camera": [], "photo": []}
    photos = (got for part in parts for got in _real_photos(realdice, part, sources))
    for name, img, rows, file in photos:
        source = name.split("/")[-1]
        labels = [{k: float(r[k]) for k in "xywh"} for r in rows]
        for path, found in (
            ("camera", detector.detect(img).boxes),
            ("photo", detector.detect_fine(img).boxes),
        ):
            boxes = [SimpleNamespace(x=b[0], y=b[1], w=b[2], h=b[3]) for b in found]
            for li, fi in match(labels, boxes):
                if fi is None:
                    continue
                b = found[fi]
                out[path].append(
                    (
                        cut_crop(img, b, size, margin),
                        int(rows[li]["value"]) - 1,
                        source,
                        max(b[2], b[3]),
                        f"{name.split('/')[0]}/{file}",
                    )
                )
    chase = realdice / "chase_casino_crops"
    if (chase / "labels.csv").exists() and (sources is None or chase.name in sources):
        for rc in read_chase(chase, size=size):
            if rc.part in parts:
                for items in out.values():
                    items.append((rc.crop, rc.value - 1, rc.source, 0.0, f"{chase.name}/{rc.file}"))
    result = {}
    for path, items in out.items():
        if not items:
            result[path] = None
            continue
        x, f, g, side, files = zip(*items, strict=False)
        result[path] = Crops(
            np.stack(x),
            np.zeros(len(x), np.int64),
            np.array(f, np.int64),
            list(g),
            np.array(side, np.float64),
            list(files),
        )
    return result


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


# Candidate thresholds of reads at four turns, tested from the surest down (a four-turn read
# also takes the upright read alone, so its decision is tried through the classifier's own
# code at each candidate rather than read off one confidence)
TURNED_GRID = tuple(
    float(v)
    for v in np.round(
        np.r_[
            1.0,
            np.arange(0.9995, 0.99, -0.0005),
            np.arange(0.99, 0.9, -0.0025),
            np.arange(0.9, 0.499, -0.01),
        ],
        5,
    )
)
LEAST_THRESHOLD = 0.5  # no threshold under it: under it a best guess is a coin toss


def turn_outputs(
    clf, crops: np.ndarray, batch: int = 256, joint: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The network's answers for each crop at each of ``TURNS`` turns (turn 0 upright), as
    ``FaceClassifier`` reads them: (turns x N x dice, turns x N x (faces + none)); ``joint``:
    as a read at four turns hears them (with a second network: the two's mean)."""
    from vision.classify import TURNS

    die_t, face_t = [], []
    for k in range(TURNS):
        turned = np.rot90(crops, k, (1, 2))
        parts = [clf.answers(turned[i : i + batch], joint) for i in range(0, len(crops), batch)]
        die_t.append(np.concatenate([p[0] for p in parts]))
        face_t.append(np.concatenate([p[1] for p in parts]))
    return np.stack(die_t), np.stack(face_t)


def counted_pips(crops) -> tuple[list, list]:
    """The pips counted on each crop (``vision.pips``) at the counter's first look, and
    looking again where that gives no count: the two ways the table counts
    (``FaceClassifier.pip_counts``), for :func:`decisions` to replay."""
    from vision.pips import read_many

    crops = list(crops)
    first = [p.count for p in read_many(crops, again=False)]
    # looking again changes only the crops the first look gave no count
    blank = [i for i, n in enumerate(first) if n is None]
    again = list(first)
    for i, p in zip(blank, read_many([crops[i] for i in blank]) if blank else [], strict=True):
        again[i] = p.count
    return first, again


def decisions(clf, die_t: np.ndarray, face_t: np.ndarray, turns: int, pips=None) -> list:
    """What the table's decision code (``FaceClassifier.classify``, at its present
    thresholds) reads of crops whose network answers are ``die_t``/``face_t`` (from
    :func:`turn_outputs`), without running the network again: the classifier is handed the
    crops' indices and, for them, the stored answers. ``pips``: the pips counted on each
    crop (:func:`counted_pips`: at the first look, and looking again), replayed where and as
    the decision code would count them."""

    def answers(idx, n_turns):
        idx = np.asarray(idx)
        return die_t[:n_turns, idx], face_t[:n_turns, idx]

    def counted(idx, faces, again=False):
        again = [again] * len(faces) if isinstance(again, bool) else again
        return [
            pips[1 if a else 0][int(i)] if any(f in clf.pip_faces for f in fs if f) else None
            for i, fs, a in zip(idx, faces, again, strict=True)
        ]

    clf._turned = answers
    if pips is not None:
        clf.pip_counts = counted
    try:
        return clf.classify(np.arange(die_t.shape[1]), turns)
    finally:
        del clf._turned
        if pips is not None:
            del clf.pip_counts


def _readable(
    readings, side: np.ndarray, drop: float, small: float
) -> tuple[np.ndarray, np.ndarray]:
    """(read, kept) of each reading by the table's rules after the classifier
    (``vision.pipeline``): a box the classifier calls not-a-die over ``drop`` is no die
    found (not kept); a die under ``MIN_READ_PX`` is never read, one under ``SMALL_PX`` only
    at ``small`` (the card's threshold of small dice). ``side`` 0: no photo (a crop), no
    size rule."""
    from vision.pipeline import MIN_READ_PX, SMALL_PX

    face = np.array([r.face is not None for r in readings], bool)
    conf = np.array([r.confidence for r in readings])
    none = np.array([r.not_a_die for r in readings])
    sized = side > 0
    small_ok = ~sized | (side >= SMALL_PX) | (conf >= small)
    big_enough = ~sized | (side >= MIN_READ_PX)
    return face & small_ok & big_enough, none <= drop


# the calibration scenes of small dice only (calibration_data): they set the threshold of
# small dice, not the others (they would weigh the dice of 40-60 px in them far over their
# share at the table)
SMALL_SCENES = "small-dice scenes"


def _general(crops: Crops) -> np.ndarray:
    """Which crops the thresholds of all dice are set on: all but ``SMALL_SCENES``."""
    return np.array([g != SMALL_SCENES for g in crops.group], bool)


def _small_dice(crops: Crops, kept: np.ndarray) -> np.ndarray:
    """Which crops are dice found of ``MIN_READ_PX`` to ``SMALL_PX`` across (the small dice
    the table reads only at the card's ``small`` threshold)."""
    from vision.pipeline import MIN_READ_PX, SMALL_PX

    return (crops.die >= 0) & kept & (crops.side >= MIN_READ_PX) & (crops.side < SMALL_PX)


def choose_small(clf, readings, crops: Crops, drop: float, alpha=ALPHA, delta=DELTA, log=print):
    """The threshold of small dice (``_small_dice``) for ``clf``'s readings of ``crops`` made
    with no threshold of their own (every best guess read): the lowest whose wrong-read rate
    among the small dice found is bounded by ``alpha`` at ``1 - delta``, by the same rule as
    the others but on the small dice alone (few among all the dice found, their wrong reads
    would hardly move a bound on all). Returns (threshold, the card's part)."""
    dice_ids, faces = list(clf.dice), list(clf.faces)
    read, kept = _readable(readings, crops.side, drop, 0.0)
    wrong = _wrong(readings, crops.die, crops.face, dice_ids, faces)
    conf = np.array([r.confidence for r in readings])
    m = _small_dice(crops, kept)
    got = choose(np.where(read, conf, 0.0)[m], (read & wrong)[m], alpha, delta, LEAST_THRESHOLD)
    t = float(got.threshold)
    log(
        f"  dice under the small size: threshold {t:.4f}, wrong-read rate <= {got.bound:.3%} "
        f"({got.wrong} of {got.dice} small calibration dice read wrong, {got.read} read)"
    )
    return t, {"threshold": t, "bound": got.to_json(), "set_on": _pool_name(crops.take(m))}


def _wrong(readings, die: np.ndarray, face: np.ndarray, dice, faces) -> np.ndarray:
    """Whether each reading's (die, face) is not the truth (a not-a-die crop: always)."""
    return np.array(
        [
            d < 0 or (r.die, r.face) != (dice[d], faces[f])
            for r, d, f in zip(readings, die.tolist(), face.tolist(), strict=False)
        ],
        bool,
    )


def _group_figures(crops: Crops, read, kept, wrong) -> dict:
    """Per group at the chosen thresholds: dice, found (kept), read right / asked / read
    wrong as shares of the dice found (the issue's table), and the wrong count."""
    out = {}
    groups = np.array(crops.group)
    is_die = crops.die >= 0
    for g in sorted(set(crops.group)):
        m = (groups == g) & is_die
        if not m.any():
            continue
        k = m & kept
        n = max(int(k.sum()), 1)
        out[g] = {
            "dice": int(m.sum()),
            "found": int(k.sum()),
            "read_right": round(float((k & read & ~wrong).sum()) / n, 4),
            "asked": round(float((k & ~read).sum()) / n, 4),
            "read_wrong": round(float((k & read & wrong).sum()) / n, 4),
            "wrong_count": int((k & read & wrong).sum()),
        }
    return out


def _pool_name(crops: Crops) -> dict:
    """How many dice of each group a bound was set on."""
    groups = np.array(crops.group)[crops.die >= 0]
    return {g: int((groups == g).sum()) for g in sorted(set(groups.tolist()))}


def choose_thresholds(
    clf,
    camera: Crops,
    photo: Crops,
    alpha: float = ALPHA,
    delta: float = DELTA,
    floors: tuple[float, float] = (0.0, 0.0),
    log=print,
) -> dict:
    """The thresholds of reads once and at four turns, each the lowest one whose wrong-read
    rate is bounded by ``alpha`` at ``1 - delta`` (``vision.risk.choose``: Learn then Test,
    Clopper-Pearson, wrong reads counted among all dice found) on calibration dice only.

    ``camera``: dice cut as the camera loop cuts them (read once), ``photo``: as photos are
    read (four turns); both may hold not-a-die crops (die -1): no threshold lets one of them
    pass as a die the table keeps. Readings come from the table's decision code
    (:func:`decisions`) and its rules after the classifier (:func:`_readable`). The four-turn
    read takes a sure upright read alone, so its threshold is chosen after the one-read
    threshold, over ``TURNED_GRID``, a die counting as read down from the highest candidate
    that reads it and as wrong if any candidate reads it wrong (a bound on what it costs).
    ``floors``: the least thresholds (once, four turns) of the set (``SET_FLOORS``).
    When not even the surest four-turn candidate holds, the four-turn read reads nothing
    (threshold ``vision.risk.NEVER``, ``upright_alone`` false).
    Small dice get a threshold of their own first (:func:`choose_small`), in force when the
    others are set; the ``SMALL_SCENES`` crops set only theirs.
    Writes nothing; returns the card's parts: {"once": {...}, "turned": {...},
    "upright_alone": bool, "small": {"once": {...}, "turned": {...}}}.
    """
    from vision.pipeline import NOT_A_DIE_CAMERA

    dice, faces = list(clf.dice), list(clf.faces)
    out = {}
    # read once: a die is read at t when its confidence reaches t (the die head's own
    # confidence is never below the joint one)
    die_t, face_t = turn_outputs(clf, camera.x)
    clf.use_thresholds(1, 0.0)
    first = decisions(clf, die_t, face_t, 1)
    # small dice first, on their own: then the threshold of all dice with theirs in force
    s1, small_once = choose_small(clf, first, camera, NOT_A_DIE_CAMERA, alpha, delta, log)
    read, kept = _readable(first, camera.side, NOT_A_DIE_CAMERA, s1)
    wrong = _wrong(first, camera.die, camera.face, dice, faces)
    conf = np.array([r.confidence for r in first])
    is_die = camera.die >= 0
    neg = ~is_die & kept & read
    floor = max(floors[0], LEAST_THRESHOLD)
    if neg.any():  # just above the surest not-a-die crop the table would keep
        floor = max(floor, float(np.nextafter(conf[neg].max(), 2.0)))
    m = is_die & kept & _general(camera)
    score = np.where(read, conf, 0.0)
    once = choose(score[m], (read & wrong)[m], alpha, delta, floor)
    t1 = float(once.threshold)  # a confidence itself: kept whole, so the same dice pass
    clf.use_thresholds(1, t1)
    final = decisions(clf, die_t, face_t, 1)
    read, kept = _readable(final, camera.side, NOT_A_DIE_CAMERA, s1)
    wrong = _wrong(final, camera.die, camera.face, dice, faces)
    out["once"] = {
        "threshold": t1,
        "die_thresholds": {},
        "bound": once.to_json(),
        "set_on": _pool_name(camera.take(m)),
        "floor": round(floor, 6),
        "figures": _group_figures(camera, read, kept, wrong),
        "not_a_die_passed": int((~is_die & kept & read).sum()),
    }
    log(
        f"read once: threshold {t1:.4f}, wrong-read rate <= {once.bound:.3%} at "
        f"{1 - delta:.0%} ({once.wrong} of {once.dice} calibration dice read wrong, "
        f"{once.read} read)"
    )

    out.update(choose_turned(clf, photo, t1, alpha, delta, floors[1], log))
    out["small"] = {"once": small_once, "turned": out.pop("small")}
    return out


def choose_turned(
    clf,
    photo: Crops,
    t1: float,
    alpha: float = ALPHA,
    delta: float = DELTA,
    floor: float = 0.0,
    log=print,
    small: float | None = None,
) -> dict:
    """The four-turn part of :func:`choose_thresholds`, with the one-read threshold ``t1`` in
    force for the upright read: {"turned": {...}, "upright_alone": bool, "small": {...}}.
    ``small``: the threshold of small dice read at four turns (None: set here first, on the
    small dice alone, :func:`choose_small`). With a second network attached
    (``FaceClassifier.use_second``) each turn's answers are the two's mean, as the table
    then reads them."""
    from vision.classify import TURNS
    from vision.pipeline import NOT_A_DIE_PHOTO

    dice, faces = list(clf.dice), list(clf.faces)
    out = {}
    # four turns, with the one-read threshold in force for the upright read
    die_t, face_t = turn_outputs(clf, photo.x, joint=clf.second)
    is_die = photo.die >= 0
    small_part = None
    if small is None:  # every best guess read (the upright one when sure at t1)
        clf.upright_alone = True
        clf.use_thresholds(1, t1)
        clf.use_thresholds(TURNS, 0.0)
        every = decisions(clf, die_t, face_t, TURNS)
        small, small_part = choose_small(clf, every, photo, NOT_A_DIE_PHOTO, alpha, delta, log)
    best = np.zeros(len(photo))
    ever_wrong = np.zeros(len(photo), bool)
    neg_floor = LEAST_THRESHOLD
    kept = None
    clf.upright_alone = True
    for t in TURNED_GRID:
        clf.use_thresholds(1, t1)
        clf.use_thresholds(TURNS, t)
        got = decisions(clf, die_t, face_t, TURNS)
        read, kept = _readable(got, photo.side, NOT_A_DIE_PHOTO, small)
        wrong = _wrong(got, photo.die, photo.face, dice, faces)
        best = np.where(read & (best == 0), t, best)
        ever_wrong |= read & wrong
        if neg_floor == LEAST_THRESHOLD and (~is_die & kept & read).any():
            neg_floor = t + 1e-6  # candidates from here down let a not-a-die crop pass
    m = is_die & kept & _general(photo)
    turned = choose(best[m], ever_wrong[m], alpha, delta, max(floor, neg_floor, LEAST_THRESHOLD))
    t4 = turned.threshold
    clf.use_thresholds(1, t1)
    clf.use_thresholds(TURNS, t4)
    # not even the surest candidate holds: the upright reads taken alone (at the one-read
    # threshold) are wrong too often on these dice, whatever the four-turn threshold; the
    # four-turn read then reads nothing, not even upright alone
    upright_alone = t4 <= 1.0
    clf.upright_alone = upright_alone
    final = decisions(clf, die_t, face_t, TURNS)
    read, kept = _readable(final, photo.side, NOT_A_DIE_PHOTO, small)
    wrong = _wrong(final, photo.die, photo.face, dice, faces)
    out["upright_alone"] = upright_alone
    if small_part is not None:
        out["small"] = small_part
    out["turned"] = {
        "threshold": t4,
        "die_thresholds": {},
        "bound": turned.to_json(),
        "set_on": _pool_name(photo.take(m)),
        "floor": round(max(floor, neg_floor, LEAST_THRESHOLD), 6),
        "figures": _group_figures(photo, read, kept, wrong),
        "not_a_die_passed": int((~is_die & kept & read).sum()),
    }
    log(
        f"read at four turns: threshold {t4:.4f}, wrong-read rate <= {turned.bound:.3%} at "
        f"{1 - delta:.0%} ({turned.wrong} of {turned.dice} calibration dice counted wrong, "
        f"{turned.read} read)"
    )
    return out


def choose_pip_agree(
    clf,
    crops: Crops,
    die_t,
    face_t,
    turns: int,
    drop: float,
    small: float,
    alpha=ALPHA,
    delta=DELTA,
) -> dict:
    """The least confidence from which a best guess the pips counted agree with is read
    (``pip_agree_threshold``), for reads at ``turns`` turns at the classifier's present
    thresholds: the dice that only this reads are added from the surest down while the
    wrong-read rate of all the reads stays bounded by ``alpha`` at ``1 - delta``
    (``vision.risk.choose_sequence``). No candidate lets a not-a-die crop through. The pips
    are counted once on the crops (:func:`counted_pips`) and replayed into the decision code."""
    counts = counted_pips(crops.x)
    dice, faces = list(clf.dice), list(clf.faces)
    try:
        clf._pip_agree[turns] = None
        base = decisions(clf, die_t, face_t, turns, counts)
        clf._pip_agree[turns] = 0.0
        every = decisions(clf, die_t, face_t, turns, counts)
    finally:
        clf._pip_agree[turns] = None
    read_b, kept = _readable(base, crops.side, drop, small)
    read_e, kept_e = _readable(every, crops.side, drop, small)
    wrong_e = _wrong(every, crops.die, crops.face, dice, faces)
    wrong_b = _wrong(base, crops.die, crops.face, dice, faces)
    is_die = crops.die >= 0
    extra = read_e & ~read_b & kept_e
    conf = np.array([r.confidence for r in every])
    m = is_die & kept & _general(crops)
    return _pips_added(conf, read_b, wrong_b, extra, wrong_e, m, ~is_die, alpha, delta)


def _pips_added(conf, read, wrong, extra, wrong_extra, m, negative, alpha, delta) -> dict:
    """A card's pip-agreement part: the dice ``extra`` (read only on the pips' word, wrong
    where ``wrong_extra``) added to those ``read`` (wrong where ``wrong``), from the surest
    down (``conf``), while the wrong-read rate of the dice ``m`` read keeps its bound; no
    candidate at or under the surest not-a-die crop among them (``negative``)."""
    floor = LEAST_THRESHOLD
    if (extra & negative).any():
        floor = max(floor, float(np.nextafter(conf[extra & negative].max(), 2.0)))
    k0 = int((read & wrong & m).sum())
    steps = []
    for t in sorted({float(c) for c in conf[extra & m] if c >= floor}, reverse=True):
        add = extra & m & (conf >= t)
        steps.append((t, int((read & m).sum() + add.sum()), k0 + int((add & wrong_extra).sum())))
    chosen = choose_sequence(steps, int(m.sum()), alpha, delta)
    return {
        "pip_agree_threshold": None if chosen.threshold >= NEVER else chosen.threshold,
        "pip_agree_bound": chosen.to_json(),
    }


def choose_small_pips(
    clf,
    crops: Crops,
    die_t,
    face_t,
    turns: int,
    small: float,
    pip_agree: float | None,
    alpha=ALPHA,
    delta=DELTA,
) -> dict:
    """The least confidence from which a photo's small die (:func:`_small_dice`) that the
    classifier reads at ``turns`` turns at its present thresholds (and ``pip_agree``, the
    card's ``pip_agree_threshold``) but under ``small`` (the threshold of small dice) is read
    when the pips counted on it, looking again, agree with its face (``vision.pipeline``):
    those dice are added from the surest down while the wrong-read rate of the small dice
    read stays bounded by ``alpha`` at ``1 - delta`` (``vision.risk.choose_sequence``), on
    the small calibration dice alone. No candidate lets a not-a-die crop through.
    {"pip_agree_threshold": float or None, "pip_agree_bound": ...}."""
    from vision.pipeline import NOT_A_DIE_PHOTO

    counts = counted_pips(crops.x)
    dice, faces = list(clf.dice), list(clf.faces)
    before = clf._pip_agree.get(turns)
    try:
        clf._pip_agree[turns] = pip_agree
        got = decisions(clf, die_t, face_t, turns, counts)
    finally:
        clf._pip_agree[turns] = before
    read, kept = _readable(got, crops.side, NOT_A_DIE_PHOTO, small)
    wrong = _wrong(got, crops.die, crops.face, dice, faces)
    conf = np.array([r.confidence for r in got])
    agree = np.array(
        [
            r.face is not None and counts[1][i] == clf.pip_faces.get(r.face, -1)
            for i, r in enumerate(got)
        ],
        bool,
    )
    unread, _ = _readable(got, crops.side, NOT_A_DIE_PHOTO, 0.0)
    extra = unread & ~read & agree & kept
    m = _small_dice(crops, kept)
    return _pips_added(conf, read, wrong, extra, wrong, m, crops.die < 0, alpha, delta)


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
    return calibrate_file(set_id, out_dir, data, log, realdice)


# Least thresholds of a set, (read once, read at four turns), over what calibrate finds on
# the training looks. tally-up: its network is sure and wrong on stars drawn in
# an art it never saw (a fat gold star read as the die's 200 or 150): on 150 other-style
# scenes of seeds the eval does not use, sure-wrong reads were 1.02% at 0.95 and 0.38% at
# 0.98 read once, 0.76% at 0.95 and 0.13% at 0.97 at four turns; the classic look loses
# 2.3 points of sure reads at 0.98 (98.3% -> 96.0% read right on 100 classic scenes).
SET_FLOORS = {"tally-up": (0.98, 0.97)}


@dataclass
class Calibration:
    """What sets a classifier's thresholds: held-out rendered dice (``rendered``, with the
    ``SMALL_SCENES`` of small dice only, each crop with its side), held-out synthetic crops
    (``synthetic``: their not-a-die crops hold the thresholds up, their dice are only
    measured), and for d6 the ``calibrate`` photos' dice as the camera and photo
    paths cut them (``real``, :func:`real_calibration`). Never a ``judge`` photo."""

    rendered: Crops | None
    synthetic: Crops | None
    real: dict[str, Crops | None]

    def files(self) -> set[str]:
        """Every real file the calibration reads ("<set>/<file>")."""
        return {f for c in self.real.values() if c is not None for f in c.file if f}

    def check(self, realdice: Path) -> None:
        """ValueError when a real file it reads is not a ``calibrate`` photo (``lab.splits``)."""
        from lab.splits import entries

        parts = {f"{k[0]}/{k[1]}": e.part for k, e in entries(realdice).items()}
        bad = sorted(f for f in self.files() if parts.get(f) != "calibrate")
        if bad:
            raise ValueError(
                f"{len(bad)} calibration crops come from photos that are not calibrate "
                f"photos (lab.splits), first {bad[0]}: thresholds are never set on them"
            )

    def without(self, source: str) -> Calibration:
        """The same without one real source (leave-one-source-out)."""
        return Calibration(
            self.rendered,
            self.synthetic,
            {
                k: (None if c is None else c.take([g != source for g in c.group]))
                for k, c in self.real.items()
            },
        )

    def path(self, name: str) -> Crops:
        """The calibration crops of one path (``camera`` or ``photo``): rendered dice, the
        synthetic not-a-die crops, and the real dice of that path."""
        neg = None
        if self.synthetic is not None:
            neg = self.synthetic.take(self.synthetic.die < 0)
        return Crops.join([self.rendered, neg, self.real.get(name)])


def calibration_data(
    set_id: str,
    size: int,
    holdout: int,
    holdout_scenes: int,
    seed: int,
    workers: int,
    realdice: Path | None,
    sources=None,
    detector=None,
) -> Calibration:
    """The calibration crops of a dice set (:class:`Calibration`), made afresh: synthetic
    and rendered with the held-out seeds (``seed + 7919``), the real ones for d6."""
    synthetic = rendered = None
    if holdout:
        sx, sd, sf = make_synthetic(set_id, holdout, seed + 7919, workers, size=size)
        synthetic = Crops.of(sx, sd, sf, "synthetic")
    if holdout_scenes:
        from vision.pipeline import MIN_READ_PX, SMALL_PX

        parts = []
        # the held-out scenes, and as many again of small dice only: the threshold of dice
        # under SMALL_PX is bounded on them alone (choose_thresholds), and wide scenes hold
        # too few of them for the bound
        for scenes, die_px, seed_at in (
            (holdout_scenes, None, seed + 7919),
            (holdout_scenes, (MIN_READ_PX, SMALL_PX), seed + 7919 + 1),
        ):
            made = make_rendered(set_id, scenes, seed_at, workers, size, die_px=die_px)
            if made is not None:
                x, d, f, side = made
                n, group = len(x), "rendered" if die_px is None else SMALL_SCENES
                parts.append(Crops(x, d, f, [group] * n, side, [""] * n))
        rendered = Crops.join(parts)
    real = {"camera": None, "photo": None}
    if set_id == "d6" and realdice is not None and Path(realdice).exists():
        real = real_calibration(Path(realdice), size, sources, detector)
    return Calibration(rendered, synthetic, real)


def _floors(unseen: dict, set_id: str) -> dict[str, float]:
    """The least threshold of each read: the set's own (``SET_FLOORS``) and those set on
    unseen dice (``lab.unseen``: once, turned, joint, small_once, small_turned, small_joint)."""
    once, turned = SET_FLOORS.get(set_id, (0.0, 0.0))
    least = {
        "once": once,
        "turned": turned,
        "joint": turned,
        "small_once": 0.0,
        "small_turned": 0.0,
        "small_joint": 0.0,
    }
    return {k: max(v, float((unseen.get(k) or {}).get("threshold", 0.0))) for k, v in least.items()}


def _lift(part: dict, floor: float) -> None:
    """Raise a threshold of small dice (a card part: "threshold", ...) to its floor: fewer
    read than at the threshold chosen, so the bound still holds."""
    if floor > part["threshold"]:
        part["threshold"] = part["floor"] = floor


def _lift_small(small: dict, fl: dict[str, float]) -> None:
    """Raise the thresholds of small dice (``choose_thresholds``' ``small`` part) to their
    floors (:func:`_lift`)."""
    for key in ("once", "turned"):
        _lift(small[key], fl[f"small_{key}"])


def calibrate_file(
    set_id: str,
    models_dir,
    data: Calibration,
    log=print,
    realdice: Path | None = None,
    alpha: float = ALPHA,
    delta: float = DELTA,
    unseen: dict | None = None,
) -> dict:
    """Set the thresholds of the ONNX classifier in ``models_dir`` (:func:`choose_thresholds`)
    on ``data`` and write them into its JSON card, with the bound each holds, the dice that
    set it, and (``realdice``) which photos of each real source train, calibrate and judge.
    With a second network beside it (``vision.classify.second_path``), the thresholds of
    reads at four turns heard from both are set too (the card's ``joint``,
    :func:`calibrate_joint`). Refuses calibration crops from any photo that is not a
    calibrate photo. ``unseen``: floors under the thresholds, set on dice of sources the
    networks never saw (``lab.unseen.floors``; None: the card's own, kept from its last
    calibration; {}: none), kept in the card."""
    from vision.classify import FaceClassifier, model_paths, second_path
    from vision.pipeline import MIN_READ_PX, NOT_A_DIE_CAMERA, NOT_A_DIE_PHOTO, SMALL_PX

    if realdice is not None:
        data.check(Path(realdice))
    elif data.files():
        raise ValueError("real calibration crops need realdice to check their photos' parts")
    clf = FaceClassifier(load(set_id), models_dir=models_dir, second=False)
    meta_path = model_paths(set_id, models_dir)[1]
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    if unseen is None:
        unseen = meta.get("unseen") or {}
    fl = _floors(unseen, set_id)
    chosen = choose_thresholds(
        clf,
        data.path("camera"),
        data.path("photo"),
        alpha,
        delta,
        (fl["once"], fl["turned"]),
        log,
    )
    _lift_small(chosen["small"], fl)
    if clf.pip_faces:  # a best guess the pips counted agree with, from a lower threshold
        clf.use_thresholds(1, chosen["once"]["threshold"])
        clf.use_thresholds(4, chosen["turned"]["threshold"])
        clf.upright_alone = chosen["upright_alone"]
        for key, turns, part in (("once", 1, "camera"), ("turned", 4, "photo")):
            crops = data.path(part)
            die_t, face_t = turn_outputs(clf, crops.x)
            drop = NOT_A_DIE_CAMERA if turns == 1 else NOT_A_DIE_PHOTO
            small = chosen["small"][key]["threshold"]
            chosen[key].update(
                choose_pip_agree(clf, crops, die_t, face_t, turns, drop, small, alpha, delta)
            )
            log(f"{key}: pips agreeing, read from {chosen[key]['pip_agree_threshold']}")
    if data.synthetic is not None:  # measured, not set on: harsher than what the table sees
        dice = data.synthetic.take(data.synthetic.die >= 0)
        die_t, face_t = turn_outputs(clf, dice.x)  # in batches: one call would need GBs
        for key, turns in (("once", 1), ("turned", 4)):
            clf.use_thresholds(1, chosen["once"]["threshold"])
            clf.use_thresholds(4, chosen["turned"]["threshold"])
            got = decisions(clf, die_t, face_t, turns)
            wrong = _wrong(got, dice.die, dice.face, list(clf.dice), list(clf.faces))
            read = np.array([r.face is not None for r in got], bool)
            chosen[key]["figures"]["synthetic (not set on)"] = _group_figures(
                dice, read, np.ones(len(dice), bool), wrong
            )["synthetic"]
    meta.update(chosen.pop("once"))
    meta["turned"] = chosen["turned"]
    meta["small"] = {"px": [MIN_READ_PX, SMALL_PX], **chosen["small"]}
    meta.pop("upright_alone", None)
    if not chosen["upright_alone"]:
        meta["upright_alone"] = False
    meta.pop("real_left_out", None)
    before = meta.pop("joint", None) or {}
    second = second_path(set_id, models_dir)
    if second.is_file():
        meta["joint"] = calibrate_joint(
            clf,
            second,
            data,
            meta["threshold"],
            alpha,
            delta,
            fl["joint"],
            log,
            fl["small_joint"],
        )
        # how the second network was made, kept while it is the same file
        if before.get("sha256") == meta["joint"]["sha256"] and "trained" in before:
            meta["joint"]["trained"] = before["trained"]
    meta["calibration"] = {
        "rule": (
            "vision.risk.choose: the lowest threshold whose wrong-read rate (wrong reads "
            "among the dice found) has a one-sided Clopper-Pearson upper bound at most "
            f"alpha = {alpha} at confidence {1 - delta}, candidates tested from the surest "
            "down (Learn then Test); set on held-out rendered dice and, for d6, the real "
            "calibrate photos only; no not-a-die crop passes"
            + (
                "; none under its floor in 'unseen' (the same bound on the train and "
                "calibrate photos of each real source read by networks that never saw it, "
                "lab.unseen)"
                if unseen
                else ""
            )
        ),
        "alpha": alpha,
        "confidence": 1 - delta,
    }
    meta.pop("unseen", None)
    if unseen:
        meta["unseen"] = unseen
    if realdice is not None and set_id == "d6":
        from lab.splits import RULES, table

        meta["real_photos"] = {"parts": RULES, "per_source": table(realdice)}
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return meta


def calibrate_joint(
    clf,
    path: Path,
    data: Calibration,
    t1: float,
    alpha=ALPHA,
    delta=DELTA,
    floor=0.0,
    log=print,
    small_floor=0.0,
) -> dict:
    """The card's ``joint`` part: ``clf`` (one read at ``t1``) reading at four turns with the
    second network in ``path`` (each turn's answers the two's mean), its threshold set by the
    same bound on the same photo-path calibration dice (:func:`choose_turned`; first the
    threshold of the small dice among them, on the mean's readings of those alone: a photo's
    small dice are read by the two as well), then its pip-agreement threshold
    (:func:`choose_pip_agree`); the synthetic dice are measured. ``floor``, ``small_floor``:
    the least thresholds (``lab.unseen``'s ``joint`` and ``small_joint``)."""
    from vision.classify import TURNS
    from vision.onnx import file_sha256
    from vision.pipeline import NOT_A_DIE_PHOTO

    log(f"with the second network {path.name}:")
    clf.use_second(path)
    got = choose_turned(clf, data.path("photo"), t1, alpha, delta, floor, log)
    joint = {"network": path.name, "sha256": file_sha256(path), **got["turned"]}
    joint["upright_alone"] = got["upright_alone"]
    _lift(got["small"], small_floor)
    joint["small"] = got["small"]
    small = got["small"]["threshold"]
    clf.use_thresholds(1, t1)
    clf.use_thresholds(TURNS, joint["threshold"])
    clf.upright_alone = got["upright_alone"]
    if clf.pip_faces:
        crops = data.path("photo")
        die_t, face_t = turn_outputs(clf, crops.x, joint=True)
        joint.update(
            choose_pip_agree(clf, crops, die_t, face_t, TURNS, NOT_A_DIE_PHOTO, small, alpha, delta)
        )
        log(f"joint: pips agreeing, read from {joint['pip_agree_threshold']}")
        clf.use_thresholds(TURNS, joint["threshold"])  # (choose_pip_agree leaves it unset)
        pip_cut = joint["pip_agree_threshold"]
        got = choose_small_pips(clf, crops, die_t, face_t, TURNS, small, pip_cut, alpha, delta)
        joint["small"].update(got)
        log(f"joint: small dice the pips agree with, read from {got['pip_agree_threshold']}")
    if data.synthetic is not None:  # measured, not set on
        dice = data.synthetic.take(data.synthetic.die >= 0)
        die_t, face_t = turn_outputs(clf, dice.x, joint=True)
        got = decisions(clf, die_t, face_t, TURNS)
        wrong = _wrong(got, dice.die, dice.face, list(clf.dice), list(clf.faces))
        read = np.array([r.face is not None for r in got], bool)
        joint["figures"]["synthetic (not set on)"] = _group_figures(
            dice, read, np.ones(len(dice), bool), wrong
        )["synthetic"]
    return joint


def recalibrate(set_id: str, args, log=print) -> dict:
    """Set the thresholds of an already trained classifier afresh (no torch needed), on the
    same calibration crops ``train_set`` uses (``dicetray train --calibrate``)."""
    from vision.classify import FaceClassifier

    size = FaceClassifier(set_id, models_dir=args.out).input_size
    realdice = Path(args.realdice)
    data = calibration_data(
        set_id, size, args.holdout, args.holdout_scenes, args.seed, args.workers, realdice
    )
    return calibrate_file(set_id, args.out, data, log, realdice)


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
