"""Nobody gets in where they don't belong: a phone without a claim only watches; a seat code
works once and expires; one phone cannot press for another seat; every request and message is
checked (size, type, keys, rate) and refused with a clear error that changes nothing; the page
loads nothing from another address; a WebSocket from another address's page is refused.
(The broker's login from the config: tests/test_net_mqtt.py.)"""

from __future__ import annotations

import json
import re
import time

import pytest
from starlette.testclient import TestClient

from tray.app.session import Session
from tray.layouts import default_layout
from tray.net.app import MAX_BODY, create_app
from tray.net.attach import NetTable
from tray.rules.journal import Journal
from tray.table.table import Table


class Rig:
    """A table, its hub and the app in a test client, with a clock the test moves."""

    def __init__(self, tmp_path, game="bank", players=("Ana", "Ben", "Cy")):
        self.now = [100.0]
        journal = Journal.create(
            tmp_path / "g.jsonl", game, list(players), {"rounds": 10}, default_layout(game)
        )
        self.session = Session(Table(journal), None, None, None)
        self.net = NetTable(None, None, name="T1", claim_s=60, clock=lambda: self.now[0])
        self.net.attach(self.session)
        self.hub = self.net.hub
        self.client = TestClient(create_app(self.hub))

    def code(self, seat: int) -> str:
        """The code the tray's screen shows for ``seat`` now."""
        self.hub.join_url = "http://t/"
        self.net.server = object()  # join_info needs the page on; the test client serves it
        try:
            return self.net.join_info(self.now[0])["seats"][seat]["code"]
        finally:
            self.net.server = None

    def claim(self, seat: int, code: str | None = None, **kw):
        return self.client.post("/api/claim", json={"seat": seat, "code": code or self.code(seat)})

    def unchanged(self) -> None:
        """Nothing reached the table: no press queued, no journal record written."""
        assert self.hub.presses() == []
        assert self.net.events() == 0


def until(ws, test, n: int = 10) -> dict:
    """The first message passing ``test`` among the next ``n`` (the pusher may send the state
    of before a hello first)."""
    for _ in range(n):
        m = ws.receive_json()
        if test(m):
            return m
    raise AssertionError("no such message")


@pytest.fixture
def rig(tmp_path):
    r = Rig(tmp_path)
    with r.client:
        yield r


def test_without_a_claim_a_phone_only_watches(rig):
    state = rig.client.get("/api/state").json()
    assert state["you"] is None and [p["name"] for p in state["players"]] == ["Ana", "Ben", "Cy"]
    r = rig.client.post("/api/press", json={"long": False})
    assert r.status_code == 401 and "claim" in r.json()["error"]
    r = rig.client.post("/api/press", json={}, headers={"Authorization": "Bearer made-up"})
    assert r.status_code == 401
    with rig.client.websocket_connect("/ws") as ws:
        assert ws.receive_json()["type"] == "state"
        ws.send_json({"type": "press"})
        assert "holds no seat" in until(ws, lambda m: m["type"] == "error")["error"]
    rig.unchanged()


def test_a_code_works_once(rig):
    code = rig.code(1)
    r = rig.claim(1, code)
    assert r.status_code == 200 and r.json()["name"] == "Ben" and len(r.json()["token"]) >= 24
    again = rig.claim(1, code)
    assert again.status_code == 403 and "used or mistyped" in again.json()["error"]
    assert rig.code(1) != code  # the tray shows a fresh code for the next phone
    rig.unchanged()


def test_a_code_expires(rig):
    code = rig.code(0)
    rig.now[0] += 61
    r = rig.claim(0, code)
    assert r.status_code == 403 and "expired" in r.json()["error"]
    fresh = rig.code(0)
    assert fresh != code and rig.claim(0, fresh).status_code == 200


def test_wrong_codes_replace_the_code(rig):
    code = rig.code(2)
    wrong = f"{(int(code) + 1) % 1000000:06d}"
    for _ in range(3):
        assert rig.claim(2, wrong).status_code == 403
    assert rig.claim(2, code).status_code == 403  # three misses: that code is gone
    assert rig.claim(2, rig.code(2)).status_code == 200


