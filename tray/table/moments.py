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
    "tally_up": "TALLY UP!",
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
            owner.message is None or owner.message.kind != "camera"):
        owner.message = Message(lost_text, "camera")
        return "lost"
    return None
