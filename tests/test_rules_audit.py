"""Independent rules audit of the five engines.

The scenarios below follow ``tray/rules/RULES.md`` and the publishers' rulebooks, and were
written without reading the engines' code; every engine is driven only through its public interface
(``new_game``, ``expect``, ``apply``, ``summary``, events made with ``tray.rules.engine.roll`` /
``tray.rules.engine.action``). A discrepancy found with RULES.md is recorded as a test marked
``xfail(strict=True)`` until the engine is fixed: it then flips to a pass and, being strict, to a
failure that asks for the marker to be removed.
"""

from __future__ import annotations

import copy

import pytest

from tray.rules.engine import RuleError, action, roll
from tray.rules.games import get
from vision.dicesets import load

SUMMARY_KEYS = {"game", "players", "round", "active", "finished", "winner"}


def check_summary(engine, state, game_id):
    """The replay JSON of summary(): the shared keys with the shared types."""
    s = engine.summary(state)
    assert SUMMARY_KEYS <= set(s)
    assert s["game"] == game_id
    assert [p["name"] for p in s["players"]] == state["players"]
    assert all(isinstance(p["score"], int) for p in s["players"])
    assert isinstance(s["round"], int)
    assert s["active"] is None or s["active"] in state["players"]
    assert isinstance(s["finished"], bool)
    w = s["winner"]
    assert (
        w is None
        or w in state["players"]
        or (isinstance(w, list) and len(w) >= 2 and all(n in state["players"] for n in w))
    )
    if not s["finished"]:
        assert w is None
    return s


def scores_of(engine, state):
    """Scores as the replay JSON reports them."""
    return [p["score"] for p in engine.summary(state)["players"]]


def refused(engine, state, event, *words):
    """The event is refused with a RuleError whose message holds every word; state unchanged."""
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as err:
        engine.apply(state, event)
    assert state == before
    msg = str(err.value)
    for w in words:
        assert w.lower() in msg.lower(), msg
    return msg


# =============================================================================================
# Tally Up! (tray/rules/RULES.md#1-tally-up)
# =============================================================================================

TU = get("tally-up")
TU_LAYOUT = load("tally-up").layout()


def tu_new(players=("Ana", "Ben", "Cy"), **options):
    return TU.new_game(list(players), copy.deepcopy(TU_LAYOUT), options or None)


def tu_reveal(s, choices):
    """Every listed player chooses (in the given order); the reveal happens with the last."""
    for p, c in choices.items():
        s = TU.apply(s, action(p, c))
    return s


def tu_decision_players(s):
    return sorted(d.player for d in TU.expect(s).decisions)


def test_tu_first_main_roll_has_no_reveal_and_takes_any_three_distinct_dice():
    s = tu_new()
    e = TU.expect(s)
    assert e.roll is not None and e.roll.count == 3 and e.roll.roller == 0
    assert not e.decisions
    refused(TU, s, roll("red:200", "red:200", "blue:100"))
    refused(TU, s, roll("red:200", "blue:100"))
    refused(TU, s, roll("red:200", "blue:100", "up:+1"))
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    assert s["running"] == 450
    # after every resolved roll the IN players choose, in secret
    e = TU.expect(s)
    assert e.roll is None
    assert tu_decision_players(s) == [0, 1, 2]
    assert all(d.secret for d in e.decisions)
    check_summary(TU, s, "tally-up")


def test_tu_locked_colours_refuse_other_dice_naming_the_locked_ones():
    s = tu_new()
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "in", 2: "in"})
    msg = refused(TU, s, roll("red:200", "blue:100", "yellow:150"), "red", "blue", "green")
    assert msg
    refused(TU, s, roll("red:200", "blue:100"), "red", "blue", "green")
    refused(TU, s, roll("red:200", "blue:100", "green:150", "yellow:150"))
    s = TU.apply(s, roll("green:150", "red:200", "blue:100"))  # any order
    assert s["running"] == 900


def test_tu_out_players_bank_at_the_reveal_and_the_active_player_rolls_while_out():
    s = tu_new()
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "out", 1: "in", 2: "out"})
    assert scores_of(TU, s) == [450, 0, 450]
    e = TU.expect(s)
    assert e.roll is not None and e.roll.roller == 0  # Ana is OUT but still rolls
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    assert s["running"] == 900
    assert tu_decision_players(s) == [1]  # only IN players choose again
    s = tu_reveal(s, {1: "out"})
    # everyone OUT: the round ends, next player clockwise is active, total back to 0
    assert scores_of(TU, s) == [450, 900, 450]
    summ = check_summary(TU, s, "tally-up")
    assert summ["active"] == "Ben"
    assert summ["round"] == 2
    assert s["running"] == 0
    e = TU.expect(s)
    assert e.roll.roller == 1 and e.roll.count == 3 and not e.decisions
    # a new round: the new active player chooses any three dice again
    s = TU.apply(s, roll("yellow:150", "orange:200", "purple:100"))
    assert s["running"] == 450


def test_tu_two_stars_bust_the_players_still_in():
    s = tu_new()
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "out", 2: "in"})
    s = TU.apply(s, roll("red:star", "blue:star", "green:150"))
    assert scores_of(TU, s) == [0, 450, 0]
    assert s["running"] == 0
    summ = check_summary(TU, s, "tally-up")
    assert summ["active"] == "Ben" and summ["round"] == 2
    e = TU.expect(s)
    assert e.roll.roller == 1 and not e.decisions


def test_tu_two_stars_on_the_first_roll_bust_everyone():
    s = tu_new(("Ana", "Ben"))
    s = TU.apply(s, roll("red:star", "orange:star", "green:150"))
    assert scores_of(TU, s) == [0, 0]
    assert TU.summary(s)["active"] == "Ben"


@pytest.mark.parametrize(
    "presser, expected",
    [
        (1, [100, 200, 100]),  # Ben is OUT: +200 anyway; Ana and Cy still IN: +100
        (0, [200, 0, 100]),  # the active player (IN) presses first: +200 only
        (2, [100, 0, 200]),
    ],
)
def test_tu_tally_up_first_press_scores_200_others_in_100(presser, expected):
    s = tu_new()
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "out", 2: "in"})
    base = [0, 450, 0]
    s = TU.apply(s, roll("red:star", "blue:star", "green:star"))
    assert s["running"] == 0  # the running total is lost
    assert {d.player for d in TU.expect(s).decisions} >= {0, 1, 2}
    s = TU.apply(s, action(presser, "tally_up"))
    assert scores_of(TU, s) == [b + x for b, x in zip(base, expected, strict=True)]
    summ = check_summary(TU, s, "tally-up")
    assert summ["active"] == "Ben" and summ["round"] == 2
    # the round is over: a later press is refused, the next player rolls
    e = TU.expect(s)
    assert e.roll is not None and e.roll.roller == 1
    refused(TU, s, action(0, "tally_up"))


def test_tu_tally_up_nobody_presses_in_time():
    s = tu_new()
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "out", 2: "in"})
    s = TU.apply(s, roll("red:star", "blue:star", "green:star"))
    s = TU.apply(s, action(-1, "window_closed"))
    # nobody gets +200; the players still IN get +100
    assert scores_of(TU, s) == [100, 450, 100]
    assert TU.summary(s)["active"] == "Ben"


def test_tu_tally_up_on_the_first_roll_of_a_round():
    s = tu_new(("Ana", "Ben"))
    s = TU.apply(s, roll("red:star", "orange:star", "yellow:star"))
    s = TU.apply(s, action(1, "tally_up"))
    assert scores_of(TU, s) == [100, 200]


def test_tu_press_window_option_is_kept():
    s = tu_new(press_window_s=8)
    assert TU.summary(s)["finished"] is False
    assert TU.expect(s).detail.get("press_window_s", 8) == 8


def test_tu_circle_reveal_before_up_die_then_plus_100():
    s = tu_new()
    s = TU.apply(s, roll("red:(200)", "blue:100", "green:150"))
    assert s["running"] == 450
    # IN players choose again before the Up Die
    assert tu_decision_players(s) == [0, 1, 2]
    s = tu_reveal(s, {0: "in", 1: "out", 2: "in"})
    assert scores_of(TU, s) == [0, 450, 0]
    e = TU.expect(s)
    assert e.roll is not None and e.roll.dice == ("up",) and e.roll.roller == 0
    refused(TU, s, roll("red:200", "blue:100", "green:150"))
    s = TU.apply(s, roll("up:+100"))
    assert s["running"] == 550
    assert tu_decision_players(s) == [0, 2]
    s = tu_reveal(s, {0: "out", 2: "in"})
    assert scores_of(TU, s) == [550, 450, 0]


def test_tu_one_up_die_roll_even_with_several_circles():
    s = tu_new()
    s = TU.apply(s, roll("red:(200)", "orange:(200)", "green:(150)"))
    assert s["running"] == 550
    s = tu_reveal(s, {0: "in", 1: "in", 2: "in"})
    s = TU.apply(s, roll("up:+100"))
    assert s["running"] == 650
    assert TU.expect(s).roll is None  # a reveal, not a second Up Die
    assert tu_decision_players(s) == [0, 1, 2]


