"""The server's loop: every unfinished run of its store is played to its end, each in a process of
its own (``arbiter resume N``, the command a user would type), while the server holds the run's
lease; a stop asked for ends the process; the fleet's shares are set; a run's end is announced.

A process per run, not a thread: a run is played exactly as from a terminal (the same code, the same
resumption after any interruption), one run's crash cannot take the others down, and the CPU of
twenty runs is spread over the machine's cores. Each process gets the fleet's secret from the
server, and SIGTERM when the server dies (``console.lifetime``), which stops it between two steps;
after a restart, including after ``kill -9``, the server takes its runs up again.
"""

from __future__ import annotations

import logging
import math
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import engine
from coordinator.console.lifetime import SUPERVISOR_ENV
from coordinator.registry import KINDS, kind_of
from coordinator.runs import RunState, decision_label
from coordinator.server.shares import Claim, fleet_shares
from coordinator.store import STORE_ENV, Run, ServiceRow, Store
from wire.celeryconfig import BROKER_ENV
from wire.secrecy import key_environment

log = logging.getLogger("arbiter.server")

#: Seconds a lease lasts unless renewed (renewed every tick).
LEASE_SECONDS = 30.0
#: Seconds a run's process gets to stop between two steps before it is killed.
STOP_SECONDS = 30.0
#: Seconds before a run whose process failed is tried again, doubling each time up to the most.
RETRY_FIRST = 5.0
RETRY_MOST = 300.0
#: The kinds a server plays (the runs people start; their own runs are played by them).
PLAYED_KINDS = tuple(k for k in KINDS if kind_of(k).started_by_user)


@dataclass(frozen=True)
class Ended:
    """A run the server played has ended (finished, failed or stopped)."""

    run: Run
    service: ServiceRow | None
    #: One line: how it ended (its result, or why it failed or stopped).
    headline: str


@dataclass
class Child:
    """The process playing one run."""

    process: subprocess.Popen[bytes]
    log: IO[bytes]
    stopping_since: float | None = None


