"""Accuracy figures of the whole vision pipeline (``dicetray eval``).

Per dice set, on rendered held-out scenes (seeds never used in training), read as camera
frames and again as photos: detection recall and precision, face accuracy on found dice,
abstentions (and how many of them the reader's guess names right), wrong readings, the
confusion matrix; and on rendered throws through the
Settler: settled rolls, wrong faces among the dice it was sure of, frames from rest to roll,
rolls taken while dice moved or a hand was in.
On each real photo set (``--realdice``, not shipped: ``lab.labels.REALDICE_DIR``; d6 path):
the same detection and face
figures, for the judge split (``lab.splits``: photos never trained on and never used to set
a threshold) and for all photos, rune55_gray per source.
A found die matches a labelled die when the labelled box's centre lies inside the found box
(one match each); the matteop65 boxes cover only the pip pattern.
"""

from __future__ import annotations

import zlib
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np

from lab.labels import read_label_rows
from vision.dicesets import load
from vision.types import closest_pairs

HELDOUT_SEED = 777_000_000


def match(labels, found) -> list[tuple[int, int | None]]:
    """Pairs (label index, found index or None): centre of the label inside the found box,
    one match each, the closest centres paired first (so a large box over two dice, one of
    them mostly hidden, is paired with the die it is centred on)."""
    cand = []
    for i, lab in enumerate(labels):
        cx, cy = lab["x"] + lab["w"] / 2, lab["y"] + lab["h"] / 2
        for k, d in enumerate(found):
            if d.x <= cx <= d.x + d.w and d.y <= cy <= d.y + d.h:
                cand.append((abs(d.x + d.w / 2 - cx) + abs(d.y + d.h / 2 - cy), i, k))
    hit = closest_pairs(cand)
    return [(i, hit.get(i)) for i in range(len(labels))]


def _guess_right(reading, die: str, face: str) -> bool:
    """Whether a die abstained on has a guess (``DieReading.guess``) naming ``face``, on
    ``die`` where its die was read."""
    return getattr(reading, "guess", None) == face and reading.die in (None, die)


class Tally:
    """Counts for one evaluation line."""

    def __init__(self):
        self.labelled = self.found = self.matched = 0
        self.correct = self.abstained = self.wrong = 0
        self.guessed = 0  # abstained on, with a guess (``DieReading.guess``) naming the face
        self.confusion: dict[str, Counter] = defaultdict(Counter)

    def add_crop(self, truth: tuple[str, str], reading) -> None:
        """One labelled die crop (a crop set: no detection) and the classifier's reading of it
        (``vision.classify.CropReading``): right, abstained or wrong."""
        self.labelled += 1
        self.found += 1
        self.matched += 1
        if reading.face is None:
            self.abstained += 1
            self.guessed += _guess_right(reading, *truth)
        elif (reading.die, reading.face) == truth:
            self.correct += 1
        else:
            self.wrong += 1

    def add(self, labels, found, key=lambda lab: f"{lab['die']}:{lab['face']}") -> None:
        pairs = match(labels, found)
        self.labelled += len(labels)
        self.found += len(found)
        for i, k in pairs:
            truth = key(labels[i])
            if k is None:
                self.confusion[truth]["missed"] += 1
                continue
            self.matched += 1
            d = found[k]
            if d.face is None:
                self.abstained += 1
                self.confusion[truth]["abstained"] += 1
                self.guessed += _guess_right(d, labels[i]["die"], labels[i]["face"])
                continue
            got = key({"die": d.die, "face": d.face})
            self.confusion[truth][got] += 1
            if got == truth:
                self.correct += 1
            else:
                self.wrong += 1

    def figures(self) -> dict:
        m = max(self.matched, 1)
        return {
            "labelled": self.labelled,
            "found": self.found,
            "matched": self.matched,
            "recall": self.matched / max(self.labelled, 1),
            "precision": self.matched / max(self.found, 1),
            "face_accuracy": self.correct / m,
            "abstained": self.abstained / m,
            # of the dice asked about, the share whose first press shows the right face
            "asked_guess_right": self.guessed / max(self.abstained, 1),
            "wrong": self.wrong / m,
            "wrong_count": self.wrong,
            "confusion": {t: dict(c) for t, c in sorted(self.confusion.items())},
        }


