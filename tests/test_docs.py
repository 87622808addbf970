"""The documentation stays true to the code and to itself: every command is listed, every
relative link leads to a file, the README stays short, and no file of the project cites a
reading, a path or a log entry that only existed outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tray.cli import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
DOCS = [
    ROOT / "README.md",
    ROOT / "tray" / "rules" / "RULES.md",
    *sorted((ROOT / "docs").glob("*.md")),
]
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def slugs(markdown: str, marks: str = "#+") -> set[str]:
    """The anchors of a Markdown text's headings (of level ``marks``), as GitHub makes them."""
    headings = re.findall(rf"^{marks} (.+)$", markdown, re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}


def test_readme_is_a_short_product_readme():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 120
    assert "make run" in lines[lines.index("```sh") + 1]
    assert any(line.startswith("make test") for line in lines)


@pytest.mark.parametrize("page", ["README.md", "docs/commands.md"])
def test_every_command_is_documented_and_every_documented_command_exists(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    named = set(re.findall(r"`dicetray ([a-z]+)", text))
    assert set(COMMANDS) <= named, set(COMMANDS) - named
    assert named <= set(COMMANDS) | {"help"}, named - set(COMMANDS)


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_lead_to_files_and_their_anchors_exist(page):
    text = page.read_text(encoding="utf-8")
    links = [(m.group(1), m.group(2)) for m in LINK.finditer(text)]
    for target, anchor in links:
        if target.startswith(("http://", "https://")):
            continue
        path = (page.parent / target).resolve()
        assert path.exists(), f"{page.name}: {target}"
        if anchor and path.suffix == ".md":
            assert anchor[1:] in slugs(path.read_text(encoding="utf-8")), f"{page.name}: {anchor}"


def test_the_rules_sections_the_code_cites_exist():
    """Engines, tests and the how-to pages cite ``tray/rules/RULES.md#<section>``."""
    rules = (ROOT / "tray" / "rules" / "RULES.md").read_text(encoding="utf-8")
    sections = slugs(rules, "##")
    cited = set()
    for folder in ("tray", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            cited |= set(re.findall(r"RULES\.md#([\w-]+)", path.read_text(encoding="utf-8")))
    assert {"1-tally-up", "2-toss-up", "3-bank", "4-dicedout", "5-rollers"} <= cited
    assert cited <= sections, cited - sections


# What a repository read on its own must not lean on: the rule readings as a file beside it,
# a build machine's paths, numbered work-log entries. Spelled in pieces so that this file
# does not match itself.
OUTSIDE = re.compile(
    "|".join(
        [
            r"shared/" + r"games\.md",
            r"/" + r"work/",
            r"/" + r"root/",
            r"/" + r"home/\w",
            r"\b[Ss]" + r"ession [0-9]+",
            r"\b[Ee]" + r"ngineer",
        ]
    )
)
TEXT = {
    ".py",
    ".md",
    ".toml",
    ".sh",
    ".cfg",
    ".service",
    ".conf",
    ".txt",
    ".csv",
    ".json",
    ".jsonl",
}
SKIP = {"demo-out", "build", "__pycache__", "dicetray.egg-info"}  # and hidden folders (caches)


def test_no_file_of_the_project_cites_what_lies_outside_it():
    """Code, docs, tests, fixtures, the model card and the models' JSON cards."""
    found = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        hidden = any(part.startswith(".") for part in rel.parts[:-1])
        if hidden or not path.is_file() or path.suffix not in TEXT or SKIP & set(rel.parts):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines()):
            if OUTSIDE.search(line):
                found.append(f"{rel}:{n + 1}: {line.strip()[:80]}")
    assert not found, "\n".join(found)
