"""The Optuna method: ask-and-tell over one executor, SPRT acceptance of new champions.

Several store runs share the executor: trials (short matches of a candidate against the fixed
reference, the start weights; each an SPRT-planned run with a game budget) and at most one
acceptance SPRT at a time (:mod:`coordinator.tuning.acceptance`). Free slots go first to the
acceptance SPRT, then to running trials, then to new trials, so every worker stays busy. A trial
reports its Elo against the reference after each counted batch (:mod:`coordinator.tuning.objective`
says why that is the objective); the pruner stops it when it is clearly worse than the champion, or
when successive halving finds it outside the best part of the trials at a rung of its game budget.
A trial that ends ahead of the champion by the margin goes to the acceptance SPRTs; only H1
accepted at every acceptance setting makes it the new champion.

Resume: trials that were running when the coordinator died are failed in Optuna and their
parameters asked again; an acceptance SPRT that was running is resumed where it stopped (its
counts are deterministic); results already stored stay stored and counted.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import optuna
from optuna.trial import TrialState
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError, OperationalError

from coordinator.executors.base import BatchOutcome, Executor
from coordinator.runs import RunKind, RunState
from coordinator.sprt.runner import SprtRunner
from coordinator.stats import fixed_elo
from coordinator.store import Store, engine_url, schema_lock
from coordinator.tuning.acceptance import AcceptanceProgress, Candidate
from coordinator.tuning.config import TuneConfig
from coordinator.tuning.driver import TuningDriver
from coordinator.tuning.objective import superiority
from coordinator.tuning.records import Champion
from coordinator.tuning.space import candidate_weights, distributions, make_pruner, make_sampler

#: Tries at creating Optuna's SQLite tables while another coordinator may be creating them too (each
#: lost race means one more table, or the version row, exists; Optuna has 12 tables).
OPTUNA_CREATE_ATTEMPTS = 16


def study_name(run_id: int) -> str:
    """The Optuna study of tuning run ``run_id`` (in the same storage as the store)."""
    return f"arbiter-tune-{run_id}"


def optuna_storage(url: str, lock: Engine | None = None) -> optuna.storages.RDBStorage:
    """Optuna's storage on the store URL, in the same database (SQLite waits for locks instead of
    failing; ``postgresql://`` means psycopg 3, as for the store). Optuna creates its tables while
    the store's schema lock is held on ``lock`` (the store's engine), so that two coordinators
    starting on an empty PostgreSQL database do not both create them (on SQLite that lock would
    block Optuna's own connection, so a creation that lost a race is tried again instead)."""
    kwargs: dict[str, Any] = {"connect_args": {"timeout": 30}} if url.startswith("sqlite") else {}
    if url.startswith("postgres"):
        kwargs["pool_pre_ping"] = True
    if lock is None or lock.dialect.name != "postgresql":
        for _ in range(OPTUNA_CREATE_ATTEMPTS - 1):
            try:
                return optuna.storages.RDBStorage(engine_url(url), engine_kwargs=kwargs)
            except (OperationalError, IntegrityError) as e:  # "table ... already exists", alembic_version
                if "already exists" not in str(e) and "UNIQUE constraint failed" not in str(e):
                    raise
        return optuna.storages.RDBStorage(engine_url(url), engine_kwargs=kwargs)
    with schema_lock(lock):
        return optuna.storages.RDBStorage(engine_url(url), engine_kwargs=kwargs)


def elo_vs_start(champions: list[Champion], number: int) -> tuple[float, float]:
    """Elo of champion ``number`` against the start weights and its 95% half-width: the sum of
    the SPRT Elo gains along its chain of parents (half-widths added in quadrature)."""
    by_number = {c.number: c for c in champions}
    elo, var = 0.0, 0.0
    current: int | None = number
    while current is not None and current in by_number and current != 0:
        c = by_number[current]
        elo += c.elo_vs_parent
        var += ((c.elo_vs_parent_high - c.elo_vs_parent_low) / 2) ** 2
        current = c.parent
    return elo, math.sqrt(var)


@dataclass
class TuneProgress:
    """Where an Optuna tuning run stands, for the progress line."""

    trials: int
    running_trials: int
    games: int
    games_per_second: float
    champion: int
    champion_elo: float
    champion_elo95: float
    best_trial: int | None
    best_value: float | None
    accepting: AcceptanceProgress | None
    elapsed: float
    eta: float | None


@dataclass
class ActiveTrial:
    """A trial being played: its Optuna trial, store run and candidate weights."""

    trial: optuna.trial.Trial
    runner: SprtRunner
    candidate: dict[str, int]


class Tuner(TuningDriver):
    """Drives one Optuna tuning run of the store with an executor until its budget is used."""

    def __init__(
        self,
        store: Store,
        run_id: int,
        config: TuneConfig,
        executor: Executor,
        on_progress: Callable[[TuneProgress], None] | None = None,
        stop_requested: Callable[[], bool] | None = None,
    ) -> None:
        """Load (or create) the study and the champion history of ``run_id``; a new study gets
        the start weights as its first trial."""
        super().__init__(store, run_id, config, executor, on_progress, stop_requested)
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        start = {name: int(config.start[name]) for name in config.params}
        self.space = distributions(config.game, config.params, start, config.radius)
        self.study = optuna.create_study(
            study_name=study_name(run_id),
            storage=optuna_storage(store.url, store.engine),
            sampler=make_sampler(config.sampler, config.seed, start),
            pruner=make_pruner(
                config.prune_los, config.min_trial_pairs, config.trial_pairs, config.halving_factor
            ),
            direction="maximize",
            load_if_exists=True,
        )
        if not self.study.get_trials(deepcopy=False):
            self.study.enqueue_trial(start)  # the champion as a trial: the samplers' first point
        self.trials: dict[int, ActiveTrial] = {}
        self.values = {
            t.trial_number: (t.elo, t.elo95 or 0.0)
            for t in self.records.trials(run_id)
            if t.state == "complete" and t.elo is not None
        }
        self._recover()

    # state ------------------------------------------------------------------------------------

    def asked(self) -> int:
        """Trials that use the budget: complete, pruned or running. A trial failed because the
        coordinator stopped does not count; its parameters wait in Optuna's queue to be asked
        again, and then count once."""
        counted = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.RUNNING)
        return len(self.study.get_trials(deepcopy=False, states=counted))

    def total_games(self) -> int:
        """Games stored for this tuning run: every trial and acceptance run."""
        return self.records.games(self.run_id)

    def champion_value(self) -> tuple[float, float]:
        """The champion's Elo against the reference and its 95% half-width: its own trial's
        value (0 for the start weights, the reference itself)."""
        if self.champion.trial_number is None:
            return 0.0, 0.0
        return self.values.get(self.champion.trial_number, (0.0, 0.0))

    def _budget_left(self) -> bool:
        """May new trials still be asked?"""
        c = self.config
        if c.max_trials is not None and self.asked() >= c.max_trials:
            return False
        if c.max_games is not None and self.total_games_cached >= c.max_games:
            return False
        return not self._out_of_time()

    def _promising(self, number: int) -> bool:
        """A complete trial ahead of the current champion by the margin deserves the acceptance
        SPRTs."""
        if number not in self.values:
            return False
        value, _ = self.values[number]
        return value - self.champion_value()[0] >= self.config.accept_margin

    def _eligible(self, candidate: Candidate) -> bool:
        """Still promising when its turn comes (a champion crowned meanwhile raises the bar); it
        is then compared with that champion."""
        if not self._promising(candidate.number):
            return False
        self.records.update_trial(self.run_id, candidate.number, champion_number=self.champion.number)
        return True

    # resume -----------------------------------------------------------------------------------

    def _recover(self) -> None:
        """After a kill: fail running trials (and ask their parameters again), resume the
        acceptance SPRTs, queue complete promising trials that never had theirs."""
        self.total_games_cached = self.total_games()
        self._fail_unplayed_trials("coordinator stopped")
        self.acceptance.recover()
        handled = self.acceptance.handled()
        for row in self.records.trials(self.run_id):
            if (
                row.accept_run_id is None
                and row.trial_number not in handled
                and self._promising(row.trial_number)
            ):
                self.acceptance.submit(Candidate(row.trial_number, self._candidate(row.params)))

    def _candidate(self, params: dict[str, Any]) -> dict[str, int]:
        """The weights a trial's parameters stand for: the start's, with the trial's tuned ones."""
        return candidate_weights(self.config.start, params)

    def _fail_unplayed_trials(self, reason: str) -> None:
        """Fail the trials that no runner of this process plays and ask their parameters again.

        They were started by a coordinator that died, or stopped while being started (an Optuna
        trial asked but its row not written yet, a row written but the trial not registered yet),
        or their end was told to Optuna but not written to their row.
        """
        rows = {r.trial_number: r for r in self.records.trials(self.run_id) if r.state == "running"}
        playing = {active.trial.number for active in self.trials.values()}
        for trial in self.study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
            if trial.number in playing:
                continue
            self.study.tell(trial.number, state=TrialState.FAIL, skip_if_finished=True)
            if trial.number not in rows and set(trial.params) == set(self.space):
                self.study.enqueue_trial(dict(trial.params))
        for number, row in rows.items():
            if number in playing:
                continue
            self.study.enqueue_trial(row.params)
            self.records.update_trial(self.run_id, number, state="failed")
            self.store.update_run(row.trial_run_id, state=RunState.FAILED, error=reason, finished=True)

    # starting work ----------------------------------------------------------------------------

    def _new_trial(self) -> None:
        """Ask Optuna for parameters and start a trial against the reference."""
        trial = self.study.ask(self.space)
        candidate = self._candidate(trial.params)
        config = self.config.trial_config(trial.number, candidate, self.config.start, self.tag)
        run_id = self.store.create_run(
            RunKind.TRIAL, self.config.game, config.to_json(), config.fingerprint()
        )
        self.records.add_trial(self.run_id, trial.number, run_id, self.champion.number, dict(trial.params))
        trial.set_user_attr("store_run", run_id)
        trial.set_user_attr("champion", self.champion.number)
        runner = SprtRunner(self.store, run_id, config, self.executor)
        self.trials[run_id] = ActiveTrial(trial, runner, candidate)

    def _fill(self) -> None:
        """Give free executor slots to the acceptance SPRT, running trials, then new trials."""
        self.acceptance.fill()
        for active in list(self.trials.values()):
            active.runner.fill()
        while (
            self.executor.in_flight() < self.executor.slots
            and not self.acceptance.busy
            and self._budget_left()
        ):
            self._new_trial()
            newest = list(self.trials.values())[-1]
            newest.runner.fill()

    # receiving --------------------------------------------------------------------------------

    def _deliver(self, outcome: BatchOutcome) -> None:
        """Hand an outcome to the trial it belongs to (strays are dropped)."""
        if outcome.run_id in self.trials:
            self.trials[outcome.run_id].runner.receive(outcome)

    def _count(self) -> None:
        """Count what arrived; report trials, prune or finish them, settle the acceptance SPRT."""
        for active in list(self.trials.values()):
            if active.runner.count():
                self._report(active)
        self.acceptance.count()
        self.total_games_cached = self.total_games()

    def _report(self, active: ActiveTrial) -> None:
        """Report a trial's Elo against the reference after a counted batch; prune or complete it
        when it is decided."""
        runner, trial = active.runner, active.trial
        p = runner.progress()
        if p.games == 0:
            return
        elo = fixed_elo(p.pentanomial)
        champion, champion95 = self.champion_value()
        trial.report(elo.elo, step=p.games)
        trial.set_user_attr("los", superiority(elo.elo, elo.elo95, champion, champion95))
        trial.set_user_attr("elo95", elo.elo95)
        trial.set_user_attr("batches", p.counted_batches)
        trial.set_user_attr("pentanomial", p.pentanomial)
        trial.set_user_attr("champion", self.champion.number)
        number = trial.number
        if trial.should_prune():
            self.study.tell(trial, state=TrialState.PRUNED)
            self._close_trial(active, "pruned", elo.elo, elo.elo95, p.games)
            # Its SPRT never decides: end its store run here, or it would stay "running" for good.
            self.store.update_run(runner.run_id, state=RunState.FINISHED, finished=True)
        elif runner.decided:
            self.study.tell(trial, elo.elo)
            self._close_trial(active, "complete", elo.elo, elo.elo95, p.games)
            if self._promising(number):
                self.acceptance.submit(Candidate(number, active.candidate))

    def _close_trial(
        self, active: ActiveTrial, state: str, elo: float | None, elo95: float | None, games: int
    ) -> None:
        """Record a trial's end (and the champion it was compared with) and stop playing it."""
        if state == "complete" and elo is not None:
            self.values[active.trial.number] = (elo, elo95 or 0.0)
        self.records.update_trial(
            self.run_id,
            active.trial.number,
            state=state,
            elo=elo,
            elo95=elo95,
            games=games,
            champion_number=self.champion.number,
        )
        active.runner.release()
        del self.trials[active.runner.run_id]

    # the loop ---------------------------------------------------------------------------------

    def progress(self) -> TuneProgress:
        """A snapshot for the progress line."""
        champion_elo, champion_elo95 = elo_vs_start(self.champions, self.champion.number)
        try:
            best = self.study.best_trial
            best_number, best_value = best.number, best.value
        except ValueError:
            best_number, best_value = None, None
        asked, games = self.asked(), self.total_games_cached
        left: float | None = None
        if self.config.max_games is not None:
            left = max(0, self.config.max_games - games)
        elif self.config.max_trials is not None and asked:
            left = games / asked * max(0, self.config.max_trials - asked)
        return TuneProgress(
            trials=asked,
            running_trials=len(self.trials),
            games=games,
            games_per_second=self._rate(),
            champion=self.champion.number,
            champion_elo=champion_elo,
            champion_elo95=champion_elo95,
            best_trial=best_number,
            best_value=best_value,
            accepting=self.acceptance.progress(),
            elapsed=time.monotonic() - self.started,
            eta=None if self.acceptance.busy else self._eta(left),
        )

    def _finished(self) -> bool:
        """Nothing under way and no budget for more."""
        return not self.trials and not self.acceptance.busy and not self._budget_left()

    def _stop_work(self) -> None:
        """Stop the trials under way: they are failed and their parameters asked again later."""
        for active in list(self.trials.values()):
            self.study.tell(active.trial, state=TrialState.FAIL, skip_if_finished=True)
            self.study.enqueue_trial(dict(active.trial.params))
            self._close_trial(active, "failed", None, None, active.runner.progress().games)
            self.store.update_run(active.runner.run_id, state=RunState.FAILED, error="stopped", finished=True)
        self._fail_unplayed_trials("stopped")  # stopped while being started
