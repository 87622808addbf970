"""Rollers rules engine: one scenario per reading of tray/rules/RULES.md section 5 (#5-rollers),
plus the option."""

from __future__ import annotations

import json

import pytest

from tray.rules import engine
from tray.rules.engine import RuleError
from tray.rules.games import rollers as g
from vision import dicesets

LAYOUT = dicesets.load("rollers").layout()
EM, OP, CL = "empty", "open", "closed"


def R(*wild: str, black: str | None = None) -> dict:
    """A roll event: the wild dice faces, then the black die's face if it is rolled."""
    dice = [f"wild:{f}" for f in wild] + ([f"black:{black}"] if black else [])
    return engine.roll(*dice)


def play(state: dict, *events: dict) -> dict:
    for event in events:
        state = g.apply(state, event)
    return state


def started(n: int = 3, first: int = 0, options: dict | None = None) -> dict:
    """A game whose start roll-off made seat ``first`` the first player."""
    s = g.new_game([f"P{i}" for i in range(n)], LAYOUT, options)
    for seat in range(n):
        s = g.apply(s, R("5" if seat == first else "2"))
    assert s["active"] == first and s["phase"] == "turn"
    return s


def setup(state: dict, boards: dict[int, list[str]] | None = None, chips=None, scores=None):
    """Scenario set-up: a copy of ``state`` with these boards, chip values and points."""
    s = engine.copy_state(state)
    for seat, board in (boards or {}).items():
        s["boards"][seat] = list(board)
    if chips is not None:
        s["chips"] = list(chips)
    if scores is not None:
        s["scores"] = list(scores)
    return s


def stop(seat: int = 0) -> dict:
    return engine.action(seat, "stop")


def close_the_5s(state: dict, seat: int = 0) -> dict:
    """``seat`` (with the 5s open) closes them with a single 5 and applies nothing else: the
    5 is saved, the next roll is a ZAP, and the player stops."""
    return play(
        state,
        R("5", "1", "2", "3", "4", black="2"),
        engine.action(seat, "save", dice=[0]),
        R("1", "1", "1", "1", black="zap"),
        stop(seat),
    )


def choice_of(state: dict, **fields) -> dict:
    """The offered choice with these fields (fails if the engine does not offer it)."""
    (decision,) = g.expect(state).decisions
    found = [c for c in decision.choices if all(c.get(k) == v for k, v in fields.items())]
    assert found, f"no choice with {fields} in {decision.choices}"
    return found[0]


# ------------------------------------------------------------------------------ set-up


def test_two_to_five_players_each_with_a_board_of_five_sections_and_55_chips():
    """5.1: 2-5 players; every round each has a board of sections 1..5 (empty, open, closed) and
    chips worth 55."""
    s = g.new_game(["A", "B", "C", "D", "E"], LAYOUT)
    assert s["boards"] == [[EM] * 5] * 5 and s["chips"] == [55] * 5
    for n in (1, 6):
        with pytest.raises(RuleError, match="2 to 5 players"):
            g.new_game([f"P{i}" for i in range(n)], LAYOUT)


def test_start_every_player_rolls_one_die_high_roller_goes_first():
    """5.2: everyone rolls one die; the highest number begins."""
    s = g.new_game(["Ann", "Ben", "Cy"], LAYOUT)
    e = g.expect(s)
    assert e.roll.purpose == "start" and e.roll.count == 1
    assert e.roll.choose_from == ("wild", "black") and e.roll.dice is None
    s = play(s, R("3"), R(black="4"), R("2"))
    assert s["active"] == 1 and s["starter"] == 1 and s["last"]["kind"] == "first"
    assert g.expect(s).prompt == "Ben: roll all six dice (roll 1 of 3)"


def test_start_ties_roll_again_star_and_zap_count_as_six():
    """5.2: tied players roll again; a STAR or ZAP stands for the 6 and counts as 6 here."""
    s = g.new_game(["Ann", "Ben", "Cy"], LAYOUT)
    s = play(s, R("star"), R("5"), R(black="zap"))
    assert s["last"]["kind"] == "start_tie" and s["last"]["tied"] == [0, 2]
    assert g.expect(s).roll.roller == 0 and "again" in g.expect(s).prompt
    s = play(s, R("1"), R("4"))
    assert s["active"] == 2 and s["phase"] == "turn"


