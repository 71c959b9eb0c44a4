"""SPSA: the pure update rule against hand-computed iterations and fishtest's own formulas, and
the driver's determinism (the same path of theta with any number of slots, any delivery order, and
after an interruption), playing real games in this process at tiny node counts."""

from __future__ import annotations

import dataclasses
import math
import random
import re
from pathlib import Path
from typing import Any

import pytest
from report_testkit import ShuffledExecutor, new_tune_run
from sprt_testkit import book_positions

import engine
from coordinator.runs import RunKind
from coordinator.store import Store
from coordinator.tuning import spsa
from coordinator.tuning.config import TuneConfig
from coordinator.tuning.records import TuningRecords
from coordinator.tuning.spsa_params import parse_spsa_params
from coordinator.tuning.spsa_tuner import SpsaTuner

# --- the rule, by hand --------------------------------------------------------------------------


def hand_plan() -> spsa.SpsaPlan:
    """Numbers chosen so that every gain is exact by hand: 3 iterations of 3 pairs (N = 9 pairs),
    A = 9 / 3 = 3, alpha 1, gamma 0.5, two weights of range 20 with c_end 2 and r_end 0.25.

    c = c_end * N ** gamma = 2 * 3 = 6;  a = r_end * c_end ** 2 * (A + N) ** alpha = 0.25 * 4 * 12 = 12.
    """
    return spsa.plan_for(
        [("w1", 0, 20), ("w2", -10, 10)],
        3,
        3,
        c_end_fraction=0.1,
        r_end=0.25,
        a_ratio=1 / 3,
        alpha=1,
        gamma=0.5,
    )


def test_gains_of_an_iteration_by_hand() -> None:
    plan = hand_plan()
    w1 = plan.weights[0]
    assert (w1.c_end, w1.r_end, plan.pairs, plan.big_a) == (2.0, 0.25, 9, 3.0)
    # Iteration 1 starts at pair k = 1 * 3 + 1 = 4: c_4 = 6 / 4 ** 0.5 = 3, a_4 = 12 / (3 + 4) = 12 / 7.
    assert plan.pair_index(1) == 4
    assert plan.c(w1, 1) == pytest.approx(3.0)
    assert plan.a(w1, 1) == pytest.approx(12 / 7)
    # Iteration 0 (k = 1): c_1 = 6, a_1 = 12 / 4 = 3.
    assert plan.c(w1, 0) == pytest.approx(6.0)
    assert plan.a(w1, 0) == pytest.approx(3.0)


def test_one_iteration_by_hand() -> None:
    plan = hand_plan()
    theta = {"w1": 10.0, "w2": 9.0}
    signs = (1, -1)
    # theta +- c_4 * flip with c_4 = 3, clipped to the range and rounded: w2's 9 + 3 hits 10.
    pair = spsa.perturb(plan, theta, 1, signs)
    assert pair.plus == {"w1": 13, "w2": 6}
    assert pair.minus == {"w1": 7, "w2": 10}
    # theta+ won 9 and lost 2: each weight moves a_4 / c_4 * 7 * flip = (12/7) / 3 * 7 = 4.
    moved = spsa.step(plan, theta, 1, signs, 9 - 2)
    assert moved == pytest.approx({"w1": 14.0, "w2": 5.0})
    # A result of -21 moves w1 by -12 to -2: clipped to its minimum, 0; w2 by +12 to 21: to 10.
    assert spsa.step(plan, theta, 1, signs, -21) == pytest.approx({"w1": 0.0, "w2": 10.0})
    assert spsa.rounded({"w1": 13.5, "w2": -2.4}) == {"w1": 14, "w2": -2}


