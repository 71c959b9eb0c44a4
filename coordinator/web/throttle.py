"""A bound on the dashboard's expensive pages (reports drawn, games replayed or listed): at most a
few are built at once, and a request beyond them is answered at once with 429 and Retry-After,
never queued. A crawler or a reload storm then costs a few threads, not the server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from starlette.exceptions import HTTPException

#: Expensive pages built at once, by default (Starlette's thread pool holds 40).
DEFAULT_EXPENSIVE_AT_ONCE = 4
#: Seconds a refused client is asked to wait.
RETRY_AFTER_SECONDS = 1


class Throttle:
    """At most ``at_once`` holders; one more is refused rather than made to wait."""

    def __init__(self, at_once: int = DEFAULT_EXPENSIVE_AT_ONCE) -> None:
        if at_once < 1:
            raise ValueError(f"expensive pages at once: expected at least 1, got {at_once}")
        self.at_once = at_once
        self._slots = threading.BoundedSemaphore(at_once)

    def try_acquire(self) -> bool:
        """Take a slot if one is free."""
        return self._slots.acquire(blocking=False)

    def release(self) -> None:
        """Give a slot back."""
        self._slots.release()

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold a slot for the body, or raise a 429 answer when none is free."""
        if not self.try_acquire():
            raise HTTPException(
                429,
                f"the dashboard is drawing {self.at_once} other pages; try again in a moment",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        try:
            yield
        finally:
            self.release()
