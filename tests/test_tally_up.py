"""Scenario tests of the Tally Up! engine: one test per reading of tray/rules/RULES.md section 1
(#1-tally-up).

Each test's docstring names the reading it covers (1.1 is the first reading of section 1)."""

from __future__ import annotations

import json

import pytest

from tray.rules.engine import RuleError, action, roll
from tray.rules.games import get
from tray.rules.games import tally_up as T
from vision.dicesets import load

LAYOUT = load("tally-up").layout()
ALL_TALLY = ("red", "orange", "yellow", "green", "blue", "purple")


def game(n=3, **options):
    return T.new_game(["Ana", "Ben", "Cy", "Dee", "Eve", "Fay"][:n], LAYOUT, options or None)


def choose(s, **picks):
    """Send every awaited IN/OUT choice: picks maps a seat letter p0, p1.. to 'in'/'out'
    (default in)."""
    for d in T.expect(s).decisions:
        s = T.apply(s, action(d.player, picks.get(f"p{d.player}", "in")))
    return s


def refused(s, event, *words):
    """Apply must refuse ``event`` with a message containing ``words``, leaving ``s`` as it was."""
    before = json.dumps(s, sort_keys=True)
    with pytest.raises(RuleError) as err:
        T.apply(s, event)
    assert json.dumps(s, sort_keys=True) == before
    for w in words:
        assert w in str(err.value), str(err.value)
    return str(err.value)


# A plain Main Roll worth 450 (no star, no circle) and one with a circle worth 450.
PLAIN = roll("red:200", "yellow:150", "blue:100")
CIRCLE = roll("red:(200)", "yellow:150", "blue:100")


# ---------------------------------------------------------------------------------------------
# The interface


def test_registry_and_module_constants():
    """The engine interface: GAME_ID, TITLE, DICE_SET, MIN/MAX_PLAYERS, OPTIONS with defaults."""
    assert get("tally-up") is T
    assert (T.GAME_ID, T.TITLE, T.DICE_SET) == ("tally-up", "Tally Up!", "tally-up")
    assert (T.MIN_PLAYERS, T.MAX_PLAYERS) == (2, 10)
    assert T.OPTIONS == {
        "target": 2500,
        "every_player_once": False,
        "high_stakes": False,
        "press_window_s": 5,
    }


def test_new_game_state_is_plain_data_with_required_keys():
    """State: a plain JSON-able dict with game, players, scores, round, active, finished, layout,
    options and last."""
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
    assert s["round"] == 1 and s["active"] == 0 and s["scores"] == [0, 0, 0]


def test_player_count_and_options_refused_with_message():
    """Players 2..10; an unknown option or a bad value is refused with a clear sentence."""
    with pytest.raises(RuleError, match="2 to 10 players"):
        T.new_game(["Ana"], LAYOUT)
    with pytest.raises(RuleError, match="2 to 10 players"):
        T.new_game([f"P{i}" for i in range(11)], LAYOUT)
    T.new_game([f"P{i}" for i in range(10)], LAYOUT)
    with pytest.raises(RuleError, match="Tally Up! has no option 'goal'"):
        T.new_game(["Ana", "Ben"], LAYOUT, {"goal": 3})
    with pytest.raises(RuleError, match="target"):
        T.new_game(["Ana", "Ben"], LAYOUT, {"target": 0})
    with pytest.raises(RuleError, match="same name"):
        T.new_game(["Ana", "Ana"], LAYOUT)


def test_apply_never_mutates_input():
    """apply() never mutates its input."""
    s = game()
    before = json.dumps(s, sort_keys=True)
    s2 = T.apply(s, PLAIN)
    assert json.dumps(s, sort_keys=True) == before
    assert s2["running"] == 450 and s["running"] == 0


# ---------------------------------------------------------------------------------------------
# IN / OUT


def test_first_main_roll_has_no_reveal_before_it():
    """1.1: no reveal before a round's first Main Roll (the running total is 0)."""
    e = T.expect(game())
    assert e.decisions == ()
    assert e.roll.purpose == "main" and e.roll.roller == 0
    assert e.prompt == "Ana: roll three Tally Dice"


