"""The soak's parts: the worker plays and reports, the parent finds lost events after a kill."""

from __future__ import annotations

import json
import os
import random

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

from lab.soak import Tally, physical_throw, worker
from tray.rules.engine import roll
from tray.rules.journal import Journal


def test_what_lands_under_each_fault():
    rng = random.Random(0)
    assert physical_throw(["d6:1", "d6:2"], "none", ["d6:5"], ["d6"], rng) == ["d6:1", "d6:2"]
    assert physical_throw(["d6:1"], "leftover", ["d6:5"], ["d6"], rng) == ["d6:5", "d6:1"]
    for _ in range(20):
        assert len(physical_throw(["d6:1", "d6:2"], "wrong_count", [], ["d6"], rng)) != 2


def test_the_worker_plays_checks_every_roll_and_reports(tmp_path, capsys):
    assert worker(tmp_path, seed=4, throws=6) == 0
    reports = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    tally = Tally()
    assert sum(tally.take(r) for r in reports) == 6
    result = tally.result(1.0)
    assert result["wrong_scores"] == 0 and result["scored_rolls"] >= 1
    (name,) = tally.acked
    size, events = tally.acked[name]
    j = Journal.open(tmp_path / name)
    assert j._size == size and len(j.events) == events
    truths = (tmp_path / "truth.log").read_text().splitlines()
    assert len(truths) == 6


def test_a_lost_acknowledged_event_is_counted(tmp_path):
    j = Journal.create(tmp_path / "g.jsonl", "bank", ["A", "B"], {}, None)
    j.append(roll("d6:1", "d6:2"))
    tally = Tally()
    tally.take({"ack": "g.jsonl", "size": j._size, "events": 1})
    tally.verify(tmp_path)
    assert tally.lost == 0
    data = j.path.read_bytes()
    j.path.write_bytes(data[:-10])  # the last acknowledged line did not survive
    tally.verify(tmp_path)
    assert tally.lost == 1


def test_each_wrong_score_is_listed_with_what_was_thrown():
    tally = Tally()
    tally.take(
        {
            "checked": "bank-1.jsonl",
            "rolls": 4,
            "wrong": 1,
            "wrong_rolls": [{"event": 3, "scored": ["d6:1", "d6:2"], "thrown": ["d6:1", "d6:5"]}],
        }
    )
    tally.take({"checked": "rollers-2.jsonl", "rolls": 2, "wrong": 0, "wrong_rolls": []})
    result = tally.result(1.0)
    assert result["wrong_scores"] == 1 and result["scored_rolls"] == 6
    assert result["wrong_rolls"] == [
        {
            "journal": "bank-1.jsonl",
            "event": 3,
            "scored": ["d6:1", "d6:2"],
            "thrown": ["d6:1", "d6:5"],
        }
    ]


def test_a_roll_taken_misread_and_corrected_is_listed():
    tally = Tally()
    tally.take(
        {
            "correction": "misread:none",
            "misread": {
                "journal": "bank-1.jsonl",
                "read": ["d6:1", "d6:4"],
                "thrown": ["d6:1", "d6:6"],
                "fault": "none",
            },
        }
    )
    result = tally.result(1.0)
    assert result["corrections"] == {"misread:none": 1}
    assert result["misread_rolls"] == [
        {
            "journal": "bank-1.jsonl",
            "read": ["d6:1", "d6:4"],
            "thrown": ["d6:1", "d6:6"],
            "fault": "none",
        }
    ]
