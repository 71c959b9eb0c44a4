"""``arbiter tune / status / resume`` end to end with the real engine: a tiny tuning run, the same
trials with one process or three, kill -9 and resume to the same end, the same command again, bad
input and the time limit.

Every run starts from ``examples/congress-flat.json`` (every piece worth 100): anything the sampler
proposes beats it, so the first trials are accepted as new champions, and the later, random ones
lose against the new champion and are pruned. The tiny run and kill -9 / resume take
``store_urls``: they run on SQLite and on PostgreSQL (Optuna's study in the same database).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cli_fork
import optuna
import pytest
from celery_testkit import wait_until
from optuna.trial import TrialState
from pg_testkit import StoreUrls
from process_testkit import WorkerPause, pause_when
from sprt_testkit import status_json, write_weights
from sqlalchemy import Engine, create_engine, select
from sqlalchemy.exc import DBAPIError

import engine
from coordinator.store import Store, engine_url
from coordinator.store.schema import results
from coordinator.tuning.space import candidate_weights
from coordinator.tuning.tuner import study_name

GAME = "congress"
FLAT = Path(__file__).resolve().parents[2] / "examples" / "congress-flat.json"
#: Bound on one CLI call (seconds).
TIMEOUT = 240


def tiny(max_trials: int = 10, concurrency: int = 2) -> tuple[str, ...]:
    """A tiny run: trials of at most 12 pairs at 300 nodes. The acceptance SPRT's H1 (50 normalized
    Elo) is far enough from H0 that it decides in a few hundred games (at most 400), and LOS below
    0.25 prunes (with the default 0.05 the few batches of a trial seldom get that far). Ten trials
    (of seed 1) are enough for both ends: a champion crowned, and trials pruned after it."""
    return (
        *("--start", str(FLAT), "--trial-pairs", "12", "--batch-pairs", "2"),
        *("--max-trials", str(max_trials), "--nodes", "300", "--accept-max-games", "400"),
        *("--accept-elo1", "50", "--prune-los", "0.25", "--concurrency", str(concurrency)),
    )


#: Slower games (a batch takes a while), two trials open at once, so that a kill lands while
#: trials are running, some told and others not.
SLOW = (
    *("--start", str(FLAT), "--trial-pairs", "8", "--batch-pairs", "2", "--max-trials", "6"),
    *("--nodes", "1000", "--accept-max-games", "200", "--accept-elo1", "30", "--prune-los", "0.25"),
    *("--parallel-trials", "2", "--concurrency", "2"),
)
#: Games of one batch of a :data:`SLOW` run (2 pairs).
SLOW_BATCH_GAMES = 4
#: How long a tuning run may go on past its time limit (seconds): the step under way when the
#: limit is reached, then the trials failed and the pool stopped (about 0.1 s on an idle machine).
TIME_LIMIT_OVERRUN = 15


def command(*args: str) -> list[str]:
    """argv of ``arbiter ARGS`` with this interpreter."""
    return [sys.executable, "-m", "coordinator.cli", *args]


def environment() -> dict[str, str]:
    """This environment without the variables that would pick another store or a broker."""
    return {k: v for k, v in os.environ.items() if k not in ("ARBITER_STORE", "ARBITER_BROKER")}


def start_to_kill(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    """Start ``arbiter ARGS`` in a session of its own (its pool processes too), to be killed with
    ``os.killpg``."""
    return subprocess.Popen(
        command(*args),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=cwd,
        env=environment(),
        start_new_session=True,
    )


def arbiter(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``arbiter ARGS`` to its end (bounded by :data:`TIMEOUT`), forked from a process that
    has imported arbiter (``cli_fork``)."""
    return cli_fork.run(list(args), cwd, environment(), TIMEOUT)


def url(db: Path | str) -> str:
    """The store URL of a SQLite file, or a URL as it is."""
    return db if isinstance(db, str) else f"sqlite:///{db}"


def tune_args(db: Path | str, out: Path, *options: str, seed: int = 1) -> list[str]:
    """An ``arbiter tune`` command line; no HTML report (test_report_cli.py checks the tuner's)."""
    method = [] if "--method" in options else ["--method", "optuna"]
    store = ("--store", url(db), "--output", str(out), "--no-report")
    return ["tune", GAME, *method, *options, "--seed", str(seed), *store]


