"""``arbiter tune --broker``: a tiny tuning run over two real Celery worker processes and a real
redis-server (the fixtures of ``conftest.py``), stored in PostgreSQL (only the coordinator writes
the store: ``test_tune_cli.py`` runs the same tuning on both store kinds locally), and the same
trials (Optuna) or path of theta (SPSA) as on a local pool of one process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from celery_testkit import RedisDatabase, WorkerPool, pause_a_playing_worker, wait_until
from pg_testkit import StoreUrls
from test_tune_cli import (
    FLAT,
    GAME,
    TIMEOUT,
    arbiter,
    assert_champions_chain,
    assert_counted_once,
    command,
    decided,
    environment,
    status,
    url,
)

import engine

#: A tiny run: 4 trials of at most 8 pairs at 300 nodes, acceptance SPRTs (H1 50 normalized Elo)
#: of at most 400 games: the first candidate beats the flat weights in about a hundred.
TINY = (
    *("--method", "optuna", "--start", str(FLAT), "--trial-pairs", "8"),
    *("--batch-pairs", "2", "--max-trials", "4"),
    *("--nodes", "300", "--accept-max-games", "400", "--accept-elo1", "50", "--prune-los", "0.25"),
    *("--seed", "2", "--no-report"),
)


@pytest.mark.parametrize("store_kind", ["postgresql"])
def test_tiny_tuning_run_over_two_celery_workers(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path, store_urls: StoreUrls
) -> None:
    first = workers.start("tune1")
    second = workers.start("tune2")
    db, out = store_urls("tune"), tmp_path / "champion.json"

    process = subprocess.Popen(
        command("tune", GAME, *TINY, "--broker", redis_server.url, "--store", url(db), "--output", str(out)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=environment(),
    )
    try:
        # Both workers play, whatever the speed of the machine: the first seen playing a batch is
        # stopped while it plays it (it takes no other) until the other has received one.
        def running() -> None:
            assert process.poll() is None, "the run ended before both workers played"

        try:
            playing, pause = pause_a_playing_worker(redis_server, [first, second], running, TIMEOUT)
        except AssertionError as e:
            process.kill()
            out, err = process.communicate(timeout=30)
            raise AssertionError(f"{e}\nthe coordinator printed:\n{out[-2000:]}\n{err[-4000:]}") from None
        other = second if playing is first else first
        try:
            wait_until(lambda: running() or "received" in other.output(), TIMEOUT, f"{other.name} to play")
        finally:
            pause.resume()
        stdout, stderr = process.communicate(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    done = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("tuning run 1 (congress): 4 trials")
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["champion", "trial"])
    assert lines[header + 1].split()[:2] == ["#0", "start"]

    data = status(db, 1)
    assert data["state"] == "finished"
    assert sum(t["state"] in ("complete", "pruned") for t in data["trials"]) == 4
    assert len(data["champions"]) >= 2  # anything beats the flat weights
    assert_champions_chain(data, db)
    assert_counted_once(db)
    written = json.loads(out.read_text())
    assert written == data["champions"][-1]["weights"] == engine.validate_weights(GAME, written)

    # Both workers played: each one logged tasks it received.
    for worker in (first, second):
        assert "Task" in worker.output() and "received" in worker.output(), worker.output()[-2000:]

    # The same command on a local pool of one process plays the same trials, SPRTs and champions.
    alone = tmp_path / "alone.db"
    on_pool = ("--concurrency", "1", "--store", url(alone), "--output", str(tmp_path / "alone.json"))
    local = arbiter("tune", GAME, *TINY, *on_pool, cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    assert decided(status(alone, 1), alone) == decided(data, db)


def test_spsa_over_two_celery_workers_reaches_the_local_pools_theta(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path
) -> None:
    """The same SPSA command on two Celery workers and on a local pool of one process: the same
    iterations, results and path of theta (the lag, not the workers, decides what each plays)."""
    workers.start("spsa1")
    workers.start("spsa2")
    spsa = (
        *("tune", GAME, "--method", "spsa", "--params", "pawn,politician,mobility", "--max-games", "88"),
        *("--batch-pairs", "2", "--nodes", "200", "--spsa-lag", "3", "--r-end", "0.05"),
        *("--accept-max-games", "8", "--seed", "5"),  # 88 games: 20 iterations and an SPRT of 8
    )
    celery, local = tmp_path / "celery.db", tmp_path / "local.db"
    done = arbiter(*spsa, "--broker", redis_server.url, "--store", url(celery), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    alone = arbiter(*spsa, "--concurrency", "1", "--store", url(local), cwd=tmp_path)
    assert alone.returncode == 0, alone.stderr
    over_celery, on_pool = status(celery, 1), status(local, 1)
    assert over_celery["spsa"]["applied"] == 20
    assert over_celery["spsa"]["path"] == on_pool["spsa"]["path"]
    assert over_celery["spsa"]["theta"] != {"pawn": 100.0, "politician": 320.0, "mobility": 5.0}
    assert_counted_once(celery)
