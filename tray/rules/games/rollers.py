"""Rollers (USAopoly, 2016): roll sets of like numbers, fill your board, take chips, race to 5.

Readings: ``tray/rules/RULES.md`` section 5 (#5-rollers). Six dice: five wild
dice (die id ``wild``, faces ``1``..``5`` and ``star``) and one black die (``black``, faces
``1``..``5`` and ``zap``). Each round every player has a board with sections 1..5 (each
``"empty"``, ``"open"`` or ``"closed"``) and chips worth 55; the engine tracks chip value.

Seats go clockwise in the order of the player list. Start: every player rolls one die, any of
the six (``RollSpec.choose_from`` = ("wild", "black"), count 1); the highest number goes
first and players tied for the highest roll again among themselves. A STAR or a ZAP counts as
6 in this roll (each stands where a plain die has its 6; the rulebook does not say). Each new
round is started by the player to the RIGHT of the previous round's starter (the seat before
it).

**Saving dice (the project's design).** Saved dice are physically taken out of the tray and
set aside; the camera only ever sees the dice being rolled. After roll 1 or 2 of a turn the
player picks, on the screen, which dice of the last roll to save:
``action(p, "save", dice=[indices into the last roll])`` (``[]`` = roll them all again); the
state then waits for a roll of exactly the dice not saved (``RollSpec.dice`` = their die ids,
e.g. ``("wild", "wild", "black")``). ``action(p, "stop")`` stops rolling and applies the dice
now. Saving every die of the last roll would be stopping: it is not offered, and refused
(RuleError: choose ``stop``). ``Decision.choices`` lists
every distinct save set (dice showing the same face are interchangeable, so at most 2^6) and
``stop``; ``Expect.detail["labels"]`` says each in words, in the same order.

A roll that shows the ZAP cancels itself: nothing rolled with it can be saved or applied (the
black die included); dice saved before are kept; it counts as one of the three rolls. After a
ZAP the choices are to roll again (``save`` with ``dice=[]``) or to stop. A black die saved on
a number is out of the tray and cannot zap later.

**Applying.** After the third roll, or on ``stop``, the dice saved plus the last roll (unless
it was zapped) are applied. STARs take a value 1..5 chosen now: ``action(p, "apply",
stars=[3, 3])`` (one value per STAR). For given star values one use of the dice is always at
least as good as any other, so the engine does it: for every value k, an empty section with
k+1 dice of value k opens and closes, with k dice it opens; an open section closes with one
die; then every remaining die of value k whose section is closed collects k chips from every
other player who has not closed k (a player pays what they have, down to 0; a collector with
no chips collects nothing). Dice that fit nothing are unused. The plans offered
(``Decision.choices``) are therefore the star values, one per distinct outcome (boards and
chips afterwards); when only one outcome is possible (no STAR, or every STAR value gives the
same result) it is applied at once with no question.

**"Best" (Decision.default).** Plans are ranked by, in order: closing the whole board (ends
the round, 2 points); the number of section steps gained (open = 1, close = 1); the chips
collected; the sum of the section numbers gained (higher sections need more dice, so they are
harder to get later). The default save keeps: every STAR; every die whose value can still
collect chips (section closed, or open: one die closes it, the others collect) — or, when
collecting pays nothing, just the one die that closes an open section; for empty sections the
dice of the value closest to opening (most dice of that value per die needed, ties: the higher
value), plus those of any other value that already has enough to open; and the black die on a
useless number when three or more other dice would be rolled with it (a ZAP would cancel them
all). If that keeps every die (or the dice already close the whole board) the default is
``stop``. Rolling again never loses a saved die, so the default keeps rolling otherwise.

The round ends when a player closes all five sections: that player scores 2 points (1 if they
hold no chips), and the highest chip value scores 1 (every player tied for it). Boards and
chips reset. The game ends when a player reaches the target (option ``target``, 5, from 3 to
5); if several reach it in the same round the higher chip value (of that round's end) wins,
a tie is a shared win (``winner`` is a list).

>>> from tray.rules import engine
>>> layout = {"wild": ["1", "2", "3", "4", "5", "star"], "black": ["1", "2", "3", "4", "5", "zap"]}
>>> s = new_game(["Ann", "Ben"], layout)
>>> s = apply(s, engine.roll("wild:5"))     # Ann's start roll
>>> s = apply(s, engine.roll("black:2"))    # Ben's: Ann goes first
>>> expect(s).prompt
'Ann: roll all six dice (roll 1 of 3)'
>>> s = apply(s, engine.roll("wild:1", "wild:3", "wild:3", "wild:star", "wild:4", "black:5"))
>>> s = apply(s, engine.action(0, "save", dice=[0, 1, 2, 3]))   # keep 1, 3, 3, STAR
>>> expect(s).roll.dice
('wild', 'black')
"""

