"""Leave-one-source-out figures of the d6 reader: how it reads dice of a setup it never saw.

``dicetray eval --loso`` (or ``python -m lab.loso``). For each real source S of
``lab.splits.SOURCES`` (matteop65_webcam, each rune55_gray source, chase_casino_crops):

1. the d6 classifier is trained WITHOUT any photo of S: a network that never saw a real photo
   (``base``: trained once on synthetic and rendered crops only, kept in the cache folder) is
   fine-tuned on the ``train`` photos of every other source, with rendered and synthetic
   crops replayed beside them (``--epochs``, ``--real-copies``, ``--replay``);
2. its thresholds are set by the rule the shipped model's are (``lab.calibrate.calibrate_file``:
   ``vision.risk.choose`` at 0.5%, 95%) on held-out rendered dice and the ``calibrate``
   photos of the other sources only (``--unseen``: over floors set on the other sources'
   unseen dice, as the shipped thresholds are, ``lab.unseen``);
3. every photo of S is read as ``dicetray recognize`` reads photos (fine search, four turns:
   the photo path) and as a camera frame (one detector pass, one read: the camera path);
   found, read right, asked and read wrong are counted as in ``dicetray eval`` (right, asked
   and wrong as shares of the dice found). The classifier alone is also scored on the
   labelled boxes. chase_casino_crops holds crops only: each crop is one die found.

The dice are found by the SHIPPED detector, which was trained on the ``train`` photos of
every source, S among them: "found" is not a left-out figure (retraining the detector per
fold costs hours here). Its answers are kept in the cache folder, so a second run (another
recipe) reads no photo through it again.

``--recipe camera`` adds camera faults to the real training crops
(``lab.trainset.camera_spoil``: lost resolution, light, saturation, gamma, blur, noise, JPEG,
glare, a slight tilt); ``--recipe loose`` cuts the second copy of each at 0.85-1.6 times
its box (another labeller's or detector's box); ``--balance`` gives each training source
the same weight.
``--train-all DIR`` trains the same recipe on every source's ``train`` photos and calibrates
it on every ``calibrate`` photo: a candidate
for the shipped classifier.

    python -m lab.loso --threads 1 --epochs 2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np

from lab.labels import REALDICE_DIR, matteop65_die_side, read_label_rows
from lab.splits import SOURCES, entries
from lab.trainset import camera_spoil

SET_ID = "d6"
SIZE = 64
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "dicetray" / "loso"


# --------------------------------------------------------------------------------------------
# the detector, asked once per photo


def _key(frame: np.ndarray) -> str:
    return hashlib.blake2b(np.ascontiguousarray(frame).tobytes(), digest_size=16).hexdigest() + (
        f"-{frame.shape[0]}x{frame.shape[1]}"
    )


class CachedDetector:
    """A detector whose answers are kept by photo content (and on disk with ``path``): the
    folds read the same photos with the same detector, only the classifier changes."""

    def __init__(self, detector, path: Path | None = None):
        self.detector = detector
        self.path = path
        self.memo: dict[tuple[str, str], object] = {}
        if path is not None and path.is_file():
            try:
                self.memo = pickle.loads(path.read_bytes())
            except (OSError, pickle.UnpicklingError, EOFError):
                self.memo = {}
        self.asked = 0

    def _ask(self, name: str, frame: np.ndarray, call):
        k = (name, _key(frame))
        if k not in self.memo:
            self.asked += 1
            self.memo[k] = call()
        return self.memo[k]

    def detect(self, frame, small=None):
        return self._ask("detect", frame, lambda: self.detector.detect(frame, small=small))

    def detect_fine(self, frame, overlap: float = 0.25, small=None):
        return self._ask(
            f"fine{overlap}",
            frame,
            lambda: self.detector.detect_fine(frame, overlap=overlap, small=small),
        )

    def huge_candidates(self, frame):
        return self._ask("huge", frame, lambda: self.detector.huge_candidates(frame))

    def __getattr__(self, name):
        return getattr(self.detector, name)

    def save(self) -> None:
        if self.path is not None and self.asked:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_bytes(pickle.dumps(self.memo))
            tmp.replace(self.path)
            self.asked = 0


# --------------------------------------------------------------------------------------------
# scoring one source


@dataclass
class Count:
    """Dice labelled, found, read right, asked, read wrong (without abstaining)."""

    dice: int = 0
    found: int = 0
    right: int = 0
    asked: int = 0
    wrong: int = 0

    def add(self, other: Count) -> None:
        for k in ("dice", "found", "right", "asked", "wrong"):
            setattr(self, k, getattr(self, k) + getattr(other, k))

    def figures(self) -> dict:
        n = max(self.found, 1)
        return {
            "dice": self.dice,
            "found": self.found / max(self.dice, 1),
            "right": self.right / n,
            "asked": self.asked / n,
            "wrong": self.wrong / n,
            "wrong_count": self.wrong,
        }


@dataclass
class Guesses:
    """The best guess of each labelled die read on its own box at four turns, read or asked
    about: how sure the reader is of it and whether it is right (None: no guess, a box taken
    for no die). ``figures``: the share of the dice whose best guess is right, and the
    *ceiling*: the share whose best guess is right and surer than every wrong one of the
    source, what a threshold set on the source's own labels (no wrong read allowed) would
    read. Where it is low, the reader's confidence ranks the source's dice badly, and no
    calibration reads more.

    >>> g = Guesses([0.99, 0.9, 0.8, 0.7], [True, False, True, None])
    >>> g.figures()
    {'best_guess': 0.5, 'ceiling': 0.25}
    """

    sure: list[float]
    right: list[bool | None]

    def add(self, sure: float, right: bool | None) -> None:
        self.sure.append(float(sure))
        self.right.append(right)

    def counts(self) -> tuple[int, int, int]:
        """(dice, best guesses right, right and surer than every wrong one)."""
        top = max((s for s, r in zip(self.sure, self.right, strict=True) if r is False), default=-1)
        pairs = list(zip(self.sure, self.right, strict=True))
        return (
            len(pairs),
            sum(r is True for _, r in pairs),
            sum(r is True and s > top for s, r in pairs),
        )

    def figures(self) -> dict:
        n, best, above = self.counts()
        return {"best_guess": best / max(n, 1), "ceiling": above / max(n, 1)}


def _guess(reading, face: str) -> bool | None:
    """Whether a reading's best guess (its face, or its guess where it asks) is ``face``."""
    said = reading.face if reading.face is not None else reading.guess
    return None if said is None else said == face


