"""Helpers for the distributed tests: a real redis-server and real Celery worker processes.

Not a test module; importable from every test folder because ``tests`` is on pytest's pythonpath.
Everything started here runs on the loopback interface, in its own process group, and is killed by
the fixtures of ``tests/e2e_tests/conftest.py``. Every wait polls against a deadline.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import redis
from process_testkit import CommandPause
from sprt_testkit import cli_command

import engine
from wire.celeryconfig import PRIORITIES, create_app, versioned_queue
from wire.progress import PROGRESS_STATE

T = TypeVar("T")

#: Bound on starting a redis-server or a worker (seconds).
START_TIMEOUT = 45.0
#: Databases of a test redis-server: one per test of a pytest run (the session's server).
DATABASES = 4096
#: Host part of every test worker's node name.
NODE_HOST = "arbiter-test"
#: Folder of the test-only Celery app that forges results.
E2E_DIR = Path(__file__).resolve().parent / "e2e_tests"

#: The states of a task a worker is playing (started; then telling its games played).
PLAYING_STATES = ("STARTED", PROGRESS_STATE)


def wait_until(predicate: Callable[[], T], timeout: float, what: str, interval: float = 0.05) -> T:
    """Poll ``predicate`` until it returns something truthy; AssertionError after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


def queue_keys(queue: str = "arbiter") -> list[str]:
    """The Redis lists that hold this engine's waiting batches of ``queue``, one per priority
    level (kombu names level ``p`` ``QUEUE:p``, level 0 plain ``QUEUE``)."""
    name = versioned_queue(queue, engine.ENGINE_VERSION)
    return [name if level == 0 else f"{name}:{level}" for level in PRIORITIES]


def waiting_tasks(client: redis.Redis, queue: str = "arbiter") -> list[bytes]:
    """Every message waiting in ``queue`` (all priority levels), highest priority first."""
    return [raw for key in queue_keys(queue) for raw in client.lrange(key, 0, -1)]


def free_port() -> int:
    """A TCP port nothing listens on right now (loopback)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def redis_server_path() -> str | None:
    """The ``redis-server`` executable, if installed."""
    return shutil.which("redis-server")


def _kill_group(process: subprocess.Popen[Any], sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` to ``process``'s whole process group (it leads one) and reap it."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)


class RedisServer:
    """A redis-server on a free loopback port, persistence off (a restart loses every key)."""

    def __init__(self, directory: Path, executable: str) -> None:
        """Nothing runs until :meth:`start`."""
        self.directory = directory
        self.executable = executable
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        """Its broker URL (database 0)."""
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        """A client with short timeouts."""
        return redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=0.5, socket_timeout=2)

    def ping(self) -> bool:
        """True if the server answers."""
        try:
            return bool(self.client().ping())
        except redis.exceptions.RedisError:
            return False

    def start(self) -> None:
        """Start it and wait until it answers."""
        self.starts += 1
        argv = [self.executable, "--port", str(self.port), "--bind", "127.0.0.1"]
        argv += ["--save", "", "--appendonly", "no", "--dir", str(self.directory)]
        argv += ["--databases", str(DATABASES)]
        with open(self.directory / f"redis-{self.starts}.log", "wb") as log:
            self.process = subprocess.Popen(
                argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        wait_until(self.ping, START_TIMEOUT, f"redis-server on port {self.port}")

    def kill(self) -> None:
        """SIGKILL it (nothing is saved)."""
        if self.process is not None:
            _kill_group(self.process)
            self.process = None

    def restart(self) -> None:
        """Kill it and start a fresh, empty one on the same port."""
        self.kill()
        self.start()


class RedisDatabase:
    """One numbered database of a shared :class:`RedisServer`: a test's own broker and result
    backend (Celery keys, queues and fanout channels are all per database), emptied when taken and
    when given back."""

    def __init__(self, server: RedisServer, number: int) -> None:
        """Database ``number`` of ``server``, emptied."""
        self.server = server
        self.number = number
        self.client().flushdb()

    @property
    def url(self) -> str:
        """Its broker URL."""
        return f"redis://127.0.0.1:{self.server.port}/{self.number}"

    def client(self) -> redis.Redis:
        """A client of this database with short timeouts."""
        return redis.Redis(
            host="127.0.0.1",
            port=self.server.port,
            db=self.number,
            socket_connect_timeout=0.5,
            socket_timeout=2,
        )

    def release(self) -> None:
        """Empty it."""
        self.client().flushdb()


#: What a test talks to: a database of the shared server, or a server of its own.
RedisTarget = RedisServer | RedisDatabase


def task_metas(server: RedisTarget) -> list[dict[str, Any]]:
    """Every task state stored in ``server``'s result backend."""
    client = server.client()
    metas = []
    for key in client.scan_iter("celery-task-meta-*"):
        value = client.get(key)
        if value:
            metas.append(json.loads(value))
    return metas


