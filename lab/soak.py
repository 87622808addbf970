"""``dicetray soak``: the whole table played for hours on the simulated tray, with faults.

All five games are played in turn by the simulated players (``tray.app.players.SimPlayers``:
they throw, press buttons and fix misread dice as people would) through the real table
(``Table`` + ``Journal``), the real vision pipeline (detector, classifier, Settler) and the
camera guard (``hardware.guard.Guarded``). Faults are injected: blurred pictures, a hand in
the tray, a wrong number of dice, dice left from the last throw, a camera that drops frames,
raises or sends bad frames, and the process itself killed with SIGKILL at random moments and
started again on its journal. Every scored roll is compared with the dice really thrown.

The work runs in a child process (``--worker``) that the parent kills now and then; after a
kill the parent checks that every event the child had acknowledged is in the journal, then
starts a new child, which resumes the unfinished game (correcting a roll the kill left
misread, as the players would). What really landed is logged (``truth.log``) before each
throw. A throw is rendered once and held (a die at rest does not
move), so each throw costs a handful of frames through the pipeline.

    dicetray soak --throws 200 --seed 1 --json

prints ``throws``, ``wrong_scores``, ``lost_events``, ``crashes``, ``kills``, ``refusals`` and
``corrections`` by cause, the injected camera faults, and the time taken.

>>> from lab.soak import physical_throw
>>> import random
>>> physical_throw(["d6:1", "d6:2"], "wrong_count", ["d6:4"], ["d6"], random.Random(1))
['d6:1']
>>> physical_throw(["d6:1", "d6:2"], "leftover", ["d6:4"], ["d6"], random.Random(1))
['d6:4', 'd6:1', 'd6:2']
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import zlib
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

GAMES = ("tally-up", "toss-up", "bank", "diced-out", "rollers")
DT = 0.25  # seconds of table time a loop turn
THROW_FAULTS = {"blur": 0.06, "hand": 0.06, "wrong_count": 0.04, "leftover": 0.04}
CAMERA_FAULTS = {"drop": 0.02, "raise": 0.01, "bad_frame": 0.01, "black": 0.01, "noise": 0.01}
KILL_EVERY_S = (5.0, 60.0)  # the parent kills the worker after a random time in this range
HANG_S = 600.0  # a worker that reports nothing for this long is stuck: killed, a failure


def physical_throw(
    intended: list[str], fault: str, last: list[str], die_ids: list[str], rng: random.Random
) -> list[str]:
    """The dice that really land in the tray for a throw of ``intended`` under ``fault``:
    one die too many or too few (``wrong_count``), or the last throw's dice still there
    (``leftover``); otherwise ``intended``."""
    if fault == "wrong_count":
        if len(intended) >= 2 and rng.random() < 0.5:
            return intended[:-1]
        return [*intended, intended[0] if intended else f"{die_ids[0]}:1"]
    if fault == "leftover" and last:
        return list(last) + list(intended)
    return list(intended)


# ------------------------------------------------------------------------- the child process


class SoakTray:
    """The simulated tray, cheap: each throw is rendered once at rest (with blur or a passing
    hand when that fault is on) and held until picked up. ``truth`` as SimulatedTray's."""

    def __init__(self, diceset, rng, np_rng, truth_log, journal_of):
        from hardware.sim import render, styles

        self.render = render
        self.diceset = diceset
        self.rng = rng  # random.Random: faults
        self.np_rng = np_rng  # numpy Generator: the pictures
        self.style = styles.random_style(np_rng, (40.0, 70.0))
        self.truth_log = truth_log
        self.journal_of = journal_of  # () -> the Journal thrown for
        self.empty, _ = render.render_scene(diceset, [], np_rng, style=self.style)
        self.frames: list = []  # frames still to show before the held one
        self.held = None
        self.truth: dict = {"phase": "empty", "labels": [], "dice": []}
        self.fault = "none"
        self.last: list[str] = []
        self.look = 1  # frames of the empty tray still to be seen
        self.fps = 30.0
        self.name = "soak"
        self.throws = 0

    def throw(self, dice) -> list[str]:
        """A player throws ``dice`` (die:face specs); what lands depends on the fault drawn."""
        self.throws += 1
        faults = [f for f, p in THROW_FAULTS.items() if self.rng.random() < p]
        self.fault = faults[0] if faults else "none"
        ids = [d.id for d in self.diceset.dice]
        landed = physical_throw(list(dice), self.fault, self.last, ids, self.rng)
        j = self.journal_of()
        self.truth_log.write(
            json.dumps({"journal": j.path.name, "event": len(j.events) + 1, "dice": landed}) + "\n"
        )
        self.truth_log.flush()
        os.fsync(self.truth_log.fileno())
        style = self.style
        if self.fault == "blur":
            style = replace(style, blur=float(self.rng.uniform(1.5, 3.0)))
        pairs = [tuple(s.split(":", 1)) for s in landed]
        # a tray holds whatever lands in it: a crowded throw (dice left over) is placed anyway
        poses = self.render.place_dice(self.diceset, pairs, self.np_rng, style, fit=True)
        frame, labels = self.render.compose(self.diceset, poses, self.np_rng, style)
        self.frames = []
        if self.fault == "hand":
            hand = self.render.random_hand(self.np_rng)
            for _ in range(self.rng.randint(2, 4)):
                self.frames.append(
                    self.render.compose(self.diceset, poses, self.np_rng, style, hand=hand)[0]
                )
        self.held = frame
        self.truth = {"phase": "rest", "labels": labels, "dice": landed}
        self.last = landed
        return landed

    def pick_up(self) -> None:
        self.held, self.frames = None, []
        self.truth = {"phase": "empty", "labels": [], "dice": []}
        self.look = 1

    def read(self, timeout: float = 1.0):
        if self.frames:
            return self.frames.pop(0)
        return self.empty if self.held is None else self.held

    def close(self) -> None:
        pass


