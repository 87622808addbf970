"""Rolls the players corrected are kept as labelled photos to teach from (tray/table/played.py):
a Bank game on the simulated tray, through the real loop (frames, vision, settler, table)."""

from __future__ import annotations

from dataclasses import replace

from hardware.sim.tray import SimulatedTray
from tray.app.config import ConfigError, parse_config
from tray.app.session import Session
from tray.layouts import default_layout
from tray.rules.journal import Journal
from tray.table.played import PlayedRolls
from tray.table.table import Table
from vision.dicesets import load
from vision.labelled import read_folder
from vision.pipeline import Recognizer
from vision.settle import Settler
from vision.types import FrameReading

D6 = load("d6")


class Unsure:
    """The real recognizer, with the bottom-most die left unread while ``unsure`` is set."""

    def __init__(self):
        self.inner = Recognizer(D6)
        self.unsure = True

    def read(self, frame) -> FrameReading:
        r = self.inner.read(frame)
        dice = list(r.dice)
        if self.unsure and dice and all(d.read for d in dice):
            low = max(range(len(dice)), key=lambda i: dice[i].y)
            dice[low] = replace(dice[low], face=None, confidence=0.3)
        return replace(r, dice=tuple(dice))


def _game(tmp_path, played_root):
    tray = SimulatedTray(D6, seed=5, realtime=False)
    table = Table(
        Journal.create(tmp_path / "g.jsonl", "bank", ["Ana", "Ben"], {}, default_layout("bank"))
    )
    rec = Unsure()
    session = Session(table, tray, rec, Settler(), read_timeout=0.0)
    log = []
    table.on_event = lambda kind, text: log.append((kind, text))
    session.keep_played(PlayedRolls(played_root, D6))
    return tray, table, rec, session, log


def _throw_until(session, tray, table, t, done):
    tray.throw(count=table.expect().roll.count)
    for _ in range(400):
        session.step(t, draw=False)
        t += 1 / 30
        if done():
            return t
    raise AssertionError(f"the roll never came ({table.message})")


def _correct(table, truth, t):
    """Set each unread die to the face the tray really shows (the die whose centre lies in
    its box), as the roller's presses would, and confirm."""
    c = table.correction
    for i, slot in enumerate(c.slots):
        if slot.was_unread:
            x, y, w, h = slot.box
            face = next(
                lab["face"]
                for lab in truth
                if x <= lab["x"] + lab["w"] / 2 <= x + w and y <= lab["y"] + lab["h"] / 2 <= y + h
            )
            c.selected = i
            while slot.value != f"d6:{face}":
                c.cycle()
    return table.confirm_correction(t)


def test_a_corrected_roll_is_kept_as_a_labelled_photo_and_a_read_one_is_not(tmp_path):
    tray, table, rec, session, log = _game(tmp_path, tmp_path / "played")
    t = _throw_until(session, tray, table, 0.0, lambda: table.correction is not None)
    truth = [dict(lab) for lab in tray.truth["labels"]]
    assert _correct(table, truth, t) == "taken"

    photos = read_folder(tmp_path / "played" / "d6", D6)  # teaching's own reader
    assert len(photos) == 1
    labels = photos[0].labels
    assert sorted(lab.face for lab in labels) == sorted(lab["face"] for lab in truth)
    assert {lab.split for lab in labels} == {"played"}
    for lab in labels:  # each box sits on the thrown die of its face
        cx, cy = lab.x + lab.w / 2, lab.y + lab.h / 2
        assert any(
            t["face"] == lab.face
            and abs(t["x"] + t["w"] / 2 - cx) < lab.w / 2
            and abs(t["y"] + t["h"] / 2 - cy) < lab.h / 2
            for t in truth
        )
    img, _ = photos[0].decoded()
    assert img.shape == (480, 640, 3)
    assert any(kind == "played" and "d6/0001.jpg" in text for kind, text in log)
    # the journal took the same dice
    rolled = [e for e in table.journal.events if e.get("type") == "roll"][-1]["dice"]
    assert sorted(rolled) == sorted(f"d6:{lab['face']}" for lab in truth)

    # a roll read whole is not kept: nobody checked its faces
    tray.pick_up()
    rec.unsure = False
    rolls = table.rolls_taken
    _throw_until(session, tray, table, t + 5, lambda: table.rolls_taken > rolls)
    assert len(read_folder(tmp_path / "played" / "d6", D6)) == 1


