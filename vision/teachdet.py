"""Teaching's part for the detector, and what both parts share: which box found is which die.

When the shipped detector misses dice in an owner's photos (``vision.teach``), a detector head
(``vision.dethead``) is fitted on the cells of the detector's feature map, the ones near each
labelled die and a sample of the tray's, once per fold of the photos, and judged as photos
are searched on the fold it never saw. It is kept only when it finds more of those dice than
the shipped detector, with no more boxes that are no die.

    >>> import numpy as np
    >>> folds = photo_folds(7, np.random.default_rng(0))
    >>> len(folds), sorted(i for fold in folds for i in fold)
    (5, [0, 1, 2, 3, 4, 5, 6])
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.detect import (
    FRAME_H,
    FRAME_W,
    NET_H,
    NET_W,
    SIZE_UNIT,
    STRIDE,
    Detector,
    letterbox,
)
from vision.dethead import DetectorHead
from vision.types import closest_pairs

FOLDS = 5  # cross-validation: the photos in this many folds
DETECTOR_GOOD = 0.98  # the shipped detector finds this share of the photos' dice: kept
TRAY_CELLS = 0.15  # share of the tray's cells (far from any die) a detector head learns from
DET_L2 = 1e-2  # the pull of a detector head's weights towards the shipped head
DET_THRESHOLDS = (0.2, 0.35, 0.5, 0.65, 0.8, 0.9)  # heat thresholds a taught head tries


def photo_folds(n: int, rng) -> list[list[int]]:
    """The indices of ``n`` photos dealt at random into ``FOLDS`` folds (fewer with fewer
    photos)."""
    k = min(FOLDS, n)
    order = rng.permutation(n).tolist()
    return [sorted(order[i::k]) for i in range(k)]


def found_boxes(labels, boxes) -> list:
    """For each labelled die, the found box whose centre lies in the label's box, nearest
    centres paired first, one box a die (None: not found). Taken in label order instead, two
    dice whose boxes overlap could swap boxes: each die is then taught and judged on its
    neighbour's crop, and one such "wrong read" at 0.999 held a taught head's threshold above
    most of the dice it read right (Rollers dice with digits, rendered)."""
    cand = []
    for i, lab in enumerate(labels):
        lx, ly = lab.x + lab.w / 2, lab.y + lab.h / 2
        for k, (x, y, w, h) in enumerate(boxes):
            cx, cy = x + w / 2, y + h / 2
            if lab.x <= cx <= lab.x + lab.w and lab.y <= cy <= lab.y + lab.h:
                cand.append((math.hypot(cx - lx, cy - ly), i, k))
    hit = closest_pairs(cand)
    return [tuple(boxes[hit[i]]) if i in hit else None for i in range(len(labels))]


def matched(labels, boxes) -> int:
    """Labelled dice with a found box whose centre lies in the label's box (one each)."""
    return sum(b is not None for b in found_boxes(labels, boxes))


def find_figures(found) -> tuple[float, float]:
    """(share of the labelled dice found, share of the boxes that were dice) of per-photo
    (labelled, found, boxes) counts."""
    labelled, hits, boxes = (sum(f[i] for f in found) for i in range(3))
    return round(hits / max(labelled, 1), 4), round(hits / max(boxes, 1), 4)


