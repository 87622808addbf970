"""The coloured header bar every screen shares (game title, whose turn it is, the round).

>>> from tray.screen.chrome import header   # used by draw_play and draw_menus
"""

from __future__ import annotations

from tray.screen import theme as th
from tray.screen.theme import HEADER_H


def header(
    d, title: str, game_id: str, right: str, turn: str | None = None, turn_colour=None
) -> None:
    """The coloured bar: game title, whose turn it is (in their colour), the round."""
    w = d.width
    d.box((0, 0, w, HEADER_H), th.GAME_COLOURS.get(game_id, th.BLUE), radius=0)
    mid = HEADER_H / 2
    room = w - 28  # the title takes what the round (and the turn) leave it
    if turn:
        room = w * 0.3
    elif right:
        room = w - 56 - min(w * 0.26, d.width_of(right, th.CAP_BODY))
    tr = d.text(title, (14, mid), th.CAP_TITLE, th.TEXT, bold=True, anchor="midleft", max_w=room)
    rr = d.text(right, (w - 14, mid), th.CAP_BODY, th.TEXT, anchor="midright", max_w=w * 0.26)
    if turn:
        left, right_x = tr.right / d.k + 16, rr.left / d.k - 16
        label, cap = d.fit(f"{turn}'s turn", th.CAP_BODY, right_x - left - 28, bold=True)
        pw = d.width_of(label, cap, True) + 28
        px = left + max(0.0, (right_x - left - pw) / 2)
        colour = turn_colour or th.GOLD
        d.box((px, 8, pw, HEADER_H - 16), colour, radius=(HEADER_H - 16) // 2)
        d.text(label, (px + pw / 2, mid), cap, th.ink_on(colour), bold=True, anchor="center")