def test_play_goes_clockwise():
    """5.2: play goes clockwise (the next seat in the list)."""
    s = started(3, first=2)
    order = []
    for _ in range(4):
        order.append(s["active"])
        s = play(s, R("1", "1", "2", "2", "3", black="4"), stop(s["active"]))
    assert order == [2, 0, 1, 2]


# ------------------------------------------------------------------------------ rolling


def test_a_turn_has_up_to_three_rolls_the_first_with_all_six_dice():
    """5.3: a turn is at most three rolls; the first uses all six dice."""
    s = started()
    e = g.expect(s)
    assert e.roll.dice == ("wild",) * 5 + ("black",) and e.roll.purpose == "turn"
    with pytest.raises(RuleError):
        g.apply(s, R("1", "2", "3", "4", "5"))  # the black die is missing
    s = play(s, R("4", "4", "2", "2", "3", black="5"), engine.action(0, "save", dice=[]))
    assert g.expect(s).roll.purpose == "reroll" and "roll 2 of 3" in g.expect(s).prompt
    s = play(s, R("4", "4", "2", "2", "3", black="5"), engine.action(0, "save", dice=[]))
    s = g.apply(s, R("4", "4", "2", "2", "3", black="5"))
    # the third roll ends the rolling: the dice are applied (no STAR: one way only)
    assert s["last"]["kind"] == "apply" and s["active"] == 1
    assert s["boards"][0] == [EM, OP, EM, EM, EM]  # two 2s open the 2s


def test_saved_dice_stay_saved_and_the_rest_are_rolled():
    """5.3 and 5.4: after rolls 1 and 2 the player saves dice (saved for the rest of the turn) and
    rolls the others; saved dice are set aside, the camera sees the rest."""
    s = started()
    s = play(s, R("3", "3", "1", "5", "2", black="3"))
    s = g.apply(s, engine.action(0, "save", dice=[0, 1, 5]))
    assert s["turn"]["saved"] == ["wild:3", "wild:3", "black:3"]
    e = g.expect(s)
    assert e.roll.dice == ("wild", "wild", "wild") and "the 3 dice not saved" in e.prompt
    with pytest.raises(RuleError):
        g.apply(s, R("3", "3", "3", "1", "1", black="2"))  # all six: saved ones are out
    s = play(s, R("3", "1", "4"), engine.action(0, "save", dice=[0]))
    assert s["turn"]["saved"] == ["wild:3", "wild:3", "black:3", "wild:3"]
    assert g.expect(s).roll.dice == ("wild", "wild")
    s = g.apply(s, R("1", "2"))
    assert s["boards"][0] == [OP, EM, CL, EM, EM]  # four 3s open and close the 3s, a 1 opens 1s


def test_stop_early_applies_saved_and_last_roll():
    """5.3: the player may stop early: the saved dice and the last roll are applied."""
    s = started()
    s = play(s, R("1", "1", "2", "2", "2", black="4"))
    (d,) = g.expect(s).decisions
    assert engine.action(0, "stop") in d.choices
    s = g.apply(s, stop())
    assert s["boards"][0] == [CL, CL, EM, EM, EM] and s["turn"]["rolls"] == 0
    assert s["active"] == 1


def test_save_choices_are_distinct_sets_and_saving_everything_is_stopping():
    """5.4: the choices are the distinct save sets (dice showing the same face are interchangeable);
    saving everything is stopping."""
    s = play(started(), R("2", "2", "2", "2", "2", black="2"))
    (d,) = g.expect(s).decisions
    saves = [c["dice"] for c in d.choices if c["action"] == "save"]
    # five wild 2s: keep 0..5 of them (all five kept still rolls the black die), black kept
    # or not; saving all six is "stop"
    assert len(saves) == 11 and [] in saves and [0, 1, 2, 3, 4] in saves
    assert len(g.expect(s).detail["labels"]) == len(d.choices)
    # saving every die is not offered, and refused (before: taken, and journalled as a save)
    assert [0, 1, 2, 3, 4, 5] not in saves
    with pytest.raises(RuleError, match="Saving every die is stopping: choose stop"):
        g.apply(s, engine.action(0, "save", dice=[0, 1, 2, 3, 4, 5]))
    with pytest.raises(RuleError, match="Saving every die is stopping"):
        g.apply(s, engine.action(0, "save", dice=[5, 4, 3, 2, 1, 0]))
    s2 = g.apply(s, engine.action(0, "stop"))
    assert s2["last"]["kind"] == "apply" and s2["active"] == 1
    s = play(started(), R("1", "2", "3", "4", "5", black="1"))
    assert len(g.expect(s).decisions[0].choices) == 2**6 - 1 + 1


