"""How dice look on the simulated tray: body and ink colours, faces printed in many looks
(fonts, strokes, stars, rings, pips or digits, see-through bodies) from the dice-set data, and
lights from cold to warm. The renderer (hardware/sim/render.py) draws its dice with these;
the workshop's synthetic training crops (lab/synth.py) too.

One look family (OTHER_LOOK, with OTHER_LIGHT and OTHER_FLOOR in hardware/sim/render.py) is
never drawn in training: the held-out "other style" of ``dicetray eval``.
"""

from __future__ import annotations

import importlib.util
import math
import os
import zlib
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.faceart import put_text

# --------------------------------------------------------------------------------------------
# colours


def _bgr(rgb) -> tuple[int, int, int]:
    r, g, b = rgb
    return int(b), int(g), int(r)


def hex_bgr(value: str) -> tuple[int, int, int]:
    return _bgr((int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)))


def random_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    """A random saturated or plain die-body colour (BGR)."""
    h = rng.uniform(0, 180)
    s = rng.choice([rng.uniform(0, 40), rng.uniform(90, 255)])
    v = rng.uniform(30, 250)
    hsv = np.uint8([[[h, s, v]]])
    return tuple(int(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])


def _lum(bgr) -> float:
    """The lightness of a BGR colour (Rec. 601 weights), 0..255."""
    return 0.114 * bgr[0] + 0.587 * bgr[1] + 0.299 * bgr[2]


def contrast_ink(rng: np.random.Generator, body, low: bool = False) -> tuple[int, int, int]:
    """A mark colour that stands out from the body (random hue, lightness far from the body);
    ``low``: one of low contrast (lightness 30-75 apart: coloured pips on a coloured die)."""
    lum = _lum(body)
    lo, hi = (30, 75) if low else (80, 256)
    for _ in range(40):
        c = random_colour(rng)
        if low and rng.random() < 0.5:  # the body's own hue, lighter or darker
            f = rng.uniform(0.35, 0.7) if lum > 110 else rng.uniform(1.6, 2.6)
            c = tuple(int(np.clip(v * f, 0, 255)) for v in body)
        if lo < abs(_lum(c) - lum) < hi:
            return c
    return (20, 20, 20) if lum > 128 else (240, 240, 240)


def die_colours(rng: np.random.Generator, low_contrast: float = 0.25):
    """Random (body, ink) BGR colours of a pip die: a classic pair, a random pair, or (in
    ``low_contrast`` of the random ones) coloured marks of low contrast."""
    if rng.random() < 0.3:
        return _D6_PAIRS[rng.integers(0, len(_D6_PAIRS))]
    body = random_colour(rng)
    return body, contrast_ink(rng, body, low=rng.random() < low_contrast)


def set_colours(rng: np.random.Generator, body, ink):
    """A die of a set's own colours as another printing of it would be: hue within a few
    degrees, saturation and lightness within about 15% (red, orange and yellow stay apart),
    and now and then another ink: white, greys, black, or a tinted one (gold, cream, pastel
    for an ink lighter than the body; navy, brown, dark green for a darker one). Another
    printing keeps the marks readable: red pips on a black body are lighter than it, so
    their other inks are light ones too, never black on black.

    >>> black, red = (21, 21, 21), (32, 32, 208)  # BGR: a black die with red pips
    >>> inks = [set_colours(np.random.default_rng(s), black, red)[1] for s in range(200)]
    >>> min(0.114 * b + 0.587 * g + 0.299 * r for b, g, r in inks) > 60
    True
    """
    hsv = cv2.cvtColor(np.uint8([[body]]), cv2.COLOR_BGR2HSV)[0, 0].astype(np.float32)
    hsv[0] = (hsv[0] + rng.uniform(-3, 3)) % 180
    hsv[1] = np.clip(hsv[1] * rng.uniform(0.85, 1.12), 0, 255)
    hsv[2] = np.clip(hsv[2] * rng.uniform(0.85, 1.12), 0, 255)
    body = tuple(int(v) for v in cv2.cvtColor(np.uint8([[hsv]]), cv2.COLOR_HSV2BGR)[0, 0])
    # a light ink is one lighter than the body (not lighter than mid-grey: red or green pips
    # on black are darker than that, and a dark ink in their place would hide them)
    light = _lum(ink) > _lum(body)
    u = rng.random()
    if u < 0.25:
        g = rng.uniform(200, 255) if light else rng.uniform(0, 60)
        ink = (g, g, g)
    elif u < 0.55:  # a tinted ink: gold, cream or pastel for a light one, navy or brown...
        # ... in a third of them near the body's own hue (gold on orange: low contrast)
        hue = (hsv[0] + rng.uniform(-15, 15)) % 180 if rng.random() < 0.35 else rng.uniform(0, 180)
        tint = np.uint8(
            [
                [
                    [
                        hue,
                        rng.uniform(40, 160) if light else rng.uniform(80, 255),
                        rng.uniform(190, 250) if light else rng.uniform(40, 110),
                    ]
                ]
            ]
        )
        ink = tuple(float(v) for v in cv2.cvtColor(tint, cv2.COLOR_HSV2BGR)[0, 0])
    ink = tuple(int(np.clip(c + rng.normal(0, 8), 0, 255)) for c in ink)
    return body, ink


