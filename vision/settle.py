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

from vision.types import DieReading, FrameReading, SettledRoll

STATUSES = ("empty", "moving", "hand", "settling", "settled", "waiting_pickup", "unsure")


def _match(a: tuple[DieReading, ...], b: tuple[DieReading, ...]) -> list[int] | None:
    """Index in ``b`` of each die of ``a`` (matched by centre), or None if they differ."""
    if len(a) != len(b):
        return None
    used: set[int] = set()
    out = []
    for d in a:
        cx, cy = d.centre
        tol = max(4.0, 0.25 * min(d.w, d.h))
        best, best_dist = None, None
        for k, e in enumerate(b):
            if k in used:
                continue
            ex, ey = e.centre
            dist = abs(ex - cx) + abs(ey - cy)
            if dist <= tol and (best_dist is None or dist < best_dist):
                best, best_dist = k, dist
        if best is None:
            return None
        used.add(best)
        out.append(best)
    return out


class Settler:
    """Turns a stream of :class:`FrameReading` into one :class:`SettledRoll` per throw.

    A roll is emitted when the last ``still_frames`` frames are still (``motion`` below
    ``motion_threshold``), show no hand, show the same dice at the same places, and every die
    reads the same die and face in all of them. A die that stays unread (or flickers between
    faces) for ``patience`` still frames is emitted as unreadable (``face`` None) instead of
    guessed. After a roll nothing more is emitted until the tray is empty again (the dice were
    picked up) or the dice are clearly thrown again (motion above ``rethrow_motion``) and
    settle to something different.
    """

    def __init__(self, still_frames: int = 3, motion_threshold: float = 0.03,
                 rethrow_motion: float = 0.3, patience: int = 4):
        self.still_frames = still_frames
        self.motion_threshold = motion_threshold
        self.rethrow_motion = rethrow_motion
        self.patience = patience
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
        if self._history and _match(reading.dice, self._history[-1].dice) is None:
            self._history.clear()   # something moved between frames: start again
        self._history.append(reading)
        if not (self._armed or self._rethrown):
            self.status = "waiting_pickup"
            return None
        if len(self._history) < self.still_frames:
            self.status = "settling"
            return None
        window = self._history[-self.still_frames:]
        dice, all_read = self._combine(window)
        if not all_read and len(self._history) < self.patience:
            self.status = "settling"
            return None
        if self._rethrown and self._last is not None and _same_roll(dice, self._last):
            self.status = "waiting_pickup"   # nudged, not re-thrown
            self._rethrown = False
            return None
        self._armed, self._rethrown, self._last = False, False, dice
        self.status = "waiting_pickup" if all_read else "unsure"
        return SettledRoll(dice, self.frame, len(self._history),
                           {"still_frames": self.still_frames})

    @staticmethod
    def _combine(window: list[FrameReading]) -> tuple[tuple[DieReading, ...], bool]:
        """The dice of the last frame with readings kept only where all frames agree."""
        last = window[-1].dice
        maps = [_match(last, fr.dice) for fr in window[:-1]]
        out, all_read = [], True
        for i, d in enumerate(last):
            seen = [d] + [window[k].dice[m[i]] for k, m in enumerate(maps)]
            faces = {(e.die, e.face) for e in seen}
            conf = min(e.confidence for e in seen)
            if len(faces) == 1 and d.read:
                out.append(DieReading(d.x, d.y, d.w, d.h, d.die, d.face, conf))
            else:
                dies = {e.die for e in seen}
                die = d.die if len(dies) == 1 else None
                out.append(DieReading(d.x, d.y, d.w, d.h, die, None, conf))
                all_read = False
        return tuple(out), all_read


def _same_roll(a: tuple[DieReading, ...], b: tuple[DieReading, ...]) -> bool:
    m = _match(a, b)
    return m is not None and all((d.die, d.face) == (b[k].die, b[k].face)
                                 for d, k in zip(a, m))