def _count(tally) -> Count:
    """A ``lab.evaluate.Tally``'s counts."""
    return Count(tally.labelled, tally.matched, tally.correct, tally.abstained, tally.wrong)


def _photos(realdice: Path, source: str):
    """(image, label dicts for ``Tally.add``, die boxes) of every photo of one photo source
    (all parts); die boxes as the classifier should see the die (matteop65: the die around
    its pip box)."""
    from lab.evaluate import _real_sets

    for name, _part, path, rows, _, _ in _real_sets(realdice):
        if name.split("/")[-1] != source:
            continue
        img = cv2.imread(str(path))
        if img is None:
            continue
        labels, boxes = [], []
        for r in rows:
            x, y, w, h = (float(r[k]) for k in "xywh")
            labels.append({"x": x, "y": y, "w": w, "h": h, "die": "d6", "face": r["value"]})
            if name == "matteop65_webcam":
                s = matteop65_die_side(w, h, int(r["value"]))
                x, y, w, h = x + w / 2 - s / 2, y + h / 2 - s / 2, s, s
            boxes.append((x, y, w, h))
        yield img, labels, boxes


def chase_dice(realdice: Path):
    """(image, face) of every chase_casino_crops crop: one die a crop, the crop its box (each
    file decoded once; one that does not decode is left out, as ``read_chase`` leaves it)."""
    root = realdice / "chase_casino_crops"
    for row in read_label_rows(root / "labels.csv"):
        img = cv2.imread(str(root / "images" / row["file"]), cv2.IMREAD_COLOR)
        if img is not None:
            yield img, str(int(row["value"]))


def labelled_dice(realdice: Path, source: str):
    """(image, die box as the classifier should see it, face) of every labelled die of
    ``source`` (a chase_casino_crops crop: the whole crop)."""
    if source == "chase_casino_crops":
        for img, face in chase_dice(realdice):
            yield img, (0.0, 0.0, float(img.shape[1]), float(img.shape[0])), face
        return
    for img, labels, boxes in _photos(realdice, source):
        for lab, box in zip(labels, boxes, strict=True):
            yield img, box, lab["face"]


