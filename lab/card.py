"""The model card's tables (``models/README.md``), measured and written by one command.

    python -m lab.card                          # measure, save models/figures.json, rewrite
    dicetray eval --card                        # the same
    python -m lab.card --from models/figures.json          # rewrite the tables only
    python -m lab.card --from models/figures.json --loso loso.json   # add a LOSO report
    python -m lab.card --check                  # exit 1 when the card and its numbers differ

Measuring runs the evaluations of ``dicetray eval`` that the card reports, with the shipped
models: per dice set, rendered held-out scenes in the classic and the other drawing style,
each read as a camera frame and as a photo (``lab.evaluate.eval_rendered``); the judge photos
of every real source (``lab.splits``), on the photo and the camera path
(``lab.evaluate.eval_real``, ``eval_real_crops``); the teaching cases of ``dicetray bench
--teach`` (``lab.teachbench.CASES``); and, with ``--loso``, leave-one-source-out
(``lab.loso`` as the shipped d6 reader is made, ``LOSO_RUNS``: about two hours here;
``--loso FILE`` reads a ``dicetray eval --loso --json``
report instead). The raw counts go to ``models/figures.json``; the card's tables between its
``<!-- NAME: begin -->`` and ``<!-- NAME: end -->`` markers (``SECTIONS``) are rendered from
that file alone, so ``--from`` rewrites them without measuring, and a test checks that the
committed card is the rendering of the committed numbers.

    >>> row = {"dice": 200, "found": 196, "right": 190, "asked": 5, "wrong": 1}
    >>> _cells(row)
    ['200', '98.0%', '96.9%', '2.6%', '0.51% (1)']
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"
CARD = MODELS / "README.md"
FIGURES = MODELS / "figures.json"
FORMAT = 1
SCENES = 100  # rendered held-out scenes per dice set and drawing style (dicetray eval: 150)
SECTIONS = ("thresholds", "splits", "figures", "taught")
STYLES = {"classic": False, "other": True}  # drawing style -> lab.evaluate's ``other``
PATHS = {"camera": False, "photo": True}  # path -> lab.evaluate's ``fine``
COUNTS = ("dice", "found", "right", "asked", "wrong")


class CardError(ValueError):
    """Input the card command cannot use; the message says what to do, in one line."""


# --------------------------------------------------------------------------------------------
# counts: every figure is kept as whole numbers (dice, found, right, asked, wrong), right,
# asked and wrong among the dice found


def _counts(dice: int, found: int, f: dict) -> dict:
    """Whole numbers from shares of the ``found`` dice (``face_accuracy`` or ``right``,
    ``abstained`` or ``asked``) and ``wrong_count``."""
    right = f["face_accuracy"] if "face_accuracy" in f else f["right"]
    asked = f["abstained"] if "abstained" in f else f["asked"]
    return {
        "dice": int(dice),
        "found": int(found),
        "right": round(right * found),
        "asked": round(asked * found),
        "wrong": int(f["wrong_count"]),
    }


def from_tally(f: dict) -> dict:
    """Counts from ``lab.evaluate.Tally.figures()`` (shares of the matched dice)."""
    return _counts(f["labelled"], int(f["matched"]), f)


def from_recall(f: dict) -> dict:
    """Counts from figures given as recall + shares of the found dice (``lab.evalteach``)."""
    return _counts(f["labelled"], round(f["recall"] * f["labelled"]), f)


def from_shares(f: dict) -> dict:
    """Counts from ``lab.loso.Count.figures()`` (found a share of the dice, the rest of the
    found dice)."""
    return _counts(f["dice"], round(f["found"] * f["dice"]), f)


# --------------------------------------------------------------------------------------------
# measuring


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def model_facts(models_dir: Path = MODELS) -> dict:
    """What each shipped model's card says of its thresholds, and the model file's SHA-256:
    the figures belong to these files."""
    out = {}
    for path in sorted(models_dir.glob("classifier-*.json")):
        meta = json.loads(path.read_text(encoding="utf-8"))
        turned = meta.get("turned", {})
        out[path.stem] = {
            "sha256": _sha256(path.with_suffix(".onnx")),
            "threshold": meta["threshold"],
            "die_thresholds": meta.get("die_thresholds", {}),
            "turned_threshold": turned.get("threshold", meta["threshold"]),
            "turned_die_thresholds": turned.get("die_thresholds", {}),
            "bound": meta.get("bound"),
            "turned_bound": turned.get("bound"),
            "set_on": meta.get("set_on"),
            "turned_set_on": turned.get("set_on"),
            "calibration": meta.get("calibration"),
        }
        small = meta.get("small")
        if small:  # the threshold of small dice (lab.calibrate.choose_small)
            out[path.stem]["small"] = {
                "px": small["px"],
                **{
                    key: {k: small[key].get(k) for k in ("threshold", "bound", "set_on")}
                    for key in ("once", "turned")
                },
            }
        # floors set on dice of sources the networks never saw (lab.unseen), and on prints
        # the network never trained on (lab.farprint)
        for key, said in (("unseen", ("folds", "per_source")), ("far_print", ("sha256", "scenes"))):
            if meta.get(key):
                out[path.stem][key] = _floors_said(meta[key], said)
        joint = meta.get("joint")
        if joint:  # a second network heard at four turns (vision.classcard.second_path)
            out[path.stem]["joint"] = {
                "network": joint["network"],
                "sha256": _sha256(models_dir / joint["network"]),
                "threshold": joint["threshold"],
                "bound": joint.get("bound"),
                "set_on": joint.get("set_on"),
            }
            if isinstance(joint.get("small"), dict):  # a photo's small dice read by both
                keys = ("threshold", "bound", "set_on", "pip_agree_threshold", "pip_agree_bound")
                out[path.stem]["joint"]["small"] = {
                    k: joint["small"][k] for k in keys if k in joint["small"]
                }
    det = models_dir / "detector.json"
    if det.is_file():
        meta = json.loads(det.read_text(encoding="utf-8"))
        out["detector"] = {
            "sha256": _sha256(models_dir / "detector.onnx"),
            "threshold": meta.get("threshold"),
            "hand_share": meta.get("hand_share"),
        }
    return out


def measure_rendered(sets, scenes: int, log=print) -> dict:
    """{set: {"<style>, <path>": counts}} on rendered held-out scenes."""
    from lab import evaluate

    out = {}
    for s in sets:
        rows = {}
        for style, other in STYLES.items():
            for path, fine in PATHS.items():
                t0 = time.time()
                f = evaluate.eval_rendered(s, scenes, fine=fine, other=other)
                rows[f"{style}, {path}"] = from_tally(f)
                log(f"[card] {s} {style} style, {path} path: {time.time() - t0:.0f} s")
        out[s] = rows
    return out


def measure_real(realdice: Path, log=print) -> dict:
    """{source: {"photo": counts, "camera": counts}} on the judge photos (and crops)."""
    from lab import evaluate
    from lab.splits import SOURCES

    out: dict[str, dict] = {}
    for path, fine in PATHS.items():
        t0 = time.time()
        for key, f in evaluate.eval_real(realdice, fine=fine, judge_only=True).items():
            source = key.split("/")[-1].removesuffix(" (judge)")
            out.setdefault(source, {})[path] = from_tally(f)
        log(f"[card] real judge photos, {path} path: {time.time() - t0:.0f} s")
    for key, f in evaluate.eval_real_crops(realdice).items():
        path = "camera" if key.endswith("camera path") else "photo"
        out.setdefault("chase_casino_crops", {})[path] = from_tally(f)
    return {s: out[s] for s in (*SOURCES, *sorted(set(out) - set(SOURCES))) if s in out}


# the photo seeds each teaching case is measured with (``lab.teachbench.run``): one seed's
# photos showed 96.6% of fresh Rollers dice read right, another's 86.7%
TEACH_SEEDS = (11, 21, 31)


def measure_taught(cases, log=print, seeds=TEACH_SEEDS) -> dict:
    """{case: what ``dicetray bench --teach --case CASE --photo-seed S`` measures for each
    of ``seeds``} (``lab.teachbench``): the dice counts summed over the seeds, the time and
    memory the most any seed took."""
    from lab import teachbench

    out = {}
    for case in cases:
        runs = []
        for seed in seeds:
            runs.append(teachbench.run(case=case, photo_seed=seed))
            log(f"[card] taught {case}, photo seed {seed}: {runs[-1]['teach_wall_s']:.0f} s wall")
        r, taught = runs[0], [from_recall(x["fresh"]["taught"]) for x in runs]
        out[case] = {
            "what": r["what"],
            "photos": r["photos"],
            "dice": r["dice"],
            "fresh_photos": r["fresh_photos"],
            "seeds": list(seeds),
            "wall_s": max(x["teach_wall_s"] for x in runs),
            "cpu_s": max(x["teach_cpu_s"] for x in runs),
            "peak_mb": max(x["peak_memory_mb"] for x in runs),
            "method": r["method"],
            "torch_loaded": any(x["torch_loaded"] for x in runs),
            "shipped": _summed(from_recall(x["fresh"]["zero_shot"]) for x in runs),
            "taught": _summed(taught),
            "taught_per_seed": taught,
        }
    return out


def _summed(counts) -> dict:
    """Count dicts (:func:`_counts`) added up."""
    out: dict = {}
    for c in counts:
        for k, v in c.items():
            out[k] = out.get(k, 0) + v
    return out


def read_loso(report: dict) -> dict:
    """The card's part of a ``dicetray eval --loso --json`` report."""
    try:
        sources = {
            s: {
                "photo": from_shares(fold["figures"]["photo"]),
                "camera": from_shares(fold["figures"]["camera"]),
                "threshold_once": fold["threshold_once"],
                "threshold_turned": fold["threshold_turned"],
            }
            for s, fold in report["folds"].items()
        }
        out = {
            "recipe": report.get("recipe", "?"),
            "seconds": report.get("seconds"),
            "sources": sources,
        }
        if report.get("note"):  # how the run differs from the rule above (lab.loso)
            out["note"] = report["note"]
        return out
    except (KeyError, TypeError, ValueError) as exc:
        raise CardError(f"not a `dicetray eval --loso --json` report (no {exc} in it)") from None


