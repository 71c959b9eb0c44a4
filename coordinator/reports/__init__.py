"""Strength reports of runs (``arbiter report``) and the export of their games (``arbiter games``).

Pure data gathering and rendering, no click: :func:`build` reads one run of the store (an SPRT, a
trial, an acceptance SPRT, a tuning run or a tournament, running or finished) into JSON data and its plots;
:func:`html_page` and :func:`terminal_summary` render it. ``docs/reports.md`` says how to read one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from coordinator.registry import kind_of
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

    data = kind_of(run.kind).report_data(store, run, anchor)
    return data | {"unverifiable": unverifiable_note(run.config)}


def build(store: Store, run: Run, anchor: str | None = None) -> Report:
    """The full report of ``run``: its data and every plot (``anchor``: see :func:`gather`)."""
    data = gather(store, run, anchor)
    return Report(data, kind_of(run.kind).report_plots(store, run, data))


def html_page(report: Report) -> ReportPage:
    """The self-contained HTML page of a report (a string that also keeps its sections)."""
    from coordinator.reports.html import noted

    return noted(kind_of(report.data["run"]["kind"]).report_html(report.data, report.plots), report.data)


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
    from coordinator.reports.text import noted

    data = report.data if isinstance(report, Report) else report
    return noted(kind_of(data["run"]["kind"]).report_text(data), data)


def default_report_path(run_id: int) -> str:
    """Where a report goes unless told otherwise: ``RUN-report.html``."""
    return f"{run_id}-report.html"


__all__ = ["Report", "build", "default_report_path", "gather", "html_page", "json_safe", "terminal_summary"]
