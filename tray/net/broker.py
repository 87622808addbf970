"""A Mosquitto broker on 127.0.0.1 of this machine, for ``dicetray netbench`` and the tests.

Mosquitto comes from Debian (``apt-get install mosquitto``); ``make test`` installs it. The
broker keeps its sessions and retained messages on disk (``persistence``), so a restart loses
nothing a persistent subscriber was owed.

>>> broker = LocalBroker("/tmp/broker-x").start()          # doctest: +SKIP
>>> broker.url                                             # doctest: +SKIP
'mqtt://127.0.0.1:40123'
>>> broker.restart(); broker.stop()                        # doctest: +SKIP
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mosquitto_path() -> str:
    """The mosquitto program; RuntimeError saying how to install it when missing."""
    found = shutil.which("mosquitto") or (
        "/usr/sbin/mosquitto" if os.path.exists("/usr/sbin/mosquitto") else None
    )
    if found is None:
        raise RuntimeError(
            "Mosquitto is not installed: apt-get install mosquitto (make test installs it)"
        )
    return found


class LocalBroker:
    """Mosquitto listening on 127.0.0.1 only, its files in ``folder``. ``users``: name ->
    password (then anonymous clients are refused)."""

    def __init__(self, folder: str | Path, port: int = 0, users: dict[str, str] | None = None):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.users = users or {}
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def _config(self) -> Path:
        lines = [
            f"listener {self.port} 127.0.0.1",
            "persistence true",
            f"persistence_location {self.folder}/",
            "autosave_interval 1",
            "max_queued_messages 100000",
            f"log_dest file {self.folder / 'mosquitto.log'}",
        ]
        if os.geteuid() == 0:
            lines.append("user root")  # keep the rights to its own folder
        if self.users:
            pw = self.folder / "passwords"
            pw.write_text("")
            for name, password in self.users.items():
                subprocess.run(
                    ["mosquitto_passwd", "-b", str(pw), name, password],
                    check=True,
                    capture_output=True,
                )
            lines += ["allow_anonymous false", f"password_file {pw}"]
        else:
            lines.append("allow_anonymous true")
        conf = self.folder / "mosquitto.conf"
        conf.write_text("\n".join(lines) + "\n")
        return conf

    def start(self, timeout: float = 10.0) -> LocalBroker:
        conf = self._config()
        self.proc = subprocess.Popen(
            [mosquitto_path(), "-c", str(conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                log = self.folder / "mosquitto.log"
                raise RuntimeError(
                    f"mosquitto stopped at once: {log.read_text()[-300:] if log.exists() else ''}"
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"mosquitto did not listen on 127.0.0.1:{self.port}")

    def stop(self) -> None:
        """Stop it the way a service stops (SIGTERM: it saves its sessions first)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self, down_s: float = 0.0) -> None:
        self.stop()
        time.sleep(down_s)
        self.start()
