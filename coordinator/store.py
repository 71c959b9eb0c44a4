"""The store: runs, batches, results and game records behind one SQLAlchemy URL.

Everything a run needs to be resumed or reported lives here, so that killing the coordinator at any
moment loses nothing. Every write is one transaction; a result, its game records (one row per
batch) and its batch's state change commit together. Results are keyed by (run, batch): a second
result for the same batch (a redelivery, a duplicate, a second coordinator) is ignored, so each
batch counts at most once.

Which results count is decided by the scheduler: the contiguous prefix of batches ``0 ..
counted_batches - 1`` of a run. Totals are always computed from the stored results of that prefix.
"""

from __future__ import annotations

import contextvars
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

import orjson
from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    and_,
    create_engine,
    delete,
    event,
    func,
    insert,
    inspect,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError, IntegrityError, SQLAlchemyError
from sqlalchemy.sql.ddl import ExecutableDDLElement

from coordinator.runs import BatchState, RunKind, RunState
from worker.protocol import RECORD_FIELDS, BatchResult, tally

DEFAULT_URL = "sqlite:///arbiter.db"
STORE_ENV = "ARBITER_STORE"
SQLITE_BUSY_TIMEOUT_MS = 30_000
#: Pause between two tries at switching a new SQLite file to WAL (see :func:`_set_wal`).
SQLITE_WAL_RETRY_SECONDS = 0.01
#: Seconds a PostgreSQL connection attempt may take (libpq's default is to wait for TCP to give up).
POSTGRES_CONNECT_TIMEOUT = 10
#: Key of the PostgreSQL advisory lock held while tables are created (any fixed 64-bit number).
SCHEMA_LOCK_KEY = 0x6172626974657201
#: Batches of game records read from the database at a time while streaming them.
STREAM_BATCHES = 16
#: Longest worker name stored (``String(255)``: PostgreSQL refuses longer strings, SQLite does not).
MAX_WORKER_COLUMN = 255
#: Execution option that marks the engine of a store opened read-only (see :func:`schema_lock`).
READ_ONLY_OPTION = "arbiter_read_only"
#: Backends whose connections can be made read-only by the database itself.
READ_ONLY_BACKENDS = ("sqlite", "postgresql")


metadata = MetaData()

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(16), nullable=False),
    Column("game", String(32), nullable=False),
    Column("config", Text, nullable=False),
    Column("fingerprint", String(64), nullable=False, index=True),
    Column("state", String(16), nullable=False),
    Column("counted_batches", Integer, nullable=False, default=0),
    Column("decision", String(16)),
    Column("error", Text),
    Column("created_at", DateTime, nullable=False),
    Column("updated_at", DateTime, nullable=False),
    Column("finished_at", DateTime),
)

batches = Table(
    "batches",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
    Column("batch_index", Integer, nullable=False),
    Column("openings", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),  # 63-bit (derive_seed): wider than PostgreSQL's INTEGER
    Column("state", String(16), nullable=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("worker", String(255)),
    Column("refusal", Text),
    Column("updated_at", DateTime, nullable=False),
    PrimaryKeyConstraint("run_id", "batch_index"),
)

results = Table(
    "results",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
    Column("batch_index", Integer, nullable=False),
    Column("ll", Integer, nullable=False),
    Column("ld", Integer, nullable=False),
    Column("dd_wl", Integer, nullable=False),
    Column("wd", Integer, nullable=False),
    Column("ww", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("draws", Integer, nullable=False),
    Column("losses", Integer, nullable=False),
    Column("nodes", Text, nullable=False),
    Column("cpu_seconds", Float, nullable=False),
    Column("worker", String(255)),
    Column("engine_version", String(64), nullable=False),
    Column("created_at", DateTime, nullable=False),
    PrimaryKeyConstraint("run_id", "batch_index"),
)

#: The game records of a batch, as one JSON array (in game order) of records, each an array of the
#: wire record's fields in :data:`worker.protocol.RECORD_FIELDS` order (opening, moves, result,
#: reason, candidate colour): one row per batch, and no key repeated per game, keep storing a
#: result cheap.
batch_games = Table(
    "batch_games",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
    Column("batch_index", Integer, nullable=False),
    Column("games", Text, nullable=False),
    PrimaryKeyConstraint("run_id", "batch_index"),
)

#: Every refusal of a batch's answer, in order: who gave it (None when it names nobody) and why
#: (``batches.refusal`` keeps only the last reason; this is what reports count per worker).
refusal_log = Table(
    "refusal_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False, index=True),
    Column("batch_index", Integer, nullable=False),
    Column("worker", String(255)),
    Column("reason", Text, nullable=False),
    Column("created_at", DateTime, nullable=False),
)

quarantines = Table(
    "quarantines",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
    Column("worker", String(255), nullable=False),
    Column("reason", Text, nullable=False),
    Column("discarded_batches", Integer, nullable=False, default=0),
    Column("created_at", DateTime, nullable=False),
    PrimaryKeyConstraint("run_id", "worker"),
)

PENTANOMIAL_COLUMNS = ("ll", "ld", "dd_wl", "wd", "ww")
#: The dialects whose INSERT ... ON CONFLICT marks a batch sent in one statement.
UPSERT_DIALECTS: dict[str, Any] = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}
WDL_COLUMNS = ("wins", "draws", "losses")


def now() -> datetime:
    """The current UTC time without tzinfo (portable across SQLite and PostgreSQL)."""
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass(frozen=True)
class Run:
    """One row of ``runs``, with its configuration decoded."""

    id: int
    kind: RunKind
    game: str
    config: dict[str, Any]
    fingerprint: str
    state: RunState
    counted_batches: int
    decision: str | None
    error: str | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True)
