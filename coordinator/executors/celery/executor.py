"""The Celery executor: batch payloads become JSON tasks on a broker, played by ``arbiter worker``s.

Leases and re-submission. Every submitted batch has a lease: how long its result may take before
the batch is presumed lost (a worker killed or cut off, Redis restarted without persistence and
lost its queue, a message dropped). The lease comes from ``lease_seconds`` /
``$ARBITER_LEASE_SECONDS`` when given, otherwise from the payload's search budget (see
:class:`LeasePolicy`). It starts when the task is sent and starts afresh when a worker is seen
starting it, so time spent queued behind other batches does not count against the playing. When
a lease ends without an outcome the batch is sent again as a new task with a doubled lease, and
every attempt stays watched: the first outcome of any attempt is delivered, once, and the other
attempts are revoked (a worker drops a revoked task it has not started). A task also expires
:data:`EXPIRY_LEASES` leases after it was sent, so copies left behind by a coordinator that went
away are not played hours later.

Sealed answers. A worker's answer (its result, or why it refused the batch) is sealed with the
fleet's secret, ``$ARBITER_SECRET`` (an HMAC of the task id and the answer; see
:func:`wire.sealing.seal`). With a secret, a value that is not sealed for its task is refused and
names nobody: whoever writes to the result backend without the secret can neither get a result
counted nor get a worker blamed. Crashes and time limits (Celery's FAILURE values) are never
sealed, so they name nobody either. Without a secret, an answer's worker name is only a claim.

Refused outcomes. Whoever can write to the result backend can write a result for a task before
its worker does (the task ids are in the queue for anyone to read). So an outcome the coordinator
refuses does not end the watch: a batch sent again with :meth:`CeleryExecutor.retry` goes on
watching the attempts sent before (their stored values were deleted when read, so what appears
there later is new, such as the worker's own result) beside a new one, and the first outcome that
counts wins. Attempts revoked when an outcome was delivered stay watched too: a worker drops a
revoked task it has not started, and stops one it is playing (revoked with ``terminate``).

Duplicates. A batch may still be played twice (its first worker was only slow). This executor
delivers one outcome per submission, and the scheduler validates every outcome and stores one
result per (run, batch), so a duplicate never counts twice.

Polling. Results are read from the result backend with one ``MGET`` over the keys of every task in
flight per poll, and deleted once delivered. The same read brings the games a worker says it has
played so far (its task's ``PROGRESS`` state, :mod:`wire.progress`), kept for :meth:`playing`
and never counted; like ``STARTED``, it starts the attempt's lease afresh (it says no more than
``STARTED``, which anyone who can write to the backend can write too). The Redis backend is used
without Celery's per-task pub/sub subscription (:class:`PolledRedisBackend`), so nothing
accumulates unread. Every wait is bounded; while the broker or the backend is unreachable, polls
and sends fail quietly (one warning) and the leases re-send the work once it is back.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import redis.exceptions
from celery import Celery, states
from celery.backends.redis import RedisBackend
from celery.utils.nodenames import worker_direct
from kombu.exceptions import OperationalError

import engine
from coordinator.escape import terminal
from coordinator.executors.base import BatchOutcome, Executor
from coordinator.executors.celery.backend import (
    MAX_META_BYTES,
    MAX_POLL_BYTES,
    UNDECODABLE,
    decode_meta,
    describe_failure,
    polled_backend_url,
    reported_worker,
    too_large,
    value_sizes,
)
from coordinator.executors.celery.leases import LeasePolicy, lease_from_env
from coordinator.executors.celery.publish import TaskPublisher
from coordinator.sizing import game_seconds
from wire.celeryconfig import (
    CONNECT_TIMEOUT,
    DEFAULT_PRIORITY,
    create_app,
    message_priority,
    queue_names,
    versioned_queue,
)
from wire.connectivity import check_reachable, safe_url
from wire.programs import PROGRAM_TTL, program_key
from wire.progress import PROGRESS_STATE, games_played
from wire.protocol import MAX_WORKER_NAME, TASK_NAME, BatchPayload
from wire.sealing import (
    SECRET_ENV,
    addressed,
    digest,
    fleet_keys,
    refusal_reason,
    sealed_by,
    task_message,
    unseal,
)

log = logging.getLogger(__name__)

#: Batches kept in flight per worker process: one playing, one queued behind it.
IN_FLIGHT_PER_PROCESS = 2
#: In flight when no worker is known yet (work waits in the queue for the first one).
MIN_SLOTS = 2
#: A re-sent batch's lease doubles, up to this many times the first lease.
MAX_LEASE_GROWTH = 4
#: A task is dropped by workers that receive it this many leases after it was sent.
EXPIRY_LEASES = 4
#: Attempts of one batch watched at once (the oldest are revoked beyond it; attempts are also
#: forgotten once expired).
MAX_WATCHED_ATTEMPTS = 16
#: Seconds a batch refused again waits before its next attempt: none after its first refusal,
#: then this, doubling with each refusal up to an eighth of its lease and at most
#: :data:`MAX_RETRY_DELAY` (so that a forger who answers every attempt at once cannot push the
#: worker's own attempt out of the watch, and a liar in the fleet delays a batch little).
RETRY_DELAY = 0.05
MAX_RETRY_DELAY = 10.0
#: Delivered batches remembered, in case their outcome is refused and they are sent again.
MAX_DELIVERED = 1024
#: Seconds between two polls of the result backend: right after results arrived, a tenth
#: (:data:`POLL_SHARE`) of the shortest batch in flight's expected time, but at least
#: :data:`POLL_INTERVAL` (results of short batches come in bursts; a long batch's next result is far
#: off), doubling while nothing arrives up to :data:`MAX_POLL_INTERVAL`, or, when every batch in
#: flight is expected to take long, up to that tenth (at most :data:`MAX_IDLE_POLL`): a run of
#: one-minute batches asks once a second, and twenty such runs waiting cost their host almost
#: nothing. (Each worker process has a second batch queued behind the one it plays, so a result
#: noticed a tenth of a batch late leaves no worker idle.)
POLL_INTERVAL = 0.005
MAX_POLL_INTERVAL = 0.1
POLL_SHARE = 0.1
MAX_IDLE_POLL = 1.0
#: Seconds before sending again a batch whose publication failed (broker unreachable).
RESEND_DELAY = 2.0
#: Seconds between two worker discoveries (and while none is known).
WORKER_REFRESH = 30.0
WORKER_REFRESH_IDLE = 5.0
INSPECT_TIMEOUT = 1.0
#: Bounded publishing: a send gives up quickly and the lease logic retries it.
PUBLISH_RETRY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.5, "interval_max": 0.5}

CONNECTION_ERRORS: tuple[type[BaseException], ...] = (
    OperationalError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    OSError,
)


@dataclass
class _Attempt:
    """One task sent for a batch."""

    task_id: str
    sent_at: float
    deadline: float
    expires_at: float = math.inf
    sent: bool = True
    started: bool = False
    dropped: bool = False
    #: The games its worker says it has played so far (:mod:`wire.progress`), once told.
    played: int | None = None


def _poll_share(payloads: Iterable[BatchPayload]) -> float:
    """:data:`POLL_SHARE` of the expected time of the shortest batch of ``payloads`` (0 when one
    has no estimate, infinite for none)."""
    shortest = math.inf
    for payload in payloads:
        each = game_seconds(payload.game, payload.limits)
        shortest = min(shortest, 0.0 if each is None else 2 * payload.pairs * each)
    return POLL_SHARE * shortest


def idle_poll(payloads: Iterable[BatchPayload]) -> float:
    """The longest wait between two polls while ``payloads`` are in flight (see :data:`POLL_SHARE`)."""
    return max(MAX_POLL_INTERVAL, min(MAX_IDLE_POLL, _poll_share(payloads)))


def first_poll(payloads: Iterable[BatchPayload]) -> float:
    """The wait before the first poll after results arrived, while ``payloads`` are in flight:
    :data:`POLL_INTERVAL` for short batches, else up to a tenth of the shortest one's expected
    time (never more than :func:`idle_poll`)."""
    payloads = list(payloads)
    return max(POLL_INTERVAL, min(idle_poll(payloads), _poll_share(payloads)))


@dataclass
class _Job:
    """One submitted batch and the tasks sent for it."""

    payload: BatchPayload
    lease: float
    attempts: list[_Attempt] = field(default_factory=list)
    refusals: int = 0
    #: Times every attempt of the batch was dropped (REVOKED) before its lease ran out.
    drops: int = 0
    #: The one worker the batch is for (a spot check), or None for any worker of its version.
    node: str | None = None
    #: A worker the next attempt goes to first (another than one that refused the batch).
    prefer: str | None = None
    #: The payload's JSON text as sent (and signed), and its digest, which answers must bind.
    text: str = ""
    played: str = ""

    def __post_init__(self) -> None:
        self.load(self.payload)

    def load(self, payload: BatchPayload) -> None:
        """Make ``payload`` the one this job sends."""
        self.payload = payload
        self.text = payload.text
        self.played = digest(self.text)

    @property
    def key(self) -> tuple[int, int]:
        """(run, batch) of the payload."""
        return self.payload.run_id, self.payload.batch_index


class CeleryExecutor(Executor):
    """Sends batches to Celery workers through a broker and collects their results."""

    def __init__(
        self,
        broker: str | None = None,
        *,
        result_backend: str | None = None,
        concurrency: int | None = None,
        queue: str | None = None,
        priority: int = DEFAULT_PRIORITY,
        lease_seconds: float | None = None,
        connect_timeout: float = CONNECT_TIMEOUT,
        app: Celery | None = None,
    ) -> None:
        """Connect to ``broker`` (default ``$ARBITER_BROKER``); Unreachable (a ValueError) if it is down.

        ``concurrency`` is the number of worker processes to keep busy across all workers; without
        it they are discovered with ``celery inspect stats`` (and rediscovered every
        :data:`WORKER_REFRESH` seconds), counting only the workers of this engine's version.
        ``queue`` defaults to the first of ``$ARBITER_QUEUES`` (batches go to its queue for the
        engine version they ask for); ``priority`` (0 to 9, higher first) is that of every batch
        sent; ``lease_seconds`` defaults to ``$ARBITER_LEASE_SECONDS``, else derived per batch.
        """
        if concurrency is not None and concurrency < 1:
            raise ValueError(f"concurrency: expected a positive number of processes, got {concurrency}")
        self.app = app or create_app(broker, result_backend)
        self.app.conf.update(
            result_backend=polled_backend_url(str(self.app.conf.result_backend)),
            result_backend_always_retry=False,  # the coordinator never blocks on a down backend
        )
        self.broker = safe_url(self.app.conf.broker_url)
        try:
            check_reachable(self.app, connect_timeout)
        except ValueError:
            self.app.close()
            raise
        self.queue = queue or queue_names()[0]
        self.priority = message_priority(priority)
        self.keys = fleet_keys()
        self.publisher = TaskPublisher(self.app)
        self.answers_sealed = self.keys is not None
        self.concurrency = concurrency
        self.leases = LeasePolicy(lease_seconds if lease_seconds is not None else lease_from_env())
        self.workers: dict[str, int] = {}
        #: Workers on this queue that run another engine build: their versions (none take a batch).
        self.other_builds: dict[str, list[str]] = {}
        self._discovered_at = -math.inf
        self._jobs: dict[int, _Job] = {}
        self._delivered: OrderedDict[tuple[int, int], _Job] = OrderedDict()
        self._next_job = 0
        #: The wait before the next poll (None: results just arrived, see :func:`first_poll`).
        self._poll_interval: float | None = None
        self._outage: str | None = None
        self._closed = False
        #: Programs put on the result backend, and when (a run's matches share them).
        self._shipped: dict[str, float] = {}
        #: Batches sent again after their lease ran out (for reports and tests).
        self.resubmissions = 0

    # capacity ---------------------------------------------------------------------------------

    @property
    def slots(self) -> int:
        """Batches to keep in flight: two per worker process (given, or discovered)."""
        if self.concurrency is not None:
            return IN_FLIGHT_PER_PROCESS * self.concurrency
        refresh = WORKER_REFRESH if self.workers else WORKER_REFRESH_IDLE
        if time.monotonic() - self._discovered_at >= refresh:
            self.discover_workers()
        if not self.workers and self.other_builds:
            return 0  # workers are up, none of this engine: nothing is sent (describe says so)
        return max(MIN_SLOTS, IN_FLIGHT_PER_PROCESS * sum(self.workers.values()))

    @slots.setter
    def slots(self, value: int) -> None:
        """Fix the number of batches in flight (as if ``concurrency`` were ``value / 2``)."""
        self.concurrency = max(1, value // IN_FLIGHT_PER_PROCESS)

    def discover_workers(self) -> dict[str, int]:
        """Ask the workers for their pool sizes: ``{node name: processes}`` (kept on failure)."""
        self._discovered_at = time.monotonic()
        try:
            replies = self.app.control.inspect(timeout=INSPECT_TIMEOUT).stats() or {}
        except CONNECTION_ERRORS as e:
            self._note_outage(e)
            return self.workers
        consumers = self._consumers()
        self.workers = {
            name: int((stats.get("pool") or {}).get("max-concurrency") or 1)
            for name, stats in replies.items()
            if name in consumers
        }
        return self.workers

    def _consumers(self) -> set[str]:
        """The workers that consume this engine version's queue (others never take its batches);
        the workers of this queue that run another engine are kept in :attr:`other_builds`."""
        ours = versioned_queue(self.queue, engine.ENGINE_VERSION)
        prefix = versioned_queue(self.queue, "")
        try:
            replies = self.app.control.inspect(timeout=INSPECT_TIMEOUT).active_queues() or {}
        except CONNECTION_ERRORS as e:
            self._note_outage(e)
            return set(self.workers)
        names = {
            node: [str(q.get("name")) for q in queues or [] if isinstance(q, dict)]
            for node, queues in replies.items()
        }
        self.other_builds = {
            node: sorted(q.removeprefix(prefix) for q in queues if q.startswith(prefix) and q != ours)
            for node, queues in names.items()
            if ours not in queues and any(q.startswith(prefix) for q in queues)
        }
        return {node for node, queues in names.items() if ours in queues}

    def in_flight(self) -> int:
        """Batches submitted and not yet delivered."""
        return len(self._jobs)

    def live_workers(self) -> set[str] | None:
        """The worker nodes that answered the last discovery, asked again when it is old."""
        refresh = WORKER_REFRESH if self.workers else WORKER_REFRESH_IDLE
        if time.monotonic() - self._discovered_at >= refresh:
            self.discover_workers()
        return set(self.workers)

    # sending ----------------------------------------------------------------------------------

    def ship_programs(self, archives: Mapping[str, bytes]) -> None:
        """Put the programs' archives where workers fetch them (the result backend, for
        :data:`PROGRAM_TTL` after this). Only a signed payload may make a worker start a program:
        without the fleet's keys, ValueError."""
        if not archives:
            return
        if self.keys is None:
            raise ValueError(
                "engine programs are sent only to a fleet with keys: set ARBITER_SECRET here and give "
                "the workers their credentials (docs/deploy.md, Security)"
            )
        client = self.app.backend.client
        for program, archive in archives.items():
            shipped = self._shipped.get(program)
            if shipped is None or time.monotonic() - shipped > PROGRAM_TTL / 2:
                client.set(program_key(program), archive, ex=PROGRAM_TTL)
                self._shipped[program] = time.monotonic()

    def submit(self, payload: BatchPayload) -> None:
        """Send one batch (a failed send is retried by the lease logic, not raised)."""
        if self._closed:
            raise RuntimeError("submit: the executor is closed")
        job = _Job(payload=payload, lease=self.leases.lease(payload))
        self._watch(job)
        self._send(job)

    def submit_to(self, payload: BatchPayload, node: str) -> None:
        """Send one batch to the worker ``node`` alone (its direct queue): a spot check by a peer.
        It is sent once: if ``node`` gives no outcome within the lease, the outcome is an error
        saying so (another worker would not do: the check is of two named workers)."""
        if self._closed:
            raise RuntimeError("submit: the executor is closed")
        job = _Job(payload=payload, lease=self.leases.lease(payload), node=node)
        self._watch(job)
        self._send(job)

    def retry(self, payload: BatchPayload, avoid: str | None = None) -> None:
        """Send a batch again whose delivered outcome was refused, still watching the attempts
        sent for it before (one of them may yet bring the worker's own result). The new attempt
        goes out at once after a first refusal, then after :data:`RETRY_DELAY`, doubling; to
        another live worker than ``avoid`` when there is one (a batch a worker refused goes to
        another), else to any."""
        if self._closed:
            raise RuntimeError("retry: the executor is closed")
        job = self._delivered.pop((payload.run_id, payload.batch_index), None)
        fresh = job is None
        if job is None:
            job = _Job(payload=payload, lease=self.leases.lease(payload))
        else:
            job.load(payload)
            job.refusals += 1
        if avoid is not None:
            others = sorted(set(self.live_workers() or ()) - {avoid})
            job.prefer = others[(payload.batch_index + job.refusals) % len(others)] if others else None
        self._watch(job)
        if job.refusals > 1:
            self._send_later(job, job.refusals)
        elif fresh or job.refusals == 1:
            self._send(job)

    def _send_later(self, job: _Job, times: int) -> None:
        """Send ``job``'s next attempt (its ``times``-th after a refusal or drop) after
        :data:`RETRY_DELAY`, doubling with each, up to an eighth of its lease and
        :data:`MAX_RETRY_DELAY`."""
        delay = min(job.lease / 8, MAX_RETRY_DELAY, RETRY_DELAY * 2 ** (times - 2))
        now = time.monotonic()
        job.attempts.append(_Attempt(task_id="", sent_at=now, deadline=now + delay, sent=False))

    def _watch(self, job: _Job) -> None:
        """Put ``job`` in flight."""
        self._jobs[self._next_job] = job
        self._next_job += 1

    def _send(self, job: _Job) -> None:
        """Publish one more attempt of ``job``, forgetting its expired and unsent ones."""
        now = time.monotonic()
        task_id = addressed(str(uuid.uuid4()), job.node)  # a spot check: its peer's alone
        expires = EXPIRY_LEASES * job.lease
        run_id, index = job.key
        attempt = _Attempt(task_id=task_id, sent_at=now, deadline=now + job.lease, expires_at=now + expires)
        node, job.prefer = job.node or job.prefer, None  # a preference holds for one attempt
        try:
            self.publisher.publish(
                TASK_NAME,
                [task_message(job.text, self.keys, task_id)],
                task_id=task_id,
                queue=worker_direct(node)
                if node
                else versioned_queue(self.queue, job.payload.engine_version),
                priority=self.priority,
                expires=expires,
                retry_policy=PUBLISH_RETRY,
                # What workers log for the task; Celery would otherwise repr the whole payload.
                argsrepr=f"(run {run_id}, batch {index}, {job.payload.pairs} pairs)",
            )
        except CONNECTION_ERRORS as e:
            self._note_outage(e)
            attempt.sent = False
            attempt.deadline = now + RESEND_DELAY
        expired = [a for a in job.attempts if a.expires_at <= now]
        job.attempts = [a for a in job.attempts if a.sent and a.expires_at > now]
        job.attempts.append(attempt)
        self._discard(expired, revoke=False)
        while len(job.attempts) > MAX_WATCHED_ATTEMPTS:
            self._discard([job.attempts.pop(0)])

    def _resend_if_due(self, job: _Job, now: float) -> None:
        """Send ``job`` again if its newest attempt's lease ran out, or every attempt was dropped
        (at once the first time, then ever more slowly: anyone who can write to the result
        backend can mark each attempt REVOKED, and must not push the attempt a worker plays out of
        the watch, or flood the queue)."""
        newest = job.attempts[-1]
        if now < newest.deadline:
            if not all(a.dropped for a in job.attempts):
                return
            job.drops += 1
            if job.drops > 1:
                self._send_later(job, job.drops)
                return
        if newest.sent:
            run_id, index = job.key
            log.warning(
                "arbiter: batch %s of run %s: no result within its %.0f s lease; sending it again",
                index,
                run_id,
                job.lease,
            )
            self.resubmissions += 1
            job.lease = min(2 * job.lease, MAX_LEASE_GROWTH * self.leases.lease(job.payload))
        self._send(job)

    # receiving --------------------------------------------------------------------------------

    def _fetch(self, task_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Stored meta (status, result, worker) of the tasks that have one; {} if the backend is down.

        Values are only deserialized (JSON), never turned into Python objects by Celery: a FAILURE
        naming any class stays a dict, and a value that does not decode becomes a meta of its own
        with status :data:`UNDECODABLE`. Sizes are asked first: a value larger than any answer is
        refused unfetched, and one poll fetches at most :data:`MAX_POLL_BYTES` (the rest waits for
        the next polls), so that nobody who can write to the backend can fill the coordinator's
        memory.
        """
        if not task_ids:
            return {}
        backend = self.app.backend
        keys = [backend.get_key_for_task(task_id) for task_id in task_ids]
        metas: dict[str, dict[str, Any]] = {}
        try:
            sizes = value_sizes(backend, keys)
            if sizes is not None:
                wanted: list[tuple[str, str]] = []
                budget = MAX_POLL_BYTES
                for task_id, key, size in zip(task_ids, keys, sizes, strict=True):
                    if size > MAX_META_BYTES:
                        metas[task_id] = too_large(size)
                    elif size > 0 and (size <= budget or not wanted):
                        wanted.append((task_id, key))
                        budget -= size
                task_ids, keys = [t for t, _ in wanted], [k for _, k in wanted]
            values = backend.mget(keys) if keys else []
        except CONNECTION_ERRORS as e:
            self._note_outage(e)
            return {}
        self._note_recovery()
        metas.update({t: decode_meta(backend, v) for t, v in zip(task_ids, values, strict=True) if v})
        return metas

    def _poll(self) -> list[BatchOutcome]:
        """Outcomes now available; attempts whose lease ran out are sent again."""
        metas = self._fetch([a.task_id for job in self._jobs.values() for a in job.attempts if a.sent])
        now = time.monotonic()
        outcomes: list[BatchOutcome] = []
        for job_id, job in list(self._jobs.items()):
            found = self._outcome(job, metas, now)
            if found is None and job.node is not None and now >= job.attempts[-1].deadline:
                error = f"worker {job.node} gave no result within its {job.lease:.0f} s lease"
                found = BatchOutcome(*job.key, error=error, worker=job.node), job.attempts[-1]
            if found is None:
                self._resend_if_due(job, now)
                continue
            outcome, winner = found
            outcomes.append(outcome)
            del self._jobs[job_id]
            self._discard([winner], revoke=False)
            self._discard([a for a in job.attempts if a is not winner and not a.dropped])
            self._remember_delivered(job)
        return outcomes

    def _remember_delivered(self, job: _Job) -> None:
        """Keep a delivered job's attempts for :meth:`retry` (the oldest are forgotten)."""
        self._delivered[job.key] = job
        self._delivered.move_to_end(job.key)
        while len(self._delivered) > MAX_DELIVERED:
            self._delivered.popitem(last=False)

    def _outcome(
        self, job: _Job, metas: dict[str, dict[str, Any]], now: float
    ) -> tuple[BatchOutcome, _Attempt] | None:
        """The outcome of ``job`` and the attempt that gave it, if one finished; notes the attempts
        seen starting (their lease starts afresh) and those dropped by a worker (revoked/expired)."""
        run_id, index = job.key
        for attempt in job.attempts:
            meta = metas.get(attempt.task_id)
            status = meta.get("status") if meta else states.PENDING
            if status == states.SUCCESS:
                self.leases.observe(job.payload, now - attempt.sent_at)
                return self._answer(job, attempt, meta.get("result") if meta else None), attempt
            if status in (states.FAILURE, UNDECODABLE):
                # Not an answer of the task's own (a crash, a time limit, or anyone's write): it
                # names nobody, so that it can neither blame nor excuse a worker.
                error = describe_failure(meta.get("result") if meta else None)
                claimed = reported_worker(meta)
                if claimed:
                    error = f"{error} (reported for {claimed})"
                return BatchOutcome(run_id, index, error=error), attempt
            if status == states.REVOKED:
                attempt.dropped = True
                continue
            if status == PROGRESS_STATE:  # a claim, shown apart and never counted
                attempt.played = games_played(meta.get("result") if meta else None, 2 * job.payload.pairs)
            if status in (states.STARTED, PROGRESS_STATE) and not attempt.started:
                attempt.started = True  # the lease counts from the start of the playing
                attempt.deadline = max(attempt.deadline, now + job.lease)
        return None

    def playing(self) -> dict[tuple[int, int], int]:
        """The games played so far that the workers of batches in flight told, read by the polls
        that look for results (the most any attempt of a batch told)."""
        found: dict[tuple[int, int], int] = {}
        for job in self._jobs.values():
            told = [a.played for a in job.attempts if a.played is not None]
            if told:
                found[job.key] = max(found.get(job.key, 0), *told)
        return found

    def _answer(self, job: _Job, attempt: _Attempt, value: Any) -> BatchOutcome:
        """The outcome of a task's stored answer: unsealed with the fleet's keys (an answer that
        is not sealed for this task under the key of the worker it names is refused and names
        nobody), then a result or a worker's refusal, named by the worker that sealed it, with the
        digest of the payload it says it played."""
        run_id, index = job.key
        try:
            answer = unseal(value, attempt.task_id, self.keys)
        except ValueError as e:
            impostor = sealed_by(value, attempt.task_id, self.keys, self.workers) if self.keys else None
            if impostor is not None:  # a worker of the fleet sealed it, in another's name
                why = f"sealed an answer in another worker's name ({e})"
                return BatchOutcome(
                    run_id, index, error=why, worker=impostor, authenticated=True, impostor=True
                )
            return BatchOutcome(run_id, index, error=f"not a worker's answer: {e}")
        name = answer.worker[:MAX_WORKER_NAME] if answer.worker else None
        refused = refusal_reason(answer.body)
        reason, kind = refused if refused is not None else (None, None)
        if reason is not None:  # shown on progress lines, in logs, in a failed run's error
            reason = terminal(reason)
        if kind == "unsigned" and self.keys is None:  # what a coordinator without the secret can do
            reason = f"workers want signed payloads: set ${SECRET_ENV}"
        return BatchOutcome(
            run_id,
            index,
            result=None if refused is not None else answer.body,
            error=reason,
            worker=name,
            refused_by_worker=refused is not None,
            refusal_kind=kind,
            authenticated=answer.authenticated,
            played=answer.payload,
        )

    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]:
        """Outcomes as they arrive: polls until one is there or ``timeout`` seconds passed."""
        deadline = math.inf if timeout is None else time.monotonic() + timeout
        while self._jobs:
            outcomes = self._poll()
            if outcomes:
                self._poll_interval = None
                yield from outcomes
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            payloads = [j.payload for j in self._jobs.values()]
            wait = first_poll(payloads) if self._poll_interval is None else self._poll_interval
            time.sleep(min(wait, remaining))
            self._poll_interval = min(2 * wait, idle_poll(payloads))

    # releasing --------------------------------------------------------------------------------

    def _discard(self, attempts: list[_Attempt], revoke: bool = True) -> None:
        """Stop watching ``attempts``: revoke them (workers drop them unstarted, and stop one they
        are playing: its pool process is killed, its engines dying with it, so that a hanging
        batch no longer holds a worker after nobody waits for it) and delete their stored results;
        best effort, since results also expire on their own."""
        ids = [a.task_id for a in attempts if a.sent]
        if not ids:
            return
        backend = self.app.backend
        try:
            if revoke:
                self.app.control.revoke(ids, terminate=True, signal="SIGKILL")
            if isinstance(backend, RedisBackend):
                backend.client.delete(*[backend.get_key_for_task(task_id) for task_id in ids])
            else:
                for task_id in ids:
                    backend.forget(task_id)
        except CONNECTION_ERRORS as e:
            self._note_outage(e)

    def cancel(self) -> None:
        """Revoke every batch in flight; their outcomes will not be delivered."""
        jobs, self._jobs = self._jobs, {}
        self._delivered.clear()
        self._discard([a for job in jobs.values() for a in job.attempts])

    def close(self) -> None:
        """Cancel what is in flight and release the connections (idempotent)."""
        if self._closed:
            return
        self.cancel()
        self._closed = True
        self.publisher.close()
        self.app.close()

    # outages ----------------------------------------------------------------------------------

    def _note_outage(self, error: BaseException) -> None:
        """Warn once when the broker or the backend stops answering."""
        if self._outage is None:
            self._outage = " ".join(str(error).split()) or type(error).__name__
            log.warning("arbiter: %s unreachable (%s); retrying", self.broker, self._outage)

    def _note_recovery(self) -> None:
        """Say so when it answers again."""
        if self._outage is not None:
            self._outage = None
            log.warning("arbiter: %s reachable again", self.broker)

    def broker_url(self) -> str:
        """The broker's URL as this executor was given it (unmasked: mask it to print it)."""
        return str(self.app.conf.broker_url)

    def describe(self) -> str:
        """One line for the start of a run: broker, queue, workers known and batches in flight."""
        slots = self.slots  # discovers the workers first when they are not given
        processes = sum(self.workers.values())
        known = (
            f"{self.concurrency} worker processes (given)"
            if self.concurrency is not None
            else f"{len(self.workers)} workers with {processes} processes"
        )
        queue = versioned_queue(self.queue, engine.ENGINE_VERSION)
        sealed = (
            "payloads signed, answers sealed under each worker's key"
            if self.keys
            else "payloads not signed, answers not sealed (no ARBITER_SECRET)"
        )
        line = f"Celery on {self.broker}, queue {queue}: {known}, {slots} batches in flight, {sealed}"
        if not self.workers and self.other_builds:
            others = sorted(
                {v.removeprefix("v") for versions in self.other_builds.values() for v in versions}
            )
            line += (
                f"; no worker runs this engine ({engine.ENGINE_VERSION}): the {len(self.other_builds)} "
                f"up run {', '.join(others)}, so nothing is sent until one of this build joins"
            )
        return line
