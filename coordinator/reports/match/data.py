"""The data of a match's report: what :mod:`coordinator.reports.match.gather` reads from the store
and its status, report and dashboard row read by attribute. Its JSON form (``to_json``) is what
``arbiter report --json`` prints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from coordinator.reports.data import JsonData, RunInfo
from coordinator.reports.engines import Engines


@dataclass(frozen=True)
class MatchStats(JsonData):
    """Elo with its 95% half-width and LOS, and normalized Elo with its half-width, of the counted
    game pairs."""

    elo: float
    elo95: float
    los: float
    nelo: float
    nelo95: float


@dataclass(frozen=True)
class FixedTotals(JsonData):
    """The counted games and batches of the planned ones, and the workers' CPU time."""

    games: int
    planned_games: int
    pairs: int
    pentanomial: list[int]
    wdl: list[int]
    counted_batches: int
    planned_batches: int
    cpu_seconds: float


@dataclass(frozen=True)
class FixedGamesReport(JsonData):
    """What status, report and dashboard show of a match: its run, the counts, the statistics
    (None before a pair), its engines and its configuration (credentials masked, openings
    counted)."""

    #: The report's ``type`` in its JSON form.
    TYPE: ClassVar[str] = "fixed-games"

    run: RunInfo
    totals: FixedTotals
    stats: MatchStats | None
    engines: Engines
    config: dict[str, Any]
    unverifiable: str | None

    def to_json(self) -> dict[str, Any]:
        """The report as JSON data, its ``type`` first."""
        return {"type": self.TYPE, **super().to_json()}
