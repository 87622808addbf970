"""A taught head: the owner's dice read from the shipped network's own features, in numpy.

The shipped classifier gives, besides its two answers, its last feature map (``features``,
C x 8 x 8). A taught head reads each crop from an embedding of that map (its mean over the
whole crop and over each quarter) and the shipped network's own log-probabilities, with two
multinomial logistic regressions: which die, and which face (or no die at all). Fitted with
no data, a head answers exactly as the shipped network does (the regression starts at, and
is pulled towards, the weights that pass the shipped log-probabilities through); fitted on
an owner's dice it moves as far as their crops ask. Fitting takes seconds on a CPU and
needs nothing but numpy, so a table teaches itself without torch.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(300, 6)).astype(np.float32)
    >>> y = (x[:, 0] > 0).astype(int)
    >>> reg = Softmax.fit(x, y, 2, prior=np.zeros((6, 2)), l2=1e-3)
    >>> float((reg.proba(x).argmax(1) == y).mean()) > 0.95
    True
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

GRID = 2  # the feature map is also averaged over GRID x GRID parts of the crop
ITERATIONS = 50  # L-BFGS steps of a fit at most
# a zoomed head also reads the crop's centre, this share of its side, scaled up to the
# network's input: the top face's marks drawn larger (a digit or a logo is a few pixels of a
# whole crop). Teaching chooses it where it reads more (``vision.teach``); measured on
# rendered Rollers dice with digits, 150 fresh dice a seed, best guesses wrong by a head on
# the crop alone 5-7 and with the zoomed view beside it 1-3 (5 seeds)
ZOOM = 0.7


def embed(features: np.ndarray) -> np.ndarray:
    """N x C x H x W feature maps -> N x (C + C * GRID**2): the map's mean over the whole
    crop, then over each of its GRID x GRID parts.

    >>> embed(np.ones((2, 3, 8, 8), np.float32)).shape
    (2, 15)
    """
    f = np.asarray(features, np.float32)
    n, c, h, w = f.shape
    whole = f.mean(axis=(2, 3))
    parts = f.reshape(n, c, GRID, h // GRID, GRID, w // GRID).mean(axis=(3, 5))
    return np.concatenate([whole, parts.reshape(n, c * GRID * GRID)], axis=1)


@functools.cache
def _zoom_matrix(size: int, keep: float) -> np.ndarray:
    """size x size: row i samples the input at the centre's ``keep``-scaled position i,
    bilinearly."""
    centre = (size - 1) / 2
    at = centre + (np.arange(size) - centre) * keep
    lo = np.floor(at).astype(int)
    frac = (at - lo).astype(np.float32)
    m = np.zeros((size, size), np.float32)
    m[np.arange(size), lo] = 1.0 - frac
    m[np.arange(size), np.minimum(lo + 1, size - 1)] += frac
    return m


def zoomed(x: np.ndarray, keep: float = ZOOM) -> np.ndarray:
    """Network inputs N x C x S x S -> the centre ``keep`` of each side, scaled back to
    S x S (bilinear). It commutes with a quarter turn, so turned inputs zoom alike.

    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> zoomed(x, 0.5)[0, 0].round(2).tolist()[1]
    [5.75, 6.25, 6.75, 7.25]
    >>> bool(np.allclose(zoomed(np.rot90(x, 1, (2, 3))), np.rot90(zoomed(x), 1, (2, 3))))
    True
    """
    m = _zoom_matrix(int(x.shape[-1]), float(keep))
    return np.ascontiguousarray(m @ np.asarray(x, np.float32) @ m.T)


def pooled(features: np.ndarray) -> np.ndarray:
    """N x C x H x W feature maps -> N x C: the map's mean over the whole crop (what the
    second opinion's head reads of the card's second network: its map at the crop's size is
    too coarse to part).

    >>> pooled(np.ones((2, 3, 2, 2), np.float32)).shape
    (2, 3)
    """
    return np.asarray(features, np.float32).mean(axis=(2, 3))


def _log(p: np.ndarray) -> np.ndarray:
    return np.log(np.clip(p, 1e-7, 1.0)).astype(np.float32)


@dataclass
class Softmax:
    """A multinomial logistic regression: ``proba(x) = softmax(x @ w + b)``."""

    w: np.ndarray
    b: np.ndarray

    def logits(self, x: np.ndarray) -> np.ndarray:
        return x @ self.w + self.b

    def proba(self, x: np.ndarray) -> np.ndarray:
        z = self.logits(x)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    @classmethod
    def fit(
        cls,
        x: np.ndarray,
        y: np.ndarray,
        k: int,
        prior: np.ndarray,
        l2: float,
        weight: np.ndarray | None = None,
        iterations: int = ITERATIONS,
    ) -> Softmax:
        """Fit on rows ``x`` with labels ``y`` (0..k-1): mean cross-entropy (rows weighted by
        ``weight``) plus ``l2 / 2 * |w - prior|^2``, from ``prior``, by L-BFGS."""
        x = np.asarray(x, np.float32)
        n, d = x.shape
        onehot = np.zeros((n, k), np.float32)
        onehot[np.arange(n), y] = 1.0
        wt = np.ones(n, np.float32) if weight is None else np.asarray(weight, np.float32)
        wt = (wt / wt.sum())[:, None]
        prior = np.asarray(prior, np.float32)

        def loss_grad(theta: np.ndarray) -> tuple[float, np.ndarray]:
            w, b = theta[: d * k].reshape(d, k), theta[d * k :]
            z = x @ w + b
            z -= z.max(axis=1, keepdims=True)
            e = np.exp(z)
            s = e.sum(axis=1, keepdims=True)
            logp = z - np.log(s)
            loss = -float((wt * onehot * logp).sum()) + 0.5 * l2 * float(((w - prior) ** 2).sum())
            g = (e / s - onehot) * wt
            gw = x.T @ g + l2 * (w - prior)
            return loss, np.concatenate([gw.ravel(), g.sum(axis=0)])

        theta = lbfgs(
            loss_grad, np.concatenate([prior.ravel(), np.zeros(k, np.float32)]), iterations
        )
        return cls(theta[: d * k].reshape(d, k).copy(), theta[d * k :].copy())


def lbfgs(f, x0: np.ndarray, iterations: int, memory: int = 10, tol: float = 1e-6) -> np.ndarray:
    """Minimise a smooth function ``f(x) -> (value, gradient)`` from ``x0`` by L-BFGS with a
    backtracking (Armijo) line search; at most ``iterations`` steps.

    >>> square = lambda v: (float(((v - 3) ** 2).sum()), 2 * (v - 3))
    >>> lbfgs(square, np.zeros(2), 50).round(4).tolist()
    [3.0, 3.0]
    """
    x = np.asarray(x0, np.float64).copy()
    fx, g = f(x.astype(np.float32))
    g = np.asarray(g, np.float64)
    ss: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    for _ in range(iterations):
        if float(np.abs(g).max()) < tol:
            break
        # the two-loop recursion: the direction of the inverse Hessian estimate
        q = g.copy()
        alphas = []
        for s_i, y_i in reversed(list(zip(ss, ys, strict=True))):
            a = float(s_i @ q) / float(y_i @ s_i)
            alphas.append(a)
            q -= a * y_i
        if ys:
            q *= float(ss[-1] @ ys[-1]) / float(ys[-1] @ ys[-1])
        for (s_i, y_i), a in zip(zip(ss, ys, strict=True), reversed(alphas), strict=True):
            q += (a - float(y_i @ q) / float(y_i @ s_i)) * s_i
        direction = -q
        slope = float(g @ direction)
        if slope >= 0:  # not a descent direction: start the memory again
            ss.clear()
            ys.clear()
            direction, slope = -g, -float(g @ g)
        step = 1.0 if ys else min(1.0, 1.0 / max(float(np.abs(g).sum()), 1e-12))
        for _ in range(30):
            x_new = x + step * direction
            f_new, g_new = f(x_new.astype(np.float32))
            if f_new <= fx + 1e-4 * step * slope:
                break
            step *= 0.5
        else:
            break
        g_new = np.asarray(g_new, np.float64)
        s_k, y_k = x_new - x, g_new - g
        if float(s_k @ y_k) > 1e-10:
            ss.append(s_k)
            ys.append(y_k)
            if len(ss) > memory:
                ss.pop(0)
                ys.pop(0)
        x, fx, g = x_new, f_new, g_new
        if abs(step * slope) < 1e-9 * max(abs(fx), 1.0):
            break
    return x.astype(np.float32)


@dataclass
class Head:
    """The taught head of one dice set: standardisation of the embedding, then the die and
    the face regressions on ``[embedding, log die_prob, log face_prob]``.

    ``die`` is None for a set of one die. ``zoom``: the embedding is the crop's, then its
    :func:`zoomed` view's (``features`` of each, :func:`embed`)."""

    mean: np.ndarray
    scale: np.ndarray
    face: Softmax
    die: Softmax | None
    zoom: bool = False

    def proba_embedded(self, emb, die_p, face_p) -> tuple[np.ndarray, np.ndarray]:
        """(N x dice, N x (faces + none)) probabilities of the taught head for crops embedded
        (:func:`embed`; a ``zoom`` head: the crop's, then its zoomed view's) and the shipped
        network's answers for them."""
        e = (np.asarray(emb, np.float32) - self.mean) / self.scale
        x = np.concatenate([e, _log(die_p), _log(face_p)], axis=1).astype(np.float32)
        die = self.die.proba(x) if self.die is not None else np.ones((len(x), 1), np.float32)
        return die, self.face.proba(x)

    @staticmethod
    def priors(dims: int, n_dice: int, n_faces: int) -> tuple[np.ndarray, np.ndarray]:
        """Weights that pass the shipped log-probabilities through (the shipped answer)."""
        rows = dims + n_dice + n_faces
        die = np.zeros((rows, n_dice), np.float32)
        die[dims : dims + n_dice] = np.eye(n_dice)
        face = np.zeros((rows, n_faces), np.float32)
        face[dims + n_dice :] = np.eye(n_faces)
        return die, face

    @classmethod
    def fit(
        cls,
        features_embedded: np.ndarray,
        die_p: np.ndarray,
        face_p: np.ndarray,
        face_y: np.ndarray,
        die_y: np.ndarray,
        l2: float,
        iterations: int = ITERATIONS,
        zoom: bool = False,
    ) -> Head:
        """Fit on embedded crops (:func:`embed`; ``zoom``: and their zoomed views'), the
        shipped network's outputs for them, face labels (``n_faces`` for "no die") and die
        labels (-1 for "no die")."""
        e = np.asarray(features_embedded, np.float32)
        mean = e.mean(axis=0)
        scale = e.std(axis=0) + 1e-3
        n_dice, n_faces = die_p.shape[1], face_p.shape[1]
        x = np.concatenate([(e - mean) / scale, _log(die_p), _log(face_p)], axis=1)
        prior_die, prior_face = cls.priors(e.shape[1], n_dice, n_faces)
        # faces weighed alike (a face shown less often is not a face less likely)
        counts = np.bincount(face_y, minlength=n_faces).astype(np.float32)
        weight = 1.0 / np.maximum(counts[face_y], 1.0)
        face = Softmax.fit(x, face_y, n_faces, prior_face, l2, weight, iterations)
        die = None
        if n_dice > 1:
            keep = die_y >= 0
            counts = np.bincount(die_y[keep], minlength=n_dice).astype(np.float32)
            die = Softmax.fit(
                x[keep],
                die_y[keep],
                n_dice,
                prior_die,
                l2,
                1.0 / np.maximum(counts[die_y[keep]], 1.0),
                iterations,
            )
        return cls(mean, scale, face, die, zoom)

    def save(self, path: Path | str) -> None:
        arrays = {
            "mean": self.mean,
            "scale": self.scale,
            "face_w": self.face.w,
            "face_b": self.face.b,
            "zoom": np.array(self.zoom),
        }
        if self.die is not None:
            arrays |= {"die_w": self.die.w, "die_b": self.die.b}
        with open(path, "wb") as fh:
            np.savez(fh, **arrays)

    @classmethod
    def load(cls, path: Path | str) -> Head:
        """A saved head; ValueError when the file is no head."""
        try:
            with np.load(path, allow_pickle=False) as z:
                die = Softmax(z["die_w"], z["die_b"]) if "die_w" in z else None
                zoom = bool(z["zoom"]) if "zoom" in z else False  # (heads taught before)
                face = Softmax(z["face_w"], z["face_b"])
                return cls(z["mean"], z["scale"], face, die, zoom)
        except (OSError, KeyError, ValueError, EOFError) as exc:
            raise ValueError(f"{path}: not a taught head ({exc.__class__.__name__})") from None