class FaultyCamera:
    """Frames from ``tray`` with camera faults drawn per read; counts them in ``injected``."""

    def __init__(self, tray, rng: random.Random, injected: Counter):
        import cv2
        import numpy as np

        self.tray, self.rng, self.injected = tray, rng, injected
        self.np, self.cv2 = np, cv2
        self.fps, self.name = 30.0, "faulty"

    def read(self, timeout: float = 1.0):
        fault = next((f for f, p in CAMERA_FAULTS.items() if self.rng.random() < p), None)
        frame = self.tray.read(timeout)
        if fault is None:
            return frame
        self.injected[fault] += 1
        _emit(camera=fault)
        np = self.np
        if fault == "drop":
            return None
        if fault == "raise":
            raise self.rng.choice(
                [
                    RuntimeError("camera request failed"),
                    OSError(5, "Input/output error"),
                    self.cv2.error("simulated driver error"),
                ]
            )
        if fault == "bad_frame":
            return self.rng.choice(
                [
                    np.zeros((0, 0, 3), np.uint8),
                    np.zeros((480, 640, 2), np.uint8),
                    frame.astype(np.float32) / 255.0,
                ]
            )  # the last one is fine
        if fault == "black":
            return np.zeros_like(frame)
        return np.random.default_rng(self.rng.randrange(1 << 30)).integers(
            0, 256, frame.shape, dtype=np.uint8
        )

    def close(self) -> None:
        pass


def _emit(**record) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def _truths(truth_path: Path) -> dict[tuple[str, int], list[str]]:
    """(journal name, event number) -> the dice that really landed (the last throw wins)."""
    out: dict[tuple[str, int], list[str]] = {}
    if truth_path.exists():
        for line in truth_path.read_text(encoding="utf-8").splitlines():
            try:
                r = json.loads(line)
                out[(r["journal"], int(r["event"]))] = list(r["dice"])
            except (ValueError, KeyError, TypeError):
                continue  # a line the kill cut off: its throw was never taken
    return out


def _wrong_rolls(journal, truths) -> list[tuple[int, list[str] | None]]:
    """The roll events of ``journal`` whose dice are not those that landed: (number, truth);
    truth None when no throw was recorded for it (which counts as wrong too)."""
    bad = []
    for n, ev in enumerate(journal.events, start=1):
        if ev.get("type") != "roll":
            continue
        truth = truths.get((journal.path.name, n))
        if truth is None or Counter(ev["dice"]) != Counter(truth):
            bad.append((n, truth))
    return bad


