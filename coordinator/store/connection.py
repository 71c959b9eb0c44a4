"""Opening a store: the database engine and how it connects (SQLite in WAL mode, PostgreSQL with
bounded connects, connections that can only read), the schema lock, the schema brought up to
date (``migrations``), and the transactions every store module writes in.
"""

from __future__ import annotations

import contextvars
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.sql.ddl import ExecutableDDLElement

from coordinator.store import migrations
from coordinator.store.urls import DEFAULT_URL, STORE_ENV, engine_url, mask_url, store_url
from wire.masking import password_has_at, scrub

SQLITE_BUSY_TIMEOUT_MS = 30_000
#: Pause between two tries at switching a new SQLite file to WAL (see :func:`_set_wal`).
SQLITE_WAL_RETRY_SECONDS = 0.01
#: Seconds a PostgreSQL connection attempt may take (libpq's default is to wait for TCP to give up).
POSTGRES_CONNECT_TIMEOUT = 10
#: Key of the PostgreSQL advisory lock held while the schema is created or upgraded (any fixed
#: 64-bit number).
SCHEMA_LOCK_KEY = 0x6172626974657201
#: Execution option that marks the engine of a store opened read-only (see :func:`schema_lock`).
READ_ONLY_OPTION = "arbiter_read_only"
#: Backends whose connections can be made read-only by the database itself.
READ_ONLY_BACKENDS = ("sqlite", "postgresql")


@contextmanager
def schema_lock(engine: Engine) -> Iterator[Connection]:
    """A transaction to create or upgrade the schema in, that holds the store's schema lock: two
    coordinators starting together must not both create the same table (the check for a
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


def open_engine(url: str, create: bool, read_only: bool = False) -> Engine:
    """A SQLAlchemy engine for ``url``, its schema created or upgraded to this code's (``read_only``:
    whose connections can only read, on a store already at this code's schema); ValueError naming
    a bad URL or a schema this code cannot use, and FileNotFoundError for a SQLite file that does
    not exist unless ``create``."""
    shown = mask_url(url)
    if password_has_at(url):
        raise ValueError(f"store {shown}: its password holds an '@': write it percent-encoded, as %40")
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
        raise ValueError(
            f"store {shown}: cannot open: {scrub(' '.join(str(e).split()), url)}{hint}"
        ) from None
    except (ArgumentError, SQLAlchemyError) as e:
        raise ValueError(f"store {shown}: cannot open: {scrub(' '.join(str(e).split()), url)}") from None
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
                migrations.check(connection, shown)
        else:
            with schema_lock(db) as connection:
                migrations.upgrade(connection, shown)
    except (SQLAlchemyError, sqlite3.Error, ValueError) as e:
        db.dispose()
        if isinstance(e, ValueError):
            raise
        reason = scrub(" ".join(str(getattr(e, "orig", None) or e).split()), url)
        raise ValueError(f"store {shown}: cannot open: {reason}") from None
    return db


class Database:
    """An open store's engine and its transactions: what every store module builds on."""

    def __init__(self, url: str | None = None, *, create: bool = True, read_only: bool = False) -> None:
        """Open the store at ``url`` (see :func:`store_url`), creating it if needed and ``create``.
        ``read_only``: an existing store, on connections the database itself keeps from writing
        (see :func:`read_only_connect`), with nothing created and no lock taken, so that it can be
        read beside the coordinators writing it without ever changing or blocking them."""
        self.url = store_url(url)
        self.read_only = read_only
        self.engine = open_engine(self.url, create, read_only)

    def close(self) -> None:
        """Release the connection pool."""
        self.engine.dispose()

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One transaction: committed when the block ends, rolled back if it raises."""
        with self.engine.begin() as connection:
            yield connection
