"""``dicetray calibrate --teach --out FOLDER``: the guided capture's loop and command.

    dicetray calibrate --teach --out my-dice --dice-set toss-up              # camera of the config
    dicetray calibrate --teach --out /tmp/cap --source sim --sim-roller --per-face 1

Opens the camera (with the config's tray crop and colour gains, as in a game), the buttons
(GPIO when the config has pins; keys 1-0 and touch on the screen), runs the capture
(tray/table/capture.py) until every face was seen ``--per-face`` times or the roller ends it,
then teaches (tray/table/teaching.py) into ``FOLDER/taught``. On the simulated tray, T throws
3-6 dice; ``--sim-roller`` lets a simulated roller throw and confirm (no window needed).
"""

from __future__ import annotations

import queue
import sys
import time
from collections.abc import Callable

import numpy as np

from tray.screen.capture import CaptureScreen, TeachView, build_capture_view
from tray.screen.display import Display
from tray.table.capture import Capture, CaptureSession, SimRoller
from tray.table.capture_folder import CaptureError, CaptureFolder
from tray.table.teaching import (
    TeachingUnavailable,
    format_left,
    load_taught,
    owner_lines,
    say_stale,
    teach_folder,
)


def screen_drawer(display) -> Callable:
    """Draws the capture on ``display`` with the capture screen (made at the first draw)."""
    screen = CaptureScreen(display)

    def draw(capture, frame, reading) -> None:
        screen.draw_capture(build_capture_view(capture, frame, reading))

    return draw


def run_loop(
    session: CaptureSession,
    clock: Callable[[], float],
    roller: SimRoller | None = None,
    max_seconds: float | None = None,
    pump: Callable[[float], None] | None = None,
    idle: Callable[[], None] | None = None,
) -> str:
    """Step the session until the capture ends; returns its state ("done", "left") or
    "timeout" after ``max_seconds`` of ``clock``."""
    cap = session.capture
    start = clock()
    while cap.state in ("throw", "review"):
        t = clock()
        if roller is not None:
            roller.act(t)
        session.step(t)
        if pump is not None:
            pump(t)
        if max_seconds is not None and t - start > max_seconds:
            return "timeout"
        if idle is not None:
            idle()
    return cap.state


def window_pump(session: CaptureSession, rng: np.random.Generator) -> Callable[[float], None]:
    """Handles the window's events: close (leave), keys (Capture.key; T throws on the
    simulated tray), taps."""
    import pygame

    cap = session.capture

    def pump(t: float) -> None:
        for ev in pygame.event.get():
            if ev.type == pygame.QUIT:
                cap.leave(t)
            elif ev.type == pygame.KEYDOWN:
                name = pygame.key.name(ev.key)
                if name == "t" and session.simulated and cap.state == "throw":
                    session.throw(rng)
                else:
                    cap.key(name, t, shift=bool(ev.mod & pygame.KMOD_SHIFT))
            elif ev.type == pygame.MOUSEBUTTONDOWN and session.display is not None:
                cap.tap(session.display.hit(ev.pos), t)  # what the last drawn screen put there

    return pump


def teach_after(folder: CaptureFolder, display=None, out=print, teacher=None, seed: int = 0) -> int:
    """Teach from the captured folder into ``folder/taught``; prints the held-out figures.
    Returns the exit code."""
    if folder.photos == 0:
        out("Nothing captured: nothing to teach.")
        return 1
    out_dir = folder.path / "taught"
    out(f"Teaching {folder.diceset.name} from {folder.photos} photos in {folder.path} -> {out_dir}")

    screen = None
    if display is not None:
        screen = CaptureScreen(display)

    def on_screen(stage: str, done: int, total: int, left_s) -> None:
        if screen is None:
            return
        screen.draw_teach(
            TeachView(
                f"Teaching {folder.diceset.name}",
                stage,
                done,
                total,
                format_left(left_s),
                f"{folder.photos} photos from {folder.path}",
            )
        )
        display.pg.event.pump()

    try:
        summary = teach_folder(
            folder.path, folder.diceset, out_dir, on_screen=on_screen, teacher=teacher, seed=seed
        )
    except TeachingUnavailable as exc:
        print(f"dicetray calibrate: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(
            f"dicetray calibrate: teaching stopped; the photos in {folder.path} are kept",
            file=sys.stderr,
        )
        return 1
    except ValueError as exc:  # vision.teach.TeachError: bad input, one line
        print(f"dicetray calibrate: teaching failed: {exc}", file=sys.stderr)
        return 1
    for line in owner_lines(summary, out_dir):
        out(f"  {line}")
    out(f"Taught model written to {out_dir} (use it with --taught {out_dir}).")
    return 0


