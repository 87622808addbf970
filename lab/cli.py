"""Command lines of the workshop: ``dicetray eval`` and ``dicetray bench``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lab.labels import REALDICE_DIR
from vision.dicesets import SET_IDS

DEFAULT_REALDICE = REALDICE_DIR


def main_eval(argv: list[str]) -> int:
    """``dicetray eval``: accuracy figures on rendered held-out scenes and real photos."""
    from lab import evaluate

    if "--card" in argv:  # the model card's tables: its own options (python -m lab.card --help)
        from lab import card

        return card.main([a for a in argv if a != "--card"])
    if "--loso" in argv:  # leave-one-source-out: its own options (python -m lab.loso --help)
        from lab import loso

        return loso.main([a for a in argv if a != "--loso"])
    p = argparse.ArgumentParser(
        prog="dicetray eval",
        description=evaluate.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--sets", nargs="+", default=list(SET_IDS), choices=SET_IDS)
    p.add_argument(
        "--n",
        "--scenes",
        dest="scenes",
        type=int,
        default=150,
        help="rendered held-out scenes per dice set (default 150)",
    )
    p.add_argument("--throws", type=int, default=20, help="rendered throws per dice set")
    p.add_argument("--realdice", default=str(DEFAULT_REALDICE))
    p.add_argument("--no-real", action="store_true", help="skip the real photo sets")
    p.add_argument(
        "--real-only",
        action="store_true",
        help="only the real photo sets (no rendered scenes or throws)",
    )
    p.add_argument(
        "--no-teach",
        action="store_true",
        help="skip teaching each real set with a few of its photos (the taught "
        "figures: minutes per set)",
    )
    p.add_argument(
        "--photos",
        metavar="FOLDER",
        default=None,
        help="only score this labelled photo folder (images/ + labels.csv), "
        "zero-shot and, with --taught, taught",
    )
    p.add_argument(
        "--dice-set",
        default=None,
        help="the dice set of --photos (default: the first of d6, tally-up, "
        "toss-up, rollers that has every face and die its labels name)",
    )
    p.add_argument(
        "--taught",
        metavar="DIR",
        default=None,
        help="a taught folder (dicetray teach) to score --photos with",
    )
    p.add_argument(
        "--loso",
        action="store_true",
        help="leave-one-source-out figures of the d6 reader instead (trains a classifier "
        "per real source; its options: python -m lab.loso --help)",
    )
    p.add_argument(
        "--card",
        action="store_true",
        help="measure the model card's figures and rewrite its tables (models/README.md, "
        "models/figures.json; its options: python -m lab.card --help)",
    )
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.photos or args.taught:
        return _eval_folder(args)
    if args.scenes < 1 or args.throws < 0:
        p.error("--n needs at least 1 scene and --throws 0 or more")
    if (
        not args.no_real
        and args.realdice != str(DEFAULT_REALDICE)
        and not Path(args.realdice).is_dir()
    ):
        p.error(
            f"--realdice {args.realdice}: no such folder: give the folder of the real "
            "photo sets, or --no-real"
        )
    if args.real_only and args.no_real:
        p.error("--real-only and --no-real leave nothing to measure")
    report = evaluate.run(
        [] if args.real_only else args.sets,
        args.scenes,
        0 if args.real_only else args.throws,
        None if args.no_real else Path(args.realdice),
    )
    realdice = Path(args.realdice)
    if not args.no_real and realdice.exists():
        from lab import evalteach, othersets

        # labelled folders beside the three known sets (or --realdice itself): read as they are
        other = othersets.zero_shot(realdice)
        for key in ("real", "real_camera_path", "real_crops", "skipped"):
            report.setdefault(key, {}).update(other[key])
        if not args.no_teach:
            with _bar("teaching real sets") as progress:
                report["real_taught"] = evalteach.run(realdice, progress=progress)
                report["real_taught"].update(othersets.taught(realdice, progress=progress))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(evaluate.format_report(report))
        if report.get("real_taught"):
            from lab import evalteach

            print("\n".join(["", *evalteach.format_lines(report["real_taught"])]))
    return 0


class _bar:
    """A tqdm progress bar on the terminal (stderr) fed by ``progress(stage, done, total)``."""

    def __init__(self, desc: str):
        from tqdm import tqdm

        self.bar = tqdm(total=1, desc=desc, file=sys.stderr, disable=None, leave=False)

    def __enter__(self):
        def progress(stage: str, done: int, total: int) -> None:
            self.bar.total = total
            self.bar.n = done
            self.bar.set_postfix_str(stage)
            self.bar.refresh()

        return progress

    def __exit__(self, *exc):
        self.bar.close()


def _eval_folder(args) -> int:
    """``dicetray eval --photos FOLDER [--taught DIR]``: an owner's own labelled photos read
    as photos are read, zero-shot and taught."""
    from lab import evalteach
    from lab.othersets import read_set
    from vision.dicesets import DiceSetError
    from vision.labelled import LabelError, read_folder
    from vision.taught import TaughtError, TaughtModel

    if not args.photos:
        print(
            "dicetray eval: --taught needs --photos FOLDER (labelled photos it was not "
            "taught with) to score it on",
            file=sys.stderr,
        )
        return 2
    try:
        # the dice set: --dice-set, else the taught folder's, else the one its labels fit
        dice_set = args.dice_set
        if dice_set is None and args.taught:
            dice_set = TaughtModel.load(args.taught).dice_set
        if dice_set is None:
            dice_set, photos = read_set(Path(args.photos))
        else:
            photos = read_folder(args.photos, dice_set)
        set_id = _set_id(dice_set)
        taught = TaughtModel.load(args.taught, set_id) if args.taught else None
    except (LabelError, DiceSetError, TaughtError) as exc:
        print(f"dicetray eval: {exc}", file=sys.stderr)
        return 2
    report = {
        "photos": args.photos,
        "dice_set": set_id,
        "zero_shot": evalteach.score_folder(photos, dice_set, None),
    }
    if taught is not None:
        report["taught"] = evalteach.score_folder(photos, dice_set, taught)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for kind in ("zero_shot", "taught"):
            if kind in report:
                f = report[kind]
                print(
                    f"{kind:9} dice {f['labelled']}: found {f['recall']:.1%}, face right "
                    f"{f['face_accuracy']:.1%}, abstained {f['abstained']:.1%}, wrong "
                    f"{f['wrong']:.2%} ({f['wrong_count']})"
                )
    return 0


def _set_id(name: str) -> str:
    from vision.dicesets import load

    return load(name).id


def main_bench(argv: list[str]) -> int:
    """``dicetray bench``: pipeline milliseconds per frame and classifier ms per die."""
    from lab import bench, teachbench
    from vision.taught import TaughtError

    p = argparse.ArgumentParser(prog="dicetray bench", description=bench.__doc__)
    p.add_argument("--dice-set", default="d6", choices=SET_IDS)
    p.add_argument("--frames", type=int, default=60, help="frames timed per dice count")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--teach",
        action="store_true",
        help="time teaching instead (lab.teachbench: an owner's set with a star on "
        "the 6, taught from --photos photos, scored on fresh ones; needs "
        "the train extra)",
    )
    p.add_argument(
        "--photos",
        type=int,
        default=None,
        help="teaching photos for --teach (default: the case's, 14 to 25)",
    )
    p.add_argument(
        "--case",
        default="owner-d6",
        choices=tuple(teachbench.CASES),
        help="--teach: an owner's d6 with a star on the 6 (20 photos, 30 fresh), "
        "Rollers dice with digits (20, 30), 12 MP phone photos of 24 "
        "see-through d6 with a bolt on the 6 (14, 6), or an everyday mixed "
        "collection of d6 in seven colourways (25, 25)",
    )
    p.add_argument(
        "--photo-seed",
        type=int,
        default=teachbench.PHOTO_SEED,
        help="--teach: the seed of the teaching photos (the fresh ones': "
        f"{teachbench.FRESH_OFFSET} more; default {teachbench.PHOTO_SEED})",
    )
    p.add_argument(
        "--played",
        type=int,
        default=None,
        metavar="ROLLS",
        help="time teaching from play (implies --teach): ROLLS rolls read by the shipped "
        "models, the ones players would correct kept and taught from (owner-d6, "
        "rollers-digits)",
    )
    p.add_argument(
        "--taught",
        default=None,
        metavar="DIR",
        help="time the pipeline reading with this taught folder (dicetray teach)",
    )
    args = p.parse_args(argv)
    if args.played is not None:  # teaching from play
        with _bar("playing") as progress:
            try:
                result = teachbench.run_played(
                    args.played,
                    args.case,
                    photo_seed=args.photo_seed,
                    progress=progress,
                )
            except (ValueError, RuntimeError) as exc:
                print(f"dicetray bench: {exc}", file=sys.stderr)
                return 2
        print(json.dumps(result) if args.json else teachbench.format_played(result))
        return 0
    if args.teach:
        from lab.teach import TeachError

        with _bar("teaching") as progress:
            try:
                result = teachbench.run(
                    args.photos, progress=progress, case=args.case, photo_seed=args.photo_seed
                )
            except TeachError as exc:
                print(f"dicetray bench: {exc}", file=sys.stderr)
                return 2
        print(json.dumps(result) if args.json else teachbench.format_result(result))
        return 0
    try:
        result = bench.run(args.dice_set, args.frames, taught=args.taught)
    except TaughtError as exc:
        print(f"dicetray bench: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result))
    else:
        print(bench.format_result(result))
    return 0
