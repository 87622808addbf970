"""Thresholds that hold for dice never seen: floors set on dice read by networks that never saw
their source.

A threshold set on the ``calibrate`` photos of the sources a network trained on holds for
photos like those. On a new tray, set and camera the networks are surer than they are right:
left out (``lab.loso``), thresholds set that way read PXL_phone, i_single and randomid_single
over 1% wrong. So the d6 thresholds are also held to the same bound (``vision.risk.choose``)
on *unseen* dice: the ``train`` and ``calibrate`` photos of each real source (never a
``judge`` photo) read by the networks of that source's leave-one-source-out fold, which never
saw a photo of it, each source weighing alike (``PER_SOURCE``). The least threshold at
which the bound holds on them is a floor under the
threshold calibration sets (``lab.calibrate.calibrate_file``'s ``unseen``), one for each way the
table reads a d6:

- ``once``: one read by the first network (the camera's read of a frame);
- ``turned``: four turns, the first network alone;
- ``joint``: four turns heard from both networks (each turn the mean of their answers), how
  photos and a still tray's dice are read;
- ``small_once``, ``small_turned``: dice of ``MIN_READ_PX`` to ``SMALL_PX`` across, read by the
  first network alone (the card's ``small`` thresholds: the camera's);
- ``small_joint``: such dice read at four turns by both (the card's joint ``small``: photos).

Each floor is set through the table's decision code (``lab.calibrate.decisions``, the pips counted
heard as the table hears them), every best guess a candidate read.

The folds are ``lab.loso``'s, and so is the command:

    python -m lab.loso --reuse --second lite0-plain-e3-c2-r6000-s1-x96 --unseen
    python -m lab.loso --reuse --second lite0-plain-e3-c2-r6000-s1-x96 --unseen-write models

The first measures what the floors do: each source left out is read with its fold's
thresholds set over floors from the other sources' unseen dice (read by their folds, which
saw the source left out: the floors are not set on its dice, but its photos trained the
networks that read the others). The second prints the floors from every source and sets the
thresholds of the d6 classifier in a folder afresh over them (as ``dicetray train
--calibrate`` does); its card keeps them (``unseen``), so calibrating it again keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lab.calibrate import (
    FLOOR_KEYS,
    LEAST_THRESHOLD,
    counted_pips,
    decisions,
    pool_name,
    readable,
    small_dice,
    turn_outputs,
    wrong_reads,
)
from lab.trainset import Crops
from vision.risk import ALPHA, DELTA, choose

SET_ID = "d6"
PARTS = ("train", "calibrate")  # the photos of each source read unseen: never "judge"
# a new setup is one source, not a die drawn from all of them: each source weighs alike, at
# most this many of its dice (evenly spaced in its order), so that the sources with the most
# photos (matteop65_webcam, numeric_tube) do not set the floors alone
PER_SOURCE = 250
KEYS = FLOOR_KEYS


@dataclass
class Answers:
    """Unseen dice of one path (``camera``: cut as the camera cuts them; ``photo``: as photos
    are) and each one's answers from its own source's fold: ``first`` the first network's at
    four turns (turns x N x dice, turns x N x faces+none), ``joint`` the two networks' mean
    (None without a second network in the folds); ``pips``: the pips counted on each crop
    (``lab.calibrate.counted_pips``: at the counter's first look, and looking again)."""

    crops: Crops
    first: tuple[np.ndarray, np.ndarray]
    joint: tuple[np.ndarray, np.ndarray] | None
    pips: tuple[list, list]

    def without(self, source: str | None) -> Answers:
        """The same without one source's dice (None: all of them)."""
        if source is None:
            return self
        return self._take(np.array([g != source for g in self.crops.group], bool))

    def capped(self, per_source: int | None) -> Answers:
        """At most ``per_source`` dice of each source, evenly spaced (None: all)."""
        if per_source is None:
            return self
        groups = np.array(self.crops.group)
        keep = np.zeros(len(groups), bool)
        for g in set(self.crops.group):
            at = np.flatnonzero(groups == g)
            if len(at) > per_source:
                at = at[np.linspace(0, len(at) - 1, per_source).round().astype(int)]
            keep[at] = True
        return self._take(keep)

    def _take(self, keep: np.ndarray) -> Answers:
        joint = None if self.joint is None else (self.joint[0][:, keep], self.joint[1][:, keep])
        first = (self.first[0][:, keep], self.first[1][:, keep])
        pips = tuple([c for c, k in zip(way, keep, strict=True) if k] for way in self.pips)
        return Answers(self.crops.take(keep), first, joint, pips)


def unseen_crops(realdice: Path, detector, size: int = 64) -> dict[str, Crops | None]:
    """Every source's ``train`` and ``calibrate`` dice, cut as each path cuts them
    (``lab.trainset.real_calibration`` over those parts)."""
    from lab.trainset import real_calibration

    return real_calibration(Path(realdice), size, detector=detector, parts=PARTS)


def fold_answers(folds: Path, crops: Crops, log=print) -> Answers:
    """``crops`` (a real source's dice in each group) read by the networks of that source's
    fold in ``folds`` (``folds/<source>``: the first network and, when it lies there, the
    second, ``vision.classcard.second_path``)."""
    from vision.classcard import second_path
    from vision.classify import TURNS, FaceClassifier
    from vision.dicesets import load

    groups = np.array(crops.group)
    first = [None, None]  # (die answers, face answers), every crop in its place
    joint = [None, None]
    has_second = True

    def place(into: list, m: np.ndarray, got) -> None:
        for i, part in enumerate(got):
            if into[i] is None:
                into[i] = np.zeros((TURNS, len(crops), part.shape[2]), np.float32)
            into[i][:, m] = part

    for source in sorted(set(crops.group)):
        fold = folds / source
        if not (fold / f"classifier-{SET_ID}.onnx").is_file():
            raise FileNotFoundError(f"no fold for {source} in {folds} (train it with lab.loso)")
        m = groups == source
        clf = FaceClassifier(load(SET_ID), models_dir=fold, second=False)
        place(first, m, turn_outputs(clf, crops.x[m]))
        second = second_path(SET_ID, fold)
        has_second = has_second and second.is_file()
        if has_second:
            clf.use_second(second)
            place(joint, m, turn_outputs(clf, crops.x[m], joint=True))
        log(f"  {source}: {int(m.sum())} dice read by its fold")
    pips = counted_pips(crops.x)
    both = (joint[0], joint[1]) if has_second else None
    return Answers(crops, (first[0], first[1]), both, pips)


def _read(clf, answers: tuple[np.ndarray, np.ndarray], turns: int, crops: Crops, counts):
    """(confidence, read, wrong, kept) of every crop, each best guess a candidate read."""
    from vision.pipeline import NOT_A_DIE_CAMERA, NOT_A_DIE_PHOTO

    got = decisions(clf, answers[0][:turns], answers[1][:turns], turns, counts)
    drop = NOT_A_DIE_CAMERA if turns == 1 else NOT_A_DIE_PHOTO
    read, kept = readable(got, crops.side, drop, 0.0)
    wrong = wrong_reads(got, crops.die, crops.face, list(clf.dice), list(clf.faces))
    conf = np.array([r.confidence for r in got])
    return conf, read, wrong, kept


def floors(
    camera: Answers,
    photo: Answers,
    alpha: float = ALPHA,
    delta: float = DELTA,
    per_source: int | None = PER_SOURCE,
    set_id: str = SET_ID,
) -> dict:
    """The least threshold of each read (``KEYS``) at which the wrong-read rate of the unseen
    dice (at most ``per_source`` of each source) is bounded by ``alpha`` at ``1 - delta``
    (``vision.risk.choose``, no floor under ``LEAST_THRESHOLD``): {key: {"threshold",
    "bound", "set_on"}}. ``set_id``: whose decision code reads them (``lab.farprint`` sets
    other sets' floors so)."""
    from vision.classify import TURNS, FaceClassifier
    from vision.dicesets import load

    clf = FaceClassifier(load(set_id), second=False)  # the decision code, thresholds at 0
    clf.upright_alone = False
    for turns in (1, TURNS):
        clf.use_thresholds(turns, 0.0)
    out = {}
    for path, ans in (("camera", camera.capped(per_source)), ("photo", photo.capped(per_source))):
        reads = [("once", ans.first, 1)] if path == "camera" else [("turned", ans.first, TURNS)]
        if path == "photo" and ans.joint is not None:
            reads.append(("joint", ans.joint, TURNS))
        for key, answers, turns in reads:
            conf, read, wrong, kept = _read(clf, answers, turns, ans.crops, ans.pips)
            small = small_dice(ans.crops, kept)
            general = (ans.crops.die >= 0) & kept & ~small
            for name, m in ((key, general), (f"small_{key}", small)):
                if name not in KEYS:
                    continue
                c = choose(
                    np.where(read, conf, 0.0)[m], (read & wrong)[m], alpha, delta, LEAST_THRESHOLD
                )
                out[name] = {
                    "threshold": float(c.threshold),
                    "bound": c.to_json(),
                    "set_on": pool_name(ans.crops.take(m)),
                }
    return out


def format_floors(fl: dict) -> str:
    """One line per floor: its threshold and what it rests on."""
    lines = []
    for key in KEYS:
        if key not in fl:
            continue
        f, b = fl[key], fl[key]["bound"]
        lines.append(
            f"  {key:13s} {f['threshold']:.4f}  ({b['read_wrong']} of {b['calibration_dice']} "
            f"unseen dice read wrong, {b['read']} read; bound {b['wrong_rate_bound']:.2%})"
        )
    return "\n".join(lines)