def test_zap_nothing_rolled_with_it_is_saved_or_applied_counts_as_a_roll():
    """5.5: a roll showing the ZAP cancels itself: nothing thrown in it, the black die included, may
    be saved or applied; dice saved earlier are untouched; the roll still counts as one of the
    three."""
    s = started()
    s = g.apply(s, R("1", "1", "2", "2", "2", black="zap"))
    assert s["last"]["kind"] == "zap"
    e = g.expect(s)
    (d,) = e.decisions
    assert d.choices == (engine.action(0, "save", dice=[]), engine.action(0, "stop"))
    assert e.prompt.startswith("ZAP!")
    with pytest.raises(RuleError, match="ZAP"):
        g.apply(s, engine.action(0, "save", dice=[0]))
    s = g.apply(s, engine.action(0, "save", dice=[]))
    assert g.expect(s).roll.dice == ("wild",) * 5 + ("black",)
    s = play(s, R("3", "3", "3", "4", "5", black="1"), engine.action(0, "save", dice=[0, 1, 2]))
    assert s["turn"]["rolls"] == 2
    s = g.apply(s, R("1", "1", black="zap"))  # the third roll: a ZAP
    # only the saved 3s count: open the 3s; the 1s rolled with the ZAP are not applied
    assert s["last"]["kind"] == "apply" and s["last"]["zap"] is True
    assert s["boards"][0] == [EM, EM, OP, EM, EM]


def test_zap_then_stop_applies_only_the_dice_saved_before():
    """5.5: dice saved before a ZAP are untouched."""
    s = started()
    s = play(s, R("2", "2", "2", "5", "5", black="4"), engine.action(0, "save", dice=[0, 1, 2]))
    s = play(s, R("1", "1", black="zap"), stop())
    assert s["boards"][0] == [EM, CL, EM, EM, EM]


def test_black_die_saved_on_a_number_cannot_zap_later():
    """5.5: a black die saved on a number cannot zap later."""
    s = started()
    s = play(s, R("1", "2", "3", "4", "5", black="3"), engine.action(0, "save", dice=[5]))
    assert g.expect(s).roll.dice == ("wild",) * 5
    with pytest.raises(RuleError):
        g.apply(s, R("1", "2", "3", "4", black="zap"))
    s = g.apply(s, R("3", "3", "2", "4", "5"))
    assert s["last"]["kind"] == "roll" and s["turn"]["saved"] == ["black:3"]


# ------------------------------------------------------------------------------ applying


def test_star_value_is_chosen_when_applying():
    """5.6: a STAR is any number 1..5, decided when the dice are applied."""
    s = play(started(), R("star", "2", "4", "4", "4", black="1"), stop())
    e = g.expect(s)
    (d,) = e.decisions
    assert d.actions == ("apply",)
    assert all(len(c["stars"]) == 1 for c in d.choices)
    with pytest.raises(RuleError, match="STAR a value from 1 to 5"):
        g.apply(s, engine.action(0, "apply", stars=[6]))
    s = g.apply(s, engine.action(0, "apply", stars=[2]))
    assert s["boards"][0] == [OP, OP, EM, EM, EM] and s["last"]["stars"] == [2]


def test_open_section_k_with_k_dice_of_value_k():
    """5.6: k dice showing k open section k."""
    s = play(started(), R("4", "4", "4", "4", "3", black="3"), stop())
    assert s["boards"][0] == [EM, EM, EM, OP, EM]  # four 4s open; two 3s are not enough


