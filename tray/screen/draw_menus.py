"""Drawing the start screen, the how-to-play page and the set-up (camera) view.

Same rules as the game screen (tray/screen/draw_play.py): layout pixels, text never below
MIN_CAP, every tap target at least TOUCH high, nothing drawn on top of other text.

>>> from tray.screen.draw_menus import draw_start   # used by Display.draw
"""

from __future__ import annotations

import numpy as np

from tray.screen import theme as th
from tray.screen.chrome import header
from tray.screen.howto import PAGES, how_to
from tray.screen.theme import BASE_H, HEADER_H, MIN_CAP, TOUCH
from tray.screen.view import colour_of
from tray.table.dice_words import die_name, spec_words

GAP = 8


# ------------------------------------------------------------------------------------- start
def draw_start(d, v) -> None:
    """The start screen: game, players and options on the left; the actions (Start, Resume,
    Discard, Quit) on the right, then how the game is played while the game is being chosen,
    else who plays; a question over it all."""
    w = d.width
    gid, gtitle = v.games[v.game_index]
    header(d, "dicetray", gid, "choose a game")
    rows = [("Game", gtitle), ("Players", f"{len(v.players)}  ({v.min_players}-{v.max_players})")]
    rows += [(k, val) for k, val in v.options]
    actions = list(getattr(v, "actions", []) or ["Start"])
    lw = min(520.0, w * 0.6)
    top = HEADER_H + GAP
    rh = max(float(TOUCH), min(58.0, (BASE_H - top - GAP) / len(rows) - 6))
    y = top
    for i, (label, value) in enumerate(rows):
        _value_row(d, i, label, value, y, lw, rh, v.focus == i, v.focus == i and v.editing)
        y += rh + 6

    # right column: the actions, who plays, the goal of the game, how to use the menu
    x, cw = 8 + lw + 18, w - 10 - (8 + lw + 18)
    y = top
    # many actions (a game to resume and rolls to teach from): smaller letters, closer lines
    caps, heights = _action_sizes(d, actions, cw, compact=False)
    if sum(heights) + 6 * len(actions) > BASE_H - GAP - top:
        caps, heights = _action_sizes(d, actions, cw, compact=True)
    for i, label in enumerate(actions):
        line = len(rows) + i
        focus = v.focus == line
        first = i == 0
        cap, h = caps[i], heights[i]
        base = th.GREEN if first else th.ORANGE if label.startswith("Resume") else th.PANEL_HI
        d.box((x, y, cw, h), base, radius=10)
        if focus:
            d.box((x, y, cw, h), th.GOLD, radius=10, width=4)
        ink = th.ink_on(base)
        if first:
            d.text(
                label.upper(),
                (x + cw / 2, y + h / 2),
                cap,
                ink,
                bold=True,
                anchor="center",
                max_w=cw - 20,
            )
        else:
            th_h = d.wrapped_h(label, cw - 20, cap, True, 3)
            d.wrap(
                label, (x + 10, y + (h - th_h) / 2, cw - 20, h), cap, ink, bold=True, max_lines=3
            )
        d.hit_area((x, y, cw, h), ("start", line, 0))
        y += h + 6
    y += 4
    bottom = BASE_H - GAP
    if v.focus == 0:  # choosing the game: how it is played, as far as it fits
        _how_to_brief(d, gid, x, y, cw, bottom)
    else:
        _players_and_hint(d, v, gid, x, y, cw, bottom)
    if getattr(v, "question", None):
        question(d, v.question, v.answers, v.answer, "confirm")
    elif v.message:
        _notice(d, v.message)


def _action_sizes(d, actions, cw, compact: bool) -> tuple[list[int], list[float]]:
    """The capitals and the height of each action line (Start first, larger)."""
    caps = [th.CAP_PROMPT] + [MIN_CAP if compact else MIN_CAP + 2] * (len(actions) - 1)
    pad = 8 if compact else 14
    heights = [
        max(float(TOUCH), d.wrapped_h(label, cw - 20, cap, True, 3) + pad)
        for label, cap in zip(actions, caps, strict=True)
    ]
    return caps, heights


