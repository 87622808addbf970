"""Between the game loop (one thread) and the web server (an asyncio loop in another): the
latest snapshot, a wake-up for the push channel, and the phones' presses on their way to the
button queue.

>>> hub = Hub(Claims(2))
>>> hub.view(None)["players"]
[]
>>> hub.press(1, long=False); hub.presses()
[(1, False)]
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import threading
import time
from collections.abc import Callable

from tray.net.claims import ClaimError, Claims
from tray.net.view import Snapshot, player_view

_EMPTY = Snapshot(
    {"players": [], "events": 0, "finished": False, "winner": None, "game": None, "turn": None}
)


class Hub:
    """The shared part of a table on the network. ``clock``: seconds for the seat codes'
    expiry (default: ``time.monotonic``)."""

    def __init__(self, claims: Claims, clock: Callable[[], float] | None = None, table: str = ""):
        self.claims = claims
        self.clock = clock or time.monotonic
        self.table = table
        self.join_url = ""
        self.seats = claims.seats  # seats of the game on the table (claims beyond: refused)
        self.history: list[dict] = []  # the table's past games (tray.history), newest first
        self._lock = threading.Lock()
        self._snap = _EMPTY
        self.version = 0
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()
        self.loop: asyncio.AbstractEventLoop | None = None
        self._event: asyncio.Event | None = None
        self._texts: dict = {}
        self._texts_of = -1

    # ------------------------------------------------------------------ game loop side
    def publish(self, snap: Snapshot) -> None:
        """A new snapshot (from the game loop): every connected phone is woken."""
        with self._lock:
            self._snap = snap
            self.version += 1
            loop = self.loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the server is shutting down
                loop.call_soon_threadsafe(self._wake)

    def presses(self) -> list[tuple[int, bool]]:
        """The phones' presses waiting (seat, long), oldest first; taking them empties it."""
        out = []
        while True:
            try:
                out.append(self._inbox.get_nowait())
            except queue.Empty:
                return out

    # ------------------------------------------------------------------ web side
    def claim(self, seat: int, code: str) -> str:
        """A phone's claim of ``seat`` with its code: the token (ClaimError when refused)."""
        if type(seat) is not int or not 0 <= seat < self.seats:
            raise ClaimError(
                f"there is no seat {seat!r} at this game: seats are 0 to {self.seats - 1}"
            )
        return self.claims.claim(seat, code, self.clock())

    def press(self, seat: int, long: bool) -> None:
        """A phone pressed the button of ``seat`` (already checked against its claim)."""
        self._inbox.put((seat, bool(long)))

    @property
    def snap(self) -> Snapshot:
        with self._lock:
            return self._snap

    def view(self, seat: int | None) -> dict:
        """What a viewer holding ``seat`` (None: watching) sees now."""
        return player_view(self.snap, seat)

    def view_text(self, seat: int | None) -> str:
        """The state message for ``seat`` as JSON text, made once per snapshot and seat."""
        with self._lock:
            snap, version = self._snap, self.version
            cache = self._texts if self._texts_of == version else {}
        text = cache.get(seat)
        if text is None:
            text = json.dumps(
                {"type": "state", "state": player_view(snap, seat)}, separators=(",", ":")
            )
            with self._lock:
                if self.version == version:
                    if self._texts_of != version:
                        self._texts, self._texts_of = {}, version
                    self._texts[seat] = text
        return text

    def changed(self) -> asyncio.Event:
        """An event set at the next snapshot (call inside the server's loop)."""
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
        if self._event is None:
            self._event = asyncio.Event()
        return self._event

    def _wake(self) -> None:
        ev, self._event = self._event, asyncio.Event()
        if ev is not None:
            ev.set()
