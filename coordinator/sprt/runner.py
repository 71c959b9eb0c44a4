"""Runs an SPRT: keeps batches in flight, stores each result once, counts them in batch order.

Determinism. With node (or depth) limits a batch's result depends only on its payload, and the
payload of batch ``i`` only on the configuration (see :mod:`coordinator.sprt.config`). Results may
arrive in any order; each is validated and stored as soon as it arrives, but it is *counted* only
when every earlier batch is counted too: the SPRT is updated after each batch of the contiguous
prefix ``0, 1, 2, ...``, and the run stops at the first prefix length where the SPRT decides or the
game budget is used up. Later results are kept in the store but never counted. So the final counts
are the same whatever the timing, the concurrency or the interruptions: a resumed run reloads the
stored results, replays the same prefix computation and plays only the batches still missing.

Counted once. The store keeps one result per (run, batch), and the prefix computation reads each
batch's counts exactly once, so a duplicate delivery can never count twice.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

import engine
from coordinator.escape import terminal
from coordinator.executors.base import BatchOutcome, Executor
from coordinator.runs import Decision, RunState
from coordinator.stats import SprtParams, SprtState, update_sprt, wdl_to_ldw
from coordinator.store import Store, StoredResult
from coordinator.store.results import CheckedResult
from coordinator.trust.answers import AnswerCheck, check_answer
from wire.programs import EngineProgram
from wire.protocol import BatchPayload, ResultReport
from wire.sealing import MAX_REASON_TEXT, digest

#: On this machine's pool, a batch refused this many times fails the run (it would block the
#: prefix). On a fleet, a batch fails the run only once this many distinct workers, each proved by
#: its own key, refused it for the same reason (or every live worker did, in a smaller fleet, but
#: never fewer than :data:`MIN_REFUSERS`): a payload nobody can play. One lying worker, or anyone's
#: forged refusals, never fail a run; a fleet of one that refuses a batch makes the run wait for
#: another worker.
MAX_ATTEMPTS = 3
MIN_REFUSERS = 2
#: Refusals that say how a batch reached a worker, not what the batch is: a payload whose
#: signature failed (a forger's), and one handed to a worker of another engine build, or to
#: another worker than the one it is addressed to (anyone who can write to the broker can copy a
#: genuine task message to any worker's queue). They never count toward failing a run.
NOT_OF_THE_BATCH = frozenset({"unsigned", "version", "address"})
#: How long to wait for a result before reporting progress anyway (seconds).
POLL_SECONDS = 0.5
#: The counted prefix is saved at most this often while it grows (seconds).
SAVE_SECONDS = 1.0


class PayloadPlan(Protocol):
    """Which games batch ``i`` of a run plays: a pure function of the run's configuration."""

    def payload(self, run_id: int, batch_index: int) -> BatchPayload:
        """Everything a worker needs to play batch ``batch_index`` of run ``run_id``."""
        ...


class MatchPlan(Protocol):
    """What a runner needs of a run's configuration: an SPRT's (``SprtConfig``), or a
    tournament's, which has no SPRT and plays a fixed number of batches."""

    @property
    def sprt_params(self) -> SprtParams | None:
        """The SPRT that may end the run early, or None: it plays all its batches."""
        ...

    @property
    def max_batches(self) -> int | None:
        """Batches the run plays at most (None: until the SPRT decides)."""
        ...

    @property
    def max_games(self) -> int | None:
        """The game budget, or None."""
        ...

    @property
    def limits(self) -> engine.Limits:
        """The search limits of every game."""
        ...

    def programs(self) -> list[EngineProgram]:
        """The engine programs the run ships to its workers."""
        ...

    def batch_plan(self) -> PayloadPlan:
        """The run's batch plan."""
        ...


class RunFailed(RuntimeError):
    """A batch could not be completed; the run is marked ``failed`` in the store."""


@dataclass
class Progress:
    """Where a run stands, for progress lines and summaries."""

    run_id: int
    counted_batches: int
    pentanomial: list[int]
    wdl: list[int]
    llr: float
    lower_bound: float
    upper_bound: float
    decision: Decision | None
    stored_batches: int
    in_flight: int
    elapsed: float
    games_played_here: int
    max_games: int | None
    #: Why every answer since the last stored result was refused, when they all were for one
    #: reason (``"3 answers refused: ..."``); None while results arrive.
    refused: str | None = None
    #: Games played so far in the batches in flight, as their workers told (a claim nobody
    #: checked: shown apart, for the speed and the ETA, never counted).
    playing: int = 0

    @property
    def games(self) -> int:
        """Games counted."""
        return sum(self.wdl)

    @property
    def games_per_second(self) -> float:
        """Games played by this command per second, those still playing included."""
        return (self.games_played_here + self.playing) / self.elapsed if self.elapsed > 0 else 0.0


