"""What the screen shows, checked through the view model it draws (tray/screen/view.py)."""

from __future__ import annotations

import json
from dataclasses import asdict

from tray.screen.view import build_view, facts_words
from tray.table.memory import MemoryJournal
from tray.table.table import Table
from vision.types import DieReading, SettledRoll


def table_for(game, players=("Ana", "Ben", "Cy"), options=None) -> Table:
    return Table(MemoryJournal.create(None, game, list(players), options or {}, None))


def test_prompt_and_scores_come_from_the_game():
    t = table_for("bank", ("Ana", "Ben"))
    v = build_view(t, 0.0)
    assert v.prompt == t.expect().prompt
    assert v.title == "Bank" and v.screen == "play"
    assert [(r.name, r.score, r.active) for r in v.players] == [
        ("Ana", "0", True),
        ("Ben", "0", False),
    ]
    for i, dice in enumerate((["d6:2", "d6:3"], ["d6:4", "d6:1"], ["d6:6", "d6:2"])):
        t.roll(dice, float(i))
    t.press(1, 4.0)
    v = build_view(t, 4.0)
    assert v.players[1].score == "18" and v.players[1].tag == "banked"
    assert ("Total", "18") in v.totals
    assert [d.spec for d in v.roll] == ["d6:6", "d6:2"]


def test_who_has_chosen_is_shown_never_what():
    """IN/OUT in secret: the screen shows who has chosen, not what."""
    views = []
    for ben_presses in (1, 2):  # Ben IN, then a game where Ben is OUT
        t = table_for("tally-up")
        t.roll(["red:200", "blue:100", "yellow:150"], 0.0)
        t.press(0, 1.0)
        for _ in range(ben_presses):
            t.press(1, 1.0)
        views.append(build_view(t, 1.2))
    v = views[0]
    assert [r.chosen for r in v.players] == [True, True, False]
    assert all(r.awaited for r in v.players)
    assert "Ana, Ben" in v.chosen_text and "waiting for Cy" in v.chosen_text
    assert v.reveal is None and v.countdown is None and v.confirm == "Reveal"
    # the whole view is the same whatever Ben chose
    assert json.dumps(asdict(views[0])) == json.dumps(asdict(views[1]))


def test_countdown_then_reveal_shows_everyone_at_once():
    t = table_for("tally-up")
    t.roll(["red:200", "blue:100", "yellow:150"], 0.0)
    t.press(0, 1.0)
    t.press(1, 1.0)
    t.press(1, 1.0)
    t.press(2, 1.5)
    v = build_view(t, 2.6)
    assert v.countdown == 2 and v.prompt.startswith("Reveal in")
    t.tick(4.6)
    v = build_view(t, 4.6)
    assert v.countdown is None
    assert v.reveal == {"in": ["Ana", "Cy"], "out": ["Ben"]}
    assert [r.tag for r in v.players] == ["IN", "OUT", "IN"]
    assert v.players[1].score == "450"


def test_banner_for_big_moments_then_it_goes():
    t = table_for("tally-up", ("Ana", "Ben"))
    t.roll(["red:star", "orange:star", "blue:100"], 0.0)  # two stars: bust
    v = build_view(t, 0.5)
    assert v.banner == "BUST!" and v.banner_kind == "bust"
    t.tick(10.0)
    assert build_view(t, 10.0).banner is None


def test_tally_up_banner_and_press_window_countdown():
    t = table_for("tally-up", ("Ana", "Ben"), {"press_window_s": 5})
    t.roll(["red:star", "orange:star", "yellow:star"], 0.0)
    v = build_view(t, 1.2)
    assert v.banner == "TALLY UP! Press first"  # a race to press, not a party: IN lost the total
    assert v.prompt.endswith("(4 s)")
    assert "tally up" in v.help


def test_wrong_roll_message_shown_nothing_scored():
    t = table_for("bank", ("Ana", "Ben"))
    t.roll(["d6:1", "d6:2", "d6:3"], 0.0)
    v = build_view(t, 0.1)
    assert v.message_kind == "wrong_roll" and "3 dice seen" in v.message
    assert v.players[0].score == "0" and v.roll == []


def test_unread_dice_are_drawn_marked_with_the_selected_one():
    t = table_for("bank", ("Ana", "Ben"))
    t.settled(
        SettledRoll(
            (DieReading(0, 0, 40, 40, "d6", "6", 0.9), DieReading(60, 0, 40, 40, None, None, 0.1))
        ),
        0.0,
    )
    v = build_view(t, 0.0)
    assert [(d.face, d.unsure, d.selected) for d in v.roll] == [
        ("6", False, False),
        (None, True, True),
    ]
    assert v.message_kind == "unreadable" and v.confirm == "OK"