# classic body/ink pairs of standard dice (BGR); random pairs are added on top
_D6_PAIRS = [
    ((235, 238, 240), (20, 20, 20)),
    ((20, 20, 20), (235, 235, 235)),
    ((40, 40, 200), (240, 240, 240)),
    ((200, 90, 30), (240, 240, 240)),
    ((50, 150, 40), (240, 240, 240)),
    ((30, 200, 235), (20, 20, 20)),
    ((160, 50, 120), (240, 240, 240)),
    ((30, 120, 240), (240, 240, 240)),
    ((235, 238, 240), (40, 40, 200)),
    ((210, 215, 220), (120, 40, 20)),
    ((60, 60, 60), (40, 200, 240)),
    ((235, 235, 240), (150, 60, 20)),
]


def _bgr_hex(bgr) -> str:
    b, g, r = (int(v) for v in bgr)
    return f"#{r:02x}{g:02x}{b:02x}"


def recoloured(dice_set, rng: np.random.Generator, k: int = 4):
    """The set with each die copied into ``k`` dice of random body/ink colours.

    For sets whose real dice come in any colour (the pip d6): scenes rendered from it show
    dice of many colours. Returns (new set, {new die id: original die id}); the copies carry
    the original's faces and count.

    >>> import numpy as np
    >>> from vision.dicesets import load
    >>> ds, back = recoloured(load("d6"), np.random.default_rng(0), k=3)
    >>> len(ds.dice), sorted(set(back.values()))
    (3, ['d6'])
    """
    dice, back = [], {}
    for die in dice_set.dice:
        for i in range(k):
            body, ink = die_colours(rng)
            new_id = f"{die.id}~{i}"
            dice.append(replace(die, id=new_id, body=_bgr_hex(body), ink=_bgr_hex(ink)))
            back[new_id] = die.id
    return replace(dice_set, dice=tuple(dice)), back


# --------------------------------------------------------------------------------------------
# drawing one die face from its description (die coordinates: the face spans -1..1)

_PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
    7: [(-1, -1), (1, -1), (-1, 0), (0, 0), (1, 0), (-1, 1), (1, 1)],
    8: [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)],
    9: [(i, j) for j in (-1, 0, 1) for i in (-1, 0, 1)],
}


def _star_points(n: int, r_out: float, r_in: float, rot: float) -> np.ndarray:
    pts = []
    for i in range(2 * n):
        r = r_out if i % 2 == 0 else r_in
        a = rot + math.pi * i / n - math.pi / 2
        pts.append((r * math.cos(a), r * math.sin(a)))
    return np.array(pts)


_ZAP = np.array(
    [
        (0.15, -0.62),
        (-0.35, 0.08),
        (-0.02, 0.08),
        (-0.18, 0.62),
        (0.38, -0.12),
        (0.04, -0.12),
        (0.22, -0.62),
    ]
)


# --------------------------------------------------------------------------------------------
# looks: how one physical dice set is printed (fonts, strokes, star and ring shapes, pips or
# digits, see-through bodies). Training draws random looks; one look family (OTHER_LOOK, with
# OTHER_LIGHT and OTHER_FLOOR in hardware.sim.render) is never drawn in training: the held-out
# "other style" of ``dicetray eval``.

