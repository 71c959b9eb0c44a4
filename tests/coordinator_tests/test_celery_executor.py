"""CeleryExecutor's bookkeeping without a broker: leases, re-sending, first outcome wins, outages.

A fake Celery app stands in for the broker and the result backend, and a fake clock for time, so
that every lease expiry is exact. The same executor against a real redis-server and real workers
is in ``tests/e2e_tests/test_celery_faults.py``.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from kombu.exceptions import OperationalError

import engine
from coordinator import sizing
from coordinator.executors.celery import executor as ce
from coordinator.executors.celery import leases
from coordinator.executors.celery.executor import CeleryExecutor
from coordinator.executors.celery.leases import LeasePolicy, budget_seconds
from coordinator.executors.local import LocalExecutor
from coordinator.executors.options import ExecutorOptions
from coordinator.executors.select import make_executor
from wire.programs import BUILD_TIMEOUT, BuildSpec, EngineProgram
from wire.protocol import BatchPayload
from wire.sealing import FleetKeys, addressee, refusal, seal


class FakeClock:
    """``time`` for the executor module: sleeping advances the clock."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class FakeBackend:
    """Task metas in a dict; ``mget`` over them like the key-value backends."""

    def __init__(self) -> None:
        self.metas: dict[str, dict[str, Any]] = {}
        self.forgotten: list[str] = []
        self.down = False

    def get_key_for_task(self, task_id: str) -> str:
        return task_id

    def mget(self, keys: list[str]) -> list[Any]:
        if self.down:
            raise OperationalError("backend down")
        return [self.metas.get(k) for k in keys]

    def decode(self, value: Any) -> dict[str, Any]:
        return value

    def forget(self, task_id: str) -> None:
        self.forgotten.append(task_id)
        self.metas.pop(task_id, None)


class FakeControl:
    def __init__(self) -> None:
        self.revoked: list[str] = []

    def revoke(self, ids: list[str], terminate: bool = False, signal: str | None = None) -> None:
        assert terminate and signal == "SIGKILL"  # a copy being played stops too
        self.revoked.extend(ids)


class FakeConf(dict[str, Any]):
    def __getattr__(self, name: str) -> Any:
        return self[name]


class FakeApp:
    """Records sent tasks (through :class:`FakePublisher`); ``down`` makes publishing fail like an
    unreachable broker."""

    def __init__(self) -> None:
        self.conf = FakeConf(broker_url="redis://:pw@fake:6379/0", result_backend="redis://fake:6379/0")
        self.backend = FakeBackend()
        self.control = FakeControl()
        self.sent: list[dict[str, Any]] = []
        self.down = False
        self.closed = False

    def close(self) -> None:
        self.closed = True


class FakePublisher:
    """The executor's publisher (``TaskPublisher``) on a :class:`FakeApp`: records what it sends."""

    def __init__(self, app: FakeApp) -> None:
        self.app = app

    def publish(self, name: str, args: list[Any], **options: Any) -> None:
        if self.app.down:
            raise OperationalError("broker down")
        self.app.sent.append({"name": name, "payload": args[0], **options})

    def close(self) -> None:
        pass


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(ce, "time", fake)
    monkeypatch.setattr(ce, "check_reachable", lambda app, timeout: None)
    return fake


def executor(lease: float | None = 10.0, concurrency: int | None = 2) -> tuple[CeleryExecutor, FakeApp]:
    app = FakeApp()
    ex = CeleryExecutor(app=app, concurrency=concurrency, lease_seconds=lease)  # type: ignore[arg-type]
    ex.publisher = FakePublisher(app)  # type: ignore[assignment]
    return ex, app


def payload(index: int, **overrides: Any) -> BatchPayload:
    values: dict[str, Any] = {
        "run_id": 1,
        "batch_index": index,
        "game": "congo",
        "candidate": None,
        "baseline": None,
        "openings": ["x"] * 4,
        "limits": engine.Limits(nodes=2000),
        "adjudication": engine.Adjudication(max_plies=400),
        "seed": 0,
        "engine_version": "test",
    }
    values.update(overrides)
    return BatchPayload(**values)