class PrefixCounter:
    """The counted prefix of a run's batches and the SPRT state after it.

    :meth:`advance` extends the prefix with every stored result that continues it, updating the
    SPRT after each batch, and stops for good at the first decision, when the budget is used, or
    when ``stop`` (asked after each batch, before the SPRT's own verdict: a tuning trial's pruner)
    says so.
    """

    def __init__(self, config: MatchPlan, stop: Callable[[PrefixCounter], bool] | None = None) -> None:
        """An empty prefix for ``config``'s SPRT settings (if any) and budget."""
        self.params = config.sprt_params
        self.max_batches = config.max_batches
        self.stop = stop
        self.batches = 0
        self.pentanomial = [0] * 5
        self.wdl = [0, 0, 0]
        self.sprt = SprtState()
        self.decision: Decision | None = None
        self.stopped = False

    @property
    def done(self) -> bool:
        """Nothing more counts: decided, budget used, or stopped."""
        return self.decision is not None or self.stopped

    def advance(self, results: Mapping[int, StoredResult]) -> None:
        """Count every result in ``results`` that extends the contiguous prefix."""
        while not self.done:
            if self.max_batches is not None and self.batches >= self.max_batches:
                self.decision = Decision.BUDGET
                break
            result = results.get(self.batches)
            if result is None:
                break
            self.pentanomial = [a + b for a, b in zip(self.pentanomial, result.pentanomial, strict=True)]
            self.wdl = [a + b for a, b in zip(self.wdl, result.wdl, strict=True)]
            self.batches += 1
            if self.params is not None:
                ldw = wdl_to_ldw(self.wdl) if self.params.elo_model == "BayesElo" else None
                self.sprt = update_sprt(self.params, self.sprt, self.pentanomial, ldw=ldw)
            if self.stop is not None and self.stop(self):
                self.stopped = True
            elif self.sprt.state != "continue":
                self.decision = Decision(self.sprt.state)
            elif self.max_batches is not None and self.batches >= self.max_batches:
                self.decision = Decision.BUDGET


