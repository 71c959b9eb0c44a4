"""The spot-checking executor: wraps the executor of untrusted workers and holds the results chosen
for a check until they are proved, and quarantines whoever lied (see
:mod:`coordinator.trust.spotcheck` for what a check decides).

What proves a held result: the coordinator's own pool playing the batch alike (or repeating a
timed batch move by move with its recorded node budgets), or a *trusted* peer playing it alike: a
worker this run has proved by the coordinator's own pool and does not suspect, drawn by the run's
key. A peer's agreement is never proof on its own: when the peer is not trusted, disagrees or
fails, the coordinator's own pool decides, and a result it could not replay is never delivered
(the replay is tried again, then the batch is refused and played again).

Which batches are checked, per run (a worker proved in one run is not in the next): every batch
of a worker until one has been proved by the coordinator's own pool (its first); a share chosen
by each run's secret key (never sent: no worker can tell which); and every batch of a worker under
suspicion, one whose results differ beyond chance from the results of the run the coordinator
played itself (never from the other workers', who may lie alike), for as long as they do; its
latest results delivered unchecked are then checked after all, and a run does not end while such
checks are under way. In its spare time the coordinator's pool checks results delivered unchecked
too, each worker's latest in turn.
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
from coordinator.stats.residuals import outliers_against
from coordinator.trust.spotcheck import (
    checkable_by_replaying,
    chosen_for_check,
    first_difference,
    games_of,
    peer_for_check,
    plausible,
)
from wire.protocol import BatchPayload, BatchResult
from wire.sealing import digest
from wire.tally import tally

log = logging.getLogger(__name__)

#: How a result without a worker name is named.
UNNAMED = "(unnamed worker)"
#: The two-sided level at which a worker's results apart from the run's proved ones make it a
#: suspect (Bonferroni-corrected: a suspect only costs checks, so the level is generous).
SUSPICION_LEVEL = 0.05
#: The unchecked results of each worker kept per run, to be checked after all if it falls under
#: suspicion (a liar is caught by one lie: its latest results are the likeliest to hold one).
AUDITED_RECENT = 8
#: Times the coordinator's own pool tries to replay a batch before it gives up: a held result is
#: then refused (and its batch played again), never delivered unproved.
REPLAY_ATTEMPTS = 3

Key = tuple[int, int]


@dataclass
class _Held:
    """A result under check: held until it is proved, or an audit (delivered unchecked already,
    checked after all because its worker became a suspect, or in this machine's spare time). A
    held one is checked by a trusted ``peer`` first when there is one, else (or when the peer
    does not prove it: ``peer_games``, its games then) by the coordinator's own pool."""

    outcome: BatchOutcome
    worker: str
    payload: BatchPayload
    result: BatchResult
    #: A timed batch: checked by repeating its moves with their budgets (moves compared).
    timed: bool = False
    peer: str | None = None
    peer_games: list[dict[str, Any]] | None = None
    failed_replays: int = 0

    @property
    def key(self) -> Key:
        """(run, batch)."""
        return self.payload.run_id, self.payload.batch_index


def only_moves(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Games reduced to their moves (what repeating a timed game with its budgets can compare)."""
    return [{"moves": g.get("moves")} for g in games]


class Verifier(Protocol):
    """This machine's pool, as checks use it: a payload played again, or a check's data run."""

    slots: int

    def ship_programs(self, archives: Mapping[str, bytes]) -> None: ...
    def submit(self, payload: BatchPayload) -> None: ...
    def submit_job(self, run_id: int, batch_index: int, data: dict[str, Any]) -> None: ...
    def in_flight(self) -> int: ...
    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]: ...
    def cancel(self) -> None: ...
    def close(self) -> None: ...


class Peers(Protocol):
    """The fleet, as spot checks use it: a batch sent to one named worker alone."""

    def submit_to(self, payload: BatchPayload, node: str) -> None: ...
    def in_flight(self) -> int: ...
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
        """Check ``fraction`` of the batches (and each worker's first in every run, and all of a
        suspect's) by playing them again on a trusted worker through ``peers`` (when given and
        the run has one), or on ``verifier``, the coordinator's own pool (a task that plays a
        payload or repeats a timed batch: :func:`worker.games.check_batch`), which also decides
        a disagreement and proves the workers a run trusts."""
        if not 0.0 <= fraction <= 1.0:
            raise ValueError(f"verify fraction: expected a number from 0 to 1, got {fraction}")
        self.inner = inner
        self.verifier = verifier
        self.peers = peers
        self.fraction = fraction
        self._payloads: dict[Key, BatchPayload] = {}
        self._held: dict[Key, _Held] = {}
        self._audits: dict[Key, _Held] = {}
        #: The own pool's replays, per batch: the first is sent or waits its turn, the others wait
        #: for it (one at a time per batch, so that each replay is compared with the result it is
        #: for); and the batches whose first waits its turn (the pool is handed as many as it
        #: keeps busy, in turn, and a check dropped meanwhile is never played).
        self._replays: dict[Key, deque[_Held]] = {}
        self._backlog: deque[Key] = deque()
        self._quarantined: dict[str, str] = {}
        self._keys: dict[int, bytes] = {}
        self._fallback_key = os.urandom(32)  # for runs that gave none: still nobody else's
        #: Per run: the workers a batch of which the coordinator's own pool proved (they deliver
        #: unchecked but for the chosen share, and may check others), and the pentanomial counts
        #: of the results it proved: the run's trusted estimate.
        self._proven: dict[int, set[str]] = defaultdict(set)
        self._reference: dict[int, list[int]] = defaultdict(lambda: [0] * 5)
        #: Pentanomial counts of each run's plausible results, per worker, and who is suspect.
        self._counts: dict[int, dict[str, list[int]]] = defaultdict(dict)
        self._suspects: dict[int, set[str]] = defaultdict(set)
        #: Each worker's latest results delivered unchecked, per run.
        self._recent: dict[tuple[int, str], deque[_Held]] = {}
        self._idle_turn = 0
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

    def playing(self) -> dict[Key, int]:
        """The workers' batches in flight as they told, and the held ones at their games (played,
        not yet counted)."""
        return self.inner.playing() | {key: held.result.game_count for key, held in self._held.items()}

    def unsettled(self, run_id: int) -> bool:
        """True while delivered results of ``run_id`` are being checked after all (a lie found
        would change what the run counted)."""
        return any(run == run_id for run, _ in self._audits)

    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]:
        """Outcomes of the workers that need no check, and held ones a check proved (or refused)."""
        checks = self._finish_checks(timeout=0 if self.inner.in_flight() else timeout)
        checks += self._refuse_quarantined()
        yield from checks
        wait = 0 if checks else timeout
        for outcome in self.inner.completed(timeout=wait):
            yield from self._admit(outcome)
        self._audit_while_idle()

    def cancel(self) -> None:
        """Drop everything in flight, held results and checks included."""
        self.inner.cancel()
        self.verifier.cancel()
        if self.peers is not None:
            self.peers.cancel()
        self._held.clear()
        self._audits.clear()
        self._replays.clear()
        self._backlog.clear()
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
        by = (
            "by a worker the run has proved, or by this machine (which decides a disagreement)"
            if self.peers
            else "on this machine"
        )
        check = (
            f"spot checks {by}: each worker's first batch of a run on this machine, "
            f"{100 * self.fraction:g}% of the others (chosen by a key no worker sees) and all of a suspect's"
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
        """Believe nothing more from ``worker``: its held results become refusals, and checks of
        what it delivered stop (the runs discard all it gave them)."""
        name = worker or UNNAMED
        self._quarantined.setdefault(name, reason)
        for key, audit in list(self._audits.items()):
            if audit.worker == name:
                del self._audits[key]

    def ship_programs(self, archives: Mapping[str, bytes]) -> None:
        """The programs go to the workers, and to this machine's pool for its checks."""
        self.inner.ship_programs(archives)
        self.verifier.ship_programs(archives)

    def set_check_key(self, run_id: int, key: bytes) -> None:
        """The secret that chooses which of run ``run_id``'s batches are checked, and by whom."""
        self._keys[run_id] = key

    def suspects(self, run_id: int) -> set[str]:
        """The workers of ``run_id`` whose every batch is checked for now."""
        return set(self._suspects[run_id])

    def trusted(self, run_id: int) -> set[str]:
        """The workers whose agreement proves a batch of ``run_id``: proved in it by this
        machine's pool, not suspect, not quarantined."""
        return self._proven[run_id] - self._suspects[run_id] - set(self._quarantined)

    def _key(self, run_id: int) -> bytes:
        """The run's check key."""
        return self._keys.get(run_id, self._fallback_key)

    def _observe(self, run_id: int, worker: str, result: BatchResult) -> None:
        """Count a plausible result of ``worker`` in ``run_id``, and say again who is suspect."""
        pentanomial, _ = tally(result.games)
        counts = self._counts[run_id]
        counts[worker] = [a + b for a, b in zip(counts.get(worker, [0] * 5), pentanomial, strict=True)]
        self._review(run_id)

    def _review(self, run_id: int) -> None:
        """Say again who is suspect in ``run_id``: a worker whose results differ beyond chance
        from those the coordinator's own pool proved in the run (its trusted estimate); a new
        suspect's latest unchecked results are checked after all."""
        believed = {w: c for w, c in self._counts[run_id].items() if w not in self._quarantined}
        suspects = set(outliers_against(self._reference[run_id], believed, SUSPICION_LEVEL))
        for worker_name in sorted(suspects - self._suspects[run_id]):
            log.warning(
                "arbiter: worker %s's results in run %s differ from those this machine proved beyond "
                "chance: every batch of it is checked here until they do not, and its latest ones now",
                worker_name,
                run_id,
            )
            self._audit(run_id, worker_name)
        self._suspects[run_id] = suspects

    def _audit(self, run_id: int, worker: str) -> None:
        """Check after all the latest results ``worker`` delivered unchecked in ``run_id``."""
        for audit in self._recent.pop((run_id, worker), ()):
            if audit.key not in self._held and audit.key not in self._audits:
                self._audits[audit.key] = audit
                self._replay(audit)

    def _audit_while_idle(self) -> None:
        """With nothing to replay, have this machine's pool check a result delivered unchecked,
        each worker's latest in turn, of the runs with batches out: its spare time finds lies
        beyond the checked share, and grows each run's trusted estimate."""
        if self._replays or self.verifier.in_flight():
            return
        out = {run for run, _ in self._payloads}
        turns = sorted(
            (run, worker)
            for (run, worker), recent in self._recent.items()
            if recent and run in out and worker not in self._quarantined
        )
        if not turns:
            return
        self._idle_turn += 1
        audit = self._recent[turns[self._idle_turn % len(turns)]].pop()
        if audit.key not in self._held and audit.key not in self._audits:
            self._audits[audit.key] = audit
            self._replay(audit)

    def _must_check(self, payload: BatchPayload, worker: str) -> bool:
        """Whether ``worker``'s result for ``payload`` is checked before it counts (never one
        that cannot be played alike again: an engine program found not to; such a run is
        unverifiable, and relies on the replay and the statistics)."""
        if not payload.verifiable:
            return False
        run = payload.run_id
        if worker not in self._proven[run] or worker in self._suspects[run]:
            return True
        return chosen_for_check(self._key(run), payload, self.fraction)

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
        held = _Held(outcome, worker, payload, result, timed=not checkable_by_replaying(payload))
        if not self._must_check(payload, worker):
            self._payloads.pop(key, None)
            if payload.verifiable:  # the others are never played again to be compared
                recent = self._recent.setdefault((payload.run_id, worker), deque(maxlen=AUDITED_RECENT))
                recent.append(held)
            return [outcome]
        self._held[key] = held
        held.peer = self._peer_for(held)
        if held.peer is not None and self.peers is not None:
            self.peers.submit_to(payload, held.peer)
        else:
            self._replay(held)
        return []

    def _peer_for(self, held: _Held) -> str | None:
        """The trusted worker that checks ``held``, drawn by the run's key; None (this machine's
        pool checks it) for a timed batch, a worker not yet proved or suspect, or no such peer."""
        run = held.payload.run_id
        if self.peers is None or held.timed or held.worker not in self.trusted(run):
            return None
        live = self.inner.live_workers() or set()
        peers = sorted((self.trusted(run) & live) - {held.worker})
        return peer_for_check(self._key(run), held.payload, peers)

    def _replay(self, held: _Held) -> None:
        """Have this machine's pool play ``held``'s batch again (one replay at a time per batch:
        a later one waits for the replay under way)."""
        queue = self._replays.setdefault(held.key, deque())
        queue.append(held)
        if len(queue) == 1:
            self._backlog.append(held.key)
            self._pump()

    def _pump(self) -> None:
        """Hand this machine's pool the replays whose turn has come, as many as it keeps busy."""
        while self._backlog and self.verifier.in_flight() < self.verifier.slots:
            key = self._backlog.popleft()
            queue = self._replays.get(key)
            while queue and not self._under_check(queue[0]):
                queue.popleft()
            if queue:
                self._send_replay(queue[0])
            else:
                self._replays.pop(key, None)

    def _send_replay(self, held: _Held) -> None:
        """Submit the replay of ``held`` (a timed batch's moves, repeated with its budgets)."""
        payload = held.payload
        if held.timed:
            budgets = [record.budgets for record in held.result.games]
            data = {"payload": payload.to_json(), "budgets": budgets}
            self.verifier.submit_job(payload.run_id, payload.batch_index, data)
        else:
            self.verifier.submit(payload)

    def _under_check(self, held: _Held) -> bool:
        """Whether ``held`` is still waiting for its check (not dropped or decided meanwhile, nor
        of a worker quarantined meanwhile: a caught liar's answers cost no more replays)."""
        waiting = self._held.get(held.key) is held or self._audits.get(held.key) is held
        return waiting and held.worker not in self._quarantined

    def _refuse_quarantined(self) -> list[BatchOutcome]:
        """The held results of workers quarantined meanwhile, refused now, unchecked (an insider
        that answered every batch it saw with made-up games would otherwise have the pool replay
        each of them)."""
        caught = [held for held in self._held.values() if held.worker in self._quarantined]
        return [
            out
            for held in caught
            for out in self._release(held.key, self._refused(held.outcome, held.worker))
        ]

    def _finish_checks(self, timeout: float | None) -> list[BatchOutcome]:
        """Compare the checks that are done with the results they check (waiting up to
        ``timeout`` on this machine's pool if it is replaying, else on the peers)."""
        delivered: list[BatchOutcome] = []
        replaying = self.verifier.in_flight() > 0
        if self.peers is not None:
            for check in self.peers.completed(timeout=0 if replaying else timeout):
                delivered += self._peer_checked(check)
        for replay in self.verifier.completed(timeout=0 if delivered or not replaying else timeout):
            delivered += self._replayed(replay)
        return delivered

    def _replayed(self, replay: BatchOutcome) -> list[BatchOutcome]:
        """This machine's replay of a batch, for the result first in that batch's line."""
        key = (replay.run_id, replay.batch_index)
        queue = self._replays.get(key)
        if not queue:
            return []  # a replay of a check cancelled meanwhile
        held = queue.popleft()
        if replay.error is not None and self._under_check(held):
            held.failed_replays += 1
            if held.failed_replays < REPLAY_ATTEMPTS:
                log.warning(
                    "arbiter: this machine could not replay batch %s of run %s (%s); trying again",
                    replay.batch_index,
                    replay.run_id,
                    replay.error,
                )
                queue.appendleft(held)
                self._send_replay(held)
                return []
        if queue:
            self._backlog.append(key)
        else:
            del self._replays[key]
        delivered: list[BatchOutcome] = []
        if self._audits.get(key) is held:
            self._audited(held, replay)
        elif self._held.get(key) is held:
            delivered = self._judged(held, replay)
        self._pump()
        return delivered

    def _peer_checked(self, check: BatchOutcome) -> list[BatchOutcome]:
        """A peer's play of a held batch: agreement of a peer the run still trusts proves it; an
        error, a disagreement or a peer no longer trusted sends it to this machine's pool."""
        key = (check.run_id, check.batch_index)
        held = self._held.get(key)
        if held is None or held.peer is None or held.peer_games is not None:
            return []
        if held.worker in self.quarantined:
            return self._release(key, self._refused(held.outcome, held.worker))
        self._blame_interloper(check, held)
        from_peer = check.worker == held.peer and (check.authenticated or not self.answers_sealed)
        of_payload = check.played is None or check.played == digest(held.payload.text)
        games = games_of(check.result) if check.error is None and from_peer and of_payload else None
        trusted = held.peer in self.trusted(check.run_id)
        if games is not None and trusted and games == games_of(held.outcome.result):
            return self._passed(held, own=False)
        if check.error is not None:
            log.warning(
                "arbiter: spot check of batch %s of run %s by %s failed (%s); this machine plays it",
                check.batch_index,
                check.run_id,
                held.peer,
                check.error,
            )
        held.peer_games = games or []
        self._replay(held)
        return []

    def _blame_interloper(self, check: BatchOutcome, held: _Held) -> None:
        """Quarantine a worker whose key proves it answered the spot check sent to another
        (``held.peer``) with a result, or in another's name: an honest worker refuses a task
        addressed to another (:func:`wire.sealing.addressee`), so its taker meant to spoil the
        check, or to have this machine's pool play the batch in the peer's place."""
        where = f"batch {check.batch_index} of run {check.run_id}"
        if check.impostor:
            self.quarantine(check.worker, f"spot check of {where}: {check.error}")
        elif check.authenticated and check.worker not in (None, held.peer) and check.error is None:
            self.quarantine(check.worker, f"answered the spot check of {where} sent to {held.peer}")

    def _judged(self, held: _Held, replay: BatchOutcome) -> list[BatchOutcome]:
        """This machine's play of a held batch: whoever differs from it lied; a batch it could not
        replay is refused (and played again), never delivered unproved."""
        key = held.key
        if held.worker in self.quarantined:
            return self._release(key, self._refused(held.outcome, held.worker))
        where = f"batch {key[1]} of run {key[0]}"
        if replay.error is not None:
            reason = (
                f"this machine could not check {held.worker}'s answer ({replay.error}); "
                "the batch is played again"
            )
            return self._release(key, BatchOutcome(key[0], key[1], error=reason))
        if held.timed:
            return self._judged_timed(held, replay, where)
        truth = games_of(replay.result)
        if held.peer is not None and held.peer_games and held.peer_games != truth:
            why = first_difference({"games": held.peer_games}, replay.result)
            self.quarantine(held.peer, f"spot check of {held.worker}'s {where}: {why}")
        if games_of(held.outcome.result) == truth:
            return self._passed(held, own=True)
        self.checks_failed += 1
        why = first_difference(held.outcome.result, replay.result)
        self.quarantine(held.worker, f"spot check of {where}: {why}")
        return self._release(key, self._refused(held.outcome, held.worker))

    def _judged_timed(self, held: _Held, replay: BatchOutcome, where: str) -> list[BatchOutcome]:
        """A timed batch repeated with its budgets: every game's moves must be the worker's."""
        claimed = [g["moves"] for g in games_of(held.outcome.result) or []]
        found = (
            [g.get("moves") for g in replay.result.get("games", [])]
            if isinstance(replay.result, dict)
            else []
        )
        if claimed == found:
            return self._passed(held, own=True)
        self.checks_failed += 1
        why = first_difference(
            {"games": [{"moves": m} for m in claimed]}, {"games": [{"moves": m} for m in found]}
        )
        self.quarantine(held.worker, f"timed check of {where} (each move searched with its budget): {why}")
        return self._release(held.key, self._refused(held.outcome, held.worker))

    def _audited(self, audit: _Held, replay: BatchOutcome) -> None:
        """This machine's play of a batch delivered unchecked: a difference quarantines its worker
        (its runs then discard all it gave them and count again)."""
        run, index = audit.key
        del self._audits[audit.key]
        if replay.error is not None:
            log.warning(
                "arbiter: this machine could not replay batch %s of run %s, delivered unchecked by "
                "%s (%s); its worker stays under suspicion",
                index,
                run,
                audit.worker,
                replay.error,
            )
            return
        claimed, truth = games_of(audit.outcome.result) or [], games_of(replay.result) or []
        if audit.timed:  # a timed batch repeated: its moves are what can be compared
            claimed, truth = only_moves(claimed), only_moves(truth)
        if claimed == truth:
            self.checks_passed += 1
            self._prove(audit)
            return
        self.checks_failed += 1
        what = "timed check" if audit.timed else "check"
        why = first_difference({"games": claimed}, {"games": truth})
        self.quarantine(audit.worker, f"{what} of batch {index} of run {run}, once it was suspect: {why}")

    def _passed(self, held: _Held, own: bool) -> list[BatchOutcome]:
        """A check agreed (``own``: on this machine's pool): the result is delivered, and a result
        this machine proved proves its worker in the run and joins the run's trusted estimate."""
        self.checks_passed += 1
        if own:
            self._prove(held)
        return self._release(held.key, held.outcome)

    def _prove(self, held: _Held) -> None:
        """``held``'s result was proved by this machine's pool: its worker is proved in the run,
        and its counts join the run's trusted estimate (suspicion is reviewed against it)."""
        run = held.payload.run_id
        self._proven[run].add(held.worker)
        pentanomial, _ = tally(held.result.games)
        self._reference[run] = [a + b for a, b in zip(self._reference[run], pentanomial, strict=True)]
        self._review(run)

    def _release(self, key: Key, outcome: BatchOutcome) -> list[BatchOutcome]:
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
