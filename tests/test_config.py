"""tray/app/config.py: defaults, the example file, errors that name the key and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from tray.app.config import ConfigError, load_config, parse_config, update_table

ROOT = Path(__file__).resolve().parents[1]


def write(tmp_path, text: str) -> Path:
    p = tmp_path / "config.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_missing_file_gives_defaults(tmp_path):
    cfg = load_config(tmp_path / "none.toml")
    assert cfg.players == []
    assert cfg.pins.buttons == [] and cfg.pins.bounce_ms == 30
    assert cfg.camera.source == "auto" and cfg.camera.crop == []
    assert cfg.screen.size == (800, 480)
    assert cfg.path is None


def test_example_config_loads():
    cfg = load_config(ROOT / "config.example.toml")
    assert cfg.players == ["Ann", "Bo", "Cy", "Di"]
    assert cfg.pins.buttons == [17, 27, 22, 23]
    assert cfg.pins.leds == [5, 6, 13, 19]
    assert cfg.camera.software_gains == [1.0, 1.0, 1.0]
    assert not cfg.camera.calibrated
    assert cfg.journal.directory.is_absolute()


@pytest.mark.parametrize(
    "text, words",
    [
        ("[pins]\nbuttons = [17, 27, 99]", ["pins.buttons[2] = 99", "0..27", "free pin like"]),
        ("[pins]\nbuttons = [17, 17]", ["pins.buttons[1] = 17", "already used by pins.buttons[0]"]),
        ("[pins]\nbuttons = [17, 27]\nleds = [17, 5]", ["pins.leds[0] = 17", "already used"]),
        ("[pins]\nbuttons = [17, 27]\nleds = [5]", ["pins.leds", "one LED pin per button"]),
        ("[pins]\nbounce_ms = -3", ["pins.bounce_ms = -3", "0..500"]),
        ('[pins]\npull_up = "yes"', ["pins.pull_up", "true or false"]),
        ("[pins]\nbuton = [1]", ["unknown key pins.buton", "buttons"]),
        ("[pinz]\nbuttons = [1]", ["unknown table [pinz]"]),
        ('[players]\nnames = ["Ann", "Ann"]', ["players.names", "different name"]),
        ('[players]\nnames = "Ann"', ["players.names must be a list"]),
        ('[camera]\nsource = "usb"', ["camera.source = 'usb'", "opencv:0"]),
        ("[camera]\ncrop = [600, 0, 100, 100]", ["camera.crop", "inside the 640x480 frame"]),
        ("[camera]\ncolour_gains = [1.5]", ["camera.colour_gains", "[red, blue]"]),
        ("[camera]\nsoftware_gains = [1, 1, 40]", ["camera.software_gains", "0.1 and 8"]),
        (
            "[camera]\ntray_light = [60, 300, 45]",
            ["camera.tray_light", "[blue, green, red]", "dicetray calibrate --write"],
        ),
        ("[screen]\nsize = [800]", ["screen.size", "[800, 480]"]),
        ('[game]\ndefault = "yahtzee"', ["game.default = 'yahtzee'", "tally-up"]),
        ("[game.options.chess]\nx = 1", ["game.options.chess", "no such game"]),
    ],
)
def test_errors_name_key_and_fix(tmp_path, text, words):
    p = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(p)
    msg = str(info.value)
    assert str(p) in msg
    for w in words:
        assert w in msg


def test_corrupt_toml_names_the_line(tmp_path):
    p = write(tmp_path, "[pins]\nbuttons = [17, 27]\nbounce_ms = = 3\n")
    with pytest.raises(ConfigError) as info:
        load_config(p)
    assert "line 3" in str(info.value)
    assert "not valid TOML" in str(info.value)


def test_values_are_read(tmp_path):
    p = write(
        tmp_path,
        """
[players]
names = ["A", "B", "C"]
[pins]
buttons = [4, 5, 6]
leds = []
bounce_ms = 50
[camera]
source = "opencv:/dev/video2"
exposure_us = 12000
analogue_gain = 2.5
colour_gains = [1.9, 1.4]
tray_light = [60, 110.5, 45]
crop = [10, 20, 400, 300]
[screen]
fullscreen = true
size = [1920, 1080]
[journal]
directory = "/tmp/j"
""",
    )
    cfg = load_config(p)
    assert cfg.players == ["A", "B", "C"]
    assert cfg.pins.buttons == [4, 5, 6] and cfg.pins.bounce_ms == 50
    assert cfg.camera.source == "opencv:/dev/video2"
    assert cfg.camera.calibrated
    assert cfg.camera.crop == [10, 20, 400, 300]
    assert cfg.camera.tray_light == [60.0, 110.5, 45.0]
    assert cfg.screen.fullscreen and cfg.screen.size == (1920, 1080)
    assert cfg.journal.directory == Path("/tmp/j")
    assert cfg.path == p


def test_update_table_keeps_comments_and_other_tables(tmp_path):
    p = write(tmp_path, (ROOT / "config.example.toml").read_text(encoding="utf-8"))
    cfg = update_table(
        p,
        "camera",
        {
            "crop": [8, 6, 624, 468],
            "software_gains": [1.1, 1.0, 0.9],
            "exposure_us": 9000,
            "analogue_gain": 1.5,
            "colour_gains": [1.8, 1.5],
            "lens_position": 2.5,
        },
    )
    text = p.read_text(encoding="utf-8")
    assert "# dicetray configuration" in text
    assert text.splitlines().count("[camera]") == 1
    assert cfg.camera.crop == [8, 6, 624, 468]
    assert cfg.camera.calibrated and cfg.camera.lens_position == 2.5
    assert cfg.pins.buttons == [17, 27, 22, 23]  # untouched
    assert load_config(p).camera.software_gains == [1.1, 1.0, 0.9]


def test_update_table_creates_file_and_refuses_bad_values(tmp_path):
    p = tmp_path / "sub" / "new.toml"
    update_table(p, "camera", {"crop": [0, 0, 640, 480]})
    assert load_config(p).camera.crop == [0, 0, 640, 480]
    with pytest.raises(ConfigError):
        update_table(p, "camera", {"crop": [0, 0, 9999, 480]})
    assert load_config(p).camera.crop == [0, 0, 640, 480]  # file unchanged


def test_parse_config_game_options_checked_against_engine():
    from tray.rules.games import get

    opts = dict(get("bank").OPTIONS)
    name, default = next(iter(opts.items()))
    cfg = parse_config({"game": {"options": {"bank": {name: default}}}})
    assert cfg.game.options["bank"][name] == default
    with pytest.raises(ConfigError, match=r"unknown key game\.options\.bank\.no_such_option"):
        parse_config({"game": {"options": {"bank": {"no_such_option": 1}}}})