def read_photos(dice_set, photos, images=None, taught=None, fine: bool = True) -> dict:
    """Labelled photos (``vision.labelled.Photo``) read as ``dicetray recognize`` reads photos
    (``fine``; else as camera frames), with the shipped models or a ``taught`` folder: the
    :class:`Tally` figures, without the confusion. ``images``: the photos already decoded
    (else each is read from its file)."""
    from vision.pipeline import Recognizer

    rec = Recognizer(dice_set, taught=taught)
    tally = Tally()
    for i, photo in enumerate(photos):
        rec.reset()
        if images is None:
            img, photo = photo.decoded()  # as ``dicetray recognize`` reads the file
        else:
            img = images[i]
        tally.add(
            [
                {"x": lab.x, "y": lab.y, "w": lab.w, "h": lab.h, "die": lab.die, "face": lab.face}
                for lab in photo.labels
            ],
            rec.read(img, fine=fine).dice,
        )
    fig = tally.figures()
    fig.pop("confusion")
    return fig


def _bar(items, desc: str):
    """A progress bar on the terminal (stderr; none when it is not a terminal)."""
    import sys

    from tqdm import tqdm

    return tqdm(items, desc=desc, file=sys.stderr, disable=None, leave=False)


def _random_dice(ds, rng, n):
    pool = [d for d in ds.dice for _ in range(max(d.count, 3))]
    return [
        (d.id, d.faces[int(rng.integers(0, 6))])
        for d in (pool[int(i)] for i in rng.integers(0, len(pool), n))
    ]


# Lights far from the camera's white balance (``hardware.sim.looks.light_cast``'s warmth): a
# tungsten lamp after calibrating by daylight, and as far the other way
FAR_LIGHT_ROWS = {"warm lamp (warmth 3)": 3.0, "cold light (warmth -3)": -3.0}


def eval_rendered(
    set_id: str,
    scenes: int,
    fine: bool = False,
    other: bool = False,
    warmth: float | None = None,
    odd: bool = False,
    dark: bool = False,
) -> dict:
    """Figures on rendered held-out scenes, each read as one camera frame, or (``fine``) as
    ``dicetray recognize`` reads a photo (tile search, four turns). ``other``: the scenes are
    drawn in the held-out other style (``hardware.sim.styles.other_style``: a look, light,
    palette and floor never used in training; Rollers with digits for 1-5). ``warmth``: classic
    scenes under a light that far from the camera's white balance (``FAR_LIGHT_ROWS``). ``odd``:
    classic scenes on trays unlike the named floors (``hardware.sim.styles.ODD_FLOORS``: a
    grain as fine as pips, a printed board, speckle). ``dark``: classic scenes of dark dice
    with coloured marks on a white tray (:func:`dark_dice`)."""
    from hardware.sim.render import render_scene
    from hardware.sim.styles import (
        FLOORS,
        far_light_style,
        odd_floor_style,
        other_style,
        random_style,
    )
    from vision.pipeline import Recognizer

    ds = load(set_id)
    rec = Recognizer(ds)
    rng = np.random.default_rng(
        HELDOUT_SEED
        + zlib.crc32(set_id.encode()) % 1000
        + (3000 if other else 0)
        + (0 if warmth is None else 5000 + int(10 * warmth))
        + (7000 if odd else 0)
        + (9000 if dark else 0)
    )
    t = Tally()
    for _ in _bar(range(scenes), f"{set_id} scenes"):
        dice = _random_dice(ds, rng, int(rng.integers(1, 11)))
        style = other_style(rng, digits=set_id == "rollers") if other else None
        if warmth is not None:
            style = far_light_style(rng, warmth)
        if odd:
            style = odd_floor_style(random_style(rng), rng)
        drawn = ds
        if dark:
            floor = str(rng.choice(["white", "paper"]))
            style = replace(random_style(rng), floor=floor, floor_bgr=FLOORS[floor])
            drawn = dark_dice(ds, rng)
        try:
            frame, labels = render_scene(drawn, dice, rng, style=style)
        except ValueError:
            continue
        rec.reset()
        t.add(labels, rec.read(frame, fine=fine).dice)
    return t.figures()