def load_loso(path: Path) -> dict:
    try:
        return read_loso(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, json.JSONDecodeError) as exc:
        raise CardError(f"--loso {path}: cannot read it ({exc})") from None
    except CardError as exc:
        raise CardError(f"--loso {path}: {exc}") from None


# leave-one-source-out as the shipped d6 reader reads and is calibrated: the second network's
# folds, the first network's, then the two together over floors set on unseen dice
SECOND_RECIPE = "lite0-plain-e3-c2-r6000-s1-x96"
LOSO_RUNS = (
    ["--net", "lite0", "--epochs", "3", "--side", "96", "--threads", "2"],
    ["--threads", "2"],
    ["--reuse", "--second", SECOND_RECIPE, "--unseen", "--threads", "2", "--json"],
)


def run_loso(log=print) -> dict:
    """Run ``python -m lab.loso`` as the shipped d6 reader is made (``LOSO_RUNS``: about two
    hours here) and read the last run's report."""
    done = None
    for args in LOSO_RUNS:
        done = subprocess.run(
            [sys.executable, "-m", "lab.loso", *args],
            capture_output=True,
            text=True,
            check=False,
            cwd=ROOT,
        )
        if done.returncode != 0:
            why = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise CardError(f"the leave-one-source-out run failed: {why}")
        log(f"[card] lab.loso {' '.join(args)}: done")
    return read_loso(json.loads(done.stdout))


