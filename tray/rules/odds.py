"""Live odds: for the decision in front of the players, each option's chance of a bust and
its expected points, computed exactly (``fractions.Fraction``) from the dice layout in the
state by enumerating the dice.

``odds(state)`` returns ``{"game": id, "options": [Option, ...]}``; each option has
``choice`` (a short label), ``p_bust`` and ``expected_points`` (Fractions) and ``extra``
(more named chances, also Fractions). What the numbers mean, per game:

- **Tally Up!**: a *step* is a Main Roll plus, when it shows a circle, the Up Die and its
  Bonus Roll (the Bonus Roll dice chosen to keep the most points). Before the round's first
  Main Roll the options are the dice choices (three colours each): ``p_bust`` = two or more
  stars in the step, ``extra.p_tally_up`` = three stars, ``extra.p_up_helps`` = the Up Die is
  rolled and raises the running total, ``expected_points`` = the running total after the step
  (0 on a bust or a Tally Up!). In a reveal: ``out`` banks the running total now, ``in`` is the
  next step (the Up Die step when the reveal comes before it). A pending Bonus Roll: one option
  per choice of dice.
- **Toss Up!**: ``roll`` = bust on the next throw with the dice left (no green and a red);
  ``expected_points`` = the turn's points after that throw if the player then stops.
  ``stop`` banks the turn points.
- **Bank**: ``roll`` = the next roll ends the round (a 7 from roll 4 on: 1/6; before: 0) and
  ``expected_points`` = the expected pot after it; ``bank`` = the pot now.
- **DICEDOUT!** (lower is better): for the player to roll, ``roll`` gives ``p_bust`` = the chance
  of being DICEDOUT! in this turn, ``extra.p_complete`` = the chance of marking every number
  this round and ``expected_points`` = the expected round score (the unmarked numbers left
  when DICEDOUT!), playing every later extra mark to keep it lowest. For an extra mark, one
  option per number with the same figures after marking it.
- **Rollers**: at a save choice, each option's ``p_bust`` = a ZAP on the next roll (the black die
  is rolled) and ``expected_points`` = the expected section steps (open or close) when the
  dice are applied after that roll; ``extra.p_progress`` = at least one step,
  ``extra.p_close_board`` = the whole board closes (the round is won). ``stop``: the steps of
  applying now. (One roll of look-ahead: a later roll can only add to these.)

Example: Bank after the third roll of a round::

    >>> from tray.rules.games import bank
    >>> from tray.rules.engine import roll
    >>> s = bank.new_game(["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]})
    >>> for dice in (("d6:1", "d6:2"), ("d6:2", "d6:4"), ("d6:5", "d6:6")):
    ...     s = bank.apply(s, roll(*dice))
    >>> o = odds(s)["options"]
    >>> [(x.choice, str(x.p_bust), str(x.expected_points)) for x in o]
    [('roll', '1/6', '155/6'), ('bank', '0', '20')]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, lru_cache
from itertools import combinations, product

from tray.rules.games import bank, rollers, tally_up, toss_up

ZERO = Fraction(0)
ONE = Fraction(1)


@dataclass(frozen=True)
class Option:
    """One choice with its odds.

    >>> o = Option("roll", Fraction(1, 6), Fraction(35, 6))
    >>> o.as_json()
    {'choice': 'roll', 'p_bust': 0.1667, 'expected_points': 5.833, 'p_bust_exact': '1/6'}
    """

    choice: str
    p_bust: Fraction
    expected_points: Fraction
    extra: dict = field(default_factory=dict)
    event: dict | None = None  # the engine event this option stands for, when there is one

    def as_json(self) -> dict:
        out = {
            "choice": self.choice,
            "p_bust": round(float(self.p_bust), 4),
            "expected_points": round(float(self.expected_points), 3),
            "p_bust_exact": str(self.p_bust),
        }
        out.update({k: round(float(v), 4) for k, v in self.extra.items()})
        return out


def odds(state: dict) -> dict:
    """The options of the decision the state waits for, with their odds (see the module doc).

    A finished game, or a moment with nothing left to chance (a roll-off, a Tally Up! press),
    has no options.

    >>> from tray.rules.games import toss_up
    >>> s = toss_up.new_game(["Ana", "Ben"], {"toss": ["green"] * 3 + ["yellow"] * 2 + ["red"]})
    >>> [(o.choice, str(o.p_bust)) for o in odds(s)["options"]]
    [('roll', '58025/60466176')]
    """
    game = state.get("game")
    fn = {
        "tally-up": _tally,
        "toss-up": _toss,
        "bank": _bank,
        "diced-out": _diced,
        "rollers": _rollers,
    }.get(game)
    if fn is None:
        raise ValueError(f"no odds for game {game!r}")
    options = [] if state.get("finished") else fn(state)
    return {"game": game, "options": options}


def odds_json(state: dict) -> dict:
    """``odds`` as plain JSON (floats rounded, ``p_bust_exact`` as a fraction string)."""
    out = odds(state)
    return {"game": out["game"], "options": [o.as_json() for o in out["options"]]}


def _faces(layout: dict, die: str) -> list[tuple[str, Fraction]]:
    """The distinct faces of a die with their chances (a face printed twice counts twice)."""
    faces = layout[die]
    return [(f, Fraction(faces.count(f), len(faces))) for f in dict.fromkeys(faces)]


# ----------------------------------------------------------------------------- Bank


def _bank(state: dict) -> list[Option]:
    total = state["total"]
    phase2 = bank.phase(state) == 2
    double_only = state["options"]["doubles_rule"] == "double_only"
    p_seven = ZERO
    exp = ZERO
    d6 = _faces(state["layout"], bank.DIE)
    for (a, pa), (b, pb) in product(d6, d6):
        p = pa * pb
        x, y = int(a), int(b)
        if x + y == 7:
            if phase2:
                p_seven += p  # the pot is lost: 0
            else:
                exp += p * (total + 70)
        elif phase2 and x == y:
            exp += p * (2 * total + (0 if double_only else x + y))
        else:
            exp += p * (total + x + y)
    out = [Option("roll", p_seven, exp, event=None)]
    if bank.can_bank(state):
        out.append(Option("bank", ZERO, Fraction(total)))
    return out


# ----------------------------------------------------------------------------- Toss Up!


def toss_bust(layout: dict, dice: int) -> Fraction:
    """The chance that ``dice`` Toss Up! dice show no green and at least one red.

    >>> toss_bust({"toss": ["green"] * 3 + ["yellow"] * 2 + ["red"]}, 1)
    Fraction(1, 6)
    """
    die = toss_up.toss_die(layout)
    p = dict(_faces(layout, die))
    no_green = ONE - p.get("green", ZERO)
    return no_green**dice - p.get("yellow", ZERO) ** dice


def _toss(state: dict) -> list[Option]:
    layout = state["layout"]
    die = toss_up.toss_die(layout)
    p_green = dict(_faces(layout, die)).get("green", ZERO)
    left, points = state["left"], state["turn_points"]
    bust = toss_bust(layout, left)
    # greens only count when the throw does not bust, and a bust shows no green at all
    out = [Option("roll", bust, (ONE - bust) * points + left * p_green)]
    if state["rolled"]:
        out.append(Option("stop", ZERO, Fraction(points)))
    return out


# ----------------------------------------------------------------------------- Tally Up!


def _dist(layout: dict, dice: tuple[str, ...]):
    """Every outcome of rolling ``dice``: (faces, chance)."""
    for combo in product(*(_faces(layout, d) for d in dice)):
        p = ONE
        for _, q in combo:
            p *= q
        yield tuple(f for f, _ in combo), p


def _bonus_odds(layout: dict, dice: tuple[str, ...], running: int, stars: int):
    """(p_bust, expected running) of a Bonus Roll of ``dice`` after a Main Roll with ``stars``."""
    bust = exp = ZERO
    for faces, p in _dist(layout, dice):
        st = pts = 0
        for f in faces:
            s, v, _ = tally_up.tally_face(f)
            st, pts = st + s, pts + v
        if stars + st >= 2:
            bust += p
        else:
            exp += p * (running + pts)
    return bust, exp


def _best_bonus(layout: dict, spare: tuple[str, ...], n: int, running: int, stars: int):
    """The Bonus Roll dice (n of ``spare``) keeping the most points: (dice, p_bust, expected)."""
    best = None
    for dice in combinations(spare, n):
        bust, exp = _bonus_odds(layout, dice, running, stars)
        if best is None or exp > best[2]:
            best = (dice, bust, exp)
    return best


def _up_odds(layout: dict, spare: tuple[str, ...], running: int, stars: int):
    """(p_bust, p_helps, expected running) of the Up Die step (with its Bonus Roll)."""
    _, up = tally_up.dice_roles(layout)
    bust = helps = exp = ZERO
    for face, p in _faces(layout, up):
        effect, n = tally_up.up_face(face)
        if effect == "bonus":
            n = min(n, len(spare))
            if n == 0:
                exp += p * running
                continue
            _, b, e = _best_bonus(layout, spare, n, running, stars)
            bust += p * b
            exp += p * e
            if e > (ONE - b) * running:  # more points than the running total it risks
                helps += p
            continue
        after = {"add": running + n, "sub": max(0, running - n), "mul": running * n}[effect]
        exp += p * after
        if after > running:
            helps += p
    return bust, helps, exp


def _main_odds(layout: dict, dice: tuple[str, ...], running: int):
    """(p_bust, p_tally_up, p_up_helps, expected running) of a Main Roll step with ``dice``."""
    tally, _ = tally_up.dice_roles(layout)
    spare = tuple(d for d in tally if d not in dice)
    bust = tally_p = helps = exp = ZERO
    for faces, p in _dist(layout, dice):
        stars = pts = 0
        circle = False
        for f in faces:
            s, v, c = tally_up.tally_face(f)
            stars, pts, circle = stars + s, pts + v, circle or c
        if stars >= len(dice):
            tally_p += p
        elif stars >= 2:
            bust += p
        elif circle:
            b, h, e = _up_odds(layout, spare, running + pts, stars)
            bust += p * b
            helps += p * h
            exp += p * e
        else:
            exp += p * (running + pts)
    return bust, tally_p, helps, exp


def _tally(state: dict) -> list[Option]:
    layout = state["layout"]
    tally, _ = tally_up.dice_roles(layout)
    phase, running = state["phase"], state["running"]
    if phase == tally_up.MAIN:
        if state["locked"] is None:
            choices = list(combinations(tally, tally_up.MAIN_DICE))
        else:
            choices = [tuple(state["locked"])]
        out = []
        for dice in choices:
            b, t, h, e = _main_odds(layout, dice, running)
            out.append(Option("+".join(dice), b + t, e, {"p_tally_up": t, "p_up_helps": h}))
        return out
    if phase == tally_up.CHOOSE:
        locked = tuple(state["locked"] or ())
        if state["after_reveal"] == tally_up.UP:
            spare = tuple(d for d in tally if d not in locked)
            stars = _main_stars(state)
            b, h, e = _up_odds(layout, spare, running, stars)
            extra = {"p_tally_up": ZERO, "p_up_helps": h}
        else:
            b0, t, h, e = _main_odds(layout, locked, running)
            b, extra = b0 + t, {"p_tally_up": t, "p_up_helps": h}
        return [Option("in", b, e, extra), Option("out", ZERO, Fraction(running))]
    if phase == tally_up.UP:
        spare = tuple(d for d in tally if d not in (state["locked"] or ()))
        b, h, e = _up_odds(layout, spare, running, _main_stars(state))
        return [Option("up", b, e, {"p_up_helps": h})]
    if phase == tally_up.BONUS:
        spare = tuple(d for d in tally if d not in (state["locked"] or ()))
        stars = _main_stars(state)
        return [
            Option("+".join(dice), *_bonus_odds(layout, dice, running, stars))
            for dice in combinations(spare, state["bonus"])
        ]
    return []  # a Tally Up! press: nothing left to chance


def _main_stars(state: dict) -> int:
    return sum(tally_up.tally_face(d.split(":", 1)[1])[0] for d in state["main_roll"] or [])


# ----------------------------------------------------------------------------- DICEDOUT!


def _sum_probs(layout: dict) -> tuple[tuple[int, Fraction], ...]:
    d6 = _faces(layout, "d6")
    probs: dict[int, Fraction] = {}
    for (a, pa), (b, pb) in product(d6, d6):
        probs[int(a) + int(b)] = probs.get(int(a) + int(b), ZERO) + pa * pb
    return tuple(sorted(probs.items()))


@lru_cache(maxsize=16)
def _sheet_solver(sums: tuple, circled: tuple[int, ...], exact: bool):
    """A cached function (marked, rerolls) -> (p_complete, expected round score, p_out_now)."""
    numbers = tuple(range(2, 13))
    sums = tuple((s, p if exact else float(p)) for s, p in sums)
    zero, one = (ZERO, ONE) if exact else (0.0, 1.0)

    @cache
    def value(marked: frozenset, rerolls: int):
        left = [n for n in numbers if n not in marked]
        if not left:
            return one, zero
        p_done = exp = zero
        for s, p in sums:
            if s in marked:
                if rerolls > 0:
                    c, e = value(marked, rerolls - 1)
                else:
                    c, e = zero, sum(left) * one
            else:
                after = marked | {s}
                rest = [n for n in numbers if n not in after]
                if s in circled and rest:
                    c, e = min(
                        (value(after | {m}, rerolls) for m in rest), key=lambda ce: (ce[1], -ce[0])
                    )
                else:
                    c, e = value(after, rerolls)
            p_done += p * c
            exp += p * e
        return p_done, exp

    return value


def sheet_value(layout: dict, circled, marked, rerolls: int, exact: bool = True):
    """(chance of marking every number, expected round score) of a DICEDOUT! sheet, playing
    every extra mark to keep the expected round score lowest.

    >>> d6 = {"d6": ["1", "2", "3", "4", "5", "6"]}
    >>> c, e = sheet_value(d6, [2, 12], set(range(2, 12)), 0)   # only 12 left, no reroll
    >>> str(c), str(e)
    ('1/36', '35/3')
    """
    solve = _sheet_solver(_sum_probs(layout), tuple(sorted(circled)), exact)
    return solve(frozenset(marked), rerolls)


def _diced(state: dict) -> list[Option]:
    seat = state["active"]
    layout, circled = state["layout"], state["options"]["circled"]
    marked = set(state["marks"][seat])
    rerolls = state["rerolls"][seat]
    if state["phase"] == "turn":
        p_marked = sum((p for s, p in _sum_probs(layout) if s in marked), ZERO)
        c, e = sheet_value(layout, circled, marked, rerolls)
        return [Option("roll", p_marked ** (rerolls + 1), e, {"p_complete": c})]
    if state["phase"] == "bonus":
        out = []
        for n in sorted((n for n in range(2, 13) if n not in marked), reverse=True):
            c, e = sheet_value(layout, circled, marked | {n}, rerolls)
            out.append(
                Option(
                    f"mark {n}",
                    ONE - c,
                    e,
                    {"p_complete": c},
                    event={"type": "action", "player": seat, "action": "mark", "number": n},
                )
            )
        return out
    return []  # a roll-off or a penalty pick: no odds to give


# ----------------------------------------------------------------------------- Rollers


def rollers_next(state: dict, saved: list[str], dice: tuple[str, ...], exact: bool = True) -> tuple:
    """Rolling ``dice`` once more with ``saved`` kept, then applying: (p_zap, expected steps,
    p_progress, p_close_board), the dice applied the engine's best way."""
    layout = state["layout"]
    seat = state["active"]
    zap = expected = progress = close = ZERO
    n_wild = sum(1 for d in dice if d == "wild")
    wild = _faces(layout, "wild")
    black = _faces(layout, "black") if "black" in dice else [(None, ONE)]
    if not exact:
        zap = expected = progress = close = 0.0
        wild = [(f, float(p)) for f, p in wild]
        black = [(f, float(p)) for f, p in black]
    for combo in _multisets(wild, n_wild):
        faces, p = combo
        for bf, pb in black:
            q = p * pb
            rolled = [f"wild:{f}" for f in faces] + ([f"black:{bf}"] if bf else [])
            if bf == rollers.ZAP:
                zap += q
                use = list(saved)
            else:
                use = list(saved) + rolled
            steps, complete = _best_steps(state, seat, use)
            expected += q * steps
            progress += q if steps else 0
            close += q if complete else 0
    return zap, expected, progress, close


