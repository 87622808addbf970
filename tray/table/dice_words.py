"""Dice in the words players use: die names and faces as printed on the dice, never the ids
of the dice-set files ("up", "wild", "d6", "(200)").

>>> spec_words("up:x2"), spec_words("red:(200)"), spec_words("wild:star")
('Up Die: x2', 'red die: circled 200', 'wild die: star')
>>> spec_words("d6:3"), spec_words("toss:green")
('3', 'green')
>>> dice_words(["wild", "wild", "wild"]), dice_words(["up"]), dice_words(["red", "yellow", "blue"])
('3 wild dice', 'Up Die', 'red, yellow and blue dice')
>>> dice_words(["wild", "black", "wild"])
'2 wild dice and the black die'
>>> count_words(2), count_words(1), count_words(12)
('2 dice', '1 die', '12 dice')
"""

from __future__ import annotations

from collections import Counter

from tray.rules.engine import and_list

#: dice whose id is not how people call them: (one, many)
_NAMES = {"up": ("Up Die", "Up Dice"), "d6": ("die", "dice"), "toss": ("die", "dice")}
#: the dice of a set of one kind: the face says it all ("3", "green")
_PLAIN = ("d6", "toss")
_FACES = {"star": "star", "zap": "ZAP"}


def die_name(die: str, many: bool = False) -> str:
    """``"up"`` -> "Up Die", ``"red"`` -> "red die" (``many``: "red dice")."""
    one, more = _NAMES.get(die, (f"{die} die", f"{die} dice"))
    return more if many else one


def face_words(face: str) -> str:
    """A face as printed: ``"(200)"`` -> "circled 200", ``"zap"`` -> "ZAP", ``"x2"`` -> "x2"."""
    if face.startswith("(") and face.endswith(")"):
        return f"circled {face[1:-1]}"
    return _FACES.get(face, face)


def spec_words(spec: str) -> str:
    """A ``die:face`` reading in words: the face alone for plain dice, else "die: face"."""
    die, _, face = spec.partition(":")
    if die in _PLAIN:
        return face_words(face)
    return f"{die_name(die)}: {face_words(face)}"


def count_words(n: int) -> str:
    """``1`` -> "1 die", ``3`` -> "3 dice"."""
    return f"{n} {'die' if n == 1 else 'dice'}"


def dice_words(ids) -> str:
    """Die ids as a list of dice: "3 wild dice", "Up Die", "red, yellow and blue dice"."""
    counts = Counter(ids)
    if not counts:
        return "no dice"
    if len(counts) > 1 and all(n == 1 and d not in _NAMES for d, n in counts.items()):
        return and_list(list(counts)) + " dice"  # colours: "red, yellow and blue dice"
    parts = [
        (die_name(d) if i == 0 else f"the {die_name(d)}")  # "3 wild dice and the black die"
        if n == 1
        else f"{n} {die_name(d, many=True)}"
        for i, (d, n) in enumerate(counts.items())
    ]
    return and_list(parts)