def dark_dice(ds, rng: np.random.Generator):
    """``ds`` with every die dark (black to deep colours) and its marks in a saturated colour
    (red, green, gold, blue...), as everyday dice are: the dice ids and faces as they were.

    >>> from vision.dicesets import load
    >>> d = dark_dice(load("d6"), np.random.default_rng(0)).dice[0]
    >>> d.id, sum(d.body_rgb) < 200, max(d.ink_rgb) > 150
    ('d6', True, True)
    """

    def colour(hue, sat, val) -> str:
        hsv = np.uint8([[[hue, sat, val]]])
        r, g, b = (int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0])
        return f"#{r:02x}{g:02x}{b:02x}"

    dice = []
    for die in ds.dice:
        body = colour(rng.uniform(0, 180), rng.uniform(0, 200), rng.uniform(8, 50))
        ink = colour(rng.uniform(0, 180), rng.uniform(150, 255), rng.uniform(160, 240))
        dice.append(replace(die, body=body, ink=ink))
    return replace(ds, dice=tuple(dice))


# Large photos (a 12 MP phone photo of the tray): dice side in the photo's own pixels, per band
PHOTO_SIZE = (4032, 3024)
PHOTO_BANDS = {
    "far (60-110 px)": (60, 110),
    "mid (110-220 px)": (110, 220),
    "near (220-480 px)": (220, 480),
}


def eval_large_photos(set_id: str, per_band: int) -> dict:
    """Figures on rendered 4032x3024 photos saved as JPEG and read as ``dicetray recognize``
    reads a photo file (decoded at half size, tile search, boxes placed again, four turns),
    ``per_band`` photos for each band of die sizes (``PHOTO_BANDS``): {band: figures}."""
    import tempfile

    from hardware.sim.render import render_scene
    from hardware.sim.styles import random_style
    from vision.cli import read_photo
    from vision.pipeline import Recognizer
    from vision.types import DieReading

    ds = load(set_id)
    rec = Recognizer(ds)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "photo.jpg")
        for b, (band, (lo, hi)) in enumerate(PHOTO_BANDS.items()):
            rng = np.random.default_rng(
                HELDOUT_SEED + 900 + 10 * b + zlib.crc32(set_id.encode()) % 1000
            )
            t = Tally()
            for _ in _bar(range(per_band), f"{set_id} photos, {band}"):
                px = float(rng.uniform(lo, hi))
                dice = _random_dice(ds, rng, int(rng.integers(1, 7)))
                try:
                    frame, labels = render_scene(
                        ds, dice, rng, size=PHOTO_SIZE, style=random_style(rng, (px, px * 1.1))
                    )
                except ValueError:
                    continue
                cv2.imwrite(path, frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
                img, scale = read_photo(path)
                rec.reset()
                found = [
                    DieReading(
                        d.x * scale,
                        d.y * scale,
                        d.w * scale,
                        d.h * scale,
                        d.die,
                        d.face,
                        d.confidence,
                    )
                    for d in rec.read(img, fine=True).dice
                ]
                t.add(labels, found)
            out[band] = t.figures()
    return out


# What a real camera adds to every frame, one fault at a time (``camera_fault``); the Settler's
# figures under each are printed by ``dicetray eval`` (rendered throws through camera faults)
CAMERA_FAULTS = ("noise", "flicker", "exposure", "jpeg", "shake", "lamp")
LAMP = (0.55, 1.0, 1.39)  # a warm lamp switched on mid-throw (B, G, R gains: as far from the
# white balance as the far-light rows' warm lamp, hardware.sim.looks warmth 3)
LAMP_FROM = 12  # ... at this frame: the dice are rolling in (after the tray
# model took its first light: vision.pipeline.TrayModel)


def camera_fault(frame: np.ndarray, kind: str, rng: np.random.Generator, t: int) -> np.ndarray:
    """``frame`` as a real camera would give it, frame ``t`` of a stream, with one fault:
    ``noise`` (sensor noise, sigma 5 grey levels), ``flicker`` (a mains-lit room seen by a
    rolling shutter: bands 4% brighter and darker, moving from frame to frame),
    ``exposure`` (automatic exposure drifting 3% over about 20 frames), ``jpeg`` (a webcam's
    MJPEG stream, quality 70), ``shake`` (the camera or the table shaken by up to a pixel
    each way each frame) or ``lamp`` (a warm lamp switched on as the dice roll in, on a camera
    whose exposure and white balance calibration fixed: ``LAMP`` from frame ``LAMP_FROM``).

    >>> import numpy as np
    >>> f = np.full((48, 64, 3), 100, np.uint8)
    >>> rng = np.random.default_rng(0)
    >>> [camera_fault(f, k, rng, 3).shape for k in CAMERA_FAULTS][0]
    (48, 64, 3)
    >>> int(np.abs(camera_fault(f, "flicker", rng, 0).astype(int) - 100).max()) in (3, 4)
    True
    """
    out = frame.astype(np.float32)
    if kind == "noise":
        out += rng.normal(0, 5, out.shape)
    elif kind == "flicker":
        rows = np.arange(out.shape[0], dtype=np.float32)[:, None, None]
        out *= 1 + 0.04 * np.sin(2 * np.pi * (rows / 160.0 + rng.random()))
    elif kind == "exposure":
        out *= 1 + 0.03 * np.sin(t / 3.0)
    elif kind == "shake":
        dx, dy = (float(v) for v in rng.integers(-1, 2, 2))
        out = cv2.warpAffine(
            out,
            np.float32([[1, 0, dx], [0, 1, dy]]),
            (out.shape[1], out.shape[0]),
            borderMode=cv2.BORDER_REPLICATE,
        )
    elif kind == "lamp":
        if t >= LAMP_FROM:
            out *= np.float32(LAMP)
    elif kind != "jpeg":
        raise ValueError(f"no camera fault {kind!r}: one of {', '.join(CAMERA_FAULTS)}")
    out = np.clip(out, 0, 255).astype(np.uint8)
    if kind == "jpeg":
        out = cv2.imdecode(
            cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 70])[1], cv2.IMREAD_COLOR
        )
    return out