def _multisets(faces: list[tuple[str, Fraction]], n: int):
    """Each multiset of ``n`` dice showing ``faces``, with its chance (multinomial)."""
    from itertools import combinations_with_replacement
    from math import factorial

    for combo in combinations_with_replacement(range(len(faces)), n):
        ways = factorial(n)
        p = faces[0][1] ** 0 if faces else ONE
        for i in set(combo):
            k = combo.count(i)
            ways //= factorial(k)
            p *= faces[i][1] ** k
        yield [faces[i][0] for i in combo], p * ways


def _best_steps(state: dict, seat: int, dice: list[str]) -> tuple[int, bool]:
    """(section steps, whole board closed) of applying ``dice`` the best way (STARs valued
    for the most steps; a whole board first)."""
    values = []
    stars = 0
    for spec in dice:
        face = spec.split(":", 1)[1]
        if face.isdigit():
            values.append(int(face))
        elif face == "star":
            stars += 1
    return _steps_cached(tuple(state["boards"][seat]), tuple(sorted(values)), stars)


@lru_cache(maxsize=65536)
def _steps_cached(board: tuple[str, ...], values: tuple[int, ...], stars: int) -> tuple[int, bool]:
    from itertools import combinations_with_replacement

    best = (False, -1)
    for extra in combinations_with_replacement(range(1, 6), stars):
        all_values = values + extra
        steps, closed = 0, 0
        for k in range(1, 6):
            c = all_values.count(k)
            state_k = board[k - 1]
            if state_k == "empty" and c >= k:
                steps, c, state_k = steps + 1, c - k, "open"
            if state_k == "open" and c >= 1:
                steps, state_k = steps + 1, "closed"
            closed += state_k == "closed"
        best = max(best, (closed == 5, steps))
    return best[1], best[0]


