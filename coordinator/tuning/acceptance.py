"""The acceptance SPRTs of a tuning run, shared by both methods: candidates play against the
champion one at a time, in the order they came, at each acceptance setting in turn (``--accept-
nodes``); a candidate that passes every one of them (H1 accepted each time) is crowned.

One acceptance SPRT at a time keeps the champion a candidate plays a pure function of the order
of the candidates and of earlier decisions, which SPRTs make deterministically. Every SPRT is a run
of the store (kind ``acceptance``) recorded in ``tune_acceptances``; after a kill, the one that was
running resumes where it stopped, one whose run was created but not yet recorded takes that run
up when it starts again, and a candidate accepted at its last stage but not yet crowned is crowned.
"""

from __future__ import annotations

from dataclasses import dataclass

from coordinator.executors.base import BatchOutcome
from coordinator.runs import Decision, RunKind, RunState
from coordinator.sprt.config import SprtConfig
from coordinator.sprt.runner import SprtRunner
from coordinator.stats import sprt_elo
from coordinator.tuning.context import TuningContext
from coordinator.tuning.records import AcceptanceRow, Champion


@dataclass(frozen=True)
class Candidate:
    """Weights that may become champion: an Optuna trial's, or theta after an SPSA iteration."""

    number: int
    weights: dict[str, int]


@dataclass
class ActiveStage:
    """The acceptance SPRT being played: its candidate, stage, runner and the champion it plays."""

    candidate: Candidate
    stage: int
    runner: SprtRunner
    champion: int


@dataclass(frozen=True)
class AcceptanceProgress:
    """The SPRT under way, for the progress line."""

    candidate: int
    stage: int
    nodes: int | None
    llr: float
    lower_bound: float
    upper_bound: float


def refused_note(runners: list[SprtRunner], queue: AcceptanceQueue) -> str | None:
    """What a tuning run's progress line says when the answers to its runs' batches are all
    refused for one reason (the first such run's :meth:`SprtRunner.refused_note`)."""
    return next((n for r in [*runners, *queue.runners()] if (n := r.refused_note()) is not None), None)


