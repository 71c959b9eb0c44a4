"""Strength reports of runs (``arbiter report``) and the export of their games (``arbiter games``).

Pure data gathering and rendering, no click: :func:`build` reads one run of the store (an SPRT, a
trial, an acceptance SPRT, a tuning run or a tournament, running or finished) into its kind's typed
report data (``reports/data.py``; ``to_json`` is what ``--json`` prints) and its plots;
:func:`html_page` and :func:`terminal_summary` render it. ``docs/reports.md`` says how to read one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from coordinator.registry import kind_of
from coordinator.store import Run, Store

if TYPE_CHECKING:
    from coordinator.reports.data import ReportData
    from coordinator.reports.html import ReportPage


@dataclass(frozen=True)
class Report:
    """A run's report: its data (``data.to_json()`` is what ``--json`` prints) and its plots as
    inline SVG, by name."""

    data: ReportData
    plots: dict[str, str]


def gather(store: Store, run: Run, anchor: str | None = None) -> ReportData:
    """The report data of ``run`` (no plots), with its "unverifiable" line (None: verifiable); a
    tournament's ratings relative to engine ``anchor`` (None: to the mean of all)."""
    data: ReportData = kind_of(run.kind).report_data(store, run, anchor)
    return data


def build(store: Store, run: Run, anchor: str | None = None) -> Report:
    """The full report of ``run``: its data and every plot (``anchor``: see :func:`gather`)."""
    data = gather(store, run, anchor)
    return Report(data, kind_of(run.kind).report_plots(store, run, data))


def html_page(report: Report) -> ReportPage:
    """The self-contained HTML page of a report (a string that also keeps its sections)."""
    from coordinator.reports.html import noted

    data = report.data
    return noted(kind_of(data.run.kind).report_html(data, report.plots), data.unverifiable)


def json_safe(value: Any) -> Any:
    """``value`` with every non-finite float turned into None (JSON has no NaN or infinity)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def terminal_summary(report: Report | ReportData) -> str:
    """The 80-column terminal summary of a report (or of its data)."""
    from coordinator.reports.text import noted

    data = report.data if isinstance(report, Report) else report
    return noted(kind_of(data.run.kind).report_text(data), data.unverifiable)


def default_report_path(run_id: int) -> str:
    """Where a report goes unless told otherwise: ``RUN-report.html``."""
    return f"{run_id}-report.html"


__all__ = ["Report", "build", "default_report_path", "gather", "html_page", "json_safe", "terminal_summary"]
