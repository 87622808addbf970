"""The pygame-ce screen, headless: it draws every kind of view natively at the window's size,
maps taps, plays a sound once per new event, and the screenshots command draws every screen."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from tray.screen.display import Display, parse_size
from tray.screen.sound import CUES, Sounds, samples
from tray.screen.view import SetupView, build_view, how_to_view, start_view
from tray.table.memory import MemoryJournal
from tray.table.menu import StartMenu
from tray.table.table import Table


@pytest.fixture(scope="module")
def screen():
    return Display(size=(800, 480), headless=True)


def pixels(display) -> np.ndarray:
    import pygame

    return pygame.surfarray.array3d(display.window)


def bank_table() -> Table:
    t = Table(MemoryJournal.create(None, "bank", ["Ana", "Ben"], {}, None))
    t.roll(["d6:6", "d6:1"], 0.0)
    return t


def centre(rect) -> tuple[int, int]:
    return rect.center


def test_play_screen_draws_and_saves_png(screen, tmp_path):
    screen.draw(build_view(bank_table(), 0.0))
    path = screen.save(tmp_path / "play.png")
    assert path.exists() and path.stat().st_size > 2000
    img = pixels(screen)
    assert img.shape[:2] == (800, 480)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20  # text, dice, panels


@pytest.mark.parametrize("size", [(1024, 600), (1920, 1080)])
def test_drawn_natively_at_the_window_size_without_black_bars(size):
    big = Display(size=size, headless=True)
    big.draw(build_view(bank_table(), 0.0))
    img = pixels(big)
    assert img.shape[:2] == size
    # the header spans the whole width: no letterbox at the sides or the top
    assert tuple(img[2, 2]) != (0, 0, 0) and tuple(img[size[0] - 3, 2]) != (0, 0, 0)
    # text is rendered at the real size: the title's capitals scale with the height
    title = next(d for d in big.drawn if d.text == "Bank")
    assert title.cap >= 24 * size[1] / 480 - 1


def test_taps_hit_players_dice_and_buttons():
    for size in ((800, 480), (1920, 1080)):
        d = Display(size=size, headless=True)
        d.draw(build_view(bank_table(), 0.0))
        targets = {t: r for r, t in d.hits}
        assert d.hit(centre(targets[("player", 1)])) == ("player", 1)
        assert d.hit(centre(targets[("die", 0)])) == ("die", 0)
        undo = targets[("button", "undo")]
        assert undo.right > size[0] * 0.8 and undo.bottom > size[1] * 0.85  # bottom right
        assert d.hit(centre(undo)) == ("button", "undo")
        assert d.hit((size[0] // 2, 5)) is None  # the header


def test_message_and_banner_change_the_picture(screen):
    t = bank_table()
    screen.draw(build_view(t, 0.0))
    plain = pixels(screen).copy()
    t.roll(["d6:1"], 1.0)  # a wrong roll: message
    screen.draw(build_view(t, 1.0))
    assert (pixels(screen) != plain).any()
    assert any("roll both dice" in d.text for d in screen.drawn)


def test_start_screen_taps_and_question(screen):
    menu = StartMenu(["Ana", "Ben", "Cy"])
    screen.draw(start_view(menu))
    words = " ".join(d.text for d in screen.drawn)
    assert "First to reach the target score" in words  # choosing the game: how it is played
    menu.focus = 1
    screen.draw(start_view(menu))
    assert "3 Cy" in [d.text for d in screen.drawn]  # else who plays, in seat order
    targets = {t: r for r, t in screen.hits}
    assert screen.hit(centre(targets[("start", 1, 1)])) == ("start", 1, 1)  # ">" of players
    menu.offer_resume(Path("x.jsonl"), "Resume Bank with Ana and Ben (round 3)")
    screen.draw(start_view(menu))
    words = " ".join(d.text for d in screen.drawn)
    assert "(round 3)" in words and not any(d.cut for d in screen.drawn)  # the whole offer
    menu.do("discard")
    screen.draw(start_view(menu))
    targets = {t: r for r, t in screen.hits}
    assert ("confirm", 0) in targets and ("confirm", 1) in targets
    assert ("start", 0, 1) not in targets  # the question covers the menu


def test_setup_screen_shows_the_picture_and_numbers_the_dice(screen):
    frame = np.full((480, 640, 3), 90, np.uint8)
    boxes = [(100, 100, 50, 50, "d6:3", True), (130, 110, 50, 50, "d6:5", False)]
    screen.draw(SetupView(frame, boxes, "Tray: settled", "d6"))
    img = pixels(screen)
    assert abs(img[40, 40].astype(int) - 90).max() <= 4  # the camera picture is shown
    texts = [d.text for d in screen.drawn]
    assert "1. 3" in texts and "2. 5" in texts  # listed in words, not stacked on the picture
    assert "Dice: Standard d6" in texts


def test_how_to_page_draws_every_point(screen):
    v = how_to_view("tally-up")
    screen.draw(v)
    words = " ".join(d.text for d in screen.drawn)
    assert "TALLY UP!" in words and words.count("...") == 0


def test_a_cue_plays_once_per_new_event(monkeypatch):
    played = []
    d = Display(size=(800, 480), headless=True, sound=True)

    class Fake:
        def play(self, cue):
            played.append(cue)
            return True

    d._sounds = Fake()
    t = Table(MemoryJournal.create(None, "bank", ["Ana", "Ben"], {}, None))
    d.draw(build_view(t, 0.0))
    t.roll(["d6:6", "d6:1"], 0.0)
    d.draw(build_view(t, 0.1))
    d.draw(build_view(t, 0.2))  # same event: no second sound
    t.undo(0.3)
    d.draw(build_view(t, 0.3))  # an undo is not a roll
    assert played == ["roll"]
    muted = Display(size=(800, 480), headless=True, sound=False)
    muted._sounds = Fake()
    muted.draw(build_view(t, 0.0))
    t.roll(["d6:6", "d6:1"], 1.0)
    muted.draw(build_view(t, 1.0))
    assert played == ["roll"]


def test_sounds_are_synthesised_and_never_crash_without_a_device():
    for cue in CUES:
        s = samples(cue)
        assert s.dtype == np.int16 and 0.05 < len(s) / 22050 < 1.0 and np.abs(s).max() > 10000
    with pytest.raises(ValueError, match="the sounds are"):
        samples("trumpet")
    sounds = Sounds()  # SDL_AUDIODRIVER=dummy
    assert sounds.error is None and set(sounds.sounds) == set(CUES)
    assert sounds.play("bust") is True and sounds.play("nope") is False
    assert Sounds(enabled=False).play("win") is False


def test_parse_size():
    assert parse_size("1920x1080") == (1920, 1080)
    with pytest.raises(ValueError, match="WIDTHxHEIGHT"):
        parse_size("big")
    with pytest.raises(ValueError, match="landscape"):
        parse_size("480x800")


def test_screenshots_command_draws_every_screen_of_a_game(tmp_path, capsys):
    from tray.cli import main

    assert (
        main(["screenshots", "--out", str(tmp_path), "--game", "bank", "--size", "1024x600"]) == 0
    )
    names = {p.name for p in tmp_path.glob("*.png")}
    for want in (
        "start.png",
        "start-resume.png",
        "start-discard-asked.png",
        "bank-how-to-play.png",
        "bank-01-first-prompt.png",
        "bank-moment-seven.png",
        "bank-wrong-roll.png",
        "bank-unread-dice.png",
        "bank-camera-lost.png",
        "bank-table-menu.png",
        "bank-after-undo.png",
        "bank-end.png",
        "bank-setup.png",
    ):
        assert want in names
    import pygame

    assert pygame.image.load(str(tmp_path / "bank-end.png")).get_size() == (1024, 600)
    assert "screenshots in" in capsys.readouterr().out


def test_screenshots_rejects_a_bad_size(capsys):
    from tray.app.screenshots import main

    assert main(["--size", "huge"]) == 2
    assert "WIDTHxHEIGHT" in capsys.readouterr().err


def test_sound_is_a_screen_setting_in_the_config():
    from tray.app.config import ConfigError, parse_config

    assert parse_config({}).screen.sound is True
    assert parse_config({"screen": {"sound": False}}).screen.sound is False
    with pytest.raises(ConfigError, match=r"screen\.sound"):
        parse_config({"screen": {"sound": "off"}})


def test_the_screen_modules_docstring_examples_run():
    import doctest
    import importlib

    for name in (
        "screen.display",
        "screen.draw_play",
        "screen.draw_menus",
        "screen.draw_end",
        "screen.howto",
        "screen.sound",
        "screen.story",
        "screen.theme",
        "screen.view",
        "app.screenshots",
    ):
        module = importlib.import_module(f"tray.{name}")
        assert doctest.testmod(module).failed == 0, name


def test_no_audio_device_means_silence_not_a_crash(monkeypatch):
    import pygame

    def no_device(*a, **k):
        raise pygame.error("No available audio device")

    monkeypatch.setattr(pygame.mixer, "get_init", lambda: None)
    monkeypatch.setattr(pygame.mixer, "init", no_device)
    sounds = Sounds()
    assert "audio device" in sounds.error and sounds.play("win") is False
