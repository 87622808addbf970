"""Speed of the frame pipeline on one thread: ms per 640x480 frame with 2, 6 and 10 dice
(detection + crops + one batched classifier call + motion), and classifier ms per die.

    dicetray bench --json
    {"frame_ms": {"2": ..., "6": ..., "10": ...}, "classifier_ms_per_die": ..., ...}
"""

from __future__ import annotations

import os
import platform
import statistics
import time

import cv2
import numpy as np

from vision.dicesets import load


def run(set_id: str = "d6", frames: int = 60, seed: int = 20261121) -> dict:
    """Time the pipeline; returns the figures (medians, milliseconds)."""
    from lab.render import random_style, render_scene
    from vision.pipeline import Recognizer

    cv2.setNumThreads(1)
    ds = load(set_id)
    rng = np.random.default_rng(seed)
    pool = [d for d in ds.dice for _ in range(max(d.count, 4))]
    rec = Recognizer(ds)
    # one tray and light, as at the table (the tray model follows the light from frame to
    # frame, and a frame of another tray would look like a lamp switched on)
    style = random_style(rng)
    frame_ms, det_ms = {}, {}
    for n in (2, 6, 10):
        scenes = []
        for _ in range(frames):
            dice = [
                (d.id, d.faces[int(rng.integers(0, 6))])
                for d in (pool[int(i)] for i in rng.integers(0, len(pool), n))
            ]
            scenes.append(render_scene(ds, dice, rng, style=style)[0])
        for f in scenes[:3]:  # warm-up
            rec.read(f)
        times, dtimes = [], []
        for f in scenes:
            t = time.perf_counter()
            rec.read(f)
            times.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            rec.detector.detect(f)
            dtimes.append((time.perf_counter() - t) * 1000)
        frame_ms[str(n)] = round(statistics.median(times), 3)
        det_ms[str(n)] = round(statistics.median(dtimes), 3)
    crops = [rec.classifier.crop(scenes[0], (100 + 5 * i, 100, 48, 48)) for i in range(10)]
    ctimes = []
    for _ in range(max(frames, 30)):
        t = time.perf_counter()
        rec.classifier.classify(crops)
        ctimes.append((time.perf_counter() - t) * 1000 / len(crops))
    return {
        "frame_ms": frame_ms,
        "classifier_ms_per_die": round(statistics.median(ctimes), 4),
        "detector_ms": det_ms,
        "dice_set": set_id,
        "frames": frames,
        "threads": 1,
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
    }


def format_result(r: dict) -> str:
    lines = [
        (f"dicetray bench ({r['dice_set']}, {r['frames']} frames each, 1 thread, {r['cpu']}):")
    ]
    for n, ms in r["frame_ms"].items():
        lines.append(
            f"  {n:>2} dice: {ms:7.2f} ms per frame (median; detector {r['detector_ms'][n]:.2f} ms)"
        )
    lines.append(f"  classifier: {r['classifier_ms_per_die']:.3f} ms per die (batch of 10)")
    six = r["frame_ms"]["6"]
    lines.append(
        f"  target: <= 10 ms per frame with 6 dice on one thread: "
        f"{'met' if six <= 10 else 'NOT met'} ({six:.2f} ms)"
    )
    return "\n".join(lines)