from __future__ import annotations

from itertools import combinations_with_replacement

from tray.rules.engine import (
    Decision,
    Expect,
    Facts,
    RollSpec,
    RuleError,
    and_list,
    awaited,
    base_state,
    check_event,
    check_players,
    check_roll,
    copy_state,
    last_move,
    roll_dice,
    rolloff,
    rolloff_roll,
    summary_base,
    with_options,
)

GAME_ID = "rollers"
TITLE = "Rollers"
DICE_SET = "rollers"
MIN_PLAYERS = 2
MAX_PLAYERS = 5  # five game boards in the box
LOWEST_WINS = False
OPTIONS = {"target": 5}  # points to win, 3..5

CHIPS = 55  # 10 chips worth 5 and 5 worth 1 (RULES.md 5.1: the table tracks chip value)
ALL_DICE = ("wild", "wild", "wild", "wild", "wild", "black")
SECTIONS = (1, 2, 3, 4, 5)
ROLLS_PER_TURN = 3
STAR, ZAP = "star", "zap"


# ----------------------------------------------------------------------------------- set-up


def _options(options: dict | None) -> dict:
    opts = with_options(OPTIONS, options, TITLE)
    target = opts["target"]
    if isinstance(target, bool) or not isinstance(target, int) or not 3 <= target <= 5:
        raise RuleError(f"target must be 3, 4 or 5 points, not {target!r}")
    return opts


def _check_layout(layout: dict) -> dict:
    need = {"wild": ("1", "2", "3", "4", "5", STAR), "black": ("1", "2", "3", "4", "5", ZAP)}
    for die, faces in need.items():
        have = layout.get(die) if isinstance(layout, dict) else None
        if not have or any(f not in have for f in faces):
            raise RuleError(
                f"Rollers needs the rollers dice set (die {die} with faces {', '.join(faces)}): "
                "load vision dice set rollers"
            )
    return {die: list(f) for die, f in layout.items()}


def _fresh_turn() -> dict:
    return {"rolls": 0, "saved": [], "last_roll": [], "zapped": False, "step": "roll"}


#: every action of this game and the extra keys it carries (engine.check_event)
ACTION_KEYS: dict[str, tuple[str, ...]] = {"stop": (), "save": ("dice",), "apply": ("stars",)}


def new_game(players: list[str], layout: dict[str, list[str]], options: dict | None = None) -> dict:
    """A new Rollers game waiting for the start roll-off (every player rolls one die).

    >>> layout = {"wild": ["1", "2", "3", "4", "5", "star"],
    ...           "black": ["1", "2", "3", "4", "5", "zap"]}
    >>> s = new_game(["Ann", "Ben", "Cy"], layout, {"target": 3})
    >>> s["chips"], s["boards"][0]
    ([55, 55, 55], ['empty', 'empty', 'empty', 'empty', 'empty'])
    """
    players = check_players(players, TITLE, MIN_PLAYERS, MAX_PLAYERS)
    opts = _options(options)
    n = len(players)
    return {
        **base_state(GAME_ID, players, _check_layout(layout), opts, None),
        "phase": "start",
        "rolloff": rolloff(range(n)),
        "starter": None,
        "chips": [CHIPS] * n,
        "boards": [["empty"] * 5 for _ in range(n)],
        "turn": _fresh_turn(),
        "round_results": [],  # per finished round: closer, points won, chips at its end
        "winner": None,
    }


# ----------------------------------------------------------------------------------- dice


def _value(spec: str) -> int | str:
    """``"wild:3"`` -> 3, ``"wild:star"`` -> "star", ``"black:zap"`` -> "zap"."""
    face = spec.split(":", 1)[1]
    return int(face) if face.isdigit() else face


def _face(spec: str) -> str:
    return spec.split(":", 1)[1]