def measure(
    scenes: int = SCENES,
    realdice: Path | None = None,
    teach: bool = True,
    loso: dict | None = None,
    sets=None,
    log=print,
) -> dict:
    """Every number the card shows, measured now with the shipped models (see the module
    text): the content of ``models/figures.json``."""
    from lab.evaluate import HELDOUT_SEED
    from lab.teachbench import CASES
    from vision.dicesets import SET_IDS

    figures = {
        "format": FORMAT,
        "scenes": scenes,
        "heldout_seed": HELDOUT_SEED,
        "machine": {"cpu": platform.machine(), "cores": os.cpu_count()},
        "models": model_facts(),
        "rendered": measure_rendered(sets or SET_IDS, scenes, log),
        "real": None,
        "splits": None,
        "loso": loso,
        "taught": measure_taught(CASES, log) if teach else None,
    }
    if realdice is not None and realdice.is_dir():
        from lab.splits import RULES, table

        figures["splits"] = {"rules": RULES, "per_source": table(realdice)}
        figures["real"] = measure_real(realdice, log)
    return figures


# --------------------------------------------------------------------------------------------
# rendering: Markdown from figures.json alone


def _pct(n: float, d: float, digits: int = 1) -> str:
    return f"{100 * n / d:.{digits}f}%" if d else "-"


