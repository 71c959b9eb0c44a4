"""Two coordinators (two people) run different SPRTs at the same time on one PostgreSQL store, with
one fleet of real Celery workers shared between them: neither disturbs the other, and each run ends
with exactly the counts of the same run played alone on the local process pool."""

from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from celery_testkit import RedisDatabase, WorkerPool, wait_until, waiting_tasks
from pg_testkit import PostgresServer
from sprt_testkit import CLI_TIMEOUT, cli_command, run_cli, status_json, write_book, write_weights

from coordinator.executors.celery.executor import MIN_SLOTS
from coordinator.store import Store

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: What matters of a run's end.
COUNTS = ("state", "decision", "pentanomial", "wdl", "games", "counted_batches")


def person_a(tmp_path: Path) -> list[str]:
    """A Congo SPRT: a candidate with a bigger pawn against the defaults."""
    candidate = write_weights(tmp_path / "a-candidate.json", {"pawn": 150, "mobility": 6})
    book = write_book(tmp_path / "a-book.txt", "congo", count=16, seed=3)
    return [
        *("sprt", "congo", "--candidate", str(candidate), "--book", str(book), "--seed", "11"),
        *("--nodes", "600", "--batch-pairs", "2", "--max-games", "64"),
    ]


def person_b(tmp_path: Path) -> list[str]:
    """A Congress SPRT: material-only weights against the defaults, another seed and batch size."""
    book = write_book(tmp_path / "b-book.txt", "congress", count=16, seed=4)
    candidate = str(EXAMPLES / "congress-material.json")
    return [
        *("sprt", "congress", "--candidate", candidate, "--book", str(book), "--seed", "5"),
        *("--nodes", "600", "--batch-pairs", "3", "--max-games", "72"),
    ]


def status(url: str, run_id: int) -> dict[str, Any]:
    """``arbiter status RUN --json``."""
    return status_json(url, run_id)


def solo(args: list[str], db: Path) -> dict[str, Any]:
    """The run alone, on the local process pool and a SQLite store of its own."""
    done = run_cli(*args, "--concurrency", "2", "--store", f"sqlite:///{db}")
    assert done.returncode == 0, done.stderr
    return status(f"sqlite:///{db}", 1)


def waiting_games(queue: Any) -> list[str]:
    """The game of each batch waiting in the Celery queue, in the order the fleet takes them."""
    games = []
    for raw in waiting_tasks(queue):
        args, _, _ = json.loads(base64.b64decode(json.loads(raw)["body"]))
        games.append(json.loads(args[0]["payload"])["game"])
    return games


def test_two_coordinators_share_one_store_and_one_fleet(
    pg_server: PostgresServer, redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path
) -> None:
    runs = {"a": person_a(tmp_path), "b": person_b(tmp_path)}
    expected = {name: solo(args, tmp_path / f"solo-{name}.db") for name, args in runs.items()}
    # Both runs play their whole budget (16 and 12 batches): neither can end after its first ones.
    assert all(e["decision"] == "budget" for e in expected.values()), expected

    url = pg_server.url(pg_server.database("two_coordinators"))
    env = {k: v for k, v in os.environ.items() if k not in ("ARBITER_STORE", "ARBITER_BROKER")}
    # Both start at once, on an empty database: each creates the tables (under the schema lock)
    # and its own run.
    processes = {
        name: subprocess.Popen(
            cli_command(*args, "--broker", redis_server.url, "--store", url),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for name, args in runs.items()
    }
    try:
        # No worker is up while both fill the queue (with none known, each keeps MIN_SLOTS batches
        # waiting): the fleet then takes the first batches of both runs before the later ones of
        # either, so the two runs are played side by side whatever the speed of the machine and of
        # the coordinators' start.
        queue = redis_server.client()

        def both_waiting() -> bool:
            for name, process in processes.items():
                assert process.poll() is None, (name, process.communicate(timeout=30)[1])
            return len(waiting_tasks(queue)) >= MIN_SLOTS * len(processes)

        wait_until(both_waiting, CLI_TIMEOUT, "both coordinators' first batches in the queue")
        # The fleet starts with both runs' batches before it: it plays them side by side.
        first = waiting_games(queue)
        workers.start("fleet1")
        workers.start("fleet2")
    except BaseException:
        for process in processes.values():
            process.kill()
            process.wait(timeout=30)
        raise
    outputs = {}
    try:
        for name, process in processes.items():
            outputs[name] = process.communicate(timeout=CLI_TIMEOUT)
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait(timeout=30)
    for name, process in processes.items():
        assert process.returncode == 0, (name, outputs[name][1])

    assert sorted(set(first)) == ["congo", "congress"] and len(first) >= MIN_SLOTS * 2, first
    store = Store(url)
    try:
        by_game = {run.game: run.id for run in store.list_runs()}
        assert sorted(by_game) == ["congo", "congress"]
        run_ids = {"a": by_game["congo"], "b": by_game["congress"]}
        for name, run_id in run_ids.items():
            final = status(url, run_id)
            for key in COUNTS:
                assert final[key] == expected[name][key], (name, key, final[key], expected[name][key])
            assert final["refused"] == []
            stored = [r.batch_index for r in store.results(run_id)]
            assert stored == list(range(final["counted_batches"]))  # each batch once, only its own
    finally:
        store.close()