def test_camera_lost_overlay():
    t = table_for("toss-up", ("Ana", "Ben"))
    t.camera(False, 0.0)
    t.camera(False, 3.0)
    v = build_view(t, 3.0)
    assert v.camera_lost and "Camera lost" in v.message
    assert v.prompt == t.expect().prompt  # the game is still there


def test_choices_offer_the_default_highlighted_with_words():
    t = table_for("diced-out", ("Ana", "Ben"))
    t.roll(["d6:6", "d6:6"], 0.0)
    t.roll(["d6:1", "d6:2"], 1.0)
    t.roll(["d6:6", "d6:6"], 2.0)  # Ana rolls 12: an extra mark
    v = build_view(t, 2.0)
    assert v.chooser == "Ana"
    labels = [c.label for c in v.choices]
    assert labels[0] == "mark 11" and v.choices[0].highlighted
    assert "long press" in v.help
    assert [s[0] for s in v.sheet] == [str(k) for k in range(2, 13)]
    assert {s[0]: s[1] for s in v.sheet}["12"] is True


def test_end_screen_names_the_winner():
    t = table_for("bank", ("Ana", "Ben"))
    t.roll(["d6:2", "d6:3"], 0.0)
    t.table_action("end_game", 1.0)
    v = build_view(t, 1.0)
    assert v.screen == "end"
    assert v.banner.startswith("Shared win") and v.winner == "Ana, Ben"
    assert "rematch" in v.help


def test_tally_up_facts_are_worded_for_the_table():
    t = table_for("tally-up", ("Ana", "Ben"))
    t.roll(["red:200", "blue:100", "yellow:150"], 0.0)
    totals = facts_words(t.journal.game.facts(t.state))
    assert totals == [
        ("Running total", "450"),
        ("Locked", "red, yellow, blue"),
        ("Target", "2500"),
    ]
    assert [r.tag for r in build_view(t, 0.0).players] == ["IN", "IN"]


# ------------------------------------------------------------------ what every screen must tell
def tally_round_with_two_outs():
    """Tally Up!, four players: Ben goes OUT after the first roll, Cy after the second."""
    t = table_for("tally-up", ("Ana", "Ben", "Cy", "Dee"))
    t.roll(["red:200", "blue:100", "yellow:150"], 0.0)
    for p, presses in ((0, 1), (1, 2), (2, 1), (3, 1)):  # Ben OUT
        for _ in range(presses):
            t.press(p, 1.0)
    t.tick(5.0)
    t.roll(["red:200", "blue:100", "yellow:150"], 6.0)
    for p, presses in ((0, 1), (2, 2), (3, 1)):  # Cy OUT
        for _ in range(presses):
            t.press(p, 7.0)
    t.tick(11.0)
    return t


def test_seat_colours_and_whose_turn():
    t = table_for("bank", ("Ana", "Ben", "Cy"))
    v = build_view(t, 0.0)
    assert v.turn == "Ana" and v.turn_colour == v.players[0].colour
    assert len({r.colour for r in v.players}) == 3
    assert [r.seat for r in v.players] == [0, 1, 2]


def test_tally_up_out_list_keeps_every_reveal_of_the_round():
    t = tally_round_with_two_outs()
    v = build_view(t, 11.0)
    assert v.in_out == (["Ana", "Dee"], ["Ben", "Cy"])
    assert [r.tag for r in v.players] == ["IN", "OUT", "OUT", "IN"]
    assert v.events[-1].startswith("Reveal: Cy OUT")


def test_tally_up_three_stars_say_who_lost_while_the_banner_calls_the_race():
    t = tally_round_with_two_outs()
    running = t.state["running"]
    t.roll(["red:star", "blue:star", "yellow:star"], 12.0)  # three stars: Tally Up!
    v = build_view(t, 12.5)
    assert v.banner == "TALLY UP! Press first" and "+200" in v.prompt
    assert v.roll_caption == f"Three stars: Ana and Dee lost {running} each"
    assert "TALLY UP" not in v.roll_caption  # the loss is not celebrated


