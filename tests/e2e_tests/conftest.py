"""Fixtures of the end-to-end tests: a real redis-server and real Celery workers, killed at teardown.

One redis-server serves the whole pytest run (``redis_service``); each test that takes
``redis_server`` gets a database of its own on it (a :class:`RedisDatabase`, emptied), and the
Celery workers it starts point to that database. A fault test that kills or restarts the server
takes ``own_redis_server`` instead, a server of its own (its workers then point to that one).

The distributed tests never skip in CI: when ``$CI`` is set and ``redis-server`` is missing they
fail, naming ``scripts/ensure-redis.sh``; elsewhere they skip with the same hint.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from celery_testkit import DATABASES, RedisDatabase, RedisServer, WorkerPool, redis_server_path
from netns_testkit import Network, unavailable_reason

#: The database numbers handed out to tests, in turn (0 is left alone).
_database_numbers = itertools.cycle(range(1, DATABASES))


def _started_server(directory: Path) -> RedisServer:
    """A running redis-server on a free loopback port, persistence off, logging to ``directory``."""
    executable = redis_server_path()
    if executable is None:
        message = "redis-server is not installed (scripts/ensure-redis.sh installs it)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}; the distributed tests must run in CI")
        pytest.skip(message)
    server = RedisServer(directory, executable)
    server.start()
    return server


@pytest.fixture(scope="session")
def redis_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """The pytest run's redis-server, shared by every test through its own database."""
    server = _started_server(tmp_path_factory.mktemp("redis"))
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def redis_server(redis_service: RedisServer) -> Iterator[RedisDatabase]:
    """This test's own, empty database of the shared redis-server."""
    database = RedisDatabase(redis_service, next(_database_numbers))
    try:
        yield database
    finally:
        database.release()


@pytest.fixture
def own_redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of this test alone, for tests that kill or restart it."""
    directory = tmp_path / "redis"
    directory.mkdir()
    server = _started_server(directory)
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def workers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[WorkerPool]:
    """Starts Celery workers (see :meth:`WorkerPool.start`) on the test's own redis-server if it
    has one (``own_redis_server``), else on its database of the shared one; kills them after."""
    name = "own_redis_server" if "own_redis_server" in request.fixturenames else "redis_server"
    broker: RedisServer | RedisDatabase = request.getfixturevalue(name)
    pool = WorkerPool(broker.url, tmp_path)
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
