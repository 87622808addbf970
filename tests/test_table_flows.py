"""The table worked with buttons alone (tray/table/menu.py, table.py, presses.py, choices.py):
the start screen, questions before anything is thrown away, the table menu, the end screen,
Rollers' saves die by die, keys 1-0 with GPIO buttons configured, the demo's log labels.
An injected clock: no real time passes."""

from __future__ import annotations

from hardware.buttons import ButtonPress, ButtonRelease
from tray.app.demo import log_line, start_by_buttons
from tray.app.session import discard, resume_offer
from tray.layouts import default_layout
from tray.table.memory import MemoryJournal
from tray.table.menu import StartMenu
from tray.table.presses import ButtonMapper, MenuButtons, handle_key, menu_plan, press_plan
from tray.table.table import Table


def table_for(game, players=("Ana", "Ben"), options=None) -> Table:
    return Table(MemoryJournal.create(None, game, list(players), options or {}, None))


def presses(target, longs):
    out = None
    for long in longs:
        out = target.press(long)
    return out


# ---------------------------------------------------------------------------- start screen
def test_start_menu_by_one_button_chooses_game_players_options_and_starts():
    m = StartMenu(["Ana", "Ben", "Cy"], default_game="tally-up")
    plan = m.plan("bank", 2, {"rounds": 15})
    assert presses(m, plan) == "start"
    assert (m.game_id, m.players, m.chosen_options()) == ("bank", ["Ana", "Ben"], {"rounds": 15})


def test_start_menu_short_press_walks_the_lines_long_press_changes_a_value():
    m = StartMenu(["Ana", "Ben"], default_game="bank")
    assert m.focus == 0 and m.press(False) is None and m.focus == 1
    m.press(False)  # rounds
    m.press(True)  # change it
    assert m.editing
    m.press(False)
    assert m.value("rounds") == 10  # 20 wraps round to 10
    m.press(True)
    assert not m.editing and m.focus == 2 and m.outcome is None


def test_quit_and_discard_ask_first_and_no_is_highlighted():
    m = StartMenu(["Ana", "Ben"], default_game="bank")
    m.offer_resume("old.jsonl", "Resume Bank (Ana, Ben), 3 events in")
    assert m.actions() == ["start", "resume", "discard", "quit", "history", "howto"]
    assert m.action_at(m.focus) == "resume"  # an unfinished game: Resume first
    m.press(False)
    assert m.press(True) is None and m.confirm.question.startswith("Discard")
    assert m.press(True) is None and m.confirm is None and m.outcome is None  # No: kept
    m.press(False)  # Quit the table
    assert m.action_at(m.focus) == "quit"
    m.press(True)
    m.key("escape")  # Esc steps back out of the question
    assert m.confirm is None and m.outcome is None
    m.press(True)
    assert m.press(False) is None and m.press(True) == "quit"


def test_menu_buttons_tell_short_from_long_at_the_release_keys_at_once():
    m = StartMenu(["Ana", "Ben"], default_game="bank")
    mb = MenuButtons(m, releases=True, long_s=0.8)
    assert mb.handle(ButtonPress(0, 0.0)) is None
    assert mb.handle(ButtonRelease(0, 0.9, 0.9)) == "moved" and m.editing  # long
    assert mb.handle(ButtonPress(1, 1.0, "key")) == "moved"  # a key: short
    assert m.game_id == "diced-out"


def test_demo_start_screen_is_worked_by_a_button(capsys):
    menu = start_by_buttons("bank", 3, {"rounds": 10}, print)
    assert menu.outcome == "start" and menu.game_id == "bank" and len(menu.players) == 3
    assert menu.chosen_options() == {"rounds": 10}
    assert "presses of Ana's button" in capsys.readouterr().out


def test_resume_offer_says_who_and_how_far_and_discard_puts_the_game_aside(tmp_path):
    from tray.rules.journal import Journal

    j = Journal.create(tmp_path / "g.jsonl", "bank", ["Ana", "Ben"], {}, default_layout("bank"))
    assert resume_offer(tmp_path)[1] == "Resume Bank with Ana and Ben (not started)"
    j.append({"type": "roll", "dice": ["d6:1", "d6:2"]})
    assert resume_offer(tmp_path)[1] == "Resume Bank with Ana and Ben (round 1)"
    m = StartMenu(["Ana", "Ben"])
    m.offer_resume(tmp_path / "g.jsonl", resume_offer(tmp_path)[1])
    m.do("discard")  # the question names the game in the same plain words
    assert m.confirm.shown()[0] == "Discard the unfinished game? Bank with Ana and Ben (round 1)"
    kept = discard(tmp_path / "g.jsonl")
    assert kept.exists() and resume_offer(tmp_path) is None