def test_one_phone_cannot_press_for_another_seat(rig):
    ben = rig.claim(1).json()["token"]
    cy = rig.claim(2).json()["token"]
    r = rig.client.post(
        "/api/press", json={"long": False}, headers={"Authorization": f"Bearer {ben}"}
    )
    assert r.status_code == 202 and r.json()["seat"] == 1
    assert rig.hub.presses() == [(1, False)]
    # a seat number in a press is refused: the token alone says whose button it is
    r = rig.client.post("/api/press", json={"seat": 0}, headers={"Authorization": f"Bearer {ben}"})
    assert r.status_code == 400
    with rig.client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "hello", "token": cy})
        until(ws, lambda m: m["type"] == "state" and m["state"]["you"])
        ws.send_json({"type": "press", "seat": 1})
        assert "only for its own seat" in until(ws, lambda m: m["type"] == "error")["error"]
        ws.send_json({"type": "press", "long": True})
        ws.send_json({"type": "hello", "token": cy})  # answered after the press is queued
        until(ws, lambda m: m["type"] == "state")
    assert rig.hub.presses() == [(2, True)]
    # Ben's seat claimed again by a new phone: the old phone's token no longer presses
    rig.claim(1)
    r = rig.client.post("/api/press", json={}, headers={"Authorization": f"Bearer {ben}"})
    assert r.status_code == 401
    assert rig.hub.presses() == []


def test_a_press_goes_the_gpio_way(rig):
    """A phone's press joins the session's button queue and the ButtonMapper, like GPIO."""
    table = rig.session.table
    token = rig.claim(table.expect().roll.roller).json()["token"]
    table.roll(["d6:3", "d6:4"], t=0.0)
    table.roll(["d6:1", "d6:2"], t=0.1)
    table.roll(["d6:5", "d6:1"], t=0.2)  # from the fourth roll on, a player may bank
    rig.session.step(0.3)
    seat = rig.net.claims.seat_of(token)
    assert table.decision_of(seat) is not None
    rig.client.post("/api/press", json={}, headers={"Authorization": f"Bearer {token}"})
    rig.session.step(0.4)
    last = Journal.open(table.journal.path).events[-1]
    assert last == {"type": "action", "player": seat, "action": "bank"}


@pytest.mark.parametrize(
    ("body", "ctype", "status"),
    [
        (b"x" * (MAX_BODY + 1), "application/json", 413),
        (b'{"seat": 1, "code": "123456"}', "text/plain", 415),
        (b"{not json", "application/json", 400),
        (b"[1, 2]", "application/json", 400),
        (b'{"seat": "1", "code": "123456"}', "application/json", 400),
        (b'{"seat": true, "code": "123456"}', "application/json", 400),
        (b'{"seat": 1, "code": 123456}', "application/json", 400),
        (b'{"seat": 1}', "application/json", 400),
        (b'{"seat": 1, "code": "123456", "admin": true}', "application/json", 400),
        (b'{"seat": 9, "code": "123456"}', "application/json", 403),
        (b'{"seat": -1, "code": "123456"}', "application/json", 403),
        (b'{"seat": 1, "code": "12345x"}', "application/json", 403),
        (b"[" * 5000 + b"]" * 5000, "application/json", 413),
    ],
)
def test_bad_claims_are_refused_with_a_reason(rig, body, ctype, status):
    r = rig.client.post("/api/claim", content=body, headers={"Content-Type": ctype})
    assert r.status_code == status
    assert isinstance(r.json()["error"], str) and 10 < len(r.json()["error"]) < 200
    assert rig.net.claims.claimed() == []
    rig.unchanged()