def test_tally_up_after_a_bust_everyone_sees_who_lost_what():
    t = tally_round_with_two_outs()
    running = t.state["running"]
    assert running > 0
    t.roll(["red:star", "blue:star", "yellow:150"], 12.0)  # two stars: bust
    v = build_view(t, 12.5)
    assert v.banner == "BUST!"
    lost = {r.name: r.lost for r in v.players}
    assert lost == {"Ana": f"lost {running}", "Ben": "", "Cy": "", "Dee": f"lost {running}"}
    assert v.roll_caption == f"Bust: Ana and Dee lost {running} each"
    # the IN/OUT line is the new round's, not the stale one of the last reveal
    assert v.in_out == (["Ana", "Ben", "Cy", "Dee"], []) and v.reveal is None
    assert v.cue == "bust"
    # the losses stay until the next roll
    t.tick(20.0)
    assert build_view(t, 20.0).players[0].lost == f"lost {running}"
    t.roll(["red:200", "blue:100", "yellow:150"], 21.0)
    assert all(not r.lost for r in build_view(t, 21.0).players)


def test_everyone_in_only_when_more_than_one_is_in():
    t = tally_round_with_two_outs()
    t.roll(["red:200", "blue:100", "yellow:150"], 12.0)
    t.press(0, 13.0)
    t.press(0, 13.0)  # Ana OUT, Dee IN: one player left IN
    t.press(3, 13.0)
    t.tick(17.0)
    t.roll(["red:200", "blue:100", "yellow:150"], 18.0)
    v = build_view(t, 18.0)
    assert v.in_out[0] == ["Dee"]
    assert v.prompt.startswith("Dee: choose IN or OUT"), v.prompt


def test_caption_names_the_last_events_not_only_the_last():
    t = table_for("bank", ("Ana", "Ben"))
    t.roll(["d6:2", "d6:3"], 0.0)
    t.roll(["d6:4", "d6:1"], 1.0)
    v = build_view(t, 1.0)
    assert v.events[-2:] == ["Ana rolled 2, 3", "Ben rolled 4, 1"]


def test_an_undone_roll_is_not_drawn():
    t = table_for("bank", ("Ana", "Ben"))
    t.roll(["d6:2", "d6:3"], 0.0)
    t.roll(["d6:4", "d6:1"], 1.0)
    t.undo(2.0)
    assert [d.spec for d in build_view(t, 2.0).roll] == ["d6:2", "d6:3"]
    t.undo(3.0)
    assert build_view(t, 3.0).roll == []


def test_a_corrected_roll_leaves_no_instructions_behind():
    t = table_for("bank", ("Ana", "Ben"))
    t.roll(["d6:2", "d6:3"], 0.0)
    t.correct_last(1.0)
    assert "Correct the last roll" in build_view(t, 1.0).message
    t.correction.cycle(1)
    t.confirm_correction(2.0)
    v = build_view(t, 2.0)
    assert "Correct the last roll" not in (v.message or "")
    t.tick(10.0)
    assert build_view(t, 10.0).message is None


def test_rollers_roll_number_is_said_once():
    t = table_for("rollers", ("Ana", "Ben"))
    v = build_view(t, 0.0)
    assert not any(label == "Roll" for label, _ in v.totals)


def test_per_round_score_history_and_last_round_notes():
    t = table_for("bank", ("Ana", "Ben"), {"rounds": 10})
    for i, dice in enumerate((["d6:2", "d6:3"], ["d6:4", "d6:1"], ["d6:6", "d6:2"])):
        t.roll(dice, float(i))
    t.press(0, 3.0)  # Ana banks 18
    t.roll(["d6:5", "d6:2"], 4.0)  # a seven: Ben scores nothing
    v = build_view(t, 4.0)
    assert v.history == [("Round 1", ["18", "0"])]
    assert v.players[0].note == "+18 last round" and v.players[1].note == ""
    assert v.players[1].lost == "lost 18" and v.cue == "bust"


def test_win_screen_facts_and_cue():
    t = table_for("bank", ("Ana", "Ben"), {"rounds": 10})
    t.roll(["d6:2", "d6:3"], 0.0)
    t.roll(["d6:6", "d6:6"], 1.0)
    t.roll(["d6:1", "d6:2"], 2.0)
    t.press(1, 3.0)
    t.table_action("end_game", 4.0)
    v = build_view(t, 4.0)
    assert v.screen == "end" and v.winner == "Ben" and v.cue == "win"
    assert [r.winner for r in v.players] == [False, True]
    assert v.turn is None


def test_how_to_play_page_for_every_game():
    from tray.rules import games
    from tray.screen.view import how_to_view

    for gid in games.GAME_IDS:
        page = how_to_view(gid)
        assert page.title and page.goal and len(page.points) >= 4 and page.buttons


