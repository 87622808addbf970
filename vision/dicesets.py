"""Dice sets as data: which dice a set has, which faces each die shows, what each face looks like.

Every set lives in one TOML file in ``vision/dicesets/`` (or any file a user points at), so a
user whose physical dice differ from the shipped layout edits the file, not the code::

    >>> from vision.dicesets import load
    >>> tally = load("tally-up")
    >>> tally.die("red").faces
    ('star', 'star', 'star', '200', '200', '(200)')
    >>> tally.faces["(200)"].circle
    True

File format (see the shipped files for complete examples)::

    id = "tally-up"            # the set id
    name = "Tally Up!"         # shown to people
    [faces]                    # every face id the set uses, and how it looks
    "(200)" = { mark = "number", text = "200", circle = true }
    [[die]]                    # one table per kind of die
    id = "red"                 # die id, as in a roll: red:(200)
    count = 1                  # how many physical dice of this kind (default 1)
    body = "#c8202a"           # body colour
    ink = "#ffffff"            # colour of the marks
    faces = ["star", ...]      # six face ids
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

DICESETS_DIR = Path(__file__).resolve().parent / "dicesets"
SET_IDS = ("d6", "tally-up", "toss-up", "rollers")
MARKS = ("pips", "number", "star", "text", "light", "zap")
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


class DiceSetError(ValueError):
    """A dice-set file that cannot be used; the message names the file and the key to fix."""


@dataclass(frozen=True)
class Face:
    id: str
    mark: str
    count: int = 0  # pips, for mark = "pips"
    text: str = ""  # for mark = "number" / "text"
    circle: bool = False  # a ring drawn around the mark
    color: str | None = None  # mark colour; None means the die's ink


@dataclass(frozen=True)
class Die:
    id: str
    body: str
    ink: str
    faces: tuple[str, ...]
    count: int = 1
    role: str = ""

    @property
    def body_rgb(self) -> tuple[int, int, int]:
        return hex_to_rgb(self.body)

    @property
    def ink_rgb(self) -> tuple[int, int, int]:
        return hex_to_rgb(self.ink)


@dataclass(frozen=True)
class DiceSet:
    id: str
    name: str
    faces: dict[str, Face]
    dice: tuple[Die, ...]
    path: str = field(default="", compare=False)

    def die(self, die_id: str) -> Die:
        for d in self.dice:
            if d.id == die_id:
                return d
        raise KeyError(f"dice set {self.id!r} has no die {die_id!r}")

    @property
    def die_ids(self) -> tuple[str, ...]:
        return tuple(d.id for d in self.dice)

    @property
    def face_ids(self) -> tuple[str, ...]:
        """Every face id used by some die, in file order (no repeats)."""
        return tuple(self.faces)

    def layout(self) -> dict[str, list[str]]:
        """Plain data for the rules engines: die id -> its six face ids."""
        return {d.id: list(d.faces) for d in self.dice}

    def allows(self, die_id: str, face_id: str) -> bool:
        return any(d.id == die_id and face_id in d.faces for d in self.dice)


def hex_to_rgb(value: str) -> tuple[int, int, int]:
    return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)


def _fail(where: str, msg: str) -> DiceSetError:
    return DiceSetError(f"{where}: {msg}")


def parse(data: dict, where: str = "<dice set>") -> DiceSet:
    """Check a decoded TOML table and build a DiceSet, or raise DiceSetError naming the key."""
    set_id = data.get("id")
    if not isinstance(set_id, str) or not set_id:
        raise _fail(where, 'missing `id = "..."` (the dice set id, e.g. "d6")')
    raw_faces = data.get("faces")
    if not isinstance(raw_faces, dict) or not raw_faces:
        raise _fail(where, "missing [faces] table: every face id with its look")
    faces = {fid: _parse_face(fid, spec, where) for fid, spec in raw_faces.items()}
    raw_dice = data.get("die")
    if not isinstance(raw_dice, list) or not raw_dice:
        raise _fail(where, "no [[die]] tables: the set needs at least one die")
    dice: list[Die] = []
    for i, spec in enumerate(raw_dice):
        dice.append(_parse_die(f"die[{i}]", spec, faces, {d.id for d in dice}, where))
    name = data.get("name", set_id)
    return DiceSet(set_id, str(name), faces, tuple(dice), where)


def _parse_face(fid: str, spec, where: str) -> Face:
    """The face ``fid`` of the [faces] table, checked."""
    key = f"faces.{fid}"
    if not isinstance(spec, dict):
        raise _fail(where, f'{key} must be a table like {{ mark = "pips", count = 3 }}')
    unknown = set(spec) - {"mark", "count", "text", "circle", "color"}
    if unknown:
        raise _fail(where, f"{key} has unknown key(s) {sorted(unknown)}")
    mark = spec.get("mark")
    if mark not in MARKS:
        raise _fail(where, f"{key}.mark is {mark!r}; use one of {', '.join(MARKS)}")
    count = spec.get("count", 0)
    if mark == "pips" and not _whole(count, 1, 9):
        raise _fail(where, f"{key}.count must be a whole number 1..9 for pips")
    text = spec.get("text", "")
    if mark in ("number", "text") and (not isinstance(text, str) or not text):
        raise _fail(where, f'{key}.text is needed for mark = "{mark}"')
    color = spec.get("color")
    if color is not None and (not isinstance(color, str) or not _HEX.match(color)):
        raise _fail(where, f'{key}.color must look like "#1f9e3a"')
    if mark == "light" and color is None:
        raise _fail(where, f'{key}.color is needed for mark = "light"')
    circle = spec.get("circle", False)
    if not isinstance(circle, bool):
        raise _fail(where, f"{key}.circle must be true or false")
    return Face(fid, mark, count, text, circle, color)


def _parse_die(key: str, spec, faces: dict[str, Face], taken: set[str], where: str) -> Die:
    """One [[die]] table (``key`` names it in messages), checked against the set's faces and
    the ids of the dice before it (``taken``)."""
    if not isinstance(spec, dict):
        raise _fail(
            where,
            f"{key} must be a [[die]] table with id, body, ink and faces "
            "(write `[[die]]` and its keys below it, not `die = [...]`)",
        )
    did = spec.get("id")
    if not isinstance(did, str) or not did or ":" in did:
        raise _fail(where, f'{key}.id must be a name like "red" (no ":")')
    if did in taken:
        raise _fail(where, f"{key}.id {did!r} is used twice")
    for colour_key in ("body", "ink"):
        val = spec.get(colour_key)
        if not isinstance(val, str) or not _HEX.match(val):
            raise _fail(where, f'{key} ({did}).{colour_key} must look like "#c8202a"')
    dfaces = spec.get("faces")
    if not isinstance(dfaces, list) or len(dfaces) != 6:
        raise _fail(where, f"{key} ({did}).faces must list exactly 6 face ids")
    for f in dfaces:
        if not isinstance(f, str) or f not in faces:
            raise _fail(where, f"{key} ({did}).faces names {f!r}, which is not in [faces]")
    count = spec.get("count", 1)
    if not _whole(count, 1, 20):
        raise _fail(where, f"{key} ({did}).count must be a whole number 1..20")
    if not isinstance(spec.get("role", ""), str):
        raise _fail(where, f'{key} ({did}).role must be text, like "up"')
    return Die(did, spec["body"], spec["ink"], tuple(dfaces), count, spec.get("role", ""))


def _whole(value, lo: int, hi: int) -> bool:
    """Whether ``value`` is a whole number (not true/false) from ``lo`` to ``hi``.

    >>> _whole(3, 1, 9), _whole(True, 1, 9), _whole(2.0, 1, 9), _whole(10, 1, 9)
    (True, False, False, False)
    """
    return not isinstance(value, bool) and isinstance(value, int) and lo <= value <= hi


def load(name_or_path: str | Path) -> DiceSet:
    """Load a shipped set by id (``"d6"``, ``"tally-up"``, ``"toss-up"``, ``"rollers"``) or a
    file."""
    path = Path(name_or_path)
    if not path.suffix:
        path = DICESETS_DIR / f"{name_or_path}.toml"
        if not path.exists():
            raise DiceSetError(
                f"unknown dice set {name_or_path!r}; choose one of {', '.join(SET_IDS)}"
            )
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise DiceSetError(
            f"{path}: file not found: check the name, or use one of {', '.join(SET_IDS)}"
        ) from None
    except UnicodeDecodeError:
        raise DiceSetError(f"{path}: not UTF-8 text: save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise DiceSetError(f"{path}: not valid TOML ({exc}): fix that line") from None
    except RecursionError:
        raise DiceSetError(f"{path}: lists nest far too deeply: not a dice-set file") from None
    except OSError as exc:
        raise DiceSetError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return parse(data, str(path))
