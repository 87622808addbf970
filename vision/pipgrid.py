"""Where the pips of a d6 crop might be: blobs, and the d6 patterns they make on a grid.

The first half of the pip counter (``vision.pips`` judges what is found here and reads it).
The crop is searched for pip-like blobs, dark on light and light on dark (a morphological
black and white top-hat, the strongest of the three colour channels; :func:`find_blobs`),
and the blobs are tried against the d6 arrangements as a 3 x 3 grid of pip places
(:func:`find_patterns`). Every d6 face of two pips or more has pips on two opposite corners
of that grid, so each pair of blobs is tried as a diagonal (of a square grid), and two pairs
that halve each other as both diagonals (of a grid of any shape: an oblique view, a 6 whose
rows lie close). A grid is kept when the places it finds taken make exactly one d6 pattern
(2 and 3 on a diagonal, 4 on the corners, 5 the corners and the centre, 6 two rows of
three), each place by one blob, and its blobs sit near their places and are of like sizes. A
pattern whose blobs all belong to a larger one found (two corners of a 4 make a 2) is
dropped. A 1 is a lone round blob near the middle (:func:`find_ones`).

The crops of a frame are done together: one top-hat call, one labelling, all grids tried at
once.

    >>> crop = np.full((64, 64, 3), 180, np.uint8)
    >>> for x, y in ((20, 20), (44, 44), (20, 44), (44, 20)):
    ...     _ = cv2.circle(crop, (x, y), 4, (20, 20, 20), -1)
    >>> [p.count for p in find_patterns(find_blobs([crop]))[0]]
    [4]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

SIZE = 64  # crops of another size are resized to this side first; lengths below are in its px

# blobs
_KERNEL = cv2.getStructuringElement(cv2.MORPH_RECT, (15, 15))  # wider than any pip
_K3 = np.ones((3, 3), np.uint8)
_MIN_RESPONSE = 18.0  # a pip differs from the face round it by at least this (0..255)
_PEAK_SHARE = 0.42  # blob threshold: this share of the strongest response in the middle
_MID = slice(12, 52)  # "the middle" of the crop, for that peak

# grids: g is the spacing of pip places, a quarter of the face side
_G_RANGE = (3.5, 13.5)  # px
_CENTRE_OFF = 15.0  # px: the face centre lies this close to the crop centre
NODE_TOL = 0.42  # in g: a blob takes a place this close to it
SIZE_RATIO = 1.9  # largest / smallest pip diameter on one face
_DIAM_G = (0.3, 1.35)  # pip diameter, in g
_SKEW = 0.55  # the fitted grid's axes: shorter / longer at least this (an oblique view)

# a 1
_ONE_OFF = 11.0  # px from the crop centre
_ONE_DIAM = (3.5, 15.0)  # px
ONE_CLEAR = 19.0  # px: no other blob this close

# grid places (i, j), i, j in -1..1, numbered k = 3 (i + 1) + (j + 1); pairs are tried as the
# corners (-1, -1) and (1, 1)
_NODES = np.array([(i, j) for i in (-1, 0, 1) for j in (-1, 0, 1)], np.float64)
_PATTERNS = {  # places taken -> pips
    (0, 8): 2,
    (0, 4, 8): 3,
    (0, 2, 6, 8): 4,
    (0, 2, 4, 6, 8): 5,
    (0, 1, 2, 6, 7, 8): 6,  # rows i = -1 and i = 1
    (0, 2, 3, 5, 6, 8): 6,  # rows j = -1 and j = 1
}
CODE_COUNT = np.zeros(512, np.int64)  # bit k set: place k taken -> pips (0: no pattern)
_PINV = {}  # code -> the least-squares fit of an affine grid to those places
for _places, _n in _PATTERNS.items():
    _code = sum(1 << k for k in _places)
    CODE_COUNT[_code] = _n
    _PINV[_code] = np.linalg.pinv(np.column_stack([_NODES[list(_places)], np.ones(len(_places))]))
_BITS = 1 << np.arange(9)
PLACES = {sum(1 << k for k in places): list(places) for places in _PATTERNS}
_NODES_OF = {code: _NODES[places] for code, places in PLACES.items()}
_NODE_I = _NODES[:, 0] + 0j
_NODE_J = _NODES[:, 1] + 0j
_CENTRE = complex(SIZE / 2, SIZE / 2)


@dataclass
class Scene:
    """One crop's blobs of both kinds: the components of the thresholded dark (black top-hat)
    and light (white top-hat) responses, one row each."""

    dark: np.ndarray  # bool: the blob is darker than round it
    xy: np.ndarray  # n x 2 centroids
    z: np.ndarray  # the same as complex numbers x + iy
    diam: np.ndarray  # diameter of a disc of the same area
    strength: np.ndarray  # mean response
    shade: np.ndarray  # mean grey
    col: np.ndarray  # n x 3 mean colour (BGR, 3 x 3 mean)
    pip: np.ndarray  # bool: shaped like a pip
    inner: np.ndarray  # bool: clear of the crop's edge
    round_: np.ndarray  # bool: round enough for the lone pip of a 1
    label: np.ndarray  # each blob's label in its kind's label image
    box: np.ndarray  # n x 4 (x, y, w, h) bounding boxes, int
    labels: tuple  # (light, dark) label images
    resp: tuple  # (light, dark) response, largest over 3 x 3 pixels
    raw: tuple  # (light, dark) response
    grey: np.ndarray  # the crop in grey, 3 x 3 mean
    bgr: np.ndarray  # the crop, 3 x 3 mean


@dataclass
class Pattern:
    """A d6 pattern found on a grid: ``ids``/``on`` the blobs on it, ``M`` (columns: the
    grid's axes, g long) and ``t`` (its centre) the fitted grid, ``resid`` the largest distance
    of a pip from its place (in g), ``weakest`` the weakest pip's response, ``offs`` each
    pip's distance from its place (in g; a pattern of two pips or more)."""

    count: int
    dark: bool
    ids: frozenset
    on: np.ndarray
    M: np.ndarray
    t: np.ndarray
    g: float
    resid: float
    weakest: float
    offs: np.ndarray | None = None
    code: int = 0  # the places taken (bit k: place k), ``on`` in their order; 0 for a 1


def _to_size(crop: np.ndarray) -> np.ndarray:
    if crop.ndim == 2:
        crop = cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR)
    elif crop.shape[2] == 4:
        crop = cv2.cvtColor(crop, cv2.COLOR_BGRA2BGR)
    if crop.shape[:2] != (SIZE, SIZE):
        interp = cv2.INTER_AREA if crop.shape[0] > SIZE else cv2.INTER_LINEAR
        crop = cv2.resize(crop, (SIZE, SIZE), interpolation=interp)
    return np.ascontiguousarray(crop, np.uint8)


