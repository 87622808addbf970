"""Each game played through the REAL vision pipeline: a scripted sequence of throws (seeded, from
the random player tray.playthrough) is rendered by the simulated tray, read by
vision.pipeline.Recognizer and vision.settle.Settler, and the decisions are pressed on the
buttons through the app's mapping. The game the journal holds at the end must be exactly the
one the script leads to by the rules alone (same scores, same state), including a game where
the camera drops out in the middle.

Kept quick: short options (Tally Up! every player once with 2 players, Bank ended early, the
others a scripted part of a game), few rest frames.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pytest

from tray import playthrough
from tray.app.demo import run_demo
from tray.rules import games
from tray.rules.journal import Journal, replay

PLAYERS = ["Ana", "Ben"]

# game -> (options, number of scripted events or None for the whole game, seed)
CASES = {
    "tally-up": ({"every_player_once": True, "press_window_s": 2}, None, 4),
    "bank": ({"rounds": 10}, 8, 2),
    "toss-up": ({}, 6, 1),
    "diced-out": ({"rounds": 1}, 8, 1),
    # Rollers saves name dice by their place in the roll, and the camera reads a throw in its
    # own order: the script stops before the first save (roll-off and the first roll)
    "rollers": ({"target": 3}, 3, 1),
}


def script_for(game: str):
    options, n, seed = CASES[game]
    events = playthrough.play(game, PLAYERS, options, seed=seed, table_rate=0.0)
    if n is not None:
        events = events[:n]
        if game == "bank":
            events.append({"type": "action", "player": -1, "action": "end_game"})
    return options, events


def canon(value):
    """A state with the dice of every roll in one order: the camera reads a throw in the
    order it finds the dice, which the rules do not care about."""
    if isinstance(value, dict):
        return {
            k: sorted(v)
            if k in ("roll", "last_roll", "dice")
            and isinstance(v, list)
            and all(isinstance(x, str) for x in v)
            else canon(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [canon(v) for v in value]
    return value


def expected_state(game, options, events):
    return playthrough.final_state(game, PLAYERS, options, events)


@pytest.mark.parametrize("game", list(CASES))
def test_scripted_game_through_vision_gives_the_rules_result(game, tmp_path):
    options, events = script_for(game)
    want = expected_state(game, options, events)
    result = run_demo(
        game,
        len(PLAYERS),
        seed=11,
        out=tmp_path,
        options=options,
        quiet=True,
        screenshots=False,
        script=events,
        rest_frames=5,
        max_steps=400 * len(events) + 400,
    )
    got = result["state"]
    assert got["scores"] == want["scores"]
    assert canon(got) == canon(want)
    assert result["finished"] == bool(games.get(game).expect(want).finished)
    # the journal on disk replays to the same game
    assert replay(result["journal"]) == got
    assert len(Journal.open(result["journal"]).events) == len(events)


def test_camera_drop_out_mid_game_keeps_the_game(tmp_path):
    options, events = script_for("bank")
    want = expected_state("bank", options, events)
    result = run_demo(
        "bank",
        len(PLAYERS),
        seed=12,
        out=tmp_path,
        options=options,
        quiet=True,
        screenshots=False,
        script=events,
        rest_frames=5,
        dropout=(3, 150),
        max_steps=400 * len(events) + 800,
    )
    assert canon(result["state"]) == canon(want)
    assert result["finished"]
    assert any("camera lost" in line for line in result["log"])
    assert any("camera back" in line for line in result["log"])


def test_a_rematch_reads_with_the_same_models_and_says_a_stale_taught_folder_once(
    tmp_path, capsys, taught_copy
):
    """``dicetray demo --rematch`` plays a game, chooses Rematch on the end screen and plays
    the same game with the same players and options to the end, both journals replaying to
    their games; one recognizer reads both, so a taught folder whose shipped network has
    changed is said once, not once a game."""
    stale = taught_copy(tmp_path / "old", shipped_sha256="0" * 64)
    result = run_demo(
        "bank",
        len(PLAYERS),
        seed=12,
        out=tmp_path / "demo",
        options={"rounds": 10},
        quiet=True,
        screenshots=False,
        rest_frames=5,
        rematch=True,
        taught=stale,
    )
    first, second = result["games"]
    assert first["finished"] and second["finished"]
    assert first["journal"] != second["journal"]
    for game in (first, second):
        journal = Journal.open(game["journal"])
        assert journal.game_id == "bank" and journal.players == ["Ana", "Ben"]
        assert journal.header["options"] == {"rounds": 10, "doubles_rule": "double_then_add"}
        assert replay(game["journal"]) == game["state"]
    said = [line for line in capsys.readouterr().err.splitlines() if "has changed since" in line]
    assert len(said) == 1 and said[0].startswith("dicetray demo: the shipped d6 classifier")
