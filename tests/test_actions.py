"""What presses, keys, taps and settled rolls mean (tray/table/table.py, presses.py), driven
with an injected clock: no real time passes in these tests."""

from __future__ import annotations

import pytest

from tray.rules.engine import action, roll
from tray.table.correction import candidates_for
from tray.table.memory import MemoryJournal
from tray.table.menu import StartMenu
from tray.table.presses import ButtonMapper, handle_key, handle_tap, press_plan
from tray.table.table import Table
from vision.types import DieReading, SettledRoll


def table_for(game: str, players=("Ana", "Ben", "Cy"), options=None) -> Table:
    return Table(MemoryJournal.create(None, game, list(players), options or {}, None))


def tally_after_first_roll(players=("Ana", "Ben", "Cy")) -> Table:
    t = table_for("tally-up", players)
    assert t.roll(["red:200", "blue:100", "yellow:150"], 0.0)
    return t


def test_secret_press_toggles_hidden_choice():
    """A press toggles that player's hidden choice: first press IN, the next OUT."""
    t = tally_after_first_roll()
    assert t.press(1, 1.0) == "chose"
    assert t.secret == {1: "in"}
    t.press(1, 1.1)
    assert t.secret == {1: "out"}
    assert t.chosen() == [1]
    # nothing went to the journal yet: the choices stay secret until the reveal
    assert len(t.journal.events) == 1


def test_countdown_then_reveal_all_at_once_in_seat_order():
    """When everyone awaited has chosen, a 1-2-3 countdown runs, then all choices go to the
    engine together, in seat order."""
    t = tally_after_first_roll()
    t.press(2, 1.0)
    t.press(0, 1.2)
    t.press(0, 1.3)  # Ana: OUT
    assert not t.counting_down()
    t.press(1, 1.5)  # the last one: the countdown starts
    assert t.counting_down()
    assert t.countdown_number(1.5) == 1
    assert t.countdown_number(2.6) == 2
    assert t.countdown_number(3.6) == 3
    t.tick(4.0)  # not yet 3 s
    assert len(t.journal.events) == 1
    t.tick(4.5)
    sent = t.journal.events[1:]
    assert [(e["player"], e["action"]) for e in sent] == [(0, "out"), (1, "in"), (2, "in")]
    assert t.revealed == {"in": ["Ben", "Cy"], "out": ["Ana"]}
    assert t.journal.state["scores"][0] == 450  # OUT banks the running total
    assert not t.secret and not t.counting_down()


def test_active_player_long_press_starts_countdown_defaults_for_the_rest():
    """On the active player's confirm the countdown starts; players who did not press take the
    game's suggested default."""
    t = tally_after_first_roll()
    t.press(1, 1.0)  # Ben IN
    assert t.press(0, 1.5, long=True) == "countdown"
    t.tick(4.6)
    sent = {e["player"]: e["action"] for e in t.journal.events[1:]}
    defaults = {0: "out", 2: "out"}  # Tally Up! suggests OUT at 450 (its default)
    assert sent[1] == "in"
    for p, a in defaults.items():
        assert sent[p] == a


def test_bank_press_banks_at_once():
    """Bank: a press banks at once (once roll 3 of the round has been scored)."""
    t = table_for("bank", ("Ana", "Ben"))
    assert t.press(0, 0.0).startswith("nothing")  # no banking in phase 1
    for i, dice in enumerate((["d6:2", "d6:3"], ["d6:4", "d6:1"], ["d6:6", "d6:2"])):
        assert t.roll(dice, 1.0 + i)
    total = t.journal.state["total"]
    assert t.press(1, 5.0) == "sent"
    assert t.journal.events[-1] == action(1, "bank")
    assert t.journal.state["scores"][1] == total


def test_toss_up_active_press_stops():
    """Toss Up!: the active player's press stops (banks the turn's points)."""
    t = table_for("toss-up", ("Ana", "Ben"))
    assert t.roll(["toss:green"] * 3 + ["toss:yellow"] * 7, 0.0)
    assert t.press(1, 1.0).startswith("nothing")  # not Ben's turn
    assert t.press(0, 1.0) == "sent"
    assert t.journal.events[-1]["action"] == "stop"
    assert t.journal.state["scores"][0] == 3


