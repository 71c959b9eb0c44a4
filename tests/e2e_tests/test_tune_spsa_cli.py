"""``arbiter tune --method spsa`` end to end with the real engine and the local pool: a small SPSA
run stores its whole path of theta and reports it; killed with SIGKILL and resumed it loses nothing
and ends on exactly the theta of the same run left alone; the same command again only reports it;
bad flag values are one line and exit status 2 (the others are checked in the unit tests)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

from process_testkit import WorkerPause, pause_when
from sqlalchemy import create_engine
from sqlalchemy.exc import DBAPIError
from test_tune_cli import (
    GAME,
    TIMEOUT,
    arbiter,
    assert_counted_once,
    assert_nothing_left_running,
    check_bad_input,
    start_to_kill,
    status,
    stored_results,
    url,
)

import engine
from coordinator.executors.local import IN_FLIGHT_PER_WORKER
from coordinator.store import Store

#: 100 iterations of 2 pairs at 300 nodes, theta to an acceptance SPRT every 200 games and at the
#: end (each SPRT at most 40 games: the budget of 480 holds 400 games of iterations and the two
#: SPRTs); 3 iterations in flight at most.
SPSA = (
    *("--method", "spsa", "--params", "pawn,politician,king_safety,mobility,senior_politician"),
    *("--max-games", "480", "--batch-pairs", "2", "--nodes", "300", "--spsa-lag", "2"),
    *("--r-end", "0.02", "--accept-every", "200", "--accept-max-games", "40", "--accept-elo1", "30"),
    *("--concurrency", "2", "--seed", "9"),
)
#: Batches the local pool of :data:`SPSA` holds at most (sent, not yet delivered).
SPSA_IN_FLIGHT = IN_FLIGHT_PER_WORKER * 2


def spsa_args(db: Path, out: Path) -> list[str]:
    return ["tune", GAME, *SPSA, "--store", url(db), "--output", str(out)]


def applied_iterations(db: Path) -> tuple[int, str | None]:
    """SPSA iterations applied so far and the tuning run's state, read without creating anything
    ((0, None) before the tables exist)."""
    if not db.exists():
        return 0, None
    reader = create_engine(f"sqlite:///file:{db}?mode=ro&uri=true")
    try:
        with reader.connect() as c:
            applied = c.exec_driver_sql(
                "SELECT count(*) FROM spsa_iterations WHERE theta IS NOT NULL"
            ).scalar_one()
            state = c.exec_driver_sql("SELECT state FROM runs WHERE id = 1").scalar()
    except DBAPIError:
        return 0, None
    finally:
        reader.dispose()
    return int(applied), None if state is None else str(state)


def acceptances(db: Path, data: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Each acceptance SPRT of a tuning run: candidate, stage, champion, limits, decision, games."""
    store = Store(url(db), create=False)
    out = []
    for a in data["acceptances"]:
        run = store.get_run(a["run"])
        assert run is not None
        penta = store.totals(run.id, run.counted_batches).pentanomial
        out.append((a["candidate"], a["stage"], a["champion"], a["limits"], run.decision, penta))
    return out


def path(data: dict[str, Any]) -> list[tuple[int, int, int, dict[str, float]]]:
    return [(p["iteration"], p["wins"], p["losses"], p["theta"]) for p in data["spsa"]["path"]]


