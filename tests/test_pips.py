"""vision.pips: the geometric pip counter reads drawn and real d6 faces right, and gives no
count (None) where there is no pip face to read.

Crops are made as the table makes them: the die fills the middle ~74% of a square crop
(``vision.crops.cut_crop``, margin 1.35), on some floor.
"""

import csv
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import pips
from vision.crops import cut_crop
from vision.dicesets import load
from vision.faceart import draw_face
from vision.pips import PipRead, read_many, read_pips

ROOT = Path(__file__).resolve().parent.parent
PHOTOS = ROOT / "fixtures" / "realdice"
SIZE = 64
DIE = round(SIZE / 1.35)  # the die's side in a crop
FELT = (40, 90, 50)  # BGR
WOOD = (120, 160, 200)


def on_floor(face: np.ndarray, angle: float = 0.0, floor=FELT, squash: float = 1.0):
    """A 64 px crop: ``face`` (the die seen from above) turned by ``angle`` degrees and, for an
    oblique view, squashed to ``squash`` of its height, centred on a plain floor."""
    n = face.shape[0]
    m = cv2.getRotationMatrix2D((n / 2, n / 2), angle, 1.0)
    m[:, 2] += (SIZE - n) / 2
    m[1] *= squash
    m[1, 2] += SIZE / 2 * (1 - squash)
    alpha = cv2.warpAffine(np.full((n, n), 255, np.uint8), m, (SIZE, SIZE))[..., None] / 255.0
    turned = cv2.warpAffine(face, m, (SIZE, SIZE))
    floor_img = np.empty((SIZE, SIZE, 3), np.float64)
    floor_img[:] = floor
    return (turned * alpha + floor_img * (1 - alpha)).astype(np.uint8)


def d6_face(count: int, light_pips: bool = False) -> np.ndarray:
    """The d6 set's face of ``count`` pips, black pips on a white die, or (``light_pips``)
    the negative: white pips on a black die."""
    face = draw_face(load("d6"), "d6", str(count), size=DIE)
    return 255 - face if light_pips else face


def blank_die(body=(235, 238, 240)) -> np.ndarray:
    """A die face with no mark at all (rounded corners, a darker rim)."""
    face = np.empty((DIE, DIE, 3), np.uint8)
    face[:] = [int(c * 0.55) for c in body]
    r = DIE // 7
    cv2.rectangle(face, (r, 0), (DIE - 1 - r, DIE - 1), body, -1)
    cv2.rectangle(face, (0, r), (DIE - 1, DIE - 1 - r), body, -1)
    for cx in (r, DIE - 1 - r):
        for cy in (r, DIE - 1 - r):
            cv2.circle(face, (cx, cy), r, body, -1)
    return face


# --------------------------------------------------------------------------------------------
# drawn d6 faces


@pytest.mark.parametrize("light_pips", [False, True], ids=["dark-on-light", "light-on-dark"])
@pytest.mark.parametrize("count", [1, 2, 3, 4, 5, 6])
def test_drawn_faces_turned_any_way_are_counted(count, light_pips):
    face = d6_face(count, light_pips)
    for angle in (0, 20, 45, 70):
        read = read_pips(on_floor(face, angle))
        assert read.count == count, (angle, read)
        assert 0.0 < read.score <= 1.0
        assert read.dark is (not light_pips)


@pytest.mark.parametrize("count", [4, 5, 6])
def test_a_slightly_oblique_view_is_counted(count):
    # the face seen at a slant: squashed to 85% across one direction, turned
    for angle in (10, 35):
        assert read_pips(on_floor(d6_face(count), angle, squash=0.85)).count == count


@pytest.mark.parametrize("floor", [FELT, WOOD, (30, 30, 32)], ids=["felt", "wood", "black"])
def test_the_floor_colour_does_not_matter(floor):
    for count in (2, 5, 6):
        assert read_pips(on_floor(d6_face(count), 30, floor=floor)).count == count