def joint_best(die_p, face_p, pairs) -> tuple[int, float]:
    """The index into ``pairs`` of the likeliest (die, face) pair the dice set allows, and its
    probability (die probability x face probability)."""
    pair_die, pair_face = pairs[0], pairs[1]
    joint = np.asarray(die_p)[pair_die] * np.asarray(face_p)[pair_face]
    k = int(np.argmax(joint))
    return k, float(joint[k])


def best_pair(die_p, face_p, pairs) -> tuple[tuple[str, str], float]:
    """The likeliest (die id, face id) pair the dice set allows (:func:`joint_best`) and its
    probability.

    >>> best_pair([1.0], [0.2, 0.7, 0.1], (np.array([0, 0]), np.array([0, 1]), ("d6",), ("1", "2")))
    (('d6', '2'), 0.7)
    """
    k, q = joint_best(die_p, face_p, pairs)
    return (pairs[2][int(pairs[0][k])], pairs[3][int(pairs[1][k])]), q


TURN_DOUBT = 0.5  # turns this sure of another pair than the mean's put the read in doubt ...
# ... when there are this many of them (of four). With one, taught heads asked about 3.4% of
# fresh phone-d6 dice, half of them for one turn's doubt (the bolt on the 6, or a glare spot,
# seen at one turn as another face); with two, 2.6%, none read wrong (six teachings each of
# ``dicetray bench --teach``'s dice)
DOUBTING_TURNS = 2


