"""The guided capture's screens (``dicetray calibrate --teach``): the throw with every die found
(box and reading, "?" where unsure), the coverage table, and teaching's progress.

Drawn on a :class:`tray.screen.display.Display` with its basic tools (text, box, wrap), as
plain data first (:class:`CaptureView`, :class:`TeachView`), so tests check the words
without pygame.

>>> import tempfile
>>> from vision.dicesets import load
>>> from tray.table.capture import Capture
>>> from tray.table.capture_folder import CaptureFolder
>>> cap = Capture(CaptureFolder(tempfile.mkdtemp(), load("toss-up")), per_face=2)
>>> view = build_capture_view(cap, None, None)
>>> view.coverage[0], view.menu
(('green', 0), [('keep throwing', True), ('finish and teach', False)])
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

BG = (18, 24, 32)
PANEL = (30, 40, 54)
TEXT = (236, 240, 244)
DIM = (150, 162, 178)
GOLD = (250, 200, 60)
GREEN = (70, 200, 110)
ORANGE = (245, 150, 40)
RED = (230, 70, 60)
BLUE = (80, 150, 240)
WHITE = (245, 245, 245)
KIND_COLOURS = {"accepted": GREEN, "unsure": ORANGE, "read": WHITE}
MESSAGE_COLOURS = {"camera": RED, "unreadable": ORANGE, "error": RED, "info": BLUE}
FRAME_BOX = (5, 5, 520, 390)        # where the camera picture goes (x, y, w, h)


@dataclass
class CaptureView:
    """What the capture screen shows. ``boxes``: (x, y, w, h, label, kind, selected) in frame
    pixels, kind "accepted", "unsure" or "read"; ``coverage``: (label, times seen)."""

    title: str
    prompt: str
    frame: object = None
    boxes: list[tuple] = field(default_factory=list)
    coverage: list[tuple[str, int]] = field(default_factory=list)
    per_face: int = 3
    menu: list[tuple[str, bool]] = field(default_factory=list)
    reviewing: bool = False
    message: str | None = None
    message_kind: str | None = None
    saved: int = 0


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
    from tray.table.capture import MENU

    cov = capture.coverage
    coverage = [(cov.label(*k), cov.count(*k)) for k in cov.keys]
    view = CaptureView(f"Teach: {capture.diceset.name}", capture.prompt(), live_frame,
                       coverage=coverage, per_face=capture.per_face,
                       saved=capture.folder.photos)
    c = capture.correction
    if capture.state == "review" and c is not None:
        view.frame = capture.frame
        view.reviewing = True
        single = len(capture.diceset.dice) == 1
        for i, s in enumerate(c.slots):
            value = s.value
            label = "?" if value is None else (value.split(":", 1)[1] if single else value)
            kind = ("accepted" if i in capture.accepted
                    else "unsure" if value is None or (s.was_unread and s.index < 0) else "read")
            view.boxes.append((*s.box, label, kind, i == c.selected))
    else:
        if live_reading is not None:
            for d in live_reading.dice:
                label = (d.face if len(capture.diceset.dice) == 1 else d.spec) or "?"
                view.boxes.append((d.x, d.y, d.w, d.h, label,
                                   "read" if d.read else "unsure", False))
        if capture.state == "throw":
            view.menu = [(m, i == capture.menu) for i, m in enumerate(MENU)]
    if capture.message is not None:
        view.message, view.message_kind = capture.message.text, capture.message.kind
    return view


def _blit_frame(display, frame) -> float:
    """Draw the camera picture into FRAME_BOX; returns the scale used."""
    pg = display.pg
    x0, y0, bw, bh = FRAME_BOX
    if frame is None:
        display.box(FRAME_BOX, PANEL)
        display.text("no picture", (x0 + bw // 2, y0 + bh // 2), 36, DIM, anchor="center")
        return bw / 640
    frame = np.asarray(frame)
    h, w = frame.shape[:2]
    k = min(bw / w, bh / h)
    rgb = np.ascontiguousarray(frame[:, :, ::-1])
    img = pg.image.frombuffer(rgb.tobytes(), (w, h), "RGB")
    display.surface.blit(pg.transform.smoothscale(img, (int(w * k), int(h * k))), (x0, y0))
    return k


def draw_capture(display, v: CaptureView) -> None:
    """Draw the capture screen and present it; registers taps ("die", i) and ("button",
    "ok" | "all" | "rethrow" | "finish" | "keep")."""
    pg = display.pg
    s = display.surface
    display.hits = []
    s.fill(BG)
    k = _blit_frame(display, v.frame)
    x0, y0 = FRAME_BOX[:2]
    for i, (x, y, w, h, label, kind, selected) in enumerate(v.boxes):
        r = pg.Rect(x0 + x * k, y0 + y * k, max(w * k, 4), max(h * k, 4))
        col = GOLD if selected else KIND_COLOURS.get(kind, WHITE)
        pg.draw.rect(s, col, r, 4 if selected else 2)
        tag = display.text(label, (r.x, r.y - 1), 22, col, bold=True, anchor="bottomleft")
        if v.reviewing:
            display.hits.append((r.union(tag), ("die", i)))
    # right: coverage
    px = 535
    display.text(v.title, (px, 8), 26, TEXT, bold=True, max_w=258)
    photos = f"{v.saved} photo{'' if v.saved == 1 else 's'}"
    display.text(f"{photos}; each face {v.per_face}x", (px, 36), 18, DIM, max_w=258)
    rows = v.coverage
    cols = 1 if len(rows) <= 14 else 2
    per_col = -(-len(rows) // cols)
    col_w = 258 // cols
    row_h = max(14, min(22, 250 // max(per_col, 1)))
    for n, (label, seen) in enumerate(rows):
        cx = px + (n // per_col) * col_w
        cy = 60 + (n % per_col) * row_h
        ok = seen >= v.per_face
        display.text(label, (cx, cy), row_h, GREEN if ok else TEXT, max_w=col_w - 52)
        display.text(f"{seen}/{v.per_face}", (cx + col_w - 6, cy), row_h,
                     GREEN if ok else ORANGE, anchor="topright")
    # right, below: what the buttons do now
    by = 318
    buttons = []
    if v.reviewing:
        buttons = [("ok", "OK: accept die"), ("all", "accept all"), ("rethrow", "throw again")]
    elif v.menu:
        display.text("button: press = move, hold = choose", (px, by - 22), 17, DIM, max_w=258)
        for i, (label, hi) in enumerate(v.menu):
            rect = display.box((px, by + i * 34, 258, 30), GOLD if hi else PANEL, radius=8)
            display.text(label, rect.center, 22, BG if hi else TEXT, anchor="center")
            display.hits.append((rect, ("button", "finish" if "finish" in label else "keep")))
    for i, (name, label) in enumerate(buttons):
        rect = display.box((px, by + i * 34, 258, 30), PANEL, radius=8)
        display.text(label, rect.center, 22, TEXT, anchor="center")
        display.hits.append((rect, ("button", name)))
    # bottom: the prompt or a message
    py = 404
    if v.message:
        display.box((5, 399, 520, 32), MESSAGE_COLOURS.get(v.message_kind, BLUE), radius=8)
        display.text(v.message, (14, 415), 22, TEXT, bold=True, anchor="midleft", max_w=502)
        py = 436
    display.wrap(v.prompt, (8, py, 516, 476 - py), 20, TEXT, max_lines=(476 - py) // 18)
    display.present()


def draw_teach(display, v: TeachView) -> None:
    """Draw teaching's progress (stage, bar, time left) and present it."""
    display.hits = []
    display.surface.fill(BG)
    display.text(v.title, (400, 90), 40, TEXT, bold=True, anchor="center")
    display.text(v.stage, (400, 160), 30, DIM, anchor="center")
    share = v.done / v.total if v.total else 0.0
    display.box((100, 210, 600, 40), PANEL, radius=8)
    if share > 0:
        display.box((100, 210, max(int(600 * min(share, 1.0)), 16), 40), GREEN, radius=8)
    display.text(f"{v.done}/{v.total}  {share:.0%}", (400, 230), 24, TEXT, anchor="center")
    display.text(v.left, (400, 290), 30, GOLD, anchor="center")
    if v.note:
        display.wrap(v.note, (100, 340, 600, 120), 22, DIM, max_lines=4)
    display.present()
