"""A second, geometric opinion on a d6 pip face: how many pips the top face shows, or None.

The classifier's crop (``vision.crops.cut_crop``: a square of 1.35 times the die box around its
centre) is searched for pip-like blobs and the d6 patterns they make on a 3 x 3 grid of pip
places (``vision.pipgrid``). A pattern is read when its pips sit on the fitted grid and agree
in size, and when it looks like a face:

- between the pips the face is plain: nothing responds there, its grey and colour are even,
  and (dark pips) nothing on it is much brighter than the face: glare may hide a pip;
- no spot of the other kind, brighter or darker than the face, lies on it;
- light pips are one colour: a "pip" of another colour (glare on a pip place) makes the pips
  hidden (:data:`HIDDEN`, a count of 0, which no pip face has), also where that spot pulls
  the pattern a little off its grid or is larger than a pip; but where the pips seen besides
  it make no face (three corners of a 4, a 3's centre and one corner), the spot covers a pip
  and the count stands;
- for the patterns that are parts of larger ones (2, 3, 4), the face ends where a face of that
  grid would, and no pip of the same size and shape lies where the rest of a larger pattern
  would be (a pip on a side face seen at a slant is squashed otherwise); the pips of a 2 or a
  3 have one shape.

A 1 is one round blob (its core an ellipse without skew) near the middle of the crop and in
the middle of a plain face, with nothing near it of either kind; a pip that reads as a 1 and
belongs to a pattern too vetoes both. Anything else, or two readings that disagree, gives
``count=None``: the reader is meant as a veto, so it prefers no opinion to a wrong count.

A crop that gives no count is looked at again, zoomed and sharpened, sharpened, and zoomed
(``read_many``): the small, blurred pips of a die in a soft photo are found so, and a margin
whose strong edges (the floor, a neighbouring die) set the blob threshold is cut back. Since a
look changes the blobs, a count found so stands only when two looks give it and none another,
and a 1 only when the crop as it is does not refuse its pip.

    >>> from vision.dicesets import load
    >>> from vision.faceart import draw_face
    >>> face = draw_face(load("d6"), "d6", "5", size=48)
    >>> crop = cv2.copyMakeBorder(face, 8, 8, 8, 8, cv2.BORDER_CONSTANT, value=(60, 90, 40))
    >>> read_pips(crop).count
    5
    >>> read_pips(np.full((64, 64, 3), 200, np.uint8)).count is None
    True

``read_many`` reads the crops of a frame together (one top-hat call, one labelling, all
grids tried at once): faster than one by one, and each crop gets the answer it gets alone.
Numpy and OpenCV only. ``python -m lab.pipseval`` prints its figures per source of real and
rendered dice, with the time per crop.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.pipgrid import (
    BATCH,
    CODE_COUNT,
    NODE_TOL,
    ONE_CLEAR,
    PLACES,
    SIZE,
    SIZE_RATIO,
    Pattern,
    Scene,
    find_blobs,
    find_ones,
    find_patterns,
    usable,
)

__all__ = ["PipRead", "read_many", "read_pips"]

_FIT_TOL = 0.15  # in g: a pattern is read only when every pip is this close to the fitted grid
# largest / smallest pip diameter on a face that is read (two pips run together are 1.41
# times one; vision.pipgrid.SIZE_RATIO: on a pattern found)
_READ_RATIO = 1.35
_NEAREST = {2: 2.0 * math.sqrt(2.0), 3: math.sqrt(2.0), 4: 2.0, 5: math.sqrt(2.0), 6: 1.0}  # in g
_GAP = 0.85  # a pip's diameter is at most this share of the way to its nearest neighbour
_GAP_6 = 1.0  # ... on a 6, whose pips lie closest (g apart in a row) and are often set close
# light pips of one face are one colour: where they are coloured (the median pip's
# chromaticity, B, G, R over their sum, spreads by _COLOURED or more), a "pip" whose
# chromaticity lies further than _UNLIKE of that spread from the median's is something else
# on a pip place (glare: a 4 with a white spot in its middle counted as a 5, rendered black
# dice with red pips). Set on rendered dice (``lab.everyday`` colourways and the wide style,
# read right: at most 0.34 of the spread; the glare 5: 0.60); the real sources' light pips
# are grey (spread under 0.13)
_COLOURED = 0.2
_UNLIKE = 0.5
# ... also when that "pip" lies up to this (in g) off its place, or is larger than a pip: a
# pattern otherwise read then hides its pips (glare is seldom centred on the place it covers;
# a rendered green-pip 4 with glare near its middle: 0.164 off)
_HIDDEN_FIT = 0.3
# ... and one "pip" whose chromaticity lies this far from the others' median while every
# other pip lies within _ODD_SHARE of that (glare tinted by a see-through green body among
# pale pips: 0.14, the next pip 0.02; on coloured pips only where they are astray, see
# _unlike_pip). Set on rendered dice (``lab.everyday``)
_ODD_GAP = 0.06
_ODD_SHARE = 0.25
_OFF_GRID, _UNLIKE_SIZE = "the pips are off the grid", "the pips differ in size"
_PIP_FAULTS = (_OFF_GRID, _UNLIKE_SIZE)

# a face
_EMPTY_SHARE = 0.5  # nothing on the face responds this share of the weakest pip
_UNIFORM = 0.5  # grey levels on the face span less than this share of the weakest pip
_GLARE = 0.35  # a face of dark pips is no brighter than its median by this share of them
_GLARE_BOX = 1.4  # ... within this (in g) of its centre
_SPOT_GREY = 0.3  # a spot this share of the weakest pip brighter (darker) than the face: glare
_SPOT_DIAM = 6.0  # in g: larger "spots" are the floor round the die
_FACE_SPOT = 1.9  # |u|, |v| < this (in g; the face edge is at 2): where no spot may lie
_EDGE_MIN = 14.0  # a colour this far (0..255, any channel) beyond the face's is off the face
_CLEAR_23 = 3.4  # in g: no similar pip this close to the centre of a 2 or a 3
_SHAPE_RATIO = 2.6  # pips of one face: one's second moments are another's scaled, within this

_ONE_OTHER = 0.25  # ... nor a blob of the other kind this share as strong
_ONE_ROUND = 0.97  # the pip's core: area / (4 pi sqrt(det of its second moments)), 1 an ellipse
_ONE_SKEW = 0.01  # ... and its skew (third moments, scale-free): a disc has none
_ONE_MIDDLE = 0.33  # |edge distance one way - the other way| / width across, at most
_ONE_QUIET = 0.4  # ... nor anything of its kind on the face this share of its response
_ONE_FACE = 1.6  # the face reaches at least this many pip radii beyond the pip's edge

# looks again at a crop not read (``read_many``)
_SHARPEN = (2.5, 1.5)  # unsharp mask: the blur's sigma (px) and how much of it is taken away
_ZOOM = 1.25  # the middle of the crop enlarged this many times


@dataclass(frozen=True)
class PipRead:
    """What the pips say: ``count`` 1..6 on the top face, None for no opinion, or 0 when a
    spot unlike the pips lies on a pip place (:data:`HIDDEN`: no pip face may be read).

    ``score`` (0..1) is how clear the pattern is; ``dark`` whether the pips are darker than the
    face (None without a count).
    """

    count: int | None
    score: float
    dark: bool | None = None


NO_OPINION = PipRead(None, 0.0)
# count 0: a pip place of a pattern holds a spot of another colour than the pips (glare on a
# die with coloured pips): the pips can't be counted, and no pip face may be read on the crop
HIDDEN = PipRead(0, 0.0)


# points spread over the face between the pip places (in g; the face edge is at 2)
_FACE_GRID = np.array(
    [
        (u, v)
        for u in np.linspace(-1.6, 1.6, 9)
        for v in np.linspace(-1.6, 1.6, 9)
        if min(abs(u), abs(v)) <= 1.2
    ]
)
_FG_U, _FG_V = _FACE_GRID[:, 0].copy(), _FACE_GRID[:, 1].copy()
_FLAT = np.array([1.0, SIZE])  # (x, y) . _FLAT: the flat index of a pixel
# points beyond the face's edge along its four axes (in g)
_EDGE_STEPS = (2.2, 2.5, 2.8, 3.1, 3.4, 3.7)
_EDGE_SCAN = np.array(
    [(k * sx, k * sy) for sx, sy in ((1, 0), (-1, 0), (0, 1), (0, -1)) for k in _EDGE_STEPS]
)
# where the third row of a 6 lies when a 4 is two of its rows (in the 4's g)
_SIX_MORE = np.array(
    [(3, -1), (3, 1), (-3, -1), (-3, 1), (-1, 3), (1, 3), (-1, -3), (1, -3)], float
)
# rays out of a lone pip: 8 directions, samples this far (px) beyond its edge; the first two
# lie on the face round the pip
_RAY_DIRS = [(math.cos(a), math.sin(a)) for a in np.arange(8) * math.pi / 4]
_RAY_STEPS = np.array([3.0, 5.0] + [7.0 + 2.0 * k for k in range(12)])
_RAYS = np.array([(dx, dy, s) for dx, dy in _RAY_DIRS for s in _RAY_STEPS])
_RAY_INDEX = np.arange(len(_RAY_STEPS))
# points on the way from a face's centre to a blob (shares of the way)
_PATH = np.linspace(0.3, 1.0, 8)


def _why_not(p: Pattern, sc: Scene, pips: bool = True) -> str:
    """Why pattern ``p`` is not read ("" when it is); ``pips`` False: only what the face
    between them says (not how the pips lie on the grid, nor their sizes)."""
    why = _pips_fault(p, sc) if pips else ""
    if why:
        return why
    # between the pips the face is plain: nothing responds there and its grey is even (a
    # "face" across two dice, over the floor or onto a side is none)
    face = _between(p, sc)
    if face is None:
        return "no face between the pips on the crop"
    resp = sc.resp[p.dark]
    why = _plain_fault(p, sc, resp, face) or _spot_fault(p, sc, face)
    if why or p.count > 4:
        return why
    return _smaller_scale_fault(p, sc, resp, face)


@dataclass
class _Between:
    """The face between a pattern's pips (clear of them): the flat indices of its pixels,
    their grey (lowest and highest) and their colours (n x 3)."""

    fi: np.ndarray
    grey: np.ndarray
    lo: float
    hi: float
    col: np.ndarray


def _pips_fault(p: Pattern, sc: Scene) -> str:
    """What is wrong with the pips themselves: off the grid, unlike in size, or too large for
    their spacing ("" when nothing)."""
    if p.resid > _FIT_TOL:
        return _OFF_GRID
    dl = sc.diam[p.on].tolist()
    if max(dl) > _READ_RATIO * min(dl):
        return _UNLIKE_SIZE
    if sum(dl) / len(dl) > (_GAP_6 if p.count == 6 else _GAP) * _NEAREST[p.count] * p.g:
        return "the pips are too large for their spacing"
    return ""


def _between(p: Pattern, sc: Scene) -> _Between | None:
    """The face between the pips of ``p`` (None when the grid puts it off the crop, or the
    pips cover it)."""
    (m00, m01), (m10, m11) = p.M.tolist()
    tz = complex(*p.t.tolist())
    pz = tz + _FG_U * complex(m00, m10) + _FG_V * complex(m01, m11)
    q = np.rint(pz.view(np.float64))  # x0, y0, x1, y1, ...
    if q.min() < 1 or q.max() > SIZE - 2:
        return None
    free = (np.abs(pz[:, None] - sc.z[p.on]) > 0.6 * sc.diam[p.on] + 2.0).all(1)
    fi = (q.reshape(-1, 2) @ _FLAT).astype(np.intp)[free]  # flat pixel indices
    if fi.size == 0:  # pips so large that no face shows between them
        return None
    grey = sc.grey.ravel()[fi]
    return _Between(fi, grey, float(grey.min()), float(grey.max()), sc.bgr.reshape(-1, 3)[fi])


def _plain_fault(p: Pattern, sc: Scene, resp: np.ndarray, face: _Between) -> str:
    """What makes the face between the pips other than plain: a response, an uneven grey or
    colour, glare ("" when nothing)."""
    weak = p.weakest
    if (resp.ravel()[face.fi] > _EMPTY_SHARE * weak).any():
        return "something else on the face"
    if face.hi - face.lo > _UNIFORM * weak:
        return "the face is not even"
    col = face.col
    if int((col.max(0).astype(np.int16) - col.min(0)).max()) > _UNIFORM * weak:
        return "the face's colour is not even"
    if p.dark:
        # glare: nothing on the face (the pips' places too) is much brighter than its median
        r = int(_GLARE_BOX * p.g)
        x0, y0 = int(p.t[0]), int(p.t[1])
        box = sc.grey[max(0, y0 - r) : y0 + r + 1, max(0, x0 - r) : x0 + r + 1]
        grey = face.grey
        med = float(np.partition(grey, len(grey) // 2)[len(grey) // 2])
        if float(box.max()) - med > _GLARE * weak:
            return "glare on the face"
    return ""


def _spot_fault(p: Pattern, sc: Scene, face: _Between) -> str:
    """A spot of the other kind on the face, brighter or darker than it (glare on a face of
    dark pips), may hide a pip ("" when there is none)."""
    weak, g = p.weakest, p.g
    other = sc.dark != p.dark
    uv = (sc.xy - p.t) @ _inv2(p.M).T
    spot = other & sc.inner & (np.abs(uv) < _FACE_SPOT).all(1) & (sc.diam < _SPOT_DIAM * g)
    spot &= sc.diam >= 0.8 * sc.diam[p.on].min()  # a smaller spot hides no pip
    spot &= sc.strength >= _EMPTY_SHARE * weak
    if spot.any():
        sh, m = sc.shade[spot], _SPOT_GREY * weak
        if ((sh > face.hi + m) | (sh < face.lo - m)).any():
            return "a spot of the other kind on the face"
    return ""


def _smaller_scale_fault(p: Pattern, sc: Scene, resp: np.ndarray, face: _Between) -> str:
    """A 2, 3 or 4 is also part of a larger pattern at a smaller scale: its face must end
    where the grid says, and no similar pip may lie where the rest of a larger one would ("" when
    none does)."""
    M, t, g, weak = p.M, p.t, p.g, p.weakest
    on_xy, on_d = sc.xy[p.on], sc.diam[p.on]
    if not _edges_found(sc, resp, face.col, M, t, weak):
        return "no face edge where the grid puts it"
    shapes = [_shape(sc, k) for k in p.on]
    own = _mean_shape(shapes)
    if p.count <= 3 and not all(_same_shape(own, s) for s in shapes):
        return "the pips differ in shape"
    similar = (sc.dark == p.dark) & sc.pip
    similar &= (sc.diam >= on_d.min() / SIZE_RATIO) & (sc.diam <= on_d.max() * SIZE_RATIO)
    if p.count <= 3:
        near = np.hypot(sc.xy[:, 0] - t[0], sc.xy[:, 1] - t[1]) < _CLEAR_23 * g
        near &= similar & (sc.strength >= _EMPTY_SHARE * weak)
    else:
        d6 = (_SIX_MORE @ M.T + t)[:, None, :] - sc.xy
        near = similar & (np.hypot(d6[..., 0], d6[..., 1]) < 1.5 * NODE_TOL * g).any(0)
    near[p.on] = False
    # ... a pip of the same shape: a pip on a side face seen at a slant is squashed otherwise
    # than the face's own pips
    for k in np.flatnonzero(near):
        if _same_shape(own, _shape(sc, k)) and not _off_face(
            sc, resp, t, k, on_xy, on_d, face.lo, weak
        ):
            return "a similar pip where a larger pattern would have one"
    return ""


def _shape(sc: Scene, k: int) -> tuple[float, float, float]:
    """The second central moments (xx, yy, xy; px^2) of blob ``k``'s pixels."""
    x, y, w, h = sc.box[k].tolist()
    m = cv2.moments(
        (sc.labels[int(sc.dark[k])][y : y + h, x : x + w] == sc.label[k]).view(np.uint8), True
    )
    n = m["m00"]
    return m["mu20"] / n + 1 / 12, m["mu02"] / n + 1 / 12, m["mu11"] / n


