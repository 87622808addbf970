"""The shared engine helpers: roll events, roll checks and their messages."""

import pytest

from tray.rules.engine import RollSpec, RuleError, action, check_roll, parse_die, roll, winners
from vision.dicesets import load

LAYOUT = load("tally-up").layout()


def test_roll_and_action_events_are_plain_data():
    assert roll("red:star") == {"type": "roll", "dice": ["red:star"]}
    assert action(2, "bank") == {"type": "action", "player": 2, "action": "bank"}


def test_parse_die_keeps_circled_faces():
    assert parse_die("green:(150)") == ("green", "(150)")
    with pytest.raises(RuleError, match="expected die:face"):
        parse_die("green")


def test_locked_dice_must_match_exactly():
    spec = RollSpec(roller=0, count=3, dice_set="tally-up", dice=("red", "blue", "green"))
    check_roll(spec, [("blue", "100"), ("red", "star"), ("green", "150")], LAYOUT)
    with pytest.raises(RuleError, match="Roll the red, blue and green"):
        check_roll(spec, [("blue", "100"), ("red", "star"), ("yellow", "150")], LAYOUT)


def test_choose_from_needs_distinct_dice_of_the_allowed_ones():
    spec = RollSpec(roller=0, count=2, dice_set="tally-up", choose_from=("red", "orange", "up"))
    check_roll(spec, [("red", "star"), ("orange", "200")], LAYOUT)
    with pytest.raises(RuleError, match="3 dice seen: roll 2"):
        check_roll(spec, [("red", "star"), ("orange", "200"), ("up", "x2")], LAYOUT)
    with pytest.raises(RuleError, match="blue cannot be rolled now"):
        check_roll(spec, [("red", "star"), ("blue", "100")], LAYOUT)


def test_a_face_the_die_does_not_have_is_refused():
    spec = RollSpec(roller=0, count=1, dice_set="tally-up", choose_from=("blue",))
    with pytest.raises(RuleError, match="blue has no face 200"):
        check_roll(spec, [("blue", "200")], LAYOUT)


def test_winners_single_and_shared():
    assert winners([3, 5, 1], ["a", "b", "c"]) == "b"
    assert winners([5, 5, 1], ["a", "b", "c"]) == ["a", "b"]
    assert winners([5, 2, 2], ["a", "b", "c"], highest=False) == ["b", "c"]
