"""The SPSA method: fishtest's SPSA (:mod:`coordinator.tuning.spsa`) over the shared executor,
store and acceptance SPRTs.

Each iteration is a store run of kind ``iteration``: one batch of ``batch_pairs`` game pairs of
theta+ against theta-, played by an :class:`SprtRunner` like any match, so that its games are
checked, replayed, stored once and resumable like every other. Iterations run in parallel on
every slot the acceptance SPRT leaves free.

Determinism. Iteration ``k`` plays theta after iterations ``0 .. k - L - 1`` (``L`` is the
configured lag, ``--spsa-lag``), with signs and gains that are functions of the seed and ``k``
alone; results are applied to theta strictly in iteration order, each as soon as every earlier
one is (the SPRT runner's counted prefix, one level up). So at most ``L + 1`` iterations are in
flight, and the path of theta is a pure function of the configuration and of the games, the same
on any machine with any number of workers and after any kill: ``L`` is fixed, never the number of
workers. Every ``--accept-every`` games of iterations and after the last one, theta (rounded)
goes to the acceptance SPRTs against the champion.

Resume. Theta after every applied iteration is stored (``spsa_iterations``); iterations that were
in flight resume their own store runs (their theta+ and theta- are in their configuration);
checkpoints applied but not yet queued are queued again in order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from coordinator.executors.base import BatchOutcome
from coordinator.runs import RunKind, RunState
from coordinator.sprt.config import SprtConfig
from coordinator.sprt.runner import SprtRunner
from coordinator.tuning import spsa
from coordinator.tuning.acceptance import AcceptanceProgress, Candidate, refused_note
from coordinator.tuning.driver import TuningDriver
from coordinator.tuning.progress import elo_vs_start
from coordinator.tuning.records import IterationRow


@dataclass
class SpsaProgress:
    """Where an SPSA tuning run stands, for the progress line."""

    applied: int
    iterations: int
    in_flight: int
    games: int
    games_per_second: float
    champion: int
    champion_elo: float
    champion_elo95: float
    accepting: AcceptanceProgress | None
    elapsed: float
    eta: float | None
    #: Why every answer since the last result was refused (see ``SprtRunner.refused_note``).
    refused: str | None = None


class SpsaTuner(TuningDriver):
    """Drives one SPSA tuning run of the store with an executor until its iterations are played."""

    def _resume(self) -> None:
        """Load the path of theta so far and resume what was in flight."""
        self.plan = self.config.spsa_plan()
        self.start = {name: float(self.config.start[name]) for name in self.config.params}
        rows = self.records.iterations(self.run_id)
        #: theta after 0, 1, 2, ... applied iterations.
        self.thetas = [self.start]
        for row in rows:
            if row.theta is None:
                break
            self.thetas.append(row.theta)
        if any(row.theta is not None for row in rows[len(self.thetas) - 1 :]):
            raise ValueError(f"tuning run {self.run_id}: its SPSA iterations were not applied in order")
        self.flips = {row.iteration: row.flips for row in rows}
        self.dispatched = len(rows)
        self.active: dict[int, tuple[int, SprtRunner]] = {}  # run id -> (iteration, runner)
        self.results: dict[int, tuple[int, int]] = {}  # iteration -> (wins, losses), not applied yet
        self._recover(rows[self.applied :])

    @property
    def applied(self) -> int:
        """Iterations applied to theta."""
        return len(self.thetas) - 1

    @property
    def theta(self) -> dict[str, float]:
        """theta now."""
        return self.thetas[-1]

    # resume -----------------------------------------------------------------------------------

    def _recover(self, unapplied: list[IterationRow]) -> None:
        """After a kill: take up the acceptance SPRTs, queue the checkpoints applied but never
        queued, resume the iterations that were in flight and apply those already counted."""
        self.acceptance.recover()
        handled = self.acceptance.handled()
        for iteration in range(self.applied):
            if iteration not in handled and spsa.is_checkpoint(
                iteration, self.plan, self.config.accept_every
            ):
                self._checkpoint(iteration)
        for row in unapplied:
            run = self.store.get_run(row.run_id)
            assert run is not None
            config = run.settings_as(SprtConfig)
            runner = SprtRunner(self.store, run.id, config, self.executor)
            if runner.decided:
                self._close_counted(runner)
                self.results[row.iteration] = self._result(runner)
                continue
            self.store.update_run(run.id, state=RunState.RUNNING)
            self.active[run.id] = (row.iteration, runner)
        self._apply_counted()

    # playing ----------------------------------------------------------------------------------

    def _dispatchable(self) -> bool:
        """May the next iteration start: planned, within the lag, and time left?"""
        return (
            self.dispatched < self.plan.iterations
            and self.dispatched <= self.applied + self.config.spsa_lag
            and not self._out_of_time()
        )

    def _dispatch(self) -> SprtRunner:
        """Start the next iteration: theta after iterations 0 .. k - L - 1, perturbed by c_k."""
        k = self.dispatched
        theta = self.thetas[max(0, k - self.config.spsa_lag)]
        signs = spsa.flips(self.config.seed, k, len(self.plan.weights))
        stochastic = self.config.spsa_rounding == "stochastic"
        pair = spsa.perturb(self.plan, theta, k, signs, self.config.seed if stochastic else None)
        config = self.config.iteration_config(
            k, {**self.config.start, **pair.plus}, {**self.config.start, **pair.minus}, self.tag
        )
        run_id = self.match_run(RunKind.ITERATION, config)
        self.records.add_iteration(self.run_id, k, run_id, signs)
        self.flips[k] = signs
        self.dispatched += 1
        runner = SprtRunner(self.store, run_id, config, self.executor)
        self.active[run_id] = (k, runner)
        return runner

    def _fill(self) -> None:
        """Give free slots to the acceptance SPRT, then to new iterations."""
        self.acceptance.fill()
        for _, runner in self.active.values():
            runner.fill()
        while self.executor.in_flight() < self.executor.slots and self._dispatchable():
            self._dispatch().fill()

    def _deliver(self, outcome: BatchOutcome) -> None:
        """Hand an outcome to the iteration it belongs to (strays are dropped)."""
        if outcome.run_id in self.active:
            self.active[outcome.run_id][1].receive(outcome)

    @staticmethod
    def _result(runner: SprtRunner) -> tuple[int, int]:
        """An iteration's result: theta+'s wins and losses over its batch."""
        wins, _, losses = runner.prefix.wdl
        return wins, losses

    def _count(self) -> None:
        """Count the iterations that arrived, apply them in order, settle the acceptance SPRT."""
        for run_id, (iteration, runner) in list(self.active.items()):
            if runner.count() and runner.decided:
                self.results[iteration] = self._result(runner)
                runner.release()
                del self.active[run_id]
        self._apply_counted()
        self.acceptance.count()

    def _apply_counted(self) -> None:
        """Apply every counted iteration that continues the applied prefix, in order."""
        while self.applied in self.results:
            k = self.applied
            wins, losses = self.results.pop(k)
            theta = spsa.step(self.plan, self.theta, k, self.flips[k], wins - losses)
            self.records.apply_iteration(self.run_id, k, wins, losses, theta)
            self.thetas.append(theta)
            if spsa.is_checkpoint(k, self.plan, self.config.accept_every):
                self._checkpoint(k)

    def _checkpoint(self, iteration: int) -> None:
        """Queue theta after ``iteration`` (rounded) for the acceptance SPRTs."""
        weights = {**self.config.start, **spsa.rounded(self.thetas[iteration + 1])}
        self.acceptance.submit(Candidate(iteration, weights))

    # the loop ---------------------------------------------------------------------------------

    def progress(self) -> SpsaProgress:
        """A snapshot for the progress line."""
        champion_elo, champion_elo95 = elo_vs_start(self.champions, self.champion.number)
        per_iteration = 2 * self.plan.pairs_per_iteration
        left = (self.plan.iterations - self.applied) * per_iteration
        return SpsaProgress(
            applied=self.applied,
            iterations=self.plan.iterations,
            in_flight=len(self.active),
            games=self.applied * per_iteration,
            games_per_second=self._rate(),
            champion=self.champion.number,
            champion_elo=champion_elo,
            champion_elo95=champion_elo95,
            accepting=self.acceptance.progress(),
            elapsed=time.monotonic() - self.started,
            eta=None if self.acceptance.busy else self._eta(left),
            refused=refused_note([runner for _, runner in self.active.values()], self.acceptance),
        )

    def _finished(self) -> bool:
        """Every iteration applied and no acceptance SPRT under way or waiting."""
        done = self.applied >= self.plan.iterations or (not self.active and not self._dispatchable())
        return done and not self.acceptance.busy

    def _stop_work(self, final: bool) -> None:
        """Stop the iterations in flight; their stored results stay and they resume with the run."""
        for _, runner in self.active.values():
            runner.release()
            self.store.update_run(runner.run_id, state=RunState.INTERRUPTED)
        self.active.clear()
