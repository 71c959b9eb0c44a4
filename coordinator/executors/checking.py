"""The spot-checking executor: wraps the executor of untrusted workers, holds the results chosen
for a check until another worker (and, where they disagree, this machine) has played the same
batch, or this machine has repeated a timed batch move by move with its recorded node budgets,
and quarantines whoever lied (see :mod:`coordinator.trust.spotcheck` for what a check decides).

Which batches are checked: every worker's first; a share chosen by each run's secret key (never
sent: no worker can tell which); and every batch of a worker under suspicion, one whose results
differ from the other workers' in the same run more than chance allows (fishtest's residual at
its yellow level, or a mean pair score apart from the others' at 5%, Bonferroni-corrected), for as
long as they do; its latest results delivered unchecked are then checked after all, and a run
does not end while such checks are under way.
"""

from __future__ import annotations

import logging
import os
from collections import defaultdict, deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from coordinator.defaults import VERIFY_FRACTION
from coordinator.executors.base import BatchOutcome, Executor
from coordinator.stats.residuals import score_outliers, worker_chi2
from coordinator.trust.spotcheck import (
    checkable_by_replaying,
    chosen_for_check,
    first_difference,
    games_of,
    plausible,
)
from worker.protocol import BatchPayload, BatchResult
from worker.sealing import digest
from worker.tally import tally

log = logging.getLogger(__name__)

#: How a result without a worker name is named.
UNNAMED = "(unnamed worker)"
#: The two-sided level at which a worker's mean pair score apart from the others' makes it a
#: suspect (Bonferroni-corrected: a suspect only costs checks, so the level is generous).
SUSPICION_LEVEL = 0.05
#: The unchecked results of each worker kept per run, to be checked after all if it falls under
#: suspicion (a liar is caught by one lie: its latest results are the likeliest to hold one).
AUDITED_RECENT = 8


@dataclass
class _Held:
    """A result waiting for its spot check: by a peer worker first (``peer``), by the
    coordinator's own pool when there is none or it disagreed (``peer_games`` its games then)."""

    outcome: BatchOutcome
    worker: str
    peer: str | None = None
    peer_games: list[dict[str, Any]] | None = None
    #: A timed batch: checked by repeating its moves with their budgets (moves compared).
    timed: bool = False


