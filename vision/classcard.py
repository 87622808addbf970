"""A dice set's classifier on disk: where its files lie, and the thresholds its card sets.

One network per dice set, ``models/classifier-<set>.onnx``, with its card
``classifier-<set>.json`` beside it: the dice and faces it knows, its input, and the
thresholds below which a reading abstains, set on held-out crops (``lab.calibrate``) or by
teaching (a taught folder's card). A card may name a second network read with the first at
four turns (its ``joint`` part, ``classifier-<set>-second.onnx``), with thresholds of its own.
This module finds the files and reads the card into thresholds; :mod:`vision.classify` reads
crops with them.

    >>> from vision.dicesets import load
    >>> meta = {"dice": ["d6"], "faces": ["1", "2", "3", "4", "5", "6", "none"],
    ...         "threshold": 0.9, "turned": {"threshold": 0.8}}
    >>> card = read_card(meta, load("d6"))
    >>> card.cuts[1][0], card.cuts[TURNS][0], card.input_size
    (0.9, 0.8, 48)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from vision.crops import CROP_MARGIN, INPUT_SIZE, NONE_CLASS
from vision.dicesets import DiceSet
from vision.onnx import MODELS_DIR, file_sha256

TURNS = 4  # a crop read at 0, 90, 180 and 270 degrees (photos, and dice in doubt)


class ModelError(RuntimeError):
    """A model file that is missing or does not fit the dice-set file; says how to fix it."""


def model_paths(set_id: str, models_dir: Path | str | None = None) -> tuple[Path, Path]:
    """The ONNX file and its JSON metadata for a dice set id."""
    base = Path(models_dir) if models_dir else MODELS_DIR
    return base / f"classifier-{set_id}.onnx", base / f"classifier-{set_id}.json"


def second_path(set_id: str, models_dir: Path | str | None = None) -> Path:
    """Where a dice set's second network lies (``classifier-<set>-second.onnx``): a larger
    network whose answers are averaged with the first one's on reads at four turns."""
    return model_paths(set_id, models_dir)[0].with_name(f"classifier-{set_id}-second.onnx")


def shipped_second(set_id: str, meta: dict, models_dir: Path | str | None = None) -> Path | None:
    """The second network of a dice set's card (``meta``, its ``joint`` part) when it lies
    beside the first and is the one the card's thresholds were set with, else None."""
    joint = meta.get("joint")
    path = second_path(set_id, models_dir)
    if isinstance(joint, dict) and path.is_file() and joint.get("sha256") == file_sha256(path):
        return path
    return None


