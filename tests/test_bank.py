"""Bank: one scenario test per reading of tray/rules/RULES.md section 3 (#3-bank), named after it,
plus the interface."""

from __future__ import annotations

import copy
import json

import pytest

from tray.rules.engine import RuleError, action, check_roll, roll
from tray.rules.games import bank

LAYOUT = {"d6": ["1", "2", "3", "4", "5", "6"]}
PLAYERS = ["Ann", "Ben", "Cy"]


def game(options=None, players=PLAYERS):
    return bank.new_game(list(players), LAYOUT, options)


def r(a: int, b: int) -> dict:
    return roll(f"d6:{a}", f"d6:{b}")


def play(state, *events):
    for ev in events:
        state = bank.apply(state, ev)
    return state


def bank_(p):
    return action(p, "bank")


# Three phase-1 rolls worth 5 + 6 + 9 = 20, no sevens and no doubles.
PHASE1 = (r(1, 4), r(2, 4), r(4, 5))


def test_rounds_10_15_or_20_default_20():
    """3.1: 10, 15 or 20 rounds, 20 by default."""
    assert game()["options"]["rounds"] == 20
    for n in (10, 15, 20):
        s = game({"rounds": n})
        # end every round at once with a phase-2 seven: the game lasts exactly n rounds
        rounds_seen = 0
        while not s["finished"]:
            rounds_seen += 1
            s = play(s, *PHASE1, r(3, 4))
        assert rounds_seen == n
        assert s["round"] == n
    for bad in (12, 0, "20", None):
        with pytest.raises(RuleError, match="10, 15 or 20"):
            game({"rounds": bad})
    with pytest.raises(RuleError, match="no option"):
        game({"round": 10})


def test_roller_rotates_after_every_roll_among_players_who_have_not_banked():
    """3.2: the dice move on after every roll, skipping the players who banked this round; the order
    carries over between rounds."""
    s = game()
    rollers = []
    for ev in PHASE1:
        rollers.append(s["active"])
        s = bank.apply(s, ev)
    assert rollers == [0, 1, 2]
    assert s["active"] == 0
    s = bank.apply(s, bank_(1))  # Ben banks: the rotation skips him
    rollers = []
    for ev in (r(1, 2), r(1, 3), r(1, 4)):
        rollers.append(s["active"])
        assert bank.expect(s).roll.roller == s["active"]
        s = bank.apply(s, ev)
    assert rollers == [0, 2, 0]
    # the active roller banks before rolling: the next unbanked player rolls instead
    assert s["active"] == 2
    s = bank.apply(s, bank_(2))
    assert s["active"] == 0


def test_phase_1_rolls_1_to_3_add_the_sum_a_7_scores_70_doubles_are_plain_no_banking():
    """3.3: rolls 1-3 (phase 1) add the sum; a 7 is worth 70; doubles count as their sum; no
    banking."""
    s = game()
    s = bank.apply(s, r(3, 4))
    assert s["total"] == 70 and s["last"]["kind"] == "seventy" and s["round"] == 1
    with pytest.raises(RuleError, match="No banking yet"):
        bank.apply(s, bank_(0))
    s = bank.apply(s, r(6, 6))
    assert s["total"] == 82  # plain 12, not doubled
    assert bank.can_bank(s) == []
    assert [d.player for d in bank.expect(s).decisions] == [-1]  # only "end game early"
    s = bank.apply(s, r(2, 5))
    assert s["total"] == 152 and s["round"] == 1 and s["rolls"] == 3


def test_phase_2_doubles_double_the_total_then_add_the_roll():
    """3.4: from roll 4 (phase 2) doubles double the total and then add their sum (the default
    doubles rule)."""
    s = play(game(), *PHASE1)
    assert s["total"] == 20
    s = bank.apply(s, r(2, 3))
    assert s["total"] == 25
    s = bank.apply(s, r(4, 4))
    assert s["total"] == 25 * 2 + 8
    assert s["last"]["kind"] == "doubles"


def test_phase_2_doubles_option_double_only():
    """3.4, option doubles_rule = "double_only": doubles only double the total."""
    s = play(game({"doubles_rule": "double_only"}), *PHASE1, r(4, 4))
    assert s["total"] == 40
    with pytest.raises(RuleError, match="doubles rule"):
        game({"doubles_rule": "triple"})