def test_reveal_after_every_resolved_roll_among_in_players():
    """1.1: after each resolved roll the players still IN choose in secret and reveal together."""
    s = T.apply(game(3), PLAIN)
    e = T.expect(s)
    assert e.roll is None
    assert [d.player for d in e.decisions] == [0, 1, 2]
    for d in e.decisions:
        assert d.secret
        assert d.choices == (action(d.player, "in"), action(d.player, "out"))
        assert d.default in d.choices
    assert e.prompt.startswith("Everyone IN: choose IN or OUT")
    s = choose(s, p1="out")
    # Next resolved roll: only the players still IN are asked.
    s = T.apply(s, roll("red:200", "yellow:150", "blue:100"))
    assert [d.player for d in T.expect(s).decisions] == [0, 2]


def test_in_out_choices_stay_secret_until_the_last_one():
    """1.1: the choices are secret: the state shows who has chosen, never what, and resolves the
    reveal when the last awaited choice arrives."""
    s = T.apply(game(3), PLAIN)
    s = T.apply(s, action(1, "out"))
    assert s["last"] == {"kind": "chosen", "player": 1}
    assert s["scores"] == [0, 0, 0] and s["in"] == [True, True, True]
    e = T.expect(s)
    assert e.detail["chosen"] == [1] and e.detail["waiting"] == [0, 2]
    assert "out" not in json.dumps(e.detail["chosen"])
    assert e.prompt.startswith("Ana and Cy: choose IN or OUT")
    refused(s, action(1, "in"), "Ben has already chosen")
    refused(s, PLAIN, "Ana and Cy must choose IN or OUT")
    s = T.apply(s, action(0, "in"))
    s = T.apply(s, action(2, "in"))
    assert s["last"]["kind"] == "reveal"
    assert s["last"]["in"] == [0, 2] and s["last"]["out"] == [1]


def test_out_banks_running_total_at_that_moment():
    """1.1: a player going OUT banks the running total of that moment."""
    s = T.apply(game(3), PLAIN)  # 450
    s = choose(s, p2="out")
    assert s["scores"] == [0, 0, 450] and s["in"] == [True, True, False]
    s = T.apply(s, PLAIN)  # 900
    s = choose(s, p1="out")
    assert s["scores"] == [0, 900, 450]
    assert s["last"]["banked"] == 900


def test_out_player_stays_out_for_the_round():
    """1.1: OUT stays OUT until the round ends: an OUT player's choice is refused."""
    s = choose(T.apply(game(3), PLAIN), p1="out")
    s = T.apply(s, PLAIN)
    refused(s, action(1, "in"), "Ben is OUT for the rest of this round")


def test_reveal_before_up_die_roll():
    """1.1: a circle on a Main Roll means one more secret choice, then the Up Die."""
    s = T.apply(game(3), CIRCLE)
    e = T.expect(s)
    assert e.roll is None and "before the Up Die" in e.prompt
    assert s["last"]["circle"] is True and s["running"] == 450
    s = choose(s, p0="out")
    assert s["scores"] == [450, 0, 0]
    e = T.expect(s)
    assert e.roll.dice == ("up",) and e.roll.purpose == "up"
    assert e.prompt == "Ana is OUT but keeps rolling: roll the Up Die"


def test_reveal_follows_up_die_points_face():
    """1.1: the Up Die roll (-100/+100/x2) is a resolved roll: a reveal follows it, then the next
    Main Roll."""
    s = choose(T.apply(game(2), CIRCLE))
    s = T.apply(s, roll("up:+100"))
    assert s["running"] == 550 and s["phase"] == "choose"
    s = choose(s)
    assert T.expect(s).roll.purpose == "main"


def test_high_stakes_no_reveal_before_up_die_in_holds():
    """1.10, high stakes: no choice before the Up Die; an IN choice holds through it."""
    s = T.apply(game(2, high_stakes=True), CIRCLE)
    e = T.expect(s)
    assert e.decisions == () and e.roll.dice == ("up",)
    s = T.apply(s, roll("up:x2"))
    assert s["running"] == 900
    # The next choice comes before the next Main Roll.
    e = T.expect(s)
    assert e.roll is None and len(e.decisions) == 2 and "before the Up Die" not in e.prompt
    s = choose(s, p1="out")
    assert s["scores"] == [0, 900]
    assert T.expect(s).roll.purpose == "main"


