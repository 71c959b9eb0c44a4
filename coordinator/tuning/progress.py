"""Where a tuning run stands: a champion's Elo against the start weights, and an Optuna run's
progress for its progress line. Kept apart from the tuners, so that reading a run (``arbiter
status``, reports, the dashboard) does not load Optuna."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from coordinator.tuning.acceptance import AcceptanceProgress
    from coordinator.tuning.records import Champion


def elo_vs_start(champions: list[Champion], number: int) -> tuple[float, float]:
    """Elo of champion ``number`` against the start weights and its 95% half-width: the sum of
    the SPRT Elo gains along its chain of parents (half-widths added in quadrature)."""
    by_number = {c.number: c for c in champions}
    elo, var = 0.0, 0.0
    current: int | None = number
    while current is not None and current in by_number and current != 0:
        c = by_number[current]
        elo += c.elo_vs_parent
        var += ((c.elo_vs_parent_high - c.elo_vs_parent_low) / 2) ** 2
        current = c.parent
    return elo, math.sqrt(var)


@dataclass
class TuneProgress:
    """Where an Optuna tuning run stands, for the progress line."""

    trials: int
    running_trials: int
    games: int
    games_per_second: float
    champion: int
    champion_elo: float
    champion_elo95: float
    best_trial: int | None
    best_value: float | None
    accepting: AcceptanceProgress | None
    elapsed: float
    eta: float | None
    #: Why every answer since the last result was refused (see ``SprtRunner.refused_note``).
    refused: str | None = None