def test_defaults_are_fishtests_from_the_engine_table() -> None:
    fields = dataclasses.fields(TuneConfig)
    defaults = {f.name: f.default for f in fields if f.name.startswith("spsa_") and f.name != "spsa_table"}
    config = tune_config(max_games=800, batch_pairs=4, **defaults)
    plan = config.spsa_plan()
    table = {w.name: w for w in engine.weights("congress")}
    assert [w.name for w in plan.weights] == config.params
    for w in plan.weights:
        assert (w.low, w.high) == (table[w.name].min, table[w.name].max)
        assert w.c_end == pytest.approx((w.high - w.low) / 20)
        assert w.r_end == 0.002
    assert (plan.iterations, plan.pairs_per_iteration, plan.pairs) == (100, 4, 400)
    assert (plan.alpha, plan.gamma, plan.big_a) == (0.602, 0.101, pytest.approx(40.0))


def fishtest_theta(
    theta: float, w: spsa.SpsaWeight, num_iter: int, a_ratio: float, results: list[int], flips: list[int]
) -> float:
    """theta after one-pair reports, with fishtest's formulas written out as fishtest has them:
    c = c_end * num_iter ** gamma, a = r_end * c_end ** 2 * (A + num_iter) ** alpha; per report,
    iter_local = iter + 1, c_k = c / iter_local ** gamma, R = a / (A + iter_local) ** alpha / c_k ** 2,
    theta += R * c_k * result * flip (clipped)."""
    big_a = a_ratio * num_iter
    c = w.c_end * num_iter**0.101
    a = w.r_end * w.c_end**2 * (big_a + num_iter) ** 0.602
    for i, (result, flip) in enumerate(zip(results, flips, strict=True)):
        c_k = c / (i + 1) ** 0.101
        r = a / (big_a + i + 1) ** 0.602 / c_k**2
        theta = min(max(theta + r * c_k * result * flip, w.low), w.high)
    return theta


def test_matches_fishtest_one_pair_at_a_time() -> None:
    plan = spsa.plan_for([("pawn", 20, 300)], 50, 1)
    rng = random.Random(3)
    results = [rng.choice((-2, -1, 0, 0, 1, 2)) for _ in range(50)]
    flips = [rng.choice((-1, 1)) for _ in range(50)]
    theta = {"pawn": 100.0}
    for k in range(50):
        theta = spsa.step(plan, theta, k, (flips[k],), results[k])
    expected = fishtest_theta(100.0, plan.weights[0], 50, 0.1, results, flips)
    assert theta["pawn"] == pytest.approx(expected, rel=1e-12)
    assert theta["pawn"] != 100.0


def test_flips_are_signs_fixed_by_seed_and_iteration() -> None:
    first = spsa.flips(7, 3, 40)
    assert set(first) == {-1, 1} and len(first) == 40
    assert spsa.flips(7, 3, 40) == first
    assert spsa.flips(8, 3, 40) != first and spsa.flips(7, 4, 40) != first
    many = [f for k in range(200) for f in spsa.flips(1, k, 12)]
    assert abs(sum(many)) < 4 * math.sqrt(len(many))  # balanced: Rademacher


def test_checkpoints_every_n_games_and_at_the_end() -> None:
    plan = spsa.plan_for([("pawn", 20, 300)], 10, 2)  # 4 games an iteration
    assert [k for k in range(10) if spsa.is_checkpoint(k, plan, None)] == [9]
    # Every 10 games: after iterations 2 (12 games), 4 (20), 7 (32) and the last.
    assert [k for k in range(10) if spsa.is_checkpoint(k, plan, 10)] == [2, 4, 7, 9]


def test_plans_no_run_could_follow_are_refused() -> None:
    with pytest.raises(ValueError, match="iteration"):
        spsa.plan_for([("pawn", 20, 300)], 0, 4)
    with pytest.raises(ValueError, match="c_end"):
        spsa.plan_for([("pawn", 20, 300)], 5, 4, c_end_fraction=0)
    # gains too large for a float: the run's first update was an OverflowError traceback, the run
    # already stored; now the configuration is refused before anything is stored
    with pytest.raises(ValueError, match="make SPSA's gains overflow"):
        spsa.plan_for([("pawn", 20, 300)], 5, 4, c_end_fraction=1e300)
    table = [["pawn", 147, 20, 300, 1e308, 1e308]]
    with pytest.raises(
        ValueError, match=r"weight pawn: c_end 1e\+308 and r_end 1e\+308 make SPSA's gains overflow"
    ):
        tune_config(params=["pawn"], spsa_table=table)