def _score(die_p, face_p, shipped_die_p, shipped_face_p, pairs, heed: bool) -> tuple[int, float]:
    k, p = joint_best(die_p, face_p, pairs)
    if not heed:
        return k, p
    ks, q = joint_best(shipped_die_p, shipped_face_p, pairs)
    return k, (p if ks == k else p * (1.0 - q / 2))


class Hearing(NamedTuple):
    """Which opinions score a die besides the taught head's (:func:`decide`): the pips
    counted (``vision.pips``), the shipped network, and the doubt of a turn read as another
    face. Teaching chooses it; ``taught.json`` keeps it among the classifier's thresholds
    (:meth:`cuts`; a folder taught before the choice heard all three)."""

    pips: bool = True
    shipped: bool = True
    turns: bool = True

    KEYS = ("pips", "shipped_heard", "turn_doubt")  # in taught.json, field by field

    def cuts(self) -> dict:
        """The hearing as ``taught.json`` keeps it.

        >>> Hearing(turns=False).cuts()
        {'pips': True, 'shipped_heard': True, 'turn_doubt': False}
        """
        return dict(zip(self.KEYS, self, strict=True))

    @classmethod
    def from_cuts(cls, cuts: dict) -> Hearing:
        """The hearing a taught card keeps; ValueError when a value is not true or false."""
        got = [cuts.get(key, True) for key in cls.KEYS]
        if not all(isinstance(v, bool) for v in got):
            raise ValueError(f"{', '.join(cls.KEYS)} must be true or false")
        return cls(*got)


