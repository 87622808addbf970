"""Computer players (tray/rules/bots.py) and ``dicetray duel``: decisions checked by hand, and
``best`` beating ``random`` in every game over a short seeded series."""

from __future__ import annotations

import json
import random

import pytest

from tray.commands import main_duel
from tray.layouts import default_layout
from tray.rules import bots
from tray.rules.engine import action, roll
from tray.rules.games import bank, diced_out, tally_up, toss_up
from vision.dicesets import load

D6 = {"d6": ["1", "2", "3", "4", "5", "6"]}


@pytest.mark.parametrize(
    "game,n", [("toss-up", 30), ("bank", 30), ("diced-out", 120), ("tally-up", 10), ("rollers", 10)]
)
def test_best_beats_random(game, n):
    result = bots.duel(game, ["best", "random"], n, default_layout(game), seed=3)
    assert result["games"] == n
    # DICEDOUT! has one decision only (the extra mark after a 2 or 12): a smaller edge
    assert result["wins"]["best"] > (1.2 if game == "diced-out" else 1.5) * result["wins"]["random"]


def test_duel_is_seeded_and_rotates_seats():
    a = bots.duel("toss-up", ["careful", "random", "bold"], 6, default_layout("toss-up"), seed=9)
    assert a == bots.duel(
        "toss-up", ["careful", "random", "bold"], 6, default_layout("toss-up"), seed=9
    )
    assert sum(a["wins"].values()) >= 6
    assert set(bots.duel("bank", ["best", "best"], 2, default_layout("bank"), seed=1)["wins"]) == {
        "best",
        "best2",
    }


def test_duel_refuses_bad_input():
    with pytest.raises(ValueError, match="unknown policy"):
        bots.duel("bank", ["best", "clever"], 1, default_layout("bank"))
    with pytest.raises(ValueError, match="2 to 5 players"):
        bots.duel("rollers", ["best"], 1, default_layout("rollers"))


def test_parse_seat():
    assert bots.parse_seat("bot") == "best"
    assert bots.parse_seat(" Bot:Careful ") == "careful"
    assert bots.parse_seat("Ana") is None
    with pytest.raises(ValueError, match="unknown bot"):
        bots.parse_seat("bot:genius")


def _decision(engine, state, player):
    return next(d for d in engine.expect(state).decisions if d.player == player)


def test_toss_up_best_rolls_on_with_many_dice_and_stops_with_few():
    s = toss_up.new_game(["Ana", "Ben"], load("toss-up").layout())
    s = toss_up.apply(s, roll(*["toss:green"] * 2 + ["toss:yellow"] * 8))  # 2 points, 8 dice
    best = bots.Bot("toss-up", "best")
    assert best.decide(s, _decision(toss_up, s, 0), random.Random(0)) is None
    s1 = toss_up.apply(
        toss_up.new_game(["Ana", "Ben"], load("toss-up").layout()),
        roll(*["toss:green"] * 9 + ["toss:yellow"]),
    )  # 9 points, 1 die: roll on,
    assert best.decide(s1, _decision(toss_up, s1, 0), random.Random(0)) is None  # a green: 10 back
    s2 = toss_up.new_game(["Ana", "Ben"], load("toss-up").layout())
    for greens in (10, 10, 7):  # 27 points, 3 dice left: the solved rule stops from 27
        s2 = toss_up.apply(s2, roll(*["toss:green"] * greens + ["toss:yellow"] * (10 - greens)))
    assert best.decide(s2, _decision(toss_up, s2, 0), random.Random(0)) == action(0, "stop")


def test_tally_up_best_stays_in_low_and_goes_out_high():
    s = tally_up.new_game(["Ana", "Ben"], load("tally-up").layout())
    s = tally_up.apply(s, roll("blue:100", "purple:100", "yellow:150"))  # 350, no circle
    best = bots.Bot("tally-up", "best")
    assert best.decide(s, _decision(tally_up, s, 1), random.Random(0)) == action(1, "in")
    s["running"] = 2400
    assert best.decide(s, _decision(tally_up, s, 1), random.Random(0)) == action(1, "out")


def test_tally_up_best_picks_dice_and_presses():
    s = tally_up.new_game(["Ana", "Ben"], load("tally-up").layout())
    dice = bots.Bot("tally-up", "best").dice(s, tally_up.expect(s).roll, random.Random(0))
    assert len(set(dice)) == 3 and "up" not in dice
    s = tally_up.apply(s, roll("red:star", "orange:star", "yellow:star"))
    d = _decision(tally_up, s, 1)
    assert bots.Bot("tally-up", "random").decide(s, d, random.Random(0)) == action(1, "tally_up")


def test_diced_out_best_marks_the_number_that_leaves_least():
    s = diced_out.new_game(["Ann", "Ben"], D6)
    s = diced_out.apply(s, roll("d6:6", "d6:6"))
    s = diced_out.apply(s, roll("d6:1", "d6:1"))
    s["marks"][0] = sorted(set(range(3, 13)) - {7, 12})
    s["rerolls"][0] = 0
    s = diced_out.apply(s, roll("d6:1", "d6:1"))  # a 2 (circled): mark one more
    d = _decision(diced_out, s, 0)
    # leaving 7 (rolled 1 time in 6) expects 35/6; leaving 12 expects 35/3
    assert bots.Bot("diced-out", "best").decide(s, d, random.Random(0))["number"] == 12
    assert bots.Bot("diced-out", "bold").decide(s, d, random.Random(0))["number"] == 7


def test_bank_best_banks_just_above_what_the_others_bank():
    s = bank.new_game(["Ann", "Ben"], D6, {"rounds": 10})
    s["round_points"] = [[0, 200], [0, 220], [0, 0], [0, 240], [0, 0]]
    s["round"] = 5
    for dice in (("d6:1", "d6:4"), ("d6:2", "d6:4"), ("d6:4", "d6:5")):
        s = bank.apply(s, roll(*dice))
    best = bots.Bot("bank", "best")
    s["total"] = 255  # Ben banks about 220: Ann waits for 1.15 * 220 = 253, floor 250
    assert best.decide(s, _decision(bank, s, 0), random.Random(0)) == action(0, "bank")
    s["total"] = 240
    assert best.decide(s, _decision(bank, s, 0), random.Random(0)) is None


def test_duel_command(capsys):
    assert (
        main_duel(
            ["--game", "bank", "--players", "best,random", "--games", "3", "--seed", "2", "--json"]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 3 and sum(out["wins"].values()) >= 3
    assert main_duel(["--game", "bank", "--players", "best,wizard", "--games", "3"]) == 2
    assert "unknown policy" in capsys.readouterr().err