def only_moves(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Games reduced to their moves (what repeating a timed game with its budgets can compare)."""
    return [{"moves": g.get("moves")} for g in games]


class Verifier(Protocol):
    """This machine's pool, as checks use it: a payload played again, or a check's data run."""

    def ship_programs(self, archives: Mapping[str, bytes]) -> None: ...
    def submit(self, payload: BatchPayload) -> None: ...
    def submit_job(self, run_id: int, batch_index: int, data: dict[str, Any]) -> None: ...
    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]: ...
    def cancel(self) -> None: ...
    def close(self) -> None: ...


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
        verifier: Verifier,
        fraction: float = VERIFY_FRACTION,
        peers: Peers | None = None,
    ) -> None:
        """Check ``fraction`` of the batches (and each worker's first, and all of a suspect's) by
        playing them again on another worker through ``peers`` (when given and another worker is
        up), and on ``verifier``, the coordinator's own pool (a task that plays a payload or
        repeats a timed batch: :func:`worker.games.check_batch`), to decide a disagreement or
        where no peer is."""
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
        self._keys: dict[int, bytes] = {}
        self._fallback_key = os.urandom(32)  # for runs that gave none: still nobody else's
        #: Pentanomial counts of each run's plausible results, per worker, and who is suspect.
        self._counts: dict[int, dict[str, list[int]]] = defaultdict(dict)
        self._suspects: dict[int, set[str]] = defaultdict(set)
        #: Each worker's latest results delivered unchecked, per run, and those checked after all.
        self._recent: dict[tuple[int, str], deque[tuple[BatchPayload, BatchResult, BatchOutcome]]] = {}
        self._audits: dict[tuple[int, int], _Held] = {}
        #: Spot checks passed and failed (for reports and tests).
        self.checks_passed = 0
        self.checks_failed = 0

    # the executor interface --------------------------------------------------------------------

    @property
    def slots(self) -> int:  # type: ignore[override]
        """As many batches in flight as the workers take."""
        return self.inner.slots

    @property
    def answers_sealed(self) -> bool:  # type: ignore[override]
        """Whether the workers' answers are sealed under their keys."""
        return self.inner.answers_sealed

    def submit(self, payload: BatchPayload) -> None:
        """Send the batch to the workers, remembering it for a possible check."""
        self._payloads[(payload.run_id, payload.batch_index)] = payload
        self.inner.submit(payload)

    def retry(self, payload: BatchPayload, avoid: str | None = None) -> None:
        """Send a refused batch again (the workers' executor may go on watching its attempts)."""
        self._payloads[(payload.run_id, payload.batch_index)] = payload
        self.inner.retry(payload, avoid)

    def in_flight(self) -> int:
        """Batches sent and not delivered, held ones and checks of delivered ones included."""
        return self.inner.in_flight() + len(self._held) + len(self._audits)

    def unsettled(self, run_id: int) -> bool:
        """True while delivered results of ``run_id`` are being checked after all."""
        return any(run == run_id for run, _ in self._audits)

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
        self._audits.clear()
        self._payloads.clear()

    def close(self) -> None:
        """Close every executor."""
        self.cancel()
        self.inner.close()
        self.verifier.close()
        if self.peers is not None:
            self.peers.close()

    def broker_url(self) -> str | None:
        """The broker of the executor it checks."""
        return self.inner.broker_url()

    def describe(self) -> str | None:
        """The workers' line, and the share of batches checked."""
        where = self.inner.describe()
        by = "by another worker (this machine decides a disagreement)" if self.peers else "on this machine"
        check = (
            f"spot checks {by}: each worker's first batch, {100 * self.fraction:g}% of the others "
            "(chosen by a key no worker sees) and all of a suspect's"
        )
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

    def ship_programs(self, archives: Mapping[str, bytes]) -> None:
        """The programs go to the workers, and to this machine's pool for its checks."""
        self.inner.ship_programs(archives)
        self.verifier.ship_programs(archives)

    def set_check_key(self, run_id: int, key: bytes) -> None:
        """The secret that chooses which of run ``run_id``'s batches are checked."""
        self._keys[run_id] = key

    def suspects(self, run_id: int) -> set[str]:
        """The workers of ``run_id`` whose every batch is checked for now."""
        return set(self._suspects[run_id])

    def _observe(self, run_id: int, worker: str, result: BatchResult) -> None:
        """Count a plausible result of ``worker`` in ``run_id`` and say again who is suspect: a
        worker whose residual reaches fishtest's yellow level among the run's workers."""
        pentanomial, _ = tally(result.games)
        counts = self._counts[run_id]
        counts[worker] = [a + b for a, b in zip(counts.get(worker, [0] * 5), pentanomial, strict=True)]
        believed = {w: c for w, c in counts.items() if w not in self._quarantined}
        check = worker_chi2(believed)
        suspects = {r.worker for r in check.residuals if check.level(r.residual) in ("yellow", "red")}
        suspects |= set(score_outliers(believed, SUSPICION_LEVEL))
        for worker_name in sorted(suspects - self._suspects[run_id]):
            log.warning(
                "arbiter: worker %s's results in run %s differ from the others' beyond chance: "
                "every batch of it is checked until they do not, and its latest ones now",
                worker_name,
                run_id,
            )
            self._audit(run_id, worker_name)
        self._suspects[run_id] = suspects

    def _audit(self, run_id: int, worker: str) -> None:
        """Check after all the latest results ``worker`` delivered unchecked in ``run_id``."""
        for payload, result, outcome in self._recent.pop((run_id, worker), ()):
            key = (payload.run_id, payload.batch_index)
            if key in self._held or key in self._audits or not payload.verifiable:
                continue
            audit = self._audits[key] = _Held(outcome, worker, timed=not checkable_by_replaying(payload))
            self._verify(payload, result, audit)

    def _verify(self, payload: BatchPayload, result: BatchResult, held: _Held) -> None:
        """Have this machine's pool play ``payload`` again (or repeat a timed one's moves)."""
        if held.timed:
            budgets = [record.budgets for record in result.games]
            data = {"payload": payload.to_json(), "budgets": budgets}
            self.verifier.submit_job(payload.run_id, payload.batch_index, data)
        else:
            self.verifier.submit(payload)

    def _must_check(self, payload: BatchPayload, worker: str) -> bool:
        """Whether ``worker``'s result for ``payload`` is checked before it counts (never one
        that cannot be played alike again: an engine program found not to; such a run is
        unverifiable, and relies on the replay and the statistics)."""
        if not payload.verifiable:
            return False
        if worker not in self._proven or worker in self._suspects[payload.run_id]:
            return True
        key = self._keys.get(payload.run_id, self._fallback_key)
        return chosen_for_check(key, payload, self.fraction)

    def _admit(self, outcome: BatchOutcome) -> list[BatchOutcome]:
        """What to deliver now for an outcome of the workers."""
        key = (outcome.run_id, outcome.batch_index)
        payload = self._payloads.get(key)
        worker = outcome.worker or UNNAMED
        if key in self._held:
            return []  # a second delivery of a batch under check: the check decides
        if worker in self.quarantined:
            return [self._refused(outcome, worker)]
        result = None if outcome.error is not None or payload is None else plausible(payload, outcome.result)
        if result is None or payload is None:
            self._payloads.pop(key, None)
            return [outcome]  # the runner refuses it, naming why, and quarantines its worker
        self._observe(payload.run_id, worker, result)
        if not self._must_check(payload, worker):
            self._payloads.pop(key, None)
            recent = self._recent.setdefault((payload.run_id, worker), deque(maxlen=AUDITED_RECENT))
            recent.append((payload, result, outcome))
            return [outcome]
        held = self._held[key] = _Held(outcome, worker, timed=not checkable_by_replaying(payload))
        held.peer = None if held.timed else self._peer_for(worker)
        if held.peer is not None and self.peers is not None:
            self.peers.submit_to(payload, held.peer)
        else:
            self._verify(payload, result, held)
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
        for replay in self.verifier.completed(timeout=timeout if self._held or self._audits else 0):
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
        payload = self._payloads[key]
        from_peer = check.worker == held.peer and (check.authenticated or not self.answers_sealed)
        of_payload = check.played is None or check.played == digest(payload.to_text())
        games = games_of(check.result) if check.error is None and from_peer and of_payload else None
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
        self.verifier.submit(payload)
        return []

    def _judged(self, replay: BatchOutcome) -> list[BatchOutcome]:
        """The coordinator's own play of a held batch: whoever differs from it lied."""
        key = (replay.run_id, replay.batch_index)
        held = self._held.get(key)
        if held is None:
            self._audited(key, replay)
            return []
        if held.worker in self.quarantined:
            return self._release(key, self._refused(held.outcome, held.worker))
        if replay.error is not None:
            return self._release(key, held.outcome)  # our own pool failed: no evidence either way
        where = f"batch {held.outcome.batch_index} of run {held.outcome.run_id}"
        if held.timed:
            return self._judged_timed(key, held, replay, where)
        truth = games_of(replay.result)
        if held.peer is not None and held.peer_games and held.peer_games != truth:
            why = first_difference({"games": held.peer_games}, replay.result)
            self.quarantine(held.peer, f"spot check of {held.worker}'s {where}: {why}")
        if games_of(held.outcome.result) == truth:
            return self._passed(key, held)
        self.checks_failed += 1
        why = first_difference(held.outcome.result, replay.result)
        self.quarantine(held.worker, f"spot check of {where}: {why}")
        return self._release(key, self._refused(held.outcome, held.worker))

    def _judged_timed(
        self, key: tuple[int, int], held: _Held, replay: BatchOutcome, where: str
    ) -> list[BatchOutcome]:
        """A timed batch repeated with its budgets: every game's moves must be the worker's."""
        claimed = [g["moves"] for g in games_of(held.outcome.result) or []]
        found = (
            [g.get("moves") for g in replay.result.get("games", [])]
            if isinstance(replay.result, dict)
            else []
        )
        if claimed == found:
            return self._passed(key, held)
        self.checks_failed += 1
        why = first_difference(
            {"games": [{"moves": m} for m in claimed]}, {"games": [{"moves": m} for m in found]}
        )
        self.quarantine(held.worker, f"timed check of {where} (each move searched with its budget): {why}")
        return self._release(key, self._refused(held.outcome, held.worker))

    def _audited(self, key: tuple[int, int], replay: BatchOutcome) -> None:
        """The coordinator's own play of a batch delivered unchecked: a difference quarantines its
        worker (its runs then discard all it gave them and count again)."""
        audit = self._audits.pop(key, None)
        if audit is None or replay.error is not None:
            return
        claimed, truth = games_of(audit.outcome.result) or [], games_of(replay.result) or []
        if audit.timed:  # a timed batch repeated: its moves are what can be compared
            claimed, truth = only_moves(claimed), only_moves(truth)
        if claimed == truth:
            self.checks_passed += 1
            return
        self.checks_failed += 1
        what = "timed check" if audit.timed else "check"
        why = first_difference({"games": claimed}, {"games": truth})
        self.quarantine(audit.worker, f"{what} of batch {key[1]} of run {key[0]}, once it was suspect: {why}")

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
