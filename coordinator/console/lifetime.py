"""A process started by ``arbiter server`` to play one run ends with it: the kernel sends it SIGTERM
when the server dies, even by ``kill -9``, and SIGTERM stops a run between two steps."""

from __future__ import annotations

import ctypes
import os
import signal
import sys

#: Set by the server in the environment of the processes it starts: its process id.
SUPERVISOR_ENV = "ARBITER_SUPERVISOR"
_PR_SET_PDEATHSIG = 1


def follow_supervisor() -> None:
    """When ``$ARBITER_SUPERVISOR`` names this process's parent, have SIGTERM sent on its death
    (Linux); exit at once when the parent is gone already."""
    parent = os.environ.pop(SUPERVISOR_ENV, "")
    if not parent.isdigit() or not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != int(parent):
        sys.exit(1)
