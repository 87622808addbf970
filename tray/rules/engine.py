"""What every rules engine shares: events, what a state waits for, and player-facing errors.

A rules engine is one module in ``tray/rules/games/`` (one game a file) with this interface::

    GAME_ID: str              # "tally-up", "toss-up", "bank", "diced-out", "rollers"
    TITLE: str                # "Tally Up!"
    DICE_SET: str             # id of the dice set in vision/dicesets/
    MIN_PLAYERS, MAX_PLAYERS: int
    OPTIONS: dict             # every option with its default value
    def new_game(players: list[str], layout: dict[str, list[str]], options: dict | None = None) -> dict
    def expect(state: dict) -> Expect          # what the state waits for
    def apply(state: dict, event: dict) -> dict  # the next state (the input is never mutated)
    def summary(state: dict) -> dict           # the replay JSON (see tray/rules/journal.py)

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

>>> roll("red:star", "blue:100")
{'type': 'roll', 'dice': ['red:star', 'blue:100']}
>>> parse_die("green:(150)")
('green', '(150)')
"""

from __future__ import annotations

import copy
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
                f"Roll the {_names(spec.dice)}: {len(ids)} dice seen ({_names(ids) or 'none'})"
            )
        return
    if len(ids) != spec.count:
        raise RuleError(f"{len(ids)} dice seen: roll {spec.count}")
    if spec.choose_from is not None:
        if any(d not in spec.choose_from for d in ids):
            bad = [d for d in ids if d not in spec.choose_from]
            raise RuleError(f"{_names(bad)} cannot be rolled now: choose from {_names(spec.choose_from)}")
        if len(set(ids)) != len(ids):
            raise RuleError("each die can be rolled only once: use different dice")


def _names(ids) -> str:
    ids = list(ids)
    if len(ids) <= 1:
        return "".join(ids)
    return ", ".join(ids[:-1]) + " and " + ids[-1]


def base_state(game_id: str, players: list[str], layout: dict, options: dict,
               last: dict | None = None) -> dict:
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
        "players": [{"name": p, "score": sc} for p, sc in zip(players, state["scores"])],
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
    names = [p for p, s in zip(players, scores) if s == best]
    return names[0] if len(names) == 1 else names
