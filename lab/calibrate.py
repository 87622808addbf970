"""The abstention thresholds of a die classifier (``python -m lab.train --calibrate``).

For reads once and at four turns, the lowest threshold whose wrong-read rate is bounded by
0.5% at 95% confidence (``vision.risk.choose``) on held-out rendered dice and, for d6, the
``calibrate`` photos' dice cut at the detector's boxes (:class:`Calibration`); never on a
``judge`` photo. Over floors set on unseen dice where the card has them (``lab.unseen``);
also the thresholds of small dice, of a read the pips counted agree with, and of the two
networks' mean (:func:`calibrate_joint`). :func:`calibrate_file` writes them into a card.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lab.trainset import Crops, make_rendered, make_synthetic, real_calibration
from vision.dicesets import load
from vision.risk import ALPHA, DELTA, NEVER, choose, choose_sequence

# Candidate thresholds of reads at four turns, tested from the surest down (a four-turn read
# also takes the upright read alone, so its decision is tried through the classifier's own
# code at each candidate rather than read off one confidence)
TURNED_GRID = tuple(
    float(v)
    for v in np.round(
        np.r_[
            1.0,
            np.arange(0.9995, 0.99, -0.0005),
            np.arange(0.99, 0.9, -0.0025),
            np.arange(0.9, 0.499, -0.01),
        ],
        5,
    )
)
LEAST_THRESHOLD = 0.5  # no threshold under it: under it a best guess is a coin toss


def turn_outputs(
    clf, crops: np.ndarray, batch: int = 256, joint: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The network's answers for each crop at each of ``TURNS`` turns (turn 0 upright), as
    ``FaceClassifier`` reads them: (turns x N x dice, turns x N x (faces + none)); ``joint``:
    as a read at four turns hears them (with a second network: the two's mean)."""
    from vision.classify import TURNS

    die_t, face_t = [], []
    for k in range(TURNS):
        turned = np.rot90(crops, k, (1, 2))
        parts = [clf.answers(turned[i : i + batch], joint) for i in range(0, len(crops), batch)]
        die_t.append(np.concatenate([p[0] for p in parts]))
        face_t.append(np.concatenate([p[1] for p in parts]))
    return np.stack(die_t), np.stack(face_t)


def counted_pips(crops) -> tuple[list, list]:
    """The pips counted on each crop (``vision.pips``) at the counter's first look, and
    looking again where that gives no count: the two ways the table counts
    (``FaceClassifier.pip_counts``), for :func:`decisions` to replay."""
    from vision.pips import read_many

    crops = list(crops)
    first = [p.count for p in read_many(crops, again=False)]
    # looking again changes only the crops the first look gave no count
    blank = [i for i, n in enumerate(first) if n is None]
    again = list(first)
    for i, p in zip(blank, read_many([crops[i] for i in blank]) if blank else [], strict=True):
        again[i] = p.count
    return first, again


def decisions(clf, die_t: np.ndarray, face_t: np.ndarray, turns: int, pips=None) -> list:
    """What the table's decision code (``FaceClassifier.classify``, at its present
    thresholds) reads of crops whose network answers are ``die_t``/``face_t`` (from
    :func:`turn_outputs`), without running the network again: the classifier is handed the
    crops' indices and, for them, the stored answers. ``pips``: the pips counted on each
    crop (:func:`counted_pips`: at the first look, and looking again), replayed where and as
    the decision code would count them."""

    def answers(idx, n_turns):
        idx = np.asarray(idx)
        return die_t[:n_turns, idx], face_t[:n_turns, idx]

    def counted(idx, faces, again=False):
        again = [again] * len(faces) if isinstance(again, bool) else again
        return [
            pips[1 if a else 0][int(i)] if any(f in clf.pip_faces for f in fs if f) else None
            for i, fs, a in zip(idx, faces, again, strict=True)
        ]

    before = clf.answer_with(answers)
    if pips is not None:
        clf.pip_counts = counted
    try:
        return clf.classify(np.arange(die_t.shape[1]), turns)
    finally:
        clf.answer_with(before)
        if pips is not None:
            del clf.pip_counts