def eval_throws(set_id: str, throws: int, fault: str | None = None) -> dict:
    """Rendered throws (held-out seeds) read frame by frame through the Settler: the rolls it
    takes, when, and their faces. ``fault``: every frame first passes ``camera_fault`` (the
    same throws as without it)."""
    from hardware.sim.render import render_throw
    from vision.pipeline import Recognizer
    from vision.settle import Settler

    ds = load(set_id)
    rec = Recognizer(ds)
    rng = np.random.default_rng(HELDOUT_SEED + 500 + zlib.crc32(set_id.encode()) % 1000)
    spoil = np.random.default_rng(zlib.crc32((fault or "").encode()))
    rolls = wrong = unsure_dice = dice_total = bad_timing = extra = missing = 0
    unread = guessed = 0  # unsure dice found but not read; of those, guessed right (the
    # face a first press shows at the table; a die missed or found twice has no guess)
    delays = []
    for _ in _bar(range(throws), f"{set_id} throws" + (f", {fault}" if fault else "")):
        dice = _random_dice(ds, rng, int(rng.integers(1, 7)))
        settler = Settler()
        rec.reset()
        got = []
        rest_from = None
        try:
            for frame, truth in render_throw(ds, dice, rng, rest_frames=10):
                if truth["phase"] == "rest" and rest_from is None:
                    rest_from = truth["frame"]
                if fault:
                    frame = camera_fault(frame, fault, spoil, truth["frame"])
                roll = settler.update(rec.read(frame))
                if roll is not None:
                    got.append((roll, truth))
        except ValueError:
            continue
        if not got:
            missing += 1
            continue
        extra += len(got) - 1
        roll, truth = got[0]
        rolls += 1
        if truth["phase"] != "rest":
            bad_timing += 1
        delays.append(truth["frame"] - (rest_from or 0) + 1)
        labels = truth["labels"]
        for i, k in match(labels, roll.dice):
            dice_total += 1
            if k is None or roll.dice[k].face is None:
                unsure_dice += 1
                if k is not None:
                    unread += 1
                    guessed += roll.dice[k].guess == labels[i]["face"]
            elif (roll.dice[k].die, roll.dice[k].face) != (labels[i]["die"], labels[i]["face"]):
                wrong += 1
        if len(roll.dice) != len(labels):
            unsure_dice += abs(len(roll.dice) - len(labels))
    return {
        "throws": throws,
        "rolls": rolls,
        "missing_rolls": missing,
        "extra_rolls": extra,
        "rolls_not_at_rest": bad_timing,
        "dice": dice_total,
        "wrong_faces_when_sure": wrong,
        "unsure_dice": unsure_dice,
        "unsure_unread": unread,
        "unsure_guessed_right": guessed,
        "frames_rest_to_roll_median": float(np.median(delays)) if delays else None,
        "frames_rest_to_roll_max": int(max(delays)) if delays else None,
    }


