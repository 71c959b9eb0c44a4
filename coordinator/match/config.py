"""A match's full configuration and its deterministic batch plan: a fixed number of game pairs of a
candidate against a baseline, no SPRT (cutechess's plain mode).

Batch ``i`` plays slice ``i`` of the run's :class:`~coordinator.sprt.config.OpeningWalk` (the last
batch cut at ``pairs``) with the seed an SPRT's batch ``i`` has, so a match and an SPRT of the same
sides, book and seed play the same games.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import engine
from coordinator.defaults import ADJUDICATION, SPRT_BATCH_PAIRS, SPRT_LIMITS, TOURNAMENT_PAIRS
from coordinator.sprt.config import TwoSidedConfig
from wire.programs import EngineProgram


@dataclass(frozen=True)
class MatchConfig(TwoSidedConfig):
    """Everything that defines a match (JSON round-trips through :meth:`to_json`)."""

    game: str
    candidate: dict[str, int]
    baseline: dict[str, int]
    openings: list[str]
    engine_version: str
    pairs: int = TOURNAMENT_PAIRS
    limits: engine.Limits = SPRT_LIMITS
    adjudication: engine.Adjudication = ADJUDICATION
    batch_pairs: int = SPRT_BATCH_PAIRS
    seed: int = 0
    book: str = ""
    candidate_source: str = ""
    baseline_source: str = "default"
    candidate_program: EngineProgram | None = None
    baseline_program: EngineProgram | None = None
    scale_time: bool = False
    candidate_commit: dict[str, Any] | None = None
    baseline_commit: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        """Reject settings no match could use."""
        if self.pairs < 1 or self.batch_pairs < 1:
            raise ValueError("pairs and batch_pairs: expected positive numbers of game pairs")
        if not self.openings:
            raise ValueError("openings: the match needs at least one opening")

    @property
    def sprt_params(self) -> None:
        """A match has no SPRT: it plays every batch of its plan."""
        return None

    @property
    def max_batches(self) -> int:
        """Every batch of the plan."""
        return math.ceil(self.pairs / self.batch_pairs)

    @property
    def max_games(self) -> int:
        """Every game of the plan."""
        return 2 * self.pairs

    @property
    def max_pairs(self) -> int:
        """Every pair of the plan: the last batch is cut to it."""
        return self.pairs
