"""Phone photos stored on their side: a portrait photo is often stored as landscape pixels
with an EXIF orientation tag saying "turn me". A labelled folder of such photos is read in
the frame its boxes were drawn in, and ``dicetray recognize`` shows the photo upright."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from lab.teachbench import with_orientation
from vision.cli import read_photo
from vision.labelled import LabelError, read_folder

STORED = (400, 300)  # (width, height) of the pixels as stored
DIE = (40, 200, 60, 60)  # x, y, w, h of a white square in the stored pixels


def _rotated_jpeg(path: Path, orientation: int = 6) -> None:
    """A JPEG of STORED pixels, dark with a white square at DIE, tagged with an EXIF
    orientation (6: turn 90 degrees clockwise to view, as a phone held upright writes)."""
    img = np.full((STORED[1], STORED[0], 3), 40, np.uint8)
    x, y, w, h = DIE
    img[y : y + h, x : x + w] = 255
    path.write_bytes(with_orientation(cv2.imencode(".jpg", img)[1].tobytes(), orientation))


def _folder(tmp_path: Path, box) -> Path:
    (tmp_path / "images").mkdir(parents=True)
    _rotated_jpeg(tmp_path / "images" / "p.jpg")
    x, y, w, h = box
    (tmp_path / "labels.csv").write_text(
        f"file,split,x,y,w,h,value\np.jpg,s,{x:g},{y:g},{w:g},{h:g},6\n", encoding="utf-8"
    )
    return tmp_path


def _white_under(img: np.ndarray, box) -> float:
    x, y, w, h = (int(v) for v in box)
    return float(img[y + 10 : y + h - 10, x + 10 : x + w - 10].mean())


def test_a_photo_is_read_upright_as_a_phone_shows_it(tmp_path):
    _rotated_jpeg(tmp_path / "p.jpg")
    img, scale = read_photo(str(tmp_path / "p.jpg"))
    assert img.shape[:2] == (STORED[0], STORED[1]) and scale == 1.0  # turned: 300 x 400
    stored, _ = read_photo(str(tmp_path / "p.jpg"), upright=False)
    assert stored.shape[:2] == (STORED[1], STORED[0])


def test_boxes_drawn_on_the_upright_photo_are_read_upright(tmp_path):
    # turned 90 degrees clockwise, the square at stored (x, y) lands at (H - y - h, x)
    x, y, w, h = DIE
    box = (STORED[1] - y - h, x, w, h)
    (photo,) = read_folder(_folder(tmp_path, box), "d6")
    assert photo.upright and photo.size == (STORED[1], STORED[0])
    lab = photo.labels[0]
    assert _white_under(photo.image(), (lab.x, lab.y, lab.w, lab.h)) > 200
    img, same = photo.decoded()
    assert _white_under(img, (same.labels[0].x, same.labels[0].y, 60, 60)) > 200


def test_boxes_drawn_on_the_stored_pixels_are_read_in_those_pixels(tmp_path):
    # the box lies outside the upright photo (300 wide) but inside the stored one: some
    # labelling tools ignore the orientation tag, and the folder is still read right
    (photo,) = read_folder(_folder(tmp_path, (320, 20, 60, 60)), "d6")
    assert not photo.upright and photo.size == STORED
    assert photo.image().shape[:2] == (STORED[1], STORED[0])
    (photo,) = read_folder(_folder(tmp_path / "b", DIE), "d6")
    # DIE fits both frames: the upright one is the rule (what a phone shows)
    assert photo.upright
    # a box outside both frames is still refused, naming the upright size
    with pytest.raises(LabelError, match=r"lies outside images/p.jpg \(300x400\)"):
        read_folder(_folder(tmp_path / "c", (350, 350, 60, 60)), "d6")