def test_a_players_big_moment_names_them():
    t = table_for("toss-up", ("Ana", "Ben"))
    t.roll(["toss:red"] * 3 + ["toss:yellow"] * 7, 0.0)  # no green, a red: bust
    v = build_view(t, 0.5)
    assert v.banner == "Ana: BUST!" and v.banner_kind == "bust"
    assert v.players[0].lost == "" and v.roll_caption == "Bust: nothing was at stake"


def test_start_screen_says_option_names_in_words():
    from tray.screen.view import start_view
    from tray.table.menu import StartMenu

    v = start_view(StartMenu(["Ana", "Ben"], default_game="tally-up"))
    labels = [k for k, _ in v.options]
    assert "press window (s)" in labels and "everyone rolls once" in labels


def test_many_dice_are_counted_in_the_events():
    t = table_for("toss-up", ("Ana", "Ben"))
    t.roll(["toss:green"] * 3 + ["toss:yellow"] * 5 + ["toss:red"] * 2, 0.0)
    assert build_view(t, 0.0).events[-1] == "Ana rolled 3 green, 5 yellow, 2 red"


def test_the_table_menu_says_how_it_works():
    t = table_for("bank", ("Ana", "Ben"))
    t.roll(["d6:2", "d6:3"], 0.0)
    t.undo_request(1.0)
    v = build_view(t, 1.0)
    assert v.menu and v.menu[0].highlighted and v.help.startswith("Menu: short press")


def unread_bank_roll() -> Table:
    t = table_for("bank", ("Ana", "Ben"))
    t.settled(
        SettledRoll(
            (DieReading(0, 0, 40, 40, "d6", "6", 0.9), DieReading(60, 0, 40, 40, None, None, 0.1))
        ),
        0.0,
    )
    return t


def test_an_unread_die_is_told_once_and_the_roller_s_button_comes_before_the_keys():
    v = build_view(unread_bank_roll(), 0.0)
    assert v.message == "1 die could not be read: set it to the face it shows"
    assert v.roll_caption == ""  # not a third time under the dice
    assert v.help.startswith("Ana: short press = next face, long press = OK")
    assert v.help.index("press") < v.help.index("Up/Down")


def test_correcting_the_last_roll_from_the_menu_says_the_presses_that_do_it():
    t = table_for("bank", ("Ana", "Ben"))
    t.roll(["d6:3", "d6:4"], 0.0)
    t.undo_request(1.0, 1)  # Ben's long press opens the table menu
    assert t.press(1, 1.1) == "moved" and t.press(1, 1.2, long=True) == "correcting"
    v = build_view(t, 1.2)
    assert v.message == "Correct the last roll: set each die to the face it shows"
    assert v.help.startswith("Ben: short press = next face, long press = next die, then save")
    assert v.help.index("press") < v.help.index("keys")
    # the presses do what the hint says
    before = t.correction.slots[0].value
    assert t.press(1, 1.3) == "cycled face" and t.correction.slots[0].value != before
    assert t.press(1, 1.4, long=True) == "next die" and t.correction.selected == 1
    assert t.press(1, 1.5, long=True) == "corrected"


def rollers_saving() -> Table:
    t = table_for("rollers", ("Ana", "Ben"))
    t.roll(["wild:5"], 0.0)
    t.roll(["wild:2"], 0.1)
    t.roll(["wild:4", "wild:2", "wild:4", "wild:star", "wild:1", "black:3"], 0.2)
    return t


def test_rollers_saves_keep_the_line_the_hint_names_in_sight_and_frame_the_die():
    t = rollers_saving()
    v = build_view(t, 0.3)
    assert "Roll the others" in v.help
    pinned = [c.label for c in v.choices if c.pinned]
    assert pinned == ["Roll the others", "Stop here"]
    labels = [c.label for c in v.choices]
    assert len(set(labels)) == len(labels)  # two 4s are told apart
    assert [d.selected for d in v.roll] == [True] + [False] * 5  # the die the press is on
    t.press(0, 0.4, long=True)  # keep it
    assert build_view(t, 0.4).roll[0].kept


def test_a_wrong_roll_names_the_dice_as_players_call_them():
    t = rollers_saving()
    b = t.save_builder(0)
    b.keep = {0}
    assert t.send(b.event(), 0.3)
    t.roll(["wild:1"] * 6, 0.4)
    v = build_view(t, 0.4)
    assert v.message == "Roll the 4 wild dice and the black die: 6 dice seen"
