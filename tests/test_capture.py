"""The guided capture (dicetray calibrate --teach): played headless on the simulated tray with
scripted button presses, the folder it writes, the stop rule, dropouts, continuing, teaching."""

from __future__ import annotations

import csv
import itertools
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.buttons import ButtonPress, ButtonRelease
from hardware.sim.tray import SimulatedTray
from tray.app import calibrate
from tray.app.capture_cmd import run_loop, teach_after
from tray.table import teaching
from tray.table.capture import Buttons, Capture, CaptureSession, SimRoller
from tray.table.capture_folder import HEADER, CaptureError, CaptureFolder
from vision.dicesets import load
from vision.pipeline import Recognizer
from vision.settle import Settler
from vision.types import DieReading, FrameReading, SettledRoll

TOSS = load("toss-up")
BLANK = np.zeros((480, 640, 3), np.uint8)


class Misreading:
    """The real recognizer, made wrong on purpose: the top-most die is read as a wrong face
    for sure, the bottom-most one is unsure (face None). Still frames stay consistent, so the
    settler emits them as read."""

    def __init__(self, diceset):
        self.inner = Recognizer(diceset)
        self.diceset = diceset
        self.rolls: list[tuple[DieReading, ...]] = []

    def read(self, frame) -> FrameReading:
        r = self.inner.read(frame)
        dice = list(r.dice)
        if len(dice) >= 2 and all(d.read for d in dice):
            top = min(range(len(dice)), key=lambda i: dice[i].y)
            bottom = max(range(len(dice)), key=lambda i: dice[i].y)
            faces = list(dict.fromkeys(self.diceset.die(dice[top].die).faces))
            wrong = faces[(faces.index(dice[top].face) + 1) % len(faces)]
            dice[top] = replace(dice[top], face=wrong)
            dice[bottom] = replace(dice[bottom], face=None, confidence=0.3)
        return replace(r, dice=tuple(dice))


def steps_clock():
    n = itertools.count()
    return lambda: next(n) / 30.0


def capture_setup(folder, diceset=TOSS, per_face=2, seed=3, recognizer=None, hold=None, log=None):
    truths = {}
    cap = Capture(CaptureFolder(folder, diceset), per_face=per_face)
    tray = SimulatedTray(diceset, seed=seed, realtime=False)

    def on_event(kind, text):
        if log is not None:
            log.append((kind, text))
        if kind == "saved":  # what was really in the tray
            truths[cap.saved[-1]] = [dict(lab) for lab in tray.truth["labels"]]

    cap.on_event = on_event
    session = CaptureSession(cap, tray, recognizer or Recognizer(diceset), Settler())
    roller = SimRoller(session, np.random.default_rng(seed), hold=hold)
    return cap, session, tray, roller, truths


def read_rows(folder) -> list[dict]:
    with (Path(folder) / "labels.csv").open(newline="") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == HEADER
        return list(reader)


def assert_rows_match_truth(rows, truths):
    by_file: dict[str, list[dict]] = {}
    for r in rows:
        by_file.setdefault(r["file"], []).append(r)
    assert set(by_file) == set(truths)
    for name, labels in truths.items():
        got = by_file[name]
        assert sorted((r["die"], r["value"]) for r in got) == sorted(
            (lab["die"], lab["face"]) for lab in labels
        )
        for r in got:  # each box sits on a thrown die of that face
            x, y, w, h = (int(r[k]) for k in "xywh")
            cx, cy = x + w / 2, y + h / 2
            assert any(
                lab["face"] == r["value"]
                and abs(lab["x"] + lab["w"] / 2 - cx) < w / 2
                and abs(lab["y"] + lab["h"] / 2 - cy) < h / 2
                for lab in labels
            ), r
        assert all(r["split"] == "capture" for r in got)


# --------------------------------------------------------------------- the whole capture