def _same_shape(a, b) -> bool:
    """Whether two blobs' moments (:func:`_shape`) are of one ellipse but for its size: the
    eigenvalues of a^-1 b (the roots of det(b - x a) = 0) are within :data:`_SHAPE_RATIO` of
    each other."""
    (axx, ayy, axy), (bxx, byy, bxy) = a, b
    qa = axx * ayy - axy * axy
    qb = -(axx * byy + ayy * bxx - 2 * axy * bxy)
    qc = bxx * byy - bxy * bxy
    root = math.sqrt(max(qb * qb - 4 * qa * qc, 0.0))
    lo, hi = (-qb - root) / (2 * qa), (-qb + root) / (2 * qa)
    return hi <= _SHAPE_RATIO * max(lo, 1e-9)


def _mean_shape(shapes) -> tuple[float, float, float]:
    return tuple(sum(c) / len(shapes) for c in zip(*shapes, strict=False))


def _inv2(M: np.ndarray) -> np.ndarray:
    (a, b), (c, d) = M.tolist()
    det = a * d - b * c
    return np.array([[d, -b], [-c, a]]) / det


def _edges_found(sc: Scene, resp, face, M, t, weak) -> bool:
    """Whether the face of grid ``M``, ``t`` ends where such a face would: going out from the
    centre along each axis, something unlike the face (in colour, or a line) is met by 3.7 g.
    An axis that leaves the crop first counts as found. ``face``: its colours (n x 3)."""
    lo, hi = face.min(0).astype(np.float64), face.max(0).astype(np.float64)
    m = np.maximum(_EDGE_MIN, 0.5 * (hi - lo))
    q = np.rint(_EDGE_SCAN @ M.T + t)
    inside = ((q >= 1) & (q <= SIZE - 2)).all(1)
    fi = (np.clip(q, 0, SIZE - 1) @ _FLAT).astype(np.intp)
    c = sc.bgr.reshape(-1, 3)[fi]
    unlike = ((c < lo - m) | (c > hi + m)).any(1) | (resp.ravel()[fi] > _EMPTY_SHARE * weak)
    # an axis counts when it meets something unlike the face, or leaves the crop
    return bool((unlike | ~inside).reshape(4, -1).any(1).all())


