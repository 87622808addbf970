"""The phone page and its API, as a Starlette application (served by uvicorn in
``tray.net.server``).

=====================  =====================================================================
``GET /``              the page: scoreboard, turn, last roll, running total, odds, log,
                       history; it follows the game on the WebSocket, with no reload
``GET /api/state``     the table as JSON (``Authorization: Bearer TOKEN``: with ``you``, the
                       seat's own part)
``GET /api/history``   the table's past games
``POST /api/claim``    ``{"seat": 0, "code": "123456"}`` -> ``{"token", "seat", "name"}``
``POST /api/press``    ``{"long": false}`` with the token: the seat's button
``POST /api/release``  give the seat back
``WS /ws``             pushes ``{"type": "state", "state": {...}}`` at every change; takes
                       ``hello`` (token), ``claim``, ``press``, ``release`` messages
=====================  =====================================================================

Everything from outside is checked (size, type, keys, rate) and refused with a one-line
``{"error": ...}``; nothing refused changes the table. The page loads nothing but this
server's own files (Content-Security-Policy ``default-src 'self'``), and a WebSocket from a
page of another address is refused.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import OrderedDict
from importlib import resources

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from tray.net.claims import ClaimError
from tray.net.hub import Hub

MAX_BODY = 1024  # bytes of a request body or a WebSocket message
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_SECURITY = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}
_STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/app.css": ("app.css", "text/css; charset=utf-8"),
}
_WS_KEYS = {
    "hello": ({"type", "token"}, {"type"}),
    "press": ({"type", "long"}, {"type"}),
    "claim": ({"type", "seat", "code"}, {"type", "seat", "code"}),
    "release": ({"type"}, {"type"}),
}


class Bucket:
    """A token bucket: ``rate`` per second, at most ``burst`` at once.

    >>> b = Bucket(rate=1, burst=2, now=0.0)
    >>> [b.take(0.0), b.take(0.0), b.take(0.0), b.take(1.0)]
    [True, True, False, True]
    """

    def __init__(self, rate: float, burst: float, now: float | None = None):
        self.rate, self.burst = rate, burst
        self.level = burst
        self.at = time.monotonic() if now is None else now

    def take(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self.level = min(self.burst, self.level + max(0.0, now - self.at) * self.rate)
        self.at = now
        if self.level >= 1:
            self.level -= 1
            return True
        return False


class Limits:
    """Token buckets per client address (the oldest forgotten past ``size``)."""

    def __init__(self, rate: float, burst: float, size: int = 1024):
        self.rate, self.burst, self.size = rate, burst, size
        self._b: OrderedDict[str, Bucket] = OrderedDict()

    def take(self, who: str) -> bool:
        b = self._b.pop(who, None) or Bucket(self.rate, self.burst)
        self._b[who] = b
        while len(self._b) > self.size:
            self._b.popitem(last=False)
        return b.take()


def _static(name: str) -> str:
    return resources.files("tray.net").joinpath("static", name).read_text(encoding="utf-8")


def error(text: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status, headers=_SECURITY)


def _ok(data, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers=_SECURITY)


def check_message(data, kinds: dict) -> str | None:
    """Why a decoded message is refused (None: its form is right). ``kinds``: type ->
    (allowed keys, required keys).

    >>> check_message({"type": "press", "seat": 2}, _WS_KEYS)
    "a press message takes no key 'seat': a phone presses only for its own seat"
    """
    if not isinstance(data, dict):
        return "send a JSON object"
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in kinds:
        return f"unknown message type: use one of {', '.join(sorted(kinds))}"
    allowed, required = kinds[kind]
    extra = sorted(set(data) - allowed)
    if extra:
        if extra[0] == "seat":
            return f"a {kind} message takes no key 'seat': a phone presses only for its own seat"
        return f"a {kind} message takes no key {extra[0][:40]!r}"
    gone = sorted(required - set(data))
    if gone:
        return f"a {kind} message needs {gone[0]!r}"
    if "long" in data and not isinstance(data["long"], bool):
        return '"long" is true or false'
    if "token" in data and not (data["token"] is None or isinstance(data["token"], str)):
        return '"token" is the text the claim gave'
    if kind == "claim":
        if type(data["seat"]) is not int:
            return '"seat" is a seat number (0 for the first seat)'
        if not isinstance(data["code"], str):
            return '"code" is the 6 digits the tray shows, as text'
    return None


def decode(raw: bytes | str) -> tuple[object, str | None]:
    """JSON from a body or message of at most MAX_BODY bytes: (data, None) or (None, why)."""
    if len(raw) > MAX_BODY:
        return None, f"too long: at most {MAX_BODY} bytes"
    try:
        return json.loads(raw), None
    except (ValueError, RecursionError):
        return None, "not valid JSON"


def create_app(hub: Hub) -> Starlette:
    """The application serving ``hub``'s table."""
    api = _Api(hub)
    routes = [Route(path, api.page) for path in _STATIC]
    routes += [
        Route("/qr.svg", api.qr),
        Route("/api/state", api.state),
        Route("/api/history", api.history),
        Route("/api/claim", api.claim, methods=["POST"]),
        Route("/api/press", api.press, methods=["POST"]),
        Route("/api/release", api.release, methods=["POST"]),
        WebSocketRoute("/ws", api.ws),
    ]
    return Starlette(routes=routes)


