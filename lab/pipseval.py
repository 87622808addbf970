"""Figures of the geometric pip reader (``vision.pips``): ``python -m lab.pipseval``.

Per source of labelled d6 crops, cut as the table cuts them (``vision.crops.cut_crop``, 64 px,
margin 1.35): crops, coverage (share given a count), precision (count right when given), the
wrong counts, the crops it refused to count for a spot unlike the pips on a pip place
(``hidden``: ``vision.pips.HIDDEN``, a veto, counted neither given nor wrong), and the time
per crop (wall and CPU time of this process; the machine's load is printed with them, since
a loaded machine slows both). Crops without pips (other dice
sets' faces, the bare tray) are scored as well: there any count is wrong.

Which data set the reader's parameters and which judge it (column ``part``):

- ``tuned``: the ``train`` splits of matteop65, of each rune55 source (``lab.photos``
  ``rune55_split``, by photo) and of chase; rendered scenes of ``TUNE_SEED`` (the classic,
  the other and the wide drawing style, and faces without pips); bare trays of matteop65's
  first training photos (``lab.photos.real_backgrounds``). The parameters of
  ``vision/pips.py`` were chosen looking at these.
- ``held out``: matteop65's ``valid`` split, rune55's ``valid`` split of each source,
  chase's ``val`` and ``test`` splits, and rendered scenes of ``HELDOUT_SEED``. Not looked
  at while choosing parameters; the last line adds up the real ones. (Held out from the same
  photo sessions as their tuned part: figures for dice and cameras like those tuned on, not
  for a new setup.)

``--show DIR`` writes each source's wrong counts as a PNG contact sheet (crop, truth>read).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np

SIZE = 64
MARGIN = 1.35
TUNE_SEED = 5_150_000
HELDOUT_SEED = 5_990_000
TUNED, HELDOUT = "tuned", "held out"


def real_sources() -> Iterator[tuple[str, str, list[np.ndarray], list[int | None]]]:
    """(name, part, crops, counts) of the real photo sets, through ``lab.photos``."""
    from lab.labels import REALDICE_DIR
    from lab.photos import read_chase, read_matteop65, read_rune55

    if not REALDICE_DIR.is_dir():
        print(f"no real photos at {REALDICE_DIR}: real sources left out", file=sys.stderr)
        return
    m = read_matteop65(size=SIZE)
    for split, part in (("train", TUNED), ("valid", HELDOUT)):
        rows = [c for c in m if c.split == split]
        yield f"matteop65 {split}", part, [c.crop for c in rows], [c.value for c in rows]
    r = read_rune55(size=SIZE)
    for src in sorted({c.source for c in r}):
        for split, part in (("train", TUNED), ("valid", HELDOUT)):
            rows = [c for c in r if c.source == src and c.split == split]
            yield f"rune55 {src} {split}", part, [c.crop for c in rows], [c.value for c in rows]
    c = read_chase(size=SIZE)
    for name, part, splits in (
        ("train", TUNED, ("train",)),
        ("val+test", HELDOUT, ("valid", "test")),
    ):
        rows = [x for x in c if x.split in splits]
        yield f"chase {name}", part, [x.crop for x in rows], [x.value for x in rows]


STYLES = {
    "classic": "the classic drawing style (as dicetray eval's held-out scenes)",
    "other": "the other drawing style (dicetray eval's held-out other style)",
    "wide": "training's wide variety: dice of random colours, print looks (see-through bodies, "
    "logos on the 1, digits for pips), trays and lights",
}


def rendered_d6(
    scenes: int, seed: int, style: str = "classic", jitter: float = 0.06
) -> tuple[list[np.ndarray], list[int | None]]:
    """Crops of d6 dice in rendered scenes, rendered as ``lab.evaluate.eval_rendered`` renders
    them (1-10 dice a scene) in one of :data:`STYLES`, each box shifted and resized by up to
    ``jitter`` of its side as a detector's box would be."""
    from hardware.sim.looks import FAR_LIGHTS, digit_share, recoloured
    from hardware.sim.render import render_scene
    from hardware.sim.styles import other_style, random_style
    from lab.evaluate import _random_dice
    from vision.crops import cut_crop
    from vision.dicesets import load

    d6 = load("d6")
    rng = np.random.default_rng(seed + {"classic": 0, "other": 3000, "wide": 9000}[style])
    crops, counts = [], []
    for _ in range(scenes):
        ds = recoloured(d6, rng, k=4)[0] if style == "wide" else d6
        dice = _random_dice(ds, rng, int(rng.integers(1, 11)))
        if style == "wide":
            look = random_style(rng, wide=True, digits=digit_share("d6"), far_lights=FAR_LIGHTS)
        else:
            look = other_style(rng) if style == "other" else None
        try:
            frame, labels = render_scene(ds, dice, rng, style=look)
        except ValueError:
            continue
        for lab in labels:
            x, y, w, h = (float(lab[k]) for k in ("x", "y", "w", "h"))
            side = max(w, h)
            x += rng.uniform(-jitter, jitter) * side
            y += rng.uniform(-jitter, jitter) * side
            s = rng.uniform(1 - jitter, 1 + jitter)
            crops.append(cut_crop(frame, (x, y, w * s, h * s), SIZE, MARGIN))
            counts.append(int(lab["face"]))
    return crops, counts