def readable(
    readings, side: np.ndarray, drop: float, small: float
) -> tuple[np.ndarray, np.ndarray]:
    """(read, kept) of each reading by the table's rules after the classifier
    (``vision.pipeline``): a box the classifier calls not-a-die over ``drop`` is no die
    found (not kept); a die under ``MIN_READ_PX`` is never read, one under ``SMALL_PX`` only
    at ``small`` (the card's threshold of small dice). ``side`` 0: no photo (a crop), no
    size rule."""
    from vision.pipeline import MIN_READ_PX, SMALL_PX

    face = np.array([r.face is not None for r in readings], bool)
    conf = np.array([r.confidence for r in readings])
    none = np.array([r.not_a_die for r in readings])
    sized = side > 0
    small_ok = ~sized | (side >= SMALL_PX) | (conf >= small)
    big_enough = ~sized | (side >= MIN_READ_PX)
    return face & small_ok & big_enough, none <= drop


# the calibration scenes of small dice only (calibration_data): they set the threshold of
# small dice, not the others (they would weigh the dice of 40-60 px in them far over their
# share at the table)
SMALL_SCENES = "small-dice scenes"


def _general(crops: Crops) -> np.ndarray:
    """Which crops the thresholds of all dice are set on: all but ``SMALL_SCENES``."""
    return np.array([g != SMALL_SCENES for g in crops.group], bool)


def small_dice(crops: Crops, kept: np.ndarray) -> np.ndarray:
    """Which crops are dice found of ``MIN_READ_PX`` to ``SMALL_PX`` across (the small dice
    the table reads only at the card's ``small`` threshold)."""
    from vision.pipeline import MIN_READ_PX, SMALL_PX

    return (crops.die >= 0) & kept & (crops.side >= MIN_READ_PX) & (crops.side < SMALL_PX)


def choose_small(clf, readings, crops: Crops, drop: float, alpha=ALPHA, delta=DELTA, log=print):
    """The threshold of small dice (``small_dice``) for ``clf``'s readings of ``crops`` made
    with no threshold of their own (every best guess read): the lowest whose wrong-read rate
    among the small dice found is bounded by ``alpha`` at ``1 - delta``, by the same rule as
    the others but on the small dice alone (few among all the dice found, their wrong reads
    would hardly move a bound on all). Returns (threshold, the card's part)."""
    dice_ids, faces = list(clf.dice), list(clf.faces)
    read, kept = readable(readings, crops.side, drop, 0.0)
    wrong = wrong_reads(readings, crops.die, crops.face, dice_ids, faces)
    conf = np.array([r.confidence for r in readings])
    m = small_dice(crops, kept)
    got = choose(np.where(read, conf, 0.0)[m], (read & wrong)[m], alpha, delta, LEAST_THRESHOLD)
    t = float(got.threshold)
    log(
        f"  dice under the small size: threshold {t:.4f}, wrong-read rate <= {got.bound:.3%} "
        f"({got.wrong} of {got.dice} small calibration dice read wrong, {got.read} read)"
    )
    return t, {"threshold": t, "bound": got.to_json(), "set_on": pool_name(crops.take(m))}


def wrong_reads(readings, die: np.ndarray, face: np.ndarray, dice, faces) -> np.ndarray:
    """Whether each reading's (die, face) is not the truth (a not-a-die crop: always)."""
    return np.array(
        [
            d < 0 or (r.die, r.face) != (dice[d], faces[f])
            for r, d, f in zip(readings, die.tolist(), face.tolist(), strict=False)
        ],
        bool,
    )


def _group_figures(crops: Crops, read, kept, wrong) -> dict:
    """Per group at the chosen thresholds: dice, found (kept), read right / asked / read
    wrong as shares of the dice found (the issue's table), and the wrong count."""
    out = {}
    groups = np.array(crops.group)
    is_die = crops.die >= 0
    for g in sorted(set(crops.group)):
        m = (groups == g) & is_die
        if not m.any():
            continue
        k = m & kept
        n = max(int(k.sum()), 1)
        out[g] = {
            "dice": int(m.sum()),
            "found": int(k.sum()),
            "read_right": round(float((k & read & ~wrong).sum()) / n, 4),
            "asked": round(float((k & ~read).sum()) / n, 4),
            "read_wrong": round(float((k & read & wrong).sum()) / n, 4),
            "wrong_count": int((k & read & wrong).sum()),
        }
    return out


def pool_name(crops: Crops) -> dict:
    """How many dice of each group a bound was set on."""
    groups = np.array(crops.group)[crops.die >= 0]
    return {g: int((groups == g).sum()) for g in sorted(set(groups.tolist()))}