def test_close_an_open_section_with_one_die_of_value_k():
    """5.6: one die showing k closes an open section k."""
    s = setup(started(), {0: [OP, EM, OP, EM, EM]})
    s = play(s, R("1", "3", "2", "5", "5", black="4"), stop())
    assert s["boards"][0] == [CL, EM, CL, EM, EM]  # rulebook example 2 (first part)


def test_open_and_close_in_one_turn_with_k_plus_1_dice():
    """5.6: k + 1 dice open and close section k in one turn."""
    s = setup(started(), {0: [OP, EM, OP, EM, EM]})
    s = play(s, R("1", "3", "2", "2", "2", black="4"), stop())
    # rulebook example 2: 1 and 3 close, three 2s open and close 2s, the 4 is not used
    assert s["boards"][0] == [CL, CL, CL, EM, EM]
    assert s["last"]["opened"] == [2] and s["last"]["closed"] == [1, 2, 3]
    assert s["last"]["unused"] == 1


def test_each_die_of_a_closed_value_collects_k_chips_from_every_player_not_closed():
    """5.6: every die showing k whose section is closed (earlier, or in this same apply) takes k
    chips from each other player who has not closed k."""
    s = setup(started(3), {0: [EM, EM, CL, EM, EM], 2: [EM, EM, CL, EM, EM]})
    s = play(s, R("3", "3", "1", "5", "5", black="4"), stop())
    assert s["chips"] == [55 + 6, 55 - 6, 55]  # P2 has closed 3s: pays nothing
    # closed by this same apply: 1 opens, 1 closes, the third 1 collects
    s = setup(s, chips=[55, 55, 55])
    s = play(s, R("1", "1", "1", "2", "4", black="5"), stop(1))
    assert s["boards"][1][0] == CL and s["chips"] == [54, 57, 54]


def test_a_player_pays_what_they_have_down_to_0():
    """5.6: a player pays what they have, down to 0."""
    s = setup(started(3), {0: [EM, EM, EM, EM, CL]}, chips=[55, 2, 55])
    s = play(s, R("5", "1", "2", "3", "4", black="1"), stop())
    assert s["chips"] == [55 + 2 + 5, 0, 50]
    assert s["last"]["paid"] == {"1": 2, "2": 5}


def test_a_player_with_0_chips_can_no_longer_collect():
    """5.6: a player with no chips left cannot collect any more."""
    s = setup(started(3), {0: [EM, EM, EM, EM, CL]}, chips=[0, 55, 55])
    s = play(s, R("5", "5", "1", "3", "4", black="1"), stop())
    assert s["chips"] == [0, 55, 55] and s["last"]["gained"] == 0


def test_dice_that_fit_nothing_are_not_used():
    """5.6: dice that fit nowhere are left unused."""
    s = play(started(), R("2", "3", "4", "4", "5", black="5"), stop())
    assert s["boards"][0] == [EM] * 5 and s["chips"] == [55] * 3
    assert s["last"]["unused"] == 6 and s["active"] == 1


def test_engine_proposes_the_best_use_and_offers_the_others():
    """5.6: the screen proposes the best use of the dice and lets the player pick another. The
    rulebook's third example: with 1s-3s closed, 3, 4, 4, 4, STAR, 5: the STAR as a 4 opens the 4s
    (proposed), or as another 3 collects more chips."""
    s = setup(started(3), {0: [CL, CL, CL, EM, EM]})
    s = play(s, R("3", "4", "4", "4", "star", black="5"), stop())
    (d,) = g.expect(s).decisions
    assert d.default == engine.action(0, "apply", stars=[4])
    assert sorted(c["stars"][0] for c in d.choices) == [1, 2, 3, 4, 5]
    labels = g.expect(s).detail["labels"]
    assert labels[0].startswith("STAR as 4; open 4s; collect 6 chips")
    s2 = g.apply(s, d.default)
    assert s2["boards"][0] == [CL, CL, CL, OP, EM] and s2["chips"] == [61, 52, 52]
    s3 = g.apply(s, choice_of(s, stars=[3]))
    assert s3["boards"][0] == [CL, CL, CL, EM, EM] and s3["chips"] == [67, 49, 49]