def _off_face(sc: Scene, resp, t, k, on_xy, on_d, glo, weak) -> bool:
    """Whether blob ``k`` lies beyond the edge of the face centred on ``t``: the way to it
    crosses something that responds (a line) or is darker than the face (``glo``..``ghi``:
    a gap, a shadow, the floor). Brighter does not count: glare may hide the rest of a face."""
    p = sc.xy[k]
    pts = t + _PATH[:, None] * (p - t)
    keep = np.hypot(pts[:, 0] - p[0], pts[:, 1] - p[1]) > 0.6 * sc.diam[k] + 2.0
    dd = pts[:, None, :] - on_xy
    keep &= (np.hypot(dd[..., 0], dd[..., 1]) > 0.6 * on_d + 2.0).all(1)
    q = np.rint(pts[keep]).astype(np.intp)
    if not len(q):
        return False
    if q.min() < 1 or q.max() > SIZE - 2:
        return True
    if (resp[q[:, 1], q[:, 0]] > _EMPTY_SHARE * weak).any():
        return True
    grey = sc.grey[q[:, 1], q[:, 0]]
    return bool((grey < glo - _SPOT_GREY * weak).any())


def _why_not_one(p: Pattern, sc: Scene) -> str:
    """Why the 1 ``p`` is not read ("" when it is)."""
    k = int(p.on[0])
    c, r, weak = sc.xy[k], sc.diam[k] / 2.0, p.weakest
    # a plain, even face round it (a logo's ring, a digit's or a star's arms are not)
    q = np.rint(c + _RAYS[:, :2] * (r + _RAYS[:, 2:])).astype(np.intp)
    inside = ((q >= 0) & (q <= SIZE - 1)).all(1).reshape(len(_RAY_DIRS), -1)
    if not inside[:, :2].all():
        return "the pip is at the crop's edge"
    q = np.clip(q, 0, SIZE - 1).reshape(len(_RAY_DIRS), -1, 2)
    ring = q[:, :2].reshape(-1, 2)
    resp = sc.resp[p.dark]
    if (resp[ring[:, 1], ring[:, 0]] > _EMPTY_SHARE * weak).any():
        return "something round the pip"
    face = sc.bgr[ring[:, 1], ring[:, 0]].astype(np.float64)
    lo, hi = face.min(0), face.max(0)
    if (hi - lo).max() > _UNIFORM * weak:
        return "the face round the pip is not even"
    # nothing of the other kind near: not inside it (a light "pip" holding dark pips is a
    # small die), nor brighter or darker than the face round it (glare beside dark pips)
    grey = sc.grey[ring[:, 1], ring[:, 0]]
    glo, ghi, mg = float(grey.min()), float(grey.max()), _SPOT_GREY * weak
    dist = np.hypot(sc.xy[:, 0] - c[0], sc.xy[:, 1] - c[1])
    other = (sc.dark != p.dark) & (dist < ONE_CLEAR) & (sc.diam < 4.0 * sc.diam[k])
    other &= sc.strength >= _ONE_OTHER * weak
    other &= (dist < r) | (sc.shade > ghi + mg) | (sc.shade < glo - mg)
    if other.any():
        return "something of the other kind near the pip"
    # round and even: the core of the blob (above 0.6 of its centre's response) is an ellipse,
    # not a glyph (a blurred digit, a star)
    raw = sc.raw[p.dark]
    cx, cy = (int(v) for v in np.rint(c))
    core = (raw >= 0.6 * float(raw[cy, cx])).view(np.uint8)
    _, lab = cv2.connectedComponents(core, connectivity=8)
    mo = cv2.moments((lab == lab[cy, cx]).view(np.uint8), True)
    det = mo["mu20"] * mo["mu02"] - mo["mu11"] ** 2
    skew = math.sqrt(mo["nu30"] ** 2 + mo["nu03"] ** 2 + 3 * (mo["nu21"] ** 2 + mo["nu12"] ** 2))
    if det <= 0 or mo["m00"] ** 2 / (4 * math.pi * math.sqrt(det)) < _ONE_ROUND or skew > _ONE_SKEW:
        return "the pip is not round"
    # the face ends some pip sizes away (a large blob on a small face is a mark, not a pip)
    m = np.maximum(_EDGE_MIN, 0.5 * (hi - lo))
    cols = sc.bgr[q[..., 1], q[..., 0]]
    rr = resp[q[..., 1], q[..., 0]]
    unlike = ((cols < lo - m) | (cols > hi + m)).any(2)
    unlike |= (rr > _EMPTY_SHARE * weak) | ~inside
    unlike[:, -1] = True
    first = unlike.argmax(1)
    edge = _RAY_STEPS[first]  # distance beyond the pip's edge, px, along each ray
    # nothing of its kind on the face before its edge, not even a faint pip (glare outshines)
    if ((rr > _ONE_QUIET * weak) & (_RAY_INDEX < first[:, None] - 1)).any():
        return "something faint on the face round the pip"
    ordered = sorted(edge.tolist())
    if (ordered[3] + ordered[4]) / 2 < _ONE_FACE * r:  # the median of the 8 rays
        return "the face is small for the pip"
    # ... and the pip is in its middle (a pip of a 2 whose other pip is lost is not)
    across = edge[:4] + edge[4:] + 2 * r
    if (np.abs(edge[:4] - edge[4:]) > _ONE_MIDDLE * across).any():
        return "the pip is off the middle of its face"
    return ""


