"""Rolls the players corrected, kept as labelled photos to teach the tray from.

A settled roll with dice vision could not read waits for the players to set their faces
(``tray/table/correction.py``). Once they confirm it and the game takes it, its frame and every
die's box and face are a labelled photo of the owner's own dice on the owner's own tray, of the
very dice the reader was unsure of: :class:`PlayedRolls` appends it to a folder of the layout
teaching reads (``tray/table/capture_folder.py``; split ``played``), one folder a dice set.
Once the kept rolls hold enough dice, the start screen offers to teach from them
(:meth:`PlayedRolls.teach_offer`) into ``taught/`` beside them, and the next games of the set
read with that taught folder unless ``--taught`` or ``[vision] taught`` names another
(``dicetray teach FOLDER --dice-set SET --out DIR`` does the same from a terminal).

Only rolls the players confirmed die by die are kept: a roll read whole is not (its faces
were not checked by anyone, and a reader taught on its own reads learns its own mistakes),
unless the players change its faces after the fact (key C; ``Session.keep_played``).
A folder that cannot be written stops the keeping for the session with one message; the game
goes on.

>>> import tempfile, numpy as np
>>> from vision.dicesets import load
>>> played = PlayedRolls(tempfile.mkdtemp(), load("d6"))
>>> played.keep(np.zeros((480, 640, 3), np.uint8), [((10, 20, 40, 40), "d6:3")])
'kept the corrected roll for teaching: d6/0001.jpg (1 die kept in all)'
>>> played.folder.coverage().count("d6", "3")
1
>>> played.teach_hint().startswith("1 corrected roll (1 dice) kept in ")
True
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tray.table.capture_folder import CaptureError, CaptureFolder

#: photos kept a dice set at most: several evenings of play, a few MB of JPEG; enough to
#: teach from (``vision.teach`` takes 40 dice and more), and the folder does not grow forever
MAX_PHOTOS = 400
SPLIT = "played"
#: dice the kept rolls must hold before teaching is offered: teaching judges no head on fewer
#: (``vision.teach.MIN_DICE``)
TEACH_DICE = 40
#: ... and dice each face of the set must show: teaching refuses a face shown less
#: (``vision.teach.MIN_PER_FACE``)
PER_FACE = 2
TAUGHT = "taught"  # the taught folder, beside the kept rolls
RECORD = "taught.json"  # what teaching writes last in it (``vision.taught.TAUGHT_FILE``)


class PlayedRolls:
    """The played-rolls folder ``root/<dice set>`` of ``diceset``, opened at its first roll.

    ``keep`` returns the line to log, or None when nothing is kept (off, full, or stopped by an
    earlier error)."""

    def __init__(self, root, diceset):
        self.path = Path(root).expanduser() / diceset.id
        self.diceset = diceset
        self.folder: CaptureFolder | None = None
        self.stopped: str | None = None
        self.last: str | None = None  # the photo the last keep wrote

    @property
    def taught(self) -> Path:
        """The taught folder teaching from the kept rolls writes (``vision.taught``)."""
        return self.path / TAUGHT

    def has_taught(self) -> bool:
        """Teaching from the kept rolls wrote a taught folder."""
        return (self.taught / RECORD).is_file()

    def _opened(self) -> CaptureFolder:
        """The kept rolls' folder, continued where earlier games left it (CaptureError when
        it cannot be)."""
        if self.folder is None:
            self.folder = CaptureFolder(self.path, self.diceset, SPLIT, "vision.played")
        return self.folder

    def teach_offer(self) -> str | None:
        """The start screen's line offering to teach from the kept rolls: when they hold
        ``TEACH_DICE`` dice or more, every face on ``PER_FACE`` dice at least, and some were
        kept since the last teaching; else None (teaching would refuse them)."""
        try:
            folder = self._opened()
        except CaptureError:
            return None  # (keeping a roll there will say why)
        if len(folder.rows) < TEACH_DICE or self.thin_faces() or self._taught_since():
            return None
        photos = folder.photos
        return f"Teach the tray your dice ({photos} kept roll{'s' * (photos != 1)})"

    def _taught_since(self) -> bool:
        """Teaching wrote its folder after the last roll was kept."""
        try:
            taught = (self.taught / RECORD).stat().st_mtime
            return taught >= self.folder.labels.stat().st_mtime
        except OSError:
            return False  # not taught yet (or nothing kept)

    def thin_faces(self) -> dict[str, int]:
        """The faces of the set the kept rolls show on fewer than ``PER_FACE`` dice, with how
        many (a rare face, such as one face of a single die, holds teaching back).

        >>> import tempfile, numpy as np
        >>> from vision.dicesets import load
        >>> played = PlayedRolls(tempfile.mkdtemp(), load("d6"))
        >>> _ = played.keep(np.zeros((480, 640, 3), np.uint8), [((10, 20, 40, 40), "d6:3")] * 2)
        >>> played.thin_faces()
        {'1': 0, '2': 0, '4': 0, '5': 0, '6': 0}
        """
        rows = self.folder.rows if self.folder is not None else []
        seen = Counter(r["value"] for r in rows)
        return {f: seen[f] for f in self.diceset.face_ids if seen[f] < PER_FACE}

    def teach_hint(self) -> str | None:
        """What to run to teach from the rolls kept so far, or None when none was kept, or
        none since the last teaching."""
        if self.folder is None or not self.folder.rows or self._taught_since():
            return None
        n, photos = len(self.folder.rows), self.folder.photos
        kept = f"{photos} corrected roll{'s' * (photos != 1)} ({n} dice) kept in {self.path}"
        waits = [f"hold {TEACH_DICE} dice"] if n < TEACH_DICE else []
        if thin := self.thin_faces():  # teaching would refuse them: no command to offer
            shown = ", ".join(f"{f!r} on {k}" for f, k in thin.items())
            waits.append(f"show every face of the set on {PER_FACE} dice (so far {shown})")
            until = " and ".join(waits)
            return f"{kept}; the start screen offers to teach from them once they {until}"
        when = f" once they {waits[0]}" if waits else ""
        return (
            f"{kept}; teach the tray from them on the start screen{when}, or: dicetray teach "
            f"{self.path} --dice-set {self.diceset.id} --out {self.taught}"
        )

    def keep(self, frame, dice) -> str | None:
        """Keep ``frame`` with ``dice`` ``[((x, y, w, h), "die:face"), ...]``."""
        self.last = None
        if self.stopped is not None or frame is None or not dice:
            return None
        try:
            if self._opened().photos >= MAX_PHOTOS:
                self.stopped = f"{self.path} holds {MAX_PHOTOS} photos: no more are kept"
                return f"corrected rolls not kept: {self.stopped}"
            rows = [(*box, *spec.split(":", 1)) for box, spec in dice]
            name = self.folder.save(frame, rows)
        except (CaptureError, OSError, ValueError) as exc:
            self.stopped = str(exc)
            return f"corrected rolls are no longer kept: {exc}"
        self.last = name
        dice_kept = len(self.folder.rows)
        return (
            f"kept the corrected roll for teaching: {self.diceset.id}/{name} "
            f"({dice_kept} {'die' if dice_kept == 1 else 'dice'} kept in all)"
        )

    def forget(self, name: str) -> str | None:
        """Drop the kept photo ``name`` (its roll was corrected after the fact: the faces kept
        are not the ones the game took); the line to log, or None when nothing was kept."""
        if self.folder is None:
            return None
        try:
            dropped = self.folder.drop(name)
        except (CaptureError, OSError) as exc:
            self.stopped = str(exc)
            return f"corrected rolls are no longer kept: {exc}"
        if not dropped:
            return None
        return (
            f"dropped the kept roll {self.diceset.id}/{name}: it was corrected after it was "
            "kept, and teaching must not learn the faces it had"
        )
