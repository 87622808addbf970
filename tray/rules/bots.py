"""Computer players for every game, and ``duel``: bots against each other on the rules alone.

A bot fills a seat. It never throws dice (at the table a person throws for it); it makes the
seat's decisions: ``decide(state, decision, rng)`` returns the event it sends for one of
``expect(state).decisions`` (or None: "not now", only where a roll is awaited too: Bank's
"bank?" and Toss Up!'s "stop?"), and ``dice(state, spec, rng)`` says which dice to throw when
the roll lets the roller choose them (Tally Up!'s three colours and Bonus Roll dice, the
Rollers start die). Chance only comes from the ``random.Random`` passed in.

Policies (``POLICIES``):

- ``best``: the strongest this module can play. Tally Up!: IN/OUT by the exact
  expected-value stopping rule for the dice locked this round (solved over the running
  total), dice chosen for the highest value of the round, out at once when banking the
  running total reaches the target in the lead. Toss Up!: the expected-points optimal stopping
  rule of a turn (solved over turn points and dice left) and, in the last turns, rolling on
  until in the lead. Bank: bank at 1.15 times what the others have been banking this game
  (median; 300 before that, 250 to 700): Bank rewards banking just after the others, and
  this beat both fixed 200 and 400 rules in duels (see the README). DICEDOUT!: each extra mark by
  the exact expected round score of the sheet; the reroll loss goes to the leader. Rollers: the
  engine's saving rule, then before the third roll the save with the most expected steps by
  exact enumeration of that roll.
- ``careful``: the simple rule a careful person uses (the screen's suggestion; Bank: bank
  once the pot reaches 200).
- ``bold``: pushes further (Tally Up!: OUT at 800; Toss Up!: stop at 20; Bank: at 400;
  DICEDOUT!: mark the likeliest sum; Rollers: never stop before the third roll).
- ``random``: any legal choice, uniformly (a coin for "now or roll on").

Example::

    >>> d6 = {"d6": ["1", "2", "3", "4", "5", "6"]}           # the dice's layout
    >>> result = duel("bank", ["best", "random"], games=20, layout=d6, seed=1)
    >>> result["games"], sorted(result["wins"])
    (20, ['best', 'random'])
    >>> result["wins"]["best"] > result["wins"]["random"]
    True
"""

from __future__ import annotations

import random
from functools import lru_cache

from tray.rules import games, odds
from tray.rules import games as game_modules  # duel() has a parameter named games
from tray.rules.engine import Decision, RollSpec, action, roll, winners
from tray.rules.games import rollers, tally_up, toss_up

POLICIES = ("best", "careful", "bold", "random")
MAX_EVENTS = 50000  # a game that has not ended by then is a bug in a policy or an engine


def parse_seat(text: str) -> str | None:
    """The policy of a seat name: ``"bot"`` -> ``"best"``, ``"bot:careful"`` -> ``"careful"``,
    a person's name -> None. ValueError for an unknown policy.

    >>> parse_seat("bot"), parse_seat("bot:random"), parse_seat("Ana")
    ('best', 'random', None)
    """
    low = text.strip().lower()
    if low == "bot":
        return "best"
    if low.startswith("bot:"):
        name = low[4:].strip()
        if name not in POLICIES:
            raise ValueError(f"unknown bot {text!r}: use bot or bot:{'/bot:'.join(POLICIES)}")
        return name
    return None


def seat_names(names: list[str]) -> list[str]:
    """Config player names with ``bot`` / ``bot:POLICY`` seats turned into the names a bot
    plays under (``Bot``, ``Bot careful``, ``Bot 2``...): the name is how a journal (and a
    resumed game) knows a seat is a computer. ValueError for an unknown policy.

    >>> seat_names(["Ana", "bot", "bot:careful", "bot"])
    ['Ana', 'Bot', 'Bot careful', 'Bot 2']
    """
    out = []
    for name in names:
        policy = parse_seat(name)
        if policy is None:
            out.append(name)
            continue
        base = "Bot" if policy == "best" else f"Bot {policy}"
        n, cand = 1, base
        while cand in out or cand in names:
            n += 1
            cand = f"{base} {n}"
        out.append(cand)
    return out


