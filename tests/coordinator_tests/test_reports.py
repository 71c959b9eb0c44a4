"""The report data and the game export, each section checked against numbers computed here,
independently, from the store's rows; and fishtest's worker residuals against a plain
re-computation of fishtest's formulas with numpy.

Runs are made in-process with the real engine (300 nodes, 2-pair batches) over a synchronous
executor that names the workers in turn.
"""

from __future__ import annotations

import io
import json
import math
import re
import tracemalloc
from collections import Counter
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from report_testkit import (
    InProcessExecutor,
    assert_tokens_cover,
    commit_run,
    empty_run,
    movetext_moves,
    one_game_run,
    read_pgn_games,
    running_run,
    small_config,
)
from sqlalchemy import select

import engine
from coordinator.reports import build, gather, html_page, terminal_summary
from coordinator.reports.data import iso
from coordinator.reports.engines import FAULT_KINDS
from coordinator.reports.games import GameFilter, clocks, export, iter_games, movetext
from coordinator.reports.regressions import regressions
from coordinator.reports.sprt.data import MatchReport
from coordinator.reports.sprt.gather import _throughput
from coordinator.runs import RunKind
from coordinator.sprt.config import BatchPlan
from coordinator.sprt.runner import SprtRunner
from coordinator.stats import fixed_elo, sprt_summary
from coordinator.stats.residuals import chi2_sf, fold_pentanomial, worker_chi2, worker_residuals
from coordinator.store import Store
from coordinator.store.results import CheckedResult
from coordinator.store.schema import results
from wire.protocol import BatchResult, GameRecord, ply_count
from wire.tally import candidate_score

GAMES = ("congo", "congress")


# fishtest's worker residuals -----------------------------------------------------------------


def test_chi2_sf_matches_closed_forms() -> None:
    for x in (0.0, 0.3, 2.0, 7.5, 40.0, 300.0):
        assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12, abs=1e-300)
        assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-10, abs=1e-300)
        assert chi2_sf(x, 4) == pytest.approx(math.exp(-x / 2) * (1 + x / 2), rel=1e-10, abs=1e-300)


def fishtest_residuals(per_worker: dict[str, list[int]]) -> tuple[float, dict[str, float], float, float]:
    """fishtest's get_chi2 written out with numpy (the three-column table, dof 2 closed forms)."""
    from statistics import NormalDist

    normal = NormalDist()
    users = {w: [p[4] + p[3], p[0] + p[1], p[2]] for w, p in per_worker.items()}
    observed = np.array(list(users.values()), dtype=float)
    rows, _ = observed.shape
    col, row = observed.sum(axis=0), observed.sum(axis=1)
    grand = col.sum()
    expected = np.outer(row, col) / grand
    assert expected.min() > 5  # the example is chosen so that no worker is set aside
    row_chi2 = ((observed - expected) ** 2 / expected).sum(axis=1)
    adjusted = row_chi2 / (1 - row / grand)
    z = {w: max(0.0, -normal.inv_cdf(math.exp(-a / 2))) for w, a in zip(users, adjusted, strict=True)}
    z95, z99 = (normal.inv_cdf(1 - p / rows) for p in (0.05, 0.01))
    return float(row_chi2.sum()), z, z95, z99


def test_worker_residuals_follow_fishtest_and_flag_the_odd_worker() -> None:
    per_worker = {
        "w1": [10, 40, 100, 42, 9],
        "w2": [11, 38, 104, 39, 10],
        "w3": [9, 41, 98, 40, 12],
        "w4": [12, 39, 101, 41, 10],
        "w5": [10, 42, 99, 38, 11],
        "forger": [5, 25, 90, 60, 25],
    }
    check = worker_chi2(per_worker)
    chi2, z, z95, z99 = fishtest_residuals(per_worker)
    assert check.chi2 == pytest.approx(chi2)
    assert check.dof == 5 * 2
    assert (check.z_95, check.z_99) == pytest.approx((z95, z99))
    for worker, residual, flagged in check.residuals:
        assert residual == pytest.approx(z[worker], rel=1e-9)
        assert flagged == (worker == "forger")
    assert check.level(check.residuals[0].residual) == "ok"
    assert worker_residuals(per_worker) == check.residuals


