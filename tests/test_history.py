"""Dice fairness and the table's history (tray/history.py): simulated fair and loaded dice,
hand-made games with known winners, bad and foreign journals, the chart PNG."""

from __future__ import annotations

import json
import random

import pytest

from tray.app.stats import main_stats
from tray.history import (
    chi_square_p,
    dice_fairness,
    fairness,
    history,
    holm,
    read_folder,
)
from tray.layouts import default_layout
from tray.rules.engine import action, roll
from tray.rules.journal import Journal

D6 = {"d6": ["1", "2", "3", "4", "5", "6"]}


def _bank_journals(folder, faces, tag):
    """Bank games rolling the given d6 faces in order (new journals while faces remain)."""
    faces = list(faces)
    k = 0
    while faces:
        j = Journal.create(folder / f"{tag}-{k}.jsonl", "bank", ["Ann", "Ben"], {"rounds": 10}, D6)
        while faces and not j.finished:
            j.append(roll(f"d6:{faces.pop()}", f"d6:{faces.pop()}"))
        k += 1


def test_chi_square_tail_matches_tables():
    assert chi_square_p(3.841, 1) == pytest.approx(0.05, abs=1e-3)
    assert chi_square_p(15.086, 5) == pytest.approx(0.01, abs=1e-4)
    assert chi_square_p(0.0, 5) == 1.0
    assert chi_square_p(200.0, 5) < 1e-30


def test_fair_dice_look_fair(tmp_path):
    rng = random.Random(11)
    _bank_journals(tmp_path, [rng.randint(1, 6) for _ in range(600)], "fair")
    games, notes = read_folder(tmp_path)
    assert notes == []
    (d6,) = dice_fairness(games)
    assert d6["rolls"] == 600 and d6["verdict"] == "looks fair"
    assert d6["p_value"] > 0.01


def test_loaded_die_is_suspicious(tmp_path):
    rng = random.Random(12)
    loaded = rng.choices(range(1, 7), weights=[13, 13, 14, 14, 14, 31], k=600)
    _bank_journals(tmp_path, loaded, "loaded")
    (d6,) = dice_fairness(read_folder(tmp_path)[0])
    assert d6["verdict"].startswith("suspicious: 6 comes up 3")
    assert d6["p_value"] < 1e-6


def test_few_rolls_cannot_tell():
    out = fairness(
        {"1": 3, "2": 0, "3": 1, "4": 2, "5": 0, "6": 4}, {str(i): 1 / 6 for i in range(1, 7)}
    )
    assert out["verdict"] == "too few rolls to tell" and out["rolls_needed"] == 30


def _toss_game(folder, name, winner):
    """A Toss Up! game that ``winner`` (0 or 1) wins 110 to 0."""
    j = Journal.create(folder / name, "toss-up", ["Ann", "Ben"], {}, default_layout("toss-up"))
    tens = roll(*["toss:green"] * 10)
    bust = roll(*["toss:red"] * 10)
    if winner == 1:
        j.append(bust)  # Ann busts, Ben plays the long turn
    for _ in range(11):
        j.append(tens)
    j.append(action(winner, "stop"))
    j.append(bust)  # the last turn of the other player
    assert j.finished
    return j


def test_history_counts_wins_streaks_best_scores_and_charts(tmp_path):
    for i, w in enumerate([0, 0, 0, 1, 0]):
        _toss_game(tmp_path, f"2026-11-2{i}_toss-up.jsonl", w)
    (tmp_path / "zz-foreign.jsonl").write_text(json.dumps({"hello": "world"}) + "\n")
    (tmp_path / "zz-broken.jsonl").write_text("{not json\n")
    games, notes = read_folder(tmp_path)
    assert len(games) == 5 and len(notes) == 2
    assert all("skipped" in n for n in notes)
    h = history(games)
    assert h["players"]["Ann"]["won"] == 4 and h["players"]["Ann"]["played"] == 5
    assert h["players"]["Ann"]["longest_streak"] == 3
    assert h["players"]["Ben"]["longest_streak"] == 1
    assert h["players"]["Ben"]["by_game"] == {"toss-up": {"played": 5, "won": 1}}
    assert h["best_scores"]["toss-up"][0]["score"] == 110
    chart = h["all_games"][0]["chart"]
    assert chart[0] == [0, 0] and chart[-1] == [110, 0]