def score_source(realdice: Path, source: str, models_dir: Path, detector) -> dict:
    """Every photo (or crop) of ``source`` read with the classifier in ``models_dir``: the
    photo path and the camera path through ``vision.pipeline.Recognizer`` (with
    ``detector``), and the classifier alone on the labelled boxes (four turns; once, a die
    in doubt again at four turns). {path: figures (``Count.figures``)}."""
    from lab.evaluate import Tally
    from vision.classify import TURNS, FaceClassifier
    from vision.dicesets import load
    from vision.frameread import read_boxes
    from vision.pipeline import Recognizer

    ds = load(SET_ID)
    counts = {k: Count() for k in ("photo", "camera", "boxes_photo", "boxes_camera")}
    guesses = Guesses([], [])
    if source == "chase_casino_crops":
        clf = FaceClassifier(ds, models_dir=models_dir)
        for img, face in chase_dice(realdice):
            h, w = img.shape[:2]
            truth = [{"x": 0, "y": 0, "w": w, "h": h, "die": "d6", "face": face}]
            for path, kw in (("photo", {"turns": TURNS}), ("camera", {"retry": True})):
                r = read_boxes(clf, img, [(0, 0, w, h)], **kw)[0]
                t = Tally()
                t.add(truth, [SimpleNamespace(x=0, y=0, w=w, h=h, die=r.die, face=r.face)])
                counts[path].add(_count(t))
                counts[f"boxes_{path}"].add(_count(t))
                if path == "photo":
                    guesses.add(r.confidence, _guess(r, face))
        return _with_guesses(counts, guesses)
    rec = Recognizer(ds, models_dir=models_dir, detector=detector)
    clf = rec.classifier
    for img, labels, boxes in _photos(realdice, source):
        for path, fine in (("photo", True), ("camera", False)):
            rec.reset()
            t = Tally()
            t.add(labels, rec.read(img, fine=fine).dice)
            counts[path].add(_count(t))
        for path, kw in (("boxes_photo", {"turns": TURNS}), ("boxes_camera", {"retry": True})):
            read = read_boxes(clf, img, boxes, check_small=0.0, check_large=0.0, **kw)
            t = Tally()
            found = [
                SimpleNamespace(x=x, y=y, w=w, h=h, die=r.die, face=r.face)
                for (x, y, w, h), r in zip(boxes, read, strict=False)
            ]
            # each labelled die against its own box (found boxes are the labelled ones)
            for lab, f in zip(labels, found, strict=False):
                t.add([lab], [f])
            counts[path].add(_count(t))
            if path == "boxes_photo":
                for lab, r in zip(labels, read, strict=False):
                    guesses.add(r.confidence, _guess(r, lab["face"]))
    return _with_guesses(counts, guesses)


def _with_guesses(counts: dict, guesses: Guesses) -> dict:
    """{path: figures}, the labelled boxes at four turns with their best guesses' figures
    (:class:`Guesses`) and counts (``guess_counts``, for pooling)."""
    out = {k: c.figures() for k, c in counts.items()}
    out["boxes_photo"].update(guesses.figures(), guess_counts=list(guesses.counts()))
    return out


# --------------------------------------------------------------------------------------------
# the recipe


# how the real training crops are cut and spoiled (``lab.trainset.real_d6``'s arguments)
RECIPES = {
    "plain": {},
    "camera": {"augment": camera_spoil},
    # copies cut at 0.85-1.6 times the box's side: boxes drawn tighter or looser than a source's
    "loose": {"zoom": (0.85, 1.6)},
}


@dataclass
class Recipe:
    """How a fold's classifier is trained from the base network."""

    name: str = "plain"
    epochs: int = 2
    real_copies: int = 2
    replay: int = 6000
    lr: float = 1e-3
    batch: int = 128
    seed: int = 1
    balance: bool = False
    threads: int = 1
    net: str = "small"  # the shipped network's design from the base, or "lite0" (ImageNet)
    backbone: float = 1.0  # lite0: the pre-trained layers' rate, a share of ``lr``
    side: int | None = None  # lite0: crops scaled to this side first

    def tag(self) -> str:
        return (
            f"{'' if self.net == 'small' else self.net + '-'}{self.name}"
            f"{'-balanced' if self.balance else ''}-e{self.epochs}-c{self.real_copies}"
            f"-r{self.replay}-s{self.seed}"
            + (f"-b{self.backbone:g}" if self.backbone != 1.0 else "")
            + (f"-x{self.side}" if self.side else "")
        )