def main(
    args,
    cfg,
    default_set: str = "d6",
    out=print,
    teacher=None,
    clock: Callable[[], float] | None = None,
) -> int:
    """The command, from ``dicetray calibrate``'s parsed ``args`` and the loaded config
    ``cfg`` (``default_set``: the dice set without --dice-set). ``teacher`` replaces
    vision.teach.teach and ``clock`` time.monotonic (tests)."""
    from hardware.camera import open_source
    from hardware.frames import CameraError
    from vision.dicesets import DiceSetError, load

    prog = "dicetray calibrate --teach"
    problem = _arg_problem(args)
    if problem:
        print(f"{prog}: {problem}", file=sys.stderr)
        return 2
    try:
        diceset = load(args.dice_set or default_set)
        folder = CaptureFolder(args.out, diceset)

        taught = load_taught(getattr(args, "taught", None), cfg, diceset)
    except (DiceSetError, CaptureError, ValueError) as exc:  # TaughtError is a ValueError
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    if folder.continued:
        out(
            f"Continuing the capture in {folder.path}: {folder.photos} photos, "
            f"{len(folder.rows)} dice so far"
        )
    cap = Capture(
        folder,
        per_face=args.per_face,
        total_dice=max(args.min_dice, 0),
        on_event=lambda kind, text: out(text if kind != "coverage" else "\n" + text),
    )
    if cap.state == "done":
        out(
            f"Every face of {diceset.name} is already seen {args.per_face} times, "
            f"{cap.coverage.total()} dice in all."
        )
        return teach_after(folder, out=out, teacher=teacher, seed=args.seed)

    spec = args.source or cfg.camera.source
    sim_spec = spec.split(":", 1)[0] == "sim"
    headless = args.headless or not _can_show()
    if args.sim_roller and not sim_spec:
        print(f"{prog}: --sim-roller needs --source sim", file=sys.stderr)
        return 2
    try:
        source = open_source(
            spec,
            camera=cfg.camera,
            dice_set=diceset.id,
            seed=args.seed,
            realtime=not (sim_spec and (args.sim_roller or headless)),
        )
    except (CameraError, ValueError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1
    return _capture_then_teach(
        source, cap, diceset, taught, cfg, args, headless, sim_spec, clock, out, teacher
    )


def _capture_then_teach(
    source, cap, diceset, taught, cfg, args, headless, sim_spec, clock, out, teacher
) -> int:
    """The capture on an open ``source`` (closed at the end), then teaching when every face
    was seen: the exit code."""
    prog = "dicetray calibrate --teach"
    folder = cap.folder
    events: queue.Queue = queue.Queue()
    buttons = None if sim_spec else _buttons(cfg, events, clock, out)
    if headless and buttons is None and not args.sim_roller:
        source.close()
        print(
            f"{prog}: nobody could confirm the dice: run it with a screen (keys, touch), "
            "with GPIO buttons in the config, or on the simulated tray with --sim-roller",
            file=sys.stderr,
        )
        return 2
    from vision.pipeline import Recognizer

    try:
        recognizer = Recognizer(diceset, taught=taught, first_light=cfg.camera.tray_light or None)
    except (OSError, RuntimeError, ValueError) as exc:  # a model file missing or unreadable
        source.close()
        print(f"{prog}: the vision pipeline cannot start ({exc})", file=sys.stderr)
        return 1
    say_stale(recognizer, prog)
    display = None
    try:
        if not headless:
            display = Display(size=tuple(cfg.screen.size), fullscreen=cfg.screen.fullscreen)
        state = _capture(cap, source, recognizer, events, buttons, display, cfg, args, clock, out)
    except CaptureError as exc:  # a photo that could not be written
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{prog}: could not write to {folder.path}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        state = "left"
    finally:
        source.close()
        if buttons is not None:
            buttons.close()
    out(
        f"{len(cap.saved)} photos saved this time; {folder.photos} in {folder.path}"
        + (f"; {cap.dropped} throws dropped" if cap.dropped else "")
    )
    if state != "done":
        out("Capture stopped before teaching: run the same command again to continue it.")
        return 0 if state == "left" else 1
    return teach_after(folder, display=display, out=out, teacher=teacher, seed=args.seed)


def _arg_problem(args) -> str | None:
    """What is wrong with the capture's own options, if anything."""
    if not args.out:
        return "give the folder for the photos with --out FOLDER"
    if args.per_face < 1:
        return f"--per-face must be 1 or more (it is {args.per_face})"
    return None


def _buttons(cfg, events: queue.Queue, clock, out):
    """The config's GPIO buttons (presses and releases into ``events``), or None when the
    config has no pins or GPIO is missing (off a Pi: keys and touch still work)."""
    if not cfg.pins.buttons:
        return None
    try:
        from hardware.buttons import PlayerButtons

        return PlayerButtons(
            cfg.pins.buttons,
            events,
            bounce_ms=cfg.pins.bounce_ms,
            pull_up=cfg.pins.pull_up,
            releases=True,
            clock=clock or time.monotonic,
        )
    except Exception as exc:  # noqa: BLE001 - GPIO missing off a Pi: keys still work
        out(f"buttons: {exc}; using keys instead")
        return None


def _capture(cap, source, recognizer, events, buttons, display, cfg, args, clock, out) -> str:
    """Runs the capture session until it ends: "done", "left" or "timeout"."""
    from vision.settle import Settler

    session = CaptureSession(
        cap,
        source,
        recognizer,
        Settler(),
        events=events,
        display=display,
        releases=buttons is not None,
        long_s=cfg.pins.hold_ms / 1000.0,
        drawer=screen_drawer(display) if display is not None else None,
    )
    rng = np.random.default_rng(args.seed)
    roller = SimRoller(session, rng) if args.sim_roller else None
    out(cap.prompt())
    if session.simulated and roller is None:
        out("The simulated tray: press T in the window to throw.")
    return run_loop(
        session,
        clock or time.monotonic,
        roller=roller,
        max_seconds=args.max_seconds,
        pump=window_pump(session, rng) if display is not None else None,
        idle=None if roller is not None else (lambda: time.sleep(0.002)),  # sim: flat out
    )


def _can_show() -> bool:
    import os

    if os.environ.get("SDL_VIDEODRIVER") == "dummy":
        return False
    return bool(
        os.environ.get("DISPLAY")
        or os.environ.get("WAYLAND_DISPLAY")
        or os.environ.get("SDL_VIDEODRIVER") in ("kmsdrm", "fbcon")
    )
