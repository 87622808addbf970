"""``dicetray demo``: whole games on the simulated tray with simulated players. Every throw is
rendered and read back through the real vision pipeline (detector, classifier, settling); the
players answer with their buttons.

``--buttons-only``: the players also choose the game and its options on the start screen with
their buttons (short press = next, long press = OK), and never use a key. ``--rematch``: when
the game is over, a player chooses "Rematch" on the end screen with a button, and a second game
with the same options is played. Each game leaves its journal (``*.jsonl``) in ``--out``.

>>> result = run_demo("bank", players=2, seed=1, out="demo-out", options={"rounds": 10},
...                   buttons_only=True, rematch=True)                       # doctest: +SKIP
>>> [g["finished"] for g in result["games"]]                                 # doctest: +SKIP
[True, True]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tray.app.players import SimPlayers
from tray.app.session import (
    DEMO_NAMES,
    Session,
    make_journal,
    options_of,
    parse_options,
    play_key,
    rolls_taken,
)
from tray.rules import games
from tray.rules.engine import RuleError
from tray.screen.display import Display
from tray.screen.view import start_view
from tray.table.menu import StartMenu
from tray.table.presses import MenuButtons, handle_tap
from tray.table.table import Table
from tray.table.teaching import say_stale

#: options the demo plays with unless --option says otherwise (games that finish in minutes)
DEMO_OPTIONS = {"bank": {"rounds": 10}}
#: how many demo screenshots of each kind of moment (default 1: the first one)
SHOTS_PER_KIND = {"reveal": 2, "bust": 2}
#: the round a log line belongs to: the round the event was made in, for these kinds
_EVENT_KINDS = ("roll", "action", "banner", "finished", "reveal")


def log_line(table: Table, kind: str, text: str) -> str | None:
    """The demo log's line for a table event, labelled with the round it happened in (a roll
    that ends round 3 is in round 3, though the state has moved on to round 4); None for
    lines not worth printing.

    >>> from tray.table.memory import MemoryJournal
    >>> table = Table(MemoryJournal.create(None, "bank", ["Ana", "Ben"], {"rounds": 10}, None))
    >>> table.roll(["d6:3", "d6:4"], t=0.0)
    True
    >>> log_line(table, "roll", "Ana rolled d6:3, d6:4")
    '[round 1] Ana rolled d6:3, d6:4'
    """
    if kind in ("countdown", "unreadable"):
        return None
    r = (
        table.event_round
        if kind in _EVENT_KINDS and table.event_round is not None
        else table.state.get("round")
    )
    return f"[round {r}] {text}" if r is not None else text


class _Shots:
    """Screenshots of the big moments: the first (or first two) of each kind."""

    def __init__(self, display, out: Path, enabled: bool):
        self.display, self.out, self.enabled = display, out, enabled and display is not None
        self.next: list[str] = []
        self.counts: dict[str, int] = {}
        self.files: list[Path] = []

    def note(self, kind: str, text: str) -> None:
        if self.enabled and kind in ("banner", "finished", "reveal", "unreadable"):
            self.next.append(
                kind if kind != "banner" else text.strip("!").lower().replace(" ", "-")
            )

    def take(self, session: Session, t: float, game_id: str) -> None:
        if not self.next:
            return
        kind = self.next.pop(0)
        self.next.clear()
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if self.counts[kind] <= SHOTS_PER_KIND.get(kind, 1):
            self.save(session, t, f"{game_id}-{kind}")

    def save(self, session_or_view, t: float, name: str) -> None:
        if self.display is None:
            return
        if isinstance(session_or_view, Session):
            session_or_view.draw(t)
        else:
            self.display.draw(session_or_view)
        self.files.append(self.display.save(self.out / f"{len(self.files) + 1:03d}-{name}.png"))


def _journal_path(out: Path, game_id: str, seed: int) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path, n = out / f"{game_id}-seed{seed}-{stamp}.jsonl", 2
    while path.exists():
        path, n = out / f"{game_id}-seed{seed}-{stamp}-{n}.jsonl", n + 1
    return path


def start_by_buttons(game_id: str, players: int, options: dict, log, shots: _Shots | None = None):
    """The start screen worked by a simulated player's button: GPIO-like presses (held 0.1 s
    = short, 1 s = long) through the same mapping as at the table. Returns the StartMenu with
    the game, players and options chosen and Start pressed. Raises ValueError when a value
    cannot be chosen on the start screen."""
    from hardware.buttons import ButtonPress, ButtonRelease

    menu = StartMenu(DEMO_NAMES[: max(players, 4)], default_game="tally-up")
    plan = menu.plan(game_id, players, options)
    buttons = MenuButtons(menu, releases=True)
    t = 0.0
    for long in plan:
        held = 1.0 if long else 0.1
        buttons.handle(ButtonPress(0, t))
        buttons.handle(ButtonRelease(0, t + held, held))
        t += held + 0.3
    if menu.outcome != "start":
        raise RuntimeError("the start screen did not start the game")  # a bug, not the user's
    log(
        f"start screen: {len(plan)} presses of Ana's button ({sum(plan)} long) chose "
        f"{menu.engine.TITLE}, {len(menu.players)} players, options {menu.chosen_options()}"
    )
    if shots is not None:
        shots.save(start_view(menu), t, "start")
    return menu


@dataclass
class _Run:
    """What every game of a demo run shares."""

    tray: Any
    display: Any
    recognizer: Any  # one for the games of a run: a rematch reads with the same models
    shots: _Shots
    rng: random.Random
    log: Callable[[str], None]
    window: bool
    fps: int
    quiet: bool
    script: list[dict] | None
    dropout: tuple[int, int] | None
    max_steps: int | None
    max_seconds: float | None
    wall0: float
    buttons_only: bool
    net: Any = None


def play_one(journal, run: _Run) -> dict:
    """One game on the simulated tray until it is over (or a limit), read by
    ``run.recognizer``; returns its figures."""
    from vision.settle import Settler

    table = Table(journal)
    game_id = journal.game_id

    def on_event(kind: str, text: str) -> None:
        line = None if run.quiet else log_line(table, kind, text)
        if line is not None:
            print(line, flush=True)
        run.shots.note(kind, text)

    table.on_event = on_event
    run.recognizer.reset()
    session = Session(
        table,
        run.tray,
        run.recognizer,
        Settler(),
        display=run.display,
        read_timeout=0.0 if not run.window else 1.0,
    )
    sim = SimPlayers(
        session,
        run.tray,
        run.rng,
        run.log,
        script=run.script,
        think_s=1.2 if run.window else 0.15,
        buttons_only=run.buttons_only,
    )
    if run.net is not None:  # --web / --broker: phones follow, a claimed seat is the phone's
        run.net.attach(session)
        sim.phones = run.net.claims.claimed
    finished, stopped, t = _play_loop(run, session, sim)
    run.shots.save(session, t + 0.001, f"{game_id}-end")
    summary = journal.game.summary(journal.state)
    _log_scores(run.log, summary, finished, stopped)
    return {
        "summary": summary,
        "state": journal.state,
        "journal": journal.path,
        "options": options_of(journal),
        "frames": session.frames,
        "rolls": rolls_taken(journal),
        "finished": finished,
        "timed_out": stopped is not None,
        "fixed": sim.fixed,
        "corrected": sim.misread_corrected,
        "rethrows": sim.rethrows,
        "log": list(table.log),
        "table": table,
        "sim": sim,
        "t": t,
    }


def _play_loop(run: _Run, session: Session, sim: SimPlayers) -> tuple[bool, str | None, float]:
    """Steps the players and the table until the game is over, the script is played, or a
    limit (or Ctrl-C, SIGTERM) stops it: ``(finished, why it stopped early or None, t)``."""
    table, game_id = session.table, session.table.journal.game_id
    t, dt, steps, dropout = 0.0, 1.0 / run.fps, 0, run.dropout
    _Signal.polled, _Signal.asked = True, False
    try:
        while True:
            if _Signal.asked:
                raise KeyboardInterrupt
            steps += 1
            sim.act(t)
            session.step(t, draw=run.window)
            if run.window:
                _pump_window(session, t)
            run.shots.take(session, t, game_id)
            if table.expect().finished:
                return True, None, t
            if (
                sim.script_done
                and not sim.throwing
                and table.window_decision() is None
                and not table.counting_down()
            ):
                return False, None, t
            if dropout is not None and table.rolls_taken >= dropout[0]:
                run.tray.drop_out(frames=dropout[1])
                run.log(f"  (the camera drops out for {dropout[1]} frames)")
                dropout = None
            if (run.max_steps is not None and steps >= run.max_steps) or (
                run.max_seconds is not None and time.monotonic() - run.wall0 > run.max_seconds
            ):
                return False, "at the time limit", t
            t = time.monotonic() - run.wall0 if run.window else t + dt
    except KeyboardInterrupt:
        return False, "by Ctrl-C or SIGTERM (the journal keeps the game so far)", t
    finally:
        _Signal.polled = False


def _log_scores(log, summary: dict, finished: bool, stopped: str | None) -> None:
    """The scores (final or so far), the winner, and why the game stopped early."""
    log("")
    log("final scores:" if finished else "scores so far (game not finished):")
    for p in summary.get("players", []):
        log(f"  {p['name']:<8} {p['score']}")
    if finished:
        w = summary.get("winner")
        log(f"winner: {', '.join(w) if isinstance(w, list) else w}")
    if stopped:
        log(f"stopped {stopped}: the game is not finished")


def run_demo(
    game_id: str = "tally-up",
    players: int = 2,
    seed: int = 0,
    out: str | Path = "demo-out",
    max_seconds: float | None = None,
    window: bool = False,
    options: dict | None = None,
    fps: int = 30,
    quiet: bool = False,
    screenshots: bool = True,
    script: list[dict] | None = None,
    rest_frames: int = 6,
    dropout: tuple[int, int] | None = None,
    max_steps: int | None = None,
    buttons_only: bool = False,
    rematch: bool = False,
    taught=None,
    net=None,
) -> dict:
    """Play a game (two with ``rematch``) on the simulated tray (``taught``: a taught folder
    to read the throws with); returns the last game's
    {"summary", "journal", "finished", "rolls", "frames", ...} plus "games" (one such dict per
    game), "screenshots" and "seconds". Raises ValueError on bad arguments.

    ``script``: play exactly these events (rolls thrown on the tray, decisions pressed on the
    buttons) instead of random choices, and stop when they are done. ``dropout``: (after this
    many rolls, this many frames) the camera goes quiet once. ``max_steps``: a bound on loop
    turns per game (tests). ``net``: a started tray.net.attach.NetTable (--web, --broker)
    that follows every game."""
    engine = games.get(game_id)
    if not engine.MIN_PLAYERS <= players <= engine.MAX_PLAYERS:
        raise ValueError(
            f"{engine.TITLE} is played by {engine.MIN_PLAYERS} to "
            f"{engine.MAX_PLAYERS} players, not {players}: use --players "
            f"{max(engine.MIN_PLAYERS, min(players, engine.MAX_PLAYERS))}"
        )
    from hardware.sim.tray import SimulatedTray

    out = Path(out)
    opts = dict(DEMO_OPTIONS.get(game_id, {}))
    opts.update(options or {})
    diceset, recognizer = _pipeline(engine, players, opts, taught)
    out.mkdir(parents=True, exist_ok=True)
    log: Callable[[str], None] = (lambda s: None) if quiet else (lambda s: print(s, flush=True))
    display = None
    if window or screenshots:
        display = Display(headless=not window, caption=f"dicetray demo: {engine.TITLE}")
    shots = _Shots(display, out, screenshots)
    names = DEMO_NAMES[:players]
    if buttons_only:
        menu = start_by_buttons(game_id, players, opts, log, shots)
        names, opts = menu.players, menu.chosen_options()
    tray = SimulatedTray(diceset, seed=seed, fps=fps, realtime=window, rest_frames=rest_frames)
    run = _Run(
        tray,
        display,
        recognizer,
        shots,
        random.Random(seed),
        log,
        window,
        fps,
        quiet,
        script,
        dropout,
        max_steps,
        max_seconds,
        time.monotonic(),
        buttons_only,
        net,
    )
    try:
        results = _play_games(run, engine, names, opts, out, seed, rematch)
    finally:
        tray.close()
    return _run_result(results, time.monotonic() - run.wall0, shots, out, rematch, log)


def _pipeline(engine, players: int, opts: dict, taught):
    """``(dice set, recognizer)`` of the game, the options checked by a new game first: the
    whole pipeline before anything is written, so nothing is when a part is missing. One
    recognizer reads every game of the run (a taught folder is checked once, and a stale one
    is said once, not once a game)."""
    from vision import dicesets
    from vision.pipeline import Recognizer

    diceset = dicesets.load(engine.DICE_SET)
    engine.new_game(DEMO_NAMES[:players], diceset.layout(), dict(opts))
    recognizer = Recognizer(diceset, taught=taught)
    say_stale(recognizer, "dicetray demo")
    return diceset, recognizer


def _run_result(results: list[dict], seconds: float, shots, out: Path, rematch, log) -> dict:
    """The last game's result, with every game's ("games"), the screenshots, the time and
    whether every game finished; the run's figures are logged."""
    last = dict(results[-1])
    frames = sum(r["frames"] for r in results)
    log(
        f"{sum(r['rolls'] for r in results)} rolls, {frames} frames read by the vision "
        f"pipeline in {seconds:.1f} s; {sum(r['fixed'] for r in results)} unread dice fixed, "
        f"{sum(r['corrected'] for r in results)} misread rolls corrected, "
        f"{sum(r['rethrows'] for r in results)} rethrows; {len(shots.files)} screenshots in {out}"
    )
    for r in results:
        r.pop("table"), r.pop("sim")
    last.pop("table"), last.pop("sim")
    last.update(
        {
            "games": results,
            "screenshots": shots.files,
            "seconds": seconds,
            "finished": all(r["finished"] for r in results)
            and len(results) == (2 if rematch else 1),
        }
    )
    return last