def choose_thresholds(
    clf,
    camera: Crops,
    photo: Crops,
    alpha: float = ALPHA,
    delta: float = DELTA,
    floors: tuple[float, float] = (0.0, 0.0),
    log=print,
) -> dict:
    """The thresholds of reads once and at four turns, each the lowest one whose wrong-read
    rate is bounded by ``alpha`` at ``1 - delta`` (``vision.risk.choose``: Learn then Test,
    Clopper-Pearson, wrong reads counted among all dice found) on calibration dice only.

    ``camera``: dice cut as the camera loop cuts them (read once), ``photo``: as photos are
    read (four turns); both may hold not-a-die crops (die -1): no threshold lets one of them
    pass as a die the table keeps. Readings come from the table's decision code
    (:func:`decisions`) and its rules after the classifier (:func:`readable`). The four-turn
    read takes a sure upright read alone, so its threshold is chosen after the one-read
    threshold, over ``TURNED_GRID``, a die counting as read down from the highest candidate
    that reads it and as wrong if any candidate reads it wrong (a bound on what it costs).
    ``floors``: the least thresholds (once, four turns), set on unseen dice or far prints.
    When not even the surest four-turn candidate holds, the four-turn read reads nothing
    (threshold ``vision.risk.NEVER``, ``upright_alone`` false).
    Small dice get a threshold of their own first (:func:`choose_small`), in force when the
    others are set; the ``SMALL_SCENES`` crops set only theirs.
    Writes nothing; returns the card's parts: {"once": {...}, "turned": {...},
    "upright_alone": bool, "small": {"once": {...}, "turned": {...}}}.
    """
    from vision.pipeline import NOT_A_DIE_CAMERA

    dice, faces = list(clf.dice), list(clf.faces)
    out = {}
    # read once: a die is read at t when its confidence reaches t (the die head's own
    # confidence is never below the joint one)
    die_t, face_t = turn_outputs(clf, camera.x)
    clf.use_thresholds(1, 0.0)
    first = decisions(clf, die_t, face_t, 1)
    # small dice first, on their own: then the threshold of all dice with theirs in force
    s1, small_once = choose_small(clf, first, camera, NOT_A_DIE_CAMERA, alpha, delta, log)
    read, kept = readable(first, camera.side, NOT_A_DIE_CAMERA, s1)
    wrong = wrong_reads(first, camera.die, camera.face, dice, faces)
    conf = np.array([r.confidence for r in first])
    is_die = camera.die >= 0
    neg = ~is_die & kept & read
    floor = max(floors[0], LEAST_THRESHOLD)
    if neg.any():  # just above the surest not-a-die crop the table would keep
        floor = max(floor, float(np.nextafter(conf[neg].max(), 2.0)))
    m = is_die & kept & _general(camera)
    score = np.where(read, conf, 0.0)
    once = choose(score[m], (read & wrong)[m], alpha, delta, floor)
    t1 = float(once.threshold)  # a confidence itself: kept whole, so the same dice pass
    clf.use_thresholds(1, t1)
    final = decisions(clf, die_t, face_t, 1)
    read, kept = readable(final, camera.side, NOT_A_DIE_CAMERA, s1)
    wrong = wrong_reads(final, camera.die, camera.face, dice, faces)
    out["once"] = {
        "threshold": t1,
        "die_thresholds": {},
        "bound": once.to_json(),
        "set_on": pool_name(camera.take(m)),
        "floor": round(floor, 6),
        "figures": _group_figures(camera, read, kept, wrong),
        "not_a_die_passed": int((~is_die & kept & read).sum()),
    }
    log(
        f"read once: threshold {t1:.4f}, wrong-read rate <= {once.bound:.3%} at "
        f"{1 - delta:.0%} ({once.wrong} of {once.dice} calibration dice read wrong, "
        f"{once.read} read)"
    )

    out.update(choose_turned(clf, photo, t1, alpha, delta, floors[1], log))
    out["small"] = {"once": small_once, "turned": out.pop("small")}
    return out