def worker(state: Path, seed: int, throws: int) -> int:
    """Play games in ``state`` until ``throws`` throws are made; report on stdout."""
    import numpy as np

    from vision.dicesets import load
    from vision.pipeline import Recognizer

    rng = random.Random(seed)
    np_rng = np.random.default_rng(seed)
    truth_path = state / "truth.log"
    recognizers: dict = {}
    injected: Counter = Counter()
    made = 0
    if truth_path.exists() and not truth_path.read_bytes().endswith(b"\n"):
        with open(truth_path, "a", encoding="utf-8") as f:  # a line the kill cut off
            f.write("\n")
    with open(truth_path, "a", encoding="utf-8") as truth_log:
        while made < throws:
            journal = _next_journal(state, rng, truth_path)
            _emit(game=journal.path.name, size=journal._size, events=len(journal.events))
            diceset = load(journal.game.DICE_SET)
            if diceset.id not in recognizers:
                recognizers[diceset.id] = Recognizer(diceset)
            rec = recognizers[diceset.id]
            rec.reset()
            game = _SoakGame(journal, diceset, rec, rng, np_rng, truth_log, injected)
            made = game.play(made, throws)
            _emit_check(journal, game.table.expect().finished, truth_path)
    return 0


def _next_journal(state: Path, rng: random.Random, truth_path: Path):
    """The unfinished game's journal, resumed (a roll the kill left misread corrected), or a
    new game's: the next of GAMES in turn."""
    from tray.app.session import make_journal
    from tray.rules import games
    from tray.rules.engine import RuleError
    from tray.rules.journal import Journal, find_unfinished, journal_path

    path = find_unfinished(state, limit=None)
    if path is None:
        done = len(list(state.glob("*.jsonl")))
        game_id = GAMES[done % len(GAMES)]
        engine = games.get(game_id)
        n = max(engine.MIN_PLAYERS, min(engine.MAX_PLAYERS, rng.choice((2, 3))))
        began = datetime.now(UTC)
        path = journal_path(state, game_id, began)
        return make_journal(path, game_id, ["Ann", "Ben", "Cy"][:n], {}, began)
    journal = Journal.open(path, salvage=True)
    _emit(resumed=path.name, events=len(journal.events), damaged=journal.damage is not None)
    truths = _truths(truth_path)
    for n, truth in _wrong_rolls(journal, truths):  # misread, then the kill
        if truth is None:
            continue
        try:
            journal.correct(n, truth)
            _emit(correction="after_restart")
        except RuleError:
            pass
    return journal


class _SoakGame:
    """One game played on the soak tray by the simulated players, through the real table,
    session, pipeline and camera guard, reporting its throws, corrections and writes."""

    def __init__(self, journal, diceset, rec, rng, np_rng, truth_log, injected: Counter):
        from hardware.guard import Guarded
        from tray.app.players import SimPlayers
        from tray.app.session import Session
        from tray.table.table import Table
        from vision.settle import Settler

        self.journal = journal
        self.cause = "none"  # the fault of the throw being read

        def on_event(kind: str, text: str) -> None:
            if kind == "refused":
                _emit(refused=self.cause)

        self.table = Table(journal, on_event=on_event)
        self.tray = SoakTray(diceset, rng, np_rng, truth_log, lambda t=self.table: t.journal)
        self.session = Session(
            self.table,
            Guarded(FaultyCamera(self.tray, rng, injected)),
            rec,
            Settler(),
            read_timeout=0.0,
            lost_after=1.0,
        )
        self.players = SimPlayers(
            self.session,
            self.tray,
            random.Random(rng.randrange(1 << 30)),
            log=lambda _s: None,
            think_s=0.2,
            give_up_frames=40,
        )

    def play(self, made: int, throws: int) -> int:
        """Play until the game ends or ``throws`` throws are made in all; the throws made."""
        journal, table, tray, players = self.journal, self.table, self.tray, self.players
        t, size, thrown = 0.0, journal._size, tray.throws
        fixed, misread = 0, 0
        while not table.expect().finished and made < throws:
            t += DT
            self._step(t)
            players.act(t)
            if tray.throws != thrown:
                thrown = tray.throws
                made += 1
                self.cause = tray.fault
                # the event the throw is for (as truth.log keys it)
                _emit(throw=tray.fault, journal=journal.path.name, event=len(journal.events) + 1)
            if players.fixed != fixed:
                _emit(correction="unread:" + self.cause)
                fixed = players.fixed
            if players.misread_corrected != misread:
                self._emit_misread()
                misread = players.misread_corrected
            if journal._size != size:  # written and fsynced: acknowledged
                size = journal._size
                _emit(ack=journal.path.name, size=size, events=len(journal.events))
        return made

    def _step(self, t: float) -> None:
        """The session's turn at time ``t``: frames read while a throw is made or looked at,
        else the table only."""
        session, tray = self.session, self.tray
        if self.players.throwing is not None:
            session.step(t, draw=False)
        elif tray.look > 0:
            before = session.frames
            session.step(t, draw=False)
            tray.look -= session.frames > before
        else:
            session.drain(t)
            self.table.tick(t)

    def _emit_misread(self) -> None:
        players = self.players
        read, meant = players.misreads[-1] if players.misreads else (None, None)
        _emit(
            correction="misread:" + self.cause,
            misread={
                "journal": self.journal.path.name,
                "read": read,
                "thrown": meant,
                "fault": self.cause,
            },
        )


