"""Teach the tray the owner's dice from a few labelled photos, in about a minute, no torch.

    dicetray teach FOLDER --dice-set SET --out DIR

``FOLDER`` holds ``images/`` and ``labels.csv`` (``vision.labelled``); ``DIR`` receives a
taught folder (``vision.taught``) that ``--taught DIR`` or the config's ``[vision] taught``
puts to use. What teaching does:

1. every labelled die is cut as the table cuts it for a taught head (the other dice of the
   photo painted out, ``vision.crops.alone``), at four turns, and again shrunk to a small
   die's size (24-40 px), and many times more turned to any angle, shifted, resized, cut
   tight, lighter and darker, blurred; with "no die" crops (the tray between the dice,
   corners of dice, what the detector finds that is no die);
2. the shipped classifier reads every crop once (its answers and its feature map);
3. a head (``vision.head``) is fitted on those readings (and, tried too, on them beside the
   readings of each crop's centre zoomed up, ``vision.head.zoomed``), once per fold of the
   photos, and each die is read by the head that never saw its photo; where the dice set's
   card has a second network, a second head is fitted on its readings alike, and the two
   heads' answers are averaged at each turn and read as one head's (``vision.head.blend``).
   From those reads the abstention thresholds are set (``vision.risk``): the lowest at which
   the rate of wrong reads is bounded, at 95% confidence, by 0.5% (or, with too few dice to
   show that, by the least rate they can show, and then none of them may be read wrong); the
   5% is shared among every way of reading tried (views and hearings), since the one reading
   the most is taken; the dice shrunk set alike the threshold of dice smaller than the
   teaching dice;
4. the head is fitted on every photo and written with its thresholds. It is kept when, on
   the dice it never saw, it reads at least as many right as the shipped models read alone.

Nothing but numpy, OpenCV and onnxruntime is needed, so a Raspberry Pi teaches itself.
Steps 1 and 2 are ``vision.teachcrops``; step 3's cross-validation and choices ``vision.teachcv``.

    >>> from vision.teach import teach   # doctest: +SKIP
    >>> teach("my-photos", "d6", "my-taught")["heldout"]["face_right"]   # doctest: +SKIP
    0.99
"""

from __future__ import annotations

import datetime as _dt
import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

from vision import risk
from vision.classcard import model_paths, shipped_second
from vision.classify import TURNS, FaceClassifier
from vision.detect import Detector
from vision.dicesets import DiceSet, DiceSetError, load
from vision.head import BLEND, Hearing
from vision.labelled import LabelError, Photo, crops_only, read_folder
from vision.onnx import file_sha256, open_session
from vision.taught import HEAD_FORMAT, TAUGHT_FILE, writing
from vision.teachcrops import SHRINK_PX, copies_for, read_photos
from vision.teachcv import (
    FLOOR,
    HEARINGS,
    PULLS,
    VIEWS,
    backing,
    choose_hearing,
    choose_small,
    choose_view,
    cross_validate,
    fit,
    fit_second,
    heldout_figures,
    keeps,
    shipped_reads,
    small_dice_answers,
    surest_misreads,
    tally,
)
from vision.teachdet import FOLDS, find_figures, photo_folds, teach_detector

Progress = Callable[[str, int, int], None]

MIN_PER_FACE = 2  # dice each face must show in the photos
MIN_DICE = 40  # fewer labelled dice teach no head: too few to judge one
SMALL_SHARE = 0.05  # the share of the smallest teaching dice not vouched for (small_die_px)


class TeachError(ValueError):
    """Teaching can't start or finish: one line saying what is wrong and what to do."""


# --------------------------------------------------------------------------------------------
# teaching


def check_input(photos: list[Photo], ds: DiceSet, out: Path) -> None:
    """TeachError when the photos cannot teach ``ds`` into ``out``: ``out`` a file or a folder
    of other files, or a face of the set shown on fewer than ``MIN_PER_FACE`` dice."""
    if out.exists() and not out.is_dir():
        raise TeachError(f"{out} is a file: --out must be a folder (it is made if missing)")
    if out.exists() and any(out.iterdir()) and not (out / TAUGHT_FILE).exists():
        raise TeachError(f"{out} holds other files: give an empty or a taught folder")
    seen = Counter(lab.face for p in photos for lab in p.labels)
    thin = [f for f in ds.face_ids if seen[f] < MIN_PER_FACE]
    if thin:
        raise TeachError(
            "the photos show "
            + ", ".join(f"face {f!r} {seen[f]} time{'s' * (seen[f] != 1)}" for f in thin)
            + f": every face of the {ds.id} set needs at least {MIN_PER_FACE} dice in the "
            "photos (a face never shown is not learned): add photos showing it"
        )