def result(index: int) -> dict[str, Any]:
    return {"run_id": 1, "batch_index": index, "pentanomial": [0, 0, 1, 0, 0]}


def succeed(app: FakeApp, task_id: str, index: int) -> None:
    app.backend.metas[task_id] = {"status": "SUCCESS", "result": seal(result(index), task_id, "w1", "", None)}


def test_sends_json_tasks_by_name_to_the_queue(clock: FakeClock) -> None:
    ex, app = executor()
    assert ex.slots == 4
    ex.submit(payload(0))
    (sent,) = app.sent
    assert sent["name"] == "arbiter.play_batch" and sent["queue"] == "arbiter.vtest"  # the payload's version
    assert sent["priority"] == 9  # --priority 0: Redis's last level
    # What workers log: not the whole payload.
    assert sent["argsrepr"] == f"(run 1, batch 0, {payload(0).pairs} pairs)"
    assert sent["payload"] == {"payload": payload(0).text, "signature": None}  # no fleet secret
    assert sent["expires"] == ce.EXPIRY_LEASES * 10.0
    assert ex.in_flight() == 1
    assert app.conf.result_backend.endswith("PolledRedisBackend+redis://fake:6379/0")


def test_outcome_delivered_once_and_result_deleted(clock: FakeClock) -> None:
    ex, app = executor()
    ex.submit(payload(0))
    assert list(ex.completed(timeout=0.2)) == []
    task_id = app.sent[0]["task_id"]
    succeed(app, task_id, 0)
    (outcome,) = ex.completed(timeout=1)
    assert outcome.batch_index == 0 and outcome.result == result(0) and outcome.error is None
    assert ex.in_flight() == 0 and app.backend.forgotten == [task_id]
    assert list(ex.completed(timeout=1)) == []


def test_failure_is_an_error_outcome(clock: FakeClock) -> None:
    ex, app = executor()
    ex.submit(payload(3))
    task_id = app.sent[0]["task_id"]
    app.backend.metas[task_id] = {
        "status": "FAILURE",
        "result": {"exc_type": "ValueError", "exc_message": ["batch payload: missing seed"]},
    }
    (outcome,) = ex.completed(timeout=1)
    assert outcome.error == "ValueError: batch payload: missing seed" and outcome.result is None


def test_lease_expiry_resends_and_first_attempt_wins(clock: FakeClock) -> None:
    ex, app = executor(lease=10)
    ex.submit(payload(0))
    assert list(ex.completed(timeout=9.9)) == []
    assert len(app.sent) == 1
    assert list(ex.completed(timeout=0.2)) == []  # the lease ran out: sent again, lease doubled
    assert len(app.sent) == 2 and ex.resubmissions == 1
    first, second = (s["task_id"] for s in app.sent)
    assert app.sent[1]["expires"] == ce.EXPIRY_LEASES * 20
    succeed(app, first, 0)  # the first copy was only slow
    (outcome,) = ex.completed(timeout=1)
    assert outcome.result == result(0)
    assert app.control.revoked == [second]  # the other copy is dropped by the workers
    succeed(app, second, 0)
    assert list(ex.completed(timeout=1)) == [] and ex.in_flight() == 0


def test_started_attempt_gets_a_fresh_lease(clock: FakeClock) -> None:
    ex, app = executor(lease=10)
    ex.submit(payload(0))
    clock.now += 8  # queued for 8 s, then a worker starts it
    app.backend.metas[app.sent[0]["task_id"]] = {"status": "STARTED", "result": {"hostname": "w@h"}}
    assert list(ex.completed(timeout=5)) == []
    assert len(app.sent) == 1  # 13 s after sending, 5 s after starting: still within its lease
    assert list(ex.completed(timeout=6)) == []
    assert len(app.sent) == 2


def test_revoked_attempt_is_sent_again_at_once(clock: FakeClock) -> None:
    ex, app = executor(lease=10)
    ex.submit(payload(0))
    app.backend.metas[app.sent[0]["task_id"]] = {"status": "REVOKED", "result": None}
    assert list(ex.completed(timeout=0.1)) == []
    assert len(app.sent) == 2


