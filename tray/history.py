"""The table's memory: dice fairness and the history of every game, read from the journals.

``read_folder(DIR)`` opens every ``*.jsonl`` journal of a folder with the journal reader
(``tray.rules.journal.Journal.open``); a file that is not a readable game journal is skipped
with a note, never an error. From the games read:

- ``dice_fairness(games)``: per die of each dice set (the die id: ``red`` of Tally Up!, the
  ``d6`` both pip dice share), the count of each face over every roll in the journals, a
  chi-square goodness-of-fit test against the layout (a face printed twice is expected twice
  as often) and a plain verdict that honours the sample size and, when several dice are
  tested at once, the chance that one of them looks uneven by luck alone (Holm's method).
- ``history(games)``: games played and won per player name and per game, longest winning
  streaks, best scores, and each game's scores round by round (``chart``).

``dicetray stats`` (tray/app/stats.py) prints both.

Example::

    >>> import tempfile, pathlib
    >>> from tray.layouts import default_layout
    >>> from tray.rules.journal import Journal
    >>> from tray.rules.engine import roll
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> j = Journal.create(d / "g.jsonl", "bank", ["Ann", "Ben"], {}, default_layout("bank"))
    >>> _ = j.append(roll("d6:3", "d6:4"))
    >>> (d / "notes.jsonl").write_text("hello")
    5
    >>> games, notes = read_folder(d)
    >>> len(games), [n.split(":")[0] for n in notes]
    (1, ['notes.jsonl'])
    >>> dice_fairness(games)[0]["counts"]
    {'1': 0, '2': 0, '3': 1, '4': 1, '5': 0, '6': 0}
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from tray.rules import games as game_modules
from tray.rules.engine import winners
from tray.rules.journal import Journal

MIN_EXPECTED = 5  # every face expected at least this often before the test can tell anything
SUSPICIOUS_P = 0.001  # below this (adjusted) p-value a die is called suspicious
UNEVEN_P = 0.05  # below this one, uneven; at or above it, fair as far as the rolls tell


@dataclass
class GameRecord:
    """One journal read back: its file, header, effective events and states."""

    path: Path
    header: dict
    events: list
    states: list

    @property
    def game(self) -> str:
        return self.header["game"]

    @property
    def final(self) -> dict:
        return self.states[-1]


def read_folder(directory: str | Path) -> tuple[list[GameRecord], list[str]]:
    """Every readable game journal of ``directory`` (oldest first, by file name, which starts
    with the date) and a note for each file skipped."""
    directory = Path(directory).expanduser()
    if not directory.is_dir():
        return [], [f"{directory}: no such folder: no games yet"]
    out, notes = [], []
    for path in sorted(directory.glob("*.jsonl")):
        try:
            j = Journal.open(path)
            states = [j.state_after(k) for k in range(len(j.events) + 1)]
            out.append(GameRecord(path, dict(j.header), list(j.events), states))
        except Exception as err:  # noqa: BLE001 - any damage: skip the file with a note
            notes.append(f"{path.name}: skipped, not a game journal ({err})")
    return out, notes


# ----------------------------------------------------------------------------- fairness


def chi_square_p(stat: float, dof: int) -> float:
    """The upper tail P(X >= stat) of a chi-square distribution with ``dof`` degrees of
    freedom: the regularized upper incomplete gamma Q(dof/2, stat/2).

    >>> round(chi_square_p(3.841, 1), 3), round(chi_square_p(11.07, 5), 3)
    (0.05, 0.05)
    """
    if stat <= 0:
        return 1.0
    return _gamma_q(dof / 2.0, stat / 2.0)


def _gamma_q(a: float, x: float) -> float:
    lg = math.lgamma(a)
    if x < a + 1:  # series for P, then Q = 1 - P
        term = total = 1.0 / a
        n = a
        for _ in range(1000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - lg))
    # continued fraction for Q (modified Lentz)
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(-x + a * math.log(x) - lg) * h)


def fairness(
    counts: dict[str, int], expected: dict[str, float], adjusted: float | None = None, tests=1
) -> dict:
    """Chi-square test of face ``counts`` against face chances ``expected``, with a verdict.

    ``adjusted``: the p-value adjusted for the ``tests`` dice tested together (see
    :func:`holm`); the verdict follows it, so that one die of many that looks a little
    uneven by luck is not called uneven.

    >>> fairness({"1": 1, "2": 1}, {"1": 0.5, "2": 0.5})["verdict"]
    'too few rolls to tell'
    >>> fairness({"1": 500, "2": 500}, {"1": 0.5, "2": 0.5})["verdict"]
    'looks fair'
    >>> fairness({"1": 535, "2": 465}, {"1": 0.5, "2": 0.5})["verdict"]  # p = 0.027
    'uneven: 1 comes up 54% (a fair die: 50%): roll it more to be sure'
    """
    n = sum(counts.values())
    out = {"rolls": n, "chi2": None, "p_value": None, "p_adjusted": None, "tests": tests}
    if n == 0 or n * min(expected.values()) < MIN_EXPECTED:
        need = math.ceil(MIN_EXPECTED / min(expected.values()))
        out["verdict"] = "too few rolls to tell"
        out["rolls_needed"] = need
        return out
    stat = sum((counts[f] - n * p) ** 2 / (n * p) for f, p in expected.items())
    p_value = chi_square_p(stat, len(expected) - 1)
    p_adj = p_value if adjusted is None else max(p_value, adjusted)
    out["chi2"], out["p_value"], out["p_adjusted"] = round(stat, 3), p_value, p_adj
    face = max(expected, key=lambda f: counts[f] / n - expected[f])
    share = f"{face} comes up {counts[face] / n:.0%}"
    fair = f"(a fair die: {expected[face]:.0%})"
    if p_adj < SUSPICIOUS_P:
        out["verdict"] = f"suspicious: {share} of the time {fair}"
    elif p_adj < UNEVEN_P:
        out["verdict"] = f"uneven: {share} {fair}: roll it more to be sure"
    elif p_value < UNEVEN_P:
        out["verdict"] = f"no clear sign of bias: {share} {fair}, common by luck among {tests} dice"
    else:
        out["verdict"] = "looks fair"
    return out


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment of p-values tested together: an adjusted p-value under
    0.05 keeps the chance of calling any fair die unfair under 5%, however many are tested.

    >>> [round(p, 3) for p in holm([0.028, 0.5, 0.01])]
    [0.056, 0.5, 0.03]
    """
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    out = [1.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        out[i] = running
    return out


def dice_fairness(records: list[GameRecord]) -> list[dict]:
    """Per dice set and die id: face counts over every roll, the chi-square test and verdict."""
    tallies: dict[tuple[str, str], dict[str, int]] = {}
    layouts: dict[tuple[str, str], list[str]] = {}
    for rec in records:
        dice_set = game_modules.get(rec.game).DICE_SET
        layout = rec.final.get("layout") or rec.header.get("layout") or {}
        for ev in rec.events:
            if ev.get("type") != "roll":
                continue
            for spec in ev.get("dice", []):
                die, _, face = str(spec).partition(":")
                if die not in layout or face not in layout[die]:
                    continue
                key = (dice_set, die)
                layouts.setdefault(key, list(layout[die]))
                counts = tallies.setdefault(key, dict.fromkeys(layout[die], 0))
                counts[face] = counts.get(face, 0) + 1
    dice = []
    for (dice_set, die), counts in sorted(tallies.items()):
        faces = layouts[(dice_set, die)]
        expected = {f: faces.count(f) / len(faces) for f in dict.fromkeys(faces)}
        dice.append((dice_set, die, {f: counts.get(f, 0) for f in expected}, expected))
    # every die with enough rolls is tested; the verdicts allow for their number
    first = [fairness(counts, expected) for _, _, counts, expected in dice]
    tested = [i for i, r in enumerate(first) if r["p_value"] is not None]
    adjusted = dict(zip(tested, holm([first[i]["p_value"] for i in tested]), strict=True))
    out = []
    for i, (dice_set, die, counts, expected) in enumerate(dice):
        result = fairness(counts, expected, adjusted[i], len(tested)) if i in adjusted else first[i]
        out.append(
            {
                "dice_set": dice_set,
                "die": die,
                "counts": counts,
                "expected": {f: round(p, 4) for f, p in expected.items()},
                **result,
            }
        )
    return out


# ----------------------------------------------------------------------------- history


def _winner_names(rec: GameRecord) -> list[str]:
    s = rec.final
    if not s.get("finished"):
        return []
    w = s.get("winner")
    if w is None:
        w = winners(s["scores"], s["players"], highest=rec.game != "diced-out")
    return w if isinstance(w, list) else [w]


def chart(rec: GameRecord) -> list[list[int]]:
    """The scores at the end of every round (and the last state), one list per point."""
    points, last_round = [list(rec.states[0]["scores"])], rec.states[0].get("round")
    for s in rec.states[1:]:
        if s.get("round") != last_round:
            points.append(list(s["scores"]))  # the event that ended the round scored it
            last_round = s.get("round")
    last = rec.states[-1]
    ended_here = len(rec.states) > 1 and rec.states[-2].get("round") != last.get("round")
    if (last.get("finished") or last["scores"] != points[-1]) and not ended_here:
        points.append(list(last["scores"]))  # the last round (or the one being played)
    return points


def history(records: list[GameRecord]) -> dict:
    """Games played and won per player and per game, streaks, best scores, every game."""
    players: dict[str, dict] = {}
    streak: dict[str, int] = {}
    best: dict[str, list] = {}
    games_out = []
    for rec in records:
        s = rec.final
        names = list(s["players"])
        won = _winner_names(rec)
        games_out.append(
            {
                "file": rec.path.name,
                "game": rec.game,
                "time": rec.header.get("time"),
                "players": names,
                "scores": list(s["scores"]),
                "finished": bool(s.get("finished")),
                "winners": won,
                "chart": chart(rec),
            }
        )
        if not s.get("finished"):
            continue
        for name, score in zip(names, s["scores"], strict=True):
            p = players.setdefault(
                name, {"played": 0, "won": 0, "longest_streak": 0, "by_game": {}}
            )
            g = p["by_game"].setdefault(rec.game, {"played": 0, "won": 0})
            p["played"] += 1
            g["played"] += 1
            if name in won:
                p["won"] += 1
                g["won"] += 1
                streak[name] = streak.get(name, 0) + 1
                p["longest_streak"] = max(p["longest_streak"], streak[name])
            else:
                streak[name] = 0
            best.setdefault(rec.game, []).append(
                {"player": name, "score": score, "file": rec.path.name}
            )
    for game, rows in best.items():
        rows.sort(key=lambda r: r["score"], reverse=game != "diced-out")
        best[game] = rows[:5]
    return {
        "games": len(records),
        "finished": sum(g["finished"] for g in games_out),
        "players": dict(sorted(players.items(), key=lambda kv: (-kv[1]["won"], kv[0]))),
        "best_scores": best,
        "all_games": games_out,
    }


# ----------------------------------------------------------------------------- command