def _cells(c: dict) -> list[str]:
    return [
        str(c["dice"]),
        _pct(c["found"], c["dice"]),
        _pct(c["right"], c["found"]),
        _pct(c["asked"], c["found"]),
        f"{_pct(c['wrong'], c['found'], 2)} ({c['wrong']})",
    ]


def _table(head: list[str], rows: list[list[str]], right_from: int) -> list[str]:
    align = ["---" if i < right_from else "---:" for i in range(len(head))]
    return [f"| {' | '.join(r)} |" for r in (head, align, *rows)]


def _num(t: float) -> str:
    """A threshold to three decimals, or four where three would round it up to 1.

    >>> _num(0.9), _num(0.9871), _num(0.9997), _num(1.0)
    ('0.9', '0.987', '0.9997', '1')
    """
    places = 4 if 0.9995 <= t < 1 else 3
    return f"{t:.{places}f}".rstrip("0").rstrip(".")


def _thr(t: float, per_die: dict) -> str:
    text = _num(t) if t <= 1 else "never (asks)"
    if per_die:
        text += " (" + ", ".join(f"{d} {v:g}" for d, v in sorted(per_die.items())) + ")"
    return text


def _set_on(set_on, calibration) -> str:
    if isinstance(set_on, dict):
        parts = [f"rendered {set_on['rendered']}"] if "rendered" in set_on else []
        parts += [f"{s} {n}" for s, n in set_on.items() if s != "rendered"]
        return "dice: " + ", ".join(parts)
    if calibration and calibration.get("set_on"):
        return str(calibration["set_on"])
    return "not stated"


def _bound(bound, calibration) -> str:
    if bound:
        return (
            f"<= {bound['wrong_rate_bound']:.2%} at {bound['confidence']:.0%} "
            f"({bound['read_wrong']} wrong of {bound['calibration_dice']})"
        )
    if calibration and calibration.get("bound"):
        return str(calibration["bound"])
    return "none stated"


def _floors_said(floors: dict, said: tuple[str, ...]) -> dict:
    """What the card says of a model's floors: the fields ``said``, and each floor's
    threshold, bound and the dice it was set on."""
    return {
        **{k: floors.get(k) for k in said},
        **{
            key: {k: floors[key].get(k) for k in ("threshold", "bound", "set_on")}
            for key in UNSEEN_KEYS
            if isinstance(floors.get(key), dict)
        },
    }


