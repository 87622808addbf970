"""From a camera frame to what it shows: dice (box, die, face, confidence), hand, motion, empty.

>>> import numpy as np
>>> from vision.dicesets import load
>>> from hardware.sim.render import render_scene
>>> from vision.pipeline import Recognizer
>>> frame, labels = render_scene(load("toss-up"), [("toss", "green"), ("toss", "red")],
...                              np.random.default_rng(2))
>>> reading = Recognizer("toss-up").read(frame)
>>> sorted(d.face for d in reading.dice)
['green', 'red']
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.classify import TURNS, FaceClassifier
from vision.detect import (
    LARGE_W,
    NET_H,
    NET_W,
    Detector,
    camera_shift,
    motion,
    shaken_motion,
)
from vision.dicesets import DiceSet, load
from vision.frameread import held_at, read_boxes
from vision.taught import resolve
from vision.types import DieReading, FrameReading

STILL = 0.05  # motion (percent of the thumbnail changed) under which a frame is still
# A found box the classifier calls "not a die" (a crumb, a reflection) is dropped above these.
# At the table a real die dropped by mistake is a die silently missing from the roll, which
# is scored if the count still fits (measured on rendered trays: at 0.5, 4 of 1339 Rollers
# dice and 9 of 1346 d6 dice dropped; at 0.9, 1 and 2), so the camera path drops only sure
# ones and keeps the others as dice it cannot read, which the table asks about.
NOT_A_DIE_CAMERA = 0.9
NOT_A_DIE_PHOTO = 0.5
# A die whose box is under this many pixels across is found but never read for sure: on the
# held-out real photos, sure reads of dice under 30 px were 1 wrong in 14 (a far, blurred die
# of rune55 i_single read as a 6 at 0.998), against 3 in 1,372 over 30 px. hardware/PI.md
# asks for a camera that sees a die at least 40 px across.
MIN_READ_PX = 24
# A die under SMALL_PX across is read for sure only at the card's threshold of small dice
# (``small``), set by the same bound as the others on small calibration dice alone
# (lab.calibrate.choose_small): far, blurred dice are read wrong more often than near ones (held-out
# real photos once showed 2 wrong in 31 sure reads of 24-40 px dice under 0.98). SMALL_SURE
# stands in when no such threshold was set on what reads (a card without one, a folder taught
# before teaching set one), and holds a box the photo read takes for one huge die
# (a sheet of white paper round one far die was taken for a huge 1 at 0.96).
SMALL_PX = 40
SMALL_SURE = 0.98
PART = 0.6  # photos: a die read inside a large-die candidate under this share of its side
# ... and under this share, a die of its own, not a pip, when it reads as a die showing two
# pips or more and as another face than the candidate: a real die of 32 px in the middle of a
# pale photo pasted on a darker canvas (``lab.smalldice``), 0.07-0.25 of the pale square
# round it, which the first network read as a huge 1 at 0.96-1.0, read as its own face; the
# boxes found on the pips of rendered huge dice (0.24-0.55 of their side) read as 1s or
# as no die
SPECK = 0.3
ODD_ASPECT = 1.7  # photos: a box this oblong, or ODD_SIZE times the median die, is not read
ODD_SIZE = 1.8
LARGE_CHECK = 1.15  # large photos: a box over this many times the median die is read again
# camera: two boxes whose centres are closer than this share of the smaller box's side are not
# two dice lying side by side (two touching dice, each boxed at its side s, or at up to 1.41 s
# when turned 45 degrees, have centres at least s apart: 0.65 x 1.41 s < s)
OVERLAP = 0.65
ACROSS = 1.15  # camera: ... and one box this many times the other's side lies across two


class Recognizer:
    """Reads frames of one dice set: detection, then one batched classifier call.

    Stateful only for motion (it keeps the previous frame's thumbnail). Crops the classifier
    calls ``none`` (not a die: a reflection, a crumb, a finger tip) are dropped, so they never
    count as dice; dice it cannot read are kept with ``face`` None.

    >>> import numpy as np
    >>> rec = Recognizer("d6")
    >>> tray = np.full((480, 640, 3), 90, np.uint8)
    >>> rec.read(tray).empty, rec.read(tray).motion
    (True, 0.0)
    """

    def __init__(
        self,
        dice_set: str | DiceSet = "d6",
        models_dir: Path | str | None = None,
        threshold: float | None = None,
        detector: Detector | None = None,
        taught=None,
        first_light=None,
    ):
        self.dice_set = dice_set if isinstance(dice_set, DiceSet) else load(dice_set)
        # ``first_light``: the empty tray's level (``tray_level``) when the camera was
        # calibrated: frames are then read in the calibration's light (``TrayModel``)
        self.first_light = first_light
        # ``taught``: a taught folder (``dicetray teach``) or TaughtModel for this dice set
        self.taught = resolve(taught, self.dice_set.id)
        self.detector = detector or Detector(models_dir, taught=self.taught)
        self.classifier = FaceClassifier(self.dice_set, models_dir, threshold, self.taught)
        # a box the photo read takes for one huge die, and a camera frame's die under SMALL_PX
        # (a photo's too, by a card calibrated before ``small_joint``), are read by the first
        # network alone: the thresholds and rules for them (the card's ``small``, SMALL_SURE,
        # PART) were set on that network's confidences
        self._whole = self.classifier
        if self.classifier.second:
            self._whole = FaceClassifier(
                self.dice_set, models_dir, threshold, self.taught, second=False
            )
        self.tray = TrayModel(first_light=first_light)
        self._thumb = None
        self._grey = None  # the last camera frame in grey (a shaken camera's shift)
        self._held: list = []  # dice read again at four turns while the tray is still
        self._held_small: list = []  # ... and those under SMALL_PX, by the first network alone

    @property
    def unlike_calibration(self) -> list[float] | None:
        """When a ``first_light`` was given but the tray first seen is over
        ``TrayModel.REFERENCE_OFF`` times off it in some colour (another cloth, a lamp far
        brighter or dimmer, the camera moved), the (B, G, R) ratios of the tray now to the
        calibration's: the dice are then read in the session's own first light. Else None."""
        return self.tray.unlike_calibration

    def reset(self) -> None:
        """Forget the previous frame and the learned tray (after a camera dropout, a new game)."""
        self._thumb = None
        self._grey = None
        self._held, self._held_small = [], []
        self.tray = TrayModel(first_light=self.first_light)

    def read(self, frame_bgr: np.ndarray, fine: bool = False) -> FrameReading:
        """What one BGR frame shows. ``fine``: a still photo, searched also at twice the scale
        for small dice (``Detector.detect_fine``, about ten times slower), each die read at
        four turns."""
        # one downscale serves the detector, the motion measure and the tray model
        small = cv2.resize(frame_bgr, (NET_W, NET_H), interpolation=cv2.INTER_AREA)
        before = self._thumb
        moved, self._thumb = motion(before, small)
        # the dice are found and read in the first light of the session (``TrayModel.lut``);
        # motion and the tray model itself see the frame as it came
        seen, seen_small = frame_bgr, small
        lut = None if fine else self.tray.lut()
        if lut is not None:
            seen, seen_small = cv2.LUT(frame_bgr, lut), cv2.LUT(small, lut)
        found = (self.detector.detect_fine if fine else self.detector.detect)(
            seen, small=seen_small
        )
        # a camera (or table) shaken by a pixel or two moves every die by the same shift: that
        # is taken out, or a trembling camera would keep every frame "moving" and no roll
        # would ever be taken (dicetray eval: rendered throws through camera faults, shake)
        grey = None if fine else cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
        if moved >= STILL and grey is not None:
            shift = camera_shift(self._grey, grey, found.boxes)
            if shift is not None:
                moved = shaken_motion(before, self._thumb, shift, frame_bgr.shape[1])
        self._grey = grey
        if moved >= STILL or not found.boxes:
            # the dice moved or went: what was read of them is gone
            self._held, self._held_small = [], []
        dice = []
        doubted = set()  # boxes kept as dice that the classifier takes more for something else
        # a photo this wide holds dice small for the detector (``LARGE_W``)
        large = fine and frame_bgr.shape[1] >= LARGE_W
        if found.boxes:
            # Boxes far from the median die's size are read again at that size. The camera
            # sees one tray from above (dice all one size): both checks. A photo may show dice
            # at different distances: none, except, in a large photo of three dice or more, a
            # box clearly larger than the others, which may hold two touching dice (a rendered
            # 4032x3024 photo: two overlapping 4s in a box about 1.2 times the median die were
            # read as one 6 at 0.89).
            if not fine:
                checks = {"check_small": 0.8, "check_large": 1.3}
            else:
                checks = {
                    "check_small": 0.0,
                    "check_large": LARGE_CHECK if large and len(found.boxes) >= 3 else 0.0,
                }
            # how the frame's boxes are read, by either network (``held``: the still tray's)
            how = {**checks, "turns": TURNS if fine else 1, "retry": moved < STILL}
            readings = read_boxes(
                self.classifier, seen, found.boxes, **how, held=None if fine else self._held
            )
            tiny = [i for i, b in enumerate(found.boxes) if max(b[2], b[3]) < SMALL_PX]
            # Dice under SMALL_PX are read by both networks at four turns where the card set
            # their threshold on the two's mean (``small_joint``): a photo's, and a still
            # tray's that were read again so (``held``). Real dice left out and shrunk to
            # 32 px: 85.0% of matteop65's read right so, 13.0% by the first network alone
            # (``lab.smalldice``). The others (a moving frame's, one the still tray's read
            # at four turns left out) are read by the first network alone, at its own
            # threshold of small dice.
            joint: set[int] = set()
            if self.classifier.small_joint and (fine or (moved < STILL and self.classifier.second)):
                joint = {i for i in tiny if fine or held_at(self._held, found.boxes[i]) is not None}
            alone = [i for i in tiny if i not in joint]
            if alone and self._whole is not self.classifier and (fine or moved < STILL):
                first = read_boxes(
                    self._whole, seen, found.boxes, **how, held=None if fine else self._held_small
                )
                readings = [first[i] if i in alone else r for i, r in enumerate(readings)]
            drop = NOT_A_DIE_PHOTO if fine else NOT_A_DIE_CAMERA
            # a taught head's thresholds were set on the owner's dice as the table sees them,
            # small ones too (``vision.teach``): a die as large as the teaching dice is read
            # at the head's thresholds, a smaller one at the head's threshold of small dice
            # (set on the teaching dice shrunk; SMALL_SURE for a folder taught before); the
            # shipped networks read small dice at their card's threshold for them
            taught_px = self.taught.small_die_px if self.classifier.taught_head else None
            cuts = {
                False: self._whole.small_threshold(TURNS if fine else 1),
                True: self.classifier.small_threshold(TURNS) if joint else None,
            }
            cuts = {k: SMALL_SURE if c is None else c for k, c in cuts.items()}
            by_pips = self._small_by_pips(seen, found.boxes, readings, joint, cuts[True])
            for i, (box, r) in enumerate(zip(found.boxes, readings, strict=True)):
                if r.not_a_die > drop:
                    continue
                if r.not_a_die > NOT_A_DIE_PHOTO:
                    doubted.add(tuple(box))
                side = max(box[2], box[3])
                taught = taught_px is not None and side >= taught_px
                small_cut = cuts[i in joint]
                sure = side >= SMALL_PX or taught or r.confidence >= small_cut or i in by_pips
                face = r.face if side >= MIN_READ_PX and sure else None
                # not read: the face it most likely shows, offered first to whoever sets it
                guess = (r.face or r.guess) if face is None and side >= MIN_READ_PX else None
                dice.append(DieReading(*box, r.die, face, r.confidence, guess))
        if fine:
            dice = _doubt_odd_boxes(self._huge_dice(frame_bgr, dice), large)
        else:
            dice = _doubt_overlapping(dice)
        # a box the classifier doubts is a die is kept (a die missing from the roll is worse
        # than one asked about), but not as a die to the tray model: where it covers more
        # than a die could (a cup in the tray), the tray is blocked
        boxes = [b for b in ((d.x, d.y, d.w, d.h) for d in dice) if b not in doubted]
        hand = found.hand or self.tray.foreign(
            small, boxes, still=moved < STILL, frame_size=frame_bgr.shape[1::-1]
        )
        return FrameReading(tuple(dice), hand, moved, not dice and not hand)

    def _small_by_pips(self, frame_bgr, boxes, readings, joint: set, small_cut: float) -> set:
        """The dice ``joint`` (under SMALL_PX, read by both networks at four turns) whose face
        is sure although under ``small_cut``: at or over the card's threshold for small dice
        the pips agree with (``FaceClassifier.small_pip_threshold``), and the pips counted,
        looking again, agree."""
        cut = self.classifier.small_pip_threshold() if joint else None
        if cut is None:
            return set()
        idx = [
            i
            for i in sorted(joint)
            if readings[i].face is not None and cut <= readings[i].confidence < small_cut
        ]
        crops = [self.classifier.crop(frame_bgr, boxes[i]) for i in idx]
        pairs = [(readings[i].die, readings[i].face) for i in idx]
        agree = self.classifier.pips_of(crops, pairs, again=True) if idx else []
        return {i for i, a in zip(idx, agree, strict=True) if a}

    def _huge_dice(self, frame_bgr: np.ndarray, dice: list[DieReading]) -> list[DieReading]:
        """Photos: a die too large for the detector (``Detector.huge_candidates``) replaces
        what was found on it when that was no die read for sure (its pips, abstained on or
        called not-a-die) and the classifier reads the large box for sure. Dice read for sure
        under a candidate mean a cluster of dice, and they stand, unless all of them are far
        smaller than it and read alike (parts of it): then the large box read for sure
        replaces them, asked about when the parts read otherwise."""
        for box in self.detector.huge_candidates(frame_bgr):
            x, y, w, h = box
            inside = [d for d in dice if x <= d.centre[0] <= x + w and y <= d.centre[1] <= y + h]
            # dice all far smaller than the candidate, those read for sure read alike: parts of
            # the large die (a corner holding one pip of a 2, read as a 1 at 0.95 in a rendered
            # 4032x3024 photo; two such corners of one 2, each read as a 1) or dice of their
            # own beside others not found
            sure = [d for d in inside if d.face is not None]
            part = len({(d.die, d.face) for d in sure}) == 1 and all(
                max(d.w, d.h) < PART * max(w, h) for d in inside
            )
            if sure and not part:
                continue
            r = read_boxes(self._whole, frame_bgr, [box], check_small=0.0, turns=TURNS)[0]
            if r.face is None or r.not_a_die > 0.5 or r.confidence < SMALL_SURE:
                continue
            if self._die_within(frame_bgr, box, inside, (r.die, r.face)):
                continue
            face = r.face
            if any((r.die, r.face) != (d.die, d.face) for d in sure):
                face = None  # the readings disagree: asked about, never scored
            dice = [d for d in dice if d not in inside] + [
                DieReading(*box, r.die, face, r.confidence, None if face else r.face)
            ]
        return dice

    def _die_within(self, frame_bgr: np.ndarray, box, inside, pair) -> bool:
        """Whether a die found inside a huge-die candidate ``box`` read as ``pair`` is a
        die of its own: far smaller than the candidate (``SPECK``), read as a die (its best
        guess at least even, "not a die" under even) showing another face, of two pips or
        more (a pip of a large die reads as a 1). A pale tray, a sheet of paper or a photo
        round one small die looks like a huge 1."""
        specks = [d for d in inside if max(d.w, d.h) < SPECK * max(box[2], box[3])]
        if not specks:
            return False
        crops = [self._whole.crop(frame_bgr, (d.x, d.y, d.w, d.h)) for d in specks]
        reads, guesses = self._whole.read_and_guess(crops)
        pips = self._whole.pip_faces
        return any(
            g != pair and pips.get(g[1], 0) >= 2 and q.not_a_die < 0.5 and q.confidence >= 0.5
            for g, q in zip(guesses, reads, strict=True)
        )


def _doubt_overlapping(dice: list[DieReading]) -> list[DieReading]:
    """The camera, from above: two dice lying in the tray have centres at least a die's side
    apart. When two boxes' centres are closer than ``OVERLAP`` times the smaller box's side
    and one box is over ``ACROSS`` times the other's side, the larger one lies across the
    other die and a die beside it: it is found but not read for sure (asked about). Measured:
    a rendered d6 1 touching a 4 under a warm lamp, boxed with much of the 4, was read as
    a 4 at 0.993. Two boxes of about one size on one die are left alone: the roll then has a
    die too many, which the table asks about (without the size rule 2 rendered dice in 450 and
    3 real ones in 350 were asked about, all of them read right).

    >>> a = DieReading(296, 406, 30, 31, "d6", "4", 1.0)
    >>> b = DieReading(310, 404, 39, 40, "d6", "4", 0.99)    # across a and the 1 beside it
    >>> [d.face for d in _doubt_overlapping([a, b])]
    ['4', None]
    >>> c = DieReading(330, 406, 30, 31, "d6", "4", 1.0)      # touching a: a die of its own
    >>> [d.face for d in _doubt_overlapping([a, c])]
    ['4', '4']
    >>> twice = DieReading(304, 408, 31, 30, "d6", "4", 0.98)  # a boxed twice: a die too many
    >>> [d.face for d in _doubt_overlapping([a, twice])]
    ['4', '4']
    """
    out = list(dice)
    for i, a in enumerate(dice):
        for j in range(i + 1, len(dice)):
            b = dice[j]
            sides = max(a.w, a.h), max(b.w, b.h)
            gap = float(np.hypot(a.centre[0] - b.centre[0], a.centre[1] - b.centre[1]))
            if gap < OVERLAP * min(sides) and max(sides) > ACROSS * min(sides):
                k = j if sides[1] > sides[0] else i
                out[k] = replace(out[k], die=None, face=None)
    return out


def _doubt_odd_boxes(dice: list[DieReading], large: bool) -> list[DieReading]:
    """Photos: a die whose box is no die's shape is found but not read for sure. A box over
    ODD_ASPECT times as long as wide, or, in a ``large`` photo (``LARGE_W`` wide or more: its
    dice small for the detector) with three dice or more, over ODD_SIZE times the median
    die's side, holds two touching dice or a die and the tray beside it: in rendered
    3024x4032 photos, two touching 1s were read as a 2 at 0.99 and a 2 in a box three times
    its size as a 1. (The size rule is not used on smaller photos: the oblique rune55 photos
    show dice of many sizes, and it cost 8% of i_single's held-out dice, none of them read
    wrong.)"""
    sides = sorted(max(d.w, d.h) for d in dice)
    median = sides[len(sides) // 2] if large and len(dice) >= 3 else None
    out = []
    for d in dice:
        long, short = max(d.w, d.h), max(min(d.w, d.h), 1)
        if d.face is not None and (
            long / short > ODD_ASPECT or (median is not None and long > ODD_SIZE * median)
        ):
            d = replace(d, die=None, face=None)
        out.append(d)
    return out


class TrayModel:
    """What the tray looks like without dice, learned from still frames, to spot a hand.

    Each still frame updates the model where it looks like the model already (slow light
    changes) and outside the dice; a large region unlike the tray that is not a die is a hand
    (or an arm, a cup, a phone): ``foreign`` is True while it covers more than ``share`` of
    the frame. Until the first still frame there is no model and nothing is foreign.

    A light switched on or off changes the whole tray at once, not a region of it. Each frame
    is compared with the model relit by the light's change (per colour, the median ratio of
    frame to model outside the dice, where neither is saturated: a hand covering less than
    half the tray does not move it), so a lamp is no hand. A change too uneven for that (a
    lamp low at one side) that covers over ``wide`` of the tray in ``relearn`` still frames in
    a row is taken as the new look of the tray, not as a hand covering most of it and holding
    still. Before this a lamp switched on mid-game made every later frame show "a hand" and
    no roll was ever taken.

    ``light`` is the tray's light against the first light (of the still frames among the
    first ``SETTLE_FRAMES``), followed in every frame; ``lut`` puts a frame back in the first
    light, so that the dice are found and read as in the light the camera was set for.

    >>> import numpy as np
    >>> tray = TrayModel()
    >>> felt = np.full((480, 640, 3), (40, 90, 30), np.uint8)
    >>> tray.foreign(felt, [], still=True)
    False
    >>> arm = felt.copy(); arm[200:480, 250:400] = (120, 150, 210)
    >>> tray.foreign(arm, [], still=False)
    True
    >>> for _ in range(10):    # the first light: of the first still frames (see SETTLE_FRAMES)
    ...     _ = tray.foreign(felt, [], still=True)
    >>> lamp = (felt * 1.6).astype(np.uint8)     # a lamp switched on: the whole tray brighter
    >>> tray.foreign(lamp, [], still=True), [round(g, 2) for g in tray.light]
    (False, [1.57, 1.59, 1.56])
    >>> sleeve = lamp.copy(); sleeve[250:480, 200:400] = 255   # a white sleeve, saturated
    >>> tray.foreign(sleeve, [], still=False)
    True
    """

    SIZE = (160, 120)
    FLOOR = 2.0  # added to both sides of a ratio: a black tray gives no wild gains
    SATURATED = 250
    BRIGHT = 160
    BALANCE_OFF = 1.08  # a light this far from the first is put back (``lut``)
    BALANCE_RANGE = (0.4, 2.5)  # ... by gains within these
    # the first light is taken from the still frames among the first SETTLE_FRAMES (a camera
    # left on automatic exposure and white balance settles in a few frames after it starts)
    SETTLE_FRAMES = 10
    REFERENCE_OFF = 2.0

    def __init__(
        self,
        share: float = 0.04,
        level: int = 40,
        wide: float = 0.5,
        relearn: int = 3,
        first_light=None,
    ):
        # the calibration's empty tray (``tray_level``): the first light, unless the tray
        # first seen is over REFERENCE_OFF times off it in some colour (another tray, or the
        # camera moved), when the first still frames give the first light as without it
        self.reference = (
            None if first_light is None else np.array(first_light, np.float64) + self.FLOOR
        )
        # the tray first seen was too far off the calibration's to be read in its light: the
        # (B, G, R) ratios of the tray now to the calibration's, for the table to say so
        self.unlike_calibration: list[float] | None = None
        self.share = share
        self.level = level
        self.wide = wide
        self.relearn = relearn
        self.model: np.ndarray | None = None
        self.light = [1.0, 1.0, 1.0]  # the tray's brightness (B, G, R) against the first still
        self._first = None  # frame's: 1.5 = half as bright again
        self._model_light = np.ones(3)  # ... of the model
        self._wide_frames = 0
        self._frames = 0

    def _gain(self, frame: np.ndarray, model: np.ndarray) -> np.ndarray:
        """Per colour, the median ratio of frame to model over the tray's pixels saturated in
        neither (the ratio of the medians where too few are left)."""
        gains = []
        f_all, m_all = frame.astype(np.float32), model.astype(np.float32)
        for c in range(3):
            f, m = f_all[:, c], m_all[:, c]
            ok = (f < self.SATURATED) & (m < self.SATURATED)
            if ok.mean() >= 0.1:
                gains.append(np.median((f[ok] + self.FLOOR) / (m[ok] + self.FLOOR)))
            else:
                gains.append((np.median(f) + self.FLOOR) / (np.median(m) + self.FLOOR))
        return np.array(gains, np.float64)

    def lut(self) -> np.ndarray | None:
        """A lookup table (``cv2.LUT``) that puts a frame back in the light of the first still
        frame, the tray being the grey card, or None while the light is within
        ``BALANCE_OFF`` of it. After calibration the camera's exposure and white balance are
        fixed, and a lamp switched on tints every die: rendered Toss Up! throws under a warm
        lamp switched on mid-throw had 21 of 39 dice asked about and 6 of 20 rolls never taken
        (dice not found under the lamp were taken for a hand); with the dice found and read in
        the first light, 0 of 57 and every roll."""
        light = np.clip(np.array(self.light, np.float32), *self.BALANCE_RANGE)
        if np.all(np.abs(np.log(light)) < np.log(self.BALANCE_OFF)):
            return None
        v = np.arange(256, dtype=np.float32)[:, None]
        lut = np.clip((v + self.FLOOR) / light[None, :] - self.FLOOR + 0.5, 0, 255)
        return lut.astype(np.uint8).reshape(256, 1, 3)

    def _measure_light(self, tray: np.ndarray) -> None:
        level = np.median(self.model[tray], axis=0) + self.FLOOR
        if self._first is None and self.reference is not None:
            off = level / self.reference
            if np.all((off < self.REFERENCE_OFF) & (off > 1 / self.REFERENCE_OFF)):
                self._first = self.reference
            else:
                self.reference = None
                self.unlike_calibration = [round(float(v), 2) for v in off]
        if self.reference is None and (self._first is None or self._frames <= self.SETTLE_FRAMES):
            self._first = level
        self._model_light = level / self._first
        self.light = [float(v) for v in self._model_light]

    def foreign(
        self, frame_bgr: np.ndarray, boxes, still: bool, frame_size: tuple[int, int] | None = None
    ) -> bool:
        """Whether something not a die and not the tray covers the frame. ``frame_bgr`` may be
        a downscaled copy of the frame; ``frame_size`` (w, h) is then the size ``boxes`` are
        in."""
        self._frames += 1
        thumb = cv2.resize(frame_bgr, self.SIZE, interpolation=cv2.INTER_AREA).astype(np.int16)
        w, h = frame_size or frame_bgr.shape[1::-1]
        sx, sy = self.SIZE[0] / w, self.SIZE[1] / h
        dice = np.zeros(thumb.shape[:2], bool)
        for x, y, bw, bh in boxes:
            x0, y0 = int(x * sx) - 1, int(y * sy) - 1
            dice[max(y0, 0) : int((y + bh) * sy) + 2, max(x0, 0) : int((x + bw) * sx) + 2] = True
        if self.model is None:
            if still:
                self.model = thumb
                self._measure_light(~dice)
            return False
        tray = ~dice
        if not tray.any():
            return False
        # measured on every other pixel each way: as robust, a quarter of the work
        grid = tray[::2, ::2]
        if grid.sum() >= 50:
            gain = self._gain(thumb[::2, ::2][grid], self.model[::2, ::2][grid])
        else:
            gain = self._gain(thumb[tray], self.model[tray])
        # the light is followed in every frame, also while the model cannot learn (a hand, or
        # dice the detector misses under a new lamp, which look foreign until the frame is
        # put back in the first light)
        self.light = [float(v) for v in self._model_light * gain]
        g = gain.astype(np.float32)
        relit = (self.model.astype(np.float32) + self.FLOOR) * g - (self.FLOOR - 0.5)
        relit = np.clip(relit, 0, 255).astype(np.int16)
        delta = thumb - relit
        # a saturated pixel says only "at least this": a model pixel saturated under a brighter
        # light is unlike the frame only where the frame is darker than the relit model, and
        # so is a frame pixel saturated where the relit model is bright too (a light tray
        # saturated under a lamp says little of the lamp: rendered d6 throws on a white tray
        # under a cold lamp took some of it for a hand). A white sleeve over a darker tray is
        # still unlike it.
        clipped = (self.model >= self.SATURATED) & (gain < 1.0)
        delta[clipped] = np.minimum(delta[clipped], 0)
        bright = (thumb >= self.SATURATED) & (relit >= self.BRIGHT)
        delta[bright] = np.minimum(delta[bright], 0)
        diff = np.abs(delta).max(axis=2) > self.level
        odd = diff & tray
        odd = cv2.morphologyEx(odd.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        covered = float(odd.mean())
        found = covered > self.share
        if found and still and covered > self.wide * float(tray.mean()):
            self._wide_frames += 1
            if self._wide_frames >= self.relearn:
                # the tray looks new all over and holds still: the light changed unevenly
                self.model = np.where(dice[..., None], relit, thumb).astype(np.int16)
                self._wide_frames = 0
                self._measure_light(tray)
                return False
            return True
        self._wide_frames = 0
        if still and not found:
            self.model = relit
            calm = ~diff & tray
            self.model[calm] = (self.model[calm] * 3 + thumb[calm] + 2) // 4
            # what was saturated, and where a die was taken away (the tray where the model
            # still shows the die): learnt again from this frame
            fresh = (clipped.any(axis=2) & calm) | (diff & tray & ~odd.astype(bool))
            self.model[fresh] = thumb[fresh]
            self._measure_light(tray)
        return found


def tray_level(frame_bgr: np.ndarray) -> list[float]:
    """The median (B, G, R) of an empty tray's frame, as ``TrayModel`` measures its light:
    ``dicetray calibrate --write`` stores it as ``camera.tray_light``, and ``Recognizer``'s
    ``first_light`` takes it.

    >>> import numpy as np
    >>> tray_level(np.full((480, 640, 3), (40, 90, 30), np.uint8))
    [40.0, 90.0, 30.0]
    """
    thumb = cv2.resize(frame_bgr, TrayModel.SIZE, interpolation=cv2.INTER_AREA)
    return [float(v) for v in np.median(thumb.reshape(-1, 3), axis=0)]