def _score(p: Pattern, sc: Scene) -> float:
    """How clear a pattern is read, 0..1: its fit, its pips' sizes and contrast."""
    d = sc.diam[p.on]
    fit = 1.0 - p.resid / _FIT_TOL if p.count > 1 else 1.0 - p.resid
    return round(
        0.5 * min(1.0, max(0.0, fit))
        + 0.25 * float(d.min() / d.max())
        + 0.25 * min(1.0, p.weakest / 80.0),
        3,
    )


def _colour_gaps(p: Pattern, sc: Scene) -> tuple[float, np.ndarray]:
    """(how coloured the pips of a light pattern are, how far each lies from the others in
    colour): the median pip's chromaticity (B, G, R over their sum) spread (largest less
    smallest share), and the largest share by which each pip's chromaticity differs from the
    median's. (0, zeros) for dark pips."""
    if p.dark:
        return 0.0, np.zeros(len(p.on))
    col = sc.col[p.on]
    chroma = col / np.maximum(col.sum(axis=1, keepdims=True), 1.0)
    mid = np.median(chroma, axis=0)
    return float(mid.max() - mid.min()), np.abs(chroma - mid).max(axis=1)


def _unlike_pip(p: Pattern, sc: Scene, astray: bool = False) -> int | None:
    """The "pip" (its index into ``p.on``) of a light pattern whose colour is not the
    others': a glare spot on a pip place, which makes a 4 a 5 or hides a pip under it; None
    when there is none. On coloured pips, one further than :data:`_UNLIKE` of their colour
    from them; on pale pips, one :data:`_ODD_GAP` from them while every other lies within
    :data:`_ODD_SHARE` of that (glare tinted by a see-through body); on coloured pips the
    same only for a pattern astray in how its pips lie (``astray``, :func:`_hides`): for one
    read as it is, it withdrew more right reads than wrong ones. Asked of every pattern found,
    the first rule cost rendered black dice with red pips 87.1% -> 83.5% read right
    (``lab.everyday --scenes 100 --seed 7``)."""
    if p.count < 2:
        return None
    coloured, gaps = _colour_gaps(p, sc)
    odd = int(gaps.argmax())
    gap, next_gap = float(gaps[odd]), float(np.partition(gaps, -2)[-2])
    if coloured >= _COLOURED and gap > _UNLIKE * coloured:
        return odd
    if gap < _ODD_GAP or next_gap > _ODD_SHARE * gap:
        return None
    return odd if coloured < _COLOURED or astray else None