def _usable(turn: dict) -> list[str]:
    """The dice that would be applied now: saved ones plus the last roll unless it was zapped."""
    return list(turn["saved"]) + ([] if turn["zapped"] else list(turn["last_roll"]))


def _remaining(turn: dict) -> tuple[str, ...]:
    """The die ids still to roll: all six minus the saved ones."""
    left = list(ALL_DICE)
    for spec in turn["saved"]:
        left.remove(spec.split(":", 1)[0])
    return tuple(left)


# ----------------------------------------------------------------------------------- plans


def _outcome(state: dict, seat: int, values: list[int]) -> dict:
    """Apply dice of the given values (stars already valued) the one best way; no mutation."""
    board = list(state["boards"][seat])
    chips = list(state["chips"])
    counts = {k: values.count(k) for k in SECTIONS}
    opened, closed, collect = [], [], {}
    used = 0
    for k in SECTIONS:
        c = counts[k]
        if board[k - 1] == "empty" and c >= k:
            board[k - 1] = "open"
            opened.append(k)
            c -= k
            used += k
        if board[k - 1] == "open" and c >= 1:
            board[k - 1] = "closed"
            closed.append(k)
            c -= 1
            used += 1
        if board[k - 1] == "closed" and c > 0:
            collect[k] = c
    paid = {}
    if chips[seat] > 0:
        for k, n_dice in collect.items():
            for q in range(len(chips)):
                if q == seat or state["boards"][q][k - 1] == "closed":
                    continue
                pay = min(chips[q], n_dice * k)
                if pay:
                    chips[q] -= pay
                    chips[seat] += pay
                    paid[q] = paid.get(q, 0) + pay
    collecting = sum(collect.values()) if chips[seat] > 0 else 0
    return {
        "board": board,
        "chips": chips,
        "opened": opened,
        "closed": closed,
        "collect": {str(k): n for k, n in collect.items()},
        "paid": {str(q): a for q, a in paid.items()},
        "gained": sum(paid.values()),
        "unused": len(values) - used - collecting,
        "complete": all(b == "closed" for b in board),
    }


def _rank(out: dict) -> tuple:
    steps = len(out["opened"]) + len(out["closed"])
    weight = sum(out["opened"]) + sum(out["closed"])
    return (out["complete"], steps, out["gained"], weight)


def _plans(state: dict, seat: int, dice: list[str]) -> list[tuple[list[int], dict]]:
    """Every distinct outcome of applying ``dice``: [(star values, outcome)], best first."""
    values = [v for v in map(_value, dice) if isinstance(v, int)]
    stars = sum(1 for v in map(_value, dice) if v == STAR)
    seen, plans = set(), []
    for star_values in combinations_with_replacement(SECTIONS, stars):
        out = _outcome(state, seat, values + list(star_values))
        key = (tuple(out["board"]), tuple(out["chips"]))
        if key in seen:
            continue
        seen.add(key)
        plans.append((list(star_values), out))
    plans.sort(key=lambda p: _rank(p[1]), reverse=True)  # stable: lower star values first
    return plans


def _describe(state: dict, stars: list[int], out: dict) -> str:
    parts = []
    if stars:
        parts.append("STAR" + ("s" if len(stars) > 1 else "") + " as " + ", ".join(map(str, stars)))
    if out["opened"]:
        parts.append("open " + ", ".join(f"{k}s" for k in out["opened"]))
    if out["closed"]:
        parts.append("close " + ", ".join(f"{k}s" for k in out["closed"]))
    if out["gained"]:
        who = ", ".join(f"{a} from {state['players'][int(q)]}" for q, a in out["paid"].items())
        parts.append(f"collect {out['gained']} chips ({who})")
    if not parts or (stars and len(parts) == 1):
        parts.append("nothing to apply")
    return "; ".join(parts)


# ----------------------------------------------------------------------------------- saving


def _save_sets(last_roll: list[str]) -> list[list[int]]:
    """Every distinct save set of the last roll (same faces are interchangeable), as indices,
    except saving all of it (that is ``stop``); the empty set first."""
    by_face: dict[str, list[int]] = {}
    for i, spec in enumerate(last_roll):
        by_face.setdefault(spec, []).append(i)
    groups = list(by_face.values())
    sets: list[list[int]] = [[]]
    for idx in groups:
        sets = [s + idx[:n] for s in sets for n in range(len(idx) + 1)]
    sets = [sorted(s) for s in sets if len(s) < len(last_roll)]
    sets.sort(key=lambda s: (len(s), s))
    return sets


