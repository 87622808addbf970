"""Toss Up! (Patch Products): the rules engine.

Readings as in ``tray/rules/RULES.md`` section 2 (#2-toss-up). Ten identical dice (die id
``toss``), faces ``green`` / ``yellow`` / ``red``. A turn starts with all 10 dice; after each
roll the greens are set aside and count one point each; a roll with no green and at least one
red busts the turn (0 points). After a roll that did not bust, the player stops (banks the
turn's points) or rolls the dice that are left; when all 10 are green they all come back. When a
player ends a turn over 100, every other player gets one last turn; then the highest score wins
(tied players share the win, or with the ``tie_break`` option play another turn each until the
tie breaks).

The state waits for the roll of the dice that are left AND, after a roll that did not bust,
the active player's ``stop`` at the same time (expect() gives both).

    >>> from vision.dicesets import load
    >>> from tray.rules.engine import roll, action
    >>> s = new_game(["Ana", "Ben"], load("toss-up").layout())
    >>> expect(s).prompt
    'Ana: roll all 10 dice'
    >>> s = apply(s, roll(*["toss:green"] * 4 + ["toss:yellow"] * 5 + ["toss:red"]))
    >>> s["turn_points"], s["left"]
    (4, 6)
    >>> s = apply(s, action(0, "stop"))
    >>> s["scores"], s["active"]
    ([4, 0], 1)
"""

from __future__ import annotations

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

GAME_ID = "toss-up"
TITLE = "Toss Up!"
DICE_SET = "toss-up"
MIN_PLAYERS = 2
MAX_PLAYERS = 6
LOWEST_WINS = False
OPTIONS = {"tie_break": False}  # True: tied leaders play another turn each until one leads

DICE = 10  # dice in the game
GOAL = 100  # a total strictly over this at the end of a turn starts the last turns
FACES = ("green", "yellow", "red")
SUGGEST_STOP_AT = 10  # the suggested choice is to stop once the turn holds this many points


def toss_die(layout: dict[str, list[str]]) -> str:
    """The die id of a Toss Up! layout (one die kind, faces green/yellow/red); RuleError if not.

    >>> from vision.dicesets import load
    >>> toss_die(load("toss-up").layout())
    'toss'
    """
    if not isinstance(layout, dict) or len(layout) != 1:
        raise RuleError(
            "the Toss Up! layout must have exactly one kind of die: load the toss-up dice set"
        )
    ((die, faces),) = layout.items()
    bad = [f for f in faces if f not in FACES]
    if bad or not faces:
        raise RuleError(
            f"the {die} die has faces {bad or faces} that Toss Up! does not know: "
            "use green, yellow and red in the dice-set file"
        )
    return die


#: every action of this game and the extra keys it carries (engine.check_event)
ACTION_KEYS: dict[str, tuple[str, ...]] = {"stop": ()}


def new_game(players: list[str], layout: dict[str, list[str]], options: dict | None = None) -> dict:
    """A fresh game: seat 0 starts with all 10 dice.

    >>> from vision.dicesets import load
    >>> s = new_game(["Ana", "Ben", "Cy"], load("toss-up").layout(), {"tie_break": True})
    >>> s["left"], s["options"]
    (10, {'tie_break': True})
    """
    players = check_players(players, TITLE, MIN_PLAYERS, MAX_PLAYERS)
    opts = with_options(OPTIONS, options, TITLE)
    if not isinstance(opts["tie_break"], bool):
        raise RuleError("option tie_break must be true or false")
    layout = {str(d): list(f) for d, f in layout.items()} if isinstance(layout, dict) else layout
    toss_die(layout)
    return {
        **base_state(GAME_ID, players, layout, opts, None),
        "turn_points": 0,  # greens set aside this turn
        "left": DICE,  # dice to roll next
        "rolled": False,  # the turn has had a roll (only then may the player stop)
        "turns": 0,  # turns completed in the game
        "final": None,  # {"trigger": seat, "remaining": [seats]} once someone is over 100
        "tiebreak": None,  # {"players": [tied seats], "remaining": [seats]} in a tie-break
        "winner": None,
    }


def _suggest_stop(state: dict) -> bool:
    a = state["active"]
    mine = state["scores"][a] + state["turn_points"]
    if state["final"] or state["tiebreak"]:
        # A last turn (or tie-break turn) is only worth stopping once it takes the lead.
        others = [sc for p, sc in enumerate(state["scores"]) if p != a]
        return mine > max(others)
    return state["turn_points"] >= SUGGEST_STOP_AT or (
        state["left"] <= 3 and state["turn_points"] > 0
    )