def started_tasks(server: RedisTarget, node: str) -> list[str]:
    """The tasks worker ``node`` is playing: started (``STARTED`` in the result backend, or
    ``PROGRESS`` once it told its games played, which the worker's own result overwrites once it
    is stored) and not finished. While the worker is stopped this cannot change: such a worker is
    busy, and takes no other task (prefetch 1, acknowledged late)."""
    return [
        str(meta["task_id"])
        for meta in task_metas(server)
        if meta.get("status") in PLAYING_STATES and (meta.get("result") or {}).get("hostname") == node
    ]


class WorkerProcess:
    """One Celery worker process (``celery worker`` or ``arbiter worker``) and its log."""

    def __init__(self, name: str, process: subprocess.Popen[bytes], log: Path) -> None:
        """Wrap a started process."""
        self.name = name
        self.process = process
        self.log = log

    @property
    def node(self) -> str:
        """Its Celery node name."""
        return f"{self.name}@{NODE_HOST}"

    def output(self) -> str:
        """What it printed so far."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Signal the worker and all its pool processes (as if the machine died) and reap it."""
        _kill_group(self.process, sig)


def pause_a_playing_worker(
    server: RedisTarget, fleet: list[WorkerProcess], alive: Callable[[], object], timeout: float
) -> tuple[WorkerProcess, CommandPause]:
    """Stop, check, act: the first worker of ``fleet`` seen playing a batch is stopped (worker and
    pool), and returned with its pause once the batch is still started and not stored while it is
    stopped: until it is resumed it takes no other batch (prefetch 1, acknowledged late), so the
    others get the rest. ``alive`` is asked at each poll (it may raise AssertionError: the run
    ended); AssertionError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        alive()
        for worker in fleet:
            if started_tasks(server, worker.node):
                pause = CommandPause(worker.process.pid)
                assert pause.pause() > 0
                if started_tasks(server, worker.node):
                    return worker, pause
                pause.resume()
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for a worker to play a batch")
        time.sleep(0.05)  # polling interval, not synchronisation: the deadline bounds the wait


class WorkerPool:
    """Starts workers against one broker and kills them all at :meth:`stop_all`."""

    def __init__(self, broker: str, directory: Path) -> None:
        """Workers will use ``broker``; logs go to ``directory``."""
        self.broker = broker
        self.directory = directory
        self.started: list[WorkerProcess] = []
        self._control = create_app(broker=broker)

    def start(
        self,
        name: str,
        *,
        via: str = "celery",
        app: str = "worker.celery_app",
        env: dict[str, str] | None = None,
        wait: bool = True,
    ) -> WorkerProcess:
        """Start one worker of concurrency 1 (``via`` ``celery`` or ``arbiter``) and wait for it."""
        node = f"{name}@{NODE_HOST}"
        if via == "arbiter":
            argv = [*cli_command("worker"), "--broker", self.broker, "--name", node]
            argv += ["--concurrency", "1", "--loglevel", "info"]
        else:
            argv = [sys.executable, "-m", "celery", "-A", app, "worker", "--hostname", node]
            argv += ["--concurrency", "1", "--loglevel", "INFO", "--without-gossip", "--without-mingle"]
        environment = {**os.environ, "ARBITER_BROKER": self.broker, **(env or {})}
        environment.pop("ARBITER_RESULT_BACKEND", None)
        environment["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(E2E_DIR), environment.get("PYTHONPATH", "")) if p
        )
        log = self.directory / f"worker-{name}.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, env=environment, start_new_session=True
            )
        worker = WorkerProcess(name, process, log)
        self.started.append(worker)
        if wait:
            self.wait_ready(worker)
        return worker

    def responds(self, node: str) -> bool:
        """True if ``node`` answers a ping."""
        try:
            replies = self._control.control.ping(destination=[node], timeout=0.5)
        except Exception:  # broker restarting
            return False
        return any(node in reply for reply in replies)

    def wait_ready(self, worker: WorkerProcess) -> None:
        """Wait until ``worker`` answers pings (or fail with its log if it died)."""

        def ready() -> bool:
            if worker.process.poll() is not None:
                raise AssertionError(f"worker {worker.name} exited:\n{worker.output()}")
            return self.responds(worker.node)

        wait_until(ready, START_TIMEOUT, f"worker {worker.name} to answer", interval=0.1)

    def stop_all(self) -> None:
        """Kill every worker started here."""
        for worker in self.started:
            worker.kill()
        self.started.clear()
        self._control.close()
