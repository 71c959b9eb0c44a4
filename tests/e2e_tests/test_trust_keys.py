"""The trust boundary with the fleet's keys, against a real redis-server and real Celery workers.

The coordinator holds the master secret; every worker holds only its own credential (``arbiter
worker-key NODE``): payloads are signed by the coordinator, answers sealed by each worker under its
own key. Each attack is compared with an honest run of the same configuration on the local pool:

- (a) a Redis client without any key rewrites queued payloads: nothing it did is played or
  counted, and nobody is blamed;
- (b) an insider with its own key plays every batch after its first against a crippled baseline:
  its results stand out, every batch of it is then checked, it is caught, all it gave is played
  again, and no honest worker is blamed;
- (c) an insider answering in another worker's name is refused, and only it is blamed;
- (d) a timed run's liar is caught by repeating its moves with their recorded node budgets;
- (e) refusals, forged by a Redis client or sealed by an insider, never fail a run;
- (f) a 50 MB value in the result backend does not grow the coordinator.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import redis
from celery_testkit import NODE_HOST, RedisDatabase, WorkerPool, queue_keys, wait_until, waiting_tasks
from test_celery_faults import RUN_TIMEOUT, Background, counts, make_config, new_run, play, reference

import engine
from coordinator.executors.celery.backend import MAX_META_BYTES
from coordinator.executors.celery.executor import CeleryExecutor
from coordinator.executors.checking import CheckingExecutor
from coordinator.executors.local import LocalExecutor
from coordinator.sprt.config import BatchPlan
from coordinator.store import Store
from wire.sealing import FleetKeys, refusal, seal
from worker.games import check_batch

SECRET = "the-fleet-master-secret-of-the-test"
FLEET = FleetKeys(SECRET.encode())


def keyed(name: str) -> dict[str, str]:
    """The environment of worker ``name``: its own credential only (no master secret)."""
    return {"ARBITER_WORKER_KEY": FLEET.credential(f"{name}@{NODE_HOST}"), "ARBITER_SECRET": ""}


def checking(url: str, fraction: float = 0.02, peers: bool = False) -> CheckingExecutor:
    """The coordinator's spot-checked Celery executor, its own pool as the judge."""
    return CheckingExecutor(
        CeleryExecutor(url),
        LocalExecutor(1, task=check_batch),
        fraction=fraction,
        peers=CeleryExecutor(url) if peers else None,
    )


