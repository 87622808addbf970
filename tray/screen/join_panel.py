"""The phones' corner of the play screen (``dicetray play --web``): a QR code of the phone
page, the table code and each free seat's claim code, below the scoreboard.

The view carries it as plain data (``View.join``, from tray/net/attach.py): the QR code as rows
of "1" and "0", so this module draws it with pygame alone.
"""

from __future__ import annotations

from tray.screen import theme as th

MAX_SEAT_LINES = 5


def join_height(d, join: dict | None) -> float:
    """Layout pixels the panel takes below the scoreboard (0: no panel)."""
    if not join:
        return 0.0
    free = [s for s in join.get("seats", []) if not s.get("phone")]
    lines = 1 + min(len(free), MAX_SEAT_LINES)
    return max(104.0, lines * (d.line_h(th.CAP_SMALL) + 2) + 12)


def draw_join(d, join: dict, x: float, y: float, w: float, h: float) -> None:
    """The panel at (x, y, w, h): QR code left, the table and seat codes right."""
    d.box((x, y, w, h), th.PANEL, radius=8)
    rows = join.get("qr") or []
    side = min(h - 8, 100.0)
    if rows:
        real = d.R(x + 4, y + (h - side) / 2, side, side)
        key = ("qr", tuple(rows), real.width)
        img = d._rendered.get(key)
        if img is None:
            pg = d.pg
            n = len(rows) + 2  # a quiet zone of one module around the code
            small = pg.Surface((n, n))
            small.fill((255, 255, 255))
            for r, row in enumerate(rows):
                for c, bit in enumerate(row):
                    if bit == "1":
                        small.set_at((c + 1, r + 1), (0, 0, 0))
            img = pg.transform.scale(small, (real.width, real.width))
            d._rendered[key] = img
        d.image(img, real.topleft)
    tx, tw = x + side + 12, w - side - 18
    lh = d.line_h(th.CAP_SMALL) + 2
    ty = y + 6
    d.text(f"Table {join.get('table', '')}", (tx, ty), th.CAP_SMALL, th.BLUE, bold=True, max_w=tw)
    free = [s for s in join.get("seats", []) if not s.get("phone")]
    for s in free[:MAX_SEAT_LINES]:
        ty += lh
        code = str(s.get("code", ""))
        d.text(
            f"{s.get('name', '')} {code[:3]} {code[3:]}", (tx, ty), th.CAP_SMALL, th.TEXT, max_w=tw
        )
