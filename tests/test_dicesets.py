"""The dice sets are data: every shipped file loads, matches tray/rules/RULES.md, and bad files
say why."""

from pathlib import Path

import pytest

from vision.dicesets import SET_IDS, DiceSetError, load, parse


def test_every_shipped_set_loads():
    for set_id in SET_IDS:
        ds = load(set_id)
        assert ds.id == set_id
        for die in ds.dice:
            assert len(die.faces) == 6
            assert all(f in ds.faces for f in die.faces)


def test_tally_up_layout_is_the_rules_md_proposal():
    ds = load("tally-up")
    assert ds.die("red").faces == ("star", "star", "star", "200", "200", "(200)")
    assert ds.die("purple").faces == ("star", "100", "100", "100", "(100)", "(100)")
    assert ds.die("up").faces == ("+1", "+2", "+3", "-100", "+100", "x2")
    assert ds.faces["(150)"].circle and not ds.faces["150"].circle


def test_rules_md_tally_up_table_is_the_shipped_layout():
    """The face table of RULES.md section 1 and vision/dicesets/tally-up.toml say the same."""
    text = (Path(__file__).resolve().parent.parent / "tray" / "rules" / "RULES.md").read_text()
    section = text.split("## 1. Tally Up!")[1].split("## 2.")[0]
    table = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            table[cells[0].split()[0].strip("`")] = tuple(f.strip("`") for f in cells[2].split())
    ds = load("tally-up")
    assert table == {die.id: die.faces for die in ds.dice}


def test_toss_up_die_has_three_green_two_yellow_one_red():
    faces = load("toss-up").die("toss").faces
    assert (faces.count("green"), faces.count("yellow"), faces.count("red")) == (3, 2, 1)


def test_rollers_wild_and_black_dice():
    ds = load("rollers")
    assert ds.die("wild").count == 5 and ds.die("wild").faces[-1] == "star"
    assert ds.die("black").faces[-1] == "zap"


def test_unknown_set_names_the_choices():
    with pytest.raises(DiceSetError, match="choose one of d6, tally-up"):
        load("yahtzee")


def test_corrupt_file_is_reported_with_its_path(tmp_path):
    bad = tmp_path / "broken.toml"
    bad.write_text('id = "x"\n[faces\n')
    with pytest.raises(DiceSetError, match=r"broken\.toml: not valid TOML"):
        load(bad)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["die"][0].update(faces=["1", "2"]), "exactly 6 face ids"),
        (
            lambda d: d["die"][0].update(faces=["1", "2", "3", "4", "5", "9"]),
            "'9', which is not in",
        ),
        (lambda d: d["die"][0].update(body="red"), "body must look like"),
        (lambda d: d["faces"]["1"].update(mark="blob"), "faces.1.mark is 'blob'"),
        (lambda d: d["faces"]["2"].update(count=0), "faces.2.count"),
        (lambda d: d.pop("id"), "missing `id"),
    ],
)
def test_bad_dice_set_names_the_key(mutate, message):
    data = {
        "id": "t",
        "faces": {str(i): {"mark": "pips", "count": i} for i in range(1, 7)},
        "die": [
            {"id": "d", "body": "#ffffff", "ink": "#000000", "faces": [str(i) for i in range(1, 7)]}
        ],
    }
    parse(data)  # the unmutated table is valid
    mutate(data)
    with pytest.raises(DiceSetError, match=message):
        parse(data, "t.toml")


def test_edited_layout_is_used_without_code_changes(tmp_path):
    text = Path(load("tally-up").path).read_text()
    text = text.replace(
        'faces = ["star", "100", "100", "100", "100", "(100)"]',
        'faces = ["star", "star", "100", "100", "(100)", "(100)"]',
    )
    path = tmp_path / "my-tally.toml"
    path.write_text(text)
    ds = load(path)
    assert ds.die("blue").faces.count("star") == 2
    assert ds.layout()["blue"] == ["star", "star", "100", "100", "(100)", "(100)"]