def teach(
    folder: Path | str,
    dice_set: str | DiceSet,
    out: Path | str,
    progress: Progress | None = None,
    seed: int = 0,
    alpha: float = risk.ALPHA,
    delta: float = risk.DELTA,
) -> dict:
    """Teach ``dice_set`` from the labelled photo ``folder``; write the taught folder ``out``.

    ``progress(stage, done, total)`` is called as the work advances. Returns the record saved
    in ``out/taught.json``. Raises :class:`TeachError` for bad input, before anything is
    written."""
    started = time.monotonic()
    say = progress or (lambda stage, done, total: None)
    try:
        ds = dice_set if isinstance(dice_set, DiceSet) else load(dice_set)
        photos = read_folder(folder, ds)
    except (LabelError, DiceSetError) as exc:
        raise TeachError(str(exc)) from None
    out = Path(out)
    check_input(photos, ds, out)
    rng = np.random.default_rng(seed)
    clf = FaceClassifier(ds, second=False)  # teaching judges the shipped network alone
    # ... and a second opinion, on the card's second network where it has one
    second_at = shipped_second(ds.id, clf.meta)
    session = open_session(second_at) if second_at is not None else None
    only_crops = crops_only(photos)
    det = None if only_crops else Detector()
    n_dice = sum(len(p.labels) for p in photos)
    copies = copies_for(n_dice)
    try:
        readings, truth, found, cells, counted, sides = read_photos(
            photos, clf, det, rng, copies, say, session
        )
    except LabelError as exc:  # a photo that cannot be decoded
        raise TeachError(str(exc)) from None
    arrays = readings.arrays()
    second = readings.second_arrays()
    photo_of = arrays[3]
    k = min(FOLDS, len(photos)) if len(photos) >= 2 and n_dice >= MIN_DICE else 0
    steps = k * len(VIEWS) + 1
    die_photo = np.full(len(truth), -1)
    die_photo[arrays[6][arrays[6] >= 0]] = photo_of[arrays[6] >= 0]
    heldout: dict = {"photos": len(photos), "dice": n_dice}
    if found:
        heldout["found"], heldout["precision"] = find_figures(found)
    thresholds, keep, view = {}, False, VIEWS[0]
    if k:
        # each die read by heads fitted without its photo, in each view (pull, zoom), in
        # each way of hearing the pips, the shipped network and the turns
        folds, tried, shrunk, opinions = photo_folds(len(photos), rng), [], {}, {}
        # the best of every (view, hearing) is taken, so each is tested at the 5% shared
        # among them all (a union bound: picking the best of many cannot flatter the bound)
        tested = len(VIEWS) * len(HEARINGS)
        for i, v in enumerate(VIEWS):
            heard, shrunk[v] = cross_validate(
                arrays,
                folds,
                die_photo,
                clf,
                counted,
                v,
                lambda f, before=i * k: say("teaching", before + f + 1, steps),
                second,
                opinions,
            )
            tried.append((v, choose_hearing(heard, truth, alpha, delta / tested)))
        view, (hearing, reads, photo, camera) = choose_view(tried, truth)
        heldout["views_tried"] = {
            f"pull {p}" + (", zoomed" if z else ""): {
                "right": c[2].read - c[2].wrong,
                "wrong": c[2].wrong,
            }
            for (p, z), c in tried
        }
        shipped = shipped_reads(clf, arrays, truth, counted[0], second=second)
        backs, answers = backing(reads, photo.threshold, camera.threshold, shipped, truth)
        # dice smaller than the teaching dice: the threshold the same dice keep shrunk
        shipped_small = shipped_reads(clf, arrays, truth, counted[1], shrunk=True, second=second)
        small, small_answers = {"px": list(SHRINK_PX)}, {}
        for path, once in (("photo", False), ("camera", second_at is None)):
            small_answers[path] = small_dice_answers(
                shrunk[view][hearing],
                camera.threshold,
                photo.threshold,
                shipped_small,
                backs,
                once,
            )
            small[path] = choose_small(small_answers[path], truth, alpha, delta).to_json()
        thresholds = {
            "camera": camera.to_json(tested),
            "photo": photo.to_json(tested),
            **hearing.cuts(),
            "shipped_backs": backs,
            "small": small,
        }
        if second_at is not None:
            # the table reads a still tray's dice as a photo's, every one at four turns with
            # both heads (a moving frame's read once, by the first head alone, takes no face)
            answers["camera"] = answers["photo"]
            thresholds["second_opinion"] = {
                "network": second_at.name,
                "sha256": clf.meta["joint"]["sha256"],  # (shipped_second checked the file)
                "agreed": BLEND,  # how the second head is heard (vision.head.AGREED)
            }
        heldout.update(heldout_figures(reads, answers, shipped, truth))
        where = [(ph.file, lab) for ph in photos for lab in ph.labels]
        heldout["misread"] = surest_misreads(reads[TURNS], truth, where, counted[0], clf.pip_faces)
        cut = small["photo"]["threshold"]
        heldout["shrunk"] = tally(
            [a[0] if a is not None and a[1] >= cut else None for a in small_answers["photo"]],
            truth,
        )
        keep = keeps(heldout)
        heldout["method"] = (
            f"cross-validation: {k} folds of the photos, each die read by a head fitted "
            f"without its photo; pull towards the shipped answer {view[0]} (of "
            f"{list(PULLS)}), {'with' if view[1] else 'without'} the zoomed view"
            + (f"; a second opinion heard, a head on {second_at.name}" if second_at else "")
        )
    if not k:
        heldout["kept_shipped_models"] = (
            f"the photos hold {n_dice} dice: too few to judge a taught head (it needs "
            f"{MIN_DICE} at least, in 2 photos or more), so the taught folder reads with the "
            "shipped classifier; take more photos, several dice in each, and teach again"
        )
    elif not keep:
        heldout["kept_shipped_models"] = (
            "the taught head read fewer of the dice it never saw than the shipped models, so "
            "the taught folder reads with the shipped classifier; take more photos (every "
            "face of every die, your own tray and light) and teach again"
        )
    # the new folder is written beside ``out`` and takes its place whole at the end: a
    # teaching stopped part way (an error, a cancel, the power) leaves the old one as it was
    with writing(out) as stage:
        names = []
        if keep:
            head = fit(arrays, np.arange(len(photo_of)), *view)
            name = f"head-{ds.id}.npz"
            head.save(stage / name)
            names.append(name)
            if second is not None:
                name = f"head-{ds.id}-second.npz"
                fit_second(second, arrays, np.arange(len(photo_of)), view[0]).save(stage / name)
                names.append(name)
        det_cut = None
        if det is not None:
            det_head, heldout["detector"] = teach_detector(det, photos, found, cells, rng, say)
            if det_head is not None:
                det_head.save(stage / "detector-head.npz")
                names.append("detector-head.npz")
                det_cut = {"threshold": heldout["detector"]["taught"]["threshold"]}
        say("teaching", steps, steps)
        faces_seen = Counter(f"{lab.die}:{lab.face}" for p in photos for lab in p.labels)
        record = {
            "format": HEAD_FORMAT,
            "dice_set": ds.id,
            "models": names,
            "taught_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "taught_with": {
                "folder": Path(folder).name,
                "photos": len(photos),
                "folds": k,
                "dice": n_dice,
                "faces": dict(sorted(faces_seen.items())),
                "crops_only": only_crops,
                "crops_per_die": copies + TURNS,
                "pull": view[0] if keep else None,
                "zoom": view[1] if keep else None,
                "second_opinion": second is not None and keep,
                # the head's thresholds hold for dice this large or larger, under 40 px too
                # (vision.pipeline); the smallest 5% of the teaching dice are left out
                "small_die_px": int(np.percentile(sides, SMALL_SHARE * 100)) if sides else None,
                "seed": seed,
            },
            "base_models": {
                "classifier": file_sha256(model_paths(ds.id)[0]),
                **({"detector": file_sha256(det.path)} if det is not None else {}),
            },
            "thresholds": {"classifier": thresholds if keep else None, "detector": det_cut},
            "heldout": heldout,
            "seconds": round(time.monotonic() - started, 1),
        }
        (stage / TAUGHT_FILE).write_text(json.dumps(record, indent=1), encoding="utf-8")
    return record