def tally_up_rolled() -> Table:
    t = table_for("tally-up", ("Ana", "Ben", "Cy"), {"press_window_s": 5})
    assert t.roll(["red:star", "orange:star", "yellow:star"], 10.0)
    assert t.banner is not None and t.banner[0] == "tally_up"
    return t


def test_tally_up_first_press_in_window_wins():
    """Tally Up!: the first press after three stars wins the +200; later presses change nothing."""
    t = tally_up_rolled()
    assert t.window_decision() is not None
    t.tick(12.0)
    assert t.press(2, 12.5) == "sent"
    assert t.journal.state["scores"][2] == 200
    assert t.window_decision() is None
    t.press(1, 12.6)
    assert t.journal.state["scores"][2] == 200


def test_tally_up_window_runs_out_with_injected_clock():
    """When the window runs out the table sends action(-1, "window_closed"): nobody gets +200."""
    t = tally_up_rolled()
    t.tick(14.9)
    assert t.window_decision() is not None
    t.tick(15.0)
    assert t.journal.events[-1] == action(-1, "window_closed")
    assert 200 not in t.journal.state["scores"]


def diced_out_bonus() -> Table:
    t = table_for("diced-out", ("Ana", "Ben"))
    assert t.roll(["d6:6", "d6:6"], 0.0)  # Ana 12
    assert t.roll(["d6:1", "d6:2"], 1.0)  # Ben 3: Ana starts
    assert t.roll(["d6:1", "d6:1"], 2.0)  # Ana rolls 2: a circled number
    return t


def test_choice_press_cycles_and_long_press_confirms():
    """DICEDOUT! extra mark: the default is highlighted; a press moves the highlight, a long
    press confirms it."""
    t = diced_out_bonus()
    d = t.decision_of(0)
    assert t.highlighted(0) == list(d.choices).index(d.default)
    assert t.press(1, 3.0).startswith("nothing")
    assert t.press(0, 3.0) == "cycled"
    picked = d.choices[t.highlighted(0)]
    assert t.press(0, 3.5, long=True) == "sent"
    assert t.journal.events[-1] == picked


def test_keys_and_taps_pick_choices():
    """Arrows move the highlight and Enter confirms; a tap highlights, a second tap sends."""
    t = diced_out_bonus()
    d = t.decision_of(0)
    handle_key(t, "down", 3.0)
    handle_key(t, "up", 3.0)
    assert t.highlighted(0) == list(d.choices).index(d.default)
    assert handle_tap(t, ("choice", 2), 3.1) == "highlighted"
    assert handle_tap(t, ("choice", 2), 3.2) == "sent"
    assert t.journal.events[-1] == d.choices[2]


def test_wrong_roll_refused_with_message_nothing_scored():
    """A roll that is not the one the game waits for is refused with words; nothing scored."""
    t = table_for("toss-up", ("Ana", "Ben"))
    t.roll(["toss:green"] * 4 + ["toss:red"] * 6, 0.0)
    before = list(t.journal.events)
    assert not t.roll(["toss:green"] * 5, 1.0)  # 6 dice are left, 5 seen
    assert t.journal.events == before
    assert t.message.kind == "wrong_roll"
    assert "5 dice seen" in t.message.text and "6" in t.message.text
    t.tick(1.0 + 10)
    assert t.message is None


def test_locked_colours_message_names_the_dice():
    """Tally Up!: a later Main Roll with other colours is refused, naming the locked dice."""
    t = tally_after_first_roll(("Ana", "Ben"))
    t.press(0, 1.0)
    t.press(1, 1.0)
    t.tick(5.0)
    assert t.expect().roll is not None
    assert not t.roll(["green:150", "blue:100", "yellow:150"], 6.0)
    assert "red" in t.message.text


def test_roll_while_choosing_is_not_taken():
    """A roll that comes while the game waits for IN/OUT is not scored; the message says why."""
    t = tally_after_first_roll()
    assert not t.roll(["red:200", "blue:100", "yellow:150"], 1.0)
    assert "No roll now" in t.message.text
    assert len(t.journal.events) == 1


