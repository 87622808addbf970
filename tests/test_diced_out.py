"""DICEDOUT! rules engine: one scenario per reading of tray/rules/RULES.md section 4 (#4-dicedout),
plus the options."""

from __future__ import annotations

import json

import pytest

from tray.rules import engine
from tray.rules.engine import RuleError
from tray.rules.games import diced_out as g
from vision import dicesets

LAYOUT = dicesets.load("d6").layout()
NUMBERS = list(range(2, 13))


def dice(total: int) -> dict:
    """A roll of both dice showing ``total``."""
    a = 1 if total <= 7 else 6
    return engine.roll(f"d6:{a}", f"d6:{total - a}")


def play(state: dict, *events: dict) -> dict:
    for event in events:
        state = g.apply(state, event)
    return state


def started(n: int = 2, first: int = 0, options: dict | None = None) -> dict:
    """A game whose start roll-off made seat ``first`` the first player."""
    s = g.new_game([f"P{i}" for i in range(n)], LAYOUT, options)
    for seat in range(n):
        s = g.apply(s, dice(12 if seat == first else 3))
    assert s["active"] == first and s["phase"] == "turn"
    return s


def with_marks(state: dict, marks: dict[int, list[int]]) -> dict:
    """Scenario set-up: a copy of ``state`` with these numbers already marked."""
    s = engine.copy_state(state)
    for seat, numbers in marks.items():
        s["marks"][seat] = sorted(numbers)
    return s


# ------------------------------------------------------------------------------ dice and sheet


def test_sheet_lists_sums_2_to_12_circled_2_and_12_three_rerolls():
    """Section 4, the score sheet (proposal): each round lists the sums 2..12; the •• numbers are 2
    and 12 (option); 3 rerolls per player per round."""
    s = g.new_game(["Ann", "Ben"], LAYOUT)
    assert g.OPTIONS == {"circled": [2, 12], "rerolls": 3, "rounds": 4}
    assert s["rerolls"] == [3, 3]
    assert g.expect(s).detail["unmarked_total"] == [sum(NUMBERS)] * 2 == [77, 77]
    assert g.expect(s).roll.dice == ("d6", "d6")


# ------------------------------------------------------------------------------ start


def test_start_every_player_rolls_both_dice_highest_total_goes_first():
    """4.1: everyone rolls both dice; the highest sum begins."""
    s = g.new_game(["Ann", "Ben", "Cy"], LAYOUT)
    rollers = []
    for total in (5, 11, 8):
        e = g.expect(s)
        assert e.roll.purpose == "start" and e.roll.dice == ("d6", "d6")
        rollers.append(e.roll.roller)
        s = g.apply(s, dice(total))
    assert rollers == [0, 1, 2]
    assert s["active"] == 1 and s["last"]["kind"] == "first"
    assert g.expect(s).prompt == "Ben: roll both dice"


def test_start_tie_among_the_highest_rolls_again_among_the_tied():
    """4.1: players tied for the highest roll again among themselves."""
    s = g.new_game(["Ann", "Ben", "Cy"], LAYOUT)
    s = play(s, dice(10), dice(4), dice(10))
    assert s["last"]["kind"] == "start_tie" and s["last"]["tied"] == [0, 2]
    e = g.expect(s)
    assert e.roll.roller == 0 and "again" in e.prompt
    s = g.apply(s, dice(6))
    assert g.expect(s).roll.roller == 2  # Ben is out of the roll-off
    s = g.apply(s, dice(9))
    assert s["phase"] == "turn" and s["active"] == 2


def test_play_goes_left_clockwise():
    """4.1: play goes to the left, clockwise (the next seat)."""
    s = started(4, first=2)
    order = []
    for total in (4, 5, 6, 7, 8):
        order.append(s["active"])
        s = g.apply(s, dice(total))
    assert order == [2, 3, 0, 1, 2]


# ------------------------------------------------------------------------------ a turn


def test_unmarked_sum_is_marked_and_the_turn_ends():
    """4.2: a sum not yet marked is marked and the turn ends."""
    s = started()
    s = g.apply(s, engine.roll("d6:3", "d6:4"))
    assert s["marks"][0] == [7]
    assert s["last"]["kind"] == "mark" and s["last"]["number"] == 7
    assert s["active"] == 1 and s["rerolls"] == [3, 3]


