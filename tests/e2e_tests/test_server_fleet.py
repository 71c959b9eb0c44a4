"""``arbiter server`` on the fleet, as it is deployed: a PostgreSQL store, a real redis-server and two
real Celery workers. An SPRT submitted through the API, an SPSA tuning run and a tournament through
the CLI are open at once; the server is killed with SIGKILL in the middle and started again, and
every run ends with the counts of the same runs played locally. Only the server holds the fleet's
secret. A second server on the same store never plays a run the first one holds."""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path
from typing import Any

import pytest
from celery_testkit import RedisDatabase, WorkerPool, wait_until
from pg_testkit import StoreUrls
from process_testkit import CommandPause, PauseAll
from server_testkit import ServerProcess, gone
from sprt_testkit import cli_command, run_cli, status_json, write_book, write_weights

from coordinator.store import Store

GAME = "congo"
RUN_WAIT = 240.0
SPRT = ("--batch-pairs", "2", "--seed", "5", "--nodes", "400", "--max-games", "40")
SPSA = (
    *("--method", "spsa", "--params", "pawn,mobility,zebra", "--max-games", "88"),
    *("--batch-pairs", "2", "--nodes", "200", "--spsa-lag", "3", "--r-end", "0.05"),
    *("--accept-max-games", "8", "--seed", "5", "--no-report"),
)
TOURNAMENT = ("--pairs", "1", "--batch-pairs", "1", "--nodes", "300", "--seed", "4")


def client_env() -> dict[str, str]:
    """A submitter's environment: no secret, no store, no broker."""
    drop = ("ARBITER_STORE", "ARBITER_BROKER", "ARBITER_SECRET", "ARBITER_WORKER_KEY")
    return {k: v for k, v in os.environ.items() if k not in drop}


