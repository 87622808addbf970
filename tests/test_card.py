"""The model card's tables are the rendering of models/figures.json (lab.card): one command
measures and writes them, and the committed card is what its committed numbers render."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from lab import card

ROW = {"dice": 200, "found": 196, "right": 190, "asked": 5, "wrong": 1}


def _figures() -> dict:
    return {
        "format": card.FORMAT,
        "scenes": 10,
        "heldout_seed": 7,
        "machine": {"cpu": "x86_64", "cores": 2},
        "models": card.model_facts(),
        "rendered": {"d6": {"classic, camera": ROW, "other, photo": ROW}},
        "real": {"matteop65_webcam": {"photo": ROW, "camera": ROW}},
        "splits": {
            "rules": "by file",
            "per_source": {
                "matteop65_webcam": {
                    "train": {"photos": 3, "dice": 9},
                    "calibrate": {"photos": 1, "dice": 2},
                    "judge": {"photos": 1, "dice": 3},
                }
            },
        },
        "loso": None,
        "taught": None,
    }


def _card(tmp_path, text=None):
    path = tmp_path / "README.md"
    if text is None:
        text = "# card\n\n" + "\n\n".join(
            f"<!-- {n}: begin -->\nold {n}\n<!-- {n}: end -->" for n in card.SECTIONS
        )
    path.write_text(text + "\n", encoding="utf-8")
    return path


def test_the_tables_are_rewritten_from_the_figures_and_nothing_else(tmp_path):
    path = _card(tmp_path)
    fig = _figures()
    assert card.differences(path, fig) == list(card.SECTIONS)
    card.write_card(path, fig)
    assert card.differences(path, fig) == []
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# card\n") and not any(f"old {n}" in text for n in card.SECTIONS)
    assert "| d6 | rendered, classic style | camera | 200 | 98.0% | 96.9% | 2.6% |" in text
    assert "| matteop65_webcam | 3 (9) | 1 (2) | 1 (3) |" in text
    assert "were not measured" in text  # no teaching cases: said, not left blank
    card.write_card(path, fig)  # a second time: the same card
    assert path.read_text(encoding="utf-8") == text


def test_a_card_without_its_markers_or_figures_of_another_format_are_refused(tmp_path):
    with pytest.raises(card.CardError, match="thresholds: begin"):
        card.write_card(_card(tmp_path, "# a card with no tables"), _figures())
    with pytest.raises(card.CardError, match="format"):
        card.render({**_figures(), "format": 0})


def test_the_command_says_what_is_wrong_in_one_line(tmp_path, capsys):
    assert card.main(["--from", str(tmp_path / "none.json"), "--card", str(_card(tmp_path))]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("lab.card: ") and "cannot read the figures" in err
    assert len(err.splitlines()) == 1
    bad = tmp_path / "loso.json"
    bad.write_text(json.dumps({"nothing": 1}), encoding="utf-8")
    fig = tmp_path / "fig.json"
    fig.write_text(json.dumps(_figures()), encoding="utf-8")
    argv = ["--from", str(fig), "--loso", str(bad), "--card", str(_card(tmp_path))]
    assert card.main(argv) == 2
    assert "not a `dicetray eval --loso --json` report" in capsys.readouterr().err


def test_the_committed_card_is_the_rendering_of_its_committed_figures():
    fig = card.load_figures(card.FIGURES)
    assert card.differences(card.CARD, fig) == []
    assert card.stale_models(fig) == [], "models changed since the figures: dicetray eval --card"


def test_the_card_is_a_card():
    lines = card.CARD.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250


def test_left_out_rows_say_which_sources_were_not_left_out(tmp_path):
    fig = _figures()
    fig["real"]["numeric_tube"] = {"photo": ROW, "camera": ROW}
    report = {
        "recipe": "plain-e2",
        "seconds": 10,
        "folds": {
            "matteop65_webcam": {
                "figures": {
                    p: {"dice": 200, "found": 0.98, "right": 0.5, "asked": 0.49, "wrong_count": 1}
                    for p in ("photo", "camera")
                },
                "threshold_once": 0.9,
                "threshold_turned": 0.8,
            }
        },
    }
    fig["loso"] = card.read_loso(report)
    text = card.render(fig)["figures"]
    assert "| d6 | matteop65_webcam, left out | photo | 200 | 98.0% | 50.0% | 49.0% |" in text
    assert "Not left out in this run: numeric_tube." in text
    assert "measured before" not in text
    fig["loso"]["note"] = "These rows were measured before the last change."
    assert card.render(fig)["figures"].endswith("These rows were measured before the last change.")


def test_the_teaching_cases_are_summed_over_their_photo_seeds_and_shown_per_seed(monkeypatch):
    """Each teaching case is taught once per photo seed: the dice are summed, time and memory
    are the worst seed's, and each seed's reading is shown (one seed's photos can flatter)."""
    from lab import teachbench

    def run(case, photo_seed):
        right = {11: 0.96, 21: 0.88}[photo_seed]
        fresh = {"labelled": 150, "recall": 1.0, "face_accuracy": right}
        fresh |= {"abstained": round(1 - right, 4), "wrong_count": photo_seed // 21}
        return {
            "what": "Rollers dice with digits",
            "photos": 20,
            "dice": 100,
            "fresh_photos": 30,
            "teach_wall_s": photo_seed,
            "teach_cpu_s": 2.0 * photo_seed,
            "peak_memory_mb": 400 + photo_seed,
            "method": "head",
            "torch_loaded": False,
            "fresh": {
                "zero_shot": {**fresh, "face_accuracy": 0.7, "wrong_count": 0},
                "taught": fresh,
            },
        }

    monkeypatch.setattr(teachbench, "run", run)
    fig = _figures()
    fig["taught"] = card.measure_taught(["rollers-digits"], log=lambda *a: None, seeds=(11, 21))
    r = fig["taught"]["rollers-digits"]
    assert r["taught"] == {"dice": 300, "found": 300, "right": 276, "asked": 24, "wrong": 1}
    assert (r["wall_s"], r["peak_mb"]) == (21, 421)
    text = card.render(fig)["taught"]
    assert "from the photos of seeds 11, 21" in text
    row = "| 20 (100) | 21 / 42 | 421 | 60 (300) | 70.0% / 0 | 100.0% / 92.0% / 8.0% / 1 |"
    assert row + " 96.0% / 0, 88.0% / 1 |" in text


def _d6(**parts) -> dict:
    """The facts of a d6 card (``lab.card.model_facts``) with ``parts`` beside its thresholds."""
    return {
        "classifier-d6": {
            "threshold": 0.95,
            "die_thresholds": {},
            "turned_threshold": 0.9,
            "turned_die_thresholds": {},
            **parts,
        }
    }


def test_the_threshold_of_small_dice_is_shown_as_the_table_reads_them():
    """A card's ``small`` part gets its own row: the threshold a small die is read at (its
    own, or the network's when that is higher), what it was set on and the bound it holds."""
    fig = _figures()
    bound = {"wrong_rate_bound": 0.005, "confidence": 0.95, "read_wrong": 0}
    fig["models"] = _d6(
        small={
            "px": [24, 40],
            "once": {
                "threshold": 0.97,
                "bound": {**bound, "calibration_dice": 900},
                "set_on": {"rendered": 900},
            },
            "turned": {
                "threshold": 0.8,
                "bound": {**bound, "calibration_dice": 880},
                "set_on": {"rendered": 860, "numeric_tube": 20},
            },
        }
    )
    rows = card.render_thresholds(fig)
    row = next(r for r in rows if "dice of 24-39 px" in r)
    assert "| 0.97 | 0.9 | dice: rendered 860, numeric_tube 20 |" in row
    assert "<= 0.50% at 95% (0 wrong of 900) / <= 0.50% at 95% (0 wrong of 880)" in row


def test_floors_set_on_unseen_dice_are_stated_under_the_thresholds():
    """A card with ``unseen`` floors (lab.unseen) says each floor, the wrong reads it rests
    on, the sources and the folds that read them."""
    fig = _figures()
    bound = {"wrong_rate_bound": 0.005, "confidence": 0.95, "calibration_dice": 1400}
    fig["models"] = _d6(
        unseen={
            "folds": "small+lite0",
            "per_source": 250,
            "once": {
                "threshold": 0.9712,
                "bound": {**bound, "read_wrong": 2},
                "set_on": {"PXL_phone": 250, "i_single": 200},
            },
            "joint": {
                "threshold": 0.8,
                "bound": {**bound, "read_wrong": 3},
                "set_on": {"PXL_phone": 250, "chase_casino_crops": 169},
            },
        }
    )
    text = "\n".join(card.render_thresholds(fig))
    assert "`classifier-d6`: no threshold under its floor" in text
    assert "photos of PXL_phone, chase_casino_crops, i_single, each read" in text
    assert "fold `small+lite0`" in text and "at most 250 dice a source" in text
    assert "read once 0.971 (2 wrong of 1400); their mean 0.8 (3 wrong of 1400)." in text


def test_the_card_runs_leave_one_source_out_as_the_shipped_reader_is_made(monkeypatch):
    """``lab.card --loso`` with no report trains the second network's folds, then the first
    network's, then reads both over floors set on unseen dice: the card's left-out rows come
    from the last report; a run that fails says why."""
    calls = []
    report = {"recipe": "r+s-unseen", "folds": {}, "note": "floors"}

    def fake_run(cmd, **_):
        calls.append(cmd[3:])
        return SimpleNamespace(returncode=0, stdout=json.dumps(report), stderr="")

    monkeypatch.setattr(card.subprocess, "run", fake_run)
    got = card.run_loso(log=lambda *_: None)
    assert got["recipe"] == "r+s-unseen" and got["note"] == "floors"
    assert calls[0][:2] == ["--net", "lite0"]
    assert "--unseen" in calls[-1] and card.SECOND_RECIPE in calls[-1]
    monkeypatch.setattr(
        card.subprocess,
        "run",
        lambda *a, **k: SimpleNamespace(returncode=1, stdout="", stderr="no torch\n"),
    )
    with pytest.raises(card.CardError, match="no torch"):
        card.run_loso(log=lambda *_: None)
