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