def test_high_stakes_chooses_before_each_main_roll_but_not_the_first():
    """1.10, high stakes: players choose before each Main Roll but the round's first (1.1: the
    running total is 0, OUT would bank nothing)."""
    s = game(2, high_stakes=True)
    assert T.expect(s).decisions == ()
    s = T.apply(s, PLAIN)
    assert T.expect(s).roll is None and len(T.expect(s).decisions) == 2


# ---------------------------------------------------------------------------------------------
# Choosing and locking the dice


def test_first_main_roll_any_three_tally_dice():
    """1.2: the active player chooses any three Tally Dice by rolling them."""
    spec = T.expect(game()).roll
    assert spec.choose_from == ALL_TALLY and spec.count == 3 and spec.dice is None
    s = game()
    refused(s, roll("red:200", "blue:100"), "2 dice seen", "roll three Tally Dice")
    refused(s, roll("red:200", "blue:100", "up:x2"), "The Up Die is not part of a Main Roll")
    refused(s, roll("red:200", "red:200", "blue:100"), "each colour only once")
    refused(s, roll("red:150", "yellow:150", "blue:100"), "red die has no face 150")
    s = T.apply(s, roll("orange:200", "green:150", "purple:100"))
    assert s["locked"] == ["orange", "green", "purple"]


def test_locked_colours_refused_with_message():
    """1.2: a later Main Roll with other colours is refused, the message names the locked dice,
    nothing is scored."""
    s = choose(T.apply(game(2), roll("red:200", "blue:100", "green:150")))
    assert T.expect(s).roll.dice == ("red", "green", "blue")
    msg = refused(
        s,
        roll("red:200", "blue:100", "yellow:150"),
        "Roll the red, green and blue dice: those are locked for this round",
    )
    assert "yellow" in msg
    s = T.apply(s, roll("blue:100", "green:150", "red:200"))  # any order is fine
    assert s["running"] == 900


def test_wrong_number_of_dice_refused_naming_locked_dice():
    """1.2: a later Main Roll with another number of dice is refused the same way, naming the locked
    dice."""
    s = choose(T.apply(game(2), PLAIN))
    refused(s, roll("red:200", "yellow:150"), "Roll the red, yellow and blue dice", "2 dice seen")
    refused(s, roll("red:200", "yellow:150", "blue:100", "green:150"), "4 dice seen")


# ---------------------------------------------------------------------------------------------
# Running total, Up Die


def test_main_roll_points_add_to_running_total():
    """1.3: with no star or one, the points of all three dice, circled ones included, go into the
    running total."""
    s = T.apply(game(2), roll("red:star", "orange:(200)", "blue:100"))
    assert s["running"] == 300 and s["last"]["stars"] == 1


def test_running_total_never_below_zero():
    """1.4: the running total cannot drop below 0 (-100 on 60 leaves 0)."""
    layout = dict(LAYOUT)
    layout["blue"] = ["star", "20", "20", "20", "(20)", "(20)"]
    layout["purple"] = ["star", "40", "40", "40", "(40)", "(40)"]
    s = T.new_game(["Ana", "Ben"], layout)
    s = T.apply(s, roll("red:star", "blue:(20)", "purple:40"))
    assert s["running"] == 60
    s = choose(s)
    s = T.apply(s, roll("up:-100"))
    assert s["running"] == 0 and s["last"]["change"] == -60
    # The -100 on a larger total just subtracts.
    s = choose(T.apply(game(2), CIRCLE))
    assert T.apply(s, roll("up:-100"))["running"] == 350


def test_x2_doubles_after_main_points_added():
    """1.5: x2 doubles the running total after the Main Roll's points were added."""
    s = choose(T.apply(game(2), PLAIN))  # 450
    s = T.apply(s, roll("red:(200)", "yellow:150", "blue:100"))  # 900, circle
    s = choose(s)
    s = T.apply(s, roll("up:x2"))
    assert s["running"] == 1800


