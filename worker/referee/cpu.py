"""One CPU for a batch played through the referee: the referee and both engine processes on it.

Two engines taking turns through the referee cost a third to a half more CPU than the same games
in-process when the scheduler spreads the three processes over the cores (each wake-up crosses
cores, and each core's caches are refilled); kept on one core they cost about a tenth more
(docs/performance.md, "Engine programs through the protocol"). fastchess's ``-use-affinity`` does
the same. On its CPU an untimed batch runs under SCHED_BATCH: a woken thread does not preempt the
one that woke it, so a move takes three switches (referee, engine's reader, its search) and not
four or five. Batches played at once on a machine each claim a CPU of their own: a lock file per CPU,
held (``flock``) for the batch, so a batch that finds every CPU taken, or whose process dies,
leaves nothing behind. A batch is not pinned when no CPU is free, when an engine is set to
search on several threads (``Threads`` above 1), or when ``$ARBITER_PIN_CPU`` is ``0``.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

#: Set to ``0`` to leave batches where the scheduler puts them.
PIN_ENV = "ARBITER_PIN_CPU"


def wants_one_cpu(*sides: Mapping[str, object], environ: Mapping[str, str] | None = None) -> bool:
    """Whether a batch whose engines are set to these options (one mapping per side) is pinned:
    not when an engine searches on several threads, nor when ``$ARBITER_PIN_CPU`` is ``0``."""
    if (os.environ if environ is None else environ).get(PIN_ENV, "1").strip() == "0":
        return False
    return not any(
        _threads(value) > 1
        for options in sides
        for name, value in options.items()
        if name.lower() == "threads"
    )


def _threads(value: object) -> int:
    """An option's value as a thread count (1 when it is not a number)."""
    if isinstance(value, bool):
        return 1
    try:
        return int(str(value).strip())
    except ValueError:
        return 1


def _lock_folder() -> Path:
    """Where this user's CPU locks live on this machine."""
    folder = Path(tempfile.gettempdir()) / f"arbiter-cpus-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def _claim(cpus: list[int]) -> tuple[int, int] | None:
    """Locks the first free CPU of ``cpus`` (from a place that depends on the process, so that
    processes starting together try different ones first) and moves this process onto it: the
    CPU and the lock's file descriptor, or None when none could be had."""
    start = os.getpid() % len(cpus)
    try:
        folder = _lock_folder()
        for cpu in cpus[start:] + cpus[:start]:
            fd = os.open(folder / f"cpu{cpu}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # another batch's
                os.close(fd)
                continue
            try:
                os.sched_setaffinity(0, {cpu})
            except OSError:  # no affinity to be set here
                os.close(fd)
                return None
            return cpu, fd
    except OSError:  # no lock folder
        pass
    return None


@contextmanager
def one_cpu(enabled: bool = True, take_turns: bool = True) -> Iterator[int | None]:
    """Runs the block on one free CPU of those this process may use, with ``take_turns`` under
    SCHED_BATCH (the processes it starts inherit both), and gives the process back all of them
    and its policy after; the CPU, or None when the block runs unpinned. Timed games do not take
    turns: an engine that keeps running after its ``bestmove`` would hold the referee's clock
    until its time slice ended."""
    try:
        allowed = os.sched_getaffinity(0)
    except (AttributeError, OSError):  # no affinity on this platform
        allowed = set()
    claimed = _claim(sorted(allowed)) if enabled and len(allowed) >= 2 else None
    if claimed is None:
        yield None
        return
    cpu, fd = claimed
    policy = _take_turns() if take_turns else None
    try:
        yield cpu
    finally:
        try:
            os.sched_setaffinity(0, allowed)
            if policy is not None:
                os.sched_setscheduler(0, policy, os.sched_param(0))
        finally:
            os.close(fd)


def _take_turns() -> int | None:
    """Puts this thread under SCHED_BATCH, whose threads do not preempt the one running when they
    wake: on a batch's one CPU the referee and the engines take turns, and a thread woken by a
    write or a hand-over (the engine reading ``go``, its search thread, the referee reading
    ``bestmove``) waits for the writer to block, instead of running and being switched out again.
    The policy before, or None when it could not be changed."""
    batch = getattr(os, "SCHED_BATCH", None)
    if batch is None:
        return None
    try:
        before = os.sched_getscheduler(0)
        if before not in (os.SCHED_OTHER, batch):
            return None  # a real-time or idle referee keeps its policy
        os.sched_setscheduler(0, batch, os.sched_param(0))
    except OSError:
        return None
    return before
