"""What both tuning methods share: the store run, the executor, the champion history, the
acceptance SPRTs, and the loop that keeps every worker busy until the budget is used.

A method (:class:`coordinator.tuning.tuner.Tuner` for Optuna,
:class:`coordinator.tuning.spsa_tuner.SpsaTuner` for SPSA) supplies its own work: what to send
when slots are free (after the acceptance SPRT, which goes first), which outcomes are its own, what
to do with counted batches, when it is done, and how to stop.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from coordinator.executors.base import BatchOutcome, Executor
from coordinator.runs import RunState
from coordinator.sprt.runner import SprtRunner
from coordinator.store import Store
from coordinator.tuning.acceptance import AcceptanceQueue
from coordinator.tuning.config import TuneConfig
from coordinator.tuning.context import TuningContext

POLL_SECONDS = 0.5


class TuningDriver(TuningContext, ABC):
    """Drives one tuning run of the store with an executor until its budget is used."""

    def __init__(
        self,
        store: Store,
        run_id: int,
        config: TuneConfig,
        executor: Executor,
        on_progress: Callable[[Any], None] | None = None,
        stop_requested: Callable[[], bool] | None = None,
    ) -> None:
        """Load (or start) the champion history of ``run_id``, then the method's own state.

        ``stop_requested`` is asked once per step of the loop; when it says yes the run stops as
        if interrupted, at a point where no store or Optuna transaction is open (a signal handler
        that raised KeyboardInterrupt anywhere could leave one holding SQLite's write lock).
        """
        super().__init__(store, run_id, config, executor)
        self.on_progress = on_progress
        self.stop_requested = stop_requested
        self.acceptance = AcceptanceQueue(self)
        self.started = time.monotonic()
        self.games_here = 0
        self._resume()

    def _out_of_time(self) -> bool:
        """True once the run's time limit is used."""
        return (
            self.config.time_limit is not None and time.monotonic() - self.started >= self.config.time_limit
        )

    def _rate(self) -> float:
        """Games per second played by this process so far, with those its batches in flight have
        played (as their workers tell: for the speed and the ETA only, never counted)."""
        elapsed = time.monotonic() - self.started
        playing = sum(self.executor.playing().values())
        return (self.games_here + playing) / elapsed if elapsed > 0 else 0.0

    def _eta(self, games_left: float | None) -> float | None:
        """Seconds until ``games_left`` more games are played at this process's speed, capped by
        the time limit."""
        rate = self._rate()
        eta = games_left / rate if games_left is not None and rate > 0 else None
        if self.config.time_limit is not None:
            left = max(0.0, self.config.time_limit - (time.monotonic() - self.started))
            eta = left if eta is None else min(eta, left)
        return eta

    def _close_counted(self, runner: SprtRunner) -> None:
        """Mark the run of ``runner``, counted to its end, finished with its counted prefix (a
        kill may have come before it was marked)."""
        p = runner.progress()
        self.store.update_run(
            runner.run_id,
            state=RunState.FINISHED,
            counted_batches=p.counted_batches,
            decision=p.decision,
            finished=True,
        )

    # what a method supplies -------------------------------------------------------------------

    @abstractmethod
    def _resume(self) -> None:
        """Load the method's own state of the run, and take up what a kill or a stop left."""

    @abstractmethod
    def _fill(self) -> None:
        """Send the method's own batches into the slots the acceptance SPRT left free."""

    @abstractmethod
    def _deliver(self, outcome: BatchOutcome) -> None:
        """Hand an outcome that is not the acceptance SPRT's to the run it belongs to."""

    @abstractmethod
    def _count(self) -> None:
        """Count what arrived and act on it (the acceptance queue's count included)."""

    @abstractmethod
    def _finished(self) -> bool:
        """Nothing under way and no budget for more."""

    @abstractmethod
    def _stop_work(self, final: bool) -> None:
        """Stop the method's own work under way (the executor is already cancelled): to resume
        it later, or (``final``: the run ends, its time limit used) for good."""

    @abstractmethod
    def progress(self) -> Any:
        """A snapshot for the progress line."""

    # the loop ---------------------------------------------------------------------------------

    def _route(self) -> None:
        """Deliver finished batches to the run they belong to (strays are dropped)."""
        for outcome in self.executor.completed(timeout=POLL_SECONDS):
            if isinstance(outcome.result, dict) and outcome.error is None:
                self.games_here += sum(outcome.result.get("wdl", [0, 0, 0]))
            if self.acceptance.owns(outcome.run_id):
                self.acceptance.receive(outcome)
            else:
                self._deliver(outcome)

    def run(self) -> Any:
        """Tune until the budget is used and the work under way is done; the final progress.

        The time limit stops at once; KeyboardInterrupt does too and marks the run
        ``interrupted``. What each method keeps for a resume is its own (see their modules).
        """
        stored = self.store.get_run(self.run_id)
        if stored is None or stored.state is not RunState.FINISHED:  # a finished run is only shown
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
            self._abandon(final=False)
            self.store.update_run(self.run_id, state=RunState.INTERRUPTED)
            raise
        except BaseException:
            self._abandon(final=False)
            raise
        self._abandon(final=True)
        self.store.update_run(self.run_id, state=RunState.FINISHED, finished=True)
        return self.progress()

    def _abandon(self, final: bool) -> None:
        """Stop everything under way; the acceptance SPRT keeps its results and resumes later."""
        self.executor.cancel()
        self._stop_work(final)
        self.acceptance.abandon()
