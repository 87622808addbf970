"""A game's round-by-round score chart drawn with pygame-ce: on the table's screen and to PNG.

``draw_chart(surface, rect, title, players, points)`` draws one line per player (the scores
after each round, ``points[i][p]``) with axes, a legend and the final scores (on the table's
screen its words are drawn by the Display, at the theme's sizes);
``save_chart(path, ...)`` draws it on an 800x480 surface and saves it (headless is fine).

Example::

    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "chart.png"
    >>> save_chart(out, "Bank", ["Ann", "Ben"], [[0, 0], [120, 40], [120, 300]]).exists()
    True
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tray.screen import theme as th

BG = (18, 24, 32)
GRID = (52, 70, 96)
TEXT = (236, 240, 244)
DIM = (150, 162, 178)
LINE_COLOURS = [
    (250, 200, 60),
    (80, 150, 240),
    (70, 200, 110),
    (230, 70, 60),
    (190, 110, 230),
    (245, 150, 40),
    (60, 200, 200),
    (240, 120, 170),
    (170, 170, 170),
    (140, 200, 60),
]


def _pygame():
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    pygame.font.init()
    return pygame


def draw_chart(
    surface,
    rect,
    title: str,
    players: list[str],
    points: list[list[int]],
    font=None,
    display=None,
) -> None:
    """Draw the score chart inside ``rect`` (x, y, w, h, real pixels) of a pygame surface.

    With ``display`` (a :class:`tray.screen.display.Display`) the words are drawn by it, at the
    theme's sizes and measured like every other line of the screen; else with pygame's font.
    """
    pg = _pygame()
    x0, y0, w, h = rect
    put, size = _writer(pg, surface, font, display)
    z = display.k if display is not None else 1.0  # lines and marks grow with the screen
    title_h = size(title, True)[1]
    put(title, x0 + 10, y0 + 6, big=True)
    line_h = size("0", False)[1]
    finals = [points[-1][p] if points else 0 for p in range(len(players))]
    legend_w = (
        max((size(f"{n}  {f}")[0] for n, f in zip(players, finals, strict=True)), default=0)
        + 34 * z
    )
    top = y0 + 12 + title_h + line_h / 2  # the top label, centred on its line, clear of it
    right, bottom = x0 + w - legend_w - 10, y0 + h - line_h * 1.5 - 8
    lo, hi, step = _y_scale(points, bottom - top, line_h)
    left = x0 + 14 + max(size(str(int(v)))[0] for v in (lo, hi))
    ax = _Axes(left, top, right, bottom, lo, hi, len(points))
    _grid(pg, surface, ax, step, put, size, line_h)
    row = max(30 * z, line_h + 4)
    for p, name in enumerate(players):
        colour = LINE_COLOURS[p % len(LINE_COLOURS)]
        line = [(ax.sx(i), ax.sy(pt[p])) for i, pt in enumerate(points)]
        if len(line) > 1:
            pg.draw.lines(surface, colour, False, line, round(3 * z))
        for pos in line:
            pg.draw.circle(surface, colour, (int(pos[0]), int(pos[1])), round(3 * z))
        ly = top + p * row
        if ly + row > y0 + h:
            break
        pg.draw.rect(surface, colour, (x0 + w - legend_w, ly + row / 2 - 8 * z, 16 * z, 16 * z))
        put(f"{name}  {finals[p]}", x0 + w - legend_w + 24 * z, ly + row / 2, anchor="midleft")


def _writer(pg, surface, font, display):
    """``put(words, x, y, big, colour, anchor)`` and ``size(words, big)``, in real pixels: by
    ``display`` at the theme's sizes when there is one, else with pygame's font."""
    if display is not None:
        k = display.k

        def put(s, x, y, big=False, colour=TEXT, anchor="topleft"):
            cap = th.CAP_BODY if big else th.MIN_CAP
            return display.text(s, (x / k, y / k), cap, colour, bold=big, anchor=anchor)

        def size(s, big=False):
            cap = th.CAP_BODY if big else th.MIN_CAP
            return display.width_of(s, cap, big) * k, display.line_h(cap, big) * k

        return put, size
    fonts = {True: pg.font.Font(None, 30), False: font or pg.font.Font(None, 20)}

    def put(s, x, y, big=False, colour=TEXT, anchor="topleft"):
        img = fonts[big].render(s, True, colour)
        r = img.get_rect(**{anchor: (round(x), round(y))})
        surface.blit(img, r)
        return r

    def size(s, big=False):
        return fonts[big].size(s)

    return put, size


def _y_scale(points: list[list[int]], span: float, line_h: float) -> tuple[int, int, int]:
    """(lowest, highest, step) of the score axis ``span`` pixels high: from 0 (or the lowest
    score) to the highest rounded up to a nice step, its labels a line apart at least."""
    lo = min(0, min((min(p) for p in points), default=0))
    hi = max(1, max((max(p) for p in points), default=1))
    step = _nice_step((hi - lo) / 5)
    hi = step * -(-hi // step)
    while span * step / max(1, hi - lo) < line_h and step < hi - lo:
        step = _nice_step(step + 1)  # labels a line apart at least
        hi = step * -(-hi // step)
    return lo, hi, step


@dataclass
class _Axes:
    """Where the plot is (real pixels) and what it shows: ``n`` rounds, scores ``lo``-``hi``."""

    left: float
    top: float
    right: float
    bottom: float
    lo: int
    hi: int
    n: int

    def sx(self, i: int) -> float:
        return self.left + (self.right - self.left) * i / max(1, self.n - 1)

    def sy(self, v: float) -> float:
        return self.bottom - (self.bottom - self.top) * (v - self.lo) / max(1, self.hi - self.lo)


def _grid(pg, surface, ax: _Axes, step: int, put, size, line_h: float) -> None:
    """The score lines with their labels, the round axis and its numbers (a word apart)."""
    value = ax.lo
    while value <= ax.hi:
        y = ax.sy(value)
        pg.draw.line(surface, GRID, (ax.left, y), (ax.right, y), 1)
        put(str(int(value)), ax.left - 8, y, colour=DIM, anchor="midright")
        value += step
    pg.draw.line(surface, DIM, (ax.left, ax.bottom), (ax.right, ax.bottom), 2)
    every = 1
    width = ax.right - ax.left
    while every < ax.n and width * every / max(1, ax.n - 1) < size("00 ")[0]:
        every += 1  # round numbers a word apart
    for i in range(0, ax.n, every):
        put(str(i), ax.sx(i), ax.bottom + line_h / 2 + 2, colour=DIM, anchor="midtop")  # below "0"


def _nice_step(raw: float) -> int:
    """The least nice step (1, 2, 5 times a power of ten, and 25, 250) at least ``raw``, for
    any score (a step that stopped at 10000 left the axis search of a tall score range
    looping for ever).

    >>> [_nice_step(x) for x in (0.3, 3, 24, 26, 101, 7_000, 123_456)]
    [1, 5, 25, 50, 200, 10000, 200000]
    """
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        if step >= raw:
            return step
    scale = 10000
    while True:
        for mult in (1, 2, 5):
            if mult * scale >= raw:
                return mult * scale
        scale *= 10


def save_chart(
    path: str | Path,
    title: str,
    players: list[str],
    points: list[list[int]],
    size: tuple[int, int] = (800, 480),
) -> Path:
    """Draw the chart on a ``size`` surface and save it as a PNG; the path."""
    pg = _pygame()
    surface = pg.Surface(size)
    surface.fill(BG)
    draw_chart(surface, (0, 0, *size), title, players, points)
    path = Path(path)
    pg.image.save(surface, str(path))
    return path
