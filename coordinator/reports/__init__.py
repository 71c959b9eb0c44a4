"""Strength reports of runs (``arbiter report``) and the export of their games (``arbiter games``).

Pure data gathering and rendering, no click: :func:`build` reads one run of the store (an SPRT, a
trial, an acceptance SPRT, a tuning run or a tournament, running or finished) into JSON data and its plots;
:func:`html_page` and :func:`terminal_summary` render it. ``docs/reports.md`` says how to read one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from coordinator.runs import RunKind
from coordinator.store import Run, Store

if TYPE_CHECKING:
    from coordinator.reports.html import ReportPage


@dataclass(frozen=True)
class Report:
    """A run's report: the data (what ``--json`` prints) and its plots as inline SVG, by name."""

    data: dict[str, Any]
    plots: dict[str, str]


def gather(store: Store, run: Run, anchor: str | None = None) -> dict[str, Any]:
    """The report data of ``run`` (no plots), with its "unverifiable" line (None: verifiable); a
    tournament's ratings relative to engine ``anchor`` (None: to the mean of all)."""
    from coordinator.trust.verifiable import unverifiable_note

    if run.kind is RunKind.TUNE:
        from coordinator.reports.tuning import tune_report

        data = tune_report(store, run)
    elif run.kind is RunKind.TOURNAMENT:
        from coordinator.reports.tournament import tournament_report

        data = tournament_report(store, run, anchor)
    else:
        from coordinator.reports.match import match_report

        data = match_report(store, run)
    return data | {"unverifiable": unverifiable_note(run.config)}


def _study(store: Store, run: Run) -> Any:
    """The Optuna study of a tuning run, or None if it has none yet."""
    import optuna

    from coordinator.tuning.tuner import optuna_storage, study_name

    try:
        return optuna.load_study(study_name=study_name(run.id), storage=optuna_storage(store.url))
    except KeyError:
        return None


def build(store: Store, run: Run, anchor: str | None = None) -> Report:
    """The full report of ``run``: its data and every plot (``anchor``: see :func:`gather`)."""
    from coordinator.reports import plots

    data = gather(store, run, anchor)
    if data["type"] == "tune":
        return Report(data, plots.tune_plots(data, _study(store, run)))
    if data["type"] == "tournament":
        from coordinator.reports.tournament_plots import tournament_plots

        return Report(data, tournament_plots(data))
    return Report(data, plots.match_plots(data))


def html_page(report: Report) -> ReportPage:
    """The self-contained HTML page of a report (a string that also keeps its sections)."""
    from coordinator.reports.html import noted, render

    if report.data["type"] == "tournament":
        from coordinator.reports.tournament_html import tournament_html

        return noted(tournament_html(report.data, report.plots), report.data)
    return render(report.data, report.plots)


def json_safe(value: Any) -> Any:
    """``value`` with every non-finite float turned into None (JSON has no NaN or infinity)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def terminal_summary(report: Report | dict[str, Any]) -> str:
    """The 80-column terminal summary of a report (or of its data)."""
    from coordinator.reports.text import summary

    return summary(report.data if isinstance(report, Report) else report)


def default_report_path(run_id: int) -> str:
    """Where a report goes unless told otherwise: ``RUN-report.html``."""
    return f"{run_id}-report.html"


__all__ = ["Report", "build", "default_report_path", "gather", "html_page", "json_safe", "terminal_summary"]
