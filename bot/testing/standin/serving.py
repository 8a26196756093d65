"""An ASGI app served by uvicorn from a thread: the stand-in's server, and a host's."""

from __future__ import annotations

import socket
import threading
import time

import uvicorn
from starlette.applications import Starlette


class Serving:
    """An ASGI app served by uvicorn from a thread, on 127.0.0.1 and a free port."""

    def __init__(self, app: Starlette, name: str):
        self.app, self.name = app, name
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    def start(self) -> str:
        """Serve; the base URL ("http://127.0.0.1:PORT")."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(("127.0.0.1", 0))
        self._socket = sock
        config = uvicorn.Config(
            self.app,
            log_level="error",
            access_log=False,
            lifespan="off",
            ws="none",
            http="h11",
            timeout_graceful_shutdown=2,
            date_header=False,  # every answer carries the Date of GitHub's clock (clock_offset_s)
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name=self.name, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the GitHub stand-in did not start")
            time.sleep(0.005)
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None
