"""A top-down dice tray, rendered: training scenes, test fixtures, and the simulated tray.

Everything is drawn from the dice-set data (``vision.faceart``) and a numpy ``Generator``
passed in (no global random state), so the same seed gives the same frames::

    >>> import numpy as np
    >>> from vision.dicesets import load
    >>> from hardware.sim.render import render_scene
    >>> frame, labels = render_scene(load("d6"), [("d6", "3"), ("d6", "5")],
    ...                              np.random.default_rng(1))
    >>> frame.shape, [lab["face"] for lab in labels]
    ((480, 640, 3), ['3', '5'])

A scene: a tray floor (felt of several colours, wood or paper, with texture), its rim and the
rim's shadow, uneven and coloured light, dice at random places and turns (some touching, some
slightly tilted so a strip of a side face shows, now and then one cocked against the rim),
their shadows, glare on glossy faces, then camera troubles: white balance and exposure, blur,
sensor noise and JPEG artefacts. A throw (:func:`render_throw`) puts that in time: the empty
tray, dice entering and bouncing with motion blur, settling, resting, a hand reaching in and
picking them up, the empty tray again.

Labels are dicts ``{"x", "y", "w", "h", "die", "face"}``: the axis-aligned box of each die's
visible outline in pixels, (x, y) its top-left corner.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from statistics import NormalDist

import cv2
import numpy as np

from hardware.sim.looks import (
    FAR_LIGHTS,
    Look,
    digit_share,
    look_face_rgba,
    recoloured,
    set_colours,
)
from hardware.sim.styles import (
    Style,
    far_print_style,
    random_style,
    tray_floor,
)
from vision.crops import INPUT_SIZE, NONE_CLASS, cut_crop
from vision.dicesets import DiceSet
from vision.faceart import face_rgba


@dataclass
class Pose:
    """Where one die lies: centre, side, turn (radians), tilt (side strip offset in px)."""

    die: str
    face: str
    cx: float
    cy: float
    side: float
    angle: float
    tilt: tuple = (0.0, 0.0)
    blur: tuple = (0.0, 0.0)  # motion during the exposure (px)
    extra: dict = field(default_factory=dict)


def _square(cx, cy, side, angle) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    half = side / 2
    pts = [(-half, -half), (half, -half), (half, half), (-half, half)]
    return np.array([(cx + x * c - y * s, cy + x * s + y * c) for x, y in pts], np.float32)


def pose_outline(p: Pose) -> np.ndarray:
    """The die's visible outline: hull of its base square and its (tilted) top square."""
    base = _square(p.cx, p.cy, p.side, p.angle)
    top = base + np.array(p.tilt, np.float32)
    return cv2.convexHull(np.concatenate([base, top])).reshape(-1, 2)


def pose_box(p: Pose, w: int, h: int) -> tuple[int, int, int, int] | None:
    """Axis-aligned box of the outline, clipped to the frame (None when off the frame)."""
    pts = pose_outline(p)
    if abs(p.blur[0]) + abs(p.blur[1]) > 0:
        pts = np.concatenate([pts, pts + np.array(p.blur, np.float32)])
    x0, y0 = np.floor(pts.min(0)).astype(int)
    x1, y1 = np.ceil(pts.max(0)).astype(int)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    return int(x0), int(y0), int(x1 - x0), int(y1 - y0)


FIT_MIN_PX = 24.0  # a crowded throw's dice shrink no smaller (the detector learnt 16-125 px)
PACK_MIN_PX = 16.0  # packed side by side, no smaller: the detector's smallest


def place_dice(
    diceset: DiceSet,
    dice,
    rng: np.random.Generator,
    style: Style,
    size=(640, 480),
    fit: bool = False,
) -> list[Pose]:
    """Random resting places for ``dice`` [(die, face), ...]: apart, touching, some tilted.

    Dice that do not fit the tray at the style's sizes raise ValueError (scene loops draw
    another scene), unless ``fit`` (the simulated tray: a real tray holds any throw). Then
    the throw is scattered again with dice ever smaller (down to ``FIT_MIN_PX``), and if it
    is still too crowded, packed side by side in rows, as in a full tray::

        >>> import numpy as np
        >>> from vision.dicesets import load
        >>> crowded = Style(die_px=(110.0, 120.0))
        >>> len(place_dice(load("toss-up"), [("toss", "red")] * 10,
        ...                np.random.default_rng(0), crowded, fit=True))
        10
    """
    dice = list(dice)
    try:
        return _scatter(dice, rng, style, size, 1.0)
    except ValueError:
        if not fit:
            raise
    scale = 1.0
    while style.die_px[0] * scale > FIT_MIN_PX:
        scale *= 0.85
        try:
            return _scatter(dice, rng, style, size, scale)
        except ValueError:
            continue
    return _packed(dice, rng, style, size)