class SprtRunner:
    """Drives one SPRT run of the store to its decision with an executor (or a tournament, whose
    plan has no SPRT: it ends when every batch of the plan is counted)."""

    def __init__(
        self,
        store: Store,
        run_id: int,
        config: MatchPlan,
        executor: Executor,
        on_progress: Callable[[Progress], None] | None = None,
        check: AnswerCheck = check_answer,
        stop: Callable[[PrefixCounter], bool] | None = None,
    ) -> None:
        """Load what the store already has for ``run_id`` and replay its counted prefix.

        ``check`` decides whether a well-formed result answers its payload with true games (by
        default: every record replayed through the rules core); it raises ValueError naming what
        is wrong. ``stop`` may end the run early after any counted batch (see
        :class:`PrefixCounter`).
        """
        self.store = store
        self.run_id = run_id
        self.config = config
        self.executor = executor
        self.on_progress = on_progress
        self.check = check
        self.plan = config.batch_plan()
        self.max_batches = config.max_batches
        self.results: dict[int, StoredResult] = {r.batch_index: r for r in store.results(run_id)}
        self.stop = stop
        self.prefix = PrefixCounter(config, stop)
        self.in_flight: dict[int, BatchPayload] = {}  # batches sent, by index: what was sent
        self.retry: list[int] = []
        #: Per batch, per reason: the workers that refused it so (proved by their keys).
        self.refusers: dict[int, dict[str, set[str]]] = {}
        #: Per batch: a worker that refused it, which its next attempt avoids.
        self.avoid: dict[int, str] = {}
        #: Reasons of the answers refused since the last result stored, with their counts.
        self.refused_since_result: dict[str, int] = {}
        self.quarantines_seen: set[str] = set()
        for quarantine in store.quarantines(run_id):  # a resumed run believes them no more than before
            self.quarantines_seen.add(quarantine.worker)
            executor.quarantine(quarantine.worker, quarantine.reason)
        executor.set_check_key(run_id, store.check_key(run_id))
        self._ship_programs()
        self.cursor = 0
        self.started = time.monotonic()
        self.games_played_here = 0
        self._unsaved = False
        self._saved_at = -math.inf
        #: The games playing last recorded in the store (None: not yet, so that the first count
        #: clears what a coordinator killed before left there), and when.
        self._playing_saved: int | None = None
        self._playing_at = -math.inf
        self._advance()

    def _ship_programs(self) -> None:
        """The run's engine programs, from the store, to where its batches are played."""
        archives = {}
        for program in self.config.programs():
            if program.build is not None:
                continue  # built by each worker from its commit
            archive = self.store.program_archive(program.digest)
            if archive is None:
                raise RunFailed(f"the program {program.name} ({program.digest[:12]}) is not in the store")
            archives[program.digest] = archive
        try:
            self.executor.ship_programs(archives)
        except (ValueError, OSError) as e:
            raise RunFailed(str(e)) from None

    # counting ---------------------------------------------------------------------------------

    def _advance(self) -> None:
        """Extend the counted prefix with the results that continue it."""
        self.prefix.advance(self.results)

    def progress(self) -> Progress:
        """A snapshot of the run."""
        return snapshot(
            self.run_id,
            self.config,
            self.prefix,
            stored_batches=len(self.results),
            in_flight=self.executor.in_flight(),
            elapsed=time.monotonic() - self.started,
            games_played_here=self.games_played_here,
            refused=self.refused_note(),
            playing=self.playing(),
        )

    def playing(self) -> int:
        """Games played so far in this run's batches in flight, as their workers told."""
        told = self.executor.playing()
        return sum(n for (run, index), n in told.items() if run == self.run_id and index in self.in_flight)

    def refused_note(self) -> str | None:
        """What a progress line says when every answer since the last stored result was refused
        for one reason (a coordinator without the fleet's key, a payload every worker rejects):
        how many, and why. None otherwise."""
        if len(self.refused_since_result) != 1:
            return None
        ((reason, count),) = self.refused_since_result.items()
        return f"{count} refused: {reason}"

    # dispatching ------------------------------------------------------------------------------

    def payload(self, batch_index: int) -> BatchPayload:
        """The payload of batch ``batch_index``."""
        return self.plan.payload(self.run_id, batch_index)

    def _next_batch(self) -> tuple[int, bool] | None:
        """The next batch to send and whether it is a retry: a refused one first, else the next
        one not stored."""
        if self.retry:
            return heapq.heappop(self.retry), True
        while self.cursor in self.results or self.cursor in self.in_flight:
            self.cursor += 1
        if self.max_batches is not None and self.cursor >= self.max_batches:
            return None
        index = self.cursor
        self.cursor += 1
        return index, False

    def fill(self) -> None:
        """Send batches while the executor has free slots and this run still needs any; refused
        batches are sent again first."""
        while not self.prefix.done and self.executor.in_flight() < self.executor.slots:
            chosen = self._next_batch()
            if chosen is None:
                return
            index, again = chosen
            payload = self.payload(index)
            self.store.start_batch(self.run_id, index, digest(payload.text), payload.seed)
            self.in_flight[index] = payload
            if again:
                self.executor.retry(payload, self.avoid.pop(index, None))
            else:
                self.executor.submit(payload)

    # receiving --------------------------------------------------------------------------------

    def _checked(
        self, outcome: BatchOutcome, payload: BatchPayload
    ) -> tuple[CheckedResult, StoredResult] | str:
        """The result of ``outcome`` (the answer to ``payload``) and the counts it adds, if it can
        count, else why not (a one-line reason). A result that fails the checks quarantines its
        worker: a worker that lies once is not believed."""
        if outcome.impostor:  # proved by its own key to have answered in another's name
            self.executor.quarantine(
                outcome.worker, f"batch {outcome.batch_index} of run {self.run_id}: {outcome.error}"
            )
        if outcome.error is not None:
            return outcome.error  # a worker's refusal or failure, or an answer refused on the way
        try:
            report = ResultReport.from_json(outcome.result)
            if outcome.worker is not None and report.worker != outcome.worker:
                raise ValueError(f"worker: the result names {report.worker!r}, its answer {outcome.worker!r}")
            if outcome.played is not None and outcome.played != digest(payload.text):
                raise ValueError("the answer is for another payload than the one sent")
            checked = self.check(report, payload)
        except ValueError as e:
            reason = terminal(str(e))[:MAX_REASON_TEXT]  # one line, however much the answer held
            self.executor.quarantine(
                outcome.worker, f"batch {outcome.batch_index} of run {self.run_id}: {reason}"
            )
            return reason
        counts = StoredResult(outcome.batch_index, checked.pentanomial, checked.wdl, report.cpu_seconds)
        return checked, counts

    def _unplayable(self, index: int, attempts: int) -> bool:
        """True when refusals show that batch ``index`` cannot be played: refused
        :data:`MAX_ATTEMPTS` times by this machine's own pool, or, on a fleet, for one same reason
        by :data:`MAX_ATTEMPTS` distinct workers proved by their keys (by every live worker when
        fewer are up, but at least :data:`MIN_REFUSERS`). A result refused here (a lie, a
        quarantined worker's, anyone's forged write), a refusal that names nobody, and a worker's
        refusal of a payload whose signature failed, that asks for another build or that is
        addressed to another worker (:data:`NOT_OF_THE_BATCH`) say nothing of the batch: it is
        sent again (and the run waits for a worker when none is up)."""
        live = self.executor.live_workers()
        if live is None:
            return attempts >= MAX_ATTEMPTS
        needed = max(MIN_REFUSERS, min(MAX_ATTEMPTS, len(live)))
        return any(len(who) >= needed for who in self.refusers.get(index, {}).values())

    def _note_refusal(self, index: int, outcome: BatchOutcome, reason: str) -> None:
        """Remember a worker's own refusal of batch ``index``: the next attempt avoids it, and it
        counts toward failing the run only when its seal proves who sent it (or nothing can be
        proved on this fleet) and it speaks of the batch (not :data:`NOT_OF_THE_BATCH`)."""
        if not outcome.refused_by_worker or outcome.worker is None:
            return
        self.avoid[index] = outcome.worker
        proved = outcome.authenticated or not self.executor.answers_sealed
        if proved and outcome.refusal_kind not in NOT_OF_THE_BATCH:
            self.refusers.setdefault(index, {}).setdefault(reason, set()).add(outcome.worker)

    def receive(self, outcome: BatchOutcome) -> None:
        """Check and store one outcome of this run (duplicates and strays are ignored); queue a
        retry or fail the run if it is refused."""
        index = outcome.batch_index
        if outcome.run_id != self.run_id or index in self.results:
            return  # not ours, or a duplicate of a stored result
        sent = self.in_flight.pop(index, None)
        outstanding = sent is not None
        checked = self._checked(outcome, sent or self.payload(index))
        if isinstance(checked, str):
            if not outstanding:
                return  # a stale copy of an attempt already refused; the retry is under way
            name = outcome.worker or "(unnamed worker)"
            self.store.refuse_batch(self.run_id, index, f"{name}: {checked}", worker=outcome.worker)
            self.refused_since_result[checked] = self.refused_since_result.get(checked, 0) + 1
            self._note_refusal(index, outcome, checked)
            attempts = self.store.batch_attempts(self.run_id, index)
            if self._unplayable(index, attempts):
                message = f"batch {index} refused {attempts} times; last reason: {checked}"
                self.store.update_run(self.run_id, state=RunState.FAILED, error=message, finished=True)
                raise RunFailed(message)
            heapq.heappush(self.retry, index)
            return
        result, counts = checked
        self.refused_since_result.clear()
        if self.store.record_result(self.run_id, index, result):
            self.games_played_here += result.game_count
            self.results[index] = counts  # what the store just tallied and kept
            return
        stored = self.store.result(self.run_id, index)  # another writer's: what counts is what it kept
        if stored is not None:
            self.results[index] = stored

    def _save_prefix(self) -> None:
        """Persist the counted prefix (and the decision, once there is one)."""
        self.store.update_run(
            self.run_id,
            state=RunState.FINISHED if self.decided else RunState.RUNNING,
            counted_batches=self.prefix.batches,
            decision=self.prefix.decision,
            finished=self.decided,
        )
        self._unsaved = False
        self._saved_at = time.monotonic()

    # stepping (also used by the tuner, which shares one executor between several runs) ---------

    @property
    def decided(self) -> bool:
        """True once the SPRT has decided, the budget is used up or ``stop`` ended the run, and no
        check of what it counted is still under way (a worker found lying by one is discarded,
        and the run goes on)."""
        return self.prefix.done and not self.executor.unsettled(self.run_id)

    def _discard_quarantined(self) -> bool:
        """Discard what newly quarantined workers gave this run and count again; True if any."""
        lost: list[int] = []
        for worker, reason in list(self.executor.quarantined.items()):
            if worker not in self.quarantines_seen:
                self.quarantines_seen.add(worker)
                lost += self.store.quarantine_worker(self.run_id, worker, reason)
        if not lost:
            return False
        for index in lost:
            self.results.pop(index, None)
            heapq.heappush(self.retry, index)
        self.prefix = PrefixCounter(self.config, self.stop)
        self.prefix.advance(self.results)
        return True

    def count(self) -> bool:
        """Extend the counted prefix with what arrived; True if it grew or decided. The prefix is
        saved at once when it decides or shrinks (a quarantine), else at most every
        :data:`SAVE_SECONDS` (a resumed run counts its prefix again from the stored results); so
        are the games still playing (:meth:`playing`), apart."""
        if self._discard_quarantined():
            self._save_prefix()
        before = self.prefix.batches
        self._advance()
        changed = self.prefix.batches != before or self.decided
        self._unsaved |= changed
        if self._unsaved and (self.decided or time.monotonic() - self._saved_at >= SAVE_SECONDS):
            self._save_prefix()
        self._save_playing(self.playing())
        return changed

    def _save_playing(self, games: int, now: bool = False) -> None:
        """Record the games still playing for ``arbiter status`` and the dashboard, when they
        changed, at most every :data:`SAVE_SECONDS` (unless ``now``)."""
        if games != self._playing_saved and (now or time.monotonic() - self._playing_at >= SAVE_SECONDS):
            self.store.set_playing(self.run_id, games)
            self._playing_saved, self._playing_at = games, time.monotonic()

    def release(self) -> None:
        """Save the counted prefix and forget this run's batches in flight (their outcomes may still
        arrive and are ignored)."""
        if self._unsaved:
            self._save_prefix()
        self._save_playing(0, now=True)
        self.in_flight.clear()
        self.store.release_batches(self.run_id)

    # the loop ---------------------------------------------------------------------------------

    def run(self, stop_requested: Callable[[], bool] | None = None) -> Progress:
        """Play until the SPRT decides or the budget is used; the final progress.

        ``stop_requested`` is asked between two steps (a graceful Ctrl-C): when it says so, or on a
        KeyboardInterrupt, the run is marked ``interrupted`` (results that arrived are kept) and
        KeyboardInterrupt is raised; a batch refused :data:`MAX_ATTEMPTS` times raises
        :class:`RunFailed`.
        """
        if not self.decided:  # a run decided before is only shown: it keeps its state and time
            self.store.update_run(self.run_id, state=RunState.RUNNING, counted_batches=self.prefix.batches)
        try:
            while not self.decided:
                if stop_requested is not None and stop_requested():
                    raise KeyboardInterrupt
                self.fill()
                if self.executor.in_flight() == 0:
                    raise RunFailed("nothing left to play but the SPRT has not decided")  # unreachable
                for outcome in self.executor.completed(timeout=POLL_SECONDS):
                    self.receive(outcome)
                self.count()
                if self.on_progress is not None:
                    self.on_progress(self.progress())
        except KeyboardInterrupt:
            self._keep_arrived()
            self._stop()
            self.store.update_run(
                self.run_id, state=RunState.INTERRUPTED, counted_batches=self.prefix.batches
            )
            raise
        except BaseException:
            self._stop()
            raise
        self._stop()
        self._save_prefix()
        return self.progress()

    def _keep_arrived(self) -> None:
        """Store the results that already arrived (at an interruption), without waiting for more."""
        try:
            for outcome in self.executor.completed(timeout=0):
                self.receive(outcome)
            self._advance()
        except RunFailed:
            pass

    def _stop(self) -> None:
        """Drop the work in flight and mark its batches pending again."""
        self.executor.cancel()
        self.release()


def snapshot(
    run_id: int,
    config: MatchPlan,
    prefix: PrefixCounter,
    *,
    stored_batches: int,
    in_flight: int = 0,
    elapsed: float = 0.0,
    games_played_here: int = 0,
    refused: str | None = None,
    playing: int = 0,
) -> Progress:
    """A :class:`Progress` from a counted prefix."""
    lower, upper = (0.0, 0.0) if config.sprt_params is None else config.sprt_params.bounds
    return Progress(
        run_id=run_id,
        counted_batches=prefix.batches,
        pentanomial=list(prefix.pentanomial),
        wdl=list(prefix.wdl),
        llr=prefix.sprt.llr,
        lower_bound=lower,
        upper_bound=upper,
        decision=prefix.decision,
        stored_batches=stored_batches,
        in_flight=in_flight,
        elapsed=elapsed,
        games_played_here=games_played_here,
        max_games=config.max_games,
        refused=refused,
        playing=playing,
    )