def choose_turned(
    clf,
    photo: Crops,
    t1: float,
    alpha: float = ALPHA,
    delta: float = DELTA,
    floor: float = 0.0,
    log=print,
    small: float | None = None,
) -> dict:
    """The four-turn part of :func:`choose_thresholds`, with the one-read threshold ``t1`` in
    force for the upright read: {"turned": {...}, "upright_alone": bool, "small": {...}}.
    ``small``: the threshold of small dice read at four turns (None: set here first, on the
    small dice alone, :func:`choose_small`). With a second network attached
    (``FaceClassifier.use_second``) each turn's answers are the two's mean, as the table
    then reads them."""
    from vision.classify import TURNS
    from vision.pipeline import NOT_A_DIE_PHOTO

    dice, faces = list(clf.dice), list(clf.faces)
    out = {}
    # four turns, with the one-read threshold in force for the upright read
    die_t, face_t = turn_outputs(clf, photo.x, joint=clf.second)
    is_die = photo.die >= 0
    small_part = None
    if small is None:  # every best guess read (the upright one when sure at t1)
        clf.upright_alone = True
        clf.use_thresholds(1, t1)
        clf.use_thresholds(TURNS, 0.0)
        every = decisions(clf, die_t, face_t, TURNS)
        small, small_part = choose_small(clf, every, photo, NOT_A_DIE_PHOTO, alpha, delta, log)
    best = np.zeros(len(photo))
    ever_wrong = np.zeros(len(photo), bool)
    neg_floor = LEAST_THRESHOLD
    kept = None
    clf.upright_alone = True
    for t in TURNED_GRID:
        clf.use_thresholds(1, t1)
        clf.use_thresholds(TURNS, t)
        got = decisions(clf, die_t, face_t, TURNS)
        read, kept = readable(got, photo.side, NOT_A_DIE_PHOTO, small)
        wrong = wrong_reads(got, photo.die, photo.face, dice, faces)
        best = np.where(read & (best == 0), t, best)
        ever_wrong |= read & wrong
        if neg_floor == LEAST_THRESHOLD and (~is_die & kept & read).any():
            neg_floor = t + 1e-6  # candidates from here down let a not-a-die crop pass
    m = is_die & kept & _general(photo)
    turned = choose(best[m], ever_wrong[m], alpha, delta, max(floor, neg_floor, LEAST_THRESHOLD))
    t4 = turned.threshold
    clf.use_thresholds(1, t1)
    clf.use_thresholds(TURNS, t4)
    # not even the surest candidate holds: the upright reads taken alone (at the one-read
    # threshold) are wrong too often on these dice, whatever the four-turn threshold; the
    # four-turn read then reads nothing, not even upright alone
    upright_alone = t4 <= 1.0
    clf.upright_alone = upright_alone
    final = decisions(clf, die_t, face_t, TURNS)
    read, kept = readable(final, photo.side, NOT_A_DIE_PHOTO, small)
    wrong = wrong_reads(final, photo.die, photo.face, dice, faces)
    out["upright_alone"] = upright_alone
    if small_part is not None:
        out["small"] = small_part
    out["turned"] = {
        "threshold": t4,
        "die_thresholds": {},
        "bound": turned.to_json(),
        "set_on": pool_name(photo.take(m)),
        "floor": round(max(floor, neg_floor, LEAST_THRESHOLD), 6),
        "figures": _group_figures(photo, read, kept, wrong),
        "not_a_die_passed": int((~is_die & kept & read).sum()),
    }
    log(
        f"read at four turns: threshold {t4:.4f}, wrong-read rate <= {turned.bound:.3%} at "
        f"{1 - delta:.0%} ({turned.wrong} of {turned.dice} calibration dice counted wrong, "
        f"{turned.read} read)"
    )
    return out


def choose_pip_agree(
    clf,
    crops: Crops,
    die_t,
    face_t,
    turns: int,
    drop: float,
    small: float,
    alpha=ALPHA,
    delta=DELTA,
) -> dict:
    """The least confidence from which a best guess the pips counted agree with is read
    (``pip_agree_threshold``), for reads at ``turns`` turns at the classifier's present
    thresholds: the dice that only this reads are added from the surest down while the
    wrong-read rate of all the reads stays bounded by ``alpha`` at ``1 - delta``
    (``vision.risk.choose_sequence``). No candidate lets a not-a-die crop through. The pips
    are counted once on the crops (:func:`counted_pips`) and replayed into the decision code."""
    counts = counted_pips(crops.x)
    dice, faces = list(clf.dice), list(clf.faces)
    try:
        clf.use_pip_agree(turns, None)
        base = decisions(clf, die_t, face_t, turns, counts)
        clf.use_pip_agree(turns, 0.0)
        every = decisions(clf, die_t, face_t, turns, counts)
    finally:
        clf.use_pip_agree(turns, None)
    read_b, kept = readable(base, crops.side, drop, small)
    read_e, kept_e = readable(every, crops.side, drop, small)
    wrong_e = wrong_reads(every, crops.die, crops.face, dice, faces)
    wrong_b = wrong_reads(base, crops.die, crops.face, dice, faces)
    is_die = crops.die >= 0
    extra = read_e & ~read_b & kept_e
    conf = np.array([r.confidence for r in every])
    m = is_die & kept & _general(crops)
    return _pips_added(conf, read_b, wrong_b, extra, wrong_e, m, ~is_die, alpha, delta)


