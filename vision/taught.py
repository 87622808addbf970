"""A taught model: the owner's own dice and tray, learned from a few labelled photos.

``dicetray teach FOLDER --dice-set SET --out DIR`` (``lab.teach``) writes a taught folder:
the shipped networks fine-tuned on the owner's photos, as ordinary model files
(``classifier-<set>.onnx`` + ``.json`` with the abstention thresholds teaching chose, and,
when the photos were tray photos, ``detector.onnx`` + ``.json``), and ``taught.json``: the
dice set, what it was taught with, when, and its held-out figures. At the table a taught
folder is read like the ``models/`` folder; a model it lacks comes from ``models/``.

This module finds and checks a taught folder (it is what the table imports), and gives
teaching the place to write one (:func:`writing`).

    >>> import json, tempfile, pathlib
    >>> from vision.taught import TaughtModel, TaughtError
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "taught.json").write_text(json.dumps({"format": 1, "dice_set": "d6"}))
    >>> try:
    ...     TaughtModel.load(folder, "tally-up")
    ... except TaughtError as e:
    ...     print(str(e).split(":")[0].endswith("taught for the 'd6' dice set, not 'tally-up'"))
    True
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

TAUGHT_FILE = "taught.json"
FORMAT = 1  # a taught folder of fine-tuned networks (``dicetray teach --deep``, torch)
HEAD_FORMAT = 2  # a taught folder of a head on the shipped network (``dicetray teach``)


@contextmanager
def writing(out: Path | str) -> Iterator[Path]:
    """An empty folder beside ``out`` to write a taught folder into; it takes the place of
    ``out`` whole when the block ends, the taught files ``out`` held before gone (a folder
    inside it is carried over: teaching writes files only). A block that raises (an error,
    Ctrl-C, a cancel) leaves ``out`` as it was and nothing beside it.

    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "taught"
    >>> with writing(out) as stage:
    ...     _ = (stage / "taught.json").write_text("{}")
    >>> sorted(p.name for p in out.parent.iterdir()), (out / "taught.json").read_text()
    (['taught'], '{}')
    >>> try:
    ...     with writing(out) as stage:
    ...         _ = (stage / "taught.json").write_text("half")
    ...         raise KeyboardInterrupt
    ... except KeyboardInterrupt:
    ...     pass
    >>> sorted(p.name for p in out.parent.iterdir()), (out / "taught.json").read_text()
    (['taught'], '{}')
    """
    out = Path(out)
    stage = out.parent / f".{out.name}.teaching"
    shutil.rmtree(stage, ignore_errors=True)  # one left by a teaching stopped by the power
    stage.mkdir(parents=True)
    try:
        yield stage
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    old = out.parent / f".{out.name}.old"
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        out.rename(old)
    try:
        stage.rename(out)
    except OSError:
        if old.exists():
            old.rename(out)
        shutil.rmtree(stage, ignore_errors=True)
        raise
    if old.exists():
        for kept in old.iterdir():
            if kept.is_dir():
                kept.rename(out / kept.name)
        shutil.rmtree(old)


class TaughtError(ValueError):
    """A taught folder that is missing, damaged, or for another dice set; says what to do."""


@dataclass(frozen=True)
class TaughtModel:
    """A checked taught folder: where its models are, and its record (``meta``).

    ``classifier_dir`` / ``detector_dir``: the folder to load that model from (the taught
    folder when teaching wrote one, else None: the shipped model); ``head``: the taught head
    (``vision.head``) read from the shipped classifier's features, when teaching wrote one;
    ``second_head``: the head of its second opinion, read from the card's second network's
    features (``vision.head.second_opinion``); ``detector_head``: the taught detector head
    (``vision.dethead``); likewise."""

    folder: Path
    dice_set: str
    meta: dict = field(default_factory=dict)
    classifier_dir: Path | None = None
    detector_dir: Path | None = None
    head: Path | None = None
    detector_head: Path | None = None
    second_head: Path | None = None

    @property
    def small_die_px(self) -> int | None:
        """The side in pixels that the teaching dice reached (all but their smallest 5%):
        the head's thresholds hold for dice this large, under 40 px too. None for a folder
        taught before it was recorded (or a value that is not a size)."""
        with_ = self.meta.get("taught_with")
        px = with_.get("small_die_px") if isinstance(with_, dict) else None
        ok = isinstance(px, int | float) and not isinstance(px, bool) and 0 < px < 1e6
        return int(px) if ok else None

    @classmethod
    def load(cls, folder: Path | str, dice_set: str | None = None) -> TaughtModel:
        """Read and check a taught folder; ``dice_set``: the set id it must be for.

        Raises :class:`TaughtError` with what to do when the folder is not a taught folder, is
        damaged, or was taught for another dice set."""
        folder = Path(folder)
        record_path = folder / TAUGHT_FILE
        if not record_path.is_file():
            raise TaughtError(
                f"{folder} is not a taught folder (no {TAUGHT_FILE}): make one "
                f"with `dicetray teach PHOTOS --dice-set SET --out {folder}`"
            )
        try:
            record = json.loads(record_path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
            raise TaughtError(
                f"{record_path}: damaged ({exc.__class__.__name__}): teach it "
                "again with `dicetray teach`"
            ) from None
        if not isinstance(record, dict) or record.get("format") not in (FORMAT, HEAD_FORMAT):
            raise TaughtError(
                f"{record_path}: not a taught model this dicetray can read: "
                "teach it again with `dicetray teach`"
            )
        found = str(record.get("dice_set"))
        if dice_set is not None and found != dice_set:
            raise TaughtError(
                f"{folder} was taught for the {found!r} dice set, not "
                f"{dice_set!r}: use --dice-set {found}, or teach {dice_set} "
                f"into another folder"
            )
        clf = folder if (folder / f"classifier-{found}.onnx").is_file() else None
        det = folder if (folder / "detector.onnx").is_file() else None
        head = folder / f"head-{found}.npz"
        models = record.get("models", [])
        if not isinstance(models, list):
            raise TaughtError(f"{record_path}: damaged (models): teach it again")
        for name in models:
            if not (folder / str(name)).is_file():
                raise TaughtError(f"{folder}: {name} is missing: teach it again")
        dhead = folder / "detector-head.npz"
        second = folder / f"head-{found}-second.npz"
        return cls(
            folder,
            found,
            record,
            clf,
            det,
            head if head.name in models else None,
            dhead if dhead.name in models else None,
            second if second.name in models else None,
        )


def resolve(taught, dice_set: str) -> TaughtModel | None:
    """A checked :class:`TaughtModel` from a folder path, a loaded one, or None (none)."""
    if taught is None:
        return None
    if isinstance(taught, TaughtModel):
        if taught.dice_set != dice_set:
            raise TaughtError(
                f"{taught.folder} was taught for the {taught.dice_set!r} dice set, not {dice_set!r}"
            )
        return taught
    return TaughtModel.load(taught, dice_set)
