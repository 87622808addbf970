"""Speed of the frame pipeline on one thread: ms per 640x480 frame with 2, 6 and 10 dice
(detection + crops + one batched classifier call + motion), classifier ms per die, and ms
per die read at four turns (photos, and dice in doubt on a still frame; with the second
network where the d6 card has one).

The yardstick: a YOLO11n network (the smallest current YOLO detector, 2.6 M parameters) at
640x640 in onnxruntime with the table's own single-thread session (``vision.onnx``), timed
in turns with our frames so both see the same machine. Its graph is built with random weights
(no weights are needed to time it, and nothing is downloaded) by the ``ultralytics`` package,
used only as a tool here (AGPL-3.0; ``pip install -e '.[train,bench]'``); where it or torch
cannot be imported, the bench says so in one line and prints our own figures. Targets
(issue 34): a frame <= 0.25 of a YOLO11n frame, the classifier <= 0.3 ms a die.

    dicetray bench --json
    {"frame_ms": {"2": ..., "6": ..., "10": ...}, "classifier_ms_per_die": ...,
     "reference": {"ms": ..., "ratio": {"2": ..., ...}, ...}, ...}
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import platform
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import cv2
import numpy as np

from vision.dicesets import load

REFERENCE_SIZE = 640  # the reference network's input, square
TARGET_RATIO = 0.25  # our frame, as a share of a reference frame
TARGET_CLASSIFIER_MS = 0.3  # classifier ms per die
REFERENCE_EVERY = 6  # one reference frame timed after this many of ours
INSTALL = "pip install -e '.[train,bench]' to time it"


def build_reference(folder: Path) -> tuple[Path | None, str]:
    """(an ONNX file of YOLO11n at 640x640 with random weights in ``folder``, what it is), or
    (None, why it could not be built). Built by ``ultralytics`` from the architecture file it
    ships, offline: its auto-install and its settings file in the home folder are switched
    off, and no weights are fetched. The head outputs the raw (1, 84, 8400) predictions, as
    ultralytics' own ONNX export does, without non-maximum suppression."""
    # read by ultralytics when it is first imported: no pip installs, no network checks, its
    # settings written to the throw-away folder, not the home folder
    os.environ["YOLO_AUTOINSTALL"] = "false"
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_VERBOSE"] = "false"
    os.environ.setdefault("YOLO_CONFIG_DIR", str(folder))
    if importlib.util.find_spec("ultralytics") is None:  # (before torch's slow import)
        return None, "no YOLO11n reference on this machine (no ultralytics): " + INSTALL
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # the tool's chatter: not our output
            import torch
            import ultralytics
            from ultralytics.nn.tasks import DetectionModel
    except Exception as exc:  # noqa: BLE001 - not installed, or an install that cannot load
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, f"no YOLO11n reference on this machine ({why}): " + INSTALL
    path = Path(folder) / "yolo11n-random.onnx"
    try:
        torch.manual_seed(0)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            model = DetectionModel("yolo11n.yaml", verbose=False).eval()
            model = model.fuse(verbose=False)  # batch norms folded, as an export folds them
            head = model.model[-1]
            head.export, head.format = True, "onnx"
            torch.onnx.export(
                model,
                torch.zeros(1, 3, REFERENCE_SIZE, REFERENCE_SIZE),
                str(path),
                input_names=["images"],
                output_names=["output0"],
                opset_version=17,
                dynamo=False,
            )
        params = sum(p.numel() for p in model.parameters())
    except Exception as exc:  # noqa: BLE001 - a tool's failure is one line of the bench
        return None, f"no YOLO11n reference: building it failed ({type(exc).__name__}: {exc})"
    what = (
        f"YOLO11n {REFERENCE_SIZE}x{REFERENCE_SIZE} ({params / 1e6:.2f} M parameters, random "
        f"weights, built by ultralytics {ultralytics.__version__})"
    )
    return path, what


def run(
    set_id: str = "d6",
    frames: int = 60,
    seed: int = 20261121,
    reference: bool = True,
    taught: Path | str | None = None,
) -> dict:
    """Time the pipeline (reading with the ``taught`` folder, when given), and with
    ``reference`` a YOLO11n frame in turns with it (see the module's doc); returns the
    figures (medians, milliseconds)."""
    with tempfile.TemporaryDirectory(prefix="dicetray-bench-") as tmp:
        ref = None
        note = "reference not asked for"
        if reference:
            t = time.perf_counter()
            path, note = build_reference(Path(tmp))
            if path is not None:
                from vision.onnx import open_session

                session = open_session(path)
                x = np.random.default_rng(seed).random(
                    (1, 3, REFERENCE_SIZE, REFERENCE_SIZE), dtype=np.float32
                )
                feed = {session.get_inputs()[0].name: x}
                session.run(None, feed)  # warm-up
                ref = {"run": lambda: session.run(None, feed), "times": [], "what": note}
                ref["build_s"] = round(time.perf_counter() - t, 1)
        result = _run(set_id, frames, seed, ref, taught)
    if ref is None:
        result["reference"] = None
        result["reference_note"] = note
    return result


