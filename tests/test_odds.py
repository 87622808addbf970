"""Live odds (tray/rules/odds.py) against cases worked out by hand, one block a game, and the
``dicetray odds`` command."""

from __future__ import annotations

import json
from fractions import Fraction as F

from tray.commands import main_odds
from tray.layouts import default_layout
from tray.rules.engine import action, roll
from tray.rules.games import bank, diced_out, rollers, tally_up, toss_up
from tray.rules.journal import Journal
from tray.rules.odds import odds
from vision.dicesets import load

D6 = {"d6": ["1", "2", "3", "4", "5", "6"]}


def by_choice(state):
    return {o.choice: o for o in odds(state)["options"]}


# ----------------------------------------------------------------------------- Bank


def test_bank_phase1_no_bust_and_sevens_worth_70():
    o = by_choice(bank.new_game(["Ann", "Ben"], D6))
    # 6 sevens of 36 are worth 70; the other 30 outcomes sum to 252 - 42 = 210
    assert list(o) == ["roll"]
    assert o["roll"].p_bust == 0
    assert o["roll"].expected_points == F(6 * 70 + 210, 36)


def test_bank_after_third_roll_a_seven_ends_it_one_time_in_six():
    s = bank.new_game(["Ann", "Ben"], D6)
    for dice in (("d6:1", "d6:4"), ("d6:2", "d6:4"), ("d6:4", "d6:5")):
        s = bank.apply(s, roll(*dice))
    o = by_choice(s)
    assert o["roll"].p_bust == F(1, 6)
    # 24 plain outcomes (sums 168) keep 20 + sum; 6 doubles give 2*20 + sum (sums 42)
    assert o["roll"].expected_points == F(24 * 20 + 168 + 6 * 40 + 42, 36) == 20 + F(35, 6)
    assert o["bank"].p_bust == 0 and o["bank"].expected_points == 20


def test_bank_double_only_rule():
    s = bank.new_game(["Ann", "Ben"], D6, {"doubles_rule": "double_only"})
    for dice in (("d6:1", "d6:4"), ("d6:2", "d6:4"), ("d6:4", "d6:5")):
        s = bank.apply(s, roll(*dice))
    assert by_choice(s)["roll"].expected_points == 20 + F(14, 3)


# ----------------------------------------------------------------------------- Toss Up!

TOSS = load("toss-up").layout()


def test_toss_up_one_die_left():
    s = toss_up.new_game(["Ana", "Ben"], TOSS)
    s = toss_up.apply(s, roll(*["toss:green"] * 9 + ["toss:yellow"]))
    o = by_choice(s)
    # one die: red (1/6) busts; green (1/2) adds a point to the 9
    assert o["roll"].p_bust == F(1, 6)
    assert o["roll"].expected_points == F(5, 6) * 9 + F(1, 2)
    assert o["stop"].expected_points == 9 and o["stop"].p_bust == 0


def test_toss_up_two_dice_and_a_fresh_turn():
    s = toss_up.new_game(["Ana", "Ben"], TOSS)
    assert list(by_choice(s)) == ["roll"]  # no stop before the first throw
    assert by_choice(s)["roll"].p_bust == F(1, 2) ** 10 - F(1, 3) ** 10
    s = toss_up.apply(s, roll(*["toss:green"] * 8 + ["toss:yellow"] * 2))
    assert by_choice(s)["roll"].p_bust == F(1, 4) - F(1, 9)  # no green, not all yellow


# ----------------------------------------------------------------------------- Tally Up!

TALLY = load("tally-up").layout()


def test_tally_up_dice_choice_tally_chance():
    o = by_choice(tally_up.new_game(["Ana", "Ben"], TALLY))
    assert len(o) == 20  # every choice of three colours
    # three stars: 3/6 * 3/6 * 2/6 for red, orange, yellow; 1/6 * 1/6 * 2/6 for the low ones
    assert o["red+orange+yellow"].extra["p_tally_up"] == F(1, 12)
    assert o["yellow+blue+purple"].extra["p_tally_up"] == F(1, 108)
    # two or more stars on the Main Roll alone already bust 26 of 216 times
    assert o["yellow+blue+purple"].p_bust > F(26, 216)
    assert o["red+orange+yellow"].p_bust > o["yellow+blue+purple"].p_bust