def test_broker_outage_while_sending_and_polling(clock: FakeClock) -> None:
    ex, app = executor(lease=10)
    app.down = app.backend.down = True
    ex.submit(payload(0))  # does not raise
    assert app.sent == [] and ex.in_flight() == 1
    assert list(ex.completed(timeout=ce.RESEND_DELAY + 1)) == []
    app.down = app.backend.down = False
    assert list(ex.completed(timeout=ce.RESEND_DELAY + 0.1)) == []
    assert len(app.sent) == 1 and ex.resubmissions == 0  # never sent is not a re-submission
    succeed(app, app.sent[0]["task_id"], 0)
    assert [o.batch_index for o in ex.completed(timeout=1)] == [0]


def test_watched_attempts_are_bounded(clock: FakeClock) -> None:
    ex, app = executor(lease=1)
    ex.submit(payload(0))
    for _ in range(40):
        list(ex.completed(timeout=5))
    watched = ex._jobs[0].attempts
    assert 1 <= len(watched) <= ce.MAX_WATCHED_ATTEMPTS
    assert all(a.expires_at > clock.now for a in watched)  # expired copies are no longer watched
    gone = {s["task_id"] for s in app.sent} - {a.task_id for a in watched}
    assert gone <= set(app.control.revoked) | set(app.backend.forgotten)


def success(
    task_id: str, index: int, worker: str = "w1", secret: bytes | None = None, signer: str | None = None
) -> dict[str, Any]:
    """A worker's stored answer: its result, sealed for the task under the key that ``signer``
    (default: ``worker``) gets from the master ``secret`` (None: not sealed)."""
    key = FleetKeys(secret).worker_key(signer or worker) if secret is not None else None
    body = {"batch_index": index, "worker": worker}
    return {"status": "SUCCESS", "result": seal(body, task_id, worker, "", key)}


def test_a_refused_outcome_leaves_earlier_attempts_watched(clock: FakeClock) -> None:
    """A forger writes a result for a queued task before its worker does: the batch sent again
    still watches that task, and the worker's own result, written later, is delivered."""
    ex, app = executor()
    ex.submit(payload(0))
    first = app.sent[0]["task_id"]
    app.backend.metas[first] = {"status": "SUCCESS", "result": seal({"forged": True}, first, "w1", "", None)}
    [forged] = list(ex.completed(timeout=1))
    assert forged.result == {"forged": True} and ex.in_flight() == 0
    ex.retry(payload(0))  # refused by the runner: sent again
    assert ex.in_flight() == 1 and len(app.sent) == 2 and first not in app.control.revoked
    app.backend.metas[first] = success(first, 0)  # the worker finishes the first task after all
    [honest] = list(ex.completed(timeout=1))
    assert honest.result == {"batch_index": 0, "worker": "w1"} and honest.worker == "w1"
    assert app.sent[1]["task_id"] in app.control.revoked  # the copy is no longer needed


def test_repeated_refusals_back_off(clock: FakeClock) -> None:
    ex, app = executor()
    ex.submit(payload(0))
    for refusals in range(1, 5):
        newest = app.sent[-1]["task_id"]
        app.backend.metas[newest] = {"status": "FAILURE", "result": {"exc_type": "Forged"}}
        assert [o.error for o in ex.completed(timeout=0.001)] == ["Forged"]
        sent = len(app.sent)
        ex.retry(payload(0))
        if refusals == 1:
            assert len(app.sent) == sent + 1  # the first retry goes out at once
            continue
        delay = ce.RETRY_DELAY * 2 ** (refusals - 2)
        list(ex.completed(timeout=delay / 2))
        assert len(app.sent) == sent  # not yet
        list(ex.completed(timeout=delay))
        assert len(app.sent) == sent + 1


def test_retry_of_a_batch_not_delivered_here_submits_it(clock: FakeClock) -> None:
    ex, app = executor()
    ex.retry(payload(3))
    assert ex.in_flight() == 1 and json.loads(app.sent[0]["payload"]["payload"])["batch_index"] == 3


