"""Fixtures for every test folder: the store URLs a test runs against, SQLite and PostgreSQL.

A test that takes ``store_urls`` runs twice, once per store kind (ids ``sqlite`` and
``postgresql``), with the same body. ``store_urls(label)`` gives a fresh, empty store each call: a
SQLite file in the test's folder, or a new database on the session's PostgreSQL cluster (one
cluster for the whole session, started on first use; see ``pg_testkit.py``). Like the Redis tests,
the PostgreSQL ones never skip in CI: when ``$CI`` is set and the server cannot be started they
fail, naming ``scripts/ensure-postgres.sh``; elsewhere they skip with the same hint.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_testkit import PostgresServer, StoreUrls, start_server, unavailable_reason

#: The store kinds every store-parametrized test runs against.
STORE_KINDS = ("sqlite", "postgresql")


def _unavailable(message: str) -> None:
    """Skip, or fail under CI, saying why PostgreSQL is not there."""
    if os.environ.get("CI"):
        pytest.fail(f"{message}; the PostgreSQL tests must run in CI")
    pytest.skip(message)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """The session's PostgreSQL cluster on a free loopback port, torn down at the end."""
    reason = unavailable_reason()
    if reason is not None:
        _unavailable(reason)
    try:
        server = start_server()
    except (RuntimeError, AssertionError, OSError) as e:
        _unavailable(f"cannot start a PostgreSQL test cluster: {e}")
        raise  # unreachable: skip and fail raise
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=STORE_KINDS)
def store_kind(request: pytest.FixtureRequest) -> str:
    """``sqlite`` or ``postgresql``: the store kind this run of the test uses."""
    return str(request.param)


@pytest.fixture
def store_urls(store_kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreUrls]:
    """``store_urls(label="store")``: the URL of a fresh, empty store of this test's kind."""
    if store_kind == "sqlite":
        yield lambda label="store": f"sqlite:///{tmp_path / label}.db"
        return
    server: PostgresServer = request.getfixturevalue("pg_server")
    created: list[str] = []

    def new(label: str = "store") -> str:
        name = server.database(f"{request.node.name}_{label}")
        created.append(name)
        return server.url(name)

    try:
        yield new
    finally:
        for name in created:
            server.drop(name)
