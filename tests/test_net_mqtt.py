"""Every journal record reaches the broker once and in order (duplicates only repeat an
index), across a broker restart in the middle of a game; the state is retained; the broker's
login comes from the config. Mosquitto runs on 127.0.0.1 on a free port (Debian's package:
make test installs it)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.request

import paho.mqtt.client as mqtt
import pytest
from netkit import throw

from tray.app.session import Session
from tray.layouts import default_layout
from tray.net.broker import LocalBroker, free_port
from tray.net.mqtt import JournalTail, Publisher
from tray.net.netconfig import BrokerConfig
from tray.rules.journal import Journal
from tray.table.table import Table


class Subscriber:
    """A persistent-session subscriber (clean session off, QoS 1), as docs/phones.md says."""

    def __init__(self, port: int, topic: str = "dicetray/+/events", client_id: str = "sub"):
        self.messages: list[tuple[str, dict]] = []
        self.connected = threading.Event()
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False
        )

        def on_connect(c, u, flags, rc, props=None):
            c.subscribe(topic, qos=1)
            self.connected.set()

        self.client.on_connect = on_connect
        self.client.on_message = lambda c, u, m: self.messages.append(
            (m.topic, json.loads(m.payload))
        )
        self.client.reconnect_delay_set(0.1, 1)
        self.client.connect_async("127.0.0.1", port)
        self.client.loop_start()
        assert self.connected.wait(10), "the subscriber did not reach the broker"

    def stop(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def in_order_once(messages: list[dict]) -> list[dict]:
    """The records a subscriber keeps dropping any index it has seen; asserts that nothing is
    missing or out of order and that a repeated index repeats the same record."""
    kept: dict[tuple[str, int], dict] = {}
    out, last = [], {}
    for m in messages:
        key = (m["journal"], m["index"])
        if key in kept:
            assert kept[key] == m, f"index {m['index']} came twice with different records"
            continue
        assert m["index"] == last.get(m["journal"], 0) + 1, (
            f"index {m['index']} after {last.get(m['journal'], 0)}"
        )
        last[m["journal"]] = m["index"]
        kept[key] = m
        out.append(m)
    return out


def journal_records(path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(x) for x in f if x.strip()][1:]
    for x in lines:
        x.pop("crc")
    return lines


def wait(test, seconds: float = 20.0, what: str = "") -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if test():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_every_record_once_and_in_order_across_a_broker_restart(tmp_path):
    broker = LocalBroker(tmp_path / "broker").start()
    sub = Subscriber(broker.port)
    journal = Journal.create(
        tmp_path / "g.jsonl", "bank", ["Ana", "Ben"], {"rounds": 10}, default_layout("bank")
    )
    session = Session(Table(journal), None, None, None)
    pub = Publisher(BrokerConfig(broker.url, "t1")).start()
    pub.follow(journal.path, "bank")
    rng = random.Random(4)
    t, restarted = 0.0, False
    try:
        wait(lambda: pub.connected, what="the publisher to connect")
        while not session.table.expect().finished:
            throw(session, rng, t)
            if rng.random() < 0.1 and session.table.journal.events:
                session.table.undo(t)  # an undo is a journal record too
            session.step(t)
            pub.kick()
            t += 0.5
            n = len(journal_records(journal.path))
            if n == 25 and not restarted:
                restarted = True
                broker.stop()  # the broker goes away mid-game; the table plays on
            if restarted and n == 40 and broker.proc is None:
                broker.start()
            time.sleep(0.01)
        assert restarted and broker.proc is not None
        records = journal_records(journal.path)
        wait(lambda: pub.pending() == 0, what="the broker to acknowledge every record")
        wait(
            lambda: len(in_order_once([m for _, m in sub.messages])) == len(records),
            what="the subscriber to get every record",
        )
        got = in_order_once([m for _, m in sub.messages])
        assert [m["record"] for m in got] == records
        assert {m["game"] for m in got} == {"bank"} and {m["table"] for m in got} == {"t1"}
        assert all(topic == "dicetray/t1/events" for topic, _ in sub.messages)
    finally:
        pub.stop()
        sub.stop()
        broker.stop()


def test_the_state_is_retained_and_holds_no_hidden_choice(tmp_path):
    from tray.net.attach import NetTable

    with_broker = LocalBroker(tmp_path / "broker").start()
    try:
        journal = Journal.create(
            tmp_path / "t.jsonl", "tally-up", ["Ana", "Ben"], {}, default_layout("tally-up")
        )
        session = Session(Table(journal), None, None, None)
        net = NetTable(None, BrokerConfig(with_broker.url), name="t2").start()
        net.attach(session)
        session.table.roll(["red:200", "blue:100", "green:150"], t=0.0)
        session.table.press(1, t=0.5)  # Ben chooses IN, in secret
        session.step(1.0)
        assert net.publisher.flush(10)
        late = Subscriber(with_broker.port, "dicetray/t2/state", client_id="late")
        wait(lambda: late.messages, what="the retained state")
        state = late.messages[-1][1]
        assert state["events"] == 1 and state["players"][1]["chosen"] is True
        assert "you" not in state and '"mine"' not in json.dumps(state)
        late.stop()
        net.close()
    finally:
        with_broker.stop()


def test_broker_login_comes_from_the_config(tmp_path):
    from tray.app.config import ConfigError, parse_config

    broker = LocalBroker(tmp_path / "broker", users={"tray7": "s3cret-from-config"}).start()
    try:
        cfg = parse_config(
            {"broker": {"url": broker.url, "username": "tray7", "password": "s3cret-from-config"}}
        )
        good = Publisher(cfg.broker).start()
        wrong = Publisher(BrokerConfig(broker.url, username="tray7", password="guess")).start()
        anonymous = Publisher(BrokerConfig(broker.url)).start()
        wait(lambda: good.connected, what="the publisher with the config's login")
        time.sleep(1.0)
        assert not wrong.connected and not anonymous.connected
        assert "not reached" in wrong.status() and "not reached" in anonymous.status()
        for p in (good, wrong, anonymous):
            p.stop()
        with pytest.raises(ConfigError, match=r"\[broker\] table"):
            parse_config({"broker": {"url": f"mqtt://tray7:s3cret@127.0.0.1:{broker.port}"}})
    finally:
        broker.stop()
    # no password, user name or broker address is written in the network code itself
    root = os.path.join(os.path.dirname(__file__), "..", "tray", "net")
    for name in os.listdir(root):
        if name.endswith(".py"):
            with open(os.path.join(root, name), encoding="utf-8") as f:
                text = f.read()
            assert "username_pw_set(cfg." in text or "username_pw_set" not in text, name


def test_the_demo_is_followed_on_the_page_and_the_broker_across_a_restart(tmp_path):
    """`dicetray demo --game bank --web --broker --linger`: /api/state follows the game to its
    end with the scores `dicetray replay` gives; a subscriber to dicetray/+/events gets every
    record once and in order although the broker restarts in the middle of the game."""
    broker = LocalBroker(tmp_path / "broker").start()
    sub = Subscriber(broker.port)
    web = free_port()
    out = tmp_path / "out"
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    cmd = [sys.executable, "-m", "tray.cli", "demo", "--game", "bank", "--headless"]
    cmd += ["--fps", "10", "--out", str(out), "--web", f"127.0.0.1:{web}"]
    cmd += ["--broker", broker.url, "--table", "demo1", "--linger", "30"]
    log = open(tmp_path / "demo.log", "wb")  # noqa: SIM115 - closed with the demo
    demo = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    seen, restarted, final = [], False, None
    try:
        end = time.monotonic() + 1500
        while demo.poll() is None and time.monotonic() < end:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{web}/api/state", timeout=5) as r:
                    state = json.load(r)
            except OSError:
                time.sleep(0.2)
                continue
            seen.append(state["events"])
            if not restarted and state["events"] >= 20:
                restarted = True
                broker.stop()
                time.sleep(2.0)  # the game goes on without a broker
                broker.start()
            if state["finished"]:
                final = state
                break
            time.sleep(0.2)
        assert final is not None, "the page never showed the game finished"
        assert restarted
        assert seen == sorted(seen), "the page went back in the game"
        replay = subprocess.run(
            [sys.executable, "-m", "tray.cli", "replay", "--json", str(next(out.glob("*.jsonl")))],
            capture_output=True,
            text=True,
            check=True,
        )
        summary = json.loads(replay.stdout)
        assert [(p["name"], p["score"]) for p in final["players"]] == [
            (p["name"], p["score"]) for p in summary["players"]
        ]
        assert final["winner"] == summary["winner"]
        records = journal_records(next(out.glob("*.jsonl")))
        assert final["events"] == len(records)
        wait(
            lambda: len(in_order_once([m for _, m in sub.messages])) == len(records),
            seconds=30,
            what="every record at the subscriber",
        )
        assert [m["record"] for m in in_order_once([m for _, m in sub.messages])] == records
        assert demo.poll() is None, "the demo stopped serving before --linger ran out"
        demo.terminate()  # stops the --linger at once
        assert demo.wait(timeout=30) == 0
    finally:
        if demo.poll() is None:
            demo.kill()
        log.close()
        sub.stop()
        broker.stop()


def test_journal_tail_reads_whole_lines_only(tmp_path):
    path = tmp_path / "j.jsonl"
    j = Journal.create(path, "bank", ["Ana", "Ben"], {"rounds": 10}, default_layout("bank"))
    tail = JournalTail(path)
    assert tail.poll() == []
    j.append({"type": "roll", "dice": ["d6:1", "d6:2"]})
    with open(path, "ab") as f:
        f.write(b'{"type": "ro')  # a line being written
    assert [i for i, _ in tail.poll()] == [1]
    assert tail.poll() == []
