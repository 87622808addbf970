"""DICEDOUT! (Yahweh Game, LLC): roll two dice, mark the sum, lowest total after four rounds wins.

Readings: ``tray/rules/RULES.md`` section 4 (#4-dicedout). Two standard d6
(die id ``d6``, faces ``1``..``6``). Each player's score sheet lists, for every round, the sums
2..12; the two-circle (••) numbers are an option (default 2 and 12), and every player has three
rerolls per round (option).

How a game runs (seat 0 is the first player in the list; play goes to the left = clockwise =
to the next seat number):

* Start roll-off: every player rolls both dice (``RollSpec.roller`` = the seat, purpose
  ``"start"``); the highest total goes first; players tied for the highest roll again, alone.
* A turn: the active player rolls both dice (purpose ``"turn"``). An unmarked sum is marked
  and the turn ends. A sum already marked uses one reroll automatically and the same player
  rolls again (purpose ``"reroll"``); with no reroll left the player is DICEDOUT! for the
  round: the round score is the sum of the unmarked numbers, no more turns this round.
* Rolling a •• number (unmarked) marks it, then the player marks one more unmarked number of
  their choice: ``action(p, "mark", number=n)``; the suggested default is the highest
  unmarked number. (A number marked this way gives no further bonus, even when it is a ••
  number: the rulebook gives the bonus for *rolling* it.) When exactly one number is left
  unmarked there is nothing to choose and it is marked at once.
* Marking every number ends the player's round with 0 points.
* The round ends when every player is DICEDOUT! or complete. The lowest round score starts
  the next round and picks another player to lose one reroll in it:
  ``action(p, "penalize", target=q)`` (default: the other player with the lowest game total,
  i.e. the leader; with two players there is no choice and it happens at once). Players tied
  for the lowest round score roll both dice (purpose ``"tiebreak"``), highest total wins, ties
  roll again among the tied.
* After the last round (option ``rounds``, default 4) the lowest total wins; a tie is a
  shared win (``winner`` is a list of names).

>>> from tray.rules import engine
>>> s = new_game(["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]})
>>> s = apply(s, engine.roll("d6:6", "d6:5"))     # Ann's start roll: 11
>>> s = apply(s, engine.roll("d6:1", "d6:2"))     # Ben's: 3, Ann goes first
>>> expect(s).prompt
'Ann: roll both dice'
>>> s = apply(s, engine.roll("d6:3", "d6:4"))     # Ann marks 7
>>> s["marks"][0], expect(s).prompt
([7], 'Ben: roll both dice')
"""

from __future__ import annotations

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
    winners,
    with_options,
)

GAME_ID = "diced-out"
TITLE = "DICEDOUT!"
DICE_SET = "d6"
MIN_PLAYERS = 2
# The rulebook gives no player limit. Eight keeps every player's sheet readable on the 800x480
# screen and matches a comfortable row of push buttons; two dice and one sheet a player would
# allow more, but a round with more players gets long (every player needs several turns).
MAX_PLAYERS = 8
LOWEST_WINS = True  # the lowest game total wins
OPTIONS = {
    "circled": [2, 12],  # the •• numbers of the score sheet (RULES.md 4: proposal, option)
    "rerolls": 3,  # rerolls per player per round
    "rounds": 4,
}

NUMBERS = tuple(range(2, 13))
DICE = ("d6", "d6")
FACES = ("1", "2", "3", "4", "5", "6")


# ----------------------------------------------------------------------------------- set-up


