"""What ``arbiter status RUN --json`` prints: one run of any kind as one JSON-safe dict.

The command prints it; a program that has the store at hand (a test, a script) can read the same
dict without starting a process.
"""

from __future__ import annotations

from typing import Any

from coordinator.runs import RunKind
from coordinator.sprt.report import STATS_ERRORS, stored_status
from coordinator.store import Run, Store
from coordinator.trust.verifiable import unverifiable_engines
from coordinator.tuning.config import TuneConfig
from coordinator.tuning.outcomes import tally, trial_outcomes
from coordinator.tuning.records import TuningRecords


def worker_check(store: Store, run: Run) -> dict[str, Any]:
    """Each worker's counted games and its residual against the others (fishtest's chi² test of
    the pentanomial counts per worker), flagged beyond the 95% band: a warning, never a proof
    (the spot checks are the proof)."""
    from coordinator.reports.match import workers_of

    found = workers_of(store, run)
    return {
        "chi2": found["check"],
        "workers": [
            {k: w[k] for k in ("worker", "batches", "games", "residual", "flagged")} for w in found["workers"]
        ],
    }


def match_status(store: Store, run: Run) -> dict[str, Any]:
    """An SPRT, trial or acceptance run: counts, statistics, refusals, the workers' check, its
    configuration (credentials masked) and its engines."""
    from coordinator.reports.engines import masked_config
    from coordinator.reports.match import engines_of

    data = stored_status(store, run) | {"worker_check": worker_check(store, run)}
    data["config"] = masked_config(run.config)
    try:
        data["engines"] = engines_of(store, run)
    except STATS_ERRORS as e:  # a configuration this version cannot read
        data["engines_error"] = f"cannot be shown: {e}"
    return data


def tune_status(store: Store, run: Run) -> dict[str, Any]:
    """A tuning run: its trials (or SPSA's path of theta), champions, acceptance SPRTs and games."""
    from coordinator.tuning.report import acceptances_json, status_json

    config = TuneConfig.from_json(run.config)
    records = TuningRecords(store)
    limits = [config.stage_limits(stage) for stage in range(config.stages)]
    data = status_json(
        run.id,
        run.state,
        run.game,
        records.champions(run.id),
        records.trials(run.id),
        records.games(run.id),
        config.method,
        acceptances_json(records.acceptances(run.id), limits),
        records.iterations(run.id) if config.method == "spsa" else None,
    )
    data["unverifiable"] = unverifiable_engines(run.config)
    data["outcomes"] = tally(trial_outcomes(store, run.id).values())  # as the report counts them
    return data


def status_data(store: Store, run: Run) -> dict[str, Any]:
    """``run`` as ``arbiter status RUN --json`` prints it."""
    if run.kind is RunKind.TUNE:
        return tune_status(store, run)
    if run.kind is RunKind.TOURNAMENT:
        from coordinator.reports import gather, json_safe

        return dict(json_safe(gather(store, run)))
    return match_status(store, run)
