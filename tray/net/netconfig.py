"""The ``[web]`` and ``[broker]`` tables of the config file, and the ``--web`` / ``--broker``
values of the command line (standard library only: a table without the ``web`` extra still
reads its config).

>>> cfg = parse_net({"web": {"listen": "0.0.0.0:8080"}, "broker": {"url": "mqtt://hall:1883",
...                  "table": "t7", "username": "tray7", "password": "s3cret"}})
>>> cfg.web.listen, cfg.broker.host, cfg.broker.port, cfg.broker.table, cfg.broker.username
('0.0.0.0:8080', 'hall', 1883, 't7', 'tray7')
>>> parse_listen("127.0.0.1:8080")
('127.0.0.1', 8080)
>>> parse_broker_url("mqtt://u:p@hall:1883")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: --broker mqtt://...@hall:1883: put the broker's username and password in the ...
"""

from __future__ import annotations

import re
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit

WEB_KEYS = {"listen", "url", "claim_s"}
BROKER_KEYS = {"url", "table", "username", "password"}
_TABLE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


@dataclass
class WebConfig:
    """``[web]``: ``listen = "HOST:PORT"`` serves the phone page (empty: off); ``url``: the
    address phones open (the QR code), when the tray's own name is not it; ``claim_s``: how
    long a seat code lasts."""

    listen: str = ""
    url: str = ""
    claim_s: int = 120


@dataclass
class BrokerConfig:
    """``[broker]``: ``url = "mqtt://HOST:PORT"`` publishes the table (empty: off);
    ``table``: its name on the broker (default: the machine's name); ``username`` /
    ``password``: the broker's login, read from here only."""

    url: str = ""
    table: str = ""
    username: str = ""
    password: str = field(default="", repr=False)

    @property
    def host(self) -> str:
        return parse_broker_url(self.url)[0] if self.url else ""

    @property
    def port(self) -> int:
        return parse_broker_url(self.url)[1] if self.url else 0


@dataclass
class NetConfig:
    web: WebConfig = field(default_factory=WebConfig)
    broker: BrokerConfig = field(default_factory=BrokerConfig)


def parse_listen(text: str, option: str = "--web") -> tuple[str, int]:
    """``"HOST:PORT"`` -> (host, port); ValueError saying the form otherwise.

    >>> parse_listen("[::1]:80")
    ('::1', 80)
    """
    if not isinstance(text, str):
        raise ValueError(f'{option}: give HOST:PORT, like "0.0.0.0:8080"')
    host, sep, port = text.strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) < 65536:
        raise ValueError(
            f"{option} {text!r}: give HOST:PORT, like 0.0.0.0:8080 (every address of the "
            "tray) or 127.0.0.1:8080 (this machine only)"
        )
    return host, int(port)


def parse_broker_url(text: str, option: str = "--broker") -> tuple[str, int]:
    """``mqtt://HOST[:PORT]`` -> (host, port); the port defaults to 1883. Credentials in the
    address are refused: they belong in the config's ``[broker]`` table."""
    if not isinstance(text, str) or "://" not in text:
        raise ValueError(f"{option} {text!r}: give the broker as mqtt://HOST:PORT")
    try:
        u = urlsplit(text.strip())
        port = u.port or 1883
    except ValueError:
        raise ValueError(f"{option} {text!r}: give the broker as mqtt://HOST:PORT") from None
    if u.username or u.password:
        raise ValueError(
            f"{option} mqtt://...@{u.hostname}:{port}: put the broker's username and password "
            "in the config's [broker] table, not in the address (a command line is seen by "
            "every user of the machine)"
        )
    if u.scheme != "mqtt" or not u.hostname or u.path not in ("", "/") or u.query:
        raise ValueError(f"{option} {text!r}: give the broker as mqtt://HOST:PORT")
    return u.hostname, port


def table_name(name: str | None = None) -> str:
    """The table's name on the broker: ``name`` when given (checked), else the machine's name
    reduced to letters, digits, ``-`` and ``_``."""
    if name:
        if not _TABLE.match(name):
            raise ValueError(
                f"table name {name!r}: use 1 to 32 letters, digits, - or _ (it is a part of "
                "the broker's topic dicetray/<table>/...)"
            )
        return name
    host = re.sub(r"[^A-Za-z0-9_-]", "", socket.gethostname().split(".")[0])[:32]
    return host or "table"


def parse_net(data: dict, fail=ValueError) -> NetConfig:
    """Check the ``web`` and ``broker`` tables of decoded TOML (``fail(msg)`` makes the
    exception to raise, e.g. the config's ConfigError with the file name)."""
    cfg = NetConfig()
    t = data.get("web", {})
    if "listen" in t:
        try:
            parse_listen(t["listen"], "web.listen")
        except ValueError as exc:
            raise fail(str(exc)) from None
        cfg.web.listen = t["listen"].strip()
    if "url" in t:
        u = t["url"]
        if not isinstance(u, str) or not re.match(r"^https?://[^\s/]+(/\S*)?$", u):
            raise fail(
                f'web.url = {u!r}: give the address phones open, like "http://tray.local:8080/"'
            )
        cfg.web.url = u
    if "claim_s" in t:
        c = t["claim_s"]
        if type(c) is not int or not 10 <= c <= 3600:
            raise fail(f"web.claim_s = {c!r}: give the seconds a seat code lasts, 10 to 3600")
        cfg.web.claim_s = c
    t = data.get("broker", {})
    if "url" in t:
        try:
            parse_broker_url(t["url"], "broker.url")
        except ValueError as exc:
            raise fail(str(exc)) from None
        cfg.broker.url = t["url"].strip()
    if "table" in t:
        try:
            cfg.broker.table = table_name(t["table"] if isinstance(t["table"], str) else "?")
        except ValueError as exc:
            raise fail(f"broker.table: {exc}") from None
    for key in ("username", "password"):
        if key in t:
            v = t[key]
            if not isinstance(v, str) or len(v) > 256:
                raise fail(f"broker.{key} must be a text of at most 256 characters")
            setattr(cfg.broker, key, v)
    if cfg.broker.password and not cfg.broker.username:
        raise fail("broker.password is set without broker.username: give both, or neither")
    return cfg
