"""The guided capture's screens (``dicetray calibrate --teach``): the throw with every die found
(its box and, beside it, the face it reads, "?" where unsure: "4?" where the reader guessed a
4), how often each face was seen, and teaching's progress.

Built as plain data first (:class:`CaptureView`, :class:`TeachView`), so tests check the
words without pygame, then drawn by :func:`draw_capture` and :func:`draw_teach` on a
:class:`~tray.screen.display.Display` like every other screen: theme sizes (tray/screen/theme.py),
laid out for the window's real size, every text line and tap target measured by the layout
test (tests/test_screen_layout.py).

>>> import tempfile
>>> from vision.dicesets import load
>>> from tray.table.capture import Capture
>>> from tray.table.capture_folder import CaptureFolder
>>> cap = Capture(CaptureFolder(tempfile.mkdtemp(), load("toss-up")), per_face=2)
>>> view = build_capture_view(cap, None, None)
>>> view.coverage[0], view.menu
(('toss', 'green', 0), [('keep throwing', True), ('finish and teach', False)])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from tray.screen import theme as th
from tray.screen.chrome import header
from tray.screen.draw_menus import _tag_place
from tray.screen.draw_play import GAP, footer
from tray.screen.theme import BASE_H, FOOTER_H, HEADER_H, MIN_CAP
from tray.table.capture import MENU
from tray.table.dice_words import spec_words

#: the box of a die, and the tag beside it: accepted, still to check, unsure
KIND_COLOURS = {"accepted": th.GREEN, "unsure": th.ORANGE, "read": th.BLUE}


@dataclass
class CaptureView:
    """What the capture screen shows. ``boxes``: (x, y, w, h, label, kind, selected) in frame
    pixels, label in words, kind "accepted", "unsure" or "read"; ``specs``: the ``die:face``
    of each box (None where unsure); ``coverage``: (die, face, times seen)."""

    title: str
    prompt: str
    frame: object = None
    boxes: list[tuple] = field(default_factory=list)
    coverage: list[tuple[str, str, int]] = field(default_factory=list)
    per_face: int = 3
    menu: list[tuple[str, bool]] = field(default_factory=list)
    reviewing: bool = False
    message: str | None = None
    message_kind: str | None = None
    saved: int = 0
    dice_set: str = ""
    specs: list[str | None] = field(default_factory=list)


@dataclass
class TeachView:
    """Teaching's progress: stage, steps done of total, the time left in words."""

    title: str
    stage: str
    done: int
    total: int
    left: str
    note: str = ""


def build_capture_view(capture, live_frame, live_reading) -> CaptureView:
    """The view of a :class:`tray.table.capture.Capture`: the throw under review (its frame,
    its dice as corrected so far), else the live picture with what vision finds in it."""
    cov = capture.coverage
    coverage = [(*k, cov.count(*k)) for k in cov.keys]
    view = CaptureView(
        f"Teach: {capture.diceset.name}",
        capture.prompt(),
        live_frame,
        coverage=coverage,
        per_face=capture.per_face,
        saved=capture.folder.photos,
        dice_set=capture.diceset.id,
    )
    c = capture.correction
    if capture.state == "review" and c is not None:
        view.frame = capture.frame
        view.reviewing = True
        for i, s in enumerate(c.slots):
            value = s.value
            label = spec_words(value) if value else f"{spec_words(s.guess)}?" if s.guess else "?"
            kind = (
                "accepted"
                if i in capture.accepted
                else "unsure"
                if value is None or (s.was_unread and s.index < 0)
                else "read"
            )
            view.boxes.append((*s.box, label, kind, i == c.selected))
            view.specs.append(value)
    else:
        if live_reading is not None:
            for d in live_reading.dice:
                label = spec_words(d.spec) if d.spec else "?"
                view.boxes.append(
                    (d.x, d.y, d.w, d.h, label, "read" if d.read else "unsure", False)
                )
                view.specs.append(d.spec)
        if capture.state == "throw":
            view.menu = [(m, i == capture.menu) for i, m in enumerate(MENU)]
    if capture.message is not None:
        view.message, view.message_kind = capture.message.text, capture.message.kind
    return view


class CaptureScreen:
    """The capture's screens on a :class:`tray.screen.display.Display` (for
    ``dicetray calibrate --teach``): :meth:`hit` names what a tap at a window pixel lands on,
    ("die", i) or ("button", "ok" | "all" | "rethrow" | "finish" | "keep").

    >>> screen = CaptureScreen(Display(headless=True))       # doctest: +SKIP
    >>> screen.draw_capture(build_capture_view(cap, frame, reading))   # doctest: +SKIP
    """

    def __init__(self, display):
        self.display = display

    def draw_capture(self, v: CaptureView) -> None:
        self.display.draw(v)

    def draw_teach(self, v: TeachView) -> None:
        self.display.draw(v)

    def hit(self, pos) -> tuple | None:
        """What a tap at window pixel ``pos`` lands on, or None."""
        return self.display.hit(pos)


