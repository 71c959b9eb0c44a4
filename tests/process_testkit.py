"""Pausing the worker processes of a running command, so that a test decides when its run moves on.

A test that watches a run in progress (a page that must see the game count rise, a kill that must
land before the end) must not depend on the run being slow: on an idle machine a short run ends
before the test looks. Stopping the run's worker processes (SIGSTOP) freezes it where it is; the
coordinator itself keeps running (it holds no store lock for long, answers signals, and simply
waits for results), and SIGCONT lets the games go on. Linux only (``/proc``).

The pattern the tests follow is stop, check, act: poll for a condition with the workers running,
pause them, check the condition again on what can no longer move on by itself (a local pool's
coordinator can still store the results its workers sent before they stopped, never more), and
act (kill, interrupt, restart a server) only if it holds; otherwise let the workers go on and
poll again (:func:`pause_when`).

A Celery worker is paused as a whole (:class:`CommandPause`: the worker and its pool): a worker
that is playing a batch takes no other one while it is stopped (prefetch 1, acknowledged late), so
the queue is left alone. An idle one is waiting on Redis, which can still hand it a message while it
is stopped: such a worker is started late instead of paused.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

#: Bound on a process taking a SIGSTOP (seconds): the kernel stops it as soon as it runs next.
STOP_TIMEOUT = 30.0
#: Interval of the polls below (seconds).
POLL_INTERVAL = 0.02
#: Thread states of a task that can no longer run: stopped (by a signal or a tracer), dead, zombie.
HALTED = frozenset("TtXZ")


def children(pid: int) -> list[int]:
    """The direct children of process ``pid`` (none once it is gone)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(p) for p in (task / "children").read_text().split()]
    return found


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``: its children, theirs, and so on."""
    out: list[int] = []
    todo = children(pid)
    while todo:
        child = todo.pop()
        out.append(child)
        todo += children(child)
    return out


def halted(pid: int) -> bool:
    """True once every thread of process ``pid`` is stopped (or the process is gone)."""
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the thread just ended
            continue
        if text.rpartition(")")[2].split()[0] not in HALTED:
            return False
    return True


def stop(pids: Iterable[int]) -> list[int]:
    """SIGSTOP each of ``pids`` and wait (bounded) until all of them are stopped: a signal is only
    sent by ``kill``, the process stops when it next runs. The pids signalled."""
    sent: list[int] = []
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGSTOP)
            sent.append(pid)
    deadline = time.monotonic() + STOP_TIMEOUT
    while not all(halted(pid) for pid in sent):
        if time.monotonic() >= deadline:
            raise AssertionError(f"processes {sent} did not stop within {STOP_TIMEOUT:.0f} s")
        time.sleep(POLL_INTERVAL)  # polling interval, not synchronisation: the deadline bounds the wait
    return sent


def cont(pids: Iterable[int]) -> None:
    """SIGCONT each of ``pids`` (those gone are skipped)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)


class WorkerPause:
    """Stops and restarts the processes below a command (its local pool's workers)."""

    def __init__(self, pid: int) -> None:
        """For the command running as process ``pid``."""
        self.pid = pid
        self.stopped: list[int] = []

    def targets(self) -> list[int]:
        """The processes :meth:`pause` stops."""
        return descendants(self.pid)

    def pause(self) -> int:
        """Stop every process below the command and wait until they are stopped; how many were
        stopped (at least one is expected: a command that plays games has its pool by then)."""
        self.stopped = stop(self.targets())
        return len(self.stopped)

    def resume(self) -> None:
        """Let the stopped processes go on."""
        cont(self.stopped)
        self.stopped = []

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.pid})"

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """The command's workers stopped inside the block."""
        assert self.pause() > 0, f"process {self.pid} has no worker processes to pause"
        try:
            yield
        finally:
            self.resume()


class CommandPause(WorkerPause):
    """Stops and restarts a command with every process below it (a Celery worker and its pool)."""

    def targets(self) -> list[int]:
        return [self.pid, *descendants(self.pid)]


class PauseAll:
    """Several pauses as one (e.g. every worker of a fleet)."""

    def __init__(self, *pauses: WorkerPause) -> None:
        self.pauses = pauses

    def pause(self) -> int:
        """Pause each; how many processes were stopped in all (at least one each is expected)."""
        counts = [p.pause() for p in self.pauses]
        return sum(counts) if all(counts) else 0

    def resume(self) -> None:
        for p in self.pauses:
            p.resume()

    def __repr__(self) -> str:
        return f"PauseAll{self.pauses!r}"


Pause = WorkerPause | PauseAll


def pause_when(
    pause: Pause,
    ready: Callable[[], object],
    timeout: float,
    what: str,
) -> None:
    """Stop, check, act: poll ``ready`` while the workers run; once it holds, pause them and ask
    ``ready`` again, on a state that can no longer move on by itself. Return with the workers paused
    once it holds then; otherwise let them go on and poll again. ``ready`` may raise
    AssertionError when the moment can no longer come (the run ended, or went too far); the
    workers are then left running. AssertionError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        if ready():
            if pause.pause() == 0:
                pause.resume()
                raise AssertionError(f"{pause!r}: no process to pause")
            try:
                if ready():
                    return
            except BaseException:
                pause.resume()
                raise
            pause.resume()
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(POLL_INTERVAL)  # polling interval, not synchronisation: the deadline bounds the wait


def read_line(stream: IO[str], timeout: float, what: str) -> str:
    """The next line of ``stream`` (a subprocess's pipe), waiting at most ``timeout`` seconds
    (AssertionError then). A pipe's ``readline`` has no timeout of its own: it is read in a daemon
    thread, which ends when the process does (the caller kills it on failure)."""
    lines: queue.Queue[str | BaseException] = queue.Queue()

    def read() -> None:
        try:
            lines.put(stream.readline())
        except BaseException as e:
            lines.put(e)

    threading.Thread(target=read, daemon=True).start()
    try:
        line = lines.get(timeout=timeout)
    except queue.Empty:
        raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}") from None
    if isinstance(line, BaseException):
        raise line
    return line
