"""Helpers of the network tests: a table with its phone page on a free port, and phones
(WebSocket clients) that read what the tray pushes and press like a player would."""

from __future__ import annotations

import json
import random
import urllib.error
import urllib.request

from websockets.sync.client import connect

from hardware.buttons import ButtonPress
from tray import playthrough
from tray.app.session import Session
from tray.layouts import default_layout
from tray.net.attach import NetTable
from tray.rules.journal import Journal
from tray.table.presses import press_plan
from tray.table.table import Table


def table_on_web(tmp_path, game="tally-up", players=("Ana", "Ben"), options=None, **net_kw):
    """(session, net): a game on a Table driven by the test, its page on 127.0.0.1:free."""
    journal = Journal.create(
        tmp_path / f"{game}.jsonl", game, list(players), options or {}, default_layout(game)
    )
    session = Session(Table(journal), None, None, None)
    net = NetTable(web="127.0.0.1:0", broker=net_kw.pop("broker", None), **net_kw).start()
    net.attach(session)
    return session, net


def http(net, path, body=None, token=None, ctype="application/json", raw=None, method=None):
    """(status, decoded JSON) of a request to the table's page."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(f"http://127.0.0.1:{net.port}{path}", data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", ctype)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


class Phone:
    """A phone on the page's WebSocket: ``messages`` keeps everything it received."""

    def __init__(self, net, token: str | None = None):
        self.ws = connect(f"ws://127.0.0.1:{net.port}/ws", open_timeout=10).__enter__()
        self.messages: list[dict] = []
        self.state: dict | None = None
        self.token = token
        self.send({"type": "hello", "token": token})

    def send(self, msg: dict) -> None:
        self.ws.send(json.dumps(msg))

    def read(self, timeout: float = 0.0) -> list[dict]:
        """The messages waiting (waiting up to ``timeout`` for the first)."""
        got = []
        while True:
            try:
                raw = self.ws.recv(timeout=timeout)
            except TimeoutError:
                return got
            m = json.loads(raw)
            got.append(m)
            self.messages.append(m)
            if m["type"] == "state":
                self.state = m["state"]
            if m["type"] == "claimed":
                self.token = m["token"]
            timeout = 0.0

    def wait_for(self, test, timeout: float = 10.0) -> dict:
        """Read until a state passes ``test`` (AssertionError after ``timeout``)."""
        import time

        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.state is not None and test(self.state):
                return self.state
            self.read(timeout=0.1)
        raise AssertionError(f"no such state in {timeout} s; last: {self.state}")

    def close(self) -> None:
        self.ws.close()


def local_presses(session: Session, seat: int, event: dict, t: float) -> None:
    """Seat ``seat``'s GPIO-like presses (through the button queue) that send ``event``."""
    for s, long in press_plan(session.table, event):
        if long:
            session.table.press(s, t, long=True)
        else:
            session.events.put(ButtonPress(s, t, "sim"))
        session.drain(t)


def throw(session: Session, rng: random.Random, t: float) -> bool:
    """The dice the game asks for, thrown at random and taken by the table."""
    table = session.table
    spec = table.expect().roll
    return table.roll(playthrough.throw(spec, rng, table.state.get("layout"))["dice"], t)