@dataclass
class Base:
    """The base network (never saw a real photo) and its training crops, in the cache."""

    folder: Path
    samples: int = 12000
    scenes: int = 1500
    mined: int = 300
    epochs: int = 6
    seed: int = 1
    workers: int = 2
    side_marks: float = 0.0  # its synthetic dice: lab.synth.SyntheticDice's side_marks
    seconds: float = field(default=0.0)

    @property
    def checkpoint(self) -> Path:
        return self.folder / f"classifier-{SET_ID}.pt"

    @property
    def data(self) -> Path:
        return self.folder / "crops.npz"

    def ensure(self, threads: int, log=print) -> None:
        """Train the base network once (synthetic crops with no real background, rendered
        scenes and the detector's false boxes on rendered scenes; no real photo at all). One
        drawn otherwise than asked (``side_marks``) is not used: SystemExit."""
        if self.checkpoint.is_file() and self.data.is_file():
            info = json.loads((self.folder / "base.json").read_text(encoding="utf-8"))
            if float(info.get("side_marks", 0.0)) != self.side_marks:
                raise SystemExit(
                    f"the base network in {self.folder} was drawn with side marks "
                    f"{info.get('side_marks', 0.0)}, not {self.side_marks}: give another --cache"
                )
            self.seconds = float(info.get("seconds", 0))
            return
        import torch

        from lab.train import build_model, card, export, fit
        from lab.trainset import make_rendered, make_synthetic, mined_negatives

        torch.set_num_threads(threads)
        torch.manual_seed(self.seed)
        t0 = time.time()
        x, yd, yf = make_synthetic(
            SET_ID,
            self.samples,
            self.seed,
            self.workers,
            size=SIZE,
            backgrounds=False,
            side_marks=self.side_marks,
        )
        made = make_rendered(SET_ID, self.scenes, self.seed, self.workers, SIZE, partial=0.3)
        if made is not None:
            x, yd, yf = (np.concatenate([a, b]) for a, b in zip((x, yd, yf), made, strict=False))
        mined = mined_negatives(SET_ID, self.mined, self.seed + 31, SIZE, realdice=None)
        if len(mined):
            x = np.concatenate([x, mined])
            yd = np.concatenate([yd, np.full(len(mined), -1, np.int64)])
            yf = np.concatenate([yf, np.full(len(mined), 6, np.int64)])
        log(f"[base] {len(x)} crops, none real, made in {time.time() - t0:.0f} s")
        net, Exported = build_model(1, 7)
        fit(net, x, yd, yf, self.epochs, 3e-3, 128, self.seed, log, "base")
        self.seconds = time.time() - t0
        meta = card(SET_ID, SIZE, samples=len(x), epochs=self.epochs, seed=self.seed)
        export(net, Exported, self.folder, SET_ID, SIZE, meta)
        np.savez(self.data, x=x, yd=yd, yf=yf)
        info = {
            "seconds": round(self.seconds),
            "crops": len(x),
            "synthetic": self.samples,
            "rendered_scenes": self.scenes,
            "mined_scenes": self.mined,
            "epochs": self.epochs,
            "real_photos": 0,
            "side_marks": self.side_marks,
        }
        (self.folder / "base.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
        log(f"[base] trained in {self.seconds:.0f} s")


class Trainer:
    """Fine-tunes the base network on the replayed crops and the real ``train`` crops of the
    sources a fold keeps; ``trainer(sources, out_dir)`` writes the ONNX model and card there."""

    def __init__(self, base: Base, recipe: Recipe, realdice: Path, cache: Path, log=print):
        self.base, self.recipe, self.realdice, self.log = base, recipe, realdice, log
        self.cache = cache
        self._real = None
        self._replay = None

    def real(self):
        """The real training crops of every source (made once per recipe, kept on disk)."""
        if self._real is None:
            from lab.trainset import real_d6

            r = self.recipe
            path = self.cache / f"real-{r.name}-c{r.real_copies}-s{r.seed}.npz"
            if path.is_file():
                z = np.load(path)
                self._real = (z["x"], z["y"], z["src"].tolist())
            else:
                made = real_d6(
                    self.realdice, "train", r.real_copies, r.seed, SIZE, **RECIPES[r.name]
                )
                if made is None:
                    raise SystemExit(f"no real training photo in {self.realdice}")
                np.savez(path, x=made[0], y=made[1], src=np.array(made[2]))
                self._real = made
        return self._real

    def replay(self):
        if self._replay is None:
            z = np.load(self.base.data)
            rng = np.random.default_rng(self.recipe.seed + 5)
            keep = rng.permutation(len(z["x"]))[: self.recipe.replay]
            self._replay = (z["x"][keep], z["yd"][keep], z["yf"][keep])
        return self._replay

    def __call__(self, sources, out_dir: Path) -> None:
        import torch

        from lab.train import card, export, fit, load_network

        r = self.recipe
        torch.set_num_threads(r.threads)
        torch.manual_seed(r.seed)
        t0 = time.time()
        rx, ry, rsrc = self.real()
        src = np.array(rsrc)
        keep = np.isin(src, list(sources))
        rx, ry, src = rx[keep], ry[keep], src[keep]
        if r.balance:  # every source as many crops as the mean source
            rng = np.random.default_rng(r.seed + 11)
            names = sorted(set(src.tolist()))
            per = len(rx) // max(len(names), 1)
            pick = np.concatenate(
                [rng.choice(np.flatnonzero(src == s), per, replace=True) for s in names]
            )
            rx, ry = rx[pick], ry[pick]
        px, pd, pf = self.replay()
        x = np.concatenate([px, rx])
        yd = np.concatenate([pd, np.zeros(len(rx), np.int64)])
        yf = np.concatenate([pf, ry])
        if r.net == "lite0":  # from ImageNet weights, not from the base network
            from lab import pretrained
            from lab.trainset import class_lists
            from vision.dicesets import load

            dice, faces = class_lists(load(SET_ID))
            net, Exported = pretrained.build_lite0(len(dice), len(faces), side=r.side)
            pretrained.fit(
                net, x, yd, yf, r.epochs, r.lr, 64, r.seed, self.log, out_dir.name, r.backbone
            )
        else:
            net, Exported, _ = load_network(self.base.checkpoint, SET_ID)
            fit(net, x, yd, yf, r.epochs, r.lr, r.batch, r.seed, self.log, out_dir.name)
        meta = card(
            SET_ID,
            SIZE,
            samples=len(x),
            epochs=r.epochs,
            seed=r.seed,
            real_crops=len(rx),
            replayed_crops=len(px),
            sources=sorted(sources),
            recipe=r.tag(),
            init=(
                "EfficientNet-Lite0's ImageNet weights (lab.pretrained)"
                if r.net == "lite0"
                else "a network trained on synthetic and rendered crops only (lab.loso)"
            ),
            lr=r.lr,
            seconds=round(time.time() - t0),
        )
        export(net, Exported, out_dir, SET_ID, SIZE, meta, builder=f"lab.loso:{r.net}")


# --------------------------------------------------------------------------------------------
# the run


def calibration(
    realdice: Path,
    cache: Path | None,
    detector,
    holdout: int,
    scenes: int,
    seed: int,
    workers,
    boxes: str = "",
):
    """The calibration crops of every source (``lab.calibrate.Calibration``), kept on disk
    (``boxes``: what the detector's boxes were made by, in the file's name)."""
    from lab.calibrate import calibration_data

    name = f"calibration-h{holdout}-s{scenes}-{seed}" + (f"-{boxes}" if boxes else "")
    path = None if cache is None else cache / f"{name}.pkl"
    if path is not None and path.is_file():
        return pickle.loads(path.read_bytes())
    data = calibration_data(
        SET_ID, SIZE, holdout, scenes, seed, workers, realdice, detector=detector
    )
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(data))
    return data