def _canonical(last_roll: list[str], indices: list[int]) -> list[int]:
    """The canonical save set (first indices of each face) holding the same faces."""
    want: dict[str, int] = {}
    for i in indices:
        want[last_roll[i]] = want.get(last_roll[i], 0) + 1
    out = []
    for i, spec in enumerate(last_roll):
        if want.get(spec, 0) > 0:
            out.append(i)
            want[spec] -= 1
    return out


def _default_save(state: dict, seat: int) -> list[int] | None:
    """The dice of the last roll the default keeps (indices), or None for ``stop``."""
    turn = state["turn"]
    roll = turn["last_roll"]
    plans = _plans(state, seat, _usable(turn))
    if plans and plans[0][1]["complete"]:
        return None  # these dice already close the whole board
    if turn["zapped"]:
        return []
    values = [_value(s) for s in roll]
    keep = _keep_for_sections(state, seat, values, [_value(s) for s in turn["saved"]])
    keep.update(i for i, v in enumerate(values) if v == STAR)
    black = [i for i, s in enumerate(roll) if s.startswith("black:")]
    if black and black[0] not in keep and len(roll) - len(keep) - 1 >= 3:
        keep.add(black[0])
    if len(keep) == len(roll):
        return None
    return _canonical(roll, sorted(keep))


def _keep_for_sections(state: dict, seat: int, values: list, saved_values: list) -> set[int]:
    """The dice of the last roll (its ``values``) the default keeps for the board's sections:
    what collects chips, what opens a section not yet saved, and for the empty sections the
    dice of the most promising one (and of any already reached)."""
    board = state["boards"][seat]
    chips = state["chips"]
    n = len(chips)

    def collect_pays(k: int) -> bool:
        return chips[seat] > 0 and any(
            q != seat and state["boards"][q][k - 1] != "closed" and chips[q] > 0 for q in range(n)
        )

    keep = set()
    empty_have = {}
    for k in SECTIONS:
        idx = [i for i, v in enumerate(values) if v == k]
        if not idx:
            continue
        state_k = board[k - 1]
        if state_k == "closed":
            if collect_pays(k):
                keep.update(idx)
        elif state_k == "open":
            if collect_pays(k):
                keep.update(idx)
            elif k not in saved_values:
                keep.add(idx[0])
        else:
            empty_have[k] = (idx, saved_values.count(k) + len(idx))
    if empty_have:
        target = max(empty_have, key=lambda k: (empty_have[k][1] / k, k))
        for k, (idx, have) in empty_have.items():
            if k == target or have >= k:
                extra = collect_pays(k)
                room = max(0, k + 1 - saved_values.count(k))
                keep.update(idx if extra else idx[:room])
    return keep


def _save_label(roll: list[str], indices: list[int]) -> str:
    left = len(roll) - len(indices)
    if not indices:
        return f"roll all {left} again"
    faces = ", ".join(
        _face(roll[i]).upper() if not _face(roll[i]).isdigit() else _face(roll[i]) for i in indices
    )
    return f"save {faces}; roll {left}"


# ----------------------------------------------------------------------------------- expect


def expect(state: dict) -> Expect:
    """What the state waits for: a roll (start, or the dice not saved), a save/stop choice,
    or how to apply the dice.

    >>> layout = {"wild": ["1", "2", "3", "4", "5", "star"],
    ...           "black": ["1", "2", "3", "4", "5", "zap"]}
    >>> e = expect(new_game(["Ann", "Ben"], layout))
    >>> e.prompt, e.roll.choose_from, e.roll.count
    ('Start: Ann, roll one die (high roller goes first)', ('wild', 'black'), 1)
    """
    detail = _detail(state)
    if state["finished"]:
        win = state["winner"]
        if isinstance(win, list):
            prompt = f"Game over: {and_list(win)} share the win"
        else:
            prompt = f"Game over: {win} wins"
        return Expect(prompt=prompt, finished=True, detail=detail)
    seat = state["active"]
    name = state["players"][seat]
    if state["phase"] == "start":
        return _expect_start(state, name, detail)
    turn = state["turn"]
    if turn["step"] == "roll":
        return _expect_roll(state, name, detail)
    if turn["step"] == "save":
        return _expect_save(state, name, detail)
    plans = _plans(state, seat, _usable(turn))
    choices = tuple(
        {"type": "action", "player": seat, "action": "apply", "stars": stars} for stars, _ in plans
    )
    detail["labels"] = [_describe(state, stars, out) for stars, out in plans]
    detail["plans"] = [out for _, out in plans]
    return Expect(
        prompt=f"{name}: choose the values of the STARs and how to apply the dice",
        decisions=(Decision(player=seat, actions=("apply",), choices=choices, default=choices[0]),),
        detail=detail,
    )