def policy_of_name(name: str) -> str | None:
    """The policy of a seat from the name ``seat_names`` gave it, or None for a person.

    >>> policy_of_name("Bot"), policy_of_name("Bot careful 2"), policy_of_name("Bobby")
    ('best', 'careful', None)
    """
    words = name.split()
    if not words or words[0] != "Bot" or len(words) > 3:
        return None
    rest = words[1:]
    if rest and rest[-1].isdigit():
        rest = rest[:-1]
    if not rest:
        return "best"
    return rest[0] if len(rest) == 1 and rest[0] in POLICIES else None


class Bot:
    """One computer seat: a game and a policy.

    >>> import random
    >>> from tray.rules.games import toss_up
    >>> layout = {"toss": ["green", "green", "green", "yellow", "yellow", "red"]}
    >>> s = toss_up.new_game(["Ana", "Bot"], layout)
    >>> for greens in (10, 10, 7):                         # 27 points, 3 dice left
    ...     s = toss_up.apply(s, roll(*["toss:green"] * greens + ["toss:yellow"] * (10 - greens)))
    >>> d = toss_up.expect(s).decisions[0]
    >>> Bot("toss-up", "best").decide(s, d, random.Random(0))
    {'type': 'action', 'player': 0, 'action': 'stop'}
    """

    def __init__(self, game_id: str, policy: str = "best"):
        games.get(game_id)  # ValueError for an unknown game
        if policy not in POLICIES:
            raise ValueError(f"unknown policy {policy!r}: choose one of {', '.join(POLICIES)}")
        self.game_id, self.policy = game_id, policy

    def __repr__(self) -> str:
        return f"Bot({self.game_id!r}, {self.policy!r})"

    def decide(self, state: dict, decision: Decision, rng: random.Random) -> dict | None:
        """The event this bot sends for ``decision`` (its own), or None for "not now"."""
        fn = _DECIDE[self.game_id]
        return fn(self.policy, state, decision, rng)

    def dice(self, state: dict, spec: RollSpec, rng: random.Random) -> list[str]:
        """The die ids to throw for ``spec`` (the exact dice unless the roll lets it choose)."""
        if spec.dice is not None:
            return list(spec.dice)
        pool = sorted(set(spec.choose_from or ()))
        if self.policy != "random" and self.game_id == "tally-up" and spec.purpose == "main":
            return list(_tally_best_dice(_layout_key(state["layout"])))
        if self.policy != "random" and self.game_id == "tally-up" and spec.purpose == "bonus":
            stars = odds._main_stars(state)
            best = odds._best_bonus(
                state["layout"], tuple(spec.choose_from), spec.count, state["running"], stars
            )
            return list(best[0])
        return rng.sample(pool, spec.count)


# ----------------------------------------------------------------------------- helpers


def _layout_key(layout: dict) -> tuple:
    return tuple((d, tuple(f)) for d, f in layout.items())


def _coin(rng: random.Random) -> bool:
    return rng.random() < 0.5


def _pick_random(decision: Decision, rng: random.Random, optional: bool) -> dict | None:
    if optional and _coin(rng):
        return None
    return dict(rng.choice(decision.choices))


# ----------------------------------------------------------------------------- Tally Up!

_OUT_AT = {"careful": tally_up.DEFAULT_OUT_AT, "bold": 800}
_GRID = 50  # every Tally Up! amount is a multiple of 50
_CAP = 3000  # above this running total the solved rule banks