def test_best_plan_rulebook_example_1_star_as_3_opens_1s_and_3s():
    """Rulebook example 1: 1, 3, 3, STAR (+ 4, 5): open the 1s and 3s with the STAR as a 3."""
    s = play(started(), R("1", "3", "3", "star", "4", black="5"), stop())
    assert g.expect(s).decisions[0].default == engine.action(0, "apply", stars=[3])


def test_default_save_keeps_useful_dice_and_stars():
    """The default save (documented in the module): STARs and the dice of the value closest to
    opening a section are kept, the rest is rolled again."""
    s = play(started(), R("4", "4", "4", "star", "1", black="2"))
    d = g.expect(s).decisions[0]
    # 1s: one die opens the 1s (ratio 1/1) -> the 1 is the target; 4s have 3 of 4 needed
    assert d.default["action"] == "save"
    assert set(d.default["dice"]) >= {3, 4}
    s = play(started(), R("5", "5", "5", "5", "5", black="4"))
    d = g.expect(s).decisions[0]
    assert d.default == engine.action(0, "save", dice=[0, 1, 2, 3, 4])


def test_default_stops_when_the_dice_close_the_board():
    """Default: stop when the dice already close every section."""
    s = setup(started(), {0: [CL, CL, CL, CL, OP]})
    s = g.apply(s, R("5", "1", "2", "2", "3", black="4"))
    assert g.expect(s).decisions[0].default == stop()


# ------------------------------------------------------------------------------ round end


def test_round_ends_when_a_player_closes_all_five_closer_scores_2_highest_chips_1():
    """5.7: the round ends when a player closes all five sections: 2 points to them (1 if they hold
    no chips), 1 point to the highest chip value."""
    s = setup(started(3), {0: [CL, CL, CL, CL, OP]}, chips=[55, 60, 50])
    s = close_the_5s(s)
    assert s["last"]["round_over"] is True
    assert s["last"]["round_end"]["points"] == [2, 1, 0]
    assert s["last"]["round_end"]["chips"] == [55, 60, 50]
    assert s["scores"] == [2, 1, 0]


def test_closer_with_no_chips_scores_only_1():
    """5.7: a closer holding no chips scores 1."""
    s = setup(started(3), {0: [CL, CL, CL, CL, OP]}, chips=[0, 60, 105])
    s = close_the_5s(s)
    assert s["scores"] == [1, 0, 1]


def test_every_player_tied_for_the_highest_chip_value_scores_1():
    """5.7: every player tied for the highest chip value scores the point."""
    s = setup(started(3), {0: [CL, CL, CL, CL, OP]}, chips=[55, 55, 55])
    s = close_the_5s(s)
    assert s["scores"] == [3, 1, 1]


def test_boards_and_chips_reset_and_the_player_to_the_right_starts_the_next_round():
    """5.7 and 5.2: boards and chips reset for the next round, which the player to the right of the
    previous starter opens."""
    s = setup(started(3, first=1), {2: [CL, CL, CL, CL, OP]}, chips=[40, 60, 65])
    s = play(s, R("1", "1", "1", "2", "3", black="3"), stop(1))  # P1 (the starter)
    s = close_the_5s(s, 2)  # P2 closes everything
    assert s["round"] == 2
    assert s["boards"] == [[EM] * 5] * 3 and s["chips"] == [55] * 3
    assert s["starter"] == 0 and s["active"] == 0  # to the right of P1 is P0
    assert g.expect(s).roll.dice == ("wild",) * 5 + ("black",)


# ------------------------------------------------------------------------------ game end


def test_first_to_5_points_wins():
    """5.8: the first to 5 points wins."""
    s = setup(started(3), {0: [CL, CL, CL, CL, OP]}, chips=[70, 50, 45], scores=[3, 4, 4])
    s = close_the_5s(s)
    assert s["finished"] and s["scores"] == [6, 4, 4]
    assert g.summary(s)["winner"] == "P0" and g.expect(s).prompt == "Game over: P0 wins"
    with pytest.raises(RuleError, match="game is over"):
        g.apply(s, R("1", "2", "3", "4", "5", black="1"))