class StoredResult:
    """The counts of one stored result."""

    batch_index: int
    pentanomial: list[int]
    wdl: list[int]
    cpu_seconds: float


@dataclass(frozen=True)
class Totals:
    """Counts summed over the counted batches of a run."""

    pentanomial: list[int]
    wdl: list[int]
    batches: int
    cpu_seconds: float

    @property
    def games(self) -> int:
        """Number of games counted."""
        return sum(self.wdl)


@dataclass(frozen=True)
class BatchGames:
    """The stored games of one batch, with the worker that played them and when they came in."""

    batch_index: int
    worker: str | None
    stored_at: datetime
    records: list[dict[str, Any]]


@dataclass(frozen=True)
class Quarantine:
    """A worker whose results a run no longer believes, and why."""

    worker: str
    reason: str
    discarded_batches: int
    created_at: datetime


@dataclass(frozen=True)
class Refusal:
    """A batch that a result was refused for, and why."""

    batch_index: int
    attempts: int
    state: str
    reason: str


@dataclass(frozen=True)
class Activity:
    """How far some runs have got: results stored for them, and their latest change of state.
    Two equal activities mean nothing a report shows has changed (a cheap check for live pages)."""

    results: int
    counted_batches: int
    updated_at: datetime | None


@dataclass(frozen=True)
class WorkerTotals:
    """What one worker gave the store: stored results (batches), their games and CPU time, the runs
    they belong to, its answers that were refused, and when it last stored a result."""

    worker: str
    runs: int
    batches: int
    games: int
    cpu_seconds: float
    refused: int
    last_seen: datetime | None


@dataclass(frozen=True)
class WorkerRefusal:
    """One answer of a worker that was refused: the batch, why, and when."""

    run_id: int
    batch_index: int
    reason: str
    created_at: datetime


@dataclass(frozen=True)
class WorkerBatch:
    """One batch a worker handled last: where it stands, and the result it stored, if any."""

    run_id: int
    batch_index: int
    state: str
    attempts: int
    refusal: str | None
    updated_at: datetime
    games: int | None
    cpu_seconds: float | None
    stored_at: datetime | None


def store_url(url: str | None) -> str:
    """The store URL in force: ``url``, else ``$ARBITER_STORE``, else ``sqlite:///arbiter.db``."""
    return url or os.environ.get(STORE_ENV) or DEFAULT_URL


def mask_url(url: str) -> str:
    """``url`` with its password masked, for printing. A URL that does not parse is masked up to
    its last ``@`` (after its ``://``, if it has one), where a password would be."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        scheme, sep, rest = url.partition("://")
        if not sep:
            scheme, rest = "", url
        return f"{scheme}{sep}***@{rest.rpartition('@')[2]}" if "@" in rest else url


def engine_url(url: str) -> str:
    """The URL given to SQLAlchemy. ``postgresql://`` and ``postgres://`` name no driver, and
    SQLAlchemy's default one is psycopg2; arbiter's ``postgres`` extra installs psycopg 3, so they
    mean ``postgresql+psycopg://``. A URL that names its driver is used as it is."""
    scheme, sep, rest = url.partition("://")
    if sep and scheme.lower() in ("postgresql", "postgres"):
        return f"postgresql+psycopg://{rest}"
    return url


