"""Drawing the game screen and the win screen of a :class:`~tray.screen.view.View`.

Layout, in layout pixels (tray/screen/theme.py): a header (game, whose turn, round), the
scoreboard on the left (every seat in order, in its colour, with IN/OUT, what it lost at a bust
and its last round), the play area on the right (prompt, message, banner, facts, IN/OUT,
dice, what just happened, choices) laid out top to bottom so nothing covers anything, the live
odds (when shown) across the bottom, and a footer with the hint and the touch buttons. Only the
camera-lost notice and the table menu cover the play area.

>>> from tray.screen.draw_play import draw_play   # used by Display.draw
"""

from __future__ import annotations

from tray.screen import theme as th
from tray.screen.chrome import header
from tray.screen.draw_menus import question
from tray.screen.join_panel import draw_join, join_height
from tray.screen.odds_view import draw_odds, odds_height
from tray.screen.theme import BASE_H, FOOTER_H, HEADER_H, MIN_CAP, TOUCH

GAP = 8
GUESS_ALPHA = 80  # of 255: an unread die's guess, drawn faint under its "?"


def _sb_width(d) -> float:
    return 270 + max(0.0, d.width - 800) * 0.3


def footer(d, hint: str, buttons: list[tuple[str, str]], highlight: str | None = None) -> None:
    """The hint (left) and the touch buttons (right, the first rightmost), each at least TOUCH
    high; the button named ``highlight`` is the one a long press chooses."""
    y = BASE_H - FOOTER_H + (FOOTER_H - TOUCH) / 2
    bx = d.width - 8
    for name, label in buttons:
        bw = max(TOUCH * 1.5, d.width_of(label, th.CAP_SMALL + 2, True) + 28)
        lit = name == highlight
        d.box((bx - bw, y, bw, TOUCH), th.GOLD if lit else th.PANEL_HI, radius=10)
        d.text(
            label,
            (bx - bw / 2, y + TOUCH / 2),
            th.CAP_SMALL + 2,
            th.BG if lit else th.TEXT,
            bold=True,
            anchor="center",
            max_w=bw - 12,
        )
        d.hit_area((bx - bw, y, bw, TOUCH), ("button", name))
        bx -= bw + GAP
    if hint:
        width = bx - 12
        h = d.wrapped_h(hint, width, th.CAP_SMALL, max_lines=2)
        d.wrap(
            hint, (10, BASE_H - FOOTER_H / 2 - h / 2, width, h), th.CAP_SMALL, th.DIM, max_lines=2
        )


def _buttons(v) -> list[tuple[str, str]]:
    names = ["undo", *v.table_actions] + (["ok"] if v.confirm else [])
    return [(n, v.confirm if n == "ok" else n.replace("_", " ")) for n in names]


def _segments(d, segs, x, y, max_w, cap, anchor="midleft") -> None:
    """Draw (words, colour) pieces left to right from layout (x, y) while they fit."""
    for words, colour in segs:
        if max_w < 30 or not words:
            break
        if d.width_of(words, cap) > max_w:
            words = words.split()[0]  # "+188 last round" -> "+188"
        if d.width_of(words, cap) > max_w:
            break  # never cut in two ("choosin..."): the play area says it in full
        r = d.text(words, (x, y), cap, colour, anchor=anchor, max_w=max_w)
        used = r.width / d.k + 12
        x += used
        max_w -= used