def _hides(p: Pattern, sc: Scene, why: str) -> int | None:
    """The spot (its index into ``p.on``) that hides a pip of a pattern not read only for how
    its pips lie (``why``: off the grid, unlike in size), or None: one of its "pips" is of
    another colour (:func:`_unlike_pip`), lies within :data:`_HIDDEN_FIT` of its place
    whatever its size (glare is seldom centred on the place it covers, nor a pip's size), the
    others lie on the grid and agree in size as the pips of a face read do, and the face
    between them is plain."""
    if why not in _PIP_FAULTS:
        return None
    odd = _unlike_pip(p, sc, astray=True)
    if odd is None:
        return None
    rest = np.arange(len(p.on)) != odd
    d = sc.diam[p.on][rest]
    hides = (
        p.offs[odd] <= _HIDDEN_FIT
        and bool((p.offs[rest] <= _FIT_TOL).all())
        and float(d.max()) <= _READ_RATIO * float(d.min())
        and not _why_not(p, sc, pips=False)
    )
    return odd if hides else None


def _needed(p: Pattern, odd: int) -> bool:
    """Whether the spot at ``p.on[odd]`` covers a pip the pattern cannot do without: the
    pips seen besides it make no face (three corners of a 4; a 3's centre and one corner), so
    it hides a pip, and the count stands. A spot on a place whose pip a smaller face lacks (a
    4's middle, hiding a 5 or not; a 3's) leaves two faces: the pips are hidden. Only for 3
    pips or more (the pip of a 2 beside a spot could be a 1's).

    >>> four = Pattern(4, False, frozenset(), np.arange(4), np.eye(2), np.zeros(2), 8.0,
    ...                 0.0, 40.0, code=0b101000101)
    >>> five = Pattern(5, False, frozenset(), np.arange(5), np.eye(2), np.zeros(2), 8.0,
    ...                 0.0, 40.0, code=0b101010101)
    >>> _needed(four, 0), _needed(five, 2), _needed(five, 0)
    (True, False, True)
    """
    if p.count < 3 or not p.code:
        return False
    place = PLACES[p.code][odd]
    return not CODE_COUNT[p.code & ~(1 << place)]


