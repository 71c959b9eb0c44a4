"""``arbiter tune --rounds`` end to end with the real engine: a tiny campaign of two rounds on
Congress from every piece worth 100 (``examples/congress-flat.json``: SPSA finds a better set at
once), its chain in ``arbiter status`` and ``arbiter report``, the final values as a weights file
and an option file; kill -9 during the second round, then ``arbiter resume``: the first round is
not played again and the campaign ends as the uninterrupted one did; and the same campaign over two
real Celery workers and a real redis-server ends with the same chain."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import cli_fork
import pytest
from celery_testkit import RedisDatabase, WorkerPool, wait_until
from sprt_testkit import status_json

import engine

GAME = "congress"
FLAT = Path(__file__).resolve().parents[2] / "examples" / "congress-flat.json"
TIMEOUT = 240

#: Two rounds at 50 nodes, verified at 100 and 200 nodes. 1,200 games: 600 a round, of which two
#: verification SPRTs of at most 100 games, an acceptance SPRT of at most 100, and 300 games of
#: SPSA iterations. H1 at 50 Elo decides in few games. (Seed 5: round 1 passes, round 2 crowns none.)
TINY = (
    *("tune", GAME, "--start", str(FLAT), "--nodes", "50"),
    *("--batch-pairs", "2", "--rounds", "2", "--max-games", "1200", "--accept-max-games", "100"),
    *("--verify-max-games", "100", "--verify-nodes", "100,200", "--accept-elo1", "50"),
    *("--seed", "5"),
)
#: On a local pool of two processes.
LOCAL = (*TINY, "--concurrency", "2")


def environment() -> dict[str, str]:
    """This environment without the variables that would pick another store or a broker."""
    return {k: v for k, v in os.environ.items() if k not in ("ARBITER_STORE", "ARBITER_BROKER")}


def arbiter(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``arbiter ARGS`` to its end, forked from a process that has imported arbiter."""
    return cli_fork.run(list(args), cwd, environment(), TIMEOUT)


