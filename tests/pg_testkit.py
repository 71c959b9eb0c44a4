"""A real PostgreSQL server for the tests: its own cluster in a temporary folder, on a free loopback
port, torn down at the end of the session (like :class:`celery_testkit.RedisServer` for Redis).

Not a test module; importable from every test folder because ``tests`` is on pytest's pythonpath.
PostgreSQL refuses to run as root, so as root the cluster belongs to the ``postgres`` OS user and
every server program runs through ``runuser``; as anyone else it runs as that user. The server
listens on 127.0.0.1 only (no Unix socket in a shared folder), asks for a password (SCRAM), and
keeps nothing durable (fsync off: a test cluster dies with the session). Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import psycopg
from celery_testkit import free_port, wait_until
from psycopg import sql

#: Bound on initdb and on the server's start (seconds).
START_TIMEOUT = 60.0
#: Bound on the server's stop (seconds).
STOP_TIMEOUT = 30.0
#: The cluster's superuser (and the user of every test database).
USER = "arbiter"
#: The OS user that owns the cluster when the tests run as root.
OS_USER = "postgres"

#: The ``store_urls`` fixture (``tests/conftest.py``): ``store_urls(label="store")`` is the URL of a
#: fresh, empty store of the test's store kind.
StoreUrls = Callable[..., str]


def postgres_bindir() -> Path | None:
    """The folder of ``initdb`` and ``postgres``: Debian's newest ``/usr/lib/postgresql/N/bin``, else
    wherever ``initdb`` is on the PATH; None if PostgreSQL's server is not installed."""

    def version(path: str) -> int:
        match = re.search(r"/postgresql/(\d+)/", path)
        return int(match.group(1)) if match else 0

    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=version)
    if candidates:
        return Path(candidates[-1]).parent
    initdb = shutil.which("initdb")
    return Path(os.path.realpath(initdb)).parent if initdb else None


def unavailable_reason() -> str | None:
    """Why a test cluster cannot be started here, or None if it can."""
    if postgres_bindir() is None:
        return "PostgreSQL's server is not installed (scripts/ensure-postgres.sh installs it)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(OS_USER)
        except KeyError:
            return f"running as root, but there is no {OS_USER!r} OS user to run PostgreSQL as"
        if shutil.which("runuser") is None:
            return "running as root, but runuser (util-linux) is missing"
    return None


class PostgresServer:
    """One PostgreSQL cluster on a free loopback port; :meth:`database` makes a fresh database."""

    def __init__(self, bindir: Path) -> None:
        """Nothing runs until :meth:`start`."""
        self.bindir = bindir
        self.port = free_port()
        self.password = secrets.token_hex(12)
        self.directory = Path(tempfile.mkdtemp(prefix="arbiter-pg-"))
        self.data = self.directory / "data"
        self.log = self.directory / "server.log"
        self.process: subprocess.Popen[bytes] | None = None
        self._names = itertools.count(1)

    # running as the cluster's owner ---------------------------------------------------------------

    def _as_owner(self, argv: list[str]) -> list[str]:
        """``argv`` run as the cluster's owner (``postgres`` when we are root)."""
        if os.geteuid() == 0:
            return ["runuser", "-u", OS_USER, "--", *argv]
        return argv

    def _give_to_owner(self) -> None:
        """As root, hand the temporary folder to the ``postgres`` user (initdb writes into it)."""
        if os.geteuid() == 0:
            entry = pwd.getpwnam(OS_USER)
            os.chown(self.directory, entry.pw_uid, entry.pw_gid)
        os.chmod(self.directory, 0o700)

    # life cycle -----------------------------------------------------------------------------------

    def start(self) -> None:
        """initdb, then start the server and wait until it accepts a login."""
        self._give_to_owner()
        pwfile = self.directory / "pwfile"
        pwfile.write_text(self.password + "\n")
        if os.geteuid() == 0:
            entry = pwd.getpwnam(OS_USER)
            os.chown(pwfile, entry.pw_uid, entry.pw_gid)
        pwfile.chmod(0o600)
        initdb = [str(self.bindir / "initdb"), "-D", str(self.data), "-U", USER, f"--pwfile={pwfile}"]
        initdb += ["--auth=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync"]
        done = subprocess.run(
            self._as_owner(initdb), capture_output=True, text=True, timeout=START_TIMEOUT, cwd="/"
        )
        pwfile.unlink()
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
        server = [str(self.bindir / "postgres"), "-D", str(self.data), "-p", str(self.port)]
        server += ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="]
        server += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        server += ["-c", "max_connections=300", "-c", "shared_buffers=64MB"]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                self._as_owner(server), stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd="/"
            )
        wait_until(self._accepts, START_TIMEOUT, f"PostgreSQL on port {self.port}", interval=0.1)

    def _accepts(self) -> bool:
        """True once a login works; AssertionError with the log if the server died."""
        if self.process is not None and self.process.poll() is not None:
            raise AssertionError(f"postgres exited ({self.process.returncode}):\n{self.output()}")
        try:
            with psycopg.connect(self.dsn("postgres"), connect_timeout=2):
                return True
        except psycopg.OperationalError:
            return False

    def output(self) -> str:
        """The server log so far."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        """Stop the server (a fast shutdown, SIGKILL if it hangs) and delete the cluster."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGINT)  # PostgreSQL's "fast" shutdown
            try:
                process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=STOP_TIMEOUT)
        shutil.rmtree(self.directory, ignore_errors=True)

    # databases ------------------------------------------------------------------------------------

    def dsn(self, database: str) -> str:
        """A libpq connection string for ``database``."""
        return f"host=127.0.0.1 port={self.port} user={USER} password={self.password} dbname={database}"

    def url(self, database: str, driver: str = "+psycopg") -> str:
        """The SQLAlchemy URL of ``database`` (``driver`` ``""`` gives plain ``postgresql://``)."""
        return f"postgresql{driver}://{USER}:{self.password}@127.0.0.1:{self.port}/{database}"

    def _admin(self, statement: sql.Composed) -> None:
        """Run one statement outside a transaction (CREATE / DROP DATABASE need that)."""
        with psycopg.connect(self.dsn("postgres"), autocommit=True, connect_timeout=5) as c:
            c.execute(statement)

    def database(self, label: str = "t") -> str:
        """Create a fresh, empty database; its name."""
        name = f"{re.sub(r'[^a-z0-9_]', '_', label.lower())[:40]}_{next(self._names)}"
        self._admin(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return name

    def drop(self, name: str) -> None:
        """Drop a database, closing whatever connections to it are still open."""
        self._admin(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def start_server() -> PostgresServer:
    """A started server (RuntimeError / AssertionError if it cannot start; nothing left behind)."""
    bindir = postgres_bindir()
    assert bindir is not None
    server = PostgresServer(bindir)
    try:
        server.start()
    except BaseException:
        server.stop()
        raise
    return server
