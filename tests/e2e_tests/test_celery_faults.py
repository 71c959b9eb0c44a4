"""SPRT runs over real Celery workers and a real redis-server, with the faults a cluster meets.

Every run here is compared with the same run on the local process pool: with node limits the
counted pentanomial and W/D/L totals must be identical whatever happens on the way (a worker
SIGKILLed in the middle of a batch, Redis restarted without persistence), and a worker with another
engine version or one forging its counts must get nothing counted, with the reason in the store and
in ``arbiter status RUN --json``. Only the coordinator writes the store, so its kind has nothing
to do with the faults: each test runs on one kind (the ``store_urls`` fixture of
``tests/conftest.py``), PostgreSQL and SQLite in turn, so that Celery runs meet both.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from celery_testkit import (
    RedisDatabase,
    RedisServer,
    WorkerPool,
    free_port,
    started_tasks,
    task_metas,
    wait_until,
    waiting_tasks,
)
from pg_testkit import StoreUrls
from process_testkit import CommandPause, PauseAll, pause_when
from sprt_testkit import (
    book_positions,
    call_seconds,
    run_cli,
    run_cli_timing,
    status_json,
    write_book,
    write_weights,
)

import engine
from coordinator.executors.base import Executor
from coordinator.executors.celery.executor import CeleryExecutor
from coordinator.executors.local import LocalExecutor
from coordinator.executors.options import ExecutorOptions
from coordinator.executors.select import make_executor
from coordinator.runs import RunKind
from coordinator.sprt.config import SprtConfig
from coordinator.sprt.runner import Progress, SprtRunner
from coordinator.store import Store
from wire.connectivity import Unreachable
from wire.protocol import TASK_NAME

GAME = "congo"
CANDIDATE = {"pawn": 150, "mobility": 6}
#: Bound on one whole run over Celery (seconds).
RUN_TIMEOUT = 120.0
#: A small run: 10 batches of 2 pairs at 300 nodes.
SMALL = {"batch_pairs": 2, "limits": engine.Limits(nodes=300), "max_games": 40}
#: Longer batches (about half a second each), so that a kill lands in the middle of one.
LONGER = {"batch_pairs": 3, "limits": engine.Limits(nodes=1500), "max_games": 36}


def make_config(**overrides: Any) -> SprtConfig:
    """A congo SPRT of a candidate with a bigger pawn against the defaults, on a small fixed book."""
    values: dict[str, Any] = {
        "game": GAME,
        "candidate": CANDIDATE,
        "baseline": {},
        "openings": book_positions(GAME, 24, seed=3),  # the book write_book(..., 24, seed=3) writes
        "engine_version": engine.ENGINE_VERSION,
        "seed": 11,
        **SMALL,
    }
    values.update(overrides)
    return SprtConfig(**values)


def new_run(store: Store, config: SprtConfig) -> int:
    """Create a run of ``config`` in ``store``."""
    return store.create_run(RunKind.SPRT, config.game, config.to_json(), config.fingerprint())


def play(store: Store, run_id: int, config: SprtConfig, executor: Executor) -> Progress:
    """Run ``run_id`` to its end with ``executor``."""
    return SprtRunner(store, run_id, config, executor).run()


@cache
def local_counts(config_json: str) -> tuple[list[int], list[int], int]:
    """(pentanomial, W/D/L, batches counted) of a configuration on the local process pool."""
    config = SprtConfig.from_json(json.loads(config_json))
    store = Store("sqlite://")
    with LocalExecutor(2) as executor:
        progress = play(store, new_run(store, config), config, executor)
    return progress.pentanomial, progress.wdl, progress.counted_batches


def reference(config: SprtConfig) -> tuple[list[int], list[int], int]:
    """The local pool's counts for ``config``."""
    return local_counts(json.dumps(config.to_json(), sort_keys=True))


def counts(progress: Progress) -> tuple[list[int], list[int], int]:
    """The comparable part of a progress."""
    return progress.pentanomial, progress.wdl, progress.counted_batches


def assert_counted_once(store: Store, run_id: int, config: SprtConfig) -> None:
    """Every batch of the budget stored exactly once, and the totals are those of its games."""
    assert config.max_batches is not None
    stored = [r.batch_index for r in store.results(run_id)]
    assert stored == list(range(config.max_batches))
    totals = store.totals(run_id)
    assert totals.games == 2 * config.batch_pairs * config.max_batches
    assert sum(totals.pentanomial) == config.batch_pairs * config.max_batches
    records = store.game_records(run_id)
    assert len(records) == totals.games