def _scatter(dice, rng: np.random.Generator, style: Style, size, scale: float) -> list[Pose]:
    """Dice dropped one by one at random places (``scale``: their sizes shrunk by that)."""
    w, h = size
    margin = style.rim + 4
    smallest = min(FIT_MIN_PX, style.die_px[0])
    poses: list[Pose] = []
    for die_id, face_id in dice:
        side = float(rng.uniform(*style.die_px))
        if scale != 1.0:
            side = max(smallest, side * scale)
        for _attempt in range(200):
            if poses and rng.random() < 0.3:  # lie against a neighbour, edge to edge
                nb = poses[int(rng.integers(0, len(poses)))]
                k = int(rng.integers(0, 4))
                a = nb.angle + k * math.pi / 2
                dist = (nb.side + side) / 2 * float(rng.uniform(1.02, 1.1))
                cx, cy = nb.cx + dist * math.cos(a), nb.cy + dist * math.sin(a)
                cx += rng.uniform(-0.2, 0.2) * side * -math.sin(a)
                cy += rng.uniform(-0.2, 0.2) * side * math.cos(a)
                angle = nb.angle + float(rng.normal(0, 0.03))
            else:
                cx = float(rng.uniform(margin + side * 0.75, w - margin - side * 0.75))
                cy = float(rng.uniform(margin + side * 0.75, h - margin - side * 0.75))
                angle = float(rng.uniform(0, math.pi / 2))
            r = side * 0.72
            if not (
                margin + r * 0.8 < cx < w - margin - r * 0.8
                and margin + r * 0.8 < cy < h - margin - r * 0.8
            ):
                continue
            if all(_apart(cx, cy, side, angle, q) for q in poses):
                break
        else:
            raise ValueError(f"{len(dice)} dice of {style.die_px[1]:.0f} px do not fit the tray")
        t = rng.normal(0, style.tilt * side, 2)
        near_rim = min(cx - margin, cy - margin, w - margin - cx, h - margin - cy) < side
        if near_rim and rng.random() < 0.25:  # cocked against the rim
            t = t + rng.normal(0, 0.15 * side, 2)
        poses.append(Pose(die_id, face_id, cx, cy, side, angle, (float(t[0]), float(t[1]))))
    return poses


