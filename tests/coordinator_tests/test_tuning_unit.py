"""``arbiter tune`` in this process: search space, samplers, pruner, configuration, Elo chain and
durations; the tuner's recovery of a killed run; and, playing real games at tiny node counts, the
objective, the acceptance stages and the tuner's determinism (the same trials with any number of
slots, any delivery order, and after a kill or an interruption)."""

from __future__ import annotations

import dataclasses
import json
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import optuna
import pytest
from optuna.trial import TrialState
from report_testkit import FLAT, InProcessExecutor, ShuffledExecutor, new_tune_run
from sprt_testkit import batch_result, book_positions

import engine
from coordinator.cli.tune import parse_duration
from coordinator.executors.base import BatchOutcome, Executor
from coordinator.reports import build, gather, html_page
from coordinator.reports.tuning.data import TuneReport
from coordinator.runs import RunKind
from coordinator.sprt.runner import PrefixCounter
from coordinator.stats import fixed_elo
from coordinator.store import Store, StoredResult
from coordinator.store.results import CheckedResult
from coordinator.tuning.acceptance import AcceptanceQueue, Candidate
from coordinator.tuning.config import SAMPLERS, TuneConfig, tuned_names
from coordinator.tuning.context import TuningContext
from coordinator.tuning.objective import superiority
from coordinator.tuning.progress import elo_vs_start
from coordinator.tuning.pruning import TrialPruner, make_pruner
from coordinator.tuning.records import Champion, TuningRecords
from coordinator.tuning.space import candidate_weights, distributions, make_sampler
from coordinator.tuning.tuner import Tuner, optuna_storage, study_name
from wire.protocol import BatchPayload

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


def test_make_sampler_builds_each_known_sampler_per_trial() -> None:
    kinds = {
        "tpe": optuna.samplers.TPESampler,
        "cmaes": optuna.samplers.CmaEsSampler,
        "random": optuna.samplers.RandomSampler,
    }
    assert set(kinds) == set(SAMPLERS)
    trial = optuna.trial.create_trial(state=TrialState.COMPLETE, value=0.0)
    for name, kind in kinds.items():
        assert isinstance(make_sampler(name, 3).inner(trial), kind)


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