def _options(options: dict | None) -> dict:
    opts = with_options(OPTIONS, options, TITLE)
    circled = opts["circled"]
    if (
        not isinstance(circled, (list, tuple))
        or any(isinstance(n, bool) or not isinstance(n, int) or n not in NUMBERS for n in circled)
        or len(set(circled)) != len(circled)
    ):
        raise RuleError("circled must be a list of different numbers from 2 to 12, like [2, 12]")
    opts["circled"] = sorted(circled)
    for key, low, high in (("rerolls", 0, 10), ("rounds", 1, 20)):
        value = opts[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise RuleError(f"{key} must be a whole number from {low} to {high}, not {value!r}")
    return opts


def _check_layout(layout: dict) -> dict:
    faces = layout.get("d6") if isinstance(layout, dict) else None
    if not faces or any(f not in faces for f in FACES):
        raise RuleError(
            "DICEDOUT! needs the d6 dice set (die d6 with faces 1 to 6): load vision dice set d6"
        )
    return {die: list(f) for die, f in layout.items()}


#: every action of this game and the extra keys it carries (engine.check_event)
ACTION_KEYS: dict[str, tuple[str, ...]] = {"mark": ("number",), "penalize": ("target",)}


def new_game(players: list[str], layout: dict[str, list[str]], options: dict | None = None) -> dict:
    """A new DICEDOUT! game waiting for the start roll-off (every player rolls both dice).

    >>> s = new_game(["Ann", "Ben", "Cy"], {"d6": ["1", "2", "3", "4", "5", "6"]}, {"rounds": 2})
    >>> s["phase"], s["active"], s["options"]["rounds"]
    ('start', 0, 2)
    """
    players = check_players(players, TITLE, MIN_PLAYERS, MAX_PLAYERS)
    opts = _options(options)
    n = len(players)
    return {
        **base_state(GAME_ID, players, _check_layout(layout), opts, None),
        "phase": "start",
        # a roll-off (start or tie for the lowest round score): who is in it, who still rolls
        # in this pass, and the totals rolled in this pass
        "rolloff": rolloff(range(n)),
        "starter": None,
        "marks": [[] for _ in range(n)],
        "rerolls": [opts["rerolls"]] * n,
        "out": [None] * n,  # None (still playing the round), "diced_out" or "complete"
        "round_scores": [[] for _ in range(n)],
        "in_turn": False,  # True while the active player rolls again after a marked sum
        "lose_reroll": None,  # the seat that loses a reroll in the coming round
        "chooser": None,  # the seat that starts the next round and picks who loses a reroll
    }


# ----------------------------------------------------------------------------------- helpers


def _unmarked(state: dict, seat: int) -> list[int]:
    return [n for n in NUMBERS if n not in state["marks"][seat]]


def _round_score(state: dict, seat: int) -> int:
    return sum(_unmarked(state, seat))


def _next_player(state: dict, seat: int) -> int | None:
    """The next seat to the left still playing this round (None if everyone is done)."""
    n = len(state["players"])
    for step in range(1, n + 1):
        p = (seat + step) % n
        if state["out"][p] is None:
            return p
    return None


def _penalty_default(state: dict, chooser: int) -> int:
    others = [p for p in range(len(state["players"])) if p != chooser]
    n = len(state["players"])
    # the leader (lowest game total); ties: the first to the chooser's left
    return min(others, key=lambda p: (state["scores"][p], (p - chooser) % n))


def _name(state: dict, seat: int) -> str:
    return state["players"][seat]


# ----------------------------------------------------------------------------------- expect


def expect(state: dict) -> Expect:
    """What the state waits for: a roll of both dice, an extra mark, or who loses a reroll.

    >>> s = new_game(["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]})
    >>> e = expect(s)
    >>> e.prompt, e.roll.dice, e.roll.purpose
    ('Start: Ann, roll both dice (highest total goes first)', ('d6', 'd6'), 'start')
    """
    detail = _detail(state)
    if state["finished"]:
        win = winners(state["scores"], state["players"], highest=False)
        best = min(state["scores"])
        if isinstance(win, list):
            prompt = f"Game over: {and_list(win)} share the win with {best}"
        else:
            prompt = f"Game over: {win} wins with {best}"
        return Expect(prompt=prompt, finished=True, detail=detail)
    phase = state["phase"]
    seat = state["active"]
    name = _name(state, seat)
    if phase in ("start", "tiebreak"):
        return _expect_rolloff(state, phase, name, detail)
    if phase == "turn":
        last = state["last"] or {}
        if state["in_turn"] and last.get("kind") == "reroll":
            left = state["rerolls"][seat]
            prompt = f"{name} rolled a marked {last['sum']}: reroll ({left} left)"
            purpose = "reroll"
        else:
            prompt = f"{name}: roll both dice"
            purpose = "turn"
        return Expect(
            prompt=prompt,
            roll=RollSpec(roller=seat, count=2, dice_set=DICE_SET, dice=DICE, purpose=purpose),
            detail=detail,
        )
    if phase == "bonus":
        return _expect_bonus(state, name, detail)
    if phase == "penalty":
        return _expect_penalty(state, name, detail)
    raise AssertionError(f"unknown phase {phase!r}")  # pragma: no cover


def _expect_rolloff(state: dict, phase: str, name: str, detail: dict) -> Expect:
    """Both dice rolled by the active player of a roll-off: who starts the game ("start")
    or the next round ("tiebreak")."""
    seat = state["active"]
    rerolling = state["rolloff"]["pass"] > 1
    if phase == "start":
        why = "highest total goes first"
        prompt = (
            f"Tie for first: {name}, roll both dice again"
            if rerolling
            else f"Start: {name}, roll both dice ({why})"
        )
    else:
        prompt = (
            f"Tie for the lowest round score: {name}, roll both dice "
            f"(highest total starts round {state['round'] + 1})"
        )
        if rerolling:
            prompt = f"Still tied: {name}, roll both dice again"
    return Expect(
        prompt=prompt,
        roll=RollSpec(roller=seat, count=2, dice_set=DICE_SET, dice=DICE, purpose=phase),
        detail=detail,
    )


def _expect_bonus(state: dict, name: str, detail: dict) -> Expect:
    """The active player chooses one more number to mark (a roll of ••)."""
    seat = state["active"]
    numbers = sorted(_unmarked(state, seat), reverse=True)
    choices = tuple(
        {"type": "action", "player": seat, "action": "mark", "number": n} for n in numbers
    )
    detail["labels"] = [f"mark {n}" for n in numbers]
    rolled = (state["last"] or {}).get("sum")
    return Expect(
        prompt=f"{name} rolled {rolled} (••): choose one more number to mark",
        decisions=(Decision(player=seat, actions=("mark",), choices=choices, default=choices[0]),),
        detail=detail,
    )


def _expect_penalty(state: dict, name: str, detail: dict) -> Expect:
    """The round's starter chooses who loses a reroll."""
    seat = state["active"]
    others = [p for p in range(len(state["players"])) if p != seat]
    choices = tuple(
        {"type": "action", "player": seat, "action": "penalize", "target": p} for p in others
    )
    detail["labels"] = [f"{_name(state, p)} loses a reroll" for p in others]
    default = choices[others.index(_penalty_default(state, seat))]
    return Expect(
        prompt=(f"{name} starts round {state['round'] + 1}: choose a player to lose one reroll"),
        decisions=(Decision(player=seat, actions=("penalize",), choices=choices, default=default),),
        detail=detail,
    )


def _detail(state: dict) -> dict:
    return {
        "phase": state["phase"],
        "marks": [sorted(m) for m in state["marks"]],
        "unmarked_total": [_round_score(state, p) for p in range(len(state["players"]))],
        "rerolls": list(state["rerolls"]),
        "out": list(state["out"]),
        "round_scores": [list(r) for r in state["round_scores"]],
        "circled": list(state["options"]["circled"]),
        "lose_reroll": state["lose_reroll"],
    }


# ----------------------------------------------------------------------------------- apply


def apply(state: dict, event: dict) -> dict:
    """The state after ``event`` (a roll of both dice or an action); ``state`` is not changed.

    Raises RuleError, with a sentence for the table, for an event the state does not wait for.

    >>> from tray.rules import engine
    >>> s = new_game(["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]})
    >>> apply(s, engine.action(0, "mark", number=5))
    Traceback (most recent call last):
    ...
    tray.rules.engine.RuleError: No choice now: Ann, roll both dice
    """
    check_event(event, ACTION_KEYS)
    exp = expect(state)
    decision = awaited(exp, event, state["players"], "{name}, roll both dice")
    if decision is None:  # a roll
        dice = roll_dice(event)
        if len(dice) != 2:
            raise RuleError(
                f"{len(dice)} {'die' if len(dice) == 1 else 'dice'} seen: roll both dice"
            )
        check_roll(exp.roll, dice, state["layout"])
        total = sum(int(face) for _, face in dice)
        new = copy_state(state)
        if new["phase"] in ("start", "tiebreak"):
            _rolloff_roll(new, [f"{d}:{f}" for d, f in dice], total)
        else:
            _turn_roll(new, [f"{d}:{f}" for d, f in dice], total)
        return new
    new = copy_state(state)
    if event["action"] == "mark":
        number = event.get("number")
        if number not in _unmarked(state, decision.player) or isinstance(number, bool):
            raise RuleError(
                f"{number!r} cannot be marked: choose an unmarked number from "
                f"{', '.join(map(str, _unmarked(state, decision.player)))}"
            )
        _bonus_mark(new, decision.player, number, auto=False)
    else:
        target = event.get("target")
        n = len(state["players"])
        if (
            isinstance(target, bool)
            or not isinstance(target, int)
            or not 0 <= target < n
            or target == decision.player
        ):
            raise RuleError("Choose another player (not yourself) to lose one reroll")
        _penalize(new, decision.player, target, auto=False)
    return new


def _rolloff_roll(s: dict, dice: list[str], total: int) -> None:
    seat, top = rolloff_roll(s, total)
    phase = s["phase"]
    s["last"] = {"kind": f"{phase}_roll", "player": seat, "dice": dice, "total": total}
    if not top:  # others still roll
        return
    if len(top) > 1:
        s["last"] = {
            "kind": f"{phase}_tie",
            "player": seat,
            "dice": dice,
            "total": total,
            "tied": top,
        }
        return
    winner = top[0]
    if phase == "start":
        s["last"] = {"kind": "first", "player": seat, "dice": dice, "total": total, "first": winner}
        s["starter"] = winner
        s["active"] = winner
        s["phase"] = "turn"
    else:
        s["last"] = {
            "kind": "tiebreak_won",
            "player": seat,
            "dice": dice,
            "total": total,
            "starter": winner,
        }
        _start_penalty(s, winner)


def _turn_roll(s: dict, dice: list[str], total: int) -> None:
    seat = s["active"]
    if total in s["marks"][seat]:
        if s["rerolls"][seat] > 0:
            s["rerolls"][seat] -= 1
            s["in_turn"] = True
            s["last"] = {
                "kind": "reroll",
                "player": seat,
                "dice": dice,
                "sum": total,
                "left": s["rerolls"][seat],
            }
            return
        score = _round_score(s, seat)
        s["out"][seat] = "diced_out"
        s["round_scores"][seat].append(score)
        s["last"] = {
            "kind": "diced_out",
            "player": seat,
            "dice": dice,
            "sum": total,
            "score": score,
        }
        _end_turn(s)
        return
    s["marks"][seat].append(total)
    s["marks"][seat].sort()
    s["in_turn"] = False
    s["last"] = {"kind": "mark", "player": seat, "dice": dice, "sum": total, "number": total}
    if total in s["options"]["circled"]:
        s["last"]["kind"] = "double_circle"
        left = _unmarked(s, seat)
        if len(left) > 1:
            s["phase"] = "bonus"
            return
        if len(left) == 1:
            _bonus_mark(s, seat, left[0], auto=True)
            return
    _after_mark(s, seat)


def _bonus_mark(s: dict, seat: int, number: int, auto: bool) -> None:
    rolled = (s["last"] or {}).get("sum")
    dice = (s["last"] or {}).get("dice")
    s["marks"][seat].append(number)
    s["marks"][seat].sort()
    s["phase"] = "turn"
    s["last"] = {
        "kind": "bonus_mark",
        "player": seat,
        "dice": dice,
        "sum": rolled,
        "number": number,
        "auto": auto,
    }
    _after_mark(s, seat)


def _after_mark(s: dict, seat: int) -> None:
    if not _unmarked(s, seat):
        s["out"][seat] = "complete"
        s["round_scores"][seat].append(0)
        s["last"]["complete"] = True
    _end_turn(s)


def _end_turn(s: dict) -> None:
    s["in_turn"] = False
    nxt = _next_player(s, s["active"])
    if nxt is not None:
        s["active"] = nxt
        return
    _end_round(s)


def _end_round(s: dict) -> None:
    n = len(s["players"])
    this_round = [s["round_scores"][p][-1] for p in range(n)]
    for p in range(n):
        s["scores"][p] += this_round[p]
    low = min(this_round)
    lowest = [p for p in range(n) if this_round[p] == low]
    s["last"]["round_end"] = {"round": s["round"], "scores": this_round, "lowest": lowest}
    s["last"]["round_over"] = True
    if s["round"] >= s["options"]["rounds"]:
        s["finished"] = True
        s["phase"] = "over"
        s["active"] = None
        s["last"]["game_over"] = True
        return
    if len(lowest) > 1:
        s["phase"] = "tiebreak"
        s["rolloff"] = rolloff(lowest)
        s["active"] = lowest[0]
        return
    _start_penalty(s, lowest[0])


def _start_penalty(s: dict, chooser: int) -> None:
    s["chooser"] = chooser
    s["active"] = chooser
    s["phase"] = "penalty"
    others = [p for p in range(len(s["players"])) if p != chooser]
    if len(others) == 1:
        _penalize(s, chooser, others[0], auto=True)


def _penalize(s: dict, chooser: int, target: int, auto: bool) -> None:
    n = len(s["players"])
    previous = s["last"]
    s["lose_reroll"] = target
    s["round"] += 1
    s["marks"] = [[] for _ in range(n)]
    s["rerolls"] = [s["options"]["rerolls"]] * n
    s["rerolls"][target] = max(0, s["rerolls"][target] - 1)
    s["out"] = [None] * n
    s["in_turn"] = False
    s["starter"] = chooser
    s["active"] = chooser
    s["chooser"] = None
    s["phase"] = "turn"
    s["last"] = {
        "kind": "penalty",
        "player": chooser,
        "target": target,
        "auto": auto,
        "round": s["round"],
    }
    if auto and previous:
        s["last"]["before"] = previous  # what led here (the round end or the tie-break roll)
        if "round_end" in previous:
            s["last"]["round_end"] = previous["round_end"]


# ----------------------------------------------------------------------------------- summary


def summary(state: dict) -> dict:
    """The replay JSON: names, game totals, round, who is active, the winner (lowest total),
    and the sheets (marks, rerolls left, round scores).

    >>> s = new_game(["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]})
    >>> summary(s)["players"]
    [{'name': 'Ann', 'score': 0}, {'name': 'Ben', 'score': 0}]
    """
    players = state["players"]
    return {
        **summary_base(state, winners(state["scores"], players, highest=False)),
        "marks": {p: sorted(m) for p, m in zip(players, state["marks"], strict=True)},
        "rerolls": dict(zip(players, state["rerolls"], strict=True)),
        "round_scores": {p: list(r) for p, r in zip(players, state["round_scores"], strict=True)},
    }


def facts(state: dict) -> Facts:
    """What everyone may see: each player's rerolls or how their round ended, and the active
    player's sheet (2 to 12: marked, circled) with its unmarked total.

    >>> s = new_game(["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]})
    >>> f = facts(s)
    >>> f.figures, f.status, len(f.sheet)
    ((('Unmarked', 77), ('Rerolls', 3)), {0: '3 rerolls', 1: '3 rerolls'}, 11)
    """
    words = {"diced_out": "DICEDOUT!", "complete": "complete"}
    status = {
        p: words.get(out) or f"{state['rerolls'][p]} rerolls" for p, out in enumerate(state["out"])
    }
    a = state["active"]
    figures: tuple[tuple[str, int | str], ...] = ()
    sheet: tuple[tuple[str, bool, bool], ...] = ()
    if a is not None:
        figures = (("Unmarked", _round_score(state, a)), ("Rerolls", state["rerolls"][a]))
        circled = set(state["options"]["circled"])
        sheet = tuple((str(k), k in state["marks"][a], k in circled) for k in NUMBERS)
    return Facts(figures=figures, status=status, sheet=sheet, **last_move(state))