@lru_cache(maxsize=64)
def _tally_steps(layout_key: tuple, dice: tuple[str, ...]):
    """The Main Roll step of ``dice`` as (chance, kind, main points, up effect, bonus points):
    kind "bust", "tally" or "ok"; the running total after an "ok" is
    ``effect(running + main + bonus)``."""
    layout = {d: list(f) for d, f in layout_key}
    tally, up = tally_up.dice_roles(layout)
    spare = tuple(d for d in tally if d not in dice)
    out = []
    for faces, p in odds._dist(layout, dice):
        scored = [tally_up.tally_face(f) for f in faces]
        stars = sum(s for s, _, _ in scored)
        pts = sum(v for _, v, _ in scored)
        circle = any(c for _, _, c in scored)
        if stars >= len(dice):
            out.append((float(p), "tally", 0, None, 0))
        elif stars >= 2:
            out.append((float(p), "bust", 0, None, 0))
        elif not circle:
            out.append((float(p), "ok", pts, None, 0))
        else:
            for face, q in odds._faces(layout, up):
                effect, n = tally_up.up_face(face)
                if effect != "bonus" or not spare:
                    out.append(
                        (float(p * q), "ok", pts, None if effect == "bonus" else (effect, n), 0)
                    )
                    continue
                n = min(n, len(spare))
                bdice = odds._best_bonus(layout, spare, n, 200 + pts, stars)[0]
                for bfaces, r in odds._dist(layout, bdice):
                    bs = [tally_up.tally_face(f) for f in bfaces]
                    if stars + sum(s for s, _, _ in bs) >= 2:
                        out.append((float(p * q * r), "bust", 0, None, 0))
                    else:
                        out.append((float(p * q * r), "ok", pts, None, sum(v for _, v, _ in bs)))
    merged: dict[tuple, float] = {}
    for p, *key in out:
        merged[tuple(key)] = merged.get(tuple(key), 0.0) + p
    return tuple((p, *key) for key, p in merged.items())


def _after(running: int, main: int, effect, bonus: int) -> int:
    r = running + main + bonus
    if effect is None:
        return r
    kind, n = effect
    return {"add": r + n, "sub": max(0, r - n), "mul": r * n}[kind]