def _packed(dice, rng: np.random.Generator, style: Style, size) -> list[Pose]:
    """The dice side by side in rows across the floor, each in a cell of its own (nearly
    square to the tray, about a tenth of a side apart): the largest size at which they all
    fit."""
    w, h = size
    margin = style.rim + 4
    room_w, room_h = w - 2 * margin, h - 2 * margin
    side = float(math.floor(style.die_px[1]))
    while side >= PACK_MIN_PX:
        cell = side * 1.12  # a die turned by up to 0.08 rad spans at most 1.08 sides
        cols, rows = int(room_w // cell), int(room_h // cell)
        if cols * rows >= len(dice):
            break
        side -= 1.0
    else:
        raise ValueError(
            f"{len(dice)} dice do not fit a {w}x{h} tray, even side by side at {PACK_MIN_PX:.0f} px"
        )
    x0 = margin + (room_w - cols * cell) / 2
    y0 = margin + (room_h - rows * cell) / 2
    cells = rng.permutation(cols * rows)[: len(dice)]
    poses = []
    for (die_id, face_id), c in zip(dice, cells, strict=True):
        row, col = divmod(int(c), cols)
        cx = x0 + (col + 0.5) * cell + float(rng.uniform(-0.01, 0.01)) * side
        cy = y0 + (row + 0.5) * cell + float(rng.uniform(-0.01, 0.01)) * side
        angle = float(rng.uniform(-0.08, 0.08))
        poses.append(Pose(die_id, face_id, cx, cy, side, angle))
    return poses


def _apart(cx, cy, side, angle, q: Pose) -> bool:
    a = _square(cx, cy, side * 1.01, angle)
    b = _square(q.cx, q.cy, q.side * 1.01, q.angle)
    inter, _ = cv2.intersectConvexConvex(a, b)
    return inter < 1.0


def _tex_size(side: float) -> int:
    for s in (24, 32, 48, 64, 96, 128):
        if s >= side:
            return s
    return 128


def _draw_die(
    img: np.ndarray, diceset: DiceSet, p: Pose, style: Style, rng: np.random.Generator
) -> None:
    """Paint one die (shadow, body, side strip, top face, glare) onto float image ``img``."""
    h, w = img.shape[:2]
    die = diceset.die(p.die)
    box = pose_box(replace(p, side=p.side * 1.6), w, h)
    if box is None:
        return
    x0, y0, bw, bh = box
    roi = img[y0 : y0 + bh, x0 : x0 + bw]
    off = np.array([x0, y0], np.float32)
    base = _square(p.cx, p.cy, p.side, p.angle) - off
    top = base + np.array(p.tilt, np.float32)
    hull = cv2.convexHull(np.concatenate([base, top])).reshape(-1, 2)
    # shadow
    sh = np.zeros((bh, bw), np.float32)
    d = np.array(style.light_dir, np.float32) * p.side * 0.12
    cv2.fillConvexPoly(sh, np.round((hull + d) * 4).astype(np.int32), 1.0, cv2.LINE_AA, 2)
    sh = cv2.GaussianBlur(sh, (0, 0), max(1.0, p.side * 0.08))
    roi *= (1 - style.shadow * sh)[..., None]
    under_floor = roi.copy() if style.look is not None and style.look.translucent else None
    # body (what shows of the sides), darker than the top
    body = (
        np.array(
            _die_colours(die, style)[0] if style.look is not None else die.body_rgb[::-1],
            np.float32,
        )
        * 0.62
    )
    mask = np.zeros((bh, bw), np.float32)
    cv2.fillConvexPoly(mask, np.round(hull * 4).astype(np.int32), 1.0, cv2.LINE_AA, 2)
    roi[:] = roi * (1 - mask[..., None]) + body * mask[..., None]
    # top face: face art warped onto the top square
    n = _tex_size(p.side)
    if style.look is None:
        face, alpha = face_rgba(diceset, p.die, p.face, n)
    else:
        face, alpha = _look_face(
            diceset.faces[p.face], n, *_die_colours(die, style), style.look, style.seed
        )
    src = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
    m = cv2.getPerspectiveTransform(src, top.astype(np.float32))
    warped = cv2.warpPerspective(face, m, (bw, bh), flags=cv2.INTER_LINEAR)
    a = cv2.warpPerspective(alpha, m, (bw, bh), flags=cv2.INTER_LINEAR).astype(np.float32)
    a /= 255.0
    # the top face catches more light than the floor; a tilted face a little less
    lit = 1.0 - 0.6 * (abs(p.tilt[0]) + abs(p.tilt[1])) / max(p.side, 1)
    top_col = warped.astype(np.float32) * lit
    if style.look is not None and style.look.translucent:
        # a see-through die: the floor under it shows through the body (tinted by it), the
        # marks stay solid
        see = style.look.translucent
        tint = np.array(_die_colours(die, style)[0], np.float32) / 255.0
        body_px = (
            np.abs(top_col - np.array(_die_colours(die, style)[0], np.float32) * lit).max(axis=2)
            < 40
        )
        under = under_floor * tint * 1.4
        mix = (see * body_px)[..., None]
        top_col = top_col * (1 - mix) + under * mix
        side = (mask * (1 - a))[..., None] * see
        roi[:] = roi * (1 - side) + under_floor * tint * 1.2 * side
    roi[:] = roi * (1 - a[..., None]) + top_col * a[..., None]
    # Glare belongs to the die's place under the light, not to the frame: it is drawn from a
    # generator seeded by the style and the pose, so a resting die keeps the same glint.
    gr = np.random.default_rng(
        [style.seed, round(p.cx) & 0xFFFF, round(p.cy) & 0xFFFF, round(p.angle * 1000) & 0xFFFF]
    )
    if style.glossy and gr.random() < style.glare:
        g = np.zeros((bh, bw), np.float32)
        c = top.mean(0) + gr.uniform(-0.3, 0.3, 2) * p.side
        axes = (
            max(1, int(p.side * gr.uniform(0.08, 0.25))),
            max(1, int(p.side * gr.uniform(0.04, 0.12))),
        )
        cv2.ellipse(g, (int(c[0]), int(c[1])), axes, float(gr.uniform(0, 180)), 0, 360, 1.0, -1)
        g = cv2.GaussianBlur(g, (0, 0), max(1.0, p.side * 0.05)) * a
        roi += g[..., None] * float(gr.uniform(80, 180))


@lru_cache(maxsize=512)
def _die_colours(die, style: Style) -> tuple[tuple, tuple]:
    """(body, ink) BGR of a die in a style with a print look: the set's colours varied a
    little per style (``set_colours``), or the held-out palette."""
    body = tuple(int(v) for v in die.body_rgb[::-1])
    ink = tuple(int(v) for v in die.ink_rgb[::-1])
    rng = np.random.default_rng([style.seed, sum(map(ord, die.id))])
    if style.palette == "other":
        if die.id.startswith("d6"):  # coloured pips of low contrast on a pastel body
            hsv = np.uint8([[[rng.uniform(0, 180), rng.uniform(60, 140), rng.uniform(170, 230)]]])
            body = tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
            ink = tuple(int(v * 0.5) for v in body)
        else:
            lum = 0.114 * ink[0] + 0.587 * ink[1] + 0.299 * ink[2]
            ink = (96, 192, 224) if lum > 128 else (90, 42, 26)
        return body, ink
    return set_colours(rng, body, ink)


@lru_cache(maxsize=1024)
def _look_face(face, n: int, body: tuple, ink: tuple, look: Look, seed: int):
    img, alpha = look_face_rgba(face, n, body, ink, look, np.random.default_rng(seed))
    img.flags.writeable = False
    alpha.flags.writeable = False
    return img, alpha


def _draw_moving(img, diceset, p: Pose, style, rng) -> None:
    """A die moving during the exposure, smeared along its path (motion blur).

    The die is drawn once at the middle of its path in a patch around the path, then smeared
    with a line kernel where it was drawn, so a blurred die costs about one drawn die.
    """
    steps = max(1, min(4, int(math.hypot(*p.blur) / 5)))
    if steps == 1:
        _draw_die(img, diceset, p, style, rng)
        return
    h, w = img.shape[:2]
    ends = [
        replace(p, side=p.side * 1.6, cx=p.cx + p.blur[0] * f, cy=p.cy + p.blur[1] * f)
        for f in (-0.5, 0.5)
    ]
    boxes = [b for b in (pose_box(q, w, h) for q in ends) if b is not None]
    if not boxes:
        return
    x0 = max(0, min(b[0] for b in boxes) - 4)
    y0 = max(0, min(b[1] for b in boxes) - 4)
    x1 = min(w, max(b[0] + b[2] for b in boxes) + 4)
    y1 = min(h, max(b[1] + b[3] for b in boxes) + 4)
    patch = img[y0:y1, x0:x1]
    layer = patch.copy()
    _draw_die(layer, diceset, replace(p, cx=p.cx - x0, cy=p.cy - y0, blur=(0.0, 0.0)), style, rng)
    # smear the drawn die along its path (a few shifted copies); blend only where it was drawn
    drawn = (np.abs(layer - patch).max(axis=2) > 1.0).astype(np.float32)
    premult = layer * drawn[..., None]
    m = np.zeros_like(drawn)
    smeared = np.zeros_like(layer)
    copies = int(np.clip(round(math.hypot(*p.blur) / 3), 3, 24))
    for f in np.linspace(-0.5, 0.5, copies):
        dx, dy = round(p.blur[0] * f), round(p.blur[1] * f)
        _add_shifted(m, drawn, dx, dy)
        _add_shifted(smeared, premult, dx, dy)
    colour = smeared / np.maximum(m, 1e-3)[..., None]
    m = np.clip(m / copies, 0.0, 1.0)[..., None]
    patch[:] = patch * (1 - m) + colour * m


def _add_shifted(acc: np.ndarray, a: np.ndarray, dx: int, dy: int) -> None:
    """acc += a moved by (dx, dy) pixels (what moves out is dropped)."""
    h, w = a.shape[:2]
    if abs(dx) >= w or abs(dy) >= h:
        return
    acc[max(0, dy) : h + min(0, dy), max(0, dx) : w + min(0, dx)] += a[
        max(0, -dy) : h + min(0, -dy), max(0, -dx) : w + min(0, -dx)
    ]


def hand_mask(hand: dict, size=(640, 480)) -> np.ndarray:
    """Float mask (h x w, 0..1) of the arm and hand described by ``hand`` (see compose)."""
    w, h = size
    mask = np.zeros((h, w), np.float32)
    ex, ey = hand["from"]
    hx, hy = hand["at"]
    s = hand.get("scale", 1.0)
    cv2.line(mask, (int(ex), int(ey)), (int(hx), int(hy)), 1.0, int(70 * s), cv2.LINE_AA)
    cv2.ellipse(
        mask,
        (int(hx), int(hy)),
        (int(55 * s), int(45 * s)),
        math.degrees(math.atan2(hy - ey, hx - ex)),
        0,
        360,
        1.0,
        -1,
        cv2.LINE_AA,
    )
    ang = math.atan2(hy - ey, hx - ex)
    for k in range(4):  # fingers
        fa = ang + (k - 1.5) * 0.28
        fx, fy = hx + math.cos(fa) * 85 * s, hy + math.sin(fa) * 85 * s
        cv2.line(mask, (int(hx), int(hy)), (int(fx), int(fy)), 1.0, int(18 * s), cv2.LINE_AA)
    return mask


def _draw_hand(img: np.ndarray, hand: dict, rng: np.random.Generator) -> None:
    """A skin-coloured arm from the frame edge with a hand at ``hand['at']``.

    Shadow and shading are worked out only in the box around the arm (plus the blur reach),
    which keeps a hand frame cheap enough for the live simulated tray.
    """
    h, w = img.shape[:2]
    skin = np.array(hand.get("skin", (120, 150, 205)), np.float32)
    mask = hand_mask(hand, (w, h))
    ys, xs = np.nonzero(mask > 0)
    if len(xs) == 0:
        return
    pad = 48
    x0, y0 = max(0, int(xs.min()) - pad), max(0, int(ys.min()) - pad)
    x1, y1 = min(w, int(xs.max()) + pad + 1), min(h, int(ys.max()) + pad + 1)
    m = mask[y0:y1, x0:x1]
    roi = img[y0:y1, x0:x1]
    # shadow first (the arm's outline moved 10 px right, 14 px down), then the shaded hand
    shifted = np.zeros_like(m)
    shifted[14:, 10:] = m[:-14, :-10] if m.shape[0] > 14 and m.shape[1] > 10 else 0
    sh = cv2.GaussianBlur(shifted, (0, 0), 9)
    roi *= (1 - 0.45 * sh)[..., None]
    shade = cv2.GaussianBlur(m, (0, 0), 12)
    tone = skin * (0.8 + 0.25 * shade[..., None])
    roi[:] = roi * (1 - m[..., None]) + tone * m[..., None]


_NOISE_PAD = 64


@lru_cache(maxsize=8)
def _noise_bank(seed: int, sigma: float, w: int, h: int) -> np.ndarray:
    """Gaussian sensor noise (int16), a little larger than the frame, fixed per style."""
    r = np.random.default_rng([seed, 7])
    bank = np.rint(r.standard_normal((h + _NOISE_PAD, w + _NOISE_PAD, 3)) * sigma)
    bank = bank.astype(np.int16)
    bank.flags.writeable = False
    return bank


@lru_cache(maxsize=8)
def _gauss_levels(sigma: float) -> np.ndarray:
    """256 equally likely levels of Gaussian noise of ``sigma`` (int16): a uniform byte
    looked up in them is Gaussian noise, at a fraction of the cost of drawing normals."""
    nd = NormalDist(0.0, sigma)
    levels = np.rint([nd.inv_cdf((k + 0.5) / 256) for k in range(256)]).astype(np.int16)
    levels.flags.writeable = False
    return levels


def _camera(
    img: np.ndarray, style: Style, rng: np.random.Generator, frame_key: int | None = None
) -> np.ndarray:
    """White balance, exposure, blur, noise and JPEG on a float frame; returns uint8 BGR.
    ``frame_key``: the frame's number in a sequence, whose noise is then its own."""
    img *= np.array(style.cast, np.float32) * style.exposure
    if style.blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), style.blur)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if style.noise > 0:
        # sensor noise. A still scene: a window of a per-style noise bank at a random offset
        # (drawing normal noise afresh would cost more than the rest of the camera model)
        h, w = out.shape[:2]
        ox, oy = (int(v) for v in rng.integers(0, _NOISE_PAD, 2))
        if frame_key is None:
            noise = _noise_bank(style.seed, float(style.noise), w, h)[oy : oy + h, ox : ox + w]
        else:
            # frames in time: noise of their own. The same bank at another offset in every
            # frame is a pattern that moves, and a plain die on it seems to move with it
            # (phase correlation followed it, and a shaken camera's shift was refused)
            g = np.random.default_rng([style.seed, 11, frame_key, ox, oy])
            noise = _gauss_levels(float(style.noise))[g.integers(0, 256, (h, w, 3), dtype=np.uint8)]
        out = np.clip(out.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    if style.jpeg:
        ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(style.jpeg)])
        if ok:
            out = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return out