def test_a_roll_corrected_later_is_kept_with_the_faces_the_game_took(tmp_path):
    """Key C reopens the last roll after it was scored. When the players change its faces
    there, the photo kept of it holds faces the game no longer took: it is dropped (photo
    and rows) and the roll is kept again with the new faces; the rolls kept before it stay.
    A roll read whole (not kept: nobody checked it) whose faces are changed with key C is
    kept then: a die the reader was sure of, and wrong, is what teaching most needs."""
    tray, table, rec, session, log = _game(tmp_path, tmp_path / "played")
    folder = tmp_path / "played" / "d6"
    t = _throw_until(session, tray, table, 0.0, lambda: table.correction is not None)
    assert _correct(table, [dict(lab) for lab in tray.truth["labels"]], t) == "taken"
    tray.pick_up()
    t = _throw_until(session, tray, table, t + 5, lambda: table.correction is not None)
    assert _correct(table, [dict(lab) for lab in tray.truth["labels"]], t) == "taken"
    assert sorted(p.name for p in (folder / "images").iterdir()) == ["0001.jpg", "0002.jpg"]
    kept_first = [lab for p in read_folder(folder, D6) if p.file == "0001.jpg" for lab in p.labels]
    second = [lab for p in read_folder(folder, D6) if p.file == "0002.jpg" for lab in p.labels]

    assert table.correct_last(t) == "correcting"  # confirmed as it was: the photo stays
    assert table.confirm_correction(t) == "corrected"
    assert len(read_folder(folder, D6)) == 2
    assert table.correct_last(t) == "correcting"
    c = table.correction
    c.selected = 0
    c.cycle()  # the first die set to another face
    new_first = c.slots[0].value.split(":")[1]
    assert table.confirm_correction(t) == "corrected"
    photos = read_folder(folder, D6)
    assert [p.file for p in photos] == ["0001.jpg", "0003.jpg"]
    assert photos[0].labels == kept_first
    assert not (folder / "images" / "0002.jpg").exists()
    assert [lab.face for lab in photos[1].labels] == [new_first] + [lab.face for lab in second[1:]]
    assert [(lab.x, lab.y) for lab in photos[1].labels] == [(lab.x, lab.y) for lab in second]
    assert any(
        kind == "played" and "dropped the kept roll d6/0002.jpg" in text for kind, text in log
    )

    # a roll read whole: not kept, until key C changes its faces
    tray.pick_up()
    rec.unsure = False
    rolls = table.rolls_taken
    t = _throw_until(session, tray, table, t + 5, lambda: table.rolls_taken > rolls)
    assert len(read_folder(folder, D6)) == 2
    truth = tray.truth["labels"]
    assert table.correct_last(t) == "correcting"
    c = table.correction
    c.selected = len(c.slots) - 1
    c.cycle()
    assert table.confirm_correction(t) == "corrected"
    photos = read_folder(folder, D6)
    assert [p.file for p in photos] == ["0001.jpg", "0003.jpg", "0004.jpg"]
    assert len(photos[2].labels) == len(truth)
    assert [f"d6:{lab.face}" for lab in photos[2].labels] == list(c.specs())
    assert any(kind == "played" and "kept the roll corrected later" in text for kind, text in log)


def test_a_folder_that_cannot_be_written_stops_the_keeping_not_the_game(tmp_path):
    blocker = tmp_path / "played"
    blocker.write_text("a file, not a folder")
    tray, table, _, session, log = _game(tmp_path, blocker)
    t = _throw_until(session, tray, table, 0.0, lambda: table.correction is not None)
    assert _correct(table, [dict(lab) for lab in tray.truth["labels"]], t) == "taken"
    said = [text for kind, text in log if kind == "played"]
    assert len(said) == 1 and "no longer kept" in said[0] and "vision.played" in said[0]
    assert table.rolls_taken == 1


def test_the_played_folder_is_set_or_turned_off_in_the_config():
    assert parse_config({"vision": {"played": "~/rolls"}}).vision.played.name == "rolls"
    assert parse_config({"vision": {"played": ""}}).vision.played is None
    assert parse_config({}).vision.played.name == "played"
    try:
        parse_config({"vision": {"played": 3}})
    except ConfigError as exc:
        assert "vision.played" in str(exc)
    else:
        raise AssertionError("a number was taken for a folder")


