"""The words and timings the table shares: big moments worth a banner, and on-screen messages.

>>> moment_of({"kind": "bust"}), BIG_MOMENTS["bust"]
('bust', 'BUST!')
>>> Message("Roll both dice", "wrong_roll", until=6.0).kind
'wrong_roll'
"""

from __future__ import annotations

from dataclasses import dataclass

#: ``state["last"]["kind"]`` values worth a banner, with the words on it.
BIG_MOMENTS = {
    "bust": "BUST!",
    "tally_up": "TALLY UP! Press first",  # those IN lost the total: the race is for +200
    "diced_out": "DICEDOUT!",
    "dicedout": "DICEDOUT!",
    "zap": "ZAP!",
    "seven": "SEVEN!",
    "round_over_seven": "SEVEN!",
    "all_green": "ALL GREEN!",
    "complete": "ALL MARKED!",
    "seventy": "SEVENTY!",
    "doubles": "DOUBLES!",
    "round_end": "ROUND OVER",
    "game_over": "GAME OVER",
}

COUNTDOWN_S = 3.0
#: how long the table menu (opened by a long press: "undo?", "end the game?") waits for a press
UNDO_CONFIRM_S = 5.0
MESSAGE_S = 6.0
BANNER_S = 3.0


def moment_of(last) -> str | None:
    """The big-moment kind of ``state["last"]`` (a key of BIG_MOMENTS), or None."""
    if not isinstance(last, dict):
        return None
    kind = last.get("kind")
    if kind == "roll" and last.get("all_back"):
        return "all_green"
    if kind in ("apply", "roll") and last.get("round_over") and last.get("round_end"):
        return "round_end"
    return kind if kind in BIG_MOMENTS else None


@dataclass
class Message:
    """A message overlay: ``kind`` is "wrong_roll", "unreadable", "camera", "info" or "error"."""

    text: str
    kind: str = "info"
    until: float | None = None  # None: until cleared


def watch_camera(owner, ok: bool, t: float, lost_after: float, lost_text: str) -> str | None:
    """Keep ``owner.camera_lost_since`` and ``owner.message`` (a Table or a Capture) up to
    date with whether a frame came at ``t``: after ``lost_after`` s without one, a "camera"
    message with ``lost_text`` until frames return. Returns "lost" when that message is put
    up, "back" when frames return and it is taken down, else None."""
    if ok:
        if owner.camera_lost_since is None:
            return None
        owner.camera_lost_since = None
        if owner.message is not None and owner.message.kind == "camera":
            owner.message = None
            return "back"
        return None
    if owner.camera_lost_since is None:
        owner.camera_lost_since = t
    if t - owner.camera_lost_since >= lost_after and (
        owner.message is None or owner.message.kind != "camera"
    ):
        owner.message = Message(lost_text, "camera")
        return "lost"
    return None


#: seconds the dice may look "moving" while no more than ``SHAKY_MOTION`` percent of the
#: picture changes before the screen asks whether the camera is shaking: the pipeline takes
#: out a shake of a pixel or two that the dice (or a die and a grained tray) show
#: (``vision.detect.camera_shift``), but a larger one, or one die on a plain tray, keeps
#: every frame "moving", and no roll is ever taken
SHAKY_S = 6.0
SHAKY_MOTION = 10.0
SHAKY_TEXT = (
    "The picture never keeps still, so no roll can be taken: is the camera or the "
    "tray shaking? Fix the camera firmly above the tray."
)


def watch_shaking(owner, reading, status: str, t: float) -> str | None:
    """Keep ``owner.shaky_since`` and ``owner.message`` up to date with whether the dice
    have looked "moving" (the Settler's ``status``) for ``SHAKY_S`` seconds while little of
    the picture changes (``reading.motion``): then a "camera" message with ``SHAKY_TEXT``,
    taken down as soon as the picture keeps still again. Returns "shaking" when it is put
    up, "still" when it is taken down, else None.

    >>> from types import SimpleNamespace as NS
    >>> table = NS(shaky_since=None, message=None)
    >>> trembling = NS(motion=0.6, dice=(1, 2), hand=False)
    >>> [watch_shaking(table, trembling, "moving", t) for t in (0.0, 3.0, 6.5)]
    [None, None, 'shaking']
    >>> watch_shaking(table, NS(motion=0.0, dice=(1, 2), hand=False), "settling", 7.0)
    'still'
    """
    shaky = (
        status == "moving"
        and not reading.hand
        and bool(reading.dice)
        and reading.motion <= SHAKY_MOTION
    )
    return _watch(owner, "shaky_since", shaky, t, SHAKY_S, SHAKY_TEXT, ("shaking", "still"))


