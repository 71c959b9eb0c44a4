"""``arbiter match``: N game pairs of two sides, no SPRT. Locally it plays exactly its pairs (the
last batch cut), shows in ``status``, ``report`` (text and JSON) and the dashboard, and a match
killed in the middle and resumed counts what an uninterrupted one counts; over Celery (a real
redis-server and two worker processes) it counts what the local pool counts, game for game."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

from celery_testkit import RedisServer, WorkerPool
from process_testkit import WorkerPause, pause_when
from sprt_testkit import CLI_TIMEOUT, cli_command, run_cli, write_book, write_weights
from starlette.testclient import TestClient
from test_tournament_cli import stored_results

from coordinator.store import Store
from coordinator.web.app import create_app

GAME = "congo"
#: 5 pairs in batches of 2: three batches, the last one a single pair.
PLAN = ("--pairs", "5", "--batch-pairs", "2", "--nodes", "300", "--seed", "3")
PAIRS = 5


def match_args(tmp_path: Path, db: Path, *plan: str) -> list[str]:
    """``arbiter match`` of a weights file against the defaults, on the store ``db``."""
    book = write_book(tmp_path / "book.txt", GAME, count=4)
    candidate = write_weights(tmp_path / "pawny.json", {"pawn": 150})
    return [
        "match",
        GAME,
        "--candidate",
        str(candidate),
        "--book",
        str(book),
        *plan,
        "--store",
        f"sqlite:///{db}",
    ]


def report_json(db: Path, run_id: int = 1) -> dict[str, Any]:
    """``arbiter report RUN --json``."""
    done = run_cli("report", str(run_id), "--json", "--store", f"sqlite:///{db}")
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def games_of(db: Path) -> list[tuple[int, str, str]]:
    """Every counted game of run 1: its batch, its moves and its result."""
    done = run_cli("games", "1", "--format", "jsonl", "--store", f"sqlite:///{db}")
    assert done.returncode == 0, done.stderr
    games = [json.loads(line) for line in done.stdout.splitlines()]
    return [(g["batch"], g["record"]["moves"], g["record"]["result"]) for g in games]


def test_a_match_plays_its_pairs_and_every_view_shows_it(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    done = run_cli(*match_args(tmp_path, db, *PLAN))
    assert done.returncode == 0, done.stderr
    assert "match 1 started" in done.stderr
    assert f"{2 * PAIRS} of {2 * PAIRS} games" in done.stdout and "Elo: " in done.stdout

    data = report_json(db)
    totals = data["totals"]
    assert data["run"]["kind"] == "match" and data["run"]["state"] == "finished"
    assert totals["games"] == 2 * PAIRS == sum(totals["wdl"]) and sum(totals["pentanomial"]) == PAIRS
    assert totals["counted_batches"] == 3 and data["stats"]["elo95"] > 0
    assert data["engines"]["sides"]["candidate"]["source"].endswith("pawny.json")

    listed = run_cli("status", "--store", f"sqlite:///{db}")
    row = next(line for line in listed.stdout.splitlines() if line.strip().startswith("1 "))
    assert row.split()[1:5] == ["match", GAME, "finished", str(2 * PAIRS)] and row.endswith("complete")
    status = run_cli("status", "1", "--json", "--store", f"sqlite:///{db}")
    assert json.loads(status.stdout)["totals"] == totals
    text = run_cli("report", "1", "--store", f"sqlite:///{db}", "-o", str(tmp_path / "r.html"))
    assert text.returncode == 0 and f"pentanomial {totals['pentanomial']}" in text.stdout
    assert "Elo (95%)" in (tmp_path / "r.html").read_text()

    # The same command again only shows the finished match.
    again = run_cli(*match_args(tmp_path, db, *PLAN))
    assert again.returncode == 0 and "already finished" in again.stderr
    assert report_json(db)["totals"] == totals

    store = Store(f"sqlite:///{db}", read_only=True)
    try:
        client = TestClient(create_app(store))
        listing = client.get("/api/runs", params={"kind": "match"}).json()
        assert [(r["id"], r["games"], r["planned_games"]) for r in listing["runs"]] == [(1, 10, 10)]
        page = client.get("/runs/1")
        assert page.status_code == 200 and "vs" in client.get("/").text
        assert 'data-field="games">10</b> of 10' in page.text
    finally:
        store.close()


def test_kill_9_then_resume_counts_what_an_uninterrupted_match_counts(tmp_path: Path) -> None:
    # 1,000 nodes a move: a batch is slow enough that the pause lands before the tenth is stored even
    # on a loaded machine (at 300 nodes the whole match took a quarter of a second of CPU, and a
    # poll delayed that long saw 12 results).
    plan = ("--pairs", "12", "--batch-pairs", "1", "--nodes", "1000", "--seed", "5", "--concurrency", "1")
    reference_db, db = tmp_path / "reference.db", tmp_path / "m.db"
    reference = run_cli(*match_args(tmp_path, reference_db, *plan))
    assert reference.returncode == 0, reference.stderr

    process = subprocess.Popen(
        cli_command(*match_args(tmp_path, db, *plan)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    workers = WorkerPause(process.pid)

    def ready() -> bool:
        assert process.poll() is None, "the match ended before its workers were paused"
        count = stored_results(db)
        assert count < 10, f"{count} results stored before the pause"
        return count > 0

    try:
        pause_when(workers, ready, CLI_TIMEOUT, "a stored result")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        workers.resume()
    killed = report_json(db)
    assert killed["run"]["state"] == "running" and killed["totals"]["games"] < 24

    resumed = run_cli("resume", "1", "--store", f"sqlite:///{db}")
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming match 1" in resumed.stderr and "24 of 24 games" in resumed.stdout
    final, expected = report_json(db), report_json(reference_db)
    assert final["run"]["state"] == "finished"
    for key in ("totals", "stats"):
        assert {k: v for k, v in final[key].items() if k != "cpu_seconds"} == {
            k: v for k, v in expected[key].items() if k != "cpu_seconds"
        }, key
    assert games_of(db) == games_of(reference_db)


def test_a_match_on_the_fleet_plays_the_games_of_the_local_pool(
    redis_server: RedisServer, workers: WorkerPool, tmp_path: Path
) -> None:
    reference_db, db = tmp_path / "reference.db", tmp_path / "fleet.db"
    reference = run_cli(*match_args(tmp_path, reference_db, *PLAN, "--concurrency", "1"))
    assert reference.returncode == 0, reference.stderr

    fleet = [workers.start("m1"), workers.start("m2")]
    on_fleet = run_cli(*match_args(tmp_path, db, *PLAN, "--broker", redis_server.url))
    assert on_fleet.returncode == 0, on_fleet.stderr
    assert "Traceback" not in on_fleet.stderr
    final, expected = report_json(db), report_json(reference_db)
    assert final["totals"]["games"] == 2 * PAIRS
    assert final["totals"]["pentanomial"] == expected["totals"]["pentanomial"]
    assert games_of(db) == games_of(reference_db)
    done = run_cli("games", "1", "--format", "jsonl", "--store", f"sqlite:///{db}")
    players = {json.loads(line)["worker"] for line in done.stdout.splitlines()}
    assert players and players <= {w.node for w in fleet}, players
