"""``dicetray bench`` and its yardstick: our frame as a share of a YOLO11n frame (issue 34).

No figure is asserted here (speed is shown by the bench, never by a timed test): only that the
bench says in one line when the yardstick cannot be built, and still gives its own figures.
"""

from __future__ import annotations

import sys

from lab import bench


def test_without_ultralytics_the_reference_is_one_line_saying_so(tmp_path, monkeypatch):
    for var in ("YOLO_AUTOINSTALL", "YOLO_OFFLINE", "YOLO_VERBOSE", "YOLO_CONFIG_DIR"):
        monkeypatch.setenv(var, "")  # (the bench sets them for ultralytics: put back after)
    monkeypatch.setitem(sys.modules, "ultralytics", None)  # as if not installed
    # ultralytics "found" but not importable; every other name is looked up as it is (a
    # find_spec that found everything let torch, imported here, take dill for installed
    # and fail later in another test of the same worker)
    real = bench.importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return object() if name == "ultralytics" else real(name, *args, **kwargs)

    monkeypatch.setattr(bench.importlib.util, "find_spec", find_spec)
    path, note = bench.build_reference(tmp_path)
    assert path is None
    assert "\n" not in note and "YOLO11n" in note and ".[train,bench]" in note
    assert list(tmp_path.iterdir()) == []  # nothing built, nothing fetched


def test_bench_gives_its_own_figures_when_the_reference_cannot_be_built(monkeypatch):
    monkeypatch.setattr(bench, "build_reference", lambda folder: (None, "no YOLO11n here"))
    r = bench.run("d6", frames=2)
    assert set(r["frame_ms"]) == {"2", "6", "10"} and r["classifier_ms_per_die"] > 0
    assert r["turned_ms_per_die"] > 0 and isinstance(r["second_network"], bool)
    assert r["reference"] is None
    text = bench.format_result(r)
    assert "  no YOLO11n here" in text.splitlines()
    assert "ms per frame" in text and "our frame / reference" not in text
    assert "read at four turns" in text and "6 dice lying still" in text
    assert r["still_ms"]["first"] > 0 and r["still_ms"]["later"] > 0


def _figures(**more) -> dict:
    """A bench's figures (what ``bench.run`` returns), with ``more``."""
    return {
        "dice_set": "d6",
        "frames": 60,
        "cpu": "x86_64",
        "frame_ms": {"2": 4.0, "6": 5.0, "10": 8.0},
        "detector_ms": {"2": 3.0, "6": 3.0, "10": 3.0},
        "classifier_ms_per_die": 0.2,
        **more,
    }


def test_the_report_gives_our_frame_as_a_share_of_the_reference_and_judges_the_targets():
    r = _figures(
        reference={
            "model": "YOLO11n 640x640",
            "ms": 40.0,
            "frames": 30,
            "build_s": 9.0,
            "ratio": {"2": 0.1, "6": 0.125, "10": 0.2},
        }
    )
    lines = bench.format_result(r).splitlines()
    assert any("2 dice 0.100, 6 dice 0.125, 10 dice 0.200" in line for line in lines)
    assert any("YOLO11n frame, every dice count: met (0.200)" in line for line in lines)
    assert any("<= 0.3 ms a die: met (0.200 ms)" in line for line in lines)
    r["reference"]["ratio"]["10"] = 0.3
    r["classifier_ms_per_die"] = 0.4
    text = bench.format_result(r)
    assert "every dice count: NOT met (0.300)" in text and "NOT met (0.400 ms)" in text


def test_the_bench_times_a_taught_table_and_says_so_or_why_not(tmp_path, capsys):
    """``dicetray bench --taught DIR``: the pipeline read with a taught folder (its report
    names it); a folder that is no taught folder is one line and exit 2."""
    from lab.cli import main_bench

    assert main_bench(["--taught", str(tmp_path), "--frames", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a taught folder" in err
    r = _figures(taught="my-taught")
    assert "  read with the taught folder my-taught" in bench.format_result(r).splitlines()
