"""The real play loop (tray/app/play.py) worked with the player buttons alone: gpiozero
MockFactory pins driven low and high (no mock objects for the buttons), an injected clock, a
stand-in camera that shows the dice the test throws. From the start screen through a game, a
rematch with the same options, another game, discarding it, and quitting the table (exit 0)."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from gpiozero.pins.mock import MockFactory

from tray.app.config import load_config
from tray.app.play import run_play
from tray.rules.journal import Journal
from vision.types import DieReading, FrameReading, SettledRoll

PINS = [17, 27]
LEDS = [5, 6]
EMPTY = FrameReading((), empty=True)


class Tray:
    """The stand-in camera: an empty tray until the test throws; each frame's reading is kept
    for :class:`Reader` (the stand-in for vision's Recognizer)."""

    def __init__(self):
        self.frames: list[FrameReading] = []
        self.shown: list[FrameReading] = []

    def put(self, *specs: str) -> None:
        dice = tuple(
            DieReading(40 + 60 * i, 100, 40, 40, *s.split(":"), 0.95) for i, s in enumerate(specs)
        )
        self.frames += [FrameReading(dice, motion=0.0)] * 4 + [EMPTY]

    def read(self, timeout=1.0):
        self.shown.append(self.frames.pop(0) if self.frames else EMPTY)
        return np.zeros((4, 4, 3), np.uint8)

    def close(self):
        pass


class Reader:
    def __init__(self, tray):
        self.tray = tray

    def read(self, frame):
        return self.tray.shown[-1]


class Settler:
    """A roll once the same dice were seen 3 frames in a row (then nothing until empty)."""

    def __init__(self):
        self.prev, self.count, self.armed = None, 0, True

    def update(self, reading):
        if reading.empty:
            self.prev, self.count, self.armed = None, 0, True
            return None
        key = tuple((d.die, d.face) for d in reading.dice)
        self.count = self.count + 1 if key == self.prev else 1
        self.prev = key
        if self.armed and self.count >= 3:
            self.armed = False
            return SettledRoll(tuple(reading.dice))
        return None


class Hands:
    """The players' hands: a script of steps run from the loop's ``on_step`` hook, one loop
    turn (50 ms of the injected clock) at a time."""

    def __init__(self, factory):
        self.factory = factory
        self.t = 0.0
        self.steps: list = []
        self.turns = 0
        self.play = None
        self.seen: list[str] = []

    def clock(self) -> float:
        return self.t

    def press(self, seat: int, long: bool = False):
        hold = 1.0 if long else 0.1
        pin = self.factory.pin(PINS[seat])
        state = {}

        def step(play, t):
            if "down" not in state:
                pin.drive_low()
                state["down"] = t
            elif "up" not in state and t >= state["down"] + hold:
                pin.drive_high()
                state["up"] = t
            return "up" in state and t >= state["up"] + 0.1

        self.steps.append(step)

    def presses(self, seat: int, *longs: bool):
        for long in longs:
            self.press(seat, long)

    def wait(self, turns: int):
        left = [turns]

        def step(play, t):
            left[0] -= 1
            return left[0] < 0

        self.steps.append(step)

    def until(self, cond):
        self.steps.append(lambda play, t: cond(play))

    def do(self, fn):
        self.steps.append(lambda play, t: fn(play) or True)

    def on_step(self, play, t):
        self.play = play
        self.turns += 1
        assert self.turns < 20000, f"the script got stuck at step {len(self.seen)}"
        self.t += 0.05
        while self.steps and self.steps[0](play, self.t):
            self.steps.pop(0)
            self.seen.append("done")


def _config(tmp_path, more: str = ""):
    """The table's config: two players with a button and a LED each, Bank first; ``more``
    added at its end."""
    path = tmp_path / "config.toml"
    path.write_text(f"""
[players]
names = ["Ann", "Bo"]
[pins]
buttons = {PINS}
leds = {LEDS}
[game]
default = "bank"
[journal]
directory = "{tmp_path / "journals"}"
{more}""")
    return load_config(path)


@pytest.fixture
def cfg(tmp_path):
    return _config(tmp_path)


def test_buttons_alone_from_the_start_screen_to_quit(cfg, tmp_path):
    import pygame

    factory = MockFactory()
    hands = Hands(factory)
    tray = Tray()
    tables = []

    import tray.app.play as play_mod

    real_table = play_mod.Table

    def keep_table(journal):
        tables.append(real_table(journal))
        return tables[-1]

    def roll(*specs):
        def go(play):
            n = tables[-1].rolls_taken
            tray.put(*specs)
            hands.steps.insert(1, lambda play, t: tables[-1].rolls_taken == n + 1)

        hands.do(go)

    leds = []

    def look_at_leds(play):
        leds.append([bool(factory.pin(p).state) for p in LEDS])

    hands.do(look_at_leds)  # the start screen: every button lit
    # a stray Esc on the start screen leaves nothing
    hands.do(
        lambda play: pygame.event.post(
            pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0)
        )
    )
    # start screen: Bank (the config's default), 2 players; rounds 20 -> 15; Start
    hands.presses(1, False, False)  # Bo: game -> players -> rounds
    hands.presses(1, True, False, True)  # change it: 20 wraps round to 10
    hands.until(lambda play: play.menu.value("rounds") == 10)
    hands.presses(0, True, False, True)  # Ann: again: 10 -> 15
    hands.until(lambda play: play.menu.value("rounds") == 15)
    hands.presses(0, False, False, True)  # doubles rule -> Start, OK
    hands.until(lambda play: len(tables) == 1)
    hands.wait(3)  # a few loop turns into the game
    hands.do(look_at_leds)  # game 1: only Ann's (she rolls first)
    # game 1: three rolls, Ann banks 78, a 7 ends round 1
    roll("d6:3", "d6:4")
    roll("d6:2", "d6:3")
    roll("d6:1", "d6:2")
    hands.press(0)  # Ann banks at once
    hands.until(lambda play: tables[-1].state["banked"][0])
    roll("d6:3", "d6:4")
    hands.until(lambda play: tables[-1].state["round"] == 2)
    # the table menu (a long press with nothing to decide): Undo, Correct, End the game, Yes
    hands.presses(1, True, False, False, True, False, True)
    hands.until(lambda play: tables[-1].expect().finished)
    # end screen: Rematch is highlighted: a long press
    hands.press(0, True)
    hands.until(lambda play: len(tables) == 2)
    # game 2 (the rematch): ended at once from the table menu (no roll: nothing to correct)
    hands.presses(0, True, False, True, False, True)
    hands.until(lambda play: tables[-1].expect().finished)
    # end screen: Another game -> the start screen with the game line ready to change
    hands.presses(1, False, True)
    hands.until(lambda play: play.menu.editing and play.menu.focus == 0)
    for _ in range(4):  # bank -> diced-out -> rollers -> tally -> toss
        hands.press(1)
    hands.until(lambda play: play.menu.game_id == "toss-up")
    hands.press(1, True)  # done changing the game
    hands.do(lambda play: hands.steps.__setitem__(slice(1, 1), [_goto(hands, play.menu.rows())]))
    hands.press(1, True)  # Start
    hands.until(lambda play: len(tables) == 3)
    # game 3: Toss Up!, Ann rolls, then Bo leaves it from the table menu (the game is kept)
    roll(*(["toss:green"] * 3 + ["toss:yellow"] * 7))
    hands.presses(1, True, False, False, True)  # table menu: Undo, Correct, Leave: OK
    hands.until(lambda play: play.menu.resume_path is not None)
    # start screen: Resume is highlighted; Discard (asks: Yes), then Quit the table (asks: Yes)
    hands.presses(0, False, True, False, True)
    hands.until(lambda play: play.menu.resume_path is None)
    hands.do(
        lambda play: hands.steps.__setitem__(
            slice(1, 1), [_goto(hands, play.menu.rows() + play.menu.actions().index("quit"))]
        )
    )
    hands.presses(0, True, False, True)

    play_mod.Table = keep_table
    try:
        code = run_play(
            cfg,
            headless=True,
            max_seconds=1200,
            clock=hands.clock,
            pin_factory=factory,
            on_step=hands.on_step,
            open_source=lambda dice_set: tray,
            open_vision=lambda diceset: (Reader(tray), Settler()),
        )
    finally:
        play_mod.Table = real_table
    # quit from the menu (exit 0); the last release ends the loop before its step can finish
    assert code == 0 and len(hands.steps) <= 1
    assert leds == [[True, True], [True, False]]
    first, rematch, toss = (t.journal for t in tables)
    assert first.game_id == rematch.game_id == "bank"
    assert first.header["options"]["rounds"] == 15
    assert rematch.header["options"] == first.header["options"]  # same options
    assert rematch.players == first.players == ["Ann", "Bo"]
    assert Journal.open(first.path).finished and Journal.open(rematch.path).finished
    assert first.summary()["players"][0]["score"] == 78
    assert toss.game_id == "toss-up" and not toss.path.exists()  # discarded...
    assert toss.path.with_name(toss.path.name + ".discarded").exists()  # ...put aside


