"""One game's loop: camera frames -> vision -> the table -> the screen, and the buttons.

:class:`Session` reads a frame from a source (``hardware.camera``), feeds ``Recognizer.read``
and ``Settler.update``, hands a settled roll to :class:`tray.table.table.Table` (which checks
it against what the game expects and writes the journal before anything shows it), applies
the queued button events, lets time pass, and draws. Time comes from the caller, so tests and
the headless demo run without sleeping.

>>> from tray.table.memory import MemoryJournal
>>> from tray.table.table import Table
>>> session = Session(Table(MemoryJournal.create(None, "bank", ["Ana", "Ben"], {}, None)),
...                   source=None, recognizer=None, settler=None)
>>> session.step(t=0.0); led_states(session.table)       # Ana rolls first
[True, False]
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from tray.layouts import default_layout
from tray.rules.journal import Journal, find_unfinished
from tray.screen.odds_view import odds_lines
from tray.screen.view import SetupView, build_view
from tray.table.frame_loop import FrameLoop
from tray.table.memory import MemoryJournal
from tray.table.presses import ButtonMapper, handle_key
from tray.table.table import Table

ODDS_HOLD_S = 0.4  # a button held this long shows the live odds (mode "hold")
DEMO_NAMES = ["Ana", "Ben", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo"]


def make_journal(
    path: Path | None,
    game_id: str,
    players: list[str],
    options: dict,
    began: datetime | None = None,
):
    """A new journal file at ``path`` (tray.rules.journal), or an in-memory one when None,
    with the dice the game ships with (``tray.layouts``) and ``began`` (default: now) in
    its header."""
    layout = default_layout(game_id)
    if path is None:
        return MemoryJournal.create(None, game_id, players, options, layout)
    began = began or datetime.now(UTC)
    when = began.astimezone(UTC).replace(microsecond=0).isoformat()
    return Journal.create(path, game_id, players, options, layout, time=when)


def resume_offer(journal_dir: str | Path) -> tuple[Path, str] | None:
    """The newest unfinished game's journal in ``journal_dir`` and the words offering to
    resume it, or None."""
    path = find_unfinished(journal_dir)
    if path is None:
        return None
    try:
        j = Journal.open(path, salvage=True)
    except (ValueError, OSError):
        return None
    players = list(j.players)
    who = players[0] if len(players) == 1 else ", ".join(players[:-1]) + " and " + players[-1]
    where = f"round {j.state.get('round', 1)}" if j.events else "not started"
    kept = ", its last moves lost" if j.damage else ""  # salvaged: what could be read is kept
    return path, f"Resume {j.game.TITLE} with {who} ({where}{kept})"


def discard(path: Path) -> Path:
    """Put an unfinished game's journal aside (renamed ``*.jsonl.discarded``: kept, never
    offered again). Returns the new path."""
    new = path.with_name(path.name + ".discarded")
    path.rename(new)
    return new


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


def rolls_taken(journal) -> int:
    """How many roll events the journal holds (copies the events: not for every frame)."""
    return sum(1 for e in getattr(journal, "events", []) if e.get("type") == "roll")


def parse_options(items: list[str]) -> dict:
    """``--option key=value`` items -> dict (values read as JSON when they parse).

    >>> parse_options(["rounds=10", "doubles_rule=double_only"])
    {'rounds': 10, 'doubles_rule': 'double_only'}
    """
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


class Session(FrameLoop):
    """The loop's state: the table, and source, recognizer, settler, button queue, display
    and the loop's other settings as :class:`tray.table.frame_loop.FrameLoop` takes them.

    Call :meth:`step` once per loop with the current time ``t``; it reads one frame (None =
    no frame came: camera dropout), feeds vision and the table, applies the queued button
    events, lets time pass (countdowns, press windows, menus) and draws.

    >>> from hardware.buttons import ButtonPress
    >>> from tray.table.memory import MemoryJournal
    >>> table = Table(MemoryJournal.create(None, "toss-up", ["Ana", "Ben"], {}, None))
    >>> session = Session(table, source=None, recognizer=None, settler=None)
    >>> table.roll(["toss:green"] * 4 + ["toss:yellow"] * 6, t=0.0)
    True
    >>> session.events.put(ButtonPress(0, 1.0, "key")); session.step(t=1.0)   # Ana stops
    >>> table.state["scores"]
    [4, 0]
    """

    def __init__(self, table: Table, source, recognizer, settler, **loop):
        super().__init__(source, recognizer, settler, **loop)
        self.table = table
        self.mapper = ButtonMapper(table, releases=self.releases, long_s=self.long_s)
        self.frames = 0
        self.setup_view = False
        self.keys = None  # hardware.buttons.KeyboardButtons: keys 1-0 as buttons
        self.on_settled: Callable | None = None
        self.bots = None  # tray.table.bot_seats.BotSeats: computer players' decisions
        self.odds_mode = "off"  # live odds: "off", "hold" (a button held, or key O), "always"
        self.odds_toggled = False
        self.net = None  # tray.net.attach.NetTable: phones and the broker (--web, --broker)
        self.correcting_frame = None  # the frame of the settled roll under correction
        # the last roll the table took: (its journal number, frame, die boxes in the order of
        # its dice), kept while rolls are kept for teaching (keep_played), for key C
        self.last_roll: tuple | None = None

    def step(self, t: float, draw: bool = True) -> None:
        """One turn of the loop at time ``t``."""
        frame = self.read_frame(self.table, t)
        why = getattr(self.source, "status", None)  # hardware.guard.Guarded: the fault
        if frame is None and why and self.table.message and self.table.message.kind == "camera":
            self.table.message.text = why
        if frame is not None:
            self.frames += 1
            settled, changes = self.see(frame, self.table, t)
            for change in changes:
                self.table._emit("camera", change)
            if settled is not None:
                if self.on_settled is not None:
                    self.on_settled(settled, t)
                else:
                    verdict = self.table.settled(settled, t)
                    if verdict == "correcting":
                        self.correcting_frame = frame.copy()
                    elif verdict == "taken" and self.table.on_roll_recorrected is not None:
                        boxes = [(d.x, d.y, d.w, d.h) for d in settled.dice]
                        self.last_roll = (self._last_roll_number(), frame.copy(), boxes)
        if self.net is not None:
            self.net.pump(self, t)  # phones' presses join the button queue
        self.drain(t)
        self.table.tick(t)
        if self.bots:
            self.bots.tick(t)
        if self.net is not None:
            self.net.update(self, t)
        if draw and self.display is not None:
            self.draw(t)

    def keep_played(self, played) -> None:
        """Keep every roll the players correct from now on in ``played``
        (:class:`tray.table.played.PlayedRolls`): the frame it settled on, each die's box and
        the face the players confirmed; what is kept, or why no longer, goes to the log. When
        the last roll's faces are changed after the fact (key C), a photo kept of it is
        dropped and the roll is kept with the faces the game now takes: a roll read whole
        (nobody checked it) is kept then too, a die the reader was sure of and wrong."""

        kept: dict[int, str] = {}  # journal number of a kept roll -> its photo

        def keep(dice) -> None:
            frame, self.correcting_frame = self.correcting_frame, None
            line = played.keep(frame, dice)
            number = self._last_roll_number()
            self.last_roll = (number, frame, [box for box, _ in dice])
            if played.last is not None:
                kept[number] = played.last
            if line:
                self.table._emit("played", line)

        def recorrected(event: int, specs: list) -> None:
            if event in kept and (line := played.forget(kept.pop(event))):
                self.table._emit("played", line)
            number, frame, boxes = self.last_roll or (None, None, [])
            if number != event or frame is None or len(boxes) != len(specs):
                return
            line = played.keep(frame, list(zip(boxes, specs, strict=True)))
            if played.last is not None:
                kept[event] = played.last
            if line:
                later = line.replace("kept the corrected roll", "kept the roll corrected later")
                self.table._emit("played", later)

        self.table.on_corrected_roll = keep
        self.table.on_roll_recorrected = recorrected

    def _last_roll_number(self) -> int | None:
        """The journal number (as key C numbers it) of the last roll the game took."""
        events = self.table.journal.events
        rolls = [i for i, e in enumerate(events) if e.get("type") == "roll"]
        return rolls[-1] + 1 if rolls else None

    def handle(self, ev) -> None:
        """A button event, as the table's buttons mean it (:meth:`drain` hands them on)."""
        self.mapper.handle(ev)

    def view(self, t: float):
        """What the screen shows now: the game, or the camera set-up view (key S)."""
        if self.setup_view:
            r = self.last_reading
            boxes = []
            if r is not None:
                for d in r.dice:
                    label = d.spec or (f"{d.die}:?" if d.die else "?")
                    boxes.append((d.x, d.y, d.w, d.h, label, d.read))
            status = getattr(self.settler, "status", "")
            return SetupView(
                self.last_frame,
                boxes,
                f"Tray: {status}",
                self.table.journal.game.DICE_SET,
                self.table.message.text if self.table.message else None,
            )
        view = build_view(self.table, t)
        if self.net is not None:
            view.join = self.net.join_info()
        if self.odds_shown(t):
            view.odds = odds_lines(self.table.state)
        return view

    def odds_shown(self, t: float) -> bool:
        """Whether the live odds are on screen: always, or while a button is held / after
        key O (mode "hold"), never (mode "off")."""
        if self.odds_mode == "always":
            return True
        if self.odds_mode != "hold":
            return False
        held = any(t - start >= ODDS_HOLD_S for start in self.mapper.pending.values())
        return held or self.odds_toggled

    def draw(self, t: float) -> None:
        self.display.draw(self.view(t))


