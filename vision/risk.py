"""Abstention thresholds that bound the rate of wrong reads, with a stated confidence.

A reader says a face only when its confidence reaches a threshold. Set on a few hundred
labelled dice, "no die read wrong above it" says little (zero wrong of 300 is still
consistent with a true wrong rate of 1%), and demanding it throws away readers that are
right 98% of the time. So a threshold here is chosen the way *Learn then Test* (Angelopoulos
et al., 2021) chooses one: for each candidate threshold, from the surest down, the number of
calibration dice read wrong above it gives a one-sided Clopper-Pearson upper bound on the
share of dice that will be read wrong; the candidates are tested in that fixed order and the
lowest one whose bound is at most ``alpha`` (before the first that fails) is taken. With
confidence ``1 - delta`` the wrong-read rate on new dice like the calibration dice is then at
most ``alpha``. The rate counts wrong reads among all dice seen (a die not read costs a
question, not a wrong read).

With ``n`` dice no bound under ``1 - delta ** (1 / n)`` can be shown (0.97% for 308 dice at
95%): with fewer dice than ``alpha`` needs, the bound is stated at that level instead and
then no calibration die may be read wrong. The card of a model says which bound it holds.

    >>> round(upper_bound(0, 600), 4), round(upper_bound(2, 1000), 4)
    (0.005, 0.0063)
    >>> conf = [0.99, 0.98, 0.97, 0.9, 0.8, 0.6]
    >>> wrong = [False, False, False, False, True, False]
    >>> c = choose(conf, wrong, alpha=0.5, delta=0.05)
    >>> c.threshold, c.read, c.wrong
    (0.9, 4, 0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

ALPHA = 0.005  # the wrong-read rate a shipped or taught reader is held to
DELTA = 0.05  # ... with confidence 1 - DELTA
NEVER = 1.01  # a threshold no confidence reaches: the reader abstains on every die


def _log_binom_cdf(k: int, n: int, p: float) -> float:
    """log P(X <= k) for X ~ Binomial(n, p), summed in logs (no scipy at the table)."""
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 0.0 if k >= n else -math.inf
    lp, lq = math.log(p), math.log1p(-p)
    terms = [
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq
        for i in range(min(k, n) + 1)
    ]
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms))


def sign_test(wins: int, losses: int) -> float:
    """The chance of ``wins`` or more heads in ``wins + losses`` tosses of a fair coin (as
    likely as ``losses`` or fewer): how often chance alone would favour one of two readers
    that much on the dice they read differently.

    >>> sign_test(7, 0) < 0.01, sign_test(2, 0) > 0.2
    (True, True)
    """
    return math.exp(_log_binom_cdf(losses, wins + losses, 0.5))


def upper_bound(k: int, n: int, delta: float = DELTA) -> float:
    """The one-sided ``1 - delta`` Clopper-Pearson upper bound of a rate seen ``k`` times in
    ``n`` trials: the largest p with P(X <= k) >= delta.

    >>> round(upper_bound(0, 100), 4)
    0.0295
    """
    if n <= 0:
        return 1.0
    if k >= n:
        return 1.0
    if k == 0:
        return 1.0 - delta ** (1.0 / n)
    lo, hi, target = k / n, 1.0, math.log(delta)
    for _ in range(60):
        mid = (lo + hi) / 2
        if _log_binom_cdf(k, n, mid) >= target:
            lo = mid
        else:
            hi = mid
    return lo


def least_bound(n: int, delta: float = DELTA) -> float:
    """The least wrong-read rate ``n`` calibration dice can show at ``1 - delta``."""
    return upper_bound(0, n, delta)


def held_to(dice: int, alpha: float = ALPHA, delta: float = DELTA) -> float:
    """The wrong-read rate ``dice`` calibration dice can hold a reader to at ``1 - delta``:
    ``alpha``, or the least they can show when that is more (1 without dice).

    >>> held_to(2000), round(held_to(100), 4), held_to(0)
    (0.005, 0.0295, 1.0)
    """
    return max(alpha, least_bound(dice, delta)) if dice else 1.0


def holds(wrong: int, dice: int, bound: float, delta: float = DELTA) -> bool:
    """Whether ``wrong`` reads wrong of ``dice`` calibration dice keep the wrong-read rate
    under ``bound`` at ``1 - delta``.

    >>> holds(0, 100, held_to(100)), holds(1, 100, held_to(100))
    (True, False)
    """
    return upper_bound(wrong, dice, delta) <= bound + 1e-12


def dice_needed(alpha: float = ALPHA, delta: float = DELTA) -> int:
    """The fewest calibration dice that can show a wrong-read rate of ``alpha`` at ``1 -
    delta`` (none of them read wrong).

    >>> dice_needed()
    598
    """
    return math.ceil(math.log(delta) / math.log1p(-alpha))


@dataclass(frozen=True)
class Choice:
    """A chosen threshold and what the calibration dice said of it.

    ``bound``: the rate the threshold holds (``alpha``, or the least that ``dice`` can show);
    ``read``/``wrong``: calibration dice read, and read wrong, at the threshold."""

    threshold: float
    bound: float
    delta: float
    dice: int
    read: int
    wrong: int

    def to_json(self, tested: int = 1) -> dict:
        """The choice as a card states it; ``tested``: how many choices, this one among
        them, were each tested at ``delta`` before the best was taken (a union bound: the
        confidence stated is then the one they hold together).

        >>> Choice(0.9, 0.02, 0.05 / 4, 150, 140, 0).to_json(tested=4)["confidence"]
        0.95
        """
        return {
            "threshold": round(self.threshold, 6),
            "wrong_rate_bound": round(self.bound, 6),
            "confidence": round(1 - self.delta * tested, 6),
            "calibration_dice": self.dice,
            "read": self.read,
            "read_wrong": self.wrong,
            **({"choices_tested": tested} if tested > 1 else {}),
        }


def choose(
    conf,
    wrong,
    alpha: float = ALPHA,
    delta: float = DELTA,
    floor: float = 0.0,
    lowest: bool = False,
) -> Choice:
    """The lowest threshold (not under ``floor``) whose wrong-read rate is bounded by
    ``alpha`` at ``1 - delta``, tested in fixed sequence from the surest read down.

    ``conf``: each calibration die's confidence in its best guess; ``wrong``: whether that
    guess is wrong. Returns :data:`NEVER` as the threshold when not even the surest reads
    pass (then the reader abstains on every die). ``lowest``: the threshold then goes
    halfway down to the surest score it leaves unread, or to ``floor`` when it reads every
    score above that (see :func:`choose_sequence`)."""
    conf = [float(c) for c in conf]
    wrong = [bool(w) for w in wrong]
    if len(conf) != len(wrong):
        raise ValueError("conf and wrong differ in length")
    steps = []
    read = k = 0
    for c in sorted(set(conf), reverse=True):
        if c < floor:
            break
        # every die at this confidence joins together (a threshold cannot split them)
        at = [w for cc, w in zip(conf, wrong, strict=True) if cc == c]
        read += len(at)
        k += sum(at)
        steps.append((c, read, k))
    return choose_sequence(steps, len(conf), alpha, delta, floor if lowest else None)


def choose_sequence(
    steps, dice: int, alpha: float = ALPHA, delta: float = DELTA, lowest: float | None = None
) -> Choice:
    """The last of ``steps`` before the first whose wrong reads break the bound: ``steps``
    are (threshold, dice read, dice read wrong) of ``dice`` calibration dice, in the order
    they are tested (surest first), fixed before the calibration dice were read. Any
    reading rule whose thresholds can be put in such an order is calibrated this way (a
    read once, then at four turns when in doubt, say).

    With ``lowest`` (a number), the threshold is then put halfway down the gap to the next
    step's (to ``lowest`` after the last step): every threshold in that gap reads the same
    calibration dice, so each holds the same bound, and a lower one reads more new dice;
    halfway keeps a margin from the die the next step would read (a wrong read, often). It
    matters with few calibration dice, whose scores lie far apart (teaching's 40-300; a gap
    of 0.08 seen on 80 dice): a new die scoring in the gap would otherwise be asked about on
    no evidence. Thresholds are kept to six decimals, rounded up.

    >>> steps = [(0.9, 50, 0), (0.8, 90, 1), (0.7, 99, 5)]
    >>> choose_sequence(steps, 100, alpha=0.05).threshold
    0.8
    >>> choose_sequence(steps, 100, alpha=0.05, lowest=0.5).threshold
    0.75
    >>> choose_sequence(steps[:2], 100, alpha=0.05, lowest=0.5).threshold
    0.65
    """
    bound = held_to(dice, alpha, delta)
    best = Choice(NEVER, bound, delta, dice, 0, 0)
    below = None  # the threshold of the step after the chosen one
    for i, (threshold, read, k) in enumerate(steps):
        if not holds(k, dice, bound, delta):
            break
        best = Choice(float(threshold), bound, delta, dice, int(read), int(k))
        below = steps[i + 1][0] if i + 1 < len(steps) else None
    if lowest is None or best.threshold >= NEVER:
        return best
    half = (best.threshold + (lowest if below is None else max(below, lowest))) / 2
    return replace(best, threshold=min(best.threshold, math.ceil(half * 1e6 - 1e-6) / 1e6))
