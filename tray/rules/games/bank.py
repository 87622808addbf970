"""Bank: a shared running total, two pip dice, and the nerve to bank before someone rolls a 7.

The rules engine for Bank (readings: ``tray/rules/RULES.md`` section 3, #3-bank), to the
interface of ``tray/rules/engine.py``. Pure and deterministic: a state is plain data, ``apply``
returns a new state and never changes its input.

How a round goes:

- Players roll two ``d6`` dice in turn; the roller rotates after every roll among the players who
  have not banked this round.
- Rolls 1-3 (phase 1): the sum is added to the shared total, a 7 adds 70, doubles are plain and
  nobody may bank.
- From roll 4 (phase 2): the sum is added; doubles double the total and then add the roll
  (option ``doubles_rule``: ``"double_then_add"``, the default, or ``"double_only"``); a 7 ends
  the round and every player who has not banked scores nothing for it.
- Once roll 3 has been scored, any unbanked player may bank at any moment between rolls: the
  shared total is added to their score and stays on the table for the others.
- The round ends when everyone has banked or on a phase-2 seven; the next round starts with the
  player after the one who made the round's last roll. After the last round (option ``rounds``:
  10, 15 or 20) the highest score wins; ``action(-1, "end_game")`` ends the game early.

Example, three players, ten rounds::

    >>> from tray.rules.engine import roll, action
    >>> from tray.rules.games import bank
    >>> s = bank.new_game(["Ann", "Ben", "Cy"], {"d6": ["1", "2", "3", "4", "5", "6"]},
    ...                   {"rounds": 10})
    >>> for dice in (("d6:3", "d6:4"), ("d6:2", "d6:2"), ("d6:6", "d6:1")):
    ...     s = bank.apply(s, roll(*dice))
    >>> s["total"]                     # 70 + 4 + 70: phase 1, sevens are worth 70
    144
    >>> s = bank.apply(s, action(1, "bank"))
    >>> s["scores"]
    [0, 144, 0]
    >>> s = bank.apply(s, roll("d6:5", "d6:5"))   # phase 2 doubles: 144 * 2 + 10
    >>> s["total"]
    298
    >>> s = bank.apply(s, roll("d6:2", "d6:5"))   # a 7: Ann and Cy score nothing this round
    >>> s["round"], s["total"], s["scores"]
    (2, 0, [0, 144, 0])
"""

from __future__ import annotations

from tray.rules.engine import (
    Decision,
    Expect,
    Facts,
    RollSpec,
    RuleError,
    action,
    base_state,
    check_event,
    check_players,
    check_roll,
    copy_state,
    last_move,
    roll_dice,
    summary_base,
    winners,
    with_options,
)

GAME_ID = "bank"
TITLE = "Bank"
DICE_SET = "d6"
MIN_PLAYERS = 2
# The rulebook says "2 or more" and sets no maximum; the table has one button per player and
# the keyboard fallback maps keys 1..0, so ten seats is the limit of the hardware, not the game.
MAX_PLAYERS = 10
LOWEST_WINS = False
OPTIONS = {"rounds": 20, "doubles_rule": "double_then_add"}
ROUND_CHOICES = (10, 15, 20)
DOUBLES_RULES = ("double_then_add", "double_only")
PHASE1_ROLLS = 3  # rolls 1..3 of a round are phase 1
DIE = "d6"


# --------------------------------------------------------------------------------------------
# New game


def _check_options(options: dict | None) -> dict:
    opts = with_options(OPTIONS, options, TITLE)
    if type(opts["rounds"]) is not int or opts["rounds"] not in ROUND_CHOICES:
        raise RuleError(
            f"Bank is played over 10, 15 or 20 rounds, not {opts['rounds']!r}: choose one of those"
        )
    if opts["doubles_rule"] not in DOUBLES_RULES:
        raise RuleError(
            f'unknown doubles rule {opts["doubles_rule"]!r}: choose "double_then_add" '
            '(double the total, then add the roll) or "double_only"'
        )
    return opts