def without_pips(scenes: int, seed: int) -> tuple[list[np.ndarray], list[int | None]]:
    """Crops where no count is right: Tally Up! and Toss Up! dice (stars, numbers, text,
    lights) in rendered scenes, and boxes on the bare tray of the same scenes."""
    from hardware.sim.render import render_scene
    from lab.evaluate import _random_dice
    from vision.crops import cut_crop
    from vision.dicesets import load

    rng = np.random.default_rng(seed + 7000)
    sets = [load("tally-up"), load("toss-up")]
    crops: list[np.ndarray] = []
    for k in range(scenes):
        ds = sets[k % len(sets)]
        dice = _random_dice(ds, rng, int(rng.integers(1, 7)))
        try:
            frame, labels = render_scene(ds, dice, rng)
        except ValueError:
            continue
        for lab in labels:
            crops.append(cut_crop(frame, (lab["x"], lab["y"], lab["w"], lab["h"]), SIZE, MARGIN))
        # two boxes of a die's size away from every die: the bare tray
        side = float(np.median([max(lab["w"], lab["h"]) for lab in labels]))
        for _ in range(2):
            cx, cy = rng.uniform(side, 640 - side), rng.uniform(side, 480 - side)
            if all(
                abs(cx - lab["x"] - lab["w"] / 2) > side or abs(cy - lab["y"] - lab["h"] / 2) > side
                for lab in labels
            ):
                crops.append(cut_crop_box(frame, cx, cy, side))
    return crops, [None] * len(crops)


def real_trays(limit: int = 20, per_photo: int = 6, seed: int = 0):
    """Crops of real bare trays (matteop65 photos with their dice painted out)."""
    from lab.photos import real_backgrounds

    rng = np.random.default_rng(seed)
    crops = []
    for img in real_backgrounds(limit=limit):
        h, w = img.shape[:2]
        for _ in range(per_photo):
            side = float(rng.uniform(30, 90))
            cx, cy = rng.uniform(side, w - side), rng.uniform(side, h - side)
            crops.append(cut_crop_box(img, cx, cy, side))
    return crops, [None] * len(crops)


def cut_crop_box(img: np.ndarray, cx: float, cy: float, side: float) -> np.ndarray:
    from vision.crops import cut_crop

    return cut_crop(img, (cx - side / 2, cy - side / 2, side, side), SIZE, MARGIN)


def all_sources(scenes: int) -> Iterator[tuple[str, str, Callable]]:
    """Every source as (name, part, a function that makes its crops and counts)."""
    real = list(real_sources())
    for name, part, crops, counts in real:
        yield name, part, lambda crops=crops, counts=counts: (crops, counts)
    for seed, part in ((TUNE_SEED, TUNED), (HELDOUT_SEED, HELDOUT)):
        for style in STYLES:
            yield (
                f"rendered d6, {style} style",
                part,
                lambda seed=seed, style=style: rendered_d6(scenes, seed, style),
            )
        yield (
            "no pips: Tally Up!/Toss Up! dice, bare tray",
            part,
            lambda seed=seed: without_pips(scenes, seed),
        )
    yield "no pips: real bare tray (matteop65 train)", TUNED, real_trays


def score(
    crops: list[np.ndarray], truth: list[int | None]
) -> tuple[dict, list[tuple[np.ndarray, int | None, int]]]:
    """Figures of ``vision.pips.read_many`` on labelled crops, and the wrong reads."""
    from vision.pips import read_many

    read_many(crops[:5])  # warm up
    w0, c0 = time.perf_counter(), time.process_time()
    reads = read_many(crops)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    # a count of 0: a spot unlike the pips on a pip place (``vision.pips.HIDDEN``), a veto
    hidden = sum(r.count == 0 for r in reads)
    given = [(c, t, r.count) for c, t, r in zip(crops, truth, reads, strict=False) if r.count]
    wrong = [(c, t, n) for c, t, n in given if n != t]
    n = max(1, len(crops))
    return {
        "crops": len(crops),
        "given": len(given),
        "hidden": hidden,
        "wrong": len(wrong),
        "coverage": len(given) / n,
        "precision": (1 - len(wrong) / len(given)) if given else float("nan"),
        "ms_wall": 1000 * wall / n,
        "ms_cpu": 1000 * cpu / n,
    }, wrong


