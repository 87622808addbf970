"""Computer players at the table (tray/table/bot_seats.py) and the live odds on the screen
(Session's odds modes, tray/screen/odds_view.py)."""

from __future__ import annotations

import random

from tray.app.session import Session, play_key
from tray.table.bot_seats import BotSeats
from tray.table.memory import MemoryJournal
from tray.table.table import Table


def _table(game, players, options=None):
    return Table(MemoryJournal.create(None, game, players, options or {}, None), countdown_s=1.0)


def test_a_bot_says_what_it_chose_then_presses_after_the_pause():
    table = _table("toss-up", ["Ana", "Bot"])
    seats = BotSeats(table, pause_s=1.0, rng=random.Random(1))
    assert table.roll(["toss:red"] * 10, t=0.0)  # Ana busts: the bot's turn
    seats.tick(0.1)
    assert table.message.text == "Throw all 10 dice for Bot"  # a person throws for it
    for i, greens in enumerate((10, 10, 7)):  # 27 points, 3 dice left
        assert table.roll(["toss:green"] * greens + ["toss:yellow"] * (10 - greens), t=1.0 + i)
        seats.tick(1.05 + i)
    assert table.message.text == "Bot: stop"
    seats.tick(3.5)
    assert table.state["scores"] == [0, 0]  # not before the pause is over
    seats.tick(4.1)
    assert table.state["scores"] == [0, 27] and table.state["active"] == 0


def test_a_bot_keeps_its_in_out_secret_and_joins_the_countdown():
    table = _table("tally-up", ["Ana", "Bot careful"])
    seats = BotSeats(table, pause_s=0.5)
    assert table.roll(["blue:100", "purple:100", "yellow:150"], t=0.0)  # 350
    seats.tick(0.1)
    assert table.message.text == "Bot careful has chosen"
    seats.tick(0.7)
    assert 1 in table.secret and table.countdown_from is None
    assert table.press(0, t=0.8) == "chose"  # Ana chooses: the countdown runs
    table.tick(2.0)
    assert table.state["last"]["kind"] == "reveal"
    assert table.state["last"]["in"] == [0, 1]  # careful stays IN below 400


def test_a_person_acting_first_makes_the_bot_think_again():
    table = _table("bank", ["Ana", "Bot bold"])
    seats = BotSeats(table, pause_s=1.0)
    for i, dice in enumerate(
        (["d6:6", "d6:1"], ["d6:6", "d6:1"], ["d6:6", "d6:1"], ["d6:6", "d6:6"])
    ):
        assert table.roll(dice, t=float(i))  # 210, then doubles: 432
    seats.tick(4.0)
    assert table.message.text == "Bot bold: bank"
    assert table.press(0, t=4.2) == "sent"  # Ana banks first
    seats.tick(4.3)  # the game changed: the bot re-thinks
    seats.tick(5.5)
    assert table.state["scores"] == [432, 432]


def test_no_bots_no_messages():
    table = _table("bank", ["Ana", "Ben"])
    seats = BotSeats(table)
    assert not seats
    seats.tick(0.0)
    assert table.message is None


def test_odds_on_screen_by_mode_and_key_o():
    table = _table("bank", ["Ana", "Ben"])
    session = Session(table, source=None, recognizer=None, settler=None)
    assert session.view(0.0).odds == []  # "off" by default in a bare session
    session.odds_mode = "always"
    lines = session.view(0.0).odds
    assert lines[0][0] == "Odds" and lines[1][0] == "roll" and "bust 0%" in lines[1][1]
    session.odds_mode = "hold"
    assert session.view(0.0).odds == []
    assert play_key(session, "o", False, 0.0) == "odds"
    assert session.view(0.0).odds
    session.mapper.pending[1] = 0.0  # Ben's button held down...
    session.odds_toggled = False
    assert session.view(0.2).odds == [] and session.view(0.5).odds  # ...for 0.4 s
