"""What the screen shows, checked through the view model it draws (tray/screen/view.py)."""

from __future__ import annotations

import json
from dataclasses import asdict

from tray.screen.view import build_view, game_facts
from tray.table.actions import MemoryJournal, Table
from vision.types import DieReading, SettledRoll


def table_for(game, players=("Ana", "Ben", "Cy"), options=None) -> Table:
    return Table(MemoryJournal.create(None, game, list(players), options or {}, None))


def test_prompt_and_scores_come_from_the_game():
    t = table_for("bank", ("Ana", "Ben"))
    v = build_view(t, 0.0)
    assert v.prompt == t.expect().prompt
    assert v.title == "Bank" and v.screen == "play"
    assert [(r.name, r.score, r.active) for r in v.players] == [("Ana", "0", True), ("Ben", "0", False)]
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
    for ben_presses in (1, 2):            # Ben IN, then a game where Ben is OUT
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
    t.roll(["red:star", "orange:star", "blue:100"], 0.0)     # two stars: bust
    v = build_view(t, 0.5)
    assert v.banner == "BUST!" and v.banner_kind == "bust"
    t.tick(10.0)
    assert build_view(t, 10.0).banner is None


def test_tally_up_banner_and_press_window_countdown():
    t = table_for("tally-up", ("Ana", "Ben"), {"press_window_s": 5})
    t.roll(["red:star", "orange:star", "yellow:star"], 0.0)
    v = build_view(t, 1.2)
    assert v.banner == "TALLY UP!"
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
    t.settled(SettledRoll((DieReading(0, 0, 40, 40, "d6", "6", 0.9),
                           DieReading(60, 0, 40, 40, None, None, 0.1))), 0.0)
    v = build_view(t, 0.0)
    assert [(d.face, d.unsure, d.selected) for d in v.roll] == [("6", False, False),
                                                               (None, True, True)]
    assert v.message_kind == "unreadable" and v.confirm == "OK"


def test_camera_lost_overlay():
    t = table_for("toss-up", ("Ana", "Ben"))
    t.camera(False, 0.0)
    t.camera(False, 3.0)
    v = build_view(t, 3.0)
    assert v.camera_lost and "Camera lost" in v.message
    assert v.prompt == t.expect().prompt      # the game is still there


def test_choices_offer_the_default_highlighted_with_words():
    t = table_for("diced-out", ("Ana", "Ben"))
    t.roll(["d6:6", "d6:6"], 0.0)
    t.roll(["d6:1", "d6:2"], 1.0)
    t.roll(["d6:6", "d6:6"], 2.0)       # Ana rolls 12: an extra mark
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


def test_game_facts_tally_up_public_only():
    t = table_for("tally-up", ("Ana", "Ben"))
    t.roll(["red:200", "blue:100", "yellow:150"], 0.0)
    totals, tags, _ = game_facts(t.state, t.expect().detail)
    assert ("Running total", "450") in totals
    assert ("Locked", "red, yellow, blue") in totals or any(k == "Locked" for k, _ in totals)
    assert tags == {0: "IN", 1: "IN"}
