"""Photos of any aspect ratio get the boxes a 4:3 photo gets (issue 34).

The labelled real photos held in fixtures/realdice (640x480 webcam frames of the matteop65
set, MIT, see ATTRIBUTION.md there) are cut to a square, an upright 3:4 and an 8:3 panorama
round each labelled die, and each cut is read as ``dicetray recognize`` finds dice
(``Detector.detect_fine``). Squeezed into the network's 4:3 input, or searched at another
scale, such a cut's dice got oblong boxes or boxes of a pip (IoU 0.05 with the die).
"""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np
import pytest

from lab.labels import matteop65_die_side
from vision.detect import Detector, _iou, _same_die, canvas_size, letterbox

ROOT = Path(__file__).resolve().parent.parent
PHOTOS = ROOT / "fixtures" / "realdice"
CUTS = {"4:3": (640, 480), "square": (480, 480), "upright 3:4": (360, 480), "panorama": (640, 240)}


def _labelled_dice():
    """(photo, die box) of each labelled die: the label covers the top face's pips only, so
    the die box is the square round it that the detector is trained to find."""
    with open(PHOTOS / "labels.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    out = []
    for r in rows:
        x, y, w, h = (float(r[k]) for k in ("x", "y", "w", "h"))
        side = matteop65_die_side(w, h, int(r["value"]))
        out.append((r["file"], (x + w / 2 - side / 2, y + h / 2 - side / 2, side, side)))
    return out


@pytest.fixture(scope="module")
def detector():
    return Detector()


@pytest.mark.parametrize("cut", list(CUTS))
def test_each_labelled_die_gets_its_box_in_a_cut_of_any_shape(detector, cut):
    cw, ch = CUTS[cut]
    dice = _labelled_dice()
    assert len(dice) == 5
    for file, (x, y, s, _) in dice:
        img = cv2.imread(str(PHOTOS / file), cv2.IMREAD_COLOR)
        assert img.shape[:2] == (480, 640)
        # the cut, centred on the die as far as the photo allows
        x0 = int(min(max(x + s / 2 - cw / 2, 0), 640 - cw))
        y0 = int(min(max(y + s / 2 - ch / 2, 0), 480 - ch))
        photo = np.ascontiguousarray(img[y0 : y0 + ch, x0 : x0 + cw])
        # the die box in the cut, as far as it shows (a die at the photo's top edge)
        bx0, by0 = max(x - x0, 0), max(y - y0, 0)
        bx1, by1 = min(x + s - x0, cw), min(y + s - y0, ch)
        assert bx1 - bx0 > 0.6 * s and by1 - by0 > 0.6 * s
        die = (bx0, by0, bx1 - bx0, by1 - by0)
        found = detector.detect_fine(photo).boxes
        box = max(found, key=lambda b: _iou(b, die), default=None)
        assert box is not None and _iou(box, die) >= 0.6, (file, cut, die, found)
        # one box for the die: no other box centred on it
        on_it = [b for b in found if _same_die(b, die)]
        assert on_it == [box], (file, cut, die, found)
        # seen from above a die is square: its box too, as in the 4:3 photo
        aspect = (box[2] / box[3]) / (die[2] / die[3])
        assert 0.8 <= aspect <= 1.25, (file, cut, die, box)


def test_a_photo_is_read_in_the_smallest_4_3_frame_that_holds_it():
    assert canvas_size(640, 480) == (640, 480)
    assert canvas_size(4032, 3024) == (4032, 3024)
    assert canvas_size(642, 480) == (642, 480)  # within 1% of 4:3: read as it is
    assert canvas_size(480, 480) == (640, 480)
    assert canvas_size(3024, 4032) == (5376, 4032)
    assert canvas_size(1200, 300) == (1200, 900)
    photo = np.zeros((300, 500, 3), np.uint8)
    photo[:, :250] = 200
    canvas, ox, oy = letterbox(photo)
    assert canvas.shape[:2] == (375, 500) and (ox, oy) == (0, 37)
    assert np.array_equal(canvas[oy : oy + 300, ox : ox + 500], photo)
    # the bands repeat the photo's edge: no edge of its own for the detector to take for a die
    assert np.array_equal(canvas[:oy], np.repeat(photo[:1], oy, axis=0))
    square = np.full((480, 480, 3), 90, np.uint8)
    assert letterbox(np.zeros((480, 640, 3), np.uint8))[1:] == (0, 0)
    assert letterbox(square)[0].shape == (480, 640, 3)


def test_detect_letterboxes_a_frame_that_is_not_4_3(detector):
    """The one-pass ``detect`` too: a square cut of a photo gets the 4:3 photo's boxes, moved."""
    img = cv2.imread(str(PHOTOS / "matteop65_valid_10.jpg"), cv2.IMREAD_COLOR)
    whole = detector.detect(img)
    cut = detector.detect(np.ascontiguousarray(img[:, 160:]))
    assert len(whole.boxes) >= 2
    for x, y, w, h in whole.boxes:
        if x >= 160:
            moved = (x - 160, y, w, h)
            assert max(_iou(moved, b) for b in cut.boxes) >= 0.8
    assert all(b[0] >= 0 and b[0] + b[2] <= 480 for b in cut.boxes)
