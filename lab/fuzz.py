"""Fuzzing the rules engines with hostile events: ``python -m lab.fuzz --actions 100000``.

Each step sends an engine either a legal event (a throw or a listed choice, from
``tray.playthrough``) or a hostile one made from it: a seat that is ``true`` or ``1.0``,
a float, NaN or infinity where a number belongs, an unknown key, a die or face not in the
set, a wrong type, a huge or deeply nested value. The engine must answer every event with a
new state or a ``RuleError`` and nothing else, and keep its promises: the input state is never
changed, a refused event changes nothing, a state is plain JSON (no NaN, no floats, no bools
where numbers are kept) and the game always waits for something until it is over.

>>> from lab.fuzz import fuzz_game
>>> figures = fuzz_game("bank", seed=1, actions=200)
>>> figures["actions"], figures["broken"]
(200, [])
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import random
import sys
import time

from tray.playthrough import choose, default_layout, throw
from tray.rules import games
from tray.rules.engine import RuleError

HOSTILE = (
    "seat_true",
    "seat_float",
    "float",
    "nan",
    "inf",
    "unknown_key",
    "bad_face",
    "bad_die",
    "not_a_list",
    "deep",
    "huge",
    "bool_value",
    "null",
)


def hostile(event: dict, kind: str, rng: random.Random) -> dict:
    """``event`` spoiled in the way ``kind`` names (see HOSTILE)."""
    ev = copy.deepcopy(event)
    numbers = [k for k, v in ev.items() if type(v) is int and k != "player"]
    lists = [k for k, v in ev.items() if isinstance(v, list)]
    if kind == "seat_true":
        ev["type"], ev["player"] = "action", True
        ev.setdefault("action", "bank")
    elif kind == "seat_float":
        ev["type"], ev["player"] = "action", float(ev.get("player", 0) or 0)
        ev.setdefault("action", "bank")
    elif kind in ("float", "nan", "inf", "bool_value", "null"):
        value = {"float": 5.0, "nan": math.nan, "inf": math.inf, "bool_value": True, "null": None}[
            kind
        ]
        if numbers:
            ev[rng.choice(numbers)] = value if kind != "float" else float(ev[numbers[0]])
        elif lists and ev[lists[0]] and kind != "null":
            ev[lists[0]] = [value, *ev[lists[0]][1:]]
        else:
            ev["number"] = value
    elif kind == "unknown_key":
        ev[rng.choice(["note", "x", "crc", "dice2"])] = rng.choice([1, "a", [1]])
    elif kind in ("bad_face", "bad_die"):
        dice = [d for d in ev.get("dice", []) if isinstance(d, str)] or ["d6:1"]
        dice = (
            [d.split(":")[0] + ":99" for d in dice] if kind == "bad_face" else ["pink:1", *dice[1:]]
        )
        ev = {"type": "roll", "dice": dice}
    elif kind == "not_a_list":
        ev = {"type": "roll", "dice": "d6:1 d6:2"}
    elif kind == "deep":
        deep: list = []
        for _ in range(60):
            deep = [deep]
        ev[lists[0] if lists else "dice"] = deep
    elif kind == "huge":
        ev[lists[0] if lists else "dice"] = ["d6:1"] * 5000
    return ev


def _plain_json(state) -> str | None:
    """What is wrong with a state as stored data, or None."""
    try:
        text = json.dumps(state, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return f"not plain JSON: {exc}"
    stack = [json.loads(text)]
    while stack:
        v = stack.pop()
        if isinstance(v, float):
            return f"a float in the state: {v!r}"
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return None


def fuzz_game(game_id: str, seed: int, actions: int, hostile_rate: float = 0.3) -> dict:
    """Send ``actions`` events to fresh games of ``game_id`` (a new game whenever one ends);
    returns ``{"actions", "games", "refused", "broken": [what went wrong, ...]}``."""
    engine = games.get(game_id)
    layout = default_layout(game_id)
    rng = random.Random(seed)
    broken: list[str] = []
    refused = played = n_games = 0

    def new_state() -> dict:
        n = rng.randint(engine.MIN_PLAYERS, min(engine.MAX_PLAYERS, 6))
        return engine.new_game([f"P{i}" for i in range(n)], layout, {})

    state, n_games = new_state(), 1
    for _ in range(actions):
        played += 1
        exp = engine.expect(state)
        if exp.finished:
            state, n_games = new_state(), n_games + 1
            exp = engine.expect(state)
        legal = choose(exp, rng, layout) if exp.decisions else None
        if legal is None and exp.roll is not None:
            legal = throw(exp.roll, rng, layout)
        if legal is None:
            broken.append(f"{game_id}: a state that waits for nothing: {exp.prompt!r}")
            state = new_state()
            continue
        event = legal
        if rng.random() < hostile_rate:
            event = hostile(legal, rng.choice(HOSTILE), rng)
        before = json.dumps(state, sort_keys=True)
        try:
            new = engine.apply(state, event)
        except RuleError:
            refused += 1
            if json.dumps(state, sort_keys=True) != before:
                broken.append(f"{game_id}: a refused event changed the state: {event!r}")
            continue
        except Exception as exc:  # noqa: BLE001 - anything but RuleError is a finding
            broken.append(f"{game_id}: {type(exc).__name__} ({exc}) on {event!r}"[:300])
            continue
        if json.dumps(state, sort_keys=True) != before:
            broken.append(f"{game_id}: apply changed its input on {event!r}")
        if event is not legal:
            broken.append(f"{game_id}: a hostile event was taken: {event!r}"[:300])
        problem = _plain_json(new)
        if problem:
            broken.append(f"{game_id}: {problem} after {event!r}"[:300])
        state = new
    return {"actions": played, "games": n_games, "refused": refused, "broken": broken}


def main(argv: list[str] | None = None) -> int:
    """``python -m lab.fuzz [--actions N] [--seed S]``: N actions per game; exit 1 on a finding."""
    p = argparse.ArgumentParser(prog="python -m lab.fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--actions", type=int, default=100_000, help="events per game")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--games", nargs="+", default=list(games.GAME_IDS), choices=games.GAME_IDS)
    args = p.parse_args(argv)
    found = 0
    for game_id in args.games:
        t0 = time.perf_counter()
        r = fuzz_game(game_id, args.seed, args.actions)
        found += len(r["broken"])
        print(
            f"{game_id:>10}: {r['actions']} actions, {r['games']} games, {r['refused']} "
            f"refused, {len(r['broken'])} broken, {time.perf_counter() - t0:.1f} s"
        )
        for b in r["broken"][:5]:
            print(f"            {b}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