def test_phase_2_seven_ends_the_round_and_unbanked_players_score_nothing():
    """3.4: a 7 in phase 2 ends the round; whoever has not banked gets nothing from it."""
    s = play(game(), *PHASE1, bank_(2))
    assert s["scores"] == [0, 0, 20]
    s = play(s, r(5, 5))  # 20*2+10 = 50
    s = bank.apply(s, r(1, 6))
    assert s["scores"] == [0, 0, 20]
    assert s["last"]["kind"] == "seven" and s["last"]["lost"] == [0, 1]
    assert s["last"]["lost_total"] == 50 and s["last"]["round_over"]
    assert s["round"] == 2 and s["total"] == 0 and s["rolls"] == 0
    assert s["banked"] == [False, False, False]


def test_banking_opens_right_after_roll_3_before_roll_4():
    """3.5: any unbanked player may bank with their button once roll 3 has been scored (the first
    chance: after roll 3, before roll 4), between rolls."""
    s = play(game(), *PHASE1[:2])
    with pytest.raises(RuleError, match="No banking yet"):
        bank.apply(s, bank_(1))
    s = bank.apply(s, PHASE1[2])
    e = bank.expect(s)
    assert e.roll is not None  # the roll AND the bank decisions are awaited together
    assert sorted(d.player for d in e.decisions) == [-1, 0, 1, 2]
    for d in e.decisions:
        assert d.default in d.choices
    s = bank.apply(s, bank_(1))  # Ben banks though it is Ann's roll
    assert s["scores"] == [0, 20, 0]
    with pytest.raises(RuleError, match="already banked"):
        bank.apply(s, bank_(1))


def test_banking_adds_the_total_without_reducing_it_several_may_bank_at_the_same_total():
    """3.5: banking adds the total to the player's score and leaves the total as it is; several may
    bank the same amount."""
    s = play(game(players=["A", "B", "C", "D"]), *PHASE1, r(2, 6))
    assert s["total"] == 28
    s = play(s, bank_(0), bank_(3))
    assert s["total"] == 28
    assert s["scores"] == [28, 0, 0, 28]
    assert s["round_points"][0] == [28, 0, 0, 28]


def test_round_ends_when_every_player_has_banked():
    """3.6: a round ends when every player has banked (or on a phase-2 seven)."""
    s = play(game(), *PHASE1, bank_(0), bank_(1))
    assert s["round"] == 1
    s = bank.apply(s, bank_(2))
    assert s["round"] == 2 and s["last"]["round_over"] and s["last"]["ended_by"] == "all_banked"
    assert s["scores"] == [20, 20, 20] and s["total"] == 0


def test_last_unbanked_player_rolls_alone():
    """3.6: a player left alone unbanked keeps rolling until they bank or roll a 7."""
    s = play(game(), *PHASE1, bank_(0), bank_(1))
    for ev in (r(1, 1), r(2, 3), r(6, 6)):
        assert s["active"] == 2
        assert "rolls alone" in bank.expect(s).prompt
        s = bank.apply(s, ev)
    assert s["active"] == 2
    assert s["total"] == ((20 * 2 + 2) + 5) * 2 + 12
    s = bank.apply(s, bank_(2))
    assert s["scores"] == [20, 20, 106]
    assert s["round"] == 2


def test_next_round_starts_with_the_player_after_the_one_who_made_the_last_roll():
    """3.6: the next round opens with the player after whoever made the round's last roll."""
    # Round ends on a seven rolled by Ben (seat 1): Cy starts round 2.
    s = play(game(), *PHASE1, r(1, 2))  # Ann rolls 4th; Ben is next
    assert s["active"] == 1
    s = bank.apply(s, r(3, 4))
    assert s["round"] == 2 and s["active"] == 2
    # Round ends by banking after a roll by Cy: Ann (seat 0) starts round 3.
    s = play(s, *PHASE1)  # Cy, Ann, Ben roll
    s = play(s, r(1, 2))  # Cy rolls the 4th
    s = play(s, bank_(0), bank_(1), bank_(2))
    assert s["round"] == 3 and s["active"] == 0
    # Turn order wraps: the last seat's roll hands round 4 to seat 0.
    s = play(s, *PHASE1)  # Ann, Ben, Cy
    s = play(s, bank_(0), bank_(1), bank_(2))  # last roll by Cy
    assert s["active"] == 0


def test_end_after_the_last_round_highest_score_wins():
    """3.7: after the last round the highest score wins."""
    s = game({"rounds": 10})
    for i in range(10):
        s = play(s, *PHASE1)
        s = bank.apply(s, bank_(i % 3))
        s = bank.apply(s, r(3, 4))
    assert s["finished"] and s["round"] == 10
    assert s["scores"] == [80, 60, 60]
    e = bank.expect(s)
    assert e.finished and e.roll is None and e.decisions == ()
    assert e.prompt == "Game over: Ann wins with 80"
    summ = bank.summary(s)
    assert summ["winner"] == "Ann" and summ["active"] is None and summ["finished"]
    with pytest.raises(RuleError, match="game is over"):
        bank.apply(s, r(1, 2))


