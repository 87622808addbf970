"""Everyday d6 dice on a white tray: how the shipped d6 reader finds and reads colourways
its drawings rarely show (black dice with red or green pips, dark blue ones, dark see-through
ones), as photos or as camera frames.

Each colourway is a d6 set of its own (body and pip colours, ``COLOURWAYS``), drawn in the
classic style (a see-through body in the default print) on a white floor with the rim the
style gives, ``--scenes`` scenes of four rolled dice each, read as ``dicetray recognize``
reads a photo (``--camera``: as the table reads a camera frame); dice found, read right,
asked and read wrong (shares of the dice found) per colourway. Rendered, so a probe, not a
judge: real photos of such dice are what decides.

    python -m lab.everyday --scenes 25

    >>> [name for name, *_ in COLOURWAYS][:2]
    ['black, red pips', 'black, green pips']
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np

from lab.evaluate import Tally
from vision.dicesets import parse

# (name, body, pips, see-through: how much of the floor shows through the body, 0..0.7)
COLOURWAYS = (
    ("black, red pips", "#151515", "#d02020", 0.0),
    ("black, green pips", "#151515", "#20b040", 0.0),
    ("black, white pips", "#151515", "#f0f0f0", 0.0),
    ("dark blue, white pips", "#1a2a6a", "#f0f0f0", 0.0),
    ("see-through dark red", "#701818", "#f0f0f0", 0.5),
    ("see-through dark green", "#14502a", "#f0f0f0", 0.5),
    ("white, black pips", "#f2f0ea", "#151515", 0.0),
)


def colourway(body: str, pips: str):
    """A d6 set of five dice of one body and pip colour."""
    return parse(
        {
            "id": "d6",
            "name": f"d6, {body} with {pips} pips",
            "faces": {str(n): {"mark": "pips", "count": n} for n in range(1, 7)},
            "die": [
                {
                    "id": "d6",
                    "count": 5,
                    "body": body,
                    "ink": pips,
                    "faces": ["1", "2", "3", "4", "5", "6"],
                }
            ],
        }
    )


def measure(scenes: int, seed: int = 5, dice: int = 4, fine: bool = True) -> dict:
    """{colourway: figures (``lab.evaluate.Tally.figures``)} of ``scenes`` scenes each, read
    as photos (``fine``) or as camera frames (``lab.evaluate.read_photos``)."""
    from hardware.sim.looks import Look
    from hardware.sim.render import render_scene
    from hardware.sim.styles import FLOORS, random_style
    from vision.pipeline import Recognizer

    out = {}
    for name, body, pips, see in COLOURWAYS:
        ds = colourway(body, pips)
        rng = np.random.default_rng(seed)
        rec = Recognizer(ds)
        tally = Tally()
        for _ in range(scenes):
            style = replace(random_style(rng), floor="white", floor_bgr=FLOORS["white"])
            if see:
                style = replace(style, look=Look(translucent=see))
            faces = [("d6", str(int(rng.integers(1, 7)))) for _ in range(dice)]
            frame, labels = render_scene(ds, faces, rng, style=style)
            rec.reset()
            tally.add(labels, rec.read(frame, fine=fine).dice)
        out[name] = tally.figures()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m lab.everyday", description=__doc__.split("\n\n")[0])
    p.add_argument("--scenes", type=int, default=25, help="scenes a colourway (default 25)")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--camera", action="store_true", help="read as camera frames, not photos")
    args = p.parse_args(argv)
    if args.scenes < 1:
        print(f"--scenes {args.scenes}: at least 1")
        return 2
    print(
        f"{'colourway':<24} {'dice':>5} {'found':>7} {'right':>7} {'asked':>7} {'wrong':>11}"
        f" {'guess':>6}"
    )
    for name, f in measure(args.scenes, args.seed, fine=not args.camera).items():
        print(
            f"{name:<24} {f['labelled']:>5} {f['recall']:>7.1%} {f['face_accuracy']:>7.1%} "
            f"{f['abstained']:>7.1%} {f['wrong']:>6.2%} ({f['wrong_count']})"
            f" {f['asked_guess_right']:>6.1%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