def compose(
    diceset: DiceSet,
    poses: list[Pose],
    rng: np.random.Generator,
    style: Style,
    size=(640, 480),
    hand: dict | None = None,
    frame_key: int | None = None,
) -> tuple[np.ndarray, list[dict]]:
    """Draw posed dice (and a hand) on the tray; returns (frame BGR uint8, labels).
    ``frame_key``: the frame's number in a sequence (its sensor noise is its own)."""
    w, h = size
    img = tray_floor(style, w, h).copy()
    labels = []
    for p in poses:
        if abs(p.blur[0]) + abs(p.blur[1]) > 0:
            _draw_moving(img, diceset, p, style, rng)
        else:
            _draw_die(img, diceset, p, style, rng)
        box = pose_box(p, w, h)
        if box is not None:
            labels.append(
                {"x": box[0], "y": box[1], "w": box[2], "h": box[3], "die": p.die, "face": p.face}
            )
    if hand is not None:
        _draw_hand(img, hand, rng)
    return _camera(img, style, rng, frame_key), labels


def render_scene(
    diceset: DiceSet,
    dice,
    rng: np.random.Generator,
    size=(640, 480),
    style: Style | None = None,
    fit: bool = False,
) -> tuple[np.ndarray, list[dict]]:
    """A still tray with ``dice`` [(die_id, face_id), ...] at rest; (frame, labels).

    Labels are in the order of ``dice``. ``fit``: a crowded throw is placed with smaller or
    packed dice instead of raising ValueError (see :func:`place_dice`).
    """
    style = style or random_style(rng)
    poses = place_dice(diceset, list(dice), rng, style, size, fit=fit)
    return compose(diceset, poses, rng, style, size)


