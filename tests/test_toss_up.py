"""Scenario tests of the Toss Up! engine: one test per reading of tray/rules/RULES.md section 2
(#2-toss-up).

Each test's docstring names the reading it covers. Some scenarios start from a state whose scores
were set by hand (the state is plain data) to reach the end of the game in a few events."""

from __future__ import annotations

import json

import pytest

from tray.rules.engine import RuleError, action
from tray.rules.games import get
from tray.rules.games import toss_up as U
from vision.dicesets import load

LAYOUT = load("toss-up").layout()


def game(n=2, **options):
    return U.new_game(["Ana", "Ben", "Cy", "Dee", "Eve", "Fay"][:n], LAYOUT, options or None)


def toss(green=0, yellow=0, red=0):
    """A roll event with that many green, yellow and red faces."""
    faces = ["green"] * green + ["yellow"] * yellow + ["red"] * red
    return {"type": "roll", "dice": [f"toss:{f}" for f in faces]}


def refused(s, event, *words):
    """Apply must refuse ``event`` with a message containing ``words``, leaving ``s`` as it was."""
    before = json.dumps(s, sort_keys=True)
    with pytest.raises(RuleError) as err:
        U.apply(s, event)
    assert json.dumps(s, sort_keys=True) == before
    for w in words:
        assert w in str(err.value), str(err.value)
    return str(err.value)


def turn(s, greens):
    """The active player rolls ``greens`` greens (the rest yellow) with all 10 dice and stops."""
    s = U.apply(s, toss(green=greens, yellow=10 - greens))
    return U.apply(s, action(s["active"], "stop"))


def bust(s):
    """The active player runs a red light on the first roll of the turn."""
    return U.apply(s, toss(yellow=9, red=1))


# ---------------------------------------------------------------------------------------------
# The interface


def test_registry_and_module_constants():
    """The engine interface: GAME_ID, TITLE, DICE_SET, MIN/MAX_PLAYERS 2..6, OPTIONS tie_break."""
    assert get("toss-up") is U
    assert (U.GAME_ID, U.TITLE, U.DICE_SET) == ("toss-up", "Toss Up!", "toss-up")
    assert (U.MIN_PLAYERS, U.MAX_PLAYERS) == (2, 6)
    assert U.OPTIONS == {"tie_break": False}


def test_new_game_state_and_option_checks():
    """State is plain JSON-able data with the shared keys; players 2..6; options checked."""
    s = game(3)
    assert json.loads(json.dumps(s)) == s
    for key in (
        "game",
        "players",
        "scores",
        "round",
        "active",
        "finished",
        "layout",
        "options",
        "last",
    ):
        assert key in s
    with pytest.raises(RuleError, match="2 to 6 players"):
        U.new_game([f"P{i}" for i in range(7)], LAYOUT)
    with pytest.raises(RuleError, match="Toss Up! has no option 'target'"):
        game(2, target=50)
    with pytest.raises(RuleError, match="tie_break must be true or false"):
        game(2, tie_break="yes")
    with pytest.raises(RuleError, match="green, yellow and red"):
        U.new_game(["Ana", "Ben"], {"toss": ["green", "blue", "red", "green", "green", "yellow"]})


def test_apply_never_mutates_input():
    """apply() never mutates its input."""
    s = game()
    before = json.dumps(s, sort_keys=True)
    U.apply(s, toss(green=3, yellow=7))
    assert json.dumps(s, sort_keys=True) == before


# ---------------------------------------------------------------------------------------------
# A turn


def test_first_roll_uses_all_ten_dice():
    """2.1: a turn starts with all 10 dice."""
    e = U.expect(game())
    assert e.roll.dice == ("toss",) * 10 and e.roll.count == 10 and e.roll.roller == 0
    assert e.decisions == () and e.prompt == "Ana: roll all 10 dice"
    refused(game(), toss(green=3, yellow=4), "7 dice seen: a turn starts with all 10 dice")


def test_greens_set_aside_and_counted():
    """2.1: after each throw the greens are set aside and count one point each for the turn."""
    s = U.apply(game(), toss(green=4, yellow=4, red=2))
    assert s["turn_points"] == 4 and s["left"] == 6
    assert U.expect(s).roll.dice == ("toss",) * 6
    s = U.apply(s, toss(green=2, yellow=3, red=1))
    assert s["turn_points"] == 6 and s["left"] == 4
    assert s["last"]["greens"] == 2 and U.expect(s).detail["set_aside"] == 6


