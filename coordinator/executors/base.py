"""The executor interface: submit batch payloads, collect their outcomes as they complete.

A payload is the JSON-safe dict that ``worker.games.play_batch`` takes; an outcome carries either
the result dict it returned or the error that stopped it. Executors do not validate or store
anything (the scheduler does), and they may deliver an outcome for the same batch more than once
(e.g. a Celery redelivery): the store counts each (run, batch) once. Delivery order is arbitrary.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any


@dataclass(frozen=True)
class BatchOutcome:
    """What came back for one submitted batch: a result dict, or an error message."""

    run_id: Any
    batch_index: int
    result: dict[str, Any] | None = None
    error: str | None = None


class Executor(ABC):
    """Runs batch payloads; the scheduler keeps :attr:`slots` of them in flight."""

    #: How many batches to keep in flight so that every worker stays busy.
    slots: int

    @abstractmethod
    def submit(self, payload: dict[str, Any]) -> None:
        """Queue one batch payload for execution (returns at once)."""

    @abstractmethod
    def in_flight(self) -> int:
        """Number of submitted batches whose outcome has not been delivered yet."""

    @abstractmethod
    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]:
        """Outcomes as they complete: waits up to ``timeout`` seconds for the first, then yields
        every other outcome already available, and stops. Yields nothing if nothing completed in
        time or nothing is in flight."""

    @abstractmethod
    def cancel(self) -> None:
        """Abandon every batch in flight; their outcomes will not be delivered."""

    @abstractmethod
    def close(self) -> None:
        """Cancel what is in flight and release the workers (idempotent)."""

    def __enter__(self) -> Executor:
        """Use as a context manager: closed on exit."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Close the executor."""
        self.close()
