"""A match's full configuration and its deterministic batch plan: a fixed number of game pairs of a
candidate against a baseline, no SPRT (cutechess's plain mode).

Batch ``i`` plays slice ``i`` of the run's :class:`~coordinator.sprt.config.OpeningWalk` (the last
batch cut at ``pairs``) with the seed an SPRT's batch ``i`` has, so a match and an SPRT of the same
sides, book and seed play the same games.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from coordinator.defaults import TOURNAMENT_PAIRS
from coordinator.sprt.config import TwoSidedConfig


class FixedPairs:
    """What the configurations that play every batch of their plan (a match's, a tournament's)
    do alike: ``pairs`` game pairs for each pairing of sides, in batches of ``batch_pairs``, and
    no SPRT. A base of frozen dataclasses that have these two fields."""

    pairs: int
    batch_pairs: int

    def check_pairs(self) -> None:
        """Reject a plan without game pairs."""
        if self.pairs < 1 or self.batch_pairs < 1:
            raise ValueError("pairs and batch_pairs: expected positive numbers of game pairs")

    @property
    def sprt_params(self) -> None:
        """No SPRT: every batch of the plan is played."""
        return None

    @property
    def rounds(self) -> int:
        """Batches each pairing plays (the last one cut at ``pairs``)."""
        return math.ceil(self.pairs / self.batch_pairs)


@dataclass(frozen=True)
class MatchConfig(TwoSidedConfig, FixedPairs):
    """Everything that defines a match (JSON round-trips through :meth:`to_json`): the shared
    settings of :class:`TwoSidedConfig` and the game pairs it plays."""

    pairs: int = TOURNAMENT_PAIRS

    def __post_init__(self) -> None:
        """Reject settings no match could use."""
        self.check_pairs()
        if not self.openings:
            raise ValueError("openings: the match needs at least one opening")

    @property
    def max_batches(self) -> int:
        """Every batch of the plan: one pairing's rounds."""
        return self.rounds

    @property
    def max_games(self) -> int:
        """Every game of the plan."""
        return 2 * self.pairs

    @property
    def max_pairs(self) -> int:
        """Every pair of the plan: the last batch is cut to it."""
        return self.pairs
