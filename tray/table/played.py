"""Rolls the players corrected, kept as labelled photos to teach the tray from.

A settled roll with dice vision could not read waits for the players to set their faces
(``tray/table/correction.py``). Once they confirm it and the game takes it, its frame and every
die's box and face are a labelled photo of the owner's own dice on the owner's own tray, of the
very dice the reader was unsure of: :class:`PlayedRolls` appends it to a folder of the layout
teaching reads (``tray/table/capture_folder.py``; split ``played``), one folder a dice set.
``dicetray teach FOLDER --dice-set SET --out DIR`` then teaches from what was played.

Only rolls the players confirmed die by die are kept: a roll read whole is never (its faces
were not checked by anyone, and a reader taught on its own reads learns its own mistakes).
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

from pathlib import Path

from tray.table.capture_folder import CaptureError, CaptureFolder

#: photos kept a dice set at most: several evenings of play, a few MB of JPEG; enough to
#: teach from (``vision.teach`` takes 40 dice and more), and the folder does not grow forever
MAX_PHOTOS = 400
SPLIT = "played"


class PlayedRolls:
    """The played-rolls folder ``root/<dice set>`` of ``diceset``, opened at its first roll.

    ``keep`` returns the line to log, or None when nothing is kept (off, full, or stopped by an
    earlier error)."""

    def __init__(self, root, diceset):
        self.path = Path(root).expanduser() / diceset.id
        self.diceset = diceset
        self.folder: CaptureFolder | None = None
        self.stopped: str | None = None

    def teach_hint(self) -> str | None:
        """What to run to teach from the rolls kept so far, or None when none was kept."""
        if self.folder is None or not self.folder.rows:
            return None
        n, photos = len(self.folder.rows), self.folder.photos
        return (
            f"{photos} corrected roll{'s' * (photos != 1)} ({n} dice) kept in {self.path}; "
            f"teach the tray from them: dicetray teach {self.path} --dice-set "
            f'{self.diceset.id} --out DIR, then taught = "DIR" under [vision]'
        )

    def keep(self, frame, dice) -> str | None:
        """Keep ``frame`` with ``dice`` ``[((x, y, w, h), "die:face"), ...]``."""
        if self.stopped is not None or frame is None or not dice:
            return None
        try:
            if self.folder is None:
                self.folder = CaptureFolder(self.path, self.diceset, SPLIT, "vision.played")
            if self.folder.photos >= MAX_PHOTOS:
                self.stopped = f"{self.path} holds {MAX_PHOTOS} photos: no more are kept"
                return f"corrected rolls not kept: {self.stopped}"
            rows = [(*box, *spec.split(":", 1)) for box, spec in dice]
            name = self.folder.save(frame, rows)
        except (CaptureError, OSError, ValueError) as exc:
            self.stopped = str(exc)
            return f"corrected rolls are no longer kept: {exc}"
        dice_kept = len(self.folder.rows)
        return (
            f"kept the corrected roll for teaching: {self.diceset.id}/{name} "
            f"({dice_kept} {'die' if dice_kept == 1 else 'dice'} kept in all)"
        )
