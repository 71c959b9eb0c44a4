"""What ``arbiter status RUN --json`` prints: one run of any kind as one JSON-safe dict.

The command prints it; a program that has the store at hand (a test, a script) can read the same
dict without starting a process.
"""

from __future__ import annotations

from typing import Any

from coordinator.escape import terminal
from coordinator.registry import kind_of
from coordinator.runs import decision_label
from coordinator.sprt.report import STATS_ERRORS, stored_status
from coordinator.store import Run, Store
from coordinator.trust.verifiable import unverifiable_engines, unverifiable_note
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

    config = run.settings_as(TuneConfig)
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


def match_status_text(store: Store, run: Run) -> str:
    """One SPRT, trial or acceptance run, for people (``arbiter status RUN``)."""
    from coordinator.reports.text import engines_lines

    data = match_status(store, run)
    lines = []
    if "headline" in data:
        lines.append(terminal(data["headline"]))
        if data["ending"]:
            lines.append(data["ending"])
    for key in ("id", "kind", "game", "state", "decision", "games", "pentanomial", "wdl"):
        if key in data:
            value = decision_label(data[key]) if key == "decision" else data[key]
            lines.append(f"{key}: {terminal(value)}")
    if data["playing"]:
        lines.append(f"playing: {data['playing']} games in batches in flight (not yet counted)")
    for side in ("candidate", "baseline"):
        if side in data:
            where = f" from {data[side]['repo']}" if "repo" in data[side] else ""
            lines.append(f"{side}: {terminal(data[side]['name'] + where)}")
    if "statistics_error" in data:
        lines.append(f"statistics: {terminal(data['statistics_error'])}")
    else:
        lines.append(
            f"llr: {data['llr']:.2f} [{data['lower_bound']:.2f}, {data['upper_bound']:.2f}]\n"
            f"elo: {data['elo']:.2f} +- {data['elo95']:.2f} (95%)  los: {100 * data['los']:.1f}%\n"
            f"batches: {data['counted_batches']} counted, {data['stored_batches']} stored"
        )
    if "engines" in data:
        lines += engines_lines(data["engines"])
    if run.error:
        lines.append(f"error: {terminal(run.error)}")
    if (note := unverifiable_note(run.config)) is not None:
        lines.append(terminal(note))
    for q in data["quarantined"]:
        lines.append(
            f"quarantined worker {terminal(q['worker'])}: {terminal(q['reason'])} "
            f"({q['discarded_batches']} batches discarded)"
        )
    for refusal in data["refused"]:
        lines.append(
            f"refused batch {refusal['batch']} ({refusal['attempts']} attempts, {refusal['state']}): "
            f"{terminal(refusal['reason'])}"
        )
    check = data["worker_check"]
    for w in check["workers"]:
        if w["flagged"]:
            lines.append(
                f"outlier worker {terminal(w['worker'])}: residual {w['residual']:+.2f} "
                f"over {w['games']} games "
                f"(chi² p = {check['chi2']['p']:.3g}; a warning, not a proof)"
            )
    return "\n".join(lines)


def status_data(store: Store, run: Run) -> dict[str, Any]:
    """``run`` as ``arbiter status RUN --json`` prints it."""
    return kind_of(run.kind).status_json(store, run)
