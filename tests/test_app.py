"""The app loop (session, play, demo) driven by a scripted frame source and ButtonPress events,
with an injected clock: no real time passes."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

from hardware.buttons import ButtonPress
from tray.app.play import main_play
from tray.app.session import Session, resume_offer
from tray.layouts import default_layout
from tray.rules.journal import Journal
from tray.table.table import Table
from vision.types import DieReading, FrameReading


class ScriptedSource:
    """Frames from a script: each item is a FrameReading (the frame "shows" it) or None (the
    camera gave nothing in time)."""

    def __init__(self, script):
        self.script = list(script)
        self.i = 0
        self.fps = 30

    def read(self, timeout=1.0):
        if self.i >= len(self.script):
            return None
        item = self.script[self.i]
        self.i += 1
        if item is None:
            return None
        frame = np.zeros((4, 4, 3), np.uint8)
        frame[0, 0, 0] = self.i - 1
        return frame

    def close(self):
        pass


class ScriptedRecognizer:
    """Stands in for vision's Recognizer: the reading of a scripted frame is in the script."""

    def __init__(self, source):
        self.source = source

    def read(self, frame):
        return self.source.script[int(frame[0, 0, 0])]


class SimpleSettler:
    """A small settler for the loop tests: a roll once the same dice were seen 3 frames in a
    row, then nothing until the tray is empty again (what vision.settle.Settler also does)."""

    def __init__(self):
        self.prev, self.count, self.armed, self.status = None, 0, True, "empty"

    def update(self, reading):
        from vision.types import SettledRoll

        if reading.empty or not reading.dice:
            self.prev, self.count, self.armed, self.status = None, 0, True, "empty"
            return None
        key = tuple((d.die, d.face) for d in reading.dice)
        self.count = self.count + 1 if key == self.prev else 1
        self.prev = key
        if self.armed and self.count >= 3:
            self.armed = False
            self.status = "settled"
            return SettledRoll(tuple(reading.dice))
        return None


def dice(*specs):
    out = []
    for i, s in enumerate(specs):
        die, face = s.split(":") if s else (None, None)
        out.append(DieReading(40 + 60 * i, 100, 40, 40, die, face, 0.95 if s else 0.2))
    return FrameReading(tuple(out), motion=0.0)


EMPTY = FrameReading((), empty=True)


def throw(*specs, still=4):
    return [EMPTY, EMPTY] + [dice(*specs)] * still + [EMPTY]


def make_session(tmp_path, game, players, script, options=None):
    j = Journal.create(
        tmp_path / f"{game}.jsonl", game, players, options or {}, default_layout(game)
    )
    table = Table(j)
    source = ScriptedSource(script)
    s = Session(table, source, ScriptedRecognizer(source), SimpleSettler(), read_timeout=0.0)
    return s


def run(session, steps, t0=0.0, dt=1 / 30):
    t = t0
    for _ in range(steps):
        session.step(t)
        t += dt
    return t


def journal_lines(session):
    return [json.loads(x) for x in session.table.journal.path.read_text().splitlines()]


def test_settled_roll_is_journaled_before_it_is_shown(tmp_path):
    s = make_session(tmp_path, "bank", ["Ana", "Ben"], throw("d6:3", "d6:5"))
    shown = []

    class Screen:
        def draw(self, view):
            lines = journal_lines(s)
            shown.append((view.roll and [d.spec for d in view.roll], len(lines)))

    s.display = Screen()
    run(s, 8)
    assert s.table.state["total"] == 8
    # every view that shows the roll was drawn after the roll was on disk
    first = next(i for i, (roll, _) in enumerate(shown) if roll)
    assert shown[first][1] == 2 and shown[first][0] == ["d6:3", "d6:5"]


def test_wrong_count_of_dice_is_refused_then_the_right_roll_taken(tmp_path):
    s = make_session(
        tmp_path, "bank", ["Ana", "Ben"], throw("d6:3", "d6:4", "d6:5") + throw("d6:1", "d6:2")
    )
    run(s, 6)
    assert s.table.message is not None and "3 dice seen" in s.table.message.text
    assert s.table.journal.events == []
    run(s, 8, t0=1.0)
    assert s.table.journal.events == [{"type": "roll", "dice": ["d6:1", "d6:2"]}]


def test_unread_die_waits_for_a_fix_by_button(tmp_path):
    s = make_session(tmp_path, "bank", ["Ana", "Ben"], throw("d6:5", None) + [EMPTY] * 4)
    run(s, 7)
    assert s.table.correction is not None and s.table.journal.events == []
    for _ in range(6):  # d6:1 .. d6:6
        s.events.put(ButtonPress(0, 1.0))
    run(s, 1, t0=1.0)
    assert s.table.journal.events == []  # nothing scored until confirmed
    s.table.press(0, 1.1, long=True)
    assert s.table.journal.events == [{"type": "roll", "dice": ["d6:5", "d6:6"]}]


def test_button_queue_drives_the_secret_reveal(tmp_path):
    s = make_session(
        tmp_path,
        "tally-up",
        ["Ana", "Ben"],
        throw("red:200", "blue:100", "yellow:150") + [EMPTY] * 200,
    )
    t = run(s, 7)
    s.events.put(ButtonPress(1, t))  # Ben: IN
    s.events.put(ButtonPress(0, t))
    s.events.put(ButtonPress(0, t))  # Ana: OUT
    t = run(s, 2, t0=t)
    assert s.table.counting_down()
    assert len(s.table.journal.events) == 1  # nothing revealed yet
    run(s, 100, t0=t)  # 3.3 s of loop time
    acts = [(e["player"], e["action"]) for e in s.table.journal.events[1:]]
    assert acts == [(0, "out"), (1, "in")]
    assert s.table.state["scores"] == [450, 0]