def _play_games(run: _Run, engine, names, opts, out: Path, seed: int, rematch: bool) -> list:
    """The game, and with ``rematch`` a second one chosen on the end screen with a button
    (when the first finished): one result dict a game."""
    game_id = engine.GAME_ID
    results: list[dict] = []
    for n in range(2 if rematch else 1):
        jpath = _journal_path(out, game_id, seed)
        journal = make_journal(jpath, game_id, names, opts)
        run.log(
            f"dicetray demo: {engine.TITLE}, {len(names)} players ({', '.join(names)}), "
            f"seed {seed}{', rematch' if n else ''}; options {options_of(journal)}"
        )
        run.log(f"journal: {jpath}")
        res = play_one(journal, run)
        results.append(res)
        if n == 0 and rematch:
            if not res["finished"]:
                break
            sim, table = res["sim"], res["table"]
            sim.choose("rematch", res["t"] + 1.0)
            if table.outcome != "rematch":
                raise RuntimeError("the end screen did not start a rematch")  # a bug
            run.log("end screen: Ana's button chose Rematch (same game, same options)")
            names, opts = list(journal.players), options_of(journal)
    return results


def _pump_window(session: Session, t: float) -> None:
    """Handle the window's events (close, keys, taps) during the demo."""
    import pygame

    for ev in pygame.event.get():
        if ev.type == pygame.QUIT:
            raise KeyboardInterrupt
        if ev.type == pygame.KEYDOWN:
            play_key(session, pygame.key.name(ev.key), bool(ev.mod & pygame.KMOD_SHIFT), t)
        elif ev.type == pygame.MOUSEBUTTONDOWN and session.display is not None:
            handle_tap(session.table, session.display.hit(ev.pos), t)


