"""Without the web extra the table plays as before and --web / --broker say how to install it;
the tournament page follows the tables on a broker."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request

import pytest

import tray.net
from tray.app.session import Session
from tray.layouts import default_layout
from tray.net import INSTALL_HINT, MissingExtra
from tray.net.attach import NetTable
from tray.net.broker import LocalBroker, free_port
from tray.net.netconfig import BrokerConfig
from tray.rules.journal import Journal
from tray.table.table import Table


def test_without_the_extra_web_and_broker_say_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setattr(tray.net, "missing", lambda what=(): ["starlette", "paho-mqtt"])
    with pytest.raises(MissingExtra, match=r"--web needs the network extra"):
        NetTable("127.0.0.1:0", None)
    with pytest.raises(MissingExtra, match=r"--broker needs the network extra"):
        NetTable(None, BrokerConfig("mqtt://127.0.0.1:1"))
    from tray.app.demo import main_demo

    assert main_demo(["--game", "bank", "--web", "127.0.0.1:0", "--headless"]) == 2
    err = capsys.readouterr().err
    assert INSTALL_HINT in err and "Traceback" not in err


def test_a_table_without_web_or_broker_runs_as_before(tmp_path):
    from tray.net.attach import net_from_options

    assert net_from_options(None, None) is None


def test_standings_follow_every_table_on_the_broker(tmp_path):
    broker = LocalBroker(tmp_path / "broker").start()
    nets = []
    web = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tray.cli",
            "standings",
            "--broker",
            broker.url,
            "--web",
            f"127.0.0.1:{web}",
            "--max-seconds",
            "60",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for name, game in (("t1", "bank"), ("t2", "toss-up")):
            journal = Journal.create(
                tmp_path / f"{name}.jsonl", game, ["Ana", "Ben"], {}, default_layout(game)
            )
            session = Session(Table(journal), None, None, None)
            net = NetTable(None, BrokerConfig(broker.url), name=name).start()
            net.attach(session)
            spec = session.table.expect().roll
            dice = ["d6:2", "d6:3"] if game == "bank" else ["toss:green"] * spec.count
            assert session.table.roll(dice, t=0.0)
            session.step(0.1)
            nets.append(net)
        end, got = time.monotonic() + 30, None
        while time.monotonic() < end:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{web}/api/standings") as r:
                    got = json.load(r)
                if len(got["tables"]) == 2 and all(t["events"] == 1 for t in got["tables"]):
                    break
            except OSError:
                pass
            time.sleep(0.2)
        assert got is not None and [t["table"] for t in got["tables"]] == ["t1", "t2"]
        bank = got["tables"][0]["state"]
        assert bank["game"] == "bank" and [p["score"] for p in bank["players"]] == [0, 0]
        assert all(t["events"] == 1 for t in got["tables"])
    finally:
        for net in nets:
            net.close()
        proc.terminate()
        proc.wait(timeout=20)
        broker.stop()


def test_the_rules_vision_and_hardware_never_import_the_network_package():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    for folder in ("tray/rules", "vision", "hardware"):
        for path in (root / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert "tray.net" not in text and "from tray import net" not in text, path
