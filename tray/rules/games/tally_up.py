"""Tally Up! (Messy Table Games, 2025): the rules engine.

Every unclear rule is read as in ``tray/rules/RULES.md`` section 1 (#1-tally-up). The engine
is pure: a state (a plain JSON-able dict) and an event go in, the next state comes out; the
input is never changed.

A round, as this engine runs it::

    main roll ─┬─ 2 stars ─────────────► bust, round over
               ├─ 3 stars ─────────────► Tally Up!: first press +200, others still IN +100
               ├─ circle ─ [reveal] ─ Up Die ─┬─ +N ─ Bonus Roll ─ reveal ─► main roll ...
               │  (no reveal here in          └─ -100 / +100 / x2 ─ reveal ─► main roll ...
               │   high stakes)
               └─ no circle ─ reveal ─► main roll ...
    a reveal where nobody stays IN ends the round; then the next player clockwise is active.

Face meanings come from the face ids of the layout stored in the state (so an edited dice-set
file works): a Tally Die face is ``star``, ``N`` (N points) or ``(N)`` (N points, circled); an
Up Die face is ``+N`` with N < 10 (a Bonus Roll of N dice), ``+N`` with N >= 10 (add N),
``-N`` (subtract N, never below 0) or ``xN`` (multiply by N).

Example, a short round for two players::

    >>> from vision.dicesets import load
    >>> from tray.rules.engine import roll, action
    >>> s = new_game(["Ana", "Ben"], load("tally-up").layout())
    >>> expect(s).prompt
    'Ana: roll three Tally Dice'
    >>> s = apply(s, roll("red:200", "blue:100", "yellow:150"))
    >>> s["running"]
    450
    >>> s = apply(s, action(0, "in"))
    >>> s = apply(s, action(1, "out"))
    >>> s["scores"], s["last"]["kind"]
    ([0, 450], 'reveal')
    >>> expect(s).roll.dice
    ('red', 'yellow', 'blue')
    >>> s = apply(s, roll("red:star", "blue:star", "yellow:150"))
    >>> s["last"]["kind"], s["active"], s["running"]
    ('bust', 1, 0)
"""

from __future__ import annotations

import re

from tray.rules.engine import (
    Decision,
    Expect,
    Facts,
    RollSpec,
    RuleError,
    action,
    and_list,
    apply_event,
    base_state,
    check_event,
    check_players,
    last_move,
    parse_die,
    summary_base,
    winners,
    with_options,
)

GAME_ID = "tally-up"
TITLE = "Tally Up!"
DICE_SET = "tally-up"
MIN_PLAYERS = 2
MAX_PLAYERS = 10
LOWEST_WINS = False
OPTIONS = {
    "target": 2500,  # a player at or over this at the end of a round ends the game
    "every_player_once": False,  # end after every player has been active once instead
    "high_stakes": False,  # choose only before each Main Roll; IN holds through the Up Die
    "press_window_s": 5,  # seconds the app waits for the first Tally Up! press (app only)
}

MAIN_DICE = 3  # dice in a Main Roll
DEFAULT_OUT_AT = 400  # the suggested choice turns to OUT at this running total

# Phases of the state machine.
MAIN, CHOOSE, UP, BONUS, TALLY, OVER = "main", "choose", "up", "bonus", "tally", "over"

_STAR = re.compile(r"^star$")
_POINTS = re.compile(r"^(\d+)$")
_CIRCLED = re.compile(r"^\((\d+)\)$")
_UP = re.compile(r"^([+\-x\u00d7])(\d+)$")  # x or the multiplication sign


# ---------------------------------------------------------------------------------------------
# Faces and dice, read from the layout


def tally_face(face: str) -> tuple[int, int, bool] | None:
    """What a Tally Die face means: ``(stars, points, circled)``, or None if it is no such face.

    >>> tally_face("star"), tally_face("150"), tally_face("(200)"), tally_face("x2")
    ((1, 0, False), (0, 150, False), (0, 200, True), None)
    """
    if _STAR.match(face):
        return 1, 0, False
    m = _POINTS.match(face)
    if m:
        return 0, int(m.group(1)), False
    m = _CIRCLED.match(face)
    if m:
        return 0, int(m.group(1)), True
    return None


