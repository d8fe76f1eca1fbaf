"""A private redis-server for tests that stop and start Redis: on a free port of 127.0.0.1, no
persistence, never the shared one on 6379 (which other work uses)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class PrivateRedis:
    """``start()``, ``kill()`` (SIGKILL: as a crash, connections reset) or ``terminate()``
    (SIGTERM: a restart) and ``start()`` again on the same port; ``url(db)``."""

    def __init__(self):
        self.binary = shutil.which("redis-server")
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="gouji-redis-"))
        self.proc: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://{HOST}:{self.port}/{db}"

    def start(self, timeout: float = 10.0) -> PrivateRedis:
        log = open(self.dir / "redis.log", "ab")  # noqa: SIM115 - the server holds it
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", HOST, "--save", "",
             "--appendonly", "no", "--dir", str(self.dir)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = time.monotonic() + timeout
        while not self.answers():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start:\n{self.log_tail()}")
            time.sleep(0.05)
        return self

    def answers(self) -> bool:
        try:
            with socket.create_connection((HOST, self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None

    def terminate(self) -> None:
        """SIGTERM, as a service manager's restart sends: Redis closes its clients and exits."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None

    def log_tail(self, chars: int = 2000) -> str:
        try:
            return (self.dir / "redis.log").read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def close(self) -> None:
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)