@dataclass
class Supervisor:
    """Plays every unfinished run of ``store`` (opened read-write) under the name ``name``."""

    store: Store
    name: str
    store_url: str
    broker: str | None
    logs: Path
    concurrency: int | None = None
    verify_fraction: float | None = None
    on_end: Callable[[Ended], None] = lambda _ended: None
    lease_seconds: float = LEASE_SECONDS
    children: dict[int, Child] = field(default_factory=dict)
    #: Runs whose process failed: how often, and when to try again.
    retries: dict[int, int] = field(default_factory=dict)
    retry_at: dict[int, float] = field(default_factory=dict)
    #: Runs of another engine version (said once).
    skipped: set[int] = field(default_factory=set)

    def step(self) -> None:
        """One pass: reap ended processes, renew leases, stop what was stopped, start what is
        open, share the fleet."""
        self._reap()
        self.store.renew_leases(self.name, self.children, self.lease_seconds)
        services = self.store.services()
        open_runs = self.store.open_runs(PLAYED_KINDS)
        for run in open_runs:
            service = services.get(run.id)
            if service is not None and (service.held or service.deleted):
                self._hold(run)
            elif service is not None and service.approval != "approved":
                continue  # waits for an approver: nothing is played, or signed, before
            elif run.id not in self.children and run.state is not RunState.STOPPED and self._due(run):
                self._start(run)
        playing = [r for r in open_runs if r.id in self.children]
        self.store.set_shares(
            fleet_shares(
                Claim(r.id, s.owner, s.priority, s.throughput)
                if (s := services.get(r.id))
                else Claim(r.id, None, 0, 100)
                for r in playing
            )
        )

    # starting and stopping ------------------------------------------------------------------------

    def _due(self, run: Run) -> bool:
        """Whether ``run`` may start now: played by this server's engine, and not waiting to be
        tried again after its process failed."""
        version = run.engine_version
        if version != engine.ENGINE_VERSION:
            if run.id not in self.skipped:
                self.skipped.add(run.id)
                log.warning(
                    "run %d waits for a server of engine %s (this one plays %s)",
                    run.id,
                    version,
                    engine.ENGINE_VERSION,
                )
            return False
        return time.monotonic() >= self.retry_at.get(run.id, -math.inf)

    def _start(self, run: Run) -> None:
        """Start playing ``run`` if its lease can be taken (another server may hold it)."""
        if not self.store.take_lease(run.id, self.name, self.lease_seconds):
            return
        self.logs.mkdir(parents=True, exist_ok=True)
        log_file = (self.logs / f"run-{run.id}.log").open("ab")
        command = [sys.executable, "-m", "coordinator.cli", "resume", str(run.id), "--served-by", self.name]
        if self.concurrency is not None:
            command += ["--concurrency", str(self.concurrency)]
        if self.verify_fraction is not None:
            command += ["--verify-fraction", str(self.verify_fraction)]
        # credentials travel in the environment, never in a command line others can read
        environ = {
            **os.environ,
            **key_environment(),
            SUPERVISOR_ENV: str(os.getpid()),
            STORE_ENV: self.store_url,
            BROKER_ENV: self.broker or "",
        }
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT, env=environ
        )
        self.children[run.id] = Child(process, log_file)
        log.info("run %d (%s) started: process %d, log %s", run.id, run.kind, process.pid, log_file.name)

    def _hold(self, run: Run) -> None:
        """A stop was asked for: end the run's process, or mark it stopped when none plays it."""
        child = self.children.get(run.id)
        if child is None:
            if run.state is not RunState.STOPPED:
                self.store.update_run(run.id, state=RunState.STOPPED)
                self._ended(run.id)
            return
        if child.stopping_since is None:
            child.stopping_since = time.monotonic()
            child.process.send_signal(signal.SIGTERM)
        elif time.monotonic() - child.stopping_since > STOP_SECONDS:
            child.process.kill()

    def _reap(self) -> None:
        """Deal with every run whose process has ended."""
        for run_id, child in list(self.children.items()):
            status = child.process.poll()
            if status is None:
                continue
            del self.children[run_id]
            child.log.close()
            self._after(run_id, status, Path(child.log.name))

    def _after(self, run_id: int, status: int, log_path: Path) -> None:
        """The process of ``run_id`` ended with ``status``: release the run, and mark and announce
        how it ended."""
        self.store.release_lease(run_id, self.name)
        run = self.store.get_run(run_id)
        service = self.store.service(run_id)
        if run is None:
            return
        if run.state.unfinished and service is not None and (service.held or service.deleted):
            self.store.update_run(run_id, state=RunState.STOPPED)
        elif run.state.unfinished and status != 0:
            # Not the run's failure (that one is stored as such): its broker or store was away, or
            # its process crashed. The run stays unfinished and is tried again, later each time.
            tries = self.retries.get(run_id, 0) + 1
            delay = min(RETRY_FIRST * 2 ** (tries - 1), RETRY_MOST)
            self.retries[run_id] = tries
            self.retry_at[run_id] = time.monotonic() + delay
            reason = last_line(log_path) or f"its process ended with status {status}"
            log.warning("run %d: %s; trying again in %.0f s", run_id, reason, delay)
        if status == 0:
            self.retries.pop(run_id, None)
        log.info("run %d: process ended (status %d)", run_id, status)
        self._ended(run_id)

    def _ended(self, run_id: int) -> None:
        """Announce the end of ``run_id`` once (if it ended)."""
        run = self.store.get_run(run_id)
        if run is None or run.state not in (RunState.FINISHED, RunState.FAILED, RunState.STOPPED):
            return
        if self.store.mark_notified(run_id):
            try:
                self.on_end(Ended(run, self.store.service(run_id), headline_of(self.store, run)))
            except Exception:  # an announcement never holds up a run
                log.exception("run %d: its end could not be announced", run_id)

    def close(self, timeout: float = STOP_SECONDS) -> None:
        """Stop every run's process between two steps (they are taken up again at the next
        start) and release their leases."""
        for child in self.children.values():
            child.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for run_id, child in self.children.items():
            try:
                child.process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.process.kill()
                child.process.wait()
            child.log.close()
            self.store.release_lease(run_id, self.name)
        self.children.clear()


def headline_of(store: Store, run: Run) -> str:
    """How ``run`` ended, in one line: its report's headline where it has one, else its error or
    decision."""
    if run.error:
        return f"{run.state}: {run.error}"
    try:
        headline = kind_of(run.kind).status_json(store, run).get("headline")
    except (KeyError, TypeError, ValueError):
        headline = None
    if isinstance(headline, str) and headline:
        return headline
    games = kind_of(run.kind).games(store, run)
    return f"{decision_label(run.decision) if run.decision else run.state} after {games} games"


def claim_of(run: Run, service: ServiceRow | None) -> Claim:
    """How the sharing sees ``run`` (a run without a service row: the operator's, at defaults)."""
    if service is None:
        return Claim(run.id, None, 0, 100)
    return Claim(run.id, service.owner, service.priority, service.throughput)


def last_line(path: Path) -> str | None:
    """The last line a run's process wrote (its error, when it failed)."""
    try:
        lines = path.read_bytes()[-4096:].decode(errors="replace").replace("\r", "\n").splitlines()
    except OSError:
        return None
    kept = [line.strip() for line in lines if line.strip()]
    return kept[-1] if kept else None
