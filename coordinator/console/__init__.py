"""What a run prints while it plays, below the CLI so that every kind's driver can use it: the live
progress line, the graceful stop on Ctrl-C and SIGTERM, and messages on stderr (no click)."""

from __future__ import annotations

import sys


def say(text: str) -> None:
    """One message for people on stderr (``arbiter: ...``)."""
    print(text, file=sys.stderr, flush=True)


def show(text: str) -> None:
    """The run's result on stdout."""
    print(text, flush=True)