def render_throw(
    diceset: DiceSet,
    dice,
    rng: np.random.Generator,
    size=(640, 480),
    style: Style | None = None,
    fps: int = 30,
    rest_frames: int = 12,
    hand: bool = True,
    move_frames: int | None = None,
    empty_frames: int = 3,
    pickup: bool = True,
    hand_frames: int = 8,
    fit: bool = False,
):
    """A throw in time: yields ``(frame, truth)`` per frame.

    ``truth`` = ``{"phase": "empty"|"moving"|"rest"|"hand", "labels": [...], "frame": i}``.
    Phases: ``empty_frames`` of empty tray, the dice entering and bouncing (``move_frames``,
    default about 0.6 s), ``rest_frames`` at rest, then (``hand``) a hand reaching in and
    taking the dice (``hand_frames`` in, as many out), and the empty tray again
    (``pickup=False``: the sequence ends at rest). ``fit``: a crowded throw is placed with
    smaller or packed dice instead of raising ValueError (see :func:`place_dice`).
    """
    style = style or random_style(rng)
    final = place_dice(diceset, list(dice), rng, style, size, fit=fit)
    move = move_frames if move_frames is not None else max(6, int(0.6 * fps))
    shoot = partial(compose, diceset, rng=rng, style=style, size=size)
    i = yield from _still(shoot, [], "empty", 0, empty_frames)
    i = yield from _entry(shoot, diceset, final, rng, size, i, move)
    i = yield from _still(shoot, final, "rest", i, rest_frames)
    if hand and pickup:
        i = yield from _pickup(shoot, final, rng, size[1], i, hand_frames)
        yield from _still(shoot, [], "empty", i, empty_frames)