# stroke fonts: the Hershey fonts as Hershey-Fonts (PyPI, MIT) carries them, drawn here so
# that every OpenCV draws the same glyphs (OpenCV 5's putText draws all its Hershey fonts in one
# sans typeface). The first three are the roman simplex, duplex and triplex; a look may slant
# any of them. The Times family is never drawn in training: its italic is the held-out print.
TRAIN_FONTS = (
    "rowmans",
    "rowmand",
    "rowmant",
    "futural",
    "futuram",
    "cursive",
    "gothiceng",
    "gothicger",
    "gothicita",
    "gothgbt",
)
HELD_OUT_FONTS = ("timesr", "timesi", "timesib", "timesrb", "timesg")
HELD_OUT_FONT = "timesi"
ITALIC_SLANT = 0.22  # x shift per unit of height of a slanted look
# outline (TrueType) fonts, as real dice are printed: the DejaVu family of Debian's
# fonts-dejavu-core (sans, serif, mono, condensed; bold, oblique, extra light), the font
# pygame-ce ships and, where the train extra is installed, the Computer Modern fonts
# matplotlib ships (BaKoMa's TrueType Computer Modern: roman, bold, italic, old-style figures,
# sans, typewriter; BaKoMa Fonts Licence; its STIX fonts are Times-like, so not used). Looks
# print with one of them about half the time; a machine without them draws the Hershey fonts
# alone.
TTF_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/TTF"))
CM_FONTS = ("cmr10", "cmb10", "cmti10", "cmmi10", "cmss10", "cmtt10")
TTF_SHARE = 0.5
# share of training looks whose glyphs are bent and widened into a typeface of their own (a
# print never seen is then one more bend away, not a new shape: Rollers read 3% of the held-out
# italic's digits wrong when trained on the fonts as drawn), and the most a glyph bends
WARP_SHARE = 0.6
WARP_MAX = 0.045
# prints just past the most training bends and widens its fonts (``far_look``): no network
# trains on them; thresholds are held to the wrong-read bound on them too (lab.farprint). Not
# further: bent 1.5-2.5 x as far, a digit can become another (a cursive 1 bent into a 2, a 5
# into a 3), and floors set there would rest on dice no one could read
FAR_WARP = (1.1 * WARP_MAX, 1.6 * WARP_MAX)
FAR_WIDEN = ((0.65, 0.72), (1.33, 1.4))
# share of training looks that print pip faces as digits, for sets with pip faces: Rollers
# half (measured: a network trained without that share read 22% of the held-out digit dice
# right on the camera path, 50% after 8 epochs at half; classic 97.7% -> 96.8%), others (d6)
# DIGIT_SHARE_DEFAULT
DIGIT_SHARE = {"rollers": 0.5}
DIGIT_SHARE_DEFAULT = 0.25


def digit_share(set_id: str) -> float:
    """The share of a set's training looks printing its pip faces as digits.

    >>> digit_share("rollers"), digit_share("d6")
    (0.5, 0.25)
    """
    return DIGIT_SHARE.get(set_id, DIGIT_SHARE_DEFAULT)


@lru_cache(maxsize=1)
def ttf_fonts() -> tuple[str, ...]:
    """The outline fonts training may print with (paths; empty where none are found)."""
    found = sorted(
        str(f)
        for d in TTF_DIRS
        if d.is_dir()
        for f in d.glob("DejaVu*.ttf")
        if "Math" not in f.name
    )
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame  # a dependency of dicetray (the screen): its own font is always there

    found += [str(f) for f in sorted(Path(pygame.__file__).parent.glob("*.ttf"))]
    mpl = importlib.util.find_spec("matplotlib")  # found, not imported
    if mpl is not None and mpl.origin:
        cm = Path(mpl.origin).parent / "mpl-data" / "fonts" / "ttf"
        found += [str(cm / f"{n}.ttf") for n in CM_FONTS if (cm / f"{n}.ttf").is_file()]
    return tuple(found)


