"""The dicetray configuration file: players, GPIO pins, camera, screen, game defaults, journals.

One TOML file (``--config PATH``; default ``~/.config/dicetray/config.toml``; a missing file
means all defaults). ``config.example.toml`` at the top of the repository lists every key with
its meaning. Every key is checked: a wrong value raises :class:`ConfigError` naming the key and
the fix, a TOML syntax error names the line, and unknown keys are reported rather than ignored.

>>> cfg = parse_config({"players": {"names": ["Ann", "Bo"]}, "pins": {"buttons": [17, 27]}})
>>> cfg.players, cfg.pins.buttons, cfg.camera.source
(['Ann', 'Bo'], [17, 27], 'auto')
>>> parse_config({"pins": {"buttons": [17, 99]}})
Traceback (most recent call last):
...
tray.app.config.ConfigError: pins.buttons[1] = 99: GPIO pins are 0..27; set it to a free pin like 27

Calibration writes its results back into the ``[camera]`` table, keeping the rest of the file
(comments included) as it was: :func:`update_table`.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hardware.camera import CameraConfig
from tray.net.netconfig import BROKER_KEYS, WEB_KEYS, BrokerConfig, WebConfig, parse_net
from tray.rules.bots import seat_names
from tray.rules.games import get

DEFAULT_PATH = Path("~/.config/dicetray/config.toml")
DEFAULT_JOURNALS = "~/.local/share/dicetray/journals"
DEFAULT_PLAYED = "~/.local/share/dicetray/played"  # corrected rolls, kept to teach from
GPIO_MAX = 27
# BCM pins a 40-pin Pi header offers freely (no I2C/SPI/UART clash) for suggestions in messages.
_FREE_PINS = (17, 27, 22, 23, 24, 25, 5, 6, 12, 13, 16, 19, 20, 21, 26, 4)
GAME_IDS = ("tally-up", "toss-up", "bank", "diced-out", "rollers")
MAX_PLAYERS = 10
MAX_NAME = 20  # characters in a player's name: it has to fit beside the scores on the screen


class ConfigError(ValueError):
    """A configuration that cannot be used. The message names the file, the key and the fix."""


@dataclass
class PinsConfig:
    """GPIO wiring (BCM numbers): one button per seat, optionally one LED per seat.

    >>> PinsConfig(buttons=[17, 27]).leds
    []
    """

    buttons: list[int] = field(default_factory=list)
    leds: list[int] = field(default_factory=list)
    pull_up: bool = True  # buttons wired between the pin and GND (internal pull-up)
    bounce_ms: int = 30  # a press counts once the pin has been stable this long
    hold_ms: int = 800  # a press held this long is a long press


@dataclass
class ScreenConfig:
    """The display: full screen on the Pi's panel, or a window of ``size``; ``sound``: the
    short sounds for a roll taken, a bust, a reveal and a win (false mutes them).

    >>> ScreenConfig().size, ScreenConfig().sound
    ((800, 480), True)
    """

    fullscreen: bool = False
    size: tuple[int, int] = (800, 480)
    sound: bool = True
    odds: str = "hold"  # live odds: "off", "hold" (while a button is held; key O) or "always"


@dataclass
class GameConfig:
    """Which game the start screen offers first, and option overrides per game id.

    >>> GameConfig().default
    'tally-up'
    """

    default: str = "tally-up"
    options: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class JournalConfig:
    """Where game journals (one JSON-lines file a game) are written.

    >>> JournalConfig().directory.name
    'journals'
    """

    directory: Path = field(default_factory=lambda: Path(DEFAULT_JOURNALS).expanduser())


@dataclass
class VisionConfig:
    """Taught models (``dicetray teach``) for the owner's own dice: ``taught`` maps a dice-set
    id to a taught folder (``"*"``: one folder, used for the set it was taught for).
    ``played``: where the rolls players corrected are kept as labelled photos to teach from
    (one folder a dice set, ``tray/table/played.py``), None: not kept.

    >>> VisionConfig({"d6": Path("/t/d6")}).taught_for("d6"), VisionConfig().taught_for("d6")
    (PosixPath('/t/d6'), None)
    """

    taught: dict[str, Path] = field(default_factory=dict)
    played: Path | None = field(default_factory=lambda: Path(DEFAULT_PLAYED).expanduser())

    def taught_for(self, set_id: str) -> Path | None:
        """The taught folder to read ``set_id`` dice with, or None (the shipped models)."""
        if set_id in self.taught:
            return self.taught[set_id]
        folder = self.taught.get("*")
        if folder is not None:
            from vision.taught import TaughtError, TaughtModel

            try:
                return folder if TaughtModel.load(folder).dice_set == set_id else None
            except TaughtError:
                return folder  # let the reader say what is wrong with it
        return None


@dataclass
class Config:
    """The whole configuration. ``path`` is the file it came from (None: defaults only).

    >>> Config().screen.size
    (800, 480)
    """

    players: list[str] = field(default_factory=list)
    pins: PinsConfig = field(default_factory=PinsConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    screen: ScreenConfig = field(default_factory=ScreenConfig)
    game: GameConfig = field(default_factory=GameConfig)
    journal: JournalConfig = field(default_factory=JournalConfig)
    vision: VisionConfig = field(default_factory=VisionConfig)
    web: WebConfig = field(default_factory=WebConfig)  # the phone page (tray/net)
    broker: BrokerConfig = field(default_factory=BrokerConfig)  # the MQTT broker (tray/net)
    path: Path | None = None


_KNOWN = {
    "players": {"names"},
    "pins": {"buttons", "leds", "pull_up", "bounce_ms", "hold_ms"},
    "camera": {
        "source",
        "fps",
        "exposure_us",
        "analogue_gain",
        "colour_gains",
        "tray_light",
        "lens_position",
        "software_gains",
        "crop",
    },
    "screen": {"fullscreen", "size", "sound", "odds"},
    "game": {"default", "options"},
    "journal": {"directory"},
    "vision": {"taught", "played"},
    "web": WEB_KEYS,
    "broker": BROKER_KEYS,
}


def default_path() -> Path:
    """``$DICETRAY_CONFIG`` if set, else ``~/.config/dicetray/config.toml``."""
    env = os.environ.get("DICETRAY_CONFIG")
    return Path(env).expanduser() if env else DEFAULT_PATH.expanduser()


def load_config(path: str | Path | None = None, required: bool = False) -> Config:
    """Read and check a config file; a missing file gives the defaults (unless ``required``).

    ``path`` None means :func:`default_path`. Raises :class:`ConfigError` (one line naming the
    file and the fix) on any bad key and on any file that cannot be read: ``required`` (the
    file was named on the command line) makes a missing file one of them. A UTF-8 byte order
    mark (as some editors save) is fine.

    >>> load_config("/nonexistent/dicetray.toml").camera.source
    'auto'
    >>> load_config("/nonexistent/dicetray.toml", required=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tray.app.config.ConfigError: /nonexistent/dicetray.toml: no such file: copy ...
    """
    p = default_path() if path is None else Path(path).expanduser()
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        if required:
            raise ConfigError(
                f"{p}: no such file: copy config.example.toml there and edit it, "
                "or leave out --config to use the defaults"
            ) from None
        cfg = Config()
        _check_journal_folder(cfg, "the default")
        return cfg
    except IsADirectoryError:
        raise ConfigError(f"{p} is a folder: give the path of the config .toml file") from None
    except NotADirectoryError:
        raise ConfigError(
            f"{p}: part of this path is a file, not a folder: give the path of "
            "the config .toml file"
        ) from None
    except PermissionError:
        raise ConfigError(
            f"{p}: no permission to read it: `chmod a+r {p}`, or run dicetray as the file's owner"
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"{p}: cannot be read ({exc.strerror or exc}): check the disk, or "
            "write the file again from config.example.toml"
        ) from None
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise ConfigError(f"{p} is UTF-16 text: save it again as UTF-8 text") from None
    try:
        text = data.decode("utf-8-sig")  # -sig: a byte order mark an editor added is dropped
    except UnicodeDecodeError:
        raise ConfigError(f"{p} is not a UTF-8 text file: save it as UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{p}: not valid TOML: {exc}. Fix that line (see "
            "config.example.toml for the form of every key)"
        ) from None
    except RecursionError:
        raise ConfigError(
            f"{p}: not valid TOML for dicetray: lists or tables nest far too "
            "deeply; write it again from config.example.toml"
        ) from None
    cfg = parse_config(data, str(p))
    cfg.path = p
    _check_journal_folder(cfg, str(p))
    return cfg


def _check_journal_folder(cfg: Config, where: str) -> None:
    """journal.directory must be a folder (or not exist yet: it is made on the first game)."""
    d = Path(cfg.journal.directory).expanduser()
    try:
        bad = d.exists() and not d.is_dir()
    except OSError:
        bad = False
    if not bad:
        for parent in d.parents:
            try:
                if parent.exists():
                    bad = not parent.is_dir()
                    break
            except OSError:
                break
    if bad:
        raise ConfigError(
            f"{where}: journal.directory = {str(cfg.journal.directory)!r}: "
            f"{d} is a file, not a folder: move that file, or set "
            "journal.directory to a folder in [journal]"
        )


def parse_config(data: dict, where: str = "") -> Config:
    """Check decoded TOML data and build a :class:`Config` (see the module example)."""
    pre = f"{where}: " if where else ""

    def fail(msg: str) -> ConfigError:
        return ConfigError(pre + msg)

    _check_tables(data, fail)
    cfg = Config()
    _parse_players(data.get("players", {}), cfg, fail)
    _parse_pins(data.get("pins", {}), cfg.pins, fail)
    _parse_camera(data.get("camera", {}), cfg.camera, fail)
    _parse_screen(data.get("screen", {}), cfg.screen, fail)
    _parse_game(data.get("game", {}), cfg.game, fail)
    t = data.get("journal", {})
    if "directory" in t:
        d = t["directory"]
        if not isinstance(d, str) or not d.strip():
            raise fail('journal.directory must be a folder path, like "~/dicetray-journals"')
        cfg.journal.directory = Path(d).expanduser()
    t = data.get("vision", {})
    if "taught" in t:
        cfg.vision.taught = _taught(t["taught"], fail)
    if "played" in t:
        d = t["played"]
        if not isinstance(d, str):
            raise fail('vision.played must be a folder path, like "~/dicetray-played", or ""')
        cfg.vision.played = Path(d).expanduser() if d.strip() else None
    net = parse_net(data, fail)  # [web] and [broker]: tray/net/netconfig.py
    cfg.web, cfg.broker = net.web, net.broker
    return cfg


def _check_tables(data: dict, fail) -> None:
    """Every table is a known one, is a table, and holds only its known keys."""
    for table, value in data.items():
        if table not in _KNOWN:
            raise fail(
                f"unknown table [{table}]: the tables are "
                f"{', '.join('[' + t + ']' for t in _KNOWN)}; remove or rename it"
            )
        if not isinstance(value, dict):
            raise fail(f"{table} must be a table: write it as [{table}] with keys below it")
        unknown = sorted(set(value) - _KNOWN[table])
        if unknown:
            raise fail(
                f"unknown key {table}.{unknown[0]}: [{table}] takes "
                f"{', '.join(sorted(_KNOWN[table]))}; remove or fix it"
            )


def _parse_players(t: dict, cfg: Config, fail) -> None:
    """[players]: the seats' names."""
    if "names" not in t:
        return
    names = t["names"]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise fail('players.names must be a list of names, like ["Ann", "Bo"]')
    for i, n in enumerate(names):
        if not n.strip():
            raise fail(f"players.names[{i}] is empty: give every player a name")
        if len(n) > MAX_NAME:
            raise fail(
                f"players.names[{i}] is {len(n)} characters long: give a name of at "
                f"most {MAX_NAME} (it is shown beside the scores)"
            )
    if len(names) > MAX_PLAYERS:
        raise fail(f"players.names has {len(names)} names: at most {MAX_PLAYERS} players")
    if len(set(names)) != len(names):
        raise fail("players.names repeats a name: give every player a different name")

    try:
        cfg.players = seat_names(list(names))
    except ValueError as err:
        raise fail(f"players.names: {err}") from None


def _parse_pins(t: dict, pins: PinsConfig, fail) -> None:
    """[pins]: the buttons' and LEDs' GPIO numbers (each used once) and the press timing."""
    for key in ("buttons", "leds"):
        if key in t:
            setattr(pins, key, _pin_list(t[key], f"pins.{key}", fail))
    if len(pins.buttons) > MAX_PLAYERS:
        raise fail(f"pins.buttons lists {len(pins.buttons)} pins: at most {MAX_PLAYERS} buttons")
    if pins.leds and len(pins.leds) != len(pins.buttons):
        raise fail(
            f"pins.leds lists {len(pins.leds)} pins for {len(pins.buttons)} buttons: "
            "give one LED pin per button, or leds = [] for none"
        )
    seen: dict[int, str] = {}
    for key in ("buttons", "leds"):
        for i, pin in enumerate(getattr(pins, key)):
            name = f"pins.{key}[{i}]"
            if pin in seen:
                free = _free_pin(list(pins.buttons) + list(pins.leds))
                raise fail(
                    f"{name} = {pin}: GPIO {pin} is already used by {seen[pin]}; "
                    f"use another free pin like {free}"
                )
            seen[pin] = name
    if "pull_up" in t:
        pins.pull_up = _bool(t["pull_up"], "pins.pull_up", fail)
    if "bounce_ms" in t:
        pins.bounce_ms = _int(
            t["bounce_ms"], "pins.bounce_ms", 0, 500, fail, "30 suits most push buttons"
        )
    if "hold_ms" in t:
        pins.hold_ms = _int(
            t["hold_ms"], "pins.hold_ms", 200, 5000, fail, "800 is a comfortable long press"
        )


def _parse_camera(t: dict, cam: CameraConfig, fail) -> None:
    """[camera]: the source, the Pi camera's settings and the tray's crop and light."""
    if "source" in t:
        cam.source = _source(t["source"], fail)
    if "fps" in t:
        cam.fps = _int(t["fps"], "camera.fps", 1, 120, fail, "30 suits the Pi camera")
    if "exposure_us" in t:
        cam.exposure_us = _int(
            t["exposure_us"],
            "camera.exposure_us",
            0,
            1_000_000,
            fail,
            "run `dicetray calibrate --write` to measure it, or 0 for auto",
        )
    if "analogue_gain" in t:
        cam.analogue_gain = _num(
            t["analogue_gain"],
            "camera.analogue_gain",
            0.0,
            64.0,
            fail,
            "run `dicetray calibrate --write`, or 0 for auto",
        )
    if "colour_gains" in t:
        g = t["colour_gains"]
        if not _numbers(g, (0, 2), lambda x: 0 < x <= 32):
            raise fail(
                f"camera.colour_gains = {g!r}: give [red, blue] gains like [1.8, 1.6] "
                "(0 < gain <= 32), or [] for automatic white balance"
            )
        cam.colour_gains = [float(x) for x in g]
    if "tray_light" in t:
        v = t["tray_light"]
        if not _numbers(v, (0, 3), lambda x: 0 <= x <= 255):
            raise fail(
                f"camera.tray_light = {v!r}: give the empty tray's [blue, green, red] "
                "levels like [60, 110, 45] (0-255), as `dicetray calibrate --write` "
                "measures them, or [] to read in the light play starts in"
            )
        cam.tray_light = [float(x) for x in v]
    if "lens_position" in t:
        lp = t["lens_position"]
        if not _is_num(lp) or not 0 <= lp <= 32:
            raise fail(
                f"camera.lens_position = {lp!r}: give the focus in dioptres "
                "(1 / distance in metres, e.g. 2.5 for 40 cm), 0..32"
            )
        cam.lens_position = float(lp)
    if "software_gains" in t:
        g = t["software_gains"]
        if not _numbers(g, (3,), lambda x: 0.1 <= x <= 8):
            raise fail(
                f"camera.software_gains = {g!r}: give [blue, green, red] multipliers "
                "between 0.1 and 8, like [1.0, 1.0, 1.0] (no change)"
            )
        cam.software_gains = [float(x) for x in g]
    if "crop" in t:
        cam.crop = _crop(t["crop"], fail)


def _numbers(v, sizes: tuple[int, ...], ok) -> bool:
    """``v`` is a list of one of ``sizes`` numbers, each ``ok``."""
    return isinstance(v, list) and len(v) in sizes and all(_is_num(x) and ok(x) for x in v)


def _crop(c, fail) -> list[int]:
    """camera.crop: [] or [x, y, width, height] inside the 640x480 frame, at least 32x24."""
    if (
        not isinstance(c, list)
        or len(c) not in (0, 4)
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in c)
    ):
        raise fail(
            f"camera.crop = {c!r}: give [x, y, width, height] of the tray in the "
            "640x480 frame in whole pixels, or [] for the whole frame"
        )
    if c:
        x, y, w, h = c
        if x < 0 or y < 0 or w < 32 or h < 24 or x + w > 640 or y + h > 480:
            raise fail(
                f"camera.crop = {c!r}: the rectangle must lie inside the 640x480 "
                "frame and be at least 32x24; run `dicetray calibrate --write` to "
                "find the tray, or [] for the whole frame"
            )
    return list(c)


