"""The simulated tray as a frame source: throws rendered live (``hardware.sim.render``), for
demos, tests and a table without a camera."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import numpy as np

from hardware.frames import SIZE, FrameSource, to_frame, wait_for_frame


class SimulatedTray(FrameSource):
    """A dice tray rendered live (``hardware.sim.render``), for demos and tests.

    Between throws it shows the empty tray. :meth:`throw` drops dice in: frames of dice
    tumbling ("moving"), then resting ("rest"); the resting dice stay until :meth:`pick_up`
    (or, with ``auto_pickup=True``, a rendered hand takes them away). ``truth`` is the truth of
    the last frame: {"phase": "empty"|"moving"|"rest"|"hand", "labels": [...], "frame": i,
    "dice": [...]}. :meth:`drop_out` makes the camera go quiet. Everything random comes from
    its own numpy Generator seeded with ``seed``. ``realtime=False`` renders frames as fast as
    they are read (headless demos, tests).

    >>> tray = SimulatedTray("tally-up", seed=3, realtime=False)   # doctest: +SKIP
    >>> tray.throw(["red:star", "blue"])                           # doctest: +SKIP
    ['red:star', 'blue:100']
    """

    def __init__(
        self,
        diceset="d6",
        seed: int = 0,
        fps: float = 30,
        realtime: bool = True,
        size=SIZE,
        style=None,
        rest_frames: int = 12,
        auto_pickup: bool = False,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        from hardware.sim import render
        from vision.dicesets import DiceSet, load

        self.render = render
        self.diceset = diceset if isinstance(diceset, DiceSet) else load(diceset)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.fps = float(fps)
        self.size = tuple(size)
        self.realtime = realtime
        self.rest_frames = rest_frames
        self.auto_pickup = auto_pickup
        self.clock, self.sleep = clock, sleep
        if style is None and hasattr(render, "random_style"):
            style = render.random_style(self.rng)
        self.style = style
        self.frame_index = -1
        self.throws = 0
        self.truth: dict = {"phase": "empty", "labels": [], "frame": -1, "dice": []}
        self._lock = threading.RLock()
        self._empty: np.ndarray | None = None
        self._throw: Iterator | None = None
        self._hold: tuple[np.ndarray, dict] | None = None  # resting dice awaiting pick-up
        self._dice: list[str] = []
        self._drop_frames = 0
        self._drop_until: float | None = None
        self._next_due: float | None = None
        self._closed = False

    @property
    def name(self) -> str:
        return f"sim:{self.diceset.id}"

    @property
    def phase(self) -> str:
        """What the tray shows now: "empty", "moving", "rest" or "hand"."""
        return self.truth.get("phase", "empty")

    def _pool(self) -> list[str]:
        return [d.id for d in self.diceset.dice for _ in range(d.count)]

    def resolve(self, dice=None, count: int | None = None) -> list[str]:
        """The ``die:face`` specs a throw of ``dice`` / ``count`` random dice lands on.

        Items of ``dice`` are "die:face" (as given) or a die id (a random face of that die);
        with ``dice`` None, ``count`` dice are drawn at random from the set (as many of each
        kind as the set has, more only when the set has too few).
        """
        with self._lock:
            if dice is None:
                if count is None or count < 1:
                    raise ValueError("throw needs dice (like ['red:star', 'blue']) or count >= 1")
                pool = self._pool()
                replace = count > len(pool)
                picks = self.rng.choice(len(pool), size=count, replace=replace)
                dice = [pool[int(i)] for i in picks]
            out = []
            for spec in dice:
                die_id, _, face = str(spec).partition(":")
                try:
                    die = self.diceset.die(die_id)
                except KeyError:
                    raise ValueError(
                        f"{die_id!r} is not a die of the {self.diceset.id} set; "
                        f"its dice are {', '.join(self.diceset.die_ids)}"
                    ) from None
                if not face:
                    face = die.faces[int(self.rng.integers(len(die.faces)))]
                elif face not in die.faces:
                    raise ValueError(
                        f"{die_id} has no face {face!r}; its faces are "
                        f"{', '.join(dict.fromkeys(die.faces))}"
                    )
                out.append(f"{die_id}:{face}")
            return out

    def throw(self, dice=None, count: int | None = None) -> list[str]:
        """Throw dice into the tray (replacing any there); returns the faces they will show."""
        specs = self.resolve(dice, count)
        pairs = [tuple(s.split(":", 1)) for s in specs]
        with self._lock:
            self._throw = iter(
                self.render.render_throw(
                    self.diceset,
                    pairs,
                    self.rng,
                    size=self.size,
                    style=self.style,
                    fps=self.fps,
                    rest_frames=self.rest_frames,
                    hand=self.auto_pickup,
                    fit=True,  # a crowded throw lands anyway, as in a real tray
                )
            )
            self._hold = None
            self._dice = specs
            self.throws += 1
        return specs

    def pick_up(self) -> None:
        """Take the dice out: the tray is empty from the next frame on."""
        with self._lock:
            self._throw = None
            self._hold = None
            self._dice = []

    def drop_out(self, seconds: float | None = None, frames: int | None = None) -> None:
        """Make the camera go quiet for ``frames`` reads or ``seconds`` of the clock.

        The tray goes on meanwhile: a throw in progress keeps moving while nobody sees it.
        """
        with self._lock:
            if frames:
                self._drop_frames += int(frames)
            if seconds:
                self._drop_until = self.clock() + float(seconds)

    def _empty_frame(self) -> np.ndarray:
        if self._empty is None:
            frame, _ = self.render.render_scene(
                self.diceset, [], self.rng, size=self.size, style=self.style
            )
            self._empty = to_frame(frame, self.size)
        return self._empty

    def _step(self) -> tuple[np.ndarray, dict]:
        """Advance the scene one frame."""
        if self._throw is not None:
            try:
                frame, truth = next(self._throw)
                frame = to_frame(frame, self.size)
                truth = dict(truth)
                if truth.get("phase") == "rest" and not self.auto_pickup:
                    self._hold = (frame, truth)
                return frame, truth
            except StopIteration:
                self._throw = None
                if self.auto_pickup:
                    self._dice = []
        if self._hold is not None:
            return self._hold[0], dict(self._hold[1])
        return self._empty_frame(), {"phase": "empty", "labels": []}

    def read(self, timeout: float = 1.0) -> np.ndarray | None:
        """The next frame of the tray (paced at ``fps`` when realtime), None while dropped out."""
        if self._closed:
            return None
        if self.realtime and not wait_for_frame(self, timeout):
            return None
        with self._lock:
            frame, truth = self._step()
            self.frame_index += 1
            truth["frame"] = self.frame_index
            truth["dice"] = list(self._dice) if truth.get("phase") != "empty" else []
            self.truth = truth
            dropped = False
            if self._drop_frames > 0:
                self._drop_frames -= 1
                dropped = True
            if self._drop_until is not None:
                if self.clock() < self._drop_until:
                    dropped = True
                else:
                    self._drop_until = None
        if dropped:
            if self.realtime:
                self.sleep(max(0.0, min(timeout, 1.0 / self.fps)))
            return None
        return frame.copy()

    def close(self) -> None:
        self._closed = True