def up_face(face: str) -> tuple[str, int] | None:
    """What an Up Die face does: ``("bonus", N)``, ``("add", N)``, ``("sub", N)``, ``("mul", N)``.

    A ``+N`` with N below 10 is a Bonus Roll of N dice; from 10 on it adds N points.

    >>> up_face("+2"), up_face("+100"), up_face("-100"), up_face("x2"), up_face("150")
    (('bonus', 2), ('add', 100), ('sub', 100), ('mul', 2), None)
    """
    m = _UP.match(face)
    if not m:
        return None
    sign, n = m.group(1), int(m.group(2))
    if sign == "+":
        return ("bonus", n) if n < 10 else ("add", n)
    if sign == "-":
        return "sub", n
    return "mul", n


def dice_roles(layout: dict[str, list[str]]) -> tuple[list[str], str]:
    """The Tally Dice ids (layout order) and the Up Die id of a layout; RuleError if unusable.

    >>> from vision.dicesets import load
    >>> dice_roles(load("tally-up").layout())
    (['red', 'orange', 'yellow', 'green', 'blue', 'purple'], 'up')
    """
    if not isinstance(layout, dict) or not layout:
        raise RuleError("the Tally Up! dice layout is empty: load the tally-up dice set")
    tally, ups = [], []
    for die, faces in layout.items():
        if faces and all(tally_face(f) is not None for f in faces):
            tally.append(die)
        elif faces and all(up_face(f) is not None for f in faces):
            ups.append(die)
        else:
            raise RuleError(
                f"die {die} has faces {faces} that are neither all Tally Die faces "
                "(star, 150, (150)) nor all Up Die faces (+1, -100, x2): fix the dice-set file"
            )
    if len(ups) != 1:
        raise RuleError(
            f"the layout needs exactly one Up Die, it has {len(ups)}: fix the dice-set file"
        )
    if len(tally) < MAIN_DICE:
        raise RuleError(f"the layout needs at least {MAIN_DICE} Tally Dice, it has {len(tally)}")
    return tally, ups[0]


def _score_dice(dice: list[tuple[str, str]]) -> tuple[int, int, bool]:
    stars = points = 0
    circle = False
    for _, face in dice:
        st, pts, circ = tally_face(face)
        stars += st
        points += pts
        circle = circle or circ
    return stars, points, circle


# ---------------------------------------------------------------------------------------------
# Game creation


#: every action of this game and the extra keys it carries (engine.check_event)
ACTION_KEYS: dict[str, tuple[str, ...]] = {"in": (), "out": (), "tally_up": (), "window_closed": ()}


def new_game(players: list[str], layout: dict[str, list[str]], options: dict | None = None) -> dict:
    """A fresh game: seat 0 is the first active player, everyone IN, running total 0.

    ``options`` may set any key of OPTIONS; an unknown key or a bad value raises RuleError.

    >>> from vision.dicesets import load
    >>> s = new_game(["Ana", "Ben", "Cy"], load("tally-up").layout(), {"target": 1000})
    >>> s["options"]["target"], s["scores"], s["phase"]
    (1000, [0, 0, 0], 'main')
    """
    players = check_players(players, TITLE, MIN_PLAYERS, MAX_PLAYERS)
    opts = with_options(OPTIONS, options, TITLE)
    if (
        isinstance(opts["target"], bool)
        or not isinstance(opts["target"], int)
        or opts["target"] < 1
    ):
        raise RuleError("the target score must be a whole number of points above 0, like 2500")
    for key in ("every_player_once", "high_stakes"):
        if not isinstance(opts[key], bool):
            raise RuleError(f"option {key} must be true or false")
    window = opts["press_window_s"]
    if isinstance(window, bool) or not isinstance(window, (int, float)) or window <= 0:
        raise RuleError("press_window_s must be a number of seconds above 0, like 5")
    layout = {str(d): list(f) for d, f in layout.items()} if isinstance(layout, dict) else layout
    dice_roles(layout)
    n = len(players)
    state = {
        **base_state(GAME_ID, players, layout, opts, None),
        "phase": MAIN,
        "running": 0,
        "in": [True] * n,
        "choices": [None] * n,  # secret IN/OUT choices waiting for the reveal
        "after_reveal": MAIN,  # what the reveal leads to: MAIN or UP
        "locked": None,  # colours of the round's first Main Roll
        "main_roll": None,  # the last Main Roll (die specs), for the Bonus Roll's star count
        "bonus": 0,  # dice in the pending Bonus Roll
        "rounds_played": 0,
        "tie": False,  # the end condition is met but the highest score is tied
        "winner": None,
    }
    return state


