"""``dicetray stats [--journals DIR] [--plot DIR] [--json]``: dice fairness and the table's
history (tray/history.py) from a journal folder, in words or JSON; ``--plot`` also saves each
finished game's round-by-round score chart as a PNG (tray/screen/chart.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tray.app.config import load_config
from tray.history import GameRecord, chart, dice_fairness, history, read_folder
from tray.rules import games as game_modules
from tray.screen.chart import save_chart


def main_stats(argv: list[str]) -> int:
    """``dicetray stats``: dice fairness and the table's history from a journal folder."""
    ap = argparse.ArgumentParser(
        prog="dicetray stats", description="dice fairness and the table's history"
    )
    ap.add_argument(
        "--journals",
        default=None,
        metavar="DIR",
        help="the journal folder (default: the one in the config file)",
    )
    ap.add_argument(
        "--plot",
        default=None,
        metavar="DIR",
        help="save each finished game's round-by-round score chart as DIR/*.png",
    )
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args(argv)
    folder = args.journals
    if folder is None:
        try:
            folder = load_config().journal.directory
        except Exception as err:  # noqa: BLE001 - a bad config: say so and stop
            print(f"dicetray stats: {err}", file=sys.stderr)
            return 2
    if args.journals is not None and not Path(folder).expanduser().is_dir():
        p = Path(folder).expanduser()
        why = "is a file, not a folder" if p.exists() else "no such folder"
        print(
            f"dicetray stats: {folder}: {why}: give the folder the journals are in "
            "(--journals DIR; without it, the config's journal folder)",
            file=sys.stderr,
        )
        return 2
    records, notes = read_folder(folder)
    out = {
        "journals": str(folder),
        "read": len(records),
        "skipped": notes,
        "dice": dice_fairness(records),
        "history": history(records),
    }
    if args.plot:
        out["plots"] = save_plots(records, Path(args.plot))
    if args.json:
        print(json.dumps(out))
    else:
        print(render_text(out))
    return 0


def save_plots(records: list[GameRecord], folder: Path) -> list[str]:
    """A PNG of the round-by-round scores of every finished game; the file names."""
    folder.mkdir(parents=True, exist_ok=True)
    saved = []
    for rec in records:
        if not rec.final.get("finished"):
            continue
        when = str(rec.header.get("time") or "")[:16].replace("T", " ")
        title = f"{game_modules.get(rec.game).TITLE}  {when or rec.path.stem}"
        path = folder / f"{rec.path.stem}.png"
        save_chart(path, title, list(rec.final["players"]), chart(rec))
        saved.append(str(path))
    return saved


def render_text(out: dict) -> str:
    """The ``dicetray stats`` report in words."""
    lines = [f"{out['read']} games read from {out['journals']}"]
    lines += [f"  {n}" for n in out["skipped"]]
    tests = max((d.get("tests", 1) for d in out["dice"]), default=1)
    lines.append(
        "\nDice (chi-square test of every face against the layout"
        + (f"; p-values adjusted for the {tests} dice tested, Holm):" if tests > 1 else "):")
    )
    for d in out["dice"]:
        counts = " ".join(f"{f}:{c}" for f, c in d["counts"].items())
        p = "" if d["p_value"] is None else f"  p={d['p_value']:.3g}"
        if d["p_value"] is not None and d.get("tests", 1) > 1:
            p += f" (adjusted {d['p_adjusted']:.3g})"
        lines.append(
            f"  {d['dice_set']:<9} {d['die']:<7} {d['rolls']:>5} rolls  {counts}{p}  {d['verdict']}"
        )
    h = out["history"]
    lines.append(f"\nHistory: {h['games']} games, {h['finished']} finished")
    for name, p in h["players"].items():
        games = ", ".join(f"{g} {v['won']}/{v['played']}" for g, v in p["by_game"].items())
        lines.append(
            f"  {name:<12} won {p['won']} of {p['played']}  longest streak "
            f"{p['longest_streak']}  ({games})"
        )
    for game, rows in h["best_scores"].items():
        tops = ", ".join(f"{r['player']} {r['score']}" for r in rows[:3])
        lines.append(f"  best {game}: {tops}")
    for path in out.get("plots", []):
        lines.append(f"  chart: {path}")
    return "\n".join(lines)