def _expect_start(state: dict, name: str, detail: dict) -> Expect:
    """One die rolled by the active player of the roll-off for who goes first."""
    seat = state["active"]
    again = state["rolloff"]["pass"] > 1
    prompt = (
        f"Tie for first: {name}, roll one die again"
        if again
        else f"Start: {name}, roll one die (high roller goes first)"
    )
    return Expect(
        prompt=prompt,
        roll=RollSpec(
            roller=seat,
            count=1,
            dice_set=DICE_SET,
            choose_from=("wild", "black"),
            purpose="start",
        ),
        detail=detail,
    )


def _expect_roll(state: dict, name: str, detail: dict) -> Expect:
    """The dice not saved, rolled by the active player."""
    seat, turn = state["active"], state["turn"]
    dice = _remaining(turn)
    number = turn["rolls"] + 1
    what = (
        "all six dice"
        if len(dice) == 6
        else ("the last die" if len(dice) == 1 else f"the {len(dice)} dice not saved")
    )
    return Expect(
        prompt=f"{name}: roll {what} (roll {number} of {ROLLS_PER_TURN})",
        roll=RollSpec(
            roller=seat,
            count=len(dice),
            dice_set=DICE_SET,
            dice=dice,
            purpose="turn" if number == 1 else "reroll",
        ),
        detail=detail,
    )


def _expect_save(state: dict, name: str, detail: dict) -> Expect:
    """The active player saves some dice of the last roll (and rolls the rest), or stops."""
    seat, turn = state["active"], state["turn"]
    roll = turn["last_roll"]
    sets = [[]] if turn["zapped"] else _save_sets(roll)
    choices = [{"type": "action", "player": seat, "action": "save", "dice": s} for s in sets]
    labels = [_save_label(roll, s) for s in sets]
    choices.append({"type": "action", "player": seat, "action": "stop"})
    labels.append("stop and apply the dice" if _usable(turn) else "stop (no dice to apply)")
    best = _default_save(state, seat)
    default = choices[-1] if best is None else choices[sets.index(best)]
    detail["labels"] = labels
    if turn["zapped"]:
        prompt = f"ZAP! Nothing from that roll counts. {name}: roll {len(roll)} again or stop"
    else:
        prompt = f"{name}: choose the dice to save and roll the rest, or stop"
    return Expect(
        prompt=prompt,
        decisions=(
            Decision(
                player=seat, actions=("save", "stop"), choices=tuple(choices), default=default
            ),
        ),
        detail=detail,
    )


def _detail(state: dict) -> dict:
    turn = state["turn"]
    return {
        "phase": state["phase"],
        "boards": [list(b) for b in state["boards"]],
        "chips": list(state["chips"]),
        "points": list(state["scores"]),
        "rolls": turn["rolls"],
        "saved": list(turn["saved"]),
        "last_roll": list(turn["last_roll"]),
        "zapped": turn["zapped"],
        "starter": state["starter"],
    }


# ----------------------------------------------------------------------------------- apply