class Background:
    """Runs a callable in a thread; :meth:`result` joins it (bounded) and re-raises its error."""

    def __init__(self, target: Callable[[], Any]) -> None:
        """Start ``target`` now."""
        self.value: Any = None
        self.error: BaseException | None = None

        def run() -> None:
            try:
                self.value = target()
            except BaseException as e:
                self.error = e

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def done(self) -> bool:
        """True once the callable returned or raised."""
        return not self.thread.is_alive()

    def result(self, timeout: float = RUN_TIMEOUT) -> Any:
        """The callable's return value."""
        self.thread.join(timeout)
        if self.thread.is_alive():
            raise AssertionError(f"the run did not finish within {timeout:.0f} s")
        if self.error is not None:
            raise self.error
        return self.value


@pytest.mark.parametrize("store_kind", ["postgresql"])
def test_two_workers_give_the_local_pools_counts(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path, store_urls: StoreUrls
) -> None:
    """(a) One ``arbiter worker`` and one ``celery worker``: the same counts as the local pool, through
    the executor and through ``arbiter sprt --broker``."""
    first = workers.start("a1", via="arbiter")
    workers.start("a2")
    out = first.output()
    assert f"engine {engine.ENGINE_VERSION}" in out and "bench depth 6" in out and "Mnps" in out
    # arbiter's own start line, one line, and no Celery banner or superuser paragraph
    [banner] = [line for line in out.splitlines() if line.startswith("arbiter worker: ")]
    assert (
        banner.startswith(f"arbiter worker: node {first.node}, broker redis://") and "bench depth 6" in banner
    )
    assert ("running as root" in banner) == (os.geteuid() == 0)
    assert "[tasks]" not in out and "-------------- " not in out and "superuser" not in out, out

    config = make_config()
    store = Store(store_urls("a"))
    run_id = new_run(store, config)
    with make_executor(ExecutorOptions(redis_server.url, 2)) as executor:
        assert isinstance(getattr(executor, "inner", executor), CeleryExecutor)
        progress = play(store, run_id, config, executor)
    assert counts(progress) == reference(config)
    assert progress.decision == "budget"
    assert_counted_once(store, run_id, config)
    assert store.refusals(run_id) == []
    assert not list(redis_server.client().scan_iter("celery-task-meta-*"))  # results collected

    book = write_book(tmp_path / "book.txt", GAME, count=24, seed=3)
    candidate = write_weights(tmp_path / "candidate.json", CANDIDATE)
    cli_store = store_urls("cli")
    done = run_cli(
        *("sprt", GAME, "--candidate", str(candidate), "--book", str(book), "--seed", "11"),
        *("--nodes", "300", "--batch-pairs", "2", "--max-games", "40", "--concurrency", "2"),
        *("--broker", redis_server.url, "--store", cli_store),
    )
    assert done.returncode == 0, done.stderr
    data = status_json(cli_store, 1)
    assert (data["pentanomial"], data["wdl"], data["counted_batches"]) == reference(config)
    log = first.output()  # a batch's answer is not logged whole
    assert "succeeded in" in log and ": answer stored" in log and '"pentanomial"' not in log


@pytest.mark.parametrize("store_kind", ["sqlite"])
def test_sigkill_of_a_worker_in_the_middle_of_a_batch(
    redis_server: RedisDatabase, workers: WorkerPool, store_urls: StoreUrls
) -> None:
    """(b) A worker and its pool are SIGKILLed while playing: the batch is re-sent, nothing lost
    or counted twice, same counts."""
    victim = workers.start("b1")
    workers.start("b2")
    config = make_config(**LONGER)
    store = Store(store_urls("b"))
    run_id = new_run(store, config)
    executor = CeleryExecutor(redis_server.url, concurrency=2, lease_seconds=4)
    with executor:
        run = Background(lambda: play(store, run_id, config, executor))

        def victim_playing() -> bool:
            assert not run.done(), "the run ended before the victim started a batch"
            return bool(started_tasks(redis_server, victim.node))

        # Stop, check, act: the victim is stopped while it has a batch started and not stored, and
        # killed so (a batch that ended between the look and the stop is not taken for one).
        pause_when(CommandPause(victim.process.pid), victim_playing, 30, "the victim to start a batch")
        victim.kill()
        progress = run.result()
    assert counts(progress) == reference(config)
    assert_counted_once(store, run_id, config)
    assert executor.resubmissions >= 1  # the batch killed in the middle was sent again


