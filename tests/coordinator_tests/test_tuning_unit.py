"""The pure pieces of ``arbiter tune``: search space, samplers, pruner, configuration, Elo chain,
durations, and the tuner's recovery of a killed run (no games are played here)."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import optuna
import pytest
from optuna.trial import TrialState
from report_testkit import FLAT, InProcessExecutor
from sprt_testkit import batch_result, book_positions

import engine
from coordinator.cli.tune import parse_duration
from coordinator.executors.base import BatchOutcome, Executor
from coordinator.reports import build, gather, html_page
from coordinator.runs import RunKind
from coordinator.sprt.runner import PrefixCounter
from coordinator.stats import fixed_elo
from coordinator.store import Store, StoredResult
from coordinator.tuning.acceptance import AcceptanceQueue, Candidate
from coordinator.tuning.config import TuneConfig
from coordinator.tuning.objective import superiority
from coordinator.tuning.records import Champion, TuningRecords
from coordinator.tuning.space import (
    SAMPLERS,
    LosPruner,
    candidate_weights,
    distributions,
    make_pruner,
    make_sampler,
    tuned_names,
)
from coordinator.tuning.tuner import Tuner, elo_vs_start
from worker.protocol import BatchPayload

# --- tuned_names --------------------------------------------------------------------------------


@pytest.mark.parametrize("game", engine.GAMES)
def test_tuned_names_default_to_the_whole_table_in_order(game: str) -> None:
    table = [w.name for w in engine.weights(game)]
    assert tuned_names(game, None) == table
    assert tuned_names(game, []) == table


def test_tuned_names_keep_a_subset_in_the_given_order() -> None:
    assert tuned_names("congo", ["mobility", "pawn"]) == ["mobility", "pawn"]
    assert tuned_names("congress", ("king",)) == ["king"]


def test_tuned_names_reject_an_unknown_name_and_name_it() -> None:
    with pytest.raises(ValueError, match="dragon"):
        tuned_names("congo", ["pawn", "dragon"])
    # A name of the other game is unknown too.
    with pytest.raises(ValueError, match="politician"):
        tuned_names("congo", ["politician"])


def test_tuned_names_reject_a_duplicate() -> None:
    with pytest.raises(ValueError, match="twice"):
        tuned_names("congress", ["pawn", "king", "pawn"])


# --- distributions ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", engine.GAMES)
def test_distributions_are_the_tables_integer_ranges(game: str) -> None:
    table = engine.weights(game)
    space = distributions(game, [w.name for w in table])
    assert list(space) == [w.name for w in table]
    for w in table:
        d = space[w.name]
        assert isinstance(d, optuna.distributions.IntDistribution)
        assert (d.low, d.high, d.step, d.log) == (w.min, w.max, 1, False)
        assert d.low <= w.default <= d.high


def test_distributions_of_a_subset() -> None:
    space = distributions("congo", ["mobility"])
    mobility = next(w for w in engine.weights("congo") if w.name == "mobility")
    assert space == {"mobility": optuna.distributions.IntDistribution(mobility.min, mobility.max)}


# --- samplers -----------------------------------------------------------------------------------


def test_make_sampler_builds_each_known_sampler() -> None:
    kinds = {
        "tpe": optuna.samplers.TPESampler,
        "cmaes": optuna.samplers.CmaEsSampler,
        "random": optuna.samplers.RandomSampler,
    }
    assert set(kinds) == set(SAMPLERS)
    for name, kind in kinds.items():
        assert isinstance(make_sampler(name, 3), kind)


def test_make_sampler_rejects_an_unknown_name() -> None:
    with pytest.raises(ValueError, match="foo"):
        make_sampler("foo", 0)


@pytest.mark.parametrize("name", SAMPLERS)
def test_samplers_are_seeded_and_stay_inside_the_space(name: str) -> None:
    space = distributions("congress", tuned_names("congress", None))

    def proposals(seed: int) -> list[dict[str, Any]]:
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        study = optuna.create_study(sampler=make_sampler(name, seed), direction="maximize")
        asked = []
        for i in range(3):
            trial = study.ask(space)
            asked.append(trial.params)
            study.tell(trial, float(i))
        return asked

    first = proposals(7)
    assert first == proposals(7)
    for params in first:
        assert set(params) == set(space)
        for key, value in params.items():
            assert isinstance(value, int)
            assert space[key].low <= value <= space[key].high


# --- candidate_weights --------------------------------------------------------------------------


def test_candidate_weights_override_only_the_tuned_names() -> None:
    champion = {"pawn": 100, "king": 500, "mobility": 5}
    candidate = candidate_weights(champion, {"pawn": 140, "mobility": 7.0})
    assert candidate == {"pawn": 140, "king": 500, "mobility": 7}
    assert all(isinstance(v, int) for v in candidate.values())
    assert champion == {"pawn": 100, "king": 500, "mobility": 5}  # not modified
    assert candidate_weights(champion, {}) == champion


# --- LosPruner ----------------------------------------------------------------------------------


def frozen(**user_attrs: Any) -> optuna.trial.FrozenTrial:
    return optuna.trial.create_trial(state=TrialState.COMPLETE, value=0.0, user_attrs=user_attrs)


@pytest.mark.parametrize(
    ("attrs", "pruned"),
    [
        ({"los": 0.01, "batches": 2}, True),
        ({"los": 0.01, "batches": 9}, True),
        ({"los": 0.0499, "batches": 2}, True),
        ({"los": 0.05, "batches": 2}, False),  # at the threshold: kept
        ({"los": 0.5, "batches": 5}, False),
        ({"los": 0.99, "batches": 5}, False),
        ({"los": 0.0, "batches": 1}, False),  # too few batches to judge
        ({"los": 0.0}, False),
        ({"batches": 5}, False),  # nothing reported yet
        ({}, False),
    ],
)
def test_los_pruner_thresholds(attrs: dict[str, Any], pruned: bool) -> None:
    study = optuna.create_study(direction="maximize")
    assert LosPruner(0.05, min_batches=2).prune(study, frozen(**attrs)) is pruned


def test_los_pruner_uses_its_own_threshold_and_minimum() -> None:
    study = optuna.create_study(direction="maximize")
    assert LosPruner(0.3, min_batches=2).prune(study, frozen(los=0.2, batches=2))
    assert not LosPruner(0.1, min_batches=2).prune(study, frozen(los=0.2, batches=2))
    assert not LosPruner(0.3, min_batches=4).prune(study, frozen(los=0.2, batches=3))
    assert LosPruner(0.3, min_batches=4).prune(study, frozen(los=0.2, batches=4))


def test_los_pruner_through_should_prune() -> None:
    study = optuna.create_study(direction="maximize", pruner=LosPruner(0.05))
    trial = study.ask({"x": optuna.distributions.IntDistribution(0, 10)})
    trial.report(-100.0, step=8)
    trial.set_user_attr("los", 0.01)
    trial.set_user_attr("batches", 1)
    assert not trial.should_prune()
    trial.set_user_attr("batches", 2)
    assert trial.should_prune()


# --- TuneConfig ---------------------------------------------------------------------------------


def config(**overrides: Any) -> TuneConfig:
    values: dict[str, Any] = {
        "game": "congress",
        "params": ["pawn", "king"],
        "start": dict(engine.validate_weights("congress", None)),
        "openings": book_positions("congress", 4),
        "engine_version": engine.ENGINE_VERSION,
        **overrides,
    }
    return TuneConfig(**values)


@pytest.mark.parametrize(
    ("overrides", "needle"),
    [
        ({"accept_elo0": 5.0, "accept_elo1": 5.0}, "accept-elo1"),
        ({"accept_elo0": 5.0, "accept_elo1": 2.0}, "accept-elo1"),
        ({"prune_los": 0.0}, "prune-los"),
        ({"prune_los": 1.0}, "prune-los"),
        ({"prune_los": -0.5}, "prune-los"),
        ({"prune_los": 1.5}, "prune-los"),
        ({"accept_margin": 0.0}, "accept-margin"),
        ({"accept_margin": -10.0}, "accept-margin"),
        ({"params": []}, "params"),
        ({"trial_pairs": 0}, "trial_pairs"),
        ({"batch_pairs": 0}, "batch_pairs"),
        ({"time_limit": 0.0}, "time_limit"),
        ({"method": "foo"}, "--method"),
        ({"radius": 2.0}, "--radius"),
        ({"radius": 0.0}, "--radius"),
        ({"accept_nodes": [0]}, "--accept-nodes"),
        ({"accept_nodes": [500, 500]}, "--accept-nodes"),
        ({"min_trial_pairs": 0}, "--min-trial-pairs"),
        ({"halving_factor": 1}, "--halving-factor"),
        ({"accept_every": 0}, "--accept-every"),
        ({"spsa_lag": -1}, "--spsa-lag"),
        ({"spsa_c_end": 0.0}, "--c-end"),
        ({"spsa_r_end": -1.0}, "--r-end"),
        ({"method": "spsa", "max_games": None}, "--max-games"),
        ({"method": "spsa", "max_games": 3, "batch_pairs": 2}, "--max-games"),
    ],
)
def test_tune_config_rejects_unusable_settings(overrides: dict[str, Any], needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        config(**overrides)


def test_tune_config_json_round_trip_and_fingerprint() -> None:
    original = config(sampler="cmaes", seed=9, time_limit=30.0, max_games=1000, prune_los=0.2)
    data = json.loads(json.dumps(original.to_json()))  # as the store keeps it
    again = TuneConfig.from_json(data)
    assert again == original
    assert again.fingerprint() == original.fingerprint()
    assert len(original.fingerprint()) == 64
    assert config(seed=10).fingerprint() != config(seed=11).fingerprint()
    assert config(params=["king", "pawn"]).fingerprint() != config().fingerprint()


def test_trial_and_accept_configs() -> None:
    c = config(trial_pairs=12, batch_pairs=2, accept_margin=25.0, accept_max_games=400, seed=3)
    champion = dict(c.start)
    candidate = candidate_weights(champion, {"pawn": 150})
    trial = c.trial_config(4, candidate, champion, "tune run 1")
    assert trial.candidate == candidate and trial.baseline == champion
    assert trial.max_games == 24 and trial.batch_pairs == 2
    assert (trial.elo0, trial.elo1, trial.elo_model) == (0.0, 25.0, "logistic")
    assert trial.openings == c.openings and trial.limits == c.limits
    accept = c.accept_config(4, candidate, champion, "tune run 1")
    assert (accept.elo0, accept.elo1, accept.elo_model) == (c.accept_elo0, c.accept_elo1, "normalized")
    assert accept.max_games == 400
    assert accept.limits == c.limits  # no --accept-nodes: acceptance at the trials' limits
    staged = config(accept_nodes=[2000, 500])
    assert staged.stages == 2
    assert [staged.accept_config(4, candidate, champion, "t", s).limits for s in (0, 1)] == [
        {"nodes": 2000},
        {"nodes": 500},
    ]
    assert (
        staged.accept_config(4, candidate, champion, "t", 1).seed
        != staged.accept_config(4, candidate, champion, "t").seed
    )
    # Seeds differ between trials, between a trial and its SPRT, and follow the run's seed.
    seeds = {trial.seed, accept.seed, c.trial_config(5, candidate, champion, "t").seed}
    assert len(seeds) == 3
    assert config(seed=4).trial_config(4, candidate, champion, "t").seed != trial.seed
    assert c.trial_config(4, candidate, champion, "t").seed == trial.seed


# --- elo_vs_start -------------------------------------------------------------------------------


def champion(number: int, parent: int | None, elo: float, low: float, high: float) -> Champion:
    return Champion(number, {"pawn": 100 + number}, parent, number or None, number or None, elo, low, high)


def test_elo_vs_start_sums_the_gains_along_the_chain() -> None:
    chain = [
        champion(0, None, 0.0, 0.0, 0.0),
        champion(1, 0, 30.0, 20.0, 40.0),  # half-width 10
        champion(2, 1, 12.0, 0.0, 24.0),  # half-width 12
        champion(3, 2, 5.0, -4.0, 14.0),  # half-width 9
    ]
    assert elo_vs_start(chain, 0) == (0.0, 0.0)
    assert elo_vs_start(chain, 1) == pytest.approx((30.0, 10.0))
    assert elo_vs_start(chain, 2) == pytest.approx((42.0, math.hypot(10, 12)))
    assert elo_vs_start(chain, 3) == pytest.approx((47.0, math.sqrt(100 + 144 + 81)))


def test_elo_vs_start_follows_parents_not_numbers() -> None:
    chain = [
        champion(0, None, 0.0, 0.0, 0.0),
        champion(1, 0, 30.0, 20.0, 40.0),
        champion(2, 0, 8.0, 2.0, 14.0),  # replaced the start directly
    ]
    assert elo_vs_start(chain, 2) == pytest.approx((8.0, 6.0))
    assert elo_vs_start(chain, 7) == (0.0, 0.0)  # unknown: nothing to add


# --- parse_duration -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90.0), ("90s", 90.0), ("30m", 1800.0), ("2h", 7200.0), ("1.5m", 90.0), (" 5s ", 5.0)],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


def test_parse_duration_none_is_no_limit() -> None:
    assert parse_duration(None) is None


@pytest.mark.parametrize("text", ["abc", "", "s", "0", "0s", "-5", "5d", "5 m s", "1e3", "m5", "5ms"])
def test_parse_duration_rejects_bad_strings(text: str) -> None:
    with pytest.raises(click.BadParameter) as raised:
        parse_duration(text)
    assert raised.value.param_hint == "'--time-limit'"
    assert repr(text) in raised.value.format_message()


# --- recovery of a killed run (the tuner's bookkeeping; no games) -------------------------------


class IdleExecutor(Executor):
    """An executor that never runs anything (the tests below only start and recover trials)."""

    slots = 2

    def submit(self, payload: BatchPayload) -> None:
        raise AssertionError("nothing is played in these tests")

    def in_flight(self) -> int:
        return 0

    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]:
        return iter(())

    def cancel(self) -> None:
        pass

    def close(self) -> None:
        pass


def sorted_items(params: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(params.items())


@pytest.fixture
def tune_run(tmp_path: Path) -> tuple[Store, int, TuneConfig]:
    store = Store(f"sqlite:///{tmp_path / 'tune.db'}")
    c = config(sampler="random", seed=5, max_trials=3)
    run_id = store.create_run(RunKind.TUNE, c.game, c.to_json(), c.fingerprint())
    return store, run_id, c


def test_recover_fails_running_trials_and_asks_their_params_again(
    tune_run: tuple[Store, int, TuneConfig],
) -> None:
    store, run_id, c = tune_run
    first = Tuner(store, run_id, c, IdleExecutor())
    first._new_trial()
    first._new_trial()
    first._new_trial()  # the whole budget of 3 asked; the coordinator dies here
    assert not first._budget_left()
    records = TuningRecords(store)
    killed = {t.trial_number: t.params for t in records.trials(run_id)}
    assert len(killed) == 3

    second = Tuner(store, run_id, c, IdleExecutor())
    rows = records.trials(run_id)
    assert [t.state for t in rows] == ["failed"] * 3
    for row in rows:
        trial_run = store.get_run(row.trial_run_id)
        assert trial_run is not None and trial_run.state == "failed"
    assert [t.state for t in second.study.trials[:3]] == [TrialState.FAIL] * 3
    # Failed trials do not use the budget: every one of them is asked again, then the budget ends.
    asked_again = []
    while second._budget_left():
        second._new_trial()
        asked_again.append(records.trials(run_id)[-1].params)
        assert len(asked_again) <= 3
    assert asked_again == [killed[n] for n in sorted(killed)]
    assert [c.number for c in second.champions] == [0]  # the start weights, recorded once


def test_recover_survives_a_kill_between_optuna_and_the_trial_row(
    tune_run: tuple[Store, int, TuneConfig],
) -> None:
    store, run_id, c = tune_run
    c = dataclasses.replace(c, max_trials=10)
    first = Tuner(store, run_id, c, IdleExecutor())
    first._new_trial()
    first._new_trial()
    params = {t.trial_number: t.params for t in TuningRecords(store).trials(run_id)}
    # Trial 0 was told to Optuna as pruned, but the coordinator died before recording it;
    # trial 2 was asked from Optuna, but no trial row was written yet.
    first.study.tell(0, state=TrialState.PRUNED)
    orphan = first.study.ask(first.space)

    second = Tuner(store, run_id, c, IdleExecutor())
    states = {t.number: t.state for t in second.study.trials}
    assert states[orphan.number] == TrialState.FAIL
    assert states[0] == TrialState.PRUNED
    assert states[1] == TrialState.FAIL
    assert {t.trial_number: t.state for t in TuningRecords(store).trials(run_id)} == {
        0: "failed",
        1: "failed",
    }
    # All three are asked again first (the orphan's parameters came from Optuna alone).
    again = []
    for _ in range(3):
        second._new_trial()
        again.append(TuningRecords(store).trials(run_id)[-1].params)
    expected = [params[0], params[1], dict(orphan.params)]
    assert sorted(again, key=sorted_items) == sorted(expected, key=sorted_items)


def test_recover_crowns_a_candidate_accepted_just_before_the_kill(
    tune_run: tuple[Store, int, TuneConfig],
) -> None:
    store, run_id, c = tune_run
    c = dataclasses.replace(c, max_trials=2)
    first = Tuner(store, run_id, c, IdleExecutor())
    first._new_trial()  # trial 0: the start weights themselves
    first._new_trial()
    start, active = list(first.trials.values())
    assert (start.trial.number, start.candidate) == (0, c.start)
    assert active.trial.number == 1 and active.candidate != c.start
    first.study.tell(start.trial, 0.0)
    first._close_trial(start, "complete", 0.0, 3.0, 24)
    first.study.tell(active.trial, 300.0)
    first._close_trial(active, "complete", 300.0, 50.0, 24)
    first.acceptance.submit(Candidate(active.trial.number, active.candidate))
    first.acceptance.advance()
    assert first.acceptance.active is not None
    accept = first.acceptance.active.runner
    # Its SPRT accepts (stored results, counted prefix and decision) ...
    prefix = PrefixCounter(accept.config)
    stored: dict[int, StoredResult] = {}
    while prefix.decision is None and len(stored) < 100:
        index = len(stored)
        result = batch_result([0, 0, 1, 1, 2], engine_version=c.engine_version)
        assert store.record_result(accept.run_id, index, result)
        kept = store.result(accept.run_id, index)
        assert kept is not None
        stored[index] = kept
        prefix.advance(stored)
    assert prefix.decision == "accepted"
    store.update_run(
        accept.run_id, state="finished", counted_batches=prefix.batches, decision="accepted", finished=True
    )
    # ... and the coordinator dies before it records the new champion.
    assert [ch.number for ch in TuningRecords(store).champions(run_id)] == [0]

    second = Tuner(store, run_id, c, IdleExecutor())
    second.run()
    champions = TuningRecords(store).champions(run_id)
    assert [ch.number for ch in champions] == [0, 1]
    assert champions[1].accept_run_id == accept.run_id and champions[1].trial_number == 1
    assert champions[1].weights == active.candidate
    assert champions[1].elo_vs_parent > 0


# --- local search: the radius and CMA-ES from the champion --------------------------------------


def test_radius_narrows_each_range_around_the_start() -> None:
    table = {w.name: w for w in engine.weights("congo")}
    start = dict(engine.validate_weights("congo", None))
    names = ["pawn", "mobility", "river_piece"]
    space = distributions("congo", names, start, 0.1)
    for name in names:
        w, d = table[name], space[name]
        assert isinstance(d, optuna.distributions.IntDistribution)
        reach = max(1, round(0.1 * (w.max - w.min)))
        assert (d.low, d.high) == (max(w.min, start[name] - reach), min(w.max, start[name] + reach))
        assert d.low <= start[name] <= d.high
    # mobility: default 4, range 0..30, reach 3: 1..7; at the table's edge the box is clipped.
    assert (space["mobility"].low, space["mobility"].high) == (1, 7)
    edge = distributions("congo", ["mobility"], {"mobility": 0}, 0.5)
    assert (edge["mobility"].low, edge["mobility"].high) == (0, 15)
    # A tiny radius still leaves each weight a neighbour on both sides.
    tiny = distributions("congo", ["mobility"], start, 0.001)
    assert (tiny["mobility"].low, tiny["mobility"].high) == (3, 5)


def test_cmaes_starts_from_the_champion_with_a_small_step() -> None:
    game = "congress"
    names = tuned_names(game, None)
    table = {w.name: w for w in engine.weights(game)}
    start = {n: int(v) for n, v in engine.validate_weights(game, None).items()}
    space = distributions(game, names)

    def distance(sampler: optuna.samplers.BaseSampler) -> float:
        """Mean distance of 20 proposals from the start, as a fraction of each range."""
        study = optuna.create_study(sampler=sampler, direction="maximize")
        study.enqueue_trial(start)
        first = study.ask(space)
        study.tell(first, 0.0)
        gaps = []
        for _ in range(20):
            trial = study.ask(space)
            gaps += [abs(trial.params[n] - start[n]) / (table[n].max - table[n].min) for n in names]
            study.tell(trial, 0.0)
        return sum(gaps) / len(gaps)

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    local = distance(make_sampler("cmaes", 1, start))
    assert local < 0.12
    assert distance(make_sampler("cmaes", 1)) > 2 * local  # the default starts mid-range, wide


# --- the pruner: LOS, then successive halving over game budgets ---------------------------------


def test_successive_halving_stops_all_but_the_best_third_at_each_rung() -> None:
    pruner = make_pruner(0.05, min_trial_pairs=4, trial_pairs=36, halving_factor=3)
    assert pruner.halving is not None
    study = optuna.create_study(direction="maximize", pruner=pruner)
    space = {"x": optuna.distributions.IntDistribution(0, 100)}
    kept = []
    for value in (5.0, 1.0, 9.0, 2.0, 3.0, 12.0):
        trial = study.ask(space)
        trial.set_user_attr("los", 0.5)  # never clearly worse: only halving decides
        trial.set_user_attr("batches", 4)
        trial.report(value, step=8)  # the first rung: 2 * 4 pairs
        kept.append(not trial.should_prune())
        study.tell(
            trial,
            state=TrialState.PRUNED if not kept[-1] else TrialState.COMPLETE,
            values=None if not kept[-1] else value,
        )
    # Each trial is compared with those that reached the rung before it: promoted when in the top third.
    assert kept == [True, False, True, False, False, True]
    assert make_pruner(0.05, min_trial_pairs=36, trial_pairs=36, halving_factor=3).halving is None


# --- the objective: Elo against the start, whatever the champion --------------------------------


def objective_config(**overrides: Any) -> TuneConfig:
    return config(
        params=["pawn", "politician"],
        sampler="random",
        seed=2,
        trial_pairs=4,
        min_trial_pairs=4,
        batch_pairs=2,
        limits={"nodes": 80},
        prune_los=1e-9,
        radius=0.05,  # candidates near the start: never clearly worse, so none is pruned
        accept_margin=1000.0,  # and none goes to an acceptance SPRT: the test crowns its own
        max_trials=3,
        **overrides,
    )


def prefix_elos(store: Store, run_id: int) -> dict[int, float]:
    """Elo of a run's counted prefix after each batch, by games counted."""
    run = store.get_run(run_id)
    assert run is not None
    penta, out = [0] * 5, {}
    for result in sorted(store.results(run_id), key=lambda r: r.batch_index)[: run.counted_batches]:
        penta = [a + b for a, b in zip(penta, result.pentanomial, strict=True)]
        out[2 * sum(penta)] = fixed_elo(penta).elo
    return out