def test_bad_messages_are_refused_and_change_nothing(rig):
    token = rig.claim(0).json()["token"]
    rig.hub.presses()
    with rig.client.websocket_connect("/ws") as ws:
        ws.receive_json()
        cases = [
            ("text", "not json", "not valid JSON"),
            ("text", "[]", "JSON object"),
            ("text", json.dumps({"type": "shout"}), "unknown message type"),
            ("text", json.dumps({"type": "press", "long": "yes"}), "true or false"),
            ("text", json.dumps({"type": "hello", "token": 5}), "token"),
            ("text", json.dumps({"type": "claim", "seat": 0}), "needs"),
            ("text", json.dumps({"type": "press", "x": "y" * 2000}), "too long"),
            ("bytes", b"\x00\x01", "not binary"),
        ]
        for kind, data, words in cases:
            (ws.send_text if kind == "text" else ws.send_bytes)(data)
            reply = until(ws, lambda m: m["type"] == "error")
            assert words in reply["error"], (data, reply)
        ws.send_json({"type": "hello", "token": token})
        until(ws, lambda m: m["type"] == "state" and m["state"]["you"]["seat"] == 0)
    rig.unchanged()


def test_too_many_messages_are_refused(rig):
    token = rig.claim(1).json()["token"]
    with rig.client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "hello", "token": token})
        until(ws, lambda m: m["type"] == "state" and m["state"]["you"])
        for _ in range(60):
            ws.send_json({"type": "press"})
        time.sleep(0.5)  # the bucket fills again: the release is taken
        ws.send_json({"type": "release"})  # answered by a state, after every press
        replies = [ws.receive_json()]
        while replies[-1]["type"] != "state" or replies[-1]["state"]["you"]:
            replies.append(ws.receive_json())
    refused = [m for m in replies if m["type"] == "error" and "too many" in m["error"]]
    assert refused, "60 presses at once were all taken"
    assert 0 < len(rig.hub.presses()) < 60


def test_too_many_claims_from_one_address_are_refused(rig):
    statuses = [rig.claim(0, "000000").status_code for _ in range(12)]
    assert statuses.count(429) >= 5
    assert (
        rig.client.post("/api/claim", json={"seat": 0, "code": "1"})
        .json()["error"]
        .startswith("too many")
    )


def test_the_page_loads_nothing_from_another_address(rig):
    r = rig.client.get("/")
    csp = r.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    assert "connect-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    html = r.text
    refs = re.findall(r'(?:src|href)="([^"]*)"', html)
    assert refs and all(ref.startswith("/") and not ref.startswith("//") for ref in refs), refs
    for path in ("/", "/app.js", "/app.css"):
        text = rig.client.get(path).text
        assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/|@import|@font-face", text), path
        assert "innerHTML" not in text and "eval(" not in text
    assert rig.client.get("/qr.svg").headers["content-type"].startswith("image/svg+xml")


def test_a_websocket_from_another_address_is_refused(rig):
    from starlette.websockets import WebSocketDisconnect

    evil = {"Origin": "http://evil.example"}
    with (
        pytest.raises(WebSocketDisconnect),
        rig.client.websocket_connect("/ws", headers=evil) as ws,
    ):
        ws.receive_json()
    with rig.client.websocket_connect("/ws", headers={"Origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "state"


def test_the_public_view_is_the_same_whatever_was_chosen_in_secret(tmp_path):
    """Every viewer but the chooser sees the same bytes whether a hidden choice is IN or OUT."""
    from tray.net.view import player_view, snapshot
    from tray.table.memory import MemoryJournal

    table = Table(MemoryJournal.create(None, "tally-up", ["Ana", "Ben", "Cy"], {}, None))
    table.roll(["red:200", "blue:100", "green:150"], t=0.0)
    seen = {}
    for ben in ("in", "out"):
        for cy in ("in", "out"):
            table.secret = {1: ben, 2: cy}
            snap = snapshot(table, events=1)
            for viewer in (None, 0):
                seen.setdefault(viewer, set()).add(json.dumps(player_view(snap, viewer)))
            assert player_view(snap, 1)["you"]["decision"]["mine"] == ben
            assert player_view(snap, 2)["you"]["decision"]["mine"] == cy
    assert all(len(views) == 1 for views in seen.values())
