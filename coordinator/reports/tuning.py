"""The data of a tuning run's report, from the store and the run's Optuna study.

The champion chain and the trials come from arbiter's tuning tables (``tune_trials``,
``champions``), the acceptance SPRTs from their own runs (their LLR replayed by the runner's prefix
counter, see :mod:`coordinator.reports.match`), and the parameter importance from Optuna's own
evaluator on the study the tuner kept in the same database. Everything returned is JSON data.
"""

from __future__ import annotations

import math
import warnings
from datetime import datetime
from typing import Any

from sqlalchemy import select

import engine
from coordinator.reports.command import tune_command
from coordinator.reports.match import counted_result_rows, iso, run_info, series
from coordinator.sprt.config import SprtConfig
from coordinator.stats import sprt_elo
from coordinator.store import Run, Store, results
from coordinator.tuning.config import TuneConfig
from coordinator.tuning.records import Champion, TrialRow, TuningRecords
from coordinator.tuning.tuner import elo_vs_start, optuna_storage, study_name

#: Trial outcomes, in the order a legend lists them.
OUTCOMES = ("pruned", "complete", "in acceptance", "accepted", "rejected", "running", "failed")
#: Parameters shown in the optimizer's view (the most important ones).
SLICE_PARAMS = 4


def _outcome(trial: TrialRow, accept_runs: dict[int, Run], crowned: set[int]) -> str:
    """What became of a trial: pruned, complete, in acceptance, accepted, rejected, running, failed."""
    if trial.accept_run_id is None:
        return trial.state
    run = accept_runs.get(trial.accept_run_id)
    if run is None or run.decision is None:
        return "in acceptance"
    return "accepted" if trial.accept_run_id in crowned else "rejected"


def _result_times(store: Store, run_ids: list[int]) -> list[tuple[datetime, int]]:
    """(stored at, games) of every result of the given runs, oldest first."""
    if not run_ids:
        return []
    query = (
        select(results.c.created_at, results.c.wins, results.c.draws, results.c.losses)
        .where(results.c.run_id.in_(run_ids))
        .order_by(results.c.created_at)
    )
    with store.engine.connect() as c:
        return [(r.created_at, r.wins + r.draws + r.losses) for r in c.execute(query)]


def _champion_times(store: Store, run_id: int) -> dict[int, datetime]:
    """When each champion was crowned (number 0: when the run started)."""
    from coordinator.tuning.records import champions as champions_table

    query = select(champions_table.c.number, champions_table.c.created_at).where(
        champions_table.c.tune_run_id == run_id
    )
    with store.engine.connect() as c:
        return {r.number: r.created_at for r in c.execute(query)}


def _games_until(times: list[tuple[datetime, int]], moment: datetime | None) -> int:
    """Games stored up to ``moment``."""
    if moment is None:
        return sum(g for _, g in times)
    return sum(g for t, g in times if t <= moment)


def _acceptance(store: Store, run: Run, trial: TrialRow, crowned: set[int]) -> dict[str, Any]:
    """One acceptance SPRT: its LLR curve, bounds, decision and SPRT Elo."""
    config = SprtConfig.from_json(run.config)
    rows = counted_result_rows(store, run.id, run.counted_batches)
    totals = store.totals(run.id)
    lower, upper = config.sprt_params.bounds
    estimate = None
    if sum(totals.pentanomial):
        e = sprt_elo(
            totals.pentanomial, config.elo0, config.elo1, config.elo_model, config.alpha, config.beta
        )
        estimate = {"elo": e.elo, "ci": [e.ci_low, e.ci_high], "llr": e.llr}
    return {
        "run_id": run.id,
        "trial": trial.trial_number,
        "champion": trial.champion_number,
        "state": str(run.state),
        "decision": run.decision,
        "crowned": run.id in crowned,
        "games": totals.games,
        "pentanomial": totals.pentanomial,
        "elo0": config.elo0,
        "elo1": config.elo1,
        "elo_model": config.elo_model,
        "lower_bound": lower,
        "upper_bound": upper,
        "series": {k: v for k, v in series(config, rows).items() if k in ("games", "llr")},
        "sprt_elo": estimate,
    }


def _weights(game: str, config: TuneConfig, final: dict[str, int]) -> list[dict[str, Any]]:
    """Each weight of the table: range, meaning, engine default, start and final champion."""
    tuned = set(config.params)
    return [
        {
            "name": w.name,
            "description": w.description,
            "min": w.min,
            "max": w.max,
            "default": w.default,
            "start": config.start.get(w.name, w.default),
            "final": final.get(w.name, w.default),
            "change": final.get(w.name, w.default) - config.start.get(w.name, w.default),
            "tuned": w.name in tuned,
        }
        for w in engine.weights(game)
    ]