def test_marked_sum_uses_a_reroll_automatically_in_the_same_turn():
    """4.2: a sum already marked spends a reroll at once and the same player rolls again, while
    rerolls are left."""
    s = with_marks(started(), {0: [7]})
    s = g.apply(s, dice(7))
    assert s["active"] == 0 and s["rerolls"][0] == 2
    assert s["last"] == {
        "kind": "reroll",
        "player": 0,
        "dice": ["d6:1", "d6:6"],
        "sum": 7,
        "left": 2,
    }
    e = g.expect(s)
    assert e.roll.roller == 0 and e.roll.purpose == "reroll"
    assert e.prompt.startswith("P0 rolled a marked 7: reroll")
    s = play(s, dice(7), dice(7))  # two more rerolls used, still P0's turn
    assert s["active"] == 0 and s["rerolls"][0] == 0
    s = g.apply(s, dice(8))
    assert s["marks"][0] == [7, 8] and s["active"] == 1 and s["rerolls"][0] == 0


def test_no_reroll_left_is_diced_out_scoring_unmarked_numbers_and_no_more_turns():
    """4.2: with no reroll left the player is DICEDOUT! for the round: the round score is the sum of
    the unmarked numbers, and no more turns in it."""
    s = with_marks(started(3), {0: [6, 7, 8]})
    s["rerolls"][0] = 0
    s = g.apply(s, dice(7))
    assert s["last"]["kind"] == "diced_out" and s["last"]["score"] == 77 - 21
    assert s["out"][0] == "diced_out" and s["round_scores"][0] == [56]
    assert s["active"] == 1
    s = play(s, dice(4), dice(5))  # P1, P2 mark; the turn skips P0
    assert s["active"] == 1
    s = play(s, dice(6), dice(9))
    assert s["active"] == 1 and s["marks"][0] == [6, 7, 8]


def test_double_circle_number_marks_one_more_chosen_default_highest_unmarked():
    """4.3: rolling an unmarked •• number marks it, then the player marks one more unmarked number
    of their choice (the highest unmarked number is offered first; another may be chosen)."""
    s = with_marks(started(), {0: [11]})
    s = g.apply(s, dice(12))
    assert s["marks"][0] == [11, 12] and s["phase"] == "bonus"
    e = g.expect(s)
    (d,) = e.decisions
    assert d.player == 0 and e.roll is None
    assert [c["number"] for c in d.choices] == [10, 9, 8, 7, 6, 5, 4, 3, 2]
    assert d.default == engine.action(0, "mark", number=10)
    assert "choose one more number" in e.prompt
    with pytest.raises(RuleError, match="cannot be marked"):
        g.apply(s, engine.action(0, "mark", number=11))
    s = g.apply(s, engine.action(0, "mark", number=4))  # another than the suggestion
    assert s["marks"][0] == [4, 11, 12] and s["active"] == 1
    assert s["last"]["kind"] == "bonus_mark" and s["last"]["number"] == 4


def test_double_circle_bonus_with_one_number_left_marks_it_at_once():
    """4.3: with one number left there is no choice: it is marked at once."""
    s = with_marks(started(), {0: [n for n in NUMBERS if n not in (2, 9)]})
    s = g.apply(s, dice(2))
    assert s["marks"][0] == NUMBERS and s["out"][0] == "complete"
    assert s["last"]["kind"] == "bonus_mark" and s["last"]["auto"] is True


def test_player_who_marks_every_number_scores_zero_and_takes_no_more_turns():
    """4.4: a player who has marked every number scores 0 for the round and takes no more turns in
    it."""
    s = with_marks(started(3), {0: [n for n in NUMBERS if n != 6]})
    s = g.apply(s, dice(6))
    assert s["out"][0] == "complete" and s["round_scores"][0] == [0]
    assert s["last"]["complete"] is True
    s = play(s, dice(4), dice(5))
    assert s["active"] == 1


# ------------------------------------------------------------------------------ round end


def _finish_round(s: dict, marks: dict[int, list[int]], rolled: dict[int, int]) -> dict:
    """Everyone DICEDOUT!: each seat has ``marks`` and no rerolls, then rolls ``rolled``."""
    s = with_marks(s, marks)
    s["rerolls"] = [0] * len(s["players"])
    for seat in range(len(s["players"])):
        assert s["active"] == seat
        s = g.apply(s, dice(rolled[seat]))
    return s