def contact_sheet(items, path: Path, cols: int = 12) -> None:
    """Crops (x2) with 'truth>read' written on each, as one PNG."""
    tiles = []
    for crop, truth, read in items:
        t = cv2.resize(crop, None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST)
        label = f"{'-' if truth is None else truth}>{read}"
        cv2.putText(t, label, (2, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 255), 1)
        tiles.append(t)
    while len(tiles) % cols:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [np.hstack(tiles[i : i + cols]) for i in range(0, len(tiles), cols)]
    cv2.imwrite(str(path), np.vstack(rows))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m lab.pipseval", description=__doc__.split("\n")[0])
    p.add_argument("--scenes", type=int, default=150, help="rendered scenes per style and part")
    p.add_argument("--part", choices=["all", "tuned", "held-out"], default="all")
    p.add_argument("--show", type=Path, default=None, help="write wrong reads to this folder")
    a = p.parse_args(argv)
    if a.scenes < 1:
        p.error("--scenes must be at least 1")
    if a.show is not None:
        try:
            a.show.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            p.error(f"cannot write wrong reads to {a.show}: {e.strerror}")
    want = {"all": (TUNED, HELDOUT), "tuned": (TUNED,), "held-out": (HELDOUT,)}[a.part]
    print(
        f"{'source':46} {'part':8} {'crops':>6} {'coverage':>9} {'precision':>10} "
        f"{'wrong':>6} {'hidden':>6} {'ms wall':>8} {'ms cpu':>7}"
    )
    total = {"crops": 0, "given": 0, "wrong": 0, "hidden": 0}
    for name, part, make in all_sources(a.scenes):
        if part not in want:
            continue
        crops, truth = make()
        if not crops:
            continue
        f, wrong = score(crops, truth)
        _line(name, part, f, pips=all(t is not None for t in truth))
        if part == HELDOUT and not name.startswith(("rendered", "no pips")):
            for k in total:
                total[k] += f[k]
        if a.show is not None and wrong:
            slug = "".join(ch if ch.isalnum() else "_" for ch in f"{part} {name}")
            contact_sheet(wrong, a.show / f"{slug}.png")
    if total["crops"]:
        n, given = total["crops"], total["given"]
        f = dict(total, coverage=given / n, precision=1 - total["wrong"] / max(1, given))
        _line("all held-out real photos", HELDOUT, f, pips=True)
    _yardstick()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"(load average {load:.1f} on {os.cpu_count()} cores while timing)")
    return 0


def _yardstick(n: int = 300, batch: int = 10) -> None:
    """The shipped d6 classifier's time a die on ``n`` rendered crops, read ``batch`` at a
    time as the table reads the dice of a frame, next to the pip reader's on the same crops:
    the two measured at the same moment, so the ratio holds on a loaded machine too."""
    from vision.pips import read_many

    try:
        from vision.classify import FaceClassifier

        clf = FaceClassifier("d6")
    except (ImportError, OSError, RuntimeError) as e:  # no model, no onnxruntime
        print(f"(no classifier yardstick: {e})")
        return
    crops = rendered_d6(max(1, n // 5), HELDOUT_SEED, "classic")[0][:n]
    groups = [crops[i : i + batch] for i in range(0, len(crops), batch)]
    times = {}
    for name, run in (("classifier", clf.classify), ("pips", read_many)):
        run(groups[0])  # warm up
        w0, c0 = time.perf_counter(), time.process_time()
        for g in groups:
            run(g)
        times[name] = (time.perf_counter() - w0, time.process_time() - c0)
    k = 1000 / len(crops)
    (cw, cc), (pw, pc) = times["classifier"], times["pips"]
    print(
        f"yardstick on {len(crops)} crops, {batch} a call: classifier {cw * k:.3f} ms wall "
        f"{cc * k:.3f} ms cpu a die; pips {pw * k:.3f} ms wall {pc * k:.3f} ms cpu a crop "
        f"({pw / cw:.1f}x the classifier's wall time)"
    )


def _line(name: str, part: str, f: dict, pips: bool) -> None:
    prec = f"{100 * f['precision']:.2f}%" if f["given"] and pips else "-"
    ms = f"{f['ms_wall']:8.3f} {f['ms_cpu']:7.3f}" if "ms_wall" in f else ""
    print(
        f"{name:46} {part:8} {f['crops']:6d} {100 * f['coverage']:8.1f}% {prec:>10} "
        f"{f['wrong']:6d} {f['hidden']:6d} {ms}",
        flush=True,
    )


if __name__ == "__main__":
    raise SystemExit(main())