def test_a_crop_of_another_size_is_read_as_the_same_crop():
    crop = on_floor(d6_face(6), 25)
    big = cv2.resize(crop, (96, 96), interpolation=cv2.INTER_CUBIC)
    assert read_pips(big).count == read_pips(crop).count == 6
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    assert read_pips(grey).count == 6


def test_read_many_reads_each_crop_of_a_list_or_an_array():
    crops = [on_floor(d6_face(n), 15 * n) for n in (1, 3, 5)]
    assert [r.count for r in read_many(crops)] == [1, 3, 5]
    assert read_many(np.stack(crops)) == read_many(crops)
    assert read_many([]) == []


def test_crops_read_together_read_as_each_alone():
    # read_many stacks its crops: what one crop says must not depend on its neighbours
    rng = np.random.default_rng(5)
    crops = [on_floor(d6_face(n, light_pips=n % 2 == 0), 13 * n) for n in range(1, 7)]
    crops += [crop for crop, _ in real_crops()]
    crops += [rng.integers(0, 256, (SIZE, SIZE, 3), dtype=np.uint8), on_floor(blank_die())]
    alone = [read_pips(c) for c in crops]
    assert read_many(crops) == alone
    assert read_many(crops[::-1]) == alone[::-1]
    assert [r.count for r in alone[:6]] == [1, 2, 3, 4, 5, 6]
    # a crop that cannot be read among ones that can
    assert read_many([crops[0], np.zeros((3, 3), np.uint8), crops[1]])[1] == PipRead(None, 0.0)


def test_a_crop_not_read_as_it_is_is_read_when_two_other_looks_agree(monkeypatch):
    # the other looks change the blobs: one look's count alone, or two looks that disagree,
    # give no count; two that agree (and none that disagrees) read the crop
    blank = on_floor(blank_die())
    four, five = on_floor(d6_face(4), 10), on_floor(d6_face(5), 10)

    def looks(*shown):
        return tuple(lambda crop, s=s: s for s in shown)

    for shown, count in (
        ((four, blank, blank), None),
        ((four, blank, four), 4),
        ((four, five, four), None),
        ((blank, four, four), None),  # the first look must read it
    ):
        monkeypatch.setattr(pips, "_LOOKS", looks(*shown))
        assert read_pips(blank).count == count, count
    monkeypatch.setattr(pips, "_LOOKS", looks(blank, four, four))
    assert read_pips(five).count == 5  # read as it is: no other look asked
    monkeypatch.setattr(pips, "_LOOKS", looks(four, blank, four))
    assert read_pips(blank, again=False).count is None  # told not to look again
    got = read_many([blank, blank], again=[False, True])
    assert [r.count for r in got] == [None, 4]
    with pytest.raises(ValueError, match="one for each crop"):
        read_many([blank, blank], again=[True])


def test_a_camera_frame_looks_again_only_where_a_count_could_make_a_read(monkeypatch):
    # the looks again cost two to three times the first: on a camera frame's one read only
    # a die in doubt whose best guess the pips could make read is looked at again; a sure
    # read's pips are counted at the first look (they may still withdraw it). At four turns
    # every crop is looked at again.
    from vision import classify
    from vision.classify import TURNS, FaceClassifier

    clf = FaceClassifier("d6")
    asked = []
    real = classify.read_many
    monkeypatch.setattr(
        classify, "read_many", lambda crops, again: asked.append(list(again)) or real(crops, again)
    )
    cut = clf._pip_agree[1]
    assert cut is not None and cut < clf.threshold - 0.05

    def answers(p5):  # a crop whose best guess is 5, at confidence p5
        def turned(crops, turns):
            face_p = np.zeros((turns, len(crops), len(clf.faces) + 1), np.float32)
            face_p[:, :, clf.faces.index("5")] = p5
            face_p[:, :, clf.faces.index("3")] = 1.0 - p5
            return np.ones((turns, len(crops), 1), np.float32), face_p

        return turned

    crop = on_floor(d6_face(5), 10)
    for p5, turns, again in (
        (0.999, 1, False),  # read sure: counted once, to withdraw it if it must
        ((cut + clf.threshold) / 2, 1, True),  # in doubt, the pips could read it
        (0.999, TURNS, True),
    ):
        asked.clear()
        clf.answer_with(answers(p5))
        clf.classify([crop], turns)
        assert asked == [[again]], (p5, turns)