def _check_layout(layout: dict) -> dict[str, list[str]]:
    if not isinstance(layout, dict) or DIE not in layout:
        raise RuleError('Bank needs the d6 dice set: its layout has no die "d6"')
    faces = layout[DIE]
    for face in faces:
        if not (isinstance(face, str) and face.isdigit() and 1 <= int(face) <= 6):
            raise RuleError(
                f"Bank reads the d6 faces as numbers 1..6, but the dice set has a face {face!r}: "
                "fix vision/dicesets/d6.toml"
            )
    return {die: list(f) for die, f in layout.items()}


#: every action of this game and the extra keys it carries (engine.check_event)
ACTION_KEYS: dict[str, tuple[str, ...]] = {"bank": (), "end_game": ()}


def new_game(players: list[str], layout: dict[str, list[str]], options: dict | None = None) -> dict:
    """The state before the first roll: round 1, total 0, the first player named rolls first.

    ``players`` are the names in turn order (2..10 of them, all different); ``layout`` is the
    d6 dice set as plain data (``vision.dicesets.load("d6").layout()``); ``options`` may set
    ``rounds`` (10, 15 or 20; default 20) and ``doubles_rule``. Raises RuleError on bad input.

    >>> s = new_game(["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]})
    >>> s["round"], s["options"]["rounds"], s["active"], s["total"]
    (1, 20, 0, 0)
    """
    if isinstance(players, (list, tuple)):
        players = [p.strip() if isinstance(p, str) else p for p in players]
    players = check_players(players, TITLE, MIN_PLAYERS, MAX_PLAYERS)
    opts = _check_options(options)
    n = len(players)
    return {
        **base_state(GAME_ID, players, _check_layout(layout), opts, {"kind": "new_game"}),
        "total": 0,
        "rolls": 0,
        "banked": [False] * n,
        "last_roller": None,
        "round_points": [[0] * n],
        "ended_early": False,
    }


# --------------------------------------------------------------------------------------------
# What the state waits for


def can_bank(state: dict) -> list[int]:
    """Seats that may bank now: unbanked players, once roll 3 of the round has been scored.

    >>> s = new_game(["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]})
    >>> can_bank(s)
    []
    """
    if state["finished"] or state["rolls"] < PHASE1_ROLLS:
        return []
    return [p for p, b in enumerate(state["banked"]) if not b]


def phase(state: dict) -> int:
    """The phase of the NEXT roll of the round: 1 for rolls 1-3, 2 from roll 4."""
    return 1 if state["rolls"] < PHASE1_ROLLS else 2


def expect(state: dict) -> Expect:
    """The next roll (two d6, thrown by the active player), and a bank decision per player who
    may bank, plus the table's "end game early" decision (player -1); or the finished game.

    >>> s = new_game(["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]})
    >>> e = expect(s)
    >>> e.roll.dice, e.roll.roller, [d.player for d in e.decisions]
    (('d6', 'd6'), 0, [-1])
    >>> e.prompt
    'Round 1 of 20, roll 1 (phase 1, no banking yet): Ann, roll both dice'
    """
    players = state["players"]
    if state["finished"]:
        return Expect(prompt=_final_words(state), finished=True, detail=_detail(state))
    roller = state["active"]
    spec = RollSpec(roller=roller, count=2, dice_set=DICE_SET, dice=(DIE, DIE), purpose="roll")
    decisions = []
    for p in can_bank(state):
        ev = action(p, "bank")
        decisions.append(Decision(player=p, actions=("bank",), choices=(ev,), default=ev))
    end = action(-1, "end_game")
    decisions.append(Decision(player=-1, actions=("end_game",), choices=(end,), default=end))
    head = f"Round {state['round']} of {state['options']['rounds']}, roll {state['rolls'] + 1}"
    name = players[roller]
    if phase(state) == 1:
        prompt = f"{head} (phase 1, no banking yet): {name}, roll both dice"
        if state["rolls"]:
            prompt += f" (total {state['total']})"
    else:
        unbanked = can_bank(state)
        if len(unbanked) == 1:
            prompt = (
                f"{head}: total {state['total']}. {name} rolls alone: roll both dice, "
                f"or press your button to BANK {state['total']} (a 7 loses it)"
            )
        else:
            prompt = (
                f"{head}: total {state['total']}. {name}, roll both dice "
                f"(a 7 ends the round); press your button to BANK {state['total']}"
            )
    return Expect(prompt=prompt, roll=spec, decisions=tuple(decisions), detail=_detail(state))