def _still(shoot, poses: list[Pose], phase: str, i: int, n: int):
    """``n`` frames of ``poses`` standing still (none: the empty tray), numbered from ``i``;
    returns the next frame's number."""
    for _ in range(n):
        frame, labels = shoot(poses, frame_key=i)
        yield frame, {"phase": phase, "labels": labels if poses else [], "frame": i}
        i += 1
    return i


def _entry(shoot, diceset: DiceSet, final: list[Pose], rng, size, i: int, move: int):
    """The dice coming in from one side and bouncing into their ``final`` places, in ``move``
    frames numbered from ``i``; returns the next frame's number."""
    starts = _entry_starts(final, rng, size)
    prev = None
    for k in range(move):
        t = (k + 1) / move
        poses = []
        for p, (sx, sy, spin) in zip(final, starts, strict=True):
            # damped approach with a bounce; still rolling (other faces) until late
            e = math.exp(-4.5 * t) * math.cos(9 * t)
            cx = p.cx + (sx - p.cx) * e
            cy = p.cy + (sy - p.cy) * e
            ang = p.angle + spin * (1 - t) ** 2
            face = p.face
            if t < 0.7:
                die = diceset.die(p.die)
                face = die.faces[int(rng.integers(0, 6))]
            poses.append(Pose(p.die, face, cx, cy, p.side, ang, p.tilt))
        if prev is not None:
            poses = [
                replace(q, blur=(q.cx - o.cx, q.cy - o.cy))
                for q, o in zip(poses, prev, strict=True)
            ]
        prev = poses
        frame, labels = shoot(poses, frame_key=i)
        yield frame, {"phase": "moving", "labels": labels, "frame": i}
        i += 1
    return i


