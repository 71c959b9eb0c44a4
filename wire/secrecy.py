"""Keys held in memory only: read from the environment once at start, then removed from it, in a
process that others may not inspect.

A coordinator's ``$ARBITER_SECRET`` and a worker's ``$ARBITER_WORKER_KEY`` come from the
environment. Left there, they would be in every child's environment and in ``/proc/PID/environ``
for any process of the same user. So each ``arbiter`` command (and a Celery worker started by
other means, :mod:`worker.tasks`) calls :func:`hold_keys` first: the values move into this
module's memory, and the process becomes non-dumpable (``PR_SET_DUMPABLE`` 0: no core file, and its
``/proc`` files, ``environ`` and ``mem`` among them, are root's; no ptrace by its own user).
Processes it starts afterwards (the local pool's, bwrap and the engine programs) inherit neither,
and the environment block it was started with, which ``/proc/PID/environ`` shows, no longer holds
their values.
Only this module's stdlib imports load: it runs before every command.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Callable, Mapping, MutableMapping
from typing import TypeVar

#: The variables held in memory (wire.sealing reads them by these names).
KEY_VARIABLES = ("ARBITER_SECRET", "ARBITER_WORKER_KEY")
_PR_SET_DUMPABLE = 4

_held: dict[str, str] = {}


def hold_keys(environ: MutableMapping[str, str] | None = None) -> None:
    """Moves the key variables out of ``environ`` (this process's) into memory, in place of what
    was held before, and makes the process non-dumpable."""
    env = os.environ if environ is None else environ
    found = {name: env[name] for name in KEY_VARIABLES if env.get(name)}
    for name in KEY_VARIABLES:
        env.pop(name, None)
    _held.clear()
    _held.update(found)
    if environ is None:
        _scrub_initial_environment(KEY_VARIABLES)
    non_dumpable()


def _scrub_initial_environment(names: tuple[str, ...]) -> None:
    """Overwrites the values of ``names`` in the environment block the process was started with
    (Linux): unsetenv only drops the C library's pointers to them, and ``/proc/PID/environ`` shows
    that block, in this process and in every process forked from it. Best effort."""
    if not sys.platform.startswith("linux"):
        return
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[47]), int(fields[48])  # env_start, env_end: fields 50 and 51
        block = ctypes.string_at(start, end - start)
    except (OSError, ValueError, IndexError):
        return
    offset = 0
    for entry in block.split(b"\0"):
        name, _, value = entry.partition(b"=")
        if value and name.decode(errors="replace") in names:
            ctypes.memset(start + offset + len(name) + 1, ord("x"), len(value))
        offset += len(entry) + 1


def forget_keys() -> None:
    """Drops the keys this process holds: a command that needs none (``arbiter engine check``)
    runs the programs it checks from a process without them."""
    _held.clear()


T = TypeVar("T")


def without_keys(function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` run in a fresh interpreter spawned for it (not forked: nothing of this
    process's memory), whose environment holds no key once :func:`hold_keys` ran: where a process
    that holds the fleet's secret must have an engine program run (the run-start probe), the
    program's launcher never held it. Its exceptions are raised here; ``function`` and its
    arguments must be importable and picklable (the pipe to a child of this machine, never the
    broker)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


def key_environment(environ: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """Where keys are read from: ``environ`` when given; else this process's environment, and
    what :func:`hold_keys` took from it."""
    if environ is not None:
        return environ
    return {**_held, **os.environ}


def non_dumpable() -> bool:
    """Makes this process non-dumpable (Linux); False where that cannot be done."""
    if not sys.platform.startswith("linux"):
        return False
    with contextlib.suppress(OSError, AttributeError):
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0  # type: ignore[no-any-return]
    return False
