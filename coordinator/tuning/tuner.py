"""The tuning loop: Optuna ask-and-tell over one executor, SPRT acceptance of new champions.

Several store runs share the executor: trials (short matches of a candidate against the current
champion, each an SPRT-planned run with a game budget) and at most one acceptance SPRT at a time.
Free slots go first to the acceptance SPRT, then to running trials, then to new trials, so every
worker stays busy. A trial reports its Elo after each counted batch; the pruner stops it as soon as
its likelihood of superiority falls below a threshold. A trial that ends ahead of the champion by
the margin goes to a full SPRT; only H1 accepted makes it the new champion.

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

from coordinator.executors.base import Executor
from coordinator.runs import Decision, RunKind, RunState
from coordinator.sprt.config import SprtConfig
from coordinator.sprt.runner import SprtRunner
from coordinator.stats import fixed_elo, sprt_elo
from coordinator.store import Store, engine_url, schema_lock
from coordinator.tuning.config import TuneConfig
from coordinator.tuning.records import Champion, TuningRecords
from coordinator.tuning.space import LosPruner, candidate_weights, distributions, make_sampler

POLL_SECONDS = 0.5
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
    """Where a tuning run stands, for the progress line."""

    trials: int
    running_trials: int
    games: int
    games_per_second: float
    champion: int
    champion_elo: float
    champion_elo95: float
    best_trial: int | None
    best_value: float | None
    accepting: int | None
    accept_llr: float | None
    accept_bounds: tuple[float, float] | None
    elapsed: float


@dataclass
class ActiveTrial:
    """A trial being played: its Optuna trial, store run and the champion it plays."""

    trial: optuna.trial.Trial
    runner: SprtRunner
    champion: int
    candidate: dict[str, int]


@dataclass
class ActiveAcceptance:
    """The acceptance SPRT of one finished trial."""

    trial_number: int
    runner: SprtRunner
    champion: int
    candidate: dict[str, int]


class Tuner:
    """Drives one tuning run of the store with an executor until its budget is used."""

    def __init__(
        self,
        store: Store,
        run_id: int,
        config: TuneConfig,
        executor: Executor,
        on_progress: Callable[[TuneProgress], None] | None = None,
        stop_requested: Callable[[], bool] | None = None,
    ) -> None:
        """Load (or create) the study and the champion history of ``run_id``.

        ``stop_requested`` is asked once per step of the loop; when it says yes the run stops as
        if interrupted, at a point where no store or Optuna transaction is open (a signal handler
        that raised KeyboardInterrupt anywhere could leave one holding SQLite's write lock).
        """
        self.store = store
        self.run_id = run_id
        self.config = config
        self.executor = executor
        self.on_progress = on_progress
        self.stop_requested = stop_requested
        self.records = TuningRecords(store)
        self.tag = f"tune run {run_id}"
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.study = optuna.create_study(
            study_name=study_name(run_id),
            storage=optuna_storage(store.url, store.engine),
            sampler=make_sampler(config.sampler, config.seed),
            pruner=LosPruner(config.prune_los),
            direction="maximize",
            load_if_exists=True,
        )
        self.space = distributions(config.game, config.params)
        self.champions = self.records.champions(run_id)
        if not self.champions:
            start = Champion(0, dict(config.start), None, None, None, 0.0, 0.0, 0.0)
            self.records.add_champion(run_id, start)
            self.champions = [start]
        self.trials: dict[int, ActiveTrial] = {}
        self.acceptance: ActiveAcceptance | None = None
        self.waiting: list[tuple[int, dict[str, int]]] = []  # trials waiting for their acceptance SPRT
        self.started = time.monotonic()
        self.games_here = 0
        self._recover()

    # state ------------------------------------------------------------------------------------

    @property
    def champion(self) -> Champion:
        """The current champion."""
        return self.champions[-1]

    def asked(self) -> int:
        """Trials that use the budget: complete, pruned or running. A trial failed because the
        coordinator stopped does not count; its parameters wait in Optuna's queue to be asked
        again, and then count once."""
        counted = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.RUNNING)
        return len(self.study.get_trials(deepcopy=False, states=counted))

    def total_games(self) -> int:
        """Games stored for this tuning run: every trial and acceptance run."""
        return self.records.games(self.run_id)

    def _budget_left(self) -> bool:
        """May new trials still be asked?"""
        c = self.config
        if c.max_trials is not None and self.asked() >= c.max_trials:
            return False
        if c.max_games is not None and self.total_games_cached >= c.max_games:
            return False
        return not self._out_of_time()

    def _out_of_time(self) -> bool:
        """True once the run's time limit is used."""
        return (
            self.config.time_limit is not None and time.monotonic() - self.started >= self.config.time_limit
        )

    # resume -----------------------------------------------------------------------------------

    def _recover(self) -> None:
        """After a kill: fail running trials (and ask their parameters again), resume acceptance."""
        self.total_games_cached = self.total_games()
        self._fail_unplayed_trials("coordinator stopped")
        for row in self.records.trials(self.run_id):
            if row.accept_run_id is not None:
                run = self.store.get_run(row.accept_run_id)
                # An SPRT that accepted just before the kill, its candidate not yet crowned.
                uncrowned = (
                    run is not None
                    and run.decision == Decision.ACCEPTED
                    and row.champion_number == self.champion.number
                    and all(c.accept_run_id != run.id for c in self.champions)
                )
                if run is not None and (run.state is not RunState.FINISHED or uncrowned):
                    candidate = candidate_weights(self.champion.weights, row.params)
                    self._start_acceptance(row.trial_number, candidate, existing_run=run.id)
            elif self._promising(row.state, row.elo, row.champion_number):
                self.waiting.append((row.trial_number, candidate_weights(self.champion.weights, row.params)))

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

    def _promising(self, state: str, elo: float | None, champion: int) -> bool:
        """A finished trial that beat the current champion by the margin deserves a full SPRT."""
        return (
            state == "complete"
            and elo is not None
            and elo >= self.config.accept_margin
            and champion == self.champion.number
        )

    # starting work ----------------------------------------------------------------------------

    def _new_trial(self) -> None:
        """Ask Optuna for parameters and start a trial against the current champion."""
        trial = self.study.ask(self.space)
        candidate = candidate_weights(self.champion.weights, trial.params)
        config = self.config.trial_config(trial.number, candidate, self.champion.weights, self.tag)
        run_id = self.store.create_run(
            RunKind.TRIAL, self.config.game, config.to_json(), config.fingerprint()
        )
        self.records.add_trial(self.run_id, trial.number, run_id, self.champion.number, dict(trial.params))
        trial.set_user_attr("store_run", run_id)
        trial.set_user_attr("champion", self.champion.number)
        runner = SprtRunner(self.store, run_id, config, self.executor)
        self.trials[run_id] = ActiveTrial(trial, runner, self.champion.number, candidate)

    def _start_acceptance(
        self, trial_number: int, candidate: dict[str, int], existing_run: int | None = None
    ) -> None:
        """Start (or resume) the full SPRT of a trial's weights against the current champion."""
        champion = self.champion
        config = self.config.accept_config(trial_number, candidate, champion.weights, self.tag)
        run_id = existing_run
        if run_id is None:
            run_id = self.store.create_run(
                RunKind.ACCEPTANCE, self.config.game, config.to_json(), config.fingerprint()
            )
            self.records.update_trial(self.run_id, trial_number, accept_run_id=run_id)
        else:
            stored = self.store.get_run(run_id)
            assert stored is not None
            config = SprtConfig.from_json(stored.config)
        self.store.update_run(run_id, state=RunState.RUNNING)
        runner = SprtRunner(self.store, run_id, config, self.executor)
        self.acceptance = ActiveAcceptance(trial_number, runner, champion.number, candidate)

    def _fill(self) -> None:
        """Give free executor slots to the acceptance SPRT, running trials, then new trials."""
        if self.acceptance is None and self.waiting:
            number, candidate = self.waiting.pop(0)
            self._start_acceptance(number, candidate)
        if self.acceptance is not None:
            self.acceptance.runner.fill()
        for active in list(self.trials.values()):
            active.runner.fill()
        while (
            self.executor.in_flight() < self.executor.slots
            and self.acceptance is None
            and not self.waiting
            and self._budget_left()
        ):
            self._new_trial()
            newest = list(self.trials.values())[-1]
            newest.runner.fill()

    # receiving --------------------------------------------------------------------------------

    def _route(self) -> None:
        """Deliver finished batches to the run they belong to (strays are dropped)."""
        for outcome in self.executor.completed(timeout=POLL_SECONDS):
            if outcome.result is not None and outcome.error is None:
                self.games_here += sum(outcome.result.get("wdl", [0, 0, 0]))
            if self.acceptance is not None and outcome.run_id == self.acceptance.runner.run_id:
                self.acceptance.runner.receive(outcome)
            elif outcome.run_id in self.trials:
                self.trials[outcome.run_id].runner.receive(outcome)

    def _count(self) -> None:
        """Count what arrived; report trials, prune or finish them, settle the acceptance SPRT."""
        for active in list(self.trials.values()):
            if active.runner.count():
                self._report(active)
        if self.acceptance is not None and self.acceptance.runner.count() and self.acceptance.runner.decided:
            self._settle_acceptance(self.acceptance)
            self.acceptance = None
        self.total_games_cached = self.total_games()

    def _report(self, active: ActiveTrial) -> None:
        """Report a trial's Elo after a counted batch; prune or complete it when it is decided."""
        runner, trial = active.runner, active.trial
        p = runner.progress()
        if p.games == 0:
            return
        elo = fixed_elo(p.pentanomial)
        base, _ = elo_vs_start(self.champions, active.champion)
        trial.report(base + elo.elo, step=p.games)
        trial.set_user_attr("los", elo.los)
        trial.set_user_attr("batches", p.counted_batches)
        trial.set_user_attr("pentanomial", p.pentanomial)
        number = trial.number
        if trial.should_prune():
            self.study.tell(trial, state=TrialState.PRUNED)
            self._close_trial(active, "pruned", elo.elo, elo.elo95, p.games)
            # Its SPRT never decides: end its store run here, or it would stay "running" for good.
            self.store.update_run(runner.run_id, state=RunState.FINISHED, finished=True)
        elif runner.decided:
            self.study.tell(trial, base + elo.elo)
            self._close_trial(active, "complete", elo.elo, elo.elo95, p.games)
            if self._promising("complete", elo.elo, active.champion):
                self.waiting.append((number, active.candidate))

    def _close_trial(
        self, active: ActiveTrial, state: str, elo: float | None, elo95: float | None, games: int
    ) -> None:
        """Record a trial's end and stop playing it."""
        self.records.update_trial(
            self.run_id, active.trial.number, state=state, elo=elo, elo95=elo95, games=games
        )
        active.runner.release()
        del self.trials[active.runner.run_id]

    def _settle_acceptance(self, acceptance: ActiveAcceptance) -> None:
        """Crown the candidate if its SPRT accepted H1 (it stays in the history with its parent)."""
        runner = acceptance.runner
        runner.release()
        if runner.prefix.decision is not Decision.ACCEPTED or acceptance.champion != self.champion.number:
            return
        p = runner.progress()
        estimate = sprt_elo(
            p.pentanomial,
            self.config.accept_elo0,
            self.config.accept_elo1,
            "normalized",
            self.config.accept_alpha,
            self.config.accept_beta,
        )
        champion = Champion(
            number=self.champion.number + 1,
            weights=dict(acceptance.candidate),
            parent=self.champion.number,
            trial_number=acceptance.trial_number,
            accept_run_id=runner.run_id,
            elo_vs_parent=estimate.elo,
            elo_vs_parent_low=estimate.ci_low,
            elo_vs_parent_high=estimate.ci_high,
        )
        self.records.add_champion(self.run_id, champion)
        self.champions.append(champion)
        # Trials waiting for an acceptance SPRT were measured against the old champion.
        self.waiting.clear()

    # the loop ---------------------------------------------------------------------------------

    def progress(self) -> TuneProgress:
        """A snapshot for the progress line."""
        elapsed = time.monotonic() - self.started
        champion_elo, champion_elo95 = elo_vs_start(self.champions, self.champion.number)
        try:
            best = self.study.best_trial
            best_number, best_value = best.number, best.value
        except ValueError:
            best_number, best_value = None, None
        accepting = self.acceptance.trial_number if self.acceptance else None
        llr = bounds = None
        if self.acceptance is not None:
            ap = self.acceptance.runner.progress()
            llr, bounds = ap.llr, (ap.lower_bound, ap.upper_bound)
        return TuneProgress(
            trials=self.asked(),
            running_trials=len(self.trials),
            games=self.total_games_cached,
            games_per_second=self.games_here / elapsed if elapsed > 0 else 0.0,
            champion=self.champion.number,
            champion_elo=champion_elo,
            champion_elo95=champion_elo95,
            best_trial=best_number,
            best_value=best_value,
            accepting=accepting,
            accept_llr=llr,
            accept_bounds=bounds,
            elapsed=elapsed,
        )

    def _finished(self) -> bool:
        """Nothing under way and no budget for more."""
        return not self.trials and self.acceptance is None and not self.waiting and not self._budget_left()

    def run(self) -> TuneProgress:
        """Tune until the budget is used and the work under way is done; the final progress.

        The time limit stops at once: running trials are failed (their parameters are asked again
        on resume), a running acceptance SPRT is left to resume. KeyboardInterrupt does the same
        and marks the run ``interrupted``.
        """
        self.store.update_run(self.run_id, state=RunState.RUNNING)
        try:
            while not self._finished():
                if self._out_of_time():
                    break
                if self.stop_requested is not None and self.stop_requested():
                    raise KeyboardInterrupt
                self._fill()
                if self.executor.in_flight() == 0 and self._finished():
                    break
                self._route()
                self._count()
                if self.on_progress is not None:
                    self.on_progress(self.progress())
        except KeyboardInterrupt:
            self._abandon()
            self.store.update_run(self.run_id, state=RunState.INTERRUPTED)
            raise
        except BaseException:
            self._abandon()
            raise
        self._abandon()
        self.store.update_run(self.run_id, state=RunState.FINISHED, finished=True)
        return self.progress()

    def _abandon(self) -> None:
        """Stop the work under way: trials are failed and asked again later; an acceptance SPRT
        keeps its stored results and resumes with the run."""
        self.executor.cancel()
        for active in list(self.trials.values()):
            self.study.tell(active.trial, state=TrialState.FAIL, skip_if_finished=True)
            self.study.enqueue_trial(dict(active.trial.params))
            self._close_trial(active, "failed", None, None, active.runner.progress().games)
            self.store.update_run(active.runner.run_id, state=RunState.FAILED, error="stopped", finished=True)
        self._fail_unplayed_trials("stopped")  # stopped while being started
        if self.acceptance is not None:
            self.acceptance.runner.release()
            self.store.update_run(self.acceptance.runner.run_id, state=RunState.INTERRUPTED)