def _read(sc: Scene | None, found: list[Pattern]) -> PipRead:
    """What one crop's blobs say (``found``: their patterns, :func:`_patterns`)."""
    if sc is None:
        return NO_OPINION
    lone = []  # a 1 whose pip is a pip of a pattern too: read as neither if it looks a 1
    for one in find_ones(sc):
        (lone if any(one.ids <= p.ids for p in found) else found).append(one)
    best: PipRead | None = None
    for p in found:
        if best is not None and p.count == best.count:
            continue  # read already
        why = _why_not_one(p, sc) if p.count == 1 else _why_not(p, sc)
        odd = _hides(p, sc, why) if why else _unlike_pip(p, sc)
        if why and odd is None:
            continue
        if odd is not None and not _needed(p, odd):
            return HIDDEN
        if best is not None:
            return NO_OPINION  # two readings that disagree
        best = PipRead(p.count, _score(p, sc), p.dark)
    if best is not None and any(not _why_not_one(p, sc) for p in lone):
        return NO_OPINION
    return best or NO_OPINION


def read_pips(crop_bgr: np.ndarray, again: bool = True) -> PipRead:
    """The pip count of the die in a classifier crop (BGR uint8, square), or no opinion
    (``again``: see :func:`read_many`).

    >>> read_pips(np.zeros((64, 64, 3), np.uint8))
    PipRead(count=None, score=0.0, dark=None)
    """
    return read_many([crop_bgr], again)[0]