@pytest.mark.parametrize("name", SAMPLERS)
def test_a_trials_proposal_depends_on_the_seed_its_number_and_the_history_only(name: str) -> None:
    """What a coordinator resumed after a kill needs: a new sampler, given the same trials, proposes
    what the old one (which had answered many calls before) would have, running trials included
    (TPE's constant liar reads them) and past TPE's random start-up trials."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    space = distributions("congress", tuned_names("congress", None))
    first = optuna.create_study(sampler=make_sampler(name, 4), direction="maximize")
    for i in range(10):
        trial = first.ask(space)
        first.tell(trial, float(i * 7 % 5))
    running = [first.ask(space) for _ in range(2)]
    asked = first.ask(space)
    assert [t.number for t in running] == [10, 11] and asked.number == 12
    fresh = optuna.create_study(sampler=make_sampler(name, 4), direction="maximize")
    fresh.add_trials(first.trials[:12])
    again = fresh.ask(space)
    assert again.number == 12 and again.params == asked.params
    other = optuna.create_study(sampler=make_sampler(name, 5), direction="maximize")
    other.add_trials(first.trials[:12])
    assert other.ask(space).params != asked.params  # the seed matters


# --- candidate_weights --------------------------------------------------------------------------


def test_candidate_weights_override_only_the_tuned_names() -> None:
    champion = {"pawn": 100, "king": 500, "mobility": 5}
    candidate = candidate_weights(champion, {"pawn": 140, "mobility": 7.0})
    assert candidate == {"pawn": 140, "king": 500, "mobility": 7}
    assert all(isinstance(v, int) for v in candidate.values())
    assert champion == {"pawn": 100, "king": 500, "mobility": 5}  # not modified
    assert candidate_weights(champion, {}) == champion


# --- the pruner: LOS, then successive halving against the trials told before -------------------


@pytest.mark.parametrize(
    ("batches", "los", "pruned"),
    [
        (2, 0.01, True),
        (9, 0.01, True),
        (2, 0.0499, True),
        (2, 0.05, False),  # at the threshold: kept
        (5, 0.5, False),
        (5, 0.99, False),
        (1, 0.0, False),  # too few batches to judge
    ],
)
def test_los_prunes_below_its_threshold_once_two_batches_are_counted(
    batches: int, los: float, pruned: bool
) -> None:
    pruner = TrialPruner(0.05, (), 3)  # no halving
    assert pruner.prune(batches, (8 * batches - 8, 8 * batches), -50.0, los, {}) is pruned
    assert TrialPruner(0.3, (), 3).prune(2, (8, 16), 0.0, 0.2, {})
    assert not TrialPruner(0.1, (), 3).prune(2, (8, 16), 0.0, 0.2, {})


def test_make_pruner_rungs_are_the_game_budgets_of_successive_halving() -> None:
    assert make_pruner(0.05, min_trial_pairs=4, trial_pairs=36, halving_factor=3).rungs == (8, 24, 72)
    assert make_pruner(0.05, min_trial_pairs=8, trial_pairs=64, halving_factor=3).rungs == (16, 48)
    assert make_pruner(0.05, min_trial_pairs=36, trial_pairs=36, halving_factor=3).rungs == ()
    pruner = make_pruner(0.05, min_trial_pairs=4, trial_pairs=36, halving_factor=3)
    # A trial's value at a rung: after the first batch that reached it.
    assert pruner.rung_values({6: 1.0, 12: 2.0, 18: 3.0, 30: 4.0}) == {0: 2.0, 1: 4.0}
    assert pruner.rung_values({6: 1.0}) == {}


def test_successive_halving_is_optunas_rule_against_the_trials_told_before() -> None:
    """Told one after another, Optuna's own pruner sees what ours is given: the same verdicts,
    rung by rung, for trials reporting after each 6-game batch."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    ours = make_pruner(1e-9, min_trial_pairs=4, trial_pairs=36, halving_factor=3)
    theirs = optuna.pruners.SuccessiveHalvingPruner(8, reduction_factor=3, min_early_stopping_rate=0)
    study = optuna.create_study(direction="maximize", pruner=theirs)
    rng = random.Random(5)
    courses: list[dict[int, float]] = []
    for _ in range(30):
        trial = study.ask({"x": optuna.distributions.IntDistribution(0, 9)})
        rivals, course, pruned = ours.rivals(courses), {}, False
        while len(course) < 12 and not pruned:
            games = 6 * (len(course) + 1)
            course[games] = rng.gauss(0, 50)
            trial.report(course[games], step=games)
            pruned = ours.prune(len(course), (games - 6, games), course[games], 0.5, rivals)
            assert pruned == trial.should_prune()
        if pruned:
            study.tell(trial, state=TrialState.PRUNED)
        else:
            study.tell(trial, 0.0)
        courses.append(course)
    lengths = [len(c) for c in courses]
    assert {2, 4, 12} <= set(lengths)  # pruned at the first and the second rung, and complete


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
        ({"parallel_trials": 0}, "--parallel-trials"),
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


def test_a_queued_tuning_runs_report_has_no_champions_yet(tmp_path: Path) -> None:
    """A run submitted to a server and not started yet has not crowned its start: its page was a
    500 (an IndexError on the empty champion chain)."""
    store, run_id = new_tune_run(tmp_path, "queued.db", config())
    run = store.get_run(run_id)
    assert run is not None
    report = gather(store, run)
    assert isinstance(report, TuneReport)
    assert report.champions == [] and report.stages == []
    assert "<html" in html_page(build(store, run))


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
        engine.Limits(nodes=2000),
        engine.Limits(nodes=500),
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


@pytest.fixture
def tune_run(tmp_path: Path) -> tuple[Store, int, TuneConfig]:
    c = config(sampler="random", seed=5, max_trials=3)
    store, run_id = new_tune_run(tmp_path, "tune.db", c)
    return store, run_id, c


def test_recover_takes_up_the_trials_asked_and_not_told(tune_run: tuple[Store, int, TuneConfig]) -> None:
    store, run_id, c = tune_run
    first = Tuner(store, run_id, c, IdleExecutor())
    first._ask_and_tell()  # the whole budget of 3 asked (the window is 8); the coordinator dies here
    assert first.next_number == 3 and not first._budget_left(3)
    records = TuningRecords(store)
    rows = records.trials(run_id)
    assert [t.state for t in rows] == ["running"] * 3

    second = Tuner(store, run_id, c, IdleExecutor())
    assert sorted(second.open) == [0, 1, 2]
    assert [t.state for t in second.study.trials] == [TrialState.RUNNING] * 3
    assert records.trials(run_id) == rows  # the same trials, params and store runs: nothing asked again
    for row in rows:
        trial_run = store.get_run(row.trial_run_id)
        assert trial_run is not None and trial_run.state == "running"
    second._ask_and_tell()
    assert len(second.study.trials) == 3 and second.closing  # the budget was used
    assert [c.number for c in second.champions] == [0]  # the start weights, recorded once