def _detail(state: dict) -> dict:
    final = state["final"]
    tb = state["tiebreak"]
    return {
        "turn_points": state["turn_points"],
        "left": state["left"],
        "set_aside": DICE - state["left"] if state["rolled"] else 0,
        "scores": list(state["scores"]),
        "last_turns": bool(final),
        "trigger": final["trigger"] if final else None,
        "remaining": list((tb or final or {}).get("remaining", [])),
        "tiebreak": list(tb["players"]) if tb else [],
    }


def expect(state: dict) -> Expect:
    """What the state waits for: the roll of the dice left, and (after a roll) a possible stop.

    >>> from vision.dicesets import load
    >>> e = expect(new_game(["Ana", "Ben"], load("toss-up").layout()))
    >>> e.roll.dice == ("toss",) * 10, e.decisions
    (True, ())
    """
    players = state["players"]
    detail = _detail(state)
    if state["finished"]:
        w = state["winner"]
        best = max(state["scores"])
        if isinstance(w, list):
            return Expect(
                prompt=f"Game over: {and_list(w)} share the win with {best} points",
                finished=True,
                detail=detail,
            )
        return Expect(
            prompt=f"Game over: {w} wins with {best} points", finished=True, detail=detail
        )
    a = state["active"]
    die = toss_die(state["layout"])
    left = state["left"]
    spec = RollSpec(
        a, left, DICE_SET, dice=(die,) * left, purpose="more" if state["rolled"] else "turn"
    )
    if state["tiebreak"]:
        lead = f"Tie-break turn! {players[a]}"
    elif state["final"]:
        trig = state["final"]["trigger"]
        lead = f"Last turn ({players[trig]} has {state['scores'][trig]})! {players[a]}"
    else:
        lead = players[a]
    if not state["rolled"]:
        return Expect(prompt=f"{lead}: roll all {left} dice", roll=spec, detail=detail)
    stop = action(a, "stop")
    decision = Decision(
        a, ("stop",), choices=(stop,), default=stop if _suggest_stop(state) else None
    )
    prompt = (
        f"{lead}: roll the {left} dice left or stop ({state['turn_points']} points this turn)"
        if left < DICE
        else f"{lead}: roll all {left} dice again or stop ({state['turn_points']} points this turn)"
    )
    return Expect(prompt=prompt, roll=spec, decisions=(decision,), detail=detail)


def apply(state: dict, event: dict) -> dict:
    """The state after ``event``; RuleError (a sentence for the table) if the rules refuse it.

    The input state is never changed.
    """
    check_event(event, ACTION_KEYS)
    return apply_event(state, event, _apply_roll, _apply_action)


def _apply_roll(s: dict, event: dict) -> None:
    raw = event.get("dice")
    if not isinstance(raw, list):
        raise RuleError("expected a roll of dice")
    dice = [parse_die(d) for d in raw]
    die = toss_die(s["layout"])
    for d, face in dice:
        if d != die:
            raise RuleError(f"{d} is not a Toss Up! die")
        if face not in s["layout"][die]:
            raise RuleError(f"a Toss Up! die has no face {face}: check the roll")
    left = s["left"]
    if len(dice) != left:
        # Every message ends with "roll N dice", the words of RULES.md 2.4 for this refusal.
        if not s["rolled"]:
            raise RuleError(
                f"{len(dice)} dice seen: a turn starts with all {left} dice: roll {left} dice"
            )
        if len(dice) > left:
            raise RuleError(f"{len(dice)} dice seen: remove the greens set aside: roll {left} dice")
        raise RuleError(
            f"{len(dice)} dice seen: only {left} dice are left to roll: roll {left} dice"
        )
    faces = [f for _, f in dice]
    greens, reds = faces.count("green"), faces.count("red")
    roll = [f"{d}:{f}" for d, f in dice]
    a = s["active"]
    if greens == 0 and reds >= 1:
        # "Run a red light": the turn scores nothing and ends.
        s["last"] = {
            "kind": "bust",
            "player": a,
            "roll": roll,
            "points": 0,
            "lost": s["turn_points"],
        }
        _end_turn(s)
        return
    s["turn_points"] += greens
    s["left"] = left - greens
    all_back = s["left"] == 0
    if all_back:
        s["left"] = DICE  # all ten green: they all come back and the turn goes on
    s["rolled"] = True
    s["last"] = {
        "kind": "roll",
        "player": a,
        "roll": roll,
        "greens": greens,
        "all_yellow": greens == 0 and reds == 0,
        "all_back": all_back,
        "turn_points": s["turn_points"],
        "left": s["left"],
    }


