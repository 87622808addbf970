"""Zero-shot against taught, on each real photo set (part of ``dicetray eval``).

For each real set a few of its photos (the teaching photos, from the set's training side) are
written as a labelled folder and taught (``vision.teach``); the set's other photos are then read
twice as ``dicetray recognize`` reads photos: with the shipped models alone (zero-shot) and
with the taught model. Both lines give dice found, face right, abstained and wrong without
abstaining. Sets of die crops (chase_casino_crops) are read crop by crop.

Which photos teach: photos the shipped models were never trained on, so that teaching is
judged as an owner meets it (a tray and dice the models never saw). Each set's held-out side
(matteop65 ``valid``, rune55 base names held out from training, chase ``val`` + ``test``) is
split: up to N photos teach (the photos with the most dice first, as an owner throws all
their dice; one per base name for rune55, whose rotated copies of one photo share a base
name; at most half of the base names), and the photos of the other base names are scored,
zero-shot and taught alike. The chase crops hold one die each: 48 of them (8 of each face)
teach, about as many dice as 14-16 photos of three. The teaching photos never come
from the training side, which the shipped classifier was trained on: on those dice it looks
better than any taught network can, and teaching would keep it on every real set.

Still, the shipped networks were trained on the other photos of the same dice and tray.
``python -m lab.evalteach --left-out RECIPE`` measures teaching as an owner with dice and a
tray no network ever saw meets it: each set is taught and read with the d6 networks of its
leave-one-source-out fold (``lab.loso``: trained and calibrated without any photo of it; the
fold folder of RECIPE under the LOSO cache), in a process of its own that reads them as the
shipped models (``DICETRAY_MODELS``). A fold with a second network beside it is read
with both, as the table reads a d6, only when its card's thresholds were set with that
network (``lab.loso.hears_second``); otherwise the set is not measured and its line
says why (read by the first network alone, it would measure another reader than the table's).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import cv2

from lab.evaluate import Tally, read_photos
from lab.labels import matteop65_die_side, read_label_rows, rune55_base, rune55_split
from lab.loso import CACHE, hears_second
from vision.classcard import second_path
from vision.classify import TURNS, FaceClassifier
from vision.dicesets import DiceSet, load
from vision.onnx import MODELS_DIR, MODELS_ENV

KINDS = ("zero_shot", "taught")  # how each set is read: untaught, then taught
TEACH_PHOTOS = {
    "matteop65_webcam": 20,
    "PXL_phone": 14,
    "numeric_tube": 20,
    "IMG_phone": 8,
    "i_single": 20,
    "randomid_single": 20,
    "chase_casino_crops": 48,
}


def covering(by, files, n: int, per_face: int = 3) -> list[str]:
    """Up to ``n`` of ``files`` (in order) chosen as an owner would photograph their dice:
    first photos showing faces seen fewer than ``per_face`` times, then the next ones."""
    seen: dict[str, int] = defaultdict(int)
    chosen = []
    for f in files:
        if len(chosen) < n and any(seen[r["value"]] < per_face for r in by[f]):
            chosen.append(f)
            for r in by[f]:
                seen[r["value"]] += 1
    for f in files:
        if len(chosen) >= n:
            break
        if f not in chosen:
            chosen.append(f)
    return chosen


def _group(f: str) -> str:
    """The photo a file shows: rune55's rotated copies share a base name (the i_single
    photos all share the base "i": each file is its own)."""
    base = rune55_base(f)
    return f if len(base) <= 2 else base


def split_held(by, held: list[str], n: int) -> tuple[list[str], list[str]]:
    """(teach, score) files of a set's held-out ``held`` files: up to ``n`` to teach, one per
    photo and at most half of the photos, chosen by :func:`covering` among the photos with
    the most dice first (an owner throws all their dice); scored: the files of the photos
    not taught."""
    one_each, seen = [], set()
    for f in sorted(held, key=lambda f: (-len(by[f]), f)):
        if _group(f) not in seen:
            one_each.append(f)
            seen.add(_group(f))
    teach = covering(by, one_each, min(n, len(one_each) // 2))
    taught = {_group(f) for f in teach}
    return teach, sorted(f for f in held if _group(f) not in taught)


def real_setups(realdice: Path):
    """(name, rows by file, images folder, teach files, test files, box fix) per real setup.
    Teach and test files are both from the set's held-out side (see the module's text)."""
    m = realdice / "matteop65_webcam"
    if (m / "labels.csv").exists():
        by = defaultdict(list)
        for r in read_label_rows(m / "labels.csv"):
            by[r["file"]].append(r)
        held = sorted(f for f in by if by[f][0]["split"] != "train")
        yield (
            "matteop65_webcam",
            by,
            m / "images",
            *split_held(by, held, TEACH_PHOTOS["matteop65_webcam"]),
            True,
        )
    r55 = realdice / "rune55_gray"
    if (r55 / "labels.csv").exists():
        sources = defaultdict(lambda: defaultdict(list))
        for r in read_label_rows(r55 / "labels.csv"):
            sources[r["source"]][r["file"]].append(r)
        for source, by in sorted(sources.items()):
            held = sorted(f for f in by if rune55_split(f) != "train")
            yield (
                f"rune55_gray/{source}",
                by,
                r55 / "images",
                *split_held(by, held, TEACH_PHOTOS.get(source, 14)),
                False,
            )
    c = realdice / "chase_casino_crops"
    if (c / "labels.csv").exists():
        by = defaultdict(list)
        for r in read_label_rows(c / "labels.csv"):
            by[r["file"]].append(r)
        held = sorted(f for f in by if by[f][0]["split"] != "train")
        # a few of each face, as an owner would photograph them
        per_face, teach = defaultdict(int), []
        want = TEACH_PHOTOS["chase_casino_crops"] // 6
        for f in held:
            v = by[f][0]["value"]
            if per_face[v] < want:
                per_face[v] += 1
                teach.append(f)
        test = [f for f in held if f not in set(teach)]
        yield "chase_casino_crops", by, c / "images", teach, test, False


def _labels(rows, pip_boxes: bool) -> list[dict]:
    out = []
    for r in rows:
        x, y, w, h = (float(r[k]) for k in ("x", "y", "w", "h"))
        if pip_boxes:  # matteop65 boxes cover the pip pattern: the die around it
            s = matteop65_die_side(w, h, int(r["value"]))
            x, y, w, h = x + w / 2 - s / 2, y + h / 2 - s / 2, s, s
        out.append({"x": x, "y": y, "w": w, "h": h, "die": "d6", "face": r["value"]})
    return out


def write_folder(out: Path, by, images: Path, files, pip_boxes: bool) -> Path:
    """A labelled folder (images/ + labels.csv) of ``files``."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    with open(out / "labels.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "split", "x", "y", "w", "h", "value", "die"])
        for f in files:
            shutil.copy(images / f, out / "images" / f)
            for lab in _labels(by[f], pip_boxes):
                w.writerow(
                    [
                        f,
                        "teach",
                        round(lab["x"], 1),
                        round(lab["y"], 1),
                        round(lab["w"], 1),
                        round(lab["h"], 1),
                        lab["face"],
                        "d6",
                    ]
                )
    return out