def test_recover_completes_an_ask_a_kill_cut_short(tmp_path: Path) -> None:
    c = config(sampler="tpe", seed=5, max_trials=4, parallel_trials=4)
    store, run_id = new_tune_run(tmp_path, "whole.db", c)
    whole = Tuner(store, run_id, c, IdleExecutor())
    whole._ask_and_tell()
    expected = [t.params for t in whole.study.trials]
    assert len(expected) == 4 and len({tuple(sorted(p.items())) for p in expected}) == 4

    store, run_id = new_tune_run(tmp_path, "cut.db", c)
    first = Tuner(store, run_id, dataclasses.replace(c, max_trials=1), IdleExecutor())
    first._ask_and_tell()  # trial 0 asked ...
    cut = first.study.ask()  # ... and trial 1 is being asked: one weight suggested, then the kill
    name = c.params[0]
    cut.suggest_int(name, first.space[name].low, first.space[name].high)
    assert list(first.study.trials[1].params) == [name]

    second = Tuner(store, run_id, c, IdleExecutor())
    assert sorted(second.open) == [0, 1]
    second._ask_and_tell()
    assert [t.params for t in second.study.trials] == expected
    rows = TuningRecords(store).trials(run_id)
    assert [r.params for r in rows] == expected  # trial 1 got its row and store run on the resume
    assert len({r.trial_run_id for r in rows}) == 4


def test_recover_crowns_a_candidate_accepted_just_before_the_kill(
    tune_run: tuple[Store, int, TuneConfig],
) -> None:
    store, run_id, c = tune_run
    c = dataclasses.replace(c, max_trials=2)
    first = Tuner(store, run_id, c, IdleExecutor())
    first._ask_and_tell()
    start, active = first.open[0], first.open[1]
    assert start.candidate == c.start and active.candidate != c.start
    # Both were told (trial 1 far ahead of the start weights), and trial 1's acceptance SPRT ...
    for opened, value in ((start, 0.0), (active, 300.0)):
        opened.trial.set_user_attr("elo95", 10.0)
        first.study.tell(opened.trial, value)
    first.acceptance.submit(Candidate(1, active.candidate))
    first.acceptance.advance()
    assert first.acceptance.active is not None
    accept = first.acceptance.active.runner
    # ... accepts (stored results, counted prefix and decision) ...
    prefix = PrefixCounter(accept.config)
    stored: dict[int, StoredResult] = {}
    while prefix.decision is None and len(stored) < 100:
        index = len(stored)
        result = batch_result([0, 0, 1, 1, 2], engine_version=c.engine_version)
        assert store.record_result(accept.run_id, index, CheckedResult.tallied(result))
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
    assert second.judged == 2 and not second.acceptance.busy


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
    # mobility from 4, range 0..30, reach 3: 1..7; at the table's edge the box is clipped.
    four = distributions("congo", ["mobility"], {"mobility": 4}, 0.1)
    assert (four["mobility"].low, four["mobility"].high) == (1, 7)
    edge = distributions("congo", ["mobility"], {"mobility": 0}, 0.5)
    assert (edge["mobility"].low, edge["mobility"].high) == (0, 15)
    # A tiny radius still leaves each weight a neighbour on both sides.
    tiny = distributions("congo", ["mobility"], {"mobility": 4}, 0.001)
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


# --- the objective: Elo against the start, whatever the champion --------------------------------


