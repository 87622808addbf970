"""A labelled photo folder being filled at the table, and how often each face has been seen.

The folder has the labelled-photo layout that teaching reads (``vision.labelled``):
``images/NNNN.jpg`` (full frames, JPEG quality 95) and ``labels.csv`` with one row per die::

    file,split,x,y,w,h,value,die
    0001.jpg,capture,212,140,48,47,red,toss

``value`` is the face id and ``die`` the die id of the dice set; boxes are frame pixels of the
saved photo. A folder that already holds a capture of the same set is continued (numbers go
on, rows are appended); one of another set, or anything else, is refused with a message.

>>> import tempfile, numpy as np
>>> from vision.dicesets import load
>>> folder = CaptureFolder(tempfile.mkdtemp(), load("toss-up"))
>>> folder.save(np.zeros((480, 640, 3), np.uint8), [(10, 20, 40, 40, "toss", "red")])
'0001.jpg'
>>> folder.coverage().count("toss", "red"), folder.coverage().count("toss", "green")
(1, 0)
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

HEADER = ["file", "split", "x", "y", "w", "h", "value", "die"]
SPLIT = "capture"
JPEG_QUALITY = 95
_NUMBERED = re.compile(r"^(\d+)\.jpe?g$", re.IGNORECASE)


class CaptureError(ValueError):
    """A capture folder that cannot be used; the message says why and what to do."""


class Coverage:
    """How often each face of each die of a set has been seen (counted by die, not by copy:
    ten Toss Up! dice are one die kind with three faces).

    >>> from vision.dicesets import load
    >>> cov = Coverage(load("toss-up"))
    >>> cov.add("toss", "green"); cov.add("toss", "green")
    >>> cov.count("toss", "green"), cov.done(2), [f"{d}:{f}" for d, f in cov.missing(2)]
    (2, False, ['toss:yellow', 'toss:red'])
    """

    def __init__(self, diceset):
        self.diceset = diceset
        self.keys = [(d.id, f) for d in diceset.dice for f in dict.fromkeys(d.faces)]
        self.counts: Counter = Counter()

    def add(self, die: str, face: str, n: int = 1) -> None:
        self.counts[(die, face)] += n

    def count(self, die: str, face: str) -> int:
        return self.counts[(die, face)]

    def missing(self, per_face: int) -> list[tuple[str, str]]:
        """The (die, face) pairs seen fewer than ``per_face`` times, in set order."""
        return [k for k in self.keys if self.counts[k] < per_face]

    def total(self) -> int:
        """Dice seen in all, every face counted."""
        return sum(self.counts.values())

    def done(self, per_face: int, total: int = 0) -> bool:
        """Every face seen ``per_face`` times, and ``total`` dice in all."""
        return not self.missing(per_face) and self.total() >= total

    def label(self, die: str, face: str) -> str:
        """``face`` alone for a set of one die kind, else ``die:face``."""
        return face if len(self.diceset.dice) == 1 else f"{die}:{face}"

    def table(self, per_face: int, total: int = 0) -> str:
        """The coverage as terminal text: one line per face, with a bar towards ``per_face``,
        and (``total``) a last line of the dice saved towards ``total``.

        >>> from vision.dicesets import load
        >>> cov = Coverage(load("toss-up")); cov.add("toss", "red")
        >>> print(cov.table(2, total=40))
        green   0/2  ..
        yellow  0/2  ..
        red     1/2  #.
        dice in all: 1/40
        """
        width = max(len(self.label(*k)) for k in self.keys)
        lines = []
        for k in self.keys:
            n = self.counts[k]
            bar = "#" * min(n, per_face) + "." * max(per_face - n, 0)
            lines.append(f"{self.label(*k):<{width}}  {n}/{per_face}  {bar}")
        if total:
            lines.append(f"dice in all: {self.total()}/{total}")
        return "\n".join(lines)


class CaptureFolder:
    """``images/`` + ``labels.csv`` of one dice set, created or continued.

    Raises CaptureError when ``path`` is a file, cannot be written, or holds a labels.csv that
    is not a capture of ``diceset`` (another header, dice or faces the set lacks). Nothing is
    written before the first photo is saved. ``split``: what the rows' split column says;
    ``option``: what the messages call the folder (the option or key that gave it).
    """

    def __init__(self, path, diceset, split: str = SPLIT, option: str = "--out"):
        self.path = Path(path).expanduser()
        self.diceset = diceset
        self.split, self.option = split, option
        self.images = self.path / "images"
        self.labels = self.path / "labels.csv"
        if self.path.exists() and not self.path.is_dir():
            raise CaptureError(
                f"{self.option} {self.path}: that is a file; give a folder (new or one "
                "holding an earlier capture of the same dice set)"
            )
        self.rows: list[dict] = self._read_rows() if self.labels.exists() else []
        base = self.path
        while not base.exists():  # made at the first photo, not before
            base = base.parent
        if not base.is_dir() or not os.access(base, os.W_OK | os.X_OK):
            raise CaptureError(
                f"{self.option} {self.path}: cannot write there ({base} is not a writable folder)"
            )
        numbers = (
            [int(m.group(1)) for p in self.images.iterdir() if (m := _NUMBERED.match(p.name))]
            if self.images.is_dir()
            else []
        )
        numbers += [int(m.group(1)) for r in self.rows if (m := _NUMBERED.match(r["file"]))]
        self.next_number = max(numbers, default=0) + 1

    @property
    def continued(self) -> bool:
        """The folder held labelled photos before this capture."""
        return bool(self.rows)

    @property
    def photos(self) -> int:
        return len({r["file"] for r in self.rows})

    def _read_rows(self) -> list[dict]:
        where = f"{self.labels}"
        try:
            with self.labels.open(newline="", encoding="utf-8") as fh:
                reader = csv.DictReader(fh)
                if reader.fieldnames != HEADER:
                    raise CaptureError(
                        f"{where}: its header is {','.join(reader.fieldnames or [])!r}, "
                        f"not {','.join(HEADER)!r}: choose another {self.option} folder"
                    )
                rows = list(reader)
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise CaptureError(
                f"{where}: cannot be read ({exc}); choose another {self.option} folder"
            ) from None
        for i, r in enumerate(rows, 2):
            die, face = r.get("die") or "", r.get("value") or ""
            if not self.diceset.allows(die, face):
                raise CaptureError(
                    f"{where} line {i}: {die}:{face} is not a face of the {self.diceset.id} "
                    "set: this folder holds a capture of another dice set; give its --dice-set "
                    f"or choose another {self.option} folder"
                )
        return rows

    def coverage(self) -> Coverage:
        """How often each face has been seen in the folder's rows."""
        cov = Coverage(self.diceset)
        for r in self.rows:
            cov.add(r["die"], r["value"])
        return cov

    def save(self, frame: np.ndarray, dice) -> str:
        """Write ``frame`` as the next numbered photo and append one row per die of ``dice``
        ``[(x, y, w, h, die, face), ...]``. The photo is written first, so an interruption
        leaves at most an unlabelled photo, never a row without its photo. Returns its name."""
        name = f"{self.next_number:04d}.jpg"
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            raise CaptureError("the photo could not be encoded as JPEG")
        h, w = frame.shape[:2]
        rows = []
        for x, y, bw, bh, die, face in dice:
            if not self.diceset.allows(die, face):
                raise CaptureError(f"{die}:{face} is not a face of the {self.diceset.id} set")
            x0, y0 = max(int(x), 0), max(int(y), 0)
            x1, y1 = min(int(x) + int(bw), w), min(int(y) + int(bh), h)
            rows.append(
                {
                    "file": name,
                    "split": self.split,
                    "x": x0,
                    "y": y0,
                    "w": x1 - x0,
                    "h": y1 - y0,
                    "value": face,
                    "die": die,
                }
            )
        self.images.mkdir(parents=True, exist_ok=True)
        _write_synced(self.images / name, data.tobytes())
        new_file = not self.labels.exists() or self.labels.stat().st_size == 0
        with self.labels.open("a", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, HEADER, lineterminator="\n")
            if new_file:
                writer.writeheader()
            writer.writerows(rows)
            fh.flush()
            os.fsync(fh.fileno())
        self.rows += [{k: str(v) for k, v in r.items()} for r in rows]
        self.next_number += 1
        return name

    def drop(self, name: str) -> int:
        """Take the photo ``name`` and its rows out of the folder (its labels first: an
        interruption leaves at most an unlabelled photo). Returns the rows dropped."""
        keep = [r for r in self.rows if r["file"] != name]
        dropped = len(self.rows) - len(keep)
        if dropped:
            out = io.StringIO()
            writer = csv.DictWriter(out, HEADER, lineterminator="\n")
            writer.writeheader()
            writer.writerows(keep)
            _write_synced(self.labels, out.getvalue().encode("utf-8"))
            self.rows = keep
        (self.images / name).unlink(missing_ok=True)
        return dropped


def _write_synced(path: Path, data: bytes) -> None:
    tmp = path.with_suffix(".part")
    with tmp.open("wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)