# --------------------------------------------------------------------------------------------
# no opinion where there are no pips to count


def test_a_blank_die_has_no_count():
    for angle in (0, 30):
        assert read_pips(on_floor(blank_die(), angle)).count is None
        assert read_pips(on_floor(255 - blank_die(), angle, floor=WOOD)).count is None


def test_a_star_face_has_no_count():
    tally = load("tally-up")
    for die in ("red", "blue", "yellow"):
        face = draw_face(tally, die, "star", size=DIE)
        for angle in (0, 40):
            assert read_pips(on_floor(face, angle)).count is None, (die, angle)


def test_a_logo_instead_of_pips_has_no_count():
    # a casino-style logo on the 1 (a ring of small print round a dot) and a round logo with
    # letters in it in place of the 6
    logo_1 = blank_die()
    c = DIE // 2
    cv2.circle(logo_1, (c, c), DIE // 3, (40, 40, 40), 2, cv2.LINE_AA)
    for a in np.arange(0, 2 * np.pi, np.pi / 5):
        p = (int(c + DIE / 4 * np.cos(a)), int(c + DIE / 4 * np.sin(a)))
        cv2.circle(logo_1, p, 1, (40, 40, 40), -1, cv2.LINE_AA)
    cv2.circle(logo_1, (c, c), 3, (40, 40, 40), -1, cv2.LINE_AA)
    logo_6 = blank_die()
    cv2.circle(logo_6, (c, c), DIE // 3, (150, 60, 20), -1, cv2.LINE_AA)
    cv2.putText(logo_6, "DT", (c - 9, c + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255,) * 3, 1)
    for logo in (logo_1, logo_6):
        for angle in (0, 30):
            assert read_pips(on_floor(logo, angle)).count is None


def test_tray_textures_have_no_count():
    rng = np.random.default_rng(3)
    yy, xx = np.mgrid[0:SIZE, 0:SIZE]
    textures = []
    # wood grain: dark streaks with knots
    grain = 150 + 30 * np.sin(xx / 3.0 + 2 * np.sin(yy / 9.0)) + rng.normal(0, 6, (SIZE, SIZE))
    textures.append(np.dstack([grain * 0.6, grain * 0.8, grain]))
    # speckled felt: dark dots of pip size scattered at random
    for _ in range(5):
        felt = np.empty((SIZE, SIZE, 3))
        felt[:] = (60, 110, 70)
        for _ in range(int(rng.integers(4, 12))):
            p = (int(rng.integers(4, SIZE - 4)), int(rng.integers(4, SIZE - 4)))
            cv2.circle(felt, p, int(rng.integers(2, 5)), (15, 30, 20), -1)
        textures.append(felt)
    # a checked cloth and plain sensor noise
    textures.append(np.dstack([((xx // 10 + yy // 10) % 2) * 90.0 + 80] * 3))
    textures.append(rng.normal(128, 25, (SIZE, SIZE, 3)))
    for tex in textures:
        crop = np.clip(tex, 0, 255).astype(np.uint8)
        assert read_pips(crop).count is None


def test_bad_input_gives_no_count_and_no_error():
    for bad in (
        np.zeros((0, 0, 3), np.uint8),
        np.zeros((4, 4, 3), np.uint8),
        np.zeros((64, 64, 3), np.float32),
        np.zeros((64, 64, 5), np.uint8),
        np.zeros((64,), np.uint8),
        np.zeros((64, 64, 3), np.uint8),
        np.full((64, 64, 3), 255, np.uint8),
    ):
        assert read_pips(bad) == PipRead(None, 0.0)


# --------------------------------------------------------------------------------------------
# real photos (fixtures/realdice: webcam frames of white dice on a wooden desk)


def real_crops():
    """(crop, pip count) of each labelled die of the fixture photos, cut as the table cuts a
    detected die: the labels cover the pip pattern only, the die is taken as 2.2 times it (a
    fixed 50 px for the single pip of a 1), as lab.photos does for this set."""
    out = []
    with open(PHOTOS / "labels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            frame = cv2.imread(str(PHOTOS / row["file"]))
            x, y, w, h = (float(row[k]) for k in ("x", "y", "w", "h"))
            value = int(row["value"])
            side = 50.0 if value == 1 else 2.2 * max(w, h)
            cx, cy = x + w / 2, y + h / 2
            box = (cx - side / 2, cy - side / 2, side, side)
            out.append((cut_crop(frame, box, SIZE, 1.35), value))
    return out


def test_real_dice_are_counted_right_or_not_at_all():
    crops = real_crops()
    assert len(crops) == 5
    reads = [(read_pips(crop).count, value) for crop, value in crops]
    assert all(count in (None, value) for count, value in reads), reads
    assert sum(count == value for count, value in reads) >= 2, reads


def test_the_real_desk_round_the_dice_has_no_count():
    frame = cv2.imread(str(PHOTOS / "matteop65_valid_12.jpg"))
    # the four corners of the frame and its bottom middle: bare desk
    for box in ((0, 0, 60, 60), (580, 0, 60, 60), (0, 420, 60, 60), (580, 420, 60, 60)):
        assert read_pips(cut_crop(frame, box, SIZE, 1.35)).count is None, box


def test_a_read_the_pips_contradict_is_withdrawn_and_one_they_confirm_stands():
    """The classifier hears the pip counter on every read of a pip face: a network sure of a
    3 on a crop showing five pips asks instead of answering; sure of the 5, it answers."""
    import cv2

    from vision.classify import FaceClassifier
    from vision.dicesets import load
    from vision.faceart import draw_face

    clf = FaceClassifier("d6")
    face = draw_face(load("d6"), "d6", "5", size=48)
    crop = cv2.copyMakeBorder(face, 8, 8, 8, 8, cv2.BORDER_CONSTANT, value=(60, 90, 40))
    assert clf.pips_of([crop, crop, crop], [("d6", "5"), ("d6", "3"), (None, None)]) == [
        True,
        False,
        None,
    ]

    def sure_of(face_id):
        face_p = np.zeros((1, 1, len(clf.faces) + 1), np.float32)
        face_p[0, 0, clf.faces.index(face_id)] = 1.0
        return lambda crops, turns: (np.ones((1, 1, 1), np.float32), face_p)

    clf.answer_with(sure_of("3"))
    asked = clf.classify([crop])[0]
    assert asked.face is None and asked.guess == "5"  # the count is the guess offered first
    clf.answer_with(sure_of("5"))
    assert clf.classify([crop])[0].face == "5"


def test_pips_that_cover_their_face_are_no_reading_not_a_crash():
    """A real crop (fixtures/realdice/ATTRIBUTION.md) whose pips leave no face between them:
    the counter gives no opinion (it once stopped with a numpy error)."""
    crop = cv2.imread(str(PHOTOS / "pxl_phone_crop_pips_cover_face.png"))
    assert crop is not None and crop.shape == (64, 64, 3)
    assert read_many([crop])[0].count is None
    assert read_pips(crop).count is None


def coloured_face(
    count: int,
    pips: str,
    glare: bool,
    body: str = "#151515",
    glare_bgr=(255, 255, 255),
    off: float = 0.0,
) -> np.ndarray:
    """A d6 face (``body`` colour, black by default) of ``count`` pips coloured ``pips``
    (#rrggbb), with (``glare``) a spot of ``glare_bgr`` of a pip's size on the middle of the
    face, as a lamp's reflection puts it there (``off``: moved that many px down and right)."""
    from lab.everyday import colourway

    face = draw_face(colourway(body, pips), "d6", str(count), size=DIE).astype(np.float64)
    if glare:
        yy, xx = np.mgrid[0:DIE, 0:DIE] - (DIE / 2 + off)
        spot = np.exp(-((xx**2 + yy**2) / (2 * (DIE / 16) ** 2)))
        face += spot[..., None] * (np.asarray(glare_bgr, np.float64) - face)
    return on_floor(np.clip(face, 0, 255).astype(np.uint8), angle=20.0, floor=(238, 240, 242))


def test_a_glare_spot_on_a_pip_place_of_coloured_pips_hides_the_count():
    """A white spot on the middle of a 4 with red pips sits where a 5's middle pip would: the
    counter does not count it as a pip (a 5), nor take the face for a 4 (a 5's middle pip may
    be under it), but says the pips are hidden (count 0), which vetoes every pip face. The
    spot alone is no fault: the 4 without it, and white pips with one, read as before."""
    assert read_pips(coloured_face(4, "#d02020", glare=False)).count == 4
    assert read_pips(coloured_face(4, "#d02020", glare=True)) == pips.HIDDEN
    assert read_pips(coloured_face(5, "#d02020", glare=False)).count == 5
    # white pips: a white spot is a pip's colour, so colour cannot tell (no veto)
    assert read_pips(coloured_face(4, "#f0f0f0", glare=True)).count != 0


def test_glare_a_little_off_a_pip_place_still_hides_the_count():
    """Glare is seldom centred on the place it covers: moved off it, the spot pulls the 5 it
    makes off the grid, which no face read has; with pips of one colour it still hides them
    (a rendered black die with green pips, a 4 with glare near its middle, was read as a 5
    for sure and the counter said nothing)."""
    assert read_pips(coloured_face(4, "#20b040", glare=False)).count == 4
    assert read_pips(coloured_face(4, "#20b040", glare=True, off=2.0)) == pips.HIDDEN


def test_glare_on_a_pip_the_face_cannot_do_without_leaves_the_count():
    """A spot on a corner of a 3, 4, 5 or 6 covers a pip: the pips seen besides it (three
    corners of a 4, a 3's centre and one corner) make no face, so the count stands. On the
    middle of a 3 or a 5 the pips seen make a 2 or a 4 too: hidden, as on a 4's middle."""
    corner = -12.0  # px: the spot moved from the middle onto the top left pip
    for count in (3, 4, 5, 6):
        for colour in ("#d02020", "#20b040"):
            assert read_pips(coloured_face(count, colour, glare=True, off=corner)).count == count
    for count in (3, 5):
        assert read_pips(coloured_face(count, "#d02020", glare=True)) == pips.HIDDEN


def test_glare_tinted_by_a_see_through_body_is_no_pip_among_pale_pips():
    """Pale pips are too grey for their colour spread to say much, but a "pip" whose colour
    lies far from all the others', while they agree closely, is not one of them: glare
    tinted green by a see-through green body on the middle of a 4 was counted as a 5."""
    pale = {"pips": "#e0c0e0", "body": "#14502a", "glare_bgr": (200, 255, 200)}
    assert read_pips(coloured_face(4, glare=False, **pale)).count == 4
    assert read_pips(coloured_face(4, glare=True, **pale)) == pips.HIDDEN


def test_hidden_pips_withdraw_any_pip_face_read():
    """The classifier hears a count of 0 as a count no pip face has: a network sure of the 5
    (or the 4) on a crop whose pips are hidden by glare asks instead of answering."""
    from vision.classify import FaceClassifier

    clf = FaceClassifier("d6")
    crop = coloured_face(4, "#d02020", glare=True)
    assert clf.pips_of([crop, crop], [("d6", "5"), ("d6", "4")]) == [False, False]

    def sure_of(face_id):
        face_p = np.zeros((1, 1, len(clf.faces) + 1), np.float32)
        face_p[0, 0, clf.faces.index(face_id)] = 1.0
        return lambda crops, turns: (np.ones((1, 1, 1), np.float32), face_p)

    for face_id in ("5", "4"):
        clf.answer_with(sure_of(face_id))
        assert clf.classify([crop])[0].face is None
