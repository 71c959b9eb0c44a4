"""Normalized Elo (nElo) with its 95% interval.

Normalized Elo measures the score excess in units of its per-game standard
deviation, ``nElo = (s - 1/2) / sigma * 800 / ln(10)``, so that it reflects how
many games are needed to resolve a difference, independently of the draw rate.
The interval uses the variance of the t statistic corrected for skewness and
kurtosis (fishtest's ``template_helpers._nelo_pentanomial_details`` and
``_build_trinomial_stats``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from coordinator.stats.inputs import check_counts, check_length
from coordinator.stats.llr import NELO_PER_NT
from coordinator.stats.numeric import phi_inv
from coordinator.stats.pdf import moments, results_to_pdf


@dataclass(frozen=True)
class NormalizedElo:
    """Normalized Elo ``nelo`` with its (symmetric) 95% interval."""

    nelo: float
    ci_low: float
    ci_high: float

    @property
    def nelo95(self) -> float:
        """Half-width of the 95% interval."""
        return (self.ci_high - self.ci_low) / 2


def t_value(mean: float, var: float, skewness: float, exkurt: float) -> tuple[float, float]:
    """t-value ``(mean - 1/2)/sigma`` and the asymptotic variance of its estimate.

    The variance ``1 - t skew + t^2 (exkurt + 2) / 4`` is floored at 0 against
    rounding.
    """
    t = (mean - 0.5) / var**0.5
    var_t = max(1 - t * skewness + 0.25 * t**2 * (exkurt + 2), 0)
    return t, var_t


def _nelo_interval(results: Sequence[float], nelo_per_t: float) -> NormalizedElo:
    """nElo and 95% interval from counts, ``nelo_per_t`` converting the sample's t-value."""
    n, pdf = results_to_pdf(results)
    t, var_t = t_value(*moments(pdf))
    half_width = nelo_per_t * phi_inv(0.975) * (var_t / n) ** 0.5
    nelo = nelo_per_t * t
    return NormalizedElo(nelo=nelo, ci_low=nelo - half_width, ci_high=nelo + half_width)


def nelo_pentanomial(results: Sequence[float]) -> NormalizedElo:
    """Normalized Elo of pentanomial counts ``[LL, LD, DD+WL, WD, WW]``.

    The pair t-value is sqrt(2) times the per-game one, hence the 1/sqrt(2).
    """
    results = check_counts(results, "pentanomial")
    check_length(results, 5, "pentanomial")
    return _nelo_interval(results, NELO_PER_NT / 2**0.5)


def nelo_trinomial(results: Sequence[float]) -> NormalizedElo:
    """Normalized Elo of trinomial counts ``[L, D, W]``."""
    results = check_counts(results, "wdl")
    check_length(results, 3, "wdl")
    return _nelo_interval(results, NELO_PER_NT)


def nelo(results: Sequence[float]) -> NormalizedElo:
    """Normalized Elo of ``[L, D, W]`` or pentanomial counts (by length)."""
    results = check_counts(results, "results")
    return nelo_pentanomial(results) if len(results) == 5 else nelo_trinomial(results)