def test_up_die_rolled_once_even_with_several_circles():
    """1.3: several circles still mean one Up Die roll."""
    s = T.apply(game(2), roll("red:(200)", "orange:(200)", "blue:(100)"))
    s = choose(s)
    s = T.apply(s, roll("up:+100"))
    assert s["running"] == 600
    assert T.expect(s).roll is None  # a reveal, no second Up Die


def test_main_roll_two_stars_busts_in_players():
    """1.3: two stars on a Main Roll bust: the round ends and everyone still IN scores nothing."""
    s = T.apply(game(3), PLAIN)
    s = choose(s, p2="out")
    s = T.apply(s, roll("red:star", "yellow:star", "blue:100"))
    assert s["last"]["kind"] == "bust" and s["last"]["lost"] == 450
    assert s["last"]["busted"] == [0, 1] and s["last"]["round_over"] == "bust"
    assert s["scores"] == [0, 0, 450]
    assert s["active"] == 1 and s["round"] == 2


def test_main_roll_two_stars_and_circle_is_bust_no_up_die():
    """1.3: two stars and a circle on a Main Roll: the bust wins, the Up Die is not rolled."""
    s = T.apply(game(2), roll("red:star", "orange:star", "blue:(100)"))
    assert s["last"]["kind"] == "bust"
    e = T.expect(s)
    assert e.roll.purpose == "main" and e.roll.roller == 1 and s["locked"] is None


# ---------------------------------------------------------------------------------------------
# Bonus Roll


def _bonus_state(up_face, main=("red:star", "yellow:(150)", "blue:100")):
    s = choose(T.apply(game(2), roll(*main)))
    return T.apply(s, roll(f"up:{up_face}"))


def test_bonus_roll_uses_n_of_the_dice_not_rolled():
    """1.6: a Bonus Roll of N uses N of the three dice left out of the Main Roll."""
    s = _bonus_state("+2")
    spec = T.expect(s).roll
    assert spec.purpose == "bonus" and spec.count == 2 and spec.dice is None
    assert spec.choose_from == ("orange", "green", "purple")
    refused(s, roll("orange:200", "red:200"), "red cannot be in the Bonus Roll")
    refused(s, roll("orange:200"), "1 dice seen", "2 of the orange, green and purple dice")
    refused(s, roll("orange:200", "orange:200"), "2 of the orange")
    s3 = _bonus_state("+3")
    assert T.expect(s3).roll.count == 3
    assert T.expect(s3).prompt.endswith("roll the orange, green and purple dice")


def test_no_reveal_between_up_die_and_bonus_roll():
    """1.6: no reveal between the Up Die and its Bonus Roll; the reveal follows the Bonus Roll."""
    s = _bonus_state("+1")
    e = T.expect(s)
    assert e.decisions == () and e.roll.purpose == "bonus"
    s = T.apply(s, roll("green:150"))
    e = T.expect(s)
    assert e.roll is None and [d.player for d in e.decisions] == [0, 1]


def test_bonus_roll_adds_points_when_fewer_than_two_stars():
    """1.6: with fewer than two stars across both rolls, the Bonus Roll's points are added."""
    s = _bonus_state("+2")  # running 250, one star on the Main Roll
    s = T.apply(s, roll("orange:200", "green:150"))
    assert s["running"] == 600 and s["last"]["kind"] == "bonus" and s["last"]["points"] == 350


def test_bonus_roll_bust_counts_main_and_bonus_stars():
    """1.6: two or more stars across the Main Roll and the Bonus Roll together bust."""
    s = _bonus_state("+2")  # one star on the Main Roll
    s = T.apply(s, roll("orange:200", "green:star"))
    assert s["last"]["kind"] == "bust" and s["last"]["on"] == "bonus" and s["last"]["stars"] == 2
    assert s["scores"] == [0, 0] and s["active"] == 1
    # Without a star on the Main Roll, one star on the Bonus Roll is fine; two bust.
    s = _bonus_state("+2", main=("red:200", "yellow:(150)", "blue:100"))
    assert T.apply(s, roll("orange:200", "green:star"))["running"] == 650
    assert T.apply(s, roll("orange:star", "green:star"))["last"]["kind"] == "bust"


