"""``arbiter sprt / status / resume`` end to end with the real engine, including kill -9 and resume.

The runs, kill -9 and resume tests take ``store_urls``: they run on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from celery_testkit import wait_until
from pg_testkit import StoreUrls
from process_testkit import WorkerPause, pause_when
from sprt_testkit import CLI_TIMEOUT, cli_command, run_cli, status_json, write_book, write_weights
from sqlalchemy import create_engine
from sqlalchemy.exc import DBAPIError

import engine
from coordinator.executors.local import IN_FLIGHT_PER_WORKER
from coordinator.sprt.config import SprtConfig
from coordinator.store import Store, engine_url

GAME = "congo"
#: Small and fast: 2 pairs per batch.
SMALL = ("--batch-pairs", "2", "--seed", "5")
#: A run long enough to be killed in the middle (12 batches at 1500 nodes, one process).
LONG = ("--max-games", "48", "--concurrency", "1", "--nodes", "1500")
#: Batches of a :data:`LONG` run, and how many its pool holds at once (sent, not yet delivered).
LONG_BATCHES = 12
LONG_IN_FLIGHT = IN_FLIGHT_PER_WORKER * 1


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """A book, a candidate weights file and a store URL's file in ``tmp_path``."""
    return files_in(tmp_path)


def files_in(folder: Path) -> dict[str, Path]:
    """The book, candidate weights file and store file of :func:`files`, in ``folder``."""
    return {
        "book": write_book(folder / "book.txt", GAME, count=12),
        "candidate": write_weights(folder / "candidate.json", {"pawn": 150, "mobility": 6}),
        "db": folder / "arbiter.db",
    }


def store_arg(db: Path | str) -> str:
    """The store URL of a SQLite file, or a URL as it is."""
    return db if isinstance(db, str) else f"sqlite:///{db}"


def sprt_args(files: dict[str, Path], db: Path | str, *extra: str) -> list[str]:
    """``sprt`` arguments for the test book and candidate; 300 nodes unless ``extra`` says otherwise."""
    nodes = () if "--nodes" in extra else ("--nodes", "300")
    return [
        "sprt",
        GAME,
        "--candidate",
        str(files["candidate"]),
        "--book",
        str(files["book"]),
        *SMALL,
        *nodes,
        "--store",
        store_arg(db),
        *extra,
    ]


def status(db: Path | str, run_id: int) -> dict[str, Any]:
    return status_json(store_arg(db), run_id)


def test_sprt_small_budget_then_status(files: dict[str, Path], store_urls: StoreUrls) -> None:
    db = store_urls()
    done = run_cli(*sprt_args(files, db, "--max-games", "16", "--concurrency", "2"))
    assert done.returncode == 0, done.stderr
    assert "undecided at its game cap" in done.stdout or "accepted" in done.stdout
    for needle in ("LLR", "Elo:", "SPRT Elo", "LOS", "nElo", "games: 16", "time:"):
        assert needle in done.stdout
    progress = [line for line in done.stderr.splitlines() if line.startswith("run 1: ")]
    assert progress and all("LLR" in line and len(line) < 80 for line in progress)  # progress on stderr

    data = status(db, 1)
    assert {"id", "game", "state", "games", "pentanomial", "wdl", "llr", "elo", "elo95", "decision"} <= set(
        data
    )
    assert data["state"] == "finished" and data["games"] == 16
    assert sum(data["pentanomial"]) == 8 and sum(data["wdl"]) == 16
    assert data["refused"] == []

    listing = run_cli("status", "--store", store_arg(db))
    assert listing.returncode == 0
    assert "finished" in listing.stdout and "sprt" in listing.stdout

    shown = run_cli("status", "1", "--store", store_arg(db))
    assert shown.returncode == 0 and "pentanomial" in shown.stdout
    printed = run_cli("status", "1", "--json", "--store", store_arg(db))
    assert printed.returncode == 0 and json.loads(printed.stdout) == data  # what the other tests read

    # Resuming a finished run only reports it.
    again = run_cli("resume", "1", "--store", store_arg(db))
    assert again.returncode == 0 and "already finished" in again.stderr
    assert Store(store_arg(db)).row_counts()["runs"] == 1


def stored(db: Path | str) -> tuple[int, str | None]:
    """(results stored, state) of run 1 of the store (a SQLite file or any URL); (0, None) before
    there is a store or a table. Reads with a plain engine: opening a Store would create the tables."""
    if isinstance(db, Path) and not db.exists():
        return 0, None
    reader = create_engine(engine_url(store_arg(db)))
    try:
        with reader.connect() as connection:
            count = connection.exec_driver_sql("SELECT COUNT(*) FROM results WHERE run_id = 1").scalar()
            state = connection.exec_driver_sql("SELECT state FROM runs WHERE id = 1").scalar()
    except DBAPIError:  # tables not created yet
        return 0, None
    finally:
        reader.dispose()
    return int(count or 0), None if state is None else str(state)


