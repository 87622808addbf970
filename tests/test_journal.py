"""The journal: durable appends, undo, corrections, damage handling, replay command."""

from __future__ import annotations

import datetime
import json
import os
import re

import pytest

from tray.replay import main_replay
from tray.rules.engine import RuleError, action, roll
from tray.rules.journal import (
    Journal,
    JournalError,
    find_unfinished,
    journal_path,
    replay,
)

LAYOUT = {"d6": ["1", "2", "3", "4", "5", "6"]}
PLAYERS = ["Ann", "Ben", "Cy"]


def r(a, b):
    return roll(f"d6:{a}", f"d6:{b}")


def new(tmp_path, name="g.jsonl", options=None):
    return Journal.create(
        tmp_path / name,
        "bank",
        PLAYERS,
        options or {"rounds": 10},
        LAYOUT,
        time="2026-11-22T00:00:00+00:00",
    )


def lines(path):
    """The records of a journal file, without their checksums."""
    return [
        {k: v for k, v in json.loads(x).items() if k != "crc"}
        for x in path.read_text().splitlines()
    ]


def legacy(text):
    """A journal's text as written before lines carried checksums (still read)."""
    return re.sub(r', "crc": "[0-9a-f]{8}"\}', "}", text)


def test_create_writes_the_header_line(tmp_path):
    j = new(tmp_path)
    (header,) = lines(j.path)
    assert header == {
        "type": "new_game",
        "v": 1,
        "game": "bank",
        "players": PLAYERS,
        "options": {"rounds": 10, "doubles_rule": "double_then_add"},
        "layout": LAYOUT,
        "time": "2026-11-22T00:00:00+00:00",
    }
    assert j.state["round"] == 1 and j.events == [] and not j.finished
    with pytest.raises(FileExistsError, match="already exists"):
        new(tmp_path)


def test_create_records_names_and_options_as_the_game_reads_them(tmp_path):
    j = Journal.create(tmp_path / "n.jsonl", "bank", [" Ann ", "Ben"], {}, LAYOUT)
    header = lines(j.path)[0]
    assert header["players"] == ["Ann", "Ben"] == j.players == j.state["players"]
    assert header["options"] == {"rounds": 20, "doubles_rule": "double_then_add"}


def test_create_refuses_what_the_game_refuses_and_writes_nothing(tmp_path):
    with pytest.raises(RuleError, match="10, 15 or 20"):
        Journal.create(tmp_path / "x.jsonl", "bank", PLAYERS, {"rounds": 7}, LAYOUT)
    with pytest.raises(ValueError, match="unknown game"):
        Journal.create(tmp_path / "y.jsonl", "chess", PLAYERS, {}, LAYOUT)
    assert list(tmp_path.iterdir()) == []


def test_append_writes_each_event_before_returning(tmp_path):
    j = new(tmp_path)
    s = j.append(r(3, 4))
    assert s["total"] == 70
    assert lines(j.path)[1:] == [r(3, 4)]
    # durable and self-contained: a fresh open sees the same state
    assert replay(j.path) == j.state


def test_a_refused_event_leaves_journal_and_file_unchanged(tmp_path):
    j = new(tmp_path)
    j.append(r(1, 2))
    before = j.path.read_bytes()
    state = j.state
    for bad in (action(0, "bank"), roll("d6:1"), {"type": "teleport"}, roll("d6:9", "d6:1")):
        with pytest.raises(RuleError):
            j.append(bad)
    assert j.path.read_bytes() == before
    assert j.state == state and len(j.events) == 1


def test_state_is_a_copy(tmp_path):
    j = new(tmp_path)
    j.state["scores"][0] = 999
    assert j.state["scores"][0] == 0


def test_undo_removes_the_last_effective_event(tmp_path):
    j = new(tmp_path)
    with pytest.raises(RuleError, match="Nothing to undo"):
        j.undo()
    j.append(r(1, 2))
    s1 = j.state
    j.append(r(2, 2))
    assert j.undo() == s1
    assert j.events == [r(1, 2)]
    j.append(r(5, 6))
    assert [e["dice"] for e in j.events] == [["d6:1", "d6:2"], ["d6:5", "d6:6"]]
    assert [x["type"] for x in lines(j.path)] == ["new_game", "roll", "roll", "undo", "roll"]
    assert replay(j.path) == j.state
    # undo through the append door, too
    j.append({"type": "undo"})
    assert replay(j.path) == s1


