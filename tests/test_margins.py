"""``python -m lab.margins``: the labelled dice of a left-out source read by its fold's networks
at other crop margins (here the shipped d6 network stands in for a fold's, on rendered dice in
the real sets' layout)."""

from __future__ import annotations

import shutil

from realdicekit import build

from lab import margins
from vision.classcard import model_paths


def _cache(tmp_path, recipes=(margins.FIRST,), source="numeric_tube"):
    cache = tmp_path / "cache"
    for recipe in recipes:
        fold = cache / "folds" / recipe / source
        fold.mkdir(parents=True)
        shutil.copyfile(model_paths("d6")[0], fold / "classifier-d6.onnx")
    return cache


def test_each_way_of_cutting_is_scored_on_the_source_left_out(tmp_path):
    realdice = tmp_path / "realdice"
    dice = build(realdice)
    onnx = model_paths("d6")[0]
    figs = margins.score_source(realdice, "numeric_tube", [onnx])
    assert set(figs) == set(margins.WAYS)
    for f in figs.values():
        assert f["dice"] == dice["numeric_tube"]
        assert 0 <= f["ceiling"] <= f["best_guess"] <= 1
    # rendered dice in their exact boxes, read by the network that trained on such: as cut
    # at the table they are read right, and the two networks' mean (here one network twice)
    # reads as that one does
    assert figs["1.35 (shipped)"]["best_guess"] >= 0.8
    both = margins.score_source(realdice, "numeric_tube", [onnx, onnx])
    assert both == figs


def test_it_prints_a_row_a_source_and_names_the_folds_it_lacks(tmp_path, capsys):
    realdice = tmp_path / "realdice"
    build(realdice)
    cache = _cache(tmp_path)
    args = ["--cache", str(cache), "--realdice", str(realdice)]
    assert margins.main([*args, "--sources", "numeric_tube", "PXL_phone"]) == 0
    out = capsys.readouterr()
    rows = [line for line in out.out.splitlines() if line.startswith("numeric_tube")]
    assert len(rows) == 1 and rows[0].count("/") == len(margins.WAYS)
    assert "PXL_phone" in out.err and "no fold" in out.err
    assert margins.main([*args, "--sources", "PXL_phone"]) == 2