def test_no_green_and_a_red_busts_turn_scores_zero():
    """2.2: no green and at least one red: the turn scores 0 and ends."""
    s = U.apply(game(), toss(green=7, yellow=3))
    s = U.apply(s, toss(yellow=2, red=1))
    assert s["last"]["kind"] == "bust" and s["last"]["lost"] == 7
    assert s["scores"] == [0, 0] and s["active"] == 1
    assert s["turn_points"] == 0 and s["left"] == 10


def test_one_green_with_reds_is_not_a_bust():
    """2.2: one green among reds is not a bust: the green is set aside and the turn goes on."""
    s = U.apply(game(), toss(green=1, red=9))
    assert s["last"]["kind"] == "roll" and s["turn_points"] == 1 and s["left"] == 9
    assert s["active"] == 0


def test_only_yellows_changes_nothing():
    """2.3: yellows only score nothing and cost nothing (the player may still roll or stop)."""
    s = U.apply(game(), toss(green=3, yellow=7))
    s2 = U.apply(s, toss(yellow=7))
    assert s2["turn_points"] == 3 and s2["left"] == 7 and s2["last"]["all_yellow"]
    assert s2["active"] == 0
    # Even as the first roll of a turn: nothing scored, no bust, the player may stop or roll.
    s3 = U.apply(game(), toss(yellow=10))
    assert s3["turn_points"] == 0 and s3["left"] == 10 and s3["active"] == 0
    assert U.expect(s3).decisions[0].choices == (action(0, "stop"),)


def test_after_roll_player_may_stop_or_roll_the_rest():
    """2.4: after a throw that did not bust the player stops (banks the turn's points) or throws the
    dice that are left."""
    s = U.apply(game(), toss(green=6, yellow=3, red=1))
    e = U.expect(s)
    assert e.roll.dice == ("toss",) * 4
    (d,) = e.decisions
    assert d.player == 0 and d.choices == (action(0, "stop"),)
    assert d.default in (None, action(0, "stop"))
    assert e.prompt == "Ana: roll the 4 dice left or stop (6 points this turn)"
    stopped = U.apply(s, action(0, "stop"))
    assert stopped["scores"] == [6, 0] and stopped["active"] == 1
    assert stopped["last"] == {"kind": "stop", "player": 0, "points": 6, "score": 6}
    rolled = U.apply(s, toss(green=1, yellow=3))
    assert rolled["turn_points"] == 7 and rolled["left"] == 3


def test_wrong_count_refused_with_message():
    """2.4: a throw must show exactly the dice that are left; another count is refused, nothing is
    scored, and the message ends with "roll N dice"."""
    s = U.apply(game(), toss(green=6, yellow=4))
    refused(s, toss(green=6, yellow=4), "10 dice seen: remove the greens set aside: roll 4 dice")
    refused(s, toss(green=1, yellow=2), "3 dice seen: only 4 dice are left to roll: roll 4 dice")
    refused(s, {"type": "roll", "dice": ["d6:3"] * 4}, "d6 is not a Toss Up! die")
    refused(s, {"type": "roll", "dice": ["toss:blue"] * 4}, "no face blue")


def test_all_ten_green_come_back():
    """2.5: when all 10 dice have turned green they all come back and the turn goes on with 10."""
    s = U.apply(game(), toss(green=8, yellow=2))
    s = U.apply(s, toss(green=2))
    assert s["turn_points"] == 10 and s["left"] == 10 and s["last"]["all_back"]
    e = U.expect(s)
    assert e.roll.dice == ("toss",) * 10 and "roll all 10 dice again or stop" in e.prompt
    s = U.apply(s, toss(green=5, yellow=5))
    assert s["turn_points"] == 15 and s["left"] == 5
    s = U.apply(s, action(0, "stop"))
    assert s["scores"] == [15, 0]


def test_stop_refused_before_rolling_and_for_others():
    """2.4: stopping comes only after a throw that did not bust: not before the turn's first throw,
    and only the active player stops."""
    s = game()
    refused(s, action(0, "stop"), "roll the dice first")
    s = U.apply(s, toss(green=3, yellow=7))
    refused(s, action(1, "stop"), "Only Ana, whose turn it is, can stop")
    refused(s, action(0, "pass"), "the only action is stop")


def test_play_passes_to_the_left():
    """2.1: play passes to the left: seat order, wrapping."""
    s = game(3)
    s = turn(s, 2)
    assert s["active"] == 1 and s["round"] == 1
    s = bust(s)
    assert s["active"] == 2
    s = turn(s, 1)
    assert s["active"] == 0 and s["round"] == 2 and s["scores"] == [2, 0, 1]


