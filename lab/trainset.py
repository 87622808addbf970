"""The crops a die classifier learns from and is calibrated on (``lab.train``, ``lab.calibrate``).

- synthetic dice drawn from the dice-set file (``lab.synth``: any rotation, offset, tilt
  and side faces, shadows, glare, blur, noise, white balance, JPEG) and "not a die" crops
  (felt, skin, clutter), made in worker processes (:func:`make_synthetic`);
- crops of rendered tray scenes (``hardware.sim.render``; :func:`make_rendered`), and "not
  a die" crops mined from rendered trays where the detector finds something that is no die
  (:func:`mined_negatives`);
- for the pip set ``d6``, the dice of the real photos' ``train`` part (``lab.splits``;
  :func:`real_d6`, with camera faults added: :func:`camera_spoil`) and of their
  ``calibrate`` part cut as the camera and photo paths cut them (:func:`real_calibration`).
  The photos are not shipped; matteop65_webcam: MIT, (c) 2021 Matteo A. Penlington;
  rune55_gray: Roboflow "rune55" v3, CC BY 4.0, via N3VERS4YDIE/dice-recognition, MIT;
  chase_casino_crops: see its LICENSE.

:class:`Crops` holds crops with their labels, source and side.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np

from hardware.sim.looks import FAR_LIGHTS
from hardware.sim.render import rendered_crops
from lab.labels import REALDICE_DIR, matteop65_die_side
from lab.photos import read_chase, read_matteop65, read_rune55, real_backgrounds
from lab.synth import (
    ANY_COLOUR,
    SIDE_MARKS,
    SyntheticDice,
    negative_crop,
    recolour_crop,
    worker_pool,
)
from vision.crops import CROP_MARGIN, INPUT_SIZE, NONE_CLASS, cut_crop
from vision.dicesets import load


def class_lists(ds) -> tuple[list[str], list[str]]:
    """The two heads' classes of a dice set: die ids, and face ids plus ``none``."""
    faces = list(dict.fromkeys(f for d in ds.dice for f in d.faces))
    return [d.id for d in ds.dice], [*faces, NONE_CLASS]


def _synth_chunk(args):
    set_id, seed, n, n_neg, random_colours, strength, size, backgrounds, side_marks = args
    ds = load(set_id)
    rng = np.random.default_rng(seed)
    synth = SyntheticDice(
        ds,
        size=size,
        random_colours=random_colours,
        canvas=2 * size,
        wide=True,
        side_marks=side_marks,
    )
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
    set_id, seed, scenes, size, partial, die_px, far_print = args
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
        far_print=far_print,
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
    side_marks: float = SIDE_MARKS,
):
    """``n`` synthetic crops (+ negatives) of a set, made in ``workers`` processes.
    ``backgrounds``: some not-a-die crops are cut from real photos with their dice painted
    out (``real_backgrounds``); False: none (a network that never sees a real photo).
    ``side_marks``: ``SyntheticDice``'s (dice seen steeply, their sides printed)."""
    random_colours = ANY_COLOUR.get(set_id, 0.0)
    chunks = max(workers * 4, 1)
    per = n // chunks
    neg = int(per * neg_share)
    jobs = [
        (set_id, seed * 1000 + i, per, neg, random_colours, strength, size, backgrounds, side_marks)
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
    far_print: bool = False,
):
    """Crops of rendered scenes: (crops, die index, face index, die side in pixels), or None
    when hardware.sim.render is not there (``partial``, ``die_px``, ``far_print``: see
    ``hardware.sim.render.rendered_crops``)."""
    jobs = [
        (set_id, seed * 1000 + 500 + i, scenes // (workers * 2), size, partial, die_px, far_print)
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
    zoom: tuple[float, float] | None = None,
):
    """Real d6 crops of one part (``lab.splits``), cut at the labelled boxes: for ``train``,
    ``copies`` randomly turned/jittered copies of each die (the first plain, the others
    weighted by ``REAL_WEIGHT``, recoloured and, with ``augment(crop, rng) -> crop``, spoiled
    further; with ``zoom`` (lo, hi), cut at a side drawn from lo to hi times the box's); for
    any other part one plain crop of each. ``sources``: only these sources
    (``lab.splits.SOURCES``), else all. Returns (crops, faces 0-5, sources) or None."""
    rng = np.random.default_rng(seed)
    xs, ys, src = [], [], []
    for c in range(copies if part == "train" else 1):
        kw = (
            {
                "rng": rng,
                "jitter": 0.08,
                "angle": float(rng.uniform(0, 360)),
                "zoom": zoom if c else None,
            }
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