def _pips_added(conf, read, wrong, extra, wrong_extra, m, negative, alpha, delta) -> dict:
    """A card's pip-agreement part: the dice ``extra`` (read only on the pips' word, wrong
    where ``wrong_extra``) added to those ``read`` (wrong where ``wrong``), from the surest
    down (``conf``), while the wrong-read rate of the dice ``m`` read keeps its bound; no
    candidate at or under the surest not-a-die crop among them (``negative``)."""
    floor = LEAST_THRESHOLD
    if (extra & negative).any():
        floor = max(floor, float(np.nextafter(conf[extra & negative].max(), 2.0)))
    k0 = int((read & wrong & m).sum())
    steps = []
    for t in sorted({float(c) for c in conf[extra & m] if c >= floor}, reverse=True):
        add = extra & m & (conf >= t)
        steps.append((t, int((read & m).sum() + add.sum()), k0 + int((add & wrong_extra).sum())))
    chosen = choose_sequence(steps, int(m.sum()), alpha, delta)
    return {
        "pip_agree_threshold": None if chosen.threshold >= NEVER else chosen.threshold,
        "pip_agree_bound": chosen.to_json(),
    }


def choose_small_pips(
    clf,
    crops: Crops,
    die_t,
    face_t,
    turns: int,
    small: float,
    pip_agree: float | None,
    alpha=ALPHA,
    delta=DELTA,
) -> dict:
    """The least confidence from which a photo's small die (:func:`small_dice`) that the
    classifier reads at ``turns`` turns at its present thresholds (and ``pip_agree``, the
    card's ``pip_agree_threshold``) but under ``small`` (the threshold of small dice) is read
    when the pips counted on it, looking again, agree with its face (``vision.pipeline``):
    those dice are added from the surest down while the wrong-read rate of the small dice
    read stays bounded by ``alpha`` at ``1 - delta`` (``vision.risk.choose_sequence``), on
    the small calibration dice alone. No candidate lets a not-a-die crop through.
    {"pip_agree_threshold": float or None, "pip_agree_bound": ...}."""
    from vision.pipeline import NOT_A_DIE_PHOTO

    counts = counted_pips(crops.x)
    dice, faces = list(clf.dice), list(clf.faces)
    before = clf.use_pip_agree(turns, pip_agree)
    try:
        got = decisions(clf, die_t, face_t, turns, counts)
    finally:
        clf.use_pip_agree(turns, before)
    read, kept = readable(got, crops.side, NOT_A_DIE_PHOTO, small)
    wrong = wrong_reads(got, crops.die, crops.face, dice, faces)
    conf = np.array([r.confidence for r in got])
    agree = np.array(
        [
            r.face is not None and counts[1][i] == clf.pip_faces.get(r.face, -1)
            for i, r in enumerate(got)
        ],
        bool,
    )
    unread, _ = readable(got, crops.side, NOT_A_DIE_PHOTO, 0.0)
    extra = unread & ~read & agree & kept
    m = small_dice(crops, kept)
    return _pips_added(conf, read, wrong, extra, wrong, m, crops.die < 0, alpha, delta)


@dataclass
class Calibration:
    """What sets a classifier's thresholds: held-out rendered dice (``rendered``, with the
    ``SMALL_SCENES`` of small dice only, each crop with its side), held-out synthetic crops
    (``synthetic``: their not-a-die crops hold the thresholds up, their dice are only
    measured), and for d6 the ``calibrate`` photos' dice as the camera and photo
    paths cut them (``real``, :func:`real_calibration`). Never a ``judge`` photo."""

    rendered: Crops | None
    synthetic: Crops | None
    real: dict[str, Crops | None]

    def files(self) -> set[str]:
        """Every real file the calibration reads ("<set>/<file>")."""
        return {f for c in self.real.values() if c is not None for f in c.file if f}

    def check(self, realdice: Path) -> None:
        """ValueError when a real file it reads is not a ``calibrate`` photo (``lab.splits``)."""
        from lab.splits import entries

        parts = {f"{k[0]}/{k[1]}": e.part for k, e in entries(realdice).items()}
        bad = sorted(f for f in self.files() if parts.get(f) != "calibrate")
        if bad:
            raise ValueError(
                f"{len(bad)} calibration crops come from photos that are not calibrate "
                f"photos (lab.splits), first {bad[0]}: thresholds are never set on them"
            )

    def without(self, source: str) -> Calibration:
        """The same without one real source (leave-one-source-out)."""
        return Calibration(
            self.rendered,
            self.synthetic,
            {
                k: (None if c is None else c.take([g != source for g in c.group]))
                for k, c in self.real.items()
            },
        )

    def path(self, name: str) -> Crops:
        """The calibration crops of one path (``camera`` or ``photo``): rendered dice, the
        synthetic not-a-die crops, and the real dice of that path."""
        neg = None
        if self.synthetic is not None:
            neg = self.synthetic.take(self.synthetic.die < 0)
        return Crops.join([self.rendered, neg, self.real.get(name)])


