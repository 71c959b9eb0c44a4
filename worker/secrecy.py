"""Keys held in memory only: read from the environment once at start, then removed from it, in a
process that others may not inspect.

A coordinator's ``$ARBITER_SECRET`` and a worker's ``$ARBITER_WORKER_KEY`` come from the
environment. Left there, they would be in every child's environment and in ``/proc/PID/environ``
for any process of the same user. So each ``arbiter`` command (and a Celery worker started by
other means, :mod:`worker.tasks`) calls :func:`hold_keys` first: the values move into this
module's memory, and the process becomes non-dumpable (``PR_SET_DUMPABLE`` 0: no core file, and its
``/proc`` files, ``environ`` and ``mem`` among them, are root's; no ptrace by its own user).
Processes it starts afterwards (the local pool's, bwrap and the engine programs) inherit neither.
Only this module's stdlib imports load: it runs before every command.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Mapping, MutableMapping

#: The variables held in memory (worker.sealing reads them by these names).
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
    non_dumpable()


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
