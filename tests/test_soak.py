"""The soak's parts: the worker plays and reports, the parent finds lost events after a kill."""

from __future__ import annotations

import json
import os
import random

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

from lab.soak import Tally, main, physical_throw, reasons, worker
from tray.layouts import default_layout
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
    j = Journal.create(tmp_path / "g.jsonl", "bank", ["A", "B"], {}, default_layout("bank"))
    j.append(roll("d6:1", "d6:2"))
    tally = Tally()
    tally.take({"ack": "g.jsonl", "size": j._size, "events": 1})
    tally.verify(tmp_path)
    assert tally.lost == 0
    data = j.path.read_bytes()
    j.path.write_bytes(data[:-10])  # the last acknowledged line did not survive
    tally.verify(tmp_path)
    assert tally.lost == 1
    (said,) = tally.failures
    assert said.startswith("1 acknowledged events lost after the kill at throw 0: g.jsonl (")


def test_each_wrong_score_is_listed_with_what_was_thrown():
    tally = Tally()
    tally.take({"game": "bank-1.jsonl", "size": 100, "events": 0})
    for event in (1, 2, 3):
        tally.take({"throw": "none", "journal": "bank-1.jsonl", "event": event})
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
            "throw": 3,
        }
    ]
    assert reasons(result) == [
        (
            "wrong score at throw 3 (bank-1.jsonl, event 3): scored ['d6:1', 'd6:2'], "
            "thrown ['d6:1', 'd6:5']"
        ),
        "FAILED: 1 wrong score, 0 lost events, 0 worker crashes",
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


def test_the_worker_reports_the_journal_and_event_of_each_throw(tmp_path, capsys):
    assert worker(tmp_path, seed=4, throws=3) == 0
    reports = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    throws = [r for r in reports if "throw" in r]
    assert len(throws) == 3
    truths = [json.loads(x) for x in (tmp_path / "truth.log").read_text().splitlines()]
    assert [(r["journal"], r["event"]) for r in throws] == [
        (t["journal"], t["event"]) for t in truths
    ]


def test_a_worker_that_fails_is_said_with_its_throw():
    tally = Tally()
    tally.take({"game": "toss-up-1.jsonl", "size": 100, "events": 4})
    for event in (5, 6):
        tally.take({"throw": "none", "journal": "toss-up-1.jsonl", "event": event})
    tally.crashed(3, "Traceback (most recent call last):\n  ...\nValueError: no such face\n")
    tally.crashed(-11, "")
    tally.crashed(-9, "")  # the kernel's out-of-memory killer on a loaded machine
    tally.crashed(1, "")
    at = "the worker failed at throw 2 (toss-up-1.jsonl, event 6): "
    assert tally.failures == [
        at + "ValueError: no such face",
        at + "killed by SIGSEGV, not by the soak",
        at + "killed by SIGKILL (out of memory?), not by the soak",
        at + "exit code 1, nothing on stderr",
    ]
    result = tally.result(1.0)
    assert result["crashes"] == 4 and reasons(result)[-1] == (
        "FAILED: 0 wrong scores, 0 lost events, 4 worker crashes"
    )


def test_a_failed_soak_says_why_on_stderr_and_a_passed_one_says_nothing(monkeypatch, capsys):
    """Before: exit 1 after "1000/1000" and nothing on stderr but the progress bar."""
    import lab.soak

    tally = Tally()
    tally.take({"throw": "blur", "journal": "bank-1.jsonl", "event": 7})
    tally.take(
        {
            "checked": "bank-1.jsonl",
            "rolls": 7,
            "wrong": 1,
            "wrong_rolls": [{"event": 7, "scored": ["d6:1", "d6:2"], "thrown": None}],
        }
    )
    monkeypatch.setattr(lab.soak, "soak", lambda *a, **k: tally.result(1.0))
    assert main(["--throws", "1", "--json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["wrong_scores"] == 1
    assert err.splitlines() == [
        (
            "soak: wrong score at throw 1 (bank-1.jsonl, event 7): scored ['d6:1', 'd6:2'], "
            "thrown no throw recorded for it"
        ),
        "soak: FAILED: 1 wrong score, 0 lost events, 0 worker crashes",
    ]
    monkeypatch.setattr(lab.soak, "soak", lambda *a, **k: Tally().result(1.0))
    assert main(["--throws", "1"]) == 0
    assert capsys.readouterr().err == ""


def test_a_keep_folder_that_cannot_be_one_is_one_line(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    assert main(["--throws", "1", "--keep", str(tmp_path / "afile")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"dicetray soak: --keep {tmp_path / 'afile'}: cannot use it as a folder")


def test_after_a_kill_the_reports_the_worker_wrote_are_still_counted(tmp_path):
    """A parent lagging behind its worker (a loaded machine) kills it with reports still in
    the pipe: they are read and counted, so the figures do not depend on the machine's load
    (before: they were dropped, throws and checks with them)."""
    import subprocess
    import sys
    import time

    from lab.soak import _follow

    ready = tmp_path / "ready"
    records = [{"throw": "none", "journal": "g.jsonl", "event": e} for e in (1, 2, 3)]
    records.append({"ack": "g.jsonl", "size": 400, "events": 3})
    script = (
        "import json, pathlib, sys, time\n"
        f"for r in {records!r}: print(json.dumps(r))\n"
        "sys.stdout.flush()\n"
        f"pathlib.Path({str(ready)!r}).write_text('x')\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    while not ready.exists() and proc.poll() is None:
        time.sleep(0.05)

    class Bar:
        n = 0

        def update(self, k):
            self.n += k

    tally, bar = Tally(), Bar()
    assert _follow(proc, tally, bar, deadline=time.monotonic()) == "killed"  # at once
    assert proc.returncode != 0
    assert tally.throws == bar.n == 3 and tally.acked == {"g.jsonl": (400, 3)}
    assert tally.where() == "at throw 3 (g.jsonl, event 3)"


def test_a_worker_that_stops_reporting_is_killed_as_stuck(tmp_path, monkeypatch):
    """Without kills (--no-kill) a stuck worker would make the soak wait for ever, saying
    nothing: after HANG_S seconds without a report it is killed, and that is a failure."""
    import subprocess
    import sys

    import lab.soak
    from lab.soak import _follow

    monkeypatch.setattr(lab.soak, "HANG_S", 1.0)
    script = (
        "import json, sys, time\n"
        "print(json.dumps({'throw': 'none', 'journal': 'g.jsonl', 'event': 1}))\n"
        "sys.stdout.flush()\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)

    class Bar:
        def update(self, k):
            pass

    tally = Tally()
    assert _follow(proc, tally, Bar(), deadline=None) == "hung"
    assert proc.returncode is not None and tally.throws == 1
