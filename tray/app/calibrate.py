"""``dicetray calibrate``: find the tray, fix exposure and white balance, check every die is read.

Runs headless and prints each step and a result table::

    dicetray calibrate --source sim --dice-set tally-up          # try it on the simulated tray
    dicetray calibrate --write                                   # the camera of the config file

1. The tray: on a frame of the empty tray, the largest uniform region around the centre (the
   felt) is found; its rectangle, widened to 4:3 so nothing is stretched, becomes
   ``camera.crop``.
2. Exposure and white balance. Pi camera: automatic exposure and white balance run until they
   settle, then the values they reached (ExposureTime, AnalogueGain, ColourGains) are fixed.
   Other cameras: software gains are computed from the felt (a grey/white/black felt is made
   neutral; a coloured felt keeps its colour unless ``--felt-colour`` gives its true colour)
   and applied to every frame (``camera.software_gains``).
3. The dice: every die of the set is placed in the tray (by you, or by the simulated tray,
   which also tries every face) and read by the vision pipeline; the table shows what was read.

``--write`` stores the results in the config file's ``[camera]`` table (other lines stay).

``--teach --out FOLDER`` runs the guided capture instead (tray/app/capture_cmd.py): labelled
photos of your own dice and tray, then a model taught from them.

>>> find_tray(_demo_frame()).crop
[111, 83, 418, 314]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from hardware.camera import CameraConfig, open_source
from hardware.frames import Adjusted, CameraError
from hardware.picam import PiCamera
from hardware.sim.tray import SimulatedTray
from tray.app.capture_cmd import main as capture_main
from tray.app.config import ConfigError, default_path, load_config, update_table
from tray.rules.games import get
from tray.table.teaching import load_taught, say_stale

FRAME_W, FRAME_H = 640, 480


class CalibrationError(RuntimeError):
    """Calibration could not finish; the message says what to change and retry."""


# --- 1. the tray ---------------------------------------------------------------------------


@dataclass
class TrayFind:
    """Where the tray is: ``rect`` the felt's bounding box, ``crop`` the 4:3 crop to use
    ([] = the whole frame), ``felt_bgr`` its median colour, ``coverage`` its share of the frame.

    >>> TrayFind([0, 0, 640, 480], [], (60, 120, 40), 0.97).whole_frame
    True
    """

    rect: list[int]
    crop: list[int]
    felt_bgr: tuple[float, float, float]
    coverage: float
    mask: np.ndarray | None = field(default=None, repr=False)

    @property
    def whole_frame(self) -> bool:
        """The tray fills (nearly) the whole picture: no crop is needed."""
        return not self.crop


def _demo_frame() -> np.ndarray:
    """A dark table with a green felt tray (for the module example)."""
    f = np.full((FRAME_H, FRAME_W, 3), (40, 50, 60), np.uint8)
    cv2.rectangle(f, (120, 90), (519, 389), (60, 120, 40), -1)
    cv2.rectangle(f, (300, 200), (330, 230), (240, 240, 240), -1)  # a die on the felt
    return f


def expand_to_aspect(
    rect, aspect: float = 4 / 3, margin: float = 0.03, frame=(FRAME_W, FRAME_H)
) -> list[int]:
    """The smallest ``aspect`` rectangle holding ``rect`` (plus ``margin`` of its size),
    moved inside the frame; whole pixels.

    >>> expand_to_aspect([100, 100, 300, 150], margin=0)
    [100, 62, 300, 225]
    """
    x, y, w, h = (float(v) for v in rect)
    fw, fh = frame
    cx, cy = x + w / 2, y + h / 2
    w, h = w * (1 + 2 * margin), h * (1 + 2 * margin)
    if w / h < aspect:
        w = h * aspect
    else:
        h = w / aspect
    if w > fw or h > fh:
        scale = min(fw / w, fh / h)
        w, h = w * scale, h * scale
    w, h = round(w), round(h)
    x0 = round(min(max(cx - w / 2, 0), fw - w))
    y0 = round(min(max(cy - h / 2, 0), fh - h))
    return [x0, y0, int(w), int(h)]


def find_tray(frame: np.ndarray, min_share: float = 0.08, full_share: float = 0.85) -> TrayFind:
    """Find the tray's felt: the largest uniform region holding the middle of the frame.

    Works on an empty tray best, but dice on the felt do not disturb it (holes are filled).
    Raises CalibrationError when no uniform region of at least ``min_share`` of the frame
    surrounds the centre. A region filling more than ``full_share`` of the frame means the
    camera sees only tray: the crop is then empty (the whole frame).
    """
    if frame is None or frame.ndim != 3:
        raise CalibrationError("no picture to look at: check the camera delivers frames")
    fh, fw = frame.shape[:2]
    small_w = 160
    scale = fw / small_w
    small = cv2.resize(frame, (small_w, round(fh / scale)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (5, 5), 0)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = lab.shape[:2]
    cy0, cy1, cx0, cx1 = int(h * 0.3), int(h * 0.7), int(w * 0.3), int(w * 0.7)
    best = _best_region(lab, (cy0, cy1, cx0, cx1), min_share)
    if best is None:
        raise CalibrationError(_no_tray_msg())
    region, filled = best
    share = float(filled.mean() / 255.0)
    x, y, bw, bh = cv2.boundingRect(filled)
    rect = [round(x * scale), round(y * scale), round(bw * scale), round(bh * scale)]
    rect[2] = min(rect[2], fw - rect[0])
    rect[3] = min(rect[3], fh - rect[1])
    big_mask = cv2.resize(region, (fw, fh), interpolation=cv2.INTER_NEAREST) > 0
    felt = np.median(frame[big_mask], axis=0) if big_mask.any() else np.zeros(3)
    felt_bgr = (float(felt[0]), float(felt[1]), float(felt[2]))
    crop = [] if share >= full_share else expand_to_aspect(rect, frame=(fw, fh))
    if crop == [0, 0, fw, fh]:
        crop = []
    return TrayFind(rect, crop, felt_bgr, share, big_mask)


def _seeds(lab: np.ndarray, window) -> list[np.ndarray]:
    """Candidate felt colours: the middle's median and the main colours of the picture."""
    cy0, cy1, cx0, cx1 = window
    seeds = [np.median(lab[cy0:cy1, cx0:cx1].reshape(-1, 3), axis=0)]
    data = lab.reshape(-1, 3).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
    cv2.setRNGSeed(7)
    _, _, centres = cv2.kmeans(data, 4, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    seeds += list(centres)
    return seeds


def _best_region(lab: np.ndarray, window, min_share: float):
    """The felt: among uniform regions (one per candidate colour) overlapping the middle of
    the picture, an enclosed one (a tray, not the table around it) of the largest area; else
    the one covering most of the middle. Returns (region mask, hole-filled mask) or None."""
    h, w = lab.shape[:2]
    cy0, cy1, cx0, cx1 = window
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    candidates = []
    for seed in _seeds(lab, window):
        d = lab - seed
        # distance to the felt colour: lightness counts half (shading across the tray)
        dist = np.sqrt(0.25 * d[..., 0] ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)
        mask = (dist < 12.0).astype(np.uint8) * 255
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
        for i in range(1, n):
            x, y, bw, bh, area = (int(v) for v in stats[i])
            if area < min_share * h * w:
                continue
            region = (labels == i).astype(np.uint8) * 255
            overlap = int(np.count_nonzero(region[cy0:cy1, cx0:cx1]))
            if overlap == 0:
                continue
            contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            filled = np.zeros_like(region)
            cv2.drawContours(filled, contours, -1, 255, thickness=-1)  # dice holes are tray
            sides = (x <= 0) + (y <= 0) + (x + bw >= w) + (y + bh >= h)
            middle = int(np.count_nonzero(filled[cy0:cy1, cx0:cx1]))
            candidates.append((sides, middle, int(np.count_nonzero(filled)), region, filled))
    if not candidates:
        return None
    window_area = (cy1 - cy0) * (cx1 - cx0)
    enclosed = [c for c in candidates if c[0] <= 1 and c[1] >= 0.25 * window_area]
    if enclosed:
        best = max(enclosed, key=lambda c: c[2])
    else:
        best = max(candidates, key=lambda c: (c[1], c[2]))
    return best[3], best[4]


def _no_tray_msg() -> str:
    return (
        "could not find the tray: point the camera straight down so the tray fills most of "
        "the picture, with its middle in the middle of the picture, light it evenly, and "
        "take the dice out"
    )


# --- 2. exposure and white balance -----------------------------------------------------------


def hex_bgr(value: str) -> tuple[int, int, int]:
    """``"#2e9a48"`` -> (72, 154, 46) (blue, green, red).

    >>> hex_bgr("#2e9a48")
    (72, 154, 46)
    """
    v = value.strip().lstrip("#")
    if len(v) != 6 or any(c not in "0123456789abcdefABCDEF" for c in v):
        raise CalibrationError(f"--felt-colour {value!r}: give the colour as #rrggbb, like #2e7d32")
    return int(v[4:6], 16), int(v[2:4], 16), int(v[0:2], 16)


@dataclass
class Gains:
    """Software gains (blue, green, red) and how they were chosen, in words.

    >>> Gains([1.0, 1.0, 1.2], "neutral felt").gains[2]
    1.2
    """

    gains: list[float]
    how: str


def felt_gains(
    felt_bgr, reference_bgr=None, target_level: float = 110.0, max_gain: float = 3.0
) -> Gains:
    """Software gains from the felt's measured colour.

    With ``reference_bgr`` (the felt's true colour) each channel is scaled to match it. Else a
    grey/white/black felt (little saturation) is made neutral at its own brightness, raised
    towards ``target_level`` when the picture is dark; a coloured felt keeps its colour (there
    is no way to tell its true colour) and only dark pictures are brightened.

    >>> felt_gains((100, 100, 118)).gains            # a warm-lit grey felt
    [1.1, 1.1, 0.932203]
    """
    b, g, r = (max(float(c), 1.0) for c in felt_bgr)
    if reference_bgr is not None:
        ref = [float(c) for c in reference_bgr]
        gains = [ref[0] / b, ref[1] / g, ref[2] / r]
        how = "felt matched to its given colour"
    else:
        mx, mn = max(b, g, r), min(b, g, r)
        saturation = (mx - mn) / mx
        if saturation < 0.2:
            grey = (b + g + r) / 3
            lift = max(1.0, min(target_level / grey, max_gain))
            gains = [grey / b * lift, grey / g * lift, grey / r * lift]
            how = "neutral felt: white balance from the felt"
        else:
            lift = max(1.0, min(target_level / ((b + g + r) / 3), max_gain)) if mx < 90 else 1.0
            gains = [lift, lift, lift]
            how = (
                "coloured felt: colours left as the camera gives them "
                "(give --felt-colour to balance them)"
            )
    gains = [round(min(max(x, 1 / max_gain), max_gain), 6) for x in gains]
    return Gains(gains, how)


def converge_picamera(
    cam, frames: int = 60, settle: int = 6, tolerance: float = 0.02, out=print
) -> dict:
    """Let the Pi camera's automatic exposure and white balance settle, then return the
    ExposureTime, AnalogueGain and ColourGains it reached (and fix them on the camera)."""
    cam.set_auto()
    history: list[tuple[float, float, float, float]] = []
    md: dict = {}
    for _ in range(frames):
        cam.read(timeout=2.0)
        md = cam.metadata()
        if not {"ExposureTime", "AnalogueGain", "ColourGains"} <= set(md):
            continue
        history.append(
            (
                float(md["ExposureTime"]),
                float(md["AnalogueGain"]),
                float(md["ColourGains"][0]),
                float(md["ColourGains"][1]),
            )
        )
        if len(history) >= settle:
            recent = np.array(history[-settle:])
            rel = (recent.max(0) - recent.min(0)) / np.maximum(recent.mean(0), 1e-6)
            if (rel < tolerance).all():
                break
    if not history:
        raise CalibrationError(
            "the Pi camera reported no exposure metadata: update "
            "Raspberry Pi OS (`sudo apt full-upgrade`) and retry"
        )
    if len(history) < settle:
        out("  note: exposure had little time to settle; run again if colours look wrong")
    exp, gain, red, blue = history[-1]
    values = {
        "exposure_us": round(exp),
        "analogue_gain": round(gain, 4),
        "colour_gains": [round(red, 4), round(blue, 4)],
    }
    cam.set_fixed(values["exposure_us"], values["analogue_gain"], values["colour_gains"])
    return values


# --- 3. the dice -----------------------------------------------------------------------------


@dataclass
class DieCheck:
    """One row of the dice table: what was shown (face None: unknown) and what was read.

    >>> DieCheck("red", "star", "red:star", 0.97, True).ok
    True
    """

    die: str
    face: str | None
    read: str | None
    confidence: float
    ok: bool
    note: str = ""


def make_recognizer(diceset, taught=None):
    """A ``vision.pipeline.Recognizer`` for ``diceset`` (``taught``: a taught
    folder or model for it); CalibrationError if the pipeline is not available."""
    try:
        from vision.pipeline import Recognizer
    except ImportError as exc:
        raise CalibrationError(
            f"the vision pipeline cannot be loaded ({exc}): update your "
            "checkout, or pass --no-check to skip the dice check"
        ) from None
    try:
        rec = Recognizer(diceset, taught=taught)
    except (OSError, RuntimeError, ValueError) as exc:  # a model file missing or unreadable
        raise CalibrationError(
            f"the vision pipeline cannot start ({exc}); pass --no-check to skip the dice check"
        ) from None
    say_stale(rec, "dicetray calibrate")
    return rec


def _majority(readings) -> tuple[str | None, float]:
    """The most common single-die reading over frames and its lowest confidence."""
    specs = []
    for r in readings:
        read = [d for d in r.dice if d.read]
        if len(r.dice) == 1 and read:
            specs.append((read[0].spec, float(read[0].confidence)))
        else:
            specs.append((None, 0.0))
    if not specs:
        return None, 0.0
    spec, _ = Counter(s for s, _ in specs).most_common(1)[0]
    conf = min((c for s, c in specs if s == spec), default=0.0)
    return spec, conf


def _describe(readings) -> str:
    last = readings[-1] if readings else None
    if last is None:
        return "no frames"
    if not last.dice:
        return "no die found"
    if len(last.dice) > 1:
        return f"{len(last.dice)} dice found"
    return "die found but not read"


def check_sim_dice(
    tray,
    source,
    recognizer,
    diceset,
    faces: str = "all",
    rest_reads: int = 3,
    max_frames: int = 300,
    out=print,
) -> list[DieCheck]:
    """Throw every die of ``diceset`` (every distinct face, or one random face with
    ``faces="one"``) on the simulated ``tray`` and read the resting die through ``source``
    (the tray as the app sees it, crop and gains applied) with ``recognizer``."""
    rows = []
    for die in diceset.dice:
        wanted = list(dict.fromkeys(die.faces)) if faces == "all" else [None]
        for face in wanted:
            spec = tray.throw([f"{die.id}:{face}" if face else die.id])[0]
            readings = []
            for _ in range(max_frames):
                frame = source.read(timeout=1.0)
                if frame is None:
                    continue
                reading = recognizer.read(frame)
                if tray.truth.get("phase") == "rest":
                    readings.append(reading)
                    if len(readings) >= rest_reads:
                        break
            tray.pick_up()
            for _ in range(2):
                frame = source.read(timeout=1.0)
                if frame is not None:
                    recognizer.read(frame)
            read, conf = _majority(readings)
            ok = read == spec
            note = "" if ok else (_describe(readings) if read is None else "read wrong")
            rows.append(DieCheck(die.id, spec.split(":", 1)[1], read, conf, ok, note))
            out(f"  {spec:<16} -> {read or '-':<16} {conf:5.2f}  {'ok' if ok else 'CHECK'}")
    return rows


def check_placed_dice(
    source,
    recognizer,
    diceset,
    ask=input,
    wait_s: float = 20.0,
    still_reads: int = 5,
    clock=time.monotonic,
    out=print,
) -> list[DieCheck]:
    """For each die of the set, ask the user to place it in the tray and read it once the
    reading holds still over ``still_reads`` frames (or ``wait_s`` seconds pass)."""
    rows = []
    for die in diceset.dice:
        with contextlib.suppress(EOFError):  # not interactive: just wait for it
            ask(
                f"  Put the {die.id} die ({die.body}) alone in the tray, any face up, take your "
                "hand away and press Enter: "
            )
        readings = []
        spec = None
        start = clock()
        while clock() - start < wait_s:
            frame = source.read(timeout=1.0)
            if frame is None:
                continue
            r = recognizer.read(frame)
            readings.append(r)
            recent = readings[-still_reads:]
            if len(recent) == still_reads:
                s, _ = _majority(recent)
                if s is not None and all(len(x.dice) == 1 and x.dice[0].spec == s for x in recent):
                    spec = s
                    break
        read, conf = (spec, _majority(readings[-still_reads:])[1]) if spec else (None, 0.0)
        ok = read is not None and read.split(":", 1)[0] == die.id
        note = (
            "check the face by eye"
            if ok
            else (_describe(readings) if read is None else f"read as another die ({read})")
        )
        rows.append(DieCheck(die.id, None, read, conf, ok, note))
        out(f"  {die.id:<10} -> {read or '-':<16} {conf:5.2f}  {'ok' if ok else 'CHECK'}")
    return rows


def format_table(rows: list[DieCheck]) -> str:
    """The result table as text.

    >>> print(format_table([DieCheck("red", "star", "red:star", 0.98, True)]))
    die        shown      read             conf  result
    red        star       red:star         0.98  ok
    """
    lines = [f"{'die':<10} {'shown':<10} {'read':<16} {'conf':>4}  result"]
    for r in rows:
        result = "ok" if r.ok else "NOT OK"
        if r.note:
            result += f" ({r.note})"
        lines.append(
            f"{r.die:<10} {(r.face or '?'):<10} {(r.read or '-'):<16} {r.confidence:4.2f}  {result}"
        )
    return "\n".join(lines)


# --- the command -----------------------------------------------------------------------------


def _default_set(cfg) -> str:
    """The dice set of the config's game (the config has checked its id)."""
    return get(cfg.game.default).DICE_SET


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dicetray calibrate",
        description="Find the tray, fix exposure and white balance, and check that every die "
        "is read under your light.",
    )
    p.add_argument("--config", help="config file (default ~/.config/dicetray/config.toml)")
    p.add_argument(
        "--source",
        help="camera source: picamera, opencv:0, replay:DIR, sim "
        "(default: camera.source of the config)",
    )
    p.add_argument(
        "--dice-set",
        help="dice set to check (d6, tally-up, toss-up, rollers; "
        "default: the dice of the config's default game)",
    )
    p.add_argument(
        "--write", action="store_true", help="store the results in the config file's [camera] table"
    )
    p.add_argument("--no-check", action="store_true", help="skip the dice check")
    p.add_argument(
        "--faces",
        choices=("all", "one"),
        default="all",
        help="simulated tray: check every face of each die (all) or one",
    )
    p.add_argument(
        "--felt-colour",
        help="the felt's true colour as #rrggbb, for white balance "
        "on cameras without hardware controls",
    )
    p.add_argument(
        "--frames",
        type=int,
        default=60,
        help="frames to let the Pi camera's exposure settle (default 60)",
    )
    p.add_argument(
        "--wait",
        type=float,
        default=20.0,
        help="seconds to wait for each placed die to be read (default 20)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the simulated tray")
    p.add_argument("--snapshot", help="save a picture of the found tray to this PNG file")
    p.add_argument(
        "--taught",
        metavar="DIR",
        help="read the dice with a taught folder (dicetray teach); default: the "
        "config's [vision] taught for the dice set",
    )
    _add_teach_options(p)
    return p