# ---------------------------------------------------------------------------------------------
# What the state waits for


def _awaiting(state: dict) -> list[int]:
    return [
        p
        for p, (i, c) in enumerate(zip(state["in"], state["choices"], strict=True))
        if i and c is None
    ]


def _unrolled(state: dict) -> list[str]:
    tally, _ = dice_roles(state["layout"])
    return [d for d in tally if d not in (state["locked"] or [])]


def _default_choice(state: dict, p: int) -> dict:
    running = state["running"]
    target = state["options"]["target"]
    reaches = not state["options"]["every_player_once"] and state["scores"][p] < target <= (
        state["scores"][p] + running
    )
    return action(p, "out" if running >= DEFAULT_OUT_AT or reaches else "in")


def _detail(state: dict) -> dict:
    n = len(state["players"])
    return {
        "phase": state["phase"],
        "running": state["running"],
        "in": [p for p in range(n) if state["in"][p]],
        "out": [p for p in range(n) if not state["in"][p]],
        "chosen": [p for p in range(n) if state["choices"][p] is not None],
        "waiting": _awaiting(state) if state["phase"] == CHOOSE else [],
        "locked": list(state["locked"] or []),
        "main_roll": list(state["main_roll"] or []),
        "bonus": state["bonus"],
        "scores": list(state["scores"]),
        "target": None if state["options"]["every_player_once"] else state["options"]["target"],
        "tie": state["tie"],
        "press_window_s": state["options"]["press_window_s"],
    }