def test_tu_x2_doubles_after_the_main_roll_points():
    s = tu_new()
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "in", 2: "in"})
    s = TU.apply(s, roll("red:(200)", "blue:100", "green:150"))
    assert s["running"] == 900
    s = tu_reveal(s, {0: "in", 1: "in", 2: "out"})
    assert scores_of(TU, s) == [0, 0, 900]
    s = TU.apply(s, roll("up:x2"))
    assert s["running"] == 1800


def test_tu_minus_100_never_below_zero():
    layout = copy.deepcopy(TU_LAYOUT)
    # an edited dice set with small circled values: 20 + 20 + 20 = 60, then -100 leaves 0
    layout["blue"] = ["star", "20", "20", "20", "20", "(20)"]
    layout["purple"] = ["star", "20", "20", "20", "(20)", "(20)"]
    layout["green"] = ["star", "star", "20", "20", "(20)", "(20)"]
    s = TU.new_game(["Ana", "Ben"], layout, None)
    s = TU.apply(s, roll("blue:(20)", "purple:20", "green:20"))
    assert s["running"] == 60
    s = tu_reveal(s, {0: "in", 1: "in"})
    s = TU.apply(s, roll("up:-100"))
    assert s["running"] == 0
    s = tu_reveal(s, {0: "out", 1: "in"})
    assert scores_of(TU, s) == [0, 0]


def test_tu_minus_100_subtracts():
    s = tu_new(("Ana", "Ben"))
    s = TU.apply(s, roll("red:(200)", "blue:star", "green:150"))
    assert s["running"] == 350
    s = tu_reveal(s, {0: "in", 1: "in"})
    s = TU.apply(s, roll("up:-100"))
    assert s["running"] == 250


def test_tu_bonus_roll_adds_points_circles_do_nothing_then_reveal():
    s = tu_new()
    s = TU.apply(s, roll("red:(200)", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "out", 2: "in"})
    s = TU.apply(s, roll("up:+2"))
    e = TU.expect(s)
    # no reveal between the Up Die and its Bonus Roll
    assert not e.decisions
    assert e.roll is not None and e.roll.count == 2 and e.roll.roller == 0
    # only dice not rolled in the Main Roll
    refused(TU, s, roll("red:200", "yellow:150"))
    refused(TU, s, roll("yellow:150"))
    s = TU.apply(s, roll("yellow:star", "purple:(100)"))  # one star in all: fine; circle: nothing
    assert s["running"] == 550
    e = TU.expect(s)
    assert e.roll is None
    assert tu_decision_players(s) == [0, 2]
    s = tu_reveal(s, {0: "in", 2: "out"})
    assert scores_of(TU, s) == [0, 450, 550]
    # the locked dice stay the Main Roll's three
    e = TU.expect(s)
    assert sorted(e.roll.dice) == ["blue", "green", "red"]


def test_tu_bonus_roll_bust_counts_stars_across_main_and_bonus():
    s = tu_new()
    s = TU.apply(s, roll("red:(200)", "blue:star", "green:150"))
    assert s["running"] == 350
    s = tu_reveal(s, {0: "in", 1: "out", 2: "in"})
    s = TU.apply(s, roll("up:+1"))
    s = TU.apply(s, roll("purple:star"))
    assert scores_of(TU, s) == [0, 350, 0]
    assert s["running"] == 0
    assert TU.summary(s)["active"] == "Ben"
    assert TU.expect(s).roll.roller == 1


def test_tu_three_stars_on_a_bonus_roll_bust_but_are_no_tally_up():
    s = tu_new()
    s = TU.apply(s, roll("red:(200)", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "in", 2: "in"})
    s = TU.apply(s, roll("up:+3"))
    e = TU.expect(s)
    assert e.roll.count == 3
    s = TU.apply(s, roll("orange:star", "yellow:star", "purple:star"))
    assert scores_of(TU, s) == [0, 0, 0]
    e = TU.expect(s)
    assert not any("tally_up" in d.actions for d in e.decisions)
    assert e.roll is not None and e.roll.roller == 1


def test_tu_no_up_die_without_a_circle():
    s = tu_new()
    s = TU.apply(s, roll("red:200", "blue:star", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "in", 2: "in"})
    assert TU.expect(s).roll.purpose != "up"
    assert TU.expect(s).roll.count == 3


def test_tu_end_at_target_only_at_the_end_of_a_round():
    s = tu_new(("Ana", "Ben"), target=500)
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "in"})
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "out"})
    assert scores_of(TU, s) == [0, 900]
    assert TU.summary(s)["finished"] is False  # the round goes on
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "out"})
    summ = check_summary(TU, s, "tally-up")
    assert scores_of(TU, s) == [1350, 900]
    assert summ["finished"] is True and summ["winner"] == "Ana"
    assert TU.expect(s).finished
    refused(TU, s, roll("red:200", "blue:100", "green:150"))


def test_tu_tie_at_the_top_plays_more_rounds_until_broken():
    s = tu_new(("Ana", "Ben", "Cy"), target=400)
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "out", 1: "out", 2: "in"})
    s = TU.apply(s, roll("red:star", "blue:star", "green:150"))
    # Ana and Ben tie at 450 over the target: no winner yet
    assert scores_of(TU, s) == [450, 450, 0]
    assert TU.summary(s)["finished"] is False
    assert TU.summary(s)["active"] == "Ben"
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "out", 2: "out"})
    s = TU.apply(s, roll("red:star", "blue:star", "green:150"))
    assert scores_of(TU, s) == [450, 900, 450]
    summ = check_summary(TU, s, "tally-up")
    assert summ["finished"] is True and summ["winner"] == "Ben"


def test_tu_every_player_once_option():
    s = tu_new(("Ana", "Ben", "Cy"), every_player_once=True)
    # round 1 (Ana): Ben banks 450
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "out", 2: "in"})
    s = TU.apply(s, roll("red:star", "blue:star", "green:150"))
    # round 2 (Ben): everyone busts
    s = TU.apply(s, roll("red:star", "blue:star", "green:150"))
    assert TU.summary(s)["finished"] is False
    assert TU.summary(s)["active"] == "Cy"
    # round 3 (Cy): Cy banks 300
    s = TU.apply(s, roll("blue:100", "purple:100", "orange:star"))
    s = tu_reveal(s, {0: "in", 1: "in", 2: "out"})
    s = TU.apply(s, roll("blue:star", "purple:star", "orange:200"))
    summ = check_summary(TU, s, "tally-up")
    assert scores_of(TU, s) == [0, 450, 200]
    assert summ["finished"] is True and summ["winner"] == "Ben"


def test_tu_high_stakes_in_holds_through_the_up_die():
    s = tu_new(high_stakes=True)
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "out", 2: "in"})
    assert scores_of(TU, s) == [0, 450, 0]
    s = TU.apply(s, roll("red:(200)", "blue:100", "green:150"))
    # no reveal before the Up Die in high stakes
    e = TU.expect(s)
    assert not e.decisions and e.roll is not None and e.roll.dice == ("up",)
    s = TU.apply(s, roll("up:+100"))
    assert s["running"] == 1000
    # the next choice is made before the next Main Roll
    assert tu_decision_players(s) == [0, 2]
    s = tu_reveal(s, {0: "in", 2: "out"})
    assert scores_of(TU, s) == [0, 450, 1000]
    assert TU.expect(s).roll.purpose == "main"


def test_tu_order_of_active_players_wraps_around():
    s = tu_new(("Ana", "Ben", "Cy"))
    actives = []
    for _ in range(4):
        actives.append(TU.summary(s)["active"])
        s = TU.apply(s, roll("red:star", "blue:star", "green:150"))
    assert actives == ["Ana", "Ben", "Cy", "Ana"]


def test_tu_refuses_choices_out_of_turn():
    s = tu_new()
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "out", 2: "in"})
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    refused(TU, s, action(1, "in"))  # Ben is OUT for the rest of the round
    refused(TU, s, action(7, "in"))


# =============================================================================================
# Toss Up! (tray/rules/RULES.md#2-toss-up)
# =============================================================================================

TO = get("toss-up")
TO_LAYOUT = load("toss-up").layout()


def to_new(players=("Ana", "Ben", "Cy"), **options):
    return TO.new_game(list(players), copy.deepcopy(TO_LAYOUT), options or None)


def toss(green=0, yellow=0, red=0):
    return roll(*(["toss:green"] * green + ["toss:yellow"] * yellow + ["toss:red"] * red))


def to_turn(s, player, points):
    """``player`` scores ``points`` this turn with all-green rolls (dice come back) and a stop."""
    while points >= 10:
        s = TO.apply(s, toss(10))
        points -= 10
    if points:
        s = TO.apply(s, toss(points, 10 - points))
    return TO.apply(s, action(player, "stop"))


