"""Screens people can read at arm's length: every screen ``dicetray screenshots`` draws (the
capture and teaching screens included), at 800x480, 1024x600 and 1920x1080: every line of text
is at least MIN_CAP layout pixels high (3 mm on a 7" panel), whole (never cut short with
"..."), inside the screen, on no other text and no picture, never half hidden under an
overlay; every button, choice and menu line is a finger-sized TOUCH target (9 mm); and no
internal name of a die or a face ("wild:3", "d6 d6", "(up and up)") reaches a player.

The rects measured are the ones pygame rendered (Display.drawn, Display.images), on real game
states from seeded playthroughs (tray/app/screenshots.py)."""

from __future__ import annotations

import os
import re

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from tray.app import screenshots
from tray.screen.display import Display
from tray.screen.theme import MIN_CAP, TOUCH
from tray.screen.view import how_to_view

SIZES = [(800, 480), (1024, 600), (1920, 1080)]
#: words that are ids of the dice-set files, not what is printed on the dice
INTERNAL = re.compile(
    r"\b(?:d6|toss|up|wild|black|red|orange|yellow|green|blue|purple):\S"
    r"|\bd6 d6\b|\btoss-up toss\b|\((?:up|wild|toss|d6)\b|OUT, still rolling"
)


@pytest.fixture(scope="module")
def shots():
    return screenshots.shots()


def problems(d: Display, name: str) -> list[str]:
    """Everything wrong with what ``d`` drew last, one line each."""
    found = []
    for t in d.drawn:
        found += [f"{name}: {t.text!r} {what}" for what in _text_faults(d, t)]
    for t in d.clipped:
        found.append(f"{name}: {t.text!r} is half hidden under an overlay")
    found += [f"{name}: {what}" for what in _overlaps(d)]
    for r, target in d.hits:
        if (
            target[0] in ("button", "choice", "menu", "confirm", "start")
            and min(r.w, r.h) < round(TOUCH * d.k) - 1
        ):
            found.append(f"{name}: tap target {target} is {r.w}x{r.h} px")
    return found


def _text_faults(d: Display, t) -> list[str]:
    """What is wrong with one line of text ``d`` drew: outside, too small, cut short, an
    internal name, over a picture."""
    w, h = d.size
    r = t.rect
    faults = []
    if r.left < 0 or r.top < 0 or r.right > w or r.bottom > h:
        faults.append(f"is outside the screen at {r}")
    if t.cap < round(MIN_CAP * d.k):
        faults.append(f"has capitals {t.cap} px < {MIN_CAP * d.k:.0f}")
    if t.cut:
        faults.append("is cut short")
    if INTERNAL.search(t.text):
        faults.append("shows an internal name")
    for img in d.images:
        if img.colliderect(r) and not img.contains(r):  # a label on a die is fine
            faults.append(f"lies over a picture at {img}")
    return faults


def _overlaps(d: Display) -> list[str]:
    """Text drawn on other text, pictures on other pictures."""
    found = []
    for i, a in enumerate(d.drawn):
        for b in d.drawn[i + 1 :]:
            if a.rect.colliderect(b.rect):
                found.append(f"{a.text!r} overlaps {b.text!r}")
    for i, a in enumerate(d.images):
        for b in d.images[i + 1 :]:
            if a.colliderect(b):
                found.append(f"pictures at {a} and {b} overlap")
    return found


def test_every_screen_is_shot():
    """The capture and teaching screens, the odds and the history are among the shots."""
    names = [s.name for s in screenshots.shots(["toss-up"])]
    assert "capture-toss-up-throw" in names and "capture-toss-up-review" in names
    assert "capture-teaching" in names and "toss-up-unread-dice" in names
    assert len(names) == len(set(names))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_text_is_big_whole_inside_and_apart_and_targets_finger_sized(shots, size):
    d = Display(size=size, headless=True)
    found = []
    for shot in shots:
        d.draw(shot.view)
        assert d.drawn, shot.name
        found += problems(d, shot.name)
    assert found == []


def test_a_line_the_hint_names_is_on_the_screen(shots):
    """Rollers' hint says "long press on Roll the others": that line is drawn, at 800x480 too."""
    d = Display(size=(800, 480), headless=True)
    named = [s for s in shots if "Roll the others" in (getattr(s.view, "help", "") or "")]
    assert named  # the Rollers saves are among the shots
    for shot in named:
        d.draw(shot.view)
        assert "Roll the others" in [t.text for t in d.drawn], shot.name


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
        m = d.font(MIN_CAP).get_metrics("H")[0]
        assert m[3] - m[2] >= cap
        assert round(TOUCH * d.k) == touch


def test_letters_sit_on_their_own_advances():
    """No kerning pair widens a word ("but ton", "CAMER A"): a word is as wide as its letters."""
    d = Display(size=(800, 480), headless=True)
    for bold in (False, True):
        f = d.font(MIN_CAP, bold)
        for word in ("button", "CAMERA", "from", "The picture", "showing"):
            advances = sum(m[4] for m in f.get_metrics(word))
            assert f.get_rect(word).width <= round(advances) + 1, (word, bold)


def test_the_checker_sees_every_fault():
    """The checks above can fail: text on text, too small, outside, cut short, half under an
    overlay, over a picture; an internal name."""
    d = Display(size=(800, 480), headless=True)
    d.draw(how_to_view("bank"))
    d.text("one line", (100, 200), MIN_CAP)
    d.text("another", (110, 204), MIN_CAP)
    d.drawn.append(type(d.drawn[0])(d.pg.Rect(700, 470, 200, 20), "off the edge", 10))
    d.text("a sentence far too long for its room", (100, 300), MIN_CAP, max_w=60)
    d.text("half under", (300, 400), MIN_CAP)
    d.cover(d.R(330, 380, 200, 60))
    d.images.append(d.R(100, 340, 40, 40))
    d.text("over the die", (120, 350), MIN_CAP)
    d.text("Up Die wild:3", (500, 120), MIN_CAP)
    found = " ".join(problems(d, "x"))
    for fault in (
        "overlaps",
        "outside",
        "capitals 10",
        "cut short",
        "half hidden",
        "over a picture",
        "internal name",
    ):
        assert fault in found, fault
