"""uvicorn serving a Starlette app in a thread beside the game loop.

>>> from tray.net.app import create_app
>>> from tray.net.claims import Claims
>>> from tray.net.hub import Hub
>>> server = WebServer(create_app(Hub(Claims(2))), "127.0.0.1", 0).start()   # doctest: +SKIP
>>> server.port > 0                                                          # doctest: +SKIP
True
>>> server.stop()                                                            # doctest: +SKIP
"""

from __future__ import annotations

import socket
import threading
import time


class WebServer:
    """Serve ``app`` on ``host:port`` (port 0: any free port, read back from ``port``).

    The socket is bound here, so a port in use is told at once (OSError with the fix)."""

    def __init__(self, app, host: str, port: int, limit: int = 256):
        import uvicorn

        self.host = host
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.sock.bind((host, port))
        except OSError as exc:
            self.sock.close()
            raise OSError(
                f"cannot serve the phone page on {host}:{port} ({exc.strerror}): choose another "
                "port, or stop the program using it"
            ) from None
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            ws="websockets-sansio",
            ws_max_size=4096,
            ws_ping_interval=20.0,
            limit_concurrency=limit,
            timeout_keep_alive=5,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run,
            kwargs={"sockets": [self.sock]},
            daemon=True,
            name=f"web:{self.port}",
        )

    def start(self, timeout: float = 15.0) -> WebServer:
        self.thread.start()
        end = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > end:
                raise OSError(f"the phone page's server did not start on {self.host}:{self.port}")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)
        self.sock.close()
