"""The match as a kind of run: playing it, its status, its report and its dashboard row."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coordinator.match.config import MatchConfig
from coordinator.registry import LiveItem, elo_text, planned_games_item, planned_outcome
from coordinator.runs import RunKind, RunState
from coordinator.sprt.kind import TwoSidesKind

if TYPE_CHECKING:
    from coordinator.executors.base import Executor
    from coordinator.reports.match.data import FixedGamesReport
    from coordinator.sprt.runner import Progress
    from coordinator.store import Run, Store


def progress_line(p: Progress, planned: int) -> str:
    """One line: games of the plan's (and still playing), games per second, Elo +- 95%, the
    pentanomial counts."""
    from coordinator.reports.match.gather import statistics

    stats = statistics(p.pentanomial)
    elo = f"{stats.elo:+.1f}+-{stats.elo95:.1f}" if stats else "-"
    playing = f" +{p.playing} playing" if p.playing else ""
    return (
        f"match {p.run_id}: {p.games}/{planned} games{playing} {p.games_per_second:.1f}/s  Elo {elo}  "
        f"penta {p.pentanomial}"
    )


class MatchKind(TwoSidesKind["FixedGamesReport"]):
    """``arbiter match``: N game pairs of two sides, no SPRT."""

    name = RunKind.MATCH
    noun = "match"
    config_type = MatchConfig
    worker_check = True

    def play(self, store: Store, run: Run, executor: Executor) -> None:
        """Play every game pair, then print the summary."""
        from coordinator.console import show
        from coordinator.reports.match.gather import match_summary
        from coordinator.reports.match.text import match_text
        from coordinator.sprt.drive import run_with_progress

        config = run.settings_as(MatchConfig)
        run_with_progress(store, run, config, executor, lambda p: progress_line(p, config.max_games), "match")
        show(match_text(match_summary(store, store.get_run(run.id) or run)))

    def finished_text(self, store: Store, run: Run) -> str | None:
        """The summary."""
        return self.status_text(store, run)

    def status_row(self, store: Store, run: Run) -> str:
        """Games, Elo, and whether every pair was played."""
        from coordinator.reports.match.gather import statistics
        from coordinator.sprt.report import status_row

        s = statistics(store.totals(run.id).pentanomial)
        elo = f"{s.elo:+.1f} +- {s.elo95:.1f}" if s else "-"
        done = "complete" if run.state is RunState.FINISHED else "-"
        return status_row(run, self.games(store, run), elo, "-", decision=done)

    def status_text(self, store: Store, run: Run) -> str:
        """The summary."""
        from coordinator.reports.match.gather import match_summary
        from coordinator.reports.match.text import match_text

        return match_text(match_summary(store, run))

    def status_json(self, store: Store, run: Run) -> dict[str, Any]:
        """:func:`~coordinator.reports.match.gather.match_summary` as JSON data (JSON-safe),
        without the report's "unverifiable" line."""
        from coordinator.reports import json_safe
        from coordinator.reports.match.gather import match_summary

        data = match_summary(store, run).to_json()
        del data["unverifiable"]
        return dict(json_safe(data))

    def report_data(self, store: Store, run: Run, anchor: str | None) -> FixedGamesReport:
        """:func:`coordinator.reports.match.gather.match_summary`."""
        from coordinator.reports.match.gather import match_summary

        return match_summary(store, run)

    def report_plots(self, store: Store, run: Run, data: FixedGamesReport) -> dict[str, str]:
        """None: the result is its few numbers."""
        return {}

    def report_html(self, data: FixedGamesReport, plots: dict[str, str]) -> str:
        """The match's page."""
        from coordinator.reports.match.html import match_html

        return match_html(data)

    def report_text(self, data: FixedGamesReport) -> str:
        """The match's summary."""
        from coordinator.reports.match.text import match_text

        return match_text(data)

    def row(self, store: Store, run: Run) -> dict[str, Any]:
        """Sides, games of the plan's, Elo."""
        from coordinator.reports.engines import names_of, sides_row
        from coordinator.reports.match.gather import statistics

        config = run.settings_as(MatchConfig)
        totals = store.totals(run.id, run.counted_batches)
        s = statistics(totals.pentanomial)
        elo = (s.elo, s.elo95) if s else None
        return sides_row(names_of(config), totals, elo) | {"planned_games": config.max_games}

    def report_row(self, data: FixedGamesReport) -> dict[str, Any]:
        """Sides, games of the plan's, Elo of the match summary."""
        from coordinator.reports.engines import sides_row

        t, s = data.totals, data.stats
        elo = (s.elo, s.elo95) if s else None
        return sides_row(data.engines.names, t, elo) | {"planned_games": t.planned_games}

    def versus(self, row: dict[str, Any]) -> str:
        """Candidate vs baseline."""
        return f"{row['candidate']} vs {row['baseline']}"

    def outcome(self, row: dict[str, Any]) -> str:
        """Complete, or the games played of the plan's."""
        return planned_outcome(row)

    def live(self, row: dict[str, Any]) -> list[LiveItem]:
        """Games of the plan's, and Elo."""
        return [planned_games_item(row), LiveItem("Elo", elo_text(row), bold=False)]


#: The match kind of the registry.
MATCH = MatchKind()