def _who(conn) -> str:
    return conn.client.host if conn.client else "?"


class _Api:
    """The endpoints of :func:`create_app`, each request checked and rate-limited."""

    def __init__(self, hub: Hub):
        self.hub = hub
        self.pages = {path: (_static(name), kind) for path, (name, kind) in _STATIC.items()}
        self.reads = Limits(rate=20, burst=40)
        self.writes = Limits(rate=5, burst=10)
        # a wrong code costs a try: 5 at once, then 1 per 5 s
        self.claims_ip = Limits(rate=0.2, burst=5)

    def seat_of(self, request: Request) -> int | None:
        auth = request.headers.get("authorization", "")
        if not auth.startswith("Bearer "):
            return None
        return self.hub.claims.seat_of(auth[7:].strip())

    async def page(self, request: Request) -> Response:
        if not self.reads.take(_who(request)):
            return error("too many requests: slow down", 429)
        body, kind = self.pages[request.url.path]
        return Response(body, media_type=kind, headers=_SECURITY)

    async def qr(self, request: Request) -> Response:
        import segno

        if not self.reads.take(_who(request)):
            return error("too many requests: slow down", 429)
        url = self.hub.join_url or str(request.base_url)
        svg = segno.make(url, error="m").svg_inline(scale=6, dark="#000", light="#fff")
        return Response(svg, media_type="image/svg+xml", headers=_SECURITY)

    async def state(self, request: Request) -> Response:
        if not self.reads.take(_who(request)):
            return error("too many requests: slow down", 429)
        return _ok(self.hub.view(self.seat_of(request)))

    async def history(self, request: Request) -> Response:
        if not self.reads.take(_who(request)):
            return error("too many requests: slow down", 429)
        return _ok({"games": self.hub.history})

    async def body_of(self, request: Request, bucket: Limits) -> tuple[object, Response | None]:
        if not bucket.take(_who(request)):
            return None, error("too many requests: slow down", 429)
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            return None, error("send the body as application/json", 415)
        size = request.headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
            return None, error(f"too long: at most {MAX_BODY} bytes", 413)
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                return None, error(f"too long: at most {MAX_BODY} bytes", 413)
        data, why = decode(raw)
        if why:
            return None, error(why)
        return data, None

    async def claim(self, request: Request) -> Response:
        data, bad = await self.body_of(request, self.claims_ip)
        if bad is not None:
            return bad
        why = check_message({"type": "claim", **data} if isinstance(data, dict) else data, _WS_KEYS)
        if isinstance(data, dict) and "type" in data:
            why = 'the claim body is {"seat": N, "code": "123456"}'
        if why:
            return error(why)
        try:
            token = self.hub.claim(data["seat"], data["code"])
        except ClaimError as exc:
            return error(str(exc), 403)
        names = [p.get("name") for p in self.hub.snap.public.get("players", [])]
        seat = data["seat"]
        return _ok(
            {"token": token, "seat": seat, "name": names[seat] if seat < len(names) else None}
        )

    async def press(self, request: Request) -> Response:
        data, bad = await self.body_of(request, self.writes)
        if bad is not None:
            return bad
        why = check_message({"type": "press", **data} if isinstance(data, dict) else data, _WS_KEYS)
        if isinstance(data, dict) and "type" in data:
            why = 'the press body is {"long": false} (or true for a long press)'
        if why:
            return error(why)
        seat = self.seat_of(request)
        if seat is None:
            return error("this phone holds no seat: claim one with the code the tray shows", 401)
        self.hub.press(seat, data.get("long", False))
        return _ok({"queued": True, "seat": seat}, 202)

    async def release(self, request: Request) -> Response:
        if not self.writes.take(_who(request)):
            return error("too many requests: slow down", 429)
        auth = request.headers.get("authorization", "")
        if not auth.startswith("Bearer ") or not self.hub.claims.release(auth[7:].strip()):
            return error("this phone holds no seat", 401)
        return _ok({"released": True})

    async def ws(self, socket: WebSocket) -> None:
        origin = socket.headers.get("origin")
        host = socket.headers.get("host", "")
        if origin is not None and origin.split("://", 1)[-1] != host:
            await socket.close(code=1008)  # a page of another address: refused
            return
        await socket.accept()
        await Client(self.hub, socket).run()