def apply(state: dict, event: dict) -> dict:
    """The state after ``event`` (a roll, or a save / stop / apply action); ``state`` is not
    changed. Raises RuleError, with a sentence for the table, for an event not awaited.

    >>> from tray.rules import engine
    >>> layout = {"wild": ["1", "2", "3", "4", "5", "star"],
    ...           "black": ["1", "2", "3", "4", "5", "zap"]}
    >>> s = new_game(["Ann", "Ben"], layout)
    >>> apply(s, engine.roll("wild:1", "wild:2"))
    Traceback (most recent call last):
    ...
    tray.rules.engine.RuleError: 2 dice seen: roll 1
    """
    check_event(event, ACTION_KEYS)
    exp = expect(state)
    decision = awaited(exp, event, state["players"], "{name} rolls first")
    if decision is None:  # a roll
        dice = roll_dice(event)
        check_roll(exp.roll, dice, state["layout"])
        specs = [f"{d}:{f}" for d, f in dice]
        new = copy_state(state)
        if new["phase"] == "start":
            _rolloff_roll(new, specs[0])
        else:
            _turn_roll(new, specs)
        return new
    name = event["action"]
    new = copy_state(state)
    turn = new["turn"]
    if name == "stop":
        new["last"] = {"kind": "stop", "player": decision.player, "rolls": turn["rolls"]}
        _to_apply(new)
    elif name == "save":
        _save(new, decision.player, event.get("dice"))
    else:
        _apply_stars(new, event.get("stars"))
    return new


def _save(new: dict, player: int, indices) -> None:
    """Saves the dice of the last roll at ``indices`` (checked) and waits for the rest to be
    rolled."""
    turn = new["turn"]
    roll = turn["last_roll"]
    if (
        not isinstance(indices, list)
        or any(isinstance(i, bool) or not isinstance(i, int) for i in indices)
        or any(not 0 <= i < len(roll) for i in indices)
        or len(set(indices)) != len(indices)
    ):
        raise RuleError(
            f"Choose the dice to save by their places in the last roll, 0 to {len(roll) - 1}"
        )
    if turn["zapped"] and indices:
        raise RuleError("ZAP: no die of that roll can be saved. Roll them again or stop")
    if len(indices) == len(roll):  # not a save expect() offers: nothing left to roll
        raise RuleError("Saving every die is stopping: choose stop to apply the dice")
    saved = [roll[i] for i in sorted(indices)]
    turn["saved"] += saved
    new["last"] = {
        "kind": "save",
        "player": player,
        "saved": saved,
        "rolls": turn["rolls"],
    }
    turn["last_roll"] = []
    turn["zapped"] = False
    turn["step"] = "roll"


def _apply_stars(new: dict, stars) -> None:
    """Applies the usable dice with the STARs valued ``stars`` (checked)."""
    usable = _usable(new["turn"])
    n_stars = sum(1 for s in usable if _value(s) == STAR)
    if (
        not isinstance(stars, list)
        or len(stars) != n_stars
        or any(isinstance(v, bool) or v not in SECTIONS for v in stars)
    ):
        raise RuleError(
            f"Give each STAR a value from 1 to 5: {n_stars} STAR"
            f"{'s' if n_stars != 1 else ''} to value"
        )
    _apply_dice(new, sorted(stars), chosen=True)


def _rolloff_roll(s: dict, spec: str) -> None:
    value = _value(spec)
    total = 6 if value in (STAR, ZAP) else value
    seat, top = rolloff_roll(s, total)
    s["last"] = {"kind": "start_roll", "player": seat, "dice": [spec], "total": total}
    if not top:  # others still roll
        return
    if len(top) > 1:
        s["last"]["kind"] = "start_tie"
        s["last"]["tied"] = top
        return
    s["phase"] = "turn"
    s["starter"] = s["active"] = top[0]
    s["turn"] = _fresh_turn()
    s["last"]["kind"] = "first"
    s["last"]["first"] = top[0]


def _turn_roll(s: dict, specs: list[str]) -> None:
    turn = s["turn"]
    turn["rolls"] += 1
    turn["last_roll"] = specs
    turn["zapped"] = any(_value(x) == ZAP for x in specs)
    seat = s["active"]
    s["last"] = {
        "kind": "zap" if turn["zapped"] else "roll",
        "player": seat,
        "dice": specs,
        "roll_number": turn["rolls"],
    }
    if turn["rolls"] >= ROLLS_PER_TURN:
        _to_apply(s)
    else:
        turn["step"] = "save"


def _to_apply(s: dict) -> None:
    """Apply now if only one outcome is possible, else wait for the player's plan."""
    seat = s["active"]
    turn = s["turn"]
    plans = _plans(s, seat, _usable(turn))
    if len(plans) == 1:
        _apply_dice(s, plans[0][0], chosen=False)
    else:
        turn["step"] = "apply"