@lru_cache(maxsize=64)
def _tally_values(
    layout_key: tuple, dice: tuple[str, ...]
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Solved values over the running total (index = running // 50, up to _CAP): the value of
    the best play from there (V) and of rolling once more then playing best (C)."""
    steps = _tally_steps(layout_key, dice)
    size = _CAP // _GRID + 1
    v = [i * _GRID for i in range(size)]
    c = [0.0] * size

    def val(r: int) -> float:
        return v[r // _GRID] if r < _CAP else float(r)

    for _ in range(25):
        for i in range(size):
            running = i * _GRID
            total = 0.0
            for p, kind, main, effect, bonus in steps:
                if kind == "tally":
                    total += p * 100  # still IN on a Tally Up!: +100 (or +200 first)
                elif kind == "ok":
                    total += p * val(_after(running, main, effect, bonus))
            c[i] = total
            v[i] = max(float(running), total)
    return tuple(v), tuple(c)


@lru_cache(maxsize=16)
def _tally_best_dice(layout_key: tuple) -> tuple[str, ...]:
    layout = {d: list(f) for d, f in layout_key}
    tally, _ = tally_up.dice_roles(layout)
    from itertools import combinations

    return max(
        combinations(tally, tally_up.MAIN_DICE), key=lambda d: _tally_values(layout_key, d)[0][0]
    )


def _tally_decide(policy: str, state: dict, decision: Decision, rng: random.Random):
    p = decision.player
    if "tally_up" in decision.actions:
        return action(p, "tally_up")  # a computer is never slow to press
    if policy == "random":
        return _pick_random(decision, rng, optional=False)
    running = state["running"]
    score, target = state["scores"][p], state["options"]["target"]
    others = max(sc for q, sc in enumerate(state["scores"]) if q != p)
    if (
        not state["options"]["every_player_once"]
        and score + running >= target > score
        and score + running > others
    ):
        return action(p, "out")
    if policy in _OUT_AT:
        return action(p, "out" if running >= _OUT_AT[policy] else "in")
    if running >= _CAP:
        return action(p, "out")
    locked = tuple(state["locked"] or ())
    if state["after_reveal"] == tally_up.UP:
        # the Up Die step alone: exact odds of it, then the solved values of the round
        layout = state["layout"]
        spare = tuple(d for d in tally_up.dice_roles(layout)[0] if d not in locked)
        _bust, _, expected = odds._up_odds(layout, spare, running, odds._main_stars(state))
        go_on = float(expected) > running
    else:
        _, c = _tally_values(_layout_key(state["layout"]), locked)
        go_on = c[running // _GRID] > running
    return action(p, "in" if go_on else "out")


# ----------------------------------------------------------------------------- Toss Up!

_STOP_AT = {"careful": None, "bold": 20}
_TOSS_CAP = 80


@lru_cache(maxsize=8)
def _toss_table(p_green: float, p_yellow: float):
    """For dice left n (1..10): [(greens, chance)] of the throws that do not bust."""
    from math import comb

    p_red = 1.0 - p_green - p_yellow
    table = {}
    for n in range(1, toss_up.DICE + 1):
        rows = []
        for g in range(n + 1):
            for y in range(n - g + 1):
                r = n - g - y
                if g == 0 and r > 0:
                    continue  # bust
                p = comb(n, g) * comb(n - g, y) * p_green**g * p_yellow**y * p_red**r
                rows.append((g, p))
        table[n] = rows
    return table


@lru_cache(maxsize=8)
def _toss_values(p_green: float, p_yellow: float):
    """C[(points, left)]: the expected turn points of rolling now and then playing best."""
    table = _toss_table(p_green, p_yellow)
    v = {(t, n): float(t) for t in range(_TOSS_CAP + 1) for n in range(1, toss_up.DICE + 1)}
    c = dict(v)

    def val(t, n):
        return v[(t, n)] if t <= _TOSS_CAP else float(t)

    for _ in range(40):
        for t in range(_TOSS_CAP, -1, -1):
            for n in range(1, toss_up.DICE + 1):
                total = 0.0
                for g, p in table[n]:
                    left = n - g or toss_up.DICE
                    total += p * val(t + g, left)
                c[(t, n)] = total
                v[(t, n)] = max(float(t), total)
    return c


def _toss_decide(policy: str, state: dict, decision: Decision, rng: random.Random):
    p = decision.player
    stop = action(p, "stop")
    if policy == "random":
        return _pick_random(decision, rng, optional=True)
    points, left = state["turn_points"], state["left"]
    mine = state["scores"][p] + points
    others = max(sc for q, sc in enumerate(state["scores"]) if q != p)
    if state["final"] or state["tiebreak"]:
        return stop if mine > others else None  # a last turn: roll on until in the lead
    if policy == "careful":
        return stop if decision.default else None
    if policy == "bold":
        return stop if points >= 20 or (left <= 2 and points > 0) else None
    die = toss_up.toss_die(state["layout"])
    faces = state["layout"][die]
    c = _toss_values(faces.count("green") / len(faces), faces.count("yellow") / len(faces))
    if points > _TOSS_CAP:
        return stop
    return stop if points >= c[(points, left)] else None


# ----------------------------------------------------------------------------- Bank

_BANK_AT = {"careful": 200, "bold": 400}
BANK_AT, BANK_FLOOR, BANK_CAP, BANK_OVER = 300, 250, 700, 1.15  # best: tuned by duels


def _bank_decide(policy: str, state: dict, decision: Decision, rng: random.Random):
    p = decision.player
    bank = action(p, "bank")
    if policy == "random":
        return _pick_random(decision, rng, optional=True)
    total = state["total"]
    if policy in _BANK_AT:
        return bank if total >= _BANK_AT[policy] else None
    others = [q for q in range(len(state["scores"])) if q != p]
    # bank a little later than the others have been banking this game (measured: against a
    # player banking at a fixed pot, banking just above it wins most)
    return bank if total >= _bank_target(state, others) else None


def _bank_target(state: dict, others: list[int]) -> float:
    taken = sorted(r[q] for r in state["round_points"][:-1] for q in others if r[q] > 0)
    if len(taken) < 2:
        return BANK_AT
    median = taken[len(taken) // 2]
    return max(BANK_FLOOR, min(BANK_CAP, median * BANK_OVER))


# ----------------------------------------------------------------------------- DICEDOUT!


def _diced_decide(policy: str, state: dict, decision: Decision, rng: random.Random):
    if policy == "random":
        return _pick_random(decision, rng, optional=False)
    if "penalize" in decision.actions or policy == "careful":
        return dict(decision.default)
    seat = decision.player
    marked = set(state["marks"][seat])
    rerolls = state["rerolls"][seat]
    if policy == "bold":
        sums = dict(odds._sum_probs(state["layout"]))
        return max(decision.choices, key=lambda c: (sums.get(c["number"], 0), c["number"]))
    layout, circled = state["layout"], state["options"]["circled"]

    def score(c):
        done, exp = odds.sheet_value(layout, circled, marked | {c["number"]}, rerolls, exact=False)
        return (exp, -done)

    return dict(min(decision.choices, key=score))


# ----------------------------------------------------------------------------- Rollers


def _rollers_decide(policy: str, state: dict, decision: Decision, rng: random.Random):
    if policy == "random":
        return _pick_random(decision, rng, optional=False)
    turn = state["turn"]
    default = dict(decision.default)
    if "apply" in decision.actions:
        return default
    if policy == "bold" and default["action"] == "stop" and turn["rolls"] < 3:
        plans = rollers._plans(state, decision.player, rollers._usable(turn))
        if (
            not (plans and plans[0][1]["complete"])
            and not turn["zapped"]
            and len(decision.choices) > 1
        ):
            return dict(decision.choices[-2])  # save all but one die and roll it
    if policy != "best" or turn["rolls"] != 2 or turn["zapped"]:
        return default
    # before the last roll: the default, stop, and saving every useful die, by exact odds
    return _rollers_last_save(state, decision, default)


def _rollers_last_save(state: dict, decision: Decision, default: dict) -> dict:
    turn = state["turn"]
    roll_specs = turn["last_roll"]
    candidates = [default, {"type": "action", "player": decision.player, "action": "stop"}]
    for c in decision.choices:
        if c["action"] == "save" and len(c["dice"]) in (
            len(default.get("dice", [])) - 1,
            len(default.get("dice", [])) + 1,
        ):
            candidates.append(c)
    best, best_score = default, None
    for c in candidates:
        if c["action"] == "stop":
            steps, complete = odds._best_steps(state, decision.player, rollers._usable(turn))
            score = (float(complete), float(steps))
        else:
            kept = list(turn["saved"]) + [roll_specs[i] for i in c["dice"]]
            dice = list(rollers.ALL_DICE)
            for spec in kept:
                dice.remove(spec.split(":", 1)[0])
            _, exp, _, close = odds.rollers_next(state, kept, tuple(dice), exact=False)
            score = (float(close), float(exp))
        if best_score is None or score > best_score:
            best, best_score = dict(c), score
    return best


_DECIDE = {
    "tally-up": _tally_decide,
    "toss-up": _toss_decide,
    "bank": _bank_decide,
    "diced-out": _diced_decide,
    "rollers": _rollers_decide,
}


# ----------------------------------------------------------------------------- duel


def throw(state: dict, spec: RollSpec, bot: Bot, rng: random.Random) -> dict:
    """A roll event for ``spec``: the bot picks the dice (when it may), the rng the faces."""
    layout = state["layout"]
    ids = bot.dice(state, spec, rng)
    return roll(*(f"{d}:{rng.choice(layout[d])}" for d in ids))


def step(state: dict, bots: list[Bot], rng: random.Random) -> list[dict]:
    """The events that happen next in a game of bots: their decisions (presses in a random
    order, only the first Tally Up! press), else a throw. The events are returned in order;
    apply them one by one."""
    engine = games.get(state["game"])
    e = engine.expect(state)
    acts = []
    for d in e.decisions:
        if d.player < 0:
            continue
        ev = bots[d.player].decide(state, d, rng)
        if ev is None and e.roll is None:
            ev = dict(d.default or d.choices[0])
        if ev is not None:
            acts.append(ev)
    if acts:
        rng.shuffle(acts)
        if any(a["action"] == "tally_up" for a in acts):
            return acts[:1]
        return acts
    if e.roll is not None:
        return [throw(state, e.roll, bots[e.roll.roller], rng)]
    table = [d for d in e.decisions if d.player < 0]
    if table:
        return [dict(table[0].default or table[0].choices[0])]
    raise RuntimeError(f"the game waits for nothing: {e.prompt!r}")


def play_game(
    game_id: str,
    policies: list[str],
    rng: random.Random,
    layout: dict,
    names: list[str] | None = None,
    options: dict | None = None,
) -> dict:
    """One whole game of bots with the dice ``layout``; returns the final state."""
    engine = games.get(game_id)
    names = names or [f"{p}{i}" for i, p in enumerate(policies)]
    state = engine.new_game(names, layout, options)
    bots = [Bot(game_id, p) for p in policies]
    count = 0
    while not state["finished"]:
        for ev in step(state, bots, rng):
            state = engine.apply(state, ev)
            count += 1
            if state["finished"]:
                break
        if count > MAX_EVENTS:
            raise RuntimeError(f"{game_id} game of {policies} did not end in {MAX_EVENTS} events")
    return state


def duel(
    game_id: str,
    policies: list[str],
    games: int,
    layout: dict,
    seed: int = 0,
    options: dict | None = None,
) -> dict:
    """Play ``games`` games with the dice ``layout``; seats rotate every game so nobody
    always starts.

    Returns ``{"games": N, "wins": {label: wins}, "shared": games with a shared win}``, a
    shared win counting for each winner. Labels are the policy names (``best``, ``best2``
    when a policy plays twice).
    """
    engine = game_modules.get(game_id)
    if not engine.MIN_PLAYERS <= len(policies) <= engine.MAX_PLAYERS:
        raise ValueError(
            f"{engine.TITLE} needs {engine.MIN_PLAYERS} to {engine.MAX_PLAYERS} "
            f"players, not {len(policies)}"
        )
    for p in policies:
        if p not in POLICIES:
            raise ValueError(f"unknown policy {p!r}: choose from {', '.join(POLICIES)}")
    labels = []
    for p in policies:
        labels.append(
            p if p not in labels else f"{p}{sum(1 for x in labels if x.startswith(p)) + 1}"
        )
    rng = random.Random(seed)
    wins = dict.fromkeys(labels, 0)
    shared = 0
    n = len(labels)
    for g in range(games):
        order = [(g + i) % n for i in range(n)]
        state = play_game(
            game_id, [policies[i] for i in order], rng, layout, [labels[i] for i in order], options
        )
        w = state.get("winner")
        if w is None and state["game"] == "bank":
            w = winners(state["scores"], state["players"])
        if w is None and state["game"] == "diced-out":
            w = winners(state["scores"], state["players"], highest=False)
        won = w if isinstance(w, list) else [w]
        shared += len(won) > 1
        for name in won:
            wins[name] += 1
    return {"games": games, "wins": wins, "shared": shared}
