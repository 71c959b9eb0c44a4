"""The tournament as a kind of run (``arbiter tournament``): several engines, every pairing a number
of game pairs, one rating list."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coordinator.registry import Kind, LiveItem, planned_games_item, planned_outcome
from coordinator.runs import RunKind, RunState
from coordinator.tournament.config import TournamentConfig, stored_sides

if TYPE_CHECKING:
    from coordinator.executors.base import Executor
    from coordinator.reports.engines import Engines
    from coordinator.reports.tournament.data import TournamentReport
    from coordinator.store import Run, Store


class TournamentKind(Kind["TournamentReport"]):
    """``arbiter tournament``."""

    name = RunKind.TOURNAMENT
    noun = "tournament"
    config_type = TournamentConfig
    anchored = True
    sides_per_batch = True

    def sides(self, run: Run, batch_index: int) -> tuple[tuple[str, str], tuple[str, str]]:
        """The engines of the batch's pairing, by name and source."""
        return stored_sides(run.config, batch_index)

    def play(self, store: Store, run: Run, executor: Executor) -> None:
        """Play every batch, then print the rating list."""
        from coordinator.tournament.drive import play

        play(store, run, run.settings_as(TournamentConfig), executor)

    def finished_text(self, store: Store, run: Run) -> str | None:
        """The rating list."""
        return self.status_text(store, run)

    def status_row(self, store: Store, run: Run) -> str:
        """Games, and whether every batch was played."""
        from coordinator.sprt.report import status_row

        done = "complete" if run.state is RunState.FINISHED else "-"
        return status_row(run, self.games(store, run), "-", "-", decision=done)

    def status_text(self, store: Store, run: Run) -> str:
        """The report's terminal summary."""
        from coordinator.reports import gather, terminal_summary

        return terminal_summary(gather(store, run))

    def status_json(self, store: Store, run: Run) -> dict[str, Any]:
        """The report's data."""
        from coordinator.reports import gather, json_safe

        return dict(json_safe(gather(store, run).to_json()))

    def report_data(self, store: Store, run: Run, anchor: str | None) -> TournamentReport:
        """:func:`coordinator.reports.tournament.gather.tournament_report`."""
        from coordinator.reports.tournament.gather import tournament_report

        return tournament_report(store, run, anchor)

    def report_plots(self, store: Store, run: Run, data: TournamentReport) -> dict[str, str]:
        """LOS and ratings over games."""
        from coordinator.reports.tournament.plots import tournament_plots

        return tournament_plots(data)

    def report_html(self, data: TournamentReport, plots: dict[str, str]) -> str:
        """The tournament page."""
        from coordinator.reports.tournament.html import tournament_html

        return tournament_html(data, plots)

    def report_text(self, data: TournamentReport) -> str:
        """The rating list and the champion chain."""
        from coordinator.reports.tournament.text import tournament_text

        return tournament_text(data)

    def engines(self, store: Store, run: Run) -> Engines:
        """No two fixed sides: only its time control (its engines are named per batch)."""
        from coordinator.reports.engines import Engines, limits_text, pgn_time_control

        limits = run.settings_as(TournamentConfig).limits
        return Engines(limits_text(limits), pgn_time_control(limits), not limits.deterministic, {}, [])

    def row(self, store: Store, run: Run) -> dict[str, Any]:
        """Format, engines and counted games of the plan's."""
        config = run.settings_as(TournamentConfig)
        return {
            "format": config.format,
            "engines": [e.name for e in config.entrants],
            "games": store.totals(run.id, run.counted_batches).games,
            "planned_games": config.max_games,
        }

    def report_row(self, data: TournamentReport) -> dict[str, Any]:
        """Format, engines and games of the tournament report."""
        return {
            "format": data.format,
            "engines": [e.name for e in data.engines],
            "games": data.games,
            "planned_games": data.planned_games,
        }

    def versus(self, row: dict[str, Any]) -> str:
        """The format and the engines."""
        return f"{row['format']}: {', '.join(row['engines'])}"

    def outcome(self, row: dict[str, Any]) -> str:
        """Complete, or the games played of the plan's."""
        return planned_outcome(row)

    def live(self, row: dict[str, Any]) -> list[LiveItem]:
        """Engines, and games of the plan's."""
        return [LiveItem("engines", len(row["engines"])), planned_games_item(row)]


#: The tournament kind of the registry.
TOURNAMENT = TournamentKind()