def ttf_font(path: str):
    """The outline font at ``path``, opened once in each process. A font opened before a
    ``fork`` is not used in the child: FreeType reads the file through a descriptor whose
    offset the forked training workers would share, and two of them reading at once got
    "Failed to resize font: unknown file format" (seen in tally-up training, seed 16)."""
    return _ttf_font(path, os.getpid())


@lru_cache(maxsize=64)
def _ttf_font(path: str, pid: int):
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame.freetype

    pygame.freetype.init()
    font = pygame.freetype.Font(path)
    font.antialiased = True
    return font


def _put_ttf(m: np.ndarray, text: str, path: str, max_w: float, max_h: float) -> None:
    """Print ``text`` in the outline font at ``path`` into the mask ``m``, centred, as large
    as ``max_w`` x ``max_h`` px allow."""
    g = _ttf_mask(text, path)
    gh, gw = g.shape
    scale = min(max_w / gw, max_h / gh)
    nw, nh = max(1, round(gw * scale)), max(1, round(gh * scale))
    g = cv2.resize(g, (nw, nh), interpolation=cv2.INTER_AREA)
    c = m.shape[0]
    x0, y0 = (c - nw) // 2, (c - nh) // 2
    xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + nw, c), min(y0 + nh, c)
    m[ya:yb, xa:xb] = np.maximum(m[ya:yb, xa:xb], g[ya - y0 : yb - y0, xa - x0 : xb - x0])


def _ttf_mask(text: str, path: str) -> np.ndarray:
    """``text`` in the outline font at ``path``: a tight uint8 coverage mask, 96 px tall."""
    buf, (w, h) = ttf_font(path).render_raw(text, size=96)
    a = np.frombuffer(buf, np.uint8).reshape(h, w)
    ys, xs = np.nonzero(a)
    return a[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1] if len(ys) else a


@dataclass(frozen=True)
class Look:
    """How a dice set is printed: font and stroke of numbers and text, star and ring shapes,
    pip size, pip faces printed as digits, a see-through body (``translucent`` 0..0.7).

    >>> Look().digits, Look(digits=True).digits
    (False, True)
    """

    font: str = "rowmans"  # a stroke font (TRAIN_FONTS, HELD_OUT_FONTS)
    slant: float = 0.0  # x shift per unit of height: ITALIC_SLANT slants the print
    ttf: str = ""  # an outline font file, used instead of ``font`` when given
    stroke: float = 0.045  # stroke width, share of the face side
    text_size: float = 1.0  # text size factor
    digits: bool = False  # pip faces printed as the digit of their count
    star_points: int = 5
    star_inner: float = 0.4  # inner / outer radius of a star
    star_round: float = 0.0  # rounded star tips (blur radius, share of the face)
    star_size: float = 1.0
    ring: float = 0.045  # ring stroke width, share of the face side
    ring_radius: float = 0.75
    double_ring: bool = False
    pip: float = 1.0  # pip radius factor
    logo: bool = False  # a casino-style ring of small print around the single pip
    translucent: float = 0.0
    # the print's own typeface, made from the font: each glyph bent by a smooth field of
    # ``warp`` x the face side at most, and ``widen`` x as wide (the same for one look)
    warp: float = 0.0
    widen: float = 1.0
    warp_seed: int = 0
    bend_marks: bool = False  # stars and zaps bent too (far looks only: training never does)


