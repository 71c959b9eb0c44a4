"""The Optuna method: ask-and-tell over one executor, in trial order, a fixed number of trials
open at once; SPRT acceptance of new champions.

Several store runs share the executor: trials (short matches of a candidate against the fixed
reference, the start weights; each an SPRT-planned run with a game budget) and at most one
acceptance SPRT at a time (:mod:`coordinator.tuning.acceptance`). Free slots go first to the
acceptance SPRT, then to the open trials, oldest first. A trial's value is its Elo against the
reference (:mod:`coordinator.tuning.objective` says why); it is pruned when it is clearly worse
than the champion, or when successive halving finds it outside the best part of the trials at a
rung of its game budget (:mod:`coordinator.tuning.pruning`). A complete trial ahead of the
champion by the margin goes to the acceptance SPRTs; only H1 accepted at every acceptance setting
makes it the new champion.

Determinism. Trials are asked in order 0, 1, 2, ..., at most ``W`` (``--parallel-trials``, never
the number of workers) open at once: trial ``k`` is asked once trial ``k - W`` has ended and had
its acceptance SPRTs settled, and trial ``k - W`` is told to Optuna just then, not when it ended
(results are held back). So when trial ``k`` is asked the study holds exactly trials ``0 .. k -
1``: ``0 .. k - W`` told, in order, the others running, with no reports; and the sampler
(:class:`coordinator.tuning.space.TrialSeededSampler`) proposes from that history, the seed and
``k`` alone. What a trial's course depends on is fixed when it is asked too: the champion it is
compared with (the one left by the acceptance SPRTs of trials ``0 .. k - W``) and the trials told
by then (successive halving compares it with their values at each rung); its games are those of
its own batches, checked for pruning after each, in order. Ended trials are judged in trial
order, each once every earlier candidate's acceptance SPRTs are settled, against the champion
they left. Once no trial will be asked any more, the last ones are told in order as they end. So
the same command asks, plays and tells the same trials, plays the same acceptance SPRTs and
crowns the same champions with one worker or a hundred, and after a kill.

Resume. Trials asked but not told resume their own store runs (what they stored is counted again,
batch by batch); a trial whose ask a kill cut short gets its missing weights from the same
history and seed; an asked trial without a store run gets one; the acceptance SPRT under way
resumes where it stopped. A time limit, the one thing that depends on the clock, fails the trials
still playing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import optuna
from optuna.trial import TrialState
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError, OperationalError

from coordinator.executors.base import BatchOutcome
from coordinator.runs import RunKind, RunState
from coordinator.sprt.runner import SprtRunner
from coordinator.store import engine_url, schema_lock
from coordinator.tuning.acceptance import Candidate, refused_note
from coordinator.tuning.driver import TuningDriver
from coordinator.tuning.progress import TuneProgress, elo_vs_start
from coordinator.tuning.pruning import TrialCourse, make_pruner
from coordinator.tuning.records import Champion, TrialRow
from coordinator.tuning.space import candidate_weights, distributions, make_sampler

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


@dataclass
class OpenTrial:
    """A trial asked and not told yet: its Optuna trial, weights, course, runner and the champion
    it is compared with; ``ended`` once its course is over (its result held back)."""

    trial: optuna.trial.Trial
    candidate: dict[str, int]
    course: TrialCourse
    runner: SprtRunner
    champion: int
    ended: bool = False


@dataclass(frozen=True)
class TrialEnd:
    """How a trial ended: ``complete``, ``pruned`` or ``failed``; its last value (Elo against the
    reference) and 95% half-width; its tuned weights."""

    state: str
    elo: float | None
    elo95: float | None
    params: dict[str, Any]


class Tuner(TuningDriver):
    """Drives one Optuna tuning run of the store with an executor until its budget is used."""

    def _resume(self) -> None:
        """Load (or create) the study (a new one gets the start weights as its first trial) and
        take up what a kill or a stop left."""
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        c = self.config
        start = {name: int(c.start[name]) for name in c.params}
        self.space = distributions(c.game, c.params, start, c.radius)
        self.pruner = make_pruner(c.prune_los, c.min_trial_pairs, c.trial_pairs, c.halving_factor)
        self.study = optuna.create_study(
            study_name=study_name(self.run_id),
            storage=optuna_storage(self.store.url, self.store.engine),
            sampler=make_sampler(c.sampler, c.seed, start),
            pruner=optuna.pruners.NopPruner(),  # the tuner prunes (tuning/pruning.py)
            direction="maximize",
            load_if_exists=True,
        )
        if not self.study.get_trials(deepcopy=False):
            self.study.enqueue_trial(start)  # the champion as a trial: the samplers' first point
        self.open: dict[int, OpenTrial] = {}  # by trial number, in order
        self.ends: dict[int, TrialEnd] = {}
        self.closing = False  # no trial will be asked any more
        self._recover()

    # state ------------------------------------------------------------------------------------

    @property
    def window(self) -> int:
        """Trials open at once at most."""
        return self.config.parallel_trials

    def asked(self) -> int:
        """Trials that use the budget: asked and not failed."""
        return self.next_number - sum(end.state == "failed" for end in self.ends.values())

    def total_games(self) -> int:
        """Games counted for this tuning run: every trial and acceptance run."""
        return self.records.games(self.run_id)

    def _reigning(self, before: int) -> Champion:
        """The champion once the acceptance SPRTs of every trial numbered below ``before`` were
        settled."""
        return [c for c in self.champions if c.trial_number is None or c.trial_number < before][-1]

    def _value(self, champion: Champion) -> tuple[float, float]:
        """A champion's Elo against the reference and its 95% half-width: its own trial's value (0
        for the start weights, the reference itself)."""
        if champion.trial_number is None:
            return 0.0, 0.0
        end = self.ends[champion.trial_number]
        return end.elo or 0.0, end.elo95 or 0.0

    def _settled(self) -> int:
        """Trials judged whose acceptance SPRTs are settled: ``0 .. settled - 1``."""
        return self.judged - (1 if self.acceptance.busy else 0)

    def _budget_left(self, number: int) -> bool:
        """May trial ``number`` be asked? Its game budget counts the games of the trials told
        before it and of their acceptance SPRTs, never those of trials still playing."""
        c = self.config
        if c.max_trials is not None and self.asked() >= c.max_trials:
            return False
        if (
            c.max_games is not None
            and self.records.games(self.run_id, through=number - self.window) >= c.max_games
        ):
            return False
        return not self._out_of_time()

    # resume -----------------------------------------------------------------------------------

    def _recover(self) -> None:
        """After a kill or a stop: take up the acceptance SPRTs, reopen the trials asked and not
        told (completing an ask a kill cut short), and continue judging after the last candidate
        that had an acceptance SPRT."""
        self.acceptance.recover()
        rows = {row.trial_number: row for row in self.records.trials(self.run_id)}
        trials = self.study.get_trials(deepcopy=False)
        self.next_number = sum(t.state != TrialState.WAITING for t in trials)
        self.told = next((t.number for t in trials if not t.state.is_finished()), len(trials))
        #: The study's best trial, and when it was asked (see :meth:`_best`).
        self._best_told: tuple[int, int] | None = None
        self._best_value: tuple[int | None, float | None] = (None, None)
        for t in trials:
            if t.state.is_finished():
                states = {TrialState.COMPLETE: "complete", TrialState.PRUNED: "pruned"}
                elo = t.value if t.state == TrialState.COMPLETE else None
                self.ends[t.number] = TrialEnd(
                    states.get(t.state, "failed"), elo, t.user_attrs.get("elo95"), t.params
                )
            elif t.state == TrialState.RUNNING:
                # The running trial itself, to finish its ask and tell it (Optuna has no other handle).
                self._open(optuna.trial.Trial(self.study, t._trial_id), rows.get(t.number))
        handled = self.acceptance.handled()
        self.judged = max(handled) + 1 if handled else 0
        self.total_games_cached = self.total_games()

    # asking and telling -----------------------------------------------------------------------

    def _open(self, trial: optuna.trial.Trial, row: TrialRow | None) -> None:
        """Start (or take up) a trial: its weights (those not suggested yet), its store run, and
        what its course is compared with."""
        for name, d in self.space.items():
            trial.suggest_int(name, d.low, d.high, step=d.step, log=d.log)
        number, params = trial.number, trial.params
        candidate = candidate_weights(self.config.start, params)
        config = self.config.trial_config(number, candidate, self.config.start, self.tag)
        champion = self._reigning(number - self.window + 1)
        if row is None:
            run_id = self.match_run(RunKind.TRIAL, config)
            self.records.add_trial(self.run_id, number, run_id, champion.number, params)
        else:
            run_id = row.trial_run_id
        told = self.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))
        rivals = self.pruner.rivals(t.intermediate_values for t in told if t.number <= number - self.window)
        course = TrialCourse(self.pruner, self._value(champion), rivals)
        runner = SprtRunner(self.store, run_id, config, self.executor, stop=course.after_batch)
        opened = OpenTrial(trial, candidate, course, runner, champion.number)
        self.open[number] = opened
        if runner.decided:  # it ended before a kill
            self._end(opened)
        else:
            self.store.update_run(run_id, state=RunState.RUNNING)

    def _end(self, opened: OpenTrial) -> None:
        """Record a trial whose course is over (pruned, or its SPRT decided); Optuna hears of it
        later, in trial order."""
        runner, course = opened.runner, opened.course
        runner.release()
        self._close_counted(runner)
        last = course.points[runner.prefix.batches]
        state = "pruned" if course.pruned else "complete"
        number = opened.trial.number
        self.records.update_trial(
            self.run_id, number, state=state, elo=last.elo, elo95=last.elo95, games=last.games
        )
        self.ends[number] = TrialEnd(state, last.elo, last.elo95, opened.trial.params)
        opened.ended = True

    def _tell(self, number: int) -> None:
        """Tell Optuna an ended trial: its value after each counted batch, and how it ended."""
        opened = self.open.pop(number)
        trial, points = opened.trial, opened.course.upto(opened.runner.prefix.batches)
        for point in points:
            trial.report(point.elo, step=point.games)
        last = points[-1]
        attributes = {
            "los": last.los,
            "elo95": last.elo95,
            "batches": len(points),
            "pentanomial": list(last.pentanomial),
            "champion": opened.champion,
            "store_run": opened.runner.run_id,
        }
        for key, value in attributes.items():
            trial.set_user_attr(key, value)
        if self.ends[number].state == "pruned":
            self.study.tell(trial, state=TrialState.PRUNED)
        else:
            self.study.tell(trial, last.elo)
        self.told += 1

    def _ask_and_tell(self) -> None:
        """Ask every trial the window and the budget allow, telling trial ``k - W`` just before
        trial ``k``; once no trial will be asked any more, tell the ended ones in order."""
        while not self.closing:
            number = self.next_number
            if number >= self.window and self._settled() <= number - self.window:
                break  # trial number - W has not ended, or its acceptance SPRTs are under way
            if not self._budget_left(number):
                self.closing = True
                break
            while self.told <= number - self.window:
                self._tell(self.told)
            self._open(self.study.ask(), None)
            self.next_number += 1
        while self.closing and self.told < self.next_number and self.told in self.ends:
            self._tell(self.told)

    def _judge(self) -> None:
        """Judge the ended trials in order, each once every earlier candidate's acceptance SPRTs
        are settled: a complete trial ahead of the champion they left by the margin goes to its
        own (and is then compared with that champion)."""
        while not self.acceptance.busy and self.judged in self.ends:
            number = self.judged
            self.judged += 1
            end, champion = self.ends[number], self._reigning(number)
            if end.state != "complete" or end.elo is None:
                continue
            if end.elo - self._value(champion)[0] >= self.config.accept_margin:
                self.records.update_trial(self.run_id, number, champion_number=champion.number)
                self.acceptance.submit(Candidate(number, candidate_weights(self.config.start, end.params)))
                self.acceptance.advance()

    # the loop ---------------------------------------------------------------------------------

    def _fill(self) -> None:
        """Give free executor slots to the acceptance SPRT, then to the open trials, oldest first
        (asking the new trials the window allows)."""
        self.acceptance.fill()
        self._ask_and_tell()
        for opened in self.open.values():
            if not opened.ended:
                opened.runner.fill()

    def _deliver(self, outcome: BatchOutcome) -> None:
        """Hand an outcome to the trial playing it (strays are dropped)."""
        for opened in self.open.values():
            if not opened.ended and opened.runner.run_id == outcome.run_id:
                opened.runner.receive(outcome)

    def _count(self) -> None:
        """Count what arrived; end the trials whose course is over, settle the acceptance SPRT,
        judge what can be judged."""
        for opened in list(self.open.values()):
            if not opened.ended and opened.runner.count() and opened.runner.decided:
                self._end(opened)
        self.acceptance.count()
        self._judge()
        self.total_games_cached = self.total_games()

    def _best(self) -> tuple[int | None, float | None]:
        """The study's best trial and its value, asked of Optuna again only once a trial was told
        since (each question reads every trial: tens of milliseconds a progress line)."""
        told = (self.told, len(self.ends))
        if self._best_told != told:
            try:
                best = self.study.best_trial
                self._best_value = (best.number, best.value)
            except ValueError:
                self._best_value = (None, None)
            self._best_told = told
        return self._best_value

    def progress(self) -> TuneProgress:
        """A snapshot for the progress line."""
        champion_elo, champion_elo95 = elo_vs_start(self.champions, self.champion.number)
        best_number, best_value = self._best()
        asked, games = self.asked(), self.total_games_cached
        left: float | None = None
        if self.config.max_games is not None:
            left = max(0, self.config.max_games - games)
        elif self.config.max_trials is not None and asked:
            left = games / asked * max(0, self.config.max_trials - asked)
        return TuneProgress(
            trials=asked,
            running_trials=sum(not opened.ended for opened in self.open.values()),
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
            refused=refused_note([o.runner for o in self.open.values() if not o.ended], self.acceptance),
        )

    def _finished(self) -> bool:
        """No trial will be asked, every one is told and judged, no acceptance SPRT is under way."""
        done = self.told == self.judged == self.next_number
        return self.closing and done and not self.acceptance.busy

    def _stop_work(self, final: bool) -> None:
        """Stop the trials under way: they resume with the run, or (``final``: the time limit)
        the ended ones are told and the others failed."""
        for number, opened in list(self.open.items()):
            if opened.ended:
                if final:
                    self._tell(number)
                continue
            opened.runner.release()
            if not final:
                self.store.update_run(opened.runner.run_id, state=RunState.INTERRUPTED)
                continue
            games = opened.runner.progress().games
            self.records.update_trial(self.run_id, number, state="failed", games=games)
            self.store.update_run(
                opened.runner.run_id, state=RunState.FAILED, error="stopped by the time limit", finished=True
            )
            self.study.tell(opened.trial, state=TrialState.FAIL)  # last: until then a resume takes it up
            self.ends[number] = TrialEnd("failed", None, None, opened.trial.params)
            del self.open[number]