def has_display() -> bool:
    """Whether a window can be opened (X11 / Wayland, not SDL's dummy driver)."""
    if os.environ.get("SDL_VIDEODRIVER") == "dummy":
        return False
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class _Signal:
    """A stop asked for by Ctrl-C or SIGTERM while the play loop runs (``polled``): noted,
    and taken by the loop between two steps. Raised at once, it could land between the
    journal's write of an event and its taking effect in memory: the scores printed would
    then lag the journal by that event (seen under load: "Ana 0" printed, 82 in the
    journal)."""

    polled = False
    asked = False


def _interrupt(signum, frame) -> None:
    """SIGTERM (and Ctrl-C) stops the demo (the journal keeps the game so far): between two
    steps of the play loop, else at once."""
    if _Signal.polled:
        _Signal.asked = True
        return
    raise KeyboardInterrupt


def _demo_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="dicetray demo",
        description=(
            "Play a whole game on the simulated tray with simulated players. Every throw is "
            "rendered and read by the real vision pipeline; the journal (*.jsonl) and screenshots "
            "(*.png) land in --out."
        ),
    )
    ap.add_argument("--game", default="tally-up", choices=games.GAME_IDS)
    ap.add_argument("--players", type=int, default=None, help="number of players (default 3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="demo-out", help="folder for the journal and screenshots")
    ap.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        help="stop after this many seconds (the game may be unfinished)",
    )
    ap.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option, e.g. --option rounds=15 (repeatable)",
    )
    ap.add_argument(
        "--buttons-only",
        action="store_true",
        help="the players choose the game and options on the start screen and do "
        "everything else with their buttons alone",
    )
    ap.add_argument(
        "--rematch",
        action="store_true",
        help="after the game, a player chooses Rematch on the end screen: a second "
        "game with the same options",
    )
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument(
        "--web",
        metavar="HOST:PORT",
        default=None,
        help="serve the phone page, e.g. 0.0.0.0:8080 (needs the web extra)",
    )
    ap.add_argument(
        "--broker",
        metavar="URL",
        default=None,
        help="publish every journal event to an MQTT broker, e.g. mqtt://127.0.0.1:1883",
    )
    ap.add_argument("--table", default=None, help="the table's name on the page and the broker")
    ap.add_argument(
        "--linger",
        type=float,
        default=0.0,
        metavar="S",
        help="with --web/--broker: keep serving S seconds after the game ends",
    )
    ap.add_argument(
        "--taught",
        metavar="DIR",
        default=None,
        help="read the simulated throws with a taught folder (dicetray teach)",
    )
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--window", action="store_true", help="show the game in a window")
    mode.add_argument(
        "--headless", action="store_true", help="no window (default without a display)"
    )
    return ap