class AcceptanceQueue:
    """Plays the acceptance SPRTs of one tuning run and crowns the candidates that pass them all."""

    def __init__(self, context: TuningContext) -> None:
        """Queue for the tuning run of ``context`` (whose champion history it appends to)."""
        self.context = context
        self.waiting: list[Candidate] = []
        self.active: ActiveStage | None = None

    @property
    def busy(self) -> bool:
        """An SPRT under way or a candidate waiting for one."""
        return self.active is not None or bool(self.waiting)

    def submit(self, candidate: Candidate) -> None:
        """Queue a candidate for its acceptance SPRTs."""
        self.waiting.append(candidate)

    def handled(self) -> set[int]:
        """The candidates whose acceptance started (or that were skipped)."""
        context = self.context
        return {row.candidate for row in context.records.acceptances(context.run_id)}

    # playing ----------------------------------------------------------------------------------

    def advance(self) -> None:
        """Start the next waiting candidate's first SPRT if none is under way."""
        context = self.context
        while self.active is None and self.waiting:
            candidate = self.waiting.pop(0)
            if candidate.weights == context.champion.weights:  # cannot be better than itself
                context.records.add_acceptance(
                    context.run_id, candidate.number, 0, None, context.champion.number
                )
                continue
            self._start(candidate, 0)

    def fill(self) -> None:
        """Keep the SPRT under way supplied with batches (it goes first for free slots)."""
        self.advance()
        if self.active is not None:
            self.active.runner.fill()

    def owns(self, run_id: int) -> bool:
        """True if ``run_id`` is the SPRT under way."""
        return self.active is not None and self.active.runner.run_id == run_id

    def receive(self, outcome: BatchOutcome) -> None:
        """Hand an outcome of the SPRT under way to its runner."""
        if self.active is not None:
            self.active.runner.receive(outcome)

    def count(self) -> Champion | None:
        """Count what arrived; settle the SPRT if it decided: the next stage starts, or the
        candidate is crowned (returned) or dropped."""
        active = self.active
        if active is None or not (active.runner.count() and active.runner.decided):
            return None
        active.runner.release()
        self.active = None
        if active.runner.prefix.decision is not Decision.ACCEPTED:
            return None
        if active.stage + 1 < self.context.config.stages:
            self._start(active.candidate, active.stage + 1)
            return None
        return self._crown(active.candidate)

    def _start(self, candidate: Candidate, stage: int, existing_run: int | None = None) -> None:
        """Start (or resume) stage ``stage`` of a candidate's acceptance against the champion."""
        context = self.context
        champion = context.champion
        config = context.config.accept_config(
            candidate.number, candidate.weights, champion.weights, context.tag, stage
        )
        run_id = existing_run
        if run_id is None:
            run_id = context.match_run(RunKind.ACCEPTANCE, config)
            context.records.add_acceptance(
                context.run_id,
                candidate.number,
                stage,
                run_id,
                champion.number,
                on_trial=stage == 0 and context.config.method == "optuna",
            )
        else:
            stored = context.store.get_run(run_id)
            assert stored is not None
            config = stored.settings_as(SprtConfig)
        context.store.update_run(run_id, state=RunState.RUNNING)
        runner = SprtRunner(context.store, run_id, config, context.executor)
        self.active = ActiveStage(candidate, stage, runner, champion.number)

    def _crown(self, candidate: Candidate) -> Champion:
        """Make ``candidate`` the champion; its Elo over its parent is the first stage's SPRT
        estimate (the run's headline setting)."""
        context = self.context
        rows = [r for r in context.records.acceptances(context.run_id) if r.candidate == candidate.number]
        first = next(r for r in rows if r.stage == 0)
        assert first.run_id is not None
        run = context.store.get_run(first.run_id)
        assert run is not None
        config = run.settings_as(SprtConfig)
        totals = context.store.totals(run.id, run.counted_batches)
        estimate = sprt_elo(
            totals.pentanomial, config.elo0, config.elo1, config.elo_model, config.alpha, config.beta
        )
        champion = Champion(
            number=context.champion.number + 1,
            weights=dict(candidate.weights),
            parent=context.champion.number,
            trial_number=candidate.number,
            accept_run_id=run.id,
            elo_vs_parent=estimate.elo,
            elo_vs_parent_low=estimate.ci_low,
            elo_vs_parent_high=estimate.ci_high,
        )
        context.records.add_champion(context.run_id, champion)
        context.champions.append(champion)
        return champion

    # resume and stop --------------------------------------------------------------------------

    def recover(self) -> None:
        """After a kill: resume the SPRT that was under way, or start the next stage of a
        candidate whose last SPRT accepted, or crown one that passed its last stage."""
        context = self.context
        rows = context.records.acceptances(context.run_id)
        if not rows or rows[-1].run_id is None:
            return
        last: AcceptanceRow = rows[-1]
        run = context.store.get_run(last.run_id)  # type: ignore[arg-type]
        if run is None or last.champion_number != context.champion.number:
            return
        candidate = Candidate(last.candidate, run.settings_as(SprtConfig).candidate)
        if run.state.unfinished:
            self._start(candidate, last.stage, existing_run=run.id)
        elif run.decision == Decision.ACCEPTED:  # and not crowned: that would have changed the champion
            if last.stage + 1 < context.config.stages:
                self._start(candidate, last.stage + 1)
            else:
                self._crown(candidate)

    def abandon(self) -> None:
        """Stop the SPRT under way; its stored results stay, and it resumes with the run."""
        if self.active is not None:
            self.active.runner.release()
            self.context.store.update_run(self.active.runner.run_id, state=RunState.INTERRUPTED)
            self.active = None

    def runners(self) -> list[SprtRunner]:
        """The SPRT under way, as a list (empty when none is)."""
        return [] if self.active is None else [self.active.runner]

    def progress(self) -> AcceptanceProgress | None:
        """The SPRT under way, if any."""
        if self.active is None:
            return None
        p = self.active.runner.progress()
        nodes = self.active.runner.config.limits.nodes
        return AcceptanceProgress(
            self.active.candidate.number, self.active.stage, nodes, p.llr, p.lower_bound, p.upper_bound
        )