def test_spsa_run_resumes_after_kill_9_on_the_same_theta(tmp_path: Path) -> None:
    alone, killed = tmp_path / "alone.db", tmp_path / "killed.db"
    done = arbiter(*spsa_args(alone, tmp_path / "alone.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "iterations" in done.stderr  # progress on stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"tuning run 1 ({GAME}, spsa): 100 of 100 iterations")
    assert int(lines[0].split(" games")[0].rsplit(" ", 1)[1]) <= 480  # every game counts
    reference = status(alone, 1)
    assert (reference["method"], reference["state"]) == ("spsa", "finished")
    assert reference["spsa"]["applied"] == reference["spsa"]["dispatched"] == 100
    steps = path(reference)
    assert [s[0] for s in steps] == list(range(100))
    assert all(w + lo <= 4 for _, w, lo, _ in steps)
    table = {w.name: w for w in engine.weights(GAME)}
    for *_, theta in steps:
        assert all(table[n].min <= v <= table[n].max for n, v in theta.items())
    assert (
        steps[-1][3]
        == reference["spsa"]["theta"]
        != {n: float(v) for n, v in engine.validate_weights(GAME, None).items() if n in steps[-1][3]}
    )
    # Checkpoints after 200 and 400 games: iterations 49 and 99.
    assert [a["candidate"] for a in reference["acceptances"] if a["stage"] == 0] == [49, 99]
    written = json.loads((tmp_path / "alone.json").read_text())
    assert engine.validate_weights(GAME, written) == written == reference["champions"][-1]["weights"]
    # The run's report shows the path of theta.
    assert lines[-1].endswith("; report: 1-report.html")
    page = (tmp_path / "1-report.html").read_text()
    assert 'id="theta"' in page and "Path of theta" in page and f"arbiter tune {GAME} --method spsa" in page
    shown = arbiter("report", "1", "--json", "--store", url(alone), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["method"] == "spsa" and data["spsa"]["applied"] == 100
    assert [p["iteration"] for p in data["spsa"]["path"]] == list(range(-1, 100))
    assert [p["theta"] for p in data["spsa"]["path"][1:]] == [s[3] for s in steps]

    process = start_to_kill(spsa_args(killed, tmp_path / "killed.json"), tmp_path)
    workers = WorkerPause(process.pid)

    def twenty_applied() -> bool:
        """At least 20 iterations applied, and (once the workers are paused) too few for the run to
        end with what its pool may still deliver: the batches in flight."""
        assert process.poll() is None, "the run ended before it could be killed"
        applied, state = applied_iterations(killed)
        if applied < 20:
            return False
        assert state == "running" and applied + SPSA_IN_FLIGHT < 100, (applied, state)
        return True

    try:
        pause_when(workers, twenty_applied, TIMEOUT, "20 iterations applied")
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the coordinator and its pool processes, paused or not
        process.wait(timeout=30)
        workers.resume()
    before = stored_results(killed)
    at_kill = status(killed, 1)
    assert at_kill["state"] == "running" and 20 <= at_kill["spsa"]["applied"] < 100
    assert path(at_kill) == steps[: at_kill["spsa"]["applied"]]

    resumed = arbiter("resume", "1", "--store", url(killed), cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming tuning run 1" in resumed.stderr and "Traceback" not in resumed.stderr
    final = status(killed, 1)
    assert final["state"] == "finished"
    assert path(final) == steps  # every iteration, its result and theta after it
    assert acceptances(killed, final) == acceptances(alone, reference)
    assert [c["weights"] for c in final["champions"]] == [c["weights"] for c in reference["champions"]]
    after = stored_results(killed)
    assert {k: after.get(k) for k in before} == before  # nothing stored before the kill was lost
    assert_counted_once(killed)
    assert_nothing_left_running(killed)

    # The same command again: the run is finished, so it only reports it.
    rows = Store(url(killed)).row_counts()
    again = arbiter(*spsa_args(killed, tmp_path / "again.json"), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "tuning run 1 already finished" in again.stderr and "Traceback" not in again.stderr
    assert Store(url(killed)).row_counts() == rows
    assert status(killed, 1) == final


def bad_flags() -> dict[str, tuple[list[str], tuple[str, ...]]]:
    """Name -> (the tune arguments, texts the error line must contain)."""
    return {
        "--method foo": ([GAME, "--method", "foo"], ("--method", "foo")),
        "--radius 2": ([GAME, "--method", "optuna", "--radius", "2"], ("--radius", "2")),
        "--accept-nodes 0": ([GAME, "--accept-nodes", "0"], ("--accept-nodes", "0")),
        "--accept-nodes abc": ([GAME, "--accept-nodes", "500,abc"], ("--accept-nodes", "abc")),
        "--accept-every with optuna": (
            [GAME, "--method", "optuna", "--accept-every", "100"],
            ("--accept-every", "spsa"),
        ),
        "--radius with spsa": ([GAME, "--method", "spsa", "--radius", "0.1"], ("--radius", "optuna")),
        "--max-trials with the default method": (
            [GAME, "--max-trials", "3"],
            ("--max-trials is an option of --method optuna: add --method optuna", "default method is spsa"),
        ),
        "--parallel-trials with spsa": (
            [GAME, "--method", "spsa", "--parallel-trials", "2"],
            ("--parallel-trials", "optuna"),
        ),
        "--max-games below one iteration": ([GAME, "--method", "spsa", "--max-games", "3"], ("--max-games",)),
    }


def test_bad_flag_values_exit_2_with_one_line(tmp_path: Path) -> None:
    db = tmp_path / "fresh.db"
    failures = []
    for name, (args, needles) in bad_flags().items():
        full = ["tune", *args, "--store", url(db), "--output", str(tmp_path / "c.json")]
        failures += [f"{name}: {p}" for p in check_bad_input(full, needles, tmp_path)]
    assert not failures, "\n".join(failures)
    assert not db.exists() or not Store(url(db)).list_runs()
    assert not (tmp_path / "c.json").exists()