PIP_GAIN = 2.0  # the pip counter agreeing halves a read's doubt


def decide(
    die_t,
    face_t,
    shipped_die_t,
    shipped_face_t,
    pairs,
    pips=None,
    heed: bool = True,
    doubt_turns: bool = True,
) -> tuple[tuple[str, str], float]:
    """A taught head's reading of one die read at one or more turns (arrays turns x dice,
    turns x (faces + none), the head's and the shipped network's): the likeliest (die, face)
    pair of the head's mean, ``p`` sure, and the score the taught thresholds apply to.

    The shipped network is heard against the head: when its best guess (``q`` sure) is
    another pair, the head's word is discounted by half its sureness in that one
    (``p (1 - q/2)``: the head was taught where the shipped network is wrong, so it is not
    overruled by it); when it is the same pair, the score stays ``p``. The head reads the
    shipped network's answers among its inputs and is pulled towards them, so their
    agreement is no second witness: heard as two (their doubts multiplied), a glare spot on
    a black die that both took for a 1 scored 0.90 and was read (docs/teaching.md). ``heed``
    False: the shipped network is not heard, the score is ``p`` (teaching chooses it when
    that reads more of its dice right: an owner's dice that the shipped network reads wrong
    for sure, digits for pips say, are then not discounted).
    Read at several turns, a die that ``DOUBTING_TURNS`` turns each score at ``TURN_DOUBT``
    or more as another pair than the mean's is in doubt: the score is multiplied by the
    doubt of the least sure of them (unless ``doubt_turns`` is False: teaching chooses it for
    marks that look like another face turned, digits say). One turn alone is not enough: a
    bolt or a glare spot seen at one turn looks like other marks, and the mean hears it.
    ``pips``: a third, geometric opinion for pip faces (``vision.pips``), a function of the
    pair giving True (the pips counted agree: the doubt is halved), False (they count another
    number: no read) or None (no opinion). ``pairs``: (die index array, face index array, die
    ids, face ids).

    >>> pairs = (np.array([0, 0]), np.array([0, 1]), ("d6",), ("1", "2"))
    >>> one = lambda *f: np.array([f])
    >>> decide(one(1.0), one(0.8, 0.2, 0), one(1.0), one(0.6, 0.4, 0), pairs)
    (('d6', '1'), 0.8)
    >>> decide(one(1.0), one(0.8, 0.2, 0), one(1.0), one(0.3, 0.7, 0), pairs)
    (('d6', '1'), 0.52)
    >>> decide(one(1.0), one(0.8, 0.2, 0), one(1.0), one(0.3, 0.7, 0), pairs, heed=False)
    (('d6', '1'), 0.8)
    >>> turned = np.array([[0.9, 0.1, 0], [0.9, 0.1, 0], [0.9, 0.1, 0], [0.2, 0.8, 0]])
    >>> decide(np.ones((4, 1)), turned, np.ones((4, 1)), turned, pairs)
    (('d6', '1'), 0.725)
    >>> turned[2] = [0.3, 0.7, 0]
    >>> decide(np.ones((4, 1)), turned, np.ones((4, 1)), turned, pairs)
    (('d6', '1'), 0.1725)
    >>> decide(np.ones((4, 1)), turned, np.ones((4, 1)), turned, pairs, doubt_turns=False)
    (('d6', '1'), 0.575)
    >>> decide(one(1.0), one(0.8, 0.2, 0), one(1.0), one(0.6, 0.4, 0), pairs, lambda p: True)
    (('d6', '1'), 0.9)
    >>> decide(one(1.0), one(0.8, 0.2, 0), one(1.0), one(0.6, 0.4, 0), pairs, lambda p: False)
    (('d6', '1'), 0.0)
    """
    die_t, face_t = np.asarray(die_t), np.asarray(face_t)
    shipped_die_t, shipped_face_t = np.asarray(shipped_die_t), np.asarray(shipped_face_t)
    k, score = _score(
        die_t.mean(0), face_t.mean(0), shipped_die_t.mean(0), shipped_face_t.mean(0), pairs, heed
    )
    if len(die_t) > 1 and doubt_turns:
        turns = (
            _score(die_t[i], face_t[i], shipped_die_t[i], shipped_face_t[i], pairs, heed)
            for i in range(len(die_t))
        )
        other = sorted((s for kk, s in turns if kk != k and s >= TURN_DOUBT), reverse=True)
        if len(other) >= DOUBTING_TURNS:
            score *= 1.0 - other[DOUBTING_TURNS - 1]
    pair = (pairs[2][int(pairs[0][k])], pairs[3][int(pairs[1][k])])
    return pair, round(hear_pips(pair, float(score), pips), 6)