def test_to_first_roll_all_ten_dice_greens_set_aside_then_stop():
    s = to_new()
    e = TO.expect(s)
    assert e.roll.count == 10 and e.roll.roller == 0
    refused(TO, s, toss(3, 2, 1), "roll 10 dice")
    s = TO.apply(s, toss(4, 5, 1))
    e = TO.expect(s)
    assert e.roll.count == 6 and e.roll.roller == 0
    assert any("stop" in d.actions and d.player == 0 for d in e.decisions)
    s = TO.apply(s, toss(2, 3, 1))
    assert TO.expect(s).roll.count == 4
    s = TO.apply(s, action(0, "stop"))
    assert scores_of(TO, s) == [6, 0, 0]
    summ = check_summary(TO, s, "toss-up")
    assert summ["active"] == "Ben"
    assert TO.expect(s).roll.count == 10 and TO.expect(s).roll.roller == 1


def test_to_wrong_count_is_refused_with_the_count_to_roll():
    s = to_new()
    s = TO.apply(s, toss(6, 3, 1))
    refused(TO, s, toss(6, 3, 1), "remove the greens set aside", "roll 4 dice")
    refused(TO, s, toss(1, 1, 1), "roll 4 dice")
    s = TO.apply(s, toss(1, 2, 1))
    assert TO.expect(s).roll.count == 3


def test_to_no_green_with_a_red_busts_the_turn():
    s = to_new()
    s = TO.apply(s, toss(5, 4, 1))
    s = TO.apply(s, toss(0, 4, 1))
    assert scores_of(TO, s) == [0, 0, 0]
    assert TO.summary(s)["active"] == "Ben"
    assert TO.expect(s).roll.count == 10


def test_to_first_roll_bust():
    s = to_new()
    s = TO.apply(s, toss(0, 9, 1))
    assert scores_of(TO, s) == [0, 0, 0]
    assert TO.summary(s)["active"] == "Ben"


def test_to_only_yellows_change_nothing():
    s = to_new()
    s = TO.apply(s, toss(3, 6, 1))
    s = TO.apply(s, toss(0, 7, 0))
    e = TO.expect(s)
    assert e.roll.count == 7 and e.roll.roller == 0
    assert any("stop" in d.actions for d in e.decisions)
    s = TO.apply(s, action(0, "stop"))
    assert scores_of(TO, s) == [3, 0, 0]


def test_to_one_green_with_reds_is_not_a_bust():
    s = to_new()
    s = TO.apply(s, toss(1, 0, 9))
    assert TO.expect(s).roll.count == 9
    s = TO.apply(s, action(0, "stop"))
    assert scores_of(TO, s) == [1, 0, 0]


def test_to_all_ten_green_come_back():
    s = to_new()
    s = TO.apply(s, toss(6, 3, 1))
    s = TO.apply(s, toss(4))
    e = TO.expect(s)
    assert e.roll.count == 10 and e.roll.roller == 0
    s = TO.apply(s, toss(10))
    assert TO.expect(s).roll.count == 10
    s = TO.apply(s, toss(3, 7))
    assert TO.expect(s).roll.count == 7
    s = TO.apply(s, action(0, "stop"))
    assert scores_of(TO, s) == [23, 0, 0]


def test_to_only_the_active_player_stops():
    s = to_new()
    s = TO.apply(s, toss(3, 6, 1))
    refused(TO, s, action(1, "stop"))


def test_to_over_100_gives_every_other_player_one_last_turn():
    s = to_new()
    s = to_turn(s, 0, 50)
    s = to_turn(s, 1, 60)
    s = to_turn(s, 2, 10)
    s = to_turn(s, 0, 55)  # Ana 105 > 100: Ben and Cy get one last turn
    assert TO.summary(s)["finished"] is False
    assert TO.summary(s)["active"] == "Ben"
    s = to_turn(s, 1, 50)  # Ben 110
    assert TO.summary(s)["finished"] is False
    assert TO.summary(s)["active"] == "Cy"
    s = to_turn(s, 2, 0 + 1)
    summ = check_summary(TO, s, "toss-up")
    assert scores_of(TO, s) == [105, 110, 11]
    assert summ["finished"] is True and summ["winner"] == "Ben"
    assert TO.expect(s).finished
    refused(TO, s, toss(10))


def test_to_exactly_100_does_not_end_the_game():
    s = to_new(("Ana", "Ben"))
    s = to_turn(s, 0, 100)
    s = to_turn(s, 1, 5)
    assert TO.summary(s)["finished"] is False
    assert TO.summary(s)["active"] == "Ana"
    s = to_turn(s, 0, 1)  # 101
    s = to_turn(s, 1, 3)
    summ = check_summary(TO, s, "toss-up")
    assert summ["finished"] is True and summ["winner"] == "Ana"


def test_to_last_seat_over_100_lets_the_earlier_seats_play_once():
    s = to_new()
    s = to_turn(s, 0, 20)
    s = to_turn(s, 1, 20)
    s = to_turn(s, 2, 101)
    assert TO.summary(s)["active"] == "Ana"
    s = to_turn(s, 0, 30)
    assert TO.summary(s)["active"] == "Ben"
    s = TO.apply(s, toss(0, 0, 10))  # Ben busts on his last turn
    summ = check_summary(TO, s, "toss-up")
    assert summ["finished"] is True and summ["winner"] == "Cy"


def test_to_bust_in_a_last_turn_counts_as_the_turn():
    s = to_new(("Ana", "Ben"))
    s = to_turn(s, 0, 104)
    s = TO.apply(s, toss(2, 7, 1))
    s = TO.apply(s, toss(0, 0, 8))
    summ = check_summary(TO, s, "toss-up")
    assert summ["finished"] is True and summ["winner"] == "Ana"


def test_to_tie_for_highest_shares_the_win():
    s = to_new()
    s = to_turn(s, 0, 102)
    s = to_turn(s, 1, 102)
    s = to_turn(s, 2, 50)
    summ = check_summary(TO, s, "toss-up")
    assert summ["finished"] is True and summ["winner"] == ["Ana", "Ben"]


def test_to_tie_break_option_plays_on_until_the_tie_breaks():
    s = to_new(tie_break=True)
    s = to_turn(s, 0, 102)
    s = to_turn(s, 1, 102)
    s = to_turn(s, 2, 50)
    summ = TO.summary(s)
    assert summ["finished"] is False
    # only the tied players play the tie-break; Ana first
    assert summ["active"] == "Ana"
    s = to_turn(s, 0, 3)
    assert TO.summary(s)["active"] == "Ben"
    s = to_turn(s, 1, 2)
    summ = check_summary(TO, s, "toss-up")
    assert summ["finished"] is True and summ["winner"] == "Ana"


# =============================================================================================
# Bank (tray/rules/RULES.md#3-bank)
# =============================================================================================

BK = get("bank")
D6 = {"d6": ["1", "2", "3", "4", "5", "6"]}


def bk_new(players=("Ana", "Ben", "Cy"), **options):
    return BK.new_game(list(players), copy.deepcopy(D6), options or None)


def d6(a, b):
    return roll(f"d6:{a}", f"d6:{b}")


def bk_roller(s):
    e = BK.expect(s)
    return e.roll.roller if e.roll is not None else None


def bk_total(s):
    return BK.summary(s)["total"]


def bk_three(s, rolls=((1, 2), (2, 2), (4, 3))):
    for r in rolls:
        s = BK.apply(s, d6(*r))
    return s


def test_bk_phase_1_sums_seven_is_70_doubles_plain_no_banking():
    s = bk_new()
    refused(BK, s, action(0, "bank"))
    s = BK.apply(s, d6(1, 2))
    assert bk_total(s) == 3 and bk_roller(s) == 1
    refused(BK, s, action(0, "bank"))
    s = BK.apply(s, d6(2, 2))  # doubles are plain in phase 1
    assert bk_total(s) == 7 and bk_roller(s) == 2
    refused(BK, s, action(2, "bank"))
    s = BK.apply(s, d6(4, 3))  # a 7 is worth 70 in phase 1
    assert bk_total(s) == 77
    assert bk_roller(s) == 0
    # the first chance to bank: right after roll 3, before roll 4
    s = BK.apply(s, action(2, "bank"))
    assert scores_of(BK, s) == [0, 0, 77]
    check_summary(BK, s, "bank")


def test_bk_phase_1_seven_on_every_roll():
    s = bk_new()
    s = bk_three(s, ((6, 1), (5, 2), (3, 4)))
    assert bk_total(s) == 210
    assert BK.summary(s)["round"] == 1


def test_bk_phase_2_doubles_double_then_add_and_banking_keeps_the_total():
    s = bk_new()
    s = bk_three(s)  # 77
    s = BK.apply(s, action(1, "bank"))
    s = BK.apply(s, action(2, "bank"))
    assert bk_total(s) == 77  # banking does not reduce the total
    assert scores_of(BK, s) == [0, 77, 77]
    s = BK.apply(s, d6(5, 5))  # Ana rolls alone
    assert bk_total(s) == 77 * 2 + 10
    assert bk_roller(s) == 0
    s = BK.apply(s, d6(1, 3))
    assert bk_total(s) == 168
    s = BK.apply(s, action(0, "bank"))
    assert scores_of(BK, s) == [168, 77, 77]
    # every player banked: round 2 starts with the player after Ana (the last roller)
    summ = check_summary(BK, s, "bank")
    assert summ["round"] == 2
    assert bk_total(s) == 0
    assert bk_roller(s) == 1