@contextmanager
def schema_lock(engine: Engine) -> Iterator[Connection]:
    """A transaction to create tables in, that holds the store's schema lock: two coordinators
    starting together on an empty database must not both create the same table (the check for a
    table and its creation are two statements, and the loser fails with "already exists"). On
    PostgreSQL the lock is an advisory lock, which blocks only other holders of it; on SQLite the
    transaction takes the write lock at once (BEGIN IMMEDIATE), so the tables must be created on
    the connection given. A store opened read-only takes no lock (it must never block a writer)
    and creates nothing (see :func:`_skip_ddl`)."""
    if _read_only_engine(engine):
        with engine.connect() as connection:
            yield connection
        return
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK_KEY})
        elif connection.dialect.name == "sqlite":
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        yield connection


def _read_only_engine(engine: Engine) -> bool:
    """True for the engine of a store opened read-only."""
    return bool(engine.get_execution_options().get(READ_ONLY_OPTION))


def _skip_ddl(
    _connection: Any, statement: Any, multiparams: Any, params: Any, _options: Any
) -> tuple[Any, Any, Any]:
    """A read-only store's hook before each statement: one that would create or change tables (the
    tuning records create theirs when opened) is replaced by a no-op, so that a reader of a store
    that lacks some table opens it all the same; everything else runs as it is."""
    if isinstance(statement, ExecutableDDLElement):
        return text("SELECT 1"), [], {}
    return statement, multiparams, params


def read_only_connect(backend: str, cargs: list[Any], cparams: dict[str, Any]) -> None:
    """Change a DBAPI connect call (in place) so that the database refuses every write on the
    connection: SQLite opens the file with ``mode=ro`` (a URI), PostgreSQL starts every transaction
    read-only (``default_transaction_read_only``). A private in-memory SQLite database is left as
    it is (nobody else can see it)."""
    if backend == "postgresql":
        cparams["options"] = f"{cparams.get('options', '')} -c default_transaction_read_only=on".strip()
        return
    if backend != "sqlite":
        raise ValueError(f"read-only access supports {', '.join(READ_ONLY_BACKENDS)}, not {backend}")
    database = str(cargs[0]) if cargs else str(cparams.get("database", ""))
    if database in ("", ":memory:"):
        return
    if cparams.get("uri"):
        path, _, query = database.partition("?")
        params = dict(parse_qsl(query, keep_blank_values=True))
        if params.get("mode") == "memory":
            return
        database = f"{path}?{urlencode(params | {'mode': 'ro'})}"
    else:
        database = f"file:{quote(str(Path(database).resolve()))}?mode=ro"
    if cargs:
        cargs[0] = database
    else:
        cparams["database"] = database
    cparams["uri"] = True


_READ_ONLY_CONNECTIONS: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "arbiter_read_only_connections", default=False
)


def _read_only_in_context(dialect: Any, _record: Any, cargs: list[Any], cparams: dict[str, Any]) -> None:
    """Every engine's connect hook: read-only connections inside :func:`read_only_connections`."""
    if _READ_ONLY_CONNECTIONS.get():
        read_only_connect(dialect.name, cargs, cparams)


event.listen(Engine, "do_connect", _read_only_in_context)


@contextmanager
def read_only_connections() -> Iterator[None]:
    """Inside the block, every database connection opened in this thread or task, by any
    SQLAlchemy engine (a store's, Optuna's), can only read (see :func:`read_only_connect`). For
    code that opens databases of its own from a store's URL, such as Optuna loading a study;
    connections an engine pooled before the block keep what they were."""
    token = _READ_ONLY_CONNECTIONS.set(True)
    try:
        yield
    finally:
        _READ_ONLY_CONNECTIONS.reset(token)


def _clip_worker(worker: str | None) -> str | None:
    """A worker name short enough for its column (names come from workers, which may lie)."""
    return None if worker is None else str(worker)[:MAX_WORKER_COLUMN]


def _set_wal(cursor: Any) -> None:
    """Switch the database to WAL. On a new file that other connections are opening too, SQLite
    answers "database is locked" at once, without waiting for its busy timeout (the switch needs
    an exclusive lock), so the switch is tried again until the busy timeout has passed."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() >= deadline:
                raise
            time.sleep(SQLITE_WAL_RETRY_SECONDS)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL journal (readers never block the writer) and a generous busy timeout."""
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
    _set_wal(cursor)
    cursor.execute("PRAGMA synchronous = NORMAL")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def _check_sqlite_path(url: str, database: str | None, writable: bool = True) -> None:
    """A SQLite file URL must name a file whose folder exists and (unless only read) is writable."""
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database)
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise ValueError(f"store {url}: {path} is a folder, not a database file")
    if not folder.is_dir():
        raise ValueError(f"store {url}: folder {folder} does not exist")
    if not writable:
        return
    target = path if path.exists() else folder
    if not os.access(target, os.W_OK):
        raise ValueError(f"store {url}: {target} is not writable")


