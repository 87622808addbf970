"""The live odds on the play screen: the words (``odds_lines``, from tray/rules/odds.py) and
the panel across the bottom of the play screen (``draw_odds``), which lays the game out above
it.

>>> from tray.rules.games import bank
>>> s = bank.new_game(["Ann", "Ben"], {"d6": ["1", "2", "3", "4", "5", "6"]})
>>> odds_lines(s)
[('Odds', ''), ('roll', 'bust 0%, expect 17.5')]
"""

from __future__ import annotations

import json

from tray.rules import games
from tray.rules.odds import odds
from tray.screen import theme as th

MAX_LINES = 5
_EXTRA = {
    "p_tally_up": "Tally Up!",
    "p_up_helps": "Up Die helps",
    "p_complete": "sheet full",
    "p_progress": "progress",
    "p_close_board": "board closed",
}
_memo: dict[str, list] = {}


def odds_lines(state: dict) -> list[tuple[str, str]]:
    """(label, words) lines for the decision at hand, the best expected first when there are
    many; a title line first; [] when nothing is left to chance. Remembers the last state."""
    key = json.dumps(state, sort_keys=True, default=str)
    if key in _memo:
        return _memo[key]
    options = odds(state)["options"]
    if len(options) > MAX_LINES:
        options = sorted(options, key=lambda o: o.expected_points, reverse=True)[:MAX_LINES]
    lines = []
    lower = games.get(state["game"]).LOWEST_WINS
    for o in options:
        exp = float(o.expected_points)
        exp_words = f"{exp:.0f}" if abs(exp) >= 100 else f"{exp:.1f}"
        words = f"bust {float(o.p_bust):.0%}, expect {exp_words}"
        if lower:
            words = f"out now {float(o.p_bust):.0%}, round score {exp_words}"
        for k, v in o.extra.items():
            if v:  # a chance of 0 says nothing worth the room
                words += f", {_EXTRA.get(k, k)} {float(v):.0%}"
        label = o.choice
        if "+" in label:  # dice choices: "red+orange+yellow" -> "red, orange, yellow"
            label = ", ".join(label.split("+"))
        lines.append((label, words))
    out = [("Odds", ""), *lines] if lines else []
    _memo.clear()
    _memo[key] = out
    return out


def odds_height(d, lines: int) -> float:
    """The height of the odds panel with ``lines`` lines (the title one of them)."""
    return (d.line_h(th.CAP_SMALL) + 4) * lines + 12


def draw_odds(d, lines: list[tuple[str, str]], x: float, y: float, w: float, h: float) -> None:
    """The odds panel in the layout rect (x, y, w, h): a label column, then the figures."""
    lh = d.line_h(th.CAP_SMALL) + 4
    d.box((x, y, w, h), th.BLACK, radius=10)
    d.box((x, y, w, h), th.BLUE, radius=10, width=2)
    label_w = min(w * 0.42, max(d.width_of(lab, th.CAP_SMALL, True) for lab, _ in lines) + 12)
    for i, (label, words) in enumerate(lines):
        ly = y + 6 + i * lh
        colour = th.BLUE if i == 0 else th.TEXT
        d.text(label, (x + 10, ly), th.CAP_SMALL, colour, bold=True, max_w=label_w)
        room = w - label_w - 20
        while "," in words and not d.fits(words, room):
            words = words.rsplit(",", 1)[0]  # the last figure goes first: never cut in two
        if words:
            d.text(words, (x + 10 + label_w, ly), th.CAP_SMALL, th.DIM, max_w=room)