# the floors of lab.unseen, as the card names them
UNSEEN_KEYS = {
    "once": "read once",
    "turned": "four turns",
    "joint": "their mean",
    "small_once": "small dice once",
    "small_turned": "small dice at four turns",
    "small_joint": "small dice, their mean",
}


def _floor_parts(floors: dict) -> list[str]:
    """Each floor of a card's ``unseen`` or ``far_print``: its threshold, and its wrong reads
    among the dice it was set on."""
    parts = []
    for key, what in UNSEEN_KEYS.items():
        f = floors.get(key)
        if f:
            b = f["bound"]
            wrong = f"{b['read_wrong']} wrong of {b['calibration_dice']}"
            parts.append(f"{what} {_num(f['threshold'])} ({wrong})")
    return parts


def _far_line(name: str, far: dict) -> str:
    """What the far-print floors of one model are and rest on."""
    return (
        f"`{name}`: no threshold under its floor, the same bound on dice printed in glyphs bent "
        f"beyond any training look's (`lab.farprint`: {far.get('scenes')} rendered scenes, and "
        "as many of small dice, read by this network, which never trained on such a print): "
        + "; ".join(_floor_parts(far))
        + "."
    )


def _unseen_line(name: str, unseen: dict) -> str:
    """What the floors of one model are and rest on."""
    parts = _floor_parts(unseen)
    sources = sorted({s for key in UNSEEN_KEYS for s in (unseen.get(key) or {}).get("set_on", {})})
    cap = unseen.get("per_source")
    return (
        f"`{name}`: no threshold under its floor, the same bound on unseen dice (`lab.unseen`: "
        f"the train and calibrate photos of {', '.join(sources)}, each read by the "
        f"leave-one-source-out fold `{unseen.get('folds')}` that never saw it, "
        + (f"at most {cap} dice a source" if cap else "every die of each")
        + "): "
        + "; ".join(parts)
        + "."
    )


def render_thresholds(fig: dict) -> list[str]:
    rows = []
    for name, m in fig["models"].items():
        if name == "detector":
            continue
        cal = m.get("calibration")
        rows.append(
            [
                f"`{name}`",
                _thr(m["threshold"], m["die_thresholds"]),
                _thr(m["turned_threshold"], m["turned_die_thresholds"]),
                _set_on(m.get("turned_set_on") or m.get("set_on"), cal),
                " / ".join(
                    dict.fromkeys([_bound(m.get("bound"), cal), _bound(m.get("turned_bound"), cal)])
                ),
            ]
        )
        small = m.get("small")
        if small:
            once, turned = small["once"], small["turned"]
            rows.append(
                [
                    f"`{name}`, dice of {small['px'][0]}-{small['px'][1] - 1} px",
                    # a small die is read at both its threshold and the network's own
                    _thr(max(once["threshold"], m["threshold"]), {}),
                    _thr(max(turned["threshold"], m["turned_threshold"]), {}),
                    _set_on(turned.get("set_on"), cal),
                    " / ".join(
                        dict.fromkeys([_bound(once["bound"], cal), _bound(turned["bound"], cal)])
                    ),
                ]
            )
        joint = m.get("joint")
        if joint:
            second = joint["network"].removesuffix(".onnx")
            rows.append(
                [
                    f"`{name}` with `{second}` (their mean)",
                    "-",
                    _thr(joint["threshold"], {}),
                    _set_on(joint.get("set_on"), cal),
                    _bound(joint.get("bound"), cal),
                ]
            )
            js = joint.get("small")
            if js and small:
                px = f"{small['px'][0]}-{small['px'][1] - 1} px"
                both = [
                    ("", max(js["threshold"], joint["threshold"]), js.get("bound")),
                    # lab.calibrate.choose_small_pips
                    (
                        ", the pips agreeing",
                        js.get("pip_agree_threshold"),
                        js.get("pip_agree_bound"),
                    ),
                ]
                rows += [
                    [
                        f"`{name}` with `{second}`, dice of {px}{how}",
                        "-",
                        _thr(cut, {}),
                        _set_on(js.get("set_on"), cal),
                        _bound(bound, cal),
                    ]
                    for how, cut, bound in both
                    if cut is not None
                ]
    out = _table(
        ["model", "read once", "at four turns", "set on", "bound (once / four turns)"],
        rows,
        99,
    )
    for name, m in fig["models"].items():
        if m.get("unseen"):
            out += ["", _unseen_line(name, m["unseen"])]
        if m.get("far_print"):
            out += ["", _far_line(name, m["far_print"])]
    det = fig["models"].get("detector")
    if det:
        out += [
            "",
            f"Detector: a die is a heat peak over {det['threshold']}; a frame is a hand's when "
            f"over {det['hand_share']:.0%} of it is hand (set by hand, not calibrated).",
        ]
    return out