def status(db: Path | str, run_id: int) -> dict[str, Any]:
    """``arbiter status RUN --json`` (read in this process; test_tiny_tuning_run checks the command
    prints the same)."""
    return status_json(url(db), run_id)


def states(data: dict[str, Any]) -> Counter[str]:
    return Counter(t["state"] for t in data["trials"])


def stored_results(db: Path | str) -> dict[tuple[int, int], tuple[int, ...]]:
    """Every stored result: (run, batch) -> its counts."""
    store = Store(url(db))
    try:
        with store.engine.connect() as c:
            rows = c.execute(select(results)).all()
    finally:
        store.close()
    counts: dict[tuple[int, int], tuple[int, ...]] = {}
    for r in rows:
        key = (r.run_id, r.batch_index)
        assert key not in counts, f"batch {key} stored twice"
        counts[key] = (r.ll, r.ld, r.dd_wl, r.wd, r.ww, r.wins, r.draws, r.losses)
    return counts


def counted_games(db: Path | str) -> int:
    """Games of every run's counted prefix (results stored beyond it do not count)."""
    store = Store(url(db))
    try:
        return sum(store.totals(run.id).games for run in store.list_runs() if run.kind != "tune")
    finally:
        store.close()


def decided(data: dict[str, Any], db: Path | str) -> dict[str, Any]:
    """What a tuning run decided (``arbiter status RUN --json`` and Optuna's study), without the
    store's run ids: they follow the timing."""
    study = optuna.load_study(study_name=study_name(data["id"]), storage=engine_url(url(db)))
    keys = ("number", "state", "pruned", "champion", "games", "elo", "elo95", "params")
    return {
        "trials": [{k: t[k] for k in keys} for t in data["trials"]],
        "optuna": [(t.number, t.state, t.params, t.value, t.intermediate_values) for t in study.trials],
        "champions": [{k: v for k, v in c.items() if k != "accept_run"} for c in data["champions"]],
        "acceptances": [{k: v for k, v in a.items() if k != "run"} for a in data["acceptances"]],
        "games": data["games"],
    }


def assert_counted_once(db: Path | str) -> None:
    """One result row per (run, batch), and each run's totals are those of its counted prefix."""
    store = Store(url(db))
    try:
        for run in store.list_runs():
            indexes = [r.batch_index for r in store.results(run.id)]
            assert len(indexes) == len(set(indexes)), run.id
            totals = store.totals(run.id)
            assert totals.batches == run.counted_batches, run.id
            assert indexes[: run.counted_batches] == list(range(run.counted_batches)), run.id
    finally:
        store.close()


def assert_nothing_left_running(db: Path | str) -> None:
    """After a run that ended, no store run (tuning run, trial or SPRT) still says ``running``."""
    store = Store(url(db))
    try:
        left = [(r.id, r.kind) for r in store.list_runs() if r.state == "running"]
    finally:
        store.close()
    assert not left, f"runs still marked running: {left}"


def assert_champions_chain(data: dict[str, Any], db: Path | str) -> None:
    """Champion 0 is the start; each later one is its trial's candidate and passed its own SPRT."""
    champions = data["champions"]
    flat = dict(engine.validate_weights(GAME, json.loads(FLAT.read_text())))
    assert champions[0]["number"] == 0 and champions[0]["parent"] is None
    assert champions[0]["weights"] == flat
    trials = {t["number"]: t for t in data["trials"]}
    for previous, champion in itertools.pairwise(champions):
        assert champion["parent"] == previous["number"] == champion["number"] - 1
        trial = trials[champion["trial"]]
        assert trial["state"] == "complete" and trial["champion"] == previous["number"]
        assert trial["accept_run"] == champion["accept_run"] is not None
        assert champion["weights"] == candidate_weights(previous["weights"], trial["params"])
        accept = status(db, champion["accept_run"])
        assert accept["kind"] == "acceptance" and accept["state"] == "finished"
        assert accept["decision"] == "accepted", accept
        low, high = champion["elo_vs_parent_ci"]
        assert low <= champion["elo_vs_parent"] <= high


