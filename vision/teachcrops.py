"""What teaching reads: each labelled die cut as the table cuts it, at four turns, shrunk to a
small die's size and many times more turned, shifted and spoiled, with "no die" crops; and the
shipped network's (and its second network's) readings of every crop (``vision.teach``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.classify import TURNS, FaceClassifier
from vision.crops import alone, crop_matrix, to_input
from vision.detect import Detector
from vision.frameread import TIGHT
from vision.head import pooled
from vision.labelled import Photo
from vision.pipeline import MIN_READ_PX, SMALL_PX
from vision.pips import read_pips
from vision.teachdet import Cells, found_boxes, matched

COPIES = 24  # crops cut of each labelled die besides its four turns ...
CROP_BUDGET = 6000  # ... fewer when the photos hold many dice (at most this many in all)
MIN_COPIES = 6
NEG_SHARE = 0.5  # "no die" crops per die crop
# every teaching die is also cut as the table would cut it this many px across (drawn
# uniformly; the sizes read at the small dice' threshold, vision.pipeline): its photo scaled
# down by area and stored again as a JPEG of this quality. Those shrunk dice teach the head
# too, and set the threshold of dice smaller than the teaching dice
# (``vision.teachcv.choose_small``)
SHRINK_PX = (MIN_READ_PX, SMALL_PX)
SHRINK_JPEG = 85
# the share of a die's copies cut tight (``_die_copies``): the table reads a die again on a
# crop of TIGHT times its box and withdraws its face when the best guess there differs
TIGHT_SHARE = 0.25
BATCH = 256  # crops the shipped network reads at once
SECOND_BATCH = 32  # ... and its second network (larger: its memory grows with the batch)


def copies_for(n_dice: int) -> int:
    """Crops cut of each of ``n_dice`` labelled dice besides its four turns.

    >>> copies_for(100), copies_for(308), copies_for(5000)
    (24, 19, 6)
    """
    return min(COPIES, max(MIN_COPIES, CROP_BUDGET // max(n_dice, 1)))


def cut_at(img, cx: float, cy: float, side: float, size: int, angle: float = 0.0) -> np.ndarray:
    """A ``size`` px square of ``img`` round (``cx``, ``cy``), ``side`` px across, turned by
    ``angle`` degrees (the photo's edge repeated beyond it)."""
    return cv2.warpAffine(
        img,
        crop_matrix(cx, cy, side, size, angle),
        (size, size),
        flags=cv2.INTER_AREA if side > 2 * size else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def spoiled(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Mild light, colour and focus changes: the same die under another moment's light."""
    out = crop.astype(np.float32)
    out = out * rng.uniform(0.75, 1.25) + rng.uniform(-20, 20)
    out *= rng.uniform(0.92, 1.08, 3)[None, None, :]
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.3))
    if rng.random() < 0.3:
        out += rng.normal(0, rng.uniform(2, 7), out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def _turns(crop: np.ndarray) -> list[np.ndarray]:
    return [np.ascontiguousarray(np.rot90(crop, k)) for k in range(TURNS)]


def _die_copies(img, lab, clf: FaceClassifier, rng, copies: int) -> list[np.ndarray]:
    """``copies`` crops of one die turned to any angle, shifted, resized and spoiled, as a
    detector's box and another moment's light would cut it; ``TIGHT_SHARE`` of them cut
    tight, as the table cuts a die to check its read (``vision.frameread.TIGHT``) from a box
    that may be smaller than the die."""
    die = max(lab.w, lab.h)
    cx, cy = lab.x + lab.w / 2, lab.y + lab.h / 2
    tight = round(copies * TIGHT_SHARE)
    out = []
    for i in range(copies):
        side = die * (
            rng.uniform(1.0, TIGHT) if i < tight else clf.margin * rng.uniform(0.88, 1.14)
        )
        shift = 0.04 if i < tight else 0.08
        out.append(
            spoiled(
                cut_at(
                    img,
                    cx + rng.uniform(-shift, shift) * side,
                    cy + rng.uniform(-shift, shift) * side,
                    side,
                    clf.input_size,
                    rng.uniform(0, 360),
                ),
                rng,
            )
        )
    return out


def shrunk_crop(img, box, clf: FaceClassifier, side: float) -> np.ndarray:
    """The straight crop of the die in ``box`` as the table would cut it were the die
    ``side`` px across: the photo round it scaled down by area and stored again as a JPEG
    (a far die's few pixels carry a camera's compression too). A die no larger is cut as
    it is.

    >>> clf = FaceClassifier("d6", second=False)
    >>> img = np.full((200, 200, 3), 90, np.uint8)
    >>> shrunk_crop(img, (50, 50, 80, 80), clf, 30).shape == (clf.input_size, clf.input_size, 3)
    True
    """
    x, y, w, h = (float(v) for v in box)
    big = max(w, h)
    if side >= big:
        return clf.crop(img, box)
    scale = side / big
    # enough of the photo round the die for the crop's margin at any turn
    reach = big * clf.margin
    x0, y0 = max(int(x + w / 2 - reach), 0), max(int(y + h / 2 - reach), 0)
    x1 = min(math.ceil(x + w / 2 + reach), img.shape[1])
    y1 = min(math.ceil(y + h / 2 + reach), img.shape[0])
    patch = img[y0:y1, x0:x1]
    size = (max(1, round(patch.shape[1] * scale)), max(1, round(patch.shape[0] * scale)))
    small = cv2.resize(patch, size, interpolation=cv2.INTER_AREA)
    jpeg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, SHRINK_JPEG])[1]
    small = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    return clf.crop(small, ((x - x0) * scale, (y - y0) * scale, w * scale, h * scale))