def teach_detector(det: Detector, photos, found, cells: Cells, rng, say):
    """A detector head, when the shipped detector misses dice in the photos: fitted once per
    fold of the photos and judged, as photos are searched, on the fold it never saw; kept
    only when it finds more of those dice than the shipped detector, with no more boxes
    that are no die. Returns (the head fitted on every photo, or None; what was found)."""
    shipped = find_figures(found)
    info: dict = {"shipped": {"found": shipped[0], "precision": shipped[1]}}
    if shipped[0] >= DETECTOR_GOOD or len(photos) < 2:
        info["kept_shipped_detector"] = (
            f"the shipped detector found {shipped[0]:.1%} of the photos' dice"
            if len(photos) >= 2
            else "one photo: too few to teach it"
        )
        return None, info
    arrays = cells.arrays()
    feats, heat, size, *_rest, photo_of = arrays
    prior = DetectorHead.recover(feats, heat, size)
    trial = _Trial()
    taught: dict[float, list] = {t: [] for t in DET_THRESHOLDS}
    folds = photo_folds(len(photos), rng)
    for f, fold in enumerate(folds):
        trial.head = _fit_detector(arrays, np.flatnonzero(~np.isin(photo_of, fold)), prior)
        for i in fold:
            img, photo = photos[i].decoded()
            trial.seen.clear()
            for t in DET_THRESHOLDS:  # the maps once, decoded at each threshold
                trial.threshold = t
                boxes = trial.detect_fine(img).boxes
                taught[t].append((len(photo.labels), matched(photo.labels, boxes), len(boxes)))
        say("teaching the detector", f + 1, len(folds))
    scored = {t: find_figures(v) for t, v in taught.items()}
    cut = max(DET_THRESHOLDS, key=lambda t: (scored[t][0] * scored[t][1], -abs(t - 0.35)))
    mine = scored[cut]
    info["taught"] = {"found": mine[0], "precision": mine[1], "threshold": cut}
    info["method"] = (
        f"cross-validation: {len(folds)} folds of the photos, each photo searched by a head "
        "fitted without it"
    )
    if mine[0] <= shipped[0] or mine[0] * mine[1] <= shipped[0] * shipped[1]:
        info["kept_shipped_detector"] = (
            "the taught detector head found the dice of photos it never saw no better than "
            "the shipped detector"
        )
        return None, info
    return _fit_detector(arrays, np.arange(len(photo_of)), prior), info


class _Trial(Detector):
    """A detector trying a head at several thresholds: each view's maps are computed once."""

    def __init__(self):
        super().__init__()
        self.seen: dict[bytes, tuple] = {}

    def maps(self, frame_bgr):
        key = (*frame_bgr.shape[:2], hash(frame_bgr[::7, ::7].tobytes()))
        if key not in self.seen:
            self.seen[key] = super().maps(frame_bgr)
        return self.seen[key]


# --------------------------------------------------------------------------------------------
# what the detector sees: cells of its feature map, and where the dice are


def _views(img: np.ndarray):
    """The views the photo search reads (``Detector.detect_fine``): the whole photo (in its
    4:3 frame) and half-size tiles of it, each as (x0, y0, view) in that frame's pixels, with
    the frame's offset of the photo."""
    frame, ox, oy = letterbox(img)
    h, w = frame.shape[:2]
    yield 0, 0, frame, ox, oy
    tw, th = w // 2, h // 2
    for y0, x0 in ((0, 0), (0, w - tw), (h - th, 0), (h - th, w - tw), (h // 4, w // 4)):
        yield x0, y0, frame[y0 : y0 + th, x0 : x0 + tw], ox, oy


def cell_targets(labels, x0: float, y0: float, vw: int, vh: int):
    """For one view of ``vw`` x ``vh`` px at (x0, y0) of the photo: each cell's heat target
    (a Gaussian round each die centre, 1 at the centre), its size target (log box size in
    pixels of a 640 x 480 frame) and whether it has one, and the cells to ignore (a die cut
    by the view's edge is neither die nor tray)."""
    gh, gw = NET_H // STRIDE, NET_W // STRIDE
    heat = np.zeros((gh, gw), np.float32)
    size = np.zeros((2, gh, gw), np.float32)
    smask = np.zeros((gh, gw), bool)
    ignore = np.zeros((gh, gw), bool)
    cw, ch = vw / gw, vh / gh
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    for lab in labels:
        bx, by = lab.x - x0, lab.y - y0
        inside = bx >= -2 and by >= -2 and bx + lab.w <= vw + 2 and by + lab.h <= vh + 2
        c0, r0 = int(bx / cw), int(by / ch)
        c1, r1 = int((bx + lab.w) / cw) + 1, int((by + lab.h) / ch) + 1
        if not inside:
            ignore[max(r0, 0) : max(r1, 0), max(c0, 0) : max(c1, 0)] = True
            continue
        cx, cy = (bx + lab.w / 2) / cw - 0.5, (by + lab.h / 2) / ch - 0.5
        sigma = max(0.6, min(lab.w / cw, lab.h / ch) / 5.0)
        heat = np.maximum(heat, np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma**2)))
        ci, cj = round(cy), round(cx)
        lw = np.log(max(lab.w * FRAME_W / vw, 2) / SIZE_UNIT)
        lh = np.log(max(lab.h * FRAME_H / vh, 2) / SIZE_UNIT)
        for i in range(ci - 1, ci + 2):
            for j in range(cj - 1, cj + 2):
                if 0 <= i < gh and 0 <= j < gw:
                    size[:, i, j] = (lw, lh)
                    smask[i, j] = True
        if 0 <= ci < gh and 0 <= cj < gw:
            heat[ci, cj] = 1.0
    return heat, size, smask, ignore