# --- the driver: real games in this process -----------------------------------------------------


def tune_config(**overrides: Any) -> TuneConfig:
    values: dict[str, Any] = {
        "game": "congress",
        "params": ["pawn", "politician", "mobility", "king_safety"],
        "start": dict(engine.validate_weights("congress", None)),
        "openings": book_positions("congress", 16),
        "engine_version": engine.ENGINE_VERSION,
        "method": "spsa",
        "max_games": 96,  # 24 iterations of 2 pairs
        "batch_pairs": 2,
        "limits": engine.Limits(nodes=60),
        "spsa_lag": 3,
        "spsa_r_end": 0.05,  # large steps, so that theta moves within 24 iterations
        "accept_every": 48,
        "accept_max_games": 8,
        "accept_elo1": 30.0,
        "max_trials": None,
        "seed": 4,
        **overrides,
    }
    return TuneConfig(**values)


def path_of(store: Store, run_id: int) -> list[tuple[int, int | None, int | None, dict[str, float] | None]]:
    return [(r.iteration, r.wins, r.losses, r.theta) for r in TuningRecords(store).iterations(run_id)]


def outcome_of(store: Store, run_id: int) -> dict[str, Any]:
    """Everything a run decided: the path of theta, its acceptance SPRTs and the champions."""
    records = TuningRecords(store)
    accepts = []
    for row in records.acceptances(run_id):
        run = store.get_run(row.run_id) if row.run_id is not None else None
        accepts.append((row.candidate, row.stage, row.champion_number, run.decision if run else None))
    return {
        "path": path_of(store, run_id),
        "acceptances": accepts,
        "champions": [(c.number, c.weights, c.trial_number) for c in records.champions(run_id)],
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What one uninterrupted run decided: one slot, batches delivered in order."""
    store, run_id = new_tune_run(tmp_path_factory.mktemp("spsa"), "reference.db", tune_config())
    SpsaTuner(store, run_id, tune_config(), ShuffledExecutor(0, slots=1)).run()
    return outcome_of(store, run_id)


def test_the_path_of_theta_is_stored_whole(reference: dict[str, Any]) -> None:
    path = reference["path"]
    assert [row[0] for row in path] == list(range(24))
    assert all(row[3] is not None for row in path)
    assert all(row[1] is not None and row[2] is not None and row[1] + row[2] <= 4 for row in path)
    start = {name: float(tune_config().start[name]) for name in tune_config().params}
    assert path[-1][3] != start


@pytest.mark.parametrize(("seed", "slots"), [(1, 3), (2, 8)])
def test_the_path_does_not_depend_on_slots_or_delivery_order(
    reference: dict[str, Any], tmp_path: Path, seed: int, slots: int
) -> None:
    store, run_id = new_tune_run(tmp_path, "t.db", tune_config())
    SpsaTuner(store, run_id, tune_config(), ShuffledExecutor(seed, slots=slots)).run()
    assert outcome_of(store, run_id) == reference


def test_the_lag_bounds_the_iterations_in_flight(tmp_path: Path) -> None:
    config = tune_config(spsa_lag=1)
    store, run_id = new_tune_run(tmp_path, "t.db", config)
    tuner = SpsaTuner(store, run_id, config, ShuffledExecutor(5, slots=8))
    seen = []
    tuner.on_progress = lambda p: seen.append(p.in_flight)
    tuner.run()
    assert max(seen) <= 2 and len(path_of(store, run_id)) == 24


def test_interrupted_and_resumed_reaches_the_same_theta(reference: dict[str, Any], tmp_path: Path) -> None:
    store, run_id = new_tune_run(tmp_path, "t.db", tune_config())
    steps = iter(range(10**6))
    first = SpsaTuner(
        store, run_id, tune_config(), ShuffledExecutor(3, slots=4), stop_requested=lambda: next(steps) >= 6
    )
    with pytest.raises(KeyboardInterrupt):
        first.run()
    stopped = [row for row in path_of(store, run_id) if row[3] is not None]
    assert 0 < len(stopped) < 24
    second = SpsaTuner(store, run_id, tune_config(), ShuffledExecutor(4, slots=4))
    assert second.applied == len(stopped)
    second.run()
    assert outcome_of(store, run_id) == reference


def test_checkpoints_play_acceptance_sprts(tmp_path: Path) -> None:
    store, run_id = new_tune_run(tmp_path, "t.db", tune_config())
    SpsaTuner(store, run_id, tune_config(), ShuffledExecutor(6, slots=4)).run()
    records = TuningRecords(store)
    rows = records.acceptances(run_id)
    # Every 48 games of 4-game iterations: after iterations 11 and 23 (the last).
    assert [(r.candidate, r.stage) for r in rows] == [(11, 0), (23, 0)]
    for row in rows:
        assert row.run_id is not None, "theta (rounded) was still the champion's"
        run = store.get_run(row.run_id)
        assert run is not None and run.kind == RunKind.ACCEPTANCE and run.state == "finished"
        theta = next(r.theta for r in records.iterations(run_id) if r.iteration == row.candidate)
        assert theta is not None
        assert run.config["candidate"] == {**tune_config().start, **spsa.rounded(theta)}
    assert set(records.children(run_id)) >= {r.run_id for r in rows}


def test_stochastic_rounding_is_fishtests_and_the_same_on_every_machine() -> None:
    plan = spsa.plan_for([("w", 0, 100)], iterations=1000, pairs_per_iteration=1)
    theta = {"w": 50.3}
    ups, chances = 0, 0.0
    for k in range(400):
        pair = spsa.perturb(plan, theta, k, (1,), rounding_seed=7)
        again = spsa.perturb(plan, theta, k, (1,), rounding_seed=7)
        assert pair == again  # a function of the seed and the iteration alone
        exact = 50.3 + plan.c(plan.weights[0], k)
        assert pair.plus["w"] in (math.floor(exact), math.ceil(exact))
        ups += pair.plus["w"] == math.ceil(exact)
        chances += exact % 1
    # Rounded up about as often as the fractions say (400 draws: within 4 standard deviations).
    assert abs(ups - chances) < 4 * math.sqrt(400 * 0.25), (ups, chances)
    nearest = spsa.perturb(plan, theta, 0, (1,))
    assert nearest.plus["w"] == round(50.3 + plan.c(plan.weights[0], 0))


def test_openbench_parameter_lists() -> None:
    text = (
        "# tuned\nlmr_reduction, int, 1, 0, 4, 0.5, 0.002\n\naspiration_window, int, 30, 0, 200, 10, 0.0020\n"
    )
    params = parse_spsa_params(text, "p.txt")
    assert [p.row() for p in params] == [
        ["lmr_reduction", 1, 0, 4, 0.5, 0.002],
        ["aspiration_window", 30, 0, 200, 10.0, 0.002],
    ]
    for bad, says in [
        ("a, int, 1, 0, 4, 0.5", "p.txt:1: expected 'name, int, start, min, max, c_end, r_end'"),
        ("a, float, 1, 0, 4, 0.5, 0.002", "p.txt:1: a: expected type int"),
        ("a, int, 5, 0, 4, 0.5, 0.002", "expected min < max and start within them"),
        ("a, int, 1.5, 0, 4, 0.5, 0.002", "start: expected a whole number"),
        ("a, int, 1, 0, 4, 0, 0.002", "expected c_end > 0 and r_end > 0"),
        ("a, int, 1, 0, 4, 1, 0.002\na, int, 1, 0, 4, 1, 0.002", "p.txt:2: a is listed twice"),
        ("# nothing", "no parameter listed"),
    ]:
        with pytest.raises(ValueError, match=re.escape(says)):
            parse_spsa_params(bad, "p.txt")
