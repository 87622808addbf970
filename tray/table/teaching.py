"""Teaching after a capture: runs ``vision.teach.teach`` on the captured folder, showing its
progress as a tqdm bar in the terminal and, with a screen, a bar with the time left.

The capture only writes the folder; teaching reads it, so the two stay apart (``dicetray
teach FOLDER`` does the same later, on any machine).

>>> import io
>>> def fake_teach(folder, dice_set, out_dir, progress=None, seed=0):
...     for i in range(1, 4):
...         progress("classifier", i, 3)
...     return {"heldout": {"face_right": 1.0}}
>>> teach_folder("cap", "d6", "cap/taught", teacher=fake_teach, stream=io.StringIO())
{'heldout': {'face_right': 1.0}}
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from tqdm import tqdm


class TeachingUnavailable(RuntimeError):
    """Teaching cannot be imported in this installation."""


def load_teacher() -> tuple[Callable, type]:
    """``(vision.teach.teach, vision.teach.TeachError)``; TeachingUnavailable when missing."""
    try:
        from vision.teach import TeachError, teach
    except ImportError as exc:
        raise TeachingUnavailable(
            f"teaching is not available here ({exc}); the photos are kept: teach them later "
            "with `dicetray teach FOLDER --dice-set SET --out DIR`"
        ) from None
    return teach, TeachError


class Progress:
    """The ``progress(stage, done, total)`` callback teaching calls: a tqdm bar in the terminal
    (one per count: stages sharing a count share the bar), and ``on_screen(stage, done,
    total, left_s)`` for the table's screen (``left_s``: tqdm's estimate of the seconds left
    on this count, None until it has one).

    >>> import io
    >>> seen = []
    >>> p = Progress(stream=io.StringIO(), on_screen=lambda *a: seen.append(a[:3]))
    >>> p("reading photos", 1, 1); p("crops", 1, 3); p("heads", 3, 3); p.close()
    >>> seen
    [('reading photos', 1, 1), ('crops', 1, 3), ('heads', 3, 3)]
    """

    def __init__(self, stream=None, on_screen: Callable | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.on_screen = on_screen
        self.stage: str | None = None
        self.bar: tqdm | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        done, total = int(done), max(int(total), 1)
        bar = self.bar
        if bar is None or total != bar.total or done < bar.n:
            # a new count: a new bar, starting where the count is (the rate, hence the
            # time left, comes from the steps it sees advance)
            self.close()
            bar = self.bar = tqdm(
                total=total,
                initial=done,
                desc=f"teaching: {stage}",
                unit="step",
                file=self.stream,
                leave=True,
                dynamic_ncols=True,
            )
        elif stage != self.stage:
            bar.set_description(f"teaching: {stage}", refresh=False)  # same count goes on
        self.stage = stage
        bar.update(done - bar.n)
        if self.on_screen is not None:
            self.on_screen(stage, int(done), int(total), self.left_s())

    def left_s(self) -> float | None:
        """Seconds left in this stage by tqdm's own rate estimate."""
        if self.bar is None:
            return None
        d = self.bar.format_dict
        rate, n, total = d.get("rate"), d.get("n", 0), d.get("total")
        if not rate or not total:
            return None
        return max(total - n, 0) / rate

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def format_left(seconds: float | None) -> str:
    """Time left in words for the screen.

    >>> format_left(None), format_left(75.2)
    ('estimating the time left', 'about 01:15 left')
    """
    if seconds is None:
        return "estimating the time left"
    return f"about {tqdm.format_interval(seconds)} left"


def teach_folder(
    folder,
    dice_set,
    out_dir,
    on_screen: Callable | None = None,
    teacher: Callable | None = None,
    seed: int = 0,
    stream=None,
) -> dict:
    """Teach the model of ``dice_set`` from the capture ``folder`` into ``out_dir``; returns
    teaching's summary. Raises vision.teach.TeachError (a ValueError) on bad input and
    TeachingUnavailable when teaching cannot be imported."""
    if teacher is None:
        teacher, _ = load_teacher()
    progress = Progress(stream=stream, on_screen=on_screen)
    try:
        return teacher(Path(folder), dice_set, Path(out_dir), progress=progress, seed=seed)
    finally:
        progress.close()