def test_bk_double_only_option():
    s = bk_new(doubles_rule="double_only")
    s = bk_three(s)
    s = BK.apply(s, d6(5, 5))
    assert bk_total(s) == 154


def test_bk_phase_2_seven_ends_the_round_unbanked_score_nothing():
    s = bk_new()
    s = bk_three(s)  # 77, Ana to roll
    s = BK.apply(s, d6(6, 2))  # Ana: 85
    s = BK.apply(s, action(0, "bank"))
    assert bk_roller(s) == 1
    s = BK.apply(s, d6(3, 4))  # Ben rolls a 7 in phase 2
    assert scores_of(BK, s) == [85, 0, 0]
    summ = check_summary(BK, s, "bank")
    assert summ["round"] == 2
    assert bk_total(s) == 0
    # the next round starts with the player after Ben
    assert bk_roller(s) == 2
    # and it is phase 1 again: no banking
    refused(BK, s, action(0, "bank"))


def test_bk_roller_rotates_among_unbanked_players():
    s = bk_new(("Ana", "Ben", "Cy", "Dee"))
    s = bk_three(s)  # rolls by Ana, Ben, Cy; Dee next
    assert bk_roller(s) == 3
    s = BK.apply(s, action(0, "bank"))
    s = BK.apply(s, d6(1, 3))  # Dee
    assert bk_roller(s) == 1  # Ana has banked: Ben
    s = BK.apply(s, action(2, "bank"))
    s = BK.apply(s, d6(1, 3))  # Ben
    assert bk_roller(s) == 3  # Cy has banked: Dee
    s = BK.apply(s, action(3, "bank"))
    assert bk_roller(s) == 1  # Ben alone
    s = BK.apply(s, d6(1, 3))
    assert bk_roller(s) == 1
    s = BK.apply(s, d6(2, 5))
    # Ben rolled last: round 2 starts with Cy
    assert BK.summary(s)["round"] == 2 and bk_roller(s) == 2


def test_bk_banked_player_cannot_bank_again_and_bank_between_rolls_by_anyone():
    s = bk_new()
    s = bk_three(s)
    s = BK.apply(s, action(0, "bank"))
    refused(BK, s, action(0, "bank"))
    # the roller is not Ana any more
    assert bk_roller(s) == 1
    # several players bank at the same total
    s = BK.apply(s, action(2, "bank"))
    assert scores_of(BK, s) == [77, 0, 77]
    assert bk_roller(s) == 1


def test_bk_all_bank_right_after_roll_3_ends_the_round():
    s = bk_new()
    s = bk_three(s)  # Cy made the last roll
    for p in (0, 1, 2):
        s = BK.apply(s, action(p, "bank"))
    assert scores_of(BK, s) == [77, 77, 77]
    assert BK.summary(s)["round"] == 2
    assert bk_roller(s) == 0  # the player after Cy


def test_bk_rounds_option_and_the_winner():
    s = bk_new(("Ana", "Ben"), rounds=10)
    for _r in range(10):
        s = bk_three(s)
        starter_banks = bk_roller(s)
        s = BK.apply(s, action(starter_banks, "bank"))
        s = BK.apply(s, d6(3, 4))  # the other player rolls a 7
    summ = check_summary(BK, s, "bank")
    assert summ["finished"] is True
    assert BK.expect(s).finished
    total = sum(scores_of(BK, s))
    assert total == 10 * 77
    sc = scores_of(BK, s)
    assert summ["winner"] == (
        ["Ana", "Ben"] if sc[0] == sc[1] else ["Ana", "Ben"][sc.index(max(sc))]
    )
    refused(BK, s, d6(1, 2))


def test_bk_default_is_20_rounds_and_rounds_must_be_10_15_or_20():
    s = bk_new(("Ana", "Ben"))
    for _r in range(19):
        s = bk_three(s)
        s = BK.apply(s, action(0, "bank"))
        s = BK.apply(s, action(1, "bank"))
    assert BK.summary(s)["finished"] is False
    assert BK.summary(s)["round"] == 20
    s = bk_three(s)
    s = BK.apply(s, action(0, "bank"))
    s = BK.apply(s, action(1, "bank"))
    summ = check_summary(BK, s, "bank")
    assert summ["finished"] is True and summ["winner"] == ["Ana", "Ben"]
    with pytest.raises((ValueError, RuleError)):
        bk_new(("Ana", "Ben"), rounds=12)


def test_bk_end_game_early():
    s = bk_new()
    s = bk_three(s)
    s = BK.apply(s, action(1, "bank"))
    s = BK.apply(s, action(-1, "end_game"))
    summ = check_summary(BK, s, "bank")
    assert summ["finished"] is True and summ["winner"] == "Ben"
    assert scores_of(BK, s) == [0, 77, 0]


def test_bk_two_players_last_unbanked_rolls_alone_until_a_seven():
    s = bk_new(("Ana", "Ben"))
    s = bk_three(s, ((1, 2), (2, 3), (1, 1)))  # 3 + 5 + 2 = 10, Ben to roll
    assert bk_roller(s) == 1
    s = BK.apply(s, action(1, "bank"))
    assert bk_roller(s) == 0
    s = BK.apply(s, d6(1, 2))
    assert bk_roller(s) == 0
    s = BK.apply(s, d6(2, 2))  # (13 * 2) + 4
    assert bk_total(s) == 30
    s = BK.apply(s, d6(1, 6))
    assert scores_of(BK, s) == [0, 10]
    assert BK.summary(s)["round"] == 2
    assert bk_roller(s) == 1  # after Ana, who rolled last


# =============================================================================================
# DICEDOUT! (tray/rules/RULES.md#4-dicedout)
# =============================================================================================

DO = get("diced-out")
PAIRS = {
    2: (1, 1),
    3: (1, 2),
    4: (1, 3),
    5: (1, 4),
    6: (1, 5),
    7: (1, 6),
    8: (2, 6),
    9: (3, 6),
    10: (4, 6),
    11: (5, 6),
    12: (6, 6),
}


def do_new(players=("Ana", "Ben"), **options):
    return DO.new_game(list(players), copy.deepcopy(D6), options or None)


def sum_roll(n):
    return d6(*PAIRS[n])


def do_rolls(s, *sums):
    for n in sums:
        s = DO.apply(s, sum_roll(n))
    return s


def do_roller(s):
    e = DO.expect(s)
    return e.roll.roller if e.roll is not None else None


def do_started(players=("Ana", "Ben"), first=0, **options):
    """A game after a start roll-off that ``first`` wins outright."""
    s = do_new(players, **options)
    for p in range(len(players)):
        s = DO.apply(s, sum_roll(11 if p == first else 3))
    assert do_roller(s) == first
    return s


def test_do_roll_off_highest_first_ties_roll_again_then_left():
    s = do_new(("Ana", "Ben", "Cy"))
    e = DO.expect(s)
    assert e.roll.roller == 0 and e.roll.count == 2
    s = do_rolls(s, 11, 11, 12)
    assert do_roller(s) == 2 and DO.expect(s).roll.purpose != "start"  # Cy goes first
    s = do_rolls(s, 5)
    assert do_roller(s) == 0  # then to the left: Ana
    s = do_new(("Ana", "Ben", "Cy"))
    s = do_rolls(s, 10, 4, 10)  # Ana and Cy tie: they roll again, alone
    assert do_roller(s) == 0
    s = do_rolls(s, 6)
    assert do_roller(s) == 2
    s = do_rolls(s, 8)
    assert do_roller(s) == 2 and DO.expect(s).roll.purpose != "start"
    s = do_rolls(s, 9)
    assert do_roller(s) == 0


def test_do_mark_then_automatic_rerolls_then_dicedout_scores_unmarked_sum():
    s = do_started()
    s = do_rolls(s, 7)  # Ana marks 7
    assert do_roller(s) == 1
    s = do_rolls(s, 7)  # Ben marks 7
    s = do_rolls(s, 7)  # Ana: marked, reroll 1
    assert do_roller(s) == 0
    s = do_rolls(s, 7)  # reroll 2
    assert do_roller(s) == 0
    s = do_rolls(s, 7)  # reroll 3
    assert do_roller(s) == 0
    assert DO.summary(s)["finished"] is False
    s = do_rolls(s, 7)  # no reroll left: DICEDOUT!, 77 - 7 = 70
    assert do_roller(s) == 1
    s = do_rolls(s, 8)  # Ben marks 8; Ana takes no more turns
    assert do_roller(s) == 1
    s = do_rolls(s, 6)  # Ben marks 6
    assert do_roller(s) == 1
    s = do_rolls(s, 6, 6, 6)  # three rerolls
    assert do_roller(s) == 1 and DO.summary(s)["round"] == 1
    s = do_rolls(s, 6)  # Ben: fourth marked roll in a row -> DICEDOUT!: 77 - 21 = 56
    summ = check_summary(DO, s, "diced-out")
    assert summ["round"] == 2
    assert scores_of(DO, s) == [70, 56]
    # Ben (lowest) starts round 2; Ana loses a reroll (two players: no choice)
    assert do_roller(s) == 1
    s = do_rolls(s, 7)  # Ben marks 7
    s = do_rolls(s, 7)  # Ana marks 7
    s = do_rolls(s, 2)  # Ben marks 2 (••): one more mark to choose
    s = DO.apply(s, action(1, "mark", number=12))
    s = do_rolls(s, 7, 7, 7)  # Ana: two rerolls only, then DICEDOUT!
    assert do_roller(s) == 1