def _score(by, images: Path, files, pip_boxes: bool, taught, crops: bool) -> dict:
    from vision.pipeline import Recognizer

    ds = load("d6")
    tally = Tally()
    if crops:
        clf = FaceClassifier(ds, taught=taught)
        for f in files:
            img = cv2.imread(str(images / f))
            if img is None:
                continue
            lab = _labels(by[f], False)[0]
            r = clf.classify([clf.crop(img, (lab["x"], lab["y"], lab["w"], lab["h"]))], TURNS)[0]
            tally.add_crop(("d6", lab["face"]), r)
    else:
        rec = Recognizer(ds, taught=taught)
        for f in files:
            img = cv2.imread(str(images / f))
            if img is None:
                continue
            rec.reset()
            tally.add(_labels(by[f], pip_boxes), rec.read(img, fine=True).dice)
    fig = tally.figures()
    fig.pop("confusion")
    return fig


def score_folder(photos, set_id: str | DiceSet, taught) -> dict:
    """A labelled folder's photos (``vision.labelled.read_folder``) read as photos are read."""
    return read_photos(set_id, photos, taught=taught)


def run(realdice: Path, only: list[str] | None = None, progress=None, deep: bool = False) -> dict:
    """{setup: {"teach_photos", "test_photos", "zero_shot": figures, "taught": figures}}:
    taught by the table's own teaching (``vision.teach``) or, ``deep``, by torch
    fine-tuning (``lab.teach``)."""
    if deep:
        from lab.teach import TeachError, teach
    else:
        from vision.teach import TeachError, teach

    out = {}
    setups = [s for s in real_setups(realdice) if not only or any(o in s[0] for o in only)]
    for i, (name, by, images, teach_files, test_files, pip) in enumerate(setups):
        crops = name == "chase_casino_crops"
        with tempfile.TemporaryDirectory() as tmp:
            folder = write_folder(Path(tmp) / "photos", by, images, teach_files, pip)
            try:
                record = teach(folder, "d6", Path(tmp) / "taught")
            except TeachError as exc:  # its teaching photos cannot teach: say why
                out[name] = {
                    "teach_photos": len(teach_files),
                    "test_photos": len(test_files),
                    "not_taught": str(exc),
                    "zero_shot": _score(by, images, test_files, pip, None, crops),
                }
                if progress:
                    progress(name, i + 1, len(setups))
                continue
            out[name] = {
                "teach_photos": len(teach_files),
                "test_photos": len(test_files),
                "teach_seconds": record["seconds"],
                "zero_shot": _score(by, images, test_files, pip, None, crops),
                "taught": _score(by, images, test_files, pip, Path(tmp) / "taught", crops),
                "taught_own_heldout": record["heldout"],
            }
        if progress:
            progress(name, i + 1, len(setups))
    return out