def scoreboard(d, v, x: float, y: float, w: float, h: float) -> None:
    """One row per seat, in seat order: colour, number, name, score; IN/OUT, losses, notes."""
    n = max(1, len(v.players))
    row_h = min(80.0, (h + 4) / n - 4)
    two = row_h >= 58
    for i, row in enumerate(v.players):
        ry = y + i * (row_h + 4)
        bg = (58, 92, 58) if row.winner else th.PANEL_HI if row.active else th.PANEL
        d.box((x, ry, w, row_h), bg, radius=8)
        d.box((x, ry, 12, row_h), row.colour, radius=4)
        if row.active:
            d.box((x, ry, w, row_h), th.GOLD, radius=8, width=3)
        status = []
        if row.awaited:
            status.append(
                ("chosen" if row.chosen else "choosing...", th.GREEN if row.chosen else th.DIM)
            )
        if row.lost:
            status.append((row.lost, th.RED))
        if row.tag and not row.awaited:
            status.append(
                (
                    row.tag,
                    {"OUT": th.ORANGE, "IN": th.GREEN, "banked": th.GREEN}.get(row.tag, th.DIM),
                )
            )
        if row.note and two:
            status.append((row.note, th.DIM))
        cap = th.CAP_NAME if two else max(MIN_CAP, min(th.CAP_NAME, (row_h - 10) / 1.6))
        line1 = ry + (row_h * 0.32 if two else row_h / 2)
        d.text(str(row.seat + 1), (x + 26, line1), MIN_CAP, th.DIM, anchor="center")
        sr = d.text(
            row.score,
            (x + w - 10, line1),
            cap,
            th.GOLD if row.winner else th.TEXT,
            bold=True,
            anchor="midright",
        )
        name_w = sr.left / d.k - 10 - (x + 40)  # up to the score
        if not two:  # the status shares the line: the name leaves it room
            name_w = min(d.width_of(row.name, cap, row.active), name_w * (0.55 if status else 1))
        nr = d.text(
            row.name, (x + 40, line1), cap, th.TEXT, bold=row.active, anchor="midleft", max_w=name_w
        )
        if two:
            _segments(d, status, x + 40, ry + row_h * 0.74, w - 50, MIN_CAP)
        else:
            _segments(
                d,
                status[:1],
                nr.right / d.k + 10,
                line1,
                sr.left / d.k - 10 - nr.right / d.k - 10,
                MIN_CAP,
            )
        d.hit_area((x, ry, w, row_h), ("player", row.seat))


def _facts(d, totals, x, y, w) -> float:
    """The totals as "label value" pairs, flowing onto a second line if needed."""
    if not totals:
        return y
    lh = d.line_h(th.CAP_NAME, True)
    cx, line = x, 0
    for label, value in totals:
        lw = d.width_of(label, MIN_CAP) + 8
        vw = min(d.width_of(value, th.CAP_NAME, True), w - lw)
        if cx > x and cx + lw + vw > x + w:
            if line == 1:
                break
            line += 1
            cx = x
        mid = y + line * lh + lh / 2
        d.text(label, (cx, mid), MIN_CAP, th.DIM, anchor="midleft")
        big = "total" in label.lower()
        r = d.text(
            value,
            (cx + lw, mid),
            th.CAP_NAME,
            th.GOLD if big else th.TEXT,
            bold=True,
            anchor="midleft",
            max_w=w - lw,
        )
        cx = r.right / d.k + 22
    return y + (line + 1) * lh


def _facts_lines(d, totals, w) -> int:
    """How many lines :func:`_facts` takes (1 or 2)."""
    cx, line = 0.0, 1
    for label, value in totals:
        lw = d.width_of(label, MIN_CAP) + 8
        vw = min(d.width_of(value, th.CAP_NAME, True), w - lw)
        if cx > 0 and cx + lw + vw > w:
            if line == 2:
                break
            line, cx = 2, 0.0
        cx += lw + vw + 22
    return line


def _in_out_h(d, v, w) -> float:
    ins, outs = v.in_out
    a = "IN: " + (", ".join(ins) or "nobody")
    b = "OUT: " + (", ".join(outs) or "nobody")
    if d.width_of(a, th.CAP_BODY) + d.width_of(b, th.CAP_BODY) + 24 <= w:
        return d.line_h(th.CAP_BODY)
    return d.wrapped_h(a, w, th.CAP_BODY, False, 2) + d.wrapped_h(b, w, th.CAP_BODY, False, 2)


def _in_out(d, v, x, y, w) -> float:
    ins, outs = v.in_out
    a = "IN: " + (", ".join(ins) or "nobody")
    b = "OUT: " + (", ".join(outs) or "nobody")
    cap = th.CAP_BODY
    if d.width_of(a, cap) + d.width_of(b, cap) + 24 <= w:
        r = d.text(a, (x, y), cap, th.GREEN)
        d.text(b, (r.right / d.k + 24, y), cap, th.ORANGE)
        return y + d.line_h(cap)
    y = d.wrap(a, (x, y, w, 60), cap, th.GREEN, max_lines=2)
    return d.wrap(b, (x, y, w, 60), cap, th.ORANGE, max_lines=2)


