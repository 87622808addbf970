"""Synthetic training crops drawn from the dice-set data (workshop only).

Synthetic crops (``SyntheticDice``) are drawn from the dice-set data alone (vision/dicesets/),
so a changed data file needs no hand-made images: pips, stars, zaps, numbers and text, circled
marks and coloured "light" faces are drawn from their description (hardware/sim/looks.py, as
the simulated tray prints them), then warped and spoiled (any rotation, scale, crop offset,
tilt, side faces, shadow, glare, blur, noise, white-balance and exposure shifts, JPEG).
``hardware.sim.render.rendered_crops`` cuts crops from whole rendered scenes. Training only:
nothing at the table imports this module.
"""

from __future__ import annotations

import math
import signal
from dataclasses import dataclass
from multiprocessing import Pool

import cv2
import numpy as np

from hardware.sim.looks import (
    FAR_LIGHTS,
    TRAIN_FONTS,
    Look,
    contrast_ink,
    die_colours,
    digit_share,
    draw_face_mask,
    hex_bgr,
    light_cast,
    random_colour,
    random_look,
    rounded_square,
    set_colours,
)
from vision.crops import CROP_MARGIN, INPUT_SIZE

# dice sets whose real dice come in any colour: this share of their training dice is drawn
# with random body/mark colours
ANY_COLOUR = {"d6": 0.7}
# ... and of those, this share a dark body with vivid pips (black with red or green pips, a
# common everyday colourway): the random pairs above make one in a hundred or so, since a
# vivid pip on black is too close in lightness for ``contrast_ink`` unless it is low contrast
DARK_VIVID = 0.15
# of the crops that show the die's sides, the share seen steeply (``SyntheticDice``'s
# ``side_marks``): sides as deep as 0.3-0.7 of the top face, printed with the marks of other
# faces of the die (an oblique phone photo); at 0 none, and no random number more drawn (the
# committed networks trained without them)
SIDE_MARKS = 0.0


def dark_vivid(rng: np.random.Generator) -> tuple[tuple, tuple]:
    """A (body, ink) BGR pair: a near-black body and pips of a saturated colour.

    >>> body, ink = dark_vivid(np.random.default_rng(3))
    >>> max(body) <= 60 < max(ink)
    True
    """
    body = cv2.cvtColor(
        np.uint8([[[rng.uniform(0, 180), rng.uniform(0, 120), rng.uniform(10, 50)]]]),
        cv2.COLOR_HSV2BGR,
    )[0, 0]
    ink = cv2.cvtColor(
        np.uint8([[[rng.uniform(0, 180), rng.uniform(150, 255), rng.uniform(140, 255)]]]),
        cv2.COLOR_HSV2BGR,
    )[0, 0]
    return tuple(int(c) for c in body), tuple(int(c) for c in ink)


