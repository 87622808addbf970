"""A journal saved with CRLF line ends (opened and saved once by an editor on Windows) reads
whole: before, its header's checksum was not found, the file was taken for the format without
checksums, line 2 failed ("a roll takes no key 'crc'") and salvage kept none of its events."""

from __future__ import annotations

import pytest

from tray.layouts import default_layout
from tray.rules.engine import action, roll
from tray.rules.journal import Journal, JournalError


def _game(path) -> Journal:
    j = Journal.create(path, "bank", ["Ann", "Ben"], {"rounds": 10}, default_layout("bank"))
    for dice in (("d6:1", "d6:2"), ("d6:2", "d6:2"), ("d6:5", "d6:6")):
        j.append(roll(*dice))
    j.append(action(0, "bank"))
    j.correct(3, ["d6:5", "d6:5"])
    return j


def test_a_crlf_journal_reads_every_event_with_its_checksums(tmp_path):
    j = _game(tmp_path / "g.jsonl")
    data = j.path.read_bytes()
    assert b"\r" not in data
    j.path.write_bytes(data.replace(b"\n", b"\r\n"))
    back = Journal.open(j.path)
    assert back.checksummed and back.damage is None and not back.partial_tail
    assert back.events == j.events and back.state == j.state
    assert len(back.events) == 4


def test_a_crlf_journal_goes_on_and_reads_back_after_the_next_event(tmp_path):
    j = _game(tmp_path / "g.jsonl")
    j.path.write_bytes(j.path.read_bytes().replace(b"\n", b"\r\n"))
    resumed = Journal.open(j.path)
    state = resumed.append(roll("d6:3", "d6:4"))
    again = Journal.open(j.path)
    assert again.state == state and len(again.events) == 5


def test_a_crlf_journal_without_its_last_newline_reads_whole(tmp_path):
    j = _game(tmp_path / "g.jsonl")
    j.path.write_bytes(j.path.read_bytes().replace(b"\n", b"\r\n").rstrip(b"\n"))
    back = Journal.open(j.path)
    assert len(back.events) == 4
    back.append(roll("d6:3", "d6:4"))
    assert len(Journal.open(j.path).events) == 5


def test_a_changed_line_of_a_crlf_journal_is_still_damage_at_its_line(tmp_path):
    j = _game(tmp_path / "g.jsonl")
    lines = j.path.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b"d6:2", b"d6:3")  # the second roll, edited by hand
    j.path.write_bytes(b"\r\n".join(lines))
    with pytest.raises(JournalError, match=r"line 3: .*its checksum does not match") as err:
        Journal.open(j.path)
    assert err.value.kept == 1
    assert len(Journal.open(j.path, salvage=True).events) == 1