def test_do_rerolls_are_per_round_not_per_turn():
    s = do_started()
    s = do_rolls(s, 7, 8)  # Ana 7, Ben 8
    s = do_rolls(s, 7, 7, 6)  # Ana: two rerolls, then marks 6
    assert do_roller(s) == 1
    s = do_rolls(s, 9)  # Ben marks 9
    s = do_rolls(s, 6, 7)  # Ana: third reroll, then marked again: DICEDOUT! 77 - 13 = 64
    assert do_roller(s) == 1
    assert DO.summary(s)["round"] == 1


def test_do_double_circle_extra_mark_default_highest_and_choice():
    s = do_started()
    s = do_rolls(s, 12)  # Ana rolls 12 (••)
    e = DO.expect(s)
    assert e.roll is None
    (d,) = [d for d in e.decisions if d.player == 0]
    assert d.default == action(0, "mark", number=11)
    nums = sorted(c["number"] for c in d.choices)
    assert nums == list(range(2, 12))
    refused(DO, s, action(0, "mark", number=12))  # already marked
    refused(DO, s, action(1, "mark", number=5))
    s = DO.apply(s, action(0, "mark", number=2))  # any unmarked number, even a •• one
    assert do_roller(s) == 1
    assert DO.expect(s).decisions == () or all(d.player != 0 for d in DO.expect(s).decisions)
    s = do_rolls(s, 5)  # Ben
    s = do_rolls(s, 12)  # Ana rolls a marked •• number: a reroll, no bonus
    assert do_roller(s) == 0
    assert not any("mark" in d.actions for d in DO.expect(s).decisions)


def test_do_circled_option():
    s = do_started(circled=[3, 11])
    s = do_rolls(s, 12)  # not •• now
    assert do_roller(s) == 1
    s = do_rolls(s, 11)  # Ben: •• now
    assert any(d.player == 1 and "mark" in d.actions for d in DO.expect(s).decisions)


def test_do_marking_every_number_scores_zero_and_ends_that_players_round():
    s = do_started()
    order = [12, 11, 10, 9, 8, 7, 6, 5, 4, 3]
    # Ana rolls 12 (••: marks 11 too), then 10, 9, ...; Ben rolls numbers he has not marked
    s = do_rolls(s, 12)
    s = DO.apply(s, action(0, "mark", number=11))
    ben = iter([3, 4, 5, 6, 7, 8, 9, 10, 11])
    for n in order[2:]:
        s = do_rolls(s, next(ben))
        s = do_rolls(s, n)
    # Ana has one number left: 2. Ben's turn, then Ana marks 2 (••: nothing left to choose)
    s = do_rolls(s, next(ben))
    s = do_rolls(s, 2)
    assert DO.summary(s)["round"] == 1
    assert do_roller(s) == 1  # Ana is complete: Ben plays on alone
    s = do_rolls(s, 11, 11, 11, 11)
    summ = check_summary(DO, s, "diced-out")
    assert summ["round"] == 2
    assert scores_of(DO, s) == [0, 14]  # Ben: 2 + 12 unmarked
    assert do_roller(s) == 0  # Ana, lowest, starts round 2


def test_do_three_players_lowest_starts_and_picks_who_loses_a_reroll():
    s = do_started(("Ana", "Ben", "Cy"))
    s = do_rolls(s, 7, 7, 7)  # all mark 7
    s = do_rolls(s, 7, 7, 7, 7)  # Ana DICEDOUT!: 70
    s = do_rolls(s, 8)  # Ben marks 8
    s = do_rolls(s, 7, 7, 7, 7)  # Cy DICEDOUT!: 70
    s = do_rolls(s, 8, 8, 8, 8)  # Ben DICEDOUT!: 62
    assert scores_of(DO, s) == [70, 62, 70]
    e = DO.expect(s)
    (d,) = [d for d in e.decisions if d.player == 1]
    assert "penalize" in d.actions
    targets = sorted(c["target"] for c in d.choices)
    assert targets == [0, 2]
    refused(DO, s, action(1, "penalize", target=1))
    refused(DO, s, action(0, "penalize", target=2))
    s = DO.apply(s, action(1, "penalize", target=2))
    assert DO.summary(s)["round"] == 2
    assert do_roller(s) == 1
    s = do_rolls(s, 7, 7, 7)  # all mark 7 in round 2
    s = do_rolls(s, 7, 7, 7, 8)  # Ben: three rerolls, marks 8
    s = do_rolls(s, 7, 7, 7)  # Cy: two rerolls only, then DICEDOUT!
    assert do_roller(s) == 0


def test_do_tie_for_lowest_round_score_rolls_off():
    s = do_started()
    s = do_rolls(s, 7, 7)
    s = do_rolls(s, 7, 7, 7, 7)  # Ana 70
    s = do_rolls(s, 7, 7, 7, 7)  # Ben 70
    assert scores_of(DO, s) == [70, 70]
    e = DO.expect(s)
    assert e.roll is not None and e.roll.roller == 0
    s = do_rolls(s, 5, 9)  # Ana 5, Ben 9: Ben starts round 2
    assert DO.summary(s)["round"] == 2
    assert do_roller(s) == 1
    s = do_new(("Ana", "Ben"))
    s = do_rolls(s, 11, 3)
    s = do_rolls(s, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7)
    s = do_rolls(s, 6, 6)  # tied roll-off: again
    assert do_roller(s) == 0 and DO.summary(s)["round"] == 1
    s = do_rolls(s, 4, 3)
    assert DO.summary(s)["round"] == 2 and do_roller(s) == 0


def test_do_after_four_rounds_lowest_total_wins_and_ties_share():
    s = do_started()
    for r in range(4):
        first = do_roller(s)
        other = 1 - first
        s = do_rolls(s, 7, 8)  # first marks 7, other marks 8
        while do_roller(s) == first:  # first rolls 7 until DICEDOUT!: 70
            s = DO.apply(s, sum_roll(7))
        while DO.summary(s)["round"] == r + 1 and not DO.summary(s)["finished"]:
            assert do_roller(s) == other
            s = DO.apply(s, sum_roll(8))  # other: DICEDOUT!: 69
        # the lower (other) starts the next round; first loses a reroll
    summ = check_summary(DO, s, "diced-out")
    assert summ["finished"] is True
    assert scores_of(DO, s) == [278, 278]
    assert summ["winner"] == ["Ana", "Ben"]
    assert DO.expect(s).finished
    refused(DO, s, sum_roll(7))


def test_do_lowest_total_wins():
    s = do_started(rounds=1)
    s = do_rolls(s, 7, 8)
    s = do_rolls(s, 7, 7, 7, 7)  # Ana 70
    s = do_rolls(s, 5, 8, 8, 8, 8)  # Ben 64
    summ = check_summary(DO, s, "diced-out")
    assert summ["finished"] is True and summ["winner"] == "Ben"
    assert scores_of(DO, s) == [70, 64]


def test_do_shared_win_on_a_tie():
    s = do_started(rounds=1)
    s = do_rolls(s, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7)
    summ = check_summary(DO, s, "diced-out")
    assert summ["finished"] is True and summ["winner"] == ["Ana", "Ben"]


# =============================================================================================
# Rollers (tray/rules/RULES.md#5-rollers)
# =============================================================================================

RO = get("rollers")
RO_LAYOUT = {"wild": ["1", "2", "3", "4", "5", "star"], "black": ["1", "2", "3", "4", "5", "zap"]}
ZAP = ("wild:1", "wild:2", "wild:3", "wild:4", "wild:5", "black:zap")
# four turns that open and close all five sections, with no chips collected on an empty board
CLOSE_ALL = (
    ("wild:1", "wild:1", "wild:2", "wild:2", "wild:2", "black:4"),  # 1s, 2s open+close
    ("wild:3", "wild:3", "wild:3", "wild:3", "wild:4", "black:4"),  # 3s open+close
    ("wild:4", "wild:4", "wild:4", "wild:4", "wild:4", "black:5"),  # 4s open+close
    ("wild:5", "wild:5", "wild:5", "wild:5", "wild:5", "black:5"),  # 5s open+close
)


def ro_new(players=("Ana", "Ben"), **options):
    return RO.new_game(list(players), copy.deepcopy(RO_LAYOUT), options or None)


def ro_roller(s):
    e = RO.expect(s)
    return e.roll.roller if e.roll is not None else None


def ro_started(players=("Ana", "Ben"), first=0, **options):
    s = ro_new(players, **options)
    for p in range(len(players)):
        s = RO.apply(s, roll("wild:5" if p == first else "wild:2"))
    assert ro_roller(s) == first
    return s


