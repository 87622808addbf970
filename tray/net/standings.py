"""``dicetray standings``: every table on a broker on one page, for the organiser of a
tournament: live scores, whose turn, and the finished games with their winners.

It subscribes to ``dicetray/+/state`` (retained: a table's state arrives as soon as it is
subscribed) and ``dicetray/+/events``, and serves ``/`` (the page), ``/api/standings`` (JSON)
and ``/ws`` (pushed at every change) with the same server parts as the phone page.

    dicetray standings --broker mqtt://127.0.0.1:1883 --web 0.0.0.0:8090
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import uuid

from tray.net.hub import Hub
from tray.net.view import Snapshot

MAX_PAYLOAD = 1 << 20
MAX_TABLES = 500
KEEP_FINISHED = 200


class Standings:
    """What the broker says of every table; :meth:`handle` takes one MQTT message."""

    def __init__(self, hub: Hub | None = None):
        self.hub = hub
        self.tables: dict[str, dict] = {}
        self.finished: list[dict] = []  # newest first
        self._seen_finished: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def handle(self, topic: str, payload: bytes) -> bool:
        """One message; True when the standings changed. Anything malformed is ignored."""
        parts = topic.split("/")
        if len(parts) != 3 or parts[0] != "dicetray" or len(payload) > MAX_PAYLOAD:
            return False
        name, kind = parts[1], parts[2]
        try:
            data = json.loads(payload)
        except (ValueError, RecursionError):
            return False
        if not isinstance(data, dict):
            return False
        with self._lock:
            if name not in self.tables and len(self.tables) >= MAX_TABLES:
                return False
            t = self.tables.setdefault(name, {"table": name, "state": None, "events": 0})
            if kind == "events":
                i = data.get("index")
                if type(i) is int and (data.get("journal") != t.get("journal") or i > t["events"]):
                    t["events"], t["journal"] = i, data.get("journal")
                    return self._publish()
                return False
            if kind != "state":
                return False
            players = data.get("players")
            if not isinstance(players, list):
                return False
            t["state"] = {
                "game": data.get("game"),
                "title": data.get("title"),
                "players": [
                    {"name": str(p.get("name")), "score": p.get("score"), "active": p.get("active")}
                    for p in players
                    if isinstance(p, dict)
                ],
                "turn": data.get("turn"),
                "round": data.get("round"),
                "finished": bool(data.get("finished")),
                "winner": data.get("winner"),
                "events": data.get("events"),
            }
            t["journal"] = data.get("journal", t.get("journal"))
            if type(data.get("events")) is int:  # a subscriber that came late counts from here
                t["events"] = data["events"]
            t["updated"] = time.time()
            key = (name, str(data.get("journal")))
            if t["state"]["finished"] and key not in self._seen_finished:
                self._seen_finished.add(key)
                self.finished.insert(0, {"table": name, "journal": key[1], **t["state"]})
                del self.finished[KEEP_FINISHED:]
            return self._publish()

    def view(self) -> dict:
        tables = sorted(self.tables.values(), key=lambda t: t["table"])
        return {"players": [], "tables": tables, "finished_games": self.finished}

    def _publish(self) -> bool:
        if self.hub is not None:
            self.hub.publish(Snapshot(json.loads(json.dumps(self.view(), default=str))))
        return True


def create_standings_app(hub: Hub, standings: Standings):
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route, WebSocketRoute

    from tray.net.app import _SECURITY, Client, _ok, _static

    files = {
        "/": (_static("standings.html"), "text/html; charset=utf-8"),
        "/standings.js": (_static("standings.js"), "text/javascript; charset=utf-8"),
        "/app.css": (_static("app.css"), "text/css; charset=utf-8"),
    }

    async def page(request):
        body, kind = files[request.url.path]
        return Response(body, media_type=kind, headers=_SECURITY)

    async def api(request):
        return _ok(standings.view())

    async def ws(socket):
        origin = socket.headers.get("origin")
        if origin is not None and origin.split("://", 1)[-1] != socket.headers.get("host", ""):
            await socket.close(code=1008)
            return
        await socket.accept()
        await Client(hub, socket).run()

    routes = [Route(p, page) for p in files]
    routes += [Route("/api/standings", api), WebSocketRoute("/ws", ws)]
    return Starlette(routes=routes)


def main(argv: list[str]) -> int:
    """``dicetray standings --broker URL --web HOST:PORT [--config FILE] [--max-seconds S]``"""
    ap = argparse.ArgumentParser(
        prog="dicetray standings",
        description="Every table on an MQTT broker on one page: live scores and finished games.",
    )
    ap.add_argument("--broker", default=None, help="mqtt://HOST:PORT (default: [broker] url)")
    ap.add_argument("--web", default=None, help="HOST:PORT to serve the page on")
    ap.add_argument("--config", default=None, help="config file: [broker] login, [web] listen")
    ap.add_argument("--max-seconds", type=float, default=None, help="stop after this long")
    args = ap.parse_args(argv)
    from tray.app.config import ConfigError, load_config
    from tray.net import MissingExtra, require
    from tray.net.netconfig import parse_broker_url, parse_listen

    try:
        require("dicetray standings")
        cfg = load_config(args.config, required=args.config is not None)
        url = args.broker or cfg.broker.url
        listen = args.web or cfg.web.listen
        if not url or not listen:
            raise ValueError("give --broker mqtt://HOST:PORT and --web HOST:PORT")
        host, port = parse_broker_url(url)
        web_host, web_port = parse_listen(listen)
    except (MissingExtra, ConfigError, ValueError) as exc:
        print(f"dicetray standings: {exc}", file=sys.stderr)
        return 2
    import paho.mqtt.client as mqtt

    from tray.net.claims import Claims
    from tray.net.server import WebServer

    hub = Hub(Claims(0))
    hub.seats = 0
    standings = Standings(hub)
    client = mqtt.Client(
        mqtt.CallbackAPIVersion.VERSION2, client_id=f"dicetray-standings-{uuid.uuid4().hex[:8]}"
    )
    if cfg.broker.username:
        client.username_pw_set(cfg.broker.username, cfg.broker.password or None)

    def on_connect(c, userdata, flags, reason_code, properties=None):
        if not reason_code.is_failure:
            c.subscribe([("dicetray/+/state", 1), ("dicetray/+/events", 1)])
        else:
            print(f"dicetray standings: the broker refused: {reason_code}", file=sys.stderr)

    client.on_connect = on_connect
    client.on_message = lambda c, u, msg: standings.handle(msg.topic, msg.payload)
    client.reconnect_delay_set(0.2, 5)
    try:
        server = WebServer(create_standings_app(hub, standings), web_host, web_port).start()
    except OSError as exc:
        print(f"dicetray standings: {exc}", file=sys.stderr)
        return 1
    client.connect_async(host, port, keepalive=10)
    client.loop_start()
    print(f"standings: http://{web_host}:{server.port}/ following mqtt://{host}:{port}", flush=True)
    end = None if args.max_seconds is None else time.monotonic() + args.max_seconds
    try:
        while end is None or time.monotonic() < end:
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        client.loop_stop()
        server.stop()
    return 0