def _entry_starts(final: list[Pose], rng, size) -> list[tuple[float, float, float]]:
    """Where each die enters (x, y: off one side of the tray, the same for all) and its spin."""
    w, h = size
    side = int(rng.integers(0, 4))
    starts = []
    for p in final:
        if side == 0:
            sx, sy = -p.side, p.cy + rng.uniform(-80, 80)
        elif side == 1:
            sx, sy = w + p.side, p.cy + rng.uniform(-80, 80)
        elif side == 2:
            sx, sy = p.cx + rng.uniform(-80, 80), -p.side
        else:
            sx, sy = p.cx + rng.uniform(-80, 80), h + p.side
        starts.append((sx, sy, float(rng.uniform(2, 6)) * rng.choice([-1, 1])))
    return starts


def _pickup(shoot, final: list[Pose], rng, h: int, i: int, hand_frames: int):
    """A hand reaching in over the dice (``hand_frames``) and leaving with them (as many),
    frames numbered from ``i``; returns the next frame's number."""
    cx = float(np.mean([p.cx for p in final]))
    cy = float(np.mean([p.cy for p in final]))
    edge = (cx, h + 60) if cy > h / 2 else (cx, -60)
    skin = tuple(
        float(v)
        for v in cv2.cvtColor(
            np.uint8([[[rng.uniform(5, 18), rng.uniform(60, 150), rng.uniform(110, 235)]]]),
            cv2.COLOR_HSV2BGR,
        )[0, 0]
    )
    reach = max(1, hand_frames)
    for k in range(reach):  # the hand comes in over the dice
        t = (k + 1) / reach
        at = (edge[0] + (cx - edge[0]) * t, edge[1] + (cy - edge[1]) * t)
        frame, labels = shoot(final, hand={"from": edge, "at": at, "skin": skin}, frame_key=i)
        yield frame, {"phase": "hand", "labels": labels, "frame": i}
        i += 1
    for k in range(reach):  # and leaves with the dice
        t = 1 - (k + 1) / reach
        at = (edge[0] + (cx - edge[0]) * t, edge[1] + (cy - edge[1]) * t)
        frame, _ = shoot([], hand={"from": edge, "at": at, "skin": skin}, frame_key=i)
        yield frame, {"phase": "hand", "labels": [], "frame": i}
        i += 1
    return i


def random_hand(rng: np.random.Generator, size=(640, 480)) -> dict:
    """A random arm and hand reaching into the tray (for :func:`compose`)."""
    w, h = size
    side = int(rng.integers(0, 4))
    at = (float(rng.uniform(0.2, 0.8) * w), float(rng.uniform(0.2, 0.8) * h))
    edge = [(at[0], h + 60), (at[0], -60), (-60, at[1]), (w + 60, at[1])][side]
    skin = tuple(
        float(v)
        for v in cv2.cvtColor(
            np.uint8([[[rng.uniform(5, 18), rng.uniform(50, 160), rng.uniform(90, 240)]]]),
            cv2.COLOR_HSV2BGR,
        )[0, 0]
    )
    return {"from": edge, "at": at, "skin": skin, "scale": float(rng.uniform(0.7, 1.3))}


def main(argv: list[str] | None = None) -> int:
    """``python -m hardware.sim.render bench``: print render times per frame (CPU and wall).

    >>> main(["bench", "--frames", "1", "--throws", "0"])  # doctest: +ELLIPSIS
    render_scene ...
    0
    """
    import argparse
    import time

    from vision.dicesets import load

    ap = argparse.ArgumentParser(
        prog="python -m hardware.sim.render",
        description="Render benchmark: time per 640x480 frame.",
    )
    ap.add_argument("command", choices=["bench"])
    ap.add_argument("--set", default="tally-up", help="dice set id (default tally-up)")
    ap.add_argument("--frames", type=int, default=50, help="scenes to time (default 50)")
    ap.add_argument("--throws", type=int, default=2, help="throws to time (default 2)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    ds = load(a.set)
    rng = np.random.default_rng(a.seed)
    dice = [(d.id, d.faces[k % 6]) for d in ds.dice for k in range(d.count)][:10]
    style = replace(random_style(rng, die_px=(50.0, 70.0)), jpeg=85, glare=0.5, glossy=True)
    render_scene(ds, dice, rng, style=style)  # fill the caches (floor, faces)
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(a.frames):
        render_scene(ds, dice, rng, style=style)
    n = max(a.frames, 1)
    print(
        f"render_scene {len(dice)} dice of {a.set}: "
        f"{(time.perf_counter() - w0) / n * 1000:.1f} ms wall, "
        f"{(time.process_time() - c0) / n * 1000:.1f} ms CPU per frame"
    )
    per: dict[str, list[float]] = {}
    for _ in range(a.throws):
        c = time.process_time()
        for _frame, truth in render_throw(ds, dice, rng, style=style):
            now = time.process_time()
            per.setdefault(truth["phase"], []).append(now - c)
            c = now
    for phase, times in per.items():
        print(
            f"render_throw {phase:6s}: {np.mean(times) * 1000:.1f} ms CPU mean, "
            f"{max(times) * 1000:.1f} max over {len(times)} frames"
        )
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))


