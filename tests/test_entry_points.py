"""Every command turns bad input into one clear line naming the file and the fix, exit 2."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from tray.cli import main as dicetray


@pytest.fixture
def where(tmp_path):
    (tmp_path / "afile").write_text("not a folder, not a journal\n")
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[journal]\ndirectory = "{tmp_path / "journals"}"\n')
    return tmp_path


CASES = [
    (["demo", "--out", "{t}/afile", "--max-seconds", "1"], "give a folder"),
    (["demo", "--out", "{t}/afile/sub", "--max-seconds", "1"], "afile/sub"),
    (
        [
            "play",
            "--config",
            "{t}/c.toml",
            "--source",
            "replay:{t}/none",
            "--headless",
            "--game",
            "bank",
            "--max-seconds",
            "1",
        ],
        "does not exist",
    ),
    (
        [
            "play",
            "--config",
            "{t}/c.toml",
            "--source",
            "webcam",
            "--headless",
            "--game",
            "bank",
            "--max-seconds",
            "1",
        ],
        "unknown camera source",
    ),
    (["replay", "{t}/afile"], "afile, line 1"),
    (["replay", "{t}"], "this is a folder"),
    (["recognize", "{t}/afile"], "afile: not an image"),
    (["calibrate", "--config", "{t}/c.toml", "--source", "replay:{t}/none"], "does not exist"),
    (["calibrate", "--config", "{t}/afile/c.toml"], "part of this path is a file"),
    (["eval", "--realdice", "{t}/none", "--sets", "d6"], "no such folder"),
    (["eval", "--n", "-3", "--sets", "d6"], "at least 1 scene"),
]


@pytest.mark.parametrize("argv, words", CASES, ids=[" ".join(c[0][:2]) for c in CASES])
def test_bad_input_is_one_line_and_exit_2(where, capsys, argv, words):
    argv = [a.format(t=where) for a in argv]
    try:
        code = dicetray(argv)
    except SystemExit as exc:  # argparse's own errors: usage, then one line
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and words in err.strip().splitlines()[-1], err
