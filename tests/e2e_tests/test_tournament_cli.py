"""``arbiter tournament`` end to end with the real engine: a round robin of four engines (weights
files, the defaults and an engine file), a gauntlet played the same twice, a tuning run's
champions against each other, kill -9 and resume to the same counts, bad flags, and what
``report``, ``games``, ``status`` and the dashboard show of a tournament."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path
from typing import Any

from engine_testkit import arbiter_engine_file
from process_testkit import WorkerPause, pause_when
from sprt_testkit import CLI_TIMEOUT, cli_command, run_cli, write_book, write_weights
from sqlalchemy import create_engine
from sqlalchemy.exc import DBAPIError
from starlette.testclient import TestClient

from coordinator.store import Store
from coordinator.web.app import create_app

GAME = "congo"
#: Low nodes, one pair a batch: a tournament of a few engines plays in seconds.
FAST = ("--nodes", "200", "--batch-pairs", "1", "--seed", "3")
RATING_ROW = re.compile(r"^\s+(\d+)\s{2}(\S.*?)\s+([+-]\d+\.\d)\s")


def weights(folder: Path) -> dict[str, Path]:
    """Weights files that play differently: a strong pawn, no mobility, cheap lions."""
    return {
        "pawny": write_weights(folder / "pawny.json", {"pawn": 150}),
        "static": write_weights(folder / "static.json", {"mobility": 0}),
        "cheap": write_weights(folder / "cheap.json", {"pawn": 60}),
    }


def tournament_args(db: Path, book: Path, *options: str) -> list[str]:
    return ["tournament", GAME, "--book", str(book), *options, "--store", f"sqlite:///{db}"]


def report_json(db: Path, run_id: int = 1) -> dict[str, Any]:
    done = run_cli("report", str(run_id), "--json", "--store", f"sqlite:///{db}")
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def rating_names(stdout: str) -> list[str]:
    """The names of the rating list printed, best first."""
    return [m.group(2) for line in stdout.splitlines() if (m := RATING_ROW.match(line))]


def test_round_robin_of_four_engines_and_what_reports_show(tmp_path: Path) -> None:
    files = weights(tmp_path)
    book = write_book(tmp_path / "book.txt", GAME, count=4)
    program = arbiter_engine_file(tmp_path / "prog", name="prog")
    db = tmp_path / "t.db"
    engines = ["--engine", str(files["pawny"]), "--engine", str(files["static"]), "--engine", "default"]
    done = run_cli(*tournament_args(db, book, *engines, "--engine", str(program), "--pairs", "1", *FAST))
    assert done.returncode == 0, done.stderr
    names = {"pawny", "static", "default", "prog"}
    assert set(rating_names(done.stdout)) == names, done.stdout
    assert done.stdout.splitlines()[0].startswith(
        "tournament 1 (round-robin, congo): finished, 12/12 games counted, 4 engines"
    )

    data = report_json(db)
    assert data["type"] == "tournament" and data["games"] == 12
    assert sum(r["games"] for r in data["ratings"]) == 24
    assert [r["rank"] for r in data["ratings"]] == [1, 2, 3, 4]
    elos = [r["elo"] for r in data["ratings"]]
    assert elos == sorted(elos, reverse=True)
    assert len(data["head_to_head"]) == 6
    assert all(h["wins"] + h["draws"] + h["losses"] == 2 for h in data["head_to_head"])
    assert len(data["los"]["matrix"]) == 4 and data["los"]["matrix"][0][0] is None

    html = tmp_path / "t.html"
    shown = run_cli("report", "1", "-o", str(html), "--store", f"sqlite:///{db}")
    assert shown.returncode == 0, shown.stderr
    page = html.read_text()
    assert 'data-plot="los"' in page and 'data-plot="over-games"' in page and "Rating list" in page

    pgn = run_cli("games", "1", "--store", f"sqlite:///{db}")
    assert pgn.returncode == 0, pgn.stderr
    whites = re.findall(r'^\[White "(.*)"\]$', pgn.stdout, re.MULTILINE)
    blacks = re.findall(r'^\[Black "(.*)"\]$', pgn.stdout, re.MULTILINE)
    assert len(whites) == 12 and set(whites) == set(blacks) == names
    assert all(w != b for w, b in zip(whites, blacks, strict=True))

    status = run_cli("status", "1", "--json", "--store", f"sqlite:///{db}")
    assert status.returncode == 0 and json.loads(status.stdout)["ratings"] == data["ratings"]
    listing = run_cli("status", "--store", f"sqlite:///{db}")
    assert listing.returncode == 0 and re.search(r"1\s+tournament\s+congo\s+finished\s+12\b", listing.stdout)

    store = Store(f"sqlite:///{db}", read_only=True)
    with TestClient(create_app(store)) as client:
        runs = client.get("/")
        assert runs.status_code == 200 and "round-robin: pawny, static, default, prog" in runs.text
        page_of_run = client.get("/runs/1")
        assert page_of_run.status_code == 200 and 'data-plot="los"' in page_of_run.text
        assert client.get("/api/runs/1").json()["report"]["games"] == 12
        games = client.get("/runs/1/games")
        assert games.status_code == 200 and "pawny" in games.text
    store.close()


def game_moves(db: Path) -> list[tuple[str, str, str]]:
    """(opening, moves, result) of every exported game, in order."""
    done = run_cli("games", "1", "--format", "jsonl", "--store", f"sqlite:///{db}")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line)["record"] for line in done.stdout.splitlines()]
    return [(r["opening"], r["moves"], r["result"]) for r in records]


def test_a_gauntlet_plays_its_engine_against_each_other_the_same_every_time(tmp_path: Path) -> None:
    files = weights(tmp_path)
    book = write_book(tmp_path / "book.txt", GAME, count=4)
    args = ["--format", "gauntlet", "--vs", "default", "--engine", str(files["pawny"])]
    args += ["--engine", str(files["cheap"]), "--pairs", "2", *FAST]
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    for db in (first, second):
        done = run_cli(*tournament_args(db, book, *args))
        assert done.returncode == 0, done.stderr
        assert set(rating_names(done.stdout)) == {"default", "pawny", "cheap"}
    data = report_json(first)
    assert data["gauntlet_engine"] == "default" and data["games"] == 8
    assert {frozenset((h["engine"], h["opponent"])) for h in data["head_to_head"]} == {
        frozenset(("default", "pawny")),
        frozenset(("default", "cheap")),
    }
    assert game_moves(first) == game_moves(second)
    assert report_json(second)["ratings"] == data["ratings"]
    # Anchored to an engine: it is rated 0 with no bar of its own; another name is one line.
    anchored = run_cli("report", "1", "--json", "--anchor", "pawny", "--store", f"sqlite:///{first}")
    assert anchored.returncode == 0, anchored.stderr
    pawny = next(r for r in json.loads(anchored.stdout)["ratings"] if r["name"] == "pawny")
    assert (pawny["elo"], pawny["error"]) == (0.0, 0.0)
    wrong = run_cli("report", "1", "--anchor", "nobody", "--store", f"sqlite:///{first}")
    assert wrong.returncode == 2 and len(wrong.stderr.splitlines()) == 1
    assert "--anchor: expected an engine of tournament 1" in wrong.stderr


def test_the_champions_of_a_tuning_run_against_each_other(tmp_path: Path) -> None:
    flat = Path(__file__).resolve().parents[2] / "examples" / "congress-flat.json"
    db = tmp_path / "t.db"
    tune = run_cli(
        *("tune", "congress", "--method", "optuna", "--start", str(flat), "--trial-pairs", "8"),
        *("--batch-pairs", "2", "--max-trials", "2", "--nodes", "300", "--accept-max-games", "200"),
        *("--accept-elo1", "30", "--prune-los", "0.25", "--seed", "1", "--store", f"sqlite:///{db}"),
        *("--output", str(tmp_path / "champion.json"), "--no-report"),
        cwd=tmp_path,
    )
    assert tune.returncode == 0, tune.stderr
    book = write_book(tmp_path / "book.txt", "congress", count=4)
    done = run_cli(
        "tournament",
        "congress",
        "--champions",
        "1",
        "--book",
        str(book),
        "--pairs",
        "2",
        *FAST,
        "--store",
        f"sqlite:///{db}",
    )
    assert done.returncode == 0, done.stderr
    names = rating_names(done.stdout)
    assert set(names) >= {"champion #0", "champion #1"} and all(n.startswith("champion #") for n in names)
    assert "champions of tuning run 1:" in done.stdout
    found = re.match(r"tournament (\d+) \(round-robin, congress\)", done.stdout)
    assert found is not None, done.stdout
    data = report_json(db, int(found.group(1)))
    assert data["champions_of"] == 1 and data["chain"]["lines"]
    assert ("chain order confirmed" in data["chain"]["lines"]) == data["chain"]["confirmed"]
    for line in data["chain"]["lines"]:
        assert line in done.stdout
        assert re.fullmatch(r"chain order confirmed|#\d+ is not above #\d+ \(LOS \d+%\)", line)
    other = run_cli("tournament", "congo", "--champions", "1", "--store", f"sqlite:///{db}")
    assert other.returncode == 2
    assert other.stderr == "arbiter tournament: --champions: tuning run 1 tuned congress, not congo\n"


#: A tournament long enough to be killed in the middle: 3 pairings of 4 batches at 600 nodes.
LONG = ("--pairs", "4", "--batch-pairs", "1", "--nodes", "600", "--concurrency", "1", "--seed", "3")
LONG_BATCHES = 12


def stored_results(db: Path) -> int:
    """Results stored for run 1 (0 before there is a store or a table), read with a plain engine:
    opening a Store would make the tables, or refuse a store the coordinator is still making."""
    if not db.exists():
        return 0
    reader = create_engine(f"sqlite:///{db}")
    try:
        with reader.connect() as connection:
            count = connection.exec_driver_sql("SELECT COUNT(*) FROM results WHERE run_id = 1").scalar()
    except DBAPIError:  # tables not made yet
        return 0
    finally:
        reader.dispose()
    return int(count or 0)


def test_kill_9_then_resume_counts_what_an_uninterrupted_tournament_counts(tmp_path: Path) -> None:
    files = weights(tmp_path)
    book = write_book(tmp_path / "book.txt", GAME, count=6)
    args = ["--engine", str(files["pawny"]), "--engine", str(files["static"]), "--engine", "default", *LONG]
    reference_db, db = tmp_path / "reference.db", tmp_path / "t.db"
    reference = run_cli(*tournament_args(reference_db, book, *args))
    assert reference.returncode == 0, reference.stderr

    process = subprocess.Popen(
        cli_command(*tournament_args(db, book, *args)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    workers = WorkerPause(process.pid)

    def ready() -> bool:
        assert process.poll() is None, "the tournament ended before its workers were paused"
        count = stored_results(db)
        assert count < LONG_BATCHES - 2, f"{count} results stored before the pause"
        return count > 0

    try:
        pause_when(workers, ready, CLI_TIMEOUT, "a stored result")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        workers.resume()
    killed = report_json(db)
    assert killed["run"]["state"] == "running" and killed["games"] < 2 * LONG_BATCHES

    resumed = run_cli("resume", "1", "--store", f"sqlite:///{db}")
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming tournament 1" in resumed.stderr
    final, expected = report_json(db), report_json(reference_db)
    for key in ("games", "counted_batches", "ratings", "head_to_head", "los"):
        assert final[key] == expected[key], key
    assert final["run"]["state"] == "finished"
    assert batch_counts(db) == batch_counts(reference_db)


def batch_counts(db: Path) -> list[tuple[int, list[int], list[int], tuple[str, str]]]:
    """Each stored batch of run 1: its index, pentanomial and W/D/L counts, and its two engines."""
    store = Store(f"sqlite:///{db}", read_only=True)
    try:
        pairings = store.pairings(1)
        return [(r.batch_index, r.pentanomial, r.wdl, pairings[r.batch_index]) for r in store.results(1)]
    finally:
        store.close()


def test_bad_flags_are_one_line_and_status_2(tmp_path: Path) -> None:
    files = weights(tmp_path)
    db = tmp_path / "t.db"
    pawny = str(files["pawny"])
    cases = {
        "needs at least two engines": ["--engine", pawny],
        "needs --format gauntlet": ["--engine", pawny, "--engine", "default", "--vs", "default"],
        "must be unique": ["--engine", pawny, "--engine", pawny],
        "--engine": ["--engine", str(tmp_path / "missing.json"), "--engine", "default"],
        "--pairs": ["--engine", pawny, "--engine", "default", "--pairs", "0"],
        "--format": ["--engine", pawny, "--engine", "default", "--format", "swiss"],
        "ref:REF": ["--engine", "ref:", "--engine", "default"],
        "--repo names the repository": ["--engine", pawny, "--engine", "default", "--repo", str(tmp_path)],
    }
    for expected, args in cases.items():
        done = run_cli("tournament", GAME, *args, "--store", f"sqlite:///{db}")
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("arbiter tournament: "), (args, done.stderr)
        assert expected in lines[0], (args, lines[0])
        assert not db.exists()
    # --champions names a tuning run of an existing store.
    Store(f"sqlite:///{db}").close()
    done = run_cli("tournament", GAME, "--champions", "7", "--store", f"sqlite:///{db}")
    assert (
        done.returncode == 2
        and done.stderr.strip() == f"arbiter tournament: --champions: no run 7 in store sqlite:///{db}"
    )
