"""The Settler: one roll per throw, only when still and read, ready again after pick-up."""

from vision.settle import Settler
from vision.types import DieReading, FrameReading


def die(x, face, conf=0.99, y=100):
    return DieReading(x, y, 40, 40, "d6", face, conf)


STILL = FrameReading((die(100, "4"), die(200, "2")))
MOVING = FrameReading((die(120, "5"), die(230, "1")), motion=2.0)
HAND = FrameReading((die(100, "4"),), hand=True)
EMPTY = FrameReading(empty=True)


def feed(settler, frames):
    return [settler.update(f) for f in frames]


def test_roll_comes_on_the_third_still_frame_and_only_once():
    s = Settler(still_frames=3)
    out = feed(s, [EMPTY, MOVING, MOVING, STILL, STILL, STILL, STILL, STILL])
    rolls = [r for r in out if r is not None]
    assert len(rolls) == 1
    assert out.index(rolls[0]) == 5  # rest began at frame 3: roll 3 frames later
    assert rolls[0].specs() == ["d6:4", "d6:2"]
    assert s.status == "waiting_pickup"


def test_no_roll_while_moving_or_with_a_hand_or_empty():
    s = Settler(still_frames=2)
    out = feed(s, [MOVING] * 5 + [HAND] * 5 + [EMPTY] * 5)
    assert out == [None] * 15


def test_hand_in_the_middle_of_settling_restarts_the_count():
    s = Settler(still_frames=3)
    out = feed(s, [STILL, STILL, HAND, STILL, STILL, STILL])
    assert [r is not None for r in out] == [False, False, False, False, False, True]


def test_ready_again_after_the_dice_are_picked_up():
    s = Settler(still_frames=2)
    out = feed(s, [STILL, STILL, HAND, STILL, STILL, EMPTY, MOVING, STILL, STILL])
    assert [r is not None for r in out] == [
        False,
        True,
        False,
        False,
        False,
        False,
        False,
        False,
        True,
    ]


def test_a_rethrow_without_emptying_the_tray_gives_a_new_roll():
    other = FrameReading((die(300, "6"), die(400, "6")))
    s = Settler(still_frames=2)
    out = feed(s, [STILL, STILL, MOVING, other, other])
    assert [r.specs() for r in out if r] == [["d6:4", "d6:2"], ["d6:6", "d6:6"]]


def test_a_nudge_that_leaves_the_same_faces_is_not_a_new_roll():
    nudged = FrameReading((die(104, "4"), die(204, "2")))
    s = Settler(still_frames=2)
    out = feed(s, [STILL, STILL, MOVING, nudged, nudged, nudged])
    assert sum(r is not None for r in out) == 1


def test_flickering_die_is_reported_unreadable_not_guessed():
    a = FrameReading((die(100, "4"), die(200, "2")))
    b = FrameReading((die(100, "4"), die(200, "5")))
    s = Settler(still_frames=3, patience=5)
    out = feed(s, [a, b, a, b, a])
    roll = next(r for r in out if r)
    assert [d.face for d in roll.dice] == ["4", None]
    assert not roll.complete and len(roll.unreadable) == 1
    assert s.status == "unsure"


def test_waits_for_a_die_read_in_every_frame_before_giving_up():
    unread = FrameReading((die(100, "4"), die(200, None, 0.4)))
    s = Settler(still_frames=3, patience=6)
    out = feed(s, [unread, unread, STILL, STILL, STILL])
    roll = next(r for r in out if r)
    assert roll.specs() == ["d6:4", "d6:2"] and roll.complete


def test_confidence_is_the_least_over_the_agreeing_frames():
    s = Settler(still_frames=2)
    low = FrameReading((die(100, "4", 0.91), die(200, "2")))
    roll = next(r for r in feed(s, [STILL, low]) if r)
    assert roll.dice[0].confidence == 0.91


def test_dice_that_move_between_still_frames_restart_the_count():
    moved = FrameReading((die(100, "4"), die(260, "2")))
    s = Settler(still_frames=3)
    out = feed(s, [STILL, STILL, moved, moved, moved])
    assert [r is not None for r in out] == [False, False, False, False, True]


def test_a_die_the_detector_misses_in_one_frame_still_reads():
    missed = FrameReading((die(100, "4"),))
    s = Settler(still_frames=3)
    out = feed(s, [STILL, missed, STILL])
    assert out[2] is not None and out[2].specs() == ["d6:4", "d6:2"] and out[2].complete


def test_flickering_detection_never_delays_the_roll_past_patience():
    missed = FrameReading((die(100, "4"),))
    unread = FrameReading((die(100, "4"), die(200, None, 0.3)))
    s = Settler(still_frames=3, patience=4)
    out = feed(s, [missed, STILL, unread, missed, STILL, unread, STILL])
    rolls = [i for i, r in enumerate(out) if r is not None]
    assert rolls == [3]  # the 4th still frame, not later
    assert [d.face for d in out[3].dice] == ["4", None] and not out[3].complete


def test_a_die_the_frames_read_differently_is_unread_and_keeps_the_likeliest_guess():
    """Frames that disagree on a die leave it unread (asked about), with the face most of
    them saw as its guess for whoever sets it; a die read alike stays read, without one."""
    s = Settler(still_frames=3)
    frames = [FrameReading((die(100, "4"), die(200, face))) for face in ("2", "3", "2")]
    out = [r for r in feed(s, frames + frames[-1:]) if r is not None]
    (got,) = out
    assert [d.face for d in got.dice] == ["4", None]
    assert [d.guess for d in got.dice] == [None, "2"]
