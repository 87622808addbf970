"""Teach the tray the owner's dice from a few labelled photos, in about a minute, no torch.

    dicetray teach FOLDER --dice-set SET --out DIR

``FOLDER`` holds ``images/`` and ``labels.csv`` (``vision.labelled``); ``DIR`` receives a
taught folder (``vision.taught``) that ``--taught DIR`` or the config's ``[vision] taught``
puts to use. What teaching does:

1. every labelled die is cut as the table cuts it for a taught head (the other dice of the
   photo painted out, ``vision.crops.alone``), at four turns, and again shrunk to a small
   die's size (24-40 px), and many times more turned to any angle, shifted, resized, cut
   tight, lighter and darker, blurred; with "no die" crops (the tray between the dice,
   corners of dice, what the detector finds that is no die);
2. the shipped classifier reads every crop once (its answers and its feature map);
3. a head (``vision.head``) is fitted on those readings (and, tried too, on them beside the
   readings of each crop's centre zoomed up, ``vision.head.zoomed``), once per fold of the
   photos, and each die is read by the head that never saw its photo; where the dice set's
   card has a second network, a second head is fitted on its readings alike, and a die is
   read only when both heads name the same face, or the second head and the shipped network
   (or the pips counted) another one (``vision.head.second_opinion``). From those reads the
   abstention thresholds are set (``vision.risk``): the lowest at which the rate of wrong
   reads is bounded, at 95% confidence, by 0.5% (or, with too few dice to show that, by the
   least rate they can show, and then none of them may be read wrong); the dice shrunk set
   alike the threshold of dice smaller than the teaching dice;
4. the head is fitted on every photo and written with its thresholds. It is kept when, on
   the dice it never saw, it reads at least as many right as the shipped models read alone.

Nothing but numpy, OpenCV and onnxruntime is needed, so a Raspberry Pi teaches itself.

    >>> from vision.teach import teach   # doctest: +SKIP
    >>> teach("my-photos", "d6", "my-taught")["heldout"]["face_right"]   # doctest: +SKIP
    0.99
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision import risk
from vision.classify import TIGHT, TURNS, FaceClassifier, model_paths, shipped_second
from vision.crops import alone, crop_matrix, to_input
from vision.detect import Detector
from vision.dicesets import DiceSet, DiceSetError, load
from vision.head import Head, Hearing, best_pair, decide, pooled, second_opinion
from vision.labelled import LabelError, Photo, crops_only, read_folder
from vision.onnx import file_sha256, open_session
from vision.pipeline import MIN_READ_PX, SMALL_PX
from vision.pips import read_pips
from vision.taught import HEAD_FORMAT, TAUGHT_FILE, writing
from vision.teachdet import (
    FOLDS,
    Cells,
    find_figures,
    found_boxes,
    matched,
    photo_folds,
    teach_detector,
)

Progress = Callable[[str, int, int], None]

COPIES = 24  # crops cut of each labelled die besides its four turns ...
CROP_BUDGET = 6000  # ... fewer when the photos hold many dice (at most this many in all)
MIN_COPIES = 6
NEG_SHARE = 0.5  # "no die" crops per die crop
MIN_PER_FACE = 2  # dice each face must show in the photos
MIN_DICE = 40  # fewer labelled dice teach no head: too few to judge one
SMALL_SHARE = 0.05  # the share of the smallest teaching dice not vouched for (small_die_px)
# every teaching die is also cut as the table would cut it this many px across (drawn
# uniformly; the sizes read at the small dice' threshold, vision.pipeline): its photo scaled
# down by area and stored again as a JPEG of this quality. Those shrunk dice teach the head
# too, and set the threshold of dice smaller than the teaching dice (``_choose_small``)
SHRINK_PX = (MIN_READ_PX, SMALL_PX)
SHRINK_JPEG = 85
# the share of a die's copies cut tight (``_die_copies``): the table reads a die again on a
# crop of TIGHT times its box and withdraws its face when the best guess there differs
TIGHT_SHARE = 0.25


# tried in this order; a tie keeps the first, and the first is kept unless another reads this
# share of the dice more (``_choose_hearing``)
SWITCH_GAIN = 0.02
HEARINGS = tuple(
    Hearing(pips, shipped, turns)
    for turns in (True, False)
    for shipped in (True, False)
    for pips in (True, False)
)
# a taught read is never taken below this score, whatever the calibration allows: under one
# half the head itself finds the read likelier wrong than right (with few dice, none of them
# read wrong, the bound would let the threshold fall to the least sure of them)
FLOOR = 0.5
# the pulls of the head's weights towards the shipped answer tried, strongest first: the
# first is kept unless another's head reads more held-out dice right, and not by chance
# (``_choose_pull``). Measured (cross-validated, reads right at the bound): a strong pull
# (1.0) helped the real sources (rune55 i_single 11 -> 35 of 74 dice); a weak one helps dice
# the shipped network reads badly (Rollers with digits, rendered: 89 -> 96 of 100)
PULLS = (1.0, 0.1, 0.01)
# ... another pull is taken only when, of the dice the two heads read differently (one right,
# the other not), so many go its way that a coin would do it less often than this (a sign
# test): a weaker pull gives up the shipped network's hold on the head, and the photos of a
# few dice can't vouch for that (rune55 PXL_phone, 58 dice taught: 45 read right against 43
# at pull 1.0, then 4 of 25 fresh dice read wrong against 2 of 26)
PULL_TEST = 0.05
# the heads tried, (pull, zoomed): each pull on the crop alone, then with its zoomed view
# beside it (``vision.head.ZOOM``; twice the network's work per read at the table, so only
# where it reads more, by the same test)
VIEWS = tuple((pull, zoom) for zoom in (False, True) for pull in PULLS)
BATCH = 256  # crops the shipped network reads at once
SECOND_BATCH = 32  # ... and its second network (larger: its memory grows with the batch)


class TeachError(ValueError):
    """Teaching can't start or finish: one line saying what is wrong and what to do."""