def with_second(first: Path, second: Path, out: Path) -> Path:
    """``out``: for each fold of ``first`` (a folder per left-out source), its network and
    card, and as its second network (``vision.classcard.second_path``) the same fold's network
    of ``second``. A card ``out`` already holds is kept when it was calibrated with these two
    networks (its ``joint`` names the second's SHA-256 and the first is unchanged): ``--unseen``
    calibrates a copy of ``out``, and ``lab.evalteach --left-out`` reads ``out`` as the table
    would, with both. FileNotFoundError when ``second`` lacks a fold ``first`` has."""
    from vision.classcard import model_paths, second_path

    for fold in sorted(p for p in first.iterdir() if p.is_dir()):
        onnx, card = model_paths(SET_ID, fold)
        other = model_paths(SET_ID, second / fold.name)[0]
        if not onnx.is_file():
            continue
        if not other.is_file():
            raise FileNotFoundError(f"no fold {fold.name} in {second} (train that recipe first)")
        dest = out / fold.name
        dest.mkdir(parents=True, exist_ok=True)
        was = dest / onnx.name
        same_first = was.is_file() and was.read_bytes() == onnx.read_bytes()
        shutil.copyfile(other, second_path(SET_ID, dest))
        if not (same_first and hears_second(dest)):
            shutil.copyfile(card, dest / card.name)
        shutil.copyfile(onnx, was)
    return out


def unseen_copy(folds: Path, out: Path, sources: list[str] | None) -> Path:
    """``out``: a copy of the folds in ``folds`` that ``--unseen`` calibrates over their
    floors, of ``sources`` only (None: every fold). The folds of other sources in ``out`` stay
    as they were: a run of some sources leaves the others calibrated."""
    for fold in sorted(p for p in folds.iterdir() if p.is_dir()):
        if sources is None or fold.name in sources:
            shutil.copytree(fold, out / fold.name, dirs_exist_ok=True)
    return out


