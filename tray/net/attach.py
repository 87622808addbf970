"""The glue between a table's game loop and the network: ``dicetray play --web/--broker`` and
``dicetray demo --web/--broker`` make one :class:`NetTable` and hand it every game's session.

Each loop turn the session calls :meth:`NetTable.pump` (the phones' presses go into the
session's button queue as :class:`PhonePress` events, where GPIO presses go, and through the
same ButtonMapper to ``Table.press``) and :meth:`NetTable.update` (a new snapshot for the
phones and the broker when anything visible changed).

>>> net = NetTable(web=None, broker=None)          # neither: nothing is served or published
>>> net.start().join_info(0.0) is None
True
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tray.net import require
from tray.net.claims import Claims
from tray.net.hub import Hub
from tray.net.mqtt import JournalTail
from tray.net.netconfig import BrokerConfig, parse_listen, table_name
from tray.net.view import Snapshot, snapshot

SNAPSHOT_EVERY_S = 0.03  # a snapshot at most this often, unless the journal grew
REBUILD_S = 1.0  # a snapshot at least this often (what the quick marks may miss: timers)
MAX_SEATS = 10
_CODE_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I


@dataclass(frozen=True)
class PhonePress:
    """A press of a seat's button on a claimed phone, in the button queue beside GPIO presses
    (``long``: held; a phone's press is decided when sent, like a key's)."""

    player: int
    time: float
    long: bool = False
    source: str = "phone"


def short_code(rng: random.Random | None = None) -> str:
    """A 4-character table code (no look-alike letters).

    >>> len(short_code(random.Random(0)))
    4
    """
    rng = rng or random.SystemRandom()
    return "".join(rng.choice(_CODE_CHARS) for _ in range(4))


class NetTable:
    """A table on the network: the phone page (``web`` = "HOST:PORT") and/or the broker
    (``broker``: a BrokerConfig with its url). ``name``: the table's name on the broker and
    on the page (default: [broker] table, else a short code). ``url``: the address the QR
    code gives (default: http://<this machine's name>.local:PORT/ when listening on every
    address). ``claim_s``: seconds a seat code lasts. ``clock``: seconds for code expiry."""

    def __init__(
        self,
        web: str | None,
        broker: BrokerConfig | None,
        name: str | None = None,
        url: str = "",
        claim_s: float = 120.0,
        journal_dir: str | Path | None = None,
        clock=None,
    ):
        self.web = web or None
        self.broker = broker if broker is not None and broker.url else None
        if self.web:
            parse_listen(self.web)
            require("--web")
        if self.broker is not None:
            require("--broker", ("paho",))
        self.name = table_name(name or (self.broker.table if self.broker else "") or short_code())
        self.url = url
        self.clock = clock or time.monotonic
        self.claims = Claims(MAX_SEATS, ttl=claim_s)
        self.hub = Hub(self.claims, clock=self.clock, table=self.name)
        self.hub.seats = 0
        self.journal_dir = Path(journal_dir) if journal_dir is not None else None
        self.server = None
        self.publisher = None
        self.tail: JournalTail | None = None
        self.journal = None
        self._odds: tuple[int, list] = (-1, [])
        self._built_at = -1.0
        self._events_at_build = -1
        self._key = ""
        self._mark: tuple = ()
        self._qr: tuple[str, list[str]] = ("", [])
        self.updates = 0

    # ------------------------------------------------------------------ start and stop
    def start(self) -> NetTable:
        if self.web:
            from tray.net.app import create_app
            from tray.net.server import WebServer

            host, port = parse_listen(self.web)
            self.server = WebServer(create_app(self.hub), host, port).start()
            self.hub.join_url = self.url or _join_url(host, self.server.port)
        if self.broker is not None:
            from tray.net.mqtt import Publisher

            cfg = BrokerConfig(
                self.broker.url, self.name, self.broker.username, self.broker.password
            )
            self.publisher = Publisher(cfg).start()
        return self

    def close(self, flush_s: float = 5.0) -> None:
        """Stop serving; the broker first gets up to ``flush_s`` seconds to acknowledge
        every record."""
        if self.publisher is not None:
            self.publisher.flush(flush_s)
            self.publisher.stop()
            self.publisher = None
        if self.server is not None:
            self.server.stop()
            self.server = None

    @property
    def port(self) -> int | None:
        return self.server.port if self.server is not None else None

    # ------------------------------------------------------------------ the games
    def attach(self, session) -> None:
        """A new game's session: its journal is followed, its seats offered to phones."""
        session.net = self
        self.hub.presses()  # presses made between games (the start screen) are not this game's
        journal = session.table.journal
        self.journal = journal
        self.hub.seats = len(session.table.players)
        path = getattr(journal, "path", None)
        self.tail = JournalTail(path) if path is not None else None
        if self.publisher is not None and path is not None:
            self.publisher.follow(path, journal.game_id)
        self._key, self._built_at, self._events_at_build = "", -1.0, -1
        if self.journal_dir is not None and self.server is not None:
            threading.Thread(target=self._read_history, daemon=True).start()
        self.update(session, 0.0, force=True)

    def _read_history(self) -> None:
        from tray.history import history, read_folder

        try:
            games = history(read_folder(self.journal_dir)[0])["all_games"]
        except (OSError, ValueError, KeyError):
            return
        self.hub.history = [
            {k: g[k] for k in ("file", "game", "time", "players", "scores", "finished", "winners")}
            for g in sorted(games, key=lambda g: str(g.get("time")), reverse=True)[:20]
        ]

    def events(self) -> int:
        """Journal records so far (header excluded)."""
        if self.tail is not None:
            self.tail.poll()
            return len(self.tail.records)
        return len(getattr(self.journal, "events", []) or [])

    # ------------------------------------------------------------------ each loop turn
    def pump(self, session, t: float) -> int:
        """The phones' presses into the session's button queue; how many."""
        presses = self.hub.presses()
        for seat, long in presses:
            if 0 <= seat < len(session.table.players):
                session.events.put(PhonePress(seat, t, long))
        return len(presses)

    def update(self, session, t: float, force: bool = False) -> bool:
        """A new snapshot for the phones and the broker when something visible changed."""
        wall = time.monotonic()
        n = self.events()
        table = session.table
        mark = (n, _marks(table), self.claims.version)
        if not force and mark == self._mark and wall - self._built_at < REBUILD_S:
            return False  # nothing a viewer sees has changed (checked in full once a second)
        if not force and n == self._events_at_build and wall - self._built_at < SNAPSHOT_EVERY_S:
            return False
        self._built_at, self._events_at_build, self._mark = wall, n, mark
        if self._odds[0] != n:
            from tray.net.view import _odds

            self._odds = (n, _odds(table.state))
        snap = snapshot(
            table,
            events=n,
            table_code=self.name,
            phones=self.claims.claimed(),
            odds=self._odds[1],
        )
        snap.public["journal"] = self.tail.path.name if self.tail is not None else None
        key = snap.key()
        if key == self._key:
            return False
        self._key = key
        self.updates += 1
        self.hub.publish(snap)
        if self.publisher is not None:
            self.publisher.set_state(snap.public)
        return True

    def last(self) -> Snapshot:
        return self.hub.snap

    def join_info(self, now: float | None = None) -> dict | None:
        """What the tray's screen shows for joining: the address, its QR code (rows of "1"
        and "0"), the table code and each seat's code; None without the phone page."""
        if self.server is None:
            return None
        now = self.clock() if now is None else now
        url = self.hub.join_url
        if self._qr[0] != url:
            import segno

            rows = [
                "".join("1" if v & 1 else "0" for v in row)
                for row in segno.make(url, error="m").matrix
            ]
            self._qr = (url, rows)
        names = [p.get("name") for p in self.hub.snap.public.get("players", [])]
        phones = set(self.claims.claimed())
        seats = [
            {"seat": i, "name": names[i], "code": self.claims.code(i, now), "phone": i in phones}
            for i in range(min(self.hub.seats, len(names)))
        ]
        return {"url": url, "table": self.name, "qr": self._qr[1], "seats": seats}

    def wait(self, seconds: float) -> None:
        """Keep serving (and publishing) ``seconds`` more, e.g. after the game ended."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if self.publisher is not None:
                self.publisher.kick()
            time.sleep(min(0.1, max(0.0, end - time.monotonic())))


def _marks(table) -> tuple:
    """Quick marks of what a viewer may see change between journal records: hidden choices
    made (and by whom), the countdown, highlighted choices, a menu, a correction, a message."""
    m, c, sv = table.menu, table.correction, table.saves
    return (
        len(table.log),
        tuple(sorted(table.secret.items())),
        table.countdown_from,
        tuple(sorted(table.highlight.items())),
        None if m is None else (id(m), m.focus, m.answer, m.asking is not None),
        None if c is None else (id(c), c.selected, tuple(getattr(x, "index", 0) for x in c.slots)),
        None if sv is None else (id(sv), sv.focus, tuple(sorted(sv.keep))),
        table.message.text if table.message is not None else None,
        table.revealed is not None,
    )


def _join_url(host: str, port: int) -> str:
    """The address phones open: the listening address, or this machine's .local name when it
    listens on every address."""
    import socket

    if host in ("0.0.0.0", "::", ""):
        host = socket.gethostname().split(".")[0] + ".local"
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def net_from_options(
    web: str | None,
    broker: str | None,
    table: str | None = None,
    cfg=None,
    journal_dir: str | Path | None = None,
) -> NetTable | None:
    """The NetTable ``--web`` / ``--broker`` / ``--table`` and the config's ``[web]`` /
    ``[broker]`` ask for (the command line wins), started; None when neither asks. Raises
    ValueError on a bad value and tray.net.MissingExtra without the ``web`` extra."""
    web_cfg = getattr(cfg, "web", None)
    broker_cfg = getattr(cfg, "broker", None) or BrokerConfig()
    listen = web or (web_cfg.listen if web_cfg is not None else "")
    url = broker or broker_cfg.url
    if not listen and not url:
        return None
    b = BrokerConfig(url, table or broker_cfg.table, broker_cfg.username, broker_cfg.password)
    if url:
        from tray.net.netconfig import parse_broker_url

        parse_broker_url(url)
    net = NetTable(
        listen or None,
        b if url else None,
        name=table or broker_cfg.table or None,
        url=web_cfg.url if web_cfg is not None else "",
        claim_s=web_cfg.claim_s if web_cfg is not None else 120,
        journal_dir=journal_dir,
    )
    return net.start()


def describe(net: NetTable) -> list[str]:
    """Lines saying where the table can be reached (printed at start)."""
    out = []
    if net.server is not None:
        out.append(f"phones: {net.hub.join_url} (table {net.name})")
    if net.publisher is not None:
        p = net.publisher
        out.append(
            f"broker: mqtt://{p.host}:{p.port}, topics dicetray/{net.name}/events and /state"
        )
    return out