def no_dice_crops(img, labels, clf: FaceClassifier, det_boxes, rng, n: int) -> list[np.ndarray]:
    """``n`` "no die" crops of one photo: detector finds on no labelled die, the tray away
    from the dice, and corners of dice (one pip of a 4 is not a 1)."""
    if not labels or n <= 0:
        return []
    h, w = img.shape[:2]
    med = float(np.median([max(lab.w, lab.h) for lab in labels]))
    centres = np.array([(lab.x + lab.w / 2, lab.y + lab.h / 2) for lab in labels])
    out = []
    for bx, by, bw, bh in det_boxes:
        c = np.array([bx + bw / 2, by + bh / 2])
        if np.min(np.hypot(*(centres - c).T)) > 0.6 * med:
            out.append(clf.crop(img, (bx, by, bw, bh)))
    tries = 0
    while len(out) < n and tries < 40 * n:
        tries += 1
        if rng.random() < 0.55:  # the tray, away from every die
            s = med * rng.uniform(0.7, 1.4)
            c = np.array([rng.uniform(0, w), rng.uniform(0, h)])
            if np.min(np.hypot(*(centres - c).T)) < 0.9 * (med + s) / 2:
                continue
        else:  # a corner or an edge of a die
            lab = labels[int(rng.integers(len(labels)))]
            side = max(lab.w, lab.h)
            s = side * rng.uniform(0.35, 0.6)
            a = rng.uniform(0, 2 * math.pi)
            off = side * rng.uniform(0.45, 0.7)
            c = np.array(
                [lab.x + lab.w / 2 + off * math.cos(a), lab.y + lab.h / 2 + off * math.sin(a)]
            )
        out.append(
            spoiled(
                cut_at(img, c[0], c[1], s * clf.margin, clf.input_size, rng.uniform(0, 360)), rng
            )
        )
    return out[: n + len(det_boxes)]


# --------------------------------------------------------------------------------------------
# what the shipped network says of every crop


@dataclass
class Readings:
    """Every crop of the photos as the shipped network read it: its embedding and answers,
    the photo it came from, its labels (face index, ``none`` for "no die"; die index, -1),
    the die it shows (index into ``Samples.truth``, -1 for none) and its turn (0-3 for the
    straight crop at four turns, ``TURNS`` more for the die shrunk to a small die's size
    (:func:`shrunk_crop`), -1 for the other crops). ``second``: the card's second network's
    reading of each crop, (pooled features, die answers, face answers) per batch, when it is
    heard (the second opinion's head is fitted on it)."""

    emb: list
    die_p: list
    face_p: list
    photo: list
    face_y: list
    die_y: list
    die: list
    turn: list
    second: list

    def arrays(self):
        return (
            np.concatenate(self.emb),
            np.concatenate(self.die_p),
            np.concatenate(self.face_p),
            *(np.asarray(v) for v in (self.photo, self.face_y, self.die_y, self.die, self.turn)),
        )

    def second_arrays(self):
        """(features, die answers, face answers) of every crop by the second network, or
        None when it was not heard."""
        if not self.second:
            return None
        return tuple(np.concatenate(part) for part in zip(*self.second, strict=True))