def test_capture_plays_through_with_corrections_then_teaches(tmp_path, capsys):
    rec = Misreading(TOSS)
    cap, session, _, roller, truths = capture_setup(tmp_path / "cap", recognizer=rec, per_face=2)
    presses = []
    session.buttons.press = lambda long, t: presses.append(long) or cap.press(long, t)
    assert run_loop(session, steps_clock(), roller=roller, max_seconds=120) == "done"

    rows = read_rows(tmp_path / "cap")
    assert_rows_match_truth(rows, truths)
    # the misread dice were fixed with short presses; one long press accepted each die
    assert presses.count(False) >= 2 * len(cap.saved)  # a wrong and an unsure die a throw
    assert presses.count(True) == len(rows)
    for name in cap.saved:
        img = cv2.imread(str(tmp_path / "cap" / "images" / name))
        assert img.shape == (480, 640, 3)
    # the stop rule: every face seen twice now, and not before the last photo
    cov = cap.folder.coverage()
    assert cov.done(2)
    before = [r for r in rows if r["file"] != cap.saved[-1]]
    seen = {(d.id, f): 0 for d in TOSS.dice for f in d.faces}
    for r in before:
        seen[(r["die"], r["value"])] += 1
    assert min(seen.values()) < 2

    # teaching's own reader takes the folder as it is
    from vision.labelled import read_folder

    photos = read_folder(tmp_path / "cap", TOSS)
    assert sorted(p.path.name for p in photos) == sorted(cap.saved)
    assert sum(len(p.labels) for p in photos) == len(rows)

    # the table's own teaching (vision.teach: numpy, no torch) runs on the folder as it is
    lines = []
    rc = teach_after(cap.folder, out=lines.append)
    assert rc == 0, capsys.readouterr().err
    taught = tmp_path / "cap" / "taught"
    assert (taught / "taught.json").is_file()
    # ... and says what it gave as `dicetray teach` does
    # (two throws' dice: too few to judge a taught head, which it says)
    told = [line.strip() for line in lines]
    n = len(rows)
    assert f"taught toss-up from {len(cap.saved)} photos ({n} dice)" in "\n".join(told)
    assert any(line.startswith(f"the photos hold {n} dice: too few") for line in told), told
    capsys.readouterr()
    # the taught folder reads toss-up dice; for d6 dice it is refused in one line
    assert (
        calibrate.main(
            [
                "--teach",
                "--out",
                str(tmp_path / "d6"),
                "--dice-set",
                "d6",
                "--taught",
                str(taught),
                "--source",
                "sim",
                "--sim-roller",
                "--headless",
                "--config",
                str(tmp_path / "x.toml"),
            ],
            out=lambda s: None,
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "toss-up" in err and "Traceback" not in err, err
    assert not (tmp_path / "d6").exists()


def test_command_on_the_simulated_tray_with_a_simulated_roller(tmp_path, monkeypatch, capsys):
    taught = []

    def fake_teach(folder, dice_set, out_dir, progress=None, seed=0):
        assert len(read_rows(folder)) >= 3
        for i in range(1, 4):
            progress("classifier", i, 3)
        out_dir.mkdir()
        taught.append(dice_set.id)
        return {"heldout": {"face_right": 1.0}}

    monkeypatch.setattr(teaching, "load_teacher", lambda: (fake_teach, ValueError))
    out = []
    rc = calibrate.main(
        [
            "--teach",
            "--out",
            str(tmp_path / "cap"),
            "--source",
            "sim",
            "--dice-set",
            "toss-up",
            "--per-face",
            "1",
            "--sim-roller",
            "--headless",
            "--config",
            str(tmp_path / "none.toml"),
        ],
        out=out.append,
    )
    assert rc == 0, capsys.readouterr().err
    assert taught == ["toss-up"] and (tmp_path / "cap" / "taught").is_dir()
    text = "\n".join(out)
    assert "green" in text and "1/1" in text  # the coverage table
    assert "held out: face_right 1.000" in text
    assert "teaching: classifier" in capsys.readouterr().err  # the tqdm bar


def test_the_guided_capture_ends_with_the_lines_dicetray_teach_prints(
    tmp_path, monkeypatch, capsys
):
    """Teaching's record (``vision.teach``) is told to the owner as `dicetray teach` tells
    it: in words, with the teaching die whose wrong read sets how sure reads must be, not as
    a dump of its figures."""

    def fake_teach(folder, dice_set, out_dir, progress=None, seed=0):
        progress("classifier", 1, 1)
        out_dir.mkdir()
        return {
            "dice_set": dice_set.id,
            "taught_with": {"photos": 6, "dice": 60},
            "seconds": 41.5,
            "thresholds": {"classifier": None, "detector": None},
            "heldout": {
                "photos": 6,
                "dice": 60,
                "misread": [
                    {
                        "file": "003.jpg",
                        "box": [120.0, 88.0, 40.0, 41.0],
                        "label": ["d6", "5"],
                        "read": ["d6", "2"],
                        "score": 0.97,
                    }
                ],
                "kept_shipped_models": "the taught head read fewer dice than the shipped ones",
            },
        }

    monkeypatch.setattr(teaching, "load_teacher", lambda: (fake_teach, ValueError))
    out = []
    args = ["--teach", "--out", str(tmp_path / "cap"), "--source", "sim", "--dice-set", "d6"]
    args += ["--per-face", "1", "--sim-roller", "--headless"]
    rc = calibrate.main([*args, "--config", str(tmp_path / "none.toml")], out=out.append)
    assert rc == 0, capsys.readouterr().err
    text = "\n".join(out)
    assert f"taught d6 from 6 photos (60 dice) in 41.5 s -> {tmp_path / 'cap' / 'taught'}" in text
    assert "in 003.jpg the die labelled 5 at x 120, y 88 was read as 2, 97% sure" in text
    assert "the taught head read fewer dice than the shipped ones" in text
    assert "held out:" not in text


# ------------------------------------------------------------------- bad input, dropouts


def test_out_that_is_a_file_is_refused_and_left_alone(tmp_path, capsys):
    f = tmp_path / "notes.txt"
    f.write_text("mine")
    rc = calibrate.main(
        [
            "--teach",
            "--out",
            str(f),
            "--source",
            "sim",
            "--dice-set",
            "toss-up",
            "--sim-roller",
            "--headless",
            "--config",
            str(tmp_path / "none.toml"),
        ],
        out=lambda s: None,
    )
    err = capsys.readouterr().err
    assert rc == 2 and "is a file" in err and "Traceback" not in err
    assert f.read_text() == "mine" and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_nothing_is_written_before_the_first_photo(tmp_path, capsys):
    rc = calibrate.main(
        [
            "--teach",
            "--out",
            str(tmp_path / "cap"),
            "--source",
            "replay:" + str(tmp_path / "nothing"),
            "--headless",
            "--config",
            str(tmp_path / "none.toml"),
        ],
        out=lambda s: None,
    )
    assert rc == 1 and "Traceback" not in capsys.readouterr().err
    assert not (tmp_path / "cap").exists()


def test_a_folder_that_is_no_taught_model_is_refused(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    for teach in (["--teach", "--out", str(tmp_path / "cap"), "--sim-roller"], ["--no-check"]):
        rc = calibrate.main(
            [
                *teach,
                "--taught",
                str(tmp_path / "empty"),
                "--source",
                "sim",
                "--dice-set",
                "toss-up",
                "--headless",
                "--config",
                str(tmp_path / "x.toml"),
            ],
            out=lambda s: None,
        )
        err = capsys.readouterr().err
        assert rc == 2 and "empty" in err and "Traceback" not in err, err
    assert not (tmp_path / "cap").exists()


def test_folder_of_another_dice_set_is_refused(tmp_path):
    CaptureFolder(tmp_path, load("d6")).save(BLANK, [(1, 2, 30, 30, "d6", "4")])
    with pytest.raises(CaptureError, match="another dice set"):
        CaptureFolder(tmp_path, TOSS)


def test_missing_out_and_bad_per_face(tmp_path, capsys):
    base = ["--teach", "--source", "sim", "--headless", "--config", str(tmp_path / "x.toml")]
    assert calibrate.main(base, out=lambda s: None) == 2
    assert "--out" in capsys.readouterr().err
    assert (
        calibrate.main([*base, "--out", str(tmp_path / "c"), "--per-face", "0"], out=lambda s: None)
        == 2
    )
    assert "--per-face" in capsys.readouterr().err


def test_camera_dropout_during_a_throw_loses_nothing(tmp_path):
    log = []
    cap, session, tray, roller, truths = capture_setup(
        tmp_path / "cap",
        per_face=1,
        seed=5,
        log=log,
        hold=lambda: cap.camera_lost_since is not None,
    )
    reviewed = []

    def drop_on_first_review(kind, text, inner=cap.on_event):
        inner(kind, text)
        if kind == "review" and not reviewed:
            reviewed.append([dict(lab) for lab in tray.truth["labels"]])
            tray.drop_out(frames=120)  # 4 s of no picture, mid-review

    cap.on_event = drop_on_first_review
    assert run_loop(session, steps_clock(), roller=roller, max_seconds=90) == "done"
    kinds = [text for kind, text in log if kind == "camera"]
    assert kinds[:2] == ["camera lost: waiting for it", "camera back"]
    first = [r for r in read_rows(tmp_path / "cap") if r["file"] == cap.saved[0]]
    assert sorted((r["die"], r["value"]) for r in first) == sorted(
        (lab["die"], lab["face"]) for lab in reviewed[0]
    )
    assert cap.dropped == 0
    assert_rows_match_truth(read_rows(tmp_path / "cap"), truths)


def test_a_folder_holding_a_capture_is_continued(tmp_path):
    folder = tmp_path / "cap"
    cap1, session, _, roller, truths1 = capture_setup(folder, per_face=1, seed=1)
    assert run_loop(session, steps_clock(), roller=roller, max_seconds=60) == "done"
    rows1 = read_rows(folder)
    cap2, session, _, roller, truths2 = capture_setup(folder, per_face=2, seed=2)
    assert cap2.folder.continued and cap2.coverage.count("toss", "red") >= 1
    assert run_loop(session, steps_clock(), roller=roller, max_seconds=60) == "done"
    rows2 = read_rows(folder)
    assert rows2[: len(rows1)] == rows1  # appended, not overwritten
    assert (folder / "labels.csv").read_text().count("file,split") == 1
    n1 = len(cap1.saved)
    assert cap2.saved[0] == f"{n1 + 1:04d}.jpg"
    assert_rows_match_truth(rows2, {**truths1, **truths2})
    assert cap2.folder.coverage().done(2)


def test_a_complete_folder_goes_straight_to_teaching(tmp_path, monkeypatch):
    folder = CaptureFolder(tmp_path, TOSS)
    folder.save(BLANK, [(0, 0, 40, 40, "toss", f) for f in ("green", "yellow", "red")])
    calls = []
    monkeypatch.setattr(
        teaching,
        "load_teacher",
        lambda: (lambda *a, **k: calls.append(a) or {"heldout": {}}, ValueError),
    )
    out = []
    assert (
        calibrate.main(
            [
                "--teach",
                "--out",
                str(tmp_path),
                "--dice-set",
                "toss-up",
                "--per-face",
                "1",
                "--min-dice",
                "3",
                "--source",
                "sim",
                "--headless",
                "--config",
                str(tmp_path / "x.toml"),
            ],
            out=out.append,
        )
        == 0
    )
    assert calls and "already seen 1 times, 3 dice in all" in "\n".join(out)


def test_the_capture_goes_on_until_enough_dice_were_saved(tmp_path):
    """Every face seen is not enough: teaching judges a taught classifier only on 40 dice or
    more, so the capture asks for more dice (any faces) until ``total_dice`` were saved."""
    folder = CaptureFolder(tmp_path, TOSS)
    folder.save(BLANK, [(0, 0, 40, 40, "toss", f) for f in ("green", "yellow", "red")])
    cap = Capture(folder, per_face=1, total_dice=5)
    assert cap.state == "throw" and "2 more dice, any faces" in cap.prompt()
    assert cap.settled(two_dice_roll(), BLANK, t=0.0) == "reviewing"
    # the "?" die: next face, accept; then the throw is saved
    assert cap.press(long=False, t=1.0) == "cycled face"
    assert cap.press(long=True, t=2.0) == "accepted"
    assert cap.press(long=True, t=3.0) == "saved"
    assert cap.coverage.total() == 5 and cap.state == "done"
    assert Capture(folder, per_face=1, total_dice=5).state == "done"


def test_teaching_failure_is_one_line_and_keeps_the_photos(tmp_path, capsys):
    folder = CaptureFolder(tmp_path, TOSS)
    folder.save(BLANK, [(0, 0, 40, 40, "toss", "red")])

    def failing(*a, **k):
        raise ValueError("too few photos: capture at least 4")

    assert teach_after(folder, out=lambda s: None, teacher=failing) == 1
    err = capsys.readouterr().err
    assert "teaching failed: too few photos" in err and "Traceback" not in err
    assert len(read_rows(tmp_path)) == 1


# ---------------------------------------------------------------- presses, keys, taps


def two_dice_roll():
    return SettledRoll(
        (
            DieReading(10, 10, 40, 40, "toss", "green", 0.99),
            DieReading(90, 10, 40, 40, "toss", None, 0.3),
        )
    )


def test_an_unsure_die_needs_a_face_before_it_is_accepted(tmp_path):
    cap = Capture(CaptureFolder(tmp_path, TOSS), per_face=3)
    assert cap.settled(two_dice_roll(), BLANK, 0.0) == "reviewing"
    assert cap.correction.selected == 1  # the unsure die first
    assert cap.press(True, 1.0) == "pick a face first" and not cap.saved
    assert cap.key("down", 2.0) == "cycled face" and cap.key("down", 2.1) == "cycled face"
    assert cap.key("return", 3.0) == "accepted"
    assert cap.correction.selected == 0 and cap.accepted == {1}
    assert cap.press(True, 4.0) == "saved"
    assert [(r["die"], r["value"]) for r in cap.folder.rows] == [
        ("toss", "green"),
        ("toss", "yellow"),
    ]
    assert cap.state == "throw"


def test_an_unsure_dies_first_face_is_the_readers_guess_while_teaching(tmp_path):
    """Labelling a throw for teaching: the first press on an unsure die shows the face the
    reader found likeliest, which the owner still accepts or changes."""
    cap = Capture(CaptureFolder(tmp_path, TOSS), per_face=3)
    green = two_dice_roll().dice[0]
    guessed = SettledRoll((green, DieReading(90, 10, 40, 40, "toss", None, 0.6, guess="red")))
    assert cap.settled(guessed, BLANK, 0.0) == "reviewing"
    from tray.screen.capture import build_capture_view

    boxes = build_capture_view(cap, None, None).boxes
    assert [b[4:] for b in boxes] == [("green", "read", False), ("red?", "unsure", True)]
    assert cap.key("down", 1.0) == "cycled face"
    assert cap.correction.slots[1].value == "toss:red"


def test_accept_all_stops_at_the_unsure_die(tmp_path):
    cap = Capture(CaptureFolder(tmp_path, TOSS), per_face=3)
    cap.settled(two_dice_roll(), BLANK, 0.0)
    cap.select(0)
    assert cap.key("a", 1.0) == "pick a face first"
    assert cap.accepted == {0} and cap.correction.selected == 1 and not cap.saved
    cap.press(False, 2.0)
    assert cap.tap(("button", "all"), 3.0) == "saved"
    assert [r["value"] for r in cap.folder.rows] == ["green", "green"]


def test_taps_and_rethrow(tmp_path):
    cap = Capture(CaptureFolder(tmp_path, TOSS), per_face=3)
    cap.settled(two_dice_roll(), BLANK, 0.0)
    assert cap.tap(("die", 0), 1.0) == "selected die"
    cap.accept(1.05)
    assert cap.accepted == {0} and cap.correction.selected == 1
    assert cap.tap(("die", 0), 1.08) == "selected die"
    assert cap.tap(("die", 0), 1.1) == "cycled face"  # green -> yellow
    assert cap.correction.slots[0].value == "toss:yellow" and cap.accepted == set()
    assert cap.key("escape", 1.5) == "dropped" and cap.state == "throw"
    cap.settled(two_dice_roll(), BLANK, 1.8)
    assert cap.tap(("button", "rethrow"), 2.0) == "dropped"
    assert cap.state == "throw" and cap.folder.rows == [] and cap.dropped == 2
    cap.settled(two_dice_roll(), BLANK, 3.0)
    cap.settled(two_dice_roll(), BLANK, 4.0)  # thrown again unsaved
    assert cap.dropped == 3 and cap.state == "review"


def test_menu_long_press_finishes_and_escape_leaves(tmp_path):
    cap = Capture(CaptureFolder(tmp_path, TOSS), per_face=3)
    assert cap.press(True, 0.0) == "keep throwing" and cap.state == "throw"
    assert cap.press(False, 1.0) == "menu: finish and teach"
    assert cap.press(True, 2.0) == "finish" and cap.state == "done"
    cap2 = Capture(CaptureFolder(tmp_path / "b", TOSS), per_face=3)
    assert cap2.key("q", 0.0) == "finish" and cap2.state == "done"
    cap3 = Capture(CaptureFolder(tmp_path / "c", TOSS), per_face=3)
    assert cap3.key("escape", 0.0) == "left" and cap3.state == "left"


def test_buttons_tell_long_from_short():
    got = []
    b = Buttons(lambda long, t: got.append(long) or "ok", releases=True, long_s=0.8)
    assert b.handle(ButtonPress(0, 1.0)) is None
    b.handle(ButtonRelease(0, 1.2, 0.2))
    b.handle(ButtonPress(0, 2.0))
    b.handle(ButtonRelease(0, 3.0, 1.0))
    assert b.handle(ButtonRelease(1, 3.0, 1.0)) is None  # no press: ignored
    assert got == [False, True]


def test_screens_draw_headless(tmp_path):
    from tray.screen.capture import CaptureScreen, TeachView, build_capture_view
    from tray.screen.display import Display

    cap = Capture(CaptureFolder(tmp_path, TOSS), per_face=2)
    cap.settled(two_dice_roll(), BLANK, 0.0)
    view = build_capture_view(cap, None, None)
    assert [b[4:] for b in view.boxes] == [("green", "read", False), ("?", "unsure", True)]
    display = Display(size=(1600, 960), headless=True)  # twice the layout: taps scale
    screen = CaptureScreen(display)
    screen.draw_capture(view)
    areas = {t: r for r, t in display.hits}
    die0, die1, ok = areas[("die", 0)], areas[("die", 1)], areas[("button", "ok")]
    assert die1.left > die0.right  # the second die lies right of the first, as in the frame
    assert screen.hit(die1.center) == ("die", 1) and screen.hit(ok.center) == ("button", "ok")
    assert min(ok.size) >= 96  # a finger's width on a screen twice the layout (48 px there)
    assert min(d.cap for d in display.drawn) >= 32  # never below MIN_CAP (16 px at 800x480)
    assert "Die 2 of 2 not read yet" in [d.text for d in display.drawn]
    screen.draw_teach(TeachView("Teaching", "classifier", 3, 10, "about 00:20 left"))
    words = [d.text for d in display.drawn]
    assert "3 of 10 steps (30%)" in words and "about 00:20 left" in words
    display.save(tmp_path / "teach.png")
    img = cv2.imread(str(tmp_path / "teach.png"))
    assert img.shape == (960, 1600, 3)  # the whole window: no letterbox bars


def test_teaching_progress_shares_a_bar_across_stages_of_one_count():
    import io

    stream = io.StringIO()
    p = teaching.Progress(stream=stream)
    p("reading photos", 1, 2)
    p("reading photos", 2, 2)
    first = p.bar
    p("cutting crops", 1, 6)
    assert p.bar is not first and p.bar.n == 1  # a new count, a new bar
    second = p.bar
    p("teaching in folds", 3, 6)
    assert p.bar is second and p.bar.n == 3  # same count: same bar goes on
    p.close()
    assert "teaching: teaching in folds" in stream.getvalue()