def test_cancel_revokes_everything_and_close_is_idempotent(clock: FakeClock) -> None:
    ex, app = executor()
    for i in range(3):
        ex.submit(payload(i))
    ex.cancel()
    assert ex.in_flight() == 0 and sorted(app.control.revoked) == sorted(s["task_id"] for s in app.sent)
    ex.close()
    ex.close()
    assert app.closed
    with pytest.raises(RuntimeError):
        ex.submit(payload(5))


def test_budget_and_derived_leases() -> None:
    slowest = sizing.SLOWEST_CORE / sizing.ESTIMATED_NODES_PER_SECOND  # seconds per node, slowest core
    assert budget_seconds(payload(0)) == pytest.approx(8 * 400 * 2000 * slowest)
    assert budget_seconds(payload(0, limits=engine.Limits(movetime_ms=100))) == pytest.approx(8 * 400 * 0.1)
    assert budget_seconds(payload(0, limits=engine.Limits(depth=6))) is None
    # A clock: both sides' base time and every increment, and the margin of every move.
    clock = engine.Limits(time_control=engine.TimeControl.parse("10+0.1"), time_margin_ms=50)
    assert budget_seconds(payload(0, limits=clock)) == pytest.approx(8 * (2 * (10 + 200 * 0.1) + 400 * 0.05))
    # A side built from its commit: the worker may have to build it first.
    built = EngineProgram("c", "0" * 64, ("./arbiter-engine",), {}, build=BuildSpec("repo", "a" * 40, 1))
    with_build = budget_seconds(payload(0, candidate_program=built))
    assert with_build == pytest.approx(8 * 400 * 2000 * slowest + BUILD_TIMEOUT)

    policy = LeasePolicy(ceiling=600)
    assert policy.lease(payload(0)) == pytest.approx(8 * 400 * 2000 * slowest + leases.LEASE_GRACE)
    assert policy.lease(payload(0, limits=engine.Limits(depth=6))) == 600
    assert policy.lease(payload(0, limits=engine.Limits(nodes=10**8))) == 600
    for seconds in (1.0, 2.0, 1.5):
        policy.observe(payload(0), seconds)
    assert policy.lease(payload(0)) == leases.MIN_LEASE  # 4 x 2 s, but never under the minimum
    policy.observe(payload(0), 20.0)
    assert policy.lease(payload(0)) == pytest.approx(
        8 * 400 * 2000 * slowest + leases.LEASE_GRACE
    )  # capped by it
    assert LeasePolicy(fixed=7).lease(payload(0)) == 7
    with pytest.raises(ValueError):
        LeasePolicy(fixed=0)


def test_lease_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ce.lease_from_env({}) is None
    assert ce.lease_from_env({"ARBITER_LEASE_SECONDS": "45"}) == 45
    with pytest.raises(ValueError, match="ARBITER_LEASE_SECONDS"):
        ce.lease_from_env({"ARBITER_LEASE_SECONDS": "-1"})


def test_polled_backend_only_for_redis() -> None:
    assert ce.polled_backend_url("rediss://h:1/0").endswith(":PolledRedisBackend+rediss://h:1/0")
    assert ce.polled_backend_url("db+postgresql://h/db") == "db+postgresql://h/db"


def test_make_executor_is_local_without_a_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARBITER_BROKER", raising=False)
    for broker in (None, "", "  "):
        with make_executor(ExecutorOptions(broker, 2)) as ex:
            assert isinstance(ex, LocalExecutor) and ex.concurrency == 2
    monkeypatch.setenv("ARBITER_BROKER", "")
    assert isinstance(make_executor(ExecutorOptions(None, 1)), LocalExecutor)