def _rollers(state: dict) -> list[Option]:
    if state["phase"] != "turn":
        return []
    turn, seat = state["turn"], state["active"]
    if turn["step"] == "roll":
        saved = list(turn["saved"])
        z, e, pr, c = rollers_next(state, saved, rollers._remaining(turn))
        return [Option("roll", z, e, {"p_progress": pr, "p_close_board": c})]
    if turn["step"] == "apply":
        out = []
        for stars, plan in rollers._plans(state, seat, rollers._usable(turn)):
            steps = len(plan["opened"]) + len(plan["closed"])
            out.append(
                Option(
                    rollers._describe(state, stars, plan),
                    ZERO,
                    Fraction(steps),
                    event={"type": "action", "player": seat, "action": "apply", "stars": stars},
                )
            )
        return out
    roll = turn["last_roll"]
    sets = [[]] if turn["zapped"] else rollers._save_sets(roll)
    out = []
    for idx in sets:
        kept = list(turn["saved"]) + [roll[i] for i in idx]
        dice = tuple(d for d in rollers.ALL_DICE)
        for spec in kept:
            dice = _without(dice, spec.split(":", 1)[0])
        z, e, pr, c = rollers_next(state, kept, dice)
        out.append(
            Option(
                rollers._save_label(roll, idx),
                z,
                e,
                {"p_progress": pr, "p_close_board": c},
                event={"type": "action", "player": seat, "action": "save", "dice": idx},
            )
        )
    steps, complete = _best_steps(state, seat, rollers._usable(turn))
    out.append(
        Option(
            "stop",
            ZERO,
            Fraction(steps),
            {"p_progress": ONE if steps else ZERO, "p_close_board": ONE if complete else ZERO},
            event={"type": "action", "player": seat, "action": "stop"},
        )
    )
    return out


def _without(dice: tuple[str, ...], die: str) -> tuple[str, ...]:
    out = list(dice)
    out.remove(die)
    return tuple(out)
