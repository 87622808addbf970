"""The table app: camera frames -> vision -> the game -> the screen, and the buttons.

The parts, each small enough to read on its own:

=========================  =================================================================
module                     holds
=========================  =================================================================
tray/table/session.py      :class:`Session`: one game's loop turn (frame, vision, table, draw)
tray/table/play.py         ``dicetray play``: start screen -> games -> rematch -> quit
tray/table/demo.py         ``dicetray demo``: whole games on the simulated tray
tray/table/players.py      the demo's simulated players (they press buttons, as people do)
tray/table/actions.py      what a press, a key, a tap or a settled roll means (the table)
=========================  =================================================================

The controls (buttons, keys and touch do the same things) are listed in
tray/table/presses.py. This module keeps the names older callers import.

>>> from tray.table.app import run_demo
>>> result = run_demo("bank", players=2, seed=1, out="demo-out", options={"rounds": 10})  # doctest: +SKIP
>>> result["summary"]["finished"]                                                        # doctest: +SKIP
True
"""

from __future__ import annotations

from tray.table.demo import DEMO_OPTIONS, SHOTS_PER_KIND, log_line, main_demo, run_demo
from tray.table.play import Play, main_play, run_play
from tray.table.players import SimPlayers
from tray.table.session import (
    DEMO_NAMES,
    Session,
    discard,
    led_states,
    make_journal,
    options_of,
    parse_options,
    play_key,
    resume_offer,
    rolls_taken,
    sim_throw_ids,
)

__all__ = [
    "DEMO_NAMES",
    "DEMO_OPTIONS",
    "SHOTS_PER_KIND",
    "Play",
    "Session",
    "SimPlayers",
    "discard",
    "led_states",
    "log_line",
    "main_demo",
    "main_play",
    "make_journal",
    "options_of",
    "parse_options",
    "play_key",
    "resume_offer",
    "rolls_taken",
    "run_demo",
    "run_play",
    "sim_throw_ids",
]
