"""Guided capture at the table: ``dicetray calibrate --teach --out FOLDER``.

The roller throws 3-6 dice of the set; once they are still, the screen shows the frame with
every die found, its box and its reading ("?" where unsure). Each die is confirmed or fixed
as in a game's correction: a short press (or Up/Down, or a tap on the die) shows the next
face, a long press (or Enter, or OK) accepts the selected die. When every die is accepted the
throw is saved to the folder (``tray/table/capture_folder.py``) and the coverage (how often
each face of each die was seen) is shown. A die the detector missed has no box and cannot be
labelled: take the dice out and throw again (a new throw replaces the one under review). The
capture stops when every face was seen ``per_face`` times and ``total_dice`` dice were saved
(teaching needs about 40 to judge what it taught), or when the roller ends it (long
press on "finish and teach" while waiting for a throw, or Q), then teaches
(``tray/table/teaching.py``).

This module is the logic only: no pygame, no camera, no clock; every input carries ``t``.

>>> import tempfile
>>> from vision.dicesets import load
>>> from vision.types import DieReading, SettledRoll
>>> from tray.table.capture_folder import CaptureFolder
>>> cap = Capture(CaptureFolder(tempfile.mkdtemp(), load("toss-up")), per_face=1)
>>> roll = SettledRoll((DieReading(10, 10, 40, 40, "toss", "red", 0.99),
...                     DieReading(90, 10, 40, 40, "toss", None, 0.4)))
>>> cap.settled(roll, frame=np.zeros((480, 640, 3), np.uint8), t=0.0)
'reviewing'
>>> cap.press(long=False, t=1.0), cap.press(long=True, t=2.0)   # the "?" die: next face, accept
('cycled face', 'accepted')
>>> cap.press(long=True, t=3.0), cap.saved
('saved', ['0001.jpg'])
>>> cap.coverage.count("toss", "red"), cap.coverage.count("toss", "green")
(1, 1)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tray.table.capture_folder import CaptureFolder
from tray.table.correction import Correction, reading_slot
from tray.table.dice_words import spec_words
from tray.table.frame_loop import FrameLoop
from tray.table.moments import Message, watch_camera
from tray.table.presses import press_length

MENU = ("keep throwing", "finish and teach")
MESSAGE_S = 6.0


def face_candidates(diceset, die: str | None) -> tuple[str, ...]:
    """Every ``die:face`` of the set, the faces of ``die`` (when read) first.

    >>> from vision.dicesets import load
    >>> face_candidates(load("toss-up"), "toss")
    ('toss:green', 'toss:yellow', 'toss:red')
    """
    ids = [d.id for d in diceset.dice]
    if die in ids:
        ids.remove(die)
        ids.insert(0, die)
    return tuple(f"{d}:{f}" for d in ids for f in dict.fromkeys(diceset.die(d).faces))


class Capture:
    """The capture's state: ``state`` is "throw" (waiting for a settled throw), "review" (a
    throw's dice being confirmed), "done" (ends with teaching) or "left" (ends without).

    ``folder``: a :class:`CaptureFolder`; ``per_face`` and ``total_dice``: the stop rule
    (every face seen so often, so many dice in all); ``on_event(kind,
    text)``: called for every log line ("saved", "coverage", "camera", ...). See the module
    docstring for an example.
    """

    def __init__(
        self,
        folder: CaptureFolder,
        per_face: int = 3,
        min_dice: int = 3,
        max_dice: int = 6,
        on_event: Callable[[str, str], None] | None = None,
        total_dice: int = 0,
    ):
        self.folder = folder
        self.diceset = folder.diceset
        self.per_face = per_face
        self.total_dice = total_dice
        self.min_dice, self.max_dice = min_dice, max_dice
        self.on_event = on_event
        self.coverage = folder.coverage()
        self.state = "done" if self.coverage.done(per_face, total_dice) else "throw"
        self.correction: Correction | None = None
        self.accepted: set[int] = set()
        self.frame: np.ndarray | None = None
        self.menu = 0
        self.message: Message | None = None
        self.camera_lost_since: float | None = None
        self.shaky_since: float | None = None  # the dice look "moving" but barely move
        self.blocked_since: float | None = None  # something not a die lies in the tray
        self.calibration_told = False  # the tray unlike the calibration's: said
        self.saved: list[str] = []
        self.dropped = 0

    # ------------------------------------------------------------------ words
    def _emit(self, kind: str, text: str) -> None:
        if self.on_event is not None:
            self.on_event(kind, text)

    def _say(
        self,
        text: str,
        kind: str = "info",
        t: float | None = None,
        seconds: float | None = MESSAGE_S,
    ) -> None:
        until = None if t is None or seconds is None else t + seconds
        self.message = Message(text, kind, until)

    def prompt(self) -> str:
        """What the roller is asked to do now."""
        if self.state == "review":
            c = self.correction
            n = len(c.slots) - len(self.accepted)
            return (  # the presses are on the screen's hint (and in the terminal's help)
                f"Check each die ({n} to go). A die with no box cannot be labelled: "
                "take the dice out and throw again."
            )
        if self.state == "throw":
            missing = self.coverage.missing(self.per_face)
            want = ", ".join(spec_words(f"{d}:{f}") for d, f in missing[:2])
            more = " and more" if len(missing) > 2 else ""
            if not missing:
                want = f"{self.total_dice - self.coverage.total()} more dice, any faces"
            return (
                f"Throw {self.min_dice}-{self.max_dice} dice of {self.diceset.name} "
                f"(still needed: {want}{more})"
            )
        if self.state == "done":
            return "Capture finished: teaching"
        return "Capture left"

    # ------------------------------------------------------------------ rolls
    def settled(self, roll, frame: np.ndarray, t: float) -> str:
        """A SettledRoll from vision and the frame it settled on."""
        if self.state not in ("throw", "review") or not roll.dice:
            return "ignored"
        if self.state == "review":
            self.dropped += 1
            self._emit("dropped", "the throw under review was not saved (thrown again)")
        slots = []
        for r in roll.dice:
            cands = face_candidates(self.diceset, r.die)
            slots.append(reading_slot(cands, r, r.spec if r.spec in cands else None))
        self.correction = Correction(slots)
        unsure = [i for i, s in enumerate(slots) if s.was_unread]
        self.correction.selected = unsure[0] if unsure else 0
        self.accepted = set()
        self.frame = frame
        self.state = "review"
        n = len(slots)
        if not self.min_dice <= n <= self.max_dice:
            self._say(
                f"{n} {'die' if n == 1 else 'dice'} found: fine to label, but "
                f"{self.min_dice}-{self.max_dice} dice a throw teach best",
                "info",
                t,
            )
        elif unsure:
            self._say(f"{len(unsure)} of {n} dice unsure (?): pick their faces", "unreadable", t)
        else:
            self.message = None
        self._emit("review", f"throw with {n} dice: " + ", ".join(s.value or "?" for s in slots))
        return "reviewing"

    # ----------------------------------------------------------------- inputs
    def press(self, long: bool, t: float) -> str:
        """The roller's button (any player's button, keys 1-0, Shift = long)."""
        if self.state == "review":
            if long:
                return self.accept(t)
            self.cycle(1)
            return "cycled face"
        if self.state == "throw":
            if long:
                if MENU[self.menu] == "finish and teach":
                    return self.finish(t)
                return "keep throwing"
            self.menu = (self.menu + 1) % len(MENU)
            return f"menu: {MENU[self.menu]}"
        return "nothing to press"

    def accept(self, t: float, all_dice: bool = False) -> str:
        """Accept the selected die (``all_dice``: every die that shows a face, then the first
        unsure one is selected); saves the throw when every die is accepted."""
        c = self.correction
        if self.state != "review" or c is None:
            return "nothing to accept"
        chosen = range(len(c.slots)) if all_dice else [c.selected]
        self.accepted |= {i for i in chosen if c.slots[i].value is not None}
        unsure = [i for i in chosen if c.slots[i].value is None]
        if unsure:
            c.selected = unsure[0]
            self._say("This die is unsure (?): press to pick its face first", "unreadable", t)
            return "pick a face first"
        if len(self.accepted) == len(c.slots):
            return self._save(t)
        n = len(c.slots)
        c.selected = next(
            k % n for k in range(c.selected + 1, c.selected + n + 1) if k % n not in self.accepted
        )
        return "accepted"

    def _save(self, t: float) -> str:
        c = self.correction
        dice = []
        for s in c.slots:
            die, face = s.value.split(":", 1)
            dice.append((*s.box, die, face))
        name = self.folder.save(self.frame, dice)
        for *_, die, face in dice:
            self.coverage.add(die, face)
        self.saved.append(name)
        self.correction, self.accepted, self.frame = None, set(), None
        self._emit("saved", f"saved {name}: " + ", ".join(f"{d}:{f}" for *_, d, f in dice))
        self._emit("coverage", self.coverage.table(self.per_face, self.total_dice))
        if self.coverage.done(self.per_face, self.total_dice):
            self.state = "done"
            self._say(
                f"Every face seen {self.per_face} times, {self.coverage.total()} dice: teaching",
                "info",
                t,
            )
            self._emit("done", "every face seen enough")
            return "saved"
        self.state = "throw"
        self._say(f"Saved {name}. Take the dice out and throw again", "info", t)
        return "saved"

    def select(self, i: int) -> None:
        if self.correction is not None:
            self.correction.select(i)

    def cycle(self, step: int = 1) -> None:
        """The selected die shows its next (previous) face; it is no longer accepted."""
        if self.correction is not None:
            self.correction.cycle(step)
            self.accepted.discard(self.correction.selected)

    def finish(self, t: float) -> str:
        """End the capture and teach with what the folder holds (a throw under review is
        not saved)."""
        if self.state in ("done", "left"):
            return "already ended"
        self.correction = None
        self.state = "done"
        self._emit("done", "capture ended by the roller")
        return "finish"

    def leave(self, t: float) -> str:
        """End without teaching (Escape, the window closed): the folder keeps what was saved."""
        self.correction = None
        self.state = "left"
        self._emit("left", "capture left without teaching")
        return "left"

    def key(self, name: str, t: float, shift: bool = False) -> str:
        """A key, in words. 1-0: the button (Shift = long). Up/Down: the selected die's face.
        Left/Right: select a die. Enter/Space: accept the selected die. A: accept every die.
        R (or Escape): drop the throw under review (throw again). Q: finish and teach.
        Escape while waiting for a throw: leave without teaching."""
        name = name.lower()
        if len(name) == 1 and name.isdigit():
            return self.press(long=shift, t=t)
        if name in ("up", "down"):
            self.cycle(1 if name == "down" else -1)
            return "cycled face"
        if name in ("left", "right"):
            if self.correction is not None:
                self.select(self.correction.selected + (1 if name == "right" else -1))
            return "selected die"
        if name in ("return", "enter", "keypad enter", "space"):
            return self.accept(t) if self.state == "review" else self.press(True, t)
        if name == "a":
            return self.accept(t, all_dice=True)
        if name == "r":
            return self.rethrow(t)
        if name == "q":
            return self.finish(t)
        if name == "escape":
            return self.rethrow(t) if self.state == "review" else self.leave(t)
        return "unknown key"

    def tap(self, target, t: float) -> str:
        """A tap (``tray.screen.capture.CaptureScreen.hit`` names it): a die selects it,
        a tap on the selected die shows its next face; buttons ok / all / rethrow / finish /
        keep."""
        if not target:
            return "nothing there"
        kind = target[0]
        if kind == "die" and self.correction is not None:
            if self.correction.selected == target[1]:
                self.cycle(1)
                return "cycled face"
            self.select(target[1])
            return "selected die"
        if kind == "button":
            return {
                "ok": lambda: self.accept(t),
                "all": lambda: self.accept(t, all_dice=True),
                "rethrow": lambda: self.rethrow(t),
                "finish": lambda: self.finish(t),
                "keep": lambda: "keep throwing",
            }.get(target[1], lambda: "nothing there")()
        return "nothing there"

    def rethrow(self, t: float) -> str:
        """Drop the throw under review (a die was missed): nothing of it is saved."""
        if self.state != "review":
            return "nothing to drop"
        self.correction, self.accepted, self.frame = None, set(), None
        self.state = "throw"
        self.dropped += 1
        self._say("Throw dropped, nothing saved: take the dice out and throw again", "info", t)
        self._emit("dropped", "throw dropped by the roller")
        return "dropped"

    def camera(self, ok: bool, t: float, lost_after: float = 2.0) -> None:
        """Whether a frame came. After ``lost_after`` s without one the screen says so; the
        throw under review and everything saved are kept, and the capture goes on."""
        change = watch_camera(
            self,
            ok,
            t,
            lost_after,
            "Camera lost: check its cable. Nothing is lost; the capture goes "
            "on when the picture comes back.",
        )
        if change:
            self._emit(
                "camera", "camera back" if change == "back" else "camera lost: waiting for it"
            )

    def tick(self, t: float) -> None:
        if self.message is not None and self.message.until is not None and t >= self.message.until:
            self.message = None


class Buttons:
    """Button queue events (hardware.buttons ButtonPress / ButtonRelease) -> Capture presses.

    With ``releases`` (GPIO buttons) a press is decided when let go: held ``long_s`` or more is
    long. Without (keys), every press is short.

    >>> from hardware.buttons import ButtonPress, ButtonRelease
    >>> pressed = []
    >>> b = Buttons(lambda long, t: pressed.append(long) or "ok", releases=True)
    >>> b.handle(ButtonPress(0, 1.0)), b.handle(ButtonRelease(0, 2.0, 1.0)), pressed
    (None, 'ok', [True])
    """

    def __init__(
        self, press: Callable[[bool, float], str], releases: bool = False, long_s: float = 0.8
    ):
        self.press = press
        self.releases = releases
        self.long_s = long_s
        self.pending: dict[int, float] = {}

    def handle(self, ev) -> str | None:
        long = press_length(ev, self.pending, self.releases, self.long_s)
        return None if long is None else self.press(long, ev.time)


class CaptureSession(FrameLoop):
    """The capture loop's state: the capture, and source, recognizer, settler, button queue,
    display and the loop's other settings as :class:`tray.table.frame_loop.FrameLoop` takes
    them.

    :meth:`step` reads one frame (None: a camera dropout), feeds vision and the capture,
    applies queued button events and draws.

    >>> session = CaptureSession(capture, source, Recognizer("d6"), Settler())  # doctest: +SKIP
    >>> session.step(t=0.0)                                                      # doctest: +SKIP
    """

    def __init__(
        self, capture: Capture, source, recognizer, settler, drawer: Callable | None = None, **loop
    ):
        super().__init__(source, recognizer, settler, **loop)
        self.capture = capture
        self.buttons = Buttons(lambda long, t: capture.press(long, t), self.releases, self.long_s)
        self.simulated = hasattr(source, "throw") and hasattr(source, "pick_up")
        # draws (capture, frame, reading) on the display: the screen's part, handed in by whoever
        # assembles the loop (capture_cmd), so that the table logic never imports the screen
        self.drawer = drawer

    def step(self, t: float, draw: bool = True) -> None:
        cap = self.capture
        frame = self.read_frame(cap, t)
        if frame is not None:
            roll, _ = self.see(frame, cap, t)  # the capture's messages say what changed
            if roll is not None:
                cap.settled(roll, frame, t)
        saved = len(cap.saved)
        self.drain(t)
        if self.simulated and len(cap.saved) != saved:
            self.source.pick_up()  # the roller takes the dice out
        cap.tick(t)
        if draw and self.display is not None:
            self.draw(t)

    def handle(self, ev) -> None:
        """A button event, as a press of the capture (:meth:`drain` hands them on)."""
        self.buttons.handle(ev)

    def draw(self, t: float) -> None:
        if self.drawer is not None:
            self.drawer(self.capture, self.last_frame, self.last_reading)

    def throw(self, rng: np.random.Generator) -> list[str]:
        """The simulated tray only (key T): throw 3-6 random dice of the set."""
        n = int(rng.integers(self.capture.min_dice, self.capture.max_dice + 1))
        return self.source.throw(count=n)


class SimRoller:
    """A roller for the simulated tray (``--sim-roller``, tests): throws dice, then fixes and
    accepts each die by button presses through the session's queue, as a person would (it
    knows the truth of the render). ``aim``: throw the faces still missing first (then random
    dice up to 3-6), so the capture ends quickly. One action per call of :meth:`act`.

    >>> roller = SimRoller(session, np.random.default_rng(0))   # doctest: +SKIP
    >>> roller.act(t)                                            # doctest: +SKIP
    """

    def __init__(
        self,
        session: CaptureSession,
        rng: np.random.Generator,
        aim: bool = True,
        hold: Callable[[], bool] | None = None,
        patience: int = 150,
    ):
        self.session = session
        session.buttons.releases = True  # its button reports releases, like a GPIO one
        self.tray = session.source
        self.rng = rng
        self.aim = aim
        self.hold = hold or (lambda: False)
        self.thrown = 0
        self.waited = -1  # acts since the dice went in (-1: none in the tray)
        self.patience = patience
        self._saved = 0

    def act(self, t: float) -> str | None:
        from hardware.buttons import ButtonPress, ButtonRelease

        cap = self.session.capture
        if self.hold():
            return None
        if len(cap.saved) != self._saved:  # saved: the dice were taken out
            self._saved, self.waited = len(cap.saved), -1
        if cap.state == "throw":
            if self.waited < 0 or self.waited > self.patience:  # never settled: throw again
                self.tray.throw(self._dice())
                self.thrown += 1
                self.waited = 0
                return "threw"
            self.waited += 1
            return None
        if cap.state != "review" or (cap.message is not None and cap.message.kind == "camera"):
            return None
        truth = list(self.tray.truth.get("labels", []))
        c = cap.correction
        pairs = _match(c.slots, truth)
        if len(pairs) < len(truth) or len(pairs) < len(c.slots):
            cap.rethrow(t)  # a die without a box (or a box without a die)
            self.tray.pick_up()
            self.waited = -1
            return "rethrow"
        want = f"{truth[pairs[c.selected]]['die']}:{truth[pairs[c.selected]]['face']}"
        long = c.slots[c.selected].value == want
        q = self.session.events
        q.put(ButtonPress(0, t))
        q.put(ButtonRelease(0, t + (1.0 if long else 0.1), 1.0 if long else 0.1))
        return "accept" if long else "next face"

    def _dice(self) -> list[str]:
        cap = self.session.capture
        n = int(self.rng.integers(cap.min_dice, cap.max_dice + 1))
        dice = [f"{d}:{f}" for d, f in cap.coverage.missing(cap.per_face)][:n] if self.aim else []
        pool = [d.id for d in cap.diceset.dice]
        while len(dice) < n:
            dice.append(pool[int(self.rng.integers(len(pool)))])
        return dice


def _match(slots, truth) -> dict[int, int]:
    """{slot index: truth index} of boxes whose centres lie within each other's half size."""
    from vision.types import closest_pairs

    cand = []
    for i, s in enumerate(slots):
        x, y, w, h = s.box
        cx, cy = x + w / 2, y + h / 2
        for j, lab in enumerate(truth):
            tx, ty = lab["x"] + lab["w"] / 2, lab["y"] + lab["h"] / 2
            d = abs(tx - cx) + abs(ty - cy)
            if d <= 0.5 * max(w, h, lab["w"], lab["h"]):
                cand.append((d, i, j))
    return closest_pairs(cand)
