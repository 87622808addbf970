"""``dicetray netbench``: many tables, their phones and a broker on this machine, under load.

A Mosquitto broker starts on 127.0.0.1 (tray/net/broker.py). In this process, ``--tables``
tables (Bank, a journal each) serve their phone page on 127.0.0.1 and publish to the broker;
a simulated player throws at each table every ``--roll-every`` seconds (settled rolls go to the
table as the camera's would) and now and then presses a bank button. A second process runs
``--phones`` WebSocket phones per table and reports every update it receives. A subscriber
checks that the broker passes on every journal record of every table in order.

Printed: throughput (rolls, phone updates, broker records a second), the latency from a settled
roll to each phone's update that shows it (p50, p99, max), lost updates (a phone that never got
the state of a roll, or of any later moment of that game), and the memory (RSS) of both
processes over time. Everything stays on 127.0.0.1 and stops by itself after ``--minutes``.

    dicetray netbench --minutes 1
    dicetray netbench --minutes 30 --json > netbench.json
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tray.layouts import default_layout

LOST_AFTER_S = 10.0  # a roll no phone update showed within this long counts as lost


def rss_mb() -> float:
    """This process's resident memory in MB (Linux /proc)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def percentile(sorted_ms: list[float], q: float) -> float:
    if not sorted_ms:
        return float("nan")
    return sorted_ms[min(len(sorted_ms) - 1, int(q / 100 * len(sorted_ms)))]


# ------------------------------------------------------------------------ the phones process
async def _phone(n: int, port: int, lines: list[str], stop: asyncio.Event, counts: dict) -> None:
    from websockets.asyncio.client import connect

    last = None
    while not stop.is_set():
        try:
            async with connect(f"ws://127.0.0.1:{port}/ws", max_size=1 << 20) as ws:
                await ws.send(json.dumps({"type": "hello", "token": None}))
                async for raw in ws:
                    t = time.monotonic()
                    m = json.loads(raw)
                    counts["messages"] += 1
                    if m.get("type") != "state":
                        continue
                    s = m["state"]
                    key = (s.get("journal"), s.get("events"))
                    if key != last:
                        last = key
                        lines.append(f"{n} {key[0]} {key[1]} {t:.6f}")
                    if stop.is_set():
                        return
        except Exception as exc:  # noqa: BLE001 - any failure: reconnect
            if stop.is_set():
                return
            counts["reconnects"] += 1
            counts["last_error"] = f"{type(exc).__name__}: {exc}"[:200]
            await asyncio.sleep(0.2)


async def _phones_main(ports: list[int], per_table: int, sample_s: float) -> None:
    stop = asyncio.Event()
    lines: list[str] = []
    counts = {"messages": 0, "reconnects": 0, "last_error": ""}
    loop = asyncio.get_running_loop()
    loop.add_reader(sys.stdin.fileno(), stop.set)  # any line (or EOF) on stdin: stop
    tasks = [
        asyncio.create_task(_phone(i * per_table + k, port, lines, stop, counts))
        for i, port in enumerate(ports)
        for k in range(per_table)
    ]
    next_sample = time.monotonic()
    while not stop.is_set():
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
            sys.stdout.flush()
            lines.clear()
        if time.monotonic() >= next_sample:
            sys.stdout.write(f"rss {rss_mb():.1f} {counts['messages']} {counts['reconnects']}\n")
            sys.stdout.flush()
            next_sample += sample_s
        await asyncio.sleep(0.02)
    for t in tasks:
        t.cancel()
    sys.stdout.write(f"done {json.dumps(counts)}\n")
    sys.stdout.flush()


def phones_main(argv: list[str]) -> int:
    """The phones' process: ``python -m tray.net.bench --phones-process PORTS PER SAMPLE``."""
    ports = [int(p) for p in argv[0].split(",")]
    asyncio.run(_phones_main(ports, int(argv[1]), float(argv[2])))
    return 0