# --------------------------------------------------------------------------------------------
# command line

USAGE = """Teach the tray your own dice and tray from labelled photos, in about a minute.

FOLDER holds images/ and labels.csv, one row per die: file,split,x,y,w,h,value[,die]
(x,y,w,h: the die's box in pixels; value: the face's name in the dice set, e.g. 6, (200),
x2; die: the die's name for sets of several dice). 14-25 photos showing every face of every
die a few times, 40 dice or more in all, are enough. `dicetray calibrate --teach` takes
such photos at the table for you.

Use the taught folder with --taught DIR (recognize, eval, calibrate, play, demo) or
`taught = "DIR"` under [vision] in the config. --deep fine-tunes the networks with torch
instead (the train extra; much slower)."""


def main(argv: list[str] | None = None) -> int:
    """``dicetray teach FOLDER --dice-set SET --out DIR``."""
    import argparse
    import sys

    from tqdm import tqdm

    p = argparse.ArgumentParser(
        prog="dicetray teach",
        description=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("folder", help="labelled photos: images/ + labels.csv")
    p.add_argument("--dice-set", required=True, help="d6, tally-up, toss-up, rollers or a file")
    p.add_argument("--out", required=True, help="the taught folder to write")
    p.add_argument("--seed", type=int, default=0, help="the seed of the crops' variations")
    p.add_argument("--json", action="store_true", help="print the record as JSON")
    p.add_argument("--deep", action="store_true", help="fine-tune with torch (train extra)")
    args = p.parse_args(argv)
    bars: list = []

    def progress(stage: str, done: int, total: int) -> None:
        if not bars:
            bars.append(tqdm(total=total, unit="step", file=sys.stderr, dynamic_ncols=True))
        bar = bars[0]
        bar.total, bar.n = total, done
        bar.set_description(stage)
        bar.refresh()

    try:
        record = teach(args.folder, args.dice_set, args.out, progress, args.seed)
    except TeachError as exc:
        for bar in bars:
            bar.close()
        print(f"dicetray teach: {exc}", file=sys.stderr)
        return 2
    for bar in bars:
        bar.close()
    if args.json:
        print(json.dumps(record, indent=1))
        return 0
    for line in summary(record, args.out):
        print(line)
    return 0


def summary(record: dict, out) -> list[str]:
    """Teaching's record in a few lines for the owner."""
    h, w = record["heldout"], record["taught_with"]
    lines = [
        (
            f"taught {record['dice_set']} from {w['photos']} photos ({w['dice']} dice) in "
            f"{record['seconds']} s -> {out}"
        )
    ]
    if "found" in h:
        lines.append(
            f"the shipped detector found {h['found']:.1%} of the photos' dice "
            f"({h['precision']:.1%} of its finds were dice)"
        )
    if "face_right" in h:
        cut = record["thresholds"]["classifier"] or {}
        bound = (cut.get("photo") or {}).get("wrong_rate_bound")
        tested = (cut.get("photo") or {}).get("choices_tested", 1)
        lines.append(
            f"each die read by a head that never saw its photo: right {h['face_right']:.1%}, "
            f"asked {h['abstained']:.1%}, wrong {h['wrong_count']} of {h['dice']}"
            + (
                f" (wrong reads bounded by {bound:.1%} at 95% confidence, the best of "
                f"{tested} ways of reading)"
                if bound
                else ""
            )
        )
        s = h["shipped_models"]
        lines.append(
            f"the shipped models on the same dice: right {s['face_right']:.1%}, asked "
            f"{s['abstained']:.1%}, wrong {s['wrong_count']}"
        )
        if bound and bound > risk.ALPHA + 1e-9:
            lines.append(
                f"{h['dice']} dice cannot show a wrong-read rate under {bound:.1%}; about "
                f"{risk.dice_needed(delta=risk.DELTA / tested)} dice in all can show "
                f"{risk.ALPHA:.1%}: with more photos "
                "the table asks about fewer dice"
            )
        heard = Hearing.from_cuts(cut)
        if not heard.pips:
            lines.append(
                "the pip counter misread these dice's marks, so the taught reader does not "
                "listen to it"
            )
        if not heard.turns:
            lines.append(
                "these dice's marks look like other faces turned, so the taught reader does "
                "not doubt a die that one turn reads as another face"
            )
        if not heard.shipped:
            lines.append(
                "the shipped classifier misread these dice, so the taught reader does not "
                "weigh its opinion"
            )
        if w.get("zoom"):
            lines.append(
                "these dice's marks are read better up close, so the taught reader also looks "
                "at each die's top face zoomed in (twice the network's work a read)"
            )
        heard2 = cut.get("second_opinion")
        if heard2:
            lines.append(
                "a second head, taught on the shipped second network, reads every die with "
                "the first: the table takes the face the two give together"
                if isinstance(heard2, dict) and heard2.get("agreed") == BLEND
                else "a second head, taught on the shipped second network, must read a die "
                "the same before the table takes the read"
            )
    miss = h.get("misread") or []
    if miss and miss[0]["score"] >= FLOOR:
        m = miss[0]
        (die, face), (read_die, read_face) = m["label"], m["read"]
        label, read = (
            (face, read_face) if die == read_die else (f"{die} {face}", f"{read_die} {read_face}")
        )
        x, y = m["box"][:2]
        # the pips counted on it name the face read: the geometric reader says so too
        counted = m.get("pips_read") is True
        lines.append(
            f"the surest wrong read of a teaching die sets how sure the table must be of a "
            f"read: in {m['file']} the die labelled {label} at x {x:g}, y {y:g} was read as "
            f"{read}, {m['score']:.0%} sure"
            + (
                f", and {m['pips']} pips are counted on it: its label is likely wrong. Mend "
                if counted
                else ". If its label is wrong, mend "
            )
            + "labels.csv and teach again: the table will ask about fewer dice"
        )
    if h.get("kept_shipped_models"):
        lines.append(h["kept_shipped_models"])
    return lines