def _watch(
    owner, since: str, on: bool, t: float, after_s: float, text: str, words: tuple[str, str]
) -> str | None:
    """A "camera" message with ``text`` on ``owner`` once ``on`` has held ``after_s`` seconds
    (``owner.<since>`` keeps when it began), taken down as soon as it no longer holds:
    ``words[0]`` when it is put up, ``words[1]`` when it is taken down, else None."""
    if not on:
        setattr(owner, since, None)
        if owner.message is not None and owner.message.text == text:
            owner.message = None
            return words[1]
        return None
    if getattr(owner, since, None) is None:
        setattr(owner, since, t)
    if t - getattr(owner, since) >= after_s and owner.message is None:
        owner.message = Message(text, "camera")
        return words[0]
    return None


#: seconds the tray may show something that is not a die (``reading.hand``: a hand, a cup, a
#: phone) before the screen says that no roll can be taken until it is out: a hand reaching in
#: for the dice is gone well within that, an object left in the tray is not
BLOCKED_S = 5.0
BLOCKED_TEXT = (
    "Something that is not a die is in the tray (a hand, a cup, a phone?): no roll "
    "can be taken until it is out."
)


def watch_blocked(owner, reading, t: float) -> str | None:
    """Keep ``owner.blocked_since`` and ``owner.message`` up to date with whether the tray
    has shown something that is not a die (``reading.hand``) for ``BLOCKED_S`` seconds: then a
    "camera" message with ``BLOCKED_TEXT``, taken down as soon as the tray is clear. Returns
    "blocked" when it is put up, "clear" when it is taken down, else None.

    >>> from types import SimpleNamespace as NS
    >>> table = NS(blocked_since=None, message=None)
    >>> cup = NS(hand=True)
    >>> [watch_blocked(table, cup, t) for t in (0.0, 2.0, 5.5, 6.0)]
    [None, None, 'blocked', None]
    >>> watch_blocked(table, NS(hand=False), 7.0), table.message
    ('clear', None)
    """
    return _watch(
        owner, "blocked_since", bool(reading.hand), t, BLOCKED_S, BLOCKED_TEXT, ("blocked", "clear")
    )


#: said once a session when the tray first seen is far off the light the calibration stored
#: (``camera.tray_light``): the dice are then read in the session's own light, which is fine
#: under a steady light, but a setup changed since calibration is worth calibrating again
UNLIKE_TEXT = (
    "The tray looks unlike it did at calibration (another cloth or lamp, or the "
    "camera moved?). Dice are read as they look now; to set the tray again: "
    "dicetray calibrate --write"
)


def watch_calibration(owner, recognizer, t: float) -> str | None:
    """Once (``owner.calibration_told``): an "info" message with ``UNLIKE_TEXT`` when the
    recognizer found the tray unlike the calibration's (``Recognizer.unlike_calibration``),
    put up as soon as no other message is up. Returns "tray unlike calibration" when it is
    put up, else None.

    >>> from types import SimpleNamespace as NS
    >>> table = NS(calibration_told=False, message=None)
    >>> watch_calibration(table, NS(unlike_calibration=None), 0.0)
    >>> watch_calibration(table, NS(unlike_calibration=[2.6, 2.4, 2.5]), 1.0)
    'tray unlike calibration'
    >>> table.message.kind, watch_calibration(table, NS(unlike_calibration=[2.6, 2.4, 2.5]), 2.0)
    ('info', None)
    """
    if owner.calibration_told or not getattr(recognizer, "unlike_calibration", None):
        return None
    if owner.message is not None:
        return None
    owner.calibration_told = True
    owner.message = Message(UNLIKE_TEXT, "info", t + 2 * MESSAGE_S)
    return "tray unlike calibration"