def follow(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    """A CLI submitting ``args`` to the server and following the run."""
    return subprocess.Popen(
        cli_command(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=client_env(),
        cwd=cwd,
    )


def local(args: list[str], tmp_path: Path, label: str) -> str:
    """The store of the same run played here, on one process."""
    store = f"sqlite:///{tmp_path / label}.db"
    done = run_cli(*args, "--concurrency", "1", "--store", store)
    assert done.returncode == 0, done.stderr
    return store


def outcome(store: str, run_id: int) -> dict[str, Any]:
    """What a run counted, by kind: what must be equal after an interruption."""
    data = status_json(store, run_id)
    kept = {"games": data["games"], "state": data.get("state") or data["run"]["state"]}
    for key in ("pentanomial", "spsa", "ratings", "head_to_head"):
        if key in data:
            kept[key] = data[key]
    if "spsa" in kept:
        kept["spsa"] = {k: kept["spsa"][k] for k in ("applied", "path", "theta")}
    return kept


@pytest.mark.parametrize("store_kind", ["postgresql"])
def test_three_runs_on_the_fleet_survive_kill_9_with_the_counts_of_local_runs(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path, store_urls: StoreUrls
) -> None:
    secret = secrets.token_hex(16)
    fleet = [workers.start(name, env={"ARBITER_SECRET": secret}) for name in ("f1", "f2")]
    # The fleet is held still while the runs open and while the server is killed, so that all
    # three are open at once and unfinished at the kill, however fast the machine plays.
    paused = PauseAll(*(CommandPause(w.process.pid) for w in fleet))
    store = store_urls("server")
    server_env = {"ARBITER_SECRET": secret}
    server = ServerProcess(tmp_path, store, redis_server.url, env=server_env).start()
    book = write_book(tmp_path / "book.txt", GAME, count=8)
    candidate = write_weights(tmp_path / "candidate.json", {"pawn": 150, "mobility": 6})
    sprt = ["sprt", GAME, "--candidate", str(candidate), "--book", str(book), *SPRT]
    spsa = ["tune", GAME, *SPSA]
    engines = ["--engine", "default", "--engine", str(candidate)]
    engines += ["--engine", str(write_weights(tmp_path / "static.json", {"mobility": 0}))]
    tournament = ["tournament", GAME, *engines, "--book", str(book), *TOURNAMENT]
    followers: list[subprocess.Popen[str]] = []
    try:
        scratch = local([*sprt, "--max-games", "4"], tmp_path, "scratch")  # the SPRT's configuration
        config = Store(scratch).get_run(1).config  # type: ignore[union-attr]
        assert paused.pause() > 0
        status, answer = server.request(
            "POST", "/api/v1/runs", {"kind": "sprt", "config": {**config, "max_games": 40}, "owner": "ann"}
        )
        assert status == 201, answer
        followers.append(follow([*spsa, "--server", server.url], tmp_path))
        followers.append(follow([*tournament, "--server", server.url], tmp_path))

        def three() -> list[dict[str, Any]] | None:
            for follower in followers:
                assert follower.poll() is None, follower.communicate()
            rows = server.get("/api/v1/runs")["runs"]
            return rows if len(rows) == 3 else None

        rows = wait_until(three, RUN_WAIT, "3 runs")
        ids = sorted(r["id"] for r in rows)
        wait_until(
            lambda: all(server.run(i)["state"] == "running" for i in ids),
            RUN_WAIT,
            "all three running at once",
        )
        paused.resume()
        wait_until(lambda: any(server.run(i)["games"] > 0 for i in ids), RUN_WAIT, "a counted batch")
        assert paused.pause() > 0
        started = server.kill()
        wait_until(lambda: gone(started), 60, "the runs' processes to end with the server")
        unfinished = [i for i in ids if Store(store).get_run(i).state.unfinished]  # type: ignore[union-attr]
        assert unfinished, "the server was killed before any run ended"
        paused.resume()
        again = ServerProcess(tmp_path, store, redis_server.url, env=server_env, port=server.port).start()
        try:
            for run_id in ids:
                assert again.wait_state(run_id, ("finished",), RUN_WAIT)["state"] == "finished"
            for follower in followers:  # they waited for the server to come back, and saw the end
                assert follower.wait(RUN_WAIT) == 0, follower.stderr.read() if follower.stderr else ""
        finally:
            again.stop()
    finally:
        paused.resume()
        for follower in followers:
            follower.kill()
        server.stop()
    by_kind = {Store(store).get_run(i).kind: i for i in ids}  # type: ignore[union-attr]
    assert outcome(store, by_kind["sprt"]) == outcome(local(sprt, tmp_path, "sprt"), 1)
    assert outcome(store, by_kind["tune"]) == outcome(local(spsa, tmp_path, "tune"), 1)
    assert outcome(store, by_kind["tournament"]) == outcome(local(tournament, tmp_path, "tournament"), 1)
    assert "ARBITER_SECRET" not in client_env()


@pytest.mark.parametrize("store_kind", ["postgresql"])
def test_two_servers_on_one_store_never_play_one_run_twice(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path, store_urls: StoreUrls
) -> None:
    workers.start("g1")
    store = store_urls("shared")
    first = ServerProcess(tmp_path, store, redis_server.url, name="one").start()
    second = ServerProcess(tmp_path, store, redis_server.url, name="two").start()
    book = write_book(tmp_path / "book.txt", GAME, count=8)
    candidate = write_weights(tmp_path / "candidate.json", {"pawn": 150})
    sprt = ["sprt", GAME, "--candidate", str(candidate), "--book", str(book), *SPRT]
    try:
        config = Store(local([*sprt, "--max-games", "4"], tmp_path, "scratch")).get_run(1).config  # type: ignore[union-attr]
        ids = []
        for seed in range(1, 5):
            target = first if seed % 2 else second
            status, answer = target.request(
                "POST", "/api/v1/runs", {"kind": "sprt", "config": {**config, "seed": seed}}
            )
            assert status == 201, answer
            ids.append(answer["run"]["id"])
        for run_id in ids:
            first.wait_state(run_id, ("finished",), RUN_WAIT)
    finally:
        first.stop()
        second.stop()
    played = {
        run_id: [s.name for s in (first, second) if (s.logs / f"run-{run_id}.log").exists()] for run_id in ids
    }
    assert all(len(names) == 1 for names in played.values()), played
    assert set(name for names in played.values() for name in names) <= {"one", "two"}
