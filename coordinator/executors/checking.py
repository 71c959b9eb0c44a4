"""The spot-checking executor: wraps the executor of untrusted workers, holds the results chosen
for a check until another worker (and, where they disagree, this machine) has played the same
batch, and quarantines whoever lied (see :mod:`coordinator.trust.spotcheck` for what a check
decides).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from coordinator.defaults import VERIFY_FRACTION
from coordinator.executors.base import BatchOutcome, Executor
from coordinator.trust.spotcheck import checkable, chosen_for_check, first_difference, games_of, plausible
from worker.protocol import BatchPayload

log = logging.getLogger(__name__)

#: How a result without a worker name is named.
UNNAMED = "(unnamed worker)"


@dataclass
class _Held:
    """A result waiting for its spot check: by a peer worker first (``peer``), by the
    coordinator's own pool when there is none or it disagreed (``peer_games`` its games then)."""

    outcome: BatchOutcome
    worker: str
    peer: str | None = None
    peer_games: list[dict[str, Any]] | None = None


class Peers(Protocol):
    """The fleet, as spot checks use it: a batch sent to one named worker alone."""

    def submit_to(self, payload: BatchPayload, node: str) -> None: ...
    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]: ...
    def cancel(self) -> None: ...
    def close(self) -> None: ...


