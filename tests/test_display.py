"""The pygame-ce screen, headless: it draws every kind of view, scales, and maps taps."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

from tray.screen.display import Display, parse_size
from tray.screen.view import SetupView, build_view
from tray.table.actions import MemoryJournal, StartMenu, Table


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


def test_play_screen_draws_and_saves_png(screen, tmp_path):
    t = bank_table()
    screen.draw(build_view(t, 0.0))
    path = screen.save(tmp_path / "play.png")
    assert path.exists() and path.stat().st_size > 2000
    img = pixels(screen)
    assert img.shape[:2] == (800, 480)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20     # text, dice, panels


def test_taps_hit_players_and_buttons(screen):
    t = bank_table()
    screen.draw(build_view(t, 0.0))
    assert screen.hit((100, 80)) == ("player", 0)
    assert screen.hit((100, 130)) == ("player", 1)
    assert screen.hit((770, 460)) == ("button", "undo")
    assert screen.hit((400, 20)) is None


def test_scaled_window_keeps_the_layout_and_taps():
    big = Display(size=(1920, 1080), headless=True)
    t = bank_table()
    big.draw(build_view(t, 0.0))
    assert big.window.get_size() == (1920, 1080)
    x, y = 100 * big.scale + big.offset[0], 130 * big.scale + big.offset[1]
    assert big.hit((x, y)) == ("player", 1)


def test_message_and_banner_change_the_picture(screen):
    t = bank_table()
    screen.draw(build_view(t, 0.0))
    plain = pixels(screen).copy()
    t.roll(["d6:1"], 1.0)                     # a wrong roll: message overlay
    screen.draw(build_view(t, 1.0))
    assert (pixels(screen) != plain).any()


def test_start_and_setup_screens(screen):
    menu = StartMenu(["Ana", "Ben", "Cy"])
    screen.draw(menu.view())
    assert screen.hit((486, 134)) == ("start", 1, 1)          # ">" of the players line
    frame = np.full((480, 640, 3), 90, np.uint8)
    screen.draw(SetupView(frame, [(100, 100, 50, 50, "d6:3", True)], "Tray: settled", "d6"))
    img = pixels(screen)
    assert abs(img[40, 40].astype(int) - 90).max() <= 4      # the camera picture is shown


def test_parse_size():
    assert parse_size("1920x1080") == (1920, 1080)
    with pytest.raises(ValueError, match="WIDTHxHEIGHT"):
        parse_size("big")


def test_screenshots_command_draws_every_screen_of_a_game(tmp_path, capsys):
    from tray.cli import main

    assert main(["screenshots", "--out", str(tmp_path), "--game", "bank"]) == 0
    names = {p.name for p in tmp_path.glob("*.png")}
    for want in ("start.png", "bank-01-first-prompt.png", "bank-moment-seven.png",
                 "bank-wrong-roll.png", "bank-unread-dice.png", "bank-camera-lost.png",
                 "bank-end.png", "bank-setup.png"):
        assert want in names
    assert "screenshots in" in capsys.readouterr().out


def test_screenshots_rejects_a_bad_size(capsys):
    from tray.screen.screenshots import main

    assert main(["--size", "huge"]) == 2
    assert "WIDTHxHEIGHT" in capsys.readouterr().err