def reading(x, die, face, conf=0.99):
    return DieReading(x, 100, 40, 40, die, face, conf)


def test_unread_die_is_fixed_by_cycling_then_confirmed():
    """Dice it could not read are marked; players cycle the face of the selected die and
    confirm; nothing is scored until the roll is whole."""
    t = table_for("bank", ("Ana", "Ben"))
    settled = SettledRoll((reading(10, "d6", "3"), reading(100, None, None, 0.2)))
    assert t.settled(settled, 0.0) == "correcting"
    assert t.journal.events == []
    assert t.message.kind == "unreadable"
    c = t.correction
    assert c.selected == 1 and not c.whole
    assert c.slots[1].candidates[0] == "d6:1"
    assert t.confirm(0.5) == "still unread"
    for _ in range(4):
        handle_key(t, "down", 1.0)  # d6:1 .. d6:4
    assert c.slots[1].value == "d6:4"
    assert handle_key(t, "return", 1.5) == "taken"
    assert t.journal.events == [roll("d6:3", "d6:4")]
    assert t.correction is None and t.message is None


def test_the_first_press_on_an_unread_die_shows_the_readers_guess():
    """A die the camera was not sure of keeps its best guess: the first press shows it (one
    press and a confirm where the guess is right), the next ones go on from it in order, and
    nothing is scored until a player confirms. A die with no guess starts at the first face."""
    from tray.screen.view import build_view

    t = table_for("bank", ("Ana", "Ben"))
    unsure = DieReading(100, 100, 40, 40, "d6", None, 0.6, guess="5")
    t.settled(SettledRoll((reading(10, "d6", "3"), unsure)), 0.0)
    assert t.journal.events == [] and t.correction.slots[1].value is None
    shown = build_view(t, 0.05).roll[1]  # the screen draws the guess faintly under a "?"
    assert (shown.face, shown.guess, shown.unsure) == (None, "d6:5", True)
    assert t.press(0, 0.1) == "cycled face" and t.correction.slots[1].value == "d6:5"
    assert build_view(t, 0.15).roll[1].guess is None  # set now: drawn as itself
    t.press(0, 0.2)
    assert t.correction.slots[1].value == "d6:6"
    t.press(0, 0.3)
    assert t.correction.slots[1].value == "d6:1"
    handle_key(t, "up", 0.4)
    handle_key(t, "up", 0.5)
    assert t.press(0, 0.6, long=True) == "taken"
    assert t.journal.events == [roll("d6:3", "d6:5")]
    t2 = table_for("bank", ("Ana", "Ben"))
    t2.settled(SettledRoll((reading(10, "d6", "3"), reading(100, None, None, 0.2))), 0.0)
    t2.press(0, 0.1)
    assert t2.correction.slots[1].value == "d6:1"


def test_a_die_read_for_sure_can_be_fixed_while_the_roll_is_corrected():
    """The correction shows the whole roll: Left/Right selects a die read for sure, Up/Down
    sets its face, so a die read wrong is fixed before anything is scored."""
    t = table_for("bank", ("Ana", "Ben"))
    settled = SettledRoll((reading(10, "d6", "3"), reading(100, None, None, 0.2)))
    assert t.settled(settled, 0.0) == "correcting"
    handle_key(t, "down", 0.5)  # the unread die: d6:1
    assert handle_key(t, "left", 1.0) == "selected die"
    assert t.correction.selected == 0 and t.correction.slots[0].value == "d6:3"
    handle_key(t, "down", 1.5)
    assert t.correction.slots[0].value == "d6:4"
    assert handle_key(t, "return", 2.0) == "taken"
    assert t.journal.events == [roll("d6:4", "d6:1")]


def test_unread_die_fixed_with_the_button():
    """The roller's button also fixes a die: short press = next face, long press = confirm."""
    t = table_for("bank", ("Ana", "Ben"))
    t.settled(SettledRoll((reading(10, None, None), reading(100, "d6", "5"))), 0.0)
    t.press(0, 0.1)
    t.press(0, 0.2)
    assert t.press(0, 0.5, long=True) == "taken"
    assert t.journal.events == [roll("d6:2", "d6:5")]


