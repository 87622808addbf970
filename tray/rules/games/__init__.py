"""The rules engines, one module a game. ``get(game_id)`` returns the module."""

from __future__ import annotations

import importlib

GAME_IDS = ("tally-up", "toss-up", "bank", "diced-out", "rollers")
_MODULES = {
    "tally-up": "tray.rules.games.tally_up",
    "toss-up": "tray.rules.games.toss_up",
    "bank": "tray.rules.games.bank",
    "diced-out": "tray.rules.games.diced_out",
    "rollers": "tray.rules.games.rollers",
}


def get(game_id: str):
    """The engine module of a game id; ValueError naming the choices for an unknown id."""
    try:
        return importlib.import_module(_MODULES[game_id])
    except KeyError:
        raise ValueError(f"unknown game {game_id!r}; choose one of {', '.join(GAME_IDS)}") from None
