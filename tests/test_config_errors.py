"""Config files that cannot be read: one line naming the file and the fix, exit 2, no traceback."""

from __future__ import annotations

from unittest import mock

import pytest

from tray.app.config import ConfigError, load_config
from tray.cli import main as dicetray

GOOD = '[players]\nnames = ["Ann", "Bo"]\n'


def play_says(capsys, *args) -> str:
    assert dicetray(["play", "--headless", "--max-seconds", "0", *args]) == 2
    out = capsys.readouterr()
    assert "Traceback" not in out.err and out.err.count("\n") == 1, out.err
    return out.err


def test_a_missing_file_named_with_config_is_an_error(tmp_path, capsys):
    err = play_says(capsys, "--config", str(tmp_path / "nope.toml"))
    assert "nope.toml: no such file" in err and "config.example.toml" in err
    assert load_config(tmp_path / "nope.toml").path is None  # unnamed: the defaults


def test_a_path_under_a_file(tmp_path, capsys):
    (tmp_path / "plain").write_text("x")
    err = play_says(capsys, "--config", str(tmp_path / "plain" / "config.toml"))
    assert "part of this path is a file" in err


def test_an_unreadable_file_any_user(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text(GOOD)
    with (
        mock.patch("pathlib.Path.read_bytes", side_effect=PermissionError(13, "denied")),
        pytest.raises(ConfigError, match="no permission to read it"),
    ):
        load_config(p)
    with (
        mock.patch("pathlib.Path.read_bytes", side_effect=OSError(5, "Input/output error")),
        pytest.raises(ConfigError, match=r"c\.toml: cannot be read \(Input/output error\)"),
    ):
        load_config(p)


def test_deeply_nested_toml(tmp_path, capsys):
    p = tmp_path / "c.toml"
    p.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert "nest far too deeply" in play_says(capsys, "--config", str(p))


def test_a_utf8_byte_order_mark_is_fine_and_utf16_is_named(tmp_path, capsys):
    p = tmp_path / "c.toml"
    p.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    assert load_config(p).players == ["Ann", "Bo"]
    p.write_bytes(GOOD.encode("utf-16"))
    assert "UTF-16" in play_says(capsys, "--config", str(p))


def test_a_journal_folder_that_is_a_file_names_the_key(tmp_path, capsys):
    (tmp_path / "journals").write_text("not a folder")
    p = tmp_path / "c.toml"
    p.write_text(f'[journal]\ndirectory = "{tmp_path / "journals"}"\n')
    err = play_says(capsys, "--config", str(p))
    assert "journal.directory" in err and "is a file, not a folder" in err
    p.write_text(f'[journal]\ndirectory = "{tmp_path / "journals" / "deeper"}"\n')
    assert "journal.directory" in play_says(capsys, "--config", str(p))


def test_a_player_name_too_long_for_the_screen_names_the_key(tmp_path, capsys):
    """Before: a 10,000-character name was taken."""
    p = tmp_path / "c.toml"
    p.write_text('[players]\nnames = ["Ann", "' + "x" * 10_000 + '"]\n')
    err = play_says(capsys, "--config", str(p))
    assert "players.names[1] is 10000 characters long: give a name of at most 20" in err
    assert "x" * 30 not in err  # the name itself is not quoted back
    p.write_text('[players]\nnames = ["Ann", "' + "x" * 20 + '"]\n')
    assert load_config(p).players == ["Ann", "x" * 20]