def _apply_dice(s: dict, stars: list[int], chosen: bool) -> None:
    seat = s["active"]
    turn = s["turn"]
    dice = _usable(turn)
    values = [v for v in map(_value, dice) if isinstance(v, int)] + list(stars)
    out = _outcome(s, seat, values)
    previous = s["last"]
    s["boards"][seat] = out["board"]
    s["chips"] = out["chips"]
    s["last"] = {
        "kind": "apply",
        "player": seat,
        "dice": dice,
        "stars": list(stars),
        "chosen": chosen,
        "opened": out["opened"],
        "closed": out["closed"],
        "collect": out["collect"],
        "paid": out["paid"],
        "gained": out["gained"],
        "unused": out["unused"],
        "text": _describe(s, list(stars), out),
    }
    if not chosen and previous and previous.get("kind") == "zap":
        s["last"]["zap"] = True  # the third roll was a ZAP: only the saved dice counted
    if out["complete"]:
        _end_round(s, seat)
        return
    s["active"] = (seat + 1) % len(s["players"])
    s["turn"] = _fresh_turn()


def _end_round(s: dict, closer: int) -> None:
    n = len(s["players"])
    chips = list(s["chips"])
    won = [0] * n
    won[closer] += 2 if chips[closer] > 0 else 1
    top = max(chips)
    for p in range(n):
        if chips[p] == top:
            won[p] += 1
    for p in range(n):
        s["scores"][p] += won[p]
    result = {"round": s["round"], "closer": closer, "points": won, "chips": chips}
    s["round_results"].append(result)
    s["last"]["round_over"] = True
    s["last"]["round_end"] = result
    target = s["options"]["target"]
    reached = [p for p in range(n) if s["scores"][p] >= target]
    if reached:
        best = max(chips[p] for p in reached)
        names = [s["players"][p] for p in reached if chips[p] == best]
        s["winner"] = names[0] if len(names) == 1 else names
        s["finished"] = True
        s["phase"] = "over"
        s["active"] = None
        s["last"]["game_over"] = True
        return
    s["round"] += 1
    s["boards"] = [["empty"] * 5 for _ in range(n)]
    s["chips"] = [CHIPS] * n
    s["starter"] = (s["starter"] - 1) % n  # to the right of the last round's starter
    s["active"] = s["starter"]
    s["turn"] = _fresh_turn()


# ----------------------------------------------------------------------------------- summary


def summary(state: dict) -> dict:
    """The replay JSON: names and points, round, who is active, the winner, and the boards,
    chips and points of every player (chips at the end for a finished game).

    >>> layout = {"wild": ["1", "2", "3", "4", "5", "star"],
    ...           "black": ["1", "2", "3", "4", "5", "zap"]}
    >>> summary(new_game(["Ann", "Ben"], layout))["chips"]
    {'Ann': 55, 'Ben': 55}
    """
    players = state["players"]
    return {
        **summary_base(state, state["winner"]),
        "boards": {
            p: {str(k): b[k - 1] for k in SECTIONS}
            for p, b in zip(players, state["boards"], strict=True)
        },
        "chips": dict(zip(players, state["chips"], strict=True)),
        "points": dict(zip(players, state["scores"], strict=True)),
        "round_results": [dict(r) for r in state["round_results"]],
    }


def facts(state: dict) -> Facts:
    """What everyone may see: everyone's chips, and the active player's board (sections 1 to
    5: closed, open).

    >>> layout = {"wild": ["1", "2", "3", "4", "5", "star"],
    ...           "black": ["1", "2", "3", "4", "5", "zap"]}
    >>> f = facts(new_game(["Ann", "Ben"], layout))
    >>> f.figures, f.status, f.sheet[0]
    ((('Chips', 55),), {0: '55 chips', 1: '55 chips'}, ('1', False, False))
    """
    a = state["active"]
    figures: tuple[tuple[str, int | str], ...] = ()
    sheet: tuple[tuple[str, bool, bool], ...] = ()
    if a is not None:
        figures = (("Chips", state["chips"][a]),)
        sheet = tuple(
            (str(k), v == "closed", v == "open")
            for k, v in zip(SECTIONS, state["boards"][a], strict=True)
        )
    return Facts(
        figures=figures,
        status={p: f"{c} chips" for p, c in enumerate(state["chips"])},
        sheet=sheet,
        **last_move(state),
    )