def _add_teach_options(p: argparse.ArgumentParser) -> None:
    """The options of the guided capture (``--teach``)."""
    teach = p.add_argument_group(
        "guided capture (--teach)",
        "throw the dice, confirm each face with the buttons, keys "
        "or touch; the photos and labels go to --out, then a model is taught from them into "
        "OUT/taught (see tray/table/capture.py)",
    )
    teach.add_argument(
        "--teach",
        action="store_true",
        help="capture labelled photos of your dice and tray, then teach",
    )
    teach.add_argument(
        "--out",
        help="folder for the photos (images/ + labels.csv); a folder "
        "holding an earlier capture is continued",
    )
    teach.add_argument(
        "--per-face",
        type=int,
        default=3,
        help="stop when every face of every die was seen this often (default 3)",
    )
    teach.add_argument(
        "--min-dice",
        type=int,
        default=40,
        help="and when this many dice were saved in all (default 40: teaching "
        "teaches no classifier from fewer, too few to judge it)",
    )
    teach.add_argument(
        "--sim-roller",
        action="store_true",
        help="simulated tray: a simulated roller throws and confirms",
    )
    teach.add_argument("--headless", action="store_true", help="no window")
    teach.add_argument(
        "--max-seconds", type=float, default=None, help="stop the capture after this many seconds"
    )