def random_look(rng: np.random.Generator, digits: float = 0.0, translucent: float = 0.0) -> Look:
    """A training look: any of TRAIN_FONTS (never HELD_OUT_FONT), stroke widths, star and ring
    shapes; pip faces as digits in ``digits`` of the looks, see-through in ``translucent``."""
    # one draw picks the font and whether it is slanted (seeded scenes keep every other draw)
    pick_font = int(rng.integers(0, 2 * len(TRAIN_FONTS)))
    stroke = float(rng.uniform(0.025, 0.085))
    # the outline font is picked from the stroke already drawn, not by another draw: seeded
    # scenes (the held-out ones of ``dicetray eval`` among them) keep every other draw
    ttfs = ttf_fonts()
    pick = int(stroke * 1e9) % 997 / 997
    ttf = ttfs[int(pick / TTF_SHARE * len(ttfs))] if ttfs and pick < TTF_SHARE else ""
    text_size = float(rng.uniform(0.8, 1.1))
    # the glyphs' bend, from the text size already drawn (no draw of its own, as above)
    bits = int(text_size * 1e9)
    bent = bits % 997 / 997 < WARP_SHARE
    return Look(
        font=TRAIN_FONTS[pick_font // 2],
        slant=ITALIC_SLANT * (pick_font % 2),
        ttf=ttf,
        stroke=stroke,
        text_size=text_size,
        digits=bool(rng.random() < digits),
        star_points=int(rng.choice([5, 5, 5, 6, 4])),
        star_inner=float(rng.uniform(0.3, 0.5)),
        star_round=float(rng.choice([0.0, 0.0, rng.uniform(0.01, 0.04)])),
        star_size=float(rng.uniform(0.8, 1.15)),
        ring=float(rng.uniform(0.025, 0.08)),
        ring_radius=float(rng.uniform(0.66, 0.86)),
        double_ring=bool(rng.random() < 0.15),
        pip=float(rng.uniform(0.75, 1.3)),
        logo=bool(rng.random() < 0.15),
        translucent=float(rng.uniform(0.25, 0.65)) if rng.random() < translucent else 0.0,
        warp=WARP_MAX * (bits // 997 % 991) / 991 if bent else 0.0,
        widen=0.75 + 0.55 * (bits // 7 % 983) / 983 if bent else 1.0,
        warp_seed=bits,
    )


def far_look(rng: np.random.Generator, digits: float = 0.0) -> Look:
    """A training look with its glyphs bent just further than any training look's
    (``FAR_WARP``) and narrower or wider than any (``FAR_WIDEN``), its stars and zaps bent: a
    print no network trained on, for the threshold floors of ``lab.farprint``; pip faces as
    digits in ``digits`` of them.

    >>> look = far_look(np.random.default_rng(0), digits=1.0)
    >>> look.digits, look.warp > WARP_MAX, not 0.7 < look.widen < 1.35
    (True, True, True)
    """
    look = random_look(rng, digits=digits, translucent=0.25)
    lo, hi = FAR_WIDEN[int(rng.integers(0, 2))]
    return replace(
        look,
        warp=float(rng.uniform(*FAR_WARP)),
        widen=float(rng.uniform(lo, hi)),
        warp_seed=int(rng.integers(0, 2**31)),
        bend_marks=True,
    )


# the held-out look: a serif italic font, thick strokes, fat rounded stars, a thick ring, pips
# printed as digits on the pip faces of sets with other faces (Rollers: 1-5 and a star)
OTHER_LOOK = Look(
    font=HELD_OUT_FONT,
    stroke=0.07,
    text_size=0.95,
    digits=False,
    star_points=5,
    star_inner=0.52,
    star_round=0.045,
    star_size=1.05,
    ring=0.09,
    ring_radius=0.8,
    pip=0.85,
)


def _digit_text(face) -> str | None:
    return str(face.count) if face.mark == "pips" else None


def draw_face_mask(
    face,
    canvas: int,
    rng: np.random.Generator,
    *,
    jitter: bool = True,
    pip_colour=None,
    look: Look | None = None,
) -> list[tuple[np.ndarray, tuple | None]]:
    """Masks (float 0..1, canvas x canvas) of one face's marks, with their colour (None = ink).

    The face square spans the whole canvas. ``jitter`` varies the drawing (pip size and
    spacing, placement) the way different physical dice do; ``look`` is how the set is printed
    (font, strokes, star and ring shapes, digits for pips; default: a random training look).

    >>> import numpy as np
    >>> from vision.dicesets import load
    >>> masks = draw_face_mask(load("rollers").faces["3"], 64, np.random.default_rng(0),
    ...                        look=Look(digits=True))
    >>> len(masks), masks[0][0].shape
    (1, (64, 64))
    """
    if look is None:
        look = random_look(rng) if jitter else Look()
    pen = _Pen(canvas, canvas / 2.0, rng, jitter)
    out: list[tuple[np.ndarray, tuple | None]] = []
    m = np.zeros((canvas, canvas), np.uint8)
    mark, text = face.mark, face.text
    if mark == "pips" and look.digits:
        mark, text = "text", _digit_text(face)
    draw = _MARK_DRAWERS.get(mark)
    if draw is not None:
        m = draw(m, pen, face, mark, text, look)
    if face.circle:
        _draw_ring(m, pen, look)
    if face.mark == "light":
        out.append((_light_mask(pen), hex_bgr(face.color)))
    if m.any():
        col = (
            pip_colour if pip_colour is not None else (hex_bgr(face.color) if face.color else None)
        )
        out.append((m.astype(np.float32) / 255.0, col))
    return out


@dataclass
class _Pen:
    """What the mark drawers share: the canvas side ``c`` (the face square), its half, and the
    jitter (``j(a, b)``: a random number from a to b, the middle without jitter)."""

    c: int
    half: float
    rng: np.random.Generator
    jitter: bool

    def j(self, a: float, b: float) -> float:
        return self.rng.uniform(a, b) if self.jitter else (a + b) / 2

    def px(self, u: float, v: float) -> tuple[int, int]:
        """Face coordinates (-1..1 across) in cv2's 1/16 px fixed point (shift 4)."""
        return round((self.half + u * self.half) * 16), round((self.half + v * self.half) * 16)


def _draw_pips(m: np.ndarray, pen: _Pen, face, mark: str, text, look: Look) -> np.ndarray:
    half, c = pen.half, pen.c
    spacing = pen.j(0.44, 0.56)
    n = face.count
    r = (pen.j(0.13, 0.19) if n > 1 else pen.j(0.14, 0.34)) * look.pip
    if n >= 7:
        r *= 0.8
    r = min(r, 0.24 if n > 1 else 0.4)
    for i, k in _PIPS.get(n, _PIPS[6]):
        cx, cy = pen.px(i * spacing, k * spacing)
        cv2.circle(m, (cx, cy), int(r * half * 16), 255, -1, cv2.LINE_AA, 4)
    if n == 1 and look.logo:  # casino dice: small print on a ring around the pip
        rr = int(min(0.78, r + 0.28) * half)
        cv2.circle(m, (int(half), int(half)), rr, 255, max(1, int(c * 0.02)), cv2.LINE_AA)
        for a in np.arange(0, 2 * math.pi, math.pi / 6):
            p0 = (
                int(half + (rr - 0.08 * half) * math.cos(a)),
                int(half + (rr - 0.08 * half) * math.sin(a)),
            )
            cv2.circle(m, p0, max(1, int(0.03 * c)), 255, -1, cv2.LINE_AA)
    return m


def _draw_star(m: np.ndarray, pen: _Pen, face, mark: str, text, look: Look) -> np.ndarray:
    r_out = pen.j(0.55, 0.72) * look.star_size
    pts = _star_points(
        look.star_points, r_out, r_out * look.star_inner, pen.j(-0.2, 0.2) if pen.jitter else 0.0
    )
    poly = np.array([pen.px(u, v) for u, v in pts], np.int32)
    cv2.fillPoly(m, [poly], 255, cv2.LINE_AA, 4)
    if look.star_round:
        blur = cv2.GaussianBlur(m.astype(np.float32), (0, 0), look.star_round * pen.c)
        m = np.clip((blur - 110) * 3, 0, 255).astype(np.uint8)
    return bend_glyphs(m, mark, look) if look.bend_marks else m


def _draw_zap(m: np.ndarray, pen: _Pen, face, mark: str, text, look: Look) -> np.ndarray:
    sc = pen.j(0.9, 1.2)
    poly = np.array([pen.px(u * sc, v * sc) for u, v in _ZAP], np.int32)
    cv2.fillPoly(m, [poly], 255, cv2.LINE_AA, 4)
    return bend_glyphs(m, mark, look) if look.bend_marks else m


def _draw_text(m: np.ndarray, pen: _Pen, face, mark: str, text, look: Look) -> np.ndarray:
    # (drawn for outline fonts too, which have their own stroke: the draws stay in step)
    half = pen.half
    thick = max(1, round(pen.c * look.stroke * pen.j(0.85, 1.15)))
    big = mark == "text" and not face.circle  # printed as large as the face allows
    width_frac = (0.9 if face.circle else 1.6 if big else 1.2) * pen.j(0.9, 1.05) * look.text_size
    height_frac = 0.9 if big else 0.75
    t = np.zeros_like(m)
    if look.ttf:
        _put_ttf(t, text, look.ttf, width_frac * half, height_frac * half)
    else:
        box = (width_frac * half, height_frac * half)
        put_text(t, text, (half, half), box, thick, 255, font=look.font, slant=look.slant)
    room = (1.2 if face.circle else 1.84) * half  # inside the ring, or the face
    return np.maximum(m, bend_glyphs(t, text, look, room))


def bend_glyphs(t: np.ndarray, text: str, look: Look, room: float | None = None) -> np.ndarray:
    """The printed mask ``t`` of ``text`` (or of a mark: ``"star"``, ``"zap"``) bent and
    widened as ``look`` says: the same text always the same way in one look, as a typeface
    is. Widened, it stays within ``room`` px across (default: most of the face).

    >>> t = np.zeros((64, 64), np.uint8); t[16:48, 28:36] = 255
    >>> bent = bend_glyphs(t, "1", Look(warp=0.04, widen=1.3, warp_seed=5))
    >>> bool((bent > 127).sum() > (t > 127).sum()), bool((bend_glyphs(t, "1", Look()) == t).all())
    (True, True)
    """
    if not look.warp and look.widen == 1.0:
        return t
    c = t.shape[0]
    rng = np.random.default_rng([look.warp_seed, zlib.crc32(text.encode())])
    field = rng.normal(0.0, 1.0, (2, 4, 4)).clip(-2, 2) * (look.warp / 2 * c)
    dx, dy = (cv2.resize(f, (c, c), interpolation=cv2.INTER_CUBIC) for f in field)
    cols = np.nonzero(t.max(0))[0]
    room = 0.92 * c if room is None else room
    widen = min(look.widen, room / (cols[-1] - cols[0] + 1)) if len(cols) else 1.0
    ys, xs = np.mgrid[0:c, 0:c].astype(np.float32)
    mx = ((xs - c / 2) / widen + c / 2 + dx).astype(np.float32)
    my = (ys + dy).astype(np.float32)
    return cv2.remap(t, mx, my, cv2.INTER_LINEAR, borderValue=0)


#: how each kind of mark is drawn into the face's mask (a light is a colour, drawn apart)
_MARK_DRAWERS = {
    "pips": _draw_pips,
    "star": _draw_star,
    "zap": _draw_zap,
    "number": _draw_text,
    "text": _draw_text,
}


def _draw_ring(m: np.ndarray, pen: _Pen, look: Look) -> None:
    """The ring around a circled mark (two with ``look.double_ring``)."""
    rr = look.ring_radius * pen.j(0.95, 1.05)
    width = max(1, int(pen.c * look.ring * pen.j(0.85, 1.15)))
    cv2.circle(m, pen.px(0, 0), int(rr * pen.half * 16), 255, width, cv2.LINE_AA, 4)
    if look.double_ring:
        cv2.circle(
            m,
            pen.px(0, 0),
            int((rr + 0.1) * pen.half * 16),
            255,
            max(1, width // 2),
            cv2.LINE_AA,
            4,
        )


def _light_mask(pen: _Pen) -> np.ndarray:
    """A light face's coloured part (float 0..1): a disc, a square inset or the whole face."""
    c, half = pen.c, pen.half
    lm = np.zeros((c, c), np.uint8)
    style = pen.rng.integers(0, 3) if pen.jitter else 0
    if style == 0:  # a coloured disc
        cv2.circle(lm, pen.px(0, 0), int(pen.j(0.45, 0.7) * half * 16), 255, -1, cv2.LINE_AA, 4)
    elif style == 1:  # a coloured square inset
        a = pen.j(0.5, 0.8)
        p0, p1 = pen.px(-a, -a), pen.px(a, a)
        cv2.rectangle(lm, (p0[0] >> 4, p0[1] >> 4), (p1[0] >> 4, p1[1] >> 4), 255, -1)
    else:  # the whole face
        lm[:] = 255
    return lm.astype(np.float32) / 255.0


def look_face_rgba(
    face, size: int, body, ink, look: Look, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """A top face printed in ``look`` (BGR uint8 size x size, alpha uint8: 255 inside the
    face), as ``vision.faceart.face_rgba`` gives it: the renderer's faces in other looks.

    >>> import numpy as np
    >>> from vision.dicesets import load
    >>> img, a = look_face_rgba(load("d6").faces["5"], 32, (230, 230, 230), (20, 20, 20),
    ...                         Look(digits=True), np.random.default_rng(0))
    >>> img.shape, int(a[16, 16])
    ((32, 32, 3), 255)
    """
    n = size * 4
    img = np.empty((n, n, 3), np.float32)
    img[:] = body
    mask = rounded_square(n, np.float32([[0, 0], [n, 0], [n, n], [0, n]]), 0.15)
    inner = cv2.erode(mask, np.ones((3, 3), np.uint8), iterations=max(1, n // 40))
    img *= (0.78 + 0.22 * cv2.GaussianBlur(inner, (0, 0), n / 60))[..., None]
    k = int(n * 0.86)
    o = (n - k) // 2
    for m, colour in draw_face_mask(face, k, rng, jitter=True, look=look):
        col = np.array(colour if colour is not None else ink, np.float32)
        region = img[o : o + k, o : o + k]
        region[:] = region * (1 - m[..., None]) + col * m[..., None]
    small = cv2.resize(np.clip(img, 0, 255), (size, size), interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(mask * 255, (size, size), interpolation=cv2.INTER_AREA)
    return small.astype(np.uint8), alpha.astype(np.uint8)


def rounded_square(n: int, quad: np.ndarray, radius_frac: float) -> np.ndarray:
    """Mask (float, n x n) of a rounded square mapped onto the quadrilateral ``quad`` (4x2)."""
    k = 64
    sq = np.zeros((k, k), np.uint8)
    r = int(radius_frac * k)
    cv2.rectangle(sq, (r, 0), (k - 1 - r, k - 1), 255, -1)
    cv2.rectangle(sq, (0, r), (k - 1, k - 1 - r), 255, -1)
    for cx, cy in ((r, r), (k - 1 - r, r), (r, k - 1 - r), (k - 1 - r, k - 1 - r)):
        cv2.circle(sq, (cx, cy), r, 255, -1, cv2.LINE_AA)
    src = np.float32([[0, 0], [k, 0], [k, k], [0, k]])
    h = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    return cv2.warpPerspective(sq, h, (n, n), flags=cv2.INTER_LINEAR).astype(np.float32) / 255.0


FAR_LIGHTS = 0.25  # training: share of lights far from the camera's white balance
# (see light_cast)
MAX_WARMTH = 3.0


def light_cast(
    rng: np.random.Generator, warmth: float | None = None, far: float = 0.0
) -> np.ndarray:
    """White-balance gains (B, G, R) of a light between cold and warm, along the warm-cold
    axis (``warmth`` 1: red lifted and blue lowered by about 15%), plus a little per channel.
    Drawn (``warmth`` None): a moderate light (warmth -1..1), or, in a share ``far`` of the
    draws (training: ``FAR_LIGHTS``), one as far off as a lamp the camera's fixed white
    balance was not set for (warmth 1..``MAX_WARMTH`` either way: blue down to 0.55 and red up
    to 1.39, a tungsten lamp after calibrating by daylight). Measured: a Tally Up!
    network trained on moderate lights only read 21 of 324 dice wrong for sure at warmth
    3, purple as red. With ``far`` 0 only moderate lights are drawn, the same draws as with
    no far share (the held-out scenes keep their seeds). Lights off that axis (a green
    fluorescent tint) are kept out of training (hardware.sim.styles.OTHER_LIGHT).

    >>> import numpy as np
    >>> light_cast(np.random.default_rng(0), warmth=1.0).round(2).tolist()[0] < 0.9
    True
    """
    if warmth is not None:
        t = float(warmth)
    elif far and rng.random() < far:
        t = float(rng.choice([-1.0, 1.0]) * rng.uniform(1, MAX_WARMTH))
    else:
        t = float(rng.uniform(-1, 1))
    cast = np.array([1 - 0.15 * t, 1 - 0.01 * t, 1 + 0.13 * t], np.float32)
    return cast * rng.uniform(0.97, 1.03, 3).astype(np.float32)