def _before_up():
    s = tally_up.new_game(["Ana", "Ben"], TALLY)
    return tally_up.apply(s, roll("red:star", "orange:200", "yellow:(150)"))  # 350, 1 star, circle


def test_tally_up_reveal_before_the_up_die():
    o = by_choice(_before_up())
    assert o["out"].expected_points == 350 and o["out"].p_bust == 0
    # Up Die faces, each 1/6, spare dice green (2 stars), blue and purple (1 star each):
    # +1: one die, blue: bust 1/6, 5/6 * 450;  +2: blue + purple: bust 11/36, 25/36 * 550;
    # +3: all three: bust 116/216, 100/216 * 700;  -100: 250;  +100: 450;  x2: 700
    assert o["in"].p_bust == F(1, 6) * (F(1, 6) + F(11, 36) + F(116, 216))
    assert o["in"].expected_points == F(1, 6) * (
        F(5, 6) * 450 + F(25, 36) * 550 + F(100, 216) * 700 + 250 + 450 + 700
    )
    assert o["in"].extra["p_up_helps"] == F(5, 6)  # everything but -100


def test_tally_up_bonus_roll_choices():
    s = _before_up()
    s = tally_up.apply(s, action(0, "in"))
    s = tally_up.apply(s, action(1, "in"))
    s = tally_up.apply(s, roll("up:+1"))
    o = by_choice(s)
    assert set(o) == {"green", "blue", "purple"}
    assert o["green"].p_bust == F(1, 3) and o["green"].expected_points == F(4, 6) * 500
    assert o["blue"].p_bust == F(1, 6) and o["blue"].expected_points == F(5, 6) * 450


# ----------------------------------------------------------------------------- DICEDOUT!


def _sheet(marks, rerolls, phase="turn"):
    s = diced_out.new_game(["Ann", "Ben"], D6)
    s = diced_out.apply(s, roll("d6:6", "d6:6"))
    s = diced_out.apply(s, roll("d6:1", "d6:1"))  # Ann starts
    s["marks"][0] = sorted(marks)
    s["rerolls"][0] = rerolls
    s["phase"] = phase
    return s


def test_diced_out_one_number_left():
    o = by_choice(_sheet(set(range(2, 12)), 0))["roll"]
    assert o.p_bust == F(35, 36) and o.extra["p_complete"] == F(1, 36)
    assert o.expected_points == F(35, 36) * 12
    o = by_choice(_sheet(set(range(2, 12)), 1))["roll"]
    assert o.p_bust == F(35, 36) ** 2
    assert o.extra["p_complete"] == 1 - F(35, 36) ** 2
    assert o.expected_points == 12 * F(35, 36) ** 2


def test_diced_out_extra_mark_choices():
    s = _sheet(set(range(2, 13)) - {7, 12}, 0, phase="bonus")
    o = by_choice(s)
    assert set(o) == {"mark 7", "mark 12"}
    assert o["mark 12"].extra["p_complete"] == F(1, 6)  # 7 is left: 6 ways in 36
    assert o["mark 12"].expected_points == F(5, 6) * 7
    assert o["mark 7"].expected_points == F(35, 36) * 12
    assert o["mark 12"].p_bust == F(5, 6)


# ----------------------------------------------------------------------------- Rollers

ROLLERS = load("rollers").layout()