def _parse_screen(t: dict, screen: ScreenConfig, fail) -> None:
    """[screen]: full screen, sound, the odds panel and the window size."""
    if "fullscreen" in t:
        screen.fullscreen = _bool(t["fullscreen"], "screen.fullscreen", fail)
    if "sound" in t:
        screen.sound = _bool(t["sound"], "screen.sound", fail)
    if "odds" in t:
        if t["odds"] not in ("off", "hold", "always"):
            raise fail(f'screen.odds = {t["odds"]!r}: choose "off", "hold" or "always"')
        screen.odds = t["odds"]
    if "size" in t:
        s = t["size"]
        if (
            not isinstance(s, list)
            or len(s) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in s)
            or not (320 <= s[0] <= 7680 and 240 <= s[1] <= 4320)
        ):
            raise fail(f"screen.size = {s!r}: give [width, height] in pixels, like [800, 480]")
        screen.size = (s[0], s[1])


def _parse_game(t: dict, game: GameConfig, fail) -> None:
    """[game]: the game offered first, and option overrides checked against each engine."""
    if "default" in t:
        g = t["default"]
        if g not in GAME_IDS:
            raise fail(f"game.default = {g!r}: choose one of {', '.join(GAME_IDS)}")
        game.default = g
    if "options" not in t:
        return
    opts = t["options"]
    if not isinstance(opts, dict):
        raise fail("game.options must be a table of games, like [game.options.bank]")
    for gid, table in opts.items():
        if gid not in GAME_IDS:
            raise fail(f"game.options.{gid}: no such game; use one of {', '.join(GAME_IDS)}")
        if not isinstance(table, dict):
            raise fail(f"game.options.{gid} must be a table: [game.options.{gid}]")
        known = _engine_options(gid)
        for k, v in table.items():
            if k not in known:
                raise fail(
                    f"unknown key game.options.{gid}.{k}: {gid} takes "
                    f"{', '.join(sorted(known)) or 'no options'}"
                )
            d = known[k]
            if d is not None and not _same_kind(v, d):
                raise fail(
                    f"game.options.{gid}.{k} = {v!r}: expected a "
                    f"{type(d).__name__} like its default {d!r}"
                )
        game.options[gid] = dict(table)