# how the second head is heard, as ``taught.json`` says it under the second opinion:
# "blend", the two heads' probabilities averaged at each turn and read as one head's
# (``blend``; taught since 2026-12-03); before, the second head's best pair was heard
# against the first's (``second_opinion``) and a die both name scored at the mean of the
# two's sureness ("mean"), or (a folder taught before 2026-12-01) the lesser
BLEND = "blend"
AGREED = (BLEND, "mean", "lesser")
# ... the mean only where both find the face likelier right than wrong: a reader under one
# half (a head in doubt of its turns, or overruled by the shipped network: ``decide``) keeps
# the die at its own score
HALF = 0.5


def blend(first, second) -> np.ndarray:
    """Two heads' probabilities of the same crops (arrays alike: turns x classes, or turns x
    crops x classes) heard as one reader's: their mean, class by class. Where the two name
    one face, it stays as sure as they are on average; where they differ, neither is read
    surer than their mean allows, and a head in doubt pulls the other down with it.
    Measured against :func:`second_opinion` on teaching's cross-validated reads (the same
    folds, heads and hearing; mixed-d6 photo seeds 11, 51, 61, phone-d6 21, owner-d6 41
    and 51: docs/teaching.md), it read as many of the teaching dice or more at the bound on
    every one.

    >>> blend(np.array([[0.9, 0.1]]), np.array([[0.5, 0.5]])).tolist()
    [[0.7, 0.3]]
    """
    return (np.asarray(first) + np.asarray(second)) / 2