# ------------------------------------------------------------------------ the tables process
class Collector:
    """Matches the phones' updates with the rolls they show; keeps constant memory (a
    histogram in milliseconds, the rolls not yet seen by every phone)."""

    def __init__(self, tables: int, phones: int):
        self.phones = phones
        self.pending = [collections.deque() for _ in range(tables)]  # (journal, index, t, seen)
        self.hist = collections.Counter()  # whole ms -> count
        self.samples = 0
        self.lost = 0
        self.updates = 0
        self.phones_seen: set[int] = set()
        self.max_ms = 0.0
        self.lock = threading.Lock()

    def rolled(self, table: int, journal: str, index: int, t: float) -> None:
        with self.lock:
            self.pending[table].append((journal, index, t, set()))

    def seen(self, phone: int, journal: str, events: int, t: float) -> None:
        table = phone // self.phones
        with self.lock:
            self.updates += 1
            self.phones_seen.add(phone)
            q = self.pending[table]
            for j, index, t_roll, seen in q:
                if j == journal and index <= events and phone not in seen:
                    seen.add(phone)
                    ms = max(0.0, (t - t_roll) * 1000)
                    self.hist[int(ms)] += 1
                    self.samples += 1
                    self.max_ms = max(self.max_ms, ms)
            while q and len(q[0][3]) >= self.phones:
                q.popleft()

    def expire(self, now: float) -> None:
        with self.lock:
            for q in self.pending:
                while q and now - q[0][2] > LOST_AFTER_S:
                    self.lost += self.phones - len(q.popleft()[3])

    def quantile(self, q: float) -> float:
        with self.lock:
            target = q / 100 * self.samples
            run = 0
            for ms in sorted(self.hist):
                run += self.hist[ms]
                if run >= target:
                    return float(ms)
        return float("nan")


