"""Thresholds that hold for a print never trained on: floors set on dice printed further from
the fonts than training bends them.

Calibration (``lab.calibrate``) sets a classifier's thresholds on held-out dice of the looks it
trained on. A typeface it never saw is another matter: at thresholds so set, Rollers dice with
digits in the held-out Times italic were read 3% wrong. So the thresholds of the sets whose
faces carry print (``SETS``) are also held to the same bound (``vision.risk.choose``) on dice
printed in a ``hardware.sim.looks.far_look``: a training font with its glyphs bent 1.1-1.6 x
as far as any training look bends them, narrower or wider than any, its stars and zaps bent
too. Neither training nor the held-out "other style" of the card's figures draws such a print,
so the floors are set on neither. The least threshold at which the bound holds on them is a
floor under what calibration sets, one for each way the table reads (``lab.unseen.KEYS`` but
the two-network reads): once, at four turns, and both for dice of ``MIN_READ_PX`` to
``SMALL_PX``.

The floors belong to the network that read the far prints, so its card keeps them with its
SHA-256 (``far_print``) and calibrating another network drops them
(``lab.calibrate.far_print_floors``). ``lab.train`` sets them for each network of these sets
it trains (``--far-scenes``); this command sets them, and then the thresholds, afresh:

    python -m lab.farprint --sets rollers tally-up --models DIR
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lab.calibrate import SMALL_SCENES, counted_pips, recalibrate, turn_outputs
from lab.trainset import Crops, make_rendered
from lab.unseen import Answers, floors, format_floors

SETS = ("rollers", "tally-up")
SCENES = 500  # scenes of dice of every size, and as many of small dice only
SEED = 4242  # not training's seeds, calibration's (seed + 7919) nor the card's (777000000)
GROUP = "far print"


def far_crops(
    set_id: str, size: int, scenes: int = SCENES, seed: int = SEED, workers: int = 2
) -> Crops:
    """Dice of ``scenes`` rendered scenes printed in far looks, and of ``scenes`` more of
    small dice only, cut as calibration cuts them (``lab.trainset.make_rendered``), ``size``
    px square."""
    from vision.pipeline import MIN_READ_PX, SMALL_PX

    parts = []
    for n, die_px, at, group in (
        (scenes, None, seed, GROUP),
        (scenes, (MIN_READ_PX, SMALL_PX), seed + 1, SMALL_SCENES),
    ):
        made = make_rendered(set_id, n, at, workers, size, die_px=die_px, far_print=True)
        if made is not None:
            x, d, f, side = made
            parts.append(Crops(x, d, f, [group] * len(x), side, [""] * len(x)))
    return Crops.join(parts)


def far_floors(
    set_id: str, models_dir: Path, scenes: int = SCENES, seed: int = SEED, workers: int = 2
) -> dict:
    """The floors (``lab.unseen.floors``' parts: once, turned, small_once, small_turned) at
    which the network in ``models_dir`` reads the dice of :func:`far_crops` within the
    bound, with the network's SHA-256 and the scenes and seed."""
    from vision.classify import FaceClassifier
    from vision.dicesets import load
    from vision.onnx import file_sha256

    clf = FaceClassifier(load(set_id), models_dir=models_dir, second=False)
    crops = far_crops(set_id, clf.input_size, scenes, seed, workers)
    dice = crops.take(crops.die >= 0)
    ans = Answers(dice, turn_outputs(clf, dice.x), None, counted_pips(dice.x))
    got = floors(ans, ans, per_source=None, set_id=set_id)
    return {"sha256": file_sha256(clf.model_path), "scenes": scenes, "seed": seed, **got}


def main(argv: list[str] | None = None) -> int:
    from lab.labels import REALDICE_DIR
    from vision.classcard import MODELS_DIR

    p = argparse.ArgumentParser(
        prog="python -m lab.farprint",
        description="set floors on far prints, then the thresholds afresh over them",
    )
    p.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    p.add_argument("--models", default=str(MODELS_DIR), help="the folder of the networks")
    p.add_argument("--scenes", type=int, default=SCENES)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=1, help="calibration's seed (lab.train --seed)")
    p.add_argument("--holdout", type=int, default=4000, help="as lab.train --holdout")
    p.add_argument("--holdout-scenes", type=int, default=500, help="as lab.train's")
    args = p.parse_args(argv)
    for set_id in args.sets:
        fl = far_floors(set_id, Path(args.models), args.scenes, SEED, args.workers)
        print(f"[{set_id}] floors on far prints:\n{format_floors(fl)}")
        cal = argparse.Namespace(
            out=args.models,
            holdout=args.holdout,
            holdout_scenes=args.holdout_scenes,
            seed=args.seed,
            workers=args.workers,
            realdice=str(REALDICE_DIR),
        )
        recalibrate(set_id, cal, far_print=fl)
    return 0


if __name__ == "__main__":
    sys.exit(main())