def test_the_objective_keeps_one_meaning_after_a_change_of_champion(
    tune_run: tuple[Store, int, TuneConfig],
) -> None:
    store, run_id, _ = tune_run
    c = objective_config()
    first = Tuner(store, run_id, c, InProcessExecutor(slots=2))
    first.run()
    records = TuningRecords(store)
    before = {t.trial_number: t for t in records.trials(run_id)}
    assert sorted(before) == [0, 1, 2] and all(t.state == "complete" for t in before.values())
    # A champion is crowned (its acceptance SPRT left out: only the champion changes here).
    crowned = Champion(1, candidate_weights(c.start, before[1].params), 0, 1, None, 40.0, 30.0, 50.0)
    records.add_champion(run_id, crowned)
    c = dataclasses.replace(c, max_trials=5)
    second = Tuner(store, run_id, c, InProcessExecutor(slots=2))
    assert second.champion == crowned
    second.study.enqueue_trial(before[1].params)  # the new champion's own weights, measured again
    second.run()
    trials = {t.number: t for t in second.study.trials}
    assert sorted(trials) == [0, 1, 2, 3, 4]
    for row in records.trials(run_id):
        run = store.get_run(row.trial_run_id)
        assert run is not None
        # Every trial, before and after the change, played the start weights ...
        assert run.config["baseline"] == c.start
        assert run.config["candidate"] == candidate_weights(c.start, row.params)
        # ... and its value and every intermediate value are its Elo against them.
        trial = trials[row.trial_number]
        assert trial.value == pytest.approx(fixed_elo(store.totals(run.id).pentanomial).elo)
        assert trial.intermediate_values == pytest.approx(prefix_elos(store, run.id))
        assert row.elo == pytest.approx(trial.value)
    # The start weights against themselves: mirrored pairs, exactly 0.
    assert trials[0].params == {n: c.start[n] for n in c.params} and trials[0].value == pytest.approx(0.0)
    # After the change a trial is compared with the champion's own value: the LOS is relative to it.
    after = trials[3]
    assert after.params == before[1].params and after.user_attrs["champion"] == 1
    champion_value = (before[1].elo, before[1].elo95)
    assert after.user_attrs["los"] == pytest.approx(
        superiority(after.value, after.user_attrs["elo95"], *champion_value)
    )