def load_meta(set_id: str, models_dir: Path | str | None = None) -> tuple[Path, dict]:
    """A dice set's network file and its card, read; :class:`ModelError` when either is
    missing."""
    onnx_path, meta_path = model_paths(set_id, models_dir)
    if not onnx_path.exists() or not meta_path.exists():
        raise ModelError(
            f"no classifier model for dice set {set_id!r} in {onnx_path.parent}: "
            "run `dicetray train` (needs pip install -e '.[train]')"
        )
    return onnx_path, json.loads(meta_path.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Card:
    """What a card says of reading crops: the network's classes and input, and its thresholds
    for crops read once (key 1) and at ``TURNS`` turns (key ``TURNS``). A classifier copies
    the thresholds (calibration and teaching try others on it, :meth:`use_thresholds
    <vision.classify.FaceClassifier.use_thresholds>`)."""

    dice: tuple[str, ...]
    faces: tuple[str, ...]  # without "none"
    input_size: int
    margin: float
    # (the threshold, and lower ones by die id): a face is read at or above it
    cuts: dict[int, tuple[float, dict[str, float]]]
    agree: dict[int, float | None]
    backed: dict[int, bool]
    pip_agree: dict[int, float | None]
    small: dict[int, float]
    photos_once: bool
    upright_alone: bool


def read_card(
    meta: dict, dice_set: DiceSet, threshold: float | None = None, taught: bool = False
) -> Card:
    """The card ``meta`` of a network read for ``dice_set``. ``threshold``: one given for
    every read, in place of the card's (and none of its lower ones); ``taught``: the card is
    a taught folder's. :class:`ModelError` when the dice-set file names a die or face the
    network was not trained on."""
    dice = tuple(meta["dice"])
    faces = tuple(f for f in meta["faces"] if f != NONE_CLASS)
    # thresholds set on held-out crops (lab.calibrate): the set's, and lower ones
    # for dice shown safe lower down; one set for crops read once, one for crops read at
    # TURNS turns. A threshold given here overrides them all.
    cuts: dict[int, tuple[float, dict[str, float]]] = {}
    agrees: dict[int, float | None] = {}
    backed: dict[int, bool] = {}
    pip_agree: dict[int, float | None] = {}
    for turns, part in ((1, meta), (TURNS, meta.get("turned", meta))):
        cut = float(part.get("threshold", 0.9) if threshold is None else threshold)
        per_die = (
            {}
            if threshold is not None
            else {str(k): float(v) for k, v in part.get("die_thresholds", {}).items()}
        )
        cuts[turns] = (cut, per_die)
        # a taught card's "agree_threshold": the least confidence at which the taught
        # network's reading is taken when the shipped network's best guess is the same
        # face (two networks agreeing; set by teaching's cross-validation)
        agree = part.get("agree_threshold") if threshold is None else None
        agrees[turns] = float(agree) if agree is not None else None
        # a taught card's "shipped_backs": false for reads at these turns: teaching's
        # cross-validation saw the shipped network sure and wrong there, so its sure reads
        # do not stand in for the taught network's (lab.teach._choose)
        backed[turns] = bool(part.get("shipped_backs", True))
        # the least confidence of the best guess read when the pips counted agree with
        # it (calibrated like the other thresholds; none: no such reads)
        pip_cut = part.get("pip_agree_threshold") if threshold is None else None
        pip_agree[turns] = float(pip_cut) if pip_cut is not None else None
    # the card's thresholds of small dice (``small``: bounded on small calibration dice
    # alone), heard only when the shipped network reads at its own thresholds
    small = meta.get("small") if not taught and threshold is None else None
    card = Card(
        dice=dice,
        faces=faces,
        input_size=int(meta.get("input_size", INPUT_SIZE)),
        margin=float(meta.get("crop_margin", CROP_MARGIN)),
        cuts=cuts,
        agree=agrees,
        backed=backed,
        pip_agree=pip_agree,
        small={
            turns: float(small[key]["threshold"])
            for turns, key in ((1, "once"), (TURNS, "turned"))
            if isinstance(small, dict) and isinstance(small.get(key), dict)
        },
        # a taught card whose network never reads alone at four turns (teaching found its
        # best guess there weak) but does read once: photos are read as the camera reads
        # them, once, at the thresholds the cross-validation set for that (measured:
        # chase_casino_crops taught, 121 fresh casino dice read 99.2% right once, 87.6% at
        # four turns where only the shipped network read)
        photos_once=bool(
            taught and threshold is None and "turned" in meta and cuts[TURNS][0] > 1.0 >= cuts[1][0]
        ),
        # a four-turn read may take the upright read alone when that is sure (see classify);
        # a taught model whose thresholds rest on few held-out dice says no
        upright_alone=bool(meta.get("upright_alone", True)),
    )
    unknown = [
        f"{d.id}:{f}" for d in dice_set.dice for f in d.faces if d.id not in dice or f not in faces
    ]
    if unknown:
        raise ModelError(
            f"the {dice_set.id} model does not know {', '.join(sorted(set(unknown)))} "
            f"(the dice-set file names dice or faces it was not trained on): "
            "run `dicetray train --sets " + dice_set.id + "` to retrain it"
        )
    return card


@dataclass(frozen=True)
class Joint:
    """The thresholds of reads at four turns by a card's network and its second one
    together (the card's ``joint`` part, set on the two networks' mean answers by
    ``lab.calibrate.calibrate_file``)."""

    threshold: float
    pip_agree: float | None
    upright_alone: bool
    # dice under the small size read by the two as well, at a threshold set on their mean
    # (a card calibrated before has none: the first network reads them)
    small: float | None
    # ... and from a lower one when the pips counted agree with the face
    small_pips: float | None


def read_joint(joint: dict) -> Joint:
    """A card's ``joint`` part."""
    pip_cut = joint.get("pip_agree_threshold")
    small = joint.get("small")
    small_cut = small_pips = None
    if isinstance(small, dict) and "threshold" in small:
        small_cut = float(small["threshold"])
        if small.get("pip_agree_threshold") is not None:
            small_pips = float(small["pip_agree_threshold"])
    return Joint(
        threshold=float(joint["threshold"]),
        pip_agree=float(pip_cut) if pip_cut is not None else None,
        upright_alone=bool(joint.get("upright_alone", True)),
        small=small_cut,
        small_pips=small_pips,
    )