def test_dice_often_unread_bring_one_hint_to_light_the_tray_or_teach_it():
    """Three of the last five settled rolls with dice it could not read: once the third is
    corrected, and once a game, the screen says that better light or teaching the tray its
    dice mends that."""
    from tray.table.correction import HINT_TEXT

    t = table_for("bank", ("Ana", "Ben"))
    hints = []
    for i in range(4):
        assert (
            t.settled(SettledRoll((reading(10, "d6", "3"), reading(100, None, None))), float(i))
            == "correcting"
        )
        handle_key(t, "down", i + 0.2)  # d6:1
        assert handle_key(t, "return", i + 0.5) == "taken"
        hints.append(t.message is not None and t.message.text == HINT_TEXT)
    assert hints == [False, False, True, False]
    assert sum("dice often unread" in line for line in t.log) == 1
    assert len(t.journal.events) == 4


def test_dice_read_well_bring_no_hint():
    from tray.table.correction import HINT_TEXT

    t = table_for("bank", ("Ana", "Ben"))
    for i in range(4):  # read rolls between unread ones: 2 of the last 5 unread at most
        unread = i % 2 == 1
        second = reading(100, None, None) if unread else reading(100, "d6", "1")
        t.settled(SettledRoll((reading(10, "d6", "3"), second)), float(i))
        if unread:
            handle_key(t, "down", i + 0.2)
            assert handle_key(t, "return", i + 0.5) == "taken"
            assert t.message is None or t.message.text != HINT_TEXT
    assert len(t.journal.events) == 4


def test_candidates_put_the_awaited_dice_first():
    layout = {"red": ["star", "200"], "blue": ["star", "100"], "up": ["+1", "x2"]}
    from tray.rules.engine import RollSpec

    spec = RollSpec(0, 2, "tally-up", dice=("red", "blue"))
    assert candidates_for(layout, None, spec, ["red:200"])[:2] == ("blue:star", "blue:100")
    assert candidates_for(layout, "up", spec, []) == ("up:+1", "up:x2")


def test_undo_and_correct_last_roll():
    """Undo goes through Journal.undo; a correction after the fact through Journal.correct."""
    t = table_for("bank", ("Ana", "Ben"))
    t.roll(["d6:2", "d6:3"], 0.0)
    t.roll(["d6:1", "d6:1"], 1.0)
    assert t.journal.state["total"] == 7
    assert handle_key(t, "u", 2.0) == "undone"
    assert t.journal.state["total"] == 5
    assert handle_key(t, "c", 3.0) == "correcting"
    handle_key(t, "right", 3.0)  # the second die
    handle_key(t, "down", 3.0)  # d6:3 -> d6:4
    assert handle_key(t, "return", 3.5) == "corrected"
    assert t.journal.events == [roll("d6:2", "d6:4")]
    assert t.journal.state["total"] == 6


def test_camera_lost_then_back_keeps_the_game():
    """No frames for a while shows a clear message; the game is kept and goes on."""
    t = table_for("bank", ("Ana", "Ben"))
    t.roll(["d6:2", "d6:3"], 0.0)
    t.camera(False, 1.0)
    assert t.message is None
    t.camera(False, 3.5)
    assert t.message.kind == "camera" and "Camera lost" in t.message.text
    t.camera(True, 4.0)
    assert t.message is None
    assert t.journal.state["total"] == 5


def test_end_game_early_key_asks_first():
    t = table_for("bank", ("Ana", "Ben"))
    t.roll(["d6:2", "d6:3"], 0.0)
    assert handle_key(t, "e", 1.0) == "asked"
    assert not t.expect().finished and "End the game now?" in t.message.text
    assert handle_key(t, "return", 1.5) == "kept"  # Enter on "No, go back"
    assert not t.expect().finished and t.menu is not None  # back on the table menu
    assert handle_key(t, "escape", 1.6) == "back" and t.menu is None
    assert handle_key(t, "e", 2.0) == "asked"
    assert handle_key(t, "e", 2.5) == "sent"  # E again: yes
    assert t.expect().finished
    assert t.banner[0] == "game_over"


