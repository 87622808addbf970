"""Each engine's ``facts(state)``: what the screen shows of a state, as plain public data."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest

from tray import playthrough
from tray.rules import games
from tray.rules.engine import Facts, action, roll

NAMES = ["Ana", "Ben", "Cy"]


@pytest.mark.parametrize("game_id", games.GAME_IDS)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_state_of_a_game_has_plain_public_facts(game_id, seed):
    engine = games.get(game_id)
    events = playthrough.play(game_id, NAMES, {}, seed=seed)
    for state in playthrough.states(game_id, NAMES, {}, events):
        f = engine.facts(state)
        assert isinstance(f, Facts)
        json.dumps(asdict(f))  # plain data: numbers, words, lists
        assert all(isinstance(label, str) and label for label, _ in f.figures)
        assert set(f.status) <= set(range(len(NAMES)))
        assert set(f.losses) <= set(range(len(NAMES)))
        assert bool(f.losses) <= bool(f.loss)  # a loss is always named
        assert all(isinstance(s, str) and ":" in s for s in f.last_roll)
    assert isinstance(engine.LOWEST_WINS, bool)


def test_a_secret_choice_is_not_in_the_facts_before_the_reveal():
    tally = games.get("tally-up")
    s = tally.new_game(NAMES, playthrough.default_layout("tally-up"))
    s = tally.apply(s, roll("red:200", "blue:100", "yellow:150"))
    seen = []
    for choice in ("in", "out"):
        after = tally.apply(s, action(1, choice))
        seen.append(asdict(tally.facts(after)))
    assert seen[0] == seen[1]
    assert seen[0]["status"] == {0: "IN", 1: "IN", 2: "IN"}


def test_a_reveal_and_a_bust_are_told_by_the_facts():
    tally = games.get("tally-up")
    s = tally.new_game(NAMES, playthrough.default_layout("tally-up"))
    s = tally.apply(s, roll("red:200", "blue:100", "yellow:150"))
    for p, choice in ((0, "in"), (1, "out"), (2, "in")):
        s = tally.apply(s, action(p, choice))
    f = tally.facts(s)
    assert f.reveal == ((0, 2), (1,)) and f.in_out == ((0, 2), (1,))
    assert f.status == {0: "IN", 1: "OUT", 2: "IN"}
    s = tally.apply(s, roll("red:star", "blue:star", "yellow:150"))
    f = tally.facts(s)
    assert (f.loss, f.losses) == ("Bust", {0: 450, 2: 450})
    assert f.last_roll == ("red:star", "blue:star", "yellow:150")


def test_bank_facts_name_the_seven_and_the_rounds():
    bank = games.get("bank")
    s = bank.new_game(["Ana", "Ben"], playthrough.default_layout("bank"), {"rounds": 10})
    for dice in (("d6:2", "d6:3"), ("d6:4", "d6:1"), ("d6:6", "d6:2")):
        s = bank.apply(s, roll(*dice))
    s = bank.apply(s, action(1, "bank"))
    assert bank.facts(s).status == {1: "banked"}
    s = bank.apply(s, roll("d6:5", "d6:2"))
    f = bank.facts(s)
    assert f.rounds == 10 and f.loss == "Seven" and f.losses == {0: 18}
    assert f.actor == 0 and f.figures == (("Total", 0),)


def test_only_dicedout_is_won_by_the_lowest_score():
    assert [g for g in games.GAME_IDS if games.get(g).LOWEST_WINS] == ["diced-out"]