def read_photos(
    photos: list[Photo], clf: FaceClassifier, det: Detector | None, rng, copies: int, say, second
):
    """Cut and read every crop of every photo (one photo at a time: memory stays small), by
    the ``second`` network too (an onnxruntime session, or None). Returns the readings, the
    dice's truths, the shipped detector's finds in each photo (labelled dice, found, boxes),
    the cells of the detector's views, the pips counted on each die (on its straight crop,
    and on it shrunk) and each die's side in pixels (of the box it is read from)."""
    got = Readings([], [], [], [], [], [], [], [], [])
    truth: list[tuple[str, str]] = []
    none = len(clf.faces)
    found = []
    counted: list[int | None] = []  # the pips counted on each die's crop (vision.pips)
    counted_small: list[int | None] = []  # ... and on it shrunk (``shrunk_crop``)
    sides: list[float] = []
    cells = Cells([], [], [], [], [], [], [], [])
    pending: list = []

    def flush():
        if not pending:
            return
        crops = np.stack([c for c, *_ in pending])
        for i in range(0, len(crops), BATCH):
            die_p, face_p, emb = clf.outputs(crops[i : i + BATCH], zoom=True)
            for j in range(i, min(i + BATCH, len(crops)), SECOND_BATCH) if second else ():
                x = {second.get_inputs()[0].name: to_input(crops[j : j + SECOND_BATCH])}
                die_2, face_2, feats_2 = second.run(["die_prob", "face_prob", "features"], x)
                got.second.append((pooled(feats_2), die_2, face_2))
            got.emb.append(emb)
            got.die_p.append(die_p)
            got.face_p.append(face_p)
        for _, p, fy, dy, d, t in pending:
            got.photo.append(p)
            got.face_y.append(fy)
            got.die_y.append(dy)
            got.die.append(d)
            got.turn.append(t)
        pending.clear()

    for i, photo in enumerate(photos):
        img, photo = photo.decoded()  # (vision.labelled.LabelError: not an image)
        boxes = fine = ()
        if det is not None:
            boxes = det.detect(img).boxes
            fine = det.detect_fine(img).boxes
            found.append((len(photo.labels), matched(photo.labels, fine), len(fine)))
            cells.add(det, img, photo.labels, i, rng)
        # each die is judged on the crop the table reads: cut from the box the detector
        # found for it (a box off the die, cut to a part of a large one, is read wrong at the
        # table too, and the thresholds must know it); from its label when none was found
        seen = [
            box or (lab.x, lab.y, lab.w, lab.h)
            for lab, box in zip(photo.labels, found_boxes(photo.labels, fine), strict=True)
        ]
        for k, (lab, box) in enumerate(zip(photo.labels, seen, strict=True)):
            d = len(truth)
            truth.append((lab.die, lab.face))
            fy, dy = clf.faces.index(lab.face), clf.dice.index(lab.die)
            sides.append(max(box[2], box[3]))
            # the die alone, the other dice painted out, as the table cuts it
            patch = alone(img, box, [b for j, b in enumerate(seen) if j != k])
            own, x0, y0 = patch if patch is not None else (img, 0.0, 0.0)
            box = (box[0] - x0, box[1] - y0, box[2], box[3])
            straight = clf.crop(own, box)
            # the pips as a taught head's reads count them: at the counter's first look
            counted.append(read_pips(straight, again=False).count if clf.pip_faces else None)
            for t, c in enumerate(_turns(straight)):
                pending.append((c, i, fy, dy, d, t))
            shrunk = shrunk_crop(own, box, clf, rng.uniform(*SHRINK_PX))
            counted_small.append(read_pips(shrunk, again=False).count if clf.pip_faces else None)
            for t, c in enumerate(_turns(shrunk)):
                pending.append((c, i, fy, dy, d, TURNS + t))
            moved = replace(lab, x=lab.x - x0, y=lab.y - y0)
            for c in _die_copies(own, moved, clf, rng, copies):
                pending.append((c, i, fy, dy, d, -1))
        n_neg = round(NEG_SHARE * (copies + TURNS) * len(photo.labels)) if det else 0
        for c in no_dice_crops(img, photo.labels, clf, boxes, rng, n_neg):
            pending.append((c, i, none, -1, -1, -1))
        if len(pending) >= 4 * BATCH:
            flush()
        say("reading photos", i + 1, len(photos))
    flush()
    return got, truth, found, cells, (counted, counted_small), sides