class Release:
    def __init__(self, player, time, held):
        self.player, self.time, self.held = player, time, held


class Press:
    def __init__(self, player, time):
        self.player, self.time = player, time


def test_button_mapper_tells_long_from_short_at_release():
    """With releases, a choice press is decided at the release: held long = confirm."""
    t = diced_out_bonus()
    m = ButtonMapper(t, releases=True, long_s=0.8)
    assert m.handle(Press(0, 3.0)) is None  # waits for the release
    assert m.handle(Release(0, 3.1, 0.1)) == "cycled"
    picked = t.decision_of(0).choices[t.highlighted(0)]
    assert m.handle(Press(0, 4.0)) is None
    assert m.handle(Release(0, 5.0, 1.0)) == "sent"
    assert t.journal.events[-1] == picked


def test_button_mapper_first_press_acts_at_once():
    """A one-press decision acts at the press, not the release (fair "first press wins")."""
    t = tally_up_rolled()
    m = ButtonMapper(t, releases=True)
    assert m.handle(Press(1, 11.0)) == "sent"
    assert t.journal.state["scores"][1] == 200


@pytest.mark.parametrize("want", ["in", "out"])
def test_press_plan_makes_the_table_send_the_event(want):
    t = tally_after_first_roll(("Ana", "Ben"))
    for p in (0, 1):
        for seat, long in press_plan(t, action(p, want)):
            t.press(seat, 1.0, long)
    assert t.secret == {0: want, 1: want}


def test_press_plan_for_choices():
    t = diced_out_bonus()
    target = t.decision_of(0).choices[-1]
    for seat, long in press_plan(t, target):
        t.press(seat, 3.0, long)
    assert t.journal.events[-1] == target


def test_start_menu_players_follow_the_game_limits():
    m = StartMenu(["Ana", "Ben", "Cy", "Dee", "Eli", "Fay"], default_game="rollers")
    m.key("down")
    for _ in range(5):
        m.key("right")
    assert len(m.players) == m.engine.MAX_PLAYERS
    m.key("up")
    m.key("left")  # to bank
    assert m.game_id == "diced-out"


def test_start_menu_options_step_through_allowed_values():
    m = StartMenu(["Ana", "Ben"], default_game="bank")
    row = 2 + m.option_names().index("rounds")
    m.change(row, 1)
    assert m.chosen_options()["rounds"] == 10  # 20 -> wraps to 10
    m.tap(("start", row, 1))
    assert m.chosen_options()["rounds"] == 15
    m.tap(("start", m.rows(), 0))
    assert m.outcome == "start"


def test_long_press_with_nothing_to_decide_undoes_after_a_second_one():
    """Undo by long press asks first, so a slip of the thumb undoes nothing."""
    t = table_for("bank", ("Ana", "Ben"))
    t.roll(["d6:2", "d6:3"], 0.0)
    assert t.press(1, 1.0, long=True) == "undo asked"
    assert len(t.journal.events) == 1 and "Long-press again" in t.message.text
    assert t.press(1, 2.0, long=True) == "undone"
    assert t.journal.events == []
    t.roll(["d6:2", "d6:3"], 3.0)
    t.press(0, 4.0, long=True)
    assert t.press(0, 20.0, long=True) == "undo asked"  # too late: asks again
    assert len(t.journal.events) == 1


def test_other_players_keep_their_decisions_while_a_die_is_fixed():
    """Bank: while the roller fixes an unread die, another player's press still banks."""
    t = table_for("bank", ("Ana", "Ben"))
    for i, dice in enumerate((["d6:2", "d6:3"], ["d6:4", "d6:1"], ["d6:6", "d6:2"])):
        t.roll(dice, float(i))
    roller = t.expect().roll.roller
    other = 1 - roller
    t.settled(SettledRoll((reading(10, "d6", "3"), reading(100, None, None))), 5.0)
    assert t.press(other, 5.5) == "sent"
    assert t.journal.state["banked"][other]
    assert t.press(roller, 6.0) == "cycled face"