@dataclass
class Cells:
    """Cells of the detector's views of every photo: features, the shipped heat and size,
    and the targets; a sample of the tray's cells, every cell near a die."""

    feats: list
    heat: list
    size: list
    target: list
    size_t: list
    size_m: list
    photo: list
    sampled: list  # how many tray cells each cell stands for (1 near a die)

    def add(self, det: Detector, img, labels, i: int, rng) -> None:
        for x0, y0, view, ox, oy in _views(img):
            vh, vw = view.shape[:2]
            if vw < 32 or vh < 32:
                continue
            heat, size, feats = det.outputs(view)
            shifted = [
                type(lab)(lab.x + ox, lab.y + oy, lab.w, lab.h, lab.die, lab.face) for lab in labels
            ]
            t_heat, t_size, t_mask, ignore = cell_targets(shifted, x0, y0, vw, vh)
            near = (t_heat > 0.01) | t_mask
            keep = np.flatnonzero((near | (rng.random(near.shape) < TRAY_CELLS)) & ~ignore)
            c = feats.shape[0]
            self.feats.append(feats.reshape(c, -1).T[keep])
            self.heat.append(heat.reshape(-1)[keep])
            self.size.append(size.reshape(2, -1).T[keep])
            self.target.append(t_heat.reshape(-1)[keep])
            self.size_t.append(t_size.reshape(2, -1).T[keep])
            self.size_m.append(t_mask.reshape(-1)[keep])
            self.photo.append(np.full(len(keep), i))
            self.sampled.append(np.where(near.reshape(-1)[keep], 1.0, 1.0 / TRAY_CELLS))

    def arrays(self):
        return tuple(
            np.concatenate(v)
            for v in (
                self.feats,
                self.heat,
                self.size,
                self.target,
                self.size_t,
                self.size_m,
                self.sampled,
                self.photo,
            )
        )


def _fit_detector(cells, rows, prior: DetectorHead) -> DetectorHead:
    feats, _heat, _size, target, size_t, size_m, sampled, _photo = cells
    f, t = feats[rows], target[rows]
    centre = (t >= 0.999).astype(np.float32)
    # CenterNet's weighting: the cells round a centre count little as "no centre"
    weight = (np.where(centre > 0, 1.0, (1.0 - t) ** 4) * sampled[rows]).astype(np.float32)
    # the centres weigh a quarter of the tray (else a linear head stays under every threshold)
    pos = max(float(centre.sum()), 1.0)
    weight[centre > 0] *= max(float(weight[centre == 0].sum()) / pos / 4.0, 1.0)
    return DetectorHead.fit(f, centre, weight, size_t[rows], size_m[rows], prior, DET_L2)
