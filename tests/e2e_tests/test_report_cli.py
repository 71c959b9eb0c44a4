"""``arbiter report`` and ``arbiter games`` end to end: real SPRT and tuning runs on both games made
with the CLI, a run reported while ``arbiter sprt`` is still playing it, the export read back by
python-chess and replayed through the rules core, and bad input.

Every number a report shows is checked against one computed here from the store or by another
command (``arbiter stats``), never against the report's own code.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from process_testkit import WorkerPause
from report_testkit import (
    CANDIDATE,
    GAMES,
    FinishedRuns,
    assert_tokens_cover,
    movetext_moves,
    read_pgn_games,
    url,
)
from sprt_testkit import CLI_TIMEOUT, cli_command, run_cli

import engine
from coordinator.reports import build, gather, html_page
from coordinator.reports.games import match_runs
from coordinator.reports.tuning.data import LlrCurve, TuneReport
from coordinator.stats import fixed_elo
from coordinator.store import Store
from coordinator.tuning.progress import elo_vs_start
from coordinator.tuning.records import TuningRecords

#: The report must stay below this for a 100-trial tuning run.
BUDGET_BYTES = 2 * 1024 * 1024


@pytest.fixture(scope="module")
def made(finished: FinishedRuns) -> dict[str, Any]:
    """One store with a finished SPRT and a finished tuning run of each game (only read here)."""
    out: dict[str, Any] = {"db": finished.db, "folder": finished.folder, **finished.ids}
    for game in GAMES:
        out[f"tune-stdout-{game}"] = finished.tune_stdout[game]
    return out


def report_json(db: Path, run_id: int) -> dict[str, Any]:
    done = run_cli("report", str(run_id), "--json", "--store", url(db))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def stats_llr(penta: list[int], elo0: float, elo1: float, model: str = "normalized") -> float:
    """The LLR ``arbiter stats`` gives for ``penta``."""
    done = run_cli(
        "stats", "--penta", ",".join(map(str, penta)), "--elo0", str(elo0), "--elo1", str(elo1),
        "--model", model, "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return float(json.loads(done.stdout)["llr"])


@pytest.mark.parametrize("game", GAMES)
def test_sprt_report(made: dict[str, Any], game: str, tmp_path: Path) -> None:
    run_id, db = made[f"sprt-{game}"], made["db"]
    target = tmp_path / "sprt.html"
    done = run_cli("report", str(run_id), "-o", "sprt.html", "--store", url(db), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert all(len(line) <= 80 for line in done.stdout.splitlines()), done.stdout
    assert "report: sprt.html" in done.stdout and "reproduce:" in done.stdout
    page = target.read_text()
    assert page.count('class="plot"') == 8 and target.stat().st_size < BUDGET_BYTES
    default = run_cli("report", str(run_id), "--store", url(db), cwd=tmp_path)
    assert default.returncode == 0 and (tmp_path / f"{run_id}-report.html").is_file()

    data = report_json(db, run_id)
    store = Store(url(db), create=False)
    totals = store.totals(run_id)
    assert data["totals"]["pentanomial"] == totals.pentanomial and data["totals"]["wdl"] == totals.wdl
    assert sum(data["totals"]["pentanomial"]) * 2 == data["totals"]["games"] == totals.games
    assert data["series"]["llr"][-1] == pytest.approx(stats_llr(totals.pentanomial, 0, 5), abs=5e-3)
    assert data["stats"]["elo"] == pytest.approx(fixed_elo(totals.pentanomial).elo)
    assert sum(e["games"] for e in data["endings"]) == totals.games
    assert sum(w["games"] for w in data["workers"]["workers"]) == totals.games
    assert data["command"].startswith(f"arbiter sprt {game} ")
    assert data["run"]["state"] == "finished" and data["run"]["decision"] in (
        "accepted",
        "rejected",
        "budget",
    )


@pytest.mark.parametrize("game", GAMES)
def test_tune_report(made: dict[str, Any], game: str) -> None:
    run_id, db = made[f"tune-{game}"], made["db"]
    # the tuning command itself ended by writing its report and saying where it is
    stdout = made[f"tune-stdout-{game}"]
    assert stdout.splitlines()[-1].endswith(f"; report: {run_id}-report.html")
    assert (made["folder"] / f"{run_id}-report.html").is_file()

    data = report_json(db, run_id)
    store = Store(url(db), create=False)
    records = TuningRecords(store)
    champions, trials = records.champions(run_id), records.trials(run_id)
    assert len(champions) >= 2, "the flat start should lose against a tuned candidate"
    assert [c["number"] for c in data["champions"]] == [c.number for c in champions]
    for shown, champion in zip(data["champions"], champions, strict=True):
        assert (shown["elo_vs_start"], shown["elo_vs_start95"]) == pytest.approx(
            elo_vs_start(champions, champion.number)
        )
    assert [t["number"] for t in data["trials"]] == [t.trial_number for t in trials]
    assert sum(data["totals"]["outcomes"].values()) == len(trials)
    crowned = {c.accept_run_id for c in champions if c.accept_run_id}
    assert {a["run_id"] for a in data["acceptances"] if a["crowned"]} == crowned
    assert sum(t["outcome"] == "accepted" for t in data["trials"]) == len(champions) - 1
    for a in data["acceptances"]:
        penta = store.totals(a["run_id"]).pentanomial
        assert sum(penta) * 2 == a["games"]
        if a["series"]["llr"]:
            assert a["series"]["llr"][-1] == pytest.approx(stats_llr(penta, a["elo0"], a["elo1"]), abs=5e-3)
    final = {w["name"]: w["final"] for w in data["weights"]}
    assert final == champions[-1].weights
    assert {w["name"] for w in data["weights"]} == {w.name for w in engine.weights(game)}
    assert sum(r["games"] for r in data["reigns"]) == records.games(run_id)
    assert data["totals"]["games"] == records.games(run_id)
    assert data["optuna"]["best"] is not None
    assert data["command"].startswith(f"arbiter tune {game} ")


@pytest.mark.parametrize("game", GAMES)
def test_games_export_reads_and_replays(made: dict[str, Any], game: str, tmp_path: Path) -> None:
    db = made["db"]
    store = Store(url(db), create=False)
    for kind in ("sprt", "tune"):
        run = store.get_run(made[f"{kind}-{game}"])
        assert run is not None
        expected = sum(store.totals(r.id).games for r in match_runs(store, run))
        done = run_cli("games", str(run.id), "--format", "pgn", "--store", url(db))
        assert done.returncode == 0, done.stderr
        chunks = [c if c.startswith("[Event") else "[Event" + c for c in done.stdout.split("\n\n[Event")]
        parsed = read_pgn_games(done.stdout)
        assert len(parsed) == len(chunks) == expected
        for read, chunk in zip(parsed, chunks, strict=True):
            tags = read["tags"]
            assert not read["errors"] and read["result"] == tags["Result"]
            moves = movetext_moves(chunk)
            assert_tokens_cover(read["tokens"], moves)
            config = store.get_run(int(tags["Run"])).config  # type: ignore[union-attr]
            replayed = engine.replay_game(
                game, tags["FEN"], moves, engine.Adjudication.from_json(config["adjudication"])
            )
            assert (replayed["result"], replayed["reason"]) == (tags["Result"], tags["Reason"])
        lines = run_cli("games", str(run.id), "--format", "jsonl", "--store", url(db)).stdout.splitlines()
        assert len(lines) == expected
    sprt = made[f"sprt-{game}"]
    out = tmp_path / "games.pgn"
    done = run_cli("games", str(sprt), "-o", str(out), "--result", "loss", "--limit", "3", "--store", url(db))
    assert done.returncode == 0 and done.stdout == ""
    assert len(read_pgn_games(out.read_text())) == min(3, store.totals(sprt).wdl[2])
    batch = run_cli("games", str(sprt), "--batch", "1", "--format", "jsonl", "--store", url(db)).stdout
    assert [json.loads(x)["batch"] for x in batch.splitlines()] == [1] * 8


def test_bad_input_is_one_line_and_exit_2(made: dict[str, Any], tmp_path: Path) -> None:
    db = made["db"]
    for args, needle in (
        (("report", "9999", "--store", url(db)), "no run 9999"),
        (("report", "1", "--store", url(tmp_path / "none.db")), "no store at"),
        (("report", "x", "--store", url(db)), "RUN"),
        (("games", "9999", "--store", url(db)), "no run 9999"),
        (("games", "1", "--format", "csv", "--store", url(db)), "--format"),
        (("games", "1", "--reason", "boredom", "--store", url(db)), "--reason"),
        (("games", "1", "--limit", "-1", "--store", url(db)), "--limit"),
    ):
        done = run_cli(*args)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"arbiter {args[0]}: ") and needle in lines[0], lines


def test_report_while_the_run_plays(tmp_path: Path) -> None:
    """``arbiter report`` of a run that ``arbiter sprt`` is playing right now (the default weights
    against themselves between tight hypotheses: it plays on for minutes)."""
    db = tmp_path / "live.db"
    env = {k: v for k, v in os.environ.items() if k not in ("ARBITER_STORE", "ARBITER_BROKER")}
    command = cli_command(
        "sprt", "congress", "--candidate", "default", "--baseline", "default", "--elo0", "-1", "--elo1", "1",
        "--nodes", "300", "--batch-pairs", "2", "--concurrency", "2", "--store", url(db),
    )  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    workers = WorkerPause(process.pid)
    try:
        deadline = time.monotonic() + CLI_TIMEOUT
        counted = 0
        while counted < 2:  # wait, bounded, until the store has counted two batches
            assert process.poll() is None and time.monotonic() < deadline, "the run ended or never counted"
            if db.exists():
                with _store(db) as store:
                    run = store.get_run(1)
                    counted = run.counted_batches if run is not None else 0
            time.sleep(0.2)
        # The run goes on running, and plays nothing more while the reports draw.
        assert workers.pause() > 0, "the run has no worker processes"
        data = report_json(db, 1)
        assert data["run"]["state"] == "running" and data["run"]["finished_at"] is None
        assert data["totals"]["games"] >= 8 and len(data["series"]["llr"]) >= 2
        page = tmp_path / "live.html"
        assert run_cli("report", "1", "-o", str(page), "--store", url(db)).returncode == 0
        assert page.read_text().count('class="plot"') == 8
    finally:
        workers.resume()
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


class _store:
    """A store opened for one look (closed after)."""

    def __init__(self, db: Path) -> None:
        self.store = Store(url(db), create=False)

    def __enter__(self) -> Store:
        return self.store

    def __exit__(self, *_: object) -> None:
        self.store.close()


def test_a_100_trial_report_stays_small(made: dict[str, Any]) -> None:
    """A tuning report blown up to 100 trials, 10 acceptance SPRTs of 2,000 batches each and a
    100-trial Optuna study stays well under 2 MB (the plots thin long series)."""
    import optuna

    from coordinator.reports import Report
    from coordinator.reports.tuning.plots import tune_plots
    from coordinator.tuning.space import distributions

    store = Store(url(made["db"]), create=False)
    run = store.get_run(made["tune-congo"])
    assert run is not None
    found = gather(store, run)
    assert isinstance(found, TuneReport)
    rng = random.Random(1)
    outcomes = ("pruned", "complete", "accepted", "rejected", "in acceptance")
    trials = [
        replace(found.trials[0], number=n, elo=rng.gauss(0, 40), elo95=rng.uniform(20, 90),
                outcome=outcomes[n % 5], params={})
        for n in range(100)
    ]  # fmt: skip
    template = found.acceptances[0]
    steps = list(range(4, 8004, 4))
    acceptances = [
        replace(template, trial=n, series=LlrCurve(games=steps, llr=[rng.gauss(0, 1) for _ in steps]))
        for n in range(10)
    ]
    data = replace(found, trials=trials, acceptances=acceptances)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.RandomSampler(seed=1))
    space = distributions("congo", run.config["params"])
    for _ in range(100):
        trial = study.ask(space)
        study.tell(trial, rng.gauss(0, 50))
    report = Report(data, tune_plots(data, study))
    size = len(html_page(report).encode())
    assert size < BUDGET_BYTES // 2, size
    assert len(build(store, run).plots) == 7


def test_report_and_export_on_each_store(store_urls: Any, tmp_path: Path) -> None:
    """The same report and export against SQLite and PostgreSQL (streamed reads on both)."""
    store_url = store_urls("report")
    done = run_cli(
        "sprt", "congress", "--candidate", str(CANDIDATE["congress"]), "--nodes", "300", "--max-games", "24",
        "--batch-pairs", "4", "--concurrency", "2", "--store", store_url,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = run_cli("report", "1", "--store", store_url, cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "1-report.html").stat().st_size > 0
    data = json.loads(run_cli("report", "1", "--json", "--store", store_url).stdout)
    assert data["totals"]["games"] == 24 and sum(data["totals"]["pentanomial"]) == 12
    exported = run_cli("games", "1", "--store", store_url)
    assert exported.returncode == 0 and len(read_pgn_games(exported.stdout)) == 24
