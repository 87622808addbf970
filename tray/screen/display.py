"""The pygame-ce screen: it only draws a view (tray/screen/view.py) of the state.

Everything is drawn on an 800x480 logical surface (the 7-inch touchscreen) and scaled to the
window, letterboxed, so the same layout reads well at 1920x1080. Touch/mouse positions are
mapped back to logical coordinates with :meth:`Display.to_logical`, and :meth:`Display.hit`
names what was tapped (a player's row, a choice, a die, a button).

>>> import os; os.environ.setdefault("SDL_VIDEODRIVER", "dummy")   # doctest: +SKIP
>>> from tray.screen.display import Display
>>> screen = Display(size=(800, 480), headless=True)                # doctest: +SKIP
>>> screen.draw(view); screen.save("play.png")                      # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import numpy as np

from tray.screen.view import SetupView, StartView, View

LOGICAL = (800, 480)

BG = (18, 24, 32)
PANEL = (30, 40, 54)
PANEL_HI = (52, 70, 96)
TEXT = (236, 240, 244)
DIM = (150, 162, 178)
GOLD = (250, 200, 60)
GREEN = (70, 200, 110)
RED = (230, 70, 60)
ORANGE = (245, 150, 40)
BLUE = (80, 150, 240)

GAME_COLOURS = {"tally-up": (200, 40, 60), "toss-up": (40, 150, 80), "bank": (40, 110, 190),
                "diced-out": (140, 60, 170), "rollers": (120, 60, 200)}
BANNER_COLOURS = {"bust": RED, "tally_up": GOLD, "diced_out": (160, 70, 200),
                  "dicedout": (160, 70, 200), "zap": (250, 220, 40), "seven": RED,
                  "round_over_seven": RED, "game_over": GREEN, "all_green": GREEN}
MESSAGE_COLOURS = {"camera": RED, "wrong_roll": ORANGE, "unreadable": ORANGE, "error": RED,
                   "info": BLUE}


def parse_size(text: str) -> tuple[int, int]:
    """``"800x480"`` -> (800, 480); ValueError with the expected form otherwise."""
    try:
        w, h = text.lower().split("x")
        size = int(w), int(h)
    except ValueError:
        raise ValueError(f"screen size {text!r}: write it as WIDTHxHEIGHT, like 800x480") from None
    if size[0] < 160 or size[1] < 96:
        raise ValueError(f"screen size {text!r} is too small: use at least 320x192")
    return size


class Display:
    """A window (or a headless surface) showing views.

    ``size``: the window size; ``fullscreen``: the Pi's screen; ``headless``: draw without a
    display (SDL dummy driver), for screenshots and the headless demo.

    >>> screen = Display(size=(800, 480), headless=True)   # doctest: +SKIP
    >>> screen.draw(view)                                   # doctest: +SKIP
    >>> screen.save("/tmp/screen.png")                      # doctest: +SKIP
    """

    def __init__(self, size: tuple[int, int] = LOGICAL, fullscreen: bool = False,
                 headless: bool = False, caption: str = "dicetray"):
        if headless:
            os.environ["SDL_VIDEODRIVER"] = "dummy"
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
        import pygame

        self.pg = pygame
        pygame.display.init()
        pygame.font.init()
        self.size = tuple(size)
        self.headless = headless
        flags = pygame.FULLSCREEN if fullscreen and not headless else 0
        if headless:
            self.window = pygame.Surface(self.size)
        else:
            self.window = pygame.display.set_mode(self.size if not fullscreen else (0, 0), flags)
            pygame.display.set_caption(caption)
            self.size = self.window.get_size()
        self.surface = pygame.Surface(LOGICAL)
        self._fonts: dict[tuple[int, bool], object] = {}
        self._dice: dict[tuple, object] = {}
        self._sets: dict[str, object] = {}
        self.hits: list[tuple[object, tuple]] = []   # (rect, target)
        scale = min(self.size[0] / LOGICAL[0], self.size[1] / LOGICAL[1])
        self.scale = scale
        self.offset = ((self.size[0] - LOGICAL[0] * scale) / 2, (self.size[1] - LOGICAL[1] * scale) / 2)

    # ----------------------------------------------------------------- basics
    def font(self, px: int, bold: bool = False):
        key = (px, bold)
        if key not in self._fonts:
            f = self.pg.font.Font(None, px)
            f.set_bold(bold)
            self._fonts[key] = f
        return self._fonts[key]

    def text(self, s: str, pos, px: int = 24, colour=TEXT, bold: bool = False, anchor: str = "topleft",
             max_w: int | None = None):
        """Draw one line; shrinks the font until it fits ``max_w``. Returns the rect."""
        px_now = px
        f = self.font(px_now, bold)
        img = f.render(s, True, colour)
        while max_w is not None and img.get_width() > max_w and px_now > 12:
            px_now -= 2
            f = self.font(px_now, bold)
            img = f.render(s, True, colour)
        r = img.get_rect(**{anchor: pos})
        self.surface.blit(img, r)
        return r

    def lines(self, s: str, width: int, px: int, bold: bool = False) -> list[str]:
        """``s`` broken into lines that fit ``width`` pixels at font size ``px``."""
        f = self.font(px, bold)
        lines, cur = [], ""
        for word in s.split():
            trial = (cur + " " + word).strip()
            if f.size(trial)[0] <= width or not cur:
                cur = trial
            else:
                lines.append(cur)
                cur = word
        if cur:
            lines.append(cur)
        return lines

    def wrap(self, s: str, rect, px: int = 28, colour=TEXT, bold: bool = False, max_lines: int = 3):
        """Draw text word-wrapped into ``rect`` (x, y, w, h); returns the bottom y."""
        x, y, w, _h = rect
        f = self.font(px, bold)
        lines = self.lines(s, w, px, bold)
        if len(lines) > max_lines:
            lines = lines[:max_lines]
            lines[-1] = lines[-1].rstrip(".") + "..."
        for line in lines:
            self.surface.blit(f.render(line, True, colour), (x, y))
            y += f.get_linesize()
        return y

    def box(self, rect, colour, radius: int = 10, width: int = 0):
        return self.pg.draw.rect(self.surface, colour, self.pg.Rect(rect), width, border_radius=radius)

    def dice_set(self, set_id: str):
        if set_id not in self._sets:
            from vision import dicesets

            self._sets[set_id] = dicesets.load(set_id)
        return self._sets[set_id]

    def die_image(self, set_id: str, die: str | None, face: str | None, px: int):
        """A die face as a pygame surface, drawn by vision.faceart from the dice-set data."""
        key = (set_id, die, face, px)
        if key in self._dice:
            return self._dice[key]
        pg = self.pg
        surf = None
        if die is not None and face is not None:
            try:
                from vision.faceart import draw_face

                bgr = draw_face(self.dice_set(set_id), die, face, px)
                rgb = np.ascontiguousarray(bgr[:, :, ::-1])
                surf = pg.image.frombuffer(rgb.tobytes(), (rgb.shape[1], rgb.shape[0]), "RGB").copy()
            except (ImportError, KeyError, ValueError):   # no face art for it: draw it in words
                surf = None
        if surf is None:
            surf = pg.Surface((px, px), pg.SRCALPHA)
            body = (90, 96, 108)
            if die is not None:
                with contextlib.suppress(KeyError, ValueError):
                    body = self.dice_set(set_id).die(die).body_rgb
            pg.draw.rect(surf, body, (0, 0, px, px), border_radius=px // 6)
            label = face if face is not None else "?"
            f = self.font(max(14, px // 2 if len(label) < 3 else px // 3), True)
            img = f.render(label, True, TEXT)
            surf.blit(img, img.get_rect(center=(px // 2, px // 2)))
        self._dice[key] = surf
        return surf

    # ------------------------------------------------------------------ frame
    def present(self):
        """Scale the logical surface to the window and flip (a no-op flip when headless)."""
        pg = self.pg
        if self.size == LOGICAL:
            self.window.blit(self.surface, (0, 0))
        else:
            self.window.fill((0, 0, 0))
            w, h = int(LOGICAL[0] * self.scale), int(LOGICAL[1] * self.scale)
            self.window.blit(pg.transform.smoothscale(self.surface, (w, h)),
                             (int(self.offset[0]), int(self.offset[1])))
        if not self.headless:
            pg.display.flip()

    def save(self, path) -> Path:
        """Write what the window shows to a PNG file."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.pg.image.save(self.window, str(path))
        return path

    def to_logical(self, pos) -> tuple[float, float]:
        """A window pixel (a tap) -> logical 800x480 coordinates."""
        return ((pos[0] - self.offset[0]) / self.scale, (pos[1] - self.offset[1]) / self.scale)

    def hit(self, pos) -> tuple | None:
        """What a tap at window pixel ``pos`` lands on: ("player", seat), ("choice", i),
        ("die", i), ("button", name), ("start", field, +1/-1), or None."""
        x, y = self.to_logical(pos)
        for rect, target in reversed(self.hits):
            if rect.collidepoint(x, y):
                return target
        return None

    def draw(self, view) -> None:
        """Draw any view (View, StartView, SetupView) and present it."""
        self.hits = []
        if isinstance(view, StartView):
            self._draw_start(view)
        elif isinstance(view, SetupView):
            self._draw_setup(view)
        else:
            self._draw_play(view)
        self.present()

    # ------------------------------------------------------------------- play
    def _draw_play(self, v: View) -> None:
        pg = self.pg
        s = self.surface
        s.fill(BG)
        colour = GAME_COLOURS.get(v.game_id, BLUE)
        self.box((0, 0, 800, 46), colour, radius=0)
        self.text(v.title, (14, 8), 34, TEXT, bold=True)
        self.text(v.round_text, (786, 12), 26, TEXT, anchor="topright")

        # scoreboard
        n = max(1, len(v.players))
        row_h = min(52, (480 - 56 - 8) // n)
        y = 54
        for row in v.players:
            rect = pg.Rect(8, y, 248, row_h - 4)
            bg = PANEL_HI if row.active else PANEL
            if row.winner:
                bg = (70, 110, 60)
            self.box(rect, bg, radius=8)
            if row.active:
                self.box((8, y, 6, row_h - 4), GOLD, radius=3)
            fpx = 26 if row_h >= 40 else 20
            self.text(f"{row.seat + 1 if row.seat < 9 else 0}", (20, y + (row_h - 4) // 2), fpx - 6,
                      DIM, anchor="midleft")
            mid = y + (row_h - 4) // 2
            self.text(row.name, (40, mid), fpx, TEXT, bold=row.active, anchor="midleft", max_w=104)
            sr = self.text(row.score, (248, mid), fpx + 2, GOLD if row.winner else TEXT,
                           bold=True, anchor="midright")
            tag_w = sr.left - 8 - 146
            if row.awaited:
                mark = "chosen" if row.chosen else "..."
                self.text(mark, (sr.left - 8, mid), max(14, fpx - 8),
                          GREEN if row.chosen else DIM, anchor="midright", max_w=tag_w)
            elif row.tag:
                tag_col = {"OUT": ORANGE, "IN": GREEN, "banked": GREEN}.get(row.tag, DIM)
                self.text(row.tag, (sr.left - 8, mid), max(14, fpx - 8), tag_col,
                          anchor="midright", max_w=tag_w)
            self.hits.append((rect, ("player", row.seat)))
            y += row_h

        # main area
        x0 = 272
        ppx = 34
        while ppx > 22 and len(self.lines(v.prompt, 516, ppx, True)) > (2 if ppx > 28 else 3):
            ppx -= 2
        yb = self.wrap(v.prompt, (x0, 56, 516, 100), ppx, TEXT, bold=True, max_lines=3)
        if v.totals:
            tx = x0
            for label, value in v.totals[:4]:
                r1 = self.text(label + ":", (tx, yb + 6), 20, DIM)
                r2 = self.text(value, (r1.right + 6, yb + 2), 28 if "total" in label.lower() else 22,
                               GOLD if "total" in label.lower() else TEXT, bold=True, max_w=200)
                tx = r2.right + 18
                if tx > 760:
                    break
            yb += 34
        if v.chosen_text:
            self.text(v.chosen_text, (x0, yb + 4), 22, GREEN, max_w=516)
            yb += 28
        if v.reveal and not v.chosen_text:
            ins = ", ".join(v.reveal.get("in", [])) or "nobody"
            outs = ", ".join(v.reveal.get("out", [])) or "nobody"
            self.text(f"IN: {ins}", (x0, yb + 4), 22, GREEN, max_w=250)
            self.text(f"OUT: {outs}", (x0 + 260, yb + 4), 22, ORANGE, max_w=250)
            yb += 28

        # score sheet (DICEDOUT! marks of the active player, Rollers board)
        if v.sheet:
            k = len(v.sheet)
            cw = min(44, 516 // k - 4)
            for i, (label, marked, circled) in enumerate(v.sheet):
                r = pg.Rect(x0 + i * (cw + 4), yb + 4, cw, 34)
                self.box(r, (60, 130, 80) if marked else PANEL, radius=6)
                if circled:
                    pg.draw.circle(s, GOLD, r.center, 15, 2)
                self.text(label, r.center, 22, TEXT if not marked else BG, bold=True, anchor="center")
                if marked:
                    pg.draw.line(s, TEXT, r.topleft, r.bottomright, 2)
            yb += 42

        # dice
        if v.roll:
            k = len(v.roll)
            px = min(84, (516 - 8 * (k - 1)) // max(k, 1))
            dy = max(yb + 8, 190 - px // 2) if k else yb
            dx = x0
            for i, d in enumerate(v.roll):
                img = self.die_image(v.dice_set, d.die, d.face, px)
                s.blit(img, (dx, dy))
                r = pg.Rect(dx, dy, px, px)
                if d.unsure:
                    pg.draw.rect(s, ORANGE, r.inflate(6, 6), 3, border_radius=px // 6)
                    if d.face is None:
                        self.text("?", r.center, px // 2, ORANGE, bold=True, anchor="center")
                if d.selected:
                    pg.draw.rect(s, GOLD, r.inflate(12, 12), 4, border_radius=px // 5)
                self.hits.append((r, ("die", i)))
                dx += px + 8
            yb = dy + px + 4
            if v.roll_caption:
                self.text(v.roll_caption, (x0, yb + 2), 22, DIM, max_w=516)
                yb += 26
        elif v.roll_caption:
            self.text(v.roll_caption, (x0, yb + 6), 22, DIM, max_w=516)
            yb += 28

        # choices: as many as fit, in a window around the highlighted one
        if v.choices:
            self.text(f"{v.chooser}, choose:", (x0, yb + 6), 22, TEXT, bold=True)
            more = len(v.choices)
            yb += 30
            longest = max(len(c.label) for c in v.choices)
            cols = 1 if len(v.choices) <= 3 else 3 if longest <= 14 else 2
            cw = 516 // cols - 6
            ch = 28
            rows = max(1, (418 - yb) // (ch + 4))
            fit = rows * cols
            hi = next((i for i, c in enumerate(v.choices) if c.highlighted), 0)
            lo = 0 if more <= fit else max(0, min(hi - fit // 2, more - fit))
            shown = v.choices[lo:lo + fit]
            for i, c in enumerate(shown):
                cx = x0 + (i % cols) * (cw + 6)
                cy = yb + (i // cols) * (ch + 4)
                r = pg.Rect(cx, cy, cw, ch)
                self.box(r, GOLD if c.highlighted else PANEL, radius=6)
                self.text(c.label, (cx + 8, cy + ch // 2), 20, BG if c.highlighted else TEXT,
                          anchor="midleft", max_w=cw - 14)
                self.hits.append((r, ("choice", c.index)))
            if more > fit:
                self.text(f"{lo + 1}-{lo + len(shown)} of {more}", (788, yb - 24), 18, DIM,
                          anchor="topright")

        # table buttons (touch)
        bx = 790
        for name in ["undo", *v.table_actions] + (["ok"] if v.confirm else []):
            label = v.confirm if name == "ok" else name.replace("_", " ")
            w = self.font(18).size(label)[0] + 18
            r = pg.Rect(bx - w, 448, w, 26)
            self.box(r, PANEL, radius=6)
            self.text(label, r.center, 18, DIM, anchor="center")
            self.hits.append((r, ("button", name)))
            bx -= w + 6
        if v.help:
            self.wrap(v.help, (x0, 424, bx - x0 - 8, 50), 18, DIM, max_lines=2)

        # overlays
        if v.countdown is not None:
            r = pg.Rect(272, 300, 516, 110)
            self.box(r, (0, 0, 0), radius=20)
            self.box(r, GOLD, radius=20, width=3)
            self.text("... ".join(str(i) for i in range(1, v.countdown + 1)) + "...", r.center,
                      80, GOLD, bold=True, anchor="center", max_w=r.w - 20)
        if v.banner:
            col = BANNER_COLOURS.get(v.banner_kind or "", GOLD)
            if v.choices:       # keep the choices in sight: a slimmer banner over the totals
                r = pg.Rect(272, 104, 516, 64)
            elif v.screen == "end":
                r = pg.Rect(272, 290, 516, 110)
            else:
                r = pg.Rect(272, 300, 516, 96)
            self.box(r.inflate(8, 8), (0, 0, 0), radius=16)
            self.box(r, col, radius=14)
            self.text(v.banner, r.center, min(64, r.h - 8) if len(v.banner) < 14 else 40,
                      BG if col in (GOLD, (250, 220, 40), GREEN) else TEXT, bold=True,
                      anchor="center", max_w=r.w - 20)
        if v.message:
            col = MESSAGE_COLOURS.get(v.message_kind or "info", BLUE)
            if v.camera_lost:
                r = pg.Rect(120, 150, 560, 160)
            else:
                n = min(3, len(self.lines(v.message, 516 - 28, 24, True)))
                h = n * self.font(24, True).get_linesize() + 20
                r = pg.Rect(272, 414 - h, 516, h)
            self.box(r.inflate(6, 6), (0, 0, 0), radius=14)
            self.box(r, col, radius=12)
            if v.camera_lost:
                self.text("CAMERA LOST", (r.centerx, r.y + 34), 44, TEXT, bold=True, anchor="center")
                self.wrap(v.message, (r.x + 16, r.y + 64, r.w - 32, 90), 24, TEXT, max_lines=3)
            else:
                self.wrap(v.message, (r.x + 14, r.y + 10, r.w - 28, r.h - 10), 24, TEXT,
                          bold=True, max_lines=3)

    # ------------------------------------------------------------------ start
    def _draw_start(self, v: StartView) -> None:
        pg = self.pg
        s = self.surface
        s.fill(BG)
        gid, gtitle = v.games[v.game_index]
        self.box((0, 0, 800, 56), GAME_COLOURS.get(gid, BLUE), radius=0)
        self.text("dicetray", (16, 10), 40, TEXT, bold=True)
        self.text("choose a game", (784, 18), 24, TEXT, anchor="topright")
        rows = [("Game", gtitle), ("Players", f"{len(v.players)}  ({v.min_players}-{v.max_players})")]
        rows += [(k, val) for k, val in v.options]
        y = 68
        for i, (label, value) in enumerate(rows):
            r = pg.Rect(16, y, 500, 40)
            self.box(r, PANEL_HI if v.focus == i else PANEL, radius=8)
            self.text(label, (30, y + 20), 26, DIM, anchor="midleft")
            self.text(value, (330, y + 20), 28, TEXT, bold=True, anchor="center", max_w=240)
            left, right = pg.Rect(200, y + 4, 32, 32), pg.Rect(470, y + 4, 32, 32)
            self.text("<", left.center, 30, GOLD, bold=True, anchor="center")
            self.text(">", right.center, 30, GOLD, bold=True, anchor="center")
            self.hits += [(r, ("start", i, 0)), (left, ("start", i, -1)), (right, ("start", i, 1))]
            y += 46
            if y > 370:
                break
        r = pg.Rect(16, 420, 500, 48)
        focus_start = v.focus >= len(rows)
        self.box(r, GREEN if focus_start else (40, 110, 70), radius=10)
        self.text("START", r.center, 34, BG if focus_start else TEXT, bold=True, anchor="center")
        self.hits.append((r, ("start", len(rows), 0)))
        # players
        self.text("Players", (536, 68), 26, DIM)
        py = 98
        for i, name in enumerate(v.players):
            self.text(f"{i + 1 if i < 9 else 0}  {name}", (540, py), 24, TEXT, max_w=240)
            py += 28
        self.wrap("Up/Down choose a line, Left/Right change it, Enter starts. Tap < > on the screen. "
                  "Buttons 1-0 are the players' buttons.", (536, 400, 250, 80), 17, DIM, max_lines=4)
        if v.resume:
            r = pg.Rect(536, 330, 250, 60)
            self.box(r, ORANGE, radius=10)
            self.wrap(v.resume, (r.x + 8, r.y + 6, r.w - 16, 50), 20, BG, bold=True, max_lines=2)
            self.hits.append((r, ("button", "resume")))
        if v.message:
            self.box((120, 180, 560, 100), RED, radius=12)
            self.wrap(v.message, (136, 196, 528, 80), 24, TEXT, bold=True)

    # ------------------------------------------------------------------ setup
    def _draw_setup(self, v: SetupView) -> None:
        pg = self.pg
        s = self.surface
        s.fill(BG)
        if v.frame is not None:
            frame = np.asarray(v.frame)
            h, w = frame.shape[:2]
            k = min(560 / w, 470 / h)
            rgb = np.ascontiguousarray(frame[:, :, ::-1])
            img = pg.image.frombuffer(rgb.tobytes(), (w, h), "RGB")
            img = pg.transform.smoothscale(img, (int(w * k), int(h * k)))
            s.blit(img, (5, 5))
            for (x, y, bw, bh, label, read) in v.boxes:
                r = pg.Rect(5 + x * k, 5 + y * k, bw * k, bh * k)
                col = GREEN if read else ORANGE
                pg.draw.rect(s, col, r, 2)
                self.text(label, (r.x, r.y - 2), 16, col, anchor="bottomleft")
        else:
            self.box((5, 5, 560, 420), PANEL)
            self.text("no picture", (285, 215), 36, DIM, anchor="center")
        self.text("Set-up", (580, 12), 34, TEXT, bold=True)
        self.text(f"dice set: {v.dice_set}", (580, 54), 20, DIM)
        self.wrap(v.status, (580, 84, 210, 120), 22, TEXT)
        read = sum(1 for b in v.boxes if b[5])
        self.text(f"{len(v.boxes)} dice found", (580, 210), 24, TEXT)
        self.text(f"{read} read, {len(v.boxes) - read} unsure", (580, 238), 22,
                  GREEN if read == len(v.boxes) else ORANGE)
        self.wrap("Green box: read. Orange: found but not read. Press S to leave the set-up view.",
                  (580, 290, 210, 120), 18, DIM, max_lines=5)
        if v.message:
            self.box((120, 180, 560, 100), RED, radius=12)
            self.wrap(v.message, (136, 196, 528, 80), 24, TEXT, bold=True)