def test_circles_on_bonus_roll_do_nothing():
    """1.6: a circle on a Bonus Roll calls nothing (the Up Die is not rolled again)."""
    s = _bonus_state("+1")
    s = T.apply(s, roll("orange:(200)"))
    assert s["running"] == 450
    assert T.expect(s).roll is None and s["after_reveal"] == "main"
    s = choose(s)
    assert T.expect(s).roll.purpose == "main"


def test_stars_on_bonus_roll_never_tally_up():
    """1.6: stars on a Bonus Roll never make a Tally Up!: three of them are a bust."""
    s = _bonus_state("+3", main=("red:200", "yellow:(150)", "blue:100"))
    s = T.apply(s, roll("orange:star", "green:star", "purple:star"))
    assert s["last"]["kind"] == "bust"
    assert T.expect(s).decisions == ()


# ---------------------------------------------------------------------------------------------
# Tally Up!


def _tally_state(n=3, out=()):
    s = T.apply(game(n), PLAIN)
    s = choose(s, **{f"p{p}": "out" for p in out})
    return T.apply(s, roll("red:star", "yellow:star", "blue:star"))


def test_tally_up_ends_round_as_bust():
    """1.7: three stars on a Main Roll end the round like a bust: the running total is lost for
    everyone still IN."""
    s = _tally_state(3, out=(2,))
    assert s["last"]["kind"] == "tally_up" and s["last"]["lost"] == 450
    assert s["running"] == 0 and s["scores"] == [0, 0, 450]
    e = T.expect(s)
    assert e.roll is None and e.prompt.startswith("Tally Up!")
    refused(s, PLAIN, "press your button")
    refused(s, action(0, "in"), "not the time to choose")


def test_tally_up_first_press_gets_200_others_in_get_100():
    """1.7: the first press after the roll gains 200, every other player still IN gains 100 (the
    first presser does not also take the 100)."""
    s = _tally_state(4, out=(3,))
    e = T.expect(s)
    assert [d.player for d in e.decisions] == [0, 1, 2, 3, -1]
    assert e.decisions[1].choices == (action(1, "tally_up"),)
    s = T.apply(s, action(1, "tally_up"))
    assert s["scores"] == [100, 200, 100, 450]
    assert s["last"]["kind"] == "tally_up_bonus" and s["last"]["first"] == 1
    assert s["last"]["plus100"] == [0, 2] and s["last"]["round_over"] == "tally_up"
    assert s["active"] == 1 and s["round"] == 2
    refused(s, action(2, "tally_up"), "No Tally Up! to claim now")


def test_tally_up_out_player_can_press_first():
    """1.7: an OUT player pressing first gains the 200 on top of what they banked."""
    s = _tally_state(3, out=(2,))
    s = T.apply(s, action(2, "tally_up"))
    assert s["scores"] == [100, 100, 650]


def test_tally_up_active_player_can_press_first():
    """1.7: the active player may be the first to press, and gains the 200."""
    s = T.apply(_tally_state(2), action(0, "tally_up"))
    assert s["scores"] == [200, 100]


def test_tally_up_window_closed_nobody_gets_200():
    """1.7: nobody presses within the window: nobody gains the 200; the players still IN gain their
    100. The app sends action(-1, "window_closed")."""
    s = _tally_state(3, out=(0,))
    d = T.expect(s).decisions[-1]
    assert d.player == -1 and d.choices == (action(-1, "window_closed"),)
    assert T.expect(s).detail["press_window_s"] == 5
    s = T.apply(s, action(-1, "window_closed"))
    assert s["scores"] == [450, 100, 100] and s["last"]["first"] is None
    refused(s, action(-1, "window_closed"), "no Tally Up! press window is open")
    refused(_tally_state(2), action(1, "window_closed"), "table event", "player -1")


# ---------------------------------------------------------------------------------------------
# Active player, rounds


def test_active_player_keeps_rolling_while_out():
    """1.8: the active player keeps rolling after going OUT."""
    s = choose(T.apply(game(3), PLAIN), p0="out")
    e = T.expect(s)
    assert e.roll.roller == 0 and e.roll.purpose == "main"
    assert e.prompt == "Ana is OUT but keeps rolling: roll the red, yellow and blue dice"
    s = T.apply(s, PLAIN)
    assert s["running"] == 900
    assert [d.player for d in T.expect(s).decisions] == [1, 2]


