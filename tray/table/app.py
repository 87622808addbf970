"""The app loop: camera frames -> vision -> the game -> the screen, and the buttons.

One loop (:class:`Session`): a frame source (``hardware.camera``) -> ``Recognizer.read`` ->
``Settler.update`` -> :class:`tray.table.actions.Table` (which checks the roll against what the
game expects and writes the journal before anything shows it) -> ``tray.screen.view`` ->
``tray.screen.display``. Button presses (GPIO, keys 1-0, taps) all arrive through one queue. Time
comes from an injected clock, so tests and the headless demo run without sleeping.

Commands:

* ``dicetray demo`` (:func:`main_demo`): a whole game on the simulated tray with simulated
  players; every throw is rendered and read back through the real vision pipeline.
* ``dicetray play`` (:func:`main_play`): the real table (Pi camera + GPIO buttons), else an
  OpenCV camera, else the simulated tray with keyboard buttons.

Controls at the table (buttons, keys, touch all do the same things):

=====================  ==========================================  ============================
what                   button                                      keys / touch
=====================  ==========================================  ============================
IN/OUT in secret       press: 1st IN, 2nd OUT, ... (toggles);       keys 1-0; tap your name
                       the active player's long press reveals now   Enter / "Reveal"
bank / stop / Tally!   press                                       keys 1-0; tap your name
a choice (marks,       press = next choice, long press = confirm   arrows + Enter; tap a
saves, plans)                                                      choice twice
fix an unread die      the roller: press = next face, long = OK    Left/Right die, Up/Down
                                                                   face, Enter; tap the die
undo                   long press (with nothing to decide), twice  U / Backspace; "undo"
correct the last roll  -                                           C, then as above
end the game early     -                                           E; "end game" (Bank)
set-up camera view     -                                           S
throw (simulated tray) -                                           T
=====================  ==========================================  ============================

>>> from tray.table.app import run_demo
>>> result = run_demo("bank", players=2, seed=1, out="demo-out", options={"rounds": 10})  # doctest: +SKIP
>>> result["summary"]["finished"]                                                        # doctest: +SKIP
True
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from tray.rules import games
from tray.rules.engine import RuleError
from tray.table.actions import ButtonMapper, Message, Table, handle_key, handle_tap, press_plan

DEMO_NAMES = ["Ana", "Ben", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo"]
#: options the demo plays with unless --option says otherwise (games that finish in minutes)
DEMO_OPTIONS = {"bank": {"rounds": 10}}
#: how many demo screenshots of each kind of moment (default 1: the first one)
SHOTS_PER_KIND = {"reveal": 2, "bust": 2}


def make_journal(path: Path | None, game_id: str, players: list[str], options: dict):
    """A new journal file at ``path`` (tray.rules.journal), or an in-memory one when path is None."""
    if path is None:
        from tray.table.actions import MemoryJournal

        return MemoryJournal.create(None, game_id, players, options, None)
    from tray.rules.journal import Journal

    return Journal.create(path, game_id, players, options, None)


def resume_offer(journal_dir: str | Path) -> tuple[Path, str] | None:
    """The newest unfinished game's journal in ``journal_dir`` and the words offering to
    resume it, or None."""
    from tray.rules.journal import Journal, find_unfinished

    path = find_unfinished(journal_dir)
    if path is None:
        return None
    try:
        j = Journal.open(path, salvage=True)
    except (ValueError, OSError):
        return None
    kept = f" (damaged: the first {len(j.events)} events kept)" if j.damage else ""
    return path, (f"Resume {j.game.TITLE} ({', '.join(j.players)}), "
                  f"{len(j.events)} events in{kept}? Press R or tap here")


def sim_throw_ids(spec, rng: random.Random | None = None) -> list[str]:
    """The die ids to throw on the simulated tray for a RollSpec (faces: the tray's chance)."""
    if spec.dice is not None:
        return list(spec.dice)
    pool = sorted(set(spec.choose_from or ()))
    return (rng or random.Random()).sample(pool, min(spec.count, len(pool)))


def led_states(table: Table) -> list[bool]:
    """Which players' button LEDs are lit: those the game waits for (a roller, a decision not
    made yet; a hidden IN/OUT choice already made turns the LED off, showing nothing of what)."""
    n = len(table.players)
    lit = [False] * n
    e = table.expect()
    if e.finished:
        return lit
    if e.roll is not None and 0 <= e.roll.roller < n and not table.secret_decisions():
        lit[e.roll.roller] = True
    for d in e.decisions:
        if 0 <= d.player < n and not (d.secret and d.player in table.secret):
            lit[d.player] = True
    return lit


class Session:
    """The loop's state: source, recognizer, settler, table, button queue, display.

    Call :meth:`step` once per loop with the current time ``t``; it reads one frame (None =
    no frame came: camera dropout), feeds vision and the table, applies the queued button
    events, lets time pass (countdowns, press windows) and draws.

    >>> session = Session(table, source, Recognizer("bank"), Settler())   # doctest: +SKIP
    >>> session.step(t=0.0)                                                # doctest: +SKIP
    """

    def __init__(self, table: Table, source, recognizer, settler, events: queue.Queue | None = None,
                 display=None, releases: bool = False, long_s: float = 0.8,
                 read_timeout: float = 1.0, lost_after: float = 2.0):
        self.table = table
        self.source = source
        self.recognizer = recognizer
        self.settler = settler
        self.events = events if events is not None else queue.Queue()
        self.display = display
        self.mapper = ButtonMapper(table, releases=releases, long_s=long_s)
        self.read_timeout = read_timeout
        self.lost_after = lost_after
        self.frames = 0
        self.last_frame = None
        self.last_reading = None
        self.setup_view = False
        self.keys = None   # hardware.buttons.KeyboardButtons: keys 1-0 as buttons
        self.on_settled: Callable | None = None

    def step(self, t: float, draw: bool = True) -> None:
        """One turn of the loop at time ``t``."""
        frame = self.source.read(timeout=self.read_timeout) if self.source is not None else None
        if self.source is not None:
            self.table.camera(frame is not None, t, lost_after=self.lost_after)
            why = getattr(self.source, "status", None)  # hardware.camera.Guarded: the fault
            if frame is None and why and self.table.message and self.table.message.kind == "camera":
                self.table.message.text = why
        if frame is not None:
            self.frames += 1
            self.last_frame = frame
            reading = self.recognizer.read(frame)
            self.last_reading = reading
            settled = self.settler.update(reading)
            if settled is not None:
                if self.on_settled is not None:
                    self.on_settled(settled, t)
                else:
                    self.table.settled(settled, t)
        self.drain(t)
        self.table.tick(t)
        if draw and self.display is not None:
            self.draw(t)

    def drain(self, t: float | None = None) -> None:
        """Apply every button event waiting in the queue."""
        while True:
            try:
                ev = self.events.get_nowait()
            except queue.Empty:
                return
            self.mapper.handle(ev)

    def view(self, t: float):
        from tray.screen.view import SetupView, build_view

        if self.setup_view:
            r = self.last_reading
            boxes = []
            if r is not None:
                for d in r.dice:
                    label = d.spec or (f"{d.die}:?" if d.die else "?")
                    boxes.append((d.x, d.y, d.w, d.h, label, d.read))
            status = getattr(self.settler, "status", "")
            return SetupView(self.last_frame, boxes, f"Tray: {status}",
                             self.table.journal.game.DICE_SET,
                             self.table.message.text if self.table.message else None)
        return build_view(self.table, t)

    def draw(self, t: float) -> None:
        self.display.draw(self.view(t))


# ------------------------------------------------------------------------------ simulated table
class SimPlayers:
    """Simulated players for the demo: they throw the dice the game asks for on the simulated
    tray, answer decisions with button presses through the same queue and mapping as people,
    and fix dice the camera misread, as a person at the table would (they know the truth).

    Decisions come from ``tray.rules.playthrough.choose`` (the seeded random player) or the game's
    suggested default; table-level actions ("end game early") are never taken.
    """

    def __init__(self, session: Session, tray, rng: random.Random, log: Callable[[str], None],
                 think_s: float = 0.4, give_up_frames: int = 240, script: list[dict] | None = None):
        self.script = list(script) if script is not None else None
        self.k = 0   # the next scripted event
        self.s = session
        self.tray = tray
        self.rng = rng
        self.log = log
        self.think_s = think_s
        self.give_up_frames = give_up_frames
        self.throwing: list[str] | None = None   # the dice thrown and not yet taken
        self.throw_frames = 0
        self.next_act = 0.0
        self.tally_press_at: float | None = None
        self.rethrows = 0
        self.fixed = 0
        self.misread_corrected = 0
        session.on_settled = self.settled

    # a settled roll from the real vision pipeline
    def settled(self, roll, t: float) -> None:
        table = self.s.table
        if self.throwing is None:
            # nobody threw: dice seen on their way out of the tray, or seen twice
            self.log("  (a roll seen while nobody threw: ignored)")
            return
        thrown = list(self.throwing)
        result = table.settled(roll, t)
        if result == "correcting":
            result = self._fix_unread(roll, thrown, t)
        if result == "taken":
            if self.script is not None:
                self.k += 1
            if Counter(table.last_roll) != Counter(thrown):
                self._correct_after(thrown, t)
            self._done_throw(t)
        else:
            # the camera saw another count of dice, or the table refused it: throw again
            self.rethrows += 1
            self.log(f"  (vision: {table.message.text if table.message else 'not taken'}; "
                     "the dice are thrown again)")
            table.correction = None
            self._done_throw(t)

    def _done_throw(self, t: float) -> None:
        self.throwing = None
        pick = getattr(self.tray, "pick_up", None)
        if callable(pick):
            pick()
        self.next_act = t + self.think_s

    def _fix_unread(self, roll, thrown: list[str], t: float) -> str:
        """Fix each unread die like a person: press the roller's button until the die shows
        the right face, move on, confirm with a long press."""
        table = self.s.table
        c = table.correction
        truth = self._truth_specs(roll, thrown)
        roller = table.expect().roll.roller if table.expect().roll else 0
        for i, slot in enumerate(c.slots):
            if not slot.was_unread:
                continue
            want = truth[i]
            if want not in slot.candidates:
                continue
            c.select(i)
            target = slot.candidates.index(want)
            steps = (target - slot.index) % len(slot.candidates) if slot.index >= 0 else target + 1
            for _ in range(steps):
                table.press(roller, t)
            self.fixed += 1
        return table.press(roller, t, long=True)

    def _truth_specs(self, roll, thrown: list[str]) -> list[str]:
        """The true face of each die of the settled roll: the tray's truth labels matched by box
        centre; failing that, the thrown dice not already read."""
        labels = []
        truth = getattr(self.tray, "truth", None)
        if isinstance(truth, dict):
            labels = list(truth.get("labels") or [])
        left = Counter(thrown)
        for d in roll.dice:
            if d.spec is not None and left[d.spec] > 0:
                left[d.spec] -= 1
        spare = list(left.elements())
        out = []
        for d in roll.dice:
            cx, cy = d.centre
            best = None
            for lab in labels:
                lx, ly = lab["x"] + lab["w"] / 2, lab["y"] + lab["h"] / 2
                dist = (lx - cx) ** 2 + (ly - cy) ** 2
                if best is None or dist < best[0]:
                    best = (dist, f"{lab['die']}:{lab['face']}")
            if best is not None and best[0] < 30 ** 2:
                out.append(best[1])
            elif d.spec is not None:
                out.append(d.spec)
            else:
                out.append(spare.pop(0) if spare else "")
        return out

    def _correct_after(self, thrown: list[str], t: float) -> None:
        """The camera read a die wrong and the roll was taken: correct it after the fact."""
        table = self.s.table
        if table.correct_last(t) != "correcting":
            return
        c = table.correction
        taken = [s.value for s in c.slots]
        left = Counter(thrown)
        for v in taken:
            if left[v] > 0:
                left[v] -= 1
        wrong = [i for i, v in enumerate(taken) if v not in Counter(thrown) or
                 taken[:i + 1].count(v) > Counter(thrown)[v]]
        spare = list(left.elements())
        for i in wrong:
            if not spare:
                break
            want = spare.pop(0)
            slot = c.slots[i]
            if want in slot.candidates:
                slot.index = slot.candidates.index(want)
        res = table.confirm(t)
        self.misread_corrected += 1
        self.log(f"  (a die was misread: the roll was corrected to {', '.join(c.specs())}: {res})")

    # acting
    def act(self, t: float) -> None:
        """Do the next thing a player would do at time ``t``, if any."""
        table = self.s.table
        e = table.expect()
        if e.finished:
            return
        if self.throwing is not None:
            self.throw_frames += 1
            if self.throw_frames > self.give_up_frames:   # vision never settled: throw again
                self.rethrows += 1
                self.log("  (the roll was not read: the dice are thrown again)")
                self._done_throw(t)
            return
        if t < self.next_act or table.counting_down() or table.correction is not None:
            return
        if self.script is not None:
            self._scripted(t)
            return
        if table.window_decision() is not None:
            self._tally_window(t)
            return
        secret = table.secret_decisions()
        if secret:
            for d in secret:
                if d.player in table.secret:
                    continue
                want = self._pick(d)
                self._presses(press_plan(table, want), t)
            self.next_act = t + self.think_s
            return
        ev = self._choose(e)
        if ev is None:
            return
        if ev.get("type") == "roll":
            self.throwing = list(ev["dice"])
            self.throw_frames = 0
            self.tray.throw(self.throwing)
            return
        plan = press_plan(table, ev)
        if not plan:   # no button sends it: fall back to the keys' confirm
            table.send(ev, t)
        self._presses(plan, t)
        self.next_act = t + self.think_s

    @property
    def script_done(self) -> bool:
        return self.script is not None and self.k >= len(self.script)

    def _scripted(self, t: float) -> None:
        """Play the next event of the script, the way people at the table would."""
        if self.script_done:
            return
        table = self.s.table
        ev = self.script[self.k]
        if ev.get("type") == "roll":
            self.throwing = list(ev["dice"])
            self.throw_frames = 0
            self.tray.throw(self.throwing)
            return
        if ev.get("player") == -1:
            if ev.get("action") == "window_closed":
                if table.window_decision() is None:   # the table closed it on time
                    self.k += 1
                return
            table.table_action(ev.get("action"), t)
            self.k += 1
            return
        plan = press_plan(table, ev)
        if not plan and table.secret.get(ev.get("player")) != ev.get("action"):
            raise RuntimeError(f"no button press sends {ev} (prompt: {table.expect().prompt})")
        self._presses(plan, t)
        self.k += 1
        self.next_act = t + self.think_s

    def _tally_window(self, t: float) -> None:
        """After a Tally Up!, someone presses first (now and then nobody presses in time)."""
        table = self.s.table
        if self.tally_press_at is None:
            w = table.window_seconds()
            self.tally_press_at = -1.0 if self.rng.random() < 0.15 else \
                t + self.rng.uniform(0.3, max(0.4, w * 0.6))
        if 0 <= self.tally_press_at <= t:
            seat = self.rng.randrange(len(table.players))
            self._presses([(seat, False)], t)
            self.tally_press_at = None
        elif self.tally_press_at < 0 and table.window_decision() is None:
            self.tally_press_at = None

    def _pick(self, d) -> dict:
        if d.default is not None and self.rng.random() < 0.75:
            return dict(d.default)
        return dict(self.rng.choice(d.choices))

    def _choose(self, e) -> dict | None:
        """The next event: a roll or one player's decision (never a table-level action).

        Decisions follow the game's suggested default most of the time (else a random legal
        choice); when the game also waits for a roll (Toss Up!'s stop, Bank's bank), the lone
        decider takes the suggestion often, each of several (Bank) now and then."""
        from tray.rules import playthrough

        layout = self.s.table.state.get("layout")
        ds = [d for d in e.decisions if d.player >= 0 and d.choices]
        if ds and e.roll is None:
            return self._pick(self.rng.choice(ds))
        if ds:
            p_take = 0.8 if len(ds) == 1 else 0.12
            for d in self.rng.sample(ds, len(ds)):
                if d.default is not None and self.rng.random() < p_take:
                    return dict(d.default)
        if e.roll is not None:
            return playthrough.throw(e.roll, self.rng, layout)
        return None

    def _presses(self, plan, t: float) -> None:
        from hardware.buttons import ButtonPress

        for seat, long in plan:
            if long:
                # a long press: the release arrives after holding
                self.s.table.press(seat, t, long=True)
            else:
                self.s.events.put(ButtonPress(seat, t, "sim"))
            self.s.drain(t)


def _game_log_line(table: Table) -> Callable[[str, str], None]:
    def on_event(kind: str, text: str) -> None:
        if kind in ("countdown", "unreadable"):
            return
        print(f"[round {table.state.get('round', '?')}] {text}", flush=True)
    return on_event


def run_demo(game_id: str = "tally-up", players: int = 2, seed: int = 0,
             out: str | Path = "demo-out", max_seconds: float | None = None, window: bool = False,
             options: dict | None = None, fps: int = 30, quiet: bool = False,
             screenshots: bool = True, script: list[dict] | None = None, rest_frames: int = 6,
             dropout: tuple[int, int] | None = None, max_steps: int | None = None) -> dict:
    """Play a whole game on the simulated tray; returns {"summary", "journal", "screenshots",
    "seconds", "frames", "rolls", "finished", ...}. Raises ValueError on bad arguments.

    ``script``: play exactly these events (rolls thrown on the tray, decisions pressed on the
    buttons) instead of random choices, and stop when they are done. ``dropout``: (after this
    many rolls, this many frames) the camera goes quiet once. ``max_steps``: a bound on loop
    turns (tests)."""
    from vision import dicesets

    engine = games.get(game_id)
    if not engine.MIN_PLAYERS <= players <= engine.MAX_PLAYERS:
        raise ValueError(f"{engine.TITLE} is played by {engine.MIN_PLAYERS} to "
                         f"{engine.MAX_PLAYERS} players, not {players}: use --players "
                         f"{max(engine.MIN_PLAYERS, min(players, engine.MAX_PLAYERS))}")
    # the whole pipeline first: nothing is written when a part is missing
    from hardware.camera import SimulatedTray
    from vision.pipeline import Recognizer
    from vision.settle import Settler

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    opts = dict(DEMO_OPTIONS.get(game_id, {}))
    opts.update(options or {})
    names = DEMO_NAMES[:players]
    stamp = time.strftime("%Y%m%d-%H%M%S")
    jpath = out / f"{game_id}-seed{seed}-{stamp}.jsonl"
    n = 2
    while jpath.exists():
        jpath = out / f"{game_id}-seed{seed}-{stamp}-{n}.jsonl"
        n += 1
    journal = make_journal(jpath, game_id, names, opts)
    log = (lambda s: None) if quiet else (lambda s: print(s, flush=True))
    table = Table(journal)
    if not quiet:
        table.on_event = _game_log_line(table)

    diceset = dicesets.load(engine.DICE_SET)
    tray = SimulatedTray(diceset, seed=seed, fps=fps, realtime=window, rest_frames=rest_frames)
    recognizer = Recognizer(diceset)
    settler = Settler()
    display = None
    if window or screenshots:
        from tray.screen.display import Display

        display = Display(headless=not window, caption=f"dicetray demo: {engine.TITLE}")
    session = Session(table, tray, recognizer, settler, display=display,
                      read_timeout=0.0 if not window else 1.0)
    sim = SimPlayers(session, tray, random.Random(seed), log, script=script,
                     think_s=1.2 if window else 0.15)
    shots: list[Path] = []
    snap_next: list[str] = []

    base_event = table.on_event

    def on_event(kind: str, text: str) -> None:
        if base_event is not None:
            base_event(kind, text)
        if kind in ("banner", "finished", "reveal", "unreadable") and screenshots:
            snap_next.append(kind if kind != "banner" else text.strip("!").lower().replace(" ", "-"))

    table.on_event = on_event
    log(f"dicetray demo: {engine.TITLE}, {players} players ({', '.join(names)}), seed {seed}")
    log(f"journal: {jpath}")
    wall0 = time.monotonic()
    t = 0.0
    dt = 1.0 / fps
    finished = False
    shot_counts: dict[str, int] = {}
    draw_every = 1 if window else 0
    steps = 0
    timed_out = False
    try:
        while True:
            steps += 1
            sim.act(t)
            session.step(t, draw=bool(draw_every))
            if window:
                _pump_window(session, t)
            if snap_next and display is not None:
                kind = snap_next.pop(0)
                snap_next.clear()
                shot_counts[kind] = shot_counts.get(kind, 0) + 1
                if shot_counts[kind] <= SHOTS_PER_KIND.get(kind, 1):
                    session.draw(t)
                    shots.append(display.save(out / f"{len(shots) + 1:03d}-{game_id}-{kind}.png"))
            if table.expect().finished:
                finished = True
                break
            if sim.script_done and not sim.throwing and table.window_decision() is None \
                    and not table.counting_down():
                break
            if dropout is not None and table.rolls_taken >= dropout[0]:
                tray.drop_out(frames=dropout[1])
                log(f"  (the camera drops out for {dropout[1]} frames)")
                dropout = None
            if max_steps is not None and steps >= max_steps:
                timed_out = True
                break
            if max_seconds is not None and time.monotonic() - wall0 > max_seconds:
                timed_out = True
                break
            t = time.monotonic() - wall0 if window else t + dt
    except KeyboardInterrupt:
        log("stopped (Ctrl-C): the journal keeps the game so far")
    finally:
        tray.close()
    if display is not None:
        session.draw(t + 0.001)
        shots.append(display.save(out / f"{len(shots) + 1:03d}-{game_id}-end.png"))
    summary = journal.game.summary(journal.state)
    seconds = time.monotonic() - wall0
    log("")
    log("final scores:" if finished else "scores so far (game not finished):")
    for p in summary.get("players", []):
        log(f"  {p['name']:<8} {p['score']}")
    if finished:
        w = summary.get("winner")
        log(f"winner: {', '.join(w) if isinstance(w, list) else w}")
    if timed_out:
        log("stopped at the time limit: the game is not finished")
    rolls = rolls_taken(journal)
    log(f"{rolls} rolls, {session.frames} frames read by the vision pipeline in {seconds:.1f} s; "
        f"{sim.fixed} unread dice fixed, {sim.misread_corrected} misread rolls corrected, "
        f"{sim.rethrows} rethrows; {len(shots)} screenshots in {out}")
    return {"summary": summary, "state": journal.state, "journal": jpath, "screenshots": shots,
            "seconds": seconds,
            "frames": session.frames, "rolls": rolls, "finished": finished,
            "fixed": sim.fixed, "corrected": sim.misread_corrected, "rethrows": sim.rethrows,
            "log": list(table.log)}


def rolls_taken(journal) -> int:
    """How many roll events the journal holds (copies the events: not for every frame)."""
    return sum(1 for e in getattr(journal, "events", []) if e.get("type") == "roll")


def _pump_window(session: Session, t: float) -> None:
    """Handle the window's events (close, keys, taps) during the demo / play."""
    import pygame

    for ev in pygame.event.get():
        if ev.type == pygame.QUIT:
            raise KeyboardInterrupt
        if ev.type == pygame.KEYDOWN:
            if play_key(session, pygame.key.name(ev.key), bool(ev.mod & pygame.KMOD_SHIFT),
                        t) == "quit":
                raise KeyboardInterrupt
        elif ev.type == pygame.MOUSEBUTTONDOWN and session.display is not None:
            handle_tap(session.table, session.display.hit(ev.pos), t)


def play_key(session: Session, name: str, shift: bool, t: float) -> str:
    """A key during a game, in words: "quit" (Escape), "rematch" (Enter on the end screen),
    "setup" (S toggles the camera view), "thrown" (T on the simulated tray), or what
    tray.table.actions.handle_key did. Player keys 1-0 go through the button queue like GPIO
    presses when the session has keyboard buttons (``session.keys``)."""
    table = session.table
    name = name.lower()
    if name == "escape" and table.correction is None:
        return "quit"
    if name == "s":
        session.setup_view = not session.setup_view
        return "setup"
    if name == "t" and hasattr(session.source, "throw"):
        spec = table.expect().roll
        if spec is None:
            return "no roll now"
        session.source.throw(sim_throw_ids(spec))
        return "thrown"
    if table.expect().finished and name in ("return", "enter", "space"):
        return "rematch"
    keys = getattr(session, "keys", None)
    if keys is not None and len(name) == 1 and name.isdigit() and not shift:
        keys.key(name, t)
        session.drain(t)
        return "pressed"
    return handle_key(table, name, t, shift=shift)


def _parse_options(items: list[str]) -> dict:
    """``--option key=value`` items -> dict (values read as JSON when they parse)."""
    import json

    out = {}
    for item in items or []:
        if "=" not in item:
            raise ValueError(f"--option {item!r}: write it as key=value, like rounds=10")
        k, v = item.split("=", 1)
        try:
            out[k.strip()] = json.loads(v)
        except json.JSONDecodeError:
            out[k.strip()] = v
    return out


def main_demo(argv: list[str]) -> int:
    """``dicetray demo``: a whole game on the simulated tray, read by the real vision pipeline."""
    ap = argparse.ArgumentParser(prog="dicetray demo", description=(
        "Play a whole game on the simulated tray with simulated players. Every throw is "
        "rendered and read by the real vision pipeline; the journal (*.jsonl) and screenshots "
        "(*.png) land in --out."))
    ap.add_argument("--game", default="tally-up", choices=games.GAME_IDS)
    ap.add_argument("--players", type=int, default=None, help="number of players (default 3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="demo-out", help="folder for the journal and screenshots")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="stop after this many seconds (the game may be unfinished)")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a game option, e.g. --option rounds=15 (repeatable)")
    ap.add_argument("--fps", type=int, default=30)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--window", action="store_true", help="show the game in a window")
    mode.add_argument("--headless", action="store_true", help="no window (default without a display)")
    args = ap.parse_args(argv)
    engine = games.get(args.game)
    players = args.players if args.players is not None else max(engine.MIN_PLAYERS,
                                                                min(3, engine.MAX_PLAYERS))
    window = args.window or (not args.headless and _has_display())
    try:
        options = _parse_options(args.option)
        result = run_demo(args.game, players, args.seed, args.out, args.max_seconds, window,
                          options, fps=args.fps)
    except (ValueError, RuleError) as exc:
        print(f"dicetray demo: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        print(f"dicetray demo: part of the vision pipeline is missing ({exc}). The demo reads "
              "every throw with lab.render, vision.pipeline and vision.settle: update your "
              "checkout or reinstall (pip install -e .).", file=sys.stderr)
        return 1
    except (FileExistsError, NotADirectoryError) as exc:
        print(f"dicetray demo: --out {args.out}: {exc.strerror}: give a folder (it is made "
              "when missing)", file=sys.stderr)
        return 2
    except (OSError, RuntimeError) as exc:   # hardware.camera.CameraError, file errors
        print(f"dicetray demo: {exc}", file=sys.stderr)
        return 1
    return 0 if result["finished"] else 1


def _has_display() -> bool:
    if os.environ.get("SDL_VIDEODRIVER") == "dummy":
        return False
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


# ----------------------------------------------------------------------------------- play
def main_play(argv: list[str]) -> int:
    """``dicetray play``: the real table (camera, buttons, screen) from the config file."""
    ap = argparse.ArgumentParser(prog="dicetray play", description=(
        "Run the table: the camera reads the dice, the buttons (or keys 1-0) answer, the screen "
        "runs the game. Uses the config file (see config.example.toml)."))
    ap.add_argument("--config", default=None, help="config file (default ~/.config/dicetray/config.toml)")
    ap.add_argument("--source", default=None, help="override camera.source (auto, sim, picamera, opencv:0, replay:DIR)")
    ap.add_argument("--game", default=None, choices=games.GAME_IDS, help="skip the start screen: play this game")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--headless", action="store_true", help="no window (for testing)")
    ap.add_argument("--max-seconds", type=float, default=None)
    args = ap.parse_args(argv)
    from tray.table.config import ConfigError, load_config

    try:
        cfg = load_config(args.config, required=args.config is not None)
    except ConfigError as exc:
        print(f"dicetray play: {exc}", file=sys.stderr)
        return 2
    try:
        return run_play(cfg, source_spec=args.source, game_id=args.game, players=args.players,
                        headless=args.headless or not (_has_display() or _on_pi_console()),
                        max_seconds=args.max_seconds)
    except (ValueError, RuleError) as exc:
        print(f"dicetray play: {exc}", file=sys.stderr)
        return 2
    except (OSError, RuntimeError, ImportError) as exc:   # camera, models, GPIO
        print(f"dicetray play: {exc}", file=sys.stderr)
        return 1


def _on_pi_console() -> bool:
    return os.environ.get("SDL_VIDEODRIVER") in ("kmsdrm", "fbcon")


def run_play(cfg, source_spec: str | None = None, game_id: str | None = None,
             players: int | None = None, headless: bool = False,
             max_seconds: float | None = None) -> int:
    """The play loop: start screen (or resume), then the game, then rematch or leave."""
    import pygame

    from hardware.buttons import KeyboardButtons, PlayerButtons
    from hardware.camera import Guarded, open_source
    from tray.screen.display import Display
    from tray.table.actions import StartMenu
    from vision import dicesets
    from vision.pipeline import Recognizer
    from vision.settle import Settler

    display = Display(size=tuple(cfg.screen.size), fullscreen=cfg.screen.fullscreen,
                      headless=headless)
    events: queue.Queue = queue.Queue()
    names = list(cfg.players) or DEMO_NAMES[:4]
    buttons = None
    releases = False
    wall0 = time.monotonic()

    def now() -> float:
        return time.monotonic() - wall0

    if cfg.pins.buttons:
        try:
            buttons = PlayerButtons(cfg.pins.buttons, events, bounce_ms=cfg.pins.bounce_ms,
                                    led_pins=cfg.pins.leds or None, pull_up=cfg.pins.pull_up,
                                    releases=True, clock=now)
            releases = True
        except Exception as exc:  # noqa: BLE001 - GPIO missing off a Pi: keys still work
            print(f"buttons: {exc}; using keys 1-0 instead", file=sys.stderr)
    keys = KeyboardButtons(events, players=10, clock=now)
    journal_dir = Path(cfg.journal.directory).expanduser()

    from tray.rules.journal import Journal, journal_path

    menu = StartMenu(names, default_game=game_id or cfg.game.default,
                     options=dict(cfg.game.options))
    offer = resume_offer(journal_dir)
    if offer is not None:
        menu.resume_path, menu.resume = offer
    source = None
    try:
        while True:
            journal = None
            if game_id is not None:
                n = players or max(games.get(game_id).MIN_PLAYERS, min(len(names), 4))
                opts = dict(cfg.game.options.get(game_id, {}))
                journal = Journal.create(journal_path(journal_dir, game_id), game_id,
                                         (names + DEMO_NAMES)[:n], opts, None)
            else:
                journal = _start_screen(display, menu, journal_dir, now, max_seconds, wall0)
                if journal is None:
                    return 0
            table = Table(journal)
            diceset = dicesets.load(journal.game.DICE_SET)
            if source is not None:
                source.close()
            source = Guarded(open_source(source_spec or cfg.camera.source, camera=cfg.camera,
                                         dice_set=diceset.id))
            simulated = hasattr(source, "throw") and hasattr(source, "pick_up")
            if simulated:
                table.message = Message("No camera: this is the simulated tray. Press T to throw "
                                        "the dice the game asks for.", "info", now() + 8)
            rolls_seen = 0
            session = Session(table, source, Recognizer(diceset), Settler(), events=events,
                              display=display, releases=releases,
                              long_s=cfg.pins.hold_ms / 1000.0)
            keys.players = len(journal.players)
            rematch = False
            lit: list[bool] = []
            session.keys = keys
            while True:
                t = now()
                session.step(t)
                if simulated and table.rolls_taken != rolls_seen:
                    rolls_seen = table.rolls_taken
                    source.pick_up()          # people take their dice out of the tray
                if buttons is not None and getattr(buttons, "leds", None):
                    want = led_states(table)
                    if want != lit:
                        for p, on in enumerate(want[:len(buttons.leds)]):
                            buttons.set_led(p, on)
                        lit = want
                for ev in pygame.event.get():
                    if ev.type == pygame.QUIT:
                        return 0
                    if ev.type == pygame.KEYDOWN:
                        what = play_key(session, pygame.key.name(ev.key),
                                        bool(ev.mod & pygame.KMOD_SHIFT), t)
                        if what == "quit":
                            return 0
                        rematch = rematch or what == "rematch"
                    elif ev.type == pygame.MOUSEBUTTONDOWN:
                        if table.expect().finished:
                            rematch = True
                        else:
                            handle_tap(table, display.hit(ev.pos), t)
                if table.expect().finished and not events.empty():
                    rematch = True
                if rematch:
                    game_id = journal.game_id
                    names = list(journal.players)
                    players = len(names)
                    while not events.empty():
                        events.get_nowait()
                    break
                if max_seconds is not None and t > max_seconds:
                    return 0
                if headless:
                    time.sleep(0.001)
    finally:
        if source is not None:
            source.close()
        if buttons is not None:
            buttons.close()


def _start_screen(display, menu, journal_dir: Path, now, max_seconds, wall0):
    """Run the start screen until a game starts (a new Journal) or the player leaves (None)."""
    import pygame

    from tray.rules.journal import Journal, journal_path

    while True:
        display.draw(menu.view())
        for ev in pygame.event.get():
            if ev.type == pygame.QUIT:
                return None
            if ev.type == pygame.KEYDOWN:
                name = pygame.key.name(ev.key)
                if name == "escape":
                    return None
                if name == "r" and menu.resume_path is not None:
                    return Journal.open(menu.resume_path, salvage=True)
                menu.key(name)
            elif ev.type == pygame.MOUSEBUTTONDOWN:
                target = display.hit(ev.pos)
                if target == ("button", "resume") and menu.resume_path is not None:
                    return Journal.open(menu.resume_path, salvage=True)
                menu.tap(target)
        if menu.started:
            menu.started = False
            try:
                return Journal.create(journal_path(journal_dir, menu.game_id), menu.game_id,
                                      menu.players, menu.chosen_options(), None)
            except (RuleError, ValueError) as exc:
                menu.message = str(exc)
        if max_seconds is not None and now() > max_seconds:
            return None
        time.sleep(0.02)
