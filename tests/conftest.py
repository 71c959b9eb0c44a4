"""Fixtures for every test folder: the store URLs a test runs against, SQLite and PostgreSQL.

A test that takes ``store_urls`` runs twice, once per store kind (ids ``sqlite`` and
``postgresql``), with the same body. ``store_urls(label)`` gives a fresh, empty store each call: a
SQLite file in the test's folder, or a new database on the session's PostgreSQL cluster (one
cluster for the whole session, started on first use; see ``pg_testkit.py``). Like the Redis tests,
the PostgreSQL ones never skip in CI: when ``$CI`` is set and the server cannot be started they
fail, naming ``scripts/ensure-postgres.sh``; elsewhere they skip with the same hint.

Every test gets one kind marker from its folder (``pytest_collection_modifyitems`` below), so that
a new test file needs no marker of its own:

- ``unit``: engine_tests, coordinator_tests, worker_tests, oracle_tests: in-process logic, on
  SQLite stores. A test of those folders on the PostgreSQL store is ``integration`` instead.
- ``integration``: referee_tests (real engine programs as child processes), the PostgreSQL runs
  of store tests, and any folder not named here.
- ``e2e``: e2e_tests: the ``arbiter`` command as a user runs it, real redis-server, Celery
  workers, PostgreSQL and network namespaces.

and, on top of it, ``browser`` for a test that uses the session's Chromium (the ``chromium``
fixture), and ``slow`` where a test says so (``@pytest.mark.slow``, or ``pytestmark``). The quick
subset (``scripts/test.sh --quick``) is ``(unit or integration) and not slow and not browser``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from browser_testkit import headless_chromium
from pg_testkit import PostgresServer, StoreUrls, start_server, unavailable_reason

if TYPE_CHECKING:  # report_testkit imports the coordinator: only the tests that ask load it
    from report_testkit import FinishedRuns

#: What engine programs see besides the system, in the sandbox (worker.referee.sandbox): this
#: interpreter and its virtual environment, and the checkouts with the ``engine`` package, so that
#: the Python test engines (tests/engines) run there. Set before any test starts a worker.
os.environ["ARBITER_SANDBOX_PATHS"] = ":".join(
    dict.fromkeys(
        [
            sys.prefix,
            sys.base_prefix,
            str(Path(__file__).resolve().parents[1]),
            *(p for p in sys.path if p and Path(p, "engine", "__init__.py").is_file()),
        ]
    )
)

#: The store kinds every store-parametrized test runs against.
STORE_KINDS = ("sqlite", "postgresql")

#: Each test folder's kind marker; a folder not listed here is ``integration``.
FOLDER_KINDS = {
    "engine_tests": "unit",
    "coordinator_tests": "unit",
    "worker_tests": "unit",
    "oracle_tests": "unit",
    "referee_tests": "integration",
    "e2e_tests": "e2e",
}
#: The fixture a browser test uses.
BROWSER_FIXTURE = "chromium"


def kind_of(item: pytest.Item) -> str:
    """``unit``, ``integration`` or ``e2e``: by the test's folder, a unit test on PostgreSQL being
    an integration test."""
    folder = item.path.parent.name
    kind = FOLDER_KINDS.get(folder, "integration")
    callspec = getattr(item, "callspec", None)
    if kind == "unit" and callspec is not None and callspec.params.get("store_kind") == "postgresql":
        return "integration"
    return kind


#: Seconds each module took in a recorded run (``pytest --record-durations``): modules run
#: longest first, so that on several processes (pytest-xdist) the short ones fill in at the end
#: instead of one process finishing a long module alone.
DURATIONS = Path(__file__).with_name("durations.json")
#: Then modules not recorded, by kind, slow ones first within a kind.
KIND_ORDER = ("e2e", "integration", "unit")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-durations",
        action="store_true",
        help=f"write each module's time in this run to {DURATIONS.name}, the order of later runs",
    )


def _rank(item: pytest.Item) -> int:
    kind = KIND_ORDER.index(kind_of(item))
    return 2 * kind + (0 if item.get_closest_marker("slow") else 1)


def _module(nodeid: str) -> str:
    """The test file of a node id (relative to the repository, as in :data:`DURATIONS`)."""
    return nodeid.split("::", 1)[0]


_recorded: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add up each module's time (setup, call and teardown), for ``--record-durations``."""
    module = _module(report.nodeid)
    _recorded[module] = _recorded.get(module, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    if session.config.getoption("record_durations") and not hasattr(session.config, "workerinput"):
        order = sorted(_recorded.items(), key=lambda kv: -kv[1])
        DURATIONS.write_text(json.dumps({m: round(t) for m, t in order if round(t) >= 1}, indent=1) + "\n")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give every test its kind marker, and ``browser`` to those that use the browser; then order
    the modules, each kept whole, longest first (:data:`DURATIONS`, then :data:`KIND_ORDER`)."""
    for item in items:
        item.add_marker(kind_of(item))
        if BROWSER_FIXTURE in getattr(item, "fixturenames", ()):
            item.add_marker("browser")
    known: dict[str, float] = json.loads(DURATIONS.read_text()) if DURATIONS.is_file() else {}
    rank: dict[Path, tuple[float, int]] = {}
    for item in items:
        seconds = known.get(_module(item.nodeid), 0.0)
        rank[item.path] = min(rank.get(item.path, (0.0, 2 * len(KIND_ORDER))), (-seconds, _rank(item)))
    items.sort(key=lambda item: rank[item.path])  # stable: a module's tests keep their order


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


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """The pytest run's headless Chromium (a Playwright browser); each test opens its own context."""
    with headless_chromium() as launched:
        yield launched


@pytest.fixture(scope="session")
def finished(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> FinishedRuns:
    """The pytest run's finished SPRT and tuning run of each game (made once for all its processes:
    see ``report_testkit.finished_runs``)."""
    from report_testkit import finished_runs

    base = tmp_path_factory.getbasetemp()
    return finished_runs(base if worker_id == "master" else base.parent)


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
