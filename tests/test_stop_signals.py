"""A service manager stops the table with SIGTERM, a person with Ctrl-C (SIGINT): either one
ends `dicetray demo` and `dicetray play` at once, with no traceback, and the journal keeps
the game so far (it replays to the same scores)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PLAY = [sys.executable, "-m", "tray.cli", "play", "--headless"]


def _env(home: Path) -> dict:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", HOME=str(home))
    env.pop("SDL_NO_SIGNAL_HANDLERS", None)  # as a user's shell or systemd starts it
    return env


def _as_a_terminal_starts_it() -> None:
    """Ctrl-C as a terminal delivers it: a test runner started in the background (``make test
    &``, some CI runners) passes SIGINT on ignored, and a process that inherits it ignored
    rightly keeps ignoring it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_rolls(folder: Path, rolls: int, proc: subprocess.Popen) -> Path:
    """The journal once it holds ``rolls`` roll records (the game is under way)."""
    end = time.monotonic() + 180
    while time.monotonic() < end:
        assert proc.poll() is None, "the command ended before it was stopped"
        for path in folder.rglob("*.jsonl"):
            lines = path.read_text(encoding="utf-8").splitlines()
            if lines and sum('"type": "roll"' in line for line in lines) >= rolls:
                return path
        time.sleep(0.2)
    raise AssertionError("no game under way after 180 s")


def _replay(path: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "tray.cli", "replay", "--json", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_demo_stops_on_a_signal_and_keeps_the_game(tmp_path, sig):
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "tray.cli", "demo", "--game", "bank", "--seed", "1"]
    proc = subprocess.Popen(
        [*cmd, "--headless", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
        preexec_fn=_as_a_terminal_starts_it,
    )
    try:
        journal = _wait_for_rolls(out, 3, proc)
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, stdout + stderr  # stopped, not finished
    assert "Traceback" not in stderr
    assert "stopped by Ctrl-C or SIGTERM" in stdout
    assert "winner:" not in stdout
    said = [line.split() for line in stdout.splitlines() if line.startswith("  ")]
    scores = {p["name"]: p["score"] for p in _replay(journal)["players"]}
    assert scores, "the journal lost the game"
    assert {name: int(score) for name, score in said[-len(scores) :]} == scores


def test_play_stops_on_sigterm_and_keeps_the_game(tmp_path):
    proc = subprocess.Popen(
        [*PLAY, "--source", "sim", "--game", "bank", "--players", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
    )
    try:
        journal = _wait_for_rolls(tmp_path, 0, proc)  # nobody throws: the start of a game
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stdout + stderr
    assert "Traceback" not in stderr
    assert _replay(journal)["players"], "the journal lost the game"