# --- multi-fidelity acceptance -------------------------------------------------------------------


def accept(tmp_path: Path, accept_nodes: list[int]) -> tuple[Store, int, list[Champion]]:
    """Play the acceptance SPRTs of the engine's defaults against the flat start."""
    flat = engine.validate_weights("congress", json.loads(FLAT["congress"].read_text()))
    c = config(
        start=dict(flat),
        accept_nodes=accept_nodes,
        accept_elo1=30.0,
        accept_max_games=160,
        batch_pairs=4,
        limits={"nodes": 200},
    )
    store = Store(f"sqlite:///{tmp_path / 'accept.db'}")
    run_id = store.create_run(RunKind.TUNE, c.game, c.to_json(), c.fingerprint())
    champions = [Champion(0, dict(flat), None, None, None, 0.0, 0.0, 0.0)]
    TuningRecords(store).add_champion(run_id, champions[0])
    executor = InProcessExecutor(slots=4)
    queue = AcceptanceQueue(store, run_id, c, executor, champions)
    queue.submit(Candidate(7, dict(engine.validate_weights("congress", None))))
    for _ in range(200):
        if not queue.busy:
            break
        queue.fill()
        for outcome in executor.completed():
            assert queue.owns(outcome.run_id)
            queue.receive(outcome)
        queue.count()
    assert not queue.busy
    return store, run_id, champions