def test_round_ends_when_every_player_is_diced_out_or_complete():
    """4.5: the round ends when every player is DICEDOUT! or has marked everything."""
    s = with_marks(started(3), {1: [n for n in NUMBERS if n != 5]})
    s["rerolls"] = [0, 0, 0]
    s = with_marks(s, {0: [7], 2: [7]})
    s = g.apply(s, dice(7))  # P0 DICEDOUT!
    assert not s["last"].get("round_over")
    s = g.apply(s, dice(5))  # P1 complete
    assert not s["last"].get("round_over") and s["active"] == 2
    s = g.apply(s, dice(7))  # P2 DICEDOUT!: everyone is out
    assert s["last"]["round_over"] is True
    assert s["last"]["round_end"]["scores"] == [70, 0, 70]
    assert s["scores"] == [70, 0, 70]


def test_lowest_round_score_starts_next_round_and_picks_another_player_to_lose_a_reroll():
    """4.5: the lowest round score starts the next round and chooses another player (never
    themselves) who has one reroll fewer in it."""
    s = _finish_round(started(3), {0: [7], 1: [2, 3, 4, 7], 2: [7, 8]}, {0: 7, 1: 7, 2: 7})
    assert s["phase"] == "penalty" and s["active"] == 1 and s["round"] == 1
    e = g.expect(s)
    (d,) = e.decisions
    assert [c["target"] for c in d.choices] == [0, 2]
    assert d.default == engine.action(1, "penalize", target=2)  # the leader: lowest total
    assert "P1 starts round 2" in e.prompt
    with pytest.raises(RuleError, match="not yourself"):
        g.apply(s, engine.action(1, "penalize", target=1))
    s = g.apply(s, engine.action(1, "penalize", target=0))
    assert s["round"] == 2 and s["active"] == 1 and s["phase"] == "turn"
    assert s["rerolls"] == [2, 3, 3] and s["marks"] == [[], [], []]
    assert s["last"]["kind"] == "penalty" and s["last"]["target"] == 0


def test_two_players_the_only_other_player_loses_the_reroll_at_once():
    """4.5: with two players there is nobody else to choose: the other loses the reroll at once."""
    s = _finish_round(started(2), {0: [7], 1: [2, 7]}, {0: 7, 1: 7})
    assert s["round"] == 2 and s["active"] == 1 and s["rerolls"] == [2, 3]
    assert s["last"]["kind"] == "penalty" and s["last"]["auto"] is True
    assert s["last"]["round_end"]["scores"] == [70, 68]


def test_tie_for_lowest_round_score_tied_players_roll_highest_total_wins_ties_again():
    """4.5: tied lowest round scores roll both dice; the highest sum wins; a tie rolls again."""
    s = _finish_round(started(3), {0: [7, 12], 1: [7], 2: [7, 12]}, {0: 7, 1: 7, 2: 7})
    assert s["phase"] == "tiebreak" and s["last"]["round_end"]["lowest"] == [0, 2]
    e = g.expect(s)
    assert e.roll.roller == 0 and e.roll.purpose == "tiebreak"
    s = play(s, dice(8), dice(8))  # still tied: roll again
    assert s["phase"] == "tiebreak" and g.expect(s).roll.roller == 0
    assert "again" in g.expect(s).prompt
    s = play(s, dice(5), dice(9))
    assert s["phase"] == "penalty" and s["active"] == 2
    s = g.apply(s, engine.action(2, "penalize", target=1))
    assert s["round"] == 2 and s["active"] == 2 and s["rerolls"] == [3, 2, 3]


def test_after_round_4_lowest_total_wins():
    """4.6: after the last round the lowest total wins."""
    s = started(2)
    for rnd in range(1, 5):
        assert s["round"] == rnd and s["active"] == 0  # P0, lowest each round, starts
        s = with_marks(s, {0: [7, 2, 3], 1: [7]})
        s["rerolls"] = [0, 0]
        s = play(s, dice(7), dice(7))  # P0 scores 65, P1 70
    assert s["finished"] and g.expect(s).finished and s["round"] == 4
    assert s["scores"] == [260, 280]
    summary = g.summary(s)
    assert summary["winner"] == "P0" and summary["active"] is None
    assert summary["round_scores"] == {"P0": [65] * 4, "P1": [70] * 4}


def test_after_last_round_lowest_total_wins_example():
    """4.6: after the last round the lowest total wins: P1 with 0 beats P0 with 70 (rounds=1)."""
    s = started(2, options={"rounds": 1})
    s = with_marks(s, {0: [7], 1: [n for n in NUMBERS if n != 6]})
    s["rerolls"] = [0, 0]
    s = play(s, dice(7), dice(6))
    assert s["finished"] and s["scores"] == [70, 0]
    assert g.summary(s)["winner"] == "P1"
    assert g.expect(s).prompt == "Game over: P1 wins with 0"
    with pytest.raises(RuleError, match="game is over"):
        g.apply(s, dice(5))