def test_worker_residuals_without_a_test() -> None:
    assert worker_residuals({"only": [1, 2, 3, 4, 5]}) == [("only", None, False)]
    small = worker_chi2({"a": [0, 1, 1, 1, 0], "b": [0, 0, 1, 1, 0], "big1": [50] * 5, "big2": [52] * 5})
    assert [r.residual is None for r in small.residuals] == [True, True, False, False]
    assert small.dof == 2
    with pytest.raises(ValueError, match="pentanomial"):
        fold_pentanomial([1, 2, 3])


# runs ----------------------------------------------------------------------------------------


def finished_run(store: Store, game: str, batches_: int = 6) -> int:
    """A finished run of ``batches_`` 2-pair batches, played by three named workers."""
    config = small_config(game, max_games=4 * batches_)
    run_id = store.create_run(RunKind.SPRT, game, config.to_json(), config.fingerprint())
    SprtRunner(store, run_id, config, InProcessExecutor(("alpha:1", "beta:2", "gamma:3"))).run()
    return run_id


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return Store(f"sqlite:///{tmp_path_factory.mktemp('reports') / 'store.db'}")


@pytest.fixture(scope="module")
def runs(store: Store) -> dict[str, int]:
    made = {}
    for game in GAMES:
        made[f"finished-{game}"] = finished_run(store, game)
        made[f"running-{game}"] = running_run(store, game)
        made[f"empty-{game}"] = empty_run(store, game)
        made[f"one-{game}"] = one_game_run(store, game)
    return made


def stored_rows(store: Store, run_id: int, counted: int) -> list[Any]:
    query = select(results).where(results.c.run_id == run_id, results.c.batch_index < counted)
    with store.engine.connect() as c:
        return list(c.execute(query.order_by(results.c.batch_index)))


def counted_records(store: Store, run_id: int, counted: int) -> list[dict[str, Any]]:
    return [r for b in range(counted) for r in store.game_records(run_id, b)]


def test_optunas_slice_plot_leaves_matplotlibs_settings_as_they_were() -> None:
    """Optuna's plots switch pyplot to its ggplot style; left so, every later plot in the process
    (another run's report on the dashboard) would draw differently from ``arbiter report``'s."""
    import matplotlib
    import optuna

    from coordinator.reports.sprt.plots import throughput_plot
    from coordinator.reports.tuning.data import OptunaView, WeightEntry
    from coordinator.reports.tuning.plots import slice_plot

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.RandomSampler(seed=1))
    study.optimize(lambda t: t.suggest_int("pawn", 50, 150) / 10, n_trials=4)
    view = OptunaView("study", None, None, None, complete_trials=4)
    weights = [WeightEntry("pawn", "value of a pawn", 50, 150, 100, 100, 100, 0, tuned=True)]
    start = datetime(2026, 1, 1, tzinfo=UTC)
    at = [start + timedelta(seconds=s) for s in (0, 3, 9)]
    rows = [SimpleNamespace(created_at=t, wins=2, draws=1, losses=1) for t in at]
    throughput = _throughput(rows)
    settings, before = dict(matplotlib.rcParams), throughput_plot(throughput)
    assert "<svg" in slice_plot(view, weights, study)
    assert dict(matplotlib.rcParams) == settings
    assert throughput_plot(throughput) == before


