"""Logistic Elo conversions and the fixed-sample Elo estimate.

Logistic Elo maps an expected score ``s`` to ``-400 log10(1/s - 1)``.  The
fixed-sample estimate (fishtest's ``stat_util.get_elo``) treats the games as a
plain sample, ignoring any sequential stopping rule: it is what fixed-length tests
report, and what an SPRT reports as "Elo +- elo95" next to its LLR.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from coordinator.stats.inputs import check_counts
from coordinator.stats.numeric import phi, phi_inv
from coordinator.stats.pdf import regularize

#: Scores are clamped to [SCORE_CLAMP, 1 - SCORE_CLAMP] (about +-1200 Elo) before
#: conversion, so that 0% or 100% scores give a finite Elo (as in fishtest).
SCORE_CLAMP = 1e-3


def elo_to_score(elo: float) -> float:
    """Expected score in [0, 1] of a player ``elo`` logistic Elo stronger."""
    exponent = -elo / 400
    if exponent > 300:  # 10**exponent would overflow; use the mirrored form
        t = 10 ** (elo / 400)
        return t / (1 + t)
    return 1 / (1 + 10**exponent)


def score_to_elo(score: float) -> float:
    """Logistic Elo difference giving expected ``score``; clamped to about +-1200.

    Scores outside [0.001, 0.999] are clamped first (fishtest's ``stat_util.elo``),
    which keeps perfect or empty results finite.
    """
    if math.isnan(score):
        raise ValueError("score: expected a number, got nan")
    score = min(max(score, SCORE_CLAMP), 1 - SCORE_CLAMP)
    return -400 * math.log10(1 / score - 1)


def per_game_mean_var(results: Sequence[float]) -> tuple[float, float, float]:
    """Number of games, mean score per game and per-game variance of counts.

    ``results`` has ``2n+1`` cells for the totals of ``n`` games (3: [L, D, W]; 5:
    pentanomial pairs).  The variance is that of the per-unit score divided by ``n``,
    so that ``var / games`` is the variance of the mean score (fishtest's
    ``stat_util.stats``).
    """
    cells = len(results)
    games_per_unit = (cells - 1) / 2
    games = sum(results) * games_per_unit
    mean = sum(r * (i / 2) for i, r in enumerate(results)) / games
    unit_mean = games_per_unit * mean
    var = sum(r * (i / 2 - unit_mean) ** 2 for i, r in enumerate(results)) / games
    return games, mean, var


@dataclass(frozen=True)
class FixedElo:
    """Fixed-sample Elo estimate: ``elo`` with 95% half-width ``elo95`` and LOS."""

    elo: float
    elo95: float
    los: float

    @property
    def ci_low(self) -> float:
        """Lower end of the 95% interval, ``elo - elo95``."""
        return self.elo - self.elo95

    @property
    def ci_high(self) -> float:
        """Upper end of the 95% interval, ``elo + elo95``."""
        return self.elo + self.elo95


def fixed_elo(results: Sequence[float]) -> FixedElo:
    """Elo, its 95% half-width and LOS of counts in ascending-score order.

    ``results`` is ``[L, D, W]`` or pentanomial ``[LL, LD, DD+WL, WD, WW]``.  Empty
    cells are replaced by 1e-3 first.  The 95% interval of the mean score (normal
    approximation) is mapped through the logistic curve and halved into ``elo95``;
    LOS is the probability that the true score exceeds 1/2.
    """
    results = regularize(check_counts(results, "results"))
    games, mean, var = per_game_mean_var(results)
    stderr = math.sqrt(var) / math.sqrt(games)
    mean_low = mean + phi_inv(0.025) * stderr
    mean_high = mean + phi_inv(0.975) * stderr
    elo95 = (score_to_elo(mean_high) - score_to_elo(mean_low)) / 2
    los = phi((mean - 0.5) / stderr)
    return FixedElo(elo=score_to_elo(mean), elo95=elo95, los=los)