def _detail(state: dict) -> dict:
    return {
        "total": state["total"],
        "roll_number": state["rolls"] + 1,
        "phase": phase(state),
        "can_bank": can_bank(state),
        "banked": [p for p, b in enumerate(state["banked"]) if b],
        "rounds": state["options"]["rounds"],
    }


def _final_words(state: dict) -> str:
    win = winners(state["scores"], state["players"])
    best = max(state["scores"])
    how = "Game ended early" if state["ended_early"] else "Game over"
    if isinstance(win, list):
        return f"{how}: {' and '.join(win)} share the win with {best}"
    return f"{how}: {win} wins with {best}"


# --------------------------------------------------------------------------------------------
# Events


def apply(state: dict, event: dict) -> dict:
    """The state after ``event``: a roll of two d6, ``action(p, "bank")`` or
    ``action(-1, "end_game")``. Raises RuleError (nothing changed) on an event the rules refuse.

    >>> s = new_game(["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]})
    >>> apply(s, action(0, "bank"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tray.rules.engine.RuleError: No banking yet: banking opens once roll 3 of the round has been ...
    """
    check_event(event, ACTION_KEYS)
    if not isinstance(event, dict):
        raise RuleError("an event must be a roll or an action")
    if state["finished"]:
        raise RuleError("The game is over: start a new game")
    kind = event.get("type")
    if kind == "roll":
        return _apply_roll(state, event)
    if kind == "action":
        name = event.get("action")
        player = event.get("player")
        if type(player) is not int:
            raise RuleError("an action needs the seat number of the player who acts")
        if name == "bank":
            return _apply_bank(state, player)
        if name == "end_game":
            return _apply_end(state, player)
        raise RuleError(f"Bank has no action {name!r}: players can only bank")
    raise RuleError(f"Bank cannot use an event of type {kind!r}: expected a roll or an action")


def _values(state: dict, event: dict) -> tuple[int, int, list[str]]:
    dice = roll_dice(event)
    if len(dice) != 2:
        raise RuleError(f"{len(dice)} {'die' if len(dice) == 1 else 'dice'} seen: roll both dice")
    check_roll(expect(state).roll, dice, state["layout"])
    a, b = (int(face) for _, face in dice)
    return a, b, [f"{d}:{f}" for d, f in dice]


def _apply_roll(state: dict, event: dict) -> dict:
    a, b, dice = _values(state, event)
    s = copy_state(state)
    roller = s["active"]
    s["rolls"] += 1
    s["last_roller"] = roller
    number = s["rolls"]
    before = s["total"]
    total = a + b
    last = {
        "kind": "roll",
        "player": roller,
        "dice": dice,
        "sum": total,
        "roll_number": number,
        "phase": 1 if number <= PHASE1_ROLLS else 2,
        "before": before,
        "round": s["round"],
        "round_over": False,
        "game_over": False,
    }
    if number <= PHASE1_ROLLS:
        if total == 7:
            s["total"] = before + 70
            last["kind"] = "seventy"
        else:
            s["total"] = before + total
    elif total == 7:
        lost = [p for p, banked in enumerate(s["banked"]) if not banked]
        s["total"] = 0
        last.update(kind="seven", lost=lost, lost_total=before)
        s["last"] = last
        last["total"] = 0
        return _end_round(s, "seven")
    elif a == b:
        if s["options"]["doubles_rule"] == "double_only":
            s["total"] = before * 2
        else:
            s["total"] = before * 2 + total
        last["kind"] = "doubles"
    else:
        s["total"] = before + total
    last["total"] = s["total"]
    s["last"] = last
    s["active"] = _next_unbanked(s, roller)
    return s


