"""The trust boundary against real redis-server and real Celery workers: results nobody can forge.

Each test runs a small SPRT on an honest worker and a liar (``forging_worker``, in one of its modes,
or a client that writes crafted results straight into the result backend). In every case the run
ends with the counts of an honest run on the local pool, the liar's work is discarded and played
again by the honest worker, the coordinator never crashes, and ``arbiter status`` names the cheat.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from celery_testkit import RedisServer, WorkerPool
from sprt_testkit import run_cli
from test_celery_faults import counts, make_config, new_run, play, reference

from coordinator.executors.celery.executor import CeleryExecutor
from coordinator.executors.local import LocalExecutor
from coordinator.store import Store
from coordinator.trust.spotcheck import CheckingExecutor

QUEUE = "arbiter"


def checked_run(redis_url: str, db: Path) -> tuple[Store, int, Any, CheckingExecutor]:
    """A fresh run of the small configuration, and the spot-checked Celery executor to play it."""
    config = make_config()
    store = Store(f"sqlite:///{db}")
    run_id = new_run(store, config)
    executor = CheckingExecutor(CeleryExecutor(redis_url), LocalExecutor(1), fraction=0.02)
    return store, run_id, config, executor


def status_of(db: Path, run_id: int) -> tuple[dict[str, Any], str]:
    """``arbiter status RUN`` as JSON and as text."""
    as_json = run_cli("status", str(run_id), "--json", "--store", f"sqlite:///{db}")
    as_text = run_cli("status", str(run_id), "--store", f"sqlite:///{db}")
    assert as_json.returncode == 0 and as_text.returncode == 0, as_json.stderr + as_text.stderr
    return json.loads(as_json.stdout), as_text.stdout


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
    mode: str, caught_by: str, redis_server: RedisServer, workers: WorkerPool, tmp_path: Path
) -> None:
    liar = workers.start(f"liar-{mode.replace('_', '-')}", app="forging_worker", env={"FORGE": mode})
    workers.start("honest")
    db = tmp_path / f"{mode}.db"
    store, run_id, config, executor = checked_run(redis_server.url, db)
    with executor:
        progress = play(store, run_id, config, executor)
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

    def __init__(self, server: RedisServer, meta: dict[str, Any]) -> None:
        """Start crafting ``meta`` (a Celery task meta without its task id) in a thread."""
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
                waiting = self.client.lrange(QUEUE, 0, -1)
            except Exception:  # the server is going away at teardown
                return
            for raw in waiting:
                task_id = json.loads(raw)["headers"]["id"]
                if task_id not in self.forged:
                    self.forged.add(task_id)
                    meta = {**self.meta, "task_id": task_id}
                    self.client.set(f"celery-task-meta-{task_id}", json.dumps(meta))

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.client.close()


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
    meta: dict[str, Any], redis_server: RedisServer, workers: WorkerPool, tmp_path: Path
) -> None:
    workers.start("honest")
    db = tmp_path / "crafted.db"
    store, run_id, config, executor = checked_run(redis_server.url, db)
    crafter = CraftingClient(redis_server, meta)
    try:
        with executor:
            progress = play(store, run_id, config, executor)
    finally:
        crafter.close()
    assert crafter.forged, "the client never saw a task waiting"
    assert counts(progress) == reference(config)
    data, _ = status_of(db, run_id)
    assert data["state"] == "finished"
    assert data["refused"], "the crafted results were refused"
