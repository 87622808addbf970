"""Find every die in a frame, and tell whether a hand is in the tray, with a tiny ONNX net.

The detector (``models/detector.onnx``) is a small fully-convolutional network in the spirit
of CenterNet: on a 320x240 copy of the 640x480 frame it outputs, at stride 4 (80x60 cells),
a heatmap of die centres, the die box's width and height (log-scale), and a hand/arm mask.
Dice are the local maxima of the heatmap (3x3 max-pool NMS), so dice touching each other
stay apart as long as their centres do. The frame's motion is measured on a small grey
thumbnail against the previous frame.

Box sizes are learned in pixels of a 640x480 frame and scaled to the frame given, so photos of
any size get boxes in their own pixels. For still photos ``Detector.detect_fine`` also reads
the frame in overlapping half-size tiles (every die seen twice as large) and merges them: dice
of 15-25 px that the one-pass detector misses at 320x240 are found (``dicetray recognize``
does this; the camera loop does not, for speed).

>>> import numpy as np
>>> from vision.dicesets import load
>>> from hardware.sim.render import render_scene
>>> from vision.detect import Detector
>>> frame, labels = render_scene(load("d6"), [("d6", "2"), ("d6", "6")], np.random.default_rng(5))
>>> found = Detector().detect(frame)
>>> len(found.boxes), found.hand
(2, False)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.dethead import DetectorHead
from vision.onnx import MODELS_DIR, file_sha256, open_session
from vision.taught import TaughtError

NET_W, NET_H = 320, 240  # network input
STRIDE = 4  # output cell size in network pixels
SIZE_UNIT = 16.0  # box sizes are regressed as log(size / SIZE_UNIT), frame pixels
FRAME_W, FRAME_H = 640, 480  # the frame size the box sizes are learned in (any other is scaled)
LARGE_W = 1.5 * FRAME_W  # photos this wide or wider hold dice small for the frame pass
REFINE_PX = 48.0  # ... whose boxes are placed again where a die is this size in a view
REFINE_MAX = 64.0  # ... and the largest first guess that is placed again
HUGE = 75.0  # photos: dice over HUGE x shrink px are looked for shrunk 2 and 4 x
# ... shrunk 2 x, from 50 x 2 px: a die of 100-150 px of a 640x480 view, which the frame pass
# may find only in part (a 2 of a rendered 4032x3024 photo: a corner with one pip, read as a 1)
HUGE_FROM = {2: 50.0, 4: HUGE}


# large photos far from 4:3: the share of a 4:3 window its neighbour overlaps (a die found is at
# most a fifth of the window's width, 0.27 of its height, so every die is whole in one)
WINDOW_OVERLAP = 0.35
SQUEEZE_OK = 0.01  # a frame within 1% of 4:3 is read as it is; any other is letterboxed
WINDOWS_FROM = 1.4  # ... a large photo this far from 4:3, its dice small, is read in windows


def canvas_size(w: int, h: int) -> tuple[int, int]:
    """The 4:3 frame a ``w`` x ``h`` photo is read in: the photo itself when it is 4:3 (within
    ``SQUEEZE_OK``), else the smallest 4:3 frame that holds it, so a crop of a 4:3 photo is
    read at the scale of the photo it was cut from.

    >>> canvas_size(640, 480), canvas_size(480, 480), canvas_size(360, 480), canvas_size(640, 240)
    ((640, 480), (640, 480), (640, 480), (640, 480))
    """
    if abs(w * 3 / (h * 4) - 1) <= SQUEEZE_OK:
        return w, h
    return max(w, round(h * 4 / 3)), max(h, round(w * 3 / 4))


def letterbox(frame_bgr: np.ndarray) -> tuple[np.ndarray, int, int]:
    """(the frame centred in its ``canvas_size``, x and y offset of the frame in it), so no
    die is squeezed. The bands round it repeat its edge pixels: filled with one flat colour
    instead, the photo's edge against them was taken for dice (rune55 PXL_phone, 28 square
    photos: 57 false boxes at the edge, against 6). A 4:3 frame is returned as it is."""
    h, w = frame_bgr.shape[:2]
    cw, ch = canvas_size(w, h)
    if (cw, ch) == (w, h):
        return frame_bgr, 0, 0
    ox, oy = (cw - w) // 2, (ch - h) // 2
    canvas = cv2.copyMakeBorder(frame_bgr, oy, ch - h - oy, ox, cw - w - ox, cv2.BORDER_REPLICATE)
    return canvas, ox, oy


def _unbox(
    found: Detections, ox: int, oy: int, w: int, h: int, canvas_area: float, hand_at: float
) -> Detections:
    """``found`` in a letterboxed canvas (``letterbox``) moved back into the ``w`` x ``h``
    frame: boxes whose centre lies outside the frame are dropped, the others clipped to it,
    and the hand's share taken of the frame rather than the canvas (a hand from
    ``hand_at``)."""
    boxes, scores = [], []
    for (x, y, bw, bh), sc in zip(found.boxes, found.scores, strict=True):
        x, y = x - ox, y - oy
        if not (0 <= x + bw / 2 < w and 0 <= y + bh / 2 < h):
            continue
        x0, y0 = max(x, 0), max(y, 0)
        x1, y1 = min(x + bw, w), min(y + bh, h)
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        boxes.append((x0, y0, x1 - x0, y1 - y0))
        scores.append(sc)
    share = min(1.0, found.hand_share * canvas_area / (w * h))
    return Detections(tuple(boxes), tuple(scores), share >= hand_at, share)


def _starts(length: int, window: int, overlap: float) -> list[int]:
    """Where windows of ``window`` px overlapping by ``overlap`` start along ``length``."""
    if window >= length:
        return [0]
    step = window * (1 - overlap)
    return sorted(
        {
            round(min(i * step, length - window))
            for i in range(int(np.ceil((length - window) / step)) + 1)
        }
    )


def _tile_starts(start: int, length: int, frame: int, tile: float, overlap: float) -> list[int]:
    """Where tiles of ``tile`` px start along a frame of ``frame`` px to cover the photo that
    lies from ``start`` over ``length`` px of it (the whole frame, or a letterboxed photo):
    over the photo when it is longer than a tile, else one tile centred on it."""
    if length >= tile:
        return [start + s for s in _starts(length, tile, overlap)]
    return [round(min(max(start + (length - tile) / 2, 0), frame - tile))]


def _same_die(a, b) -> bool:
    """Two boxes of one die: the centre of either lies inside the other."""
    return (b[0] <= a[0] + a[2] / 2 <= b[0] + b[2] and b[1] <= a[1] + a[3] / 2 <= b[1] + b[3]) or (
        a[0] <= b[0] + b[2] / 2 <= a[0] + a[2] and a[1] <= b[1] + b[3] / 2 <= a[1] + a[3]
    )


@dataclass(frozen=True)
class Detections:
    """Dice boxes (x, y, w, h in frame pixels), their scores, and the hand flag of one frame."""

    boxes: tuple[tuple[int, int, int, int], ...]
    scores: tuple[float, ...]
    hand: bool
    hand_share: float


def preprocess(frame_bgr: np.ndarray) -> np.ndarray:
    """The network input for a BGR frame of any size: 1 x 3 x 240 x 320 float32, 0..1."""
    small = (
        frame_bgr
        if frame_bgr.shape[:2] == (NET_H, NET_W)
        else cv2.resize(frame_bgr, (NET_W, NET_H), interpolation=cv2.INTER_AREA)
    )
    return np.ascontiguousarray(small.transpose(2, 0, 1)[None], dtype=np.float32) / 255.0


def decode(
    heat: np.ndarray,
    size: np.ndarray,
    frame_w: int,
    frame_h: int,
    threshold: float = 0.35,
    max_dice: int = 40,
):
    """Boxes and scores from the heatmap (H x W, 0..1) and size maps (2 x H x W)."""
    pooled = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    peaks = np.argwhere((heat >= pooled) & (heat >= threshold))
    if len(peaks) == 0:
        return [], []
    scores = heat[peaks[:, 0], peaks[:, 1]]
    order = np.argsort(-scores)
    sx = frame_w / (heat.shape[1] * STRIDE) * STRIDE
    sy = frame_h / (heat.shape[0] * STRIDE) * STRIDE
    boxes, out_scores = [], []
    for k in order:
        if len(boxes) >= max_dice:
            break
        r, c = peaks[k]
        # sub-cell centre from the neighbours' heat
        c0, c1 = max(c - 1, 0), min(c + 1, heat.shape[1] - 1)
        r0, r1 = max(r - 1, 0), min(r + 1, heat.shape[0] - 1)
        patch = heat[r0 : r1 + 1, c0 : c1 + 1]
        ys, xs = np.mgrid[r0 : r1 + 1, c0 : c1 + 1]
        wsum = float(patch.sum()) or 1.0
        cy = (float((ys * patch).sum()) / wsum + 0.5) * sy
        cx = (float((xs * patch).sum()) / wsum + 0.5) * sx
        # sizes are learned in pixels of a 640x480 frame: scale them to this frame
        w = float(np.exp(size[0, r, c])) * SIZE_UNIT * frame_w / FRAME_W
        h = float(np.exp(size[1, r, c])) * SIZE_UNIT * frame_h / FRAME_H
        x0 = round(max(0.0, cx - w / 2))
        y0 = round(max(0.0, cy - h / 2))
        x1 = round(min(float(frame_w), cx + w / 2))
        y1 = round(min(float(frame_h), cy + h / 2))
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        # one die, one box: a weaker peak whose box mostly covers a surer one's, or whose
        # centre is closer to a surer one's than 0.4 of the larger box side (two maxima on
        # one large die, or a pip cluster of it), is that same die. The centres of touching
        # dice are a die side apart (0.7 of the box side when turned 45 degrees).
        side = max(x1 - x0, y1 - y0)
        if any(
            _iou((x0, y0, x1 - x0, y1 - y0), b) > 0.45
            or math.hypot(cx - b[0] - b[2] / 2, cy - b[1] - b[3] / 2) < 0.4 * max(side, b[2], b[3])
            for b in boxes
        ):
            continue
        boxes.append((x0, y0, x1 - x0, y1 - y0))
        out_scores.append(float(scores[k]))
    return boxes, out_scores


def _iou(a, b) -> float:
    """Intersection over union of two (x, y, w, h) boxes."""
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / max(a[2] * a[3] + b[2] * b[3] - inter, 1e-6)


class Detector:
    """Die boxes and the hand flag of 640x480 BGR frames (any size works; boxes in its pixels).

    ``threshold``: the least heatmap score of a die (default: stored with the model).

    >>> import numpy as np
    >>> det = Detector()
    >>> found = det.detect(np.full((480, 640, 3), 90, np.uint8))   # an empty grey tray
    >>> found.boxes, found.hand
    ((), False)
    """

    def __init__(
        self, models_dir: Path | str | None = None, threshold: float | None = None, taught=None
    ):
        # ``taught``: a TaughtModel (vision.taught) whose fine-tuned detector replaces this one
        if taught is not None and taught.detector_dir is not None:
            models_dir = taught.detector_dir
        base = Path(models_dir) if models_dir else MODELS_DIR
        path = base / "detector.onnx"
        if not path.exists():
            raise FileNotFoundError(
                f"no detector model at {path}: run `python -m lab.train_detector`"
            )
        meta_path = base / "detector.json"
        self.meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        self.threshold = float(self.meta.get("threshold", 0.35) if threshold is None else threshold)
        self.hand_threshold = float(self.meta.get("hand_share", 0.04))
        self.path = path
        self._session = open_session(path)
        self._input = self._session.get_inputs()[0].name
        # a taught detector head (``dicetray teach``): heat and size from the shipped features
        self.head: DetectorHead | None = None
        if taught is not None and getattr(taught, "detector_head", None) is not None:
            self._load_head(taught)

    def _load_head(self, taught) -> None:
        record = taught.meta
        if record.get("base_models", {}).get("detector") != file_sha256(self.path):
            self.stale = (
                f"the shipped detector has changed since {taught.folder} was taught: its "
                "taught detector head no longer fits it, so the shipped detector finds the "
                "dice; teach again (`dicetray teach`)"
            )
            return
        try:
            self.head = DetectorHead.load(taught.detector_head)
            self.threshold = float(record["thresholds"]["detector"]["threshold"])
        except (KeyError, TypeError, ValueError) as exc:
            raise TaughtError(
                f"{taught.folder}: its detector head is damaged ({exc}): teach it again "
                "with `dicetray teach`"
            ) from None

    stale: str | None = None  # why a taught detector head is set aside, else None

    def _tile_dice(self, frame_bgr: np.ndarray, overlap: float, region=None) -> list:
        """(box, score) of the dice found in overlapping tiles of half the frame each (so read
        at twice the scale), in frame pixels. ``region`` (x, y, w, h): where the photo lies in
        a letterboxed frame; the tiles cover it, and its edges are the frame's."""
        fh, fw = frame_bgr.shape[:2]
        rx, ry, w, h = region or (0, 0, fw, fh)
        tw, th = fw / 2.0, fh / 2.0
        xs, ys = _tile_starts(rx, w, fw, tw, overlap), _tile_starts(ry, h, fh, th, overlap)
        out = []
        for y0 in ys:
            for x0 in xs:
                tile = frame_bgr[y0 : y0 + int(th), x0 : x0 + int(tw)]
                heat, size, _hand = self.maps(tile)
                boxes, scores = decode(heat, size, tile.shape[1], tile.shape[0], self.threshold)
                for (bx, by, bw, bh), sc in zip(boxes, scores, strict=True):
                    # a die cut by the tile's edge is left to the tile that holds it whole;
                    # a large one to the whole-frame pass (twice its size is beyond training)
                    if (
                        max(bw, bh) > 0.2 * tile.shape[1]
                        or (bx <= 1 and x0 > rx)
                        or (by <= 1 and y0 > ry)
                        or (bx + bw >= tile.shape[1] - 1 and x0 + tile.shape[1] < rx + w)
                        or (by + bh >= tile.shape[0] - 1 and y0 + tile.shape[0] < ry + h)
                    ):
                        continue
                    out.append(((bx + x0, by + y0, bw, bh), sc))
        return out

    def detect_fine(
        self, frame_bgr: np.ndarray, overlap: float = 0.25, small: np.ndarray | None = None
    ) -> Detections:
        """Find the dice of a still photo more thoroughly: the whole frame as ``detect`` reads
        it, plus tiles of it at twice the scale (small or far dice), merged.

        A photo that is not 4:3 (square, upright, a panorama, a little off) is read
        letterboxed in the smallest 4:3 frame that holds it (``canvas_size``): its dice are
        neither squeezed nor seen at another scale than in the 4:3 photo it may have been cut
        from, so they get that photo's boxes (``python -m lab.aspect``: cuts of the matteop65
        photos, median IoU 0.96-1.0 with the 4:3 photo's boxes, against 0.57 for a 3:4 cut
        read in windows and 0.76 for a square one squeezed). A large photo far from 4:3
        (``LARGE_W`` wide in the 4:3 frame, ``WINDOWS_FROM``) whose dice the letterbox shows
        under ``REFINE_PX`` across a 640 px view is searched in 4:3 windows across its short
        side instead (``_windows_fine``), where they are seen larger.

        About ten times slower than ``detect``: for photos (``dicetray recognize``), not for
        the camera's frame rate.
        """
        h, w = frame_bgr.shape[:2]
        cw, ch = canvas_size(w, h)
        if (cw, ch) == (w, h):
            return self._fine(frame_bgr, overlap, small)
        canvas, ox, oy = letterbox(frame_bgr)
        found = self._fine(canvas, overlap, None, region=(ox, oy, w, h))
        found = _unbox(found, ox, oy, w, h, cw * ch, self.hand_threshold)
        if cw >= LARGE_W and max(w * 3 / (h * 4), h * 4 / (w * 3)) > WINDOWS_FROM:
            # a large photo far from 4:3 whose dice the letterbox shows small (or none):
            # windows across its short side see them larger
            sides = [max(b[2:]) * FRAME_W / cw for b in found.boxes]
            if not sides or float(np.median(sides)) < REFINE_PX:
                return self._windows_fine(frame_bgr, overlap)
        return found

    def _fine(self, frame_bgr: np.ndarray, overlap: float, small=None, region=None) -> Detections:
        """``detect_fine`` of a 4:3 frame (``region``: where a letterboxed photo lies in it)."""
        whole = self.detect(frame_bgr, small=small)
        # the frame pass's boxes placed again where the dice were small in it (``refine``):
        # before the tiles' dice are merged, which a box guessed too large would swallow
        whole_boxes = [self.refine(frame_bgr, b) for b in whole.boxes]
        cands = list(zip(whole_boxes, whole.scores, strict=True))
        cands += self._tile_dice(frame_bgr, overlap, region)
        # the whole-frame dice stand; a tile die found where one stands replaces it only when
        # it is about as large and surer (better placed); elsewhere the surest tile dice join
        kept = list(zip(whole_boxes, whole.scores, strict=True))
        n_whole = len(kept)
        # when the frame pass found several dice, a tile die far smaller than them is a speck
        # of the floor (a top-down photo shows its dice at about one size)
        least = 0.5 * float(np.median([max(b[2:]) for b in whole_boxes])) if n_whole >= 3 else 0
        for box, sc in sorted(cands[n_whole:], key=lambda c: -c[1]):
            hits = [i for i, (k, _) in enumerate(kept) if _same_die(box, k)]
            if not hits:
                if max(box[2:]) >= least:
                    kept.append((box, sc))
            elif len(hits) == 1 and hits[0] < n_whole:
                k, ksc = kept[hits[0]]
                ratio = max(k[2:]) / max(max(box[2:]), 1)
                if sc > ksc and 1 / 1.5 <= ratio <= 1.5:
                    kept[hits[0]] = (box, sc)
        return Detections(
            tuple(b for b, _ in kept), tuple(s for _, s in kept), whole.hand, whole.hand_share
        )

    def _windows_fine(self, frame_bgr: np.ndarray, overlap: float) -> Detections:
        """``detect_fine`` of a large photo far from 4:3 (a 12 MP phone photo held upright, a
        panorama): searched in overlapping 4:3 windows across its whole short side, as many
        as cover it, so its dice are seen as large as in a 4:3 photo of that side.
        (Letterboxed instead, an upright 3:4 photo's dice are seen 1.8 times smaller: in a
        rendered 12 MP phone photo of 24 see-through dice, 18 were found, against 24 in
        windows.) A die cut by a window's edge is left to a window that holds it whole; a die
        whole in two windows is kept once, the surer box."""
        h, w = frame_bgr.shape[:2]
        ww, wh = (w, round(w * 3 / 4)) if h * 4 > w * 3 else (round(h * 4 / 3), h)
        cands, hand, share = [], False, 0.0
        for y0 in _starts(h, wh, WINDOW_OVERLAP):
            for x0 in _starts(w, ww, WINDOW_OVERLAP):
                found = self.detect_fine(frame_bgr[y0 : y0 + wh, x0 : x0 + ww], overlap)
                hand, share = hand or found.hand, max(share, found.hand_share)
                for (bx, by, bw, bh), sc in zip(found.boxes, found.scores, strict=True):
                    cut = (
                        (bx <= 1 and x0 > 0)
                        or (by <= 1 and y0 > 0)
                        or (bx + bw >= ww - 1 and x0 + ww < w)
                        or (by + bh >= wh - 1 and y0 + wh < h)
                    )
                    cands.append(((bx + x0, by + y0, bw, bh), sc, cut))
        kept: list = []
        for box, sc, _cut in sorted(cands, key=lambda c: (c[2], -c[1])):  # whole, surest first
            if not any(_same_die(box, k) for k, _ in kept):
                kept.append((box, sc))
        return Detections(tuple(b for b, _ in kept), tuple(sc for _, sc in kept), hand, share)

    def refine(self, frame_bgr: np.ndarray, box, rounds: int = 2) -> tuple[int, int, int, int]:
        """A die's box in a photo ``LARGE_W`` wide or wider, found small for the frame (up to
        ``REFINE_MAX`` px of a 640x480 view of it, a few cells of the net), placed again:
        the detector reads a 4:3 window around it in which the die is ``REFINE_PX`` across,
        and its box there nearest the die's centre replaces the first; a box that changed
        size much is placed once more, in a window sized by it. Seen that small, a die's size
        is guessed up to three times too large, and the classifier reads a crop cut on the box
        (rendered 2016x1512 photos, dice 45-60 px: 38% of the dice found read right on the
        first boxes, 100% on the labelled ones). Other boxes are returned as they are."""
        h, w = frame_bgr.shape[:2]
        cw = canvas_size(w, h)[0]  # the width of the 4:3 frame the photo is read in
        for _ in range(rounds):
            x, y, bw, bh = box
            side = max(bw, bh)
            if side < 4 or cw < LARGE_W or side * FRAME_W / cw > REFINE_MAX:
                return box  # seen at about its own pixels, or large already
            # the window, in frame pixels: at most half the frame (a size guessed too large)
            ww = min(side * FRAME_W / REFINE_PX, 0.5 * w, 0.5 * h * FRAME_W / FRAME_H)
            wh = ww * FRAME_H / FRAME_W
            cx, cy = x + bw / 2, y + bh / 2
            x0 = round(min(max(cx - ww / 2, 0), w - ww))
            y0 = round(min(max(cy - wh / 2, 0), h - wh))
            window = frame_bgr[y0 : y0 + round(wh), x0 : x0 + round(ww)]
            found = [(x0 + bx, y0 + by, bw2, bh2) for bx, by, bw2, bh2 in self.detect(window).boxes]
            inside = [
                b
                for b in found
                if x <= b[0] + b[2] / 2 <= x + bw and y <= b[1] + b[3] / 2 <= y + bh
            ]
            near = sorted(
                (math.hypot(b[0] + b[2] / 2 - cx, b[1] + b[3] / 2 - cy), b) for b in inside
            )
            same = [b for d, b in near if d < 0.4 * side and 1 / 1.3 <= max(b[2:]) / side <= 1.3]
            if same:
                return same[0]  # the size confirmed, better placed
            # a much smaller die, the one box at the centre of the first: the size was guessed
            # too large (several boxes there: the pips of a large die)
            central = [b for d, b in near if d < 0.25 * side]
            if len(central) == 1 and 0.25 <= max(central[0][2:]) / side <= 1.6:
                box = central[0]
                continue  # seen at another size: once more
            return box
        return box

    def huge_candidates(self, frame_bgr: np.ndarray) -> list[tuple[int, int, int, int]]:
        """Boxes of dice too large for the net (over about 140 px of a 640x480 frame, as in a
        close-up photo), which ``detect`` finds only as pips: the photo read again shrunk 2
        and 4 times (into a canvas of its 4:3 ``canvas_size``), keeping dice over ``HUGE_FROM``
        times the shrink. Only candidates: a cluster of smaller dice can look like one huge die
        at that scale, so the caller checks them (``vision.pipeline.Recognizer.read``)."""
        h, w = frame_bgr.shape[:2]
        cw, ch = canvas_size(w, h)
        canvas = np.empty((ch, cw, frame_bgr.shape[2]), frame_bgr.dtype)
        canvas[:] = frame_bgr.reshape(-1, frame_bgr.shape[2]).mean(axis=0)
        out = []
        for shrink in (2, 4):
            canvas[: h // shrink, : w // shrink] = cv2.resize(
                frame_bgr, (w // shrink, h // shrink), interpolation=cv2.INTER_AREA
            )
            for bx, by, bw, bh in self.detect(canvas).boxes:
                x, y = bx * shrink, by * shrink
                bw, bh = min(bw * shrink, w - x), min(bh * shrink, h - y)
                if max(bw, bh) >= HUGE_FROM[shrink] * shrink * cw / FRAME_W and bw > 0 and bh > 0:
                    out.append((x, y, bw, bh))
        return out

    def maps(self, frame_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The raw outputs: heat (H x W), size (2 x H x W), hand (H x W), all 0..1 but size."""
        if self.head is not None:
            hand, feats = self._session.run(
                ["hand", "features"], {self._input: preprocess(frame_bgr)}
            )
            heat, size = self.head.maps(feats[0])
            return heat, size, hand[0, 0]
        heat, size, hand = self._session.run(
            ["heat", "size", "hand"], {self._input: preprocess(frame_bgr)}
        )
        return heat[0, 0], size[0], hand[0, 0]

    def outputs(self, view_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The shipped network's heat (H x W), size (2 x H x W) and features (C x H x W) of
        one view (what a taught detector head is fitted on)."""
        heat, size, feats = self._session.run(
            ["heat", "size", "features"], {self._input: preprocess(view_bgr)}
        )
        return heat[0, 0], size[0], feats[0]

    def detect(self, frame_bgr: np.ndarray, small: np.ndarray | None = None) -> Detections:
        """Find the dice of one frame (``small``: the frame already resized to 320x240). A
        frame that is not 4:3 is read letterboxed (``letterbox``), its dice unsqueezed."""
        h, w = frame_bgr.shape[:2]
        if abs(w * 3 / (h * 4) - 1) > SQUEEZE_OK:
            canvas, ox, oy = letterbox(frame_bgr)
            found = self.detect(canvas)
            area = canvas.shape[0] * canvas.shape[1]
            return _unbox(found, ox, oy, w, h, area, self.hand_threshold)
        heat, size, hand = self.maps(frame_bgr if small is None else small)
        boxes, scores = decode(heat, size, w, h, self.threshold)
        share = float((hand > 0.5).mean())
        return Detections(tuple(boxes), tuple(scores), share >= self.hand_threshold, share)


THUMB = (160, 120)  # the grey thumbnail motion is measured on


def motion(
    prev_thumb: np.ndarray | None, frame_bgr: np.ndarray, level: int = 18
) -> tuple[float, np.ndarray]:
    """(percent of a 160x120 grey thumbnail that changed by more than ``level`` since the
    previous thumbnail, this frame's thumbnail). Sensor noise stays near 0; one small die
    moving changes about 0.1 %.
    """
    thumb = cv2.cvtColor(
        cv2.resize(frame_bgr, THUMB, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY
    )
    if prev_thumb is None or prev_thumb.shape != thumb.shape:
        return 0.0, thumb
    changed = cv2.absdiff(thumb, prev_thumb) > level
    return 100.0 * float(np.count_nonzero(changed)) / changed.size, thumb


SHAKE_PX = 2.5  # the largest shift (frame pixels) a shaken camera is allowed between frames
# How closely (pixels) the dice's own shifts must match for a camera shift, and how far a
# third of them may be off it. Phase correlation reads a die's shift to about 0.15 px, and a
# rolling shutter shaken mid-frame shifts the rows it reads later by more; a die that creeps
# by under a pixel a frame is still for reading (its face does not change), and the motion
# left once the shift is out still has to be under STILL (0.2 / 0.6 refused a rolling
# shutter shaken mid-frame).
SHAKE_AGREE = 0.5
SHAKE_NEAR = 1.0


def camera_shift(
    prev_grey: np.ndarray | None,
    grey: np.ndarray,
    boxes,
) -> tuple[float, float] | None:
    """The shift (dx, dy) of the whole picture between two grey frames when the camera (or
    the table) shook, or None. It is read from the dice and the tray: each die's patch, and
    each quarter of the tray that shows some grain and no die, is matched to the previous
    frame (phase correlation, to a tenth of a pixel), and a shift is a camera shift only when
    two or more of them, a die among them, moved by it (two thirds within ``SHAKE_AGREE`` px,
    all within ``SHAKE_NEAR``), by at most ``SHAKE_PX``. Dice sliding to a stop never move in
    such unison, and the tray does not move with a creeping die; one die on a plain tray says
    nothing (it may be creeping), and then there is no camera shift.

    >>> import numpy as np
    >>> felt = np.full((480, 640), 90, np.uint8)
    >>> for x, y in ((100, 100), (400, 300)):
    ...     felt[y:y + 40, x:x + 40] = 230; felt[y + 15:y + 25, x + 15:x + 25] = 20
    >>> shaken = np.roll(felt, (1, 2), axis=(0, 1))             # the camera moved (2, 1)
    >>> [round(v) for v in camera_shift(felt, shaken, [(102, 101, 40, 40), (402, 301, 40, 40)])]
    [2, 1]
    >>> slid = felt.copy(); slid[300:340, 400:440] = 90; slid[302:342, 401:441] = 230
    >>> camera_shift(felt, slid, [(100, 100, 40, 40), (401, 302, 40, 40)]) is None
    True
    """
    if prev_grey is None or prev_grey.shape != grey.shape or not len(boxes):
        return None
    h, w = grey.shape
    grown = []
    for x, y, bw, bh in boxes:
        m = int(max(bw, bh) * 0.25) + 4
        grown.append(
            (
                max(int(x) - m, 0),
                max(int(y) - m, 0),
                min(int(x + bw) + m, w),
                min(int(y + bh) + m, h),
            )
        )
    patches = [(g, True) for g in grown]
    q = min(w, h) // 5
    for cx, cy in (
        (w // 4, h // 4),
        (3 * w // 4, h // 4),
        (w // 4, 3 * h // 4),
        (3 * w // 4, 3 * h // 4),
    ):
        r = (cx - q, cy - q, cx + q, cy + q)
        if not any(r[0] < g[2] and g[0] < r[2] and r[1] < g[3] and g[1] < r[3] for g in grown):
            patches.append((r, False))
    shifts, dice = [], 0
    for (x0, y0, x1, y1), is_die in patches:
        if x1 - x0 < 16 or y1 - y0 < 16:
            return None
        a = prev_grey[y0:y1, x0:x1].astype(np.float32)
        if not is_die and float(a.std()) < 4.0:
            continue  # a plain stretch of tray shows no shift
        b = grey[y0:y1, x0:x1].astype(np.float32)
        (dx, dy), peak = cv2.phaseCorrelate(
            a, b, cv2.createHanningWindow(a.shape[::-1], cv2.CV_32F)
        )
        if peak < 0.2 or max(abs(dx), abs(dy)) > SHAKE_PX:
            if is_die:
                return None  # a die that did not just shift: it moved
            continue
        shifts.append((dx, dy))
        dice += is_die
    if len(shifts) < 2 or not dice:
        return None
    s = np.array(shifts)
    mid = np.median(s, axis=0)
    off = np.abs(s - mid).max(axis=1)
    # two thirds of them (at least two) on one shift, the others near it
    if (
        (off <= SHAKE_AGREE).sum() < max(2, math.ceil(2 * len(s) / 3))
        or off.max() > SHAKE_NEAR
        or np.abs(mid).max() < 0.25
    ):
        return None
    return float(mid[0]), float(mid[1])


def shaken_motion(
    prev_thumb: np.ndarray,
    thumb: np.ndarray,
    shift: tuple[float, float],
    frame_w: int,
    level: int = 18,
) -> float:
    """:func:`motion` once a camera shift (``camera_shift``, in pixels of a frame
    ``frame_w`` wide) is taken out: the previous thumbnail moved by it, and a pixel counted
    as changed only when it is unlike every pixel round it there (the shift is known only
    to a fraction of a pixel; the dice's own agreement already bounds how far any die
    moved)."""
    k = THUMB[0] / frame_w
    # moved by the whole thumbnail pixels of the shift; what is left (under a pixel) is
    # covered by comparing each pixel with the range of the pixels round it
    before = cv2.warpAffine(
        prev_thumb.astype(np.float32),
        np.float32([[1, 0, round(shift[0] * k)], [0, 1, round(shift[1] * k)]]),
        THUMB,
        flags=cv2.INTER_NEAREST,
        borderMode=cv2.BORDER_REPLICATE,
    )
    now = thumb.astype(np.float32)
    ring = np.ones((3, 3), np.uint8)
    changed = (now - cv2.dilate(before, ring) > level) | (cv2.erode(before, ring) - now > level)
    # (a shifted camera sees new things at the picture's edges)
    changed[:2], changed[-2:], changed[:, :2], changed[:, -2:] = False, False, False, False
    return 100.0 * float(np.count_nonzero(changed)) / changed.size