def _sheet(d, sheet, x, y, w) -> float:
    k = len(sheet)
    cw = min(52.0, (w - 4 * (k - 1)) / k)
    pg = d.pg
    for i, (label, marked, circled) in enumerate(sheet):
        r = d.R(x + i * (cw + 4), y, cw, 44)
        d.box(r, (60, 130, 80) if marked else th.PANEL, radius=6)
        if circled:
            pg.draw.circle(
                d.surface,
                th.GOLD,
                r.center,
                round(min(cw, 44) * 0.45 * d.k),
                max(2, round(2 * d.k)),
            )
        d.text(
            label,
            (r.centerx / d.k, r.centery / d.k),
            th.CAP_SMALL + 2,
            th.BG if marked else th.TEXT,
            bold=True,
            anchor="center",
            max_w=cw - 4,
        )
        if marked:
            pg.draw.line(d.surface, th.TEXT, r.topleft, r.bottomright, max(2, round(2 * d.k)))
    return y + 44


def _dice(d, v, x, y, w, px_max) -> float:
    k = len(v.roll)
    px = min(84.0, (w - 10 * (k - 1)) / k, px_max)
    for i, die in enumerate(v.roll):
        r = d.R(x + i * (px + 10), y + 4, px, px)
        if die.face is None and die.guess:  # the reader's guess, faint under the "?"
            faint = d.die_image(v.dice_set, *die.guess.split(":", 1), r.width).copy()
            faint.set_alpha(GUESS_ALPHA)
            d.image(faint, r.topleft)
        else:
            d.image(d.die_image(v.dice_set, die.die, die.face, r.width), r.topleft)
        if die.unsure:
            _frame(d, r, th.ORANGE)
            if die.face is None:
                d.text(
                    "?",
                    (r.centerx / d.k, r.centery / d.k),
                    max(MIN_CAP, px * 0.4),
                    th.ORANGE,
                    bold=True,
                    anchor="center",
                )
        if die.kept:  # saved: a green frame
            _frame(d, r, th.GREEN)
        if die.selected:
            _frame(d, r, th.GOLD, grow=12, line=4, corner=5)
        d.hit_area(r, ("die", i))
    return y + px + 12


def _frame(d, r, colour, grow: float = 6, line: float = 3, corner: int = 6) -> None:
    """A frame around the die drawn in ``r``: ``grow`` design pixels wider and higher,
    ``line`` thick (2 screen pixels at least), its corners rounded by a ``corner``-th of the
    die's width."""
    d.pg.draw.rect(
        d.surface,
        colour,
        r.inflate(round(grow * d.k), round(grow * d.k)),
        max(2, round(line * d.k)),
        border_radius=r.width // corner,
    )


