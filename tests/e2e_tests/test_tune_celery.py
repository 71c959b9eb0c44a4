"""``arbiter tune --broker``: a tiny tuning run over two real Celery worker processes and a real
redis-server (the fixtures of ``conftest.py``), on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

from celery_testkit import RedisServer, WorkerPool
from pg_testkit import StoreUrls
from test_tune_cli import FLAT, GAME, arbiter, assert_champions_chain, assert_counted_once, status, url

import engine

#: A tiny run: 4 trials of at most 8 pairs at 300 nodes, acceptance SPRTs (H1 30 normalized Elo)
#: of at most 400 games: the first candidate beats the flat weights in about a hundred.
TINY = (
    *("--start", str(FLAT), "--trial-pairs", "8", "--batch-pairs", "2", "--max-trials", "4"),
    *("--nodes", "300", "--accept-max-games", "400", "--accept-elo1", "30", "--prune-los", "0.25"),
    *("--seed", "2"),
)


def test_tiny_tuning_run_over_two_celery_workers(
    redis_server: RedisServer, workers: WorkerPool, tmp_path: Path, store_urls: StoreUrls
) -> None:
    first = workers.start("tune1")
    second = workers.start("tune2")
    db, out = store_urls("tune"), tmp_path / "champion.json"

    done = arbiter(
        *("tune", GAME, *TINY, "--broker", redis_server.url, "--store", url(db), "--output", str(out)),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("tuning run 1 (congress): 4 trials")
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["champion", "trial"])
    assert lines[header + 1].split()[:2] == ["#0", "start"]

    data = status(db, 1, tmp_path)
    assert data["state"] == "finished"
    assert sum(t["state"] in ("complete", "pruned") for t in data["trials"]) == 4
    assert len(data["champions"]) >= 2  # anything beats the flat weights
    assert_champions_chain(data, db, tmp_path)
    assert_counted_once(db)
    written = json.loads(out.read_text())
    assert written == data["champions"][-1]["weights"] == engine.validate_weights(GAME, written)

    # Both workers played: each one logged tasks it received.
    for worker in (first, second):
        assert "Task" in worker.output() and "received" in worker.output(), worker.output()[-2000:]