def calibration_data(
    set_id: str,
    size: int,
    holdout: int,
    holdout_scenes: int,
    seed: int,
    workers: int,
    realdice: Path | None,
    sources=None,
    detector=None,
) -> Calibration:
    """The calibration crops of a dice set (:class:`Calibration`), made afresh: synthetic
    and rendered with the held-out seeds (``seed + 7919``), the real ones for d6."""
    synthetic = rendered = None
    if holdout:
        sx, sd, sf = make_synthetic(set_id, holdout, seed + 7919, workers, size=size)
        synthetic = Crops.of(sx, sd, sf, "synthetic")
    if holdout_scenes:
        from vision.pipeline import MIN_READ_PX, SMALL_PX

        parts = []
        # the held-out scenes, and as many again of small dice only: the threshold of dice
        # under SMALL_PX is bounded on them alone (choose_thresholds), and wide scenes hold
        # too few of them for the bound
        for scenes, die_px, seed_at in (
            (holdout_scenes, None, seed + 7919),
            (holdout_scenes, (MIN_READ_PX, SMALL_PX), seed + 7919 + 1),
        ):
            made = make_rendered(set_id, scenes, seed_at, workers, size, die_px=die_px)
            if made is not None:
                x, d, f, side = made
                n, group = len(x), "rendered" if die_px is None else SMALL_SCENES
                parts.append(Crops(x, d, f, [group] * n, side, [""] * n))
        rendered = Crops.join(parts)
    real = {"camera": None, "photo": None}
    if set_id == "d6" and realdice is not None and Path(realdice).exists():
        real = real_calibration(Path(realdice), size, sources, detector)
    return Calibration(rendered, synthetic, real)


# the reads a floor may sit under (lab.unseen, lab.farprint): once, four turns, the two
# networks' mean, and each for small dice
FLOOR_KEYS = ("once", "turned", "joint", "small_once", "small_turned", "small_joint")


def _floors(unseen: dict, far: dict | None = None) -> dict[str, float]:
    """The least threshold of each read (``FLOOR_KEYS``): those set on unseen dice
    (``lab.unseen``) and on prints never trained on (``far``, ``lab.farprint``); 0 where
    neither sets one."""
    parts = (unseen, far or {})
    return {
        k: max(float((part.get(k) or {}).get("threshold", 0.0)) for part in parts)
        for k in FLOOR_KEYS
    }


def far_print_floors(meta: dict, onnx_path: Path, log=print) -> dict:
    """The card's floors set on prints never trained on (``far_print``, ``lab.farprint``) if
    they were set on this very network (its SHA-256), else none: another network reads a
    print it never saw otherwise."""
    from vision.onnx import file_sha256

    far = meta.get("far_print") or {}
    if far and far.get("sha256") != file_sha256(onnx_path):
        log(f"far-print floors of {onnx_path.name} were set on another network: not kept")
        return {}
    return far


def _lift(part: dict, floor: float) -> None:
    """Raise a threshold of small dice (a card part: "threshold", ...) to its floor: fewer
    read than at the threshold chosen, so the bound still holds."""
    if floor > part["threshold"]:
        part["threshold"] = part["floor"] = floor


def _lift_small(small: dict, fl: dict[str, float]) -> None:
    """Raise the thresholds of small dice (``choose_thresholds``' ``small`` part) to their
    floors (:func:`_lift`)."""
    for key in ("once", "turned"):
        _lift(small[key], fl[f"small_{key}"])


