"""Pausing the worker processes of a running command, so that a test decides when its run moves on.

A test that watches a run in progress (a page that must see the game count rise, a kill that must
land before the end) must not depend on the run being slow: on an idle machine a short run ends
before the test looks. Stopping the run's worker processes (SIGSTOP) freezes it where it is; the
coordinator itself keeps running (it holds no store lock for long, answers signals, and simply
waits for results), and SIGCONT lets the games go on. Linux only (``/proc``).
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path


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


class WorkerPause:
    """Stops and restarts the processes below a command (its local pool's workers)."""

    def __init__(self, pid: int) -> None:
        """For the command running as process ``pid``."""
        self.pid = pid
        self.stopped: list[int] = []

    def pause(self) -> int:
        """Stop every process below the command; how many were stopped (at least one is expected:
        a command that plays games has its pool by then)."""
        self.stopped = descendants(self.pid)
        for child in self.stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGSTOP)
        return len(self.stopped)

    def resume(self) -> None:
        """Let the stopped processes go on."""
        for child in self.stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGCONT)
        self.stopped = []

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """The command's workers stopped inside the block."""
        assert self.pause() > 0, f"process {self.pid} has no worker processes to pause"
        try:
            yield
        finally:
            self.resume()