def test_rollers_last_die_closes_the_board_one_time_in_six():
    s = rollers.new_game(["Ann", "Ben"], ROLLERS)
    s = rollers.apply(s, roll("wild:5"))
    s = rollers.apply(s, roll("black:2"))  # Ann starts
    s["boards"][0] = ["empty", "closed", "closed", "closed", "closed"]
    s["turn"] = {
        "rolls": 2,
        "saved": ["wild:1", "wild:2", "wild:3", "wild:4", "wild:5"],
        "last_roll": [],
        "zapped": False,
        "step": "roll",
    }
    o = by_choice(s)["roll"]
    # the saved 1 opens section 1; a black 1 closes it (and the board); a ZAP cancels the black
    assert o.p_bust == F(1, 6)
    assert o.expected_points == F(1, 6) * 2 + F(5, 6) * 1
    assert o.extra["p_close_board"] == F(1, 6) and o.extra["p_progress"] == 1


def test_rollers_save_options_name_the_zap_risk():
    s = rollers.new_game(["Ann", "Ben"], ROLLERS)
    s = rollers.apply(s, roll("wild:5"))
    s = rollers.apply(s, roll("black:2"))
    s = rollers.apply(s, roll("wild:1", "wild:3", "wild:3", "wild:star", "wild:4", "black:5"))
    options = odds(s)["options"]
    assert options[-1].choice == "stop" and options[-1].p_bust == 0
    keeps_black = [
        o for o in options[:-1] if "black:5" in str(o.event) or "5" in o.choice.split(";")[0]
    ]
    assert keeps_black and all(o.p_bust == 0 for o in keeps_black)
    assert options[0].choice == "roll all 6 again" and options[0].p_bust == F(1, 6)


def test_finished_game_has_no_options():
    s = toss_up.new_game(["Ana", "Ben"], TOSS)
    s["finished"] = True
    assert odds(s)["options"] == []


# ----------------------------------------------------------------------------- the command


def _bank_journal(tmp_path, rolls):
    j = Journal.create(tmp_path / "b.jsonl", "bank", ["Ann", "Ben"], {"rounds": 10}, D6)
    for dice in rolls:
        j.append(roll(*dice))
    return j.path


def test_odds_command_bank_before_and_after_third_roll(tmp_path, capsys):
    three = [("d6:1", "d6:4"), ("d6:2", "d6:4"), ("d6:4", "d6:5")]
    path = _bank_journal(tmp_path, three)
    assert main_odds([str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "bank"
    roll_opt = out["options"][0]
    assert roll_opt["choice"] == "roll" and roll_opt["p_bust_exact"] == "1/6"
    assert abs(roll_opt["p_bust"] - 1 / 6) < 1e-3
    assert main_odds([str(path), "--after", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["options"][0]["p_bust"] == 0 and [o["choice"] for o in out["options"]] == ["roll"]


def test_odds_command_bad_journal(tmp_path, capsys):
    bad = tmp_path / "x.jsonl"
    bad.write_text("not json\n")
    assert main_odds([str(bad), "--json"]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main_odds([str(tmp_path / "missing.jsonl")]) == 2


def test_odds_command_after_n_heads_its_table_with_the_decision_at_n(tmp_path, capsys):
    """A finished game asked about event 2: the header is the prompt after event 2, not the
    end of the game (before: "Game over: Ann wins" above the odds of event 2)."""
    j = Journal.create(
        tmp_path / "t.jsonl", "toss-up", ["Ann", "Ben"], {}, default_layout("toss-up")
    )
    for _ in range(11):
        j.append(roll(*["toss:green"] * 10))
    j.append(action(0, "stop"))
    j.append(roll(*["toss:red"] * 10))  # Ben's last turn: a bust
    assert j.finished and "Game over" in j.expect().prompt
    assert main_odds([str(j.path), "--after", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    prompt = toss_up.expect(j.state_after(2)).prompt
    assert lines[0] == f"toss-up after event 2 of 13: {prompt}"
    assert "Game over" not in lines[0] and lines[1].split()[0] == "roll"
    assert main_odds([str(j.path)]) == 0
    assert capsys.readouterr().out == "toss-up: nothing left to chance at this point\n"
