"""The executor interface: submit batch payloads, collect their outcomes as they complete.

A payload is a :class:`wire.protocol.BatchPayload`; an outcome carries either the JSON result a
worker returned (unchecked: it may come from anyone who can write to the result backend) or the
error that stopped it. Executors do not validate or store anything (the SPRT runner does), and they
may deliver an outcome for the same batch more than once (e.g. a Celery redelivery): the store
counts each (run, batch) once. Delivery order is arbitrary.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from wire.protocol import BatchPayload


@dataclass(frozen=True)
class BatchOutcome:
    """What came back for one submitted batch: a JSON result (unchecked), or an error message; and
    the name of the worker that sent it, when known (with sealed answers: proved)."""

    run_id: int
    batch_index: int
    result: Any = None
    error: str | None = None
    worker: str | None = None
    #: True when ``error`` is the worker's own refusal of the batch (it cannot play it), False
    #: when it is anything else (a crash, or the coordinator refusing the worker's answer).
    refused_by_worker: bool = False
    #: Why the worker refused, in a word (see :func:`wire.sealing.refusal`).
    refusal_kind: str | None = None
    #: True when the answer's seal proves that ``worker`` sent it (under its own key).
    authenticated: bool = False
    #: The digest of the payload a sealed answer says it was played from.
    played: str | None = None
    #: True when ``worker`` (proved by its key) sealed an answer naming another worker: a lie.
    impostor: bool = False


class Executor(ABC):
    """Runs batch payloads; the scheduler keeps :attr:`slots` of them in flight."""

    #: How many batches to keep in flight so that every worker stays busy.
    slots: int
    #: True when every answer's seal can prove which worker sent it (a fleet with keys).
    answers_sealed: bool = False

    @abstractmethod
    def submit(self, payload: BatchPayload) -> None:
        """Queue one batch payload for execution (returns at once)."""

    def retry(self, payload: BatchPayload, avoid: str | None = None) -> None:
        """Play ``payload`` again because the outcome delivered for it could not count, preferably
        on another worker than ``avoid`` (one that refused it). Called before the next
        :meth:`completed`, so that an executor may go on watching the batch's earlier attempts
        too (by default the batch is simply submitted again)."""
        self.submit(payload)

    @abstractmethod
    def in_flight(self) -> int:
        """Number of submitted batches whose outcome has not been delivered yet."""

    @abstractmethod
    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]:
        """Outcomes as they complete: waits up to ``timeout`` seconds for the first, then yields
        every other outcome already available, and stops. Yields nothing if nothing completed in
        time or nothing is in flight."""

    def playing(self) -> dict[tuple[int, int], int]:
        """Games played so far of the batches in flight whose workers told (by (run, batch)): a
        claim for progress lines, within each batch's size but never checked, so never counted
        (:mod:`wire.progress`). Empty where workers tell nothing."""
        return {}

    @abstractmethod
    def cancel(self) -> None:
        """Abandon every batch in flight; their outcomes will not be delivered."""

    @abstractmethod
    def close(self) -> None:
        """Cancel what is in flight and release the workers (idempotent)."""

    @property
    def quarantined(self) -> dict[str, str]:
        """Workers whose results are no longer believed, and why (none for trusted executors)."""
        return {}

    def quarantine(self, worker: str | None, reason: str) -> None:  # noqa: B027 - optional hook
        """Believe nothing more from ``worker`` (a no-op where every worker is this machine's)."""

    def unsettled(self, run_id: int) -> bool:
        """True while checks of results already delivered for ``run_id`` are under way (a run
        must not end before they tell whether what it counted stands)."""
        return False

    def ship_programs(self, archives: Mapping[str, bytes]) -> None:  # noqa: B027 - optional hook
        """Make the engine programs of the runs to come (archives by digest) available where
        their batches are played (a no-op where no batch names a program)."""

    def set_check_key(self, run_id: int, key: bytes) -> None:  # noqa: B027 - optional hook
        """The secret that chooses which of run ``run_id``'s batches are spot-checked (a no-op
        where nothing is checked)."""

    def live_workers(self) -> set[str] | None:
        """The workers known to be up; None where they are this machine's own processes (whose
        failures are the same every time)."""
        return None

    def broker_url(self) -> str | None:
        """The URL of the broker that batches go through (None for this machine's own pool): a
        stopped run's resume command names it."""
        return None

    def describe(self) -> str | None:
        """One line saying where batches are played, worth announcing at the start of a run (None
        for this machine's own pool)."""
        return None

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