def summary_lines(summary: dict) -> list[str]:
    """Teaching's held-out figures, one line each; a part (the camera path, the shipped
    models) gets a line of its own, and so does a part within a part.

    >>> summary_lines({"heldout": {  # doctest: +NORMALIZE_WHITESPACE
    ...     "photos": 4, "face_right": 0.975,
    ...     "camera_path": {"face_right": 0.958, "shipped_models": {"face_right": 0.917}},
    ...     "shipped_models": {"face_right": 0.8}}})
    ['held out: photos 4', 'held out: face_right 0.975',
     'held out: camera_path: face_right 0.958',
     'held out: camera_path: shipped_models: face_right 0.917',
     'held out: shipped_models: face_right 0.800']
    >>> summary_lines({"heldout": {"misread": [{"file": "a.jpg", "score": 0.97}]}})
    ['held out: misread: file a.jpg, score 0.970']
    """
    held = summary.get("heldout") if isinstance(summary, dict) else None
    if not isinstance(held, dict):
        return [f"held out: {held}"] if held is not None else []

    def say(v):
        return f"{v:.3f}" if isinstance(v, float) else str(v)

    def part(prefix: str, figures: dict) -> list[str]:
        inner = ", ".join(f"{k} {say(v)}" for k, v in figures.items() if not isinstance(v, dict))
        lines = [f"{prefix}{inner}"] if inner else []
        for k, v in figures.items():
            if isinstance(v, dict):
                lines += part(f"{prefix}{k}: ", v)
        return lines

    lines = []
    for k, v in held.items():
        if isinstance(v, dict):
            lines += part(f"held out: {k}: ", v)
        elif isinstance(v, list) and all(isinstance(item, dict) for item in v):
            for item in v:  # (the surest wrong reads: a line each)
                lines += part(f"held out: {k}: ", item)
        else:
            lines.append(f"held out: {k} {say(v)}")
    return lines


# the parts of a record of ``vision.teach.teach`` that its owner's summary reads
RECORD_PARTS = {"dice_set", "taught_with", "heldout", "thresholds", "seconds"}


def owner_lines(record: dict, out) -> list[str]:
    """What teaching into ``out`` gave, for the owner: the lines `dicetray teach` prints
    (``vision.teach.summary``: the figures in words, the die that sets the threshold, why
    the shipped models are kept) for a record of ``vision.teach``; any other record (another
    teacher's) as its held-out figures, a line each (:func:`summary_lines`).

    >>> owner_lines({"heldout": {"face_right": 1.0}}, "taught")
    ['held out: face_right 1.000']
    """
    if isinstance(record, dict) and RECORD_PARTS <= record.keys():
        from vision.teach import summary  # (the record is its: it imports)

        return summary(record, out)
    return summary_lines(record)


def load_taught(folder, cfg, diceset):
    """The taught model to read ``diceset`` with: ``folder`` (--taught), else the config's
    ``[vision] taught`` for the set, else None (the shipped models). Raises
    vision.taught.TaughtError (a ValueError) for a folder that is no taught model of the set."""
    folder = folder or cfg.vision.taught_for(diceset.id)
    if folder is None:
        return None
    from vision.taught import resolve

    return resolve(Path(folder).expanduser(), diceset.id)


def say_stale(recognizer, prog: str, stream=None) -> bool:
    """Print, on ``stream`` (stderr), why a taught folder reads alone or is set aside: the
    shipped classifier or detector changed since it was taught (``FaceClassifier.stale``,
    ``Detector.stale``). Returns whether it
    said so. ``play``, ``demo``, ``calibrate`` and the guided capture call it when their
    recognizer opens, as ``recognize`` does.

    >>> class Rec:
    ...     class classifier:
    ...         stale = "the shipped d6 classifier has changed since t was taught"
    >>> say_stale(Rec, "dicetray demo", stream=sys.stdout)
    dicetray demo: the shipped d6 classifier has changed since t was taught
    True
    """
    said = False
    for part in (recognizer.classifier, getattr(recognizer, "detector", None)):
        stale = getattr(part, "stale", None)
        if stale:
            print(f"{prog}: {stale}", file=stream or sys.stderr)
            said = True
    return said