def _real_sets(realdice: Path):
    """(name, part, image path, labels) of the real photos, labels as d6 dicts; ``part``:
    train, calibrate or judge (``lab.splits``)."""
    from lab.splits import entries

    parts = {key: e.part for key, e in entries(realdice).items()}
    m = realdice / "matteop65_webcam"
    if (m / "labels.csv").exists():
        rows = defaultdict(list)
        for r in read_label_rows(m / "labels.csv"):
            rows[r["file"]].append(r)
        for f, rs in sorted(rows.items()):
            part = parts[("matteop65_webcam", f)]
            yield "matteop65_webcam", part, m / "images" / f, rs, 1.0, 1.0
    r55 = realdice / "rune55_gray"
    if (r55 / "labels.csv").exists():
        rows = defaultdict(list)
        for r in read_label_rows(r55 / "labels.csv"):
            rows[r["file"]].append(r)
        for f, rs in sorted(rows.items()):
            yield (
                f"rune55_gray/{rs[0]['source']}",
                parts[("rune55_gray", f)],
                r55 / "images" / f,
                rs,
                None,
                None,
            )


def eval_real(realdice: Path, fine: bool = True, judge_only: bool = False) -> dict:
    """Figures on the real photo sets, read as ``dicetray recognize`` reads photos (``fine``);
    ``judge_only``: only the judge photos are read (no "(all)" rows)."""
    from vision.pipeline import Recognizer

    rec = Recognizer(load("d6"))
    tallies: dict[str, Tally] = defaultdict(Tally)
    for name, part, path, rows, _, _ in _bar(list(_real_sets(realdice)), "real photos"):
        if judge_only and part != "judge":
            continue
        img = cv2.imread(str(path))
        if img is None:
            continue
        # read at the photo's own size, as `dicetray recognize` does (rune55 is 640x640)
        labels = [
            {
                "x": float(r["x"]),
                "y": float(r["y"]),
                "w": float(r["w"]),
                "h": float(r["h"]),
                "die": "d6",
                "face": r["value"],
            }
            for r in rows
        ]
        rec.reset()
        found = rec.read(img, fine=fine).dice
        if not judge_only:
            tallies[f"{name} (all)"].add(labels, found)
        if part == "judge":  # never trained on, never set a threshold (lab.splits)
            tallies[f"{name} (judge)"].add(labels, found)
    return {k: t.figures() for k, t in sorted(tallies.items())}


def eval_real_crops(realdice: Path) -> dict:
    """Classifier figures on the judge crops of chase_casino_crops (translucent casino
    dice; the author's test split, ``lab.splits``; no whole photos, so no detection): each crop read
    as the camera loop reads a die (once, a die in doubt again at four turns) and as a photo
    is read (four turns), with the table's own ``vision.frameread.read_boxes``."""
    from lab.photos import read_chase
    from vision.classify import TURNS, FaceClassifier
    from vision.frameread import read_boxes

    root = realdice / "chase_casino_crops"
    if not (root / "labels.csv").exists():
        return {}
    clf = FaceClassifier(load("d6"))
    out = {}
    for path_name, kw in (("camera", {"retry": True}), ("photo", {"turns": TURNS})):
        t = Tally()
        for rc in read_chase(root, size=96):
            if rc.part != "judge":
                continue
            img = cv2.imread(str(root / "images" / rc.file))
            h, w = img.shape[:2]
            r = read_boxes(clf, img, [(0, 0, w, h)], **kw)[0]
            found = SimpleNamespace(x=0, y=0, w=w, h=h, die=r.die, face=r.face, guess=r.guess)
            t.add([{"x": 0, "y": 0, "w": w, "h": h, "die": "d6", "face": str(rc.value)}], [found])
        out[f"chase_casino_crops (judge: test), {path_name} path"] = t.figures()
    return out