def _taught(v, fail) -> dict[str, Path]:
    """vision.taught: one taught folder for every set ("*"), or a table of them by set."""
    if isinstance(v, str) and v.strip():
        return {"*": Path(v).expanduser()}
    if isinstance(v, dict) and all(
        isinstance(k, str) and isinstance(f, str) and f.strip() for k, f in v.items()
    ):
        return {k: Path(f).expanduser() for k, f in v.items()}
    raise fail(
        'vision.taught must be a taught folder, like "~/.config/dicetray/'
        'taught-d6", or a table of them by dice set, like { d6 = "..." }'
    )


def _is_num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _bool(v, key, fail):
    if not isinstance(v, bool):
        raise fail(f"{key} = {v!r}: write true or false (no quotes)")
    return v


def _int(v, key, lo, hi, fail, hint):
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise fail(f"{key} = {v!r}: give a whole number {lo}..{hi}; {hint}")
    return v


def _num(v, key, lo, hi, fail, hint):
    if not _is_num(v) or not lo <= v <= hi:
        raise fail(f"{key} = {v!r}: give a number {lo}..{hi}; {hint}")
    return float(v)


def _free_pin(used) -> int:
    return next((p for p in _FREE_PINS if p not in used), 17)


def _pin_list(v, key, fail) -> list[int]:
    if not isinstance(v, list):
        raise fail(f"{key} = {v!r}: give a list of BCM GPIO numbers, like [17, 27, 22]")
    for i, p in enumerate(v):
        if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p <= GPIO_MAX:
            free = _free_pin([q for q in v if isinstance(q, int)])
            raise fail(
                f"{key}[{i}] = {p!r}: GPIO pins are 0..{GPIO_MAX}; set it to a free pin like {free}"
            )
    return list(v)


