"""How the crop's margin moves the reads of dice a network never saw: ``python -m lab.margins``.

The classifiers read a square of 1.35 times the die's box (``vision.crops.cut_crop``). A real
source's boxes are its labels' (and the shipped detector's, which learnt them): matteop65's
are 2.2 times its pip box, about 1.3 times the die, so its dice fill less of the crop than a
rendered die does in its exact box. This reads every labelled box of each left-out source
with the networks of its leave-one-source-out fold (``lab.loso``, in ``--cache``), at four
turns, cut at other margins, and at two margins together (each turn's answers the mean over
the two crops); with ``--second``, each turn the mean of the two networks' answers, as the
table reads d6 at four turns. No pips, no thresholds: per source and way of cutting, the
share of dice whose best guess is right and the *ceiling* (right and surer than every wrong
one, ``lab.loso.Guesses``): what a threshold could read.

    python -m lab.margins --cache DIR --second lite0-plain-e3-c2-r6000-s1-x96
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from lab.labels import REALDICE_DIR
from lab.loso import CACHE, SET_ID, Guesses, labelled_dice
from lab.splits import SOURCES

FIRST = "plain-e2-c2-r6000-s1"  # the fold recipe of the first network, as the card's rows
# ways of cutting a die: margins (times the box's longer side), read together when several
WAYS = {
    "1.35 (shipped)": (1.35,),
    "1.2": (1.2,),
    "1.6": (1.6,),
    "1.2 and 1.35": (1.2, 1.35),
}
SIZE = 64


def turned_answers(sessions, crop: np.ndarray) -> np.ndarray:
    """Each network's face answers (without ``none``) of one crop, the mean of four turns:
    networks x faces."""
    from vision.crops import to_input

    x = to_input(crop[None])
    x = np.ascontiguousarray(np.concatenate([np.rot90(x, k, (2, 3)) for k in range(4)]))
    return np.stack(
        [s.run(["face_prob"], {s.get_inputs()[0].name: x})[0].mean(0) for s in sessions]
    )[:, :-1]


def score_source(realdice: Path, source: str, nets: list[Path]) -> dict:
    """{way: Guesses figures} of one left-out source read by its fold's networks ``nets``:
    each crop's answers the mean over its turns, a way's the mean over its crops, then over
    the networks."""
    from vision.crops import cut_crop
    from vision.onnx import open_session

    sessions = [open_session(p) for p in nets]
    faces = [str(f) for f in range(1, 7)]
    margins = sorted({m for ms in WAYS.values() for m in ms})
    guesses = {way: Guesses([], []) for way in WAYS}
    for img, box, face in labelled_dice(realdice, source):
        read = {m: turned_answers(sessions, cut_crop(img, box, SIZE, m)) for m in margins}
        for way, ms in WAYS.items():
            p = np.mean([read[m] for m in ms], axis=0).mean(0)
            k = int(np.argmax(p))
            guesses[way].add(float(p[k]), faces[k] == face)
    return {way: g.figures() | {"dice": len(g.sure)} for way, g in guesses.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m lab.margins", description=__doc__.split("\n")[0])
    p.add_argument("--cache", type=Path, default=CACHE, help="lab.loso's cache (its folds)")
    p.add_argument("--realdice", type=Path, default=REALDICE_DIR)
    p.add_argument("--first", default=FIRST, help="the fold recipe of the first network")
    p.add_argument("--second", default=None, help="a fold recipe read with it (their mean)")
    p.add_argument("--sources", nargs="+", default=None, choices=SOURCES)
    a = p.parse_args(argv)
    recipes = [a.first] + ([a.second] if a.second else [])
    print(f"{'left out':20} {'dice':>5}  " + "  ".join(f"{w:>16}" for w in WAYS))
    print(f"{'':20} {'':>5}  " + "  ".join(f"{'best / ceiling':>16}" for _ in WAYS))
    done = 0
    for source in a.sources or SOURCES:
        nets = [a.cache / "folds" / r / source / f"classifier-{SET_ID}.onnx" for r in recipes]
        if not all(n.is_file() for n in nets):
            print(f"{source:20} no fold of {' and '.join(recipes)} in {a.cache}", file=sys.stderr)
            continue
        figs = score_source(a.realdice, source, nets)
        dice = next(iter(figs.values()))["dice"]
        cells = "  ".join(
            f"{100 * f['best_guess']:7.1f} / {100 * f['ceiling']:5.1f}" for f in figs.values()
        )
        print(f"{source:20} {dice:5d}  {cells}", flush=True)
        done += 1
    return 0 if done else 2


if __name__ == "__main__":
    raise SystemExit(main())
