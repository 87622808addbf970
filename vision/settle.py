"""Deciding when a throw has settled: one roll per throw, only when the dice are still and read.

>>> from vision.types import DieReading, FrameReading
>>> from vision.settle import Settler
>>> still = FrameReading((DieReading(100, 100, 40, 40, "d6", "4", 0.99),
...                       DieReading(200, 100, 40, 40, "d6", "2", 0.98)))
>>> s = Settler(still_frames=3)
>>> [s.update(still) is not None for _ in range(4)]
[False, False, True, False]
>>> s.status
'waiting_pickup'
"""

from __future__ import annotations

from vision.types import DieReading, FrameReading, SettledRoll, closest_pairs

STATUSES = ("empty", "moving", "hand", "settling", "settled", "waiting_pickup", "unsure")


class Settler:
    """Turns a stream of :class:`FrameReading` into one :class:`SettledRoll` per throw.

    A roll is emitted when the last ``still_frames`` frames are still (``motion`` below
    ``motion_threshold``), show no hand, and every die reads the same die and face in all of
    them. A die the detector misses in one frame of the window (but reads the same in the
    others) still counts as read; a die that is read differently, or not at all, is not. When
    some die is still unread after ``patience`` still frames, the roll is emitted with that die
    as unreadable (``face`` None) instead of guessed, so a roll never waits more than
    ``patience`` frames after the dice stop. After a roll nothing more is emitted until the
    tray is empty again (the dice were picked up) or the dice are clearly thrown again (motion
    above ``rethrow_motion``) and settle to something different.
    """

    def __init__(
        self,
        still_frames: int = 3,
        motion_threshold: float = 0.03,
        rethrow_motion: float = 0.3,
        patience: int = 4,
    ):
        self.still_frames = still_frames
        self.motion_threshold = motion_threshold
        self.rethrow_motion = rethrow_motion
        self.patience = max(patience, still_frames)
        self.reset()

    def reset(self) -> None:
        """Forget everything: ready for a throw."""
        self.status = "empty"
        self.frame = -1
        self._history: list[FrameReading] = []
        self._armed = True
        self._rethrown = False
        self._last: tuple[DieReading, ...] | None = None

    def update(self, reading: FrameReading) -> SettledRoll | None:
        """Feed one frame's reading; returns the settled roll on the frame it settles."""
        self.frame += 1
        if reading.hand:
            self._history.clear()
            self.status = "hand" if self._armed else "waiting_pickup"
            return None
        if reading.empty or not reading.dice:
            self._history.clear()
            self._armed, self._rethrown, self._last = True, False, None
            self.status = "empty"
            return None
        if reading.motion > self.motion_threshold:
            self._history.clear()
            if not self._armed and reading.motion > self.rethrow_motion:
                self._rethrown = True
            self.status = "moving" if (self._armed or self._rethrown) else "waiting_pickup"
            return None
        if self._history:
            prev = self._history[-1].dice
            if len(reading.dice) == len(prev) and len(_nearest(prev, reading.dice)) < len(prev):
                # as many dice, not all at the same places: a die moved between still frames
                # (a die found or lost for a frame is a flicker, left to _combine)
                self._history.clear()
        self._history.append(reading)
        del self._history[: -self.patience]
        if not (self._armed or self._rethrown):
            self.status = "waiting_pickup"
            return None
        if len(self._history) < self.still_frames:
            self.status = "settling"
            return None
        dice, all_read = self._combine(self._history[-self.still_frames :])
        if not all_read and len(self._history) < self.patience:
            self.status = "settling"
            return None
        if self._rethrown and self._last is not None and _same_roll(dice, self._last):
            self.status = "waiting_pickup"  # nudged, not re-thrown
            self._rethrown = False
            return None
        self._armed, self._rethrown, self._last = False, False, dice
        self.status = "waiting_pickup" if all_read else "unsure"
        return SettledRoll(
            dice, self.frame, len(self._history), {"still_frames": self.still_frames}
        )

    @staticmethod
    def _combine(window: list[FrameReading]) -> tuple[tuple[DieReading, ...], bool]:
        """The dice shown in most frames of the window, each read only where frames agree.

        Dice are gathered from every frame (matched by place, latest frame first). A die in all
        frames, or missed in just one frame of a window of three or more, is in the roll: read
        when every frame that shows it reads the same die and face, else unreadable. A die in
        fewer frames is a passing false find (a glint, a flicker) and is left out.
        """
        need = len(window) - (1 if len(window) >= 3 else 0)
        tracks: list[list[DieReading]] = []
        for fr in reversed(window):
            anchors = tuple(t[0] for t in tracks)
            pairs = _nearest(anchors, fr.dice)
            for i, j in pairs.items():
                tracks[i].append(fr.dice[j])
            taken = set(pairs.values())
            tracks += [[d] for j, d in enumerate(fr.dice) if j not in taken]
        out, all_read = [], True
        for views in tracks:
            if len(views) < need:
                continue
            d = views[0]
            faces = {(e.die, e.face) for e in views}
            conf = min(e.confidence for e in views)
            if len(faces) == 1 and d.read:
                out.append(DieReading(d.x, d.y, d.w, d.h, d.die, d.face, conf))
            else:
                dies = {e.die for e in views}
                die = d.die if len(dies) == 1 else None
                out.append(DieReading(d.x, d.y, d.w, d.h, die, None, conf, _guess(views)))
                all_read = False
        out.sort(key=lambda d: (d.y, d.x))
        return tuple(out), all_read


def _guess(views: list[DieReading]) -> str | None:
    """The face most of a die's views read or guess (the latest view's of those tied), or
    None: a hint for whoever sets an unread die, never read as its face.

    >>> v = [DieReading(0, 0, 9, 9, "d6", None, 0.5, guess="2")]
    >>> _guess(v + [DieReading(0, 0, 9, 9, "d6", "3", 0.9)] * 2), _guess(v)
    ('3', '2')
    """
    faces = [e.face or e.guess for e in views]
    said = [f for f in faces if f is not None]
    return max(said, key=lambda f: (said.count(f), -faces.index(f))) if said else None


def _nearest(a: tuple[DieReading, ...], b: tuple[DieReading, ...]) -> dict[int, int]:
    """One-to-one pairs {index in a: index in b} of dice at the same place (closest first)."""
    cand = []
    for i, d in enumerate(a):
        cx, cy = d.centre
        tol = max(4.0, 0.25 * min(d.w, d.h))
        for j, e in enumerate(b):
            ex, ey = e.centre
            dist = abs(ex - cx) + abs(ey - cy)
            if dist <= tol:
                cand.append((dist, i, j))
    return closest_pairs(cand)


def _same_roll(a: tuple[DieReading, ...], b: tuple[DieReading, ...]) -> bool:
    pairs = _nearest(a, b)
    return len(a) == len(b) == len(pairs) and all(
        (a[i].die, a[i].face) == (b[k].die, b[k].face) for i, k in pairs.items()
    )
