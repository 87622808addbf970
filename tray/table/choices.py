"""How a decision is answered with buttons, and the words for its choices.

* :func:`classify_decision`: "secret" (IN/OUT toggle), "single" (one press sends it), "choice"
  (short press = next, long press = OK) or "none".
* :class:`SaveBuilder`: Rollers' "which dice to save" chosen die by die instead of stepping
  through every save set (up to 36): a short press moves along the dice and "Roll the others"
  / "Stop", a long press on a die keeps it or lets it go again (the way back), a long press on
  "Roll the others" saves the kept dice.

>>> from tray.rules.engine import Decision, action
>>> choices = (action(0, "save", dice=[]), action(0, "save", dice=[0]), action(0, "stop"))
>>> d = Decision(player=0, actions=("save", "stop"), choices=choices, default=choices[1])
>>> b = SaveBuilder(d, ["wild:3", "wild:star"])
>>> b.labels()
['keep 3', 'roll STAR', 'Roll the others', 'Stop here']
>>> b.press(False); b.press(True); b.labels()[1]          # keep the STAR too
'keep STAR'
>>> b.press(False); b.press(True) is None                # keeping every die is "Stop"
True
>>> for long in (False, False, False, True, False):   # round to the STAR, let it go again
...     b.press(long)
>>> b.press(True)                                        # "Roll the others"
{'type': 'action', 'player': 0, 'action': 'save', 'dice': [0]}
"""

from __future__ import annotations

from collections import Counter

from tray.rules.engine import Decision


def choice_label(event: dict, players: list[str] | None = None) -> str:
    """Short words for an action event offered as a choice ("mark 11", "save 1, 3", "stop")."""
    name = str(event.get("action", "?")).replace("_", " ")
    extras = {k: v for k, v in event.items() if k not in ("type", "player", "action")}
    parts = [name]
    for k, v in extras.items():
        if (
            k in ("target", "victim", "who", "loser")
            and isinstance(v, int)
            and players
            and 0 <= v < len(players)
        ):
            parts.append(players[v])
        elif isinstance(v, list):
            parts.append(f"{k} " + (", ".join(str(x) for x in v) if v else "none"))
        elif isinstance(v, dict):
            parts.append(", ".join(f"{a}={b}" for a, b in v.items()))
        else:
            parts.append(f"{k} {v}" if k not in ("number", "value", "section") else str(v))
    return " ".join(parts)


def classify_decision(d: Decision) -> str:
    """How a player answers a decision with buttons: "secret" (IN/OUT toggle), "single" (one
    press sends it), "choice" (cycle + confirm) or "none" (nothing a button can send)."""
    if d.secret:
        return "secret"
    if len(d.choices) == 1:
        return "single"
    if len(d.choices) > 1:
        return "choice"
    return "none"


def is_save_choice(d: Decision | None) -> bool:
    """A decision offering save sets (``action "save"`` with ``dice`` indices) and maybe
    ``stop``, with more than two sets: worth choosing die by die."""
    if d is None or d.secret:
        return False
    saves = [c for c in d.choices if c.get("action") == "save"]
    others = [c for c in d.choices if c.get("action") != "save"]
    return (
        len(saves) > 2
        and all(isinstance(c.get("dice"), list) for c in saves)
        and all(c.get("action") == "stop" for c in others)
    )


def _face_words(spec: str) -> str:
    face = spec.split(":", 1)[-1]
    return face if face.isdigit() else face.upper()


class SaveBuilder:
    """The dice to save, chosen die by die (see the module doc). ``roll``: the last roll's
    ``die:face`` specs, in the order the save indices refer to."""

    def __init__(self, decision: Decision, roll: list[str]):
        self.decision = decision
        self.roll = list(roll)
        d = decision.default
        self.keep: set[int] = set(d.get("dice", [])) if d and d.get("action") == "save" else set()
        self.focus = 0
        self.has_stop = any(c.get("action") == "stop" for c in decision.choices)

    def labels(self) -> list[str]:
        """The lines shown: each die ("keep 3" / "roll 3"), then "Roll the others", "Stop"."""
        ids = Counter(s.split(":", 1)[0] for s in self.roll)
        common = ids.most_common(1)[0][0] if ids else ""
        same = Counter(self.roll)
        seen: Counter = Counter()
        out = []
        for i, s in enumerate(self.roll):  # the odd die out is named: "keep black 4"
            die = s.split(":", 1)[0]
            words = _face_words(s) if die == common else f"{die} {_face_words(s)}"
            seen[s] += 1
            if same[s] > 1:  # two 4s: "roll 4 (1 of 2)", "roll 4 (2 of 2)"
                words += f" ({seen[s]} of {same[s]})"
            out.append(("keep " if i in self.keep else "roll ") + words)
        out.append("Roll the others")
        if self.has_stop:
            out.append("Stop here")
        return out

    def event(self) -> dict | None:
        """The save event keeping these dice (same faces are interchangeable), or None when
        the rules offer no such save (keeping all of them is "Stop")."""
        want = Counter(self.roll[i] for i in self.keep)
        for c in self.decision.choices:
            if (
                c.get("action") == "save"
                and Counter(self.roll[i] for i in c["dice"] if 0 <= i < len(self.roll)) == want
            ):
                return dict(c)
        return None

    def stop_event(self) -> dict | None:
        return next((dict(c) for c in self.decision.choices if c.get("action") == "stop"), None)

    def move(self, step: int = 1) -> None:
        self.focus = (self.focus + step) % len(self.labels())

    def press(self, long: bool) -> dict | None:
        """Short = next line; long = keep / let go the highlighted die, or the event of
        "Roll the others" / "Stop" (None while choosing, or when no such save exists)."""
        if not long:
            self.move(1)
            return None
        if self.focus < len(self.roll):
            self.keep ^= {self.focus}
            return None
        if self.focus == len(self.roll):
            return self.event()
        return self.stop_event()

    def plan(self, event: dict) -> list[bool]:
        """The presses (long?) that send ``event`` from here (a simulated player's hands)."""
        out: list[bool] = []
        focus = self.focus
        n = len(self.labels())

        def go(i: int) -> None:
            nonlocal focus
            out.extend([False] * ((i - focus) % n))
            focus = i

        if event.get("action") == "stop":
            go(n - 1)
            return [*out, True]
        want = set(event.get("dice", []))
        for i in range(len(self.roll)):
            if (i in self.keep) != (i in want):
                go(i)
                out.append(True)
        go(len(self.roll))
        return [*out, True]