# ------------------------------------------------------------------------------ the table
def test_table_menu_ends_the_game_only_after_yes():
    t = table_for("bank")
    assert t.press(1, 0.0, long=True) == "undo asked"  # nothing to decide: the menu
    assert t.press(1, 0.5) == "moved"  # -> End the game now
    assert t.press(1, 1.0, long=True) == "asked"
    assert t.press(1, 1.5, long=True) == "kept"  # "No, go back"
    assert not t.expect().finished
    t.press(1, 2.0, long=True)
    t.press(1, 2.5)  # -> Yes
    assert t.press(1, 3.0, long=True) == "sent" and t.expect().finished


def test_only_the_opener_works_the_table_menu_and_it_closes_when_left_alone():
    t = table_for("toss-up")
    t.roll(["toss:green"] * 2 + ["toss:yellow"] * 8, 0.0)  # Ana may stop
    assert t.press(1, 1.0, long=True) == "undo asked"  # Ben opens the menu
    assert t.press(0, 1.5) == "sent"  # Ana's press still stops
    t.tick(30.0)
    assert t.menu is None


def test_leave_from_the_table_menu_keeps_the_game():
    t = table_for("toss-up")
    plan = menu_plan(t, "leave", seat=1)
    assert plan[0] == (1, True)
    for seat, long in plan:
        t.press(seat, 1.0, long=long)
    assert t.outcome == "leave" and t.journal.events == []


def test_end_screen_rematch_another_game_or_start_screen():
    t = table_for("bank")
    t.roll(["d6:2", "d6:3"], 0.0)
    t.table_action("end_game", 1.0)
    assert t.menu.shown()[1][0].startswith("Rematch")
    assert t.press(0, 2.0) == "moved" and t.outcome is None  # a short press only moves
    assert t.press(1, 3.0, long=True) == "another"
    t.outcome = None
    assert handle_key(t, "down", 4.0) == "moved" and handle_key(t, "return", 4.1) == "menu"


def test_keys_1_to_0_act_at_once_when_gpio_buttons_report_releases():
    """The example config has GPIO pins: the mapper waits for GPIO releases only, so key 1
    (no release ever comes) still makes the active player's IN/OUT choice."""
    t = table_for("tally-up", ("Ana", "Ben", "Cy"))
    t.roll(["red:200", "blue:100", "yellow:150"], 0.0)
    m = ButtonMapper(t, releases=True)
    assert m.handle(ButtonPress(0, 1.0, "key")) == "chose"  # Ana is the active player
    assert t.chosen() == [0]
    assert m.handle(ButtonPress(1, 1.1, "gpio")) == "chose"  # not active: at once too
    assert m.handle(ButtonPress(0, 1.2, "gpio")) is None  # active, GPIO: the release


# ------------------------------------------------------------------------ Rollers' saves
def rollers_saving() -> Table:
    t = table_for("rollers")
    t.roll(["wild:5"], 0.0)  # start roll-off: Ana 5, Ben 2
    t.roll(["wild:2"], 0.1)
    assert t.roll(["wild:1", "wild:2", "wild:3", "wild:4", "wild:5", "black:1"], 0.2)
    assert len(t.decision_of(0).choices) == 64  # 63 save sets + stop
    return t


def test_rollers_saves_die_by_die_with_a_way_back():
    t = rollers_saving()
    b = t.save_builder(0)
    b.keep = set()  # start from nothing kept
    assert t.press(0, 1.0, long=True) == "kept" and b.keep == {0}  # keep the 1
    assert t.press(0, 1.1) == "cycled" and t.press(0, 1.2, long=True) == "kept"
    assert t.press(0, 1.3, long=True) == "kept" and b.keep == {0}  # the way back
    for _ in range(5):  # -> Roll the others
        t.press(0, 1.4)
    assert b.labels()[b.focus] == "Roll the others"
    assert t.press(0, 1.5, long=True) == "sent"
    assert t.journal.events[-1] == {"type": "action", "player": 0, "action": "save", "dice": [0]}


