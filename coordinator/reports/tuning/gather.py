"""The data of a tuning run's report, from the store and (Optuna) the run's study.

The champion chain, the trials, the acceptance SPRTs and (SPSA) the path of theta come from
arbiter's tuning tables (:mod:`coordinator.tuning.records`), the acceptance SPRTs' curves from
their own runs (their LLR replayed by the runner's prefix counter, see
:mod:`coordinator.reports.sprt.gather`), and the parameter importance from Optuna's own evaluator on the
study the tuner kept in the same database: a :class:`~coordinator.reports.tuning.data.TuneReport`.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from datetime import datetime

from coordinator.reports.command import tune_command
from coordinator.reports.data import RunInfo, iso
from coordinator.reports.sprt.gather import counted_result_rows, series
from coordinator.reports.tuning.data import (
    AcceptanceSprt,
    BestTrial,
    ChampionEntry,
    Importance,
    LlrCurve,
    OptunaView,
    Reign,
    SprtEstimate,
    SpsaView,
    SpsaWeight,
    StageChain,
    StageChampion,
    ThetaPoint,
    TrialEntry,
    TuneReport,
    TuneTotals,
    WeightEntry,
)
from coordinator.sprt.config import SprtConfig
from coordinator.stats import sprt_elo
from coordinator.store import Run, Store
from coordinator.trust.verifiable import unverifiable_note
from coordinator.tuning.config import TuneConfig
from coordinator.tuning.outcomes import acceptance_ending, tally, trial_outcomes
from coordinator.tuning.progress import elo_vs_start
from coordinator.tuning.records import AcceptanceRow, Champion, IterationRow, TuningRecords
from coordinator.tuning.tuner import optuna_storage, study_name

#: Parameters shown in the optimizer's view (the most important ones).
SLICE_PARAMS = 4
#: Points of the path of theta a report keeps at most (evenly thinned, the last one kept).
PATH_POINTS = 600


def _games_until(times: list[tuple[datetime, int]], moment: datetime | None) -> int:
    """Games stored up to ``moment``."""
    if moment is None:
        return sum(g for _, g in times)
    return sum(g for t, g in times if t <= moment)


def _acceptance(store: Store, run: Run, row: AcceptanceRow, crowned: set[int], stages: int) -> AcceptanceSprt:
    """One acceptance SPRT: its stage and limits, LLR curve, bounds, decision (and its ending in
    words) and SPRT Elo."""
    config = run.settings_as(SprtConfig)
    curve = series(config, counted_result_rows(store, run.id, run.counted_batches))
    totals = store.totals(run.id)
    lower, upper = config.sprt_params.bounds
    estimate = None
    if sum(totals.pentanomial):
        e = sprt_elo(
            totals.pentanomial, config.elo0, config.elo1, config.elo_model, config.alpha, config.beta
        )
        estimate = SprtEstimate(elo=e.elo, ci=[e.ci_low, e.ci_high], llr=e.llr)
    return AcceptanceSprt(
        run_id=run.id,
        trial=row.candidate,
        stage=row.stage,
        limits=config.limits.to_json(),
        setting=str(config.limits),
        champion=row.champion_number,
        state=str(run.state),
        decision=run.decision,
        crowned=row.candidate in crowned and run.decision == "accepted",
        ending=acceptance_ending(
            run.decision,
            row.candidate in crowned and row.stage + 1 == stages,
            row.stage,
            stages,
            row.champion_number,
            config.max_games,
        ),
        games=totals.games,
        pentanomial=totals.pentanomial,
        elo0=config.elo0,
        elo1=config.elo1,
        elo_model=config.elo_model,
        lower_bound=lower,
        upper_bound=upper,
        series=LlrCurve(games=curve.games, llr=curve.llr),
        sprt_elo=estimate,
    )


def _weights(config: TuneConfig, final: dict[str, int]) -> list[WeightEntry]:
    """Each weight of the table: range, meaning, engine default, start and final champion."""
    tuned = set(config.params)
    return [
        WeightEntry(
            name=w.name,
            description=w.description,
            min=w.min,
            max=w.max,
            default=w.default,
            start=config.start.get(w.name, w.default),
            final=final.get(w.name, w.default),
            change=final.get(w.name, w.default) - config.start.get(w.name, w.default),
            tuned=w.name in tuned,
        )
        for w in config.tunables()
    ]


def optuna_view(store: Store, run_id: int) -> OptunaView:
    """Optuna's view of the study: parameter importance (its PED-ANOVA evaluator, which needs no
    extra package) and its best trial; ``error`` says why a part is missing."""
    import optuna
    from optuna.importance import PedAnovaImportanceEvaluator, get_param_importances
    from optuna.trial import TrialState

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    name = study_name(run_id)
    try:
        study = optuna.load_study(study_name=name, storage=optuna_storage(store.url))
    except KeyError:
        return OptunaView(name, None, None, "the run has no Optuna study yet", None)
    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    best = None
    if complete:
        found = study.best_trial
        best = BestTrial(trial=found.number, value=found.value, params=dict(found.params))
    if len(complete) < 2:
        error = f"{len(complete)} complete trial(s): importance needs at least 2"
        return OptunaView(name, None, best, error, len(complete))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            importance = get_param_importances(study, evaluator=PedAnovaImportanceEvaluator())
    except (ValueError, RuntimeError, ZeroDivisionError) as e:
        error = f"Optuna could not rank the parameters: {' '.join(str(e).split())}"
        return OptunaView(name, None, best, error, len(complete))
    ranked = Importance(
        method="PED-ANOVA (optuna.importance.PedAnovaImportanceEvaluator)",
        values={k: float(v) for k, v in importance.items() if math.isfinite(float(v))},
    )
    return OptunaView(name, ranked, best, None, len(complete))


def _thinned(rows: list[IterationRow]) -> list[IterationRow]:
    """At most :data:`PATH_POINTS` rows, evenly spread, the last one kept."""
    if len(rows) <= PATH_POINTS:
        return rows
    step = len(rows) / PATH_POINTS
    kept = [rows[int(i * step)] for i in range(PATH_POINTS - 1)]
    return [*kept, rows[-1]]


def spsa_view(config: TuneConfig, iterations: list[IterationRow]) -> SpsaView:
    """SPSA's plan and its path of theta (thinned), with theta+ and theta-'s gap at each point."""
    plan = config.spsa_plan()
    applied = [row for row in iterations if row.theta is not None]
    start = {w.name: float(config.start[w.name]) for w in plan.weights}
    points = [ThetaPoint(iteration=-1, theta=start, c=None)] + [
        ThetaPoint(
            iteration=row.iteration,
            theta=row.theta,
            c={w.name: plan.c(w, row.iteration) for w in plan.weights},
        )
        for row in _thinned(applied)
        if row.theta is not None
    ]
    last = applied[-1].theta if applied else None
    return SpsaView(
        iterations=plan.iterations,
        dispatched=len(iterations),
        applied=len(applied),
        pairs_per_iteration=plan.pairs_per_iteration,
        lag=config.spsa_lag,
        accept_every=config.accept_every,
        alpha=plan.alpha,
        gamma=plan.gamma,
        A=plan.big_a,
        weights=[
            SpsaWeight(name=w.name, min=w.low, max=w.high, c_end=w.c_end, r_end=w.r_end) for w in plan.weights
        ],
        theta=last if last is not None else start,
        wins=sum(row.wins or 0 for row in applied),
        losses=sum(row.losses or 0 for row in applied),
        path=points,
    )


def _stage_chains(
    store: Store, config: TuneConfig, champions: list[Champion], rows: list[AcceptanceRow]
) -> list[StageChain]:
    """Each acceptance setting's view of the champion chain: every champion's SPRT Elo over its
    parent at that setting, summed along the chain (95% half-widths in quadrature); none before
    the run has crowned its start (a run still queued)."""
    if not champions:
        return []
    runs = {(r.candidate, r.stage, r.champion_number): r.run_id for r in rows if r.run_id is not None}
    views = []
    for stage in range(config.stages):
        staged = [champions[0]]
        for c in champions[1:]:
            run_id = runs.get((c.trial_number or 0, stage, c.parent or 0))
            run = store.get_run(run_id) if run_id is not None else None
            if run is None:  # crowned without this setting's SPRT: nothing measured there
                staged.append(
                    dataclasses.replace(c, elo_vs_parent=0.0, elo_vs_parent_low=0.0, elo_vs_parent_high=0.0)
                )
                continue
            sprt = run.settings_as(SprtConfig)
            totals = store.totals(run.id, run.counted_batches)
            e = sprt_elo(totals.pentanomial, sprt.elo0, sprt.elo1, sprt.elo_model, sprt.alpha, sprt.beta)
            staged.append(
                dataclasses.replace(
                    c, elo_vs_parent=e.elo, elo_vs_parent_low=e.ci_low, elo_vs_parent_high=e.ci_high
                )
            )
        elos = []
        for c in staged:
            elo, half = elo_vs_start(staged, c.number)
            elos.append(StageChampion(champion=c.number, elo_vs_start=elo, elo_vs_start95=half))
        limits = config.stage_limits(stage)
        views.append(StageChain(stage=stage, limits=limits.to_json(), setting=str(limits), champions=elos))
    return views


def tune_report(store: Store, run: Run) -> TuneReport:
    """Everything the report of a tuning run shows."""
    config = run.settings_as(TuneConfig)
    records = TuningRecords(store)
    champions: list[Champion] = records.champions(run.id)
    trials = records.trials(run.id)
    stages = records.acceptances(run.id)
    crowned = {c.trial_number for c in champions[1:] if c.trial_number is not None}
    accept_runs = {
        row.run_id: r
        for row in stages
        if row.run_id is not None and (r := store.get_run(row.run_id)) is not None
    }
    outcomes = trial_outcomes(store, run.id)
    times = records.result_times(run.id)
    crowned_at = records.crowned_at(run.id)
    end = run.finished_at or (times[-1][0] if times else None)

    chain = []
    for c in champions:
        elo, half = elo_vs_start(champions, c.number)
        chain.append(
            ChampionEntry(
                number=c.number,
                trial=c.trial_number,
                parent=c.parent,
                accept_run=c.accept_run_id,
                elo_vs_parent=c.elo_vs_parent,
                elo_vs_parent_ci=[c.elo_vs_parent_low, c.elo_vs_parent_high],
                elo_vs_start=elo,
                elo_vs_start95=half,
                crowned_at=iso(crowned_at.get(c.number)),
                games_before=0 if c.number == 0 else _games_until(times, crowned_at.get(c.number)),
            )
        )

    reigns = []
    for i, c in enumerate(champions):
        began = crowned_at.get(c.number)
        ended = crowned_at.get(champions[i + 1].number) if i + 1 < len(champions) else end
        seconds = (ended - began).total_seconds() if began is not None and ended is not None else None
        games = records.games(run.id, champion=c.number)
        reigns.append(
            Reign(
                champion=c.number,
                games=games,
                seconds=seconds,
                games_per_second=games / seconds if seconds else None,
            )
        )

    acceptances = [
        _acceptance(store, accept_runs[row.run_id], row, crowned, config.stages)
        for row in stages
        if row.run_id is not None and row.run_id in accept_runs
    ]
    endings = {a.trial: a.ending for a in acceptances}  # each trial's last SPRT's
    trial_rows = [
        TrialEntry(
            number=t.trial_number,
            run_id=t.trial_run_id,
            champion=t.champion_number,
            state=t.state,
            outcome=outcomes[t.trial_number],
            acceptance=endings.get(t.trial_number),
            elo=t.elo,
            elo95=t.elo95,
            games=t.games,
            params=t.params,
            accept_run=t.accept_run_id,
        )
        for t in trials
    ]
    final = champions[-1].weights if champions else dict(config.start)
    elo, half = elo_vs_start(champions, champions[-1].number) if champions else (0.0, 0.0)
    command, notes = tune_command(run.config, store.url)
    counts = tally(outcomes.values())
    total_games = sum(g for _, g in times)
    seconds = (end - run.created_at).total_seconds() if end is not None else None
    spsa = config.method == "spsa"
    return TuneReport(
        method=config.method,
        run=RunInfo.of(run),
        totals=TuneTotals(
            trials=len(trial_rows),
            outcomes=counts,
            games=total_games,
            seconds=seconds,
            games_per_second=total_games / seconds if seconds else None,
            champion=champions[-1].number if champions else 0,
            champion_elo=elo,
            champion_elo95=half,
        ),
        champions=chain,
        stages=_stage_chains(store, config, champions, stages),
        reigns=reigns,
        trials=trial_rows,
        acceptances=acceptances,
        weights=_weights(config, final),
        config={**{k: v for k, v in run.config.items() if k != "openings"}, "openings": len(config.openings)},
        command=command,
        command_notes=notes,
        spsa=spsa_view(config, records.iterations(run.id)) if spsa else None,
        optuna=None if spsa else optuna_view(store, run.id),
        unverifiable=unverifiable_note(run.config),
    )