def left_out_models(fold: Path, into: Path) -> Path:
    """A models folder ``into`` holding the shipped models, the d6 classifier files of a
    leave-one-source-out ``fold`` in place of the shipped ones (links, not copies)."""
    into.mkdir(parents=True, exist_ok=True)
    theirs = {f.name: f for f in fold.iterdir() if f.name.startswith("classifier-d6")}
    ours = {f.name: f for f in MODELS_DIR.iterdir() if not f.name.startswith("classifier-d6")}
    for name, f in {**ours, **theirs}.items():
        (into / name).symlink_to(f.resolve())
    return into


def unheard_second(fold: Path) -> str | None:
    """Why the second d6 network beside ``fold``'s first would not be heard (its card's
    thresholds were not set with it: ``lab.loso.with_second`` copied the first network's card
    and no calibration followed), or None (heard, or no second network there)."""
    if not second_path("d6", fold).is_file() or hears_second(fold):
        return None
    return (
        f"the card of fold {fold.name} was not calibrated with the second network beside it, "
        "so the table would not hear that network: calibrate the folds (python -m lab.loso "
        "--reuse --second RECIPE)"
    )


def run_left_out(realdice: Path, folds: Path, only: list[str] | None = None, progress=None):
    """:func:`run`'s report, each set taught and read with the networks of its fold under
    ``folds`` (a LOSO recipe's folder: one folder per source), in a process of its own; a set
    without a fold is left out, one whose fold would not hear its second network
    (:func:`unheard_second`) is not measured and says why."""
    out = {}
    setups = [s[0] for s in real_setups(realdice) if not only or any(o in s[0] for o in only)]
    for i, name in enumerate(setups):
        fold = folds / name.split("/")[-1]
        has_fold = (fold / "classifier-d6.onnx").is_file()
        unheard = unheard_second(fold) if has_fold else None
        if unheard:
            out[name] = {"teach_photos": 0, "test_photos": 0, "not_taught": unheard}
        elif has_fold:
            with tempfile.TemporaryDirectory() as tmp:
                env = {**os.environ, MODELS_ENV: str(left_out_models(fold, Path(tmp)))}
                cmd = [sys.executable, "-m", "lab.evalteach", "--realdice", str(realdice)]
                cmd += ["--only", name, "--json"]
                done = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if done.returncode == 0:
                out |= json.loads(done.stdout)
            else:  # one line says why; the other sets are still measured
                why = (done.stderr.strip().splitlines() or ["no output"])[-1]
                out[name] = {"teach_photos": 0, "test_photos": 0, "not_taught": why}
        if progress:
            progress(name, i + 1, len(setups))
    return out


