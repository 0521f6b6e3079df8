"""The dashboard under waitress on a background thread, for the live benchmark and the web tests.

``boardcam serve`` runs waitress on the main thread; here a caller keeps its own thread and must
stop the server without leaking the sockets of connections still open (a live stream). Closing
them from the caller's thread races waitress's ``select()``, so they are closed from inside its
own loop, which then returns because its socket map is empty.
"""

from __future__ import annotations

import threading
from typing import Any

from flask import Flask


class BackgroundServer:
    """``app`` served on ``host:port`` (a free port when 0) until :meth:`stop`."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0, **options: Any) -> None:
        from waitress.server import create_server

        options.setdefault("asyncore_loop_timeout", 0.1)
        self._server = create_server(app, host=host, port=port, **options)
        self.port: int = self._server.effective_port
        self.url = f"http://{host}:{self.port}"
        self._thread = threading.Thread(
            target=self._server.run, name="waitress-background", daemon=True
        )
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Close every socket (listening and connected) and wait for the server's threads."""
        server = self._server
        server.trigger.pull_trigger(
            lambda: [dispatcher.close() for dispatcher in list(server._map.values())]
        )
        self._thread.join(timeout)
        server.task_dispatcher.shutdown(timeout=2)

    def __enter__(self) -> BackgroundServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