def ro_turn(s, dice, stars=None):
    """The active player rolls six dice once, stops, and applies (STAR values if asked)."""
    p = ro_roller(s)
    s = RO.apply(s, roll(*dice))
    s = RO.apply(s, action(p, "stop"))
    if stars is not None:
        s = RO.apply(s, action(p, "apply", stars=list(stars)))
    return s


def boards(s):
    return RO.summary(s)["boards"]


def chips(s):
    return RO.summary(s)["chips"]


def points(s):
    return RO.summary(s)["points"]


def test_ro_roll_off_high_roller_first_ties_roll_again_then_clockwise():
    s = ro_new(("Ana", "Ben", "Cy"))
    e = RO.expect(s)
    assert e.roll.count == 1 and e.roll.roller == 0
    s = RO.apply(s, roll("wild:4"))
    s = RO.apply(s, roll("black:4"))
    s = RO.apply(s, roll("wild:2"))
    assert ro_roller(s) == 0 and RO.expect(s).roll.count == 1  # Ana and Ben roll again
    s = RO.apply(s, roll("wild:1"))
    s = RO.apply(s, roll("wild:3"))
    e = RO.expect(s)
    assert e.roll.roller == 1 and e.roll.count == 6
    s = ro_turn(s, ZAP)
    assert ro_roller(s) == 2  # clockwise
    s = ro_turn(s, ZAP)
    assert ro_roller(s) == 0
    check_summary(RO, s, "rollers")


def test_ro_open_with_k_close_with_one_open_and_close_with_k_plus_1():
    s = ro_started()
    s = ro_turn(s, ("wild:1", "wild:3", "wild:3", "wild:3", "wild:4", "black:2"))
    assert boards(s)["Ana"] == {"1": "open", "2": "empty", "3": "open", "4": "empty", "5": "empty"}
    assert ro_roller(s) == 1
    s = ro_turn(s, ("wild:2", "wild:2", "wild:2", "wild:5", "wild:5", "black:4"))
    assert boards(s)["Ben"]["2"] == "closed"
    s = ro_turn(s, ("wild:1", "wild:3", "wild:2", "wild:2", "wild:2", "black:4"))
    assert boards(s)["Ana"] == {
        "1": "closed",
        "2": "closed",
        "3": "closed",
        "4": "empty",
        "5": "empty",
    }
    assert chips(s) == {"Ana": 55, "Ben": 55}


def test_ro_star_value_chosen_when_applying():
    s = ro_started()
    s = RO.apply(s, roll("wild:3", "wild:3", "wild:star", "wild:star", "wild:2", "black:1"))
    s = RO.apply(s, action(0, "stop"))
    e = RO.expect(s)
    (d,) = [d for d in e.decisions if d.player == 0]
    assert "apply" in d.actions
    s = RO.apply(s, action(0, "apply", stars=[3, 3]))
    assert boards(s)["Ana"] == {
        "1": "open",
        "2": "empty",
        "3": "closed",
        "4": "empty",
        "5": "empty",
    }


def test_ro_star_as_2_opens_and_closes_twos():
    s = ro_started()
    s = RO.apply(s, roll("wild:2", "wild:2", "wild:star", "wild:4", "wild:5", "black:1"))
    s = RO.apply(s, action(0, "stop"))
    s = RO.apply(s, action(0, "apply", stars=[2]))
    assert boards(s)["Ana"]["2"] == "closed" and boards(s)["Ana"]["1"] == "open"


def test_ro_collect_chips_per_die_from_players_who_have_not_closed():
    s = ro_started(("Ana", "Ben", "Cy"))
    s = ro_turn(s, ("wild:3", "wild:3", "wild:3", "wild:3", "wild:1", "black:2"))  # Ana: 3s closed
    s = ro_turn(s, ("wild:3", "wild:3", "wild:3", "wild:3", "wild:4", "black:4"))  # Ben: 3s closed
    s = ro_turn(s, ZAP)  # Cy
    # Ana: two 3s collect 3 each from Cy only (Ben closed 3s); 1 closes the 1s
    s = ro_turn(s, ("wild:3", "wild:3", "wild:1", "wild:4", "wild:5", "black:2"))
    assert chips(s) == {"Ana": 61, "Ben": 55, "Cy": 49}
    assert boards(s)["Ana"]["1"] == "closed"


def test_ro_collect_with_the_dice_beyond_open_and_close():
    s = ro_started()
    # five 2s: two open, one closes, two collect 2 each
    s = ro_turn(s, ("wild:2", "wild:2", "wild:2", "wild:2", "wild:2", "black:4"))
    assert boards(s)["Ana"]["2"] == "closed"
    assert chips(s) == {"Ana": 59, "Ben": 51}


def test_ro_payment_down_to_zero_and_a_player_with_no_chips_cannot_collect():
    s = ro_started()
    s = ro_turn(s, ("wild:5", "wild:5", "wild:5", "wild:5", "wild:5", "black:5"))  # Ana: 5s
    s = ro_turn(s, ("wild:1", "wild:1", "wild:1", "wild:2", "wild:4", "black:4"))  # Ben: 1s, +1
    assert chips(s) == {"Ana": 54, "Ben": 56}
    s = ro_turn(s, ("wild:5", "wild:5", "wild:5", "wild:5", "wild:5", "black:5"))  # 30 from Ben
    assert chips(s) == {"Ana": 84, "Ben": 26}
    s = ro_turn(s, ZAP)
    s = ro_turn(s, ("wild:5", "wild:5", "wild:5", "wild:5", "wild:5", "black:5"))  # Ben pays 26
    assert chips(s) == {"Ana": 110, "Ben": 0}
    s = ro_turn(s, ("wild:1", "wild:1", "wild:1", "wild:3", "wild:4", "black:4"))  # Ben: 0 chips
    assert chips(s) == {"Ana": 110, "Ben": 0}


def test_ro_zap_cancels_the_roll_saved_dice_are_kept_and_it_counts():
    s = ro_started()
    s = RO.apply(s, roll("wild:3", "wild:3", "wild:3", "wild:1", "wild:2", "black:4"))
    s = RO.apply(s, action(0, "save", dice=[0, 1, 2]))
    e = RO.expect(s)
    assert sorted(e.roll.dice) == ["black", "wild", "wild"]
    s = RO.apply(s, roll("wild:3", "wild:1", "black:zap"))  # roll 2: ZAP
    e = RO.expect(s)
    (d,) = [d for d in e.decisions if d.player == 0]
    assert all(c.get("dice", []) == [] for c in d.choices if c["action"] == "save")
    refused(RO, s, action(0, "save", dice=[0]))
    s = RO.apply(s, action(0, "save", dice=[]))
    e = RO.expect(s)
    assert sorted(e.roll.dice) == ["black", "wild", "wild"]
    s = RO.apply(s, roll("wild:5", "wild:4", "black:zap"))  # roll 3: ZAP again, applied now
    # only the three saved 3s apply: the 3s open
    assert boards(s)["Ana"] == {"1": "empty", "2": "empty", "3": "open", "4": "empty", "5": "empty"}
    assert ro_roller(s) == 1


def test_ro_zap_on_the_first_roll_and_stop_applies_nothing():
    s = ro_started()
    s = RO.apply(s, roll("wild:1", "wild:1", "wild:2", "wild:2", "wild:2", "black:zap"))
    s = RO.apply(s, action(0, "stop"))
    assert boards(s)["Ana"] == {str(k): "empty" for k in range(1, 6)}
    assert ro_roller(s) == 1


def test_ro_saved_black_die_cannot_zap_later():
    s = ro_started()
    s = RO.apply(s, roll("wild:2", "wild:2", "wild:5", "wild:1", "wild:4", "black:2"))
    s = RO.apply(s, action(0, "save", dice=[0, 1, 5]))
    e = RO.expect(s)
    assert sorted(e.roll.dice) == ["wild", "wild", "wild"]
    refused(RO, s, roll("wild:1", "wild:1", "black:zap"))


def test_ro_three_rolls_at_most_then_apply():
    s = ro_started()
    s = RO.apply(s, roll("wild:1", "wild:2", "wild:3", "wild:4", "wild:5", "black:4"))
    s = RO.apply(s, action(0, "save", dice=[0]))
    s = RO.apply(s, roll("wild:1", "wild:3", "wild:4", "wild:5", "black:4"))
    s = RO.apply(s, action(0, "save", dice=[0]))
    s = RO.apply(s, roll("wild:4", "wild:2", "wild:4", "black:4"))
    # the third roll is applied at once: 1, 1 open+close 1s; three 4s do not open the 4s
    assert boards(s)["Ana"] == {
        "1": "closed",
        "2": "empty",
        "3": "empty",
        "4": "empty",
        "5": "empty",
    }
    assert ro_roller(s) == 1


def test_ro_first_roll_must_use_all_six_dice():
    s = ro_started()
    refused(RO, s, roll("wild:1", "wild:2", "wild:3", "wild:4", "wild:5"))
    refused(RO, s, roll("wild:1", "wild:2", "wild:3", "wild:4", "wild:5", "wild:5"))