def expect(state: dict) -> Expect:
    """What the state waits for: a roll (with the exact dice), secret IN/OUT choices, or presses.

    >>> from vision.dicesets import load
    >>> s = new_game(["Ana", "Ben"], load("tally-up").layout())
    >>> e = expect(s)
    >>> e.roll.choose_from, e.roll.count
    (('red', 'orange', 'yellow', 'green', 'blue', 'purple'), 3)
    """
    players = state["players"]
    a = state["active"]
    who = players[a] + ("" if state["in"][a] else " is OUT but keeps rolling")
    detail = _detail(state)
    phase = state["phase"]
    if phase == OVER:
        w = state["winner"]
        if isinstance(w, list):
            text = f"Game over: {and_list(w)} share the win with {max(state['scores'])} points"
        else:
            text = f"Game over: {w} wins with {max(state['scores'])} points"
        return Expect(prompt=text, finished=True, detail=detail)
    if phase == MAIN:
        tally, _ = dice_roles(state["layout"])
        if state["locked"] is None:
            spec = RollSpec(a, MAIN_DICE, DICE_SET, choose_from=tuple(tally), purpose="main")
            prompt = f"{who}: roll three Tally Dice"
        else:
            spec = RollSpec(a, MAIN_DICE, DICE_SET, dice=tuple(state["locked"]), purpose="main")
            prompt = f"{who}: roll the {and_list(state['locked'])} dice"
        if state["tie"]:
            prompt += " (tie for the lead: one more round)"
        return Expect(prompt=prompt, roll=spec, detail=detail)
    if phase == UP:
        _, up = dice_roles(state["layout"])
        spec = RollSpec(a, 1, DICE_SET, dice=(up,), purpose="up")
        return Expect(prompt=f"{who}: roll the Up Die", roll=spec, detail=detail)
    if phase == BONUS:
        spare = _unrolled(state)
        n = state["bonus"]
        spec = RollSpec(a, n, DICE_SET, choose_from=tuple(spare), purpose="bonus")
        if n == len(spare):
            prompt = f"{who}: Bonus Roll: roll the {and_list(spare)} dice"
        else:
            prompt = f"{who}: Bonus Roll: roll {n} of the {and_list(spare)} dice"
        return Expect(prompt=prompt, roll=spec, detail=detail)
    if phase == CHOOSE:
        waiting = _awaiting(state)
        decisions = tuple(
            Decision(
                p,
                ("in", "out"),
                choices=(action(p, "in"), action(p, "out")),
                default=_default_choice(state, p),
                secret=True,
            )
            for p in waiting
        )
        everyone = waiting == [p for p in range(len(players)) if state["in"][p]]
        lead = "Everyone IN" if everyone else and_list(players[p] for p in waiting)
        before = " before the Up Die" if state["after_reveal"] == UP else ""
        prompt = f"{lead}: choose IN or OUT{before} (running total {state['running']})"
        return Expect(prompt=prompt, decisions=decisions, detail=detail)
    if phase == TALLY:
        decisions = (
            *(
                Decision(
                    p,
                    ("tally_up",),
                    choices=(action(p, "tally_up"),),
                    default=action(p, "tally_up"),
                )
                for p in range(len(players))
            ),
            Decision(
                -1,
                ("window_closed",),
                choices=(action(-1, "window_closed"),),
                default=action(-1, "window_closed"),
            ),
        )
        prompt = "Tally Up! First to press their button scores +200"
        return Expect(prompt=prompt, decisions=decisions, detail=detail)
    raise RuleError(f"this Tally Up! state is damaged (unknown phase {phase!r})")


# ---------------------------------------------------------------------------------------------
# Applying events


def apply(state: dict, event: dict) -> dict:
    """The state after ``event``; RuleError (a sentence for the table) if the rules refuse it.

    The input state is never changed, so a refused event leaves everything as it was.
    """
    check_event(event, ACTION_KEYS)
    return apply_event(state, event, _apply_roll, _apply_action)


def _read_dice(s: dict, event: dict) -> list[tuple[str, str]]:
    raw = event.get("dice")
    if not isinstance(raw, list):
        raise RuleError("expected a roll of dice")
    dice = [parse_die(d) for d in raw]
    layout = s["layout"]
    for die, face in dice:
        if die not in layout:
            raise RuleError(f"{die} is not a die of Tally Up!")
        if face not in layout[die]:
            raise RuleError(f"the {die} die has no face {face}: check the roll")
    return dice


def _seen(ids: list[str]) -> str:
    return f"{len(ids)} dice seen ({and_list(ids) or 'none'})"


