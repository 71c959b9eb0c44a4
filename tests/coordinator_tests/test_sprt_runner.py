"""coordinator.sprt.runner: deterministic counts whatever the order, duplicates, concurrency or stops."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from sprt_testkit import book_positions, standin_play_game
from sqlalchemy import select

import engine
from coordinator.executors.base import BatchOutcome, Executor
from coordinator.executors.local import LocalExecutor
from coordinator.runs import RunKind
from coordinator.sprt.config import BatchPlan, SprtConfig
from coordinator.sprt.report import stored_progress, stored_status
from coordinator.sprt.runner import RunFailed, SprtRunner
from coordinator.store import Store
from coordinator.store.results import CheckedResult
from coordinator.store.schema import batches
from wire.programs import BuildSpec, EngineProgram
from wire.protocol import BatchPayload, BatchResult, ResultReport
from wire.sealing import digest
from worker.games import play_batch


class ShuffledExecutor(Executor):
    """Plays batches in-process with the stand-in engine and delivers them shuffled and twice.

    Optionally raises KeyboardInterrupt after delivering ``interrupt_after`` outcomes, or corrupts
    the first delivery of a batch, to exercise interruption and refusal.
    """

    def __init__(
        self,
        seed: int,
        slots: int = 6,
        interrupt_after: int | None = None,
        corrupt: set[int] | None = None,
    ) -> None:
        self.rng = random.Random(seed)
        self.slots = slots
        self.queue: list[BatchPayload] = []
        self.delivered = 0
        self.interrupt_after = interrupt_after
        self.corrupt = set(corrupt or ())

    def submit(self, payload: BatchPayload) -> None:
        self.queue.append(payload)

    def in_flight(self) -> int:
        return len(self.queue)

    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]:
        self.rng.shuffle(self.queue)
        take = self.rng.randint(1, max(1, len(self.queue)))
        chosen, self.queue = self.queue[:take], self.queue[take:]
        for payload in chosen:
            result = play_batch(payload, play_game=standin_play_game).to_json()
            index = payload.batch_index
            if index in self.corrupt:
                self.corrupt.discard(index)
                result["wdl"] = [sum(result["wdl"]), 0, 0]
            outcome = BatchOutcome(payload.run_id, index, result=result)
            yield outcome
            yield outcome  # a duplicate delivery, as a broker may redeliver
            self.delivered += 1
            if self.interrupt_after is not None and self.delivered >= self.interrupt_after:
                self.interrupt_after = None
                raise KeyboardInterrupt

    def cancel(self) -> None:
        self.queue.clear()

    def close(self) -> None:
        self.cancel()


def config(openings: list[str], **overrides: Any) -> SprtConfig:
    """A stand-in-friendly configuration: the candidate has a bigger pawn weight."""
    values: dict[str, Any] = {
        "game": "congo",
        "candidate": {"pawn": 130},
        "baseline": {"pawn": 100},
        "openings": openings,
        "engine_version": engine.ENGINE_VERSION,
        "elo0": 0.0,
        "elo1": 10.0,
        "batch_pairs": 4,
        "seed": 3,
    }
    return SprtConfig(**(values | overrides))


@pytest.fixture(scope="module")
def openings() -> list[str]:
    return book_positions("congo", 10)


def fresh_run(tmp_path: Path, name: str, cfg: SprtConfig) -> tuple[Store, int]:
    store = Store(f"sqlite:///{tmp_path / name}")
    run_id = store.create_run(RunKind.SPRT, cfg.game, cfg.to_json(), cfg.fingerprint())
    return store, run_id


def run_with(store: Store, run_id: int, cfg: SprtConfig, executor: Executor) -> Any:
    return SprtRunner(store, run_id, cfg, executor, check=accept_standin_games).run()


def accept_standin_games(report: ResultReport, payload: BatchPayload) -> CheckedResult:
    """The stand-in engine's games have no moves, nothing to replay: only the claimed counts are
    checked against the records (as ``check_answer`` does)."""
    checked = CheckedResult.tallied(BatchResult.from_report(report))
    for name, claimed, counted in (
        ("pentanomial", report.pentanomial, checked.pentanomial),
        ("wdl", report.wdl, checked.wdl),
    ):
        if claimed != counted:
            raise ValueError(f"{name}: {claimed} does not match the game records ({counted})")
    return checked


def test_batch_plan_is_a_function_of_seed_and_index(openings: list[str]) -> None:
    cfg = config(openings)
    plan, again = BatchPlan(cfg), BatchPlan(cfg)
    assert [again.openings_for(i) for i in (5, 0, 3)] == [plan.openings_for(i) for i in (5, 0, 3)]
    assert plan.seed_for(2) == again.seed_for(2) != plan.seed_for(3)
    # Consecutive batches walk the whole book before any opening repeats.
    first_pass = plan.openings_for(0) + plan.openings_for(1) + plan.openings_for(2)[:2]
    assert sorted(first_pass) == sorted(openings)
    other = BatchPlan(config(openings, seed=4))
    assert [other.openings_for(i) for i in range(3)] != [plan.openings_for(i) for i in range(3)]


def test_config_round_trips_and_validates(openings: list[str]) -> None:
    cfg = config(openings, max_games=100)
    assert SprtConfig.from_json(cfg.to_json()) == cfg
    assert SprtConfig.from_json(cfg.to_json()).fingerprint() == cfg.fingerprint()
    assert cfg.max_batches == 13  # 100 games / 8 games per batch, rounded up
    with pytest.raises(ValueError, match="elo1"):
        config(openings, elo0=5.0, elo1=5.0)
    with pytest.raises(ValueError, match="batch_pairs"):
        config(openings, batch_pairs=0)


def test_counts_do_not_depend_on_delivery_order_or_duplicates(tmp_path: Path, openings: list[str]) -> None:
    cfg = config(openings)
    outcomes = []
    for seed in (1, 2, 3):
        store, run_id = fresh_run(tmp_path, f"order{seed}.db", cfg)
        progress = run_with(store, run_id, cfg, ShuffledExecutor(seed, slots=2 + 3 * seed))
        run = store.get_run(run_id)
        assert run is not None and run.state == "finished" and run.decision == progress.decision
        assert store.totals(run_id).pentanomial == progress.pentanomial
        outcomes.append((progress.pentanomial, progress.wdl, progress.counted_batches, progress.decision))
    assert outcomes[0][3] in ("accepted", "rejected")
    assert outcomes.count(outcomes[0]) == 3


def test_budget_stops_at_the_same_batch(tmp_path: Path, openings: list[str]) -> None:
    cfg = config(openings, max_games=20, elo1=200.0, elo0=100.0)
    store, run_id = fresh_run(tmp_path, "budget.db", cfg)
    progress = run_with(store, run_id, cfg, ShuffledExecutor(5, slots=8))
    assert progress.decision == "budget"
    assert progress.counted_batches == 3 and progress.games == 20  # the last batch cut to the cap
    assert store.totals(run_id).games == 20
    # Results of later batches may be stored, but they do not count.
    assert len(store.results(run_id)) >= 3
    # A sent batch is kept as the digest of the payload sent (what answers bind), not its openings.
    plan = BatchPlan(cfg)
    with store.engine.connect() as c:
        rows = c.execute(select(batches.c.batch_index, batches.c.payload_digest, batches.c.openings)).all()
    assert len(rows) >= 3
    assert all(d == digest(plan.payload(run_id, i).text) and o is None for i, d, o in rows)


def test_interrupted_then_resumed_run_equals_an_uninterrupted_one(
    tmp_path: Path, openings: list[str]
) -> None:
    cfg = config(openings)
    store, run_id = fresh_run(tmp_path, "whole.db", cfg)
    whole = run_with(store, run_id, cfg, ShuffledExecutor(9))

    store, run_id = fresh_run(tmp_path, "split.db", cfg)
    with pytest.raises(KeyboardInterrupt):
        run_with(store, run_id, cfg, ShuffledExecutor(10, interrupt_after=3))
    run = store.get_run(run_id)
    assert run is not None and run.state == "interrupted"
    assert 1 <= len(store.results(run_id)) < whole.counted_batches
    resumed = run_with(store, run_id, cfg, ShuffledExecutor(11, slots=3))
    assert (resumed.pentanomial, resumed.wdl, resumed.decision) == (
        whole.pentanomial,
        whole.wdl,
        whole.decision,
    )
    run = store.get_run(run_id)
    assert run is not None and stored_progress(store, run).pentanomial == whole.pentanomial


def test_refused_result_is_retried_and_recorded(tmp_path: Path, openings: list[str]) -> None:
    cfg = config(openings)
    store, run_id = fresh_run(tmp_path, "refused.db", cfg)
    progress = run_with(store, run_id, cfg, ShuffledExecutor(4, corrupt={0, 2}))
    store_reference, reference_id = fresh_run(tmp_path, "reference.db", cfg)
    reference = run_with(store_reference, reference_id, cfg, ShuffledExecutor(4))
    assert progress.pentanomial == reference.pentanomial
    refused = store.refusals(run_id)
    assert [r.batch_index for r in refused] == [0, 2]
    assert all("wdl" in r.reason and r.state == "done" and r.attempts == 2 for r in refused)


def test_a_batch_refused_every_time_fails_the_run(tmp_path: Path, openings: list[str]) -> None:
    cfg = config(openings)
    store, run_id = fresh_run(tmp_path, "failed.db", cfg)

    class AlwaysCorrupt(ShuffledExecutor):
        def submit(self, payload: BatchPayload) -> None:
            if payload.batch_index == 1:
                self.corrupt.add(1)
            super().submit(payload)

    with pytest.raises(RunFailed, match="batch 1 refused 3 times"):
        run_with(store, run_id, cfg, AlwaysCorrupt(6))
    run = store.get_run(run_id)
    assert run is not None and run.state == "failed" and "batch 1" in (run.error or "")


def real_config(openings: list[str]) -> SprtConfig:
    """A real-engine configuration small enough for a test: 5 batches of 2 pairs at 300 nodes."""
    return config(
        openings,
        candidate=dict(engine.validate_weights("congo", {"pawn": 160})),
        baseline=dict(engine.validate_weights("congo", None)),
        limits=engine.Limits(nodes=300),
        batch_pairs=2,
        max_games=20,
        elo0=0.0,
        elo1=5.0,
    )


def test_same_seed_same_counts_with_concurrency_1_and_2(tmp_path: Path, openings: list[str]) -> None:
    cfg = real_config(openings)
    seen = []
    for concurrency in (1, 2):
        store, run_id = fresh_run(tmp_path, f"c{concurrency}.db", cfg)
        with LocalExecutor(concurrency) as executor:
            progress = SprtRunner(store, run_id, cfg, executor).run()
        seen.append((progress.pentanomial, progress.wdl, progress.counted_batches, progress.decision))
        records = store.game_records(run_id)
        assert len(records) >= 20 and all(r["moves"] for r in records)
    assert seen[0] == seen[1]
    assert seen[0][2] * 4 == sum(seen[0][1])


def drain(executor: LocalExecutor, polls: int = 50, timeout: float = 5) -> list[BatchOutcome]:
    """Every outcome of what is in flight, polled until nothing is (at most ``polls`` polls of
    ``timeout`` seconds each: a process pool that starts slowly on a busy machine is waited for)."""
    got: list[BatchOutcome] = []
    for _ in range(polls):
        got.extend(executor.completed(timeout=timeout))
        if not executor.in_flight():
            return got
    raise AssertionError(f"{executor.in_flight()} batches still in flight after {polls * timeout:.0f} s")


def test_local_executor_delivers_results_errors_and_cancels() -> None:
    def batch(index: int) -> BatchPayload:
        return BatchPayload(
            1, index, "congo", None, None, ["x"], engine.Limits(depth=1), engine.Adjudication(), 0, "test"
        )

    with LocalExecutor(2, task=dict) as executor:  # ``dict`` echoes the payload back
        for index in range(5):
            executor.submit(batch(index))
        assert executor.in_flight() == 5 and executor.slots == 4
        got = drain(executor)
        assert sorted(o.batch_index for o in got) == list(range(5))
        assert all(o.result == batch(o.batch_index).to_json() for o in got)
    with LocalExecutor(1, task=partial(int)) as failing:  # int(dict) raises TypeError
        failing.submit(batch(0))
        (outcome,) = drain(failing)  # the pool's first process starts first: no fixed wait for it
        assert outcome.result is None and outcome.error is not None and "TypeError" in outcome.error
        failing.submit(batch(1))
        failing.cancel()
        assert failing.in_flight() == 0
        assert list(failing.completed(timeout=0)) == []


def test_status_names_a_commit_side_by_repository_and_sha_with_credentials_masked(
    tmp_path: Path, openings: list[str]
) -> None:
    repo, sha = "https://ci:s3cret@git.example.org/arbiter.git", "ab" * 20
    spec = BuildSpec(repo, sha, 7)
    built = EngineProgram("arbiter@abababab", spec.digest, ("./arbiter-engine",), {}, build=spec)
    cfg = config(openings, candidate_source="arbiter@abababab (feature)", candidate_program=built)
    store, run_id = fresh_run(tmp_path, "status.db", cfg)
    run = store.get_run(run_id)
    assert run is not None
    data = stored_status(store, run)
    masked = "https://ci:***@git.example.org/arbiter.git"
    assert data["candidate"] == {"name": "arbiter@abababab (feature)", "repo": masked, "sha": sha}
    assert data["baseline"] == {"name": "default"}
    assert data["config"]["candidate_program"]["build"]["repo"] == masked
    assert "s3cret" not in str(data)


def test_answers_all_refused_for_one_reason_are_on_the_progress_line(
    tmp_path: Path, openings: list[str]
) -> None:
    """A coordinator whose every batch is refused (workers with keys, a coordinator without the
    fleet's secret) says why on its progress line, and stops saying it once results come."""
    from coordinator.sprt.report import PROGRESS_WIDTH, progress_line

    cfg = config(openings)
    store, run_id = fresh_run(tmp_path, "refusals.db", cfg)
    executor = ShuffledExecutor(1)
    runner = SprtRunner(store, run_id, cfg, executor, check=accept_standin_games)
    runner.fill()
    reason = "workers want signed payloads: set $ARBITER_SECRET"
    for payload in list(executor.queue):
        refusal = BatchOutcome(
            run_id, payload.batch_index, error=reason, worker="w1@host:1", refused_by_worker=True,
            refusal_kind="unsigned",
        )  # fmt: skip
        runner.receive(refusal)
    sent = len(executor.queue)
    line = progress_line(runner.progress())
    assert line.startswith(f"run {run_id}: 0 games  {sent} refused: {reason}"), line
    assert len(line) <= PROGRESS_WIDTH
    executor.queue.clear()
    runner.fill()  # the refused batches again
    runner.receive(next(o for o in executor.completed() if o.result is not None))
    assert runner.progress().refused is None
    assert "refused" not in progress_line(runner.progress())


class SealedFleet(ShuffledExecutor):
    """A fleet with keys whose one live worker of this build is ``w1@a``."""

    answers_sealed = True

    def live_workers(self) -> set[str] | None:
        return {"w1@a"}


def test_workers_of_another_build_cannot_fail_a_run(tmp_path: Path, openings: list[str]) -> None:
    """Anyone who can write to the broker can hand a batch's genuine, signed task message to
    workers of another engine build (their direct queues): each refuses it, sealed under its own
    key, for one same reason. That says nothing of the batch: the run goes on."""
    cfg = config(openings)
    store, run_id = fresh_run(tmp_path, "other-build.db", cfg)
    executor = SealedFleet(1)
    runner = SprtRunner(store, run_id, cfg, executor, check=accept_standin_games)
    reason = f"batch payload: engine version {engine.ENGINE_VERSION!r} was requested but this worker has 'x'"
    for old in ("old1@b", "old2@c", "old3@d"):
        executor.queue.clear()
        runner.fill()
        runner.receive(
            BatchOutcome(
                run_id, 0, error=reason, worker=old, refused_by_worker=True, refusal_kind="version",
                authenticated=True,
            )
        )  # fmt: skip
    run = store.get_run(run_id)
    assert run is not None and run.state != "failed" and 0 in runner.retry  # sent again
    # Two workers of this build refusing it for one reason do fail it (MIN_REFUSERS).
    with pytest.raises(RunFailed, match="batch 0 refused"):
        for worker in ("w1@a", "w2@a"):
            executor.queue.clear()
            runner.fill()
            runner.receive(
                BatchOutcome(
                    run_id, 0, error="bad", worker=worker, refused_by_worker=True, refusal_kind="payload",
                    authenticated=True,
                )
            )  # fmt: skip


class QuarantiningExecutor(ShuffledExecutor):
    """Keeps the reasons workers were quarantined for."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.reasons: dict[str, str] = {}

    def quarantine(self, worker: str | None, reason: str) -> None:
        self.reasons[worker or "?"] = reason


@pytest.mark.parametrize(
    "bloat",
    [{"pentanomial": [0] * 100_000}, {f"field{i}": 0 for i in range(10_000)}],
    ids=["long-counts", "many-fields"],
)
def test_a_bloated_answer_is_refused_with_a_short_reason(
    tmp_path: Path, openings: list[str], bloat: dict[str, Any]
) -> None:
    """An answer whose fields are huge is refused, and its worker quarantined, for a reason of a
    line: the store's refusal log and the quarantine (repeated in every later refusal of the
    worker) never keep megabytes of it."""
    cfg = config(openings)
    store, run_id = fresh_run(tmp_path, "bloated.db", cfg)
    executor = QuarantiningExecutor(1)
    runner = SprtRunner(store, run_id, cfg, executor, check=accept_standin_games)
    runner.fill()
    payload = runner.in_flight[0]
    result = {"run_id": run_id, "batch_index": 0, "engine_version": payload.engine_version,
              "pentanomial": [0, 0, 4, 0, 0], "wdl": [0, 8, 0], "games": [], **bloat}  # fmt: skip
    runner.receive(BatchOutcome(run_id, 0, result=result, worker="w@a", authenticated=True))
    [refused] = store.refusals(run_id)
    assert len(refused.reason) <= 400 and ("pentanomial" in refused.reason or "field" in refused.reason)
    assert len(executor.reasons["w@a"]) <= 400


class TellingExecutor(ShuffledExecutor):
    """Tells ``told`` games played of each batch in flight, and of a batch of another run."""

    told = 5

    def playing(self) -> dict[tuple[int, int], int]:
        return {(p.run_id, p.batch_index): self.told for p in self.queue} | {(999, 0): 7}


def test_games_still_playing_are_shown_apart_and_never_counted(tmp_path: Path, openings: list[str]) -> None:
    """What workers tell of the batches they play moves the progress line (games playing, speed,
    ETA) before any batch is counted; the counts and the LLR stay those of the counted games."""
    from coordinator.sprt.report import eta_seconds, progress_line, stored_row
    from coordinator.web.pages import live_html, runs_table
    from coordinator.web.summaries import run_row

    cfg = config(openings, max_games=80)
    store, run_id = fresh_run(tmp_path, "playing.db", cfg)
    store.set_playing(run_id, 99)  # left by a coordinator killed while its batches played
    SprtRunner(store, run_id, cfg, ShuffledExecutor(1), check=accept_standin_games).count()
    assert store.get_run(run_id).playing == 0  # type: ignore[union-attr]
    executor = TellingExecutor(1, slots=3)
    runner = SprtRunner(store, run_id, cfg, executor, check=accept_standin_games)
    runner.fill()
    p = runner.progress()
    assert (p.games, p.playing, p.llr, p.wdl) == (0, 15, 0.0, [0, 0, 0])  # 3 batches, another run's left out
    line = progress_line(p)
    assert line.startswith(f"run {run_id}: 0 games +15 playing") and f"{p.games_per_second:.1f}/s" in line
    assert p.games_per_second > 0 and eta_seconds(p) == pytest.approx((80 - 15) / p.games_per_second)
    before = store.get_run(run_id)
    runner.count()  # records the games playing for status and the dashboard, as a change of nothing
    run = store.get_run(run_id)
    assert run is not None and before is not None
    assert (run.playing, run.updated_at, store.totals(run_id).games) == (15, before.updated_at, 0)
    assert stored_row(store, run).endswith("(+15 games playing)")
    assert stored_status(store, run)["playing"] == 15
    row = run_row(store, run, None)
    assert '<b data-field="playing">15</b> games, not yet counted' in live_html(row)
    assert "0 +15 playing" in runs_table([row])
    while 0 not in runner.results:
        for outcome in executor.completed():
            runner.receive(outcome)
    runner.count()
    p = runner.progress()
    assert p.games == 8 * p.counted_batches == store.totals(run_id, p.counted_batches).games > 0
    assert p.playing == 5 * len(executor.queue) and p.in_flight == len(executor.queue)
    runner.release()
    assert store.get_run(run_id).playing == 0  # type: ignore[union-attr]


def test_the_local_pool_tells_the_games_played_while_a_batch_plays() -> None:
    """A batch of the local pool tells its games played as it goes (long enough never to end
    here: it is cancelled once it told)."""
    long_batch = BatchPayload(
        1, 0, "congo", None, None, book_positions("congo", 4) * 250, engine.Limits(nodes=1000),
        engine.Adjudication(max_plies=200), 0, engine.ENGINE_VERSION,
    )  # fmt: skip
    with LocalExecutor(1) as executor:
        executor.submit(long_batch)

        def told() -> int:
            assert not list(executor.completed(timeout=0.1)), "the long batch ended"
            return executor.playing().get((1, 0), 0)

        deadline = time.monotonic() + 60
        while not (played := told()):
            assert time.monotonic() < deadline, "no games told within 60 s"
        assert 1 <= played < 2000
        executor.cancel()
        assert executor.playing() == {}


@pytest.mark.parametrize(("max_games", "played"), [(20, 20), (21, 20), (16, 16), (2, 2)])
def test_a_game_cap_is_never_exceeded(
    tmp_path: Path, openings: list[str], max_games: int, played: int
) -> None:
    """``--max-games N`` plays at most N games: the last batch is cut to the pairs left (an odd cap
    leaves its last game unplayed, games come in pairs)."""
    cfg = config(openings, batch_pairs=4, max_games=max_games)
    plan = cfg.batch_plan()
    assert sum(2 * len(plan.openings_for(i)) for i in range(cfg.max_batches or 0)) == played
    store, run_id = fresh_run(tmp_path, f"cap-{max_games}.db", cfg)
    progress = run_with(store, run_id, cfg, ShuffledExecutor(3))
    assert progress.games <= played and (progress.decision != "budget" or progress.games == played)