def ro_close_all(s, closer, others_turn=None):
    """``closer`` closes the whole board in four turns; the others ZAP (or play given turns)."""
    turns = iter(CLOSE_ALL)
    done = 0
    while done < 4:
        if ro_roller(s) == closer:
            s = ro_turn(s, next(turns))
            done += 1
        else:
            s = ro_turn(s, others_turn(s) if others_turn else ZAP)
    return s


def test_ro_round_end_points_reset_and_next_starter_to_the_right():
    s = ro_started(("Ana", "Ben", "Cy"), first=0)
    s = ro_close_all(s, 1)
    # Ben closed all: 2 points; chips all tied at 55: everyone scores the chip point
    assert points(s) == {"Ana": 1, "Ben": 3, "Cy": 1}
    summ = check_summary(RO, s, "rollers")
    assert summ["round"] == 2
    assert chips(s) == {"Ana": 55, "Ben": 55, "Cy": 55}
    assert all(v == "empty" for b in boards(s).values() for v in b.values())
    # round 1 started with Ana: round 2 starts with the player to her RIGHT, Cy
    assert ro_roller(s) == 2
    s = ro_close_all(s, 2)
    assert RO.summary(s)["round"] == 3
    assert ro_roller(s) == 1  # to the right of Cy: Ben


def test_ro_highest_chips_point_and_closer_with_no_chips_scores_1():
    s = ro_started()

    # Ben drains Ana with 5s, then Ana closes her board with 0 chips
    def ben_plays(s):
        return ("wild:5",) * 5 + ("black:5",)

    s = ro_turn(s, ZAP)  # Ana
    s = ro_turn(s, ben_plays(s))  # Ben: 5s open+close
    s = ro_turn(s, ZAP)
    s = ro_turn(s, ben_plays(s))  # Ben: 30 from Ana
    s = ro_turn(s, ZAP)
    s = ro_turn(s, ben_plays(s))  # Ben: Ana pays her last 25
    assert chips(s) == {"Ana": 0, "Ben": 110}
    for dice in CLOSE_ALL:
        s = ro_turn(s, dice)  # Ana: her 5s close on the last turn
        if RO.summary(s)["round"] == 1:
            s = ro_turn(s, ZAP)
    assert points(s) == {"Ana": 1, "Ben": 1}
    assert RO.summary(s)["round"] == 2


def test_ro_first_to_target_wins():
    s = ro_started(target=3)
    s = ro_close_all(s, 0)
    summ = check_summary(RO, s, "rollers")
    assert points(s) == {"Ana": 3, "Ben": 1}
    assert summ["finished"] is True and summ["winner"] == "Ana"
    assert RO.expect(s).finished


def test_ro_target_option_range():
    for bad in (2, 6):
        with pytest.raises((ValueError, RuleError)):
            ro_new(target=bad)


def test_ro_several_reach_the_target_together_higher_chips_wins():
    s = ro_started()
    # round 1: Ana closes, chips tied: Ana 3, Ben 1
    s = ro_close_all(s, 0)
    assert points(s) == {"Ana": 3, "Ben": 1}
    # round 2 (Ben starts): Ben closes 1s and collects a 1 from Ana first, then closes all
    assert ro_roller(s) == 1
    s = ro_turn(s, ("wild:1", "wild:1", "wild:1", "wild:2", "wild:2", "black:2"))  # +1 chip
    s = ro_turn(s, ZAP)
    for dice in (("wild:3",) * 4 + ("wild:4", "black:4"), ("wild:4",) * 5 + ("black:5",)):
        s = ro_turn(s, dice)
        s = ro_turn(s, ZAP)
    s = ro_turn(s, ("wild:5",) * 5 + ("black:5",))
    assert points(s) == {"Ana": 3, "Ben": 4}
    # round 3 (Ana starts): Ben collects first, Ana closes all; both reach 5
    assert ro_roller(s) == 0
    s = ro_turn(s, CLOSE_ALL[0])
    s = ro_turn(s, ("wild:3",) * 5 + ("black:4",))  # Ben closes 3s, collects 3 from Ana
    for dice in CLOSE_ALL[1:3]:
        s = ro_turn(s, dice)
        s = ro_turn(s, ZAP)
    s = ro_turn(s, CLOSE_ALL[3])
    assert chips(s) == {"Ana": 52, "Ben": 58}
    summ = check_summary(RO, s, "rollers")
    assert points(s) == {"Ana": 5, "Ben": 5}
    assert summ["finished"] is True and summ["winner"] == "Ben"


def test_ro_star_choice_open_fours_or_collect_as_three():
    """The rulebook's third-turn example: 3s closed; 3, 4, 4, 4, STAR, 5."""
    s = ro_started()
    s = ro_turn(s, ("wild:3", "wild:3", "wild:3", "wild:3", "wild:1", "black:2"))  # Ana: 3s
    s = ro_turn(s, ZAP)
    base = RO.apply(s, roll("wild:3", "wild:4", "wild:4", "wild:4", "wild:star", "black:5"))
    base = RO.apply(base, action(0, "stop"))
    as_four = RO.apply(base, action(0, "apply", stars=[4]))
    assert boards(as_four)["Ana"]["4"] == "open"
    assert chips(as_four) == {"Ana": 58, "Ben": 52}
    as_three = RO.apply(base, action(0, "apply", stars=[3]))
    assert boards(as_three)["Ana"]["4"] == "empty"
    assert chips(as_three) == {"Ana": 61, "Ben": 49}
    refused(RO, base, action(0, "apply", stars=[6]))
    refused(RO, base, action(0, "apply", stars=[3, 3]))


# =============================================================================================
# More edge cases, all games
# =============================================================================================


def test_tu_everyone_out_before_the_up_die_ends_the_round_without_it():
    s = tu_new(("Ana", "Ben"))
    s = TU.apply(s, roll("red:(200)", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "out", 1: "out"})
    assert scores_of(TU, s) == [450, 450]
    e = TU.expect(s)
    assert e.roll is not None and e.roll.purpose == "main" and e.roll.roller == 1


def test_tu_bonus_roll_with_one_star_in_the_main_roll_and_none_in_the_bonus():
    s = tu_new(("Ana", "Ben"))
    s = TU.apply(s, roll("red:(200)", "blue:star", "green:150"))
    s = tu_reveal(s, {0: "in", 1: "in"})
    s = TU.apply(s, roll("up:+3"))
    s = TU.apply(s, roll("orange:200", "yellow:(150)", "purple:100"))
    assert s["running"] == 350 + 450
    assert tu_decision_players(s) == [0, 1]


def test_tu_target_reached_exactly_by_a_tally_up_bonus_ends_the_game():
    s = tu_new(("Ana", "Ben"), target=200)
    s = TU.apply(s, roll("red:star", "orange:star", "yellow:star"))
    s = TU.apply(s, action(1, "tally_up"))
    summ = check_summary(TU, s, "tally-up")
    assert scores_of(TU, s) == [100, 200]
    assert summ["finished"] is True and summ["winner"] == "Ben"


def test_tu_window_closed_tie_over_target_plays_on():
    s = tu_new(("Ana", "Ben"), target=100)
    s = TU.apply(s, roll("red:star", "orange:star", "yellow:star"))
    s = TU.apply(s, action(-1, "window_closed"))
    assert scores_of(TU, s) == [100, 100]
    assert TU.summary(s)["finished"] is False


def test_to_stop_needs_a_roll_first():
    s = to_new()
    refused(TO, s, action(0, "stop"))


def test_to_tie_break_repeats_while_the_tie_lasts():
    s = to_new(("Ana", "Ben"), tie_break=True)
    s = to_turn(s, 0, 101)
    s = to_turn(s, 1, 101)
    assert TO.summary(s)["finished"] is False
    s = to_turn(s, 0, 4)
    s = to_turn(s, 1, 4)
    assert TO.summary(s)["finished"] is False
    s = to_turn(s, 0, 1)
    s = TO.apply(s, toss(0, 0, 10))
    summ = check_summary(TO, s, "toss-up")
    assert summ["finished"] is True and summ["winner"] == "Ana"


def test_bk_end_game_early_tie_and_invalid_doubles_rule():
    s = bk_new(("Ana", "Ben"))
    s = BK.apply(s, action(-1, "end_game"))
    summ = check_summary(BK, s, "bank")
    assert summ["finished"] is True and summ["winner"] == ["Ana", "Ben"]
    with pytest.raises((ValueError, RuleError)):
        bk_new(("Ana", "Ben"), doubles_rule="triple")


def test_bk_seven_on_roll_4_with_nobody_banked():
    s = bk_new(("Ana", "Ben"))
    s = bk_three(s)  # 77, Ben to roll (Ana, Ben, Ana rolled)
    assert bk_roller(s) == 1
    s = BK.apply(s, d6(5, 2))
    assert scores_of(BK, s) == [0, 0]
    assert BK.summary(s)["round"] == 2
    assert bk_roller(s) == 0


