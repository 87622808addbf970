"""What every rules engine shares: events, what a state waits for, and player-facing errors.

A rules engine is one module in ``tray/rules/games/`` (one game a file) with this interface::

    GAME_ID: str              # "tally-up", "toss-up", "bank", "diced-out", "rollers"
    TITLE: str                # "Tally Up!"
    DICE_SET: str             # id of the dice set in vision/dicesets/
    MIN_PLAYERS, MAX_PLAYERS: int
    OPTIONS: dict             # every option with its default value
    def new_game(players: list[str], layout: dict[str, list[str]], options=None) -> dict
    def expect(state: dict) -> Expect          # what the state waits for
    def apply(state: dict, event: dict) -> dict  # the next state (the input is never mutated)
    def summary(state: dict) -> dict           # the replay JSON (see tray/rules/journal.py)
    def facts(state: dict) -> Facts            # what everyone may see, for a screen to show
    LOWEST_WINS: bool                          # the lowest score wins (DICEDOUT!)

State is plain JSON-able data (dicts, lists, str, int, bool, None). Engines have no clock, no
I/O and no global random state: chance arrives as an explicit roll event, decisions as action
events. ``layout`` is the dice set as plain data (``DiceSet.layout()``), stored in the state so
that a journal replays the same way after someone edits a dice-set file.

Events (the same dicts are written to the journal)::

    {"type": "roll", "dice": ["red:star", "blue:100", "green:(150)"]}
    {"type": "action", "player": 2, "action": "bank"}
    {"type": "action", "player": 0, "action": "reveal", "choices": {"0": "in", "1": "out"}}

``player`` is a 0-based seat index. Action names and their extra keys are game-specific and
listed by ``expect(state).decisions``.

The keys of a state beyond those of :func:`base_state` belong to its engine alone: a screen,
a phone page or a log asks the engine's ``facts(state)`` (a :class:`Facts`, plain data that
holds no secret choice) and words it; it never reads those keys.

>>> roll("red:star", "blue:100")
{'type': 'roll', 'dice': ['red:star', 'blue:100']}
>>> parse_die("green:(150)")
('green', '(150)')
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass, field
from typing import Any


class RuleError(ValueError):
    """An event the rules refuse. The message is shown to the players as it is."""


@dataclass(frozen=True)
class RollSpec:
    """The roll a state waits for.

    ``count``: exactly this many dice must show. ``dice``: when not None, exactly these die ids
    (a multiset, in any order), e.g. the locked Tally Up! colours. ``choose_from``: when not
    None, the dice must be ``count`` distinct dice taken from these ids (e.g. the first Main
    Roll: any three Tally Dice). ``roller``: the seat that throws.
    """

    roller: int
    count: int
    dice_set: str
    dice: tuple[str, ...] | None = None
    choose_from: tuple[str, ...] | None = None
    purpose: str = ""  # short machine-readable label: "main", "up", "bonus", "start", ...


@dataclass(frozen=True)
class Decision:
    """A decision the state waits for from one player.

    ``actions`` names the allowed action kinds. ``choices``, when the legal payloads can be
    listed, holds complete action events this player may send (the screen offers them, the
    simulated players and the property tests pick among them). ``default`` is the suggested
    one (an entry of ``choices``) or None. ``secret`` marks IN/OUT choices that are revealed
    together.
    """

    player: int
    actions: tuple[str, ...]
    choices: tuple[dict, ...] = ()
    default: dict | None = None
    secret: bool = False


@dataclass(frozen=True)
class Expect:
    """Everything a state waits for, with the words the screen shows."""

    prompt: str
    roll: RollSpec | None = None
    decisions: tuple[Decision, ...] = ()
    finished: bool = False
    detail: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Facts:
    """What everyone at the table may know of a state, as plain data: what a screen shows
    beside the prompt (a game's ``facts(state)``). Never a secret choice before its reveal.

    ``figures``: (label, value) pairs, the running figures first: ("Running total", 450).
    ``locked``: the die ids a roll must show for the rest of the round (Tally Up!), else ().
    ``status``: {seat: public status words}: "OUT", "banked", "2 rerolls", "last turn".
    ``sheet``: the active player's score sheet, (label, marked, circled) a box.
    ``in_out``: (seats IN, seats OUT) when the game has IN and OUT (Tally Up!), else None.
    ``last_roll``: the ``die:face`` specs of the roll the state last scored.
    ``actor``: the seat whose move the state last recorded, or None.
    ``points``: what that move scored, when it scored points (None: nothing to say).
    ``loss``: the words of a moment where players lose what they had at stake ("Bust",
    "Three stars", "Seven"), "" when the state is no such moment; ``losses`` {seat: points
    lost} then (a 0 when nothing was at stake).
    ``reveal``: (seats IN, seats OUT) when the last move revealed secret choices, else None.
    ``rounds``: how many rounds the game lasts when that is fixed (Bank), else None.
    """

    figures: tuple[tuple[str, int | str], ...] = ()
    locked: tuple[str, ...] = ()
    status: dict[int, str] = field(default_factory=dict)
    sheet: tuple[tuple[str, bool, bool], ...] = ()
    in_out: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    last_roll: tuple[str, ...] = ()
    actor: int | None = None
    points: int | None = None
    loss: str = ""
    losses: dict[int, int] = field(default_factory=dict)
    reveal: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    rounds: int | None = None


def last_move(state: dict) -> dict:
    """The :class:`Facts` keys every game reads alike from ``state["last"]``: ``actor``,
    ``points`` and ``last_roll`` (a roll under "roll" or "dice").

    >>> last_move({"last": {"kind": "roll", "player": 1, "dice": ["d6:3", "d6:4"]}})
    {'actor': 1, 'points': None, 'last_roll': ('d6:3', 'd6:4')}
    """
    last = state.get("last") if isinstance(state.get("last"), dict) else {}
    actor, points = last.get("player"), last.get("points")
    specs: tuple[str, ...] = ()
    for key in ("roll", "dice"):
        v = last.get(key)
        if isinstance(v, list) and all(isinstance(x, str) and ":" in x for x in v):
            specs = tuple(v)
            break
    return {
        "actor": actor if type(actor) is int else None,
        "points": points if type(points) is int else None,
        "last_roll": specs,
    }


def roll(*dice: str) -> dict:
    """A roll event from ``die:face`` strings."""
    return {"type": "roll", "dice": list(dice)}


def action(player: int, name: str, **extra: Any) -> dict:
    """An action event."""
    return {"type": "action", "player": player, "action": name, **extra}


def parse_die(spec: str) -> tuple[str, str]:
    """``"red:(200)"`` -> ``("red", "(200)")``; raises RuleError on a malformed spec."""
    if not isinstance(spec, str) or ":" not in spec:
        raise RuleError(f"cannot read die {spec!r}: expected die:face, like red:star")
    die, face = spec.split(":", 1)
    if not die or not face:
        raise RuleError(f"cannot read die {spec!r}: expected die:face, like red:star")
    return die, face


def short(text: str, limit: int = 80) -> str:
    """``text`` cut to at most ``limit`` characters (messages quote at most an excerpt).

    >>> short("x" * 100, 10)
    'xxxxxxx...'
    """
    text = str(text)
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


MAX_DEPTH = 4  # how deep an event's values may nest (a list of ints is depth 2)
MAX_ITEMS = 64  # the longest list or dict in an event
MAX_TEXT = 64  # the longest text in an event


def _check_value(value: Any, where: str, depth: int = 1) -> None:
    if depth > MAX_DEPTH:
        raise RuleError(
            f"{where} nests too deeply: an event holds only short lists of numbers and names"
        )
    if isinstance(value, bool) or value is None:
        raise RuleError(
            f"{where} = {short(json.dumps(value))}: true, false and null are not "
            "event values; give a whole number or a name"
        )
    if isinstance(value, float):
        why = "not a number" if not math.isfinite(value) else "a decimal"
        raise RuleError(f"{where} = {short(repr(value))} is {why}: give a whole number")
    if isinstance(value, int):
        return
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise RuleError(f"{where} = {short(repr(value))}: too long for an event value")
        return
    if isinstance(value, (list, tuple)):
        if len(value) > MAX_ITEMS:
            raise RuleError(f"{where} has {len(value)} items: too many for an event")
        for i, v in enumerate(value):
            _check_value(v, f"{where}[{i}]", depth + 1)
        return
    if isinstance(value, dict):
        if len(value) > MAX_ITEMS:
            raise RuleError(f"{where} has {len(value)} keys: too many for an event")
        for k, v in value.items():
            if not isinstance(k, str):
                raise RuleError(f"{where} has a key {short(repr(k))}: keys are names")
            _check_value(v, f"{where}.{short(k, 20)}", depth + 1)
        return
    raise RuleError(
        f"{where} is a {type(value).__name__}: an event holds numbers, names and lists of them"
    )


def check_event(event: Any, action_keys: dict[str, tuple[str, ...]]) -> None:
    """The strict form every event must have before a game looks at it (RuleError if not).

    A roll is ``{"type": "roll", "dice": [...]}`` of ``die:face`` texts (each game then
    checks them against its dice set); an action is ``{"type", "player", "action"}`` plus only
    the extra keys ``action_keys[action]`` names (other types and action names are left to
    the game, which refuses them in its own words); seats are whole numbers (not true, not 1.0)
    and no value is a decimal, NaN, infinity, true/false or null.

    >>> check_event(action(True, "bank"), {"bank": ()})
    Traceback (most recent call last):
    ...
    tray.rules.engine.RuleError: the player of an action is a seat number, not True
    >>> check_event(action(0, "bank", why="luck"), {"bank": ()})
    Traceback (most recent call last):
    ...
    tray.rules.engine.RuleError: 'bank' takes no key 'why': an action is type, player and action
    """
    if not isinstance(event, dict):
        raise RuleError("an event must be a roll or an action")
    kind = event.get("type")
    if kind == "roll":
        extra = sorted(set(event) - {"type", "dice"})
        if extra:
            raise RuleError(f"a roll takes no key {short(repr(extra[0]))}: a roll is type and dice")
        dice = event.get("dice")
        if not isinstance(dice, list):
            raise RuleError('expected a roll of dice: a list like ["d6:3", "d6:4"]')
        _check_value(dice, "dice")
        for spec in dice:
            parse_die(spec)  # the game checks each die and face against its dice set
        return
    if kind != "action":
        return  # not an engine event: the game refuses it in its own words
    player = event.get("player")
    if type(player) is not int:
        raise RuleError(f"the player of an action is a seat number, not {short(repr(player))}")
    name = event.get("action")
    if not isinstance(name, str) or name not in action_keys:
        return  # not an action of this game: the game refuses it in its own words
    allowed = {"type", "player", "action", *action_keys[name]}
    extra = sorted(k for k in event if k not in allowed)
    if extra:
        takes = ", ".join(action_keys[name]) or "type, player and action"
        raise RuleError(f"{name!r} takes no key {short(repr(extra[0]))}: an action is {takes}")
    for key in action_keys[name]:
        if key in event:
            _check_value(event[key], key)


def describe(event: dict, players: list[str] | None = None) -> str:
    """A few words for an event, as messages and logs name it (long values cut short).

    >>> describe({"type": "roll", "dice": ["d6:3", "d6:4"]})
    'roll d6:3 d6:4'
    >>> describe({"type": "action", "player": 1, "action": "bank"}, ["Ann", "Ben"])
    'Ben: bank'
    >>> describe({"type": "action", "player": -1, "action": "end_game"})
    'table: end_game'
    """
    kind = event.get("type")
    if kind == "roll":
        return short("roll " + " ".join(str(d) for d in event.get("dice", [])), 200)
    if kind == "action":
        p = event.get("player")
        if p == -1:
            who = "table"
        elif players and isinstance(p, int) and 0 <= p < len(players):
            who = players[p]
        else:
            who = f"player {short(repr(p), 20)}"
        extra = {k: v for k, v in event.items() if k not in ("type", "player", "action")}
        text = f"{who}: {short(str(event.get('action')), 40)}"
        if extra:
            text += " " + json.dumps(extra, ensure_ascii=False, sort_keys=True, default=str)
        return short(text, 200)
    if kind == "correct":
        return short(
            f"correct roll {event.get('event')} to " + " ".join(map(str, event.get("dice", []))),
            200,
        )
    return short(str(kind), 40)


def roll_dice(event: dict) -> list[tuple[str, str]]:
    """The (die, face) pairs of a roll event, checked for form."""
    if event.get("type") != "roll" or not isinstance(event.get("dice"), list):
        raise RuleError("expected a roll of dice")
    return [parse_die(d) for d in event["dice"]]


def check_roll(spec: RollSpec, dice: list[tuple[str, str]], layout: dict[str, list[str]]) -> None:
    """Raise RuleError (a message for the table) unless ``dice`` is a roll ``spec`` accepts."""
    for die, face in dice:
        if die not in layout:
            raise RuleError(f"{die} is not a die of this game")
        if face not in layout[die]:
            raise RuleError(f"{die} has no face {face}")
    ids = [d for d, _ in dice]
    if spec.dice is not None:
        if sorted(ids) != sorted(spec.dice):
            raise RuleError(
                f"Roll the {and_list(spec.dice)}: {len(ids)} dice seen ({and_list(ids) or 'none'})"
            )
        return
    if len(ids) != spec.count:
        raise RuleError(f"{len(ids)} dice seen: roll {spec.count}")
    if spec.choose_from is not None:
        if any(d not in spec.choose_from for d in ids):
            bad = [d for d in ids if d not in spec.choose_from]
            raise RuleError(
                f"{and_list(bad)} cannot be rolled now: choose from {and_list(spec.choose_from)}"
            )
        if len(set(ids)) != len(ids):
            raise RuleError("each die can be rolled only once: use different dice")


def and_list(items) -> str:
    """``items`` as a sentence says them.

    >>> and_list(["Ana", "Ben", "Cy"]), and_list(["Ana", "Ben"]), and_list([3]), and_list([])
    ('Ana, Ben and Cy', 'Ana and Ben', '3', '')
    """
    items = [str(i) for i in items]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def check_players(players, title: str, lowest: int, highest: int) -> list[str]:
    """The players' names in turn order, as a new list: ``lowest`` to ``highest`` names,
    none blank, no two alike; RuleError saying what to change otherwise.

    >>> check_players(("Ann", "Ben"), "Bank", 2, 10)
    ['Ann', 'Ben']
    >>> check_players(["Ann"], "Bank", 2, 10)
    Traceback (most recent call last):
    ...
    tray.rules.engine.RuleError: Bank needs 2 to 10 players, not 1: add or remove a player
    """
    if not isinstance(players, (list, tuple)) or not all(
        isinstance(p, str) and p.strip() for p in players
    ):
        raise RuleError("players must be a list of names, none of them blank")
    if not lowest <= len(players) <= highest:
        raise RuleError(
            f"{title} needs {lowest} to {highest} players, not {len(players)}: "
            "add or remove a player"
        )
    if len(set(players)) != len(players):
        raise RuleError("two players have the same name: give every player a different name")
    return list(players)


def with_options(defaults: dict, options, title: str) -> dict:
    """A game's options: ``defaults`` (lists copied) with the ``options`` given in their
    place; RuleError for options that are not a table or name an option the game has not.
    Each game checks the values itself.

    >>> with_options({"rounds": 20, "circled": [2, 12]}, {"rounds": 10}, "Bank")
    {'rounds': 10, 'circled': [2, 12]}
    >>> with_options({"rounds": 20}, {"round": 10}, "Bank")
    Traceback (most recent call last):
    ...
    tray.rules.engine.RuleError: Bank has no option 'round': the options are rounds
    """
    opts = {k: (list(v) if isinstance(v, list) else v) for k, v in defaults.items()}
    if options is None:
        return opts
    if not isinstance(options, dict):
        raise RuleError(
            f"{title} options must be a table of settings, like "
            f"{{{next(iter(defaults))!r}: {next(iter(defaults.values()))!r}}}"
        )
    unknown = [key for key in options if key not in defaults]
    if unknown:
        raise RuleError(
            f"{title} has no option {', '.join(map(repr, unknown))}: "
            f"the options are {', '.join(defaults)}"
        )
    opts.update(options)
    return opts


def base_state(
    game_id: str, players: list[str], layout: dict, options: dict, last: dict | None = None
) -> dict:
    """The keys every game's state starts with; each engine adds its own after them.

    >>> base_state("bank", ["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]}, {})["scores"]
    [0, 0]
    """
    return {
        "game": game_id,
        "players": players,
        "scores": [0] * len(players),
        "round": 1,
        "active": 0,
        "finished": False,
        "layout": layout,
        "options": options,
        "last": last,
    }


def apply_event(state: dict, event: dict, on_roll, on_action) -> dict:
    """The common shape of ``apply``: check the event, copy the state, hand it to the game.

    ``on_roll(s, event)`` / ``on_action(s, event)`` change the copy ``s`` in place or raise
    RuleError; the input state is never changed, so a refused event leaves it as it was.
    """
    if not isinstance(event, dict):
        raise RuleError("an event must be a roll or an action")
    if state.get("finished"):
        raise RuleError("The game is over: start a new game or a rematch")
    s = copy_state(state)
    kind = event.get("type")
    if kind == "roll":
        on_roll(s, event)
    elif kind == "action":
        on_action(s, event)
    else:
        raise RuleError(f"unknown event type {kind!r}: expected a roll or an action")
    return s


def awaited(exp: Expect, event: dict, players: list[str], roll_first: str) -> Decision | None:
    """What ``event`` answers of what a state waits for (``exp``, the game's ``expect(state)``):
    None for a roll while a roll is awaited, the :class:`Decision` for an action of its player
    and among its actions; RuleError, in words for the table, for anything else (the game
    then checks the dice or the action's values itself). ``roll_first`` is what an action
    while a roll is awaited is told, ``{name}`` standing for the roller.

    >>> spec = RollSpec(roller=0, count=2, dice_set="d6")
    >>> exp = Expect("Ann: roll both dice", roll=spec)
    >>> awaited(exp, roll("d6:1", "d6:2"), ["Ann", "Ben"], "{name}, roll both dice") is None
    True
    >>> awaited(exp, action(0, "mark", number=3), ["Ann", "Ben"], "{name}, roll both dice")
    Traceback (most recent call last):
    ...
    tray.rules.engine.RuleError: No choice now: Ann, roll both dice
    >>> exp = Expect("Ben: mark a number", decisions=(Decision(player=1, actions=("mark",)),))
    >>> awaited(exp, action(0, "mark", number=3), ["Ann", "Ben"], "{name}, roll both dice")
    Traceback (most recent call last):
    ...
    tray.rules.engine.RuleError: It is Ben's choice now
    """
    if exp.finished:
        raise RuleError("The game is over: start a new game")
    kind = event.get("type")
    if kind == "roll":
        if exp.roll is None:
            who = players[exp.decisions[0].player]
            raise RuleError(f"No roll now: {who} chooses first ({exp.prompt})")
        return None
    if kind != "action":
        raise RuleError("expected a roll or an action")
    if not exp.decisions:
        raise RuleError("No choice now: " + roll_first.format(name=players[exp.roll.roller]))
    decision = exp.decisions[0]
    if event.get("player") != decision.player:
        raise RuleError(f"It is {players[decision.player]}'s choice now")
    if event.get("action") not in decision.actions:
        raise RuleError(f"{exp.prompt}: {event.get('action')!r} is not possible now")
    return decision


def summary_base(state: dict, winner) -> dict:
    """The replay keys every game's ``summary`` starts with (``winner`` counts once finished).

    >>> st = base_state("bank", ["Ann", "Ben"], {}, {})
    >>> summary_base(st, "Ann")["players"], summary_base(st, "Ann")["winner"]
    ([{'name': 'Ann', 'score': 0}, {'name': 'Ben', 'score': 0}], None)
    """
    players = state["players"]
    active = state["active"]
    return {
        "game": state["game"],
        "players": [
            {"name": p, "score": sc} for p, sc in zip(players, state["scores"], strict=True)
        ],
        "round": state["round"],
        "active": None if active is None else players[active],
        "finished": state["finished"],
        "winner": winner if state["finished"] else None,
    }


def copy_state(state: dict) -> dict:
    """A deep copy, so that apply() never changes its input."""
    return copy.deepcopy(state)


def winners(scores: list[int], players: list[str], highest: bool = True) -> str | list[str] | None:
    """The replay ``winner`` value: one name, or a list of names when tied."""
    if not scores:
        return None
    best = max(scores) if highest else min(scores)
    names = [p for p, s in zip(players, scores, strict=True) if s == best]
    return names[0] if len(names) == 1 else names


def rolloff(seats) -> dict:
    """A new roll-off among ``seats`` (who goes first, or who breaks a tie), kept in the state
    as ``state["rolloff"]``: each seat rolls once in turn, the highest total wins, and the
    seats tied for it roll again in a new pass.

    >>> rolloff([2, 0])
    {'players': [2, 0], 'pending': [2, 0], 'totals': {}, 'pass': 1}
    """
    return {"players": list(seats), "pending": list(seats), "totals": {}, "pass": 1}


def rolloff_roll(s: dict, total: int) -> tuple[int, list[int]]:
    """Takes ``total`` as the roll of the seat ``s["rolloff"]`` waits for, in the state ``s``
    (changed in place). Returns that seat and the seats with the highest total: none while
    others have still to roll (``s["active"]`` is the next of them); two or more when they
    are tied and roll again (a new pass: ``s["active"]`` is the first of them); one, the
    winner, when the roll-off is over (``s["rolloff"]`` is None; the game says who is active).

    >>> s = {"rolloff": rolloff([0, 1]), "active": 0}
    >>> rolloff_roll(s, 9), s["active"]
    ((0, []), 1)
    >>> rolloff_roll(s, 9), s["rolloff"]["pass"], s["active"]
    ((1, [0, 1]), 2, 0)
    >>> rolloff_roll(s, 4), rolloff_roll(s, 11), s["rolloff"]
    ((0, []), (1, [1]), None)
    """
    ro = s["rolloff"]
    seat = ro["pending"].pop(0)
    ro["totals"][str(seat)] = total
    if ro["pending"]:
        s["active"] = ro["pending"][0]
        return seat, []
    best = max(ro["totals"].values())
    top = [p for p in ro["players"] if ro["totals"][str(p)] == best]
    if len(top) > 1:
        s["rolloff"] = {**rolloff(top), "pass": ro["pass"] + 1}
        s["active"] = top[0]
    else:
        s["rolloff"] = None
    return seat, top