def test_answers_are_unsealed_and_name_their_worker(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a fleet secret, only answers sealed for their own task under the key of the worker they
    name count as that worker's: anything else is refused and names nobody, whatever name it
    claims; and every payload goes out signed by the coordinator."""
    monkeypatch.setenv("ARBITER_SECRET", "s3cret")
    ex, app = executor()
    for index in range(5):
        ex.submit(payload(index))
    ids = [s["task_id"] for s in app.sent]
    app.backend.metas[ids[0]] = success(ids[0], 0, "honest@a", secret=b"s3cret")
    app.backend.metas[ids[1]] = success(ids[1], 1, "honest@a")  # no seal: written by anyone
    app.backend.metas[ids[2]] = success(ids[2], 2, "honest@a", secret=b"guess")
    app.backend.metas[ids[3]] = success(ids[0], 3, "honest@a", secret=b"s3cret")  # another task's seal
    refused = refusal("batch payload: engine version 'x' was requested", "old@b", kind="version")
    old_key = FleetKeys(b"s3cret").worker_key("old@b")
    app.backend.metas[ids[4]] = {"status": "SUCCESS", "result": seal(refused, ids[4], "old@b", "", old_key)}
    outcomes = {o.batch_index: o for o in ex.completed(timeout=1)}
    assert outcomes[0].result == {"batch_index": 0, "worker": "honest@a"} and outcomes[0].worker == "honest@a"
    assert outcomes[0].authenticated
    for forged in (1, 2, 3):
        assert outcomes[forged].error is not None and "not a worker's answer" in outcomes[forged].error
        assert outcomes[forged].worker is None  # a claimed name blames nobody
    assert outcomes[4].error.startswith("batch payload: engine version") and outcomes[4].worker == "old@b"
    assert (
        outcomes[4].refused_by_worker and outcomes[4].refusal_kind == "version" and outcomes[4].authenticated
    )
    # Every payload went out signed for its own task, and only the coordinator's key verifies.
    keys = FleetKeys(b"s3cret").worker_keys()
    for sent in app.sent:
        message = sent["payload"]
        assert keys.verify(sent["task_id"], message["payload"], message["signature"])
        assert not keys.verify(
            ids[0] if sent["task_id"] != ids[0] else ids[1], message["payload"], message["signature"]
        )
        assert (
            not FleetKeys(b"guess")
            .worker_keys()
            .verify(sent["task_id"], message["payload"], message["signature"])
        )


def test_an_insider_cannot_answer_in_another_workers_name(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker holding its own key seals an answer naming another worker: it is refused, and the
    name it used is not blamed (nothing proves who wrote it)."""
    monkeypatch.setenv("ARBITER_SECRET", "s3cret")
    ex, app = executor()
    ex.submit(payload(0))
    task_id = app.sent[0]["task_id"]
    app.backend.metas[task_id] = success(task_id, 0, "honest@a", secret=b"s3cret", signer="insider@c")
    (outcome,) = ex.completed(timeout=1)
    assert (
        outcome.worker is None
        and not outcome.authenticated
        and "not a worker's answer" in (outcome.error or "")
    )


def test_a_failure_names_nobody(clock: FakeClock) -> None:
    ex, app = executor()
    ex.submit(payload(0))
    task_id = app.sent[0]["task_id"]
    app.backend.metas[task_id] = {"status": "FAILURE", "result": {"exc_type": "Crash"}, "worker": "honest@a"}
    (outcome,) = ex.completed(timeout=1)
    assert outcome.worker is None and outcome.error == "Crash (reported for honest@a)"


def test_idle_polls_are_spaced_to_the_batches_expected_time() -> None:
    short = payload(0)  # 4 pairs at 2,000 nodes: about half a second
    minute = payload(1, openings=["x"] * 477)  # about a minute of one core's work
    assert ce.idle_poll([short]) == ce.MAX_POLL_INTERVAL
    assert ce.idle_poll([minute]) == ce.MAX_IDLE_POLL
    assert ce.idle_poll([minute, short]) == ce.MAX_POLL_INTERVAL  # the shortest batch in flight decides
    half = payload(2, openings=["x"] * 40)  # about five seconds: a tenth of it
    each = sizing.game_seconds("congo", engine.Limits(nodes=2000))
    assert each is not None
    assert ce.idle_poll([half]) == pytest.approx(ce.POLL_SHARE * 2 * 40 * each)
    assert ce.idle_poll([payload(3, limits=engine.Limits(depth=4))]) == ce.MAX_POLL_INTERVAL  # no estimate
    # Right after results arrived: a tenth of the shortest batch too, but at least POLL_INTERVAL.
    assert ce.first_poll([minute]) == ce.MAX_IDLE_POLL
    assert ce.first_poll([half]) == ce.idle_poll([half])
    assert ce.first_poll([short]) == pytest.approx(ce.POLL_SHARE * 2 * 4 * each)
    assert ce.POLL_INTERVAL < ce.first_poll([short]) < ce.MAX_POLL_INTERVAL
    tiny = payload(4, limits=engine.Limits(nodes=50))  # 8 games at 50 nodes: a burst of results
    assert ce.first_poll([tiny, minute]) == ce.POLL_INTERVAL


@pytest.mark.parametrize(
    "stored",
    [
        {"exc_type": "Crash", "exc_message": [orjson.loads("[" * 1000 + "]" * 1000)]},
        orjson.loads("[" * 1000 + "]" * 1000),
        {"exc_type": {"deep": orjson.loads("[" * 1000 + "]" * 1000)}, "exc_message": 7},
    ],
    ids=["message", "value", "type"],
)
def test_a_failure_nested_deeper_than_python_recurses_is_one_line(clock: FakeClock, stored: Any) -> None:
    # Anyone who can write to the result backend can store such a FAILURE (orjson reads 1,023
    # levels; str() of it recurses past Python's limit): the batch is refused, nothing raised.
    ex, app = executor()
    ex.submit(payload(0))
    app.backend.metas[app.sent[0]["task_id"]] = {"status": "FAILURE", "result": stored}
    (outcome,) = ex.completed(timeout=1)
    assert outcome.worker is None and outcome.result is None
    assert outcome.error is not None and len(outcome.error) <= 2 * 300 + 2 and "\n" not in outcome.error


def test_a_workers_text_reaches_no_terminal_with_its_control_characters(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refusal's reason sealed by an insider, or a FAILURE anyone wrote, becomes the error the
    progress line, the run's failure and the logs print: escape sequences (a terminal's title,
    clearing the screen) and direction overrides are spaces by then."""
    monkeypatch.setenv("ARBITER_SECRET", "s3cret")
    ex, app = executor()
    ex.submit(payload(0))
    ex.submit(payload(1))
    ids = [s["task_id"] for s in app.sent]
    nasty = "\x1b]0;pwned\x07\x1b[2J\u202eno"
    body = {"refused": nasty, "kind": "payload", "worker": "w@a"}  # as an insider may seal it
    app.backend.metas[ids[0]] = {
        "status": "SUCCESS",
        "result": seal(body, ids[0], "w@a", "", FleetKeys(b"s3cret").worker_key("w@a")),
    }
    app.backend.metas[ids[1]] = {"status": "FAILURE", "result": {"exc_type": nasty, "exc_message": [nasty]}}
    outcomes = {o.batch_index: o for o in ex.completed(timeout=1)}
    assert outcomes[0].refused_by_worker and outcomes[0].authenticated
    for outcome in outcomes.values():
        assert outcome.error is not None and "pwned" in outcome.error
        assert not any(c in outcome.error for c in "\x1b\x07\u202e"), repr(outcome.error)


def test_attempts_forged_revoked_are_sent_again_ever_more_slowly(clock: FakeClock) -> None:
    """Anyone who can write to the result backend can mark every attempt REVOKED as soon as it is
    sent: each is sent again, after a first at once ever more slowly (as refused ones), so that
    the forger can neither flood the queue nor push the attempt a worker plays out of the watch
    (which revokes it, killing the play)."""
    ex, app = executor(lease=60)
    ex.submit(payload(0))
    start = clock.now
    while clock.now - start < 5:
        for sent in app.sent:
            app.backend.metas[sent["task_id"]] = {"status": "REVOKED", "result": None}
        assert list(ex.completed(timeout=0.1)) == []
    assert 2 <= len(app.sent) <= 10
    assert app.sent[0]["task_id"] not in app.control.revoked  # still watched: its answer would count


def test_a_spot_check_is_addressed_to_its_peer_and_other_batches_to_nobody(clock: FakeClock) -> None:
    ex, app = executor()
    ex.submit(payload(0))
    ex.submit_to(payload(1), "peer@b")
    anyone, check = app.sent
    assert addressee(anyone["task_id"]) is None
    assert addressee(check["task_id"]) == "peer@b" and check["queue"].name == "peer@b.dq2"
