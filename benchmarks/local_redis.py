"""What the benchmarks that start Celery workers share: a redis-server on a free loopback port as
their broker, and a bounded wait for what they start (redis, the workers).

Imported from the benchmarks' own folder (a script's folder is first on its path)."""

from __future__ import annotations

import shutil
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Bound on starting redis-server or a worker (seconds).
START_TIMEOUT = 60.0


def _program() -> str:
    """The benchmark running, as its messages name it."""
    return Path(sys.argv[0]).stem


def wait_for(predicate: Callable[[], Any], what: str) -> None:
    """Poll ``predicate`` until true, at most :data:`START_TIMEOUT` seconds."""
    deadline = time.monotonic() + START_TIMEOUT
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"{_program()}: timed out waiting for {what}")
        time.sleep(0.1)


def redis_command(folder: Path) -> tuple[list[str], str]:
    """The command of a redis-server on a free loopback port (persistence off, its files in
    ``folder``), and its broker URL."""
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit(f"{_program()}: redis-server is not installed (scripts/ensure-redis.sh)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    return [*argv, "--dir", str(folder)], f"redis://127.0.0.1:{port}/0"


def wait_for_redis(url: str) -> None:
    """Wait until the redis-server at ``url`` answers."""
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=0.5)

    def answers() -> bool:
        try:
            return bool(client.ping())
        except redis.exceptions.RedisError:
            return False

    wait_for(answers, "redis-server")
