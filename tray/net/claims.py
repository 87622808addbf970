"""Seat claims: a phone becomes a player's button by typing the code the tray shows for that
seat.

Every seat has a 6-digit code on the tray's screen. A code works once and for ``ttl`` seconds;
a used, expired or thrice-mistyped code is replaced by a fresh one. A claim hands the phone a
token (a long random string) bound to that seat alone: presses carry no seat of their own, so a
phone can only press for the seat its token names. Claiming a seat again (a new phone) revokes
the old token. Time comes from the caller, so tests drive it by hand.

>>> import random
>>> claims = Claims(2, ttl=60, rng=random.Random(1))
>>> code = claims.code(1, now=0.0)
>>> token = claims.claim(1, code, now=5.0)
>>> claims.seat_of(token), claims.claimed()
(1, [1])
>>> claims.claim(1, code, now=6.0)            # single use  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tray.net.claims.ClaimError: that code is not the one on the tray for seat 2 (used or mistyped): ...
"""

from __future__ import annotations

import functools
import hmac
import random
import secrets
import threading

CODE_DIGITS = 6
MAX_MISSES = 3  # wrong codes for one seat before its code is replaced


def _locked(method):
    """Run the method under the claims' lock (the web thread and the game loop share them)."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    return run


class ClaimError(ValueError):
    """A claim refused: the message says why, in words for the phone."""


class Claims:
    """The seats' codes and the tokens of claimed seats.

    ``seats``: how many seats; ``ttl``: seconds a code lasts; ``rng``: for tests (default: the
    operating system's secure random numbers)."""

    def __init__(self, seats: int, ttl: float = 120.0, rng: random.Random | None = None):
        self.seats = seats
        self.ttl = float(ttl)
        self._rng = rng or secrets.SystemRandom()
        self._codes: dict[int, tuple[str, float]] = {}  # seat -> (code, made at)
        self._misses: dict[int, int] = {}
        self._tokens: dict[str, int] = {}  # token -> seat
        self._lock = threading.RLock()
        self.version = 0  # grows whenever a code or a claim changes (the screen redraws)

    def _fresh(self, seat: int, now: float) -> str:
        code = "".join(str(self._rng.randrange(10)) for _ in range(CODE_DIGITS))
        self._codes[seat] = (code, now)
        self._misses[seat] = 0
        self.version += 1
        return code

    @_locked
    def code(self, seat: int, now: float) -> str:
        """The code the tray shows for ``seat`` now (a new one once the old has expired)."""
        if not 0 <= seat < self.seats:
            raise ClaimError(f"there is no seat {seat + 1}")
        cur = self._codes.get(seat)
        if cur is None or now - cur[1] >= self.ttl or now < cur[1]:
            return self._fresh(seat, now)
        return cur[0]

    @_locked
    def codes(self, now: float) -> list[str]:
        """Every seat's current code, in seat order."""
        return [self.code(s, now) for s in range(self.seats)]

    @_locked
    def expires_in(self, seat: int, now: float) -> float:
        cur = self._codes.get(seat)
        return 0.0 if cur is None else max(0.0, cur[1] + self.ttl - now)

    @_locked
    def claim(self, seat: int, code: str, now: float) -> str:
        """Trade the seat's code for a token (ClaimError when refused: wrong, used or expired
        code, no such seat). The previous phone of that seat loses its token."""
        if type(seat) is not int or not 0 <= seat < self.seats:
            raise ClaimError(f"there is no seat {seat!r}: seats are 1 to {self.seats}")
        if not isinstance(code, str) or not code.isdigit() or len(code) != CODE_DIGITS:
            raise ClaimError(f"a seat code is {CODE_DIGITS} digits, as the tray shows it")
        cur = self._codes.get(seat)
        if cur is None:
            raise ClaimError(
                f"that code is not the one on the tray for seat {seat + 1} (used or mistyped): "
                "type the code the tray shows now"
            )
        if now - cur[1] >= self.ttl or now < cur[1]:
            self._fresh(seat, now)
            raise ClaimError(
                f"that code has expired: type the new code the tray shows for seat {seat + 1}"
            )
        if not hmac.compare_digest(code, cur[0]):
            self._misses[seat] = self._misses.get(seat, 0) + 1
            if self._misses[seat] >= MAX_MISSES:
                self._fresh(seat, now)
                raise ClaimError(
                    f"{MAX_MISSES} wrong codes for seat {seat + 1}: the tray now shows a new one"
                )
            raise ClaimError(
                f"that code is not the one on the tray for seat {seat + 1} (used or mistyped): "
                "type the code the tray shows now"
            )
        del self._codes[seat]  # single use: the next call of code() makes a new one
        self.version += 1
        for tok, s in list(self._tokens.items()):
            if s == seat:
                del self._tokens[tok]
        token = secrets.token_urlsafe(24)
        self._tokens[token] = seat
        return token

    @_locked
    def seat_of(self, token) -> int | None:
        """The seat a token may press for, or None (no token, revoked, unknown)."""
        if not isinstance(token, str) or not token:
            return None
        for tok, seat in self._tokens.items():
            if hmac.compare_digest(tok.encode(), token.encode()):
                return seat
        return None

    @_locked
    def release(self, token: str) -> bool:
        """The phone gives its seat back (the seat's button works as before)."""
        seat = self.seat_of(token)
        if seat is None:
            return False
        self._tokens = {t: s for t, s in self._tokens.items() if s != seat}
        self.version += 1
        return True

    @_locked
    def claimed(self) -> list[int]:
        """Seats held by a phone now."""
        return sorted(set(self._tokens.values()))