def test_tied_winners_are_listed():
    """3.7: a tie for the highest score: the winner is the list of tied names."""
    s = game({"rounds": 10})
    for _ in range(10):
        s = play(s, *PHASE1, bank_(0), bank_(1), bank_(2))
    assert s["finished"]
    assert bank.summary(s)["winner"] == PLAYERS
    assert "share the win" in bank.expect(s).prompt


def test_end_game_early_ends_it_now_with_the_scores_so_far():
    """3.7: "End the game now" stops at once with the scores as they are."""
    s = play(game(), *PHASE1, bank_(1), r(2, 3))
    with pytest.raises(RuleError, match="table action"):
        bank.apply(s, action(0, "end_game"))
    s = bank.apply(s, action(-1, "end_game"))
    assert s["finished"] and s["ended_early"] and s["scores"] == [0, 20, 0]
    assert bank.summary(s)["winner"] == "Ben"
    assert bank.expect(s).prompt.startswith("Game ended early")


def test_refused_events_leave_the_state_unchanged_and_name_the_problem():
    s = play(game(), *PHASE1)
    before = copy.deepcopy(s)
    cases = [
        (roll("d6:3"), "1 die seen: roll both dice"),
        (roll("d6:3", "d6:4", "d6:5"), "3 dice seen: roll both dice"),
        (roll("d6:7", "d6:1"), "no face 7"),
        (roll("red:star", "d6:1"), "not a die of this game"),
        (action(3, "bank"), "no player 4"),
        (action(-1, "bank"), "table cannot bank"),
        (action(0, "pass"), "no action 'pass'"),
        ({"type": "correct"}, "type 'correct'"),
        (action("0", "bank"), "seat number"),
    ]
    for ev, message in cases:
        with pytest.raises(RuleError, match=message):
            bank.apply(s, ev)
        assert s == before


def test_apply_never_mutates_its_input_and_states_are_json():
    s = game()
    for ev in (*PHASE1, bank_(0), r(5, 5), r(2, 2), bank_(1), r(6, 1)):
        before = copy.deepcopy(s)
        after = bank.apply(s, ev)
        assert s == before
        assert json.loads(json.dumps(after)) == after
        s = after


def test_roll_spec_and_dice_order_do_not_matter():
    s = game()
    spec = bank.expect(s).roll
    assert spec.dice == ("d6", "d6") and spec.count == 2 and spec.dice_set == "d6"
    check_roll(spec, [("d6", "6"), ("d6", "1")], LAYOUT)
    a, b = bank.apply(s, r(6, 1)), bank.apply(s, r(1, 6))
    assert a["last"]["dice"] == ["d6:6", "d6:1"]  # shown as seen
    a["last"].pop("dice"), b["last"].pop("dice")
    assert a == b


def test_new_game_checks_players_and_layout():
    with pytest.raises(RuleError, match="2 to 10 players"):
        bank.new_game(["Solo"], LAYOUT)
    with pytest.raises(RuleError, match="2 to 10 players"):
        bank.new_game([f"P{i}" for i in range(11)], LAYOUT)
    with pytest.raises(RuleError, match="same name"):
        bank.new_game(["Ann", "Ann"], LAYOUT)
    with pytest.raises(RuleError, match="no die"):
        bank.new_game(PLAYERS, {"red": ["1"] * 6})
    with pytest.raises(RuleError, match="face 'star'"):
        bank.new_game(PLAYERS, {"d6": ["1", "2", "3", "4", "5", "star"]})


def test_summary_has_the_replay_keys():
    s = play(game(), *PHASE1, bank_(2))
    summ = bank.summary(s)
    for key in ("game", "players", "round", "active", "finished", "winner"):
        assert key in summ
    assert summ["game"] == "bank" and summ["active"] == "Ann" and summ["winner"] is None
    assert summ["banked"] == ["Cy"] and summ["total"] == 20
    assert json.loads(json.dumps(summ)) == summ


def test_prompts_say_what_happens_next():
    s = game({"rounds": 10})
    assert bank.expect(s).prompt == (
        "Round 1 of 10, roll 1 (phase 1, no banking yet): Ann, roll both dice"
    )
    s = play(s, *PHASE1)
    assert bank.expect(s).prompt == (
        "Round 1 of 10, roll 4: total 20. Ann, roll both dice (a 7 ends the round); "
        "press your button to BANK 20"
    )