def _choices(d, v, x, y, w, bottom) -> None:
    cap = th.CAP_BODY
    d.text(f"{v.chooser}, choose:", (x, y), cap, th.TEXT, bold=True, max_w=w * 0.6)
    y += d.line_h(cap, True) + 4
    widest = max(d.width_of(c.label, MIN_CAP) for c in v.choices) + 24  # shrinks to fit
    cols = max(1, min(4, int((w + GAP) // (widest + GAP)), len(v.choices)))
    cw = (w - GAP * (cols - 1)) / cols
    rows = max(1, int((bottom - y + GAP) // (TOUCH + GAP)))
    fit = rows * cols
    shown = _in_sight(v.choices, fit)
    for i, c in enumerate(shown):
        cx, cy = x + (i % cols) * (cw + GAP), y + (i // cols) * (TOUCH + GAP)
        d.box((cx, cy, cw, TOUCH), th.GOLD if c.highlighted else th.PANEL_HI, radius=8)
        d.text(
            c.label,
            (cx + 12, cy + TOUCH / 2),
            cap,
            th.BG if c.highlighted else th.TEXT,
            bold=c.highlighted,
            anchor="midleft",
            max_w=cw - 20,
        )
        d.hit_area((cx, cy, cw, TOUCH), ("choice", c.index))
    if len(v.choices) > fit:
        d.text(
            f"{len(shown)} of {len(v.choices)} shown",
            (x + w, y - d.line_h(cap, True) - 4),
            MIN_CAP,
            th.DIM,
            anchor="topright",
        )


def _in_sight(choices: list, fit: int) -> list:
    """The ``fit`` choices shown, in order: the highlighted one, the pinned ones (the hint names
    them), then the nearest to the highlighted one."""
    if len(choices) <= fit:
        return list(choices)
    hi = next((i for i, c in enumerate(choices) if c.highlighted), 0)
    near = sorted(range(len(choices)), key=lambda i: (abs(i - hi), i))
    order = [hi] + [i for i, c in enumerate(choices) if c.pinned and i != hi] + near
    keep: list[int] = []
    for i in order:
        if i not in keep and len(keep) < fit:
            keep.append(i)
    return [choices[i] for i in sorted(keep)]


def draw_play(d, v) -> None:
    """The game screen."""
    header(d, v.title, v.game_id, v.round_text, v.turn, v.turn_colour)
    top, bottom = HEADER_H + GAP, BASE_H - FOOTER_H - 4
    odds = _odds_rows(d, v, bottom - top)
    if odds:  # the odds take the bottom of the screen, across: the rest is laid out above
        h = odds_height(d, len(odds))
        draw_odds(d, odds, 8, bottom - h, d.width - 16, h)
        bottom -= h + GAP
    sb = _sb_width(d)

    jh = join_height(d, getattr(v, "join", None))
    scoreboard(d, v, 8, top, sb, bottom - top - (jh + GAP if jh else 0))
    if jh:
        draw_join(d, v.join, 8, bottom - jh, sb, jh)
    x, mw = 8 + sb + 16, d.width - 10 - (8 + sb + 16)

    y = _prompt(d, v.prompt, x, top, mw)
    if v.message and not v.camera_lost:
        y = _message(d, v.message, v.message_kind, x, y, mw)
    if v.banner:
        y = _banner(d, v.banner, v.banner_kind, x, y, mw)
    y = _middle(d, v, x, y, mw, bottom)
    _lower(d, v, x, y, mw, bottom)

    # with the table menu open its lines are the buttons: the footer keeps only the hint
    footer(d, v.help, [] if getattr(v, "menu", None) else _buttons(v))
    if v.camera_lost and v.message:
        _camera_lost(d, v.message, x - 6, top, mw + 12, bottom - top)
    _menu(d, v, (x - 6, top, mw + 12, bottom - top))


def _prompt(d, prompt: str, x, y, w) -> float:
    """The prompt: two lines at the prompt size, else up to four a little smaller. Returns
    the y below it."""
    cap = th.CAP_PROMPT
    if len(d.lines(prompt, w, cap, True)) > 2:
        cap = th.CAP_BODY
    return d.wrap(prompt, (x, y, w, 160), cap, th.TEXT, bold=True, max_lines=4) + 6


def _message(d, message: str, kind: str | None, x, y, w) -> float:
    """The table's message in a box of its kind's colour; returns the y below it."""
    col = th.MESSAGE_COLOURS.get(kind or "info", th.BLUE)
    h = d.wrapped_h(message, w - 24, th.CAP_BODY, True, 3) + 14
    d.box((x, y, w, h), col, radius=10)
    d.wrap(message, (x + 12, y + 7, w - 24, h), th.CAP_BODY, th.ink_on(col), bold=True, max_lines=3)
    return y + h + GAP


def _banner(d, banner: str, kind: str | None, x, y, w) -> float:
    """The banner calling the moment (a bust, a win...); returns the y below it."""
    col = th.BANNER_COLOURS.get(kind or "", th.GOLD)
    bh = 62
    d.box((x, y, w, bh), col, radius=12)
    d.text(
        banner,
        (x + w / 2, y + bh / 2),
        th.CAP_BANNER,
        th.ink_on(col),
        bold=True,
        anchor="center",
        max_w=w - 20,
    )
    return y + bh + GAP


def _essential_h(d, v) -> float:
    """The height of what must stay in sight below the middle: the countdown, the dice (a die
    to fix most of all), a row of choices."""
    essential = (76 + GAP if v.countdown is not None else 0) + (
        (d.line_h(th.CAP_BODY, True) + 4 + TOUCH + GAP) if v.choices else 0
    )
    if v.roll:
        essential += (64 if any(dv.unsure for dv in v.roll) else 44) + 12
    return essential


def _middle(d, v, x, y, w, bottom) -> float:
    """The facts, who has chosen (or IN/OUT), the countdown and the sheet, from ``y`` down;
    the facts, IN/OUT and the sheet are left out when they would crowd what must stay in
    sight (``_essential_h``). Returns the y below them."""
    essential = _essential_h(d, v)

    def fits(h: float) -> bool:
        return y + h + essential <= bottom

    if v.totals and fits(_facts_lines(d, v.totals, w) * d.line_h(th.CAP_NAME, True) + 4):
        y = _facts(d, v.totals, x, y, w) + 4
    if v.chosen_text:
        if fits(d.wrapped_h(v.chosen_text, w, th.CAP_BODY, False, 2) + 4):
            y = d.wrap(v.chosen_text, (x, y, w, 60), th.CAP_BODY, th.GREEN, max_lines=2) + 4
    elif v.in_out is not None and fits(_in_out_h(d, v, w) + 4):
        y = _in_out(d, v, x, y, w) + 4
    if v.countdown is not None:
        y = _countdown(d, v.countdown, x, y, w)
    if v.sheet and fits(44 + GAP):
        y = _sheet(d, v.sheet, x, y, w) + GAP
    return y


def _countdown(d, count: int, x, y, w) -> float:
    """The reveal countdown ("1... 2... 3..."); returns the y below it."""
    d.box((x, y, w, 76), th.BLACK, radius=16)
    d.box((x, y, w, 76), th.GOLD, radius=16, width=3)
    d.text(
        "... ".join(str(i) for i in range(1, count + 1)) + "...",
        (x + w / 2, y + 38),
        40,
        th.GOLD,
        bold=True,
        anchor="center",
        max_w=w - 20,
    )
    return y + 76 + GAP


def _lower(d, v, x, y, w, bottom) -> None:
    """What is left below ``y``: choices first, then the words on the last events, then the
    dice (drawn above the words, the choices at the bottom)."""
    caption = (
        [(v.roll_caption, th.RED if "lost" in v.roll_caption else th.ORANGE)]
        if v.roll_caption
        else []
    )
    events = [(e, th.DIM) for e in v.events[-2:]]
    lh = d.line_h(MIN_CAP)
    need_choices, events = _choices_room(d, v, w, bottom - y, lh * len(caption), events)
    room = bottom - y - need_choices
    if v.roll and room - lh * (len(caption) + len(events)) < 44:
        events = events[-1:] if room - lh * (len(caption) + 1) >= 44 else []
    if v.roll:
        px_max = room - lh * (len(caption) + len(events)) - 12
        if px_max >= 28:
            y = _dice(d, v, x, y, w, px_max)
    for words, colour in caption + events:
        if y + lh > bottom - need_choices:
            break
        d.text(words, (x, y), MIN_CAP, colour, max_w=w)
        y += lh
    if v.choices:
        _choices(d, v, x, y + 4, w, bottom)


def _choices_room(d, v, w, room, caption_h, events: list) -> tuple[float, list]:
    """The height the choices take (a second row of them when one is not enough and the dice
    still fit) and the event lines that still fit beside (the second row matters more)."""
    if not v.choices:
        return 0.0, events
    need = d.line_h(th.CAP_BODY, True) + 4 + TOUCH + GAP
    widest = max(d.width_of(c.label, MIN_CAP) for c in v.choices) + 24
    per_row = max(1, min(4, int((w + GAP) // (widest + GAP))))
    dice_h = 40 if v.roll else 0
    spare = room - need - caption_h - 12 - dice_h
    lh = d.line_h(MIN_CAP)
    if len(v.choices) > per_row and spare - lh * len(events) >= TOUCH + GAP:
        need += TOUCH + GAP
    elif len(v.choices) > per_row and spare >= TOUCH + GAP:
        events = []  # the second row matters more than the last events
        need += TOUCH + GAP
    return need, events


def _odds_rows(d, v, room: float) -> list:
    """The odds lines that fit below the game (the title and the best options first), leaving
    the scoreboard a line per seat and the play area room for the prompt, the dice and a row
    of choices; [] when not even one option fits."""
    lines = list(getattr(v, "odds", None) or [])
    if not lines:
        return []

    keep = max(230.0, len(v.players) * (d.line_h(th.CAP_SMALL) + 8))
    n = len(lines)
    while n >= 2 and odds_height(d, n) + GAP > room - keep:
        n -= 1
    return lines[:n] if n >= 2 else []


def _menu(d, v, area) -> None:
    """The table menu (or the end screen's choices) over the play area."""
    menu = getattr(v, "menu", None)
    if menu:
        hi = next((i for i, c in enumerate(menu) if c.highlighted), 0)
        question(d, v.menu_title or "Menu", [c.label for c in menu], hi, "menu", area)


def _camera_lost(d, message: str, x, y, w, h) -> None:
    r = d.R(x, y, w, h)
    d.cover(r)
    d.box(r, th.BLACK, radius=16)
    d.box((x + 4, y + 4, w - 8, h - 8), th.RED, radius=14)
    d.text(
        "CAMERA LOST",
        (x + w / 2, y + 50),
        th.CAP_BANNER,
        th.TEXT,
        bold=True,
        anchor="center",
        max_w=w - 30,
    )
    d.wrap(message, (x + 20, y + 90, w - 40, h - 100), th.CAP_BODY, th.TEXT, max_lines=5)