def test_throughput_of_batches_stored_out_of_order() -> None:
    """Counted rows come in batch order; a batch stored long after later ones (its first result was
    discarded with a quarantined worker and played again) still counts from the run's first result."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    rows = [
        SimpleNamespace(created_at=start + timedelta(seconds=s), wins=2, draws=1, losses=1)
        for s in (100, 0, 1, 2)  # batch 0 stored last
    ]
    data = _throughput(rows)
    assert data.start == iso(start) and data.bin_seconds is not None
    assert sum(g * data.bin_seconds for g in data.games_per_second) == pytest.approx(16)


@pytest.mark.parametrize("kind", ["finished", "running"])
@pytest.mark.parametrize("game", GAMES)
def test_match_report_sections_agree_with_the_store(
    store: Store, runs: dict[str, int], kind: str, game: str
) -> None:
    run = store.get_run(runs[f"{kind}-{game}"])
    assert run is not None
    data = gather(store, run)
    assert isinstance(data, MatchReport)
    rows = stored_rows(store, run.id, run.counted_batches)
    records = counted_records(store, run.id, run.counted_batches)
    penta = [sum(getattr(r, c) for r in rows) for c in ("ll", "ld", "dd_wl", "wd", "ww")]
    wdl = [sum(getattr(r, c) for r in rows) for c in ("wins", "draws", "losses")]
    t = data.totals
    # counts: pentanomial sums to the pairs, W/D/L to the games, both to the records
    assert t.pentanomial == penta and t.wdl == wdl
    assert sum(t.pentanomial) == t.pairs == len(records) // 2
    assert t.games == sum(wdl) == len(records) == t.records
    if kind == "running":
        assert data.run.state == "running"
        assert t.stored_batches == t.counted_batches + 1
    # the LLR of the last point is `arbiter stats` on the final counts; the Elo series ends at it
    expected = sprt_summary(pentanomial=penta, elo0=0, elo1=5, elo_model="normalized", alpha=0.05, beta=0.05)
    s = data.series
    assert s.games[-1] == t.games and s.games == sorted(set(s.games))
    assert s.llr[-1] == pytest.approx(expected["llr"], abs=1e-12)
    assert data.stats is not None
    assert data.stats["llr"] == pytest.approx(expected["llr"], abs=1e-12)
    assert data.stats["los"] == pytest.approx(expected["los"])
    assert data.stats["nelo"] == pytest.approx(expected["nelo"])
    assert s.elo[-1] == pytest.approx(fixed_elo(penta).elo)
    first = rows[0]
    assert s.llr[0] == pytest.approx(
        sprt_summary(pentanomial=[first.ll, first.ld, first.dd_wl, first.wd, first.ww], elo0=0, elo1=5)["llr"]
    )
    # endings: per reason and colour, from the records
    by_reason = Counter(r["reason"] for r in records)
    assert {e.reason: e.games for e in data.endings} == dict(by_reason)
    for e in data.endings:
        mine = [r for r in records if r["reason"] == e.reason]
        for color, found in (("white", e.candidate_white), ("black", e.candidate_black)):
            scores = [
                candidate_score(r["result"], r["candidate_color"])
                for r in mine
                if r["candidate_color"] == color
            ]
            assert found.counts() == (scores.count(1.0), scores.count(0.5), scores.count(0.0))
        assert e.white_wins == sum(r["result"] == "1-0" for r in mine)
    # length
    plies = [ply_count(r["moves"]) for r in records]
    assert data.length.games == len(plies) and data.length.max == max(plies)
    assert data.length.mean == pytest.approx(sum(plies) / len(plies))
    # openings: pair scores, summed back to the candidate's points
    o = data.openings
    points = sum(candidate_score(r["result"], r["candidate_color"]) for r in records)
    assert o.pairs == t.pairs and o.net == pytest.approx(points - t.pairs)
    assert all(r.net > 0 for r in o.helped) and all(r.net < 0 for r in o.hurt)
    # workers: games per worker, and nothing lost
    per_worker = Counter()
    for row in rows:
        per_worker[row.worker] += row.wins + row.draws + row.losses
    assert {w.worker: w.games for w in data.workers.workers} == dict(per_worker)
    throughput = data.throughput
    assert throughput.games_per_second and throughput.bin_seconds is not None
    assert sum(g * throughput.bin_seconds for g in throughput.games_per_second) == pytest.approx(t.games)
    # the command plays this configuration again
    assert data.command.startswith(f"arbiter sprt {game} --candidate ")
    assert "--batch-pairs 2" in data.command and "--nodes 300" in data.command
    # its JSON form is every field by name, in order, as JSON data
    found = data.to_json()
    assert list(found) == ["type", *(f.name for f in fields(data))] and found["type"] == "match"
    assert found["totals"]["pairs"] == t.pairs and found["endings"][0]["candidate_white"].keys() == {
        "W",
        "D",
        "L",
    }
    json.dumps(found, allow_nan=False)
    for line in terminal_summary(data).splitlines():
        assert len(line) <= 80, line


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("kind", ["empty", "one", "running"])
def test_small_and_unfinished_runs_render(store: Store, runs: dict[str, int], game: str, kind: str) -> None:
    run = store.get_run(runs[f"{kind}-{game}"])
    assert run is not None
    report = build(store, run)
    page = html_page(report)
    assert page.count("<svg ") == len(report.plots) == 8
    assert "<script" not in page and "<img" not in page and "<link" not in page
    assert set(re.findall(r'(\S+)="https?://', page)) <= {"xmlns", "xmlns:xlink"}  # names, not loads
    assert isinstance(report.data, MatchReport)
    t = report.data.totals
    assert t.games == {"empty": 0, "one": 1, "running": t.games}[kind]
    if kind == "empty":  # the JSON of no counted batch keeps the key order it always had
        assert list(report.data.to_json()["throughput"]) == [
            "start",
            "seconds",
            "games_per_second",
            "bin_seconds",
        ]
    if kind != "running":
        assert report.data.stats is None
        assert "no game pair counted yet" in terminal_summary(report)


# the export ------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_pgn_export_is_read_by_python_chess_and_replays(
    store: Store, runs: dict[str, int], game: str
) -> None:
    run = store.get_run(runs[f"finished-{game}"])
    assert run is not None
    out = io.StringIO()
    count = export(store, run, "pgn", out)
    text = out.getvalue()
    assert count == store.totals(run.id).games
    parsed = read_pgn_games(text)
    chunks = text.split("\n\n[Event")
    assert len(parsed) == len(chunks) == count
    adjudication = engine.Adjudication.from_json(run.config["adjudication"])
    for game_read, chunk in zip(parsed, chunks, strict=True):
        tags = game_read["tags"]
        assert not game_read["errors"]
        for tag in (
            "Event",
            "Site",
            "Date",
            "Round",
            "White",
            "Black",
            "Result",
            "SetUp",
            "FEN",
            "Termination",
        ):
            assert tag in tags
        assert tags["Variant"] == {"congo": "Congo", "congress": "Congress Chess"}[game]
        assert game_read["result"] == tags["Result"]
        moves = movetext_moves(chunk if chunk.startswith("[Event") else "[Event" + chunk)
        assert_tokens_cover(game_read["tokens"], moves)
        assert int(tags["PlyCount"]) == len(moves)
        replayed = engine.replay_game(game, tags["FEN"], moves, adjudication)
        assert (replayed["result"], replayed["reason"]) == (tags["Result"], tags["Reason"])


def test_jsonl_export_and_filters(store: Store, runs: dict[str, int]) -> None:
    run = store.get_run(runs["finished-congo"])
    assert run is not None
    everything = [json.loads(line) for line in _export(store, run, "jsonl").splitlines()]
    records = counted_records(store, run.id, run.counted_batches)
    assert [g["record"] for g in everything] == records
    assert len(_export(store, run, "jsonl", GameFilter(limit=3)).splitlines()) == 3
    assert all(
        g["batch"] == 1
        for g in map(json.loads, _export(store, run, "jsonl", GameFilter(batch=1)).splitlines())
    )
    beta = [json.loads(x) for x in _export(store, run, "jsonl", GameFilter(worker="beta:2")).splitlines()]
    assert beta and {g["worker"] for g in beta} == {"beta:2"}
    wins = [json.loads(x) for x in _export(store, run, "jsonl", GameFilter(result="win")).splitlines()]
    assert len(wins) == store.totals(run.id).wdl[0]
    draws = [json.loads(x) for x in _export(store, run, "jsonl", GameFilter(result="1/2-1/2")).splitlines()]
    assert len(draws) == store.totals(run.id).wdl[1]
    reason = records[0]["reason"]
    assert len(_export(store, run, "jsonl", GameFilter(reason=reason)).splitlines()) == sum(
        r["reason"] == reason for r in records
    )
    with pytest.raises(ValueError, match="--reason"):
        GameFilter(reason="nonsense")


def _export(store: Store, run: Any, fmt: str, wanted: GameFilter | None = None) -> str:
    out = io.StringIO()
    export(store, run, fmt, out, wanted)
    return out.getvalue()


class CountingSink(io.TextIOBase):
    """Counts what is written and keeps nothing."""

    def __init__(self) -> None:
        self.chars = 0

    def write(self, text: str) -> int:
        self.chars += len(text)
        return len(text)


@pytest.mark.slow
def test_export_streams_in_constant_memory(tmp_path: Path) -> None:
    """3,000 stored games (40 real ones, stored again and again) export with the same peak memory
    as 300: one record at a time (kept in memory, the 2,700 more games' PGN would take megabytes)."""
    store = Store(f"sqlite:///{tmp_path / 'big.db'}")
    config = small_config("congo", batch_pairs=20)
    run_id = store.create_run(RunKind.SPRT, "congo", config.to_json(), config.fingerprint())
    executor = InProcessExecutor()
    executor.submit(BatchPlan(config).payload(run_id, 0))
    result = BatchResult.from_json(executor.play(0).result)
    assert len(result.games) == 40
    for index in range(75):
        store.record_result(run_id, index, CheckedResult.tallied(result))
    store.update_run(run_id, counted_batches=75)
    run = store.get_run(run_id)
    assert run is not None

    def peak(limit: int) -> tuple[int, int]:
        sink = CountingSink()
        tracemalloc.start()
        count = export(store, run, "pgn", sink, GameFilter(limit=limit))
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return count, top

    small_count, small_peak = peak(300)
    count, big_peak = peak(3_000)
    assert (small_count, count) == (300, 3_000)
    assert big_peak < small_peak + 512 * 1024, (small_peak, big_peak)
    first = next(iter_games(store, run))
    assert isinstance(GameRecord.from_json(first.record), GameRecord)


# engines, faults, times and commits ----------------------------------------------------------


def test_a_commit_run_shows_its_engines_times_faults_and_factors(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    sha = "1a2b3c4d" + "0" * 32
    run = store.get_run(commit_run(store, "congo", sha, depth=7))
    assert run is not None
    report = build(store, run)
    assert isinstance(report.data, MatchReport)
    e = report.data.engines
    candidate, baseline = e.sides["candidate"], e.sides["baseline"]
    assert candidate.name == "arbiter@1a2b3c4" and baseline.name == "arbiter@bbbbbbb"
    assert candidate.commit is not None and candidate.commit.sha == sha
    assert candidate.commit.repo == "https://user:***@git.example/arbiter.git"
    assert candidate.version == "arbiter-engine 9.9 by arbiter <b>" and candidate.options == {"Hash": 16}
    assert e.time_control == "0.05/move" and "movetime 50 ms" in e.limits and "scaled" in e.limits
    forfeiter = "baseline" if run.config["openings"][0].endswith(" w") else "candidate"
    faults = {side: e.sides[side].faults for side in ("candidate", "baseline")}
    assert faults["candidate"].counts["crash"] == 1 and faults[forfeiter].counts["time_forfeit"] == 1
    assert sum(f.total for f in faults.values()) == 2
    crash = faults["candidate"].last if forfeiter == "baseline" else None
    if crash is not None:
        assert crash.reason == "crashed: signal 11" and crash.worker == "alpha:1"
        assert "s3cret" not in json.dumps(crash.to_json()) and "***" in crash.stderr[1]
    [worker] = e.workers
    assert worker.time_factor == 1.5 and worker.faults.total == 2
    assert report.data.workers.workers[0].time_factor == 1.5
    # its JSON form: the counts of each kind by name beside the total, as before
    shown = e.to_json()["sides"]["candidate"]["faults"]
    assert list(shown) == ["total", *FAULT_KINDS, "last"] and shown["crash"] == 1
    # The second game's two moves: 12 ms by white's side, 3456 ms by black's.
    times = e.move_times
    assert times is not None
    white_side = "baseline"  # the candidate is black in the second game
    black_side = "candidate"
    assert times[white_side].total_ms + times[black_side].total_ms == 3468
    assert {times["candidate"].moves, times["baseline"].moves} == {1}
    assert "move_times" in report.plots
    command = report.data.command
    assert f"--candidate-ref {sha} --baseline-ref {'b' * 40}" in command
    assert "--repo 'https://user:***@git.example/arbiter.git'" in command
    text = terminal_summary(report)
    assert "arbiter@1a2b3c4" in text and "arbiter-engine 9.9" in text and "crashes 1" in text
    assert "\x1b" not in text and "s3cret" not in text and "time factor 1.50" in text
    page = str(html_page(report))
    assert 'id="engines"' in page and "arbiter@1a2b3c4" in page and "&lt;script&gt;" in page
    assert "<script>" not in page and "s3cret" not in page and "\x1b" not in page
    out = io.StringIO()
    assert export(store, run, "pgn", out) == 2
    pgn_text = out.getvalue()
    assert "s3cret" not in pgn_text and "\x1b" not in pgn_text
    first, second = read_pgn_games(pgn_text)
    assert (first["tags"]["White"], first["tags"]["Black"]) == ("arbiter@1a2b3c4", "arbiter@bbbbbbb")
    assert (second["tags"]["White"], second["tags"]["Black"]) == ("arbiter@bbbbbbb", "arbiter@1a2b3c4")
    assert first["tags"]["CandidateCommit"] == sha
    # what was played: 50 ms a move scaled by the worker's time factor 1.5
    assert first["tags"]["TimeControl"] == "0.075/move" and first["tags"]["TimeFactor"] == "1.5"
    assert first["tags"]["CandidateVersion"] == "arbiter-engine 9.9 by arbiter <b>"
    assert (first["tags"]["Termination"], second["tags"]["Termination"]) == ("abandoned", "time forfeit")
    assert {e.reason: e.kind for e in report.data.endings} == {
        "crash": "fault",
        "time_forfeit": "fault",
    }
    assert second["comments"][:2] == ["[%emt 0:00:00.012]", "[%emt 0:00:03.456]"]
    assert not any("%emt" in c for c in first["comments"])
    store.close()


def test_regressions_follow_the_history_of_the_commits(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    later = commit_run(store, "congo", "c" * 40, depth=9)
    earlier = commit_run(store, "congo", "d" * 40, depth=4)
    finished_run(store, "congo", 1)  # not a commit: not listed
    [group] = regressions(store)
    assert group["repo"] == "https://user:***@git.example/arbiter.git" and group["game"] == "congo"
    assert [r["run"] for r in group["rows"]] == [earlier, later]
    row = group["rows"][0]
    assert row["name"] == "arbiter@ddddddd" and row["base"] == "arbiter@bbbbbbb" and row["ref"] == "topic"
    assert row["games"] == 2 and row["elo"] is not None and row["elo95"] is not None
    store.close()


def test_pgn_clocks_follow_the_time_control_played() -> None:
    """Each move's ``[%clk]``: its side's clock after it, the increment added and the base again
    after every period of a repeating control; without a clock, ``[%emt]`` alone."""
    control = engine.TimeControl.parse("2/10+1")  # 10 s for every 2 moves, 1 s a move
    assert clocks(control, [3000, 500, 4000, 500, 1000], black_first=False) == [
        8000,
        10500,
        15000,
        21000,
        15000,
    ]
    assert clocks(control, [3000], black_first=True) == [8000]
    text = movetext("x w", ["a1a2", "a7a6"], "draw: repetition", "1/2-1/2", [1500, 250], control)
    assert " ".join(text.split()).startswith(
        "1. a1a2 {[%emt 0:00:01.500] [%clk 0:00:09.500]} a7a6 {[%emt 0:00:00.250] [%clk 0:00:10.750]}"
    )
    assert "%clk" not in movetext("x w", ["a1a2"], "c", "*", [1500])