def _apply_roll(s: dict, event: dict) -> None:
    phase = s["phase"]
    if phase == CHOOSE:
        waiting = [s["players"][p] for p in _awaiting(s)]
        raise RuleError(f"Not yet: {and_list(waiting)} must choose IN or OUT before the next roll")
    if phase == TALLY:
        raise RuleError(
            "Tally Up! was rolled: press your button first (or wait for the window to close)"
        )
    dice = _read_dice(s, event)
    ids = [d for d, _ in dice]
    _, up = dice_roles(s["layout"])
    if phase == MAIN:
        if s["locked"] is None:
            if up in ids:
                raise RuleError("The Up Die is not part of a Main Roll: roll three Tally Dice")
            if len(ids) != MAIN_DICE:
                raise RuleError(f"{_seen(ids)}: roll three Tally Dice")
            if len(set(ids)) != len(ids):
                raise RuleError("Roll three different Tally Dice: each colour only once")
        elif sorted(ids) != sorted(s["locked"]):
            locked = and_list(s["locked"])
            raise RuleError(
                f"Roll the {locked} dice: those are locked for this round. {_seen(ids)}."
            )
        _resolve_main(s, dice)
    elif phase == UP:
        if ids != [up]:
            raise RuleError(f"Roll the Up Die alone: {_seen(ids)}")
        _resolve_up(s, dice[0][1])
    elif phase == BONUS:
        spare = _unrolled(s)
        n = s["bonus"]
        bad = [d for d in ids if d not in spare]
        if bad:
            raise RuleError(
                f"{and_list(bad)} cannot be in the Bonus Roll: roll {n} of the "
                f"{and_list(spare)} dice"
            )
        if len(ids) != n or len(set(ids)) != len(ids):
            raise RuleError(f"{_seen(ids)}: the Bonus Roll is {n} of the {and_list(spare)} dice")
        _resolve_bonus(s, dice)
    else:
        raise RuleError("no roll is expected now")


def _specs(dice: list[tuple[str, str]]) -> list[str]:
    return [f"{d}:{f}" for d, f in dice]


def _resolve_main(s: dict, dice: list[tuple[str, str]]) -> None:
    if s["locked"] is None:
        order = dice_roles(s["layout"])[0]
        s["locked"] = [d for d in order if d in {i for i, _ in dice}]
    stars, points, circle = _score_dice(dice)
    roll = _specs(dice)
    # Resolve by the number of stars first, as the rulebook's RESOLVE THE ROLL chart does: the
    # chart's "0 or 1 star" row is the only one that adds points and mentions circles ("If one
    # or more circled numbers appear on the Main Roll, the Up Die will be rolled"), while the
    # "2 stars = Bust!" row says "The round ends immediately". So a Main Roll with two stars and
    # a circle is a bust and the Up Die is not rolled: the round is already over. Three stars
    # (all the dice) is a Tally Up!, which cannot show a circle.
    if stars >= MAIN_DICE:
        s["last"] = {
            "kind": "tally_up",
            "roll": roll,
            "points": 0,
            "lost": s["running"],
            "in": [p for p, i in enumerate(s["in"]) if i],
        }
        s["running"] = 0
        s["phase"] = TALLY
        return
    if stars >= 2:
        _bust(s, roll, "main")
        return
    s["running"] += points
    s["main_roll"] = roll
    s["last"] = {
        "kind": "main",
        "roll": roll,
        "points": points,
        "stars": stars,
        "circle": circle,
        "running": s["running"],
    }
    if circle:
        # High stakes: "If you are IN, you also stay IN for the Up Die roll": no reveal here.
        if s["options"]["high_stakes"]:
            s["phase"] = UP
        else:
            _to_choose(s, UP)
    else:
        _to_choose(s, MAIN)


def _resolve_up(s: dict, face: str) -> None:
    effect, n = up_face(face)
    before = s["running"]
    last = {
        "kind": "up",
        "roll": [f"{dice_roles(s['layout'])[1]}:{face}"],
        "face": face,
        "effect": effect,
        "amount": n,
    }
    if effect == "bonus":
        spare = _unrolled(s)
        count = min(n, len(spare))
        last["running"] = before
        last["bonus"] = count
        s["last"] = last
        if count > 0:
            # No reveal between the Up Die and its Bonus Roll.
            s["bonus"] = count
            s["phase"] = BONUS
        else:
            _to_choose(s, MAIN)
        return
    if effect == "add":
        s["running"] = before + n
    elif effect == "sub":
        s["running"] = max(0, before - n)  # the running total never goes below 0
    else:
        s["running"] = before * n  # after the Main Roll's points were added
    last["running"] = s["running"]
    last["change"] = s["running"] - before
    s["last"] = last
    _to_choose(s, MAIN)


