"""Every module's runnable examples give what they show (gpiozero's way: the examples in a
docstring are tests too). The modules are found by walking the packages, so the examples of a
new module run without being listed here."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("tray", "vision", "hardware", "lab")


def _with_examples() -> list[str]:
    names = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            if ">>>" in path.read_text(encoding="utf-8"):
                parts = path.relative_to(ROOT).with_suffix("").parts
                names.append(".".join(parts).removesuffix(".__init__"))
    return names


MODULES = _with_examples()


def test_the_modules_with_examples_are_found():
    assert len(MODULES) > 80
    assert {"tray.rules.engine", "vision.head", "hardware.buttons", "tray.table.played"} <= set(
        MODULES
    )


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_run(name):
    """Each example gives what it shows; and every line of the file that starts an example is
    one doctest finds (an example in a comment or inside a function's body would never run)."""
    module = importlib.import_module(name)
    found = sum(len(t.examples) for t in doctest.DocTestFinder().find(module))
    source = Path(module.__file__).read_text(encoding="utf-8")
    assert found == sum(line.lstrip().startswith(">>>") for line in source.splitlines())
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
