"""Golden games: a few complete seeded games per engine, written as readable text records in
tests/golden/<game>.txt and compared on every run, so any change of a game's behaviour shows up
as a diff. After an intended rules change, regenerate and review the diff:

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden.py

The example journals in fixtures/journals/ are checked here too: each still replays to a
finished game (they are written by ``tray.playthrough.regenerate_examples``).
"""

from __future__ import annotations

import os
from pathlib import Path
from unittest import mock

import pytest

from tray.playthrough import EXAMPLES, format_playthrough, play, regenerate_examples
from tray.rules import games
from tray.rules.journal import Journal

GOLDEN = Path(__file__).resolve().parent / "golden"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "journals"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
DEFAULT_RATE = 0.7  # the golden players mostly follow the screen's suggestion

# Per game: (players, options, seed) of each golden game.
CASES = {
    "tally-up": [
        (["Ann", "Ben"], {}, 1),
        (["Ann", "Ben", "Cy", "Dee"], {"target": 1000}, 2),
        (["Ann", "Ben", "Cy"], {"every_player_once": True, "high_stakes": True}, 3),
    ],
    "toss-up": [(["Ann", "Ben"], {}, 1), (["Ann", "Ben", "Cy"], {"tie_break": True}, 2)],
    "bank": [
        (["Ann", "Ben"], {"rounds": 10}, 1),
        (["Ann", "Ben", "Cy", "Dee"], {"rounds": 10, "doubles_rule": "double_only"}, 2),
    ],
    "diced-out": [(["Ann", "Ben"], {}, 1), (["Ann", "Ben", "Cy"], {"rounds": 2}, 2)],
    "rollers": [(["Ann", "Ben"], {"target": 3}, 1), (["Ann", "Ben", "Cy"], {"target": 3}, 2)],
}


def render(game_id: str) -> str:
    """The golden text of a game: every case played and written out."""
    parts = []
    for players, options, seed in CASES[game_id]:
        events = play(game_id, players, options, seed, default_rate=DEFAULT_RATE)
        header = {"players": players, "options": options, "seed": seed}
        parts.append(format_playthrough(game_id, header, events))
    return "\n".join(parts)


def first_difference(new: str, old: str) -> str:
    a, b = new.splitlines(), old.splitlines()
    for i, (x, y) in enumerate(zip(a, b, strict=False), start=1):
        if x != y:
            return f"line {i}:\n  expected: {y}\n  got:      {x}"
    return f"the texts differ in length: {len(b)} lines expected, {len(a)} now"


@pytest.mark.parametrize("game_id", games.GAME_IDS)
def test_golden_games_play_the_same(game_id):
    text = render(game_id)
    path = GOLDEN / f"{game_id}.txt"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if not path.exists():
        pytest.fail(
            f"{path} is missing: create it with UPDATE_GOLDEN=1 "
            f".venv/bin/python -m pytest tests/test_golden.py, and review it"
        )
    old = path.read_text(encoding="utf-8")
    if text != old:
        pytest.fail(
            f"{game_id} plays differently from {path.name}, first at "
            f"{first_difference(text, old)}\nIf the change is intended, regenerate "
            "with UPDATE_GOLDEN=1 and review the diff."
        )
    # every golden game was played to its end
    summaries = [line for line in text.splitlines() if line.startswith("summary: ")]
    assert len(summaries) == len(CASES[game_id])
    assert all('"finished":true' in line for line in summaries)


@pytest.mark.parametrize("game_id", games.GAME_IDS)
def test_example_journal_replays_to_a_finished_game(game_id, tmp_path):
    """The shipped example journal still replays with today's engine (a journal recorded
    earlier must stay readable), and the generator still plays a whole game."""
    path = FIXTURES / f"{game_id}.jsonl"
    if UPDATE:
        regenerate_examples(FIXTURES, (game_id,))
    if not path.exists():
        pytest.fail(
            f"{path} is missing: create it with UPDATE_GOLDEN=1 "
            f".venv/bin/python -m pytest tests/test_golden.py"
        )
    j = Journal.open(path)
    assert j.finished and j.game_id == game_id
    assert j.players == EXAMPLES[game_id][0]
    with mock.patch("tray.rules.journal.os.fsync"):  # durability is tested in test_journal.py
        (fresh,) = regenerate_examples(tmp_path, (game_id,))
    assert Journal.open(fresh).finished