def render_splits(fig: dict) -> list[str]:
    sp = fig.get("splits")
    if not sp:
        return ["No real photo sets were there when the figures were measured."]
    rows = []
    for source, parts in sp["per_source"].items():
        cells = [
            f"{p['photos']} ({p['dice']})" if p else "-"
            for p in (parts.get("train"), parts.get("calibrate"), parts.get("judge"))
        ]
        rows.append([source, *cells])
    return [
        *_table(["source", "train: photos (dice)", "calibrate", "judge"], rows, 1),
        "",
        f"How: {sp['rules']}.",
    ]


def render_figures(fig: dict) -> list[str]:
    head = ["set", "data", "path", "dice", "found", "right", "asked", "wrong (n)"]
    rows = []
    for s, by in fig["rendered"].items():
        for key, c in by.items():
            style, path = key.split(", ")
            rows.append([s, f"rendered, {style} style", path, *_cells(c)])
    for source, by in (fig.get("real") or {}).items():
        data = f"{source}, judge" + (" crops" if source == "chase_casino_crops" else " photos")
        for path in PATHS:
            if path in by:
                rows.append(["d6", data, path, *_cells(by[path])])
    loso = fig.get("loso")
    if loso:
        for source, by in loso["sources"].items():
            for path in PATHS:
                rows.append(["d6", f"{source}, left out", path, *_cells(by[path])])
    out = [
        f"Measured by `python -m lab.card` (`dicetray eval --card`) with the models of the "
        "thresholds table: "
        f"{fig['scenes']} rendered held-out scenes per dice set and drawing style (seeds from "
        f"{fig['heldout_seed']}, never trained on), each read as a camera frame (one detector "
        "pass, one read) and as a photo (tile search, four turns)"
        + ("; every judge photo of the real sources" if fig.get("real") else "")
        + ". found: share of the labelled dice found; right, asked and wrong: shares of the "
        "dice found; wrong: read as another face without abstaining.",
        "",
        *_table(head, rows, 3),
    ]
    if loso:
        missing = [s for s in (fig.get("real") or {}) if s not in loso["sources"]]
        out += [
            "",
            f"Left out (`dicetray eval --loso`, recipe {loso['recipe']}): each source read "
            "by a d6 classifier trained and calibrated without any of its photos; the dice "
            "are found by the shipped detector, which trained on every source."
            + (f" Not left out in this run: {', '.join(missing)}." if missing else "")
            + (f" {loso['note']}" if loso.get("note") else ""),
        ]
    else:
        out += [
            "",
            "Leave-one-source-out (`dicetray eval --loso`, over an hour here) was not "
            "included in this measurement.",
        ]
    return out