def objective_config(**overrides: Any) -> TuneConfig:
    return config(
        params=["pawn", "politician"],
        sampler="random",
        seed=2,
        trial_pairs=4,
        min_trial_pairs=4,
        batch_pairs=2,
        limits=engine.Limits(nodes=80),
        prune_los=1e-9,
        radius=0.05,  # candidates near the start: never clearly worse, so none is pruned
        accept_margin=1000.0,  # and none goes to an acceptance SPRT: the test crowns its own
        max_trials=3,
        parallel_trials=2,  # trial 3 is compared with the champion after trial 1's acceptance
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


def accept(
    tmp_path: Path, accept_nodes: list[int], left_by_a_kill: bool = False
) -> tuple[Store, int, list[Champion]]:
    """Play the acceptance SPRTs of the engine's defaults against the flat start; with
    ``left_by_a_kill``, after a kill that came between creating the first one's run and recording
    it (the run is there, in no record)."""
    flat = engine.validate_weights("congress", json.loads(FLAT["congress"].read_text()))
    c = config(
        start=dict(flat),
        accept_nodes=accept_nodes,
        accept_elo1=30.0,
        accept_max_games=160,
        batch_pairs=4,
        limits=engine.Limits(nodes=200),
    )
    store, run_id = new_tune_run(tmp_path, "accept.db", c)
    executor = InProcessExecutor(slots=4)
    context = TuningContext(store, run_id, c, executor)  # champion #0: the flat start
    champions = context.champions
    assert champions == [Champion(0, dict(flat), None, None, None, 0.0, 0.0, 0.0)]
    defaults = dict(engine.validate_weights("congress", None))
    if left_by_a_kill:
        first = c.accept_config(7, defaults, dict(flat), context.tag, 0)
        store.create_run(RunKind.ACCEPTANCE, "congress", first.to_json(), first.fingerprint())
    queue = AcceptanceQueue(context)
    queue.submit(Candidate(7, defaults))
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
    assert isinstance(data, TuneReport)
    assert [(a.trial, a.stage, a.limits, a.crowned) for a in data.acceptances] == [
        (7, 0, {"nodes": 200}, True),
        (7, 1, {"nodes": 400}, True),
    ]
    assert [v.limits for v in data.stages] == [{"nodes": 200}, {"nodes": 400}]
    first, second = (v.champions[1].elo_vs_start for v in data.stages)
    assert first == pytest.approx(champions[1].elo_vs_parent) and second > 0
    page = html_page(build(store, run))
    assert "At each acceptance setting" in page and "400 nodes" in page


def test_an_acceptance_run_a_kill_left_unrecorded_is_taken_up(tmp_path: Path) -> None:
    store, run_id, champions = accept(tmp_path, [200], left_by_a_kill=True)
    left = min(r.id for r in store.list_runs() if r.kind is RunKind.ACCEPTANCE)
    rows = TuningRecords(store).acceptances(run_id)
    assert [(r.candidate, r.stage, r.run_id) for r in rows] == [(7, 0, left)]  # not a second run
    assert [c.number for c in champions] == [0, 1]
    acceptances = [(r.id, r.state) for r in store.list_runs() if r.kind is RunKind.ACCEPTANCE]
    assert acceptances == [(left, "finished")]


def test_two_accept_nodes_need_both_sprts(tmp_path: Path) -> None:
    # At 1 node both engines play the same moves: the second SPRT cannot accept.
    store, run_id, champions = accept(tmp_path, [200, 1])
    rows = TuningRecords(store).acceptances(run_id)
    assert [(r.stage, r.champion_number) for r in rows] == [(0, 0), (1, 0)]
    decisions = [store.get_run(r.run_id).decision for r in rows if r.run_id is not None]  # type: ignore[union-attr]
    assert decisions[0] == "accepted" and decisions[1] != "accepted"
    assert [c.number for c in champions] == [0]
    assert [c.number for c in TuningRecords(store).champions(run_id)] == [0]


# --- determinism: the same trials whatever the workers, the timing or the kills -----------------


def window_config() -> TuneConfig:
    """Twelve trials, three open at once, from the flat start at 60 nodes: two champions crowned,
    an acceptance SPRT rejected, trials pruned at each rung (4 and 12 games) and by LOS."""
    flat = engine.validate_weights("congress", json.loads(FLAT["congress"].read_text()))
    return config(
        start=dict(flat),
        params=["pawn", "king", "mobility"],
        openings=book_positions("congress", 8),
        seed=7,
        trial_pairs=6,
        min_trial_pairs=2,
        batch_pairs=2,
        limits=engine.Limits(nodes=60),
        accept_elo1=30.0,
        accept_max_games=80,
        prune_los=0.25,
        max_trials=12,
        parallel_trials=3,
    )


def outcome_of(store: Store, run_id: int) -> dict[str, Any]:
    """Everything a tuning run decided, without the store's run ids (they follow the timing)."""
    records = TuningRecords(store)
    study = optuna.load_study(study_name=study_name(run_id), storage=optuna_storage(store.url))
    accepts = []
    for row in records.acceptances(run_id):
        run = store.get_run(row.run_id) if row.run_id is not None else None
        assert run is not None and run.state == "finished"
        totals = store.totals(run.id)
        accepts.append((row.candidate, row.stage, row.champion_number, run.decision, totals.pentanomial))
    champions = records.champions(run_id)
    return {
        "trials": [
            (t.trial_number, t.state, t.champion_number, t.games, t.elo, t.elo95, t.params)
            for t in records.trials(run_id)
        ],
        "optuna": [
            (t.number, t.state, t.params, t.value, t.intermediate_values, t.user_attrs | {"store_run": None})
            for t in study.trials
        ],
        "acceptances": accepts,
        "champions": [(c.number, c.parent, c.trial_number, c.weights, c.elo_vs_parent) for c in champions],
        "games": records.games(run_id),
        "games by champion": [records.games(run_id, champion=c.number) for c in champions],
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What one uninterrupted run decided: one slot."""
    store, run_id = new_tune_run(tmp_path_factory.mktemp("tune"), "reference.db", window_config())
    Tuner(store, run_id, window_config(), ShuffledExecutor(0, slots=1)).run()
    return outcome_of(store, run_id)


def test_the_reference_run_has_all_there_is_to_get_right(reference: dict[str, Any]) -> None:
    trials = reference["trials"]
    assert [t[0] for t in trials] == list(range(12))
    assert {t[1] for t in trials} == {"complete", "pruned"}
    assert {t[3] for t in trials if t[1] == "pruned"} == {4, 8, 12}  # at each rung, and by LOS between
    assert [c[0] for c in reference["champions"]] == [0, 1, 2]
    assert {a[3] for a in reference["acceptances"]} == {"accepted", "rejected"}
    assert {t[2] for t in trials} == {0, 1, 2}  # trials compared with each champion
    accepted_games = sum(2 * sum(a[4]) for a in reference["acceptances"])
    assert reference["games"] == sum(t[3] for t in trials) + accepted_games


@pytest.mark.parametrize(("seed", "slots"), [(1, 3), (2, 8)])
def test_the_same_trials_whatever_the_slots_and_delivery_order(
    reference: dict[str, Any], tmp_path: Path, seed: int, slots: int
) -> None:
    store, run_id = new_tune_run(tmp_path, "t.db", window_config())
    Tuner(store, run_id, window_config(), ShuffledExecutor(seed, slots=slots)).run()
    assert outcome_of(store, run_id) == reference


def test_trial_k_is_asked_with_trials_0_to_k_minus_w_told_in_order(tmp_path: Path) -> None:
    c = window_config()
    store, run_id = new_tune_run(tmp_path, "t.db", c)
    tuner = Tuner(store, run_id, c, ShuffledExecutor(3, slots=6))
    seen: list[list[optuna.trial.FrozenTrial]] = []
    ask = tuner.study.ask

    def watched_ask() -> optuna.trial.Trial:
        seen.append([t for t in tuner.study.get_trials() if t.state != TrialState.WAITING])
        return ask()

    tuner.study.ask = watched_ask  # type: ignore[method-assign]
    open_trials = []
    tuner.on_progress = lambda _: open_trials.append(len(tuner.open))
    tuner.run()
    assert len(seen) == 12 and max(open_trials) <= 3
    for k, trials in enumerate(seen):
        assert [t.number for t in trials] == list(range(k))
        told = [t for t in trials if t.number <= k - 3]
        assert all(t.state in (TrialState.COMPLETE, TrialState.PRUNED) for t in told)
        running = [t for t in trials if t.number > k - 3]
        assert all(t.state == TrialState.RUNNING and not t.intermediate_values for t in running)


@pytest.mark.parametrize("steps", [4, 12, 22, 30])  # of some 40: asking, accepting, closing
def test_killed_anywhere_then_resumed_it_ends_the_same(
    reference: dict[str, Any], tmp_path: Path, steps: int
) -> None:
    c = window_config()
    store, run_id = new_tune_run(tmp_path, "t.db", c)
    killed = Tuner(store, run_id, c, ShuffledExecutor(9, slots=4))
    for _ in range(steps):  # the driver's loop, then nothing at all: no stop, no clean-up (kill -9)
        killed._fill()
        killed._route()
        killed._count()
    assert not killed._finished()
    Tuner(store, run_id, c, ShuffledExecutor(steps + 1, slots=2)).run()
    assert outcome_of(store, run_id) == reference


def test_interrupted_then_resumed_it_ends_the_same(reference: dict[str, Any], tmp_path: Path) -> None:
    c = window_config()
    store, run_id = new_tune_run(tmp_path, "t.db", c)
    steps = iter(range(10**6))
    first = Tuner(store, run_id, c, ShuffledExecutor(5, slots=4), stop_requested=lambda: next(steps) >= 20)
    with pytest.raises(KeyboardInterrupt):
        first.run()
    rows = TuningRecords(store).trials(run_id)
    stopped = [r for r in rows if r.state == "running"]
    assert stopped and all(store.get_run(r.trial_run_id).state == "interrupted" for r in stopped)  # type: ignore[union-attr]
    Tuner(store, run_id, c, ShuffledExecutor(6, slots=3)).run()
    assert outcome_of(store, run_id) == reference