def _grab(source, n: int = 5, timeout: float = 2.0) -> np.ndarray:
    frame = None
    for _ in range(n):
        f = source.read(timeout=timeout)
        if f is not None:
            frame = f
    if frame is None:
        raise CalibrationError(
            "the camera delivered no picture: check it is connected and not "
            "used by another program, then retry"
        )
    return frame


def main(argv: list[str] | None = None, out=print, ask=input) -> int:
    """``dicetray calibrate``: see the module docstring. Returns the exit code."""
    args = _parser().parse_args(argv)
    from vision.dicesets import load

    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        print(f"dicetray calibrate: {exc}", file=sys.stderr)
        return 2
    if args.teach:
        return capture_main(args, cfg, default_set=_default_set(cfg), out=out)
    config_path = Path(args.config).expanduser() if args.config else default_path()
    spec = args.source or cfg.camera.source

    try:
        diceset = load(args.dice_set or _default_set(cfg))
        taught = load_taught(args.taught, cfg, diceset)
        reference = hex_bgr(args.felt_colour) if args.felt_colour else None
    except (ValueError, CalibrationError) as exc:  # DiceSetError, TaughtError, a bad colour
        print(f"dicetray calibrate: {exc}", file=sys.stderr)
        return 2

    # raw pictures: no earlier crop or gains, automatic exposure until step 2 fixes it
    raw_cfg = CameraConfig(source=spec, fps=cfg.camera.fps, lens_position=cfg.camera.lens_position)
    out(f"Step 1/4: opening the camera ({spec})")
    try:
        source = open_source(
            spec,
            camera=raw_cfg,
            dice_set=diceset.id,
            seed=args.seed,
            realtime=not spec.startswith(("sim", "replay")),
        )
    except (CameraError, ValueError) as exc:
        print(f"dicetray calibrate: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError) else 1  # SourceError: a source named wrong
    if isinstance(source, SimulatedTray):
        source.realtime = False  # no need to wait for the simulated tray
    out(f"  using {source.name}")
    try:
        frame, found = _find_tray_step(source, spec, args.snapshot, out, ask)
        values, view = _light_step(source, frame, found, args.frames, reference, out)
        rows = _dice_step(source, view, diceset, taught, args, out, ask)
    except CalibrationError as exc:
        print(f"dicetray calibrate: {exc}", file=sys.stderr)
        source.close()
        return 1
    source.close()

    bad = _report(values, rows, out)
    if args.write:
        try:
            update_table(config_path, "camera", values)
        except (ConfigError, OSError) as exc:
            print(f"dicetray calibrate: could not write {config_path}: {exc}", file=sys.stderr)
            return 1
        out(f"Written to {config_path} [camera].")
    else:
        out(f"Run again with --write to store these values in {config_path}.")
    return 1 if bad else 0


def _find_tray_step(source, spec: str, snapshot: str | None, out, ask):
    """Step 2: the empty tray found in a picture: ``(frame, TrayFound)``; ``snapshot`` (a PNG
    path) gets the picture with the tray (yellow) and the crop (magenta) drawn on it."""
    out("Step 2/4: finding the tray")
    if isinstance(source, SimulatedTray):
        source.pick_up()
    elif isinstance(source, PiCamera) or spec.startswith("opencv") or spec == "auto":
        with contextlib.suppress(EOFError):
            ask("  Take every die out of the tray and press Enter: ")
    frame = _grab(source)
    found = find_tray(frame)
    if found.whole_frame:
        out(f"  the tray fills the picture ({found.coverage:.0%}): no crop needed")
    else:
        x, y, w, h = found.rect
        out(
            f"  tray found at x={x} y={y} {w}x{h} ({found.coverage:.0%} of the picture); "
            f"crop {found.crop}"
        )
    if snapshot:
        shot = frame.copy()
        x, y, w, h = found.rect
        cv2.rectangle(shot, (x, y), (x + w - 1, y + h - 1), (0, 255, 255), 2)
        if found.crop:
            cx, cy, cw, ch = found.crop
            cv2.rectangle(shot, (cx, cy), (cx + cw - 1, cy + ch - 1), (255, 0, 255), 1)
        cv2.imwrite(snapshot, shot)
        out(f"  picture of the tray saved to {snapshot}")
    return frame, found


def _light_step(source, frame, found, frames: int, reference, out) -> tuple[dict, Adjusted]:
    """Step 3: exposure and white balance: ``(the [camera] values, the adjusted view)``."""
    from vision.pipeline import tray_level

    out("Step 3/4: exposure and white balance")
    values: dict = {"crop": found.crop}
    if isinstance(source, PiCamera):
        fixed = converge_picamera(source, frames=frames, out=out)
        values.update(fixed)
        values["software_gains"] = [1.0, 1.0, 1.0]
        out(
            f"  fixed: ExposureTime {fixed['exposure_us']} us, AnalogueGain "
            f"{fixed['analogue_gain']}, ColourGains {fixed['colour_gains']} (AE/AWB off)"
        )
        frame = _grab(source)
        found = find_tray(frame)
    gains = felt_gains(found.felt_bgr, reference)
    if isinstance(source, PiCamera) and reference is None:
        gains.gains = [1.0, 1.0, 1.0]
        gains.how = "the camera's own white balance is fixed; no software gains"
    values["software_gains"] = gains.gains
    b, g, r = found.felt_bgr
    out(f"  felt colour (B, G, R) = ({b:.0f}, {g:.0f}, {r:.0f}); {gains.how}")
    out(f"  software gains (B, G, R) = {gains.gains}")
    view = Adjusted(source, crop=found.crop or None, gains=gains.gains)
    # the empty tray as the table will see it: the light it reads dice in (Recognizer's
    # first_light), whatever lamp is on when play starts
    values["tray_light"] = [round(v, 1) for v in tray_level(view.adjust(frame))]
    return values, view


def _dice_step(source, view, diceset, taught, args, out, ask) -> list[DieCheck]:
    """Step 4: every die of the set read in the tray (none with ``--no-check``, or when the
    vision pipeline cannot start: it says why)."""
    if args.no_check:
        out("Step 4/4: dice check skipped (--no-check)")
        return []
    out(f"Step 4/4: checking the dice of {diceset.name} ({len(diceset.dice)} kinds)")
    try:
        recognizer = make_recognizer(diceset, taught)
    except CalibrationError as exc:
        out(f"  skipped: {exc}")
        return []
    if isinstance(source, SimulatedTray):
        return check_sim_dice(source, view, recognizer, diceset, faces=args.faces, out=out)
    return check_placed_dice(view, recognizer, diceset, ask=ask, wait_s=args.wait, out=out)


def _report(values: dict, rows: list[DieCheck], out) -> list[DieCheck]:
    """The values found and the dice check's table; returns the dice read wrong."""
    out("")
    out("Result")
    out(f"  camera.crop = {values['crop'] or '[] (whole frame)'}")
    out(f"  camera.software_gains = {values['software_gains']}")
    for key in ("exposure_us", "analogue_gain", "colour_gains", "tray_light"):
        if key in values:
            out(f"  camera.{key} = {values[key]}")
    bad = [r for r in rows if not r.ok]
    if rows:
        out("")
        out(format_table(rows))
        out("")
        out(
            f"  {len(rows) - len(bad)} of {len(rows)} read right"
            + (
                ""
                if not bad
                else ": improve the light (even, no glare), check the dice-set file "
                "matches your dice, and run again"
            )
        )
    return bad