def test_the_played_bench_keeps_only_the_rolls_the_players_corrected(tmp_path):
    """``dicetray bench --teach --played``'s keeping (lab.teachbench.keep_played): each roll
    read as the camera reads it, kept only when a die was asked about, every die labelled."""
    import csv

    from lab.teachbench import OWNER, keep_played, owner_photos

    truth = owner_photos(tmp_path / "rolls", 8, seed=5, rolled=True)
    counts = keep_played(tmp_path / "rolls", tmp_path / "kept", OWNER)
    assert counts["rolls"] == 8
    assert counts["kept"] + counts["read_whole"] + counts["refused"] == 8
    assert counts["kept"] >= 1 and counts["asked"] >= counts["kept"]
    assert counts["kept_wrong"] == 0
    with open(tmp_path / "kept" / "labels.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == counts["dice_kept"] == 4 * counts["kept"]
    assert {r["split"] for r in rows} == {"played"}
    by_file = {r["file"] for r in rows}
    assert len(by_file) == counts["kept"]
    for name in by_file:  # the faces kept are the faces thrown (no sure read was wrong here)
        i = int(name.split(".")[0])
        assert sorted(r["value"] for r in rows if r["file"] == name) == sorted(
            lab["face"] for lab in truth[i]
        )
    assert len(read_folder(tmp_path / "kept", OWNER)) == counts["kept"]


def test_teaching_from_the_start_screen_can_be_stopped_and_keeps_the_old_reader(tmp_path):
    """``teach_played`` asks ``stop()`` at each step of teaching: True ends it there, with a
    line saying the tray reads as before; the screen says how to stop it. Without ``stop``
    teaching runs to its end."""
    from tray.app.teach_played import STOPPED, teach_played
    from tray.screen.capture import TeachView

    steps, drawn = [], []

    def teacher(folder, dice_set, out, progress=None, seed=0):
        for i in range(1, 6):
            steps.append(i)
            progress("teaching", i, 5)
        return {"heldout": {"dice": 48, "face_right": 0.97}}

    class Display:
        class pg:
            class event:
                pump = staticmethod(lambda: None)

        draw = staticmethod(drawn.append)

    played = PlayedRolls(tmp_path / "played", load("d6"))
    asked = iter([False, False, False, True])
    said = teach_played(played, Display, teacher=teacher, stop=lambda: next(asked))
    assert said == STOPPED and steps == [1, 2, 3]  # stopped at the fourth look
    assert all(isinstance(v, TeachView) for v in drawn)
    assert drawn[0].note.endswith("A long press or Esc stops teaching")
    steps.clear()
    said = teach_played(played, Display, teacher=teacher)
    assert steps == [1, 2, 3, 4, 5] and said.startswith("Taught from 48 dice: 97% read right")


def test_teaching_is_not_offered_while_a_face_shows_on_fewer_dice_than_teaching_needs(tmp_path):
    """Teaching refuses photos that show a face of the set on fewer than 2 dice
    (``vision.teach.MIN_PER_FACE``). In play a rare face (ZAP: one face of Rollers' one black
    die) may be seen once in 40 rolls: the start screen then does not offer a teaching that
    would fail, and the hint on quitting says which face it waits for."""
    import numpy as np

    from tray.table.played import PER_FACE, TEACH_DICE
    from vision.teach import MIN_PER_FACE

    assert PER_FACE == MIN_PER_FACE
    rollers = load("rollers")
    played = PlayedRolls(tmp_path, rollers)
    frame = np.zeros((480, 640, 3), np.uint8)
    box = (10, 20, 40, 40)
    faces = ["1", "2", "3", "4", "5", "star"]
    for i in range(TEACH_DICE // 4):  # 10 rolls of 4 wild dice and the black one: 50 dice
        roll = [(box, f"wild:{faces[(i + k) % 6]}") for k in range(4)]
        roll.append((box, f"black:{'zap' if i == 3 else str(i % 5 + 1)}"))
        assert played.keep(frame, roll) is not None
    assert len(played.folder.rows) == 50
    assert played.thin_faces() == {"zap": 1}
    assert played.teach_offer() is None
    hint = played.teach_hint()
    assert "10 corrected rolls (50 dice)" in hint and "'zap' on 1" in hint
    assert "hold 40 dice" not in hint and "dicetray teach" not in hint
    played.keep(frame, [(box, "black:zap")])
    assert played.thin_faces() == {}
    assert played.teach_offer() == "Teach the tray your dice (11 kept rolls)"
    assert "dicetray teach" in played.teach_hint()
