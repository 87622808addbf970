"""Help for users: ``dicetray help CMD`` is ``dicetray CMD --help``, and teach's help is written
for the person teaching (before: ``help teach`` printed the command list, and ``teach --help``
printed the module's developer notes with their doctests)."""

from __future__ import annotations

import pytest

from tray.cli import main as dicetray


def _help(argv, capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        dicetray(argv)
    assert exc.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", ["odds", "stats", "soak", "recognize", "duel"])
def test_help_cmd_is_the_commands_own_help(command, capsys):
    own = _help([command, "--help"], capsys)
    assert own.startswith(f"usage: dicetray {command}")
    assert _help(["help", command], capsys) == own


def test_help_alone_lists_the_commands_and_says_how_to_get_more(capsys):
    assert dicetray(["help"]) == 0
    out = capsys.readouterr().out
    assert "  teach " in out and "dicetray help COMMAND" in out


def test_help_for_an_unknown_command_is_refused(capsys):
    assert dicetray(["help", "nosuch"]) == 2
    assert "unknown command 'nosuch'" in capsys.readouterr().err


def test_the_torch_teachings_help_is_for_users():
    """lab.teach's --help: what the folder holds, where the result goes, an example; no
    doctests or reStructuredText from the module's notes."""
    import contextlib
    import io

    from lab.teach import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(["--help"])
    text = out.getvalue()
    assert ">>>" not in text and "``" not in text and "doctest" not in text
    assert "labels.csv" in text and "--taught DIR" in text and "example: dicetray teach" in text
    assert len(text.splitlines()) < 30