class CheckingExecutor(Executor):
    """Wraps the executor of untrusted workers with spot checks played on ``verifier``."""

    def __init__(
        self,
        inner: Executor,
        verifier: Executor,
        fraction: float = VERIFY_FRACTION,
        peers: Peers | None = None,
    ) -> None:
        """Check ``fraction`` of the batches (and each worker's first) by playing them again on
        another worker through ``peers`` (when given and another worker is up), and on
        ``verifier``, the coordinator's own pool, to decide a disagreement or where no peer is."""
        if not 0.0 <= fraction <= 1.0:
            raise ValueError(f"verify fraction: expected a number from 0 to 1, got {fraction}")
        self.inner = inner
        self.verifier = verifier
        self.peers = peers
        self.fraction = fraction
        self._turn = 0
        self._payloads: dict[tuple[int, int], BatchPayload] = {}
        self._held: dict[tuple[int, int], _Held] = {}
        self._proven: set[str] = set()
        self._quarantined: dict[str, str] = {}
        #: Spot checks passed and failed (for reports and tests).
        self.checks_passed = 0
        self.checks_failed = 0

    # the executor interface --------------------------------------------------------------------

    @property
    def slots(self) -> int:  # type: ignore[override]
        """As many batches in flight as the workers take."""
        return self.inner.slots

    def submit(self, payload: BatchPayload) -> None:
        """Send the batch to the workers, remembering it for a possible check."""
        self._payloads[(payload.run_id, payload.batch_index)] = payload
        self.inner.submit(payload)

    def retry(self, payload: BatchPayload) -> None:
        """Send a refused batch again (the workers' executor may go on watching its attempts)."""
        self._payloads[(payload.run_id, payload.batch_index)] = payload
        self.inner.retry(payload)

    def in_flight(self) -> int:
        """Batches sent and not delivered, held ones included."""
        return self.inner.in_flight() + len(self._held)

    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]:
        """Outcomes of the workers that need no check, and held ones whose check agreed."""
        checks = self._finish_checks(timeout=0 if self.inner.in_flight() else timeout)
        yield from checks
        wait = 0 if checks else timeout
        for outcome in self.inner.completed(timeout=wait):
            yield from self._admit(outcome)

    def cancel(self) -> None:
        """Drop everything in flight, held results and checks included."""
        self.inner.cancel()
        self.verifier.cancel()
        if self.peers is not None:
            self.peers.cancel()
        self._held.clear()
        self._payloads.clear()

    def close(self) -> None:
        """Close every executor."""
        self.cancel()
        self.inner.close()
        self.verifier.close()
        if self.peers is not None:
            self.peers.close()

    def describe(self) -> str | None:
        """The workers' line, and the share of batches checked."""
        where = self.inner.describe()
        by = "by another worker (this machine decides a disagreement)" if self.peers else "on this machine"
        check = f"spot checks {by}: each worker's first batch and {100 * self.fraction:g}% of the others"
        return f"{where}; {check}" if where else check

    def live_workers(self) -> set[str] | None:
        """The workers known to be up."""
        return self.inner.live_workers()

    # checking ----------------------------------------------------------------------------------

    @property
    def quarantined(self) -> dict[str, str]:
        """Quarantined workers and why, for the runs to discard their results."""
        return self._quarantined

    def quarantine(self, worker: str | None, reason: str) -> None:
        """Believe nothing more from ``worker`` (its held results become refusals)."""
        self._quarantined.setdefault(worker or UNNAMED, reason)

    def _admit(self, outcome: BatchOutcome) -> list[BatchOutcome]:
        """What to deliver now for an outcome of the workers."""
        key = (outcome.run_id, outcome.batch_index)
        payload = self._payloads.get(key)
        worker = outcome.worker or UNNAMED
        if key in self._held:
            return []  # a second delivery of a batch under check: the check decides
        if worker in self.quarantined:
            return [self._refused(outcome, worker)]
        if outcome.error is not None or payload is None or not plausible(payload, outcome.result):
            self._payloads.pop(key, None)
            return [outcome]  # the runner refuses it, naming why, and quarantines its worker
        if not checkable(payload) or (
            worker in self._proven and not chosen_for_check(payload, self.fraction)
        ):
            self._payloads.pop(key, None)
            return [outcome]
        held = self._held[key] = _Held(outcome, worker)
        held.peer = self._peer_for(worker)
        if held.peer is not None and self.peers is not None:
            self.peers.submit_to(payload, held.peer)
        else:
            self.verifier.submit(payload)
        return []

    def _peer_for(self, worker: str) -> str | None:
        """Another live worker to check ``worker``'s batch, in turn, or None if there is none."""
        if self.peers is None:
            return None
        others = sorted((self.inner.live_workers() or set()) - {worker} - set(self.quarantined))
        if not others:
            return None
        self._turn += 1
        return others[self._turn % len(others)]

    def _finish_checks(self, timeout: float | None) -> list[BatchOutcome]:
        """Compare the checks that are done with the results they check."""
        delivered: list[BatchOutcome] = []
        if self.peers is not None:
            for check in self.peers.completed(timeout=0):
                delivered += self._peer_checked(check)
        for replay in self.verifier.completed(timeout=timeout if self._held else 0):
            delivered += self._judged(replay)
        return delivered

    def _peer_checked(self, check: BatchOutcome) -> list[BatchOutcome]:
        """A peer's play of a held batch: agreement delivers it; an error, a disagreement or a
        peer quarantined meanwhile sends it to the coordinator's own pool to decide."""
        key = (check.run_id, check.batch_index)
        held = self._held.get(key)
        if held is None or held.peer is None or held.peer_games is not None:
            return []
        if held.worker in self.quarantined:
            return self._release(key, self._refused(held.outcome, held.worker))
        games = games_of(check.result) if check.error is None else None
        if games is not None and held.peer not in self.quarantined and games == games_of(held.outcome.result):
            return self._passed(key, held)
        if check.error is not None:
            log.warning(
                "arbiter: spot check of batch %s of run %s by %s failed (%s); this machine plays it",
                check.batch_index,
                check.run_id,
                held.peer,
                check.error,
            )
        held.peer_games = games or []
        self.verifier.submit(self._payloads[key])
        return []

    def _judged(self, replay: BatchOutcome) -> list[BatchOutcome]:
        """The coordinator's own play of a held batch: whoever differs from it lied."""
        key = (replay.run_id, replay.batch_index)
        held = self._held.get(key)
        if held is None:
            return []
        if held.worker in self.quarantined:
            return self._release(key, self._refused(held.outcome, held.worker))
        if replay.error is not None:
            return self._release(key, held.outcome)  # our own pool failed: no evidence either way
        truth = games_of(replay.result)
        where = f"batch {held.outcome.batch_index} of run {held.outcome.run_id}"
        if held.peer is not None and held.peer_games and held.peer_games != truth:
            why = first_difference({"games": held.peer_games}, replay.result)
            self.quarantine(held.peer, f"spot check of {held.worker}'s {where}: {why}")
        if games_of(held.outcome.result) == truth:
            return self._passed(key, held)
        self.checks_failed += 1
        why = first_difference(held.outcome.result, replay.result)
        self.quarantine(held.worker, f"spot check of {where}: {why}")
        return self._release(key, self._refused(held.outcome, held.worker))

    def _passed(self, key: tuple[int, int], held: _Held) -> list[BatchOutcome]:
        """A check agreed: the worker is proven and its result delivered."""
        self.checks_passed += 1
        self._proven.add(held.worker)
        return self._release(key, held.outcome)

    def _release(self, key: tuple[int, int], outcome: BatchOutcome) -> list[BatchOutcome]:
        """Stop holding ``key``; deliver ``outcome`` in its place."""
        self._held.pop(key, None)
        self._payloads.pop(key, None)
        return [outcome]

    def _refused(self, outcome: BatchOutcome, worker: str) -> BatchOutcome:
        """A refusal in place of a quarantined worker's outcome (the coordinator refuses its
        answer: the worker did not refuse the batch)."""
        self._payloads.pop((outcome.run_id, outcome.batch_index), None)
        reason = f"the answer of quarantined worker {worker} is not believed ({self.quarantined[worker]})"
        return BatchOutcome(outcome.run_id, outcome.batch_index, error=reason, worker=outcome.worker)