def test_tie_for_lowest_total_is_a_shared_win():
    """4.6: tied lowest totals share the win."""
    s = started(3, options={"rounds": 1})
    s = _finish_round(s, {0: [7, 2], 1: [7], 2: [7, 2]}, {0: 7, 1: 7, 2: 7})
    assert s["finished"] and s["scores"] == [68, 70, 68]
    assert g.summary(s)["winner"] == ["P0", "P2"]
    assert "share the win" in g.expect(s).prompt


# ------------------------------------------------------------------------------ options


def test_option_circled_numbers():
    """Section 4, option circled: the •• numbers (here 7): rolling 7 gives the extra mark, 12 does
    not."""
    s = started(options={"circled": [7]})
    s = g.apply(s, dice(12))
    assert s["phase"] == "turn" and s["active"] == 1
    s = g.apply(s, dice(7))
    assert s["phase"] == "bonus" and g.expect(s).decisions[0].player == 1


def test_option_rerolls_per_round():
    """Section 4, option rerolls: rerolls per round (here 1)."""
    s = with_marks(started(options={"rerolls": 1}), {0: [7]})
    assert s["rerolls"] == [1, 1]
    s = g.apply(s, dice(7))
    assert s["last"]["kind"] == "reroll" and s["last"]["left"] == 0
    s = g.apply(s, dice(7))
    assert s["last"]["kind"] == "diced_out"


def test_option_rounds():
    """Section 4, option rounds: the number of rounds (here 2)."""
    s = started(2, options={"rounds": 2})
    s = _finish_round(s, {0: [7], 1: [7, 2]}, {0: 7, 1: 7})
    assert not s["finished"] and s["round"] == 2 and s["active"] == 1
    s = with_marks(s, {0: [7], 1: [7]})
    s["rerolls"] = [0, 0]
    s = play(s, dice(7), dice(7))
    assert s["finished"] and s["scores"] == [140, 138]


@pytest.mark.parametrize(
    "options, message",
    [
        ({"circled": [1]}, "circled"),
        ({"circled": [2, 2]}, "circled"),
        ({"rerolls": -1}, "rerolls"),
        ({"rounds": 0}, "rounds"),
        ({"colour": "red"}, "no option"),
    ],
)
def test_bad_options_are_refused_with_a_message(options, message):
    with pytest.raises(RuleError, match=message):
        g.new_game(["Ann", "Ben"], LAYOUT, options)


def test_player_count_two_to_eight():
    g.new_game([f"P{i}" for i in range(8)], LAYOUT)
    for n in (1, 9):
        with pytest.raises(RuleError, match="2 to 8 players"):
            g.new_game([f"P{i}" for i in range(n)], LAYOUT)
    with pytest.raises(RuleError, match="same name"):
        g.new_game(["Ann", "Ann"], LAYOUT)


# ------------------------------------------------------------------------------ refusals


def test_refused_events_name_what_to_do_and_leave_the_state_unchanged():
    s = started()
    before = json.dumps(s, sort_keys=True)
    with pytest.raises(RuleError, match="1 die seen: roll both dice"):
        g.apply(s, engine.roll("d6:3"))
    with pytest.raises(RuleError, match="no face"):
        g.apply(s, engine.roll("d6:7", "d6:1"))
    with pytest.raises(RuleError, match="No choice now: P0, roll both dice"):
        g.apply(s, engine.action(0, "mark", number=5))
    s2 = g.apply(with_marks(s, {0: [4]}), dice(12))
    with pytest.raises(RuleError, match="P0's choice"):
        g.apply(s2, engine.action(1, "mark", number=5))
    with pytest.raises(RuleError, match="No roll now"):
        g.apply(s2, dice(6))
    assert json.dumps(s, sort_keys=True) == before


def test_summary_has_sheets_and_state_is_json():
    s = with_marks(started(), {0: [3]})
    s = g.apply(s, dice(3))
    summary = g.summary(s)
    assert set(summary) >= {"game", "players", "round", "active", "finished", "winner"}
    assert summary["marks"] == {"P0": [3], "P1": []}
    assert summary["rerolls"] == {"P0": 2, "P1": 3}
    assert summary["active"] == "P0" and summary["winner"] is None
    json.dumps(s)
