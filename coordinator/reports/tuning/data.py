"""The data of a tuning run's report: what :mod:`coordinator.reports.tuning.gather` reads from the
store and the run's study, and every renderer reads by attribute. Its JSON form (``to_json``) is
what ``arbiter report --json`` prints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from coordinator.reports.data import JsonData, RunInfo


@dataclass(frozen=True)
class TuneTotals(JsonData):
    """Trials and how they ended, games and time, and the champion's Elo against the start."""

    trials: int
    #: Trials per outcome (every outcome of ``tuning.outcomes.OUTCOMES``).
    outcomes: dict[str, int]
    games: int
    seconds: float | None
    games_per_second: float | None
    champion: int
    champion_elo: float
    champion_elo95: float


@dataclass(frozen=True)
class ChampionEntry(JsonData):
    """One champion of the chain: its trial, parent and acceptance SPRT, its SPRT Elo over its
    parent (95% interval), its Elo against the start, and when it was crowned."""

    number: int
    #: Its trial (Optuna) or the iteration it was taken after (SPSA); None for the start.
    trial: int | None
    parent: int | None
    accept_run: int | None
    elo_vs_parent: float
    elo_vs_parent_ci: list[float]
    elo_vs_start: float
    elo_vs_start95: float
    crowned_at: str | None
    games_before: int


@dataclass(frozen=True)
class StageChampion(JsonData):
    """One champion's Elo against the start at one acceptance setting."""

    champion: int
    elo_vs_start: float
    elo_vs_start95: float


@dataclass(frozen=True)
class StageChain(JsonData):
    """The champion chain as one acceptance setting's SPRTs measured it."""

    stage: int
    limits: dict[str, Any]
    setting: str
    champions: list[StageChampion]


@dataclass(frozen=True)
class Reign(JsonData):
    """The games played while one champion reigned, and their speed."""

    champion: int
    games: int
    seconds: float | None
    games_per_second: float | None


@dataclass(frozen=True)
class TrialEntry(JsonData):
    """One trial: its run, the champion it played, how it ended, its Elo and weights."""

    number: int
    run_id: int
    champion: int
    state: str
    outcome: str
    #: How its last acceptance SPRT ended, in words; None without one.
    acceptance: str | None
    elo: float | None
    elo95: float | None
    games: int
    params: dict[str, int]
    accept_run: int | None


@dataclass(frozen=True)
class LlrCurve(JsonData):
    """An SPRT's LLR after each counted batch, against games."""

    games: list[int]
    llr: list[float]


@dataclass(frozen=True)
class SprtEstimate(JsonData):
    """The SPRT-aware Elo, its 95% interval and the LLR."""

    elo: float
    ci: list[float]
    llr: float


@dataclass(frozen=True)
class AcceptanceSprt(JsonData):
    """One acceptance SPRT: its stage and limits, the champion it played, its decision (and its
    ending in words), counts, hypotheses, LLR curve and SPRT Elo."""

    run_id: int
    trial: int
    stage: int
    limits: dict[str, Any]
    setting: str
    champion: int
    state: str
    decision: str | None
    crowned: bool
    ending: str
    games: int
    pentanomial: list[int]
    elo0: float
    elo1: float
    elo_model: str
    lower_bound: float
    upper_bound: float
    series: LlrCurve
    sprt_elo: SprtEstimate | None


@dataclass(frozen=True)
class WeightEntry(JsonData):
    """One weight: range, meaning, engine default, start and final champion's value."""

    name: str
    description: str
    min: int
    max: int
    default: int
    start: int
    final: int
    change: int
    tuned: bool


@dataclass(frozen=True)
class SpsaWeight(JsonData):
    """A tuned weight as SPSA's plan has it: its range and final step sizes."""

    name: str
    min: float
    max: float
    c_end: float
    r_end: float


@dataclass(frozen=True)
class ThetaPoint(JsonData):
    """Theta after an applied iteration (-1: the start) and the gap ``c`` of the two engines it
    played (None at the start)."""

    iteration: int
    theta: dict[str, float]
    c: dict[str, float] | None


@dataclass(frozen=True)
class SpsaView(JsonData):
    """SPSA's plan, where it stands and its path of theta (thinned)."""

    iterations: int
    dispatched: int
    applied: int
    pairs_per_iteration: int
    lag: int
    accept_every: int | None
    alpha: float
    gamma: float
    A: float
    weights: list[SpsaWeight]
    theta: dict[str, float]
    wins: int
    losses: int
    path: list[ThetaPoint]


@dataclass(frozen=True)
class Importance(JsonData):
    """Optuna's parameter importance: the evaluator and each weight's share."""

    method: str
    values: dict[str, float]


@dataclass(frozen=True)
class BestTrial(JsonData):
    """Optuna's best trial: its number, objective and weights."""

    trial: int
    value: float | None
    params: dict[str, Any]


@dataclass(frozen=True)
class OptunaView(JsonData):
    """Optuna's view of the study; ``error`` says why a part is missing."""

    study: str
    importance: Importance | None
    best: BestTrial | None
    error: str | None
    #: Complete trials; None when the run has no study yet.
    complete_trials: int | None

    def to_json(self) -> dict[str, Any]:
        """The view, without ``complete_trials`` when there is no study."""
        data = super().to_json()
        if self.complete_trials is None:
            del data["complete_trials"]
        return data


@dataclass(frozen=True)
class TuneReport(JsonData):
    """Everything the report of a tuning run shows."""

    #: The report's ``type`` in its JSON form.
    TYPE: ClassVar[str] = "tune"

    method: str
    run: RunInfo
    totals: TuneTotals
    champions: list[ChampionEntry]
    stages: list[StageChain]
    reigns: list[Reign]
    trials: list[TrialEntry]
    acceptances: list[AcceptanceSprt]
    weights: list[WeightEntry]
    #: The stored configuration (openings counted).
    config: dict[str, Any]
    command: str
    command_notes: list[str]
    #: SPSA's view (SPSA runs only).
    spsa: SpsaView | None
    #: Optuna's view of the study (Optuna runs only).
    optuna: OptunaView | None
    unverifiable: str | None

    def to_json(self) -> dict[str, Any]:
        """The report as JSON data, its ``type`` first, with the view of its method only."""
        data = {"type": self.TYPE, **super().to_json()}
        for view in ("spsa", "optuna"):
            if data[view] is None:
                del data[view]
        return data
