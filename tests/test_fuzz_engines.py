"""Seeded fuzzing of every rules engine with hostile events (quick here; the long run is
``python -m lab.fuzz --actions 100000``)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lab.fuzz import HOSTILE, fuzz_game, hostile
from tray.rules import games
from tray.rules.engine import RuleError


@pytest.mark.parametrize("game_id", games.GAME_IDS)
@settings(
    max_examples=4, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(seed=st.integers(0, 2**32 - 1))
def test_engines_answer_every_event_with_a_state_or_a_rule_error(game_id, seed):
    figures = fuzz_game(game_id, seed, actions=120, hostile_rate=0.4)
    assert figures["broken"] == []
    assert figures["refused"] > 0


@pytest.mark.parametrize("game_id", games.GAME_IDS)
@pytest.mark.parametrize("kind", HOSTILE)
def test_every_kind_of_hostile_event_is_refused(game_id, kind):
    import random

    from tray.playthrough import choose, default_layout

    engine = games.get(game_id)
    layout = default_layout(game_id)
    state = engine.new_game(["A", "B"], layout, {})
    rng = random.Random(3)
    legal = choose(engine.expect(state), rng, layout)
    with pytest.raises(RuleError):
        engine.apply(state, hostile(legal, kind, rng))