def _components(mask: np.ndarray):
    """Connected components of a 0/1 mask, with stats (16-bit labels: much faster)."""
    return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_16U, cv2.CCL_DEFAULT)


BATCH = 64  # crops done together at most
_PAD = 8  # rows repeated above and below each crop: a crop's top-hats do not reach the next
_TILE = SIZE + 2 * _PAD


def find_blobs(imgs: list[np.ndarray]) -> list[Scene | None]:
    """The blobs of both kinds in each 64 px crop (the strongest channel of each top-hat).

    All crops are done together, stacked: the white top-hat of each crop and of its negative
    (= the black top-hat) in one call, one labelling of the thresholded responses, one pass
    over the blobs. Each crop has its edge rows repeated ``_PAD`` times above and below, so
    that its figures do not depend on the crops it is stacked with.
    """
    n_img = len(imgs)
    stack = np.concatenate(
        [cv2.copyMakeBorder(im, _PAD, _PAD, 0, 0, cv2.BORDER_REPLICATE) for im in imgs]
    )
    bgr = cv2.blur(stack, (3, 3))
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    hat = cv2.morphologyEx(cv2.merge((stack, cv2.bitwise_not(stack))), cv2.MORPH_TOPHAT, _KERNEL)
    r2 = np.maximum(np.maximum(hat[..., 0::3], hat[..., 1::3]), hat[..., 2::3])
    # tiles of _TILE rows, crop by crop, light then dark: (crop, kind, row, column)
    resp = np.ascontiguousarray(r2.reshape(n_img, _TILE, SIZE, 2).transpose(0, 3, 1, 2))
    resp[:, :, :_PAD] = 0
    resp[:, :, -_PAD:] = 0
    mid = resp[:, :, _PAD + _MID.start : _PAD + _MID.stop, _MID]
    peaks = mid.reshape(n_img, 2, -1).max(2).astype(np.float64)
    cut = np.where(
        peaks >= _MIN_RESPONSE, np.maximum(_MIN_RESPONSE * 0.7, _PEAK_SHARE * peaks), 256.0
    )
    flat = resp.reshape(2 * n_img * _TILE, SIZE)
    mask = (resp >= cut[:, :, None, None]).view(np.uint8).reshape(flat.shape)
    n, labels, stats, cents = _components(mask)
    sel = np.flatnonzero(mask)  # the pixels of components only: bincount is slow on all
    lab = labels.ravel()[sel]
    sums = np.bincount(lab, flat.ravel()[sel], n)
    greys = np.broadcast_to(grey.reshape(n_img, 1, _TILE, SIZE), resp.shape)
    shades = np.bincount(lab, greys.reshape(flat.shape).ravel()[sel], n)
    colours = np.broadcast_to(bgr.reshape(n_img, 1, _TILE, SIZE, 3), (*resp.shape, 3))
    colours = colours.reshape(-1, 3)[sel]
    cols = np.stack([np.bincount(lab, colours[:, c], n) for c in range(3)], axis=1)
    keep = np.flatnonzero(stats[:, 4] >= 2)[1:]  # the background, and single pixels (noise)
    st = stats[keep].astype(np.float64)
    x, y, w, h, area = st.T
    xy = cents[keep]
    tile = (xy[:, 1] // _TILE).astype(np.intp)
    off = tile * _TILE + _PAD
    xy[:, 1] -= off
    y = y - off
    box = stats[keep, :4]
    box[:, 1] -= off
    strength = sums[keep] / area
    long_, short = np.maximum(w, h), np.minimum(w, h)
    fill = area / (w * h)
    inner = (x > 0) & (y > 0) & (x + w < SIZE) & (y + h < SIZE)
    pip = (
        inner
        & (area >= 3)
        & (long_ <= 22)
        & (long_ <= 2.6 * short)
        & (fill >= 0.45)
        & (strength >= _MIN_RESPONSE)
    )
    dark = (tile & 1).astype(bool)
    z = xy[:, 0] + 1j * xy[:, 1]
    diam = 2.0 * np.sqrt(area / np.pi)
    shade = shades[keep] / area
    col = cols[keep] / area[:, None]
    round_ = pip & (long_ <= 1.45 * short) & (fill >= 0.6)
    dil = cv2.dilate(flat, _K3).reshape(resp.shape)
    labels = labels.reshape(resp.shape)
    ends = np.searchsorted(tile, 2 * np.arange(n_img + 1)).tolist()
    body = slice(_PAD, _PAD + SIZE)
    out: list[Scene | None] = []
    for i in range(n_img):
        a, b = ends[i], ends[i + 1]
        if a == b:
            out.append(None)
            continue
        rows = slice(i * _TILE + _PAD, i * _TILE + _PAD + SIZE)
        out.append(
            Scene(
                dark=dark[a:b],
                xy=xy[a:b],
                z=z[a:b],
                diam=diam[a:b],
                strength=strength[a:b],
                shade=shade[a:b],
                col=col[a:b],
                pip=pip[a:b],
                inner=inner[a:b],
                round_=round_[a:b],
                label=keep[a:b],
                box=box[a:b],
                labels=(labels[i, 0, body], labels[i, 1, body]),
                resp=(dil[i, 0, body], dil[i, 1, body]),
                raw=(resp[i, 0, body], resp[i, 1, body]),
                grey=grey[rows],
                bgr=bgr[rows],
            )
        )
    return out


_TRIU: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    if n not in _TRIU:
        _TRIU[n] = np.triu_indices(n, 1)
    return _TRIU[n]


_MAX_PIPS = 14  # pip-like blobs of a crop tried at most (the strongest)


def find_patterns(scenes: list[Scene | None]) -> list[list[Pattern]]:
    """For each crop, every d6 pattern of 2..6 pips that pip-like blobs of one kind make on a
    grid, larger patterns first, leaving out those whose blobs all lie on a larger one.

    The grids of all crops are tried together: blobs in an array of crops x blobs (padded),
    points as complex numbers x + iy.
    """
    out: list[list[Pattern]] = [[] for _ in scenes]
    idxs = []
    for sc in scenes:
        idx = np.flatnonzero(sc.pip) if sc is not None else np.empty(0, np.intp)
        if len(idx) > _MAX_PIPS:  # keep the strongest
            idx = idx[np.argsort(-sc.strength[idx])[:_MAX_PIPS]]
        idxs.append(idx)
    m = max(len(idx) for idx in idxs)
    if m < 2:
        return out
    n_img = len(scenes)
    Z = np.full((n_img, m), np.nan + 0j)
    D = np.ones((n_img, m))
    K = np.zeros((n_img, m), np.int8)
    for r, (sc, idx) in enumerate(zip(scenes, idxs, strict=False)):
        if len(idx):
            Z[r, : len(idx)] = sc.z[idx]
            D[r, : len(idx)] = sc.diam[idx]
            K[r, : len(idx)] = sc.dark[idx]
    K[np.isnan(Z)] = -1  # no blob: of no kind
    i, j = _pairs(m)
    v = Z[:, j] - Z[:, i]  # crops x pairs
    g = np.abs(v) * (1.0 / (2.0 * math.sqrt(2.0)))
    mid = (Z[:, i] + Z[:, j]) * 0.5
    di, dj = D[:, i], D[:, j]
    ok = (
        (K[:, i] == K[:, j])
        & (K[:, i] >= 0)
        & (g >= _G_RANGE[0] * 0.7)
        & (g <= _G_RANGE[1])
        & (np.abs(mid - _CENTRE) <= _CENTRE_OFF)
        & (np.maximum(di, dj) <= SIZE_RATIO * np.minimum(di, dj))
        & (di + dj >= 2 * _DIAM_G[0] * g)
        & (di + dj <= 2 * _DIAM_G[1] / 0.7 * g)
    )
    crop, pair = np.nonzero(ok)
    if not len(crop):
        return out
    v, g, mid = v[crop, pair], g[crop, pair], mid[crop, pair]
    pi, pj = i[pair], j[pair]
    kind = K[crop, pi]
    # (a) each pair as the corners (-1,-1), (1,1) of a square grid
    e1, e2, tol, hcrop = v * ((1 + 1j) / 4), v * ((1 - 1j) / 4), g, crop
    # (b) two pairs of a crop that halve each other as the four corners of a grid of any shape
    # (an oblique view; a 6 whose rows lie closer than its pips in a row)
    if len(g) >= 2:
        a, c = _pairs(len(g))
        q = np.flatnonzero((crop[a] == crop[c]) & (kind[a] == kind[c]))
        a, c = a[q], c[q]
        gm = np.minimum(g[a], g[c])
        q = np.flatnonzero(
            (np.abs(mid[a] - mid[c]) < 0.3 * gm)
            & (gm >= 0.5 * np.maximum(g[a], g[c]))
            & (pi[a] != pi[c])
            & (pi[a] != pj[c])
            & (pj[a] != pi[c])
            & (pj[a] != pj[c])
        )
        if len(q):
            a, c = a[q], c[q]
            f1, f2 = (v[a] + v[c]) * 0.25, (v[a] - v[c]) * 0.25
            e1, e2 = np.concatenate([e1, f1]), np.concatenate([e2, f2])
            mid = np.concatenate([mid, (mid[a] + mid[c]) * 0.5])
            tol = np.concatenate([tol, np.minimum(np.abs(f1), np.abs(f2))])
            kind = np.concatenate([kind, kind[a]])
            hcrop = np.concatenate([hcrop, crop[a]])
    nodes = mid[:, None] + _NODE_I * e1[:, None] + _NODE_J * e2[:, None]  # H x 9
    near = np.abs(nodes[:, :, None] - Z[hcrop][:, None, :]) < (NODE_TOL * 1.25) * tol[:, None, None]
    near &= (K[hcrop] == kind[:, None])[:, None, :]
    per_node, per_blob = near.sum(2), near.sum(1)
    code = (per_node > 0) @ _BITS
    count = CODE_COUNT[code]
    good = np.flatnonzero((count > 0) & (per_node.max(1) <= 1) & (per_blob.max(1) <= 1))
    if not len(good):
        return out
    # crop by crop, larger patterns first: a pattern whose blobs all lie on one found is never
    # read, so it is not fitted
    good = good[np.lexsort((-count[good], hcrop[good]))]
    assign = near[good].argmax(2).tolist()  # the blob at each place
    seen = set()
    for r, c, row in zip(hcrop[good].tolist(), code[good].tolist(), assign, strict=False):
        sc, idx, found = scenes[r], idxs[r], out[r]
        places = PLACES[c]
        on = [row[k] for k in places]
        ids = frozenset(idx[on].tolist())
        key = (r, c, ids)
        if key in seen or any(ids < p.ids for p in found):
            continue
        seen.add(key)
        p = _fit(sc, c, idx[on])
        if p is not None:
            found.append(p)
    return out


def _fit(sc: Scene, code: int, ids: np.ndarray) -> Pattern | None:
    """Fit the grid of one pattern (blobs ``ids`` at the places of ``code``) and keep it if
    it is one."""
    count = int(CODE_COUNT[code])
    xy = sc.xy[ids]
    if count >= 4:  # an affine grid
        coef = _PINV[code] @ xy
        M, t = coef[:2].T, coef[2]
        (m00, m01), (m10, m11) = M.tolist()
        det = abs(m00 * m11 - m01 * m10)
        ss = m00 * m00 + m01 * m01 + m10 * m10 + m11 * m11
        root = math.sqrt(max(ss * ss - 4 * det * det, 0.0))
        s1, s2 = math.sqrt((ss + root) / 2), math.sqrt(max((ss - root) / 2, 0.0))
        if s2 < _SKEW * s1:
            return None
        g = math.sqrt(det)
    else:  # a square grid on the diagonal
        t = (xy[0] + xy[-1]) * 0.5
        h0, h1 = ((xy[-1] - xy[0]) * 0.5).tolist()
        M = np.array([[h0 - h1, h0 + h1], [h1 + h0, h1 - h0]]) * 0.5
        g = math.hypot(h0, h1) / math.sqrt(2.0)
    if not (_G_RANGE[0] <= g <= _G_RANGE[1]):
        return None
    tx, ty = t.tolist()
    if math.hypot(tx - SIZE / 2, ty - SIZE / 2) > _CENTRE_OFF:
        return None
    d = sc.diam[ids].tolist()
    dmin, dmax = min(d), max(d)
    if dmax > SIZE_RATIO * dmin or not (_DIAM_G[0] * g <= (dmin + dmax) / 2 <= _DIAM_G[1] * g):
        return None
    e = _NODES_OF[code] @ M.T + t - xy
    offs = np.hypot(e[:, 0], e[:, 1]) / g
    resid = float(offs.max())
    if resid > NODE_TOL:
        return None
    return Pattern(
        count,
        bool(sc.dark[ids[0]]),
        frozenset(ids.tolist()),
        ids,
        M,
        t,
        g,
        resid,
        float(sc.strength[ids].min()),
        offs,
        code,
    )


def find_ones(sc: Scene) -> list[Pattern]:
    """Lone round blobs near the middle, one of each kind at most: the pip of a 1 (if the
    face round it says so too: :func:`_why_not_one`)."""
    d = np.abs(sc.z - _CENTRE)
    cand = np.flatnonzero(sc.pip & (d < _ONE_OFF) & (sc.diam >= _ONE_DIAM[0])).tolist()
    out = []
    kinds = [bool(sc.dark[c]) for c in cand]
    for k, dark in zip(cand, kinds, strict=False):
        if kinds.count(dark) != 1:
            continue  # two of a kind near the middle
        if not sc.round_[k] or sc.diam[k] > _ONE_DIAM[1]:
            continue
        if ((sc.dark == dark) & (np.abs(sc.z - sc.z[k]) < ONE_CLEAR)).sum() > 1:
            continue
        out.append(
            Pattern(
                1,
                bool(dark),
                frozenset([k]),
                np.array([k]),
                np.eye(2),
                sc.xy[k],
                0.0,
                float(d[k]) / _ONE_OFF / 2.0,
                float(sc.strength[k]),
            )
        )
    return out


def usable(crop) -> np.ndarray | None:
    """The crop as a 64 x 64 BGR uint8 array, or None when it cannot be one."""
    crop = np.asarray(crop)
    if (
        crop.dtype != np.uint8
        or crop.ndim not in (2, 3)
        or (crop.ndim == 3 and crop.shape[2] not in (3, 4))
        or min(crop.shape[:2]) < 8
    ):
        return None
    return _to_size(crop)