def test_tally_up_press_window_closes_on_loop_time(tmp_path):
    s = make_session(
        tmp_path,
        "tally-up",
        ["Ana", "Ben"],
        throw("red:star", "orange:star", "yellow:star") + [EMPTY] * 200,
        {"press_window_s": 2},
    )
    run(s, 7)
    assert s.table.window_decision() is not None
    run(s, 70, t0=7 / 30)
    assert s.table.journal.events[-1] == {"type": "action", "player": -1, "action": "window_closed"}


def test_camera_dropout_mid_game_keeps_the_game_and_goes_on(tmp_path):
    script = throw("d6:3", "d6:5") + [None] * 90 + throw("d6:6", "d6:6")
    s = make_session(tmp_path, "bank", ["Ana", "Ben"], script)
    t = run(s, 7)
    assert s.table.state["total"] == 8
    t = run(s, 80, t0=t)
    assert s.table.message is not None and s.table.message.kind == "camera"
    assert s.table.state["total"] == 8  # the game is kept
    run(s, 20, t0=t)
    assert s.table.message is None or s.table.message.kind != "camera"
    assert s.table.state["total"] == 20  # 8 + 12 (doubles plain in phase 1)


def test_resume_offer_names_the_unfinished_game(tmp_path):
    assert resume_offer(tmp_path) is None
    j = Journal.create(tmp_path / "g.jsonl", "bank", ["Ana", "Ben"], {}, default_layout("bank"))
    j.append({"type": "roll", "dice": ["d6:1", "d6:2"]})
    path, text = resume_offer(tmp_path)
    assert path == tmp_path / "g.jsonl"
    assert "Bank" in text and "Ana" in text


def test_bad_config_names_the_key_and_exits_2(tmp_path, capsys):
    cfg = tmp_path / "config.toml"
    cfg.write_text("[pins]\nbuttons = [99]\n")
    assert main_play(["--config", str(cfg), "--headless"]) == 2
    err = capsys.readouterr().err
    assert "buttons" in err


def test_a_missing_taught_folder_in_the_config_is_told_before_the_start_screen(tmp_path, capsys):
    cfg = tmp_path / "config.toml"
    cfg.write_text(
        f'[journal]\ndirectory = "{tmp_path / "j"}"\n'
        f'[vision]\ntaught = {{ d6 = "{tmp_path / "gone"}" }}\n'
    )
    # no --game: without the check the start screen would wait for a press (until --max-seconds)
    assert (
        main_play(["--config", str(cfg), "--headless", "--source", "sim", "--max-seconds", "3"])
        == 2
    )
    err = capsys.readouterr().err
    assert "[vision] taught" in err and "not a taught folder" in err
    assert not (tmp_path / "j").exists() or not any((tmp_path / "j").iterdir())


@pytest.mark.parametrize("argv", [["--game", "nope"]])
def test_demo_rejects_unknown_game(argv):
    from tray.app.demo import main_demo

    with pytest.raises(SystemExit) as exc:
        main_demo(argv)
    assert exc.value.code == 2


def test_demo_rejects_bad_player_count(capsys):
    from tray.app.demo import main_demo

    assert main_demo(["--game", "rollers", "--players", "9", "--headless"]) == 2
    assert "2 to 5 players" in capsys.readouterr().err


def test_leds_show_who_is_awaited_not_what_they_chose(tmp_path):
    from tray.app.session import led_states

    s = make_session(tmp_path, "tally-up", ["Ana", "Ben", "Cy"], [])
    assert led_states(s.table) == [True, False, False]  # Ana rolls
    s.table.roll(["red:200", "blue:100", "yellow:150"], 0.0)
    assert led_states(s.table) == [True, True, True]  # everyone chooses
    s.table.press(1, 1.0)
    s.table.press(2, 1.0)
    s.table.press(2, 1.1)
    assert led_states(s.table) == [True, False, False]  # Ben and Cy chose: off alike


def test_play_keys_go_through_the_button_queue(tmp_path):
    from hardware.buttons import KeyboardButtons
    from tray.app.session import play_key

    s = make_session(tmp_path, "toss-up", ["Ana", "Ben"], [])
    s.keys = KeyboardButtons(s.events, players=2, clock=lambda: 0.0)
    s.table.roll(["toss:green"] * 2 + ["toss:yellow"] * 8, 0.0)
    assert play_key(s, "2", False, 1.0) == "pressed"  # not Ben's turn: nothing
    assert s.table.state["scores"] == [0, 0]
    assert play_key(s, "1", False, 1.0) == "pressed"  # Ana stops
    assert s.table.state["scores"] == [2, 0]
    assert play_key(s, "s", False, 1.0) == "setup" and s.setup_view
    assert play_key(s, "escape", False, 1.0) == "cancelled"  # a stray Esc never leaves
    assert s.table.outcome is None


def test_play_key_t_throws_on_the_simulated_tray(tmp_path):
    from tray.app.session import play_key

    class Tray(ScriptedSource):
        thrown = None

        def throw(self, dice):
            Tray.thrown = list(dice)

    s = make_session(tmp_path, "tally-up", ["Ana", "Ben"], [])
    s.source = Tray([])
    assert play_key(s, "t", False, 0.0) == "thrown"
    assert len(Tray.thrown) == 3 and len(set(Tray.thrown)) == 3  # three Tally Dice


def test_enter_on_the_end_screen_is_a_rematch(tmp_path):
    from tray.app.session import play_key

    s = make_session(tmp_path, "bank", ["Ana", "Ben"], [])
    s.table.roll(["d6:2", "d6:3"], 0.0)
    s.table.table_action("end_game", 1.0)
    assert play_key(s, "return", False, 2.0) == "rematch"