def _how_to_brief(d, gid, x, y, cw, bottom) -> None:
    """The chosen game's goal and rules, the points that fit whole."""
    page = PAGES.get(gid)
    if page is None:
        return
    y = d.wrap(page.goal, (x, y, cw, bottom - y), MIN_CAP, th.GOLD, bold=True, max_lines=3) + 4
    for point in page.points:
        h = d.wrapped_h(point, cw - 14, MIN_CAP, False, 9)
        if y + h > bottom:
            break
        d.box((x, y + d.line_h(MIN_CAP) / 2 - 3, 6, 6), th.GAME_COLOURS.get(gid, th.BLUE), radius=3)
        y = d.wrap(point, (x + 14, y, cw - 14, h), MIN_CAP, th.TEXT, max_lines=9) + 2


def _players_and_hint(d, v, gid, x, y, cw, bottom) -> None:
    """Who plays, in seat order and colour; the game's goal; how the menu works."""
    lh = d.line_h(MIN_CAP + 2) + 2
    cols = 1 if len(v.players) <= 4 else 2
    need = d.line_h(th.CAP_BODY - 2, True) + ((len(v.players) + cols - 1) // cols) * lh
    if y + need <= bottom:
        d.text("Players", (x, y), th.CAP_BODY - 2, th.DIM, bold=True)
        y += d.line_h(th.CAP_BODY - 2, True) + 2
        colw = cw / cols
        for i, name in enumerate(v.players):
            px, py = x + (i % cols) * colw, y + (i // cols) * lh
            d.box((px, py + 3, 12, lh - 8), colour_of(i), radius=3)
            d.text(f"{i + 1} {name}", (px + 18, py), MIN_CAP + 2, th.TEXT, max_w=colw - 22)
        y += ((len(v.players) + cols - 1) // cols) * lh + GAP
    try:
        goal = how_to(gid).goal
    except KeyError:
        goal = ""
    if goal and y + d.line_h(MIN_CAP) * 2 <= bottom:
        y = d.wrap(goal, (x, y, cw, bottom - y), MIN_CAP, th.GOLD, max_lines=2) + GAP
    hint = "Short press: next line. Long press: change it or OK. Keys: arrows, Enter."
    if y + d.wrapped_h(hint, cw, MIN_CAP, max_lines=9) <= bottom:
        d.wrap(hint, (x, y, cw, bottom - y), MIN_CAP, th.DIM, max_lines=9)


def _value_row(d, i, label, value, y, lw, rh, focus, editing) -> None:
    """One line of the start screen: the label, < value >, each arrow a touch button."""
    d.box((8, y, lw, rh), th.PANEL_HI if focus else th.PANEL, radius=10)
    if focus:
        d.box((8, y, lw, rh), th.GOLD, radius=10, width=3)
    mid = y + rh / 2
    if d.width_of(label, th.CAP_BODY - 2) <= 150 or len(label.split()) == 1:
        d.text(label, (20, mid), th.CAP_BODY - 2, th.DIM, anchor="midleft", max_w=150)
    else:  # a long option name on two lines
        lh = d.line_h(MIN_CAP)
        d.wrap(label, (20, mid - lh, 150, 2 * lh), MIN_CAP, th.DIM, max_lines=2)
    left_x, right_x = 176.0, 8 + lw - TOUCH - 4
    for bx, sign, step in ((left_x, "<", -1), (right_x, ">", 1)):
        d.box((bx, y + (rh - TOUCH) / 2, TOUCH, TOUCH), th.BG, radius=8)
        d.text(sign, (bx + TOUCH / 2, mid), th.CAP_NAME, th.GOLD, bold=True, anchor="center")
        d.hit_area((bx, y + (rh - TOUCH) / 2, TOUCH, TOUCH), ("start", i, step))
    mid_x = (left_x + TOUCH + right_x) / 2
    vw = right_x - left_x - TOUCH - 12
    if editing:
        d.box((left_x + TOUCH + 6, y + 5, vw, rh - 10), th.GOLD, radius=8)
    ink = th.BG if editing else th.TEXT
    if d.width_of(value, MIN_CAP, True) <= vw - 8:
        d.text(value, (mid_x, mid), th.CAP_NAME, ink, bold=True, anchor="center", max_w=vw - 8)
    else:  # a long value ("double then add") on two centred lines
        lines = d.lines(value, vw - 8, MIN_CAP, True)[:2]
        lh = d.line_h(MIN_CAP, True)
        for j, line in enumerate(lines):
            d.text(
                line,
                (mid_x, mid + (j - len(lines) / 2) * lh),
                MIN_CAP,
                ink,
                bold=True,
                anchor="midtop",
                max_w=vw - 8,
            )
    d.hit_area((8, y, left_x - 8, rh), ("start", i, 0))


def question(d, title: str, answers: list[str], answer: int, kind: str, area=None) -> None:
    """A question (or a menu) over the screen: its lines as touch buttons, one highlighted;
    a tap on line i is (``kind``, i)."""
    x, y, w, h = area or (d.width * 0.18, HEADER_H + 20, d.width * 0.64, BASE_H - HEADER_H - 40)
    heights = [_answer_h(d, a, w - 68) for a in answers]
    answers_h = sum(hh + 8 for hh in heights)
    for cap in (th.CAP_PROMPT, th.CAP_BODY, MIN_CAP + 2, MIN_CAP):  # the whole question
        th_h = d.wrapped_h(title, w - 40, cap, True, 9)
        if th_h + 34 + answers_h <= h:
            break
    lines = round(th_h / d.line_h(cap, True))
    need = th_h + 34 + answers_h
    if need < h and area is None:
        y += (h - need) / 2
        h = need
    r = d.R(x, y, w, h)
    if area is None:  # a question over the whole screen: dim it, only the answers tap
        shade = d.pg.Surface(d.size, d.pg.SRCALPHA)
        shade.fill((0, 0, 0, 150))
        d.surface.blit(shade, (0, 0))
        d.hits = []
        d.cover(d.pg.Rect((0, 0), d.size))  # what is under the shade is not for reading
    d.cover(r)
    d.box(r.inflate(round(8 * d.k), round(8 * d.k)), th.BLACK, radius=18)
    d.box(r, th.PANEL, radius=16)
    d.box(r, th.GOLD, radius=16, width=3)
    yy = d.wrap(title, (x + 20, y + 14, w - 40, th_h), cap, th.TEXT, True, lines) + 10
    lo = 0
    while lo < answer and sum(hh + 8 for hh in heights[lo : answer + 1]) > y + h - yy:
        lo += 1  # keep the highlighted line in sight
    for i in range(lo, len(answers)):
        hh = heights[i]
        if yy + hh > y + h - 6:
            break
        hi = i == answer
        d.box((x + 20, yy, w - 40, hh), th.GOLD if hi else th.PANEL_HI, radius=10)
        ink = th.BG if hi else th.TEXT
        if hh == TOUCH:
            d.text(
                answers[i],
                (x + 34, yy + hh / 2),
                th.CAP_BODY,
                ink,
                bold=hi,
                anchor="midleft",
                max_w=w - 68,
            )
        else:
            d.wrap(answers[i], (x + 34, yy + 6, w - 68, hh), MIN_CAP, ink, bold=hi, max_lines=2)
        d.hit_area((x + 20, yy, w - 40, hh), (kind, i))
        yy += hh + 8


def _answer_h(d, label: str, width: float) -> float:
    """One line at CAP_BODY when it fits, else two smaller lines."""
    if d.width_of(label, th.CAP_BODY) <= width:
        return float(TOUCH)
    return max(float(TOUCH), d.wrapped_h(label, width, MIN_CAP, False, 2) + 12)


def _notice(d, message: str) -> None:
    """A red notice across the middle of the screen (it covers what is under it)."""
    w = d.width
    h = d.wrapped_h(message, w - 200, th.CAP_BODY, True, 4) + 30
    r = d.R(80, (BASE_H - h) / 2, w - 160, h)
    d.cover(r)
    d.box(r, th.RED, radius=12)
    d.wrap(
        message,
        (100, (BASE_H - h) / 2 + 15, w - 200, h),
        th.CAP_BODY,
        th.TEXT,
        bold=True,
        max_lines=4,
    )


# ------------------------------------------------------------------------------------ how-to
def draw_howto(d, v) -> None:
    """The how-to-play page of one game: the goal, the points, the buttons."""
    w = d.width
    header(d, f"How to play {v.title}", v.game_id, "")
    x, cw = 16, w - 32
    y = HEADER_H + 12
    y = d.wrap(v.goal, (x, y, cw, 80), th.CAP_PROMPT, th.GOLD, bold=True, max_lines=2) + GAP
    bh = d.wrapped_h(v.buttons, cw - 28, th.CAP_BODY, True, 2) + 16
    room = BASE_H - GAP - bh - GAP - y
    cap, cols = th.CAP_BODY, 1
    for cap, cols in (
        (th.CAP_BODY, 1),
        (th.CAP_BODY - 2, 1),
        (MIN_CAP, 1),
        (th.CAP_BODY, 2),
        (MIN_CAP, 2),
    ):
        colw = (cw - 24 * (cols - 1)) / cols
        hs = [d.wrapped_h(p, colw - 22, cap, False, 4) + 6 for p in v.points]
        per = (len(hs) + cols - 1) // cols
        if max(sum(hs[c * per : (c + 1) * per]) for c in range(cols)) <= room:
            break
    colw = (cw - 24 * (cols - 1)) / cols
    per = (len(v.points) + cols - 1) // cols
    for c in range(cols):
        yy = y
        for p in v.points[c * per : (c + 1) * per]:
            px = x + c * (colw + 24)
            dot = d.line_h(cap) / 2
            d.pg.draw.circle(
                d.surface,
                th.GAME_COLOURS.get(v.game_id, th.BLUE),
                d.P(px + 6, yy + dot),
                max(3, round(5 * d.k)),
            )
            if yy + d.line_h(cap) > BASE_H - bh - GAP:
                break
            lines = int((BASE_H - bh - GAP - yy) // d.line_h(cap))
            yy = d.wrap(p, (px + 22, yy, colw - 22, 200), cap, th.TEXT, max_lines=min(4, lines)) + 6
    by = BASE_H - GAP - bh
    d.box((x - 4, by, cw + 8, bh), th.PANEL_HI, radius=10)
    d.wrap(v.buttons, (x + 10, by + 8, cw - 28, bh), th.CAP_BODY, th.TEXT, bold=True, max_lines=2)


# ------------------------------------------------------------------------------------- setup
def draw_setup(d, v) -> None:
    """The live camera picture with every die found, numbered; the list of what each reads."""
    pg = d.pg
    w = d.width
    fw = min(w - 250, (BASE_H - 10) * 4 / 3)
    k_img = 1.0
    if v.frame is not None:
        frame = np.asarray(v.frame)
        fh, fwid = frame.shape[:2]
        k_img = min(fw / fwid, (BASE_H - 10) / fh)
        rgb = np.ascontiguousarray(frame[:, :, ::-1])
        img = pg.image.frombuffer(rgb.tobytes(), (fwid, fh), "RGB")
        target = d.R(5, 5, fwid * k_img, fh * k_img)
        d.surface.blit(pg.transform.smoothscale(img, target.size), target)
        rects = [
            d.R(5 + bx * k_img, 5 + by * k_img, bw * k_img, bh * k_img)
            for (bx, by, bw, bh, _label, _read) in v.boxes
        ]
        frame_r = d.R(5, 5, fwid * k_img, fh * k_img)
        tags = []
        for i, (r, box) in enumerate(zip(rects, v.boxes, strict=True), 1):
            col = th.GREEN if box[5] else th.ORANGE
            pg.draw.rect(d.surface, col, r, max(2, round(2 * d.k)))
            tag = _tag_place(d, r, frame_r, rects, tags)
            tags.append(tag)
            pg.draw.rect(d.surface, col, tag, border_radius=round(4 * d.k))
            d.text(
                str(i),
                (tag.centerx / d.k, tag.centery / d.k),
                MIN_CAP,
                th.BG,
                bold=True,
                anchor="center",
            )
        fw = fwid * k_img
    else:
        d.box((5, 5, fw, BASE_H - 10), th.PANEL)
        d.text("no picture", (5 + fw / 2, BASE_H / 2), th.CAP_PROMPT, th.DIM, anchor="center")
    x, cw = 5 + fw + 14, w - 10 - (5 + fw + 14)
    y = 10.0
    d.text("Set-up", (x, y), th.CAP_PROMPT, th.TEXT, bold=True, max_w=cw)
    y += d.line_h(th.CAP_PROMPT, True)
    d.text(f"Dice: {_set_name(d, v.dice_set)}", (x, y), MIN_CAP, th.DIM, max_w=cw)
    y += d.line_h(MIN_CAP) + 4
    y = d.wrap(v.status, (x, y, cw, 80), MIN_CAP, th.TEXT, max_lines=3) + 4
    read = sum(1 for b in v.boxes if b[5])
    d.text(
        f"{len(v.boxes)} found, {len(v.boxes) - read} unsure",
        (x, y),
        MIN_CAP,
        th.GREEN if read == len(v.boxes) else th.ORANGE,
        max_w=cw,
    )
    y += d.line_h(MIN_CAP) + 4
    hint_h = d.line_h(MIN_CAP) * 3
    for i, b in enumerate(v.boxes):  # what each die reads, a line (or two) each
        words = f"{i + 1}. {_reading_words(b[4])}"
        h = d.wrapped_h(words, cw, MIN_CAP, False, 2)
        if y + h > BASE_H - 8 - hint_h:
            break
        y = d.wrap(words, (x, y, cw, h), MIN_CAP, th.TEXT if b[5] else th.ORANGE, max_lines=2)
    d.wrap(
        "Green: read. Orange: unsure. S leaves this view.",
        (x, BASE_H - 8 - hint_h, cw, hint_h),
        MIN_CAP,
        th.DIM,
        max_lines=3,
    )
    if v.message:
        _notice(d, v.message)


def _set_name(d, set_id: str) -> str:
    """The dice set's name ("Tally Up!"), or its id when its file cannot be read."""
    try:
        return d.dice_set(set_id).name
    except (OSError, ValueError, KeyError):
        return set_id


def _reading_words(label: str) -> str:
    """What a die reads, in words: "d6:3" -> "3", "up:?" -> "Up Die: ?", "?" stays."""
    die, sep, face = label.partition(":")
    if not sep:
        return label
    return f"{die_name(die)}: ?" if face == "?" else spec_words(label)


def _tag_place(d, r, frame_r, boxes, tags, side: float = 28):
    """Where a die's tag (``side`` layout pixels square) goes: beside its box, on no other box
    or tag, in the picture."""
    side = round(side * d.k)
    pg = d.pg
    spots = [
        (r.left, r.top - side),
        (r.right - side, r.top - side),
        (r.left, r.bottom),
        (r.right - side, r.bottom),
        (r.left - side, r.top),
        (r.right, r.top),
    ]
    best = None
    for x, y in spots:
        t = pg.Rect(x, y, side, side)
        if not frame_r.contains(t):
            continue
        clash = sum(t.colliderect(o) for o in tags) * 2 + sum(t.colliderect(b) for b in boxes)
        if clash == 0:
            return t
        if best is None or clash < best[0]:
            best = (clash, t)
    return best[1] if best else pg.Rect(r.left, r.top, side, side)
