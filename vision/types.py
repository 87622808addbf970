"""The data vision hands on: readings of single crops and frames, and settled rolls.

vision/ knows nothing of games: a reading names a die id and a face id of a dice set
(vision/dicesets), with a box and a confidence; the app decides what the roll means.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class CropReading:
    """What the classifier says about one crop. ``die``/``face`` None where it abstains."""

    die: str | None
    face: str | None
    confidence: float
    face_confidence: float = 0.0
    die_confidence: float = 0.0
    not_a_die: float = 0.0  # the face head's weight on "none": not a die at all
    # where the face is None: the face it most likely shows (a hint to whoever sets it by
    # hand, never read as the face); None where it is read, or not a die
    guess: str | None = None

    def withdrawn(self) -> CropReading:
        """This reading with its face withdrawn (two sure reads disagree), kept as its guess.

        >>> CropReading("d6", "4", 0.99).withdrawn().guess
        '4'
        """
        return replace(self, face=None, guess=self.face if self.face is not None else self.guess)


@dataclass(frozen=True)
class DieReading:
    """One die found in a frame. Box in pixels, (x, y) its top-left corner.

    ``die``/``face`` are ids of the dice set, or None where the classifier abstained
    (confidence below its threshold): such a die was found but not read. ``guess``: for such
    a die, the face it most likely shows, offered first to whoever sets it by hand; never
    taken as read.

    >>> DieReading(10, 10, 40, 40, "d6", None, 0.6, guess="4").to_json()["guess"]
    '4'
    """

    x: int
    y: int
    w: int
    h: int
    die: str | None
    face: str | None
    confidence: float
    guess: str | None = None

    @property
    def read(self) -> bool:
        return self.face is not None and self.die is not None

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2

    @property
    def spec(self) -> str | None:
        """``die:face`` as used in roll events, or None when unread."""
        return f"{self.die}:{self.face}" if self.read else None

    def to_json(self) -> dict:
        return {
            "x": self.x,
            "y": self.y,
            "w": self.w,
            "h": self.h,
            "die": self.die,
            "face": self.face,
            "confidence": round(float(self.confidence), 4),
            **({"guess": self.guess} if self.guess is not None and not self.read else {}),
        }


@dataclass(frozen=True)
class FrameReading:
    """What one frame shows: the dice found and the state of the scene."""

    dice: tuple[DieReading, ...] = ()
    hand: bool = False  # a hand or another large object is in the tray
    motion: float = 0.0  # how much changed since the previous frame (0 = still)
    empty: bool = False  # no dice in the tray


@dataclass(frozen=True)
class SettledRoll:
    """One throw, once its dice are still and their readings agree over consecutive frames."""

    dice: tuple[DieReading, ...]
    frame_index: int = 0
    frames_still: int = 0
    meta: dict = field(default_factory=dict)

    @property
    def sure(self) -> tuple[DieReading, ...]:
        return tuple(d for d in self.dice if d.read)

    @property
    def unreadable(self) -> tuple[DieReading, ...]:
        return tuple(d for d in self.dice if not d.read)

    @property
    def complete(self) -> bool:
        return all(d.read for d in self.dice)

    def specs(self) -> list[str]:
        """The ``die:face`` strings of the read dice (for a roll event)."""
        return [d.spec for d in self.dice if d.read]


def closest_pairs(candidates) -> dict[int, int]:
    """One-to-one pairs {i: j} from (distance, i, j) candidates, the closest taken first.

    >>> closest_pairs([(3.0, 0, 0), (1.0, 1, 0), (2.0, 0, 1)])
    {1: 0, 0: 1}
    """
    out: dict[int, int] = {}
    used: set[int] = set()
    for _dist, i, j in sorted(candidates):
        if i not in out and j not in used:
            out[i] = j
            used.add(j)
    return out