def test_stats_command_json_and_plot(tmp_path, capsys):
    journals = tmp_path / "j"
    journals.mkdir()
    _toss_game(journals, "a.jsonl", 0)
    (journals / "b.jsonl").write_bytes(b"\x00\xff garbage")
    assert main_stats(["--journals", str(journals), "--plot", str(tmp_path / "png"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["read"] == 1 and len(out["skipped"]) == 1
    assert out["dice"][0]["die"] == "toss"
    assert out["history"]["players"]["Ann"]["won"] == 1
    (png,) = out["plots"]
    assert png.endswith("a.png") and (tmp_path / "png" / "a.png").read_bytes()[:4] == b"\x89PNG"


def test_stats_command_missing_folder(tmp_path, capsys):
    """A folder named on the command line that is not there is a mistake: one line, exit 2
    (before: exit 0 and an empty report)."""
    assert main_stats(["--journals", str(tmp_path / "none")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"dicetray stats: {tmp_path / 'none'}: no such folder")
    (tmp_path / "a.jsonl").write_text("")
    assert main_stats(["--journals", str(tmp_path / "a.jsonl"), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "is a file, not a folder" in err


def test_stats_with_the_configs_folder_not_made_yet_has_no_games(tmp_path, capsys, monkeypatch):
    """The config's journal folder is made by the first game: before it, no games yet."""
    import types

    import tray.app.stats

    cfg = types.SimpleNamespace(journal=types.SimpleNamespace(directory=str(tmp_path / "j")))
    monkeypatch.setattr(tray.app.stats, "load_config", lambda: cfg)
    assert main_stats([]) == 0
    assert "no games yet" in capsys.readouterr().out


D6_FAIR = {str(i): 1 / 6 for i in range(1, 7)}
P_028 = {"1": 100, "2": 100, "3": 100, "4": 100, "5": 75, "6": 125}  # chi2 12.5, p = 0.028


def test_a_p_value_under_5_percent_is_not_called_fair():
    out = fairness(P_028, D6_FAIR)
    assert out["p_value"] == pytest.approx(0.0285, abs=5e-4)
    assert out["verdict"] == "uneven: 6 comes up 21% (a fair die: 17%): roll it more to be sure"


def test_several_dice_tested_together_allow_for_luck():
    """Of six dice tested, one at p = 0.028 is no clear sign (Holm: 6 x 0.028 > 0.05); the
    same die tested alone is uneven, and a strongly loaded one stays suspicious."""
    assert holm([0.028, 0.5, 0.6, 0.7, 0.8, 0.9]) == pytest.approx([0.168, 1, 1, 1, 1, 1])
    assert holm([0.01, 0.04]) == pytest.approx([0.02, 0.04])
    out = fairness(P_028, D6_FAIR, adjusted=0.168, tests=6)
    assert out["p_adjusted"] == pytest.approx(0.168) and out["tests"] == 6
    assert out["verdict"].startswith("no clear sign of bias: 6 comes up 21%")
    assert "looks fair" not in out["verdict"] and "suspicious" not in out["verdict"]
    loaded = {"1": 80, "2": 80, "3": 80, "4": 80, "5": 80, "6": 200}
    assert fairness(loaded, D6_FAIR, adjusted=6e-20, tests=6)["verdict"].startswith("suspicious")


def test_a_chart_of_scores_far_beyond_a_game_is_drawn(tmp_path):
    """A score range over 10,000 on a short chart: the axis finds a step (it once looped for
    ever looking for one) and the PNG is written."""
    from tray.screen.chart import save_chart

    path = save_chart(
        tmp_path / "c.png", "t", ["Ann", "Ben"], [[0, 0], [100_000, -5_000]], (400, 90)
    )
    assert path.is_file() and path.stat().st_size > 0
