"""Colours and sizes of the screen, in one place.

Sizes are in *layout pixels*: a layout pixel is ``screen height / 480`` real pixels, so the
layout is drawn natively at every size (text is rendered at its real size, never scaled) and
the extra width of a 16:9 screen goes to the play area.

Why these sizes (the 7-inch panels are the smallest screens dicetray runs on):

* A 7" 800x480 panel shows 5.2 pixels per mm (a 1024x600 one 6.7). Text is read at about a
  metre. ``MIN_CAP`` = 16 layout pixels of capital height is 3.0 mm on both 7" panels: 10
  minutes of arc at 1 m, twice the letter size of 20/20 vision; only short labels and hints are
  that small. Names, scores and the prompt use 22-24 (4.2-4.6 mm, 15-16 arcmin, the size
  ISO 9241-303 asks for reading).
* ``TOUCH`` = 48 layout pixels is 9.2 mm on the 800x480 panel and 9.0 mm on the 1024x600 one:
  a fingertip.

>>> MIN_CAP, TOUCH, BASE_H
(16, 48, 480)
"""

from __future__ import annotations

BASE_H = 480  # layout pixels from top to bottom, at every screen size
MIN_CAP = 16  # the smallest capital height of any text (layout pixels)
TOUCH = 48  # the smallest side of anything a finger taps (layout pixels)

CAP_SMALL = MIN_CAP  # hints, labels, history cells
CAP_BODY = 20  # facts, events, choices
CAP_NAME = 22  # player names and scores
CAP_PROMPT = 24  # what the table waits for
CAP_TITLE = 24
CAP_BANNER = 40
CAP_HUGE = 56

HEADER_H = 52
FOOTER_H = 60

BG = (18, 24, 32)
PANEL = (30, 40, 54)
PANEL_HI = (52, 70, 96)
TEXT = (236, 240, 244)
DIM = (165, 176, 190)
GOLD = (250, 200, 60)
GREEN = (70, 200, 110)
RED = (235, 80, 70)
ORANGE = (245, 150, 40)
BLUE = (80, 150, 240)
BLACK = (0, 0, 0)

GAME_COLOURS = {
    "tally-up": (190, 40, 60),
    "toss-up": (35, 135, 75),
    "bank": (35, 100, 180),
    "diced-out": (130, 55, 160),
    "rollers": (105, 55, 185),
}
BANNER_COLOURS = {
    "bust": RED,
    "tally_up": GOLD,
    "diced_out": (160, 70, 200),
    "dicedout": (160, 70, 200),
    "zap": (250, 220, 40),
    "seven": RED,
    "round_over_seven": RED,
    "game_over": GREEN,
    "all_green": GREEN,
}
MESSAGE_COLOURS = {
    "camera": RED,
    "wrong_roll": ORANGE,
    "unreadable": ORANGE,
    "error": RED,
    "info": BLUE,
}


def ink_on(colour) -> tuple[int, int, int]:
    """Dark or light text, whichever reads on ``colour``."""
    r, g, b = colour[:3]
    return BG if (0.299 * r + 0.587 * g + 0.114 * b) > 150 else TEXT
