"""The SPRT as a kind of run (``arbiter sprt``): game pairs of a candidate against a baseline until
the SPRT decides. :class:`MatchRunKind` is what every run that plays two sides under an SPRT
configuration shares (a tuning run's trials, acceptance SPRTs and SPSA iterations are such runs)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coordinator.registry import Kind, LiveItem, ReportT, elo_text, llr_text
from coordinator.runs import RunKind
from coordinator.sprt.config import SprtConfig, TwoSidedConfig

if TYPE_CHECKING:
    from coordinator.executors.base import Executor
    from coordinator.reports.engines import Engines
    from coordinator.reports.sprt.data import MatchReport
    from coordinator.store import Run, Store


class TwoSidesKind(Kind[ReportT]):
    """A kind whose runs play two fixed sides (an SPRT's, a match's configuration)."""

    config_type: type[TwoSidedConfig]

    def engines(self, store: Store, run: Run) -> Engines:
        """The two sides, from the configuration and the counted results."""
        from coordinator.reports.engines import engines_data
        from coordinator.reports.sprt.gather import counted_result_rows

        rows = counted_result_rows(store, run.id, run.counted_batches)
        return engines_data(run.settings_as(self.config_type), rows, run.engine_version)


class MatchRunKind(TwoSidesKind["MatchReport"]):
    """A run of two sides under an SPRT configuration: its status, report and dashboard row."""

    decides = True
    worker_check = True
    config_type = SprtConfig

    def command(self, store: Store, run: Run) -> tuple[str, list[str]]:
        """The command that plays the run again, and notes on it."""
        from coordinator.reports.command import sprt_command

        return sprt_command(run.config, store.url)

    def play(self, store: Store, run: Run, executor: Executor) -> None:
        """Play the SPRT to its decision, then print its summary."""
        from coordinator.sprt.drive import play

        play(store, run, run.settings_as(SprtConfig), executor)

    def finished_text(self, store: Store, run: Run) -> str | None:
        """The summary of the finished SPRT."""
        from coordinator.sprt.report import stored_progress, summary_text

        cpu = store.totals(run.id).cpu_seconds
        return summary_text(run, run.settings_as(SprtConfig), stored_progress(store, run), 0.0, cpu)

    def status_row(self, store: Store, run: Run) -> str:
        """Games, Elo, LLR and decision."""
        from coordinator.sprt.report import stored_row

        return stored_row(store, run)

    def status_text(self, store: Store, run: Run) -> str:
        """Counts, statistics, sides, refusals and the workers' check."""
        from coordinator.reports.status import match_status_text

        return match_status_text(store, run)

    def status_json(self, store: Store, run: Run) -> dict[str, Any]:
        """:func:`coordinator.reports.status.match_status`."""
        from coordinator.reports.status import match_status

        return match_status(store, run)

    def report_data(self, store: Store, run: Run, anchor: str | None) -> MatchReport:
        """:func:`coordinator.reports.sprt.gather.match_report`."""
        from coordinator.reports.sprt.gather import match_report

        parent = self.parent_of(store, run)
        return match_report(store, run, parent, self.command(store, run))

    def report_plots(self, store: Store, run: Run, data: MatchReport) -> dict[str, str]:
        """The match plots (LLR and Elo, pentanomial, ...)."""
        from coordinator.reports.sprt.plots import match_plots

        return match_plots(data)

    def report_html(self, data: MatchReport, plots: dict[str, str]) -> str:
        """The match report page."""
        from coordinator.reports.sprt.html import match_html

        return match_html(data, plots)

    def report_text(self, data: MatchReport) -> str:
        """The match summary."""
        from coordinator.reports.sprt.text import match_text

        return match_text(data)

    def row(self, store: Store, run: Run) -> dict[str, Any]:
        """Sides, games, Elo and LLR."""
        from coordinator.reports.sprt.gather import match_columns

        return match_columns(store, run, run.settings_as(SprtConfig))

    def versus(self, row: dict[str, Any]) -> str:
        """Candidate vs baseline."""
        return f"{row.get('candidate', '?')} vs {row.get('baseline', '?')}"

    def outcome(self, row: dict[str, Any]) -> str:
        """The decision, or a dash."""
        return str(row["decision_label"] if row["decision"] else "-")

    def report_row(self, data: MatchReport) -> dict[str, Any]:
        """Sides, games, Elo and LLR of the match report."""
        from coordinator.reports.engines import sides_row

        t, h, stats = data.totals, data.hypothesis, data.stats
        elo = (stats["elo"], stats["elo95"]) if stats else None
        return sides_row(data.engines.names, t, elo) | {
            "llr": t.llr,
            "lower_bound": h.lower_bound,
            "upper_bound": h.upper_bound,
            "headline": data.headline,
        }

    def live(self, row: dict[str, Any]) -> list[LiveItem]:
        """Games, LLR, Elo and decision."""
        return [
            LiveItem("games", row.get("games"), "games"),
            LiveItem("LLR", llr_text(row), "llr"),
            LiveItem("Elo", elo_text(row), bold=False),
            LiveItem("decision", self.outcome(row), "decision"),
        ]


class SprtKind(MatchRunKind):
    """``arbiter sprt``."""

    name = RunKind.SPRT


#: The SPRT kind of the registry.
SPRT = SprtKind()
