"""The data of a match run's report (an SPRT, a tuning trial, an acceptance SPRT or an SPSA
iteration): what :mod:`coordinator.reports.sprt.gather` reads from the store and every renderer
reads by attribute. Its JSON form (``to_json``) is what ``arbiter report --json`` prints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from coordinator.reports.data import JsonData, RunInfo
from coordinator.reports.engines import Engines
from coordinator.stats.summary import StatsSummary


@dataclass(frozen=True)
class Hypothesis(JsonData):
    """The SPRT's hypotheses, error rates, LLR bounds, batch and game budget."""

    elo0: float
    elo1: float
    elo_model: str
    alpha: float
    beta: float
    lower_bound: float
    upper_bound: float
    batch_pairs: int
    max_games: int | None


@dataclass(frozen=True)
class MatchTotals(JsonData):
    """The counted games: counts, batches, worker CPU, records read and the LLR."""

    games: int
    pairs: int
    #: LL, LD, DD/WL, WD, WW game pairs, from the candidate's view.
    pentanomial: list[int]
    #: The candidate's wins, draws, losses.
    wdl: list[int]
    counted_batches: int
    stored_batches: int
    cpu_seconds: float
    #: Game records read (the counted prefix's).
    records: int
    llr: float


@dataclass(frozen=True)
class Series(JsonData):
    """After each counted batch: games, LLR, fixed-sample Elo and its 95% half-width (None before a
    pair), and when the result was stored."""

    games: list[int]
    llr: list[float]
    elo: list[float | None]
    elo95: list[float | None]
    time: list[str | None]


@dataclass(frozen=True)
class ColourWDL(JsonData):
    """The candidate's wins, draws and losses with one colour."""

    W: int
    D: int
    L: int

    def counts(self) -> tuple[int, int, int]:
        """W, D, L."""
        return self.W, self.D, self.L


@dataclass(frozen=True)
class Ending(JsonData):
    """The games that ended for one reason."""

    reason: str
    #: ``rules``, ``adjudication``, ``fault`` (an engine program's) or ``other``.
    kind: str
    games: int
    candidate_white: ColourWDL
    candidate_black: ColourWDL
    white_wins: int
    draws: int
    black_wins: int


@dataclass(frozen=True)
class Lengths(JsonData):
    """Game length in plies: the histogram (plies as text -> games) and its summary."""

    histogram: dict[str, int]
    games: int
    mean: float | None
    median: int | None
    min: int | None
    max: int | None


@dataclass(frozen=True)
class OpeningScore(JsonData):
    """One opening's pairs and the candidate's points in them (0 to 2 a pair); ``net`` above even."""

    opening: str
    pairs: int
    points: float
    net: float


@dataclass(frozen=True)
class Openings(JsonData):
    """The openings played; the ones that helped and hurt the candidate most; how much of the
    total swing the most decisive one holds (None: no swing)."""

    played: int
    pairs: int
    net: float
    helped: list[OpeningScore]
    hurt: list[OpeningScore]
    most_decisive_share: float | None


@dataclass(frozen=True)
class WorkerRow(JsonData):
    """One worker of the run: its counted work and speed, time factor and faults, refused
    answers, quarantine, and its residual in the workers' check."""

    worker: str
    batches: int
    games: int
    cpu_seconds: float
    nodes: int
    pentanomial: list[int]
    refused: int
    #: Why it is quarantined, or None.
    quarantined: str | None
    time_factor: float | None
    faults: int
    games_per_second: float | None
    nodes_per_second: float | None
    residual: float | None
    flagged: bool
    #: ``green``, ``yellow`` or ``red`` by the residual (``coordinator.stats.residuals``).
    level: str


@dataclass(frozen=True)
class WorkerCheck(JsonData):
    """fishtest's chi² check of the workers' pentanomials against each other."""

    #: None (each but ``dof``) when fewer than two workers have enough games to compare.
    chi2: float | None
    dof: int
    p: float | None
    z_95: float | None
    z_99: float | None


@dataclass(frozen=True)
class Workers(JsonData):
    """The workers table, their check, and the run's re-sends and refused batches."""

    workers: list[WorkerRow]
    check: WorkerCheck
    resent: int
    refused_batches: int


@dataclass(frozen=True)
class Refusal(JsonData):
    """A batch whose answer was refused: its attempts, state and the last reason."""

    batch: int
    attempts: int
    state: str
    reason: str | None


@dataclass(frozen=True)
class Throughput(JsonData):
    """Counted games per second of wall-clock time, in bins of ``bin_seconds`` from ``start``."""

    start: str | None
    bin_seconds: float | None
    seconds: list[float]
    games_per_second: list[float]

    def to_json(self) -> dict[str, Any]:
        """The bins; a run with no counted batch lists its empty bins before ``bin_seconds``."""
        if self.start is None:
            return {"start": None, "seconds": [], "games_per_second": [], "bin_seconds": None}
        return super().to_json()


@dataclass(frozen=True)
class MatchReport(JsonData):
    """Everything the report of a match run shows."""

    #: The report's ``type`` in its JSON form.
    TYPE: ClassVar[str] = "match"

    run: RunInfo
    headline: str
    #: Why the run ended where it did, when that needs words; or None.
    ending: str | None
    hypothesis: Hypothesis
    totals: MatchTotals
    #: Every statistic of the counted games; None before a game pair is counted.
    stats: StatsSummary | None
    series: Series
    endings: list[Ending]
    length: Lengths
    openings: Openings
    #: The engines part, with the time per move.
    engines: Engines
    workers: Workers
    refusals: list[Refusal]
    throughput: Throughput
    #: The stored configuration as it may be shown (credentials masked, openings counted).
    config: dict[str, Any]
    command: str
    command_notes: list[str]
    unverifiable: str | None

    def to_json(self) -> dict[str, Any]:
        """The report as JSON data, its ``type`` first."""
        return {"type": self.TYPE, **super().to_json()}