def main_demo(argv: list[str]) -> int:
    """``dicetray demo``: exit 0 when every game finished, 2 on a user's mistake (bad game,
    players or option: one line on stderr), 1 otherwise."""
    args = _demo_parser().parse_args(argv)
    engine = games.get(args.game)
    players = (
        args.players
        if args.players is not None
        else max(engine.MIN_PLAYERS, min(3, engine.MAX_PLAYERS))
    )
    window = args.window or (not args.headless and has_display())
    net = None
    # Ctrl-C and SIGTERM (a service manager, `kill`) stop the demo and --linger, keeping the
    # journal so far: without this SDL turns them into a window event a headless demo never reads
    os.environ.setdefault("SDL_NO_SIGNAL_HANDLERS", "1")
    old_term = signal.signal(signal.SIGTERM, _interrupt)
    old_int = signal.signal(signal.SIGINT, _interrupt)
    try:
        options = parse_options(args.option)
        if args.web or args.broker:
            from tray.net.attach import describe, net_from_options

            net = net_from_options(args.web, args.broker, args.table, journal_dir=args.out)
            for line in describe(net):
                print(line, flush=True)
        result = run_demo(
            args.game,
            players,
            args.seed,
            args.out,
            args.max_seconds,
            window,
            options,
            fps=args.fps,
            buttons_only=args.buttons_only,
            rematch=args.rematch,
            taught=args.taught,
            net=net,
        )
        if net is not None and args.linger > 0:
            print(f"serving {args.linger:g} s more (--linger)", flush=True)
            try:
                net.wait(args.linger)
            except KeyboardInterrupt:
                print("stopped serving", flush=True)
    except (ValueError, RuleError) as exc:
        print(f"dicetray demo: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        print(
            f"dicetray demo: part of the vision pipeline is missing ({exc}). The demo reads "
            "every throw with hardware.sim.render, vision.pipeline and vision.settle: update your "
            "checkout or reinstall (pip install -e .).",
            file=sys.stderr,
        )
        return 1
    except (FileExistsError, NotADirectoryError) as exc:
        print(
            f"dicetray demo: --out {args.out}: {exc.strerror}: give a folder (it is made "
            "when missing)",
            file=sys.stderr,
        )
        return 2
    except (OSError, RuntimeError) as exc:  # hardware.frames.CameraError, file errors
        print(f"dicetray demo: {exc}", file=sys.stderr)
        return 2 if type(exc).__name__ == "MissingExtra" else 1
    finally:
        if net is not None:
            net.close()
        signal.signal(signal.SIGTERM, old_term)
        signal.signal(signal.SIGINT, old_int)
    return 0 if result["finished"] else 1