@pytest.mark.parametrize("store_kind", ["postgresql"])
def test_redis_restart_in_the_middle_of_a_run(
    own_redis_server: RedisServer, workers: WorkerPool, store_urls: StoreUrls
) -> None:
    """(c) Redis is killed and restarted empty mid-run: workers reconnect, the coordinator re-sends
    what was lost, same counts."""
    fleet = [workers.start("c1"), workers.start("c2")]
    config = make_config(limits=engine.Limits(nodes=1000), max_games=48)
    assert config.max_batches is not None
    batches = config.max_batches
    url = store_urls("c")
    store = Store(url)
    run_id = new_run(store, config)
    watcher = Store(url)
    executor = CeleryExecutor(own_redis_server.url, concurrency=2, lease_seconds=4)
    with executor:
        run = Background(lambda: play(store, run_id, config, executor))
        queue = own_redis_server.client()

        def under_way() -> bool:
            assert not run.done(), f"the run ended before Redis could be restarted ({run.error!r})"
            stored = len(watcher.results(run_id))
            assert stored <= batches - executor.slots, f"{stored} of {batches} batches stored: too far"
            return stored >= 2

        # Stop, check, act: both workers are stopped once two results are stored. Then only the
        # coordinator moves: it keeps four batches in flight, and each worker holds at most one
        # (concurrency 1, prefetch 1), so two come to wait in the queue; Redis restarts empty
        # meanwhile, and those two are lost for certain. (Waiting for both workers to be caught in
        # the middle of a batch as well left a window a busy machine could miss.)
        fleet_pause = PauseAll(*(CommandPause(worker.process.pid) for worker in fleet))
        pause_when(fleet_pause, under_way, 60, "two results stored")
        try:
            wait_until(lambda: len(waiting_tasks(queue)) >= 2, 30, "two batches waiting in the queue")
            own_redis_server.restart()
        finally:
            fleet_pause.resume()
        progress = run.result()
    assert executor.resubmissions >= 1  # the batches waiting in the queue were lost, and sent again
    assert counts(progress) == reference(config)
    assert_counted_once(store, run_id, config)


def refused_then_completed(
    workers: WorkerPool, store_urls: StoreUrls, label: str, mode: str, reason: str
) -> dict[str, Any]:
    """A run whose only worker is a liar of ``mode``: its answers are refused with ``reason`` and
    nothing is stored, and the run does not fail (a lie is not a refusal of the batch: the batch
    can be played). A good worker that joins then completes it with the local pool's counts. The
    status JSON seen while only the liar played."""
    workers.start(f"{label}1", app="forging_worker", env={"FORGE": mode})
    config = make_config()
    url = store_urls(label)
    store = Store(url)
    run_id = new_run(store, config)
    watcher = Store(url)
    with CeleryExecutor(workers.broker, concurrency=1) as executor:
        run = Background(lambda: play(store, run_id, config, executor))

        def refused() -> bool:
            assert not run.done(), "the run ended with only a lying worker"
            return any(reason in r.reason for r in watcher.refusals(run_id))

        wait_until(refused, 60, f"an answer of the {mode} liar to be refused")
        assert watcher.results(run_id) == [] and watcher.game_records(run_id) == []
        data = status_json(url, run_id)
        workers.start(f"{label}2")
        progress = run.result()
    assert counts(progress) == reference(config)
    assert_counted_once(store, run_id, config)
    return data


@pytest.mark.parametrize("store_kind", ["sqlite"])
def test_worker_with_another_engine_version_is_refused(workers: WorkerPool, store_urls: StoreUrls) -> None:
    """(d) Results stamped with another engine version are refused and the status says why."""
    data = refused_then_completed(workers, store_urls, "d", "stale", "0.0.0-stale")
    assert data["state"] == "running" and data["games"] == 0
    assert data["refused"] and all("engine_version" in r["reason"] for r in data["refused"])