def _resolve_bonus(s: dict, dice: list[tuple[str, str]]) -> None:
    main = [parse_die(d) for d in s["main_roll"] or []]
    main_stars, _, _ = _score_dice(main)
    stars, points, _ = _score_dice(dice)  # circles on a Bonus Roll do nothing
    roll = _specs(dice)
    s["bonus"] = 0
    # Two or more stars across the Main Roll and Bonus Roll dice together bust; stars on a
    # Bonus Roll never make a Tally Up!, however many there are.
    if main_stars + stars >= 2:
        _bust(s, roll, "bonus", stars=main_stars + stars)
        return
    s["running"] += points
    s["last"] = {
        "kind": "bonus",
        "roll": roll,
        "points": points,
        "stars": main_stars + stars,
        "running": s["running"],
    }
    _to_choose(s, MAIN)


def _bust(s: dict, roll: list[str], where: str, stars: int | None = None) -> None:
    s["last"] = {
        "kind": "bust",
        "roll": roll,
        "on": where,
        "points": 0,
        "lost": s["running"],
        "busted": [p for p, i in enumerate(s["in"]) if i],
    }
    if stars is not None:
        s["last"]["stars"] = stars
    s["running"] = 0
    _end_round(s, "bust")


def _to_choose(s: dict, after: str) -> None:
    s["phase"] = CHOOSE
    s["after_reveal"] = after
    s["choices"] = [None] * len(s["players"])


def _player(s: dict, event: dict) -> int:
    p = event.get("player")
    if isinstance(p, bool) or not isinstance(p, int) or not -1 <= p < len(s["players"]):
        raise RuleError(f"unknown player {p!r}: seats are 0 to {len(s['players']) - 1}")
    return p


def _apply_action(s: dict, event: dict) -> None:
    p = _player(s, event)
    name = event.get("action")
    phase = s["phase"]
    if name in ("in", "out"):
        if p < 0:
            raise RuleError("IN or OUT is a player's choice: send it with that player's seat")
        who = s["players"][p]
        if phase != CHOOSE:
            raise RuleError(f"{who}: this is not the time to choose IN or OUT")
        if not s["in"][p]:
            raise RuleError(
                f"{who} is OUT for the rest of this round: only players still IN choose"
            )
        if s["choices"][p] is not None:
            raise RuleError(f"{who} has already chosen: wait for the others")
        s["choices"][p] = name
        s["last"] = {"kind": "chosen", "player": p}  # who, never what: the choice stays secret
        if not _awaiting(s):
            _reveal(s)
        return
    if name == "tally_up":
        if p < 0:
            raise RuleError(
                "a Tally Up! press belongs to a player: send it with that player's seat"
            )
        if phase != TALLY:
            raise RuleError("No Tally Up! to claim now: three stars on a Main Roll make one")
        _tally_bonus(s, p)
        return
    if name == "window_closed":
        if p != -1:
            raise RuleError("the press window closing is a table event: send it with player -1")
        if phase != TALLY:
            raise RuleError("no Tally Up! press window is open")
        _tally_bonus(s, None)
        return
    raise RuleError(f"unknown Tally Up! action {name!r}: expected in, out or tally_up")


def _reveal(s: dict) -> None:
    running = s["running"]
    stay, leave = [], []
    for p, choice in enumerate(s["choices"]):
        if not s["in"][p]:
            continue
        if choice == "out":
            s["in"][p] = False
            s["scores"][p] += running  # OUT banks the running total at this moment
            leave.append(p)
        else:
            stay.append(p)
    s["choices"] = [None] * len(s["players"])
    s["last"] = {
        "kind": "reveal",
        "in": stay,
        "out": leave,
        "banked": running,
        "before": s["after_reveal"],
    }
    if not stay:
        _end_round(s, "everyone_out")
    else:
        s["phase"] = s["after_reveal"]


