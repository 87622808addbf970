"""The table on an MQTT broker (paho-mqtt): every journal record, in order, and the state.

Topics (``<table>``: the table's name, ``[broker] table``):

* ``dicetray/<table>/events``: one message per journal record (header excluded), QoS 1, as
  JSON ``{"index": N, "journal": FILE, "game": ID, "record": {...}}``. ``index`` counts the
  records of that journal from 1; a new game has a new ``journal``.
* ``dicetray/<table>/state``: the table's public state (no hidden choice), retained, QoS 1.

The records are read from the journal file itself (:class:`JournalTail`), after it is on
disk. A record counts as delivered once the broker acknowledged it; when the connection
drops (the broker restarts, the network goes) the table plays on, and on reconnect every
record from the first unacknowledged one is published again, in order. A subscriber that
drops messages whose ``(journal, index)`` it has seen gets every record once and in order;
duplicates only ever repeat an index. Run the broker with persistence and subscribe with a
persistent session (clean session off, QoS 1) to keep what arrives while a subscriber is
away or the broker restarts (docs/phones.md).
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
import uuid
from pathlib import Path

from tray.net.netconfig import BrokerConfig, parse_broker_url, table_name

MAX_RECORD = 1 << 20
WINDOW = 100  # records published and not yet acknowledged, at most


def topics(table: str) -> tuple[str, str]:
    """(events topic, state topic) of a table.

    >>> topics("t7")
    ('dicetray/t7/events', 'dicetray/t7/state')
    """
    return f"dicetray/{table}/events", f"dicetray/{table}/state"


class JournalTail:
    """The records of a journal file after its header, read as they reach the disk.

    ``poll()`` reads what was added since the last call: whole lines only (a line still being
    written waits for the next call), blank lines skipped, the checksum key dropped.

    >>> import tempfile, pathlib
    >>> from tray.layouts import default_layout
    >>> from tray.rules.journal import Journal
    >>> from tray.rules.engine import roll
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "g.jsonl"
    >>> j = Journal.create(path, "bank", ["Ann", "Ben"], {"rounds": 10}, default_layout("bank"))
    >>> tail = JournalTail(path)
    >>> _ = j.append(roll("d6:1", "d6:2")); _ = j.undo()
    >>> [(i, r["type"]) for i, r in tail.poll()]
    [(1, 'roll'), (2, 'undo')]
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.offset = 0
        self.header: dict | None = None
        self.records: list[dict] = []

    def poll(self) -> list[tuple[int, dict]]:
        new = []
        try:
            if os.stat(self.path).st_size == self.offset:
                return new  # nothing written since the last look
            with open(self.path, "rb") as f:
                f.seek(0, 2)
                size = f.tell()
                if size < self.offset:  # the file was cut back (a damaged tail replaced)
                    self.offset = 0
                    self.header, self.records = None, []
                f.seek(self.offset)
                while True:
                    raw = f.readline(MAX_RECORD + 1)
                    if not raw.endswith(b"\n"):
                        break  # a line still being written (or none)
                    self.offset += len(raw)
                    line = raw.strip(b"\0 \t\r\n")
                    if not line:
                        continue
                    try:
                        rec = json.loads(line.decode("utf-8-sig"))
                    except (ValueError, UnicodeDecodeError):
                        continue  # damage: the journal reader says what; nothing to publish
                    if not isinstance(rec, dict):
                        continue
                    rec.pop("crc", None)
                    if self.header is None:
                        self.header = rec
                        continue
                    self.records.append(rec)
                    new.append((len(self.records), rec))
        except OSError:
            return new
        return new