def calibrate_file(
    set_id: str,
    models_dir,
    data: Calibration,
    log=print,
    realdice: Path | None = None,
    alpha: float = ALPHA,
    delta: float = DELTA,
    unseen: dict | None = None,
    far_print: dict | None = None,
) -> dict:
    """Set the thresholds of the ONNX classifier in ``models_dir`` (:func:`choose_thresholds`)
    on ``data`` and write them into its JSON card, with the bound each holds, the dice that
    set it, and (``realdice``) which photos of each real source train, calibrate and judge.
    With a second network beside it (``vision.classcard.second_path``), the thresholds of
    reads at four turns heard from both are set too (the card's ``joint``,
    :func:`calibrate_joint`). Refuses calibration crops from any photo that is not a
    calibrate photo. ``unseen``: floors under the thresholds, set on dice of sources the
    networks never saw (``lab.unseen.floors``; None: the card's own, kept from its last
    calibration; {}: none), kept in the card. ``far_print``: floors set on prints the
    network never trained on (``lab.farprint``, with the network's SHA-256; None: the card's
    own while it is the same network, :func:`far_print_floors`)."""
    from vision.classcard import model_paths, second_path
    from vision.classify import FaceClassifier
    from vision.pipeline import MIN_READ_PX, NOT_A_DIE_CAMERA, NOT_A_DIE_PHOTO, SMALL_PX

    if realdice is not None:
        data.check(Path(realdice))
    elif data.files():
        raise ValueError("real calibration crops need realdice to check their photos' parts")
    clf = FaceClassifier(load(set_id), models_dir=models_dir, second=False)
    meta_path = model_paths(set_id, models_dir)[1]
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    if unseen is None:
        unseen = meta.get("unseen") or {}
    if far_print is None:
        far_print = far_print_floors(meta, model_paths(set_id, models_dir)[0], log)
    fl = _floors(unseen, far_print)
    chosen = choose_thresholds(
        clf,
        data.path("camera"),
        data.path("photo"),
        alpha,
        delta,
        (fl["once"], fl["turned"]),
        log,
    )
    _lift_small(chosen["small"], fl)
    if clf.pip_faces:  # a best guess the pips counted agree with, from a lower threshold
        clf.use_thresholds(1, chosen["once"]["threshold"])
        clf.use_thresholds(4, chosen["turned"]["threshold"])
        clf.upright_alone = chosen["upright_alone"]
        for key, turns, part in (("once", 1, "camera"), ("turned", 4, "photo")):
            crops = data.path(part)
            die_t, face_t = turn_outputs(clf, crops.x)
            drop = NOT_A_DIE_CAMERA if turns == 1 else NOT_A_DIE_PHOTO
            small = chosen["small"][key]["threshold"]
            chosen[key].update(
                choose_pip_agree(clf, crops, die_t, face_t, turns, drop, small, alpha, delta)
            )
            log(f"{key}: pips agreeing, read from {chosen[key]['pip_agree_threshold']}")
    if data.synthetic is not None:  # measured, not set on: harsher than what the table sees
        dice = data.synthetic.take(data.synthetic.die >= 0)
        die_t, face_t = turn_outputs(clf, dice.x)  # in batches: one call would need GBs
        for key, turns in (("once", 1), ("turned", 4)):
            clf.use_thresholds(1, chosen["once"]["threshold"])
            clf.use_thresholds(4, chosen["turned"]["threshold"])
            got = decisions(clf, die_t, face_t, turns)
            wrong = wrong_reads(got, dice.die, dice.face, list(clf.dice), list(clf.faces))
            read = np.array([r.face is not None for r in got], bool)
            chosen[key]["figures"]["synthetic (not set on)"] = _group_figures(
                dice, read, np.ones(len(dice), bool), wrong
            )["synthetic"]
    meta.update(chosen.pop("once"))
    meta["turned"] = chosen["turned"]
    meta["small"] = {"px": [MIN_READ_PX, SMALL_PX], **chosen["small"]}
    meta.pop("upright_alone", None)
    if not chosen["upright_alone"]:
        meta["upright_alone"] = False
    meta.pop("real_left_out", None)
    before = meta.pop("joint", None) or {}
    second = second_path(set_id, models_dir)
    if second.is_file():
        meta["joint"] = calibrate_joint(
            clf,
            second,
            data,
            meta["threshold"],
            alpha,
            delta,
            fl["joint"],
            log,
            fl["small_joint"],
        )
        # how the second network was made, kept while it is the same file
        if before.get("sha256") == meta["joint"]["sha256"] and "trained" in before:
            meta["joint"]["trained"] = before["trained"]
    meta["calibration"] = {
        "rule": (
            "vision.risk.choose: the lowest threshold whose wrong-read rate (wrong reads "
            "among the dice found) has a one-sided Clopper-Pearson upper bound at most "
            f"alpha = {alpha} at confidence {1 - delta}, candidates tested from the surest "
            "down (Learn then Test); set on held-out rendered dice and, for d6, the real "
            "calibrate photos only; no not-a-die crop passes"
            + (
                "; none under its floor in 'unseen' (the same bound on the train and "
                "calibrate photos of each real source read by networks that never saw it, "
                "lab.unseen)"
                if unseen
                else ""
            )
            + (
                "; none under its floor in 'far_print' (the same bound on held-out rendered "
                "dice printed in glyphs bent beyond any training look's, lab.farprint)"
                if far_print
                else ""
            )
        ),
        "alpha": alpha,
        "confidence": 1 - delta,
    }
    meta.pop("unseen", None)
    if unseen:
        meta["unseen"] = unseen
    meta.pop("far_print", None)
    if far_print:
        meta["far_print"] = far_print
    if realdice is not None and set_id == "d6":
        from lab.splits import RULES, table

        meta["real_photos"] = {"parts": RULES, "per_source": table(realdice)}
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return meta


