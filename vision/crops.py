"""Cutting die crops from frames: the one way the classifier's input is made.

    >>> import numpy as np
    >>> from vision.crops import cut_crop
    >>> frame = np.zeros((480, 640, 3), np.uint8)
    >>> cut_crop(frame, (300, 200, 40, 40)).shape
    (48, 48, 3)

``cut_crop`` takes a square of ``CROP_MARGIN`` times the longer box side around the box centre
(the frame edge is repeated where the square leaves the frame) and resizes it to
``INPUT_SIZE``. The box is the die outline as a detector finds it. Training (the ``lab``
package) cuts its crops with the same function, so the table and training never differ.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

INPUT_SIZE = 48  # model input side in pixels
CROP_MARGIN = 1.35  # crop side = CROP_MARGIN * longer side of the die box
NONE_CLASS = "none"  # extra face class: "this crop is not a readable die"

# --------------------------------------------------------------------------------------------
# cutting crops


def crop_matrix(
    cx: float, cy: float, side: float, size: int = INPUT_SIZE, angle_deg: float = 0.0
) -> np.ndarray:
    """The 2x3 affine matrix mapping a square of ``side`` px centred on (cx, cy) to size x size.

    ``angle_deg`` turns the square (training augmentation); 0 for the running pipeline.

    >>> (crop_matrix(100, 100, 48, 48).round(3) + 0.0).tolist()
    [[1.0, 0.0, -76.0], [0.0, 1.0, -76.0]]
    """
    s = size / float(side)
    a = math.radians(angle_deg)
    c, si = math.cos(a) * s, math.sin(a) * s
    half = size / 2.0
    # out = R*S*(p - centre) + half
    return np.array(
        [[c, si, half - c * cx - si * cy], [-si, c, half + si * cx - c * cy]], dtype=np.float64
    )


def cut_crop(
    frame_bgr: np.ndarray, box, size: int = INPUT_SIZE, margin: float = CROP_MARGIN
) -> np.ndarray:
    """Cut the classifier crop for one die box ``(x, y, w, h)`` from a BGR frame.

    Returns a ``size`` x ``size`` x 3 uint8 BGR image: a square of ``margin`` times the longer
    box side centred on the box centre, the frame edge repeated outside the frame.

    >>> import numpy as np
    >>> int(cut_crop(np.full((10, 10, 3), 7, np.uint8), (0, 0, 4, 4), size=8).max())
    7
    """
    x, y, w, h = (float(v) for v in box)
    side = max(w, h, 1.0) * margin
    # shrinking a lot: cut at twice the size, then average down, so that the resampling does
    # not alias pips away (cheaper than blurring the frame)
    if side > 2 * size:
        big = cv2.warpAffine(
            frame_bgr,
            crop_matrix(x + w / 2.0, y + h / 2.0, side, 2 * size),
            (2 * size, 2 * size),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        return cv2.resize(big, (size, size), interpolation=cv2.INTER_AREA)
    return cv2.warpAffine(
        frame_bgr,
        crop_matrix(x + w / 2.0, y + h / 2.0, side, size),
        (size, size),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def to_input(crops_bgr) -> np.ndarray:
    """Stack uint8 BGR crops (N x S x S x 3 or a list) into the model input: float32 N x 3 x S x S.

    Values are scaled to 0..1 here; the model itself centres them.
    """
    arr = np.asarray(crops_bgr)
    if arr.ndim == 3:
        arr = arr[None]
    return np.ascontiguousarray(arr.transpose(0, 3, 1, 2), dtype=np.float32) / np.float32(255.0)


ALONE_REACH = 1.2  # the photo round a die that ``alone`` keeps, in die sides from its centre
# ... and the boxes it paints out: a neighbour's is about as large as the die's (dice of one
# set, one distance), within this ratio, and overlaps it by at most this share of the smaller
# box. A box far smaller or larger, or lying over the die, is a part of it (a pip, a face cut
# in two) or a box round several dice: painted out, it took marks of the die itself (a real
# 3 whose box held part of it, a pip boxed beside it, read as a 1)
ALONE_SIZE = 1.5
ALONE_OVERLAP = 0.4
FILL_SAMPLES = 256  # tray pixels (evenly spaced) whose median colour paints a neighbour out


def alone(
    frame_bgr: np.ndarray, box, others, reach: float = ALONE_REACH
) -> tuple[np.ndarray, float, float] | None:
    """The photo round the die in ``box`` with the other dice painted out: every pixel in
    one of the ``others`` boxes and not in ``box`` takes the median colour of the pixels in
    no box (the tray), so that a crop of the die holds no neighbour's marks. Only boxes of
    a neighbour are painted (``ALONE_SIZE``, ``ALONE_OVERLAP``). The patch reaches ``reach``
    die sides from the die's centre (enough for a crop turned to any angle by default).
    Returns (the patch, its x and y in the frame), or None when no such box comes near.

    >>> import numpy as np
    >>> frame = np.full((100, 100, 3), 50, np.uint8)
    >>> frame[40:60, 45:65] = 200   # a neighbour beside the die at (20, 40)
    >>> patch, x0, y0 = alone(frame, (20, 40, 20, 20), [(45, 40, 20, 20)])
    >>> (x0, y0), int(patch[50 - 26, 50 - 6].max()), int(frame[50, 50].max())
    ((6.0, 26.0), 50, 200)
    >>> alone(frame, (20, 40, 20, 20), [(90, 90, 5, 5)]) is None   # too far
    True
    >>> alone(frame, (20, 40, 20, 20), [(45, 40, 8, 8), (15, 30, 60, 60)]) is None  # no die's
    True
    """
    x, y, w, h = (float(v) for v in box)
    reach = max(w, h) * reach
    cx, cy = x + w / 2, y + h / 2
    fh, fw = frame_bgr.shape[:2]
    x0, y0 = max(math.floor(cx - reach), 0), max(math.floor(cy - reach), 0)
    x1, y1 = min(math.ceil(cx + reach), fw), min(math.ceil(cy + reach), fh)
    side = max(w, h, 1.0)

    def neighbour(ox, oy, ow, oh) -> bool:
        if not (ox < x1 and ox + ow > x0 and oy < y1 and oy + oh > y0):
            return False
        if not 1 / ALONE_SIZE <= max(ow, oh) / side <= ALONE_SIZE:
            return False
        cut = max(min(x + w, ox + ow) - max(x, ox), 0) * max(min(y + h, oy + oh) - max(y, oy), 0)
        return cut <= ALONE_OVERLAP * min(w * h, ow * oh)

    near = [o for o in (tuple(float(v) for v in b) for b in others) if neighbour(*o)]
    if not near or x1 <= x0 or y1 <= y0:
        return None
    patch = frame_bgr[y0:y1, x0:x1].copy()
    ph, pw = patch.shape[:2]

    def rect(bx, by, bw, bh):
        return (
            min(max(round(bx - x0), 0), pw),
            min(max(round(by - y0), 0), ph),
            min(max(round(bx + bw - x0), 0), pw),
            min(max(round(by + bh - y0), 0), ph),
        )

    own = np.zeros((ph, pw), bool)
    ax, ay, bx, by = rect(x, y, w, h)
    own[ay:by, ax:bx] = True
    other = np.zeros((ph, pw), bool)
    for o in near:
        ax, ay, bx, by = rect(*o)
        other[ay:by, ax:bx] = True
    paint = other & ~own
    if not paint.any():
        return None
    tray = patch[~(own | other)]
    if len(tray) < FILL_SAMPLES // 8:
        tray = patch.reshape(-1, 3)
    fill = np.median(tray[:: max(len(tray) // FILL_SAMPLES, 1)], axis=0)
    patch[paint] = fill.astype(np.uint8)
    return patch, float(x0), float(y0)