def _watch(drawn: list):
    """A step that has the play loop's display note the type of each view it draws."""

    def step(play):
        real = play.display.draw
        play.display.draw = lambda view: (drawn.append(type(view)), real(view))[1]

    return step


def _goto_action(hands):
    """``goto(action)``: adds the steps that move the start screen's focus to ``action``."""

    def goto(action):
        hands.do(
            lambda play: hands.steps.__setitem__(
                slice(1, 1), [_goto(hands, play.menu.rows() + play.menu.actions().index(action))]
            )
        )

    return goto


def _quit_and_run(cfg, hands, factory, tray, max_seconds: float) -> int:
    """Ends the script by quitting the table from the start screen, then runs the play loop
    on the stand-in camera with the script: its exit code, once every step was taken."""
    _goto_action(hands)("quit")
    hands.presses(0, True, False, True)  # Quit the table? Yes
    code = run_play(
        cfg,
        headless=True,
        max_seconds=max_seconds,
        clock=hands.clock,
        pin_factory=factory,
        on_step=hands.on_step,
        open_source=lambda dice_set: tray,
        open_vision=lambda diceset: (Reader(tray), Settler()),
    )
    assert len(hands.steps) <= 1
    return code


def _goto(hands, line):
    """A step that presses short until the start screen's focus is on ``line``."""
    state = {"pending": None}

    def step(play, t):
        if state["pending"] is None:
            if play.menu.focus == line:
                return True
            hands.press(1)
            state["pending"] = hands.steps.pop()
        if state["pending"](play, t):
            state["pending"] = None
        return False

    return step


