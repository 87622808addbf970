"""From a camera frame to what it shows: dice (box, die, face, confidence), hand, motion, empty.

>>> import numpy as np
>>> from vision.dicesets import load
>>> from vision.render import render_scene
>>> from vision.pipeline import Recognizer
>>> frame, labels = render_scene(load("toss-up"), [("toss", "green"), ("toss", "red")],
...                              np.random.default_rng(2))
>>> reading = Recognizer("toss-up").read(frame)
>>> sorted(d.face for d in reading.dice)
['green', 'red']
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.classify import FaceClassifier
from vision.detect import Detector, motion
from vision.dicesets import DiceSet, load
from vision.types import DieReading, FrameReading


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

    def __init__(self, dice_set: str | DiceSet = "d6", models_dir: Path | str | None = None,
                 threshold: float | None = None, detector: Detector | None = None):
        self.dice_set = dice_set if isinstance(dice_set, DiceSet) else load(dice_set)
        self.detector = detector or Detector(models_dir)
        self.classifier = FaceClassifier(self.dice_set, models_dir, threshold)
        self._thumb = None

    def reset(self) -> None:
        """Forget the previous frame (after a camera dropout or a new game)."""
        self._thumb = None

    def read(self, frame_bgr: np.ndarray) -> FrameReading:
        """What one BGR frame shows."""
        moved, self._thumb = motion(self._thumb, frame_bgr)
        found = self.detector.detect(frame_bgr)
        dice = []
        if found.boxes:
            readings = self.classifier.read_boxes(frame_bgr, found.boxes)
            for box, r in zip(found.boxes, readings):
                if r.not_a_die > 0.5:
                    continue
                dice.append(DieReading(*box, r.die, r.face, r.confidence))
        return FrameReading(tuple(dice), found.hand, moved, not dice and not found.hand)
