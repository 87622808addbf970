"""Screens people can read at arm's length: at every panel size, every line of text is at least
MIN_CAP layout pixels high (3 mm on a 7" panel), inside the screen and never on top of other
text, and every button, choice and menu line is a finger-sized TOUCH target (9 mm).

The rects measured are the ones pygame rendered (Display.drawn), on real game states from
seeded playthroughs (tray/screen/screenshots.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from tray.screen import screenshots
from tray.screen.display import Display
from tray.screen.theme import MIN_CAP, TOUCH
from tray.screen.view import build_view, how_to_view, start_view
from tray.table.actions import StartMenu

SIZES = [(800, 480), (1024, 600), (1920, 1080)]


@pytest.fixture(scope="module")
def views():
    out = []
    menu = StartMenu(["Ana", "Ben", "Cy", "Dee"], default_game="tally-up")
    out.append(("start", start_view(menu)))
    menu.offer_resume(Path("x.jsonl"), "Resume Bank (Ana, Ben, Cy, Dee), 120 events in")
    out.append(("start-resume", start_view(menu)))
    menu.do("discard")
    out.append(("start-discard", start_view(menu)))
    bank = StartMenu([f"P{i}" for i in range(10)], default_game="bank")
    bank.focus = 3  # editing "double then add": two lines
    editing = start_view(bank)
    editing.editing = True
    out.append(("start-bank-editing", editing))
    for gid in ("tally-up", "diced-out", "rollers"):
        out.append((f"{gid}-how-to", how_to_view(gid)))
    for gid in ("tally-up", "diced-out"):
        for name, table, t in screenshots.scenes(gid, 7):
            out.append((f"{gid}-{name}", build_view(table, t)))
    out.append(("ten-players", build_view(screenshots.crowded(), 0.5)))
    out.append(("ten-players-end", build_view(screenshots.crowded(finished=True), 1.0)))
    return out


def problems(d: Display, name: str) -> list[str]:
    w, h = d.size
    found = []
    for t in d.drawn:
        r = t.rect
        if r.left < 0 or r.top < 0 or r.right > w or r.bottom > h:
            found.append(f"{name}: {t.text!r} is outside the screen at {r}")
        if t.cap < round(MIN_CAP * d.k):
            found.append(f"{name}: {t.text!r} has capitals {t.cap} px < {MIN_CAP * d.k:.0f}")
    for i, a in enumerate(d.drawn):
        for b in d.drawn[i + 1 :]:
            if a.rect.colliderect(b.rect):
                found.append(f"{name}: {a.text!r} overlaps {b.text!r}")
    for r, target in d.hits:
        if (
            target[0] in ("button", "choice", "menu", "confirm", "start")
            and min(r.w, r.h) < round(TOUCH * d.k) - 1
        ):
            found.append(f"{name}: tap target {target} is {r.w}x{r.h} px")
    return found


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_text_is_big_inside_and_apart_and_targets_finger_sized(views, size):
    d = Display(size=size, headless=True)
    found = []
    for name, view in views:
        d.draw(view)
        assert d.drawn, name
        found += problems(d, name)
    assert found == []


def test_the_minimums_in_real_pixels():
    """What MIN_CAP and TOUCH come to on each panel (the figures the theme explains)."""
    want = {
        (800, 480): (16, 48),
        (1024, 600): (20, 60),
        (1280, 720): (24, 72),
        (1920, 1080): (36, 108),
    }
    for size, (cap, touch) in want.items():
        d = Display(size=size, headless=True)
        f = d.font(MIN_CAP)
        m = f.metrics("H")[0]
        assert m[3] - m[2] >= cap
        assert round(TOUCH * d.k) == touch


def test_the_checker_sees_an_overlap_and_small_text():
    """The checks above can fail: two lines drawn on top of each other, one too small."""
    d = Display(size=(800, 480), headless=True)
    d.draw(how_to_view("bank"))
    d.text("one line", (100, 200), MIN_CAP)
    d.text("another", (110, 204), MIN_CAP)
    d.drawn.append(type(d.drawn[0])(d.pg.Rect(700, 470, 200, 20), "off the edge", 10))
    found = " ".join(problems(d, "x"))
    assert "overlaps" in found and "outside" in found and "capitals 10" in found