def test_how_to_play_is_one_line_of_the_start_screen_and_a_press_comes_back(cfg):
    """Buttons alone: go down to "How to play Bank", long press: the game's how-to page is
    drawn; a short press comes back to the start screen. The table history opens and a long
    press comes back the same way; then the table quits (exit 0)."""
    from tray.screen.view import HowToView, StartView

    factory = MockFactory()
    hands = Hands(factory)
    tray = Tray()
    drawn = []

    hands.do(_watch(drawn))
    goto = _goto_action(hands)
    goto("howto")
    hands.press(0, long=True)
    hands.until(lambda play: HowToView in drawn)
    hands.press(0)  # back
    hands.until(lambda play: drawn[-1] is StartView)
    goto("history")  # the table's history: the same pages
    hands.press(0, long=True)
    hands.until(lambda play: drawn[-1] not in (StartView, HowToView))
    hands.press(0, long=True)  # a long press goes back
    hands.until(lambda play: drawn[-1] is StartView)
    assert _quit_and_run(cfg, hands, factory, tray, 600) == 0
    first = drawn.index(HowToView)
    assert StartView in drawn[first:]  # the start screen again after the page


def test_the_start_screen_teaches_the_tray_from_the_rolls_kept_in_play(tmp_path):
    """Once the rolls kept in play (``[vision] played``) hold 40 dice, the start screen offers
    to teach from them; a long press on that line teaches (the real ``vision.teach``, its
    progress drawn), says how it went, and the offer is gone until more rolls are kept. The
    next game of the set reads with the taught folder; one named in the config goes first."""
    from hardware.sim.render import render_scene
    from lab.teachbench import OWNER
    from tray.screen.capture import TeachView
    from tray.table.played import TEACH_DICE, PlayedRolls
    from vision.dicesets import load
    from vision.teach import MIN_DICE

    assert TEACH_DICE == MIN_DICE
    played_root = tmp_path / "played"
    cfg = _config(tmp_path, f'[vision]\nplayed = "{played_root}"\n')
    # the owner's star-on-the-6 dice, kept roll by roll as play keeps them: 9 rolls, 36 dice
    d6, rng = load("d6"), np.random.default_rng(4)
    kept = PlayedRolls(played_root, d6)

    def keep_rolls(n: int, into: PlayedRolls = kept) -> None:
        for i in range(n):
            faces = [str((i + k) % 6 + 1) for k in range(4)]
            frame, labels = render_scene(OWNER, [("d6", f) for f in faces], rng)
            boxes = [((b["x"], b["y"], b["w"], b["h"]), f"d6:{b['face']}") for b in labels]
            assert into.keep(frame, boxes) is not None

    keep_rolls(9)
    factory = MockFactory()
    hands = Hands(factory)
    tray = Tray()
    drawn = []

    offers = []
    goto = _goto_action(hands)
    hands.do(_watch(drawn))
    hands.wait(3)
    hands.do(lambda play: offers.append(play.menu.teach))  # 36 dice: not offered
    # a game keeps 3 more rolls (48 dice now), and the start screen comes back
    hands.do(lambda play: (keep_rolls(3, play._played_rolls(d6)), play.offers.clear()))
    hands.until(lambda play: play.menu.teach is not None)
    hands.do(lambda play: offers.append(play.menu.teach))
    goto("teach")
    hands.press(0, long=True)
    hands.until(lambda play: play.menu.message is not None)
    hands.do(lambda play: offers.append((play.menu.message, play.menu.teach)))
    hands.wait(3)
    hands.do(lambda play: offers.append(play.menu.teach))
    assert _quit_and_run(cfg, hands, factory, tray, 1200) == 0
    assert offers[0] is None
    assert offers[1] == "Teach the tray your dice (12 kept rolls)"
    message, teach_line = offers[2]
    assert teach_line is None and offers[3] is None
    assert message.startswith("Taught from 48 dice: ") and message.endswith("reads with it")
    assert TeachView in drawn  # teaching's progress was on the screen
    taught = played_root / "d6" / "taught"
    assert (taught / "taught.json").is_file() and (taught / "head-d6.npz").is_file()
    # the next game of d6 reads with it (not on the simulated tray), unless one is configured
    play = hands.play
    play.source = tray
    rec, _ = play._open_vision(d6)
    assert rec.classifier.taught_head
    assert str(rec.classifier.taught.folder) == str(taught)
    import shutil

    shutil.copytree(taught, tmp_path / "mine")  # --taught (or the config's) goes first
    play.taught = str(tmp_path / "mine")
    rec, _ = play._open_vision(d6)
    assert str(rec.classifier.taught.folder) == str(tmp_path / "mine")
    assert play._played_rolls(d6).teach_hint() is None  # (nothing new to say on quitting)
    keep_rolls(1, play._played_rolls(d6))  # a roll kept since: offered again
    play.offers.clear()
    assert play._teach_offer("bank") == "Teach the tray your dice (13 kept rolls)"
    assert "13 corrected rolls (52 dice)" in play._played_rolls(d6).teach_hint()


