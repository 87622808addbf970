"""The thresholds of `dicetray teach --deep` (lab.teach._choose): the most dice read right
while the wrong reads hold a stated bound, tested at the 5% shared among every choice tried."""

from __future__ import annotations

import pytest

from lab import teach
from vision import risk


class Held:
    """Cross-validated dice whose reads at each choice of thresholds are given by ``reads``
    (alone, agree, backed) -> (right, wrong); what lab.teach._Held.read answers."""

    def __init__(self, dice: int, reads):
        self.truth = [("d6", "1")] * dice
        self.reads = reads

    def read(self, turns, alone, agree, backed=True):
        right, wrong = self.reads(alone, agree, backed)
        return right, wrong, len(self.truth) - right - wrong


def _tested(floors) -> int:
    """How many choices _choose tries: every (alone, agree) pair backed, every alone not
    backed, and the shipped network alone."""
    alones = [t for t in teach.GRID if t >= floors[0]]
    backed = sum(1 + len([t for t in teach.GRID if floors[1] <= t < a]) for a in alones)
    return backed + len(alones) + 1


def _lower_reads_more(dice: int, wrong_under: float, wrong: int):
    """Lower thresholds read more dice right; under ``wrong_under`` they read ``wrong``."""

    def reads(alone, agree, backed):
        if alone >= teach.NEVER:  # the shipped network alone
            return dice // 2, 0
        right = int(dice * (1.5 - alone))
        return right, (wrong if alone < wrong_under else 0)

    return reads


def test_with_few_dice_no_cross_validated_die_may_be_read_wrong_and_the_bound_says_so():
    floors = (0.9, 0.9)
    got = teach._choose([Held(80, _lower_reads_more(80, 0.95, 1))], 4, floors)
    assert (got["threshold"], got["agree_threshold"]) == (0.95, None)
    level = risk.DELTA / _tested(floors)
    bound = got["bound"]
    assert bound["wrong_rate_bound"] == pytest.approx(risk.least_bound(80, level), abs=1e-6)
    assert bound["wrong_rate_bound"] > risk.least_bound(80)  # wider: many choices tested
    assert (bound["read"], bound["read_wrong"], bound["calibration_dice"]) == (44, 0, 80)
    assert bound["choices_tested"] == _tested(floors)


def test_with_many_dice_a_few_wrong_reads_within_the_bound_buy_more_dice_read():
    # 3 wrong of 3,000 dice at 0.9: under 0.5% even tested at 5% / 55
    got = teach._choose([Held(3000, _lower_reads_more(3000, 0.95, 3))], 4, (0.9, 0.9))
    assert got["threshold"] == 0.9
    assert got["bound"]["wrong_rate_bound"] == risk.ALPHA
    assert (got["bound"]["read"], got["bound"]["read_wrong"]) == (1803, 3)
    # 40 wrong are too many: the lowest threshold that reads none wrong
    got = teach._choose([Held(3000, _lower_reads_more(3000, 0.95, 40))], 4, (0.9, 0.9))
    assert got["threshold"] == 0.95 and got["bound"]["read_wrong"] == 0


def test_a_taught_network_wrong_at_every_threshold_never_reads_alone():
    def reads(alone, agree, backed):
        return (40, 0) if alone >= teach.NEVER else (70, 2)

    got = teach._choose([Held(80, reads)], 4, (0.9, 0.9))
    assert got["threshold"] == teach.NEVER and "shipped_backs" not in got
    assert (got["bound"]["read"], got["bound"]["read_wrong"]) == (40, 0)

    def shipped_wrong_too(alone, agree, backed):
        return (40, 1) if alone >= teach.NEVER else (70, 2)

    got = teach._choose([Held(80, shipped_wrong_too)], 4, (0.9, 0.9))
    assert got["threshold"] == teach.NEVER and got["shipped_backs"] is False
    assert got["bound"]["read"] == 0