@pytest.fixture(autouse=True)
def coordinator_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process is the coordinator: it holds the master secret."""
    monkeypatch.setenv("ARBITER_SECRET", SECRET)


class PayloadRewriter:
    """A Redis client with no key that rewrites batches waiting in the queue: the baseline's
    weights crippled, the limits, or the run id, taking the batches the old public formula said
    were not checked (now nobody can say which are)."""

    def __init__(self, server: RedisDatabase, limit: int) -> None:
        self.client = redis.Redis.from_url(server.url)
        self.limit = limit
        self.rewritten: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    @staticmethod
    def unchecked_by_the_old_formula(payload: dict[str, Any]) -> bool:
        digest = hashlib.sha256(f"spot-check:{payload['run_id']}:{payload['seed']}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 >= 0.02

    def forge(self, payload: dict[str, Any]) -> dict[str, Any]:
        """One of three rewrites, in turn."""
        kind = len(self.rewritten) % 3
        if kind == 0:
            payload["baseline"] = {w.name: w.min for w in engine.weights(payload["game"])}
        elif kind == 1:
            payload["limits"] = {"nodes": 3}
        else:
            payload["run_id"] += 1000
        return payload

    def run(self) -> None:
        while not self.stop.wait(0.005) and len(self.rewritten) < self.limit:
            for key in queue_keys():
                try:
                    waiting = self.client.lrange(key, 0, -1)
                except redis.RedisError:  # the server is going away at teardown
                    return
                for index, raw in enumerate(waiting):
                    message = json.loads(raw)
                    task_id = message["headers"]["id"]
                    if task_id in self.rewritten or len(self.rewritten) >= self.limit:
                        continue
                    args, kwargs, embed = json.loads(base64.b64decode(message["body"]))
                    payload = json.loads(args[0]["payload"])
                    if not self.unchecked_by_the_old_formula(payload):
                        continue
                    args[0]["payload"] = json.dumps(self.forge(payload))
                    message["body"] = base64.b64encode(json.dumps([args, kwargs, embed]).encode()).decode()
                    with self.client.pipeline() as pipe:  # replace it where it is, unless taken meanwhile
                        try:
                            pipe.watch(key)
                            if pipe.lindex(key, index) != raw:
                                continue
                            pipe.multi()
                            pipe.lset(key, index, json.dumps(message))
                            pipe.execute()
                        except redis.WatchError:
                            continue
                    self.rewritten.append(task_id)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.client.close()


def test_a_redis_writer_without_a_key_changes_nothing_and_blames_nobody(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path
) -> None:
    """(a) Rewritten payloads are refused unplayed by the workers (the coordinator's signature
    does not verify): the run ends with the honest counts, and nobody is quarantined."""
    config = make_config()
    store = Store(f"sqlite:///{tmp_path / 'rewritten.db'}")
    run_id = new_run(store, config)
    rewriter = PayloadRewriter(redis_server, limit=6)
    try:
        with checking(redis_server.url) as executor:
            run = Background(lambda: play(store, run_id, config, executor))
            # No worker is up until the first waiting batches are rewritten.
            wait_until(lambda: len(rewriter.rewritten) >= 2, RUN_TIMEOUT, "queued payloads to be rewritten")
            workers.start("honest-a", env=keyed("honest-a"))
            workers.start("honest-b", env=keyed("honest-b"))
            progress = run.result()
    finally:
        rewriter.close()
    assert counts(progress) == reference(config)
    assert store.quarantines(run_id) == [] and not executor.quarantined
    reasons = [r.reason for r in store.refusals(run_id)]
    assert len(rewriter.rewritten) >= 2
    assert any("not signed by this fleet's coordinator" in reason for reason in reasons), reasons


def test_an_insider_crippling_the_baseline_is_caught_and_nobody_else(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path
) -> None:
    """(b) The liar's first batches pass their checks; then its results favour the candidate far
    beyond the honest worker's, so its latest batches are checked after all, and every later one
    before it counts: a lie quarantines it, all it gave is played again, and the counts are the
    honest ones. (The engine against itself: no SPRT decides before the budget, so what ends the
    run is never the lies.)"""
    config = make_config(candidate={}, max_games=400, batch_pairs=4)
    store = Store(f"sqlite:///{tmp_path / 'cripple.db'}")
    run_id = new_run(store, config)
    # Its first three batches are honest: by the time it lies, its first check has passed.
    lie = {"FORGE": "cripple", "HONEST_BATCHES": "3", **keyed("cripple")}
    liar = workers.start("cripple", app="forging_worker", env=lie)
    honest = workers.start("honest", env=keyed("honest"))
    with checking(redis_server.url) as executor:  # checks on this machine: only suspicion finds it
        progress = play(store, run_id, config, executor)
    assert counts(progress) == reference(config)
    quarantined = {q.worker: q.reason for q in store.quarantines(run_id)}
    assert set(quarantined) == {liar.node}, quarantined
    assert "once it was suspect" in quarantined[liar.node] or "spot check" in quarantined[liar.node]
    assert all(batch.worker != liar.node for batch in store.iter_batch_games(run_id))
    assert honest.node not in executor.quarantined


def test_an_insider_answering_in_another_workers_name_is_the_one_blamed(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path
) -> None:
    """(c) An insider seals honest answers naming another worker, with its own key (it has no
    other): they are refused, and its key shows who wrote them."""
    config = make_config()
    store = Store(f"sqlite:///{tmp_path / 'impostor.db'}")
    run_id = new_run(store, config)
    honest = workers.start("honest", env=keyed("honest"))
    impostor = workers.start(
        "impostor",
        app="forging_worker",
        env={"FORGE": "impostor", "IMPOSTOR_AS": honest.node, **keyed("impostor")},
    )
    with checking(redis_server.url) as executor:
        progress = play(store, run_id, config, executor)
    assert counts(progress) == reference(config)
    assert [q.worker for q in store.quarantines(run_id)] == [impostor.node]
    assert "another worker's name" in store.quarantines(run_id)[0].reason
    assert honest.node not in executor.quarantined


def test_a_timed_liar_is_caught_by_repeating_its_moves_with_their_budgets(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path
) -> None:
    """(d) Under --movetime the liar plays its first batch honestly, then against a crippled
    baseline, recording the node budgets of what it played: each move searched again with its
    budget, and the payload's weights, is another move. Three batches: the honest first, then
    lies."""
    config = make_config(limits=engine.Limits(movetime_ms=2), max_games=12)
    store = Store(f"sqlite:///{tmp_path / 'timed.db'}")
    run_id = new_run(store, config)
    liar = workers.start("timed-liar", app="forging_worker", env={"FORGE": "cripple", **keyed("timed-liar")})
    with checking(redis_server.url, fraction=1.0) as executor:
        run = Background(lambda: play(store, run_id, config, executor))
        wait_until(lambda: store.quarantines(run_id), RUN_TIMEOUT, "the timed liar to be caught")
        honest = workers.start("honest", env=keyed("honest"))
        progress = run.result()
    [quarantine] = store.quarantines(run_id)
    assert quarantine.worker == liar.node and "timed check" in quarantine.reason, quarantine.reason
    assert executor.checks_passed >= 1  # its first batch, and the honest worker's, repeat exactly
    assert progress.games == config.max_games
    assert {batch.worker for batch in store.iter_batch_games(run_id)} <= {liar.node, honest.node}
    assert all(batch.worker != liar.node for batch in store.iter_batch_games(run_id))
    timed = [r for r in store.game_records(run_id)]
    assert all(len(r["budgets"].split()) == len(r["moves"].split()) for r in timed)


def test_refusals_forged_or_sealed_by_one_insider_never_fail_a_run(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path
) -> None:
    """(e) A Redis client writes refusals in an honest worker's name, and an insider refuses every
    batch under its own key: the batches are refused again and again, yet the run waits, and ends
    with the honest counts once an honest worker plays it."""
    config = make_config()
    store = Store(f"sqlite:///{tmp_path / 'refusals.db'}")
    run_id = new_run(store, config)
    refuser = workers.start("refuser", app="forging_worker", env={"FORGE": "refuse", **keyed("refuser")})
    forger = redis.Redis.from_url(redis_server.url)
    seen: set[str] = set()
    stop = threading.Event()

    def forge_refusals() -> None:
        honest_name = f"honest@{NODE_HOST}"
        while not stop.wait(0.005):
            try:
                waiting = waiting_tasks(forger)
            except redis.RedisError:
                return
            for raw in waiting:
                task_id = json.loads(raw)["headers"]["id"]
                if task_id not in seen:
                    seen.add(task_id)
                    body = refusal("no worker can play this batch", honest_name, kind="payload")
                    meta = {
                        "status": "SUCCESS",
                        "task_id": task_id,
                        "result": seal(body, task_id, honest_name, "", None),
                    }
                    forger.set(f"celery-task-meta-{task_id}", json.dumps(meta))

    thread = threading.Thread(target=forge_refusals, daemon=True)
    thread.start()
    try:
        with checking(redis_server.url) as executor:
            run = Background(lambda: play(store, run_id, config, executor))
            watcher = Store(store.url)

            def refused_often() -> bool:
                assert not run.done(), f"the run ended on refusals: {store.get_run(run_id)}"
                return max((r.attempts for r in watcher.refusals(run_id)), default=0) >= 4

            wait_until(refused_often, RUN_TIMEOUT, "a batch refused four times")
            workers.start("honest", env=keyed("honest"))
            progress = run.result()
            watcher.close()
    finally:
        stop.set()
        thread.join(timeout=5)
        forger.close()
    assert counts(progress) == reference(config)
    run_row = store.get_run(run_id)
    assert run_row is not None and str(run_row.state) == "finished"
    assert store.quarantines(run_id) == []  # refusing is not lying
    by_worker = store.refusals_by_worker(run_id)
    assert by_worker.get(refuser.node, 0) >= 1  # its refusals are charged to it, under its key


def test_a_huge_value_in_the_result_backend_is_never_fetched(redis_server: RedisDatabase) -> None:
    """(f) A Redis writer stores 50 MB under a task's result key: the coordinator asks its size,
    refuses it unread, and stays within a few megabytes; a poll never holds more than its bound."""
    executor = CeleryExecutor(redis_server.url)
    client = redis.Redis.from_url(redis_server.url)
    try:
        executor.submit(BatchPlan(make_config()).payload(1, 0))
        task_id = next(iter(executor._jobs.values())).attempts[0].task_id
        client.set(f"celery-task-meta-{task_id}", b"[" * 50_000_000)
        tracemalloc.start()
        outcomes = list(executor.completed(timeout=5))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert [o.error for o in outcomes] == ["result of 50,000,000 bytes, more than any answer"]
        assert peak < 8_000_000, f"the coordinator held {peak:,} bytes to refuse it"
        assert MAX_META_BYTES < 50_000_000
    finally:
        executor.close()
        client.close()


def test_a_coordinator_without_the_secret_says_why_nothing_is_counted(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A coordinator started without ``$ARBITER_SECRET`` against workers that hold keys: every
    batch is refused, and its progress line says so, and what to do, within a minute."""
    from coordinator.sprt.report import PROGRESS_WIDTH, progress_line
    from coordinator.sprt.runner import SprtRunner

    monkeypatch.delenv("ARBITER_SECRET")
    config = make_config()
    store = Store(f"sqlite:///{tmp_path / 'unsigned.db'}")
    run_id = new_run(store, config)
    workers.start("keyed-a", env=keyed("keyed-a"))
    lines: list[str] = []
    deadline = time.monotonic() + 60
    with CeleryExecutor(redis_server.url) as executor:
        runner = SprtRunner(
            store, run_id, config, executor, on_progress=lambda p: lines.append(progress_line(p))
        )
        with pytest.raises(KeyboardInterrupt):
            runner.run(stop_requested=lambda: time.monotonic() > deadline or "refused" in "".join(lines))
    said = [line for line in lines if "refused" in line]
    assert said, lines[-3:]
    assert "refused: workers want signed payloads: set $ARBITER_SECRET" in said[-1]
    assert all(len(line) <= PROGRESS_WIDTH for line in lines)
    assert store.totals(run_id).games == 0