def _apply_action(s: dict, event: dict) -> None:
    p = event.get("player")
    name = event.get("action")
    if name != "stop":
        raise RuleError(f"unknown Toss Up! action {name!r}: the only action is stop")
    if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < len(s["players"]):
        raise RuleError(f"unknown player {p!r}: seats are 0 to {len(s['players']) - 1}")
    a = s["active"]
    if p != a:
        raise RuleError(f"Only {s['players'][a]}, whose turn it is, can stop")
    if not s["rolled"]:
        raise RuleError(
            f"{s['players'][a]}: roll the dice first: a turn starts with all {DICE} dice"
        )
    s["scores"][a] += s["turn_points"]
    s["last"] = {"kind": "stop", "player": a, "points": s["turn_points"], "score": s["scores"][a]}
    _end_turn(s)


def _after(seat: int, seats: list[int], n: int) -> list[int]:
    """``seats`` in turn order starting with the first one after ``seat``."""
    return sorted(seats, key=lambda p: (p - seat - 1) % n)


def _end_turn(s: dict) -> None:
    n = len(s["players"])
    a = s["active"]
    s["turns"] += 1
    s["turn_points"] = 0
    s["left"] = DICE
    s["rolled"] = False
    queue = None
    if s["tiebreak"]:
        s["tiebreak"]["remaining"].remove(a)
        queue = s["tiebreak"]["remaining"]
        if not queue:
            tied = s["tiebreak"]["players"]
            best = max(s["scores"][p] for p in tied)
            still = [p for p in tied if s["scores"][p] == best]
            if len(still) == 1:
                _finish(s)
                return
            s["tiebreak"] = {"players": still, "remaining": _after(a, still, n)}
            queue = s["tiebreak"]["remaining"]
            s["last"]["tie_continues"] = [s["players"][p] for p in still]
    elif s["final"]:
        s["final"]["remaining"].remove(a)
        queue = s["final"]["remaining"]
        if not queue:
            best = max(s["scores"])
            tied = [p for p in range(n) if s["scores"][p] == best]
            if len(tied) == 1 or not s["options"]["tie_break"]:
                _finish(s)
                return
            s["tiebreak"] = {"players": tied, "remaining": _after(a, tied, n)}
            queue = s["tiebreak"]["remaining"]
            s["last"]["tie"] = [s["players"][p] for p in tied]
    elif s["scores"][a] > GOAL:
        # Over 100 at the end of the turn: every other player gets one last turn, in order.
        s["final"] = {"trigger": a, "remaining": _after(a, [p for p in range(n) if p != a], n)}
        queue = s["final"]["remaining"]
        s["last"]["last_turns"] = True
    nxt = queue[0] if queue else (a + 1) % n
    if nxt <= a:
        s["round"] += 1
    s["active"] = nxt


def _finish(s: dict) -> None:
    s["finished"] = True
    s["winner"] = winners(s["scores"], s["players"])
    s["last"]["game_over"] = True


def summary(state: dict) -> dict:
    """The replay JSON: scores, round, active player, winner, plus the turn in progress.

    >>> from vision.dicesets import load
    >>> summary(new_game(["Ana", "Ben"], load("toss-up").layout()))["winner"] is None
    True
    """
    players = state["players"]
    return {
        **summary_base(state, state["winner"]),
        "turns": state["turns"],
        "turn_points": state["turn_points"],
        "left": state["left"],
        "last_turns": bool(state["final"]),
        "tiebreak": [players[p] for p in state["tiebreak"]["players"]] if state["tiebreak"] else [],
        "options": dict(state["options"]),
    }


def facts(state: dict) -> Facts:
    """What everyone may see: the turn's points, the dice left and set aside, who has a last
    turn.

    >>> from vision.dicesets import load
    >>> from tray.rules.engine import roll
    >>> s = new_game(["Ana", "Ben"], load("toss-up").layout())
    >>> s = apply(s, roll(*["toss:green"] * 3, *["toss:yellow"] * 7))
    >>> facts(s).figures
    (('Turn points', 3), ('Dice left', 7), ('Set aside', 3))
    """
    figures: list[tuple[str, int | str]] = [
        ("Turn points", state["turn_points"]),
        ("Dice left", state["left"]),
    ]
    if state["rolled"] and state["left"] < DICE:
        figures.append(("Set aside", DICE - state["left"]))
    remaining = (state["tiebreak"] or state["final"] or {}).get("remaining", [])
    last = state["last"] or {}
    bust = last.get("kind") == "bust"
    return Facts(
        figures=tuple(figures),
        status=dict.fromkeys(remaining, "last turn"),
        loss="Bust" if bust else "",
        losses={last["player"]: last["lost"]} if bust else {},
        **last_move(state),
    )
