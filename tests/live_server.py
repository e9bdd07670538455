"""A `knapper serve` process on a free loopback port, for the web tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One server process over a SQLite file; `kill` stops it at once (SIGKILL)."""

    def __init__(self, db: Path):
        self.db = db
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> Server:
        command = [sys.executable, "-m", "interpreter.frontends.cli", "serve"]
        command += ["--port", str(self.port), "--db", str(self.db)]
        log = self.db.with_suffix(".log")
        with open(log, "ab") as errors:
            self.process = subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=errors, env=os.environ.copy()
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"knapper serve stopped: {log.read_text()}")
            try:
                httpx.get(self.url + "/", timeout=1)
                return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("knapper serve did not answer within 30 s")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


@contextmanager
def serving(db: Path):
    server = Server(db).start()
    try:
        yield server
    finally:
        server.stop()