def _sharpened(crop: np.ndarray) -> np.ndarray:
    """The crop with its blur undone in part (an unsharp mask): the pips of a small die in a
    soft photo run into the face and each other, too faint or too wide to be found."""
    soft = cv2.GaussianBlur(crop, (0, 0), _SHARPEN[0])
    return cv2.addWeighted(crop, 1.0 + _SHARPEN[1], soft, -_SHARPEN[1], 0.0)


_ZOOM_AT = np.array([[_ZOOM, 0.0, SIZE / 2 * (1 - _ZOOM)], [0.0, _ZOOM, SIZE / 2 * (1 - _ZOOM)]])


def _zoomed(crop: np.ndarray) -> np.ndarray:
    """The middle of the crop enlarged :data:`_ZOOM` times: larger pips, and less of the margin
    (the floor, a neighbouring die) whose strong edges set the blob threshold."""
    return cv2.warpAffine(crop, _ZOOM_AT, (SIZE, SIZE), borderMode=cv2.BORDER_REPLICATE)


def _zoomed_sharpened(crop: np.ndarray) -> np.ndarray:
    return _sharpened(_zoomed(crop))


# other looks at a crop that gives no count as it is: the first of them reads it, the others
# confirm. Each look reads with every check of the crop as it is, but a look changes the
# blobs (zooming may push a row of pips off the crop), so a count needs another look that
# gives it too, and none that gives another
_LOOKS = (_zoomed_sharpened, _sharpened, _zoomed)