class BrokerCheck:
    """A subscriber to dicetray/+/events: per table, the last index of its current journal;
    a record that skips an index or goes back counts."""

    def __init__(self, port: int):
        import paho.mqtt.client as mqtt

        self.last: dict[str, tuple[str, int]] = {}
        self.records = 0
        self.gaps = 0
        self.duplicates = 0
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="netbench-check")
        self.client.on_connect = lambda c, u, f, rc, p=None: c.subscribe("dicetray/+/events", 1)
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _message(self, client, userdata, msg) -> None:
        m = json.loads(msg.payload)
        table, journal, i = msg.topic.split("/")[1], m["journal"], m["index"]
        prev = self.last.get(table)
        if prev is not None and prev[0] == journal and i <= prev[1]:
            self.duplicates += 1
            return
        expected = prev[1] + 1 if prev is not None and prev[0] == journal else 1
        if i != expected:
            self.gaps += 1
        self.last[table] = (journal, i)
        self.records += 1

    def stop(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


class BenchTable:
    """One table: a Bank game on a Table with its NetTable; a new game when one ends."""

    def __init__(self, n: int, folder: Path, broker_url: str, rng: random.Random):
        from tray.net.attach import NetTable
        from tray.net.netconfig import BrokerConfig

        self.n, self.folder, self.rng = n, folder, rng
        self.net = NetTable(
            "127.0.0.1:0", BrokerConfig(broker_url, f"bench{n}"), name=f"bench{n}"
        ).start()
        self.games = 0
        self.next_roll = 0.0
        self.ended_at: float | None = None
        self.new_game()

    def new_game(self) -> None:
        from tray.app.session import Session
        from tray.rules.journal import Journal
        from tray.table.table import Table

        self.games += 1
        old = getattr(self, "session", None)
        path = self.folder / f"table{self.n}-game{self.games}.jsonl"
        journal = Journal.create(
            path, "bank", ["Ana", "Ben", "Cy", "Dee"], {"rounds": 10}, default_layout("bank")
        )
        self.session = Session(Table(journal), None, None, None)
        self.net.attach(self.session)
        self.ended_at = None
        if old is not None:
            with contextlib.suppress(OSError):  # keep the disk as flat as the memory
                old.table.journal.path.unlink()

    def turn(self, t: float, every: float, collector: Collector) -> int:
        """One loop turn at ``t``; returns 1 when a roll was taken."""
        from hardware.buttons import ButtonPress
        from tray import playthrough

        table = self.session.table
        rolled = 0
        e = table.expect()
        if e.finished:
            if self.ended_at is None:
                self.ended_at = t
            elif t - self.ended_at > 1.0:  # the phones see the end, then a new game
                self.new_game()
            self.session.step(t)
            return 0
        if t >= self.next_roll and e.roll is not None:
            dice = playthrough.throw(e.roll, self.rng, table.state.get("layout"))["dice"]
            t_roll = time.monotonic()
            if table.roll(dice, t):  # on disk now; the phones hear of it at the step below
                rolled = 1
                collector.rolled(self.n, self.net.tail.path.name, self.net.events(), t_roll)
                self.session.step(t)
            self.next_roll = t + every * self.rng.uniform(0.5, 1.5)
        for d in e.decisions:
            if d.player >= 0 and self.rng.random() < 0.01:
                self.session.events.put(ButtonPress(d.player, t, "sim"))
        self.session.step(t)
        return rolled


def run(tables: int, phones: int, minutes: float, roll_every: float, sample_s: float) -> dict:
    from tray.net.broker import LocalBroker

    tmp = Path(tempfile.mkdtemp(prefix="netbench-"))
    broker = LocalBroker(tmp / "broker").start()
    rng = random.Random(1)
    benches = [BenchTable(i, tmp, broker.url, rng) for i in range(tables)]
    check = BrokerCheck(broker.port)
    collector = Collector(tables, phones)
    ports = ",".join(str(b.net.port) for b in benches)
    child, reader, phone_mem, phone_done = _phones(ports, phones, sample_s, collector)
    for b in benches:
        b.session.step(0.0)
    wait_end = time.monotonic() + 60
    while len(collector.phones_seen) < tables * phones and time.monotonic() < wait_end:
        time.sleep(0.1)  # every phone has its first state before the first throw
    published0 = sum(b.net.publisher.published for b in benches)
    try:
        rolls, seconds, mem = _play(benches, collector, minutes, roll_every, sample_s)
        time.sleep(LOST_AFTER_S / 2)  # the last rolls reach the phones
        for b in benches:
            b.net.publisher.flush(10)
        collector.expire(time.monotonic() + LOST_AFTER_S + 1)
    finally:
        try:
            child.stdin.write("stop\n")
            child.stdin.flush()
        except OSError:
            pass
        child.wait(timeout=30)
        reader.join(timeout=10)
        journal_records = sum(b.net.publisher.published for b in benches) - published0
        check.stop()
        for b in benches:
            b.net.close(flush_s=2)
        broker.stop()
    return {
        "tables": tables,
        "phones_per_table": phones,
        "seconds": round(seconds, 1),
        "rolls": rolls,
        "rolls_per_s": round(rolls / seconds, 1),
        "phone_updates": collector.updates,
        "phone_updates_per_s": round(collector.updates / seconds, 1),
        "broker_records": check.records,
        "broker_records_per_s": round(check.records / seconds, 1),
        "published": journal_records,
        "latency_ms": {
            "p50": collector.quantile(50),
            "p99": collector.quantile(99),
            "max": round(collector.max_ms, 1),
            "samples": collector.samples,
        },
        "lost_updates": collector.lost,
        "broker_gaps": check.gaps,
        "broker_duplicates": check.duplicates,
        "phone_reconnects": phone_done.get("reconnects"),
        "sample_s": sample_s,
        "rss_mb_tables": [round(x, 1) for x in mem],
        "rss_mb_phones": [round(x, 1) for x in phone_mem],
    }


def _phones(ports: str, phones: int, sample_s: float, collector: Collector):
    """The phones, in a child process of their own: ``(child, the thread reading its lines,
    its memory samples, its closing figures)``."""
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tray.net.bench",
            "--phones-process",
            ports,
            str(phones),
            str(sample_s),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    phone_mem: list[float] = []
    phone_done: dict = {}

    def read_child() -> None:
        for line in child.stdout:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "rss":
                phone_mem.append(float(parts[1]))
            elif parts[0] == "done":
                phone_done.update(json.loads(line[5:]))
            else:
                collector.seen(int(parts[0]), parts[1], int(parts[2]), float(parts[3]))

    reader = threading.Thread(target=read_child, daemon=True)
    reader.start()
    return child, reader, phone_mem, phone_done


def _play(benches, collector: Collector, minutes: float, roll_every: float, sample_s: float):
    """Every table plays for ``minutes``: ``(rolls, seconds, memory samples in MB)``."""
    mem: list[float] = []
    rolls = 0
    t0 = time.monotonic()
    end = t0 + minutes * 60
    next_sample = t0
    while True:
        now = time.monotonic()
        if now >= end:
            break
        t = now - t0
        for b in benches:
            rolls += b.turn(t, roll_every, collector)
        collector.expire(now)
        if now >= next_sample:
            mem.append(rss_mb())
            next_sample += sample_s
        time.sleep(0.02)
    return rolls, time.monotonic() - t0, mem


def _growth(series: list[float]) -> str:
    """Memory growth from the end of the first third to the end (after warm-up)."""
    if len(series) < 3:
        return "too short to tell"
    start = series[len(series) // 3]
    return f"{series[-1] - start:+.1f} MB ({(series[-1] - start) / start:+.1%}) after warm-up"


def main(argv: list[str]) -> int:
    if argv[:1] == ["--phones-process"]:
        return phones_main(argv[1:])
    ap = argparse.ArgumentParser(
        prog="dicetray netbench",
        description="Tables, phones and a broker on 127.0.0.1 under load: throughput, latency "
        "from a settled roll to the phones, lost updates, memory over time.",
    )
    ap.add_argument("--tables", type=int, default=10)
    ap.add_argument("--phones", type=int, default=8, help="phones per table")
    ap.add_argument("--minutes", type=float, default=1.0, help="how long to play (default 1)")
    ap.add_argument("--roll-every", type=float, default=0.5, help="seconds between throws")
    ap.add_argument("--sample-s", type=float, default=10.0, help="memory sample interval")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not (1 <= args.tables <= 50 and 1 <= args.phones <= 50 and 0 < args.minutes <= 240):
        print("dicetray netbench: 1-50 tables, 1-50 phones, 0-240 minutes", file=sys.stderr)
        return 2
    from tray.net import MissingExtra, require

    try:
        require("dicetray netbench")
        from tray.net.broker import mosquitto_path

        mosquitto_path()
    except (MissingExtra, RuntimeError) as exc:
        print(f"dicetray netbench: {exc}", file=sys.stderr)
        return 2
    if not args.json:
        print(
            f"dicetray netbench: {args.tables} tables x {args.phones} phones, "
            f"{args.minutes:g} min, a throw every {args.roll_every:g} s a table",
            flush=True,
        )
    r = run(args.tables, args.phones, args.minutes, args.roll_every, args.sample_s)
    if args.json:
        print(json.dumps(r))
        return 0
    lat = r["latency_ms"]
    print(
        f"throughput: {r['rolls_per_s']} rolls/s, {r['phone_updates_per_s']} phone updates/s, "
        f"{r['broker_records_per_s']} broker records/s ({r['seconds']} s)"
    )
    print(
        f"settled roll -> phone update: p50 {lat['p50']:.0f} ms, p99 {lat['p99']:.0f} ms, "
        f"max {lat['max']:.0f} ms ({lat['samples']} updates)"
    )
    print(
        f"lost: {r['lost_updates']} phone updates; broker: {r['broker_gaps']} gaps, "
        f"{r['broker_duplicates']} duplicates of {r['broker_records']} records "
        f"({r['published']} published); phone reconnects {r['phone_reconnects']}"
    )
    print(f"memory every {r['sample_s']:g} s, tables+server process (MB): {r['rss_mb_tables']}")
    print(f"  growth {_growth(r['rss_mb_tables'])}")
    print(f"memory, phones process (MB): {r['rss_mb_phones']}")
    print(f"  growth {_growth(r['rss_mb_phones'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