def render_taught(fig: dict) -> list[str]:
    t = fig.get("taught")
    if not t:
        return ["The teaching cases were not measured (`--no-teach`)."]
    rows = []
    for case, r in t.items():
        s, k = r["shipped"], r["taught"]
        runs = len(r.get("seeds", [None]))
        each = r.get("taught_per_seed", [])
        rows.append(
            [
                case,
                r["what"],
                f"{r['photos']} ({r['dice']})",
                f"{r['wall_s']:.0f} / {r['cpu_s']:.0f}",
                f"{r['peak_mb']:.0f}",
                f"{r['fresh_photos'] * runs} ({k['dice']})",
                f"{_pct(s['right'], s['found'])} / {s['wrong']}",
                f"{_pct(k['found'], k['dice'])} / {_pct(k['right'], k['found'])} / "
                f"{_pct(k['asked'], k['found'])} / {k['wrong']}",
                ", ".join(f"{_pct(e['right'], e['found'])} / {e['wrong']}" for e in each) or "-",
            ]
        )
    m = fig["machine"]
    first = next(iter(t.values()))
    torch = any(r["torch_loaded"] for r in t.values())
    seeds = first.get("seeds")
    how = (
        f"each case taught {len(seeds)} times, from the photos of seeds "
        f"{', '.join(map(str, seeds))} (`--photo-seed`), and scored on fresh photos of other "
        "seeds of the same dice: dice summed over the seeds; time and memory the most one "
        "teaching took"
        if seeds
        else "fresh photos are other seeds' photos of the same dice"
    )
    return [
        f"`dicetray bench --teach --case CASE` on rendered photos ({m['cpu']}, {m['cores']} "
        f"cores shared with other jobs), taught by {first['method']}, torch "
        f"{'loaded' if torch else 'not loaded'}; {how}.",
        "",
        *_table(
            [
                "case",
                "dice",
                "taught from: photos (dice)",
                "wall / CPU s",
                "peak MB",
                "fresh: photos (dice)",
                "shipped: right / wrong",
                "taught: found / right / asked / wrong",
                "taught, each seed: right / wrong",
            ],
            rows,
            2,
        ),
    ]


RENDER = {
    "thresholds": render_thresholds,
    "splits": render_splits,
    "figures": render_figures,
    "taught": render_taught,
}


def render(fig: dict) -> dict[str, str]:
    """{section: its Markdown}, from the figures alone."""
    if fig.get("format") != FORMAT:
        raise CardError(f"figures of format {fig.get('format')!r}, not {FORMAT}: measure again")
    return {name: "\n".join(RENDER[name](fig)) for name in SECTIONS}


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}: begin -->", f"<!-- {name}: end -->"


def sections_of(text: str) -> dict[str, str]:
    """{section: the text between its markers} of a card (CardError when one is missing)."""
    out = {}
    for name in SECTIONS:
        begin, end = _markers(name)
        m = re.search(re.escape(begin) + r"\n(.*?)\n?" + re.escape(end), text, re.DOTALL)
        if m is None:
            raise CardError(
                f"no '{begin}' ... '{end}' pair in the card: add them where that table goes"
            )
        out[name] = m.group(1).rstrip("\n")
    return out


def write_card(card: Path, fig: dict) -> None:
    text = card.read_text(encoding="utf-8")
    sections_of(text)  # every marker there, or a clear error before anything is written
    for name, body in render(fig).items():
        begin, end = _markers(name)
        text = re.sub(
            re.escape(begin) + r".*?" + re.escape(end),
            lambda _m, b=begin, e=end, body=body: f"{b}\n{body}\n{e}",
            text,
            count=1,
            flags=re.DOTALL,
        )
    card.write_text(text, encoding="utf-8")


def differences(card: Path, fig: dict) -> list[str]:
    """The sections of ``card`` that are not the rendering of ``fig``."""
    have = sections_of(card.read_text(encoding="utf-8"))
    return [name for name, body in render(fig).items() if have[name] != body]


def load_figures(path: Path) -> dict:
    try:
        fig = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CardError(f"{path}: cannot read the figures ({exc})") from None
    if not isinstance(fig, dict):
        raise CardError(f"{path}: not a figures file of lab.card")
    return fig


