"""Die faces drawn from the dice-set data alone: pips, stars, numbers, text, rings, lights, ZAP.

Nothing here knows a particular game: every look comes from a :class:`vision.dicesets.Face`
(``mark``, ``count``, ``text``, ``circle``, ``color``) and the die's ``body``/``ink`` colours,
so an edited TOML file renders with no code change::

    >>> from vision.dicesets import load
    >>> from vision.faceart import draw_face
    >>> img = draw_face(load("tally-up"), "red", "(200)", size=64)
    >>> img.shape, img.dtype.name
    ((64, 64, 3), 'uint8')

Faces are drawn 4x larger and shrunk with area averaging, so marks keep smooth edges even at
20 px. Results without ``rng`` are cached per (die, face, size); with an ``rng`` (a numpy
Generator) the mark gets a small random offset, scale, turn and ink shade (print variation),
which training code can use for augmentation.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache

import cv2
import numpy as np
from HersheyFonts import HersheyFonts

from vision.dicesets import DiceSet, Die, Face, hex_to_rgb

__all__ = ["bgr", "draw_face", "draw_side", "face_rgba", "pip_positions", "put_text"]

_SS = 4  # supersampling factor
_CORNER = 0.15  # corner radius, share of the face side
# Numbers and text are drawn from the Hershey stroke fonts that the PyPI package Hershey-Fonts
# carries (MIT), not by cv2.putText: every OpenCV then prints the same glyphs (OpenCV 5 draws
# its FONT_HERSHEY_* in a typeface of its own). Roman simplex is what OpenCV 4's SIMPLEX drew.
STROKE_FONT = "rowmans"

# Pip centres in unit face coordinates (0..1, y down), the usual Western arrangement.
_L, _M, _H = 0.25, 0.5, 0.75
_PIPS = {
    1: [(_M, _M)],
    2: [(_L, _L), (_H, _H)],
    3: [(_L, _L), (_M, _M), (_H, _H)],
    4: [(_L, _L), (_H, _L), (_L, _H), (_H, _H)],
    5: [(_L, _L), (_H, _L), (_M, _M), (_L, _H), (_H, _H)],
    6: [(_L, _L), (_L, _M), (_L, _H), (_H, _L), (_H, _M), (_H, _H)],
    7: [(_L, _L), (_L, _M), (_L, _H), (_M, _M), (_H, _L), (_H, _M), (_H, _H)],
    8: [(_L, _L), (_M, _L), (_H, _L), (_L, _M), (_H, _M), (_L, _H), (_M, _H), (_H, _H)],
    9: [(x, y) for y in (_L, _M, _H) for x in (_L, _M, _H)],
}


def pip_positions(count: int) -> list[tuple[float, float]]:
    """Pip centres (x, y in 0..1 of the face side) for ``count`` pips, 1..9.

    >>> pip_positions(2)
    [(0.25, 0.25), (0.75, 0.75)]
    """
    if count not in _PIPS:
        raise ValueError(f"pips must number 1..9, not {count}")
    return list(_PIPS[count])


def bgr(hex_colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` -> an OpenCV (b, g, r) tuple.

    >>> bgr("#c8202a")
    (42, 32, 200)
    """
    r, g, b = hex_to_rgb(hex_colour)
    return (b, g, r)


def _shade(colour: tuple[int, int, int], factor: float) -> tuple[int, int, int]:
    return tuple(int(max(0, min(255, round(c * factor)))) for c in colour)


