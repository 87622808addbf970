"""The table on the network: the phone page, seat claims and the broker.

* ``tray.net.view``: what one client may see of the table (a per-viewer projection: the hidden
  IN/OUT choices never leave the tray before the reveal, except a seat's own to its own phone).
* ``tray.net.claims``: single-use, expiring seat codes, and the tokens a claim hands out.
* ``tray.net.app`` / ``tray.net.server``: the page, ``/api/state`` and the WebSocket, served by
  Starlette on uvicorn in a thread beside the game loop.
* ``tray.net.mqtt``: every journal record, in order, to ``dicetray/<table>/events``, and the
  state, retained, to ``dicetray/<table>/state`` (paho-mqtt), caught up from the journal after
  a broker outage.
* ``tray.net.standings``: ``dicetray standings``, every table on a broker on one page.
* ``tray.net.attach``: the glue ``dicetray play`` and ``dicetray demo`` use.

The network libraries are the optional extra ``web``; without it the table plays as before and
``--web`` / ``--broker`` say how to install it (:func:`require`). tray/rules, vision and
hardware never import this package.
"""

from __future__ import annotations

import importlib.util

INSTALL_HINT = "pip install -e '.[web]' (or: pip install 'dicetray[web]')"

#: the modules the extra brings, by the import name
_MODULES = {
    "starlette": "starlette",
    "uvicorn": "uvicorn",
    "websockets": "websockets",
    "paho": "paho-mqtt",
    "segno": "segno",
}


class MissingExtra(RuntimeError):
    """The ``web`` extra is not installed: the message says how to install it."""


def missing(what: tuple[str, ...] = tuple(_MODULES)) -> list[str]:
    """The packages of the ``web`` extra that cannot be imported (PyPI names).

    >>> isinstance(missing(), list)
    True
    """
    return [_MODULES[m] for m in what if importlib.util.find_spec(m) is None]


def require(option: str, what: tuple[str, ...] = tuple(_MODULES)) -> None:
    """Raise :class:`MissingExtra` naming ``option`` and the install command when a package of
    the ``web`` extra is missing; do nothing when all are there."""
    gone = missing(what)
    if gone:
        raise MissingExtra(
            f"{option} needs the network extra ({', '.join(gone)} missing): {INSTALL_HINT}"
        )