# ---------------------------------------------------------------------------------------------
# End of the game


def test_over_100_at_end_of_turn_gives_others_one_last_turn():
    """2.6: a player ending a turn above 100 gives every other player one last turn, in seat order;
    then the highest total above 100 wins."""
    s = game(3)
    s["scores"] = [40, 95, 60]
    s["active"] = 1
    s = turn(s, 8)  # Ben 103
    assert s["final"] == {"trigger": 1, "remaining": [2, 0]} and s["active"] == 2
    e = U.expect(s)
    assert e.prompt.startswith("Last turn (Ben has 103)! Cy: roll all 10 dice")
    assert e.detail["last_turns"] and e.detail["remaining"] == [2, 0]
    s = turn(s, 5)  # Cy 65
    assert not s["finished"] and s["active"] == 0
    s = bust(s)  # Ana busts
    assert s["finished"] and s["winner"] == "Ben"
    e = U.expect(s)
    assert e.finished and e.prompt == "Game over: Ben wins with 103 points"
    assert U.summary(s)["winner"] == "Ben"
    refused(s, toss(green=10), "The game is over")


def test_exactly_100_does_not_end_the_game():
    """2.6: exactly 100 is not above 100: it does not start the last turns."""
    s = game(2)
    s["scores"] = [95, 0]
    s = turn(s, 5)
    assert s["scores"] == [100, 0] and s["final"] is None and not s["finished"]


def test_highest_score_over_100_wins_even_if_not_first():
    """2.6: the highest total above 100 wins: a player passing the first one in a last turn wins."""
    s = game(3)
    s["scores"] = [101, 90, 80]
    s = U.apply(s, toss(green=1, yellow=9))
    s = U.apply(s, action(0, "stop"))  # Ana 102: Ben and Cy get a last turn
    s = turn(s, 9)  # Ben 99
    s = U.apply(s, toss(green=10))
    s = U.apply(s, toss(green=10))
    s = U.apply(s, toss(green=5, yellow=5))
    s = U.apply(s, action(2, "stop"))  # Cy 80 + 25 = 105
    assert s["finished"] and s["winner"] == "Cy" and s["scores"] == [102, 99, 105]


def test_tie_for_highest_shares_the_win():
    """2.6: players tied for the highest share the win (tie_break off, the default)."""
    s = game(2)
    s["scores"] = [98, 97]
    s = turn(s, 6)  # Ana 104
    s = turn(s, 7)  # Ben 104
    assert s["finished"] and s["winner"] == ["Ana", "Ben"]
    assert U.expect(s).prompt == "Game over: Ana and Ben share the win with 104 points"


def test_option_tie_break_tied_players_play_another_turn_until_broken():
    """2.6, option tie_break: the tied players play another turn each until the tie breaks (players
    not tied for the highest take no part)."""
    s = game(3, tie_break=True)
    s["scores"] = [98, 50, 97]
    s = turn(s, 6)  # Ana 104
    s = turn(s, 3)  # Ben 53
    s = turn(s, 7)  # Cy 104: tie between Ana and Cy
    assert not s["finished"] and s["tiebreak"] == {"players": [0, 2], "remaining": [0, 2]}
    assert s["active"] == 0 and U.expect(s).prompt.startswith("Tie-break turn! Ana")
    s = turn(s, 2)  # Ana 106
    assert s["active"] == 2
    s = turn(s, 2)  # Cy 106: still tied, again
    assert not s["finished"] and s["tiebreak"]["players"] == [0, 2] and s["active"] == 0
    s = bust(s)  # Ana 106
    s = turn(s, 1)  # Cy 107
    assert s["finished"] and s["winner"] == "Cy" and s["scores"] == [106, 53, 107]


def test_summary_has_required_keys():
    """summary(state) returns game, players (name, score), round, active (name), finished and
    winner."""
    s = U.apply(game(2), toss(green=4, yellow=6))
    summ = U.summary(s)
    assert summ["game"] == "toss-up"
    assert summ["players"] == [{"name": "Ana", "score": 0}, {"name": "Ben", "score": 0}]
    assert summ["round"] == 1 and summ["active"] == "Ana" and summ["finished"] is False
    assert summ["winner"] is None and summ["turn_points"] == 4 and summ["left"] == 6
    json.dumps(summ)
