"""Drawing the win screen of a finished game (a :class:`~tray.screen.view.View` whose
``screen`` is "end").

Left: the winner, large, in their seat colour, with a cup and confetti; below it the end
screen's choices (rematch, another game, the start screen) as touch buttons. Right: the score
table, everyone in finishing order with their score after each round (the last rounds that
fit) and the final total.

>>> from tray.screen.draw_end import draw_end   # used by Display.draw
"""

from __future__ import annotations

from tray.screen import theme as th
from tray.screen.draw_menus import _answer_h
from tray.screen.draw_play import GAP, _buttons, footer, header
from tray.screen.theme import BASE_H, FOOTER_H, HEADER_H, MIN_CAP, TOUCH


def _trophy(d, cx, cy, s) -> None:
    """A gold cup, ``s`` layout pixels high, centred at (cx, cy)."""
    pg, k = d.pg, d.k
    shape = [
        (-0.36, -0.5),
        (0.36, -0.5),
        (0.26, -0.02),
        (0.08, 0.12),
        (0.08, 0.3),
        (0.26, 0.36),
        (0.26, 0.5),
        (-0.26, 0.5),
        (-0.26, 0.36),
        (-0.08, 0.3),
        (-0.08, 0.12),
        (-0.26, -0.02),
    ]
    pg.draw.polygon(d.surface, th.GOLD, [((cx + a * s) * k, (cy + b * s) * k) for a, b in shape])
    for side in (-1, 1):
        pg.draw.circle(
            d.surface,
            th.GOLD,
            d.P(cx + side * s * 0.38, cy - s * 0.28),
            round(s * 0.16 * k),
            max(2, round(s * 0.05 * k)),
        )
    pg.draw.circle(
        d.surface, (255, 240, 170), d.P(cx - s * 0.12, cy - s * 0.32), round(s * 0.05 * k)
    )


def _confetti(d, x, y, w, h, colours) -> None:
    """Bits of paper in the players' colours along the top and bottom edges of a box."""
    seed = 12345
    for i in range(46):
        seed = (seed * 1103515245 + 12345) % 2**31
        fx = (seed % 1000) / 1000
        seed = (seed * 1103515245 + 12345) % 2**31
        edge = y + 5 + (seed % 3) if i % 2 else y + h - 11 + (seed % 3)
        c = colours[i % len(colours)] if colours else th.GOLD
        d.box((x + 10 + fx * (w - 24), edge, 7 + (seed % 5), 3 + (i % 2)), c, radius=1)


def _num(s: str) -> float:
    try:
        return float(s)
    except ValueError:
        return 0.0