def optuna_view(store: Store, run_id: int) -> dict[str, Any]:
    """Optuna's view of the study: parameter importance (its PED-ANOVA evaluator, which needs no
    extra package) and its best trial; ``error`` says why a part is missing."""
    import optuna
    from optuna.importance import PedAnovaImportanceEvaluator, get_param_importances
    from optuna.trial import TrialState

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    view: dict[str, Any] = {"study": study_name(run_id), "importance": None, "best": None, "error": None}
    try:
        study = optuna.load_study(study_name=study_name(run_id), storage=optuna_storage(store.url))
    except KeyError:
        view["error"] = "the run has no Optuna study yet"
        return view
    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    view["complete_trials"] = len(complete)
    if complete:
        best = study.best_trial
        view["best"] = {"trial": best.number, "value": best.value, "params": dict(best.params)}
    if len(complete) < 2:
        view["error"] = f"{len(complete)} complete trial(s): importance needs at least 2"
        return view
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            importance = get_param_importances(study, evaluator=PedAnovaImportanceEvaluator())
    except (ValueError, RuntimeError, ZeroDivisionError) as e:
        view["error"] = f"Optuna could not rank the parameters: {' '.join(str(e).split())}"
        return view
    view["importance"] = {
        "method": "PED-ANOVA (optuna.importance.PedAnovaImportanceEvaluator)",
        "values": {k: float(v) for k, v in importance.items() if math.isfinite(float(v))},
    }
    return view


def tune_report(store: Store, run: Run) -> dict[str, Any]:
    """Everything the report of a tuning run shows, as JSON data."""
    config = TuneConfig.from_json(run.config)
    records = TuningRecords(store)
    champions: list[Champion] = records.champions(run.id)
    trials = records.trials(run.id)
    crowned = {c.accept_run_id for c in champions if c.accept_run_id is not None}
    accept_runs = {
        t.accept_run_id: r
        for t in trials
        if t.accept_run_id is not None and (r := store.get_run(t.accept_run_id)) is not None
    }
    children = sorted({t.trial_run_id for t in trials} | set(accept_runs))
    times = _result_times(store, children)
    crowned_at = _champion_times(store, run.id)
    end = run.finished_at or (times[-1][0] if times else None)

    chain = []
    for c in champions:
        elo, half = elo_vs_start(champions, c.number)
        chain.append(
            {
                "number": c.number,
                "trial": c.trial_number,
                "parent": c.parent,
                "accept_run": c.accept_run_id,
                "elo_vs_parent": c.elo_vs_parent,
                "elo_vs_parent_ci": [c.elo_vs_parent_low, c.elo_vs_parent_high],
                "elo_vs_start": elo,
                "elo_vs_start95": half,
                "crowned_at": iso(crowned_at.get(c.number)),
                "games_before": 0 if c.number == 0 else _games_until(times, crowned_at.get(c.number)),
            }
        )

    reigns = []
    for i, c in enumerate(champions):
        began = crowned_at.get(c.number)
        ended = crowned_at.get(champions[i + 1].number) if i + 1 < len(champions) else end
        seconds = (ended - began).total_seconds() if began is not None and ended is not None else None
        games = records.games(run.id, champion=c.number)
        reigns.append(
            {
                "champion": c.number,
                "games": games,
                "seconds": seconds,
                "games_per_second": games / seconds if seconds else None,
            }
        )

    trial_rows = [
        {
            "number": t.trial_number,
            "run_id": t.trial_run_id,
            "champion": t.champion_number,
            "state": t.state,
            "outcome": _outcome(t, accept_runs, crowned),
            "elo": t.elo,
            "elo95": t.elo95,
            "games": t.games,
            "params": t.params,
            "accept_run": t.accept_run_id,
        }
        for t in trials
    ]
    acceptances = [
        _acceptance(store, accept_runs[t.accept_run_id], t, crowned)
        for t in trials
        if t.accept_run_id is not None and t.accept_run_id in accept_runs
    ]
    final = champions[-1].weights if champions else dict(config.start)
    elo, half = elo_vs_start(champions, champions[-1].number) if champions else (0.0, 0.0)
    command, notes = tune_command(run.config, store.url)
    counts = {o: sum(t["outcome"] == o for t in trial_rows) for o in OUTCOMES}
    total_games = sum(g for _, g in times)
    seconds = (end - run.created_at).total_seconds() if end is not None else None
    return {
        "type": "tune",
        "run": run_info(run),
        "totals": {
            "trials": len(trial_rows),
            "outcomes": counts,
            "games": total_games,
            "seconds": seconds,
            "games_per_second": total_games / seconds if seconds else None,
            "champion": champions[-1].number if champions else 0,
            "champion_elo": elo,
            "champion_elo95": half,
        },
        "champions": chain,
        "reigns": reigns,
        "trials": trial_rows,
        "acceptances": acceptances,
        "weights": _weights(config.game, config, final),
        "optuna": optuna_view(store, run.id),
        "config": {
            **{k: v for k, v in run.config.items() if k != "openings"},
            "openings": len(config.openings),
        },
        "command": command,
        "command_notes": notes,
    }