def run(sets, scenes: int, throws: int, realdice: Path | None) -> dict:
    """Every figure of ``dicetray eval`` as a dict (a set whose model is missing is skipped,
    with the reason under ``"skipped"``)."""
    report = {
        "rendered": {},
        "rendered_photo": {},
        "other_style": {},
        "other_style_photo": {},
        "throws": {},
        "real": {},
        "skipped": {},
    }
    for s in sets:
        try:
            report["rendered"][s] = eval_rendered(s, scenes)
            report["rendered_photo"][s] = eval_rendered(s, scenes, fine=True)
            report["other_style"][s] = eval_rendered(s, scenes, other=True)
            report["other_style_photo"][s] = eval_rendered(s, scenes, fine=True, other=True)
            report.setdefault("far_light", {})[s] = {
                name: eval_rendered(s, scenes, warmth=w) for name, w in FAR_LIGHT_ROWS.items()
            }
            report.setdefault("odd_floor", {})[s] = eval_rendered(s, scenes, odd=True)
            if s == "d6":  # pip dice come in any colour
                report["dark_dice"] = {s: eval_rendered(s, scenes, dark=True)}
                report["dark_dice_photo"] = {s: eval_rendered(s, scenes, fine=True, dark=True)}
            report.setdefault("large_photos", {})[s] = eval_large_photos(s, max(2, scenes // 10))
            if throws:
                report["throws"][s] = eval_throws(s, throws)
                # a lamp tints the dice, and colours are what tell most sets' dice apart
                report.setdefault("lamp", {})[s] = eval_throws(s, throws, "lamp")
                if s == sets[0]:  # the Settler is the same for every set: one is enough
                    report["camera_faults"] = {
                        f"{s}, {k}": eval_throws(s, throws, k) for k in CAMERA_FAULTS
                    }
        except (FileNotFoundError, RuntimeError) as exc:  # a model missing from models/
            report["skipped"][s] = str(exc)
    if realdice is not None:
        if realdice.exists():
            try:
                report["real"] = eval_real(realdice)
                report["real_camera_path"] = eval_real(realdice, fine=False)
                report["real_crops"] = eval_real_crops(realdice)
            except (FileNotFoundError, RuntimeError) as exc:
                report["skipped"]["real photos"] = str(exc)
        else:
            report["real_note"] = f"{realdice} not found: real photo sets skipped"
    return report


def _row(name: str, f: dict) -> str:
    """One line of a figures table: dice, recall, precision, face right, abstained, wrong."""
    return (
        f"  {name:<26}{f['labelled']:>6}{f['recall']:>9.2%}{f['precision']:>9.2%}"
        f"{f['face_accuracy']:>10.2%}{f['abstained']:>9.2%}{f['wrong_count']:>7}"
        f"{f.get('asked_guess_right', 0.0):>8.1%}"
    )


_HEAD = (
    f"  {'set':<26}{'dice':>6}{'recall':>9}{'precis.':>9}{'face acc':>10}{'abstain':>9}{'wrong':>7}"
    f"{'guess':>8}"
)


def _table(figures: dict) -> list[str]:
    """The head and a row a dice set (or photo set)."""
    return [_HEAD] + [_row(s, f) for s, f in figures.items()]


def _by_light(figures: dict) -> list[str]:
    """The head and a row a dice set and light (the light's name without its note)."""
    return [_HEAD] + [
        _row(f"{s}, {name.split(' (')[0]}", f)
        for s, rows in figures.items()
        for name, f in rows.items()
    ]


def _by_band(figures: dict) -> list[str]:
    """The head and a row a dice set and size band."""
    return [_HEAD] + [
        _row(f"{s} {band}", f) for s, bands in figures.items() for band, f in bands.items()
    ]


def _throw_lines(figures: dict) -> list[str]:
    """A line a dice set of the throws through the Settler."""
    return [
        f"  {s:<10} throws {t['throws']}, rolls {t['rolls']}, missing "
        f"{t['missing_rolls']}, extra {t['extra_rolls']}, not at rest "
        f"{t['rolls_not_at_rest']}, wrong faces when sure "
        f"{t['wrong_faces_when_sure']} of {t['dice']} dice, unsure "
        f"{t['unsure_dice']} ({t.get('unsure_unread', 0)} found unread, "
        f"{t.get('unsure_guessed_right', 0)} of them guessed right), frames rest->roll median "
        f"{t['frames_rest_to_roll_median']} max {t['frames_rest_to_roll_max']}"
        for s, t in figures.items()
    ]


def _crop_lines(figures: dict) -> list[str]:
    """The head and, a crop set each, its name and its classifier figures (no detection)."""
    out = [_HEAD]
    for s, f in figures.items():
        out.append(f"  {s}")
        out.append(
            f"  {'':<26}{f['labelled']:>6}{'-':>9}{'-':>9}{f['face_accuracy']:>10.2%}"
            f"{f['abstained']:>9.2%}{f['wrong_count']:>7}{f.get('asked_guess_right', 0.0):>8.1%}"
        )
    return out


#: the report's sections in order: (key of the report, title, its lines below the title)
_SECTIONS = (
    ("rendered", "Rendered held-out scenes (per dice set), each read as one camera frame:", _table),
    (
        "rendered_photo",
        "The same scenes read as `dicetray recognize` reads a photo (tile search, four turns):",
        _table,
    ),
    (
        "other_style",
        "Held-out OTHER STYLE (look, light, palette, floor never trained on), one camera frame "
        "each:",
        _table,
    ),
    ("other_style_photo", "The other-style scenes read as photos:", _table),
    (
        "far_light",
        "Held-out scenes under a light far from the camera's white balance "
        "(hardware.sim.looks.light_cast), one camera frame each:",
        _by_light,
    ),
    (
        "odd_floor",
        "Held-out scenes on trays unlike the named floors (a grain as fine as pips, "
        "a printed board, speckle), one camera frame each:",
        _table,
    ),
    (
        "dark_dice",
        "Held-out scenes of dark dice with coloured marks (lab.evaluate.dark_dice) on a white "
        "tray, one camera frame each:",
        _table,
    ),
    ("dark_dice_photo", "The dark dice read as photos:", _table),
    (
        "large_photos",
        f"Rendered {PHOTO_SIZE[0]}x{PHOTO_SIZE[1]} photos (JPEG files, read as "
        "`dicetray recognize` reads them), by the dice's size in the photo:",
        _by_band,
    ),
    ("throws", "Rendered throws through the Settler:", _throw_lines),
    (
        "lamp",
        "The same throws with a warm lamp switched on as the dice roll in (camera fault 'lamp'):",
        _throw_lines,
    ),
    (
        "camera_faults",
        "The same throws through a real camera's faults (lab.evaluate.camera_fault), one at a "
        "time:",
        _throw_lines,
    ),
    ("real", "Real photos, read as `dicetray recognize` reads photos:", _table),
    (
        "real_camera_path",
        "Real photos, read as camera frames (one detector pass, `recognize --fast`):",
        _table,
    ),
    ("real_crops", "Real die crops, classifier only (no detection):", _crop_lines),
)


def format_report(r: dict) -> str:
    out = [
        "dicetray eval",
        "",
        "Targets: rendered face accuracy >= 99.5% every set; 0 wrong faces when sure in",
        "settled rolls, <= 5 frames rest->roll; matteop65_webcam recall >= 98% and face",
        "accuracy >= 98%; rune55_gray reported per source. guess: of the dice abstained on,",
        "the share whose guess (the face a first press shows at the table) is right.",
    ]
    for key, title, lines in _SECTIONS:
        if r.get(key):
            out += ["", title, *lines(r[key])]
    if r.get("real_note"):
        out += ["", r["real_note"]]
    for s, why in r.get("skipped", {}).items():
        out += ["", f"{s}: skipped, {why}"]
    return "\n".join(out + _confusions(r))


def _confusions(r: dict) -> list[str]:
    """What each face was read as when read wrong: rendered, a dice set each, then the real
    photo sets (all photos)."""
    out = ["", "Confusion (truth -> read: count)" + (", rendered:" if r["rendered"] else ":")]
    for s, f in r["rendered"].items():
        errs = {t: {k: v for k, v in c.items() if k != t} for t, c in f["confusion"].items()}
        errs = {t: c for t, c in errs.items() if c}
        out.append(
            f"  {s}: "
            + ("no confusions" if not errs else "; ".join(f"{t} -> {c}" for t, c in errs.items()))
        )
    for s, f in r.get("real", {}).items():
        if "(all)" in s:
            errs = {t: {k: v for k, v in c.items() if k != t} for t, c in f["confusion"].items()}
            out.append(f"  {s}: " + "; ".join(f"{t} -> {c}" for t, c in errs.items() if c))
    return out
