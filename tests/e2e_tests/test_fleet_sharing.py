"""Several runs on one fleet of real Celery workers over a real redis-server: batches go only to
workers of the engine version a run needs, and a run's ``--priority`` decides which waiting batches
the workers take first.

A stale machine (a worker on another build's queue) never receives a batch, is not counted among the
run's workers, and cannot slow or fail the run. Two coordinators that filled the queue before any
worker was up: the one with the higher priority has all its waiting batches played before any
batch of the other.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from celery_testkit import START_TIMEOUT, RedisDatabase, WorkerPool, wait_until, waiting_tasks
from sprt_testkit import run_cli
from test_celery_faults import Background, counts, make_config, new_run, play, reference

from coordinator.executors.celery.executor import CeleryExecutor
from coordinator.sprt.runner import SprtRunner
from coordinator.store import Store


def test_a_worker_on_another_build_never_takes_a_batch(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path
) -> None:
    stale = workers.start("stale", app="stale_worker")
    honest = workers.start("honest")
    config = make_config(max_games=24)
    store = Store(f"sqlite:///{tmp_path / 'routed.db'}")
    run_id = new_run(store, config)
    with CeleryExecutor(redis_server.url, lease_seconds=30) as executor:

        def only_the_honest_one() -> bool:
            """Discovery names the honest worker (inspect's replies have a one-second deadline: a
            worker slow to answer is missing from one round, and asked again) and never the stale
            machine, which is not ours."""
            found = set(executor.discover_workers())
            assert stale.node not in found, found
            return found == {honest.node}

        wait_until(only_the_honest_one, START_TIMEOUT, "discovery to find the honest worker")
        progress = play(store, run_id, config, executor)
    assert counts(progress) == reference(config)
    assert store.refusals(run_id) == []  # nothing was refused: nothing reached the stale worker
    assert "received" not in stale.output() and "received" in honest.output()


def test_higher_priority_batches_are_played_first(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path
) -> None:
    """No worker is up while both coordinators fill the queue; then one worker of one process
    takes the batches one by one (prefetch 1), and plays every batch of the urgent run before
    any of the other, although the other's were sent first."""
    background_config = make_config(max_games=40, batch_pairs=1, seed=22)
    urgent_config = make_config(max_games=8, batch_pairs=1, seed=21)  # 4 batches, all sent at once
    store = Store(f"sqlite:///{tmp_path / 'shared.db'}")
    background_id, urgent_id = new_run(store, background_config), new_run(store, urgent_config)
    low = CeleryExecutor(redis_server.url, concurrency=3, lease_seconds=120, priority=0)
    high = CeleryExecutor(redis_server.url, concurrency=2, lease_seconds=120, priority=9)
    with low, high:
        background = SprtRunner(store, background_id, background_config, low)
        background.fill()  # 6 batches waiting, sent first
        urgent = SprtRunner(store, urgent_id, urgent_config, high)
        urgent.fill()  # then the urgent run's 4
        client = redis_server.client()
        wait_until(lambda: len(waiting_tasks(client)) == 10, 30, "all ten batches waiting")
        single = workers.start("single")
        runs = [Background(urgent.run), Background(background.run)]
        progress = runs[0].result()
        runs[1].result()
    assert counts(progress) == reference(urgent_config)
    # The worker logs each answer it returns with its run and batch: the order it played them in.
    answers = re.findall(r"succeeded in [^:]*: answer stored \(run (\d+),", single.output())
    played = [int(run) for run in answers]
    assert played[:4] == [urgent_id] * 4 and background_id in played[4:], played


@pytest.mark.parametrize(
    "limit",
    [("--movetime", "60000"), ("--nodes", "100000000"), ("--movetime", "100", "--batch-pairs", "100")],
)
def test_a_batch_longer_than_a_task_may_take_is_refused(limit: tuple[str, ...], tmp_path: Path) -> None:
    """On Celery, a task has a time limit; a run whose batches would take longer could never count a
    game, so it is refused before anything is created or any broker is asked."""
    db = tmp_path / "never.db"
    done = run_cli(
        "sprt",
        "congo",
        "--candidate",
        "default",
        *limit,
        "--broker",
        "redis://127.0.0.1:1/0",
        "--store",
        f"sqlite:///{db}",
    )
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("arbiter sprt: a batch of") and "ARBITER_BATCH_SECONDS=1800" in line
    assert not db.exists()


@pytest.mark.parametrize("option", [("--verify-fraction", "0.5"), ("--priority", "5")])
def test_fleet_options_without_a_broker_are_refused(option: tuple[str, str], tmp_path: Path) -> None:
    """Spot checks and priorities are about Celery workers: given for a local run, they are a
    mistake to report, not a setting to ignore."""
    db = tmp_path / "local.db"
    done = run_cli("sprt", "congo", "--candidate", "default", *option, "--store", f"sqlite:///{db}")
    assert done.returncode == 2
    assert (
        done.stderr.strip()
        == f"arbiter sprt: {option[0]} is about Celery workers: it needs --broker (or $ARBITER_BROKER)"
    )
    assert not db.exists()