def draw_end(d, v) -> None:
    """The win screen."""
    w = d.width
    header(d, v.title, v.game_id, "Game over")
    top, bottom = HEADER_H + GAP, BASE_H - FOOTER_H - 4
    lw = min(w * 0.46, 430.0)
    winners = [r for r in v.players if r.winner]
    col = winners[0].colour if winners else th.GOLD
    menu = getattr(v, "menu", None) or []
    heights = [_answer_h(d, c.label, lw - 28) for c in menu]
    menu_h = (d.line_h(th.CAP_BODY, True) + 4 + sum(hh + 6 for hh in heights)) if menu else 0
    bh = max(110.0, min(170.0, bottom - top - menu_h - GAP))
    d.box((8, top, lw, bh), (40, 46, 60), radius=14)
    d.box((8, top, lw, bh), col, radius=14, width=4)
    _confetti(d, 8, top, lw, bh, [r.colour for r in v.players])
    cup = min(92.0, bh - 36)
    _trophy(d, 14 + cup * 0.55, top + bh / 2, cup)
    tx = 14 + cup * 1.1 + 6
    tw = 8 + lw - 12 - tx
    if winners:
        head = "WINNER" if len(winners) == 1 else "SHARED WIN"
        name = " & ".join(r.name for r in winners)
        pts = f"with {winners[0].score} points"
    else:
        head, name, pts = "GAME OVER", "no winner", ""
    name, cap = d.fit(name, th.CAP_HUGE, tw, bold=True)
    rest = d.line_h(MIN_CAP, True) + (d.line_h(th.CAP_BODY) if pts else 0)
    while cap > th.CAP_PROMPT and rest + d.line_h(cap, True) > bh - 24:
        cap -= 4  # the words stay clear of the confetti along the edges
    parts = [(head, MIN_CAP, th.DIM, True), (name, cap, col, True)]
    if pts:
        parts.append((pts, th.CAP_BODY, th.TEXT, False))
    ty = top + (bh - sum(d.line_h(c, b) for _, c, _, b in parts)) / 2
    for words, c, colour, bold in parts:
        d.text(words, (tx, ty), c, colour, bold=bold, max_w=tw)
        ty += d.line_h(c, bold)

    if menu:  # the end screen's choices, each a touch button
        yy = top + bh + GAP
        d.text(v.menu_title or "What next?", (8, yy), th.CAP_BODY, th.TEXT, bold=True, max_w=lw)
        yy += d.line_h(th.CAP_BODY, True) + 4
        for i, (c, hh) in enumerate(zip(menu, heights, strict=True)):
            ink = th.BG if c.highlighted else th.TEXT
            d.box((8, yy, lw, hh), th.GOLD if c.highlighted else th.PANEL_HI, radius=10)
            if hh == TOUCH:
                d.text(
                    c.label,
                    (22, yy + hh / 2),
                    th.CAP_BODY,
                    ink,
                    bold=c.highlighted,
                    anchor="midleft",
                    max_w=lw - 28,
                )
            else:
                d.wrap(
                    c.label,
                    (22, yy + 6, lw - 28, hh),
                    MIN_CAP,
                    ink,
                    bold=c.highlighted,
                    max_lines=2,
                )
            d.hit_area((8, yy, lw, hh), ("menu", i))
            yy += hh + 6
    tx0 = 8 + lw + 16
    _score_table(d, v, tx0, top, w - 10 - tx0, bottom - top)
    footer(d, v.help, _buttons(v))


def _finishing_order(v) -> list:
    low_wins = v.lowest_wins
    return sorted(
        v.players, key=lambda r: (not r.winner, _num(r.score) * (1 if low_wins else -1), r.seat)
    )


def _score_table(d, v, x, y, w, h) -> None:
    """The scores: a column per player (up to five) with a line per round, else a line per
    player with the last rounds that fit."""
    d.box((x, y, w, h), th.PANEL, radius=12)
    if len(v.players) <= 5:
        _rounds_down(d, v, x, y, w, h)
    else:
        _players_down(d, v, x, y, w, h)