def _run(set_id: str, frames: int, seed: int, ref: dict | None, taught=None) -> dict:
    from hardware.sim.render import render_scene
    from hardware.sim.styles import random_style
    from vision.classify import TURNS
    from vision.pipeline import Recognizer

    cv2.setNumThreads(1)
    ds = load(set_id)
    rng = np.random.default_rng(seed)
    pool = [d for d in ds.dice for _ in range(max(d.count, 4))]
    rec = Recognizer(ds, taught=taught)
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
        for i, f in enumerate(scenes):
            t = time.perf_counter()
            rec.read(f)
            times.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            rec.detector.detect(f)
            dtimes.append((time.perf_counter() - t) * 1000)
            if ref is not None and i % REFERENCE_EVERY == 0:
                # in turns with ours: a machine busy with other work slows both alike
                t = time.perf_counter()
                ref["run"]()
                ref["times"].append((time.perf_counter() - t) * 1000)
        frame_ms[str(n)] = round(statistics.median(times), 3)
        det_ms[str(n)] = round(statistics.median(dtimes), 3)
        if n == 6:
            still_ms = _still(rec, scenes[: min(len(scenes), 10)])
    crops = [rec.classifier.crop(scenes[0], (100 + 5 * i, 100, 48, 48)) for i in range(10)]
    ctimes, ttimes = [], []
    for _ in range(max(frames, 30)):
        t = time.perf_counter()
        rec.classifier.classify(crops)
        ctimes.append((time.perf_counter() - t) * 1000 / len(crops))
    for _ in range(10):
        t = time.perf_counter()
        rec.classifier.classify(crops, TURNS)
        ttimes.append((time.perf_counter() - t) * 1000 / len(crops))
    out = {
        "frame_ms": frame_ms,
        "classifier_ms_per_die": round(statistics.median(ctimes), 4),
        "turned_ms_per_die": round(statistics.median(ttimes), 4),
        "still_ms": still_ms,
        "second_network": rec.classifier.second,
        "taught": str(taught) if taught is not None else None,
        "detector_ms": det_ms,
        "dice_set": set_id,
        "frames": frames,
        "threads": 1,
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
    }
    if ref is not None:
        ref_ms = statistics.median(ref["times"])
        out["reference"] = {
            "model": ref["what"],
            "ms": round(ref_ms, 2),
            "frames": len(ref["times"]),
            "build_s": ref["build_s"],
            "ratio": {n: round(ms / ref_ms, 4) for n, ms in frame_ms.items()},
        }
    return out


def _still(rec, scenes) -> dict:
    """Ms of a still frame of 6 dice (median over ``scenes``): the first after the dice
    stopped, which reads the dice again at four turns (with a second network every die, else
    those in doubt), and the next, which keeps those readings."""
    first, later = [], []
    for i, f in enumerate(scenes):
        rec.read(scenes[i - 1])  # another tray: the dice moved
        rec.read(f)  # they land
        t = time.perf_counter()
        rec.read(f)
        first.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        rec.read(f)
        later.append((time.perf_counter() - t) * 1000)
    return {
        "first": round(statistics.median(first), 3),
        "later": round(statistics.median(later), 3),
    }


def format_result(r: dict) -> str:
    lines = [
        (f"dicetray bench ({r['dice_set']}, {r['frames']} frames each, 1 thread, {r['cpu']}):")
    ]
    if r.get("taught"):
        lines.append(f"  read with the taught folder {r['taught']}")
    for n, ms in r["frame_ms"].items():
        lines.append(
            f"  {n:>2} dice: {ms:7.2f} ms per frame (median; detector {r['detector_ms'][n]:.2f} ms)"
        )
    cls = r["classifier_ms_per_die"]
    lines.append(f"  classifier: {cls:.3f} ms per die (batch of 10)")
    if "turned_ms_per_die" in r:
        both = " with the second network" if r.get("second_network") else ""
        lines.append(
            f"  a die read at four turns (photos, and a still tray's dice){both}: "
            f"{r['turned_ms_per_die']:.3f} ms"
        )
    if "still_ms" in r:
        lines.append(
            f"  6 dice lying still: {r['still_ms']['first']:.2f} ms for the first still frame "
            f"(dice read again at four turns), {r['still_ms']['later']:.2f} ms for the next"
        )
    six = r["frame_ms"]["6"]
    lines.append(
        f"  target: <= 10 ms per frame with 6 dice on one thread: "
        f"{'met' if six <= 10 else 'NOT met'} ({six:.2f} ms)"
    )
    ref = r.get("reference")
    if not ref:
        lines.append(f"  {r.get('reference_note', 'no reference')}")
    else:
        lines.append(
            f"  reference: {ref['model']}: {ref['ms']:.2f} ms per frame (median of "
            f"{ref['frames']}, timed in turns with ours, same session options)"
        )
        ratios = ", ".join(f"{n} dice {v:.3f}" for n, v in ref["ratio"].items())
        worst = max(ref["ratio"].values())
        lines.append(f"  our frame / reference frame: {ratios}")
        lines.append(
            f"  target: a frame <= {TARGET_RATIO} of a YOLO11n frame, every dice count: "
            f"{'met' if worst <= TARGET_RATIO else 'NOT met'} ({worst:.3f}); classifier <= "
            f"{TARGET_CLASSIFIER_MS} ms a die: "
            f"{'met' if cls <= TARGET_CLASSIFIER_MS else 'NOT met'} ({cls:.3f} ms)"
        )
    return "\n".join(lines)
