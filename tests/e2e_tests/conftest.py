"""Fixtures of the end-to-end tests: a real redis-server and real Celery workers, killed at teardown.

The distributed tests never skip in CI: when ``$CI`` is set and ``redis-server`` is missing they
fail, naming ``scripts/ensure-redis.sh``; elsewhere they skip with the same hint.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from celery_testkit import RedisServer, WorkerPool, redis_server_path
from netns_testkit import Network, unavailable_reason


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A running redis-server on a free loopback port, persistence off."""
    executable = redis_server_path()
    if executable is None:
        message = "redis-server is not installed (scripts/ensure-redis.sh installs it)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}; the distributed tests must run in CI")
        pytest.skip(message)
    directory = tmp_path / "redis"
    directory.mkdir()
    server = RedisServer(directory, executable)
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def workers(redis_server: RedisServer, tmp_path: Path) -> Iterator[WorkerPool]:
    """Starts Celery workers on ``redis_server`` (see :meth:`WorkerPool.start`); kills them after."""
    pool = WorkerPool(redis_server.url, tmp_path)
    try:
        yield pool
    finally:
        pool.stop_all()


@pytest.fixture
def network() -> Iterator[Network]:
    """The hub namespace, torn down (processes killed, namespaces deleted) whatever happens."""
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(f"multi-host test: {reason}")
    if redis_server_path() is None:
        message = "redis-server is not installed (scripts/ensure-redis.sh installs it)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}; the multi-host test must run in CI")
        pytest.skip(message)
    try:
        net = Network()
    except (RuntimeError, OSError) as e:
        if os.environ.get("CI"):  # root and iproute2 are there: this must work
            pytest.fail(f"multi-host test: cannot create network namespaces: {e}")
        pytest.skip(f"multi-host test: cannot create network namespaces: {e}")
    try:
        yield net
    finally:
        net.close()