def _emit_check(journal, finished: bool, truth_path: Path) -> None:
    """Report the game's scored rolls checked against the dice really thrown."""
    wrong = _wrong_rolls(journal, _truths(truth_path))
    rolls = sum(1 for e in journal.events if e.get("type") == "roll")
    _emit(
        checked=journal.path.name,
        rolls=rolls,
        wrong=len(wrong),
        finished=finished,
        wrong_rolls=[
            {"event": n, "scored": journal.events[n - 1]["dice"], "thrown": truth}
            for n, truth in wrong
        ],
    )


# ------------------------------------------------------------------------- the parent process


class Tally:
    """The figures of a soak, gathered from the worker's reports."""

    def __init__(self):
        self.throws = self.wrong = self.lost = self.crashes = self.kills = self.resumed = 0
        self.games = self.rolls = 0
        self.refusals: Counter = Counter()
        self.corrections: Counter = Counter()
        self.faults: Counter = Counter()
        self.camera: Counter = Counter()
        self.acked: dict[str, tuple[int, int]] = {}  # journal -> (bytes, events) acknowledged
        self.checked: dict[str, tuple[int, int]] = {}  # journal -> (rolls, wrong), last check
        self.wrong_rolls: dict[str, list] = {}  # journal -> its wrong rolls, last check
        self.misreads: list[dict] = []  # rolls taken misread, then corrected
        self.throw_of: dict[tuple, int] = {}  # (journal, event) -> the soak's throw number
        self.at: dict = {}  # where the worker is: journal, event (of the last throw)
        self.failures: list[str] = []  # why the soak failed, a line each (crashes, losses)

    def take(self, r: dict) -> bool:
        """Count one report; True for a throw."""
        if "throw" in r:
            self.throws += 1
            self.faults[r["throw"]] += 1
            if "journal" in r:
                self.at = {"journal": r["journal"], "event": r.get("event")}
                self.throw_of[(r["journal"], r.get("event"))] = self.throws
            return True
        if "game" in r:
            self.at = {"journal": r["game"], "event": r.get("events", 0) + 1}
        if "ack" in r:
            self.acked[r["ack"]] = (r["size"], r["events"])
        elif "refused" in r:
            self.refusals[r["refused"]] += 1
        elif "correction" in r:
            self.corrections[r["correction"]] += 1
            if r.get("misread"):
                self.misreads.append(r["misread"])
        elif "resumed" in r:
            self.resumed += 1
        elif "checked" in r:
            self.checked[r["checked"]] = (r["rolls"], r["wrong"])
            self.wrong_rolls[r["checked"]] = r.get("wrong_rolls", [])
        elif "camera" in r:
            self.camera[r["camera"]] += 1
        return False

    def where(self) -> str:
        """The throw the soak is at, in words (for a failure's message)."""
        if not self.at:
            return f"at throw {self.throws}"
        return f"at throw {self.throws} ({self.at['journal']}, event {self.at['event']})"

    def verify(self, state: Path) -> None:
        """After a kill: every acknowledged event must be in its journal, undamaged."""
        from tray.rules.journal import Journal, JournalError

        for name, (size, events) in self.acked.items():
            try:
                j = Journal.open(state / name, salvage=True)
            except (JournalError, OSError) as exc:
                self.lost += events
                self.failures.append(
                    f"{events} acknowledged events lost after the kill {self.where()}: "
                    f"{name} cannot be read ({exc})"
                )
                continue
            if j.damage is not None or j._size < size:
                lost = max(1, events - len(j.events))
                self.lost += lost
                why = j.damage if j.damage is not None else f"{j._size} of {size} bytes left"
                self.failures.append(
                    f"{lost} acknowledged events lost after the kill {self.where()}: {name} ({why})"
                )

    def crashed(self, returncode: int, stderr: str) -> None:
        """A worker that ended with an error (not killed by the soak): count it and say why."""
        self.crashes += 1
        lines = stderr.strip().splitlines()
        why = lines[-1] if lines else f"exit code {returncode}, nothing on stderr"
        if returncode < 0:  # a signal the soak did not send (SIGKILL: the kernel, out of memory?)
            try:
                name = signal.Signals(-returncode).name
            except ValueError:
                name = f"signal {-returncode}"
            oom = " (out of memory?)" if -returncode == signal.SIGKILL else ""
            why = f"killed by {name}{oom}, not by the soak" + (
                f"; it said: {lines[-1]}" if lines else ""
            )
        self.failures.append(f"the worker failed {self.where()}: {why}")

    def result(self, seconds: float) -> dict:
        rolls = sum(r for r, _ in self.checked.values())
        wrong = sum(w for _, w in self.checked.values())
        return {
            "throws": self.throws,
            "scored_rolls": rolls,
            "wrong_scores": wrong,
            "lost_events": self.lost,
            "crashes": self.crashes,
            "kills": self.kills,
            "resumed": self.resumed,
            "games": len(self.checked),
            "refusals": dict(sorted(self.refusals.items())),
            "corrections": dict(sorted(self.corrections.items())),
            "throw_faults": dict(sorted(self.faults.items())),
            "camera_faults": dict(sorted(self.camera.items())),
            "misread_rolls": self.misreads,
            "wrong_rolls": [
                dict(w, journal=name, throw=self.throw_of.get((name, w["event"])))
                for name, ws in sorted(self.wrong_rolls.items())
                for w in ws
            ],
            "failures": list(self.failures),
            "seconds": round(seconds, 1),
            "throws_per_second": round(self.throws / seconds, 2) if seconds else None,
        }