_SOURCE = re.compile(r"^(auto|picamera|sim(:[\w-]+)?|opencv:.+|replay:.+)$")


def _source(v, fail) -> str:
    if not isinstance(v, str) or not _SOURCE.match(v):
        raise fail(
            f'camera.source = {v!r}: use "auto", "picamera", "opencv:0", '
            '"opencv:/dev/video0", "replay:FOLDER" or "sim"'
        )
    return v


def _engine_options(game_id: str) -> dict:
    """The engine's OPTIONS (name -> default)."""
    return dict(get(game_id).OPTIONS)


def _same_kind(v, default) -> bool:
    if isinstance(default, bool):
        return isinstance(v, bool)
    if isinstance(default, int):
        return isinstance(v, int) and not isinstance(v, bool)
    if isinstance(default, float):
        return _is_num(v)
    return isinstance(v, type(default))


# --- writing results back -------------------------------------------------------------------


def toml_value(v) -> str:
    """A Python value written as a TOML value (bool, int, float, str, list, None -> omitted).

    >>> toml_value([1.5, 2]), toml_value(True), toml_value("opencv:0")
    ('[1.5, 2]', 'true', '"opencv:0"')
    """
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(round(v, 6))
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, Path):
        return toml_value(str(v))
    raise TypeError(f"cannot write {v!r} as TOML")