def test_teaching_on_the_start_screen_stops_on_a_long_press_esc_or_a_closed_window():
    """What stops teaching from the start screen (``Play._stop_asked``): a short press does
    not, a long one does (decided when the button is let go); Esc does; a closed window does,
    and stays in the queue so that the start screen then quits."""
    import queue
    from types import SimpleNamespace

    import pygame

    from hardware.buttons import ButtonPress, ButtonRelease
    from tray.app.play import Play

    was_on = pygame.display.get_init()
    pygame.display.init()  # (the event queue)
    try:
        events = queue.Queue()
        play = SimpleNamespace(events=events, releases=True, long_s=0.8)
        stop = Play._stop_asked(play)
        assert stop() is False
        events.put(ButtonPress(1, 1.0))
        events.put(ButtonRelease(1, 1.2, 0.2))  # a short press
        assert stop() is False
        events.put(ButtonPress(1, 2.0))
        assert stop() is False  # held: not decided yet
        events.put(ButtonRelease(1, 3.0, 1.0))
        assert stop() is True
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_a, mod=0))
        assert stop() is False
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0))
        assert stop() is True
        pygame.event.post(pygame.event.Event(pygame.QUIT))
        assert stop() is True
        assert [e.type for e in pygame.event.get(pygame.QUIT)] == [pygame.QUIT]
    finally:
        if not was_on:
            pygame.display.quit()
