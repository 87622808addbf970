"""Read a die's identity (body colour) and top face from its crop, with a small ONNX model.

One model per dice set, ``models/classifier-<set>.onnx`` with its card
``models/classifier-<set>.json`` beside it (class lists, input size, abstention thresholds;
:mod:`vision.classcard` finds and reads them). The model has two heads: which die of the
set (its body colour) and which face mark (plus ``none``: not a readable die). A reading
combines them over the (die, face) pairs the dice-set file allows, so a changed layout only
needs the file edited, as long as every face id and die id is one the model knows
(otherwise ``dicetray train`` retrains it from the data file). A taught head reads from the
model's own features instead (:mod:`vision.headread`). A frame's dice are read from their
boxes, with the checks a whole frame allows, by :mod:`vision.frameread`.

>>> import numpy as np
>>> from vision.classify import FaceClassifier
>>> from vision.faceart import draw_face
>>> from vision.dicesets import load
>>> clf = FaceClassifier("tally-up")
>>> img = np.full((120, 120, 3), (40, 90, 30), np.uint8)        # green felt
>>> img[30:90, 30:90] = draw_face(load("tally-up"), "red", "(200)", 60)
>>> r = clf.classify([clf.crop(img, (30, 30, 60, 60))])[0]
>>> r.die, r.face, r.confidence > 0.98
('red', '(200)', True)
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from vision.classcard import (
    TURNS,
    load_meta,
    model_paths,
    read_card,
    read_joint,
    shipped_second,
)
from vision.crops import alone, cut_crop, to_input
from vision.dicesets import DiceSet, load
from vision.head import embed, zoomed
from vision.headread import HeadReader, load_head
from vision.onnx import file_sha256, open_session
from vision.pips import read_many
from vision.taught import resolve
from vision.types import CropReading

# a face read at four turns is withdrawn when one turn alone is this sure of another
TURN_DOUBT = 0.5


def _guessed(out: list[CropReading], best) -> list[CropReading]:
    """The readings, each not read given its best guess's face as ``guess`` (a die whose
    best guess is "not a die" gets none)."""
    return [
        replace(r, guess=b[1]) if r.face is None and r.guess is None and r.not_a_die <= 0.5 else r
        for r, b in zip(out, best, strict=True)
    ]


class FaceClassifier:
    """Die identity + face of die crops of one dice set, abstaining below a threshold.

    ``dice_set``: a set id or a loaded :class:`~vision.dicesets.DiceSet` (an edited file is
    fine). ``threshold``: the least confidence for a face to be reported (default: the one
    stored with the model, chosen on held-out data).

    ``second``: whether a second network the card names (its ``joint`` part) joins the
    reads at four turns (see :meth:`use_second`); never with a taught head or network, nor
    with an explicit ``threshold``: teaching judged the shipped network alone.

    >>> clf = FaceClassifier("d6")
    >>> clf.faces[:3], clf.input_size
    (('1', '2', '3'), 64)
    """

    def __init__(
        self,
        dice_set: str | DiceSet = "d6",
        models_dir: Path | str | None = None,
        threshold: float | None = None,
        taught=None,
        second: bool = True,
    ):
        self.dice_set = dice_set if isinstance(dice_set, DiceSet) else load(dice_set)
        # ``taught``: a taught folder (``dicetray teach``) or TaughtModel: its fine-tuned model
        # and thresholds replace the shipped ones
        self.taught = resolve(taught, self.dice_set.id)
        # ``stale``: why the shipped network no longer backs this taught one, or why a taught
        # head is set aside (else None)
        self.stale: str | None = None
        shipped_dir = models_dir
        if self.taught is not None and self.taught.classifier_dir is not None:
            models_dir = self.taught.classifier_dir
        onnx_path, self.meta = load_meta(self.dice_set.id, models_dir)
        card = read_card(self.meta, self.dice_set, threshold, taught=self.taught is not None)
        self.dice: tuple[str, ...] = card.dice
        self.faces: tuple[str, ...] = card.faces
        self.input_size = card.input_size
        self.margin = card.margin
        # the card's thresholds (``vision.classcard``), this classifier's own to change
        # (:meth:`use_thresholds`; a second network's replace those of four turns, below)
        self._cuts = dict(card.cuts)
        self._agree = dict(card.agree)
        self._backed = dict(card.backed)
        self._pip_agree = dict(card.pip_agree)
        self.threshold = self._cuts[1][0]
        self._small = dict(card.small)
        self.photos_once = card.photos_once
        self.upright_alone = card.upright_alone
        self._path = onnx_path
        self._session = open_session(onnx_path)
        # stored network answers to read with instead of running the network (``answer_with``)
        self._answers = None
        self._input = self._session.get_inputs()[0].name
        # the (die, face) pairs the data file allows, as index arrays into the two heads
        pairs = sorted(
            {
                (self.dice.index(d.id), self.faces.index(f))
                for d in self.dice_set.dice
                for f in d.faces
            }
        )
        self._pair_die = np.array([p[0] for p in pairs], np.int64)
        self._pair_face = np.array([p[1] for p in pairs], np.int64)
        # (die index array, face index array, die ids, face ids): what vision.head.decide takes
        self.pairs = (self._pair_die, self._pair_face, self.dice, self.faces)
        # the faces marked with pips, and how many: a read of one must not contradict the
        # pips counted on the crop (vision.pips: a second, geometric opinion)
        self.pip_faces = {f.id: f.count for f in self.dice_set.faces.values() if f.mark == "pips"}
        self._pip_face = {n: f for f, n in reversed(self.pip_faces.items())}  # pips -> a face
        # a taught head (``dicetray teach``) reads from this network's own features
        # (``vision.headread``); its thresholds of small dice replace the card's
        self._reader: HeadReader | None = None
        if self.taught is not None and self.taught.head is not None and threshold is None:
            self._reader, small, self.stale = load_head(
                self.taught, self.dice_set.id, self.meta, onnx_path
            )
            if self._reader is None and self.taught.classifier_dir is None:
                # set aside: the shipped models read as shipped, small dice at the card's own
                self._small = dict(read_card(self.meta, self.dice_set, threshold).small)
            elif small is not None:
                self._small = small
        # A taught network is backed by the shipped one (with its own thresholds): a die the
        # taught one is not sure of is taken from the shipped one when that is sure, and a die
        # both are sure of as different faces is in doubt. Teaching then never reads fewer
        # dice than the shipped models would. Not with an explicit threshold (that asks for
        # this one network's reading) or when the taught card says "backed": false.
        self._shipped = None
        if models_dir != shipped_dir and threshold is None and self.meta.get("backed", True):
            taught_beside = self.meta.get("shipped_sha256")
            shipped_onnx = model_paths(self.dice_set.id, shipped_dir)[0]
            if (
                taught_beside is not None
                and shipped_onnx.is_file()
                and taught_beside != file_sha256(shipped_onnx)
            ):
                # teaching chose the agreement floor and where the shipped network may stand
                # in with the network it was taught beside; another one (dicetray updated
                # since) is not vouched for, so the taught network reads alone at its own
                # thresholds: fewer dice read, none read on the new network's word
                self.stale = (
                    f"the shipped {self.dice_set.id} classifier has changed since "
                    f"{self.taught.folder} was taught: the taught network reads "
                    "alone; teach again to read more dice"
                )
            else:
                shipped = FaceClassifier(self.dice_set, shipped_dir, second=False)
                if (shipped.input_size, shipped.margin) == (self.input_size, self.margin):
                    self._shipped = shipped
        # the shipped card's "joint": a second network read with this one at four turns, and
        # the thresholds set on the two networks' mean answers (lab.calibrate.calibrate_file)
        self._second = None
        self.small_joint = False  # whether dice under the small size are read by the two too
        self._small_pips: float | None = None  # ... and from this when the pips agree
        untaught = self._reader is None and models_dir == shipped_dir
        if second and untaught and threshold is None:
            # a second network other than the one the thresholds were set with is not heard
            path = shipped_second(self.dice_set.id, self.meta, models_dir)
            if path is not None:
                self.use_second(path)
                joint = read_joint(self.meta["joint"])
                self._cuts[TURNS] = (joint.threshold, {})
                self._pip_agree[TURNS] = joint.pip_agree
                self.upright_alone = joint.upright_alone
                if joint.small is not None:
                    self._small[TURNS] = joint.small
                    self.small_joint = True
                    self._small_pips = joint.small_pips

    def small_pip_threshold(self) -> float | None:
        """The least confidence at which a photo's die under the small size read by both
        networks is read when the pips counted (looking again) agree with its face (the
        card's joint ``small`` ``pip_agree_threshold``, set on the small calibration dice
        alone), or None."""
        return self._small_pips

    def small_threshold(self, turns: int) -> float | None:
        """The least confidence at which a die under the small size (the card's ``small``:
        ``px``) is read at ``turns`` turns; None when the card sets none or when what reads is
        not the network it was set on (a threshold given, a fine-tuned taught network). A
        taught head's are its own, set on its teaching dice shrunk (``vision.teach``)."""
        return self._small.get(turns)

    @property
    def taught_head(self) -> bool:
        """Whether a taught head reads the dice (else the shipped network's own answers)."""
        return self._reader is not None

    @property
    def head_has_second(self) -> bool:
        """Whether a taught head reads with a second opinion that must agree: a head on the
        card's second network's features (``vision.headread``)."""
        return self._reader is not None and self._reader.opinion is not None

    def use_second(self, path: Path | str) -> None:
        """From now on read crops at four turns with the network in ``path`` too: each turn's
        answers are the mean of the two networks' (calibration attaches one this way before
        it sets the thresholds of that mean)."""
        self._second = open_session(path)
        self._second_input = self._second.get_inputs()[0].name

    @property
    def second(self) -> bool:
        """Whether a second network joins the reads at four turns."""
        return self._second is not None

    def answers(self, crops, both: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The network's answers for uint8 BGR crops read once as they are: (N x dice,
        N x (faces + none)); ``both``: the mean of its and the second network's answers (as
        a read at four turns hears them; the network's own without a second one)."""
        return self._run(to_input(crops), both)

    def _run(self, x: np.ndarray, both: bool) -> tuple[np.ndarray, np.ndarray]:
        names = ["die_prob", "face_prob"]
        die_p, face_p = self._session.run(names, {self._input: x})
        if both and self._second is not None:
            die_2, face_2 = self._second.run(names, {self._second_input: x})
            die_p, face_p = (die_p + die_2) / 2, (face_p + face_2) / 2
        return die_p, face_p

    def outputs(self, crops, zoom: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The shipped network's answers for uint8 BGR crops read once as they are: (N x dice,
        N x (faces + none), N x embedding of its feature map) (what a head is fitted on);
        ``zoom``: the embedding of each crop's zoomed view follows its own
        (``vision.head.zoomed``)."""
        return self.answers_embedded(to_input(crops), zoom)

    def answers_embedded(
        self, x: np.ndarray, zoom: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The network's answers for network inputs ``x`` (N x 3 x S x S, as
        ``vision.crops.to_input`` makes them, turned or not) and what a head reads of them:
        (N x dice, N x (faces + none), N x embedding of its feature map); ``zoom``: the
        embedding of each input's zoomed view follows its own (the network run again). This
        network alone, never a second one: a taught head reads from its features
        (``vision.headread``)."""
        die_p, face_p, feats = self._session.run(
            ["die_prob", "face_prob", "features"], {self._input: np.ascontiguousarray(x)}
        )
        emb = embed(feats)
        if zoom:
            (feats_z,) = self._session.run(["features"], {self._input: zoomed(x)})
            emb = np.concatenate([emb, embed(feats_z)], axis=1)
        return die_p, face_p, emb

    def read_outputs(
        self, die_t: np.ndarray, face_t: np.ndarray, turns: int, pips: int | None = None
    ) -> CropReading:
        """One crop's reading from the network's answers at ``turns`` turns (turns x dice,
        turns x (faces + none); turn 0 upright), by the shipped thresholds and rules; with
        ``pips``, the pips counted on the crop heard as :meth:`classify` hears them."""
        out, best, _ = self.decide_turns(die_t[:turns, None], face_t[:turns, None], turns)
        return self.pips_heard(out, best, [pips], turns)[0]

    @property
    def shipped(self) -> FaceClassifier | None:
        """The shipped classifier backing this taught one; None when nothing backs it."""
        return self._shipped

    def use_thresholds(
        self,
        turns: int,
        threshold: float,
        agree: float | None = None,
        backed: bool = True,
        pip_agree: float | None = None,
    ) -> None:
        """From now on read crops at ``turns`` turns with ``threshold`` for every die,
        ``pip_agree`` as the card's ``pip_agree_threshold`` (None: a best guess the pips
        agree with is not read below ``threshold``), and (taught) ``agree`` as the card's
        ``agree_threshold`` and ``backed`` as its ``shipped_backs``. Calibration and
        teaching's cross-validation try their candidate thresholds with this, through the
        decision code the table runs.

        >>> clf = FaceClassifier("d6")
        >>> clf.use_thresholds(1, 1.01)        # a threshold no reading reaches
        >>> clf.classify([np.zeros((64, 64, 3), np.uint8)])[0].face is None
        True
        """
        self._cuts[turns] = (float(threshold), {})
        self._agree[turns] = agree
        self._backed[turns] = backed
        self._pip_agree[turns] = pip_agree
        self.photos_once = False

    def use_pip_agree(self, turns: int, pip_agree: float | None) -> float | None:
        """From now on read, at ``turns`` turns, a best guess the pips counted agree with
        from ``pip_agree`` up (None: not below the threshold); the other thresholds stay.
        Returns the value it replaces (calibration tries candidates, then puts it back).

        >>> clf = FaceClassifier("d6")
        >>> before = clf.use_pip_agree(1, 0.0)
        >>> clf.use_pip_agree(1, before), clf.use_pip_agree(1, before) == before
        (0.0, True)
        """
        before = self._pip_agree.get(turns)
        self._pip_agree[turns] = pip_agree
        return before

    def answer_with(self, answers=None):
        """From now on take the network's answers from ``answers(crops, turns)`` (die and face
        probabilities, turns x N x ...) instead of running it; None: run it again. Returns the
        one it replaces. The lab replays answers it stored, under other thresholds, through
        this classifier's own decision code.

        >>> clf = FaceClassifier("d6")
        >>> die, face = clf.probabilities(np.zeros((1, 64, 64, 3), np.uint8))
        >>> clf.answer_with(lambda crops, turns: (die[None] * 0, face[None] * 0)) is None
        True
        >>> float(clf.probabilities(["a crop never looked at"])[1].sum())
        0.0
        """
        before = self._answers
        self._answers = answers
        return before

    def best_guesses(self, crops, turns: int = 1) -> list[tuple[str, str]]:
        """Each crop's best (die, face) pair the dice set allows, before any threshold."""
        return self.read_and_guess(crops, turns)[1]

    def read_and_guess(
        self, crops, turns: int = 1, quick: bool = False
    ) -> tuple[list[CropReading], list[tuple[str, str]]]:
        """:meth:`classify` and :meth:`best_guesses` of the same crops, from one run.
        ``quick``: a reading never scored (a moving frame's, or one a still tray's read at
        four turns replaces; ``vision.frameread``): the pips are not counted
        (:meth:`hear_pips` hears them later where such a reading stands), and a taught head
        whose second opinion must agree reads without it and takes no face."""
        return self._classify(crops, turns, quick)

    def crop(self, frame_bgr: np.ndarray, box, others=(), margin: float | None = None):
        """The model input crop (uint8 BGR) for a die box ``(x, y, w, h)`` of a frame; with
        the dice of ``others`` (their boxes) painted out where they come near
        (``vision.crops.alone``). ``margin``: another than the network's."""
        margin = self.margin if margin is None else margin
        # (an upright crop reaches half its side from the die's centre)
        patch = alone(frame_bgr, box, others, margin / 2 + 0.05) if len(others) else None
        if patch is None:
            return cut_crop(frame_bgr, box, self.input_size, margin)
        img, x0, y0 = patch
        x, y, w, h = box
        return cut_crop(img, (x - x0, y - y0, w, h), self.input_size, margin)

    @property
    def model_path(self) -> Path:
        """The ONNX file this classifier runs (a taught one, or the shipped one)."""
        return self._path

    def probabilities(self, crops, turns: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Raw head outputs for uint8 BGR crops: (N x dice, N x (faces + none)). ``turns``
        4: the mean over the crop read at 0, 90, 180 and 270 degrees."""
        if len(crops) == 0:
            return np.zeros((0, len(self.dice)), np.float32), np.zeros(
                (0, len(self.faces) + 1), np.float32
            )
        die_p, face_p = self.turn_answers(crops, turns)
        return die_p.mean(axis=0), face_p.mean(axis=0)

    def turn_answers(self, crops, turns: int) -> tuple[np.ndarray, np.ndarray]:
        """Head outputs of each crop read at each of ``turns`` turns (0 first):
        (turns x N x dice, turns x N x (faces + none)), in one model call (one each, with a
        second network: at more than one turn, each turn's answers are the two's mean; or
        those :meth:`answer_with` gave)."""
        if self._answers is not None:
            return self._answers(crops, turns)
        x = to_input(crops)
        n = len(x)
        if turns > 1:
            x = np.concatenate([np.rot90(x, k, (2, 3)) for k in range(turns)])
        die_p, face_p = self._run(np.ascontiguousarray(x), turns > 1)
        return die_p.reshape(turns, n, -1), face_p.reshape(turns, n, -1)

    def classify(self, crops, turns: int = 1) -> list[CropReading]:
        """Read a batch of crops (from :meth:`crop`) in one model call. ``turns`` 4 (``TURNS``)
        reads each crop at four turns and averages: surer and more often right, four times
        the work (photos; in the camera loop only the dice in doubt: ``vision.frameread``).
        A die the upright read alone is sure of (by the thresholds of one read) is taken when
        the average abstains; two sure reads of different faces abstain, and so does a die
        that one turn alone reads as another face at ``TURN_DOUBT`` or more.
        """
        return self._classify(crops, turns)[0]

    def _classify(
        self, crops, turns: int, quick: bool = False
    ) -> tuple[list[CropReading], list[tuple[str, str]]]:
        """:meth:`classify`'s readings, and each crop's best (die, face) guess before any
        threshold (what a taught network's agreement is judged on); ``quick``: see
        :meth:`read_and_guess`."""
        if len(crops) == 0:
            return [], []
        if self.photos_once:
            turns = 1
        if self._reader is not None:
            out, best = self._reader.read(self, crops, turns, quick)
            return _guessed(out, best), best
        die_t, face_t = self.turn_answers(crops, turns)
        out, best, split = self.decide_turns(die_t, face_t, turns)
        if self._shipped is not None and self._backed.get(turns, True):
            out = self._backed_by_shipped(crops, turns, out, best, split)
        if quick:
            return _guessed(out, best), best
        return self.hear_pips(crops, out, best, turns), best

    def hear_pips(self, crops, out, best, turns: int) -> list[CropReading]:
        """The readings ``out`` of ``crops`` at ``turns`` turns (best guesses ``best``) with
        the pips counted on them heard (:meth:`pips_heard`): what :meth:`classify` does last,
        for readings first made ``quick``."""
        counts = self.pip_counts(
            crops, self.pips_asked(out, best, turns), self._pips_again(out, turns)
        )
        return _guessed(self.pips_heard(out, best, counts, turns), best)

    def _may_agree(self, r: CropReading, turns: int) -> bool:
        """Whether a reading not read may be, if the pips counted agree with its best guess
        (from the card's ``pip_agree_threshold``)."""
        cut = self._pip_agree.get(turns)
        return r.face is None and cut is not None and r.confidence >= cut and r.not_a_die <= 0.5

    def pips_asked(self, out, best, turns: int) -> list[tuple]:
        """The faces whose pips matter on each crop read ``out`` with best guesses ``best``
        at ``turns`` turns: its reading's, and its best guess's when the pips could make that
        read (the counter runs on no crop it could not change; :meth:`pip_counts`)."""
        return [
            (r.face, b[1]) if self._may_agree(r, turns) else (r.face,)
            for r, b in zip(out, best, strict=True)
        ]

    def _pips_again(self, out, turns: int) -> list[bool]:
        """Where the counter looks again at a crop it gives no count (``vision.pips``): at
        four turns everywhere, on a camera frame's one read only where a count could make
        a read (a sure read's pips, counted once, may still withdraw it): what it costs a
        frame stays with the dice in doubt."""
        return [turns > 1 or self._may_agree(r, turns) for r in out]

    def pips_heard(self, out, best, counts, turns: int) -> list[CropReading]:
        """The readings ``out`` (best guesses ``best``, read at ``turns`` turns) with the pips
        ``counts`` counted on their crops heard: a read they contradict is withdrawn; a
        best guess not read that they agree with is read (two opinions, one of them
        geometric, trusted from the lower ``pip_agree_threshold``). A die left unread that
        they counted has the face of that count as its guess."""
        out = list(out)
        for i, (r, n) in enumerate(zip(out, counts, strict=True)):
            if n is None:
                continue
            if r.face is not None and self.pip_faces.get(r.face, n) != n:
                out[i] = r.withdrawn()
            elif self._may_agree(r, turns) and self.pip_faces.get(best[i][1]) == n:
                out[i] = replace(r, die=best[i][0], face=best[i][1])
            if out[i].face is None and n in self._pip_face:
                # the face the pips counted is the likelier guess (they are rarely wrong)
                out[i] = replace(out[i], guess=self._pip_face[n])
        return out

    def pip_counts(self, crops, faces, again=False) -> list[int | None]:
        """The pips counted on each crop (``vision.pips``) whose faces of interest
        (``faces[i]``: ids or None) include a pip face; None elsewhere or without a count.
        ``again``: whether the counter looks again where it gives no count (one for all, or
        one for each crop; ``vision.pips.read_many``)."""
        ask = [i for i, fs in enumerate(faces) if any(f in self.pip_faces for f in fs if f)]
        again = [again] * len(faces) if isinstance(again, bool) else list(again)
        got = read_many([crops[i] for i in ask], [again[i] for i in ask]) if ask else []
        out: list[int | None] = [None] * len(faces)
        for i, read in zip(ask, got, strict=True):
            out[i] = read.count
        return out

    def pips_of(self, crops, pairs, again: bool = False) -> list[bool | None]:
        """For each crop read as ``pairs[i]`` (die, face): does the pip count on it agree
        (True), count another number (False), or give no opinion (None; also for a face
        without pips, or no read)? The counter runs only on crops read as pip faces
        (``again``: see :meth:`pip_counts`)."""
        counts = self.pip_counts(crops, [(face,) for _die, face in pairs], again)
        return [
            None if n is None or face not in self.pip_faces else n == self.pip_faces[face]
            for (_die, face), n in zip(pairs, counts, strict=True)
        ]

    def pip_opinion(self, counted: int | None):
        """The pip opinion ``vision.head.decide`` takes for a crop showing ``counted`` pips:
        a function of a (die, face) pair giving True (they agree), False (another number) or
        None (a face without pips); None for no count."""
        if counted is None:
            return None

        def agree(pair) -> bool | None:
            want = self.pip_faces.get(pair[1])
            return None if want is None else counted == want

        return agree

    def decide_turns(self, die_t, face_t, turns: int):
        """Readings, best (die, face) guesses and whether one turn alone reads another pair
        (``TURN_DOUBT``), from the network's answers at each turn (turns x N x dice, turns x
        N x (faces + none); turn 0 upright), by the thresholds of reads at ``turns`` turns:
        no backing network, no pips heard (:meth:`pips_heard`)."""
        die_m, face_m = die_t.mean(axis=0), face_t.mean(axis=0)
        out, best = self._read(die_m, face_m, turns)
        if turns > 1:
            # the upright read is one of the turns: a die it is sure of is taken when the mean
            # abstains, and when the two are sure of different faces the die is in doubt
            first = self._read(die_t[0], face_t[0], 1)[0]
            for i, (m, f) in enumerate(zip(out, first, strict=True)):
                if f.face is None:
                    continue
                if m.face is None:
                    if self.upright_alone:
                        out[i] = f
                elif (m.die, m.face) != (f.die, f.face):
                    out[i] = m.withdrawn()
            # one turn more than even sure of another face: the network does not see the
            # same die from every side (measured: a fat star of Tally Up!'s held-out style
            # read as 100 at 0.986 on average, as a star at 0.59 at one turn; and a Rollers
            # digit). It cost 0-0.5 points of the dice read right on most held-out sets, 1.8
            # on the chase crops and 2.4 on PXL_phone (models/README.md).
            split = self._split(die_t, face_t, best)
            out = [
                r.withdrawn() if s and r.face is not None else r
                for r, s in zip(out, split, strict=True)
            ]
        else:
            split = [False] * len(out)
        return out, best, split

    def _backed_by_shipped(self, crops, turns: int, out, best, split):
        """A fine-tuned taught network's readings backed by the shipped network's (see
        ``__init__``)."""
        out = list(out)
        shipped, shipped_best = self._shipped._classify(crops, turns)
        agree = self._agree.get(turns)
        cut = self._cuts.get(turns, self._cuts[1])[0]
        for i, (t, s) in enumerate(zip(out, shipped, strict=True)):
            # not a die only when both networks say so (measured: on rune55
            # randomid_single, tiny dice, photos read with a taught network alone saying
            # it found 74.5% of the fresh dice, the shipped one 87.3%)
            t = out[i] = replace(t, not_a_die=min(t.not_a_die, s.not_a_die))
            # (a taught reading below its own threshold: not a doubt between two sure reads)
            if (
                t.face is None
                and agree is not None
                and best[i] == shipped_best[i]
                and agree <= t.confidence < cut
                and t.not_a_die <= 0.5
                and not split[i]
                and s.not_a_die <= 0.5
                and (s.face is None or (s.die, s.face) == best[i])
            ):
                # both networks' best guess is this face and the taught one is fairly
                # sure of it: two networks agreeing are trusted further down. Not when the
                # shipped network takes the box for no die: its best face is then no
                # opinion (measured: a 2 seen askew, shipped "none" 0.67 and "1" 0.21,
                # taught "1" 0.90, read as a 1)
                out[i] = replace(t, die=best[i][0], face=best[i][1])
                continue
            if s.face is None:
                continue
            if t.face is None:
                out[i] = CropReading(
                    s.die,
                    s.face,
                    s.confidence,
                    s.face_confidence,
                    s.die_confidence,
                    t.not_a_die,
                )
            elif (t.die, t.face) != (s.die, s.face):
                out[i] = t.withdrawn()
        return out

    def _split(self, die_t: np.ndarray, face_t: np.ndarray, best) -> list[bool]:
        """For each crop read at several turns: is one turn alone at least ``TURN_DOUBT``
        sure of another (die, face) pair than ``best``, the mean's?"""
        joint = die_t[:, :, self._pair_die] * face_t[:, :, self._pair_face]
        top = joint.argmax(axis=2)
        sure = np.take_along_axis(joint, top[:, :, None], axis=2)[:, :, 0] >= TURN_DOUBT
        return [
            any(
                sure[k, i]
                and (self.dice[self._pair_die[top[k, i]]], self.faces[self._pair_face[top[k, i]]])
                != best[i]
                for k in range(len(top))
            )
            for i in range(len(best))
        ]

    def _read(
        self, die_p: np.ndarray, face_p: np.ndarray, turns: int
    ) -> tuple[list[CropReading], list[tuple[str, str]]]:
        """Readings from head outputs, with the thresholds of reads at ``turns`` turns, and
        each crop's best allowed (die, face) pair whatever its confidence."""
        threshold, per_die = self._cuts.get(turns, self._cuts[1])
        out, best = [], []
        for dp, fp in zip(die_p, face_p, strict=True):
            joint = dp[self._pair_die] * fp[self._pair_face]
            k = int(np.argmax(joint))
            di, fi = int(self._pair_die[k]), int(self._pair_face[k])
            conf = float(joint[k])
            die_conf, face_conf = float(dp[di]), float(fp[fi])
            best.append((self.dice[di], self.faces[fi]))
            cut = per_die.get(self.dice[di], threshold)
            die = self.dice[di] if die_conf >= cut else None
            none = float(fp[-1])
            if conf >= cut and die is not None:
                out.append(CropReading(die, self.faces[fi], conf, face_conf, die_conf, none))
            else:
                out.append(CropReading(die, None, conf, face_conf, die_conf, none))
        return out, best
