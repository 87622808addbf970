"""A frame's dice read from their boxes by a :class:`~vision.classify.FaceClassifier`.

:func:`read_boxes` crops every box of a frame and reads them in one batch, then checks what
a frame can show and a single crop cannot: a box much smaller or larger than the others
(part of a die, or two dice), a die read again at four turns while the dice lie still (the
readings kept for the dice that have not moved), and a die whose crop may hold a neighbour's
marks, read again on a tight crop. The table's pipeline (``vision.pipeline``) and the lab's
benches read frames through it.

>>> import numpy as np
>>> from vision.classify import FaceClassifier
>>> from vision.faceart import draw_face
>>> from vision.dicesets import load
>>> img = np.full((100, 200, 3), (40, 90, 30), np.uint8)        # green felt
>>> img[20:80, 20:80] = draw_face(load("d6"), "d6", "3", 60)
>>> img[20:80, 120:180] = draw_face(load("d6"), "d6", "6", 60)
>>> boxes = [(20, 20, 60, 60), (120, 20, 60, 60)]
>>> [r.face for r in read_boxes(FaceClassifier("d6"), img, boxes, turns=4)]
['3', '6']
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.classcard import TURNS
from vision.classify import FaceClassifier
from vision.types import CropReading

# Every die read at four turns (photos, and a still tray's dice read again) is read again on
# a crop of TIGHT times its own box, where a neighbour's marks are mostly cut off, and its
# face stands only when the best guess there is the same; a die read once on a still tray,
# when its centre lies within TOUCH of a side (the smaller one) of another box's. Measured
# with taught heads on fresh rendered photos the model card does not score (twelve folders,
# 1,602 dice; Rollers with digits, the starred and the phone d6): of 6 dice read wrong for
# sure, checking touching dice caught 1 (and withdrew 1 read right), checking every die 4
# (and withdrew 10): a neighbour a little further off, or a face seen larger, still changed
# the read. Three wrong reads caught for nine more questions: a wrong read costs a game, a
# question a button press. The shipped models lost no read right to it on the real calibrate
# photos, and 1-2 dice on four rows of the card (models/README.md), none read wrong more. At
# 1.1, one of two touching Rollers dice read wrong stayed wrong.
TOUCH = 1.0
TIGHT = 1.2


def read_boxes(
    clf: FaceClassifier,
    frame_bgr: np.ndarray,
    boxes,
    check_small: float = 0.8,
    check_large: float = 1.3,
    turns: int = 1,
    retry: bool = False,
    held: list | None = None,
) -> list[CropReading]:
    """Crop every box of a frame and classify them with ``clf`` in one batch.

    Dice of one set are all about the same size in a frame. A box clearly smaller than the
    others (under ``check_small`` of their median side) may hold only part of a die (one
    pip of a 4 looks like a 1); one clearly larger (over ``check_large``) may hold two dice
    (two 3s look like a 6). Such a box is read a second time at the median size, in the
    same batch, and its face is kept only when both readings agree. A check given as 0 is
    not made.
    ``retry`` (read once, ``turns`` 1): a die of a usual size that the one read abstained
    on is read again at ``TURNS`` turns, with the thresholds set for that (the camera loop
    does this on still frames: it costs only the dice in doubt); with a second network
    (or a taught head's second opinion), every die of a usual size is, and that reading
    replaces the one read's. ``held``: a list the caller keeps while the dice lie still,
    of (box, reading) of the dice read again so far: a die in the same place is not read
    again (reads at four turns cost most, with a second network over ten times a read
    once); the new ones are added to it.
    Every die read at ``TURNS`` turns, and a die read once on a still tray (``retry``)
    that touches another (:func:`touching`), is read again on a tight crop (``TIGHT``) as
    its reading was made, and its face kept only when both agree. A one read that is never
    scored (a moving frame's; a still tray's that the four turns replace) counts no pips.
    """
    if not boxes:
        return []
    # (the tight check: photos and still trays, ``turns`` over 1 or ``retry``)
    if turns > 1:
        near = set(range(len(boxes)))
    else:
        near = touching(boxes) if len(boxes) >= 2 and retry else set()
    crops = [clf.crop(frame_bgr, b, _apart(clf, boxes, i)) for i, b in enumerate(boxes)]
    sides = [max(b[2], b[3]) for b in boxes]
    again = []
    if len(boxes) >= 2 and (check_small or check_large):
        m = float(np.median(sides))
        for i, (x, y, w, h) in enumerate(boxes):
            if (check_small and sides[i] < check_small * m) or (
                check_large and sides[i] > check_large * m
            ):
                cx, cy = x + w / 2, y + h / 2
                again.append(i)
                crops.append(clf.crop(frame_bgr, (cx - m / 2, cy - m / 2, m, m)))
    # with a second network (or a taught head's second opinion), a still tray is read as a
    # photo is: every die at four turns by both networks, whose reading stands (the one
    # read alone is surer and wrong more often on dice unlike the training photos:
    # docs/vision.md)
    every = retry and turns == 1 and not clf.photos_once and (clf.second or clf.head_has_second)
    read = _read_all(clf, crops, len(boxes), again, turns, retry, every)
    out = read[: len(boxes)]
    for k, i in enumerate(again):
        first, second = out[i], read[len(boxes) + k]
        if first.face is not None and (second.die, second.face) != (first.die, first.face):
            out[i] = replace(first.withdrawn(), confidence=min(first.confidence, second.confidence))
    retried: set[int] = set()
    if retry and turns == 1 and not clf.photos_once:  # (photos_once: the same read)
        doubt = [
            i
            for i, r in enumerate(out)
            if (every or r.face is None) and r.not_a_die <= 0.5 and i not in again
        ]
        known = {i: r for i in doubt if (r := held_at(held, boxes[i])) is not None}
        ask = [i for i in doubt if i not in known]
        again_read = clf.classify([crops[i] for i in ask], TURNS) if ask else []
        again_read = _tight(clf, frame_bgr, boxes, ask, again_read, set(ask), TURNS)
        for i, r in zip(ask, again_read, strict=True):
            known[i] = r
            if held is not None:
                held.append((boxes[i], r))
        for i, r in known.items():
            if r.face is not None or every:
                out[i] = r
                retried.add(i)
    # (a moving camera frame's reads are never scored: ``near`` is empty then)
    stay = [i for i in range(len(boxes)) if i not in retried]
    kept = _tight(clf, frame_bgr, boxes, stay, [out[i] for i in stay], near, turns)
    for i, r in zip(stay, kept, strict=True):
        out[i] = r
    return out


def _read_all(clf: FaceClassifier, crops, n: int, again, turns: int, retry: bool, every: bool):
    """The readings of all ``crops`` (the ``n`` boxes' first, then the median-size crops of
    the boxes ``again``) at ``turns`` turns, for :func:`read_boxes`.

    A one read that is never scored is read quickly, without counting pips (on 10 dice they
    cost about as much as the detector and the classifier together: ``dicetray bench``): a
    moving frame's (rolls are taken from still frames), and a still tray's where ``every``
    die is read again. A taught head whose second opinion must agree reads so without it (no
    face taken). The one reads that stand on a still tray (a box read again at the median
    size, one taken for no die) hear the pips, as any scored read does."""
    quick = turns == 1 and (not retry or every)
    read, best = clf.read_and_guess(crops, turns, quick=quick)
    if every and not clf.head_has_second:
        stand = [i for i, r in enumerate(read) if i >= n or i in again or r.not_a_die > 0.5]
        heard = clf.hear_pips(
            [crops[i] for i in stand], [read[i] for i in stand], [best[i] for i in stand], 1
        )
        for i, r in zip(stand, heard, strict=True):
            read[i] = r
    return read


def touching(boxes) -> set[int]:
    """The boxes ``(x, y, w, h)`` whose centre lies within ``TOUCH`` times the smaller die's
    side (its box's longer side) of another's: dice lying against each other, whose crops
    hold part of the other.

    >>> sorted(touching([(0, 0, 10, 10), (8, 0, 10, 10), (40, 0, 10, 10)]))
    [0, 1]
    """
    c = np.array([(x + w / 2, y + h / 2) for x, y, w, h in boxes], np.float64).reshape(-1, 2)
    side = np.array([max(w, h) for _x, _y, w, h in boxes], np.float64)
    gap = np.hypot(c[:, None, 0] - c[None, :, 0], c[:, None, 1] - c[None, :, 1])
    near = gap < TOUCH * np.minimum(side[:, None], side[None, :])
    np.fill_diagonal(near, False)
    return {int(i) for i in np.flatnonzero(near.any(axis=1))}


def held_at(held: list | None, box) -> CropReading | None:
    """The reading ``held`` keeps for a box in the same place as ``box`` (centres within a
    tenth of its side, sides within a tenth), or None."""
    x, y, w, h = box
    side = max(w, h)
    for (hx, hy, hw, hh), r in held or ():
        near = abs(hx + hw / 2 - x - w / 2) + abs(hy + hh / 2 - y - h / 2) <= 0.1 * side
        if near and abs(max(hw, hh) - side) <= 0.1 * side:
            return r
    return None


def _apart(clf: FaceClassifier, boxes, i: int) -> list:
    """The boxes painted out of the ``i``-th die's crop: for a taught head, every other
    (``vision.teach`` teaches it each die alone, its neighbours painted out: measured,
    Rollers dice with digits taught from 20 rendered photos read 94.2% of fresh dice
    right, against 89.3% with the neighbours' digits left in); none for the shipped
    network, which was trained with them in (real held-out photos read painted out:
    a die or two fewer right a set)."""
    if not clf.taught_head:
        return []
    return [b for k, b in enumerate(boxes) if k != i]


def _tight(clf: FaceClassifier, frame_bgr, boxes, idx, readings, near: set, turns: int) -> list:
    """``readings`` of the boxes ``idx``, each die of ``near`` read for sure withdrawn when
    the best guess on its tight crop (``TIGHT`` times its box) at ``turns`` turns is
    another face (a taught head's own best guess; where that differs, for a head with a
    second opinion, the best guess with the second opinion and the shipped network heard)."""
    check = [k for k, i in enumerate(idx) if i in near and readings[k].face is not None]
    if not check:
        return list(readings)
    # the network reads a tight crop less surely (it learnt dice at the usual margin): its
    # best guess is heard, not whether it is sure of it
    tight_crops = [
        clf.crop(frame_bgr, boxes[idx[k]], _apart(clf, boxes, idx[k]), TIGHT) for k in check
    ]
    tight = clf.read_and_guess(tight_crops, turns, quick=True)[1]
    out = list(readings)
    differ = [j for j, k in enumerate(check) if tight[j] != (out[k].die, out[k].face)]
    if differ and clf.head_has_second:
        # a taught head's read may be the second opinion's and the shipped network's pair
        # (``vision.head.second_opinion``): a tight crop guessed otherwise by the head
        # alone is read again with both heard
        again = clf.read_and_guess([tight_crops[j] for j in differ], turns)[1]
        for j, best in zip(differ, again, strict=True):
            tight[j] = best
    for k, best in zip(check, tight, strict=True):
        if best != (out[k].die, out[k].face):
            out[k] = out[k].withdrawn()
    return out