_HEADER = re.compile(r"^\s*\[([^\[\]]+)\]\s*(#.*)?$")


def update_table(path: str | Path, table: str, values: dict[str, Any]) -> Config:
    """Set keys of one top-level table in a config file, keeping everything else as written.

    Existing ``key = ...`` lines of ``[table]`` are replaced in place, new keys are added at
    the end of the table, a missing table (or file) is created. A value of None removes the
    key. The result is checked with :func:`load_config` before the file is replaced; the new
    Config is returned.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.toml"
    >>> update_table(p, "camera", {"crop": [8, 6, 624, 468]}).camera.crop
    [8, 6, 624, 468]
    """
    p = Path(path).expanduser()
    lines = p.read_text(encoding="utf-8").splitlines() if p.exists() else []
    start = end = None
    for i, line in enumerate(lines):
        m = _HEADER.match(line)
        if m:
            name = m.group(1).strip()
            if start is not None and end is None:
                end = i
            if name == table:
                start = i
    todo = dict(values)
    if start is None:
        if lines and lines[-1].strip():
            lines.append("")
        lines.append(f"[{table}]")
        start, end = len(lines) - 1, len(lines)
    elif end is None:
        end = len(lines)
    out_section = []
    for line in lines[start + 1 : end]:
        m = re.match(r"^\s*([A-Za-z0-9_-]+)\s*=", line)
        if m and m.group(1) in todo:
            key = m.group(1)
            v = todo.pop(key)
            if v is not None:
                out_section.append(f"{key} = {toml_value(v)}")
            continue
        out_section.append(line)
    # new keys go after the last non-blank line of the table
    while out_section and not out_section[-1].strip():
        out_section.pop()
    out_section += [f"{k} = {toml_value(v)}" for k, v in todo.items() if v is not None]
    tail = lines[end:]
    new = lines[: start + 1] + out_section + ([""] if tail else []) + tail
    text = "\n".join(new) + "\n"
    try:
        cfg = parse_config(tomllib.loads(text), str(p))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{p}: could not update [{table}] ({exc}); fix the file by hand"
        ) from None
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, p)
    cfg.path = p
    return cfg
