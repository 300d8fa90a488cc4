"""The GGP player's HTTP server: each POST's text answered by :class:`.player_engine.GgpPlayerEngine`.

Binds 127.0.0.1 unless told otherwise; a request's play clock runs from its arrival, read on the
engine's clock before the body is read.
"""

from __future__ import annotations

import logging
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ..options import LOCAL_HOST
from .player_engine import GgpPlayerEngine

log = logging.getLogger(__name__)


def serve(engine: GgpPlayerEngine, port: int, host: str = LOCAL_HOST) -> ThreadingHTTPServer:
    """An HTTP server (not yet serving: call ``serve_forever``) answering GGP POSTs."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            received = engine.clock.source()
            length = int(self.headers.get("Content-Length") or 0)
            text = self.rfile.read(length).decode("utf-8", errors="replace")
            reply = engine.handle(text, received).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/acl")
            self.send_header("Content-Length", str(len(reply)))
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, fmt: str, *args) -> None:
            log.debug(fmt, *args)

    return ThreadingHTTPServer((host, port), Handler)