def _rounds_down(d, v, x, y, w, h) -> None:
    """Columns: the players in finishing order; lines: the score after each round; then the
    total."""
    order = _finishing_order(v)
    seat_of = {r.seat: i for i, r in enumerate(v.players)}
    label_w = d.width_of("Total", MIN_CAP, True) + 14
    cw = (w - 16 - label_w) / len(order)
    lh = d.line_h(MIN_CAP) + 2
    yy = y + 8
    for j, r in enumerate(order):
        cx = x + 8 + label_w + cw * (j + 0.5)
        d.text(f"{j + 1}.", (cx, yy), MIN_CAP, th.DIM, anchor="midtop")
        name = r.name if d.width_of(r.name, MIN_CAP, True) <= cw - 4 else r.name[:3]
        d.text(name, (cx, yy + lh), MIN_CAP, r.colour, bold=True, anchor="midtop", max_w=cw - 4)
    yy += 2 * lh + 4
    total_h = d.line_h(th.CAP_NAME, True) + 8
    rows = max(0, int((y + h - 8 - total_h - yy) // lh))
    hist = v.history[-rows:] if rows else []
    if len(hist) < len(v.history) and rows:
        hist = v.history[-(rows - 1) :] if rows > 1 else []
        d.text(
            f"{len(v.history) - len(hist)} rounds before",
            (x + 8, yy),
            MIN_CAP,
            th.DIM,
            max_w=w - 16,
        )
        yy += lh
    for label, cells in hist:
        d.text(label.replace("Round ", "R"), (x + 8, yy), MIN_CAP, th.DIM, max_w=label_w)
        for j, r in enumerate(order):
            i = seat_of[r.seat]
            if i < len(cells):
                d.text(
                    cells[i],
                    (x + 8 + label_w + cw * (j + 0.5), yy),
                    MIN_CAP,
                    th.TEXT,
                    anchor="midtop",
                    max_w=cw - 4,
                )
        yy += lh
    yt = y + h - total_h
    d.box((x + 4, yt - 4, w - 8, total_h), th.PANEL_HI, radius=8)
    d.text(
        "Total",
        (x + 8, yt + total_h / 2 - 4),
        MIN_CAP,
        th.TEXT,
        bold=True,
        anchor="midleft",
        max_w=label_w,
    )
    for j, r in enumerate(order):
        d.text(
            r.score,
            (x + 8 + label_w + cw * (j + 0.5), yt + total_h / 2 - 4),
            th.CAP_NAME,
            th.GOLD if r.winner else th.TEXT,
            bold=True,
            anchor="center",
            max_w=cw - 4,
        )


def _players_down(d, v, x, y, w, h) -> None:
    """Lines: everyone in finishing order, with the score after each of the last rounds that
    fit, and the total."""
    order = _finishing_order(v)
    n = max(1, len(order))
    head_h = d.line_h(MIN_CAP, True) + 8
    row_h = max(d.line_h(MIN_CAP) + 2, min(44.0, (h - head_h - 12) / n))
    fit_rows = int((h - head_h - 12) // row_h)
    cap = max(MIN_CAP, min(th.CAP_NAME, (row_h - 8) / 1.6))
    name_w = min(150.0, max(d.width_of(r.name, cap, True) for r in order) + 8)
    total_w = max(d.width_of(r.score, cap, True) for r in order) + 16
    place_w = d.width_of("10.", cap) + 20
    cell_w = (
        max(d.width_of(c, MIN_CAP) for _, cells in v.history for c in cells) + 14
        if v.history
        else 0
    )
    cols = int((w - 16 - place_w - name_w - total_w) // cell_w) if cell_w else 0
    rounds = v.history[-cols:] if cols > 0 else []
    hx = x + 8 + place_w + name_w
    hy = y + 8
    d.text("Total", (x + w - 10, hy), MIN_CAP, th.TEXT, bold=True, anchor="topright")
    if not v.history:
        d.text(
            "no round finished",
            (hx, hy),
            MIN_CAP,
            th.DIM,
            max_w=w - 24 - place_w - name_w - total_w,
        )
    elif len(rounds) < len(v.history) and rounds:
        d.text("...", (hx - 20, hy), MIN_CAP, th.DIM)
    for j, (label, _) in enumerate(rounds):
        d.text(
            label.replace("Round ", "R"),
            (hx + cell_w * (j + 0.5), hy),
            MIN_CAP,
            th.DIM,
            bold=True,
            anchor="midtop",
            max_w=cell_w - 4,
        )
    seat_of = {r.seat: i for i, r in enumerate(v.players)}
    yy = y + head_h + 4
    for place, r in enumerate(order[:fit_rows], 1):
        mid = yy + row_h / 2
        d.box((x + 6, yy + 3, 8, row_h - 6), r.colour, radius=3)
        d.text(f"{place}.", (x + 20, mid), cap, th.DIM, anchor="midleft")
        d.text(
            r.name,
            (x + 8 + place_w, mid),
            cap,
            r.colour if r.winner else th.TEXT,
            bold=True,
            anchor="midleft",
            max_w=name_w - 6,
        )
        for j, (_, cells) in enumerate(rounds):
            i = seat_of[r.seat]
            if i < len(cells):
                d.text(
                    cells[i],
                    (hx + cell_w * (j + 0.5), mid),
                    MIN_CAP,
                    th.DIM,
                    anchor="center",
                    max_w=cell_w - 4,
                )
        d.text(
            r.score,
            (x + w - 10, mid),
            cap,
            th.GOLD if r.winner else th.TEXT,
            bold=True,
            anchor="midright",
        )
        yy += row_h
    if fit_rows < len(order):
        d.text(f"+ {len(order) - fit_rows} more", (x + 20, yy), MIN_CAP, th.DIM)