def test_rollers_save_plan_takes_few_presses():
    t = rollers_saving()
    want = {"type": "action", "player": 0, "action": "save", "dice": [1, 3, 5]}
    plan = press_plan(t, want)
    assert len(plan) <= 2 * 8  # not up to 63 steps through every save set
    for seat, long in plan:
        t.press(seat, 2.0, long=long)
    assert t.journal.events[-1] == want


# ------------------------------------------------------------------------------ demo log
def test_demo_log_labels_the_round_an_event_was_made_in():
    t = table_for("bank", options={"rounds": 10})
    lines = []
    t.on_event = lambda kind, text: lines.append(log_line(t, kind, text))
    for dice in (["d6:2", "d6:3"], ["d6:1", "d6:2"], ["d6:1", "d6:3"], ["d6:3", "d6:4"]):
        t.roll(dice, 0.0)
    assert t.state["round"] == 2  # the seven ended round 1
    assert lines[-2].startswith("[round 1]") and "rolled d6:3, d6:4" in lines[-2]
    assert all(line.startswith("[round 1]") for line in lines if line)


def test_end_screen_taps_pick_a_line_and_undo_reopens_the_game():
    from tray.table.presses import handle_tap

    t = table_for("bank")
    t.roll(["d6:2", "d6:3"], 0.0)
    t.table_action("end_game", 1.0)
    assert handle_tap(t, ("player", 0), 2.0) == "nothing there" and t.outcome is None
    assert handle_tap(t, ("menu", 1), 2.1) == "highlighted"
    assert handle_tap(t, ("menu", 1), 2.2) == "another"
    t.outcome = None
    assert handle_tap(t, ("button", "undo"), 3.0) == "undone" and not t.expect().finished


def test_the_last_roll_is_corrected_with_a_button_from_the_table_menu():
    t = table_for("toss-up")
    t.roll(["toss:green"] * 2 + ["toss:yellow"] * 8, 0.0)  # Ana may stop; Ben is free
    for seat, long in menu_plan(t, "correct", seat=1):
        t.press(seat, 1.0, long=long)
    c = t.correction
    assert c is not None and c.event == 1 and t.correction_owner == 1
    assert t.press(0, 1.1) == "sent"  # Ana's own press still stops
    t.undo(1.2)
    for seat, long in menu_plan(t, "correct", seat=1):
        t.press(seat, 1.3, long=long)
    c = t.correction
    first = c.slots[0].value
    assert t.press(1, 1.4) == "cycled face" and c.slots[0].value != first
    for _ in range(len(c.slots) - 1):
        assert t.press(1, 1.5, long=True) == "next die"
    assert t.press(1, 1.6, long=True) == "corrected"
    assert t.journal.events[0]["dice"].count("toss:green") == 1  # green -> yellow
    assert t.state["turn_points"] == 1


def test_rollers_save_lines_name_the_black_die():
    t = rollers_saving()
    labels = t.save_builder(0).labels()
    assert labels[0].endswith(" 1") and "black" not in labels[0]
    assert labels[5].endswith("black 1") and labels[6:] == ["Roll the others", "Stop here"]


def test_rollers_save_lines_tell_two_dice_of_one_face_apart():
    t = rollers_saving()
    b = t.save_builder(0)
    b.roll = ["wild:4", "wild:2", "wild:4", "wild:star", "wild:4", "black:zap"]
    b.keep = {2}
    labels = b.labels()
    assert labels[:5] == [
        "roll 4 (1 of 3)",
        "roll 2",
        "keep 4 (2 of 3)",
        "roll STAR",
        "roll 4 (3 of 3)",
    ]
    assert len(set(labels)) == len(labels)


def test_docstring_examples_of_the_table_modules_run():
    import doctest
    import importlib

    for name in (
        "table.choices",
        "table.correction",
        "app.demo",
        "table.memory",
        "table.menu",
        "table.moments",
        "table.presses",
        "app.session",
        "table.table",
        "table.table_menu",
    ):
        module = importlib.import_module(f"tray.{name}")
        assert doctest.testmod(module).failed == 0, name