def soak(
    throws: int, seed: int = 0, state: Path | None = None, kills: bool = True, progress: bool = True
) -> dict:
    """Run a soak of ``throws`` throws; returns the figures (see the module docstring)."""
    from tqdm import tqdm

    own = state is None
    tmp = tempfile.TemporaryDirectory(prefix="dicetray-soak-") if own else None
    state = Path(tmp.name) if tmp else Path(state)
    state.mkdir(parents=True, exist_ok=True)
    tally = Tally()
    rng = random.Random(seed)
    start = time.monotonic()
    bar = tqdm(total=throws, desc="soak", unit="throw", disable=not progress, file=sys.stderr)
    run = 0
    try:
        while tally.throws < throws:
            run += 1
            cmd = [
                sys.executable,
                "-m",
                "lab.soak",
                "--worker",
                str(state),
                "--seed",
                str(zlib.crc32(f"{seed}/{run}".encode())),
                "--throws",
                str(throws - tally.throws),
            ]
            # the worker's stderr goes to a file: a pipe nobody reads while it runs could fill
            # up and stall it
            with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as err:
                proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
                deadline = time.monotonic() + rng.uniform(*KILL_EVERY_S) if kills else None
                how = _follow(
                    proc, tally, bar, deadline, None if own else (state / "figures.json", start)
                )
                if how == "hung":
                    tally.crashes += 1
                    tally.failures.append(
                        f"the worker stopped reporting {tally.where()}: nothing for "
                        f"{HANG_S:.0f} s, so it was killed as stuck"
                    )
                    bar.write(f"soak: {tally.failures[-1]}", file=sys.stderr)
                    tally.verify(state)
                elif how == "killed":
                    tally.kills += 1
                    tally.verify(state)
                elif proc.returncode != 0:
                    err.seek(0)
                    tally.crashed(proc.returncode, err.read())
                    bar.write(f"soak: {tally.failures[-1]}", file=sys.stderr)
                    if tally.crashes > 20:
                        break
    finally:
        bar.close()
        if tmp is not None:
            tmp.cleanup()
    result = tally.result(time.monotonic() - start)
    if not own:
        (state / "figures.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def _follow(proc, tally: Tally, bar, deadline: float | None, snapshot=None) -> str:
    """Read the worker's reports until it ends ("ended"), or SIGKILL it at ``deadline``
    ("killed") or when it reports nothing for ``HANG_S`` seconds ("hung": it is stuck).
    ``snapshot``: (file, start time): the figures so far are written there every 100 throws.

    After a kill, what the worker wrote before it died is still read and counted: a parent
    that lags behind (a loaded machine) would otherwise lose the throws, acknowledgements and
    checks waiting in the pipe, and the figures would depend on the machine's load."""
    import selectors

    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    buf = [""]
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)

    def take(chunk: str) -> None:
        buf[0] += chunk
        *lines, buf[0] = buf[0].split("\n")
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if tally.take(record):
                bar.update(1)
                if snapshot is not None and tally.throws % 100 == 0:
                    figures = tally.result(time.monotonic() - snapshot[1])
                    snapshot[0].write_text(json.dumps(figures, indent=1) + "\n")

    heard = time.monotonic()
    while True:
        now = time.monotonic()
        wait = HANG_S - (now - heard)
        if deadline is not None:
            wait = min(wait, deadline - now)
        if wait <= 0.0:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            os.set_blocking(fd, True)  # the worker is gone: the pipe ends where it stopped
            while chunk := os.read(fd, 65536):
                take(chunk.decode("utf-8", "replace"))
            return "killed" if deadline is not None and now >= deadline else "hung"
        if sel.select(timeout=wait):
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:  # woken with nothing to read after all
                continue
            if not chunk:
                proc.wait()
                return "ended"
            heard = time.monotonic()
            take(chunk.decode("utf-8", "replace"))