@pytest.mark.parametrize("store_kind", ["postgresql"])
def test_forged_counts_are_refused(workers: WorkerPool, store_urls: StoreUrls) -> None:
    """(e) A worker whose counts do not add up gets nothing stored; the reason is in the status."""
    import forging_worker

    assert forging_worker.TASK_NAME == TASK_NAME
    data = refused_then_completed(workers, store_urls, "e", "extra_pair", "pentanomial: counts add up to")
    assert data["state"] == "running" and data["games"] == 0
    reasons = [r["reason"] for r in data["refused"]]
    assert reasons and all("pentanomial: counts add up to" in r for r in reasons), reasons


def test_unreachable_broker_is_one_clear_error_within_seconds(tmp_path: Path) -> None:
    """The executor and ``arbiter worker`` both fail fast on a port where nothing listens."""
    url = f"redis://:secret@127.0.0.1:{free_port()}/0"
    started = time.monotonic()
    with pytest.raises(Unreachable, match=r"broker redis://:\*\*\*@127\.0\.0\.1:\d+/0 is unreachable") as e:
        make_executor(ExecutorOptions(url, 2))
    assert "secret" not in str(e.value)
    assert time.monotonic() - started < 6

    # The command's own check, timed inside it: the interpreter's start and the imports (Celery,
    # the engine) before it are no part of failing fast, and a busy machine slows them at will.
    record = tmp_path / "check-seconds.txt"
    done = run_cli_timing(
        "coordinator.cli.worker:check_reachable", record, "worker", "--broker", url, "--concurrency", "1"
    )
    assert done.returncode == 2
    [seconds] = call_seconds(record)
    assert seconds < 6
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "is unreachable" in lines[0] and "secret" not in lines[0], done.stderr


def test_a_wrong_password_is_named_as_such(redis_server: RedisDatabase) -> None:
    """A broker that answers but refuses the URL's credentials is an authentication failure, not
    "unreachable", from the executor and from ``arbiter worker`` (the password never shown)."""
    url = f"redis://nobody:wrong-secret@127.0.0.1:{redis_server.server.port}/{redis_server.number}"
    with pytest.raises(
        Unreachable, match=r"broker redis://nobody:\*\*\*@127\.0\.0\.1:\d+/\d+ refused the pass"
    ):
        make_executor(ExecutorOptions(url, 2))
    done = run_cli("worker", "--broker", url, "--concurrency", "1")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "(authentication failed: " in lines[0], done.stderr
    assert "unreachable" not in lines[0] and "wrong-secret" not in lines[0]


def test_a_revoked_batch_stops_playing(redis_server: RedisDatabase, workers: WorkerPool) -> None:
    """A batch revoked while a worker plays it (a run that ended, a copy nobody waits for) stops
    there: the worker takes the next batch at once instead of playing the revoked one to its end.
    While it plays, its worker tells the games played so far (before anything is counted)."""
    endless = make_config(limits=engine.Limits(nodes=1000), batch_pairs=1000, max_games=None)
    short = make_config(seed=12)
    worker = workers.start("revoked")
    with CeleryExecutor(redis_server.url, concurrency=1) as first:
        first.submit(endless.batch_plan().payload(1, 0))
        wait_until(lambda: started_tasks(redis_server, worker.node), 60, "the long batch to start")

        def told() -> int:
            assert not list(first.completed(timeout=0.2)), "the long batch ended"
            return first.playing().get((1, 0), 0)

        assert 1 <= wait_until(told, 60, "the worker to tell its games played") < 2000
        [meta] = task_metas(redis_server)  # what it stores: its games, not the whole payload again
        assert meta["status"] == "PROGRESS" and meta["result"]["hostname"] == worker.node
        assert "args" not in meta and started_tasks(redis_server, worker.node)
        first.cancel()  # revokes it, terminating its playing
    started = time.monotonic()
    with CeleryExecutor(redis_server.url, concurrency=1) as second:
        second.submit(short.batch_plan().payload(2, 0))
        outcomes = wait_until(lambda: list(second.completed(timeout=1.0)), 120, "the next batch's outcome")
    assert outcomes[0].result is not None, outcomes[0].error
    assert time.monotonic() - started < 60  # the long batch alone would take many minutes
    assert "Terminating" in worker.output() or "terminated" in worker.output().lower()
