"""``arbiter tournament --broker``: a round robin of six engines over two real Celery worker
processes and a real redis-server, killed in the middle and resumed on the fleet, counts what the
same tournament counts on a local pool of one process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from celery_testkit import RedisServer, WorkerPool
from process_testkit import CommandPause, PauseAll, pause_when
from sprt_testkit import CLI_TIMEOUT, cli_command, run_cli, write_book, write_weights
from test_tournament_cli import batch_counts, report_json, stored_results

GAME = "congo"
#: Six engines: the defaults and five weights files that play differently.
WEIGHTS = {
    "pawny": {"pawn": 150},
    "static": {"mobility": 0},
    "cheap": {"pawn": 60},
    "sheltered": {"lion_shelter": 40},
    "eager": {"mobility": 12},
}
#: 15 pairings, one pair each, one batch each, at low nodes.
PLAN = ("--pairs", "1", "--batch-pairs", "1", "--nodes", "300", "--seed", "4")
BATCHES = 15


def test_six_engine_round_robin_on_the_fleet_resumes_after_a_kill_with_the_same_counts(
    redis_server: RedisServer, workers: WorkerPool, tmp_path: Path
) -> None:
    book = write_book(tmp_path / "book.txt", GAME, count=4)
    engines = ["--engine", "default"]
    for name, weights in WEIGHTS.items():
        engines += ["--engine", str(write_weights(tmp_path / f"{name}.json", weights))]
    args = ["tournament", GAME, *engines, "--book", str(book), *PLAN]
    reference_db, db = tmp_path / "reference.db", tmp_path / "fleet.db"
    reference = run_cli(*args, "--concurrency", "1", "--store", f"sqlite:///{reference_db}")
    assert reference.returncode == 0, reference.stderr

    fleet = [workers.start("t1"), workers.start("t2")]
    env = {k: v for k, v in os.environ.items() if k not in ("ARBITER_STORE", "ARBITER_BROKER")}
    on_fleet = [*args, "--broker", redis_server.url, "--store", f"sqlite:///{db}"]
    process = subprocess.Popen(
        cli_command(*on_fleet),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    paused = PauseAll(*(CommandPause(w.process.pid) for w in fleet))

    def ready() -> bool:
        assert process.poll() is None, "the tournament ended before the fleet was paused"
        count = stored_results(db)
        assert count < BATCHES, "every batch was stored before the pause"
        return count > 0

    try:
        pause_when(paused, ready, CLI_TIMEOUT, "a stored result")
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        paused.resume()
    killed = report_json(db)
    assert killed["run"]["state"] == "running" and killed["games"] < 2 * BATCHES

    resumed = run_cli("resume", "1", "--broker", redis_server.url, "--store", f"sqlite:///{db}")
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming tournament 1" in resumed.stderr and "Traceback" not in resumed.stderr
    final, expected = report_json(db), report_json(reference_db)
    assert final["run"]["state"] == "finished" and final["games"] == 2 * BATCHES
    assert len(final["ratings"]) == 6 and len(final["head_to_head"]) == BATCHES
    for key in ("games", "counted_batches", "ratings", "head_to_head", "los", "over_games"):
        assert final[key] == expected[key], key
    assert batch_counts(db) == batch_counts(reference_db)
    # Every counted game was played by a worker of the fleet.
    games = run_cli("games", "1", "--format", "jsonl", "--store", f"sqlite:///{db}")
    assert games.returncode == 0, games.stderr
    players = {json.loads(line)["worker"] for line in games.stdout.splitlines()}
    assert players and players <= {w.node for w in fleet}, players