def _open_engine(url: str, create: bool, read_only: bool = False) -> Engine:
    """A SQLAlchemy engine for ``url``, with the tables created (``read_only``: whose connections
    can only read, on a store that must have its tables already); ValueError naming a bad URL, and
    FileNotFoundError for a SQLite file that does not exist unless ``create``."""
    shown = mask_url(url)
    try:
        parsed = make_url(engine_url(url))
    except (ArgumentError, ValueError):
        raise ValueError(f"store {shown}: not a database URL (expected e.g. {DEFAULT_URL})") from None
    if read_only and parsed.get_backend_name() not in READ_ONLY_BACKENDS:
        raise ValueError(f"store {shown}: read-only access supports {', '.join(READ_ONLY_BACKENDS)} stores")
    create = create and not read_only
    is_sqlite = parsed.get_backend_name() == "sqlite"
    if is_sqlite:
        _check_sqlite_path(shown, parsed.database, writable=not read_only)
        if (
            not create
            and parsed.database not in (None, "", ":memory:")
            and not Path(parsed.database).exists()
        ):
            raise FileNotFoundError(
                f"no store at {parsed.database}: nothing has run here yet "
                f"(pass --store URL or set {STORE_ENV})"
            )
    connect_args: dict[str, Any] = {}
    options: dict[str, Any] = {}
    if is_sqlite:
        connect_args["timeout"] = SQLITE_BUSY_TIMEOUT_MS / 1000
    elif parsed.get_backend_name() == "postgresql":
        if "connect_timeout" not in parsed.query:
            connect_args["connect_timeout"] = POSTGRES_CONNECT_TIMEOUT
        options["pool_pre_ping"] = True  # a coordinator outlives server restarts and idle cut-offs
    if read_only:
        options["execution_options"] = {READ_ONLY_OPTION: True}
    try:
        db = create_engine(engine_url(url), connect_args=connect_args, **options)
    except ImportError as e:
        hint = " (pip install 'arbiter[postgres]')" if "psycopg" in str(e) else ""
        raise ValueError(f"store {shown}: cannot open: {' '.join(str(e).split())}{hint}") from None
    except (ArgumentError, SQLAlchemyError) as e:
        raise ValueError(f"store {shown}: cannot open: {' '.join(str(e).split())}") from None
    if read_only:
        event.listen(
            db, "do_connect", lambda d, _r, cargs, cparams: read_only_connect(d.name, cargs, cparams)
        )
        event.listen(db, "before_execute", _skip_ddl, retval=True)
    elif is_sqlite:
        event.listen(db, "connect", _sqlite_pragmas)
    try:
        if read_only:
            with db.connect() as connection:
                if not inspect(connection).has_table(runs.name):
                    raise ValueError(f"store {shown}: no arbiter store there (nothing has run on it yet)")
        else:
            with schema_lock(db) as connection:
                metadata.create_all(connection)
    except (SQLAlchemyError, sqlite3.Error, ValueError) as e:
        db.dispose()
        if isinstance(e, ValueError):
            raise
        reason = getattr(e, "orig", None) or e
        raise ValueError(f"store {shown}: cannot open: {' '.join(str(reason).split())}") from None
    return db


def _run_from_row(row: Any) -> Run:
    """Decode a ``runs`` row."""
    return Run(
        id=row.id,
        kind=RunKind(row.kind),
        game=row.game,
        config=json.loads(row.config),
        fingerprint=row.fingerprint,
        state=RunState(row.state),
        counted_batches=row.counted_batches,
        decision=row.decision,
        error=row.error,
        created_at=row.created_at,
        updated_at=row.updated_at,
        finished_at=row.finished_at,
    )


def _result_from_row(row: Any) -> StoredResult:
    """Decode a ``results`` row."""
    return StoredResult(
        batch_index=row.batch_index,
        pentanomial=[getattr(row, col) for col in PENTANOMIAL_COLUMNS],
        wdl=[getattr(row, col) for col in WDL_COLUMNS],
        cpu_seconds=row.cpu_seconds,
    )