def test_several_reaching_the_target_together_higher_chip_value_wins():
    """5.8: several reaching the target together: the higher chip value wins."""
    s = setup(started(3), {0: [CL, CL, CL, CL, OP]}, chips=[50, 60, 45], scores=[4, 4, 0])
    s = close_the_5s(s)
    assert s["scores"] == [6, 5, 0]
    assert g.summary(s)["winner"] == "P1"  # 60 chips beat 55 (after collecting nothing)


def test_several_reaching_the_target_with_equal_chips_share_the_win():
    """5.8: equal chips as well: a shared win."""
    s = setup(started(3), {0: [CL, CL, CL, CL, OP]}, chips=[55, 55, 55], scores=[4, 4, 2])
    s = close_the_5s(s)
    assert g.summary(s)["winner"] == ["P0", "P1"]
    assert "share the win" in g.expect(s).prompt


def test_option_target_points():
    """5.8, option target: 3 to 5 points."""
    s = setup(started(2, options={"target": 3}), {0: [CL, CL, CL, CL, OP]}, chips=[60, 50])
    s = close_the_5s(s)
    assert s["scores"] == [3, 0] and s["finished"]
    for bad in (2, 6, "5"):
        with pytest.raises(RuleError, match="target must be 3, 4 or 5"):
            g.new_game(["A", "B"], LAYOUT, {"target": bad})


# ------------------------------------------------------------------------------ refusals


def test_refused_events_name_what_to_do_and_leave_the_state_unchanged():
    s = play(started(), R("1", "2", "3", "4", "5", black="1"))
    before = json.dumps(s, sort_keys=True)
    with pytest.raises(RuleError, match="P0's choice"):
        g.apply(s, engine.action(1, "stop"))
    with pytest.raises(RuleError, match="places in the last roll"):
        g.apply(s, engine.action(0, "save", dice=[6]))
    with pytest.raises(RuleError, match="No roll now"):
        g.apply(s, R("1"))
    assert json.dumps(s, sort_keys=True) == before


def test_summary_has_boards_chips_and_points():
    s = setup(started(2), {0: [CL, EM, OP, EM, EM]}, chips=[50, 60])
    summary = g.summary(s)
    assert set(summary) >= {"game", "players", "round", "active", "finished", "winner"}
    assert summary["boards"]["P0"] == {"1": CL, "2": EM, "3": OP, "4": EM, "5": EM}
    assert summary["chips"] == {"P0": 50, "P1": 60} and summary["points"] == {"P0": 0, "P1": 0}
    json.dumps(s)


def test_apply_takes_exactly_the_saves_expect_offers():
    """Every subset of the last roll's dice: apply takes it when expect offers a save of the
    same faces (dice showing one face are interchangeable), and refuses every other, so
    nothing reaches the journal as a save that the table could not have offered."""
    from itertools import combinations

    for dice in (R("2", "2", "3", "4", "4", black="1"), R("1", "2", "3", "5", "5", black="2")):
        s = play(started(), dice)
        roll = s["turn"]["last_roll"]
        offered = {
            tuple(sorted(roll[i] for i in c["dice"]))
            for c in g.expect(s).decisions[0].choices
            if c["action"] == "save"
        }
        for k in range(len(roll) + 1):
            for idx in combinations(range(len(roll)), k):
                faces = tuple(sorted(roll[i] for i in idx))
                event = engine.action(0, "save", dice=list(idx))
                if faces in offered:
                    assert g.apply(s, event)["turn"]["saved"] == [roll[i] for i in idx]
                else:
                    assert k == len(roll)
                    with pytest.raises(RuleError):
                        g.apply(s, event)
    # the last die of a turn: only roll it or stop
    s = play(started(), R("3", "3", "3", "4", "5", black="1"))
    s = play(s, engine.action(0, "save", dice=[0, 1, 2, 3, 4]), engine.roll("black:2"))
    assert [c for c in g.expect(s).decisions[0].choices if c["action"] == "save"] == [
        engine.action(0, "save", dice=[])
    ]
    with pytest.raises(RuleError, match="Saving every die is stopping"):
        g.apply(s, engine.action(0, "save", dice=[0]))
