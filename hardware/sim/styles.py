"""How a rendered tray looks, one look a throw: its floor (felt, wood, paper, odd trays for the
detector), rim, light, camera troubles and the dice's print (``hardware.sim.looks``): a
:class:`Style`, drawn at random by :func:`random_style` (training's and the held-out scenes'),
:func:`other_style` (the held-out style no training draws), :func:`far_light_style` or
:func:`far_print_style` (prints bent beyond training's, for threshold floors); and
the floor it puts under the dice (:func:`tray_floor`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np

from hardware.sim.looks import (
    DIGIT_SHARE_DEFAULT,
    OTHER_LOOK,
    Look,
    far_look,
    light_cast,
    random_look,
)

FLOORS = {
    "felt-green": (38, 92, 40),
    "felt-blue": (110, 60, 25),
    "felt-red": (40, 35, 120),
    "felt-black": (32, 32, 34),
    "felt-purple": (90, 40, 70),
    "felt-grey": (95, 95, 95),
    "wood": (85, 130, 175),
    "paper": (225, 228, 230),
    "cork": (110, 150, 185),
    "white": (238, 240, 242),
    "dark": (22, 22, 24),
    "wood-dark": (40, 70, 105),
}

# The held-out "other style" (never drawn in training; ``other_style``): a checked tablecloth,
# a greenish fluorescent light off the warm-cold axis training uses, the serif italic look
# of looks.OTHER_LOOK (its font, and stars fatter and rounder than any training star),
# gold or navy ink, and d6 dice with coloured pips of low contrast. Training also prints
# dice in tinted inks (``looks.set_colours``: gold, cream, pastel, navy, brown), so the
# other style's ink colours are not new in kind; its font, star shape, light, floor and d6
# palette are.
OTHER_FLOOR = (150, 160, 175)
_CLASSIC_FLOORS = [
    "felt-green",
    "felt-blue",
    "felt-red",
    "felt-black",
    "felt-purple",
    "felt-grey",
    "wood",
    "paper",
    "cork",
]
OTHER_LIGHT = (0.93, 1.1, 0.9)


@dataclass(frozen=True)
class Style:
    """One look of the tray, kept for a whole throw. Make one with :func:`random_style`.

    >>> Style().floor
    'felt-green'
    """

    seed: int = 0
    floor: str = "felt-green"
    floor_bgr: tuple = (38, 92, 40)
    rim: int = 24  # rim width in px (0: no rim, the floor fills the frame)
    die_px: tuple = (38.0, 62.0)  # die side range in px
    light_dir: tuple = (0.6, 0.8)  # where shadows fall (unit vector)
    shadow: float = 0.45
    gradient: tuple = (0.15, -0.1)  # light falloff across x, y
    cast: tuple = (1.0, 1.0, 1.0)  # white balance multipliers (B, G, R)
    exposure: float = 1.0
    noise: float = 3.0
    blur: float = 0.0
    jpeg: int = 0  # JPEG quality, 0: none
    glare: float = 0.3  # chance of glare on a die
    tilt: float = 0.06  # typical side-strip share of the die side
    glossy: bool = True
    look: Look | None = None  # how the dice are printed (None: vision.faceart's look)
    palette: str = "set"  # "set": the set's colours, varied a little per style;
    # "other": the held-out palette (see OTHER_LIGHT)


def random_style(
    rng: np.random.Generator,
    die_px: tuple | None = None,
    wide: bool = False,
    digits: float = DIGIT_SHARE_DEFAULT,
    far_lights: float = 0.0,
) -> Style:
    """Draw one tray look: floor, rim, light, camera settings and die size range.

    ``wide`` (training): far wider variation: white, dark and dark-wood trays too, dice of
    16-125 px, lights from cold to warm (``looks.light_cast``), and in 60% of the styles a
    random print look of the dice (``looks.random_look``: other fonts, strokes, stars,
    rings, digits for pips in ``digits`` of those looks, see-through bodies). Without it the
    classic looks only (the simulated tray, fixtures and the standard held-out scenes of
    ``dicetray eval``), drawn as before so that seeds keep their frames. ``far_lights``
    (training): the share of wide styles lit far from the camera's white balance
    (``looks.light_cast``).
    """
    floor = str(rng.choice(list(FLOORS) if wide else _CLASSIC_FLOORS))
    base = np.array(FLOORS[floor], np.float32) * rng.uniform(0.75, 1.2, 3)
    if die_px is None:
        lo = float(rng.uniform(16, 80) if wide else rng.uniform(20, 70))
        die_px = (lo, min(125.0 if wide else 120.0, lo * float(rng.uniform(1.1, 1.7))))
    a = rng.uniform(0, 2 * math.pi)
    return Style(
        seed=int(rng.integers(0, 2**31)),
        floor=floor,
        floor_bgr=tuple(float(v) for v in np.clip(base, 5, 250)),
        rim=int(rng.choice([0, 0, 16, 24, 36])),
        die_px=tuple(die_px),
        light_dir=(math.cos(a), math.sin(a)),
        shadow=float(rng.uniform(0.2, 0.6)),
        gradient=(float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.3, 0.3))),
        cast=tuple(
            float(v)
            for v in (light_cast(rng, far=far_lights) if wide else rng.uniform(0.85, 1.15, 3))
        ),
        exposure=float(rng.uniform(0.7, 1.3) if wide else rng.uniform(0.75, 1.25)),
        noise=float(rng.uniform(1, 7)),
        blur=float(rng.choice([0.0, 0.0, rng.uniform(0.4, 1.5 if wide else 1.2)])),
        jpeg=int(rng.choice([0, rng.integers(50, 95)])),
        glare=float(rng.uniform(0, 0.7 if wide else 0.6)),
        tilt=float(rng.uniform(0.0, 0.12)),
        glossy=bool(rng.random() < 0.7),
        look=(
            random_look(rng, digits=digits, translucent=0.25)
            if wide and rng.random() < 0.6
            else None
        ),
    )


def far_light_style(rng: np.random.Generator, warmth: float) -> Style:
    """A classic tray look (:func:`random_style`) under a light ``warmth`` far from the
    camera's white balance (``looks.light_cast``; 3: a tungsten lamp after calibrating by
    daylight, -3 as far the other way): ``dicetray eval``'s far-light rows.

    >>> import numpy as np
    >>> far_light_style(np.random.default_rng(0), 3.0).cast[0] < 0.6
    True
    """
    return replace(random_style(rng), cast=tuple(float(v) for v in light_cast(rng, warmth)))


def far_print_style(
    rng: np.random.Generator, die_px: tuple | None = None, digits: float = DIGIT_SHARE_DEFAULT
) -> Style:
    """A training tray look (:func:`random_style`, wide) whose dice are printed in a
    ``looks.far_look``: glyphs bent and widened beyond any training look's. Training never
    draws it, nor is it the held-out other style: ``lab.farprint`` sets threshold floors on it.

    >>> import numpy as np
    >>> from hardware.sim.looks import WARP_MAX
    >>> far_print_style(np.random.default_rng(0)).look.warp > WARP_MAX
    True
    """
    return replace(random_style(rng, die_px, wide=True), look=far_look(rng, digits))


def other_style(
    rng: np.random.Generator, die_px: tuple | None = None, digits: bool = False
) -> Style:
    """The held-out tray look (never drawn by :func:`random_style`): checked cloth, a green
    fluorescent light, the serif italic print of ``OTHER_LOOK``, gold or navy ink;
    ``digits``: pip faces printed as digits (as on Rollers dice with digits for 1-5).

    >>> import numpy as np
    >>> other_style(np.random.default_rng(0)).floor
    'check'
    """
    s = random_style(rng, die_px, wide=True)
    return replace(
        s,
        floor="check",
        floor_bgr=OTHER_FLOOR,
        rim=0,
        cast=OTHER_LIGHT,
        exposure=float(rng.uniform(0.8, 0.95)),
        look=replace(OTHER_LOOK, digits=digits),
        palette="other",
    )


@lru_cache(maxsize=16)
def tray_floor(style: Style, w: int, h: int) -> np.ndarray:
    """The lit tray without dice (float32 BGR), cached per style and size."""
    rng = np.random.default_rng(style.seed)
    img = np.empty((h, w, 3), np.float32)
    img[:] = style.floor_bgr
    # texture: coarse blotches plus fine grain (felt) or streaks (wood)
    coarse = cv2.resize(
        rng.normal(0, 6, (h // 16 + 1, w // 16 + 1)).astype(np.float32),
        (w, h),
        interpolation=cv2.INTER_CUBIC,
    )
    fine = rng.normal(0, 4, (h, w)).astype(np.float32)
    fine = cv2.GaussianBlur(fine, (0, 0), 0.8)
    tex = coarse + fine
    if style.floor == "check":  # a checked tablecloth
        yy = np.arange(h, dtype=np.float32)[:, None] // 40
        xx = np.arange(w, dtype=np.float32)[None, :] // 40
        tex = tex + 28 * (((yy + xx) % 2) - 0.5)
    if style.floor in ("wood", "cork", "wood-dark"):
        yy = np.arange(h, dtype=np.float32)[:, None]
        xx = np.arange(w, dtype=np.float32)[None, :]
        tex = tex + 10 * np.sin(yy * 0.09 + 3 * np.sin(xx * 0.01 + rng.uniform(0, 6)))
    img += tex[..., None]
    if style.floor in ODD_FLOORS:
        img = _odd_floor(img, style.floor, rng)
    r = style.rim
    if r:
        rim_col = np.array(FLOORS["wood"], np.float32) * rng.uniform(0.5, 1.1)
        mask = np.zeros((h, w), np.float32)
        mask[:r, :] = mask[-r:, :] = 1
        mask[:, :r] = mask[:, -r:] = 1
        img = img * (1 - mask[..., None]) + rim_col * mask[..., None]
        # the rim's shadow on the floor
        inner = np.zeros((h, w), np.float32)
        sr = int(r * 1.6)
        inner[:sr, :] = 1
        inner[:, :sr] = 1
        inner = cv2.GaussianBlur(inner, (0, 0), r * 0.5) * (1 - mask)
        img *= (1 - 0.35 * inner)[..., None]
    # uneven light and white balance
    gx = np.linspace(-1, 1, w, dtype=np.float32)[None, :]
    gy = np.linspace(-1, 1, h, dtype=np.float32)[:, None]
    light = 1 + style.gradient[0] * gx + style.gradient[1] * gy
    img *= light[..., None]
    return img


# Trays unlike the named floors, for the detector's training only (``odd_floor_style``): wood
# grain of any colour, direction and scale (a grain as fine as pips), a printed board of
# coloured shapes and lines (a game board), coarse speckle (granite, carpet, a mouse mat).
# Not in FLOORS, so no seeded style (held-out scenes) draws them.
ODD_FLOORS = ("grain", "board", "speckle")


def odd_floor_style(style: Style, rng: np.random.Generator) -> Style:
    """``style`` on one of ``ODD_FLOORS``, its colour any colour.

    >>> import numpy as np
    >>> odd_floor_style(Style(), np.random.default_rng(0)).floor in ODD_FLOORS
    True
    """
    return replace(
        style,
        floor=str(rng.choice(ODD_FLOORS)),
        floor_bgr=tuple(float(v) for v in rng.uniform(15, 240, 3)),
    )


def _odd_floor(img: np.ndarray, kind: str, rng: np.random.Generator) -> np.ndarray:
    h, w = img.shape[:2]
    yy = np.arange(h, dtype=np.float32)[:, None]
    xx = np.arange(w, dtype=np.float32)[None, :]
    if kind == "grain":
        a = rng.uniform(0, np.pi)
        u = xx * np.cos(a) + yy * np.sin(a)
        v = -xx * np.sin(a) + yy * np.cos(a)
        wave = np.sin(
            u * rng.uniform(0.05, 0.6)
            + rng.uniform(1, 5) * np.sin(v * rng.uniform(0.003, 0.03) + rng.uniform(0, 6))
        )
        return img * (1 + rng.uniform(0.08, 0.3) * wave)[..., None]
    if kind == "board":
        base = img.copy()
        for _ in range(int(rng.integers(4, 14))):
            colour = tuple(float(c) for c in rng.uniform(15, 240, 3))
            pts = (rng.uniform(-0.2, 1.2, (int(rng.integers(3, 7)), 2)) * (w, h)).astype(np.int32)
            if rng.random() < 0.4:
                cv2.polylines(
                    base, [pts], bool(rng.random() < 0.5), colour, int(rng.integers(2, 12))
                )
            else:
                cv2.fillPoly(base, [pts], colour)
        return cv2.GaussianBlur(base, (0, 0), 0.8) + (img - img.mean(axis=(0, 1)))
    d = int(rng.integers(2, 9))
    grain = cv2.resize(
        rng.normal(0, 1, (max(2, h // d), max(2, w // d))).astype(np.float32),
        (w, h),
        interpolation=cv2.INTER_NEAREST,
    )
    return img * (1 + rng.uniform(0.25, 0.6) * np.clip(grain, -2, 2) / 2)[..., None]