class Publisher:
    """Publishes a table's journal records and state to a broker, catching up after outages.

    ``cfg``: the broker (url, table, username, password: from the config only). Call
    :meth:`follow` with each new game's journal path, :meth:`set_state` with the public state;
    a thread of its own does the rest. :meth:`status` says whether the broker is reached."""

    def __init__(self, cfg: BrokerConfig, client_id: str | None = None):
        import paho.mqtt.client as mqtt

        self.host, self.port = parse_broker_url(cfg.url)
        self.table = table_name(cfg.table or None)
        self.events_topic, self.state_topic = topics(self.table)
        self._lock = threading.Lock()
        self.tail: JournalTail | None = None
        self.journal_name = ""
        self.game = ""
        self.next = 1  # the next index to publish
        self.acked = 0  # every index up to this one is acknowledged
        self._done: set[int] = set()
        self._mids: dict[int, tuple[str, int]] = {}  # message id -> (journal, index)
        self._state: str | None = None
        self._state_sent: str | None = None
        self.connected = False
        self.error = ""
        self.published = 0
        self._stop = False
        self._news: queue.SimpleQueue = queue.SimpleQueue()
        self._wake = threading.Event()
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=client_id or f"dicetray-{self.table}-{uuid.uuid4().hex[:8]}",
            clean_session=True,
        )
        if cfg.username:
            self.client.username_pw_set(cfg.username, cfg.password or None)
        self.client.reconnect_delay_set(min_delay=0.1, max_delay=2)
        self.client.max_inflight_messages_set(WINDOW)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.thread = threading.Thread(target=self._run, daemon=True, name=f"mqtt:{self.table}")

    # ------------------------------------------------------------------ the caller's side
    def start(self) -> Publisher:
        self.client.connect_async(self.host, self.port, keepalive=5)
        self.client.loop_start()
        self.thread.start()
        return self

    def follow(self, path: str | Path, game: str = "") -> None:
        """Publish the records of this journal from now on (a new game: indexes from 1)."""
        with self._lock:
            self.tail = JournalTail(path)
            self.journal_name = Path(path).name
            self.game = game
            self.next, self.acked = 1, 0
            self._done.clear()
        self._wake.set()

    def set_state(self, state: dict) -> None:
        """The table's public state; published retained when it changed."""
        text = json.dumps(
            {**state, "journal": self.journal_name, "time": time.time()},
            separators=(",", ":"),
            default=str,
        )
        with self._lock:
            self._state = text
        self._wake.set()

    def kick(self) -> None:
        self._wake.set()

    def status(self) -> str:
        if self.connected:
            return f"broker {self.host}:{self.port}: connected"
        return (
            f"broker {self.host}:{self.port}: not reached{': ' + self.error if self.error else ''}"
        )

    def pending(self) -> int:
        """Records read from the journal and not yet acknowledged by the broker."""
        with self._lock:
            n = len(self.tail.records) if self.tail else 0
            return n - self.acked

    def flush(self, timeout: float) -> bool:
        """Wait until every record so far is acknowledged (True) or ``timeout`` passes."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.kick()
            with self._lock:
                if self.tail is not None:
                    self.tail.poll()
                done = self._state == self._state_sent
            if self.pending() == 0 and done:
                return True
            time.sleep(0.05)
        return False

    def stop(self) -> None:
        with self._lock:
            self._stop = True
        self._wake.set()
        self.thread.join(timeout=5)
        self.client.disconnect()
        self.client.loop_stop()

    # ------------------------------------------------------------------ paho's thread
    # paho calls these holding its own locks (on_publish inside the lock publish() takes):
    # they only queue what happened, and our thread acts on it.
    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        self._news.put(("connect", None if not reason_code.is_failure else str(reason_code)))
        self.kick_soon()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        self._news.put(("disconnect", str(reason_code) if reason_code.is_failure else ""))

    def _on_publish(self, client, userdata, mid, reason_code=None, properties=None) -> None:
        self._news.put(("ack", mid))

    def kick_soon(self) -> None:
        self._wake.set()

    # ------------------------------------------------------------------ our thread
    def _news_in(self) -> None:
        while True:
            try:
                kind, value = self._news.get_nowait()
            except queue.Empty:
                return
            if kind == "connect":
                self.connected = value is None
                self.error = value or ""
                if self.connected:  # everything not acknowledged goes again, in order
                    self.next = self.acked + 1
                    self._done = {i for i in self._done if i > self.acked}
                    self._state_sent = None
            elif kind == "disconnect":
                self.connected = False
                if value:
                    self.error = value
            elif kind == "ack":
                what = self._mids.pop(value, None)
                if what is None or what[0] != self.journal_name:
                    continue
                self._done.add(what[1])
                while self.acked + 1 in self._done:
                    self.acked += 1
                    self._done.discard(self.acked)

    def _run(self) -> None:
        while True:
            self._wake.wait(timeout=0.05)
            self._wake.clear()
            with self._lock:
                if self._stop:
                    return
                self._news_in()
                if self.tail is not None:
                    self.tail.poll()
                if not self.connected:
                    continue
                self._publish_records()
                if self._state is not None and self._state != self._state_sent:
                    info = self.client.publish(self.state_topic, self._state, qos=1, retain=True)
                    if info.rc == 0:
                        self._state_sent = self._state

    def _publish_records(self) -> None:
        if self.tail is None:
            return
        records = self.tail.records
        while self.next <= len(records) and self.next - self.acked <= WINDOW:
            i = self.next
            payload = json.dumps(
                {
                    "index": i,
                    "journal": self.journal_name,
                    "game": self.game,
                    "table": self.table,
                    "record": records[i - 1],
                },
                separators=(",", ":"),
            )
            info = self.client.publish(self.events_topic, payload, qos=1)
            if info.rc != 0:  # not connected after all: on_connect starts again from acked
                return
            self._mids[info.mid] = (self.journal_name, i)
            self.published += 1
            self.next += 1