def test_two_accept_nodes_both_pass_and_crown(tmp_path: Path) -> None:
    store, run_id, champions = accept(tmp_path, [200, 400])
    rows = TuningRecords(store).acceptances(run_id)
    assert [(r.candidate, r.stage, r.champion_number) for r in rows] == [(7, 0, 0), (7, 1, 0)]
    runs = [store.get_run(r.run_id) for r in rows if r.run_id is not None]
    assert [(r.config["limits"], r.decision) for r in runs if r is not None] == [
        ({"nodes": 200}, "accepted"),
        ({"nodes": 400}, "accepted"),
    ]
    assert [c.number for c in champions] == [0, 1] and champions[1].trial_number == 7
    assert champions[1].accept_run_id == rows[0].run_id  # its Elo: the first setting's SPRT
    assert TuningRecords(store).champions(run_id) == champions
    # The report shows both settings: each SPRT with its node count, the chain at each setting.
    run = store.get_run(run_id)
    assert run is not None
    data = gather(store, run)
    assert [(a["trial"], a["stage"], a["limits"], a["crowned"]) for a in data["acceptances"]] == [
        (7, 0, {"nodes": 200}, True),
        (7, 1, {"nodes": 400}, True),
    ]
    assert [v["limits"] for v in data["stages"]] == [{"nodes": 200}, {"nodes": 400}]
    first, second = (v["champions"][1]["elo_vs_start"] for v in data["stages"])
    assert first == pytest.approx(champions[1].elo_vs_parent) and second > 0
    page = html_page(build(store, run))
    assert "At each acceptance setting" in page and "400 nodes" in page


def test_two_accept_nodes_need_both_sprts(tmp_path: Path) -> None:
    # At 1 node both engines play the same moves: the second SPRT cannot accept.
    store, run_id, champions = accept(tmp_path, [200, 1])
    rows = TuningRecords(store).acceptances(run_id)
    assert [(r.stage, r.champion_number) for r in rows] == [(0, 0), (1, 0)]
    decisions = [store.get_run(r.run_id).decision for r in rows if r.run_id is not None]  # type: ignore[union-attr]
    assert decisions[0] == "accepted" and decisions[1] != "accepted"
    assert [c.number for c in champions] == [0]
    assert [c.number for c in TuningRecords(store).champions(run_id)] == [0]
