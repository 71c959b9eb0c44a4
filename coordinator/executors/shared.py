"""An executor that keeps only its run's share of the fleet in flight (``arbiter server`` decides
the shares: ``coordinator.server.shares``). Everything else is the inner executor's."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from coordinator.executors.base import BatchOutcome, Executor
from wire.protocol import BatchPayload

#: Seconds a share read from the store is used before it is read again.
SHARE_REFRESH = 2.0


def slots_of(fleet_slots: int, share: float | None) -> int:
    """Batches a run keeps in flight when the fleet takes ``fleet_slots`` and its part is
    ``share`` (None: all of them); at least one."""
    if share is None:
        return fleet_slots
    return max(1, round(fleet_slots * share))


class SharedExecutor(Executor):
    """``inner``, with :attr:`slots` cut to the share ``share()`` gives (read at most every
    :data:`SHARE_REFRESH` seconds)."""

    def __init__(self, inner: Executor, share: Callable[[], float | None]) -> None:
        self.inner = inner
        self._share = share
        self._read_at = -SHARE_REFRESH
        self._value: float | None = None

    @property
    def slots(self) -> int:
        """The inner executor's slots times the run's share (at least one)."""
        if time.monotonic() - self._read_at >= SHARE_REFRESH:
            self._read_at = time.monotonic()
            self._value = self._share()
        return slots_of(self.inner.slots, self._value)

    @slots.setter
    def slots(self, value: int) -> None:
        self.inner.slots = value

    @property
    def answers_sealed(self) -> bool:  # type: ignore[override]
        return self.inner.answers_sealed

    @property
    def quarantined(self) -> dict[str, str]:
        return self.inner.quarantined

    def submit(self, payload: BatchPayload) -> None:
        self.inner.submit(payload)

    def retry(self, payload: BatchPayload, avoid: str | None = None) -> None:
        self.inner.retry(payload, avoid)

    def in_flight(self) -> int:
        return self.inner.in_flight()

    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]:
        return self.inner.completed(timeout)

    def cancel(self) -> None:
        self.inner.cancel()

    def close(self) -> None:
        self.inner.close()

    def quarantine(self, worker: str | None, reason: str) -> None:
        self.inner.quarantine(worker, reason)

    def unsettled(self, run_id: int) -> bool:
        return self.inner.unsettled(run_id)

    def ship_programs(self, archives: Mapping[str, bytes]) -> None:
        self.inner.ship_programs(archives)

    def set_check_key(self, run_id: int, key: bytes) -> None:
        self.inner.set_check_key(run_id, key)

    def live_workers(self) -> set[str] | None:
        return self.inner.live_workers()

    def broker_url(self) -> str | None:
        return self.inner.broker_url()

    def describe(self) -> str | None:
        return self.inner.describe()

    def __getattr__(self, name: str) -> Any:
        """What only the inner executor has (counters reports and tests read)."""
        return getattr(self.inner, name)