def stale_models(fig: dict, models_dir: Path = MODELS) -> list[str]:
    """The models whose files changed since the figures were measured."""
    now = model_facts(models_dir)
    return sorted(
        name
        for name, m in fig.get("models", {}).items()
        if name not in now
        or now[name]["sha256"] != m.get("sha256")
        or now[name].get("threshold") != m.get("threshold")
        or now[name].get("turned_threshold") != m.get("turned_threshold")
        or now[name].get("joint") != m.get("joint")
        or now[name].get("small") != m.get("small")
    )


def main(argv: list[str] | None = None) -> int:
    from lab.labels import REALDICE_DIR

    p = argparse.ArgumentParser(
        prog="python -m lab.card",
        description=__doc__.split("\n\n    >>>")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--scenes", type=int, default=SCENES, help=f"default {SCENES}")
    p.add_argument("--realdice", default=str(REALDICE_DIR), help="the real photo sets")
    p.add_argument("--no-teach", action="store_true", help="leave the teaching cases out")
    p.add_argument(
        "--teach-only",
        action="store_true",
        help="measure the teaching cases alone, into the figures file's other figures "
        "(teaching changed, the shipped models did not)",
    )
    p.add_argument(
        "--loso",
        nargs="?",
        const="run",
        default=None,
        metavar="FILE",
        help="include leave-one-source-out: a `dicetray eval --loso --json` report, or "
        "with no FILE run it as the shipped d6 reader is made (about two hours)",
    )
    p.add_argument(
        "--from",
        dest="from_",
        metavar="FIGURES",
        default=None,
        help="render the card from this figures file instead of measuring",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="only say whether the card is the rendering of its figures and whether the "
        "models changed since (exit 1 if not)",
    )
    p.add_argument("--card", default=str(CARD), help="the card to rewrite (models/README.md)")
    p.add_argument("--out", default=None, help="where the figures go (default models/figures.json)")
    args = p.parse_args(argv)
    card = Path(args.card)

    def log(*a):
        print(*a, file=sys.stderr, flush=True)

    try:
        if args.check:
            fig = load_figures(Path(args.from_ or FIGURES))
            bad = differences(card, fig)
            stale = stale_models(fig)
            for name in bad:
                print(f"{card}: the {name} table is not the rendering of its figures")
            if stale:
                print(f"measured with other files or thresholds of: {', '.join(stale)}")
            return 1 if bad or stale else 0
        if args.scenes < 1:
            raise CardError(f"--scenes {args.scenes}: at least 1 scene")
        if not card.is_file():
            raise CardError(f"{card}: no such card")
        sections_of(card.read_text(encoding="utf-8"))
        loso = None
        if args.loso not in (None, "run"):
            loso = load_loso(Path(args.loso))
        if args.teach_only:
            from lab.teachbench import CASES

            fig = load_figures(Path(args.from_ or FIGURES))
            if stale := stale_models(fig):
                raise CardError(
                    f"the figures were measured with other files or thresholds of "
                    f"{', '.join(stale)}: measure the whole card"
                )
            fig["taught"] = measure_taught(CASES, log)
        elif args.from_:
            fig = load_figures(Path(args.from_))
            if loso is not None:
                fig["loso"] = loso
            render(fig)
        else:
            if args.loso == "run":
                loso = run_loso(log)
            t0 = time.time()
            fig = measure(args.scenes, Path(args.realdice), not args.no_teach, loso, log=log)
            log(f"[card] measured in {time.time() - t0:.0f} s")
        out = Path(args.out) if args.out else (Path(args.from_) if args.from_ else FIGURES)
        out.write_text(json.dumps(fig, indent=1) + "\n", encoding="utf-8")
        write_card(card, fig)
    except CardError as exc:
        print(f"lab.card: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {out} and the tables of {card}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