def _tally_bonus(s: dict, first: int | None) -> None:
    plus100 = [p for p, i in enumerate(s["in"]) if i and p != first]
    if first is not None:
        s["scores"][first] += 200  # IN or OUT, active player included
    for p in plus100:
        s["scores"][p] += 100
    tally_roll = (s["last"] or {}).get("roll", [])
    s["last"] = {"kind": "tally_up_bonus", "roll": tally_roll, "first": first, "plus100": plus100}
    _end_round(s, "tally_up")


def _end_round(s: dict, reason: str) -> None:
    n = len(s["players"])
    s["rounds_played"] += 1
    s["last"]["round_over"] = reason
    scores = s["scores"]
    best = max(scores)
    if s["options"]["every_player_once"]:
        due = s["rounds_played"] >= n
    else:
        due = best >= s["options"]["target"]
    if due and scores.count(best) == 1:
        s["finished"] = True
        s["phase"] = OVER
        s["tie"] = False
        s["winner"] = winners(scores, s["players"])
        s["running"] = 0
        s["last"]["game_over"] = True
        return
    # A tie for the highest score plays one more round (the next player clockwise active, all
    # players in it as usual); the end is checked again after it, for as long as the tie lasts.
    s["tie"] = due
    s["active"] = (s["active"] + 1) % n
    s["round"] += 1
    s["running"] = 0
    s["in"] = [True] * n
    s["choices"] = [None] * n
    s["locked"] = None
    s["main_roll"] = None
    s["bonus"] = 0
    s["after_reveal"] = MAIN
    s["phase"] = MAIN


# ---------------------------------------------------------------------------------------------
# Summary


def summary(state: dict) -> dict:
    """The replay JSON: scores, round, active player, winner, plus the round in progress.

    >>> from vision.dicesets import load
    >>> s = new_game(["Ana", "Ben"], load("tally-up").layout())
    >>> summary(s)["players"]
    [{'name': 'Ana', 'score': 0}, {'name': 'Ben', 'score': 0}]
    """
    players = state["players"]
    return {
        **summary_base(state, state["winner"]),
        "rounds_played": state["rounds_played"],
        "running": state["running"],
        "in": [players[p] for p in range(len(players)) if state["in"][p]],
        "locked": list(state["locked"] or []),
        "phase": state["phase"],
        "tie": state["tie"],
        "options": dict(state["options"]),
    }


def facts(state: dict) -> Facts:
    """What everyone may see: the running total, the locked dice, the target, who is IN or OUT
    (public since the last reveal; a choice waiting for the reveal is never in it).

    >>> from vision.dicesets import load
    >>> from tray.rules.engine import roll
    >>> s = new_game(["Ana", "Ben"], load("tally-up").layout())
    >>> f = facts(apply(s, roll("red:200", "blue:100", "yellow:150")))
    >>> f.figures, f.locked, f.status
    ((('Running total', 450), ('Target', 2500)), ('red', 'yellow', 'blue'), {0: 'IN', 1: 'IN'})
    """
    opts = state["options"]
    figures: list[tuple[str, int | str]] = [("Running total", state["running"])]
    if opts["every_player_once"]:
        figures.append(("Game", "everyone active once"))
    else:
        figures.append(("Target", opts["target"]))
    seats = range(len(state["players"]))
    last = state["last"] or {}
    kind = last.get("kind")
    loss, losses = "", {}
    if kind == "bust":
        loss, losses = "Bust", dict.fromkeys(last["busted"], last["lost"])
    elif kind == "tally_up":
        loss, losses = "Three stars", dict.fromkeys(last["in"], last["lost"])
    return Facts(
        figures=tuple(figures),
        locked=tuple(state["locked"] or ()),
        status={p: "IN" if state["in"][p] else "OUT" for p in seats},
        in_out=(
            tuple(p for p in seats if state["in"][p]),
            tuple(p for p in seats if not state["in"][p]),
        ),
        loss=loss,
        losses=losses,
        reveal=(tuple(last["in"]), tuple(last["out"])) if kind == "reveal" else None,
        **last_move(state),
    )