def test_undo_can_take_back_the_end_of_the_game(tmp_path):
    j = new(tmp_path)
    j.append(r(1, 2))
    j.append(action(-1, "end_game"))
    assert j.finished
    j.undo()
    assert not j.finished and find_unfinished(tmp_path) == j.path


def test_correct_replaces_the_dice_of_a_roll_and_recomputes(tmp_path):
    j = new(tmp_path)
    for ev in (r(1, 2), r(2, 3), r(4, 5), action(1, "bank"), r(1, 1)):
        j.append(ev)
    assert j.state["scores"] == [0, 17, 0] and j.state["total"] == 36
    s = j.correct(2, ["d6:3", "d6:4"])  # roll 2 was a seven: 70, not 5
    assert s["scores"] == [0, 82, 0] and s["total"] == 82 * 2 + 2
    assert j.events[1] == r(3, 4)
    assert lines(j.path)[-1] == {"type": "correct", "event": 2, "dice": ["d6:3", "d6:4"]}
    assert replay(j.path) == j.state
    assert j.last_roll() == 5


def test_correct_refuses_when_a_later_event_becomes_illegal(tmp_path):
    j = new(tmp_path)
    for ev in (r(1, 2), r(2, 3), r(4, 5), r(1, 2), action(1, "bank")):
        j.append(ev)
    before = j.path.read_bytes()
    state = j.state
    # roll 4 becomes a phase-2 seven: the round ends, and Ben's bank (event 5) is illegal
    with pytest.raises(RuleError, match=r"later event 5 \(Ben: bank\) is no longer allowed"):
        j.correct(4, ["d6:3", "d6:4"])
    assert j.path.read_bytes() == before and j.state == state


def test_correct_refuses_what_is_not_a_roll_or_not_a_valid_roll(tmp_path):
    j = new(tmp_path)
    for ev in (r(1, 2), r(2, 3), r(4, 5), action(1, "bank")):
        j.append(ev)
    with pytest.raises(RuleError, match="is not a roll"):
        j.correct(4, ["d6:1", "d6:2"])
    with pytest.raises(RuleError, match="no event 9"):
        j.correct(9, ["d6:1", "d6:2"])
    with pytest.raises(RuleError, match="no face 8"):
        j.correct(1, ["d6:1", "d6:8"])
    with pytest.raises(RuleError, match="cannot read die"):
        j.correct(1, ["six"])
    assert len(lines(j.path)) == 5


def test_a_cut_off_last_line_resumes_from_the_last_whole_event(tmp_path):
    j = new(tmp_path)
    for ev in (r(1, 2), r(2, 3)):
        j.append(ev)
    good = j.state
    with open(j.path, "ab") as f:
        f.write(b'{"type": "roll", "dice": ["d6:4"')  # the power went here
    k = Journal.open(j.path)
    assert k.partial_tail and k.state == good and len(k.events) == 2
    assert replay(j.path) == good
    k.append(r(6, 6))
    text = j.path.read_text()
    assert lines(j.path)[-1] == r(6, 6) and '"d6:4"' not in text
    assert len(lines(j.path)) == 4 and not Journal.open(j.path).partial_tail


def test_a_whole_last_line_without_its_newline_counts(tmp_path):
    j = new(tmp_path)
    j.append(r(1, 2))
    j.path.write_bytes(j.path.read_bytes().rstrip(b"\n"))
    k = Journal.open(j.path)
    assert len(k.events) == 1 and not k.partial_tail
    k.append(r(2, 2))
    assert [x["type"] for x in lines(j.path)] == ["new_game", "roll", "roll"]


def test_nul_bytes_left_by_a_crash_count_as_a_cut_off_line(tmp_path):
    j = new(tmp_path)
    j.append(r(1, 2))
    with open(j.path, "ab") as f:
        f.write(b"\0" * 40)
    k = Journal.open(j.path)
    assert k.partial_tail and len(k.events) == 1


