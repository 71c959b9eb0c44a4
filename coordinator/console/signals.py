"""Stopping a run gracefully: Ctrl-C and SIGTERM ask the run to stop between two steps."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def graceful_stop() -> Iterator[Callable[[], bool]]:
    """While the block runs, Ctrl-C and SIGTERM only ask the run to stop, which it does between two
    steps, never inside a store transaction (a KeyboardInterrupt raised there could leave an SQLite
    connection holding the write lock); a second signal interrupts at once."""
    requested: list[int] = []

    def handler(signum: int, _frame: Any) -> None:
        if requested:
            raise KeyboardInterrupt
        requested.append(signum)

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield lambda: bool(requested)
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