def _apply_bank(state: dict, player: int) -> dict:
    n = len(state["players"])
    if not 0 <= player < n:
        if player == -1:
            raise RuleError("The table cannot bank: a player banks with their own button")
        raise RuleError(f"There is no player {player + 1}: this game has {n} players")
    name = state["players"][player]
    if state["banked"][player]:
        raise RuleError(f"{name} has already banked this round")
    if state["rolls"] < PHASE1_ROLLS:
        raise RuleError("No banking yet: banking opens once roll 3 of the round has been scored")
    s = copy_state(state)
    amount = s["total"]
    s["scores"][player] += amount
    s["round_points"][-1][player] += amount
    s["banked"][player] = True
    s["last"] = {
        "kind": "bank",
        "player": player,
        "amount": amount,
        "total": amount,
        "round": s["round"],
        "round_over": False,
        "game_over": False,
    }
    if all(s["banked"]):
        return _end_round(s, "all_banked")
    if s["active"] == player:
        s["active"] = _next_unbanked(s, player)
    return s


def _apply_end(state: dict, player: int) -> dict:
    if player != -1:
        raise RuleError("Ending the game early is a table action (player -1), not a player's")
    s = copy_state(state)
    s["finished"] = True
    s["ended_early"] = True
    s["active"] = None
    s["last"] = {"kind": "ended_early", "round": s["round"], "round_over": True, "game_over": True}
    return s


def _next_unbanked(s: dict, after: int) -> int:
    n = len(s["players"])
    for step in range(1, n + 1):
        p = (after + step) % n
        if not s["banked"][p]:
            return p
    raise AssertionError("no unbanked player left")  # the round would have ended


def _end_round(s: dict, how: str) -> dict:
    """Close the round in ``s`` (already a copy): start the next one or finish the game."""
    n = len(s["players"])
    s["last"]["round_over"] = True
    s["last"]["ended_by"] = how
    if s["round"] >= s["options"]["rounds"]:
        s["finished"] = True
        s["active"] = None
        s["last"]["game_over"] = True
        return s
    s["round"] += 1
    s["total"] = 0
    s["rolls"] = 0
    s["banked"] = [False] * n
    s["round_points"].append([0] * n)
    s["active"] = (s["last_roller"] + 1) % n
    return s


# --------------------------------------------------------------------------------------------
# Summary


def summary(state: dict) -> dict:
    """The replay JSON: players and scores, round, active player, finished, winner, plus the
    shared total, who has banked this round and the points each player banked per round.

    >>> s = new_game(["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]})
    >>> summary(s)["players"]
    [{'name': 'Ann', 'score': 0}, {'name': 'Ben', 'score': 0}]
    """
    players = state["players"]
    return {
        **summary_base(state, winners(state["scores"], players)),
        "rounds": state["options"]["rounds"],
        "doubles_rule": state["options"]["doubles_rule"],
        "total": state["total"],
        "rolls": state["rolls"],
        "banked": [p for p, b in zip(players, state["banked"], strict=True) if b],
        "round_points": [list(r) for r in state["round_points"]],
        "ended_early": state["ended_early"],
    }


def facts(state: dict) -> Facts:
    """What everyone may see: the shared total and who has banked this round.

    >>> s = new_game(["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]}, {"rounds": 10})
    >>> f = facts(apply(s, {"type": "roll", "dice": ["d6:2", "d6:3"]}))
    >>> f.figures, f.last_roll, f.rounds
    ((('Total', 5),), ('d6:2', 'd6:3'), 10)
    """
    last = state["last"] or {}
    seven = last.get("kind") == "seven"
    return Facts(
        figures=(("Total", state["total"]),),
        status={p: "banked" for p, b in enumerate(state["banked"]) if b},
        loss="Seven" if seven else "",
        losses=dict.fromkeys(last["lost"], last["lost_total"]) if seven else {},
        rounds=state["options"]["rounds"],
        **last_move(state),
    )
