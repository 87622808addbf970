"""The dice layout each game ships with: which faces each of its dice carries.

A layout is data the owner may edit: the dice-set files of ``vision/dicesets/`` (explained in
``tray/rules/RULES.md``). The rules never read them; a new game's journal is given its layout
(``Journal.create``) and keeps it in its header, so a game replays with the dice it was
played with. The table takes the shipped one from here.

    >>> default_layout("bank")
    {'d6': ['1', '2', '3', '4', '5', '6']}
    >>> sorted(default_layout("tally-up"))[:3]
    ['blue', 'green', 'orange']
"""

from __future__ import annotations

from functools import cache

from tray.rules import games
from vision.dicesets import load


@cache
def shipped_layout(dice_set: str) -> dict[str, list[str]]:
    """The layout of a dice-set file (``vision/dicesets/<dice_set>.toml``); shared: copy it
    before changing it (:func:`default_layout` does)."""
    return load(dice_set).layout()


def default_layout(game_id: str) -> dict[str, list[str]]:
    """The layout of the dice set game ``game_id`` ships with (a fresh copy)."""
    engine = games.get(game_id)
    return {die: list(faces) for die, faces in shipped_layout(engine.DICE_SET).items()}
