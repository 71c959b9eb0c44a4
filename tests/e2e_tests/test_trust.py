"""The trust boundary against real redis-server and real Celery workers: results nobody can forge.

Each test runs a small SPRT on an honest worker and a liar (``forging_worker``, in one of its modes,
or a client that writes crafted results straight into the result backend). In every case the run
ends with the counts of an honest run on the local pool, the liar's work is discarded and played
again by the honest worker, the coordinator never crashes, and ``arbiter status`` names the cheat.

The cheat always gets its chance, whatever the speed of the machine: the honest worker starts only
once the liar is quarantined or the crafted results are refused (an idle worker cannot be held
back by stopping it: Redis still hands it a batch), and the peer test stops its honest workers
until the liar has a batch.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from celery_testkit import NODE_HOST, RedisDatabase, WorkerPool, WorkerProcess, wait_until, waiting_tasks
from process_testkit import CommandPause, PauseAll
from sprt_testkit import run_cli, status_json
from test_celery_faults import RUN_TIMEOUT, Background, counts, make_config, new_run, play, reference

from coordinator.executors.base import Executor
from coordinator.executors.celery.executor import CeleryExecutor
from coordinator.executors.checking import CheckingExecutor
from coordinator.executors.local import LocalExecutor
from coordinator.sprt.config import SprtConfig
from coordinator.sprt.runner import Progress
from coordinator.store import Store
from wire.sealing import FleetKeys, seal


def checked_run(redis_url: str, db: Path) -> tuple[Store, int, Any, CheckingExecutor]:
    """A fresh run of the small configuration, and the spot-checked Celery executor to play it."""
    config = make_config()
    store = Store(f"sqlite:///{db}")
    run_id = new_run(store, config)
    executor = CheckingExecutor(CeleryExecutor(redis_url), LocalExecutor(1), fraction=0.02)
    return store, run_id, config, executor


def play_with_honest_joining(
    store: Store,
    run_id: int,
    config: SprtConfig,
    executor: Executor,
    workers: WorkerPool,
    liar: WorkerProcess,
    **honest: Any,
) -> Progress:
    """Play the run with the liar as the only worker until it is quarantined (so it gets batches,
    whatever the speed of the machine), then start an honest worker (``honest``: its
    :meth:`WorkerPool.start` options) and play the run to its end."""
    watcher = Store(store.url)
    run = Background(lambda: play(store, run_id, config, executor))

    def caught() -> bool:
        assert not run.done(), "the run ended with only a lying worker"
        return any(q.worker == liar.node for q in watcher.quarantines(run_id))

    try:
        wait_until(caught, RUN_TIMEOUT, f"{liar.node} to be quarantined")
    finally:
        watcher.close()
    workers.start("honest", **honest)
    return run.result()


def status_of(db: Path, run_id: int) -> tuple[dict[str, Any], str]:
    """``arbiter status RUN`` as JSON (read in this process) and as text."""
    as_text = run_cli("status", str(run_id), "--store", f"sqlite:///{db}")
    assert as_text.returncode == 0, as_text.stderr
    return status_json(f"sqlite:///{db}", run_id), as_text.stdout


@pytest.mark.parametrize(
    ("mode", "caught_by"),
    [
        ("flip", "the moves end the game"),
        ("no_moves", "has not ended"),
        ("illegal", "ply 1"),
        ("wrong_types", "expected"),
        ("other_weights", "spot check"),
    ],
)
def test_a_lying_worker_is_quarantined_and_its_work_played_again(
    mode: str, caught_by: str, redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path
) -> None:
    liar = workers.start(f"liar-{mode.replace('_', '-')}", app="forging_worker", env={"FORGE": mode})
    db = tmp_path / f"{mode}.db"
    store, run_id, config, executor = checked_run(redis_server.url, db)
    with executor:
        progress = play_with_honest_joining(store, run_id, config, executor, workers, liar)
    assert counts(progress) == reference(config)
    quarantined = {q.worker: q.reason for q in store.quarantines(run_id)}
    assert liar.node in quarantined, quarantined
    assert caught_by in quarantined[liar.node]
    assert all(record["moves"] for record in store.game_records(run_id))
    data, text = status_of(db, run_id)
    assert data["state"] == "finished" and data["games"] == sum(progress.wdl)
    assert [q["worker"] for q in data["quarantined"]] == [liar.node]
    assert f"quarantined worker {liar.node}" in text


class CraftingClient:
    """Writes crafted results into the result backend for every task it sees waiting in the queue,
    as anyone who can write to Redis could (no worker involved)."""

    def __init__(self, server: RedisDatabase, meta: dict[str, Any], secret: bytes | None = None) -> None:
        """Start crafting ``meta`` (a Celery task meta without its task id; a SUCCESS result is
        sealed as workers seal theirs, with ``secret``: the forger's guess) in a thread."""
        self.secret = secret
        import redis

        self.client = redis.Redis.from_url(server.url)
        self.meta = meta
        self.forged: set[str] = set()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stop.wait(0.005):
            try:
                waiting = waiting_tasks(self.client)
            except Exception:  # the server is going away at teardown
                return
            for raw in waiting:
                task_id = json.loads(raw)["headers"]["id"]
                if task_id not in self.forged:
                    self.forged.add(task_id)
                    meta = {**self.meta, "task_id": task_id}
                    if meta["status"] == "SUCCESS":  # a worker's answer is sealed for its task
                        body = meta["result"]
                        worker = str(body.get("worker") or "forger@nowhere")
                        key = FleetKeys(self.secret).worker_key(worker) if self.secret else None
                        meta["result"] = seal(body, task_id, worker, "", key)
                    self.client.set(f"celery-task-meta-{task_id}", json.dumps(meta))

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.client.close()


def crafted_run(
    server: RedisDatabase,
    db: Path,
    meta: dict[str, Any],
    workers: WorkerPool,
    secret: bytes | None = None,
    **honest: Any,
) -> tuple[Store, int, CheckingExecutor]:
    """A run played while a :class:`CraftingClient` writes ``meta`` for every task it sees: it
    must end with the honest counts. No worker is up until the client has crafted results and the
    coordinator has refused them (a worker would replace a crafted value with its own first);
    then the client stops and an honest worker (``honest``: its :meth:`WorkerPool.start` options)
    plays the run. (A client crafting on would race the worker for every task sent again, and on a
    busy machine win each time: a Redis writer can starve a run, never make it count a lie.) The
    store, run and executor."""
    store, run_id, config, executor = checked_run(server.url, db)
    watcher = Store(store.url)
    crafter = CraftingClient(server, meta, secret=secret)
    try:
        with executor:
            run = Background(lambda: play(store, run_id, config, executor))

            def refused() -> bool:
                assert not run.done(), "the run ended with no worker"
                return bool(crafter.forged) and bool(watcher.refusals(run_id))

            wait_until(refused, RUN_TIMEOUT, "crafted results to be refused")
            crafter.close()
            workers.start("honest", **honest)
            progress = run.result()
    finally:
        crafter.close()
        watcher.close()
    assert crafter.forged, "the client never saw a task waiting"
    assert counts(progress) == reference(config)
    return store, run_id, executor


FORGED_WIN = {
    "run_id": 1,
    "batch_index": 0,
    "engine_version": "x",
    "pentanomial": [0, 0, 0, 0, 2],
    "wdl": [4, 0, 0],
    "games": [],
    "worker": "nobody",
}


@pytest.mark.parametrize(
    "meta",
    [
        {"status": "SUCCESS", "result": FORGED_WIN},
        {
            "status": "FAILURE",
            "result": {"exc_type": "system", "exc_module": "os", "exc_message": ["echo pwned"]},
        },
        {"status": "SUCCESS", "result": {**FORGED_WIN, "cpu_seconds": "lots"}},
    ],
    ids=["success-without-games", "failure-naming-os-system", "wrong-types"],
)
def test_results_written_straight_into_the_backend_count_for_nothing(
    meta: dict[str, Any], redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path
) -> None:
    db = tmp_path / "crafted.db"
    _, run_id, _ = crafted_run(redis_server, db, meta, workers)
    data, _ = status_of(db, run_id)
    assert data["state"] == "finished"
    assert data["refused"], "the crafted results were refused"


def test_workers_check_each_other_and_this_machine_decides(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path
) -> None:
    """Spot checks played by other workers: two honest workers and one that plays other weights.
    Where a peer and the checked worker disagree, the coordinator's own pool decides, so the liar
    is caught whether it is checked or checks an honest worker, and no honest worker is blamed."""
    liar = workers.start("liar-peer", app="forging_worker", env={"FORGE": "other_weights"})
    honest = [workers.start("honest-a"), workers.start("honest-b")]
    config = make_config()
    store = Store(f"sqlite:///{tmp_path / 'peers.db'}")
    run_id = new_run(store, config)
    inner = CeleryExecutor(redis_server.url)
    executor = CheckingExecutor(
        inner,
        LocalExecutor(1),
        fraction=0.02,
        peers=CeleryExecutor(redis_server.url),
    )
    with executor:
        # The run knows all three as its workers (and peers); inspect's replies have a deadline.
        fleet = {liar.node, *(h.node for h in honest)}
        wait_until(lambda: set(inner.discover_workers()) == fleet, RUN_TIMEOUT, "the run to see its fleet")
        # The liar gets batches whatever the speed of the machine: the honest workers wait (stopped)
        # until it has received one. Idle, each may still be handed one batch while it is stopped
        # (a stopped worker's request to Redis is answered all the same): that batch waits with it.
        honest_pause = PauseAll(*(CommandPause(h.process.pid) for h in honest))
        assert honest_pause.pause() > 0
        try:
            run = Background(lambda: play(store, run_id, config, executor))
            wait_until(lambda: "received" in liar.output(), RUN_TIMEOUT, "the liar to receive a batch")
        finally:
            honest_pause.resume()
        progress = run.result()
    assert counts(progress) == reference(config)
    assert set(executor.quarantined) == {liar.node}, executor.quarantined
    assert executor.checks_passed >= 1  # honest workers proved by a peer or by this machine
    assert all(h.node not in {q.worker for q in store.quarantines(run_id)} for h in honest)


def test_a_worker_that_lies_after_its_first_batches_loses_all_it_gave(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path
) -> None:
    """A worker plays its first batches honestly (they pass their checks and are stored), then lies.
    With every batch checked, the first lie quarantines it, and everything it gave the run, honest
    or not, is discarded and played again: the counts are the honest ones."""
    liar = workers.start("liar-adaptive", app="forging_worker", env={"FORGE": "adaptive"})
    config = make_config()
    store = Store(f"sqlite:///{tmp_path / 'adaptive.db'}")
    run_id = new_run(store, config)
    executor = CheckingExecutor(CeleryExecutor(redis_server.url), LocalExecutor(1), fraction=1.0)
    with executor:
        # Alone, the liar answers every batch until it lies (its third answer) and is quarantined.
        progress = play_with_honest_joining(store, run_id, config, executor, workers, liar)
    assert counts(progress) == reference(config)
    [quarantine] = store.quarantines(run_id)
    assert quarantine.worker == liar.node  # the name its stored results carry: they were found
    assert all(r.worker != liar.node for r in store.iter_batch_games(run_id))
    # The report names it, with why, and charges the refused answers to it alone.
    db = f"sqlite:///{tmp_path / 'adaptive.db'}"
    as_json = run_cli("report", str(run_id), "--json", "--store", db)
    assert as_json.returncode == 0, as_json.stderr
    rows = {w["worker"]: w for w in json.loads(as_json.stdout)["workers"]["workers"]}
    assert rows[liar.node]["quarantined"] == quarantine.reason and rows[liar.node]["refused"] >= 1
    assert all(not w["quarantined"] for name, w in rows.items() if name != liar.node)
    text = run_cli("report", str(run_id), "-o", str(tmp_path / "adaptive.html"), "--store", db)
    assert f"quarantined {liar.node}: " in text.stdout


def test_with_a_fleet_secret_a_redis_writer_can_neither_forge_nor_blame(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``ARBITER_SECRET`` on the coordinator and its worker, a client that writes results
    claiming to be that worker (and guesses at the seal) gets nothing counted and nobody
    quarantined: its values are refused as not a worker's answers, and the run ends honestly."""
    secret = "fleet-secret-for-the-test"
    monkeypatch.setenv("ARBITER_SECRET", secret)
    honest = f"honest@{NODE_HOST}"  # the node name of the worker crafted_run starts
    claim = {"status": "SUCCESS", "result": {**FORGED_WIN, "worker": honest}}
    store, run_id, executor = crafted_run(
        redis_server,
        tmp_path / "sealed.db",
        claim,
        workers,
        secret=b"a-guess",
        env={"ARBITER_SECRET": secret},
    )
    assert store.quarantines(run_id) == [] and not executor.quarantined  # nobody blamed
    refusals = [r.reason for r in store.refusals(run_id)]
    assert refusals and all("not a worker's answer" in reason for reason in refusals), refusals