def test_round_ends_when_everyone_out_next_player_clockwise():
    """1.8: the round ends on a bust, a Tally Up! or when nobody is IN; then the next player
    clockwise becomes active."""
    s = choose(T.apply(game(3), PLAIN), p0="out")
    s = T.apply(s, PLAIN)
    s = choose(s, p1="out", p2="out")
    assert s["scores"] == [450, 900, 900]
    assert s["last"]["round_over"] == "everyone_out"
    assert s["active"] == 1 and s["round"] == 2
    # Everything resets for the new round: running 0, everyone IN, no locked colours.
    assert s["running"] == 0 and s["in"] == [True] * 3 and s["locked"] is None
    assert T.expect(s).roll.choose_from == ALL_TALLY


def test_everyone_out_before_up_die_ends_round():
    """1.8: a reveal where every player goes OUT ends the round, even before an Up Die roll."""
    s = choose(T.apply(game(2), CIRCLE), p0="out", p1="out")
    assert s["scores"] == [450, 450] and s["active"] == 1 and s["phase"] == "main"


def test_next_player_clockwise_wraps_around():
    """1.8: the next player clockwise: after the last seat comes seat 0."""
    s = game(2)
    s = T.apply(s, roll("red:star", "orange:star", "blue:100"))
    assert s["active"] == 1
    s = T.apply(s, roll("red:star", "orange:star", "blue:100"))
    assert s["active"] == 0 and s["round"] == 3


# ---------------------------------------------------------------------------------------------
# End of the game


def test_end_checked_at_end_of_round_not_before():
    """1.9: the end of the game is checked only when a round ends."""
    s = game(2, target=800)
    s = choose(T.apply(s, PLAIN))
    s = T.apply(s, PLAIN)  # 900
    s = choose(s, p1="out")  # Ben banks 900 >= 800, but Ana is still IN: the round goes on
    assert s["scores"] == [0, 900] and not s["finished"]
    s = T.apply(s, roll("red:star", "yellow:star", "blue:100"))  # bust ends the round
    assert s["finished"] and s["winner"] == "Ben"
    e = T.expect(s)
    assert e.finished and e.prompt == "Game over: Ben wins with 900 points"
    assert T.summary(s)["winner"] == "Ben"
    refused(s, PLAIN, "The game is over")


def test_target_reached_highest_score_wins():
    """1.9: once somebody reaches the target, the highest score wins (several over the target: the
    highest, not the first)."""
    # Ben reaches the target first (450), Cy passes him later in the same round.
    s = game(3, target=400)
    s = T.apply(s, PLAIN)
    s = choose(s, p1="out")
    s = T.apply(s, PLAIN)
    s = choose(s, p2="out")
    s = T.apply(s, roll("red:star", "yellow:star", "blue:100"))
    assert s["finished"] and s["winner"] == "Cy" and s["scores"] == [0, 450, 900]


def test_tie_for_highest_plays_one_more_round_and_repeats():
    """1.9: a tie for the highest plays one more full round, again while the tie lasts."""
    s = game(2, target=400)
    s = choose(T.apply(s, PLAIN), p0="out", p1="out")  # 450 each: tied, over the target
    assert not s["finished"] and s["tie"] and s["active"] == 1 and s["round"] == 2
    assert "tie for the lead" in T.expect(s).prompt
    s = T.apply(s, roll("red:star", "yellow:star", "blue:100"))  # bust: still tied
    assert not s["finished"] and s["tie"] and s["round"] == 3
    s = choose(T.apply(s, PLAIN), p1="out")
    s = T.apply(s, roll("red:star", "yellow:star", "blue:100"))
    assert s["finished"] and s["winner"] == "Ben" and s["scores"] == [450, 900]


def test_option_target():
    """1.9, option target: the game ends at the chosen target."""
    s = choose(T.apply(game(2, target=450), PLAIN), p0="out")
    s = T.apply(s, roll("red:star", "yellow:star", "blue:100"))
    assert s["finished"] and s["winner"] == "Ana"
    s = choose(T.apply(game(2), PLAIN), p0="out")  # default 2500: not over
    s = T.apply(s, roll("red:star", "yellow:star", "blue:100"))
    assert not s["finished"]