def test_tiny_tuning_run(tmp_path: Path, store_urls: StoreUrls) -> None:
    db, out = store_urls("tune"), tmp_path / "champion.json"
    done = arbiter(*tune_args(db, out, *tiny()), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "tuning run 1 started" in done.stderr and "trials" in done.stderr  # progress on stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("tuning run 1 (congress): 10 trials")
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["champion", "trial"])
    assert "Elo vs start" in lines[header] and "games" in lines[header]
    assert lines[header + 1].split()[:2] == ["#0", "start"]
    assert lines[header + 2].split()[0] == "#1"
    assert lines[-1].endswith(f"weights written to {out}") and "above the start weights" in lines[-1]
    assert not list(tmp_path.glob("*report*"))  # --no-report

    written = json.loads(out.read_text())
    assert engine.validate_weights(GAME, written) == written  # complete and in range

    data = status(db, 1)
    printed = arbiter("status", "1", "--json", "--store", url(db), cwd=tmp_path)
    assert printed.returncode == 0 and json.loads(printed.stdout) == data, printed.stderr
    assert (data["kind"], data["game"], data["state"]) == ("tune", GAME, "finished")
    counted = states(data)
    assert counted["complete"] >= 1 and counted["pruned"] >= 1, counted
    assert counted["complete"] + counted["pruned"] == 10, counted
    assert all(t["pruned"] == (t["state"] == "pruned") for t in data["trials"])
    assert all(0 < t["games"] <= 24 for t in data["trials"])
    assert len(data["champions"]) >= 2
    assert written == data["champions"][-1]["weights"]
    assert_champions_chain(data, db)
    # The champion's Elo against the start: the SPRT gains along the chain, errors in quadrature.
    gains = [c["elo_vs_parent"] for c in data["champions"][1:]]
    halves = [(c["elo_vs_parent_ci"][1] - c["elo_vs_parent_ci"][0]) / 2 for c in data["champions"][1:]]
    assert data["champion_elo"] == pytest.approx(sum(gains))
    assert data["champion_elo95"] == pytest.approx(math.sqrt(sum(h * h for h in halves)))
    assert data["champion_elo"] > 0
    assert data["games"] == counted_games(db)
    assert_counted_once(db)
    assert_nothing_left_running(db)
    # Optuna's study lives in the store's own database, with every trial told.
    study = optuna.load_study(study_name=study_name(1), storage=engine_url(url(db)))
    told = [t for t in study.trials if t.state in (TrialState.COMPLETE, TrialState.PRUNED)]
    assert len(told) == counted["complete"] + counted["pruned"]


def reader_of(db: Path | str) -> Engine | None:
    """An engine that reads the store without creating anything: a SQLite file read-only (opening
    a Store would create missing tables, racing with the coordinator doing the same); None while
    there is no SQLite file yet."""
    if isinstance(db, Path):
        return create_engine(f"sqlite:///file:{db}?mode=ro&uri=true") if db.exists() else None
    return create_engine(engine_url(db))


@dataclass(frozen=True)
class Trials:
    """Where tuning run 1 and its trials stand, as the store says."""

    #: The tuning run's state (None before it exists).
    state: str | None
    #: The state of each trial asked, by number.
    states: dict[int, str]
    #: For each trial still running: how far its counted batches can reach with what was sent, the
    #: batches from the first on that are stored or sent (nothing else can be counted before more
    #: is sent).
    reach: dict[int, int]


def trials_of(db: Path | str) -> Trials:
    """Tuning run 1 and its trials (nothing while there is no store or no table yet)."""
    reader = reader_of(db)
    if reader is None:
        return Trials(None, {}, {})
    try:
        with reader.connect() as c:
            state = c.exec_driver_sql("SELECT state FROM runs WHERE id = 1").scalar()
            rows = c.exec_driver_sql(
                "SELECT trial_number, trial_run_id, state FROM tune_trials WHERE tune_run_id = 1"
            ).all()
            sent = c.exec_driver_sql(
                "SELECT run_id, batch_index FROM batches WHERE state IN ('running', 'done')"
            ).all()
    except DBAPIError:  # tables not created yet
        return Trials(None, {}, {})
    finally:
        reader.dispose()
    batches = {(int(run), int(index)) for run, index in sent}
    reach = {}
    for number, run, trial_state in rows:
        if trial_state == "running":
            reach[int(number)] = next(i for i in itertools.count() if (int(run), i) not in batches)
    return Trials(state, {int(n): str(st) for n, _, st in rows}, reach)


