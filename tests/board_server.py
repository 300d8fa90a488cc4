"""A web board (``python -m blokuszero.engines.blokus.board``) in a child process on a free loopback port,
and plain HTTP requests to it, for the board's tests."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from blokuszero.processes import stop_process


class BoardServer:
    """The board started with ``args`` (``--port 0``: any free port); :meth:`get` and
    :meth:`post` answer (status, JSON or text)."""

    def __init__(self, args: list[str], cwd: Path | None = None) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "blokuszero.engines.blokus.board", "--port", "0", *args],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd)
        self.banner = self.process.stdout.readline()
        found = re.search(r"http://([\d.]+):(\d+)/", self.banner)
        if found is None:
            rest = self.process.stdout.read() if self.process.poll() is not None else ""
            stop_process(self.process)
            raise RuntimeError(f"the board did not start: {self.banner}{rest}")
        self.url = found.group(0).rstrip("/")

    def request(self, path: str, data: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, object]:
        request = urllib.request.Request(self.url + path, data=data, method="POST" if data is not None else "GET",
                                         headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=300) as response:
                status, body, kind = response.status, response.read(), response.headers.get_content_type()
        except urllib.error.HTTPError as err:
            status, body, kind = err.code, err.read(), err.headers.get_content_type()
        text = body.decode("utf-8")
        return status, json.loads(text) if kind == "application/json" else text

    def get(self, path: str) -> tuple[int, object]:
        return self.request(path)

    def post(self, path: str, body: object = None, raw: bytes | None = None) -> tuple[int, object]:
        return self.request(path, raw if raw is not None else json.dumps(body or {}).encode())

    def close(self) -> None:
        stop_process(self.process)