def main(argv: list[str] | None = None) -> int:
    """``dicetray soak --throws N [--seed S] [--json]``."""
    p = argparse.ArgumentParser(prog="dicetray soak", description=__doc__.split("\n\n")[0])
    p.add_argument("--throws", type=int, default=1000, help="throws to make (default 1000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--no-kill", action="store_true", help="never SIGKILL the worker")
    p.add_argument(
        "--keep",
        default=None,
        metavar="DIR",
        help="play in DIR (journals and truth.log are kept) instead of a temp dir",
    )
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker is not None:
        try:
            return worker(Path(args.worker), args.seed, args.throws)
        except Exception:  # noqa: BLE001 - a crash is a figure of the soak: report it
            traceback.print_exc()
            return 3
    if args.throws < 1:
        p.error("--throws needs at least 1")
    if args.keep is not None:
        keep = Path(args.keep)
        try:
            keep.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(
                f"dicetray soak: --keep {keep}: cannot use it as a folder ({exc})", file=sys.stderr
            )
            return 2
    result = soak(
        args.throws, args.seed, Path(args.keep) if args.keep else None, kills=not args.no_kill
    )
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for k, v in result.items():
            print(f"{k:>18}: {v}")
    why = reasons(result)
    for line in why:
        print(f"soak: {line}", file=sys.stderr)
    return 1 if why else 0


def reasons(result: dict) -> list[str]:
    """Why a soak failed, one line each (nothing when it passed): every wrong score with its
    throw, every loss of acknowledged events, every worker that failed, and the totals.

    >>> reasons({"wrong_scores": 0, "lost_events": 0, "crashes": 0})
    []
    """
    out = []
    for w in result.get("wrong_rolls", []):
        thrown = "no throw recorded for it" if w.get("thrown") is None else w["thrown"]
        out.append(
            f"wrong score at throw {w.get('throw') or '?'} ({w['journal']}, event "
            f"{w['event']}): scored {w['scored']}, thrown {thrown}"
        )
    out += list(result.get("failures", []))
    counts = [
        (result["wrong_scores"], "wrong score", "wrong scores"),
        (result["lost_events"], "lost event", "lost events"),
        (result["crashes"], "worker crash", "worker crashes"),
    ]
    if any(n for n, _, _ in counts):
        said = ", ".join(f"{n} {one if n == 1 else many}" for n, one, many in counts)
        out.append(f"FAILED: {said}")
    return out


if __name__ == "__main__":
    sys.exit(main())