def recolour_crop(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A real die photo crop turned into another die colour (training augmentation).

    Most real photos are of white or grey dice. To learn dice of any colour from them, the
    crop's lightness is repainted between two random colours (a dark die with light pips as
    often as the reverse), or, for a crop that already has colour, its hue is turned.

    >>> import numpy as np
    >>> crop = np.full((8, 8, 3), 230, np.uint8); crop[3:5, 3:5] = 20   # white die, one pip
    >>> out = recolour_crop(crop, np.random.default_rng(1))
    >>> out.shape, out.dtype, bool(abs(int(out[0, 0].mean()) - int(out[4, 4].mean())) > 40)
    ((8, 8, 3), dtype('uint8'), True)
    """
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    if float(hsv[..., 1].mean()) > 60 and rng.random() < 0.5:  # coloured: turn the hue
        hsv[..., 0] = ((hsv[..., 0].astype(np.int32) + int(rng.integers(0, 180))) % 180).astype(
            np.uint8
        )
        return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    lum = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32) / 255.0
    lo, hi = float(np.percentile(lum, 3)), float(np.percentile(lum, 97))
    lum = np.clip((lum - lo) / max(hi - lo, 0.1), 0, 1)
    if rng.random() < 0.5:
        lum = 1.0 - lum
    body = np.float32(random_colour(rng))
    ink = np.float32(contrast_ink(rng, tuple(body)))
    dark, light = (body, ink) if body.mean() < ink.mean() else (ink, body)
    out = dark + lum[..., None] * (light - dark)
    return np.clip(out, 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------------------------
# synthetic die crops


@dataclass
class DieStyle:
    """How one synthetic die looks: body and ink colour (BGR)."""

    body: tuple[int, int, int]
    ink: tuple[int, int, int]


def _felt(rng: np.random.Generator, n: int) -> np.ndarray:
    """A tray-floor background: felt, wood, paper or cloth colour with texture and a gradient."""
    kind = rng.integers(0, 6)
    if kind >= 4:  # white or very dark trays
        kind = 2 if kind == 4 else 1
        base = np.array(
            (rng.uniform(215, 250),) * 3 if kind == 2 else (rng.uniform(8, 35),) * 3, np.float32
        )
    elif kind == 0:
        base = np.array(random_colour(rng), np.float32)
    elif kind == 1:  # felt greens / blues / blacks
        base = np.array(
            [(40, 90, 30), (90, 50, 20), (30, 30, 30), (60, 30, 100), (20, 60, 20)][
                rng.integers(0, 5)
            ],
            np.float32,
        )
    elif kind == 2:  # wood / paper
        base = np.array(
            [(120, 170, 200), (80, 120, 160), (230, 230, 230), (200, 210, 215)][rng.integers(0, 4)],
            np.float32,
        )
    else:
        base = rng.uniform(0, 255, 3).astype(np.float32)
    img = np.empty((n, n, 3), np.float32)
    img[:] = base * rng.uniform(0.6, 1.2)
    noise = rng.normal(0, rng.uniform(2, 14), (n // 4 + 1, n // 4 + 1, 1)).astype(np.float32)
    noise = cv2.resize(noise, (n, n), interpolation=cv2.INTER_LINEAR)[..., None]
    img += noise + rng.normal(0, rng.uniform(0, 6), (n, n, 1)).astype(np.float32)
    gx = np.linspace(-1, 1, n, dtype=np.float32)
    img += rng.uniform(-25, 25) * gx[None, :, None] + rng.uniform(-25, 25) * gx[:, None, None]
    if kind == 2 and rng.random() < 0.5:  # wood grain
        a = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
        grain = np.sin((xx * math.cos(a) + yy * math.sin(a)) * rng.uniform(0.2, 0.6))
        img += (grain * rng.uniform(3, 15))[..., None]
    return img


def spoil(
    img: np.ndarray, rng: np.random.Generator, strength: float = 1.0, far_lights: float = 0.0
) -> np.ndarray:
    """Camera troubles on a float BGR image 0..255: white balance, exposure, blur, noise, JPEG.

    Returns uint8. ``strength`` 0 leaves it almost clean; ``far_lights``: see
    :func:`light_cast`'s ``far``.
    """
    img = img.astype(np.float32)
    if rng.random() < 0.9 * strength:  # white balance and exposure
        img *= light_cast(rng, far=far_lights) * np.float32(rng.uniform(0.55, 1.4))
        img += rng.uniform(-25, 25)
    if rng.random() < 0.3 * strength:  # contrast
        mu = img.mean()
        img = (img - mu) * rng.uniform(0.6, 1.3) + mu
    if rng.random() < 0.12 * strength:  # grey camera
        g = img @ np.float32([0.114, 0.587, 0.299])
        img = np.repeat(g[..., None], 3, axis=2)
    img = np.clip(img, 0, 255)
    if rng.random() < 0.5 * strength:
        s = rng.uniform(0.3, 1.6)
        img = cv2.GaussianBlur(img, (0, 0), s)
    if rng.random() < 0.15 * strength:  # motion blur
        k = int(rng.integers(3, 8))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        ker = cv2.warpAffine(ker, rot, (k, k))
        ker /= max(ker.sum(), 1e-6)
        img = cv2.filter2D(img, -1, ker)
    if rng.random() < 0.6 * strength:
        img = img + rng.normal(0, rng.uniform(1, 9), img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.4 * strength:
        q = int(rng.integers(35, 95))
        ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            img = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return img


class SyntheticDice:
    """Draws labelled die crops of one dice set from its data file, with heavy augmentation.

    ``random_colours``: fraction of dice drawn with random body/ink colours instead of the
    set's own (used for the d6 set, whose real dice come in every colour). ``wide``
    (training): random print looks (``random_look``; pip faces as digits in
    ``digits`` of them, default ``digit_share`` for sets with pip faces; see-through in
    ``translucent``), low-contrast colours, other printings of a set's colours. Without it
    the classic look (three fonts, the set's colours), as the committed models' tests expect.

    >>> import numpy as np
    >>> from vision.dicesets import load
    >>> synth = SyntheticDice(load("d6"))
    >>> img, die, face = synth.sample(np.random.default_rng(0))
    >>> img.shape, die, face in load("d6").faces
    ((48, 48, 3), 'd6', True)
    """

    def __init__(
        self,
        dice_set,
        size: int = INPUT_SIZE,
        random_colours: float = 0.0,
        canvas: int = 2 * INPUT_SIZE,
        faceart_share: float | None = None,
        digits: float | None = None,
        translucent: float = 0.2,
        wide: bool = False,
        side_marks: float = SIDE_MARKS,
    ):
        self.ds = dice_set
        self.side_marks = side_marks
        self.wide = wide
        if faceart_share is None:
            faceart_share = 0.35 if wide else 0.5
        # pip faces printed as digits: only where pips are a set's faces (d6, Rollers)
        has_pips = any(f.mark == "pips" for f in dice_set.faces.values())
        self.digits = (digit_share(dice_set.id) if has_pips else 0.0) if digits is None else digits
        self.translucent = translucent
        self.size = size
        self.canvas = canvas
        self.random_colours = random_colours
        self.faceart_share = faceart_share
        self.pairs = [(d, f) for d in dice_set.dice for f in sorted(set(d.faces))]

    def sample(
        self, rng: np.random.Generator, die=None, face_id: str | None = None, strength: float = 1.0
    ):
        """One crop: (uint8 BGR size x size x 3, die id, face id). Random die/face unless given."""
        if die is None:
            die, face_id = self.pairs[rng.integers(0, len(self.pairs))]
        elif face_id is None:
            face_id = die.faces[rng.integers(0, 6)]
        face = self.ds.faces[face_id]
        # the faces its sides may show (only where sides are printed)
        sides = (
            [self.ds.faces[f] for f in sorted(set(die.faces)) if f != face_id]
            if self.side_marks
            else ()
        )
        if self.wide:
            look = random_look(rng, digits=self.digits, translucent=self.translucent)
        else:
            look = Look(
                font=TRAIN_FONTS[int(rng.integers(0, 3))],
                stroke=float(rng.uniform(0.035, 0.06)),
            )
        own = rng.random() >= self.random_colours
        if not own and self.wide and rng.random() < DARK_VIVID:
            body, ink = dark_vivid(rng)
        elif not own:
            body, ink = die_colours(rng, low_contrast=0.25 if self.wide else 0.0)
        elif self.wide:
            # dice of one colour still vary from printing to printing
            body, ink = set_colours(rng, hex_bgr(die.body), hex_bgr(die.ink))
        else:
            body = tuple(int(np.clip(c + rng.normal(0, 8), 0, 255)) for c in hex_bgr(die.body))
            ink = tuple(int(np.clip(c + rng.normal(0, 8), 0, 255)) for c in hex_bgr(die.ink))
        if own and not look.translucent and rng.random() < self.faceart_share:
            # the face as vision.faceart draws it (the renderer's look), printed with a
            # little random variation
            from vision.faceart import face_rgba

            art = face_rgba(self.ds, die.id, face_id, 96, rng)[0].astype(np.float32)
            return (
                self.draw(rng, face, DieStyle(body, ink), strength, art, sides=sides),
                die.id,
                face_id,
            )
        return (
            self.draw(rng, face, DieStyle(body, ink), strength, look=look, sides=sides),
            die.id,
            face_id,
        )

    def _sides(self, img, rng, quad, centre, side, radius, style, see, floor, sides, look):
        """The die's body below its top face ``quad``, as a view not straight down shows it;
        seen steeply (``side_marks`` of them, where ``sides`` are given), deep and printed."""
        n = img.shape[0]
        body = np.array(style.body, np.float32)
        d = rng.normal(0, 0.12, 2) * side
        steep = bool(self.side_marks and sides and rng.random() < self.side_marks)
        if steep:
            a = rng.uniform(0, 2 * math.pi)
            d = np.array([math.cos(a), math.sin(a)]) * rng.uniform(0.3, 0.7) * side
        side_mask = np.maximum(
            rounded_square(n, quad + d, radius), rounded_square(n, quad + d / 2, radius)
        )
        if steep:  # a deep side: the body swept all the way
            for t in (0.25, 0.75):
                side_mask = np.maximum(side_mask, rounded_square(n, quad + d * t, radius))
        shade = rng.uniform(0.45, 0.85)
        side_col = body * shade
        if see:  # the floor shows through the body, tinted by it
            side_col = side_col * (1 - see) + floor * (body / 255.0) * see * 1.3
        img = img * (1 - side_mask[..., None]) + side_col * side_mask[..., None]
        if steep:
            img = self._side_marks(img, rng, quad, centre, d, sides, style, shade, look)
        return img

    def _side_marks(self, img, rng, quad, centre, d, sides, style, shade, look):
        """The marks of other faces of the die printed on the sides that ``d`` (where the body
        extends from the top face ``quad``) shows, in the side's shade."""
        n, k = img.shape[0], 64
        for i in range(4):
            p, q = quad[i], quad[(i + 1) % 4]
            normal = np.array([q[1] - p[1], p[0] - q[0]])
            if normal @ ((p + q) / 2 - centre) < 0:
                normal = -normal
            if normal @ d <= 0.15 * np.linalg.norm(normal) * np.linalg.norm(d):
                continue  # a side turned away, or seen too edge-on to show its marks
            other = sides[int(rng.integers(0, len(sides)))]
            layers = draw_face_mask(other, k, rng, look=look)
            if not layers:
                continue
            mask = np.rot90(np.max([m for m, _c in layers], axis=0), int(rng.integers(0, 4)))
            corners = np.array([p, q, q + d, p + d], np.float64)
            mid = corners.mean(0)
            dst = ((corners - mid) * 0.86 + mid).astype(np.float32)
            src = np.float32([[0, 0], [k, 0], [k, k], [0, k]])
            h = cv2.getPerspectiveTransform(src, dst)
            m = cv2.warpPerspective(np.ascontiguousarray(mask, np.float32), h, (n, n))
            ink = np.array(style.ink, np.float32) * shade
            img = img * (1 - m[..., None]) + ink * m[..., None]
        return img

    def draw(
        self,
        rng: np.random.Generator,
        face,
        style: DieStyle,
        strength: float = 1.0,
        art: np.ndarray | None = None,
        look: Look | None = None,
        sides=(),
    ) -> np.ndarray:
        """Draw one face of a die of ``style`` as a crop would show it, spoiled by ``strength``;
        ``sides``: the die's other faces, printed on its sides seen steeply (``side_marks``)."""
        n = self.canvas
        img = _felt(rng, n)
        # the die's top face inside the crop: side such that CROP_MARGIN * box ~ crop
        side = n / CROP_MARGIN * rng.uniform(0.72, 0.98) * (1.0 if strength else 0.9)
        off = rng.uniform(-0.09, 0.09, 2) * side * strength
        angle = rng.uniform(0, 2 * math.pi)
        centre = np.array([n / 2, n / 2]) + off
        base = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * side / 2
        rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
        quad = base @ rot.T
        tilt = rng.normal(0, 0.05 * strength, (4, 2)) * side
        quad = quad + tilt + centre
        body = np.array(style.body, np.float32)
        radius = rng.uniform(0.08, 0.25)
        see = look.translucent if look is not None else 0.0
        floor = img.copy() if see else None
        # shadow on the floor
        if rng.random() < 0.7:
            sh = rounded_square(n, quad + rng.uniform(-0.12, 0.12, 2) * side, radius)
            sh = cv2.GaussianBlur(sh, (0, 0), rng.uniform(2, 6))
            img *= (1 - sh * rng.uniform(0.2, 0.6))[..., None]
        # side faces seen when the view is not straight down: the die body extends away
        if rng.random() < 0.55 * strength:
            img = self._sides(img, rng, quad, centre, side, radius, style, see, floor, sides, look)
        top = rounded_square(n, quad, radius)
        # face texture: the marks in die coordinates, then warped onto the quad
        k = 96
        ink = style.ink
        if art is not None:
            face_img, inner = art, 1.0
        else:
            layers = draw_face_mask(face, k, rng, jitter=strength > 0, look=look)
            face_img = np.empty((k, k, 3), np.float32)
            face_img[:] = body
            for mask, colour in layers:
                col = np.array(colour if colour is not None else ink, np.float32)
                if face.mark == "light" or colour is not None:
                    col = col * rng.uniform(0.85, 1.1)
                face_img = face_img * (1 - mask[..., None]) + col * mask[..., None]
            # the inner margin of the face (marks do not reach the rounded edge)
            inner = 0.86
        src = np.float32([[0, 0], [k, 0], [k, k], [0, k]])
        dst = (quad - centre) * inner + centre
        h = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
        warped = cv2.warpPerspective(
            face_img,
            h,
            (n, n),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=tuple(float(v) for v in body),
        )
        if see:
            # a see-through die: the floor shows through its top, tinted by the body, and the
            # marks of the faces below and beside show faintly, shifted and blurred
            under = cv2.GaussianBlur(floor, (0, 0), 1.5) * (body / 255.0) * 1.4
            ghost = np.zeros((n, n), np.float32)
            for _ in range(int(rng.integers(1, 3))):
                other = self.ds.faces[self.pairs[rng.integers(0, len(self.pairs))][1]]
                gm = draw_face_mask(other, k, rng, look=look)
                if not gm:
                    continue
                gm = gm[-1][0][:, ::-1]
                d = rng.uniform(-0.35, 0.35, 2) * side
                hg = cv2.getPerspectiveTransform(
                    src_sq(k),
                    ((quad - centre) * rng.uniform(0.7, 0.95) + centre + d).astype(np.float32),
                )
                ghost = np.maximum(ghost, cv2.warpPerspective(gm, hg, (n, n)))
            ghost = cv2.GaussianBlur(ghost, (0, 0), rng.uniform(0.8, 2.5))
            ghost_col = np.array(ink, np.float32) * 0.8 + body * 0.2
            warped = warped * (1 - see) + under * see
            warped = warped * (1 - 0.5 * ghost[..., None]) + ghost_col * 0.5 * ghost[..., None]
            if art is None:  # the top's own marks stay crisp over the see-through body
                face_m = np.zeros((k, k), np.float32)
                for mask, _c in layers:
                    face_m = np.maximum(face_m, mask)
                fm = cv2.warpPerspective(face_m, h, (n, n), flags=cv2.INTER_LINEAR)
                marks = cv2.warpPerspective(face_img, h, (n, n), flags=cv2.INTER_LINEAR)
                warped = warped * (1 - fm[..., None]) + marks * fm[..., None]
        # light falloff across the face and glare
        gx = np.linspace(-1, 1, n, dtype=np.float32)
        shading = (
            1 + rng.uniform(-0.15, 0.15) * gx[None, :] + rng.uniform(-0.15, 0.15) * gx[:, None]
        )
        warped *= shading[..., None]
        if rng.random() < (0.6 if see else 0.35) * strength:
            g = np.zeros((n, n), np.float32)
            gc = (
                int(centre[0] + rng.uniform(-0.4, 0.4) * side),
                int(centre[1] + rng.uniform(-0.4, 0.4) * side),
            )
            ax = (int(rng.uniform(0.05, 0.25) * side), int(rng.uniform(0.03, 0.15) * side))
            cv2.ellipse(g, gc, ax, rng.uniform(0, 180), 0, 360, 1.0, -1)
            g = cv2.GaussianBlur(g, (0, 0), rng.uniform(1.5, 5))
            warped = warped + g[..., None] * rng.uniform(60, 200)
        img = img * (1 - top[..., None]) + warped * top[..., None]
        img = cv2.resize(np.clip(img, 0, 255), (self.size, self.size), interpolation=cv2.INTER_AREA)
        if rng.random() < 0.3 * strength:
            # a small die far from the camera: the crop is cut from fewer pixels and upscaled
            low = int(rng.uniform(max(12, 0.35 * self.size), 0.8 * self.size))
            img = cv2.resize(
                cv2.resize(img, (low, low), interpolation=cv2.INTER_AREA),
                (self.size, self.size),
                interpolation=cv2.INTER_LINEAR,
            )
        return spoil(img, rng, strength, FAR_LIGHTS if self.wide else 0.0)


def src_sq(k: int) -> np.ndarray:
    """The corners of a k x k image, for perspective warps."""
    return np.float32([[0, 0], [k, 0], [k, k], [0, k]])


def negative_crop(
    rng: np.random.Generator,
    size: int = INPUT_SIZE,
    backgrounds: list[np.ndarray] | None = None,
    far_lights: float = 0.0,
) -> np.ndarray:
    """A crop that is not a readable die: felt, a skin-coloured patch, fingers, clutter, an edge,
    a coin, token or button lying in the tray."""
    n = 2 * size
    kind = rng.integers(0, 6)
    if kind == 4 and backgrounds:
        bg = backgrounds[rng.integers(0, len(backgrounds))]
        bh, bw = bg.shape[:2]
        s = int(rng.uniform(0.08, 0.3) * min(bh, bw))
        x, y = rng.integers(0, bw - s), rng.integers(0, bh - s)
        img = cv2.resize(bg[y : y + s, x : x + s], (n, n)).astype(np.float32)
    else:
        img = _felt(rng, n)
    if kind in (1, 2):  # skin: a hand, fingers or a palm patch
        skin = np.array(
            cv2.cvtColor(
                np.uint8([[[rng.uniform(3, 20), rng.uniform(50, 170), rng.uniform(70, 245)]]]),
                cv2.COLOR_HSV2BGR,
            )[0, 0],
            np.float32,
        )
        mask = np.zeros((n, n), np.float32)
        if kind == 1:
            mask[:] = 1.0
        else:
            for _ in range(int(rng.integers(1, 5))):
                p0 = (int(rng.uniform(-0.2, 1.2) * n), int(rng.uniform(-0.2, 1.2) * n))
                p1 = (int(rng.uniform(0, 1) * n), int(rng.uniform(0, 1) * n))
                cv2.line(mask, p0, p1, 1.0, int(rng.uniform(0.15, 0.35) * n))
        mask = cv2.GaussianBlur(mask, (0, 0), 2)
        tex = skin * (1 + rng.normal(0, 0.04, (n, n, 1))).astype(np.float32)
        yy = np.linspace(-1, 1, n, dtype=np.float32)[:, None, None]
        tex = tex * (1 + rng.uniform(-0.2, 0.2) * yy)
        img = img * (1 - mask[..., None]) + tex * mask[..., None]
    elif kind == 3:  # random blobs and strokes (tray rim, cables, paper)
        for _ in range(int(rng.integers(1, 4))):
            col = random_colour(rng)
            if rng.random() < 0.5:
                cv2.circle(
                    img,
                    (int(rng.uniform(0, n)), int(rng.uniform(0, n))),
                    int(rng.uniform(0.05, 0.5) * n),
                    col,
                    -1,
                )
            else:
                cv2.line(
                    img,
                    (int(rng.uniform(0, n)), int(rng.uniform(0, n))),
                    (int(rng.uniform(0, n)), int(rng.uniform(0, n))),
                    col,
                    int(rng.uniform(2, 0.2 * n)),
                )
    elif kind == 5:  # a coin, token or button: a round flat thing the size of a die
        c = np.array([n / 2, n / 2]) + rng.uniform(-0.08, 0.08, 2) * n
        r = rng.uniform(0.25, 0.4) * n
        metal = [(200, 200, 205), (60, 160, 200), (60, 110, 180), (150, 150, 150)]
        col = np.array(
            metal[rng.integers(0, len(metal))] if rng.random() < 0.7 else random_colour(rng),
            np.float32,
        ) * rng.uniform(0.7, 1.2)
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
        d = np.hypot(xx - c[0], yy - c[1]) / r
        a = np.clip((1 - d) * r / 1.5, 0, 1)  # anti-aliased disc
        shade = 1 + rng.uniform(-0.25, 0.25) * (xx - c[0]) / r + 0.15 * np.cos(d * 9)
        rim = np.clip(1 - np.abs(d - rng.uniform(0.8, 0.92)) * r / 1.5, 0, 1)
        disc = col * shade[..., None] * (1 - 0.3 * rim[..., None])
        sh = cv2.GaussianBlur(a, (0, 0), 3)  # its shadow
        img = img * (1 - 0.4 * np.roll(sh, (3, 3), (0, 1))[..., None])
        img = img * (1 - a[..., None]) + disc * a[..., None]
    img = cv2.resize(np.clip(img, 0, 255), (size, size), interpolation=cv2.INTER_AREA)
    return spoil(img, rng, far_lights=far_lights)


def worker_pool(workers: int):
    """A process pool whose workers end when it does (every crop-making pool of the workshop).

    The workers are forked and inherit their parent's signal handlers; a parent that ran
    pygame holds SDL's SIGTERM handler, which would keep them alive through
    ``Pool.terminate`` (the end of a ``with`` block) and the parent waiting for them for
    good. So each worker starts with the default SIGTERM action."""
    return Pool(workers, initializer=signal.signal, initargs=(signal.SIGTERM, signal.SIG_DFL))
