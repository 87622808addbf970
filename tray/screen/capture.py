"""The guided capture's screens (``dicetray calibrate --teach``): the throw with every die found
(box and reading, "?" where unsure), the coverage table, and teaching's progress.

Built as plain data first (:class:`CaptureView`, :class:`TeachView`), so tests check the
words without pygame, then drawn by :class:`CaptureScreen` on a Display's window.

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
FRAME_BOX = (5, 5, 520, 390)  # where the camera picture goes (x, y, w, h)
LOGICAL = (800, 480)  # the picture laid out, scaled to the window


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
    view = CaptureView(
        f"Teach: {capture.diceset.name}",
        capture.prompt(),
        live_frame,
        coverage=coverage,
        per_face=capture.per_face,
        saved=capture.folder.photos,
    )
    c = capture.correction
    if capture.state == "review" and c is not None:
        view.frame = capture.frame
        view.reviewing = True
        single = len(capture.diceset.dice) == 1
        for i, s in enumerate(c.slots):
            value = s.value
            label = "?" if value is None else (value.split(":", 1)[1] if single else value)
            kind = (
                "accepted"
                if i in capture.accepted
                else "unsure"
                if value is None or (s.was_unread and s.index < 0)
                else "read"
            )
            view.boxes.append((*s.box, label, kind, i == c.selected))
    else:
        if live_reading is not None:
            for d in live_reading.dice:
                label = (d.face if len(capture.diceset.dice) == 1 else d.spec) or "?"
                view.boxes.append(
                    (d.x, d.y, d.w, d.h, label, "read" if d.read else "unsure", False)
                )
        if capture.state == "throw":
            view.menu = [(m, i == capture.menu) for i, m in enumerate(MENU)]
    if capture.message is not None:
        view.message, view.message_kind = capture.message.text, capture.message.kind
    return view


class CaptureScreen:
    """Draws the capture's views on a :class:`tray.screen.display.Display`'s window.

    It lays out an 800x480 picture of its own (own fonts, own tap targets) and scales it,
    letterboxed, onto the window, so it does not depend on how the game screens are drawn.
    :meth:`hit` names what a tap at a window pixel lands on: ("die", i) or ("button", "ok" |
    "all" | "rethrow" | "finish" | "keep").

    >>> screen = CaptureScreen(Display(headless=True))       # doctest: +SKIP
    >>> screen.draw_capture(build_capture_view(cap, frame, reading))   # doctest: +SKIP
    """

    def __init__(self, display):
        self.display = display
        self.pg = display.pg
        self.surface = self.pg.Surface(LOGICAL)
        self.hits: list[tuple[object, tuple]] = []
        self._fonts: dict[tuple[int, bool], object] = {}
        self.scale, self.offset = 1.0, (0.0, 0.0)

    # ----------------------------------------------------------------- basics
    def font(self, px: int, bold: bool = False):
        if (px, bold) not in self._fonts:
            f = self.pg.font.Font(None, px)
            f.set_bold(bold)
            self._fonts[(px, bold)] = f
        return self._fonts[(px, bold)]

    def text(
        self,
        s: str,
        pos,
        px: int = 24,
        colour=TEXT,
        bold: bool = False,
        anchor: str = "topleft",
        max_w: int | None = None,
    ):
        """One line (shrunk to fit ``max_w``); returns its rect."""
        img = self.font(px, bold).render(s, True, colour)
        while max_w is not None and img.get_width() > max_w and px > 12:
            px -= 2
            img = self.font(px, bold).render(s, True, colour)
        r = img.get_rect(**{anchor: pos})
        self.surface.blit(img, r)
        return r

    def wrap(
        self, s: str, rect, px: int = 22, colour=TEXT, bold: bool = False, max_lines: int = 3
    ) -> None:
        x, y, w, _h = rect
        f = self.font(px, bold)
        lines, cur = [], ""
        for word in s.split():
            trial = (cur + " " + word).strip()
            if f.size(trial)[0] <= w or not cur:
                cur = trial
            else:
                lines.append(cur)
                cur = word
        lines += [cur] if cur else []
        if len(lines) > max_lines:
            lines = lines[:max_lines]
            lines[-1] = lines[-1].rstrip(".") + "..."
        for line in lines:
            self.surface.blit(f.render(line, True, colour), (x, y))
            y += f.get_linesize()

    def box(self, rect, colour, radius: int = 10, width: int = 0):
        return self.pg.draw.rect(
            self.surface, colour, self.pg.Rect(rect), width, border_radius=radius
        )

    def present(self) -> None:
        """Scale the picture onto the window, letterboxed, and show it."""
        pg, window = self.pg, self.display.window
        ww, wh = window.get_size()
        k = min(ww / LOGICAL[0], wh / LOGICAL[1])
        self.scale, self.offset = k, ((ww - LOGICAL[0] * k) / 2, (wh - LOGICAL[1] * k) / 2)
        if (ww, wh) == LOGICAL:
            window.blit(self.surface, (0, 0))
        else:
            window.fill((0, 0, 0))
            img = pg.transform.smoothscale(
                self.surface, (round(LOGICAL[0] * k), round(LOGICAL[1] * k))
            )
            window.blit(img, (round(self.offset[0]), round(self.offset[1])))
        if not self.display.headless:
            pg.display.flip()

    def hit(self, pos) -> tuple | None:
        """What a tap at window pixel ``pos`` lands on, or None."""
        x = (pos[0] - self.offset[0]) / self.scale
        y = (pos[1] - self.offset[1]) / self.scale
        for rect, target in reversed(self.hits):
            if rect.collidepoint(x, y):
                return target
        return None

    # ---------------------------------------------------------------- screens
    def _frame(self, frame) -> float:
        """The camera picture in FRAME_BOX; returns the scale used."""
        pg = self.pg
        x0, y0, bw, bh = FRAME_BOX
        if frame is None:
            self.box(FRAME_BOX, PANEL)
            self.text("no picture", (x0 + bw // 2, y0 + bh // 2), 36, DIM, anchor="center")
            return bw / 640
        frame = np.asarray(frame)
        h, w = frame.shape[:2]
        k = min(bw / w, bh / h)
        rgb = np.ascontiguousarray(frame[:, :, ::-1])
        img = pg.image.frombuffer(rgb.tobytes(), (w, h), "RGB")
        self.surface.blit(pg.transform.smoothscale(img, (int(w * k), int(h * k))), (x0, y0))
        return k

    def draw_capture(self, v: CaptureView) -> None:
        """The throw (or the live picture), the coverage, the buttons, the prompt."""
        pg, s = self.pg, self.surface
        self.hits = []
        s.fill(BG)
        k = self._frame(v.frame)
        x0, y0 = FRAME_BOX[:2]
        for i, (x, y, w, h, label, kind, selected) in enumerate(v.boxes):
            r = pg.Rect(x0 + x * k, y0 + y * k, max(w * k, 4), max(h * k, 4))
            col = GOLD if selected else KIND_COLOURS.get(kind, WHITE)
            pg.draw.rect(s, col, r, 4 if selected else 2)
            tag = self.text(label, (r.x, r.y - 1), 22, col, bold=True, anchor="bottomleft")
            if v.reviewing:
                self.hits.append((r.union(tag), ("die", i)))
        px = 535
        self.text(v.title, (px, 8), 26, TEXT, bold=True, max_w=258)
        photos = f"{v.saved} photo{'' if v.saved == 1 else 's'}"
        self.text(f"{photos}; each face {v.per_face}x", (px, 36), 18, DIM, max_w=258)
        rows = v.coverage
        cols = 1 if len(rows) <= 14 else 2
        per_col = -(-len(rows) // cols)
        col_w = 258 // cols
        row_h = max(14, min(22, 250 // max(per_col, 1)))
        for n, (label, seen) in enumerate(rows):
            cx = px + (n // per_col) * col_w
            cy = 60 + (n % per_col) * row_h
            ok = seen >= v.per_face
            self.text(label, (cx, cy), row_h, GREEN if ok else TEXT, max_w=col_w - 52)
            self.text(
                f"{seen}/{v.per_face}",
                (cx + col_w - 6, cy),
                row_h,
                GREEN if ok else ORANGE,
                anchor="topright",
            )
        by = 318
        buttons = []
        if v.reviewing:
            buttons = [("ok", "OK: accept die"), ("all", "accept all"), ("rethrow", "throw again")]
        elif v.menu:
            self.text("button: press = move, hold = choose", (px, by - 22), 17, DIM, max_w=258)
            for i, (label, hi) in enumerate(v.menu):
                rect = self.box((px, by + i * 34, 258, 30), GOLD if hi else PANEL, radius=8)
                self.text(label, rect.center, 22, BG if hi else TEXT, anchor="center")
                self.hits.append((rect, ("button", "finish" if "finish" in label else "keep")))
        for i, (name, label) in enumerate(buttons):
            rect = self.box((px, by + i * 34, 258, 30), PANEL, radius=8)
            self.text(label, rect.center, 22, TEXT, anchor="center")
            self.hits.append((rect, ("button", name)))
        py = 404
        if v.message:
            self.box((5, 399, 520, 32), MESSAGE_COLOURS.get(v.message_kind, BLUE), radius=8)
            self.text(v.message, (14, 415), 22, TEXT, bold=True, anchor="midleft", max_w=502)
            py = 436
        self.wrap(v.prompt, (8, py, 516, 476 - py), 20, TEXT, max_lines=(476 - py) // 18)
        self.present()

    def draw_teach(self, v: TeachView) -> None:
        """Teaching's progress: stage, bar, steps, the time left."""
        self.hits = []
        self.surface.fill(BG)
        self.text(v.title, (400, 90), 40, TEXT, bold=True, anchor="center")
        self.text(v.stage, (400, 160), 30, DIM, anchor="center")
        share = v.done / v.total if v.total else 0.0
        self.box((100, 210, 600, 40), PANEL, radius=8)
        if share > 0:
            self.box((100, 210, max(int(600 * min(share, 1.0)), 16), 40), GREEN, radius=8)
        self.text(f"{v.done}/{v.total}  {share:.0%}", (400, 230), 24, TEXT, anchor="center")
        self.text(v.left, (400, 290), 30, GOLD, anchor="center")
        if v.note:
            self.wrap(v.note, (100, 340, 600, 120), 22, DIM, max_lines=4)
        self.present()
