"""A seeded random player that plays any game using only ``expect()``, and a readable record.

The same player drives the property and golden tests, the example journals in
``fixtures/journals/`` and the simulated players of ``dicetray demo``. Chance comes only from
the ``random.Random`` passed in, so a seed replays the same game.

- For a roll (``expect().roll``) it throws random faces of the dice the roll names: exactly
  ``dice``, or ``count`` distinct dice chosen from ``choose_from``. Faces are drawn from the
  die's six faces in the layout, so a face printed twice comes up twice as often.
- For decisions it takes the engine's suggested ``default`` with probability ``default_rate``
  (like a player who mostly follows the screen's suggestion), else one of the ``choices``. When
  a roll is awaited too (Bank's "bank now?", Toss Up!'s "stop?") it rolls with probability
  ``roll_rate``. Table actions (player -1, like "end game early" or "nobody pressed in time")
  are taken with probability ``table_rate`` (default 0: never) unless nothing else can happen.

Example::

    >>> import random
    >>> from tray.playthrough import play, final_state
    >>> events = play("bank", ["Ann", "Ben"], {"rounds": 10}, seed=7)
    >>> state = final_state("bank", ["Ann", "Ben"], {"rounds": 10}, events)
    >>> state["finished"], state["round"]
    (True, 10)
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

from tray.layouts import default_layout, shipped_layout
from tray.rules import games
from tray.rules.engine import Expect, RollSpec, describe, roll
from tray.rules.journal import Journal

ROLL_RATE = 0.6
TABLE_RATE = 0.0
DEFAULT_RATE = 0.5


def throw(spec: RollSpec, rng: random.Random, layout: dict[str, list[str]] | None = None) -> dict:
    """A random roll event that ``spec`` accepts (dice in a random order).

    >>> import random
    >>> from tray.rules.engine import RollSpec
    >>> spec = RollSpec(roller=0, count=2, dice_set="d6", dice=("d6", "d6"))
    >>> ev = throw(spec, random.Random(1))
    >>> ev["type"], len(ev["dice"]), all(d.startswith("d6:") for d in ev["dice"])
    ('roll', 2, True)
    """
    layout = layout or shipped_layout(spec.dice_set)
    if spec.dice is not None:
        ids = list(spec.dice)
    elif spec.choose_from is not None:
        ids = rng.sample(sorted(set(spec.choose_from)), spec.count)
    else:  # any dice of the set: die kinds may repeat
        ids = [rng.choice(sorted(layout)) for _ in range(spec.count)]
    dice = [f"{d}:{rng.choice(layout[d])}" for d in ids]
    rng.shuffle(dice)
    return roll(*dice)


def choose(
    expect: Expect,
    rng: random.Random,
    layout: dict[str, list[str]] | None = None,
    *,
    roll_rate: float = ROLL_RATE,
    table_rate: float = TABLE_RATE,
    default_rate: float = DEFAULT_RATE,
) -> dict:
    """One step of a random player: the next event for a state that waits for ``expect``.

    ``layout`` is the state's dice layout (``state["layout"]``; default: the shipped dice set).
    Raises ValueError for a finished game or an ``expect`` that offers nothing.

    >>> import random
    >>> from tray.rules.games import bank
    >>> s = bank.new_game(["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]})
    >>> choose(bank.expect(s), random.Random(3))["type"]
    'roll'
    """
    if expect.finished:
        raise ValueError("the game is over: there is nothing left to choose")
    player_choices = [d for d in expect.decisions if d.player != -1 and d.choices]
    table_choices = [d for d in expect.decisions if d.player == -1 and d.choices]
    if not (expect.roll or player_choices or table_choices):
        raise ValueError(f"the game waits for nothing a player can do: {expect.prompt!r}")
    if table_choices and (not (expect.roll or player_choices) or rng.random() < table_rate):
        return _pick(rng.choice(table_choices), rng, default_rate)
    if expect.roll is not None and (not player_choices or rng.random() < roll_rate):
        return throw(expect.roll, rng, layout)
    return _pick(rng.choice(player_choices), rng, default_rate)


def _pick(decision, rng: random.Random, default_rate: float) -> dict:
    if decision.default is not None and rng.random() < default_rate:
        return copy.deepcopy(decision.default)
    return copy.deepcopy(rng.choice(decision.choices))


def play(
    game_id: str,
    players: list[str],
    options: dict | None = None,
    seed: int = 0,
    max_events: int = 20000,
    *,
    layout: dict | None = None,
    roll_rate: float = ROLL_RATE,
    table_rate: float = TABLE_RATE,
    default_rate: float = DEFAULT_RATE,
) -> list[dict]:
    """A whole random game: the list of events, from a ``random.Random(seed)``.

    Stops when the game is finished or after ``max_events`` events (then the game is not
    finished: check with ``final_state``). RuntimeError if the engine refuses an event its
    own ``expect()`` offered (a bug in that engine).
    """
    engine = games.get(game_id)
    rng = random.Random(seed)
    state = engine.new_game(list(players), layout or default_layout(game_id), options)
    events: list[dict] = []
    while len(events) < max_events:
        e = engine.expect(state)
        if e.finished:
            break
        ev = choose(
            e,
            rng,
            state["layout"],
            roll_rate=roll_rate,
            table_rate=table_rate,
            default_rate=default_rate,
        )
        try:
            state = engine.apply(state, ev)
        except Exception as exc:
            raise RuntimeError(
                f"{game_id}: the engine refused {ev} that its expect() offered "
                f"(prompt {e.prompt!r}): {exc}"
            ) from exc
        events.append(ev)
    return events


def states(
    game_id: str,
    players: list[str],
    options: dict | None,
    events: list[dict],
    layout: dict | None = None,
) -> list[dict]:
    """Every state of a game: the new game, then the state after each event."""
    engine = games.get(game_id)
    out = [engine.new_game(list(players), layout or default_layout(game_id), options)]
    for ev in events:
        out.append(engine.apply(out[-1], ev))
    return out


def final_state(
    game_id: str,
    players: list[str],
    options: dict | None,
    events: list[dict],
    layout: dict | None = None,
) -> dict:
    """The state the events lead to."""
    return states(game_id, players, options, events, layout)[-1]


def _compact(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def format_playthrough(game_id: str, header: dict, events: list[dict]) -> str:
    """A readable text record of a game: each event, then the prompt, the scores and what the
    event did (the state's ``last``) after it; the summary at the end.

    ``header`` holds ``players`` and, optionally, ``options``, ``layout`` and any other keys
    worth printing in the title (``seed``...), like a journal header.

    >>> text = format_playthrough("bank", {"players": ["Ann", "Ben"], "options": {"rounds": 10}},
    ...                           [{"type": "roll", "dice": ["d6:3", "d6:4"]}])
    >>> print(text.splitlines()[2])
    1. roll d6:3 d6:4   [Ann rolls]
    """
    engine = games.get(game_id)
    players = list(header["players"])
    options = header.get("options") or {}
    layout = header.get("layout")
    title = getattr(engine, "TITLE", game_id)
    extra = {
        k: v
        for k, v in header.items()
        if k not in ("players", "options", "layout", "type", "v", "game", "time")
    }
    lines = [
        f"# {title} ({game_id}): players {', '.join(players)}; options {_compact(options)}"
        + "".join(f"; {k} {_compact(v)}" for k, v in sorted(extra.items()))
    ]
    all_states = states(game_id, players, options, events, layout)
    lines.append(f"   > {engine.expect(all_states[0]).prompt}")
    for i, ev in enumerate(events, start=1):
        before = engine.expect(all_states[i - 1])
        who = ""
        if ev.get("type") == "roll" and before.roll is not None:
            who = f"   [{players[before.roll.roller]} rolls]"
        lines.append(f"{i}. {describe(ev, players)}{who}")
        state = all_states[i]
        lines.append(f"   last: {_compact(state.get('last'))}")
        lines.append(
            "   scores: "
            + ", ".join(f"{p} {s}" for p, s in zip(players, state["scores"], strict=True))
        )
        lines.append(f"   > {engine.expect(state).prompt}")
    lines.append("summary: " + _compact(engine.summary(all_states[-1])))
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ example journals

#: The example games shipped in fixtures/journals/: game id -> (players, options, seed).
EXAMPLES = {
    "tally-up": (["Ann", "Ben", "Cy"], {}, 1),
    "toss-up": (["Ann", "Ben", "Cy"], {}, 1),
    "bank": (["Ann", "Ben", "Cy", "Dee"], {"rounds": 10}, 1),
    "diced-out": (["Ann", "Ben", "Cy"], {}, 1),
    "rollers": (["Ann", "Ben", "Cy"], {}, 1),
}
EXAMPLE_TIME = "2026-11-22T00:00:00+00:00"
FIXTURES_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "journals"


def write_journal(
    path: str | Path,
    game_id: str,
    players: list[str],
    options: dict | None,
    seed: int,
    *,
    time: str | None = None,
    max_events: int = 20000,
):
    """Play a seeded random game into a new journal at ``path``; returns the Journal."""
    j = Journal.create(path, game_id, players, options, default_layout(game_id), time=time)
    rng = random.Random(seed)
    while not j.finished and len(j.events) < max_events:
        j.append(choose(j.expect(), rng, j.state["layout"]))
    return j


def regenerate_examples(
    directory: str | Path = FIXTURES_DIR, game_ids: tuple[str, ...] | None = None
) -> list[Path]:
    """(Re)write ``fixtures/journals/<game>.jsonl``, one finished seeded game per game.
    Returns the files written."""
    directory = Path(directory)
    written = []
    for game_id in game_ids or games.GAME_IDS:
        players, options, seed = EXAMPLES[game_id]
        path = directory / f"{game_id}.jsonl"
        path.unlink(missing_ok=True)
        j = write_journal(path, game_id, players, options, seed, time=EXAMPLE_TIME)
        if not j.finished:
            raise RuntimeError(f"the example {game_id} game did not finish")
        written.append(path)
    return written


def bench_journal(
    game_id: str,
    players: list[str],
    options: dict | None = None,
    seed: int = 3,
    directory: str | Path | None = None,
) -> dict:
    """Speed of the journal for one seeded game: appends (each fsync'd) and a full re-open.

    Writes in ``directory`` (default: a temporary folder; use one on the disk that will hold
    the real journals, fsync costs differ a lot between disks). Returns the figures.
    """
    import tempfile
    import time

    events = play(game_id, players, options, seed)
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        path = Path(tmp) / "bench.jsonl"
        j = Journal.create(path, game_id, players, options, default_layout(game_id))
        t0 = time.perf_counter()
        for ev in events:
            j.append(ev)
        t1 = time.perf_counter()
        Journal.open(path)
        t2 = time.perf_counter()
    n = max(1, len(events))
    return {
        "game": game_id,
        "events": len(events),
        "append_ms": 1000 * (t1 - t0) / n,
        "open_ms": 1000 * (t2 - t1),
        "replay_ms_per_event": 1000 * (t2 - t1) / n,
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m tray.playthrough examples|bench|show GAME``: regenerate the example
    journals, print journal speed figures, or print one seeded random game."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m tray.playthrough")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("examples", help="rewrite fixtures/journals/<game>.jsonl")
    b = sub.add_parser("bench", help="journal append (fsync) and replay speed per game")
    b.add_argument("--dir", default=None, help="folder on the disk to measure (default: /tmp)")
    s = sub.add_parser("show", help="print one seeded random game as text")
    s.add_argument("game", choices=games.GAME_IDS)
    s.add_argument("--players", type=int, default=3)
    s.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.cmd == "examples":
        for p in regenerate_examples():
            print(p)
    elif args.cmd == "bench":
        for game_id, (players, options, _) in EXAMPLES.items():
            f = bench_journal(game_id, players, options, directory=args.dir)
            print(
                f"{game_id:<10} {f['events']:>5} events  append+fsync {f['append_ms']:.2f} "
                f"ms/event  open {f['open_ms']:.0f} ms ({f['replay_ms_per_event']:.3f} "
                "ms/event)"
            )
    else:
        names = [f"P{i + 1}" for i in range(args.players)]
        events = play(args.game, names, {}, args.seed)
        print(format_playthrough(args.game, {"players": names, "seed": args.seed}, events), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