@pytest.mark.parametrize(
    "damage, line, message",
    [
        (
            lambda t: t.replace('"dice": ["d6:1", "d6:2"]}', '"dice": ["d6:1", "d6:2"'),
            2,
            "not a valid journal line",
        ),
        (
            lambda t: t.replace('"type": "roll"', '"type": "teleport"', 1),
            2,
            "unknown event type 'teleport'",
        ),
        (lambda t: t.replace('"d6:2", "d6:3"', '"d6:2", "d6:9"'), 3, "no face 9"),
        (lambda t: t.split("\n", 1)[1], 1, "no new_game header"),
        (lambda t: t.replace('"v": 1', '"v": 7'), 1, "version 7"),
        (lambda t: t.replace('"game": "bank"', '"game": "chess"'), 1, "unknown game 'chess'"),
        (lambda t: t + '{"type": "undo"}\n' * 4, 8, "nothing left to undo"),
        (lambda t: t + "[1, 2]\n", 5, "must be a JSON object"),
    ],
)
def test_other_damage_raises_journal_error_naming_file_and_line(tmp_path, damage, line, message):
    j = new(tmp_path)
    for ev in (r(1, 2), r(2, 3), r(4, 5)):
        j.append(ev)
    j.path.write_text(damage(legacy(j.path.read_text())))
    with pytest.raises(JournalError, match=message) as info:
        Journal.open(j.path)
    assert info.value.line == line
    assert str(info.value).startswith(f"{j.path}, line {line}: ")


def test_empty_missing_and_cut_header_files(tmp_path):
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(JournalError, match="empty"):
        Journal.open(tmp_path / "empty.jsonl")
    with pytest.raises(JournalError, match="no such file"):
        Journal.open(tmp_path / "none.jsonl")
    (tmp_path / "cut.jsonl").write_text('{"type": "new_game", "v": 1, "ga')
    with pytest.raises(JournalError, match="header line is incomplete"):
        Journal.open(tmp_path / "cut.jsonl")


def test_find_unfinished_returns_the_newest_unfinished_game(tmp_path):
    assert find_unfinished(tmp_path / "nowhere") is None
    a = new(tmp_path, "a.jsonl")
    b = new(tmp_path, "b.jsonl")
    b.append(action(-1, "end_game"))
    (tmp_path / "broken.jsonl").write_text("not json\n")
    c = new(tmp_path, "c.jsonl")
    now = os.stat(a.path).st_mtime
    os.utime(a.path, (now, now + 10))
    os.utime(b.path, (now, now + 30))
    os.utime(tmp_path / "broken.jsonl", (now, now + 40))
    os.utime(c.path, (now, now + 5))
    assert find_unfinished(tmp_path) == a.path
    a.append(action(-1, "end_game"))
    os.utime(a.path, (now, now + 10))
    assert find_unfinished(tmp_path) == c.path
    assert find_unfinished(tmp_path, limit=2) is None  # the two newest: unreadable and finished
    assert find_unfinished(tmp_path, limit=None) == c.path


def test_journal_path_is_fresh(tmp_path):
    when = datetime.datetime(2026, 11, 22, 0, 5, 9)
    p = journal_path(tmp_path, "bank", when)
    assert p == tmp_path / "2026-11-22_00-05-09_bank.jsonl"
    p.write_text("")
    assert journal_path(tmp_path, "bank", when) == tmp_path / "2026-11-22_00-05-09_bank-2.jsonl"


def test_replay_command_prints_summary_json_and_scoreboard(tmp_path, capsys):
    j = new(tmp_path)
    for ev in (r(1, 2), r(2, 3), r(4, 5), action(1, "bank"), action(-1, "end_game")):
        j.append(ev)
    assert main_replay([str(j.path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["winner"] == "Ben" and out["finished"] is True
    assert out["players"][1] == {"name": "Ben", "score": 17}
    assert main_replay([str(j.path)]) == 0
    text = capsys.readouterr().out
    assert "Ben" in text and "Winner: Ben" in text
    assert main_replay([str(j.path), "--events"]) == 0
    assert "4. Ben: bank" in capsys.readouterr().out


def test_replay_command_exits_2_on_a_damaged_journal(tmp_path, capsys):
    j = new(tmp_path)
    j.append(r(1, 2))
    j.append(r(1, 2))
    j.path.write_text(legacy(j.path.read_text()).replace("d6:1", "d6:0", 1))
    assert main_replay([str(j.path)]) == 2
    err = capsys.readouterr().err
    assert f"{j.path}, line 2" in err and "no face 0" in err
    assert main_replay([str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
