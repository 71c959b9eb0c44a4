"""Deterministic spot checks: the proof that a worker plays the games it was sent.

Games are deterministic under node and depth limits: the same payload always gives the same games,
move for move. So the coordinator can check a worker by having some of its batches played again:
the first batch of every worker, and a fraction of all batches chosen from the run's seed. The
check is played by another worker of the fleet, sent to it alone (its direct queue), so that checks
scale with the fleet; when the two disagree, or no other worker is up, the coordinator's own pool
plays the batch too and decides, and whoever differs from it is the liar. A result held for a
check is delivered only once a check agrees; a mismatch quarantines the worker: its held and later
results become refusals (their batches are played again elsewhere), and the runs are told
(:attr:`CheckingExecutor.quarantined`) so that they discard what they stored from it and count
again. A peer whose check was wrong is quarantined the same way.

A result that fails the checks every result must pass (a forged record, an illegal move) also
quarantines its worker (:meth:`CheckingExecutor.quarantine`): a worker that lies once is not
believed again.

Worker names are what results say they are. Whoever can write to the result backend can claim a
name, so a name proves nothing; what the spot checks prove is that the games are the right ones.
(Two workers that lie alike, or a liar that also writes the result backend and copies the result it
checks, pass a check by peers: the coordinator's own pool is the one judge no worker can sway.)
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from coordinator.defaults import VERIFY_FRACTION
from coordinator.executors.base import BatchOutcome, Executor
from coordinator.trust.replay import replay_check
from worker.protocol import RECORD_FIELDS, BatchPayload, BatchResult, check_matches_payload, move_list

log = logging.getLogger(__name__)

#: How a result without a worker name is named.
UNNAMED = "(unnamed worker)"


def checkable(payload: BatchPayload) -> bool:
    """Whether a batch's games are the same every time it is played (node and depth limits): a
    time limit's are not, so such batches are checked by replay alone, never played again."""
    return payload.limits.deterministic


def chosen_for_check(payload: BatchPayload, fraction: float) -> bool:
    """Whether batch ``payload`` is in the checked fraction: a pure function of its seed."""
    digest = hashlib.sha256(f"spot-check:{payload.run_id}:{payload.seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < fraction


def games_of(result: Any) -> list[dict[str, Any]] | None:
    """The games of a JSON result as compared move for move (None if it has none)."""
    if not isinstance(result, dict) or not isinstance(result.get("games"), list):
        return None
    games = result["games"]
    if not all(isinstance(g, dict) for g in games):
        return None
    return [{k: g.get(k) for k in RECORD_FIELDS} for g in games]


def plausible(payload: BatchPayload, result: Any) -> bool:
    """Whether ``result`` passes the checks every result must pass (no replay is spent on the
    others: the runner refuses them with the reason)."""
    try:
        checked = BatchResult.from_json(result)
        check_matches_payload(checked, payload)
        replay_check(payload, checked)
    except ValueError:
        return False
    return True


def first_difference(sent: Any, replayed: Any) -> str:
    """Where two results' games first differ, in a few words."""
    a, b = games_of(sent) or [], games_of(replayed) or []
    if len(a) != len(b):
        return f"{len(a)} games instead of {len(b)}"
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if x != y:
            field = next(k for k in x if x[k] != y[k])
            if field == "moves" and isinstance(x["moves"], str) and isinstance(y["moves"], str):
                mine, theirs = move_list(x["moves"]), move_list(y["moves"])
                ply = next(
                    (p for p, (m, n) in enumerate(zip(mine, theirs, strict=False), 1) if m != n),
                    min(len(mine), len(theirs)) + 1,
                )
                return f"game {i} differs from ply {ply}"
            return f"game {i}: {field} {x[field]!r} instead of {y[field]!r}"
    return "no difference"


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
