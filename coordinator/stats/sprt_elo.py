"""Elo estimate of an SPRT that accounts for the sequential stopping rule.

A test stopped as soon as its LLR crossed a bound is biased towards the side it
stopped on, so the fixed-sample estimate is off near a bound.  Following fishtest
(``stat_util.SPRT_elo`` / ``sprt.sprt``), the LLR path is modelled as a Brownian
motion whose drift and variance depend on the true Elo; the estimate is the Elo
for which the observed outcome is the median outcome (median-unbiased), the 95%
interval comes from the 2.5% and 97.5% outcome quantiles, and LOS is the outcome's
distribution function at Elo 0.

The returned Elo values are always LOGISTIC Elo, whatever ``elo_model`` the
hypotheses use (as in fishtest).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from coordinator.stats.brownian import outcome_cdf
from coordinator.stats.elo import elo_to_score
from coordinator.stats.inputs import (
    check_counts,
    check_error_rates,
    check_hypotheses,
    check_model,
)
from coordinator.stats.llr import (
    NELO_PER_NT,
    bayeselo_bounds_to_logistic,
    draw_counts,
    llr_logistic,
    llr_normalized,
    sigma_per_game,
)
from coordinator.stats.numeric import NoSignChange, brent_root
from coordinator.stats.pdf import Pdf, mean_var, results_to_pdf
from coordinator.stats.sprt import sprt_bounds

_ELO_SEARCH_LIMIT = 1000.0
_INITIAL_SPAN = 30


@dataclass(frozen=True)
class SprtElo:
    """SPRT-aware Elo (logistic) with its interval, LOS and the exact LLR."""

    elo: float
    ci_low: float
    ci_high: float
    los: float
    llr: float
    lower_bound: float
    upper_bound: float


def llr_drift_variance(
    pdf: Pdf,
    s0: float,
    s1: float,
    score: float | None = None,
    *,
    mle_variance: bool = False,
) -> tuple[float, float]:
    """Per-sample drift and variance of the LLR (Brownian approximation).

    ``score`` is the true expected score (default: the sample mean).  The data's
    variance is the sample variance; with ``mle_variance`` it is instead re-centred
    on ``score`` (``var + (score - mean)^2``), as the published fishtest source does.
    The reference vectors (computed with fishtest) match the sample variance to
    1e-14 and the re-centred one only to ~5 Elo on small samples, so the sample
    variance is the default.  See M. Van den Bergh, "A simple approximation of the
    GSPRT".
    """
    mean, var = mean_var(pdf)
    if score is not None:
        if mle_variance:
            var = var + (score - mean) ** 2
        mean = score
    drift = (mean - (s0 + s1) / 2) * (s1 - s0) / var
    return drift, (s1 - s0) ** 2 / var


class _OutcomeModel:
    """Observed SPRT end point and the outcome probability as a function of Elo."""

    def __init__(self, results: Sequence[float], s0: float, s1: float, lower: float, upper: float) -> None:
        n, self.pdf = results_to_pdf(results)
        self.s0, self.s1 = s0, s1
        self.lower, self.upper = lower, upper
        drift, _ = llr_drift_variance(self.pdf, s0, s1)
        # Approximate LLR and "time"; an LLR beyond a bound is clamped to it and
        # time rescaled so that the path reached the bound at the same slope.
        self.llr = n * drift
        self.time = n
        if self.llr < lower:
            self.time = lower / drift
            self.llr = lower
        elif self.llr > upper:
            self.time = upper / drift
            self.llr = upper

    def outcome_prob(self, elo: float) -> float:
        """Probability that a test at logistic ``elo`` ends worse than the observed one."""
        drift, var = llr_drift_variance(self.pdf, self.s0, self.s1, elo_to_score(elo))
        return outcome_cdf(self.lower, self.upper, drift, var**0.5, self.time, self.llr)


def _quantile_elo(outcome_prob: Callable[[float], float], p: float, elo0: float, elo1: float) -> float:
    """Largest Elo for which the observed outcome has probability below ``p``.

    Solves ``outcome_prob(elo) = 1 - p``, searching first around the hypotheses and
    widening up to +-1000 Elo; without a root there, the search limit on the side
    where the solution lies is returned.
    """
    centre = (elo0 + elo1) / 2
    span = elo1 - elo0
    n = _INITIAL_SPAN
    while True:
        lo = max(centre - n * span, -_ELO_SEARCH_LIMIT)
        hi = min(centre + n * span, _ELO_SEARCH_LIMIT)
        try:
            return brent_root(lambda elo: outcome_prob(elo) - (1 - p), lo, hi)
        except NoSignChange:
            if lo > -_ELO_SEARCH_LIMIT or hi < _ELO_SEARCH_LIMIT:
                n *= 2
                continue
            return hi if outcome_prob(lo) - (1 - p) > 0 else lo


def sprt_elo(
    results: Sequence[float],
    elo0: float,
    elo1: float,
    elo_model: str = "normalized",
    alpha: float = 0.05,
    beta: float = 0.05,
    *,
    ldw: Sequence[float] | None = None,
    p: float = 0.05,
) -> SprtElo:
    """SPRT-aware logistic Elo estimate, ``1 - p`` interval and LOS of an SPRT.

    ``results`` are counts in ascending-score order (``[L, D, W]`` or pentanomial);
    ``elo0``/``elo1`` are in the units of ``elo_model``.  For ``BayesElo`` the
    bounds are converted to logistic Elo at the draw-elo of ``ldw`` (or of
    ``results`` when trinomial).
    """
    model = check_model(elo_model)
    results = check_counts(results, "results")
    elo0, elo1 = check_hypotheses(elo0, elo1, model)
    alpha, beta = check_error_rates(alpha, beta)
    if not 0 < p < 1:
        raise ValueError(f"p: expected a number strictly between 0 and 1, got {p!r}")
    lower, upper = sprt_bounds(alpha, beta)
    hypotheses = f"[{elo0:g}, {elo1:g}] ({model})"

    if model == "BayesElo":
        elo0, elo1 = bayeselo_bounds_to_logistic(elo0, elo1, draw_counts(results, ldw))
        model = "logistic"

    if model == "normalized":
        _, pdf = results_to_pdf(results)
        sigma = sigma_per_game(pdf, len(results))
        s0, s1 = (nelo / NELO_PER_NT * sigma + 0.5 for nelo in (elo0, elo1))
        exact_llr = llr_normalized(elo0, elo1, results)
    else:
        s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
        exact_llr = llr_logistic(elo0, elo1, results)
    if not s0 < s1:  # an extreme sample: BayesElo at a draw rate near 1, normalized at a spread near 0
        raise ValueError(
            f"elo0, elo1: {hypotheses} mean the same expected score for this sample (its draw rate "
            "or spread is too extreme); the SPRT-aware Elo cannot be estimated"
        )

    outcome = _OutcomeModel(results, s0, s1, lower, upper)
    return SprtElo(
        elo=_quantile_elo(outcome.outcome_prob, 0.5, elo0, elo1),
        ci_low=_quantile_elo(outcome.outcome_prob, p / 2, elo0, elo1),
        ci_high=_quantile_elo(outcome.outcome_prob, 1 - p / 2, elo0, elo1),
        los=min(max(outcome.outcome_prob(0.0), 0.0), 1.0),  # rounding can leave [0, 1] by 1e-154
        llr=exact_llr,
        lower_bound=lower,
        upper_bound=upper,
    )