def test_option_every_player_once_ends_after_each_player_active_once():
    """1.10, option every_player_once: the game ends once every player has been active once; the
    highest score wins (the target is not used)."""
    s = game(3, every_player_once=True, target=100)
    s = choose(T.apply(s, PLAIN), p1="out")  # Ben 450 > target, not the end
    s = T.apply(s, roll("red:star", "yellow:star", "blue:100"))
    assert not s["finished"] and s["active"] == 1
    s = T.apply(s, roll("red:star", "yellow:star", "blue:100"))
    assert not s["finished"] and s["active"] == 2
    assert T.expect(s).detail["target"] is None
    s = T.apply(s, roll("red:star", "yellow:star", "blue:100"))
    assert s["finished"] and s["winner"] == "Ben" and s["rounds_played"] == 3


def test_option_every_player_once_tie_plays_another_round():
    """1.10, option every_player_once, a tie for the highest: one more round while the tie lasts."""
    s = game(2, every_player_once=True)
    bust = roll("red:star", "yellow:star", "blue:100")
    s = T.apply(T.apply(s, bust), bust)  # both active once, 0 - 0
    assert not s["finished"] and s["tie"] and s["round"] == 3
    s = choose(T.apply(s, PLAIN), p0="out")
    s = T.apply(s, bust)
    assert s["finished"] and s["winner"] == "Ana"


def test_option_press_window_kept_in_options():
    """1.7, option press_window_s (5, used by the app only): kept in the options and shown in
    detail."""
    s = game(2, press_window_s=3.5)
    assert s["options"]["press_window_s"] == 3.5
    assert T.expect(s).detail["press_window_s"] == 3.5
    with pytest.raises(RuleError, match="press_window_s"):
        game(2, press_window_s=0)


def test_edited_layout_changes_face_meaning():
    """Face meaning comes from the face ids of the layout in the state, so an edited layout
    works."""
    layout = dict(LAYOUT)
    layout["red"] = ["star", "(300)", "(300)", "300", "300", "300"]
    layout["up"] = ["+1", "+2", "+3", "-50", "+250", "x3"]
    s = T.new_game(["Ana", "Ben"], layout)
    s = choose(T.apply(s, roll("red:(300)", "yellow:150", "blue:100")))
    assert s["running"] == 550
    assert T.apply(s, roll("up:x3"))["running"] == 1650
    assert T.apply(s, roll("up:+250"))["running"] == 800
    assert T.apply(s, roll("up:-50"))["running"] == 500
    with pytest.raises(RuleError, match="fix the dice-set file"):
        T.new_game(["Ana", "Ben"], {**LAYOUT, "red": ["star", "200", "x2", "200", "200", "200"]})


def test_refused_events_name_the_problem():
    """A refused event raises RuleError with a message the table reads as is; nothing changes."""
    s = game(2)
    refused(s, action(0, "in"), "not the time to choose IN or OUT")
    refused(s, action(0, "tally_up"), "No Tally Up! to claim now")
    refused(s, action(5, "in"), "unknown player 5")
    refused(s, action(0, "bank"), "unknown Tally Up! action 'bank'")
    refused(s, {"type": "undo"}, "unknown event type")
    refused(s, roll("red:200", "blue:100", "pink:3"), "pink is not a die of Tally Up!")
    s = choose(T.apply(s, CIRCLE))
    refused(s, roll("up:x2", "red:200"), "Roll the Up Die alone")


def test_summary_has_required_keys():
    """summary(state) returns game, players (name, score), round, active (name), finished and
    winner."""
    s = choose(T.apply(game(2), PLAIN), p1="out")
    summ = T.summary(s)
    assert summ["game"] == "tally-up"
    assert summ["players"] == [{"name": "Ana", "score": 0}, {"name": "Ben", "score": 450}]
    assert summ["round"] == 1 and summ["active"] == "Ana" and summ["finished"] is False
    assert summ["winner"] is None and summ["running"] == 450 and summ["in"] == ["Ana"]
    json.dumps(summ)