def play_key(session: Session, name: str, shift: bool, t: float) -> str:
    """A key during a game, in words: "setup" (S toggles the camera view), "thrown" (T on the
    simulated tray), "pressed" (keys 1-0 through the button queue), or what
    tray.table.presses.handle_key did ("rematch" / "another" / "menu" on the end screen).
    Escape only steps back (out of a menu or a correction): it never leaves the table."""
    table = session.table
    name = name.lower()
    if name == "s" and table.menu is None:
        session.setup_view = not session.setup_view
        return "setup"
    if name == "o" and session.odds_mode == "hold":
        session.odds_toggled = not session.odds_toggled
        return "odds"
    if name == "t" and hasattr(session.source, "throw"):
        spec = table.expect().roll
        if spec is None:
            return "no roll now"
        session.source.throw(sim_throw_ids(spec))
        return "thrown"
    keys = getattr(session, "keys", None)
    if keys is not None and len(name) == 1 and name.isdigit() and not shift:
        keys.key(name, t)
        session.drain(t)
        return "pressed"
    return handle_key(table, name, t, shift=shift)


def options_of(journal) -> dict:
    """The options a journal's game was started with (a rematch starts with the same)."""
    header = getattr(journal, "header", None)
    if isinstance(header, dict) and isinstance(header.get("options"), dict):
        return dict(header["options"])
    return dict(getattr(journal, "options", {}) or {})