def chain_of(db: Path, run_id: int = 1) -> dict[str, Any]:
    """The campaign's chain as ``status --json`` has it, without run ids (which differ between
    stores that made their runs in another order)."""
    chain = status_json(f"sqlite:///{db}", run_id)["chain"]
    for r in chain["rounds"]:
        r.pop("tune_run_id")
        for v in r["verifications"]:
            v.pop("run_id")
    return chain


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The tiny campaign, played once without interruption."""
    where = tmp_path_factory.mktemp("campaign")
    done = arbiter(*LOCAL, "--store", f"sqlite:///{where / 's.db'}", cwd=where)
    return where, done


def test_a_tiny_campaign_chains_its_rounds_and_writes_its_final_values(
    reference: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    where, done = reference
    assert done.returncode == 0, done.stderr
    assert "campaign 1 started" in done.stderr and "Traceback" not in done.stderr
    data = status_json(f"sqlite:///{where / 's.db'}", 1)
    assert data["run"]["state"] == "finished"
    rounds = data["chain"]["rounds"]
    # Round 1 passed both verifications and round 2 started from its champion.
    first = rounds[0]
    assert first["verdict"] == "passed" and first["champion"] != first["start"]
    assert [v["setting"] for v in first["verifications"]] == ["100 nodes", "200 nodes"]
    assert all(v["decision"] == "accepted" for v in first["verifications"])
    assert len(rounds) == 2 and rounds[1]["start"] == first["champion"]
    assert data["totals"]["ending"] is not None
    # Every game counts against --max-games, and each round's against its share.
    assert data["totals"]["games"] <= 1200
    assert all(r["tune_games"] + sum(v["games"] for v in r["verifications"]) <= 600 for r in rounds)
    # The final values: the best verified set, as weights and as an engine file's [options].
    best = data["chain"]["best"]
    weights = json.loads((where / "1-campaign.json").read_text())
    assert weights == best and engine.validate_weights(GAME, weights) is not None
    options = tomllib.loads((where / "1-campaign.toml").read_text())["options"]
    assert options == best
    assert "final values written to 1-campaign.json and 1-campaign.toml" in done.stdout

    listed = arbiter("status", "--store", f"sqlite:///{where / 's.db'}", cwd=where)
    lines = [line for line in listed.stdout.splitlines()[1:] if line.strip()]
    assert len(lines) == 1 and "campaign" in lines[0]  # its rounds are its own, not listed apart
    shown = arbiter("report", "1", "--store", f"sqlite:///{where / 's.db'}", cwd=where)
    assert shown.returncode == 0, shown.stderr
    assert "verify 100 nodes" in shown.stdout and "verify 200 nodes" in shown.stdout
    page = (where / "1-report.html").read_text()
    assert "Chain" in page and "200 nodes" in page


def test_kill_9_in_round_2_then_resume_ends_as_if_never_killed(
    tmp_path: Path, reference: tuple[Path, subprocess.CompletedProcess[str]]
) -> None:
    where, done = reference
    assert done.returncode == 0, done.stderr
    db = tmp_path / "s.db"
    process = subprocess.Popen(
        [sys.executable, "-m", "coordinator.cli", *LOCAL, "--store", f"sqlite:///{db}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
        env=environment(),
        start_new_session=True,
    )

    def round_2_tuning() -> bool:
        if not db.exists():
            return False
        try:
            with sqlite3.connect(db) as c:
                return bool(c.execute("SELECT count(*) FROM campaign_steps WHERE round = 1").fetchone()[0])
        except sqlite3.OperationalError:  # not made yet, or locked
            return False

    try:
        wait_until(round_2_tuning, 120, "round 2 to start", interval=0.02)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    killed = status_json(f"sqlite:///{db}", 1)
    assert killed["run"]["state"] == "running" and not (tmp_path / "1-campaign.json").exists()
    first = killed["chain"]["rounds"][0]

    resumed = arbiter("resume", "1", "--store", f"sqlite:///{db}", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming campaign 1" in resumed.stderr and "Traceback" not in resumed.stderr
    final = status_json(f"sqlite:///{db}", 1)
    # Round 1 was not played again: the same runs with the same games.
    assert final["chain"]["rounds"][0] == first
    assert chain_of(db) == chain_of(where / "s.db")
    assert json.loads((tmp_path / "1-campaign.json").read_text()) == final["chain"]["best"]


def test_the_campaign_over_two_celery_workers_chains_as_on_the_local_pool(
    redis_server: RedisDatabase,
    workers: WorkerPool,
    tmp_path: Path,
    reference: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    where, done = reference
    assert done.returncode == 0, done.stderr
    workers.start("campaign1")
    workers.start("campaign2")
    db = tmp_path / "s.db"
    over = arbiter(*TINY, "--broker", redis_server.url, "--store", f"sqlite:///{db}", cwd=tmp_path)
    assert over.returncode == 0, over.stderr
    assert "Traceback" not in over.stderr
    assert chain_of(db) == chain_of(where / "s.db")
    assert (tmp_path / "1-campaign.toml").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--verify-nodes", "100,200"), "--verify-nodes is an option of a campaign: add --rounds N"),
        (("--rounds", "2", "--method", "optuna"), "--rounds: a campaign tunes with --method spsa"),
        (("--rounds", "2", "--verify-nodes", "100"), "--verify-nodes: expected two node counts, got 1"),
        (("--rounds", "2", "--verify-nodes", "9" * 5000 + ",2"), "--verify-nodes: '99999"),
        (("--rounds", "2", "--verify-tc", "10+0.1"), "--verify-tc: expected two time controls"),
        (("--rounds", "2", "--depth", "3"), "with --verify-nodes or --verify-tc"),
        (("--rounds", "2", "--time-limit", "5m"), "drop --time-limit"),
        (("--rounds", "2", "--max-games", "500"), "--max-games: SPSA plans its gains over its games"),
    ],
)
def test_bad_campaign_options_exit_2_with_one_line_and_no_store(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    db = tmp_path / "s.db"
    done = arbiter("tune", GAME, *args, "--store", f"sqlite:///{db}", cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not db.exists()
