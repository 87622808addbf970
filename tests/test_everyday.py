"""The everyday-dice probe (``lab.everyday``): colourways of d6 on a white tray."""

from __future__ import annotations

from lab.everyday import COLOURWAYS, colourway, main, measure


def test_a_colourway_is_a_d6_set_of_its_body_and_pip_colours():
    ds = colourway("#151515", "#d02020")
    die = ds.dice[0]
    assert ds.id == "d6" and die.faces == ("1", "2", "3", "4", "5", "6")
    assert die.body_rgb == (0x15, 0x15, 0x15) and die.ink_rgb == (0xD0, 0x20, 0x20)


def test_each_colourway_is_rendered_found_and_read():
    figures = measure(scenes=1)
    assert list(figures) == [name for name, *_ in COLOURWAYS]
    for f in figures.values():
        assert f["labelled"] == 4 and 0 <= f["matched"] <= 4
    # the drawings' own colours: every die found, and no die read wrong
    plain = figures["white, black pips"]
    assert plain["recall"] == 1.0 and plain["wrong_count"] == 0


def test_camera_frames_are_read_as_the_table_reads_them():
    figures = measure(scenes=1, fine=False)
    assert all(f["labelled"] == 4 for f in figures.values())
    assert figures["white, black pips"]["recall"] == 1.0


def test_the_command_refuses_no_scenes_in_one_line(capsys):
    assert main(["--scenes", "0"]) == 2
    assert "at least 1" in capsys.readouterr().out