def _game_of(set_id: str) -> str:
    """The game whose colour the header takes (the d6 set is Bank's and DICEDOUT!'s)."""
    return set_id if set_id in th.GAME_COLOURS else "bank"


def _picture(d, frame, x, y, max_w, max_h) -> tuple[float, object]:
    """The camera picture, as large as fits at (x, y); (scale, its real rect)."""
    pg = d.pg
    if frame is None:
        w, h = max_w, min(max_h, max_w * 3 / 4)
        d.box((x, y, w, h), th.PANEL)
        d.text("no picture yet", (x + w / 2, y + h / 2), th.CAP_BODY, th.DIM, anchor="center")
        return w / 640, d.R(x, y, w, h)
    frame = np.asarray(frame)
    fh, fw = frame.shape[:2]
    k = min(max_w / fw, max_h / fh)
    target = d.R(x, y, fw * k, fh * k)
    rgb = np.ascontiguousarray(frame[:, :, ::-1])
    img = pg.image.frombuffer(rgb.tobytes(), (fw, fh), "RGB")
    d.surface.blit(pg.transform.smoothscale(img, target.size), target)
    return k, target


def _die_tags(d, v: CaptureView, k: float, frame_r) -> None:
    """Each die's box, and beside it a tag with the face it reads ("?" where unsure)."""
    pg = d.pg
    rects = [
        d.R(frame_r.x / d.k + x * k, frame_r.y / d.k + y * k, max(w * k, 4), max(h * k, 4))
        for (x, y, w, h, *_rest) in v.boxes
    ]
    tags = []
    for i, (r, box) in enumerate(zip(rects, v.boxes, strict=True)):
        kind, selected = box[5], box[6]
        col = th.GOLD if selected else KIND_COLOURS.get(kind, th.BLUE)
        thick = max(2, round((4 if selected else 2) * d.k))
        pg.draw.rect(d.surface, th.BLACK, r.inflate(2 * thick, 2 * thick), thick)  # on a pale tray
        pg.draw.rect(d.surface, col, r, thick)
        tag = _tag_place(d, r, frame_r, rects, tags, side=34)
        tags.append(tag)
        spec = v.specs[i] if i < len(v.specs) else None
        die, _, face = (spec or "").partition(":")
        pg.draw.rect(d.surface, col, tag, border_radius=round(6 * d.k))
        inner = tag.inflate(-2 * thick, -2 * thick)
        d.image(d.die_image(v.dice_set, die or None, face or None, inner.width), inner.topleft)
        if v.reviewing:
            d.hit_area(r.union(tag), ("die", i))


