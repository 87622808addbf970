"""A game's round-by-round score chart drawn with pygame-ce: on the table's screen and to PNG.

``draw_chart(surface, rect, title, players, points)`` draws one line per player (the scores
after each round, ``points[i][p]``) with axes, a legend and the final scores;
``save_chart(path, ...)`` draws it on an 800x480 surface and saves it (headless is fine).

Example::

    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "chart.png"
    >>> save_chart(out, "Bank", ["Ann", "Ben"], [[0, 0], [120, 40], [120, 300]]).exists()
    True
"""

from __future__ import annotations

import os
from pathlib import Path

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
    surface, rect, title: str, players: list[str], points: list[list[int]], font=None
) -> None:
    """Draw the score chart inside ``rect`` (x, y, w, h) of a pygame surface."""
    pg = _pygame()
    x0, y0, w, h = rect
    big = pg.font.Font(None, 30)
    small = font or pg.font.Font(None, 20)
    surface.blit(big.render(title, True, TEXT), (x0 + 10, y0 + 6))
    legend_w = 170
    left, top = x0 + 56, y0 + 42
    right, bottom = x0 + w - legend_w - 10, y0 + h - 34
    lo = min(0, min((min(p) for p in points), default=0))
    hi = max(1, max((max(p) for p in points), default=1))
    step = _nice_step((hi - lo) / 5)
    hi = step * -(-hi // step)

    def sx(i):
        return left + (right - left) * i / max(1, len(points) - 1)

    def sy(v):
        return bottom - (bottom - top) * (v - lo) / max(1, hi - lo)

    value = lo
    while value <= hi:
        y = sy(value)
        pg.draw.line(surface, GRID, (left, y), (right, y), 1)
        label = small.render(str(int(value)), True, DIM)
        surface.blit(label, (left - 8 - label.get_width(), y - label.get_height() // 2))
        value += step
    pg.draw.line(surface, DIM, (left, bottom), (right, bottom), 2)
    for i in range(len(points)):
        if len(points) <= 12 or i % max(1, len(points) // 10) == 0 or i == len(points) - 1:
            label = small.render(str(i), True, DIM)
            surface.blit(label, (sx(i) - label.get_width() // 2, bottom + 6))
    caption = small.render("round", True, DIM)
    surface.blit(caption, (right - caption.get_width(), bottom + 20))
    for p, name in enumerate(players):
        colour = LINE_COLOURS[p % len(LINE_COLOURS)]
        line = [(sx(i), sy(pt[p])) for i, pt in enumerate(points)]
        if len(line) > 1:
            pg.draw.lines(surface, colour, False, line, 3)
        for pos in line:
            pg.draw.circle(surface, colour, (int(pos[0]), int(pos[1])), 3)
        ly = top + p * 30
        pg.draw.rect(surface, colour, (x0 + w - legend_w, ly + 4, 16, 16))
        final = points[-1][p] if points else 0
        surface.blit(small.render(f"{name}  {final}", True, TEXT), (x0 + w - legend_w + 24, ly + 4))


def _nice_step(raw: float) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        if step >= raw:
            return step
    return 10000


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