def test_do_three_player_tie_for_lowest_roll_off_winner_penalizes():
    s = do_started(("Ana", "Ben", "Cy"))
    s = do_rolls(s, 7, 7, 7)
    s = do_rolls(s, 7, 7, 7, 7)  # Ana 70
    s = do_rolls(s, 8)  # Ben marks 8
    assert do_roller(s) == 2
    s = do_rolls(s, 8)  # Cy marks 8
    assert do_roller(s) == 1  # Ana is out: skipped
    s = do_rolls(s, 8, 8, 8, 8)  # Ben: DICEDOUT!: 62
    assert do_roller(s) == 2
    s = do_rolls(s, 8, 8, 8, 8)  # Cy: 62
    assert scores_of(DO, s) == [70, 62, 62]
    e = DO.expect(s)
    assert e.roll is not None and e.roll.roller == 1  # only Ben and Cy roll off
    s = do_rolls(s, 4, 9)  # Cy wins the roll-off
    (d,) = [d for d in DO.expect(s).decisions if d.player == 2]
    assert "penalize" in d.actions
    s = DO.apply(s, action(2, "penalize", target=0))
    assert do_roller(s) == 2 and DO.summary(s)["round"] == 2


def test_do_penalty_lasts_one_round_only():
    s = do_started(("Ana", "Ben", "Cy"))
    # round 1: Ana 70, Ben 62, Cy 70: Ben penalizes Cy
    s = do_rolls(s, 7, 7, 7)
    s = do_rolls(s, 7, 7, 7, 7)
    s = do_rolls(s, 8)
    s = do_rolls(s, 7, 7, 7, 7)
    s = do_rolls(s, 8, 8, 8, 8)
    s = DO.apply(s, action(1, "penalize", target=2))
    # round 2 (Ben first): Cy has 2 rerolls; Ben 62-round again lowest: Ben penalizes Ana
    s = do_rolls(s, 7, 7, 7)
    s = do_rolls(s, 8)  # Ben marks 8
    s = do_rolls(s, 7, 7, 7)  # Cy: DICEDOUT! after two rerolls: 70
    s = do_rolls(s, 7, 7, 7, 7)  # Ana: 70
    s = do_rolls(s, 8, 8, 8, 8)  # Ben: 62
    assert DO.summary(s)["round"] == 2
    assert any(d.player == 1 and "penalize" in d.actions for d in DO.expect(s).decisions)
    s = DO.apply(s, action(1, "penalize", target=0))
    # round 3: Cy has three rerolls again, Ana two
    s = do_rolls(s, 7, 7, 7)
    s = do_rolls(s, 8)  # Ben
    s = do_rolls(s, 7, 7, 7)  # Cy: rerolls 1..3 would leave her rolling
    assert do_roller(s) == 2
    s = do_rolls(s, 7)  # Cy: DICEDOUT!
    s = do_rolls(s, 7, 7, 7)  # Ana: two rerolls then DICEDOUT!
    assert do_roller(s) == 1


def test_do_no_penalty_or_roll_off_after_the_last_round():
    s = do_started(("Ana", "Ben", "Cy"), rounds=1)
    s = do_rolls(s, 7, 7, 7)
    s = do_rolls(s, 7, 7, 7, 7)
    s = do_rolls(s, 8, 8, 8, 8, 8)
    s = do_rolls(s, 8, 8, 8, 8, 8)
    summ = check_summary(DO, s, "diced-out")
    assert summ["finished"] is True and summ["winner"] == ["Ben", "Cy"]
    assert DO.expect(s).finished and DO.expect(s).roll is None


SEQUENCES = {
    "tally-up": (
        tu_new,
        [
            roll("red:(200)", "blue:100", "green:150"),
            action(0, "in"),
            action(1, "out"),
            action(2, "in"),
            roll("up:+1"),
            roll("yellow:150"),
            action(0, "in"),
            action(2, "in"),
            roll("red:star", "blue:star", "green:star"),
            action(1, "tally_up"),
        ],
    ),
    "toss-up": (to_new, [toss(4, 5, 1), toss(2, 2, 2), action(0, "stop"), toss(0, 0, 10)]),
    "bank": (bk_new, [d6(1, 2), d6(3, 3), d6(3, 4), action(1, "bank"), d6(2, 2), d6(3, 4)]),
    "diced-out": (
        do_new,
        [
            sum_roll(11),
            sum_roll(3),
            sum_roll(12),
            action(0, "mark", number=2),
            sum_roll(7),
            sum_roll(12),
        ],
    ),
    "rollers": (
        ro_new,
        [
            roll("wild:5"),
            roll("black:2"),
            roll("wild:3", "wild:3", "wild:star", "wild:star", "wild:2", "black:1"),
            action(0, "save", dice=[0, 1, 2, 3]),
            roll("wild:2", "black:zap"),
            action(0, "stop"),
            action(0, "apply", stars=[3, 3]),
        ],
    ),
}


@pytest.mark.parametrize("game_id", sorted(SEQUENCES))
def test_apply_never_changes_its_input_and_states_are_json(game_id):
    import json

    engine = get(game_id)
    make, events = SEQUENCES[game_id]
    s = make()
    states = [s]
    for ev in events:
        before = json.dumps(s, sort_keys=True)
        nxt = engine.apply(s, ev)
        assert json.dumps(s, sort_keys=True) == before
        json.dumps(nxt)
        check_summary(engine, nxt, game_id)
        s = nxt
        states.append(s)
    # deterministic: the same events give the same states
    again = make()
    for ev in events:
        again = engine.apply(again, ev)
    assert again == s


def test_tu_every_player_once_tie_plays_on():
    s = tu_new(("Ana", "Ben"), every_player_once=True)
    s = TU.apply(s, roll("red:star", "blue:star", "green:150"))
    s = TU.apply(s, roll("red:star", "blue:star", "green:150"))
    assert scores_of(TU, s) == [0, 0]
    assert TU.summary(s)["finished"] is False
    assert TU.summary(s)["active"] == "Ana"
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "out", 1: "in"})
    s = TU.apply(s, roll("red:star", "blue:star", "green:150"))
    summ = check_summary(TU, s, "tally-up")
    assert summ["finished"] is True and summ["winner"] == "Ana"


def test_tu_a_third_player_can_overtake_in_the_tie_round():
    s = tu_new(("Ana", "Ben", "Cy"), target=400)
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {0: "out", 1: "out", 2: "in"})
    s = TU.apply(s, roll("red:200", "blue:100", "green:150"))
    s = tu_reveal(s, {2: "out"})
    # Ana 450, Ben 450, Cy 900: Cy leads alone at the end of the round
    summ = check_summary(TU, s, "tally-up")
    assert summ["finished"] is True and summ["winner"] == "Cy"


def test_do_zero_rerolls_and_no_circled_numbers_options():
    s = do_started(rerolls=0, circled=[])
    s = do_rolls(s, 12)  # no bonus with circled = []
    assert do_roller(s) == 1
    s = do_rolls(s, 7)
    s = do_rolls(s, 12)  # marked, no reroll: DICEDOUT!: 77 - 12 = 65
    assert do_roller(s) == 1
    s = do_rolls(s, 7)  # Ben DICEDOUT!: 70
    assert scores_of(DO, s) == [65, 70]
    assert DO.summary(s)["round"] == 2
    assert do_roller(s) == 0


def test_ro_collect_from_two_players_one_short_of_chips():
    s = ro_started(("Ana", "Ben", "Cy"))
    five_fives = ("wild:5",) * 5 + ("black:5",)
    s = ro_turn(s, five_fives)  # Ana: 5s open+close
    s = ro_turn(s, ("wild:5",) * 5 + ("black:4",))  # Ben: 5s open only
    s = ro_turn(s, ZAP)  # Cy
    s = ro_turn(s, five_fives)  # Ana: 30 from Ben and 30 from Cy
    assert chips(s) == {"Ana": 115, "Ben": 25, "Cy": 25}
    s = ro_turn(s, ("wild:5", "wild:2", "wild:2", "wild:2", "wild:1", "black:4"))  # Ben closes 5s
    s = ro_turn(s, ZAP)
    s = ro_turn(s, five_fives)  # Ana: Ben has closed 5s; Cy pays 25, all she has
    assert chips(s) == {"Ana": 140, "Ben": 25, "Cy": 0}
    assert boards(s)["Ben"]["5"] == "closed"


@pytest.mark.parametrize(
    "game_id, low, high",
    [
        ("tally-up", 2, None),
        ("toss-up", 2, 6),
        ("bank", 2, None),
        ("diced-out", 2, None),
        ("rollers", 2, 5),
    ],
)
def test_player_counts_from_the_rulebooks(game_id, low, high):
    engine = get(game_id)
    layout = {"tally-up": TU_LAYOUT, "toss-up": TO_LAYOUT, "rollers": RO_LAYOUT}.get(game_id, D6)
    names = [f"P{i}" for i in range(12)]
    with pytest.raises((ValueError, RuleError)):
        engine.new_game(names[: low - 1], copy.deepcopy(layout), None)
    engine.new_game(names[:low], copy.deepcopy(layout), None)
    if high is not None:
        engine.new_game(names[:high], copy.deepcopy(layout), None)
        with pytest.raises((ValueError, RuleError)):
            engine.new_game(names[: high + 1], copy.deepcopy(layout), None)