def hears_second(fold: Path) -> bool:
    """Whether the card in ``fold`` was calibrated with the second network lying beside its
    first (its ``joint`` names that file's SHA-256: ``vision.classcard.shipped_second``), so
    that the table would hear it."""
    from vision.classcard import model_paths, shipped_second

    try:
        meta = json.loads(model_paths(SET_ID, fold)[1].read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and shipped_second(SET_ID, meta, fold) is not None


def present_sources(realdice: Path) -> list[str]:
    """The sources of ``lab.splits.SOURCES`` that ``realdice`` holds."""
    have = {e.source for e in entries(realdice).values()}
    return [s for s in SOURCES if s in have]


def run(
    realdice: Path,
    trainer,
    detector,
    folds_dir: Path,
    calibration_data,
    sources=None,
    log=print,
    reuse: bool = False,
    floors_for=None,
) -> dict:
    """Leave-one-source-out: for each source S (``sources``, default every one there), train
    with ``trainer(kept sources, folder)`` (it writes ``classifier-d6.onnx`` and its card;
    ``reuse``: a fold whose folder already holds a network of this recipe is not trained
    again, only calibrated and scored afresh),
    set its thresholds on ``calibration_data`` without S (``lab.calibrate.calibrate_file``; over
    the floors ``floors_for(S)`` gives, see ``lab.unseen``), and score every photo of S
    (:func:`score_source`). Returns {"folds": {S: {...}}, "all":
    pooled figures, "seconds": wall time}."""
    from lab.calibrate import calibrate_file

    t0 = time.time()
    every = present_sources(realdice)
    out = {"folds": {}}
    pooled = {}
    pooled_guesses = np.zeros(3, int)  # dice, best guesses right, right under the ceiling
    for source in sources or every:
        t1 = time.time()
        folder = folds_dir / source
        kept = [s for s in every if s != source]
        trained = all((folder / f"classifier-{SET_ID}.{x}").is_file() for x in ("onnx", "json"))
        if not (reuse and trained):
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            trainer(kept, folder)
        t_train = time.time() - t1
        card = calibrate_file(
            SET_ID,
            folder,
            calibration_data.without(source),
            lambda *_: None,
            realdice,
            unseen=floors_for(source) if floors_for else {},
        )
        figures = score_source(realdice, source, folder, detector)
        fold = {
            "figures": figures,
            "threshold_once": card["threshold"],
            "threshold_turned": card["turned"]["threshold"],
            # with a second network: the threshold of the two's mean, at four turns
            "threshold_joint": (card.get("joint") or {}).get("threshold"),
            "bound_once": card["bound"],
            "bound_turned": card["turned"]["bound"],
            "calibrated_on": card["turned"]["set_on"],
            "train_seconds": round(t_train),
            "reused": bool(reuse and trained),
            "seconds": round(time.time() - t1),
        }
        out["folds"][source] = fold
        for path, f in figures.items():
            c = pooled.setdefault(path, Count())
            n = f["dice"]
            found = round(f["found"] * n)
            c.add(
                Count(
                    n,
                    found,
                    round(f["right"] * found),
                    round(f["asked"] * found),
                    f["wrong_count"],
                )
            )
        pooled_guesses += figures["boxes_photo"].get("guess_counts", (0, 0, 0))
        log(format_fold(source, fold))
        if hasattr(detector, "save"):
            detector.save()
    out["all"] = {k: c.figures() for k, c in pooled.items()}
    if "boxes_photo" in out["all"]:
        n, best, above = (int(v) for v in pooled_guesses)
        out["all"]["boxes_photo"].update(
            best_guess=best / max(n, 1), ceiling=above / max(n, 1), guess_counts=[n, best, above]
        )
    out["seconds"] = round(time.time() - t0)
    return out


def format_fold(source: str, fold: dict) -> str:
    f = fold["figures"]
    p, c, b = f["photo"], f["camera"], f["boxes_photo"]
    return (
        f"  {source:<19}{p['dice']:>6}{p['found']:>8.1%}{p['right']:>8.1%}{p['asked']:>7.1%}"
        f"{p['wrong']:>7.2%}  {c['found']:>7.1%}{c['right']:>8.1%}{c['asked']:>7.1%}"
        f"{c['wrong']:>7.2%}  {b['right']:>7.1%}{b['asked']:>7.1%}{b['wrong']:>7.2%}"
        f"{b.get('best_guess', float('nan')):>7.1%}{b.get('ceiling', float('nan')):>8.1%}"
        f"  {fold['threshold_once']:.3f}/{fold['threshold_turned']:.3f}"
        + (f" joint {fold['threshold_joint']:.3f}" if fold.get("threshold_joint") else "")
    )


HEAD = (
    f"  {'left out':<19}{'dice':>6}{'found':>8}{'right':>8}{'asked':>7}{'wrong':>7}  "
    f"{'found':>7}{'right':>8}{'asked':>7}{'wrong':>7}  {'right':>7}{'asked':>7}{'wrong':>7}"
    f"{'best':>7}{'ceiling':>8}  threshold"
)


def format_report(r: dict, header: str = "") -> str:
    paths = (
        f"  {'':<25}{'photo path (fine, 4 turns)':<38}{'camera path (1 pass, 1 read)':<38}"
        f"{'labelled boxes, 4 turns':<39}once/turned"
    )
    lines = [
        header,
        "Leave-one-source-out, d6: each source read by a classifier that never saw a photo of",
        "it, thresholds set on the other sources' calibrate photos and held-out rendered dice",
        "(vision.risk, <= 0.5% at 95%). right / asked / wrong: shares of the dice found.",
        "Dice found by the SHIPPED detector (trained on the train photos of every source, the",
        "left-out one too): 'found' is not a left-out figure. best: the labelled boxes' best",
        "guesses right; ceiling: right and surer than the source's surest wrong best guess (what",
        "a threshold set on the source's own labels would read).",
        "",
        paths,
        HEAD,
    ]
    lines += [format_fold(s, f) for s, f in r["folds"].items()]
    a = r["all"]
    if a:
        fold = {"figures": a, "threshold_once": float("nan"), "threshold_turned": float("nan")}
        lines.append(format_fold("all sources", fold).split("  nan")[0])
    lines += [
        "",
        "Bar (issue 34): >= 98% found, >= 97% of found dice right, <= 0.3% wrong.",
        f"Wall time: {r['seconds']} s.",
    ]
    return "\n".join(lines)


def _unseen(realdice: Path, detector, folds: Path, cal, tag: str, write, log, cap=None):
    """``--unseen``: the floors of each fold, set on the other sources' unseen dice
    (``lab.unseen``), as a function of the source left out. ``--unseen-write DIR``: the
    floors of every source printed and DIR's d6 classifier calibrated over them (None).
    ``cap``: at most this many unseen dice of each source (None: ``PER_SOURCE``; 0: all)."""
    from lab.calibrate import calibrate_file
    from lab.unseen import PARTS, PER_SOURCE, floors, fold_answers, format_floors, unseen_crops

    crops = unseen_crops(realdice, detector)
    detector.save()
    answers = {path: fold_answers(folds, crops[path], log) for path in ("camera", "photo")}
    per_source = PER_SOURCE if cap is None else (cap or None)
    if write:
        fl = floors(answers["camera"], answers["photo"], per_source=per_source)
        print(f"floors on the unseen dice of every source ({tag}):\n{format_floors(fl)}")
        unseen = {**fl, "folds": tag, "parts": list(PARTS), "per_source": per_source}
        calibrate_file(SET_ID, Path(write), cal, log, realdice, unseen=unseen)
        print(f"{write}: d6 calibrated over them")
        return None

    def floors_for(source: str) -> dict:
        fl = floors(
            answers["camera"].without(source),
            answers["photo"].without(source),
            per_source=per_source,
        )
        log(f"[{source}] floors on the other sources' unseen dice:\n{format_floors(fl)}")
        return fl

    return floors_for


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="dicetray eval --loso",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--realdice", default=str(REALDICE_DIR))
    p.add_argument("--cache", default=str(CACHE), help="base network, crops and detections")
    p.add_argument("--sources", nargs="+", default=None, choices=SOURCES)
    p.add_argument("--recipe", default="plain", choices=tuple(RECIPES))
    p.add_argument(
        "--net",
        default="small",
        choices=("small", "lite0"),
        help="small: the shipped network's design, fine-tuned from the base network; lite0: "
        "EfficientNet-Lite0 fine-tuned from ImageNet weights (lab.pretrained; 3 epochs suit it)",
    )
    p.add_argument(
        "--side",
        type=int,
        default=None,
        help="lite0: the crops scaled to this side first (e.g. 96; 64 px crops as they are)",
    )
    p.add_argument("--balance", action="store_true", help="each training source as many crops")
    p.add_argument("--epochs", type=int, default=2, help="fine-tuning epochs per fold")
    p.add_argument("--real-copies", type=int, default=2)
    p.add_argument("--replay", type=int, default=6000, help="synthetic/rendered crops replayed")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument(
        "--backbone",
        type=float,
        default=1.0,
        help="lite0: the ImageNet layers learn at this share of --lr (the new heads at --lr; "
        "under 1 they move less from what ImageNet taught them)",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--base-epochs", type=int, default=6)
    p.add_argument("--base-samples", type=int, default=12000)
    p.add_argument("--base-scenes", type=int, default=1500)
    p.add_argument("--holdout", type=int, default=4000, help="held-out synthetic crops")
    p.add_argument("--holdout-scenes", type=int, default=500, help="held-out rendered scenes")
    p.add_argument("--base-only", action="store_true", help="only train the base network")
    p.add_argument(
        "--side-marks",
        type=float,
        default=0.0,
        help="the base network's synthetic dice: this share of those showing their sides seen "
        "steeply, the sides printed (lab.synth.SyntheticDice's side_marks; a cache holds one "
        "base: give another --cache)",
    )
    p.add_argument(
        "--train-all",
        metavar="DIR",
        default=None,
        help="train the recipe on every source's train photos and calibrate it on every "
        "calibrate photo, into DIR (no folds)",
    )
    p.add_argument(
        "--reuse",
        action="store_true",
        help="a fold already trained by this recipe (in --cache) is calibrated and scored "
        "again, not trained again",
    )
    p.add_argument(
        "--second",
        metavar="RECIPE",
        default=None,
        help="each fold's network (the recipe's, trained before: --reuse) with a second network "
        "for reads at four turns: the fold of RECIPE (a recipe tag under --cache/folds, e.g. "
        "lite0-plain-e3-c2-r6000-s1), trained without the same source; thresholds of the two "
        "set on the calibration dice without it",
    )
    p.add_argument(
        "--unseen",
        action="store_true",
        help="each fold's thresholds over floors set on the other sources' unseen dice "
        "(lab.unseen; every fold of the recipe trained before: --reuse)",
    )
    p.add_argument(
        "--unseen-write",
        metavar="DIR",
        default=None,
        help="print the floors set on every source's unseen dice (lab.unseen) and calibrate "
        "the d6 classifier in DIR over them (no fold scored)",
    )
    p.add_argument(
        "--unseen-cap",
        type=int,
        default=None,
        metavar="N",
        help="with --unseen or --unseen-write: at most N unseen dice of each source (default "
        "lab.unseen.PER_SOURCE; 0: every one)",
    )
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    realdice = Path(args.realdice)
    if not (realdice / "matteop65_webcam" / "labels.csv").is_file() and not present_sources(
        realdice
    ):
        print(
            f"dicetray eval --loso: no real photo set in {realdice} "
            "(give the folder of the real photo sets with --realdice)",
            file=sys.stderr,
        )
        return 2
    try:
        import torch  # noqa: F401
    except ImportError:
        print("dicetray eval --loso trains networks: pip install -e '.[train]'", file=sys.stderr)
        return 2
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)

    def log(*a):
        print(*a, file=sys.stderr, flush=True)

    t0 = time.time()
    base = Base(
        cache / "base",
        args.base_samples,
        args.base_scenes,
        epochs=args.base_epochs,
        seed=args.seed,
        workers=args.workers,
        side_marks=args.side_marks,
    )
    base.ensure(args.threads, log)
    log(f"[base] {base.seconds:.0f} s to train it (once; kept in {base.folder})")
    if args.base_only:
        return 0
    import vision.detect
    from vision.detect import MODELS_DIR, Detector
    from vision.onnx import file_sha256

    shipped = Detector()
    # the boxes depend on the detector's network and on the code that decodes and places
    # them: boxes kept from either before are not read
    key = hashlib.blake2b(digest_size=6)
    key.update(file_sha256(MODELS_DIR / "detector.onnx").encode())
    key.update(Path(vision.detect.__file__).read_bytes())
    detector = CachedDetector(shipped, cache / f"detections-{key.hexdigest()}.pkl")
    cal = calibration(
        realdice,
        cache,
        detector,
        args.holdout,
        args.holdout_scenes,
        args.seed,
        args.workers,
        key.hexdigest(),
    )
    detector.save()
    recipe = Recipe(
        args.recipe,
        args.epochs,
        args.real_copies,
        args.replay,
        args.lr,
        seed=args.seed,
        balance=args.balance,
        threads=args.threads,
        net=args.net,
        backbone=args.backbone,
        side=args.side,
    )
    trainer = Trainer(base, recipe, realdice, cache, log)
    if args.train_all:
        from lab.calibrate import calibrate_file

        out_dir = Path(args.train_all)
        trainer(present_sources(realdice), out_dir)
        calibrate_file(SET_ID, out_dir, cal, log, realdice)
        log(f"trained on every source into {out_dir} in {time.time() - t0:.0f} s")
        return 0
    tag, folds = recipe.tag(), cache / "folds" / recipe.tag()
    if args.second:
        tag = f"{tag}+{args.second}"
        try:
            folds = with_second(folds, cache / "folds" / args.second, cache / "folds" / tag)
        except FileNotFoundError as exc:
            print(f"dicetray eval --loso --second: {exc}", file=sys.stderr)
            return 2
    floors_for = None
    if args.unseen or args.unseen_write:
        try:
            floors_for = _unseen(
                realdice, detector, folds, cal, tag, args.unseen_write, log, args.unseen_cap
            )
        except FileNotFoundError as exc:
            print(f"dicetray eval --loso: {exc}", file=sys.stderr)
            return 2
        if floors_for is None:
            return 0
        # the folds calibrated over their floors in a folder of their own: the recipe's own
        # cards stay as they were
        tag = f"{tag}-unseen" + ("" if args.unseen_cap is None else f"{args.unseen_cap}")
        folds = unseen_copy(folds, cache / "folds" / tag, args.sources)
    report = run(
        realdice,
        trainer,
        detector,
        folds,
        cal,
        args.sources,
        log,
        reuse=args.reuse or bool(args.second) or args.unseen,
        floors_for=floors_for,
    )
    report["recipe"] = tag
    if floors_for is not None:
        report["note"] = (
            "Each fold's thresholds sit on floors set on the other sources' unseen dice "
            "(lab.unseen), read by their own folds: networks that trained on the train photos "
            "of the source left out."
        )
    report["base_seconds"] = round(base.seconds)
    report["seconds"] = round(time.time() - t0)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(format_report(report, f"dicetray eval --loso (recipe {recipe.tag()})"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