# --------------------------------------------------------------------------------------------
# crops of rendered scenes, labelled by their truth (training)


def rendered_crops(
    dice_set,
    rng: np.random.Generator,
    scenes: int,
    size: int = INPUT_SIZE,
    jitter: float = 0.08,
    random_colours: float = 0.0,
    partial: float = 0.0,
    die_px: tuple[float, float] | None = None,
    far_print: bool = False,
):
    """Crops of dice in rendered scenes (:func:`render_scene`), labelled by its truth.

    Yields (crop, die id, face id, the die's side in pixels). ``die_px``: the dice's size
    range (default: the training range, 16-125 px). Each die
    box is jittered (centre offset and size, ``jitter`` of the side) as a detector's would be.
    ``random_colours``: share of scenes whose dice get random colours (``recoloured``).
    ``partial``: for this share of the dice of 50 px or more, also a crop of a box over one
    corner of it (as a detector boxes one pip cluster of a large die), yielded as
    (crop, None, NONE_CLASS, side): one pip of a 4 is not a 1. ``far_print``: every scene
    printed beyond training's looks (``styles.far_print_style``), never for training.
    """
    original = dice_set
    for _ in range(scenes):
        back = {}
        dice_set = original
        if random_colours and rng.random() < random_colours:
            dice_set, back = recoloured(original, rng, k=4)
        counts = [d for d in dice_set.dice for _ in range(d.count)]
        k = int(rng.integers(1, min(len(counts), 6) + 1))
        pick = [counts[i] for i in rng.choice(len(counts), size=k, replace=False)]
        dice = [(d.id, d.faces[int(rng.integers(0, 6))]) for d in pick]
        digits = digit_share(original.id)
        style = (
            far_print_style(rng, die_px, digits)
            if far_print
            else random_style(rng, die_px, wide=True, digits=digits, far_lights=FAR_LIGHTS)
        )
        try:
            frame, labels = render_scene(dice_set, dice, rng, style=style)
        except ValueError:  # the dice did not fit this tray: another scene
            continue
        for lab in labels:
            box, die_id, face_id = _label_parts(lab)
            if box is None:
                continue
            x, y, w, h = box
            side = max(w, h)
            x += rng.uniform(-jitter, jitter) * side
            y += rng.uniform(-jitter, jitter) * side
            s = rng.uniform(1 - jitter, 1 + jitter)
            crop = cut_crop(frame, (x, y, w * s, h * s), size)
            yield crop, back.get(die_id, die_id), face_id, side * s
            if partial and side >= 50 and rng.random() < partial:
                x, y, w, h = box
                f = rng.uniform(0.4, 0.65)  # the part's side, of the die's
                a = rng.uniform(0, 2 * np.pi)  # towards an edge or corner
                off = (1 - f) / 2 * rng.uniform(0.6, 1.0) * side * 1.2
                cx = x + w / 2 + off * np.cos(a)
                cy = y + h / 2 + off * np.sin(a)
                ps = f * side
                yield (
                    cut_crop(frame, (cx - ps / 2, cy - ps / 2, ps, ps), size),
                    None,
                    NONE_CLASS,
                    ps,
                )


def _label_parts(lab):
    """(box, die, face) from a renderer label, whether it is a dict or an object."""
    get = (lambda k: lab.get(k)) if isinstance(lab, dict) else (lambda k: getattr(lab, k, None))
    box = get("box")
    if box is None and get("x") is not None:
        box = (get("x"), get("y"), get("w"), get("h"))
    die, face = get("die"), get("face")
    if box is None or die is None or face is None:
        return None, None, None
    return tuple(float(v) for v in box), die, face