def calibrate_joint(
    clf,
    path: Path,
    data: Calibration,
    t1: float,
    alpha=ALPHA,
    delta=DELTA,
    floor=0.0,
    log=print,
    small_floor=0.0,
) -> dict:
    """The card's ``joint`` part: ``clf`` (one read at ``t1``) reading at four turns with the
    second network in ``path`` (each turn's answers the two's mean), its threshold set by the
    same bound on the same photo-path calibration dice (:func:`choose_turned`; first the
    threshold of the small dice among them, on the mean's readings of those alone: a photo's
    small dice are read by the two as well), then its pip-agreement threshold
    (:func:`choose_pip_agree`); the synthetic dice are measured. ``floor``, ``small_floor``:
    the least thresholds (``lab.unseen``'s ``joint`` and ``small_joint``)."""
    from vision.classify import TURNS
    from vision.onnx import file_sha256
    from vision.pipeline import NOT_A_DIE_PHOTO

    log(f"with the second network {path.name}:")
    clf.use_second(path)
    got = choose_turned(clf, data.path("photo"), t1, alpha, delta, floor, log)
    joint = {"network": path.name, "sha256": file_sha256(path), **got["turned"]}
    joint["upright_alone"] = got["upright_alone"]
    _lift(got["small"], small_floor)
    joint["small"] = got["small"]
    small = got["small"]["threshold"]
    clf.use_thresholds(1, t1)
    clf.use_thresholds(TURNS, joint["threshold"])
    clf.upright_alone = got["upright_alone"]
    if clf.pip_faces:
        crops = data.path("photo")
        die_t, face_t = turn_outputs(clf, crops.x, joint=True)
        joint.update(
            choose_pip_agree(clf, crops, die_t, face_t, TURNS, NOT_A_DIE_PHOTO, small, alpha, delta)
        )
        log(f"joint: pips agreeing, read from {joint['pip_agree_threshold']}")
        clf.use_thresholds(TURNS, joint["threshold"])  # (choose_pip_agree leaves it unset)
        pip_cut = joint["pip_agree_threshold"]
        got = choose_small_pips(clf, crops, die_t, face_t, TURNS, small, pip_cut, alpha, delta)
        joint["small"].update(got)
        log(f"joint: small dice the pips agree with, read from {got['pip_agree_threshold']}")
    if data.synthetic is not None:  # measured, not set on
        dice = data.synthetic.take(data.synthetic.die >= 0)
        die_t, face_t = turn_outputs(clf, dice.x, joint=True)
        got = decisions(clf, die_t, face_t, TURNS)
        wrong = wrong_reads(got, dice.die, dice.face, list(clf.dice), list(clf.faces))
        read = np.array([r.face is not None for r in got], bool)
        joint["figures"]["synthetic (not set on)"] = _group_figures(
            dice, read, np.ones(len(dice), bool), wrong
        )["synthetic"]
    return joint


def recalibrate(set_id: str, args, log=print, far_print: dict | None = None) -> dict:
    """Set the thresholds of an already trained classifier afresh (no torch needed), on the
    same calibration crops ``train_set`` uses (``dicetray train --calibrate``); ``far_print``:
    as :func:`calibrate_file` takes it."""
    from vision.classify import FaceClassifier

    size = FaceClassifier(set_id, models_dir=args.out).input_size
    realdice = Path(args.realdice)
    data = calibration_data(
        set_id, size, args.holdout, args.holdout_scenes, args.seed, args.workers, realdice
    )
    return calibrate_file(set_id, args.out, data, log, realdice, far_print=far_print)
