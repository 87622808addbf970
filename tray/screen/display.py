"""The pygame-ce screen: it only draws a view (tray/screen/view.py) of the state.

Every screen is laid out for the real size of the window (800x480 and 1024x600 panels,
1280x720, 1920x1080, ...) and drawn natively at that size: positions are in layout pixels
(``height / 480`` real pixels each, tray/screen/theme.py) and text is rendered at its real
pixel size, so nothing is scaled and there are no black bars; a wider screen gives the play
area more room. What is drawn where lives in tray/screen/draw_play.py (the game and the win
screen) and tray/screen/draw_menus.py (start, how-to-play, set-up).

Text is drawn with pygame's FreeType renderer without kerning: the kerning pairs of the
default font (freesansbold.ttf) widen some pairs by a pixel or two at these sizes, so words
read "but ton" and "CAMER A"; without them every letter sits on its own advance.

Every line of text drawn is kept in :attr:`Display.drawn` (its rect in real pixels, its words,
its capital height, whether it had to be cut short), every picture (a die, a face) in
:attr:`Display.images`, and text an overlay hides only in part in :attr:`Display.clipped`, so
tests can check that text is big enough, whole, inside the screen and never on top of other
text or a picture. :meth:`Display.hit` names what a tap at a real pixel lands on. A view whose
``cue`` is new plays its sound (tray/screen/sound.py).

>>> from tray.screen.display import Display
>>> from tray.screen.view import how_to_view
>>> screen = Display(size=(1024, 600), headless=True)
>>> screen.draw(how_to_view("bank"))
>>> screen.drawn[0].text, screen.drawn[0].cap >= 20      # 16 layout px = 20 real px here
('How to play Bank', True)
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tray.screen import capture, draw_end, draw_menus, draw_play, theme
from tray.screen.history_screen import draw_history
from tray.screen.sound import Sounds
from tray.screen.theme import BASE_H, MIN_CAP, TEXT
from tray.screen.view import HowToView, SetupView, StartView

LOGICAL = (800, 480)  # the default window: a 7-inch panel


def parse_size(text: str) -> tuple[int, int]:
    """``"800x480"`` -> (800, 480); ValueError with the expected form otherwise."""
    try:
        w, h = text.lower().split("x")
        size = int(w), int(h)
    except ValueError:
        raise ValueError(f"screen size {text!r}: write it as WIDTHxHEIGHT, like 800x480") from None
    if size[0] < 320 or size[1] < 192:
        raise ValueError(f"screen size {text!r} is too small: use at least 320x192")
    if size[0] / size[1] < 1.2 or size[0] / size[1] > 2.4:
        raise ValueError(
            f"screen size {text!r}: dicetray lays out landscape screens from 6:5 "
            "to 12:5, like 800x480, 1024x600 or 1920x1080"
        )
    return size


@dataclass
class Drawn:
    """One line of text on the screen: ``rect`` in real pixels, ``cap`` its capital height,
    ``cut`` when the words did not fit and end in "..." (or lines of a wrap were dropped).

    >>> Drawn(None, "Ana", 16).cap
    16
    """

    rect: object
    text: str
    cap: int
    cut: bool = False


class Display:
    """A window (or a headless surface) showing views.

    ``size``: the window size; ``fullscreen``: the whole screen (its real size is used);
    ``headless``: draw without a display (SDL dummy driver), for screenshots and the headless
    demo; ``sound``: play the table's sounds (default: on unless headless).

    >>> from tray.screen.view import how_to_view
    >>> screen = Display(size=(800, 480), headless=True)
    >>> screen.draw(how_to_view("rollers"))
    >>> screen.window.get_size(), screen.k
    ((800, 480), 1.0)
    """

    def __init__(
        self,
        size: tuple[int, int] = LOGICAL,
        fullscreen: bool = False,
        headless: bool = False,
        caption: str = "dicetray",
        sound: bool | None = None,
    ):
        if headless:
            os.environ["SDL_VIDEODRIVER"] = "dummy"
            os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        self.pg = pygame
        pygame.display.init()
        pygame.font.init()
        self.size = tuple(size)
        self.headless = headless
        if headless:
            self.window = pygame.Surface(self.size)
        else:
            flags = pygame.FULLSCREEN if fullscreen else 0
            self.window = pygame.display.set_mode((0, 0) if fullscreen else self.size, flags)
            pygame.display.set_caption(caption)
            self.size = self.window.get_size()
        self.surface = self.window
        self.k = self.size[1] / BASE_H  # real pixels per layout pixel
        self.width = self.size[0] / self.k  # layout width: 800 at 5:3, 853 at 16:9
        self.height = BASE_H
        import pygame.freetype

        pygame.freetype.init()
        self._fonts: dict[tuple[int, bool], object] = {}
        self._px_for_cap: dict[int, int] = {}
        self._caps: dict[int, int] = {}
        self._widths: dict[tuple, float] = {}
        self._rendered: dict[tuple, object] = {}
        self._dice: dict[tuple, object] = {}
        self._sets: dict[str, object] = {}
        self.hits: list[tuple[object, tuple]] = []  # (real rect, target)
        self.drawn: list[Drawn] = []
        self.images: list[object] = []  # real rects of the pictures drawn (dice, faces)
        self.clipped: list[Drawn] = []  # text an overlay hides in part
        self._sounds = None
        self._sound_on = (not headless) if sound is None else sound
        self._cue_seen: int | None = None

    # ----------------------------------------------------------------- geometry
    def R(self, x, y, w, h):
        """A layout rect as a real pygame Rect."""
        k = self.k
        x0, y0 = round(x * k), round(y * k)
        return self.pg.Rect(x0, y0, round((x + w) * k) - x0, round((y + h) * k) - y0)

    def P(self, x, y) -> tuple[int, int]:
        """A layout point as a real pixel."""
        return round(x * self.k), round(y * self.k)

    # -------------------------------------------------------------------- text
    def font(self, cap: float, bold: bool = False):
        """The font whose capital letters are ``cap`` layout pixels high (at least)."""
        want = max(1, round(cap * self.k))
        if want not in self._px_for_cap:
            px = max(4, int(want * 1.3))
            while self._cap_of(px) < want:
                px += 1
            while px > 4 and self._cap_of(px - 1) >= want:
                px -= 1
            self._px_for_cap[want] = px
        return self._font_px(self._px_for_cap[want], bold)

    def _font_px(self, px: int, bold: bool):
        key = (px, bold)
        if key not in self._fonts:
            f = self.pg.freetype.Font(None, px)
            f.pad = True  # rects span the whole line (ascender to descender), like pygame.font
            f.kerning = False  # see the module doc: the default font's pairs space words unevenly
            f.strong = bold
            self._fonts[key] = f
        return self._fonts[key]

    def _cap_of(self, px: int) -> int:
        m = self._font_px(px, False).get_metrics("H")[0]
        return round(m[3] - m[2])

    def render(self, font, s: str, colour):
        """``s`` rendered by a font of :meth:`font` (a surface the height of a whole line), in
        the pixel order of the screen (FreeType gives RGBA: blitting that is 50 times slower)."""
        img = font.render(s, colour)[0]
        pg = self.pg
        return pg.image.frombytes(pg.image.tobytes(img, "BGRA"), img.get_size(), "BGRA")

    def line_h(self, cap: float, bold: bool = False) -> float:
        """The height of one line of text, in layout pixels."""
        f = self.font(cap, bold)
        return (max(f.get_sized_height(), f.get_rect("Hg").height) + 1) / self.k  # +1: no overlap

    def width_of(self, s: str, cap: float, bold: bool = False) -> float:
        """The width of ``s`` in layout pixels (kept: the same words are measured each frame)."""
        key = (s, cap, bold)
        w = self._widths.get(key)
        if w is None:
            if len(self._widths) > 4000:
                self._widths.clear()
            w = self._widths[key] = self.font(cap, bold).get_rect(s).width / self.k
        return w

    def fit(self, s: str, cap: float, max_w: float, bold: bool = False) -> tuple[str, float]:
        """``s`` at the largest size from ``cap`` down to MIN_CAP that fits ``max_w`` layout
        pixels; cut short with "..." when even MIN_CAP is too wide (see :meth:`fits`)."""
        c = cap
        while c > MIN_CAP and self.width_of(s, c, bold) > max_w:
            c = max(MIN_CAP, c - 2)
        if self.width_of(s, c, bold) <= max_w:
            return s, c
        words = s
        while words and self.width_of(words.rstrip(" ,.:;") + "...", c, bold) > max_w:
            words = words[:-1]
        return (words.rstrip(" ,.:;") + "..." if words else ""), c

    def fits(self, s: str, max_w: float, bold: bool = False) -> bool:
        """Whether ``s`` fits ``max_w`` layout pixels whole (at MIN_CAP at the smallest)."""
        return self.width_of(s, MIN_CAP, bold) <= max_w

    def text(
        self,
        s: str,
        pos,
        cap: float = theme.CAP_BODY,
        colour=TEXT,
        bold: bool = False,
        anchor: str = "topleft",
        max_w: float | None = None,
    ):
        """Draw one line at layout point ``pos``; shrinks to fit ``max_w`` (never below
        MIN_CAP) and then cuts it short. Returns the real rect (empty when nothing fits)."""
        cut = False
        if max_w is not None:
            whole = s
            s, cap = self.fit(s, cap, max_w, bold)
            cut = s != whole
        if not s:
            return self.pg.Rect(self.P(*pos), (0, 0))
        f = self.font(cap, bold)
        key = (s, id(f), tuple(colour))
        img = self._rendered.get(key)
        if img is None:  # the same words are drawn every frame: rendered once
            if len(self._rendered) > 2000:
                self._rendered.clear()
            img = self._rendered[key] = self.render(f, s, colour)
        r = img.get_rect(**{anchor: self.P(*pos)})
        self.surface.blit(img, r)
        self.drawn.append(Drawn(r, s, self._real_cap(f), cut))
        return r

    def _real_cap(self, f) -> int:
        """The capital height a font draws, in real pixels (kept per font)."""
        cap = self._caps.get(id(f))
        if cap is None:
            m = f.get_metrics("H")[0]
            cap = self._caps[id(f)] = round(m[3] - m[2])
        return cap

    def lines(self, s: str, width: float, cap: float, bold: bool = False) -> list[str]:
        """``s`` broken into lines that fit ``width`` layout pixels at ``cap``."""
        out, cur = [], ""
        for word in s.split():
            trial = (cur + " " + word).strip()
            if self.width_of(trial, cap, bold) <= width or not cur:
                cur = trial
            else:
                out.append(cur)
                cur = word
        if cur:
            out.append(cur)
        return out

    def wrap(
        self,
        s: str,
        rect,
        cap: float = theme.CAP_BODY,
        colour=TEXT,
        bold: bool = False,
        max_lines: int = 3,
    ) -> float:
        """Draw ``s`` word-wrapped into the layout ``rect`` (x, y, w, h); returns the bottom y
        (layout). Lines past ``max_lines`` are dropped and the last one ends with "..."."""
        x, y, w, _h = rect
        ls = self.lines(s, w, cap, bold)
        cut = len(ls) > max_lines
        if cut:
            ls = ls[:max_lines]
            ls[-1] = ls[-1].rstrip(".") + "..."
        step = self.line_h(cap, bold)
        for line in ls:
            self.text(line, (x, y), cap, colour, bold, max_w=w)
            y += step
        if cut and self.drawn:
            self.drawn[-1].cut = True
        return y

    def wrapped_h(
        self, s: str, width: float, cap: float, bold: bool = False, max_lines: int = 3
    ) -> float:
        """The height :meth:`wrap` takes, in layout pixels."""
        return min(max_lines, len(self.lines(s, width, cap, bold))) * self.line_h(cap, bold)

    # ------------------------------------------------------------------ shapes
    def box(self, rect, colour, radius: int = 10, width: int = 0):
        """A rounded box at the layout ``rect``; returns the real rect."""
        r = self.R(*rect) if not isinstance(rect, self.pg.Rect) else rect
        k = self.k
        return self.pg.draw.rect(
            self.surface,
            colour,
            r,
            round(width * k) if width else 0,
            border_radius=round(radius * k),
        )

    def cover(self, real_rect) -> None:
        """An overlay hides what is under ``real_rect``: forget the text and pictures drawn
        wholly under it; text it hides only in part goes to :attr:`clipped` (a layout fault)."""
        under, kept = [], []
        for d in self.drawn:
            (under if d.rect.colliderect(real_rect) else kept).append(d)
        self.clipped += [d for d in under if not real_rect.contains(d.rect)]
        self.drawn = kept
        self.images = [r for r in self.images if not r.colliderect(real_rect)]
        self.hits = [(r, t) for r, t in self.hits if not r.colliderect(real_rect)]

    def image(self, img, real_pos) -> object:
        """Blit a picture at real pixel ``real_pos`` (top left); kept in :attr:`images`."""
        r = self.surface.blit(img, real_pos)
        self.images.append(r)
        return r

    def hit_area(self, rect, target) -> None:
        """Make the layout ``rect`` (or a real Rect) answer taps with ``target``."""
        r = self.R(*rect) if not isinstance(rect, self.pg.Rect) else rect
        self.hits.append((r, target))

    # -------------------------------------------------------------------- dice
    def dice_set(self, set_id: str):
        if set_id not in self._sets:
            from vision import dicesets

            self._sets[set_id] = dicesets.load(set_id)
        return self._sets[set_id]

    def die_image(self, set_id: str, die: str | None, face: str | None, px: int):
        """A die face of ``px`` real pixels, drawn by vision.faceart from the dice-set data."""
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
                surf = pg.image.frombuffer(
                    rgb.tobytes(), (rgb.shape[1], rgb.shape[0]), "RGB"
                ).copy()
            except (ImportError, KeyError, ValueError):  # no face art for it: draw it in words
                surf = None
        if surf is None:
            surf = pg.Surface((px, px), pg.SRCALPHA)
            body = (90, 96, 108)
            if die is not None:
                with contextlib.suppress(KeyError, ValueError):
                    body = self.dice_set(set_id).die(die).body_rgb
            pg.draw.rect(surf, body, (0, 0, px, px), border_radius=px // 6)
            label = face if face is not None else "?"
            f = self._font_px(max(14, px // 2 if len(label) < 3 else px // 3), True)
            img = self.render(f, label, TEXT)
            surf.blit(img, img.get_rect(center=(px // 2, px // 2)))
        self._dice[key] = surf
        return surf

    # ------------------------------------------------------------------- frame
    def present(self):
        """Show the frame (a no-op when headless)."""
        if not self.headless:
            self.pg.display.flip()

    def save(self, path) -> Path:
        """Write what the window shows to a PNG file."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.pg.image.save(self.window, str(path))
        return path

    def hit(self, pos) -> tuple | None:
        """What a tap at real pixel ``pos`` lands on: ("player", seat), ("choice", i),
        ("die", i), ("button", name), ("start", row, +1/-1/0), or None."""
        for rect, target in reversed(self.hits):
            if rect.collidepoint(pos):
                return target
        return None

    def draw(self, view) -> None:
        """Draw any view (View, StartView, SetupView, HowToView, HistoryView, the capture's
        CaptureView and TeachView) and present it."""
        self.hits = []
        self.drawn = []
        self.images = []
        self.clipped = []
        self.surface.fill(theme.BG)
        if isinstance(view, StartView):
            self._cue_seen = None
            draw_menus.draw_start(self, view)
        elif isinstance(view, SetupView):
            draw_menus.draw_setup(self, view)
        elif isinstance(view, HowToView):
            draw_menus.draw_howto(self, view)
        elif isinstance(view, capture.CaptureView):
            capture.draw_capture(self, view)
        elif isinstance(view, capture.TeachView):
            capture.draw_teach(self, view)
        elif type(view).__name__ == "HistoryView":  # tray/screen/history_screen.py
            draw_history(self, view)
        elif view.screen == "end":
            draw_end.draw_end(self, view)
        else:
            draw_play.draw_play(self, view)
        if hasattr(view, "cue_count"):
            self._sound_for(view)
        self.present()

    def _sound_for(self, view) -> None:
        """Play the view's cue once, when the journal has grown since the last view."""
        seen, self._cue_seen = self._cue_seen, view.cue_count
        if seen is None or view.cue_count <= seen or not view.cue or not self._sound_on:
            return
        if self._sounds is None:
            self._sounds = Sounds()
        self._sounds.play(view.cue)