def second_opinion(
    pair, score: float, die_p, face_p, pairs, shipped=None, pips=None, agreed: str = "mean"
):
    """The reading of ``pair`` (a die and face read, see :func:`decide`) at ``score``, with a
    second taught head heard: a head fitted on another network's features, whose
    probabilities (``die_p``, ``face_p``: their mean over the turns read) are given. Its
    likeliest pair the same, the score is the mean of the two readers' sureness where both
    are at least one half (as the table hears the two shipped d6 networks: the mean of their
    answers), else the lesser (``agreed="lesser"``: the lesser always, which ranked the dice
    worse, see docs/teaching.md). Another pair: no read (score 0), unless ``shipped`` (the
    shipped network's die and face probabilities, their mean over the turns, when it is
    heard) names that pair too; then two
    readers of the three name it, and it is read at the lesser of their sureness, the pips
    counted heard on it (``pips``, as :func:`hear_pips` hears them). The pips counted are a
    reader too: counting the second head's number and not the first's, they name its pair
    with it, read at the second head's sureness with the pips heard (a red 4 on a black die
    that the first head took for a 2 at 0.56, the second head read at 1.0); named by both
    the shipped network and the pips, the surer of the two scores. Two heads
    taught on the same photos but reading different networks are wrong together less often
    than either alone (measured on real sets neither network saw: docs/teaching.md); the
    first head alone, taught on a few hundred dice, reads a glare spot on a 1, 2 or 3 as a
    logo on the 6 where both others read the face (docs/teaching.md).

    >>> pairs = (np.array([0, 0]), np.array([0, 1]), ("d6",), ("1", "2"))
    >>> second_opinion(("d6", "2"), 0.9, [1.0], [0.2, 0.7, 0.1], pairs)
    (('d6', '2'), 0.8)
    >>> second_opinion(("d6", "2"), 0.9, [1.0], [0.2, 0.7, 0.1], pairs, agreed="lesser")
    (('d6', '2'), 0.7)
    >>> second_opinion(("d6", "2"), 0.3, [1.0], [0.0, 1.0, 0.0], pairs)  # one in doubt
    (('d6', '2'), 0.3)
    >>> second_opinion(("d6", "1"), 0.9, [1.0], [0.2, 0.7, 0.1], pairs)
    (('d6', '1'), 0.0)
    >>> second_opinion(("d6", "1"), 0.9, [1.0], [0.2, 0.7, 0.1], pairs, ([1.0], [0.1, 0.8, 0]))
    (('d6', '2'), 0.7)
    >>> two = ([1.0], [0.1, 0.8, 0])
    >>> second_opinion(("d6", "1"), 0.9, [1.0], [0.2, 0.7, 0.1], pairs, two, lambda p: False)
    (('d6', '2'), 0.0)
    >>> counted_two = lambda p: p[1] == "2"    # the pips counted: two
    >>> second_opinion(("d6", "1"), 0.0, [1.0], [0.2, 0.7, 0.1], pairs, None, counted_two)
    (('d6', '2'), 0.85)
    >>> unsure = ([1.0], [0.2, 0.5, 0.3])     # the shipped network names it too, less sure
    >>> second_opinion(("d6", "1"), 0.0, [1.0], [0.2, 0.7, 0.1], pairs, unsure, counted_two)
    (('d6', '2'), 0.85)
    """
    best, q = best_pair(die_p, face_p, pairs)
    if best == tuple(pair):
        both = agreed == "mean" and min(score, q) >= HALF
        return best, float((score + q) / 2 if both else min(score, q))
    if pips is not None and pips(best) is True and pips(tuple(pair)) is False:
        # (the surer score: the shipped network naming it too would give min(q, qs) heard)
        return best, hear_pips(best, q, pips)
    if shipped is not None:
        named, qs = best_pair(shipped[0], shipped[1], pairs)
        if named == best:
            return best, hear_pips(best, min(q, qs), pips)
    return tuple(pair), 0.0


def hear_pips(pair, score: float, pips=None) -> float:
    """A score of ``pair`` with the pips' opinion heard (see :func:`decide`): agreeing
    (``pips(pair)`` True), the doubt halved; counting another number (False), 0.

    >>> hear_pips(("d6", "1"), 0.8, lambda p: True), hear_pips(("d6", "1"), 0.8, None)
    (0.9, 0.8)
    """
    agree = pips(pair) if pips is not None else None
    if agree is True:
        score = 1.0 - (1.0 - score) / PIP_GAIN
    elif agree is False:
        score = 0.0
    return float(score)