def pause_in_the_middle(db: Path | str, process: subprocess.Popen[str], workers: WorkerPause) -> int:
    """Pause the workers of a :data:`LONG` run once it stored a result, where it can no longer reach
    its end: a paused pool delivers at most the batches it holds (:data:`LONG_IN_FLIGHT`), so the
    run counts fewer than its :data:`LONG_BATCHES` (and no SPRT decides before its budget: the
    tests check that the uninterrupted run ends there). The results stored then."""

    def ready() -> bool:
        assert process.poll() is None, "the coordinator ended before its workers were paused"
        count, state = stored(db)
        if count == 0:
            return False
        assert state == "running", f"run 1 is {state} after {count} results"
        assert count + LONG_IN_FLIGHT < LONG_BATCHES, f"the run stored {count} results before the pause"
        return True

    pause_when(workers, ready, CLI_TIMEOUT, "a stored result")
    return stored(db)[0]


@pytest.fixture(scope="module")
def long_reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The status of the :data:`LONG` run played to its end uninterrupted, once for the module (on
    SQLite: what a run counts does not depend on its store's kind)."""
    made = files_in(tmp_path_factory.mktemp("long-reference"))
    reference = run_cli(*sprt_args(made, made["db"], *LONG))
    assert reference.returncode == 0, reference.stderr
    expected = status(made["db"], 1)
    assert (expected["decision"], expected["counted_batches"]) == ("budget", LONG_BATCHES), expected
    return expected


def test_kill_9_then_resume_equals_an_uninterrupted_run(
    files: dict[str, Path], store_urls: StoreUrls, long_reference: dict[str, Any]
) -> None:
    budget = LONG
    expected = long_reference

    db = store_urls()
    process = subprocess.Popen(
        cli_command(*sprt_args(files, db, *budget)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    workers = WorkerPause(process.pid)
    try:
        pause_in_the_middle(db, process, workers)
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the coordinator and its worker processes, paused or not
        process.wait(timeout=30)
        workers.resume()
    killed = status(db, 1)
    assert killed["state"] == "running"
    assert killed["games"] < expected["games"]

    resumed = run_cli("resume", "1", "--store", store_arg(db))
    assert resumed.returncode == 0, resumed.stderr
    final = status(db, 1)
    for key in ("state", "games", "pentanomial", "wdl", "decision", "counted_batches", "llr"):
        assert final[key] == expected[key], key
    # No batch counted twice: one result row per counted batch, and the totals are theirs.
    store = Store(store_arg(db))
    indexes = [r.batch_index for r in store.results(1)]
    assert len(indexes) == len(set(indexes))
    assert indexes[: final["counted_batches"]] == list(range(final["counted_batches"]))
    assert store.totals(1).games == final["games"]


def test_same_command_again_continues_an_interrupted_run(
    files: dict[str, Path], store_urls: StoreUrls
) -> None:
    url = store_urls()
    args = sprt_args(files, url, "--max-games", "12", "--concurrency", "1")
    store = Store(url)
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    store.update_run(1, state="interrupted")  # as if Ctrl-C had stopped it before the end
    again = run_cli(*args)
    assert again.returncode == 0, again.stderr
    assert "resuming run 1" in again.stderr
    assert store.row_counts()["runs"] == 1


def test_sigint_stops_cleanly_and_resume_finishes(files: dict[str, Path], tmp_path: Path) -> None:
    db = files["db"]
    process = subprocess.Popen(
        cli_command(*sprt_args(files, db, *LONG)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    workers = WorkerPause(process.pid)
    try:
        pause_in_the_middle(db, process, workers)
        process.send_signal(signal.SIGINT)
        # The coordinator stops between two steps (storing what its workers sent before they were
        # paused) and kills its workers, then marks the run; only then does the rest of what was
        # paused go on (the pool's helper processes, which its exit may wait for).
        wait_until(
            lambda: process.poll() is not None or stored(db)[1] != "running",
            CLI_TIMEOUT,
            "the coordinator to stop the run",
        )
        workers.resume()
        _, stderr = process.communicate(timeout=CLI_TIMEOUT)
    finally:
        workers.resume()
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    assert process.returncode == 130, stderr
    hint = stderr.rpartition("continue with: ")[2].strip()
    assert hint == f"arbiter resume 1 --store {shlex.quote(store_arg(db))}", stderr
    assert status(db, 1)["state"] == "interrupted"
    resumed = run_cli(*shlex.split(hint)[1:])  # typed as shown, it opens the same store
    assert resumed.returncode == 0, resumed.stderr
    final = status(db, 1)
    assert final["state"] == "finished"
    assert final["decision"] == "budget"  # what made the interruption land before the end


def bad_input_cases(files: dict[str, Path], tmp_path: Path) -> dict[str, list[str]]:
    unknown = write_weights(tmp_path / "unknown.json", {"pawn": 120, "dragon": 900})
    out_of_range = write_weights(tmp_path / "range.json", {"pawn": 10**9})
    not_json = tmp_path / "not.json"
    not_json.write_text("{pawn: 1")
    too_deep = tmp_path / "deep.json"
    too_deep.write_text("[" * 100_000)  # nested deeper than Python's parser recurses
    broken_book = tmp_path / "broken.txt"
    broken_book.write_text(files["book"].read_text() + "this is not a position\n")
    return {
        "unknown weight": [*sprt_args(files, files["db"]), "--candidate", str(unknown)],
        "out of range weight": [*sprt_args(files, files["db"]), "--candidate", str(out_of_range)],
        "weights not json": [*sprt_args(files, files["db"]), "--baseline", str(not_json)],
        "weights nested too deeply": [*sprt_args(files, files["db"]), "--baseline", str(too_deep)],
        "missing weights": [*sprt_args(files, files["db"]), "--candidate", str(tmp_path / "nope.json")],
        "malformed book": [*sprt_args(files, files["db"]), "--book", str(broken_book)],
        "missing book": [*sprt_args(files, files["db"]), "--book", str(tmp_path / "nope.txt")],
        "elo1 <= elo0": sprt_args(files, files["db"], "--elo0", "5", "--elo1", "5"),
        "elo1 too close to elo0": sprt_args(files, files["db"], "--elo1", "1e-300"),
        "hypothesis beyond the model": sprt_args(
            files, files["db"], "--model", "logistic", "--elo0", "-5000", "--elo1", "5000"
        ),
        "huge hypotheses": sprt_args(files, files["db"], "--elo0", "-1e308", "--elo1", "1e308"),
        "stats hypothesis too narrow": ["stats", "--penta", "1,1,1,1,1", "--elo1", "1e-300"],
        "stats hypothesis beyond the model": [
            *("stats", "--penta", "1,1,1,1,1", "--model", "logistic", "--elo0", "-5000", "--elo1", "5000"),
        ],
        "stats counts beyond BayesElo": ["stats", "--wdl", "0,1000000000000,0", "--model", "bayeselo"],
        "bad alpha": sprt_args(files, files["db"], "--alpha", "1.5"),
        "a margin without a clock": sprt_args(files, files["db"], "--timemargin", "50"),
        "bad time control": sprt_args(files, files["db"], "--tc", "40/+1"),
        "unknown game": [
            "sprt",
            "chess",
            "--candidate",
            str(files["candidate"]),
            "--store",
            store_arg(files["db"]),
        ],
        "unwritable store": [*sprt_args(files, files["db"]), "--store", store_arg(tmp_path / "no" / "x.db")],
        "bad store url": [*sprt_args(files, files["db"]), "--store", "not a url"],
        "unknown run": ["resume", "99", "--store", store_arg(files["db"])],
        "unknown status run": ["status", "99", "--store", store_arg(files["db"])],
        "run id out of range": ["status", "99999999999999999999999", "--store", store_arg(files["db"])],
    }


def test_bad_input_exits_2_with_one_line_and_leaves_the_store_unchanged(
    files: dict[str, Path], tmp_path: Path
) -> None:
    store = Store(store_arg(files["db"]))
    store.create_run("sprt", GAME, {"seed": 0}, "0" * 64)
    before = store.row_counts()
    failures = []
    for name, args in bad_input_cases(files, tmp_path).items():
        done = run_cli(*args)
        lines = done.stderr.strip().splitlines()
        if done.returncode != 2 or len(lines) != 1 or not lines[0].startswith(f"arbiter {args[0]}: "):
            failures.append(f"{name}: exit {done.returncode}, stderr {done.stderr!r}")
        if store.row_counts() != before:
            failures.append(f"{name}: the store changed")
    assert not failures, "\n".join(failures)


def test_bad_input_messages_name_the_input(files: dict[str, Path], tmp_path: Path) -> None:
    cases = bad_input_cases(files, tmp_path)
    expectations = {
        "unknown weight": "dragon",
        "malformed book": "broken.txt:",
        "elo1 <= elo0": "elo1",
        "elo1 too close to elo0": "arbiter sprt: --elo1: expected at least --elo0 + 0.01 = 0.01 (",
        "hypothesis beyond the model": "arbiter sprt: --elo0: expected a value between -1000 and 1000",
        "huge hypotheses": "arbiter sprt: --elo0: expected a value between -200 and 200",
        "stats hypothesis too narrow": "arbiter stats: --elo1: expected at least --elo0 + 0.01",
        "stats hypothesis beyond the model": "arbiter stats: --elo0: expected a value between -1000",
        "stats counts beyond BayesElo": "BayesElo",
        "run id out of range": "arbiter status: RUN: 99999999999999999999999 is not in the range",
        "unwritable store": "no/x.db",
        "unknown game": "chess",
    }
    for name, needle in expectations.items():
        done = run_cli(*cases[name])
        assert needle in done.stderr, (name, done.stderr)


def test_stats_computes_lopsided_counts_up_to_the_maximum() -> None:
    for counts in (("--wdl", "10000000,0,0"), ("--penta", "0,0,1000000000000,0,0")):
        done = run_cli("stats", *counts, "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["state"] in ("accepted", "rejected")


def test_status_lists_every_run_when_one_cannot_be_computed(files: dict[str, Path]) -> None:
    """Runs stored with hypotheses this version refuses (an older one accepted them), or with a
    configuration it cannot read, show '?' and say why; the listing and other runs are unaffected."""
    store = Store(store_arg(files["db"]))
    good = SprtConfig(
        game=GAME,
        candidate=engine.validate_weights(GAME, str(files["candidate"])),
        baseline=engine.validate_weights(GAME, None),
        openings=files["book"].read_text().splitlines()[2:],
        engine_version=engine.ENGINE_VERSION,
    ).to_json()
    bad = [(0.0, 1e-300, "normalized"), (-5000.0, 5000.0, "logistic"), (-1e308, 1e308, "normalized")]
    for i, (elo0, elo1, model) in enumerate(bad):
        store.create_run("sprt", GAME, good | {"elo0": elo0, "elo1": elo1, "elo_model": model}, f"{i:064}")
    unreadable = store.create_run("sprt", GAME, {"seed": 0}, "e" * 64)
    good_id = store.create_run("sprt", GAME, good, "f" * 64)

    listing = run_cli("status", "--all", "--store", store_arg(files["db"]))
    assert listing.returncode == 0 and listing.stderr == "", listing.stderr
    rows = {int(line.split()[0]): line for line in listing.stdout.splitlines()[1:]}
    assert sorted(rows) == [1, 2, 3, unreadable, good_id]
    assert all(rows[i].split()[5:7] == ["?", "?"] for i in (1, 2, 3, unreadable)), listing.stdout
    assert rows[good_id].split()[5] == "-" and math.isfinite(float(rows[good_id].split()[6]))

    shown = run_cli("status", "1", "--store", store_arg(files["db"]))
    assert shown.returncode == 0 and shown.stderr == "", shown.stderr
    assert "statistics: cannot be computed: elo1: expected at least elo0 + 0.01" in shown.stdout
    data = status(files["db"], 2)
    assert "between -1000 and 1000" in data["statistics_error"] and "llr" not in data
    assert "statistics_error" not in status(files["db"], good_id)
    resumed = run_cli("resume", "1", "--store", store_arg(files["db"]))
    assert resumed.returncode == 2, resumed.stderr
    assert resumed.stderr.splitlines() == [
        "arbiter resume: elo1: expected at least elo0 + 0.01 = 0.01 (narrower hypotheses cannot be told "
        "apart), got 1e-300"
    ]


def test_same_command_again_after_the_end_shows_the_finished_run(
    files: dict[str, Path], tmp_path: Path
) -> None:
    """As for ``tune``: the command of a finished run shows that run instead of playing it again."""
    args = sprt_args(files, tmp_path / "done.db", "--max-games", "8", "--concurrency", "1")
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    store = Store(store_arg(tmp_path / "done.db"))
    before, finished = store.row_counts(), store.get_run(1)
    again = run_cli(*args)
    assert again.returncode == 0, again.stderr
    assert "run 1 already finished with the same configuration" in again.stderr
    assert store.row_counts() == before
    shown = store.get_run(1)  # showing it changes nothing of it: its end is when it ended
    assert finished is not None and shown is not None and shown.finished_at == finished.finished_at
    assert shown.state == finished.state and shown.decision == finished.decision
    assert again.stdout.splitlines()[0] == first.stdout.splitlines()[0]  # the same summary
    # Its time line says what the run cost, not this command's empty play.
    time_line = again.stdout.splitlines()[-1]
    assert time_line.startswith("time: ") and "no games played by this command" in time_line, again.stdout
    assert "games/s" not in time_line and "finished 20" in time_line
