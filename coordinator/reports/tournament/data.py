"""The data of a tournament's report: what :mod:`coordinator.reports.tournament.gather` rates from
the store and every renderer reads by attribute. Its JSON form (``to_json``) is what
``arbiter report --json`` prints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from coordinator.reports.data import JsonData, RunInfo
from coordinator.reports.engines import Faults, SideTimes


@dataclass(frozen=True)
class Entrant(JsonData):
    """An engine of the tournament, where it came from, its faults and its time per move in the
    counted games."""

    name: str
    source: str
    faults: Faults
    move_times: SideTimes


@dataclass(frozen=True)
class RatingRow(JsonData):
    """One engine of the rating list, best first: Elo, error, games, score and draw rates."""

    rank: int
    name: str
    elo: float
    error: float
    games: int
    points: float
    score: float | None
    draws: int
    draw_rate: float | None


@dataclass(frozen=True)
class LosMatrix(JsonData):
    """The likelihood that each row's engine is stronger than each column's (None on the diagonal),
    rows and columns best first."""

    names: list[str]
    matrix: list[list[float | None]]


@dataclass(frozen=True)
class HeadToHead(JsonData):
    """One pairing: the first engine's wins, draws, losses and game pairs (LL to WW; None when its
    games are not all in pairs)."""

    engine: str
    opponent: str
    wins: int
    draws: int
    losses: int
    pentanomial: list[int] | None


@dataclass(frozen=True)
class RatingsAt(JsonData):
    """Each engine's Elo and error after the first ``games`` games."""

    games: int
    ratings: dict[str, list[float]]


@dataclass(frozen=True)
class ChainCheck(JsonData):
    """Whether the list orders a tuning run's champions as the chain claims, in lines."""

    confirmed: bool
    lines: list[str]


@dataclass(frozen=True)
class RatingFit(JsonData):
    """How the list was rated: the anchor, the error bars' confidence, the first-move advantage,
    the prior and the draw Elo."""

    anchor: str | None
    anchor_elo: float
    confidence: float
    white_advantage: float
    white_advantage_error: float
    prior: float
    draw_elo: float | None


@dataclass(frozen=True)
class TournamentReport(JsonData):
    """Everything the report of a tournament shows."""

    #: The report's ``type`` in its JSON form.
    TYPE: ClassVar[str] = "tournament"

    run: RunInfo
    format: str
    #: The engine that plays all others (a gauntlet), or None.
    gauntlet_engine: str | None
    engines: list[Entrant]
    pairs_per_pairing: int
    pairings: int
    planned_batches: int
    planned_games: int
    counted_batches: int
    games: int
    limits: dict[str, Any]
    seed: int
    book: str
    #: The tuning run whose champions play, or None.
    champions_of: int | None
    ratings: list[RatingRow]
    los: LosMatrix
    head_to_head: list[HeadToHead]
    over_games: list[RatingsAt]
    #: The rating model (None before a rating).
    model: str | None
    chain: ChainCheck | None
    #: How the list was rated (None before a rating).
    fit: RatingFit | None
    #: Why the games could not be rated yet (None when they could, or there are none).
    ratings_error: str | None
    unverifiable: str | None

    def to_json(self) -> dict[str, Any]:
        """The report as JSON data: its ``type`` first, the fit's figures after ``chain``, and
        ``ratings_error`` only when there is one."""
        data = {"type": self.TYPE, **super().to_json()}
        fit, error, note = data.pop("fit"), data.pop("ratings_error"), data.pop("unverifiable")
        if fit is not None:
            data |= fit
        if error is not None:
            data["ratings_error"] = error
        return data | {"unverifiable": note}
