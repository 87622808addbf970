"""``dicetray screenshots``: every screen of every game, drawn headless to PNG files.

The states come from the real engines: a seeded random game (tray.playthrough) is replayed
and the screen is drawn at its interesting moments (the first prompt, a secret IN/OUT choice
and its countdown and reveal, the choices of DICEDOUT! and Rollers, every kind of big moment,
the end), plus the overlays (a wrong roll, dice that could not be read, the camera lost), the
start screen, the set-up camera view, the capture and teaching screens of ``dicetray
calibrate --teach``, a bot seat, the odds panels and the table history. The layout test
(tests/test_screen_layout.py) checks every one of them (:func:`shots`) at three sizes.

>>> from tray.app.screenshots import write_all
>>> paths = write_all("shots", size=(800, 480))   # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tray import playthrough
from tray.app.beyond_shots import beyond_views
from tray.app.capture_shots import capture_views
from tray.rules import games
from tray.screen.display import Display, parse_size
from tray.screen.view import SetupView, build_view, how_to_view, start_view
from tray.table.choices import classify_decision
from tray.table.memory import MemoryJournal
from tray.table.menu import StartMenu
from tray.table.moments import moment_of
from tray.table.table import Table

PLAYERS = {
    "tally-up": ["Ana", "Ben", "Cy", "Dee"],
    "toss-up": ["Ana", "Ben", "Cy"],
    "bank": ["Ana", "Ben", "Cy", "Dee"],
    "diced-out": ["Ana", "Ben", "Cy"],
    "rollers": ["Ana", "Ben", "Cy"],
}
OPTIONS = {"bank": {"rounds": 10}, "tally-up": {"target": 1500}}
#: big moments each game's screenshots must show
WANTED = {
    "tally-up": ("bust", "tally_up"),
    "toss-up": ("bust", "all_green"),
    "bank": ("seven", "seventy", "doubles"),
    "diced-out": ("diced_out",),
    "rollers": ("zap",),
}


def _table(game_id: str, events: list[dict], k: int) -> Table:
    j = MemoryJournal.create(None, game_id, PLAYERS[game_id], OPTIONS.get(game_id, {}), None)
    table = Table(j)
    for ev in events[:k]:
        table.send(ev, 0.0)
    table.banner = None
    table.message = None
    if k:
        # show the moment as the table showed it right after event k
        table._changed(0.0)
    return table


def _unread_roll(table: Table):
    """A settled roll like the one the game waits for, with its last die unread (and guessed
    right)."""
    import random

    from vision.types import DieReading, SettledRoll

    spec = table.expect().roll
    ev = playthrough.throw(spec, random.Random(5), table.state.get("layout"))
    dice = []
    for i, s in enumerate(ev["dice"]):
        die, face = s.split(":", 1)
        unread = i == len(ev["dice"]) - 1
        dice.append(
            DieReading(
                40 + 60 * i,
                200,
                48,
                48,
                die if not unread else None,
                None if unread else face,
                0.3 if unread else 0.99,
                guess=face if unread else None,  # the reader's guess, drawn faintly
            )
        )
    return SettledRoll(tuple(dice))


def scenes(game_id: str, seed: int = 7):
    """(name, table, t) for every screen worth a picture in one seeded game of ``game_id``."""
    events = playthrough.play(
        game_id, PLAYERS[game_id], OPTIONS.get(game_id, {}), seed=seed, table_rate=0.0
    )
    out = [("01-first-prompt", _table(game_id, events, 0), 0.0)]
    seen_kinds = _walk(game_id, events, out)
    # big moments this seed did not reach: look for them in other seeded games
    out += _moments_elsewhere(game_id, seed, set(WANTED.get(game_id, ())) - seen_kinds)
    out += _overlays(game_id, events)
    # a game with IN and OUT: a round with players OUT from two different reveals
    j2 = MemoryJournal.create(None, game_id, PLAYERS[game_id], OPTIONS.get(game_id, {}), None)
    for k, ev in enumerate(events, 1):
        j2.append(ev)
        in_out = j2.game.facts(j2.state).in_out
        if in_out is None:
            break
        if len(in_out[1]) >= 2 and j2.expect().roll is not None:
            out.append(("two-out", _table(game_id, events, k), 0.5))
            break
    te = _table(game_id, events, len(events))
    out.append(("end", te, 1.0))
    return out


def _walk(game_id: str, events: list, out: list) -> set[str]:
    """Walks the game: adds to ``out`` the first of each big moment, the first state with a
    choice, and a secret choice being made, counted down and revealed. Returns the moments
    seen."""
    seen_kinds: set[str] = set()
    seen_choice = secret_done = False
    j = MemoryJournal.create(None, game_id, PLAYERS[game_id], OPTIONS.get(game_id, {}), None)
    for k, ev in enumerate(events, 1):
        j.append(ev)
        kind = moment_of(j.state.get("last"))
        e = j.expect()
        if kind is not None and kind not in seen_kinds and not e.finished:
            seen_kinds.add(kind)
            tb = _table(game_id, events, k)
            out.append((f"moment-{kind.replace('_', '-')}", tb, 0.5))
        if not seen_choice and any(
            classify_decision(d) == "choice" and d.player >= 0 for d in e.decisions
        ):
            seen_choice = True
            tb = _table(game_id, events, k)
            out.append(("choice", tb, 0.5))
        if not secret_done and any(d.secret for d in e.decisions) and k > 0:
            secret_done = True
            out += _secret(game_id, events, k)
    return seen_kinds


def _secret(game_id: str, events: list, k: int) -> list:
    """A secret choice after event ``k``: all but one chosen, all chosen (the countdown), and
    the reveal."""
    out = []
    tb = _table(game_id, events, k)
    ds = [d.player for d in tb.secret_decisions()]
    for p in ds[:-1]:
        tb.press(p, 1.0)
    out.append(("secret-choosing", tb, 1.0))
    tc = _table(game_id, events, k)
    for p in ds:
        tc.press(p, 1.0)
    out.append(("secret-countdown", tc, 2.2))
    tr = _table(game_id, events, k)
    for p in ds:
        tr.press(p, 1.0)
    tr.tick(4.5)
    tr.banner = None
    out.append(("secret-reveal", tr, 4.6))
    return out


def _moments_elsewhere(game_id: str, seed: int, want: set[str]) -> list:
    """The big moments of ``want`` as they first come in the next seeded games."""
    out = []
    for extra in range(seed + 1, seed + 40):
        if not want:
            break
        more = playthrough.play(
            game_id, PLAYERS[game_id], OPTIONS.get(game_id, {}), seed=extra, table_rate=0.0
        )
        jj = MemoryJournal.create(None, game_id, PLAYERS[game_id], OPTIONS.get(game_id, {}), None)
        for k, ev in enumerate(more, 1):
            jj.append(ev)
            kind = moment_of(jj.state.get("last"))
            if kind in want:
                want.discard(kind)
                out.append((f"moment-{kind.replace('_', '-')}", _table(game_id, more, k), 0.5))
    return out


def _overlays(game_id: str, events: list) -> list:
    """The overlays, on a state that waits for a roll (a wrong roll, unread dice, the camera
    lost), and the table's own screens: the menu of a long press, a correction, an undone
    roll."""
    out = []
    k_roll = next(
        (
            k
            for k in range(len(events) // 3, len(events))
            if _table(game_id, events, k).expect().roll is not None
        ),
        0,
    )
    tw = _table(game_id, events, k_roll)
    spec = tw.expect().roll
    wrong = [
        f"{d}:{tw.state['layout'][d][0]}"
        for d in (list(spec.dice) if spec.dice is not None else list(spec.choose_from or ()))[:1]
    ]
    tw.roll(wrong * (spec.count + 1), 1.0)
    out.append(("wrong-roll", tw, 1.0))
    tu = _table(game_id, events, k_roll)
    tu.settled(_unread_roll(tu), 1.0)
    out.append(("unread-dice", tu, 1.0))
    tl = _table(game_id, events, k_roll)
    tl.camera(False, 0.0)
    tl.camera(False, 5.0)
    out.append(("camera-lost", tl, 5.0))
    tm = _table(game_id, events, k_roll)
    tm.undo_request(1.0)
    out.append(("table-menu", tm, 1.0))
    k_rolled = next((k for k in range(k_roll, 0, -1) if events[k - 1].get("type") == "roll"), 0)
    if k_rolled:
        tk = _table(game_id, events, k_rolled)  # from the table menu, as a button opens it
        seat = tk.state.get("active") if isinstance(tk.state.get("active"), int) else 0
        tk.undo_request(1.0, seat)
        tk.press(seat, 1.1)  # to "Correct the last roll"
        tk.press(seat, 1.2, long=True)
        out.append(("correct-last-roll", tk, 1.2))
        tn = _table(game_id, events, k_rolled)
        tn.undo(1.0)
        tn.message = None
        out.append(("after-undo", tn, 1.0))
    return out


def crowded(game_id: str = "tally-up", seed: int = 3, finished: bool = False):
    """A table of ten players (the most a game allows), mid-game (or at its end)."""
    names = ["Ana", "Ben", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo"]
    events = playthrough.play(game_id, names, {}, seed=seed, table_rate=0.0)
    j = MemoryJournal.create(None, game_id, names, {}, None)
    table = Table(j)
    for ev in events[: len(events) if finished else len(events) // 2]:
        table.send(ev, 0.0)
    table.banner = None
    return table


def setup_view(game_id: str):
    """The set-up view: a rendered tray with the dice the real pipeline finds."""
    import numpy as np

    engine = games.get(game_id)
    from vision import dicesets

    ds = dicesets.load(engine.DICE_SET)
    from hardware.sim.render import render_scene

    rng = np.random.default_rng(3)
    dice = [(d.id, d.faces[i % 6]) for i, d in enumerate(ds.dice[:6])]
    while len(dice) < 4:
        dice.append((ds.dice[0].id, ds.dice[0].faces[len(dice) % 6]))
    frame, labels = render_scene(ds, dice, rng)
    boxes = []
    status = "still: dice read"
    try:
        from vision.pipeline import Recognizer

        reading = Recognizer(ds).read(frame)
        for d in reading.dice:
            boxes.append((d.x, d.y, d.w, d.h, d.spec or "?", d.read))
    except (ImportError, OSError, RuntimeError) as exc:  # pipeline or its models missing
        status = f"truth labels shown (the vision pipeline cannot run: {exc})"
        boxes = [
            (lab["x"], lab["y"], lab["w"], lab["h"], f"{lab['die']}:{lab['face']}", True)
            for lab in labels
        ]
    return SetupView(frame, boxes, f"Tray: {status}", ds.id)


@dataclass
class Shot:
    """One screen worth a picture: its file name (no ``.png``), its view, and (game screens)
    how to build the view again, as the table does every frame."""

    name: str
    view: object
    again: Callable[[], object] | None = None


def shots(game_ids=None, seed: int = 7) -> list[Shot]:
    """Every screen: the start screen (with a game to resume, and the question to discard
    it), the how-to-play pages, every game's scenes and set-up view, the capture and teaching
    screens, a bot seat, the odds panels and the table history."""
    out: list[Shot] = []
    menu = StartMenu(["Ana", "Ben", "Cy", "Dee"], default_game="tally-up")
    out.append(Shot("start", start_view(menu)))
    menu.offer_resume(Path("unfinished.jsonl"), "Resume Bank with Ana, Ben and Cy (round 3)")
    out.append(Shot("start-resume", start_view(menu)))
    menu.teach = "Teach the tray your dice (12 kept rolls)"  # rolls kept in play
    out.append(Shot("start-teach-resume", start_view(menu)))
    menu.teach = None
    menu.do("discard")
    out.append(Shot("start-discard-asked", start_view(menu)))
    bank = StartMenu(["Ana", "Ben", "Cy", "Dee"], default_game="bank")
    bank.focus = 3  # editing "double then add": a value on two lines
    editing = start_view(bank)
    editing.editing = True
    out.append(Shot("start-bank-editing", editing))
    for gid in game_ids or games.GAME_IDS:
        out.append(Shot(f"{gid}-how-to-play", how_to_view(gid)))
    if not game_ids or "tally-up" in game_ids:
        for name, finished, t in (("ten-players", False, 0.5), ("ten-players-end", True, 1.0)):
            table = crowded("tally-up", finished=finished)
            out.append(Shot(f"tally-up-{name}", build_view(table, t), _again(table, t)))
    for gid in game_ids or games.GAME_IDS:
        for name, table, t in scenes(gid, seed):
            out.append(Shot(f"{gid}-{name}", build_view(table, t), _again(table, t)))
        out.append(Shot(f"{gid}-setup", setup_view(gid)))
    sets = {games.get(gid).DICE_SET: gid for gid in game_ids or games.GAME_IDS}
    for name, view in capture_views(list(sets)):
        out.append(Shot(name, view))
    if not game_ids:
        out += [Shot(name, view) for name, view in beyond_views()]  # bots, odds, history
    return out


def _again(table: Table, t: float) -> Callable[[], object]:
    return lambda: build_view(table, t)


def write_all(
    out: str | Path = "screenshots",
    size: tuple[int, int] = (800, 480),
    game_ids=None,
    seed: int = 7,
    timings: list | None = None,
) -> list[Path]:
    """Draw every screen (:func:`shots`) to ``out``; returns the PNG paths. ``timings``, when
    given, gets the milliseconds a second frame of each game screen takes to build (view
    model) and draw, as the table redraws it."""
    import time

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    screen = Display(size=size, headless=True)
    paths: list[Path] = []
    for shot in shots(game_ids, seed):
        screen.draw(shot.view)
        paths.append(screen.save(out / f"{shot.name}.png"))
        if timings is not None and shot.again is not None:  # the next frame, as the table draws
            shot.again()  # the table has just built it: its story of the game is kept
            t0 = time.perf_counter()
            screen.draw(shot.again())
            timings.append((time.perf_counter() - t0) * 1000)
    return paths


def main(argv: list[str]) -> int:
    """``dicetray screenshots [--out DIR] [--size WxH] [--game G]``."""
    ap = argparse.ArgumentParser(
        prog="dicetray screenshots",
        description="Draw every screen (the games, the menus, the capture and teaching), headless,"
        " to PNG files.",
    )
    ap.add_argument("--out", default="screenshots", help="folder for the PNG files")
    ap.add_argument("--size", default="800x480", help="window size, like 800x480 or 1920x1080")
    ap.add_argument(
        "--game",
        action="append",
        choices=games.GAME_IDS,
        help="only this game (repeatable; default: all)",
    )
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    try:
        size = parse_size(args.size)
    except ValueError as exc:
        print(f"dicetray screenshots: {exc}", file=sys.stderr)
        return 2
    timings: list[float] = []
    paths = write_all(args.out, size, args.game, args.seed, timings)
    print(f"{len(paths)} screenshots in {args.out}/")
    for p in paths:
        print(f"  {p.name}")
    if timings:
        ms = sorted(timings)
        print(
            f"a frame of a game screen at {size[0]}x{size[1]} (view model + drawing): "
            f"{ms[len(ms) // 2]:.1f} ms median, {ms[-1]:.1f} ms slowest ({len(ms)} screens)"
        )
    return 0
