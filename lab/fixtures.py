"""Recorded throw sequences for the tests: ``python -m lab.fixtures`` (re)writes them.

Each sequence is a folder ``fixtures/throws/<name>/`` of JPEG frames ``0000.jpg``... and an
``expected.json``::

    {"dice_set": "tally-up", "fps": 30, "frames": 52,
     "throws": [{"dice": ["red:star", ...], "rest_from": 12, "rest_to": 17}, ...],
     "note": "..."}

``rest_from``/``rest_to`` are the first and last frame index of the dice at rest; a replay
must give exactly one settled roll per throw, with those dice, within 5 frames of
``rest_from`` (for the ``hand-over-dice`` sequence: within 5 frames of the hand leaving).
Frames are rendered (hardware.sim.render) from fixed seeds, so they can be made again, but the
tests read the committed files: they are the recording.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import cv2
import numpy as np

from hardware.sim.render import compose, place_dice, random_hand, render_throw
from hardware.sim.styles import Style, random_style
from vision.dicesets import load

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "throws"
QUALITY = 70

SEQUENCES = {
    "d6": ("d6", [[("d6", "6"), ("d6", "1")], [("d6", "3"), ("d6", "3")]]),
    "tally-up": (
        "tally-up",
        [[("red", "star"), ("blue", "100"), ("green", "(150)")], [("up", "x2")]],
    ),
    "toss-up": (
        "toss-up",
        [
            [
                ("toss", "green"),
                ("toss", "yellow"),
                ("toss", "red"),
                ("toss", "green"),
                ("toss", "green"),
            ],
            [("toss", "red"), ("toss", "yellow")],
        ],
    ),
    "rollers": (
        "rollers",
        [
            [
                ("wild", "star"),
                ("wild", "2"),
                ("wild", "2"),
                ("wild", "5"),
                ("wild", "1"),
                ("black", "zap"),
            ],
            [("wild", "4"), ("black", "3")],
        ],
    ),
}


def _style(rng) -> Style:
    # a clear, typical tray look (the eval covers the hard ones): medium dice, no JPEG twice
    s = random_style(rng, die_px=(46.0, 58.0))
    return Style(
        **{
            **s.__dict__,
            "jpeg": 0,
            "blur": 0.0,
            "noise": min(s.noise, 4.0),
            "exposure": float(np.clip(s.exposure, 0.9, 1.1)),
            "tilt": min(s.tilt, 0.05),
            "glare": min(s.glare, 0.3),
        }
    )


def make_throws(name: str, set_id: str, throws, seed: int, out: Path) -> dict:
    ds = load(set_id)
    rng = np.random.default_rng(seed)
    style = _style(rng)
    folder = out / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    i = 0
    expected = []
    for dice in throws:
        rest = []
        for frame, truth in render_throw(
            ds, dice, rng, style=style, rest_frames=8, move_frames=8, empty_frames=2, hand_frames=4
        ):
            cv2.imwrite(str(folder / f"{i:04d}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
            if truth["phase"] == "rest":
                rest.append(i)
            i += 1
        expected.append(
            {"dice": [f"{d}:{f}" for d, f in dice], "rest_from": rest[0], "rest_to": rest[-1]}
        )
    meta = {
        "dice_set": set_id,
        "fps": 30,
        "frames": i,
        "throws": expected,
        "note": f"rendered by lab.fixtures with seed {seed}",
    }
    (folder / "expected.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def make_hand_over_dice(out: Path, seed: int = 4242) -> dict:
    """Dice at rest with a hand held over the tray: no roll until the hand has left."""
    ds = load("d6")
    rng = np.random.default_rng(seed)
    style = _style(rng)
    folder = out / "hand-over-dice"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    dice = [("d6", "5"), ("d6", "2")]
    poses = place_dice(ds, dice, rng, style)
    hand = random_hand(rng)
    hand["at"] = (320.0, 120.0) if poses[0].cy > 240 else (320.0, 360.0)
    frames = [None] * 2 + [hand] * 8 + [None] * 8
    for i, h in enumerate(frames):
        frame, _ = compose(ds, poses, rng, style, hand=h)
        cv2.imwrite(str(folder / f"{i:04d}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
    meta = {
        "dice_set": "d6",
        "fps": 30,
        "frames": len(frames),
        "throws": [
            {"dice": [f"{d}:{f}" for d, f in dice], "rest_from": 10, "rest_to": len(frames) - 1}
        ],
        "hand_frames": [2, 9],
        "note": "dice already still when a hand comes over them and stays 8 frames: "
        "no roll may be taken before the hand has gone (frame 10)",
    }
    (folder / "expected.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def _draw_coin(frame: np.ndarray, cx: int, cy: int, r: int) -> None:
    """A metal coin lying in the tray: soft shadow, shaded disc, rim and a worn relief."""
    shadow = np.zeros(frame.shape[:2], np.float32)
    cv2.circle(shadow, (cx + 3, cy + 4), r, 1.0, -1, cv2.LINE_AA)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 3)
    f = frame.astype(np.float32) * (1 - 0.4 * shadow)[..., None]
    disc = np.zeros(frame.shape[:2], np.float32)
    cv2.circle(disc, (cx, cy), r, 1.0, -1, cv2.LINE_AA)
    ys, xs = np.mgrid[0 : frame.shape[0], 0 : frame.shape[1]].astype(np.float32)
    shade = 150 + 60 * np.clip(((cx - xs) + (cy - ys)) / (2.0 * r), -1, 1)
    metal = np.stack([shade * 0.85, shade * 0.9, shade], axis=2)
    f = f * (1 - disc[..., None]) + metal * disc[..., None]
    out = np.clip(f, 0, 255).astype(np.uint8)
    cv2.circle(out, (cx, cy), r - 2, (120, 125, 135), 2, cv2.LINE_AA)
    cv2.circle(out, (cx, cy), int(r * 0.45), (135, 140, 150), 3, cv2.LINE_AA)
    frame[:] = out


def make_foreign_object(out: Path, seed: int = 5151) -> dict:
    """A throw of two d6 with a coin lying in the tray the whole time (no pick-up)."""
    ds = load("d6")
    rng = np.random.default_rng(seed)
    style = _style(rng)
    folder = out / "coin-in-tray"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    dice = [("d6", "4"), ("d6", "6")]
    seq = list(
        render_throw(
            ds, dice, rng, style=style, rest_frames=10, move_frames=8, empty_frames=2, hand=False
        )
    )
    rest = [t for _, t in seq if t["phase"] == "rest"]
    boxes = rest[0]["labels"]
    r = 22
    for _ in range(500):  # a place for the coin well away from the resting dice
        cx = int(rng.integers(style.rim + r + 8, 640 - style.rim - r - 8))
        cy = int(rng.integers(style.rim + r + 8, 480 - style.rim - r - 8))
        if all(
            cx + r + 15 < b["x"]
            or cx - r - 15 > b["x"] + b["w"]
            or cy + r + 15 < b["y"]
            or cy - r - 15 > b["y"] + b["h"]
            for b in boxes
        ):
            break
    else:
        raise RuntimeError("no room for the coin: change the seed")
    for i, (frame, _) in enumerate(seq):
        _draw_coin(frame, cx, cy, r)
        cv2.imwrite(str(folder / f"{i:04d}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
    rest_idx = [t["frame"] for _, t in seq if t["phase"] == "rest"]
    meta = {
        "dice_set": "d6",
        "fps": 30,
        "frames": len(seq),
        "throws": [
            {
                "dice": [f"{d}:{f}" for d, f in dice],
                "rest_from": rest_idx[0],
                "rest_to": rest_idx[-1],
            }
        ],
        "foreign": {"kind": "coin", "x": cx - r, "y": cy - r, "w": 2 * r, "h": 2 * r},
        "note": "a coin lies in the tray through the throw: the roll must hold the two "
        "dice read right; the coin may be found, but only as an unreadable die "
        "(face None), never read as a die face",
    }
    (folder / "expected.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def main(argv: list[str] | None = None) -> int:
    out = Path(argv[0]) if argv else FIXTURES
    for k, (name, (set_id, throws)) in enumerate(SEQUENCES.items()):
        meta = make_throws(name, set_id, throws, 1000 + k, out)
        print(f"{name}: {meta['frames']} frames, {len(meta['throws'])} throws")
    meta = make_hand_over_dice(out)
    print(f"hand-over-dice: {meta['frames']} frames")
    meta = make_foreign_object(out)
    print(f"coin-in-tray: {meta['frames']} frames")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
