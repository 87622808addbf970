"""The ``dicetray`` command: one sub-command a job, each implemented in its own module.

dicetray demo [--game G] [--out DIR]     a whole game on the simulated tray
dicetray play                            the real table: camera, buttons, screen
dicetray calibrate                       tray, exposure, white balance, dice check
dicetray replay JOURNAL [--json]         the state a journal leads to
dicetray recognize IMAGE... --dice-set SET [--json]
dicetray eval                            vision figures on rendered and real photos
dicetray bench [--json]                  vision speed per frame and per die
dicetray odds JOURNAL [--json]           the odds of the decision at hand
dicetray duel --game G --players best,random [--games N] [--seed S] [--json]
dicetray stats [--journals DIR] [--plot DIR] [--json]   dice fairness and history
dicetray screenshots [--out DIR]         every screen of every game, headless
dicetray teach FOLDER --dice-set SET --out DIR   learn your dice from labelled photos
dicetray train                           retrain the ONNX models (needs the train extra)
dicetray soak --throws N [--json]        hours of play with faults, checked against truth
dicetray standings --broker URL --web HOST:PORT   every table on a broker, one page
dicetray netbench [--minutes M]          10 tables x 8 phones on a local broker: latency
"""

from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "demo": ("tray.app.demo", "main_demo", "a whole game on the simulated tray"),
    "play": ("tray.app.play", "main_play", "run the table: camera, buttons and screen"),
    "calibrate": ("tray.app.calibrate", "main", "find the tray, fix exposure and white balance"),
    "replay": ("tray.replay", "main_replay", "print the state a game journal leads to"),
    "recognize": ("vision.cli", "main_recognize", "read the dice in photos"),
    "eval": ("lab.cli", "main_eval", "accuracy figures of the vision pipeline"),
    "bench": ("lab.cli", "main_bench", "speed figures of the vision pipeline"),
    "odds": ("tray.commands", "main_odds", "the odds of each option of the decision at hand"),
    "duel": ("tray.commands", "main_duel", "computer players against each other, no vision"),
    "stats": ("tray.app.stats", "main_stats", "dice fairness and the table's history"),
    "screenshots": (
        "tray.app.screenshots",
        "main",
        "draw every screen of every game to PNG files",
    ),
    "teach": ("vision.teach", "main", "learn your own dice and tray from labelled photos"),
    "train": ("lab.train", "main", "retrain the ONNX models (pip install -e '.[train]')"),
    "soak": ("lab.soak", "main", "play for hours on the simulated tray with faults injected"),
    "standings": ("tray.net.standings", "main", "every table on an MQTT broker on one page"),
    "netbench": ("tray.net.bench", "main", "tables, phones and a broker under load: latency"),
}


def usage() -> str:
    lines = ["usage: dicetray COMMAND [options]", "", "commands:"]
    lines += [f"  {name:<12} {help_}" for name, (_, _, help_) in COMMANDS.items()]
    lines += ["", "dicetray COMMAND --help (or dicetray help COMMAND) shows a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["help"] and len(argv) > 1:
        argv = [argv[1], "--help"]  # dicetray help CMD = dicetray CMD --help
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"dicetray: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module, func, _ = COMMANDS[name]
    if name == "teach" and "--deep" in rest:  # torch fine-tuning: the workshop's teaching
        module, rest = "lab.teach", [a for a in rest if a != "--deep"]
    entry = getattr(importlib.import_module(module), func)
    try:
        return int(entry(rest) or 0)
    except BrokenPipeError:  # output piped into `head` and the like: not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:  # Ctrl-C outside a loop that saves and says so itself
        print(f"dicetray {name}: stopped (Ctrl-C)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