def copies_for(n_dice: int) -> int:
    """Crops cut of each of ``n_dice`` labelled dice besides its four turns.

    >>> copies_for(100), copies_for(308), copies_for(5000)
    (24, 19, 6)
    """
    return min(COPIES, max(MIN_COPIES, CROP_BUDGET // max(n_dice, 1)))


# --------------------------------------------------------------------------------------------
# crops


def _cut(img, cx: float, cy: float, side: float, size: int, angle: float = 0.0) -> np.ndarray:
    return cv2.warpAffine(
        img,
        crop_matrix(cx, cy, side, size, angle),
        (size, size),
        flags=cv2.INTER_AREA if side > 2 * size else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def _spoil(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
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
    tight, as the table cuts a die to check its read (``vision.classify.TIGHT``) from a box
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
            _spoil(
                _cut(
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


def _shrunk(img, box, clf: FaceClassifier, side: float) -> np.ndarray:
    """The straight crop of the die in ``box`` as the table would cut it were the die
    ``side`` px across: the photo round it scaled down by area and stored again as a JPEG
    (a far die's few pixels carry a camera's compression too). A die no larger is cut as
    it is.

    >>> clf = FaceClassifier("d6", second=False)
    >>> img = np.full((200, 200, 3), 90, np.uint8)
    >>> _shrunk(img, (50, 50, 80, 80), clf, 30).shape == (clf.input_size, clf.input_size, 3)
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


def _no_dice(img, labels, clf: FaceClassifier, det_boxes, rng, n: int) -> list[np.ndarray]:
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
            _spoil(_cut(img, c[0], c[1], s * clf.margin, clf.input_size, rng.uniform(0, 360)), rng)
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
    (:func:`_shrunk`), -1 for the other crops). ``second``: the card's second network's
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


def _read_photos(
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
    counted_small: list[int | None] = []  # ... and on it shrunk (``_shrunk``)
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
        try:
            img, photo = photo.decoded()
        except LabelError as exc:
            raise TeachError(str(exc)) from None
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
            shrunk = _shrunk(own, box, clf, rng.uniform(*SHRINK_PX))
            counted_small.append(read_pips(shrunk, again=False).count if clf.pip_faces else None)
            for t, c in enumerate(_turns(shrunk)):
                pending.append((c, i, fy, dy, d, TURNS + t))
            moved = replace(lab, x=lab.x - x0, y=lab.y - y0)
            for c in _die_copies(own, moved, clf, rng, copies):
                pending.append((c, i, fy, dy, d, -1))
        n_neg = round(NEG_SHARE * (copies + TURNS) * len(photo.labels)) if det else 0
        for c in _no_dice(img, photo.labels, clf, boxes, rng, n_neg):
            pending.append((c, i, none, -1, -1, -1))
        if len(pending) >= 4 * BATCH:
            flush()
        say("reading photos", i + 1, len(photos))
    flush()
    return got, truth, found, cells, (counted, counted_small), sides


# --------------------------------------------------------------------------------------------
# cross-validation and thresholds


def _fit(arrays, rows, pull: float, zoom: bool = False) -> Head:
    """A head fitted on the crops ``rows``; ``zoom``: on their zoomed views too (every crop
    was embedded both ways, its own embedding first)."""
    emb, die_p, face_p, _photo, face_y, die_y, _die, _turn = arrays
    e = emb[rows] if zoom else emb[rows, : emb.shape[1] // 2]
    return Head.fit(e, die_p[rows], face_p[rows], face_y[rows], die_y[rows], pull, zoom=zoom)


def _cross_validate(
    arrays,
    folds,
    die_photo,
    clf,
    counted,
    view: tuple[float, bool],
    tick,
    second=None,
    opinions: dict | None = None,
) -> tuple[dict, dict]:
    """Each die read by a head (``view``: pulled by its pull, zoomed or not, see ``VIEWS``)
    fitted without its fold's photos, in
    each way of hearing (``HEARINGS``): {hearing: {turns: [(best pair, score) per die]}},
    as it is and shrunk to a small die's size (``counted``: the pips counted on each, see
    :func:`_read_photos`); with ``second`` (:meth:`Readings.second_arrays`), the second
    opinion's head, fitted alike, heard too (:func:`vision.head.second_opinion`); its reads
    are kept in ``opinions`` by fold and pull (the zoomed and the plain views share them).
    ``tick(f)`` is called when fold ``f`` is done."""
    photo_of = arrays[3]
    n = len(die_photo)
    opinions = {} if opinions is None else opinions
    heard = {h: {1: [None] * n, TURNS: [None] * n} for h in HEARINGS}
    heard_small = {h: {1: [None] * n, TURNS: [None] * n} for h in HEARINGS}
    for f, fold in enumerate(folds):
        rows = np.flatnonzero(~np.isin(photo_of, fold))
        head = _fit(arrays, rows, *view)
        dice = [d for d in range(n) if die_photo[d] in fold]
        if second is not None and (f, view[0]) not in opinions:
            head2 = _fit_second(second, arrays, rows, view[0])
            opinions[f, view[0]] = [
                _opinions(head2, second, arrays, dice, s) for s in (False, True)
            ]
        for shrunk, into in ((False, heard), (True, heard_small)):
            opinion = opinions[f, view[0]][shrunk] if second is not None else None
            probs = _head_reads(head, arrays, dice, shrunk)
            for hearing, reads in into.items():
                got = _probe_reads(probs, clf, dice, counted[shrunk], hearing)
                for turns in (1, TURNS):
                    for j, (d, (pair, score)) in enumerate(zip(dice, got[turns], strict=True)):
                        if opinion is not None:
                            sd, sf = probs[j][2][:turns], probs[j][3][:turns]
                            pair, score = second_opinion(
                                pair,
                                score,
                                *opinion[turns][j],
                                clf.pairs,
                                (sd.mean(0), sf.mean(0)) if hearing.shipped else None,
                                clf.pip_opinion(counted[shrunk][d]) if hearing.pips else None,
                            )
                        reads[turns][d] = (pair, score)
        tick(f)
    return heard, heard_small


def _straight(arrays, shrunk: bool = False) -> np.ndarray:
    """The rows of each die's four straight turns, upright first: dice x ``TURNS``; of the
    die shrunk to a small die's size with ``shrunk``."""
    die, turn = arrays[6], arrays[7]
    first = TURNS if shrunk else 0
    rows = np.flatnonzero((turn >= first) & (turn < first + TURNS))
    return rows[np.lexsort((turn[rows], die[rows]))].reshape(-1, TURNS)


def _fit_second(second, arrays, rows, pull: float) -> Head:
    """The second opinion's head: fitted as :func:`_fit` fits the first, on the second
    network's features and answers."""
    feats, die_p, face_p = second
    face_y, die_y = arrays[4], arrays[5]
    return Head.fit(feats[rows], die_p[rows], face_p[rows], face_y[rows], die_y[rows], pull)


def _opinions(head: Head, second, arrays, dice: list[int], shrunk: bool = False) -> dict:
    """The second opinion's probabilities of each of ``dice`` as the table hears them, read
    once (the upright turn) and at four turns (their mean): {turns: [(die_p, face_p)]};
    of the dice shrunk with ``shrunk``."""
    feats, die_p, face_p = second
    straight = _straight(arrays, shrunk)
    out: dict = {1: [], TURNS: []}
    for d in dice:
        rows = straight[d]
        dp, fp = head.proba_embedded(feats[rows], die_p[rows], face_p[rows])
        for turns in (1, TURNS):
            out[turns].append((dp[:turns].mean(0), fp[:turns].mean(0)))
    return out


def _choose_pull(tried: list, truth, against=None):
    """Of ``tried`` ((pull, hearing's choice) in ``PULLS`` order), the first unless another
    head reads more held-out dice right at its thresholds, and the dice it and ``against``
    (the first, unless given) read differently go its way beyond chance (``PULL_TEST``); of
    several such, the one that reads most (the first on a tie)."""
    first = _right(tried[0], truth)
    base = first if against is None else _right(against, truth)
    best, most = tried[0], len(first)
    for t in tried[1:]:
        r = _right(t, truth)
        if len(r) > most and risk.sign_test(len(r - base), len(base - r)) <= PULL_TEST:
            best, most = t, len(r)
    return best


def _right(t, truth) -> set[int]:
    """The dice a head's choice ``t`` ((view, hearing's choice)) reads right at four turns."""
    reads, photo = t[1][1][TURNS], t[1][2]
    return {
        d
        for d, ((pair, score), want) in enumerate(zip(reads, truth, strict=True))
        if score >= photo.threshold and pair == want
    }


def _choose_view(tried: list, truth):
    """Of ``tried`` ((view, hearing's choice) in ``VIEWS`` order): the zoomed heads when the
    most any of them reads right beats the plain heads' most by ``SWITCH_GAIN`` of the dice
    and 2 dice at least (as a hearing is chosen: a die or so is chance, and the zoomed view
    doubles the table's work), else the plain ones; of those, the pull ``_choose_pull``
    chooses, a weaker one tested against the strongest plain head (the shipped network's
    hold on it, as the plain pulls are)."""
    most = {z: max(len(_right(t, truth)) for t in tried if t[0][1] == z) for z in (False, True)}
    zoom = most[True] - most[False] >= max(2, SWITCH_GAIN * len(truth))
    return _choose_pull([t for t in tried if t[0][1] == zoom], truth, against=tried[0])


def _head_reads(head: Head | None, arrays, dice: list[int], shrunk: bool = False) -> list:
    """Each of ``dice`` (shrunk, with ``shrunk``) at its four straight turns as ``head`` (None:
    the shipped network) and the shipped network read it: [(head's die_p, face_p, shipped
    die_p, face_p)], each turns x classes."""
    emb, die_p, face_p = arrays[:3]
    straight = _straight(arrays, shrunk)
    out = []
    for d in dice:
        rows = straight[d]
        sd, sf = die_p[rows], face_p[rows]
        if head is None:
            td, tf = sd, sf
        else:
            td, tf = head.proba_embedded(emb[rows, : len(head.mean)], sd, sf)
        out.append((td, tf, sd, sf))
    return out


def _probe_reads(probs: list, clf, dice: list[int], counted, hearing: Hearing = HEARINGS[0]):
    """The dice ``dice`` read from their four straight turns (``probs``: :func:`_head_reads`;
    ``counted``: the pips counted on each die): for each path (1: the camera's one read,
    TURNS: a photo's four) a list of (best pair, score) by ``decide``, heard as ``hearing``
    says (the pips counted on each die's crop, the shipped network, the turns)."""
    out = {1: [], TURNS: []}
    for d, (td, tf, sd, sf) in zip(dice, probs, strict=True):
        for turns in (1, TURNS):
            out[turns].append(
                decide(
                    td[:turns],
                    tf[:turns],
                    sd[:turns],
                    sf[:turns],
                    clf.pairs,
                    clf.pip_opinion(counted[d]) if hearing.pips else None,
                    heed=hearing.shipped,
                    doubt_turns=hearing.turns,
                )
            )
    return out


def _tally(answers, truth) -> dict:
    """Figures of answers (a (die, face) pair, or None: asked) against the truth."""
    right = sum(a == t for a, t in zip(answers, truth, strict=True) if a is not None)
    wrong = sum(a is not None for a in answers) - right
    n = max(len(truth), 1)
    return {
        "dice": len(truth),
        "face_right": round(right / n, 4),
        "abstained": round((len(truth) - right - wrong) / n, 4),
        "wrong": round(wrong / n, 4),
        "wrong_count": wrong,
    }


def _camera_answers(reads, t1: float, t4: float) -> list:
    """What the table's camera loop answers: a die read once, and when that is in doubt on
    a still frame, read again at four turns (``FaceClassifier.read_boxes(retry=True)``)."""
    out = []
    for (p1, s1), (p4, s4) in zip(reads[1], reads[TURNS], strict=True):
        out.append(p1 if s1 >= t1 else p4 if s4 >= t4 else None)
    return out


def _choose_camera(reads, truth, t4: float, alpha: float, delta: float) -> risk.Choice:
    """The threshold of one read, the four-turn read behind it at ``t4``, tested from the
    surest one-turn read down (``vision.risk.choose_sequence``)."""
    steps = []
    for t1 in [risk.NEVER, *sorted({s for _, s in reads[1] if s >= FLOOR}, reverse=True)]:
        answers = _camera_answers(reads, t1, t4)
        read = sum(a is not None for a in answers)
        steps.append(
            (t1, read, sum(a is not None and a != t for a, t in zip(answers, truth, strict=True)))
        )
    return risk.choose_sequence(steps, len(truth), alpha, delta, lowest=FLOOR)


def _choose_hearing(heard: dict, truth, alpha: float, delta: float):
    """How the taught head scores a die (``HEARINGS``), chosen on the cross-validated reads
    ``heard[hearing]``: the one that reads most dice right at its thresholds (all keep the
    same bound on wrong reads), the first on a tie; the first of all (every opinion heard)
    unless another reads ``SWITCH_GAIN`` of the dice more, and 2 dice at least (a gain of a
    die or so is chance, and choosing on chance spends the bound on it). An owner's dice
    whose marks the pip counter misreads (digits for pips, a logo) would otherwise be asked
    about on every such face; dice the shipped network reads wrong for sure would have the
    head's word discounted; digits that look like other digits turned would be doubted at
    every turn. Returns (hearing, its reads, photo threshold, camera threshold)."""
    tried = []
    for hearing in HEARINGS:
        reads = heard[hearing]
        wrong4 = [p != t for (p, _), t in zip(reads[TURNS], truth, strict=True)]
        photo = risk.choose(
            [sc for _, sc in reads[TURNS]], wrong4, alpha, delta, FLOOR, lowest=True
        )
        camera = _choose_camera(reads, truth, photo.threshold, alpha, delta)
        tried.append((photo.read - photo.wrong, hearing, reads, photo, camera))
    best = max(tried, key=lambda t: t[0])  # the first of the best
    if best[0] < tried[0][0] + max(2, SWITCH_GAIN * len(truth)):
        best = tried[0]
    return best[1:]


def _shipped_reads(
    clf: FaceClassifier, arrays, truth, counted, shrunk: bool = False, second=None
) -> dict:
    """The shipped models alone on the same dice (shrunk, with ``shrunk``), at their own
    thresholds, with the pips counted heard as at the table (``FaceClassifier.read_outputs``);
    with ``second`` (:meth:`Readings.second_arrays`), a read only where the second network's
    own answer (its mean over the same turns) names the same pair, as the table backs a head:
    ``{1: read once, TURNS: read at four turns, "camera": as the camera loop reads (once; in
    doubt, at four turns), "no_die": whether the read once calls it no die (then the camera
    loop reads it no more), "sure": {1: ..., TURNS: ...} the confidence of each read}``, the
    reads a (die, face) pair or None per die."""
    die_p, face_p = arrays[1:3]
    straight = _straight(arrays, shrunk)
    out: dict = {1: [], TURNS: [], "camera": [], "no_die": [], "sure": {1: [], TURNS: []}}
    for d in range(len(truth)):
        rows = straight[d]
        for turns in (1, TURNS):
            r = clf.read_outputs(die_p[rows], face_p[rows], turns, counted[d])
            pair = (r.die, r.face) if r.face is not None else None
            if pair is not None and second is not None:
                named, _q = best_pair(
                    second[1][rows[:turns]].mean(0), second[2][rows[:turns]].mean(0), clf.pairs
                )
                if named != pair:
                    pair = None
            out[turns].append(pair)
            out["sure"][turns].append(float(r.confidence))
            if turns == 1:
                out["no_die"].append(r.not_a_die > 0.5)
        once, four = out[1][-1], out[TURNS][-1]
        out["camera"].append(once if once is not None or out["no_die"][-1] else four)
    return out


def _first(*answers):
    """The first answer that reads the die (None when none does)."""
    return next((a for a in answers if a is not None), None)


def _backing(reads, t4: float, t1: float, shipped: dict, truth) -> tuple[bool, dict]:
    """Whether the shipped models back the taught head (a die the head does not read is taken
    from the shipped models when they read it, as the table does under ``shipped_backs``),
    and the cross-validated answers of the reader the table will run: ``{"photo": ...,
    "camera": ...}``. They back it when they read none of the dice of the teaching photos
    wrong, on either path: dice unlike their drawing (a logo on the 6, digits for pips) that
    they read wrong for sure are then never taken from them."""
    head4 = [p if sc >= t4 else None for p, sc in reads[TURNS]]
    head_cam = _camera_answers(reads, t1, t4)
    back4 = [_first(h, sh) for h, sh in zip(head4, shipped[TURNS], strict=True)]
    # the camera loop: once (the head, then the shipped models), and a die neither read
    # once is read at four turns (the head, then the shipped models) unless called no die
    back_cam = [
        _first(p if sc >= t1 else None, s1, *((None, None) if no_die else (h4, s4)))
        for (p, sc), s1, h4, s4, no_die in zip(
            reads[1], shipped[1], head4, shipped[TURNS], shipped["no_die"], strict=True
        )
    ]
    backs = all(_tally(shipped[path], truth)["wrong_count"] == 0 for path in (TURNS, "camera"))
    if backs:
        return True, {"photo": back4, "camera": back_cam}
    return False, {"photo": head4, "camera": head_cam}


def _small_answers(reads, t1: float, t4: float, shipped: dict, backs: bool, once: bool) -> list:
    """What the table answers of each die before the rule of small dice: (pair, the
    confidence the rule weighs) or None. The head's read at its thresholds, else the shipped
    models' when they back it; ``once``: the camera loop without a second opinion (a die
    read once, then at four turns when neither read it; see :func:`_backing`)."""
    head4 = [(p, sc) if sc >= t4 else None for p, sc in reads[TURNS]]
    ship4 = [
        (p, sc) if p is not None and backs else None
        for p, sc in zip(shipped[TURNS], shipped["sure"][TURNS], strict=True)
    ]
    if not once:
        return [_first(h, s) for h, s in zip(head4, ship4, strict=True)]
    out = []
    for (p, sc), s1, sc1, h4, s4, no_die in zip(
        reads[1], shipped[1], shipped["sure"][1], head4, ship4, shipped["no_die"], strict=True
    ):
        first = (p, sc) if sc >= t1 else (s1, sc1) if s1 is not None and backs else None
        out.append(_first(first, *((None, None) if no_die else (h4, s4))))
    return out


def _choose_small(answers, truth, alpha: float, delta: float) -> risk.Choice:
    """The threshold of dice under the teaching dice's size: the least confidence at which
    the table's answers of the teaching dice shrunk (:func:`_small_answers`) keep the bound,
    tested from the surest down as the others are (the table reads a die at most as low as
    the head's own thresholds allow, so lower candidates read no more)."""
    conf = [a[1] if a is not None else 0.0 for a in answers]
    wrong = [a is not None and a[0] != t for a, t in zip(answers, truth, strict=True)]
    return risk.choose(conf, wrong, alpha, delta, FLOOR, lowest=True)


def _heldout_figures(reads, answers: dict, shipped: dict, truth) -> dict:
    """The cross-validated figures ``taught.json`` keeps: the taught reader's (``answers``),
    its best guesses', and the shipped models' alone on the same dice, for photos (four
    turns) and for the camera loop (``camera_path``)."""

    def best(turns: int) -> float:
        right = sum(p == t for (p, _), t in zip(reads[turns], truth, strict=True))
        return round(right / len(truth), 4)

    return {
        **_tally(answers["photo"], truth),
        "best_guess_right": best(TURNS),
        "shipped_models": _tally(shipped[TURNS], truth),
        "camera_path": {
            **_tally(answers["camera"], truth),
            "best_guess_right": best(1),
            "shipped_models": _tally(shipped["camera"], truth),
        },
    }


def _keeps(heldout: dict) -> bool:
    """Whether the head is kept: on the dice it never saw it reads at least as many right as
    the shipped models, as photos are read and as the camera reads."""
    cam = heldout["camera_path"]
    return (
        heldout["face_right"] >= heldout["shipped_models"]["face_right"]
        and cam["face_right"] >= cam["shipped_models"]["face_right"]
    )


# --------------------------------------------------------------------------------------------
# teaching


def check_input(photos: list[Photo], ds: DiceSet, out: Path) -> None:
    """TeachError when the photos cannot teach ``ds`` into ``out``: ``out`` a file or a folder
    of other files, or a face of the set shown on fewer than ``MIN_PER_FACE`` dice."""
    if out.exists() and not out.is_dir():
        raise TeachError(f"{out} is a file: --out must be a folder (it is made if missing)")
    if out.exists() and any(out.iterdir()) and not (out / TAUGHT_FILE).exists():
        raise TeachError(f"{out} holds other files: give an empty or a taught folder")
    seen = Counter(lab.face for p in photos for lab in p.labels)
    thin = [f for f in ds.face_ids if seen[f] < MIN_PER_FACE]
    if thin:
        raise TeachError(
            "the photos show "
            + ", ".join(f"face {f!r} {seen[f]} time{'s' * (seen[f] != 1)}" for f in thin)
            + f": every face of the {ds.id} set needs at least {MIN_PER_FACE} dice in the "
            "photos (a face never shown is not learned): add photos showing it"
        )


def teach(
    folder: Path | str,
    dice_set: str | DiceSet,
    out: Path | str,
    progress: Progress | None = None,
    seed: int = 0,
    alpha: float = risk.ALPHA,
    delta: float = risk.DELTA,
) -> dict:
    """Teach ``dice_set`` from the labelled photo ``folder``; write the taught folder ``out``.

    ``progress(stage, done, total)`` is called as the work advances. Returns the record saved
    in ``out/taught.json``. Raises :class:`TeachError` for bad input, before anything is
    written."""
    started = time.monotonic()
    say = progress or (lambda stage, done, total: None)
    try:
        ds = dice_set if isinstance(dice_set, DiceSet) else load(dice_set)
        photos = read_folder(folder, ds)
    except (LabelError, DiceSetError) as exc:
        raise TeachError(str(exc)) from None
    out = Path(out)
    check_input(photos, ds, out)
    rng = np.random.default_rng(seed)
    clf = FaceClassifier(ds, second=False)  # teaching judges the shipped network alone
    # ... and a second opinion, on the card's second network where it has one
    second_at = shipped_second(ds.id, clf.meta)
    session = open_session(second_at) if second_at is not None else None
    only_crops = crops_only(photos)
    det = None if only_crops else Detector()
    n_dice = sum(len(p.labels) for p in photos)
    copies = copies_for(n_dice)
    readings, truth, found, cells, counted, sides = _read_photos(
        photos, clf, det, rng, copies, say, session
    )
    arrays = readings.arrays()
    second = readings.second_arrays()
    photo_of = arrays[3]
    k = min(FOLDS, len(photos)) if len(photos) >= 2 and n_dice >= MIN_DICE else 0
    steps = k * len(VIEWS) + 1
    die_photo = np.full(len(truth), -1)
    die_photo[arrays[6][arrays[6] >= 0]] = photo_of[arrays[6] >= 0]
    heldout: dict = {"photos": len(photos), "dice": n_dice}
    if found:
        heldout["found"], heldout["precision"] = find_figures(found)
    thresholds, keep, view = {}, False, VIEWS[0]
    if k:
        # each die read by heads fitted without its photo, in each view (pull, zoom), in
        # each way of hearing the pips, the shipped network and the turns
        folds, tried, shrunk, opinions = photo_folds(len(photos), rng), [], {}, {}
        for i, v in enumerate(VIEWS):
            heard, shrunk[v] = _cross_validate(
                arrays,
                folds,
                die_photo,
                clf,
                counted,
                v,
                lambda f, before=i * k: say("teaching", before + f + 1, steps),
                second,
                opinions,
            )
            tried.append((v, _choose_hearing(heard, truth, alpha, delta)))
        view, (hearing, reads, photo, camera) = _choose_view(tried, truth)
        heldout["views_tried"] = {
            f"pull {p}" + (", zoomed" if z else ""): {
                "right": c[2].read - c[2].wrong,
                "wrong": c[2].wrong,
            }
            for (p, z), c in tried
        }
        shipped = _shipped_reads(clf, arrays, truth, counted[0], second=second)
        backs, answers = _backing(reads, photo.threshold, camera.threshold, shipped, truth)
        # dice smaller than the teaching dice: the threshold the same dice keep shrunk
        shipped_small = _shipped_reads(clf, arrays, truth, counted[1], shrunk=True, second=second)
        small, small_answers = {"px": list(SHRINK_PX)}, {}
        for path, once in (("photo", False), ("camera", second_at is None)):
            small_answers[path] = _small_answers(
                shrunk[view][hearing],
                camera.threshold,
                photo.threshold,
                shipped_small,
                backs,
                once,
            )
            small[path] = _choose_small(small_answers[path], truth, alpha, delta).to_json()
        thresholds = {
            "camera": camera.to_json(),
            "photo": photo.to_json(),
            **hearing.cuts(),
            "shipped_backs": backs,
            "small": small,
        }
        if second_at is not None:
            # the table reads a still tray's dice as a photo's, every one at four turns with
            # both heads (a moving frame's read once, by the first head alone, takes no face)
            answers["camera"] = answers["photo"]
            thresholds["second_opinion"] = {
                "network": second_at.name,
                "sha256": clf.meta["joint"]["sha256"],  # (shipped_second checked the file)
            }
        heldout.update(_heldout_figures(reads, answers, shipped, truth))
        cut = small["photo"]["threshold"]
        heldout["shrunk"] = _tally(
            [a[0] if a is not None and a[1] >= cut else None for a in small_answers["photo"]],
            truth,
        )
        keep = _keeps(heldout)
        heldout["method"] = (
            f"cross-validation: {k} folds of the photos, each die read by a head fitted "
            f"without its photo; pull towards the shipped answer {view[0]} (of "
            f"{list(PULLS)}), {'with' if view[1] else 'without'} the zoomed view"
            + (f"; a second opinion heard, a head on {second_at.name}" if second_at else "")
        )
    if not k:
        heldout["kept_shipped_models"] = (
            f"the photos hold {n_dice} dice: too few to judge a taught head (it needs "
            f"{MIN_DICE} at least, in 2 photos or more), so the taught folder reads with the "
            "shipped classifier; take more photos, several dice in each, and teach again"
        )
    elif not keep:
        heldout["kept_shipped_models"] = (
            "the taught head read fewer of the dice it never saw than the shipped models, so "
            "the taught folder reads with the shipped classifier; take more photos (every "
            "face of every die, your own tray and light) and teach again"
        )
    # the new folder is written beside ``out`` and takes its place whole at the end: a
    # teaching stopped part way (an error, a cancel, the power) leaves the old one as it was
    with writing(out) as stage:
        names = []
        if keep:
            head = _fit(arrays, np.arange(len(photo_of)), *view)
            name = f"head-{ds.id}.npz"
            head.save(stage / name)
            names.append(name)
            if second is not None:
                name = f"head-{ds.id}-second.npz"
                _fit_second(second, arrays, np.arange(len(photo_of)), view[0]).save(stage / name)
                names.append(name)
        det_cut = None
        if det is not None:
            det_head, heldout["detector"] = teach_detector(det, photos, found, cells, rng, say)
            if det_head is not None:
                det_head.save(stage / "detector-head.npz")
                names.append("detector-head.npz")
                det_cut = {"threshold": heldout["detector"]["taught"]["threshold"]}
        say("teaching", steps, steps)
        faces_seen = Counter(f"{lab.die}:{lab.face}" for p in photos for lab in p.labels)
        record = {
            "format": HEAD_FORMAT,
            "dice_set": ds.id,
            "models": names,
            "taught_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "taught_with": {
                "folder": Path(folder).name,
                "photos": len(photos),
                "folds": k,
                "dice": n_dice,
                "faces": dict(sorted(faces_seen.items())),
                "crops_only": only_crops,
                "crops_per_die": copies + TURNS,
                "pull": view[0] if keep else None,
                "zoom": view[1] if keep else None,
                "second_opinion": second is not None and keep,
                # the head's thresholds hold for dice this large or larger, under 40 px too
                # (vision.pipeline); the smallest 5% of the teaching dice are left out
                "small_die_px": int(np.percentile(sides, SMALL_SHARE * 100)) if sides else None,
                "seed": seed,
            },
            "base_models": {
                "classifier": file_sha256(model_paths(ds.id)[0]),
                **({"detector": file_sha256(det.path)} if det is not None else {}),
            },
            "thresholds": {"classifier": thresholds if keep else None, "detector": det_cut},
            "heldout": heldout,
            "seconds": round(time.monotonic() - started, 1),
        }
        (stage / TAUGHT_FILE).write_text(json.dumps(record, indent=1), encoding="utf-8")
    return record


# --------------------------------------------------------------------------------------------
# command line

USAGE = """Teach the tray your own dice and tray from labelled photos, in about a minute.

FOLDER holds images/ and labels.csv, one row per die: file,split,x,y,w,h,value[,die]
(x,y,w,h: the die's box in pixels; value: the face's name in the dice set, e.g. 6, (200),
x2; die: the die's name for sets of several dice). 14-25 photos showing every face of every
die a few times, 40 dice or more in all, are enough. `dicetray calibrate --teach` takes
such photos at the table for you.

Use the taught folder with --taught DIR (recognize, eval, calibrate, play, demo) or
`taught = "DIR"` under [vision] in the config. --deep fine-tunes the networks with torch
instead (the train extra; much slower)."""


def main(argv: list[str] | None = None) -> int:
    """``dicetray teach FOLDER --dice-set SET --out DIR``."""
    import argparse
    import sys

    from tqdm import tqdm

    p = argparse.ArgumentParser(
        prog="dicetray teach",
        description=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("folder", help="labelled photos: images/ + labels.csv")
    p.add_argument("--dice-set", required=True, help="d6, tally-up, toss-up, rollers or a file")
    p.add_argument("--out", required=True, help="the taught folder to write")
    p.add_argument("--seed", type=int, default=0, help="the seed of the crops' variations")
    p.add_argument("--json", action="store_true", help="print the record as JSON")
    p.add_argument("--deep", action="store_true", help="fine-tune with torch (train extra)")
    args = p.parse_args(argv)
    bars: list = []

    def progress(stage: str, done: int, total: int) -> None:
        if not bars:
            bars.append(tqdm(total=total, unit="step", file=sys.stderr, dynamic_ncols=True))
        bar = bars[0]
        bar.total, bar.n = total, done
        bar.set_description(stage)
        bar.refresh()

    try:
        record = teach(args.folder, args.dice_set, args.out, progress, args.seed)
    except TeachError as exc:
        for bar in bars:
            bar.close()
        print(f"dicetray teach: {exc}", file=sys.stderr)
        return 2
    for bar in bars:
        bar.close()
    if args.json:
        print(json.dumps(record, indent=1))
        return 0
    for line in summary(record, args.out):
        print(line)
    return 0


def summary(record: dict, out) -> list[str]:
    """Teaching's record in a few lines for the owner."""
    h, w = record["heldout"], record["taught_with"]
    lines = [
        (
            f"taught {record['dice_set']} from {w['photos']} photos ({w['dice']} dice) in "
            f"{record['seconds']} s -> {out}"
        )
    ]
    if "found" in h:
        lines.append(
            f"the shipped detector found {h['found']:.1%} of the photos' dice "
            f"({h['precision']:.1%} of its finds were dice)"
        )
    if "face_right" in h:
        cut = record["thresholds"]["classifier"] or {}
        bound = (cut.get("photo") or {}).get("wrong_rate_bound")
        lines.append(
            f"each die read by a head that never saw its photo: right {h['face_right']:.1%}, "
            f"asked {h['abstained']:.1%}, wrong {h['wrong_count']} of {h['dice']}"
            + (f" (wrong reads bounded by {bound:.1%} at 95% confidence)" if bound else "")
        )
        s = h["shipped_models"]
        lines.append(
            f"the shipped models on the same dice: right {s['face_right']:.1%}, asked "
            f"{s['abstained']:.1%}, wrong {s['wrong_count']}"
        )
        if bound and bound > risk.ALPHA + 1e-9:
            lines.append(
                f"{h['dice']} dice cannot show a wrong-read rate under {bound:.1%}; about "
                f"{risk.dice_needed()} dice in all can show {risk.ALPHA:.1%}: with more photos "
                "the table asks about fewer dice"
            )
        heard = Hearing.from_cuts(cut)
        if not heard.pips:
            lines.append(
                "the pip counter misread these dice's marks, so the taught reader does not "
                "listen to it"
            )
        if not heard.turns:
            lines.append(
                "these dice's marks look like other faces turned, so the taught reader does "
                "not doubt a die that one turn reads as another face"
            )
        if not heard.shipped:
            lines.append(
                "the shipped classifier misread these dice, so the taught reader does not "
                "weigh its opinion"
            )
        if w.get("zoom"):
            lines.append(
                "these dice's marks are read better up close, so the taught reader also looks "
                "at each die's top face zoomed in (twice the network's work a read)"
            )
        if cut.get("second_opinion"):
            lines.append(
                "a second head, taught on the shipped second network, must read a die the "
                "same before the table takes the read"
            )
    if h.get("kept_shipped_models"):
        lines.append(h["kept_shipped_models"])
    return lines