def pause_with_a_trial_running(
    db: Path | str, process: subprocess.Popen[str], workers: WorkerPause, lengths: dict[int, int]
) -> Trials:
    """Pause the workers of a :data:`SLOW` run once it asked three trials (with two open at once,
    trial 0 has then ended and been told), at a moment when one of them is running and cannot end
    with what the paused pool may still deliver: the batches it was sent, fewer than the trial
    counts in the same run played alone (``lengths``: batches counted by each trial; the trials'
    course does not depend on the timing). The store's trials then."""

    def ready() -> bool:
        assert process.poll() is None, "the coordinator ended before its workers were paused"
        found = trials_of(db)
        assert found.state in (None, "running"), f"tuning run 1 is {found.state}"
        return len(found.states) >= 3 and any(
            reach < lengths[number] for number, reach in found.reach.items()
        )

    pause_when(workers, ready, TIMEOUT, "three trials, one running and far from its end")
    return trials_of(db)


@dataclass(frozen=True)
class Reference:
    """A :data:`SLOW` run played alone to its end."""

    decided: dict[str, Any]
    #: Batches counted by each trial, by number.
    lengths: dict[int, int]


@pytest.fixture(scope="module")
def slow_reference(tmp_path_factory: pytest.TempPathFactory) -> Callable[[int], Reference]:
    """The :data:`SLOW` run of a seed played alone (once per seed and module)."""
    cache: dict[int, Reference] = {}

    def reference(seed: int) -> Reference:
        if seed not in cache:
            folder = tmp_path_factory.mktemp(f"slow-reference-{seed}")
            db = folder / "reference.db"
            done = arbiter(*tune_args(db, folder / "reference.json", *SLOW, seed=seed), cwd=folder)
            assert done.returncode == 0, done.stderr
            data = status(db, 1)
            lengths = {t["number"]: t["games"] // SLOW_BATCH_GAMES for t in data["trials"]}
            cache[seed] = Reference(decided(data, db), lengths)
        return cache[seed]

    return reference


def test_one_process_or_three_play_the_same_trials(tmp_path: Path) -> None:
    """The same command on a local pool of one process and of three: the same trials (weights,
    values, states, games, the champion each was compared with), told to Optuna with the same
    values after each batch, the same acceptance SPRTs, champions and total games."""
    runs = {}
    for concurrency in (1, 3):
        db = tmp_path / f"{concurrency}.db"
        options = (*tiny(8, concurrency), "--parallel-trials", "3")
        args = tune_args(db, tmp_path / f"{concurrency}.json", *options)
        done = arbiter(*args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        runs[concurrency] = decided(status(db, 1), db)
        assert_counted_once(db)
    assert runs[1] == runs[3]
    assert len(runs[1]["champions"]) >= 2
    assert {t["state"] for t in runs[1]["trials"]} == {"complete", "pruned"}
    assert (tmp_path / "1.json").read_text() == (tmp_path / "3.json").read_text()


def test_kill_9_then_resume_ends_as_if_never_killed(
    tmp_path: Path, store_urls: StoreUrls, slow_reference: Callable[[int], Reference]
) -> None:
    alone = slow_reference(3)
    reference = alone.decided

    db, out = store_urls("tune"), tmp_path / "champion.json"
    process = start_to_kill(tune_args(db, out, *SLOW, seed=3), tmp_path)
    workers = WorkerPause(process.pid)
    try:
        pause_with_a_trial_running(db, process, workers, alone.lengths)
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the coordinator and its pool processes, paused or not
        process.wait(timeout=30)
        workers.resume()
    assert not out.exists()

    killed = status(db, 1)
    assert killed["state"] == "running"
    running = {t["number"]: t["params"] for t in killed["trials"] if t["state"] == "running"}
    assert running, "no trial was running at the kill"
    before = stored_results(db)

    resumed = arbiter("resume", "1", "--store", url(db), cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming tuning run 1" in resumed.stderr and "Traceback" not in resumed.stderr
    assert "champion" in resumed.stdout and (tmp_path / "1-champion.json").is_file()

    final = status(db, 1)
    assert final["state"] == "finished"
    # The trials running at the kill went on under their own numbers: none failed, none asked again.
    trials = {t["number"]: t for t in final["trials"]}
    assert all(trials[n]["params"] == params for n, params in running.items())
    assert sum(t["state"] in ("complete", "pruned") for t in final["trials"]) == len(final["trials"]) == 6
    assert decided(final, db) == reference
    # Champions and stored games survive; nothing is counted twice.
    kept = [c["number"] for c in killed["champions"]]
    assert [c for c in final["champions"] if c["number"] in kept] == killed["champions"]
    after = stored_results(db)
    assert {k: after.get(k) for k in before} == before
    assert_counted_once(db)
    assert_champions_chain(final, db)
    assert_nothing_left_running(db)
    assert json.loads((tmp_path / "1-champion.json").read_text()) == final["champions"][-1]["weights"]


def tune_runs(db: Path | str) -> list[int]:
    store = Store(url(db))
    try:
        return [r.id for r in store.list_runs("tune")]
    finally:
        store.close()


def test_same_command_again_after_completion_resumes(tmp_path: Path) -> None:
    db, out = tmp_path / "tune.db", tmp_path / "champion.json"
    args = tune_args(db, out, *tiny(max_trials=3), seed=4)
    first = arbiter(*args, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    done = status(db, 1)
    rows = Store(url(db)).row_counts()
    ended = Store(url(db)).get_run(1)
    out.unlink()

    again = arbiter(*args, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "tuning run 1 already finished" in again.stderr
    # Its summary says when it finished, not how long this command (which played nothing) took.
    assert "games (finished 20" in again.stdout and " games in " not in again.stdout, again.stdout
    assert tune_runs(db) == [1]
    assert Store(url(db)).row_counts() == rows  # its budget was used: nothing more is played
    shown = Store(url(db)).get_run(1)
    assert ended is not None and shown is not None and shown.finished_at == ended.finished_at
    assert status(db, 1) == done
    assert json.loads(out.read_text()) == done["champions"][-1]["weights"]
    assert "champion" in again.stdout


def test_same_command_again_after_an_interruption_resumes(
    tmp_path: Path, slow_reference: Callable[[int], Reference]
) -> None:
    db, out = tmp_path / "tune.db", tmp_path / "champion.json"
    args = tune_args(db, out, *SLOW, seed=3)
    lengths = slow_reference(3).lengths  # before the run starts: the reference may have to be played
    process = subprocess.Popen(
        command(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=environment(),
    )
    workers = WorkerPause(process.pid)
    try:
        pause_with_a_trial_running(db, process, workers, lengths)
        process.send_signal(signal.SIGINT)
        # The coordinator stops between two steps (counting what its workers sent before they were
        # paused, which cannot end the trial found running) and kills its workers, then marks the
        # run; only then does the rest of what was paused go on.
        wait_until(
            lambda: process.poll() is not None or trials_of(db).state != "running",
            TIMEOUT,
            "the coordinator to stop the run",
        )
        workers.resume()
        _, stderr = process.communicate(timeout=TIMEOUT)
    finally:
        workers.resume()
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    assert process.returncode == 130, stderr
    assert "arbiter resume 1" in stderr and "Traceback" not in stderr
    interrupted = status(db, 1)
    assert interrupted["state"] == "interrupted"
    # Stopped trials are not failed: they wait, their store runs interrupted, to go on later.
    stopped = {t["number"]: t for t in interrupted["trials"] if t["state"] == "running"}
    assert stopped and "failed" not in states(interrupted)
    assert all(status(db, t["run"])["state"] == "interrupted" for t in stopped.values())

    again = arbiter(*args, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "resuming tuning run 1" in again.stderr
    assert tune_runs(db) == [1]
    final = status(db, 1)
    assert final["state"] == "finished"
    assert states(final)["complete"] + states(final)["pruned"] == len(final["trials"]) == 6
    trials = {t["number"]: t for t in final["trials"]}
    assert all(trials[n]["params"] == t["params"] for n, t in stopped.items())
    assert final["games"] >= interrupted["games"]
    assert_counted_once(db)
    assert_nothing_left_running(db)


def bad_inputs(tmp_path: Path) -> dict[str, tuple[list[str], tuple[str, ...]]]:
    """Name -> (the tune arguments, texts the error line must contain)."""
    out_of_range = write_weights(tmp_path / "range.json", {"pawn": 10**6})
    not_json = tmp_path / "not.json"
    not_json.write_text("{pawn: 1")
    return {
        "unknown --params name": ([GAME, "--params", "pawn,dragon"], ("--params", "dragon")),
        "--start out of range": ([GAME, "--start", str(out_of_range)], ("--start", "range.json", "pawn")),
        "--start not JSON": ([GAME, "--start", str(not_json)], ("--start", "not.json", "not JSON")),
        "--accept-elo1 below --accept-elo0": (
            [GAME, "--accept-elo0", "5", "--accept-elo1", "2"],
            ("--accept-elo1", "--accept-elo0"),
        ),
        "--accept-elo1 equal to --accept-elo0": (
            [GAME, "--accept-elo0", "3", "--accept-elo1", "3"],
            ("--accept-elo1", "--accept-elo0"),
        ),
        "--time-limit abc": ([GAME, "--time-limit", "abc"], ("--time-limit", "abc")),
        "--sampler foo": ([GAME, "--sampler", "foo"], ("--sampler", "foo")),
        "--parallel-trials 0": ([GAME, "--parallel-trials", "0"], ("--parallel-trials", "0")),
        "unknown game": (["chess"], ("GAME", "chess")),
    }


def check_bad_input(args: list[str], needles: tuple[str, ...], tmp_path: Path) -> list[str]:
    """Run one bad command; what is wrong with its exit status and stderr."""
    done = arbiter(*args, cwd=tmp_path)
    lines = done.stderr.strip().splitlines()
    problems = []
    if done.returncode != 2:
        problems.append(f"exit {done.returncode}")
    if len(lines) != 1 or not lines[0].startswith(f"arbiter {args[0]}: "):
        problems.append(f"stderr {done.stderr!r}")
    elif not all(needle in lines[0] for needle in needles):
        problems.append(f"{lines[0]!r} does not name {needles}")
    if "Traceback" in done.stderr + done.stdout:
        problems.append("a traceback")
    return problems


def test_bad_input_exits_2_with_one_line_and_leaves_the_store_unchanged(tmp_path: Path) -> None:
    existing, fresh = tmp_path / "existing.db", tmp_path / "fresh.db"
    store = Store(url(existing))
    store.create_run("sprt", GAME, {"seed": 0}, "0" * 64)
    before = store.row_counts()
    # Small settings elsewhere, so that a bad input that slipped through would still end soon.
    small = ["--max-trials", "1", "--trial-pairs", "1", "--nodes", "50", "--accept-max-games", "2"]
    failures = []
    for name, (args, needles) in bad_inputs(tmp_path).items():
        for db in (existing, fresh):
            full = ["tune", "--method", "optuna", *args, *small, "--store", url(db)]
            full += ["--output", str(tmp_path / "c.json")]
            failures += [f"{name} ({db.name}): {p}" for p in check_bad_input(full, needles, tmp_path)]
        if store.row_counts() != before:
            failures.append(f"{name}: the store changed")
        if fresh.exists() and tune_runs(fresh):
            failures.append(f"{name}: a tuning run was created")
    assert not failures, "\n".join(failures)
    assert not (tmp_path / "c.json").exists()


def test_time_limit_stops_a_long_run_and_writes_the_champion(tmp_path: Path) -> None:
    db, out = tmp_path / "tune.db", tmp_path / "champion.json"
    args = tune_args(db, out, *tiny(max_trials=1000), "--time-limit", "5s", seed=6)
    done = arbiter(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # From the run's creation to its end, as the store has them: the driver's clock starts in
    # between, and the interpreter's start and the imports before it, which a busy machine slows
    # at will, are no part of the limit.
    store = Store(url(db))
    try:
        run = store.get_run(1)
    finally:
        store.close()
    assert run is not None and run.finished_at is not None
    elapsed = (run.finished_at - run.created_at).total_seconds()
    assert elapsed < 5 + TIME_LIMIT_OVERRUN, f"a 5 s time limit took {elapsed:.0f} s"
    written = json.loads(out.read_text())
    assert engine.validate_weights(GAME, written) == written
    data = status(db, 1)
    assert data["state"] == "finished"
    assert written == data["champions"][-1]["weights"]
    assert 0 < len(data["trials"]) < 1000
    assert "running" not in states(data)
    assert_counted_once(db)