def _rounded_mask(n: int, radius: float) -> np.ndarray:
    """uint8 0/255 mask of an n x n rounded square."""
    m = np.zeros((n, n), np.uint8)
    r = max(1, round(radius))
    cv2.rectangle(m, (r, 0), (n - 1 - r, n - 1), 255, -1)
    cv2.rectangle(m, (0, r), (n - 1, n - 1 - r), 255, -1)
    for cx, cy in ((r, r), (n - 1 - r, r), (r, n - 1 - r), (n - 1 - r, n - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return m


def _star_points(cx: float, cy: float, r_out: float, r_in: float, turn: float) -> np.ndarray:
    pts = []
    for k in range(10):
        r = r_out if k % 2 == 0 else r_in
        a = -math.pi / 2 + k * math.pi / 5 + turn
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.array(pts)


# A lightning bolt in unit coordinates (drawn for mark = "zap").
_BOLT = np.array(
    [
        (0.60, 0.08),
        (0.27, 0.54),
        (0.47, 0.54),
        (0.36, 0.92),
        (0.75, 0.40),
        (0.54, 0.40),
        (0.68, 0.08),
    ]
)


@cache
def _stroke_font(font: str) -> HersheyFonts:
    hf = HersheyFonts()
    hf.load_default_font(font)
    return hf


@lru_cache(maxsize=512)
def text_strokes(text: str, font: str = STROKE_FONT) -> np.ndarray:
    """``text`` in the Hershey stroke font ``font``: its segments, (n, 2, 2) float32, y down.

    >>> text_strokes("1").shape[1:], text_strokes("").shape
    ((2, 2), (0, 2, 2))
    """
    segments = list(_stroke_font(font).lines_for_text(text))
    return np.array(segments, np.float32).reshape(-1, 2, 2)


def put_text(
    img: np.ndarray,
    text: str,
    centre: tuple[float, float],
    box: tuple[float, float],
    thick: int,
    colour,
    *,
    font: str = STROKE_FONT,
    slant: float = 0.0,
    turn: float = 0.0,
) -> None:
    """Print ``text`` into ``img`` in a stroke font, ``thick`` px strokes, centred on
    ``centre`` and as large as the ``box`` (w, h px, strokes included) allows; ``slant``
    leans the top right (x shift per unit of height), ``turn`` turns it clockwise (radians).

    >>> img = np.zeros((40, 40), np.uint8)
    >>> put_text(img, "7", (20, 20), (20, 30), 3, 255)
    >>> ys, xs = np.nonzero(img > 127)
    >>> bool(ys.max() - ys.min() <= 30 and xs.max() - xs.min() <= 21)  # within the box, or a px
    True
    >>> bool(abs(ys.min() + ys.max() - 40) <= 2 and abs(xs.min() + xs.max() - 40) <= 2)  # centred
    True
    """
    seg = text_strokes(text, font)
    if not len(seg):
        return
    pts = seg.reshape(-1, 2).copy()
    pts[:, 0] -= slant * pts[:, 1]  # y down: the top leans right
    lo, hi = pts.min(0), pts.max(0)
    size = np.maximum(hi - lo, 1e-3)
    scale = max(min((box[0] - thick) / size[0], (box[1] - thick) / size[1]), 1e-3)
    pts = (pts - (lo + hi) / 2) * scale
    if turn:
        c, s = math.cos(turn), math.sin(turn)
        pts = pts @ np.array([[c, s], [-s, c]], np.float32)
    fixed = np.round((pts + np.asarray(centre, np.float32)) * 16).astype(np.int32)
    cv2.polylines(img, list(fixed.reshape(-1, 2, 2)), False, colour, thick, cv2.LINE_AA, 4)


def _draw_mark(
    img: np.ndarray,
    face: Face,
    ink: tuple[int, int, int],
    n: int,
    jitter: tuple[float, float, float, float],
) -> None:
    """Draw the face's mark on an n x n image (already supersampled)."""
    dx, dy, grow, turn = jitter
    cx, cy = n * (0.5 + dx), n * (0.5 + dy)
    colour = bgr(face.color) if face.color else ink
    aa = cv2.LINE_AA
    sh = 4  # sub-pixel bits for circles and polygons
    f = 1 << sh

    def P(x: float, y: float) -> tuple[int, int]:
        # rotate (x, y) (unit coordinates) about the centre by `turn`, then scale/offset
        ux, uy = (x - 0.5) * grow, (y - 0.5) * grow
        c, s = math.cos(turn), math.sin(turn)
        return (round((cx + n * (ux * c - uy * s)) * f), round((cy + n * (ux * s + uy * c)) * f))

    if face.mark == "pips":
        r = n * (0.12 if face.count == 1 else 0.085 if face.count <= 6 else 0.07) * grow
        for px, py in _PIPS[face.count]:
            cv2.circle(img, P(px, py), int(r * f), colour, -1, aa, sh)
    elif face.mark == "star":
        r_out = n * (0.27 if face.circle else 0.36) * grow
        pts = _star_points(cx, cy, r_out, r_out * 0.42, turn)
        cv2.fillPoly(img, [np.round(pts * f).astype(np.int32)], colour, aa, sh)
    elif face.mark == "zap":
        pts = [P(x, y) for x, y in (_BOLT - 0.5) * (0.78 if face.circle else 1.0) + 0.5]
        cv2.fillPoly(img, [np.array(pts, np.int32)], colour, aa, sh)
    elif face.mark == "light":
        r = n * (0.24 if face.circle else 0.31) * grow
        cv2.circle(img, P(0.5, 0.5), int(r * f), colour, -1, aa, sh)
        cv2.circle(img, P(0.5, 0.5), int(r * f), _shade(colour, 0.6), max(1, n // 48), aa, sh)
    elif face.mark in ("number", "text"):
        text = face.text
        # Same text size with and without a ring, so the ring alone tells them apart. Free
        # text (the Up Die's +1 ... x2) is printed as large as the face allows, as on real
        # dice: drawn smaller, it cannot be read on a die 30-40 px across.
        if face.mark == "text" and not face.circle:
            box_w = n * (0.84 if len(text) > 3 else 0.80) * grow
            box_h = n * (0.30 if len(text) > 3 else 0.36 if len(text) > 2 else 0.42) * grow
        else:
            box_w = n * (0.64 if len(text) > 3 else 0.60) * grow
            box_h = n * (0.24 if len(text) > 2 else 0.30) * grow
        thick = max(1, round(box_h * 0.20))
        put_text(img, text, (cx, cy), (box_w, box_h), thick, colour, turn=turn)
    else:  # parse() in dicesets already refuses unknown marks
        raise ValueError(f"face {face.id!r}: unknown mark {face.mark!r}")

    if face.circle:
        ring_r = 0.41 if face.mark in ("number", "text") else 0.42
        cv2.circle(
            img, P(0.5, 0.5), int(n * ring_r * grow * f), colour, max(1, round(n * 0.045)), aa, sh
        )


def _render(
    die: Die, face: Face, size: int, jitter, ink_factor: float
) -> tuple[np.ndarray, np.ndarray]:
    n = size * _SS
    body = bgr(die.body)
    ink = _shade(bgr(die.ink), ink_factor)
    img = np.empty((n, n, 3), np.uint8)
    img[:] = body
    # A slight bevel: the face darkens towards its rounded edge.
    mask = _rounded_mask(n, n * _CORNER)
    inner = cv2.erode(mask, np.ones((3, 3), np.uint8), iterations=max(1, n // 40))
    edge = cv2.GaussianBlur(inner, (0, 0), n / 60).astype(np.float32) / 255.0
    shade = 0.78 + 0.22 * edge
    img = (img.astype(np.float32) * shade[..., None]).astype(np.uint8)
    _draw_mark(img, face, ink, n, jitter)
    small = cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(mask, (size, size), interpolation=cv2.INTER_AREA)
    return small, alpha


@lru_cache(maxsize=4096)
def _cached(die: Die, face: Face, size: int) -> tuple[np.ndarray, np.ndarray]:
    img, alpha = _render(die, face, size, (0.0, 0.0, 1.0, 0.0), 1.0)
    img.flags.writeable = False
    alpha.flags.writeable = False
    return img, alpha


def _lookup(diceset: DiceSet, die_id: str, face_id: str) -> tuple[Die, Face]:
    try:
        die = diceset.die(die_id)
    except KeyError:
        raise ValueError(
            f"dice set {diceset.id!r} has no die {die_id!r}; its dice are "
            f"{', '.join(diceset.die_ids)}"
        ) from None
    if face_id not in die.faces:
        raise ValueError(
            f"die {die_id!r} of dice set {diceset.id!r} has no face {face_id!r}; its faces are "
            f"{', '.join(dict.fromkeys(die.faces))}"
        )
    return die, diceset.faces[face_id]


def face_rgba(
    diceset: DiceSet,
    die_id: str,
    face_id: str,
    size: int = 64,
    rng: np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The top face as (BGR uint8 size x size, alpha uint8 size x size: 255 inside the face).

    The alpha is the rounded-square outline; the renderer uses it to paste faces on a tray.
    Without ``rng`` the (read-only) arrays come from a cache: copy before changing them.

    >>> from vision.dicesets import load
    >>> img, alpha = face_rgba(load("d6"), "d6", "5", size=32)
    >>> int(alpha[16, 16]), int(alpha[0, 0])
    (255, 0)
    """
    size = int(size)
    if size < 8:
        raise ValueError(f"a face needs at least 8 px to be drawn, not {size}")
    die, face = _lookup(diceset, die_id, face_id)
    if rng is None:
        return _cached(die, face, size)
    jitter = (
        float(rng.uniform(-0.025, 0.025)),
        float(rng.uniform(-0.025, 0.025)),
        float(rng.uniform(0.93, 1.05)),
        float(rng.uniform(-0.06, 0.06)),
    )
    return _render(die, face, size, jitter, float(rng.uniform(0.85, 1.1)))


def draw_face(
    diceset: DiceSet,
    die_id: str,
    face_id: str,
    size: int = 64,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """The top face of die ``die_id`` showing ``face_id``, as a BGR uint8 image size x size.

    The rounded corners show the die's edge (a darker body colour), as a die seen from above.
    With ``rng`` the mark is printed with a small random offset/scale/turn/ink shade.

    >>> from vision.dicesets import load
    >>> a = draw_face(load("toss-up"), "toss", "green", 48)
    >>> b = draw_face(load("toss-up"), "toss", "red", 48)
    >>> bool((a != b).any())
    True
    """
    img, alpha = face_rgba(diceset, die_id, face_id, size, rng)
    die = diceset.die(die_id)
    edge = np.array(_shade(bgr(die.body), 0.55), np.float32)
    a = alpha.astype(np.float32)[..., None] / 255.0
    return (img.astype(np.float32) * a + edge * (1.0 - a) + 0.5).astype(np.uint8)


def draw_side(
    diceset: DiceSet, die_id: str, face_id: str, width: int, height: int, light: float = 0.7
) -> np.ndarray:
    """A side face seen at a steep angle: the face squashed to width x height, darkened.

    ``light`` (0..1) is how much light the side gets. Used for the strip of a side face
    that a tilted die shows next to its top face.

    >>> from vision.dicesets import load
    >>> draw_side(load("d6"), "d6", "3", 40, 8).shape
    (8, 40, 3)
    """
    width, height = max(1, int(width)), max(1, int(height))
    side = max(16, width)
    img, _ = face_rgba(diceset, die_id, face_id, side)
    strip = cv2.resize(img, (width, height), interpolation=cv2.INTER_AREA)
    return (strip.astype(np.float32) * float(light)).astype(np.uint8)