class Client:
    """One WebSocket: the view pushed at every change, the phone's messages checked."""

    def __init__(self, hub: Hub, socket: WebSocket):
        self.hub = hub
        self.socket = socket
        self.token: str | None = None
        self.last = ""
        self.send_lock = asyncio.Lock()
        self.bucket = Bucket(rate=10, burst=20)
        self.refused = 0

    def seat(self) -> int | None:
        return self.hub.claims.seat_of(self.token) if self.token else None

    async def send(self, data: dict) -> None:
        async with self.send_lock:
            await self.socket.send_text(json.dumps(data, separators=(",", ":")))

    async def push(self, force: bool = False) -> None:
        """Send the view when it differs from the last one sent (``force``: anyway)."""
        seat = self.seat()
        if self.token and seat is None:
            self.token = None
            await self.send({"type": "released"})
        text = self.hub.view_text(seat)
        async with self.send_lock:
            if force or text != self.last:
                self.last = text
                await self.socket.send_text(text)

    async def pusher(self) -> None:
        while True:
            ev = self.hub.changed()
            await self.push()
            await ev.wait()

    async def run(self) -> None:
        task = asyncio.create_task(self.pusher())
        try:
            while True:
                msg = await self.socket.receive()
                if msg["type"] == "websocket.disconnect":
                    return
                raw = msg.get("text")
                if raw is None:
                    await self.send({"type": "error", "error": "send JSON text, not binary"})
                    continue
                if not self.bucket.take():
                    self.refused += 1
                    if self.refused > 100:
                        await self.socket.close(code=1008)
                        return
                    await self.send({"type": "error", "error": "too many messages: slow down"})
                    continue
                await self.handle(raw)
        except WebSocketDisconnect:
            return
        finally:
            task.cancel()

    async def handle(self, raw: str) -> None:
        data, why = decode(raw)
        if why is None:
            why = check_message(data, _WS_KEYS)
        if why is not None:
            await self.send({"type": "error", "error": why})
            return
        kind = data["type"]
        if kind == "hello":
            token = data.get("token")
            if token and self.hub.claims.seat_of(token) is None:
                await self.send({"type": "released"})
                token = None
            self.token = token or None
            await self.push(force=True)  # a hello is answered with the state
            return
        elif kind == "claim":
            try:
                self.token = self.hub.claim(data["seat"], data["code"])
            except ClaimError as exc:
                await self.send({"type": "error", "error": str(exc)})
                return
            await self.send({"type": "claimed", "token": self.token, "seat": data["seat"]})
        elif kind == "press":
            seat = self.seat()
            if seat is None:
                await self.send(
                    {
                        "type": "error",
                        "error": "this phone holds no seat: claim one with the code the tray shows",
                    }
                )
                return
            self.hub.press(seat, data.get("long", False))
        elif kind == "release":
            if self.token:
                self.hub.claims.release(self.token)
            self.token = None
        await self.push()
