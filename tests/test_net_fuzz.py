"""The page's HTTP and WebSocket handlers fed anything (hypothesis): every answer is a clear
error or a normal reply, never a crash, and nothing reaches the table without a claim."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from tray.app.session import Session
from tray.layouts import default_layout
from tray.net.app import create_app
from tray.net.attach import NetTable
from tray.rules.journal import Journal
from tray.table.table import Table

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
MESSAGES = st.one_of(
    JSON.map(json.dumps),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["hello", "press", "claim", "release", "x"])},
        optional={
            "seat": JSON,
            "code": JSON | st.text(alphabet="0123456789", min_size=6, max_size=6),
            "long": JSON,
            "token": JSON,
        },
    ).map(json.dumps),
    st.text(max_size=300),
    st.binary(max_size=300),
)
OK = {200, 202, 400, 401, 403, 404, 405, 413, 415, 429}


def _rig(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    journal = Journal.create(
        folder / "g.jsonl", "bank", ["Ana", "Ben"], {"rounds": 10}, default_layout("bank")
    )
    session = Session(Table(journal), None, None, None)
    net = NetTable(None, None, name="F1")
    net.attach(session)
    return net


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    path=st.sampled_from(["/api/claim", "/api/press", "/api/release", "/api/state", "/", "/x"]),
    method=st.sampled_from(["GET", "POST", "PUT"]),
    body=st.one_of(JSON.map(lambda x: json.dumps(x).encode()), st.binary(max_size=2000)),
    ctype=st.sampled_from(["application/json", "text/plain", "", "application/json; charset=x"]),
    auth=st.one_of(st.none(), st.text(alphabet="abcdefXYZ-_0123456789", max_size=40)),
)
def test_http_handlers_answer_anything_without_a_crash(
    tmp_path_factory, path, method, body, ctype, auth
):
    net = _rig(tmp_path_factory)
    client = TestClient(create_app(net.hub), raise_server_exceptions=True)
    headers = {"Content-Type": ctype} if ctype else {}
    if auth is not None:
        headers["Authorization"] = f"Bearer {auth}"
    r = client.request(method, path, content=body, headers=headers)
    assert r.status_code in OK, (r.status_code, r.text[:200])
    if r.status_code >= 400 and r.headers.get("content-type", "").startswith("application/json"):
        assert isinstance(r.json()["error"], str)
    assert net.hub.presses() == [] and net.claims.claimed() == []


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(messages=st.lists(MESSAGES, min_size=1, max_size=12))
def test_websocket_handler_takes_anything_without_a_crash(tmp_path_factory, messages):
    net = _rig(tmp_path_factory)
    with TestClient(create_app(net.hub)) as client, client.websocket_connect("/ws") as ws:
        assert ws.receive_json()["type"] == "state"
        for m in messages:
            (ws.send_bytes if isinstance(m, bytes) else ws.send_text)(m)
        ws.send_json({"type": "hello", "token": None})  # still answering after all that
        while True:
            reply = ws.receive_json()
            assert reply["type"] in ("state", "error", "released")
            if reply["type"] == "state":
                break
    assert net.hub.presses() == [] and net.claims.claimed() == []