def _coverage(d, v: CaptureView, x, y, w, bottom) -> None:
    """How often each face was seen: the face as printed, then "2/3" (green when enough)."""
    rows = v.coverage
    need = [r for r in rows if r[2] < v.per_face]
    count_w = d.width_of(f"{v.per_face}/{v.per_face}", MIN_CAP, True) + 10
    lh = d.line_h(MIN_CAP)
    title_h = lh + 2

    def grid(s: int) -> tuple[float, int, float]:
        """(cell width, columns, row height) of dice drawn ``s`` px tall."""
        cell_w = s + 6 + count_w
        return cell_w, max(1, int((w + 6) // (cell_w + 6))), max(float(s), lh) + 6

    def fits(n: int, s: int) -> bool:
        _, cols, row_h = grid(s)
        return y + title_h + math.ceil(n / cols) * row_h <= bottom

    choices = ((rows, f"Each face {v.per_face} times"), (need, "Still to see"))
    fit = next(
        (
            (shown, title, s)
            for shown, title in choices
            for s in (40, 36, 32, 28, 24)
            if fits(len(shown), s)
        ),
        None,
    )
    if fit is not None:
        shown, title, s = fit
        cell_w, cols, row_h = grid(s)
    else:  # not even the faces still to see fit: as many as fit
        title, s = "Still to see", 24
        cell_w, cols, row_h = grid(s)
        shown = need[: max(0, int((bottom - y - title_h) // row_h)) * cols]
        if not shown:
            return  # no room (a throw under review): the dice come first
        if len(shown) < len(need):
            title = f"Still to see: {len(shown)} of {len(need)} shown"
    d.text(title, (x, y), MIN_CAP, th.DIM, max_w=w)
    y += title_h
    for n, (die, face, seen) in enumerate(shown):
        cx, cy = x + (n % cols) * (cell_w + 6), y + (n // cols) * row_h
        px = round(s * d.k)
        d.image(d.die_image(v.dice_set, die, face, px), d.P(cx, cy))
        ok = seen >= v.per_face
        d.text(
            f"{seen}/{v.per_face}",
            (cx + s + 6, cy + s / 2),
            MIN_CAP,
            th.GREEN if ok else th.ORANGE,
            bold=True,
            anchor="midleft",
        )


def draw_capture(d, v: CaptureView) -> None:
    """The throw (or the live picture) with its dice, the prompt, the coverage, the buttons."""
    w = d.width
    header(d, v.title, _game_of(v.dice_set), f"{v.saved} photo{'' if v.saved == 1 else 's'}")
    top, bottom = HEADER_H + GAP, BASE_H - FOOTER_H - 4
    pic_w = min(w * 0.55, (bottom - top) * 4 / 3)
    k, frame_r = _picture(d, v.frame, 8, top, pic_w, bottom - top)
    _die_tags(d, v, k, frame_r)
    x = 8 + frame_r.width / d.k + 14
    cw = w - 8 - x
    cap = th.CAP_BODY if len(d.lines(v.prompt, cw, th.CAP_BODY, True)) <= 3 else MIN_CAP + 2
    y = d.wrap(v.prompt, (x, top, cw, 120), cap, th.TEXT, bold=True, max_lines=4) + 4
    sel = next((i for i, b in enumerate(v.boxes) if b[6]), None)
    if v.reviewing and sel is not None:
        label = v.boxes[sel][4]
        reads = "not read yet" if label == "?" else f"reads {label}"
        words = f"Die {sel + 1} of {len(v.boxes)} {reads}"
        y = d.wrap(words, (x, y, cw, 60), MIN_CAP + 2, th.GOLD, bold=True, max_lines=2) + 4
    if v.message:
        col = th.MESSAGE_COLOURS.get(v.message_kind or "info", th.BLUE)
        h = d.wrapped_h(v.message, cw - 20, MIN_CAP, True, 3) + 12
        d.box((x, y, cw, h), col, radius=10)
        d.wrap(v.message, (x + 10, y + 6, cw - 20, h), MIN_CAP, th.ink_on(col), True, 3)
        y += h + GAP
    keys = (
        "Keys: Up/Down = face, Enter = OK, A = accept all, R = throw again"
        if v.reviewing
        else "Keys: Enter = choose, Q = finish, Esc = leave"
    )
    keys_h = d.wrapped_h(keys, cw, MIN_CAP, False, 3)
    _coverage(d, v, x, y, cw, bottom - keys_h - 4)
    d.wrap(keys, (x, bottom - keys_h, cw, keys_h), MIN_CAP, th.DIM, max_lines=3)
    if v.reviewing:
        buttons = [("ok", "OK"), ("all", "Accept all"), ("rethrow", "Throw again")]
        hint = "Short press = next face, long press = OK"
        lit = None
    else:
        names = {"keep throwing": "keep", "finish and teach": "finish"}
        buttons = [(names.get(m, m), m.capitalize()) for m, _ in reversed(v.menu)]
        lit = next((names.get(m, m) for m, hi in v.menu if hi), None)
        hint = "Short press = next choice, long press = choose it" if v.menu else ""
    footer(d, hint, buttons, highlight=lit)


def draw_teach(d, v: TeachView) -> None:
    """Teaching's progress: the stage, a bar, the steps, the time left, a note."""
    w = d.width
    header(d, v.title, "bank", "")
    x, bw = 40.0, w - 80
    y = HEADER_H + 40
    y = d.wrap(v.stage, (x, y, bw, 80), th.CAP_PROMPT, th.TEXT, bold=True, max_lines=2) + 16
    share = min(1.0, v.done / v.total) if v.total else 0.0
    d.box((x, y, bw, 40), th.PANEL, radius=10)
    if share > 0:
        d.box((x, y, max(bw * share, 20), 40), th.GREEN, radius=10)
    y += 40 + 12
    d.text(f"{v.done} of {v.total} steps ({share:.0%})", (x, y), th.CAP_BODY, th.TEXT, max_w=bw)
    y += d.line_h(th.CAP_BODY) + 12
    d.text(v.left, (x, y), th.CAP_PROMPT, th.GOLD, bold=True, max_w=bw)
    y += d.line_h(th.CAP_PROMPT, True) + 12
    if v.note:
        d.wrap(v.note, (x, y, bw, BASE_H - y - 12), MIN_CAP + 2, th.DIM, max_lines=3)
