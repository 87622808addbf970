"""One direction of knowledge: every import in the code, at module level or inside a function,
goes from a part of the project to a part it may know, as written once in MAY_KNOW.

The parts, from the bottom: ``vision`` (frames in, settled rolls out) and the rules engines know
nothing of the table, nor of each other (a game is given its dice layout: ``tray.layouts``
takes the shipped one from ``vision``'s dice sets); ``hardware`` (cameras, buttons, the
simulated tray) knows only the dice sets of ``vision``; ``tray.table`` knows the rules; the
screen and the network each know the table, never each other; ``tray.app`` puts camera,
vision, table, screen and network together; the workshop ``lab`` may use everything, and
nothing but ``lab`` (and the tests) uses it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("tray", "vision", "hardware", "lab")

_TABLE_AND_BELOW = {
    "tray.table",
    "tray.history",
    "tray.layouts",
    "tray.playthrough",
    "tray.rules",
    "vision",
    "hardware",
}
_EVERY_PART = {"tray.app", "tray.net", "tray.screen", "tray.commands"} | _TABLE_AND_BELOW

#: each part of the project and the parts it may import. A module belongs to the longest part
#: whose name starts its own; a part may always import its own modules.
MAY_KNOW: dict[str, set[str]] = {
    "vision": set(),
    "hardware": {"vision"},
    "tray": set(),  # the empty package file
    "tray.rules": set(),  # pure: a game is given its dice layout, it reads no dice-set file
    "tray.layouts": {"tray.rules", "vision"},  # each game's shipped layout, from vision's sets
    "tray.playthrough": {"tray.rules", "tray.layouts"},  # the seeded random player
    "tray.replay": {"tray.rules", "tray.playthrough"},  # dicetray replay
    "tray.history": {"tray.rules"},
    "tray.commands": {"tray.rules", "tray.layouts"},
    "tray.table": {"tray.rules", "tray.layouts", "vision", "hardware"},  # hardware: buttons
    "tray.screen": {"tray.table", "tray.history", "tray.rules", "vision"},
    "tray.net": {"tray.table", "tray.history", "tray.rules", "vision", "hardware"},
    "tray.app": _EVERY_PART - {"tray.app"},
    # commands that run or check a whole table, wherever their package puts them
    "tray.net.bench": _EVERY_PART,  # dicetray netbench: tables, phones and a broker
    "tray.net.standings": _EVERY_PART,  # dicetray standings: reads the table's config
    "hardware.pi": _EVERY_PART,  # python -m hardware.pi: checks everything a table needs
    "tray.cli": _EVERY_PART | {"tray.replay"},
    "lab": _EVERY_PART | {"tray.cli"},
}


def part_of(module: str) -> str | None:
    """The part of MAY_KNOW a dotted module name belongs to (the longest that prefixes it)."""
    best = None
    for part in MAY_KNOW:
        if (module == part or module.startswith(part + ".")) and len(part) > len(best or ""):
            best = part
    return best


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, imported module) of every import in ``source``, those inside functions and
    ``if TYPE_CHECKING`` blocks included, relative ones resolved; ``import_module("x")`` with
    a literal name counts too."""
    out = []
    here = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            # "from tray.rules import games": the module imported is tray.rules.games
            out += [(node.lineno, f"{name}.{a.name}") for a in node.names]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            out.append((node.lineno, node.args[0].value))
    return out


def upward(module: str, imported: str) -> str | None:
    """Why ``module`` may not import ``imported``, or None when it may."""
    if imported.split(".")[0] not in PACKAGES:
        return None  # the standard library and third-party packages
    mine, theirs = part_of(module), part_of(imported)
    if mine is None:
        return f"{module} belongs to no part of MAY_KNOW"
    if theirs is None or theirs == mine or theirs in MAY_KNOW[mine]:
        return None
    return f"{mine} may not import {theirs}"


def project_modules() -> list[tuple[str, Path]]:
    return [
        (module_name(p), p)
        for package in PACKAGES
        for p in sorted((ROOT / package).rglob("*.py"))
        if "__pycache__" not in p.parts
    ]


def test_every_import_goes_down():
    wrong = []
    for module, path in project_modules():
        source = path.read_text(encoding="utf-8")
        for line, imported in imports_of(source, module, path.name == "__init__.py"):
            why = upward(module, imported)
            if why:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: imports {imported}: {why}")
    assert not wrong, "\n".join(wrong)


def test_every_module_belongs_to_a_part():
    assert [m for m, _ in project_modules() if part_of(m) is None] == []


def test_the_parts_know_each_other_one_way_only():
    """MAY_KNOW has no circle: no two parts may import each other, however indirectly."""

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for part in MAY_KNOW.get(start, set()):
            if part == goal or (part not in seen and reaches(part, goal, seen | {part})):
                return True
        return False

    circles = [p for p in MAY_KNOW if reaches(p, p, {p})]
    assert circles == []
    assert "lab" not in set().union(*MAY_KNOW.values())  # nothing but lab imports lab
    assert not {"hardware", "lab", "tray.table", "tray.screen"} & MAY_KNOW["vision"]


@pytest.mark.parametrize(
    ("module", "source", "why"),
    [
        (
            "tray.table.table",
            "def f():\n    from tray.screen.view import build_view\n",
            "tray.table may not import tray.screen",
        ),
        ("tray.screen.view", "from ..app import play\n", "tray.screen may not import tray.app"),
        ("vision.settle", "import hardware.camera\n", "vision may not import hardware"),
        (
            "hardware.camera",
            "def f():\n    if True:\n        import lab.synth\n",
            "hardware may not import lab",
        ),
        ("tray.net.view", "from tray import screen\n", "tray.net may not import tray.screen"),
        (
            "tray.rules.odds",
            "import importlib\nimportlib.import_module('tray.table.table')\n",
            "tray.rules may not import tray.table",
        ),
        (
            "tray.rules.journal",
            "def create():\n    from vision.dicesets import load\n",
            "tray.rules may not import vision",
        ),
    ],
)
def test_the_check_sees_an_upward_import_anywhere(module, source, why):
    """The check is not blind: an upward import inside a function, a relative one, a package
    imported by name or a module loaded by name is caught."""
    found = [upward(module, imported) for _, imported in imports_of(source, module)]
    assert why in found