class Store:
    """Transactional access to the runs, batches, results and game records of one URL."""

    def __init__(self, url: str | None = None, *, create: bool = True, read_only: bool = False) -> None:
        """Open the store at ``url`` (see :func:`store_url`), creating it if needed and ``create``.
        ``read_only``: an existing store, on connections the database itself keeps from writing
        (see :func:`read_only_connect`), with no table created and no lock taken, so that it can be
        read beside the coordinators writing it without ever changing or blocking them."""
        self.url = store_url(url)
        self.read_only = read_only
        self.engine = _open_engine(self.url, create, read_only)

    def close(self) -> None:
        """Release the connection pool."""
        self.engine.dispose()

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One transaction: committed when the block ends, rolled back if it raises."""
        with self.engine.begin() as connection:
            yield connection

    # runs -------------------------------------------------------------------------------------

    def create_run(self, kind: RunKind, game: str, config: dict[str, Any], fingerprint: str) -> int:
        """Insert a new run in state ``running``; its id."""
        stamp = now()
        with self.transaction() as c:
            inserted = c.execute(
                insert(runs).values(
                    kind=kind,
                    game=game,
                    config=json.dumps(config, sort_keys=True),
                    fingerprint=fingerprint,
                    state=RunState.RUNNING,
                    counted_batches=0,
                    created_at=stamp,
                    updated_at=stamp,
                )
            )
            key = inserted.inserted_primary_key
            assert key is not None
            return int(key[0])

    def get_run(self, run_id: int) -> Run | None:
        """The run with ``run_id``, or None."""
        with self.engine.connect() as c:
            row = c.execute(select(runs).where(runs.c.id == run_id)).first()
        return _run_from_row(row) if row is not None else None

    def list_runs(self, kind: RunKind | None = None) -> list[Run]:
        """All runs (of ``kind`` if given), oldest first."""
        query = select(runs).order_by(runs.c.id)
        if kind is not None:
            query = query.where(runs.c.kind == kind)
        with self.engine.connect() as c:
            return [_run_from_row(row) for row in c.execute(query)]

    def find_unfinished(self, kind: RunKind, fingerprint: str) -> Run | None:
        """The latest running or interrupted run with this configuration fingerprint, if any."""
        query = (
            select(runs)
            .where(runs.c.kind == kind, runs.c.fingerprint == fingerprint)
            .where(runs.c.state.in_([RunState.RUNNING, RunState.INTERRUPTED]))
            .order_by(runs.c.id.desc())
        )
        with self.engine.connect() as c:
            row = c.execute(query).first()
        return _run_from_row(row) if row is not None else None

    def update_run(
        self,
        run_id: int,
        *,
        state: RunState | None = None,
        counted_batches: int | None = None,
        decision: str | None = None,
        error: str | None = None,
        finished: bool = False,
    ) -> None:
        """Change a run's state / counted prefix / decision in one transaction."""
        values: dict[str, Any] = {"updated_at": now()}
        if state is not None:
            if state not in set(RunState):
                raise ValueError(f"state: unknown run state {state!r}")
            values["state"] = RunState(state)
        if counted_batches is not None:
            values["counted_batches"] = counted_batches
        if decision is not None:
            values["decision"] = decision
        if error is not None:
            values["error"] = error
        values["finished_at"] = values["updated_at"] if finished else None
        with self.transaction() as c:
            c.execute(update(runs).where(runs.c.id == run_id).values(**values))

    # batches ----------------------------------------------------------------------------------

    def start_batch(self, run_id: int, batch_index: int, openings: Sequence[str], seed: int) -> int:
        """Mark a batch as sent (inserting it on first use); the number of attempts so far. One
        statement (an upsert) on SQLite and PostgreSQL: it runs once per batch sent."""
        stamp = now()
        values = {
            "run_id": run_id,
            "batch_index": batch_index,
            "openings": json.dumps(list(openings)),
            "seed": seed,
            "state": BatchState.RUNNING,
            "attempts": 1,
            "updated_at": stamp,
        }
        again = {"state": BatchState.RUNNING, "attempts": batches.c.attempts + 1, "updated_at": stamp}
        key = (batches.c.run_id == run_id) & (batches.c.batch_index == batch_index)
        with self.transaction() as c:
            dialect = c.dialect.name
            if dialect in UPSERT_DIALECTS:
                upsert = UPSERT_DIALECTS[dialect](batches).values(**values)
                statement = upsert.on_conflict_do_update(
                    index_elements=[batches.c.run_id, batches.c.batch_index],
                    set_=again,
                    where=batches.c.state != BatchState.DONE,
                ).returning(batches.c.attempts)
                attempts = c.execute(statement).scalar()
                if attempts is not None:
                    return int(attempts)
            else:
                row = c.execute(select(batches.c.attempts).where(key)).first()
                if row is None:
                    c.execute(insert(batches).values(**values))
                    return 1
                c.execute(update(batches).where(key, batches.c.state != BatchState.DONE).values(**again))
            return int(c.execute(select(batches.c.attempts).where(key)).scalar() or 0)

    def refuse_batch(self, run_id: int, batch_index: int, reason: str, worker: str | None = None) -> None:
        """Record that a batch's answer was refused (or its work failed), with the reason and the
        worker it came from (None: it names nobody)."""
        stamp = now()
        with self.transaction() as c:
            c.execute(
                update(batches)
                .where(batches.c.run_id == run_id, batches.c.batch_index == batch_index)
                .where(batches.c.state != BatchState.DONE)
                .values(
                    state=BatchState.REFUSED, refusal=reason, worker=_clip_worker(worker), updated_at=stamp
                )
            )
            c.execute(
                insert(refusal_log).values(
                    run_id=run_id,
                    batch_index=batch_index,
                    worker=_clip_worker(worker),
                    reason=reason,
                    created_at=stamp,
                )
            )

    def refusals_by_worker(self, run_id: int) -> dict[str | None, int]:
        """How many answers of each worker were refused in a run (None: those that named nobody)."""
        query = (
            select(refusal_log.c.worker, func.count())
            .where(refusal_log.c.run_id == run_id)
            .group_by(refusal_log.c.worker)
        )
        with self.engine.connect() as c:
            return {worker: int(count) for worker, count in c.execute(query)}

    def release_batches(self, run_id: int) -> None:
        """Put a run's batches still marked ``running`` back to ``pending`` (their work was dropped)."""
        with self.transaction() as c:
            c.execute(
                update(batches)
                .where(batches.c.run_id == run_id, batches.c.state == BatchState.RUNNING)
                .values(state=BatchState.PENDING, updated_at=now())
            )

    def refusals(self, run_id: int) -> list[Refusal]:
        """Batches of a run that had a result refused, with the last reason."""
        query = (
            select(batches.c.batch_index, batches.c.attempts, batches.c.state, batches.c.refusal)
            .where(batches.c.run_id == run_id, batches.c.refusal.is_not(None))
            .order_by(batches.c.batch_index)
        )
        with self.engine.connect() as c:
            return [Refusal(r.batch_index, r.attempts, r.state, r.refusal) for r in c.execute(query)]

    def batch_attempts(self, run_id: int, batch_index: int) -> int:
        """How many times a batch was sent (0 if never)."""
        query = select(batches.c.attempts).where(
            batches.c.run_id == run_id, batches.c.batch_index == batch_index
        )
        with self.engine.connect() as c:
            value = c.execute(query).scalar()
        return int(value or 0)

    # results ----------------------------------------------------------------------------------

    def record_result(
        self,
        run_id: int,
        batch_index: int,
        result: BatchResult,
        tallied: tuple[list[int], list[int]] | None = None,
    ) -> bool:
        """Store a checked result, its game records and the batch's ``done`` state together.

        The counts stored are tallied from the game records, never taken from the worker's claim:
        here, unless the caller passes its own tally of them (``tallied``). Returns False (and
        changes nothing) when the batch already has a result: each (run, batch) is stored, and so
        counted, at most once.
        """
        pentanomial, wdl = tallied if tallied is not None else tally(result.games)
        stamp = now()
        try:
            with self.transaction() as c:
                c.execute(  # a second result for the batch breaks the key: IntegrityError below
                    insert(results).values(
                        run_id=run_id,
                        batch_index=batch_index,
                        **dict(zip(PENTANOMIAL_COLUMNS, pentanomial, strict=True)),
                        **dict(zip(WDL_COLUMNS, wdl, strict=True)),
                        nodes=json.dumps(result.nodes),
                        cpu_seconds=result.cpu_seconds,
                        worker=_clip_worker(result.worker),
                        engine_version=result.engine_version,
                        created_at=stamp,
                    )
                )
                c.execute(
                    insert(batch_games).values(
                        run_id=run_id,
                        batch_index=batch_index,
                        games=orjson.dumps(result.games, default=tuple).decode(),  # records as arrays
                    )
                )
                c.execute(
                    update(batches)
                    .where(batches.c.run_id == run_id, batches.c.batch_index == batch_index)
                    .values(state=BatchState.DONE, worker=_clip_worker(result.worker), updated_at=stamp)
                )
        except IntegrityError:  # another writer stored the same batch first
            return False
        return True

    def results(self, run_id: int) -> list[StoredResult]:
        """Every stored result of a run, in batch order (counted or not)."""
        query = select(results).where(results.c.run_id == run_id).order_by(results.c.batch_index)
        with self.engine.connect() as c:
            return [_result_from_row(row) for row in c.execute(query)]

    def result(self, run_id: int, batch_index: int) -> StoredResult | None:
        """The stored result of one batch, or None."""
        query = select(results).where(results.c.run_id == run_id, results.c.batch_index == batch_index)
        with self.engine.connect() as c:
            row = c.execute(query).first()
        return _result_from_row(row) if row is not None else None

    def totals(self, run_id: int, counted_batches: int | None = None) -> Totals:
        """Counts summed over batches ``0 .. counted_batches - 1`` (default: the run's counted prefix)."""
        with self.engine.connect() as c:
            if counted_batches is None:
                counted_batches = (
                    c.execute(select(runs.c.counted_batches).where(runs.c.id == run_id)).scalar() or 0
                )
            columns = [*PENTANOMIAL_COLUMNS, *WDL_COLUMNS, "cpu_seconds"]
            row = c.execute(
                select(
                    *[func.coalesce(func.sum(results.c[col]), 0) for col in columns],
                    func.count(),
                ).where(results.c.run_id == run_id, results.c.batch_index < counted_batches)
            ).one()
        values = list(row)
        return Totals(
            pentanomial=[int(v) for v in values[0:5]],
            wdl=[int(v) for v in values[5:8]],
            batches=int(values[9]),
            cpu_seconds=float(values[8]),
        )

    def game_records(self, run_id: int, batch_index: int | None = None) -> list[dict[str, Any]]:
        """Game records of a run (or one batch), in batch and game order."""
        return [
            record for batch in self.iter_batch_games(run_id, batch=batch_index) for record in batch.records
        ]

    def iter_batch_games(
        self,
        run_id: int,
        *,
        below: int | None = None,
        batch: int | None = None,
        worker: str | None = None,
    ) -> Iterator[BatchGames]:
        """The stored games of a run batch by batch, in batch order, streamed (one batch in memory
        at a time): of the batches below ``below`` (the counted prefix, say), or only ``batch``,
        or only ``worker``'s."""
        query = (
            select(batch_games.c.batch_index, batch_games.c.games, results.c.worker, results.c.created_at)
            .join(
                results,
                and_(
                    results.c.run_id == batch_games.c.run_id,
                    results.c.batch_index == batch_games.c.batch_index,
                ),
            )
            .where(batch_games.c.run_id == run_id)
            .order_by(batch_games.c.batch_index)
        )
        if below is not None:
            query = query.where(batch_games.c.batch_index < below)
        if batch is not None:
            query = query.where(batch_games.c.batch_index == batch)
        if worker is not None:
            query = query.where(results.c.worker == worker)
        with self.engine.connect() as c:
            for row in c.execution_options(yield_per=STREAM_BATCHES).execute(query):
                records = [
                    dict(zip(RECORD_FIELDS, record, strict=True)) for record in orjson.loads(row.games)
                ]
                yield BatchGames(row.batch_index, row.worker, row.created_at, records)

    # quarantined workers -------------------------------------------------------------------------

    def quarantine_worker(self, run_id: int, worker: str, reason: str) -> list[int]:
        """Discard every result ``worker`` gave ``run_id`` (their batches go back to ``pending``)
        and record why, in one transaction; the batches discarded, in order. Once per worker."""
        worker = _clip_worker(worker) or worker  # stored names are clipped; match them so
        stamp = now()
        with self.transaction() as c:
            known = c.execute(
                select(quarantines.c.worker).where(
                    quarantines.c.run_id == run_id, quarantines.c.worker == worker
                )
            ).first()
            if known is not None:
                return []
            mine = and_(results.c.run_id == run_id, results.c.worker == worker)
            lost = sorted(int(i) for i in c.execute(select(results.c.batch_index).where(mine)).scalars())
            if lost:
                c.execute(
                    delete(batch_games).where(
                        batch_games.c.run_id == run_id, batch_games.c.batch_index.in_(lost)
                    )
                )
                c.execute(delete(results).where(mine))
                c.execute(
                    update(batches)
                    .where(batches.c.run_id == run_id, batches.c.batch_index.in_(lost))
                    .values(state=BatchState.PENDING, refusal=f"discarded: {reason}", updated_at=stamp)
                )
            c.execute(
                insert(quarantines).values(
                    run_id=run_id, worker=worker, reason=reason, discarded_batches=len(lost), created_at=stamp
                )
            )
        return lost

    def quarantines(self, run_id: int) -> list[Quarantine]:
        """The workers quarantined in a run, oldest first."""
        query = select(quarantines).where(quarantines.c.run_id == run_id).order_by(quarantines.c.created_at)
        with self.engine.connect() as c:
            return [
                Quarantine(r.worker, r.reason, r.discarded_batches, r.created_at) for r in c.execute(query)
            ]

    # reading only (the dashboard) --------------------------------------------------------------

    def ping(self) -> None:
        """Raise unless the store answers a query (a health check)."""
        with self.engine.connect() as c:
            c.execute(select(runs.c.id).limit(1)).all()

    def activity(self, run_ids: Sequence[int]) -> Activity:
        """Results stored for the runs ``run_ids``, their counted batches and latest change."""
        ids = list(run_ids)
        with self.engine.connect() as c:
            counted, latest = c.execute(
                select(func.coalesce(func.sum(runs.c.counted_batches), 0), func.max(runs.c.updated_at)).where(
                    runs.c.id.in_(ids)
                )
            ).one()
            stored = c.execute(
                select(func.count()).select_from(results).where(results.c.run_id.in_(ids))
            ).scalar()
        return Activity(results=int(stored or 0), counted_batches=int(counted), updated_at=latest)

    def workers(self) -> list[WorkerTotals]:
        """Every worker that stored a result or had one refused, by name."""
        games = results.c.wins + results.c.draws + results.c.losses
        stored = (
            select(
                results.c.worker,
                func.count(func.distinct(results.c.run_id)).label("runs"),
                func.count().label("batches"),
                func.coalesce(func.sum(games), 0).label("games"),
                func.coalesce(func.sum(results.c.cpu_seconds), 0.0).label("cpu"),
                func.max(results.c.created_at).label("last_seen"),
            )
            .where(results.c.worker.is_not(None))
            .group_by(results.c.worker)
        )
        refused = (
            select(refusal_log.c.worker, func.count().label("refused"))
            .where(refusal_log.c.worker.is_not(None))
            .group_by(refusal_log.c.worker)
        )
        with self.engine.connect() as c:
            rows = {r.worker: r for r in c.execute(stored)}
            refusals = {r.worker: int(r.refused) for r in c.execute(refused)}
        out = []
        for name in sorted(set(rows) | set(refusals)):
            r = rows.get(name)
            out.append(
                WorkerTotals(
                    worker=name,
                    runs=int(r.runs) if r else 0,
                    batches=int(r.batches) if r else 0,
                    games=int(r.games) if r else 0,
                    cpu_seconds=float(r.cpu) if r else 0.0,
                    refused=refusals.get(name, 0),
                    last_seen=r.last_seen if r else None,
                )
            )
        return out

    def worker_refusals(self, worker: str, limit: int | None = None) -> list[WorkerRefusal]:
        """The answers of ``worker`` that were refused, newest first."""
        query = (
            select(refusal_log)
            .where(refusal_log.c.worker == worker)
            .order_by(refusal_log.c.id.desc())
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [WorkerRefusal(r.run_id, r.batch_index, r.reason, r.created_at) for r in c.execute(query)]

    def worker_runs(self, worker: str) -> list[int]:
        """The runs ``worker`` stored a result for or handled a batch of, newest first."""
        query = (
            select(batches.c.run_id)
            .where(batches.c.worker == worker)
            .union(select(results.c.run_id).where(results.c.worker == worker))
        )
        with self.engine.connect() as c:
            return sorted((int(i) for i in c.execute(query).scalars()), reverse=True)

    def worker_batches(self, worker: str, limit: int | None = None, offset: int = 0) -> list[WorkerBatch]:
        """The batches ``worker`` handled last or stored the result of, latest change first."""
        joined = batches.outerjoin(
            results,
            and_(results.c.run_id == batches.c.run_id, results.c.batch_index == batches.c.batch_index),
        )
        query = (
            select(
                batches.c.run_id,
                batches.c.batch_index,
                batches.c.state,
                batches.c.attempts,
                batches.c.refusal,
                batches.c.updated_at,
                (results.c.wins + results.c.draws + results.c.losses).label("games"),
                results.c.cpu_seconds,
                results.c.created_at,
            )
            .select_from(joined)
            .where(or_(batches.c.worker == worker, results.c.worker == worker))
            .order_by(batches.c.updated_at.desc(), batches.c.run_id.desc(), batches.c.batch_index.desc())
            .offset(offset)
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [
                WorkerBatch(
                    run_id=r.run_id,
                    batch_index=r.batch_index,
                    state=r.state,
                    attempts=r.attempts,
                    refusal=r.refusal,
                    updated_at=r.updated_at,
                    games=None if r.games is None else int(r.games),
                    cpu_seconds=r.cpu_seconds,
                    stored_at=r.created_at,
                )
                for r in c.execute(query)
            ]

    def row_counts(self) -> dict[str, int]:
        """Rows per table (for checks that a failed command left the store unchanged)."""
        with self.engine.connect() as c:
            return {
                table.name: int(c.execute(select(func.count()).select_from(table)).scalar() or 0)
                for table in (runs, batches, results, batch_games, refusal_log, quarantines)
            }