def _one_refused(img: np.ndarray) -> bool:
    """Whether the crop as it is shows a lone pip near its middle that is no 1 (by
    :func:`_why_not_one`): a look may find a pip the crop hid, but not overrule what the face
    round a pip found says (sharpening and zooming make a round pip of a soft glare spot)."""
    sc = find_blobs([img])[0]
    return sc is not None and any(_why_not_one(p, sc) for p in find_ones(sc))


def _read_all(imgs: dict[int, np.ndarray]) -> dict[int, PipRead]:
    """What each crop of ``imgs`` (64 px, by index) says, :data:`BATCH` read together."""
    keys = list(imgs)
    out = {}
    for start in range(0, len(keys), BATCH):
        part = keys[start : start + BATCH]
        scenes = find_blobs([imgs[i] for i in part])
        for i, sc, found in zip(part, scenes, find_patterns(scenes), strict=False):
            out[i] = _read(sc, found)
    return out


def read_many(crops, again: bool | Sequence[bool] = True) -> list[PipRead]:
    """:func:`read_pips` for each crop of a list or an N x S x S x 3 array, done together
    (faster than one by one; the same answers).

    A crop that gives no count as it is, is looked at again (:data:`_LOOKS`): zoomed and
    sharpened, for the small, blurred pips of a die in a soft photo and a margin whose strong
    edges (the floor, a neighbouring die) set the blob threshold. A count found so is read
    when the crop sharpened alone or zoomed alone gives it too, and neither another.
    ``again``: whether to (one for all, or one for each crop); the looks cost two to three
    times the first, and a camera frame looks again only where a count could make a read.

    >>> crop = np.zeros((64, 64, 3), np.uint8)
    >>> read_many([crop, crop], again=[True, False])[1].count is None
    True
    """
    imgs = [usable(c) for c in crops]
    again = [again] * len(imgs) if isinstance(again, bool) else list(again)
    if len(again) != len(imgs):
        raise ValueError("again: one for each crop")
    good = {i: im for i, im in enumerate(imgs) if im is not None}
    out = [NO_OPINION] * len(imgs)
    for i, r in _read_all(good).items():
        out[i] = r
    first, *others = _LOOKS
    todo = {i: first(im) for i, im in good.items() if out[i].count is None and again[i]}
    votes = {i: {first: r} for i, r in _read_all(todo).items() if r.count is not None}
    for look in others:
        for i, r in _read_all({i: look(good[i]) for i in votes}).items():
            if r.count is not None:
                votes[i][look] = r
    for i, v in votes.items():
        counts = {r.count for r in v.values()}
        if len(v) >= 2 and len(counts) == 1 and (counts != {1} or not _one_refused(good[i])):
            out[i] = min(v.values(), key=lambda r: r.score)
    return out