def format_lines(report: dict) -> list[str]:
    lines = [
        (
            "Real sets, zero-shot vs taught (taught with a few photos of the set, scored on "
            "its others):"
        ),
        (
            f"{'set':<28} {'teach':>5} {'test':>5}  {'':9} {'found':>7} {'right':>7} "
            f"{'abst.':>7} {'wrong':>7}"
        ),
    ]
    for name, r in report.items():
        rows = [(kind, r[kind]) for kind in KINDS if kind in r]
        for i, (kind, f) in enumerate(rows):
            first = i == 0
            lines.append(
                f"{name if first else '':<28} {r['teach_photos'] if first else '':>5} "
                f"{r['test_photos'] if first else '':>5}  {kind:9} "
                f"{f['recall']:7.1%} {f['face_accuracy']:7.1%} {f['abstained']:7.1%} "
                f"{f['wrong']:7.2%}"
            )
        if "taught" not in r:  # one line says why
            lines.append(
                f"{'' if rows else name:<28} {'':>5} {'':>5}  not taught: "
                f"{r.get('not_taught', 'no figures')}"
            )
    return lines + _total_lines(report)


def _total_lines(report: dict) -> list[str]:
    """The taught sets summed, read zero-shot and taught: dice found, read right and wrong.

    >>> f = {"matched": 50, "face_accuracy": 0.8, "wrong_count": 1}
    >>> _total_lines({"a": {"zero_shot": f, "taught": f}, "b": {"zero_shot": f}})[1].split()
    ['taught', '50', 'found,', '40', 'right', '(80.0%),', '1', 'wrong']
    """
    both = [r for r in report.values() if all("matched" in r.get(k, {}) for k in KINDS)]
    if not both:
        return []
    lines = []
    for kind in KINDS:
        found = sum(r[kind]["matched"] for r in both)
        right = sum(round(r[kind]["face_accuracy"] * r[kind]["matched"]) for r in both)
        wrong = sum(r[kind]["wrong_count"] for r in both)
        lines.append(
            f"{'the taught sets' if kind == KINDS[0] else '':<28} {'':>5} {'':>5}  {kind:9} "
            f"{found:>5} found, {right} right ({right / max(found, 1):.1%}), {wrong} wrong"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    """``python -m lab.evalteach [--left-out RECIPE] [--only SET ...] [--json]``."""
    import argparse

    from lab.labels import REALDICE_DIR

    p = argparse.ArgumentParser(prog="python -m lab.evalteach", description=__doc__)
    p.add_argument("--realdice", default=str(REALDICE_DIR), help="the real photo sets")
    p.add_argument("--left-out", metavar="RECIPE", help="teach with the LOSO folds of RECIPE")
    p.add_argument("--only", nargs="*", help="sets whose name holds one of these")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    args = p.parse_args(argv)
    realdice = Path(args.realdice)
    if not realdice.is_dir():
        print(f"no real photo sets at {realdice}", file=sys.stderr)
        return 2
    if args.left_out:
        folds = CACHE / "folds" / args.left_out
        if not folds.is_dir():
            print(f"no folds at {folds}: run python -m lab.loso first", file=sys.stderr)
            return 2
        report = run_left_out(realdice, folds, args.only)
    else:
        report = run(realdice, args.only)
    print(json.dumps(report, indent=1) if args.json else "\n".join(format_lines(report)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
