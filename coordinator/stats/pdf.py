"""Empirical score distributions and their constrained maximum-likelihood fits.

A distribution ("pdf") is a list of ``(score, probability)`` pairs with ascending
scores in [0, 1].  Game results become a pdf through :func:`results_to_pdf`:
trinomial counts ``[L, D, W]`` give scores 0, 1/2, 1 per game; pentanomial counts
``[LL, LD, DD+WL, WD, WW]`` give scores 0, 1/4, 1/2, 3/4, 1 per game pair.

The GSPRT needs the multinomial distribution closest (in likelihood) to the data
under a constraint on its mean (logistic Elo) or on its t-value (normalized Elo).
Both reduce to a one-dimensional "secular equation" (see M. Van den Bergh's notes
"Support of the MLE for multinomial distributions" and "Normalized Elo, practical
considerations", on which fishtest's LLRcalc is built).
"""

from __future__ import annotations

from collections.abc import Sequence

from coordinator.stats.numeric import brent_root

Pdf = list[tuple[float, float]]

#: Count that replaces an empty cell, so every outcome keeps a positive probability
#: (fishtest's ``LLRcalc.regularize``).
REGULARIZATION_EPSILON = 1e-3

_SECULAR_MARGIN = 1e-9
_T_VALUE_MAX_ITERATIONS = 10
_T_VALUE_CONVERGENCE = 1e-9


def regularize(results: Sequence[float]) -> list[float]:
    """Replace zero counts by a tiny prior count so that logarithms stay finite."""
    return [REGULARIZATION_EPSILON if r == 0 else float(r) for r in results]


def results_to_pdf(results: Sequence[float]) -> tuple[float, Pdf]:
    """Turn counts in ascending-score order into ``(sample size, empirical pdf)``.

    The counts are regularized first; the sample size is the regularized total
    (games for trinomial data, game pairs for pentanomial data).
    """
    reg = regularize(results)
    total = sum(reg)
    last = len(reg) - 1
    return total, [(i / last, count / total) for i, count in enumerate(reg)]


def mean_var(pdf: Pdf) -> tuple[float, float]:
    """Mean and variance of a discrete distribution."""
    mean = sum(p * a for a, p in pdf)
    var = sum(p * (a - mean) ** 2 for a, p in pdf)
    return mean, var


def moments(pdf: Pdf) -> tuple[float, float, float, float]:
    """Mean, variance, skewness and excess kurtosis of a discrete distribution."""
    mean, var = mean_var(pdf)
    m3 = sum(p * (a - mean) ** 3 for a, p in pdf)
    m4 = sum(p * (a - mean) ** 4 for a, p in pdf)
    return mean, var, m3 / var**1.5, m4 / var**2 - 3


def solve_secular(pdf: Pdf) -> float:
    """Solve ``sum_i p_i a_i / (1 + x a_i) = 0`` for ``x``.

    The left side decreases strictly between its poles ``-1/max(a)`` and
    ``-1/min(a)``, so there is exactly one root there when the ``a_i`` take both
    signs.  (Lagrange-multiplier condition of the constrained MLE.)
    """
    values = [a for a, _ in pdf]
    low, high = min(values), max(values)
    if not low < 0 < high:
        raise ValueError(
            "the hypothesised score lies outside the range of observed scores; "
            "the constrained maximum-likelihood fit does not exist"
        )

    def secular(x: float) -> float:
        return sum(p * a / (1 + x * a) for a, p in pdf)

    return brent_root(secular, -1 / high + _SECULAR_MARGIN, -1 / low - _SECULAR_MARGIN)


def mle_expected(pdf: Pdf, score: float) -> Pdf:
    """Most likely distribution on the same support with mean ``score``.

    Reweights the empirical probabilities: ``p_i / (1 + x (a_i - score))``.
    """
    shifted = [(a - score, p) for a, p in pdf]
    x = solve_secular(shifted)
    return [(a, p / (1 + x * (a - score))) for a, p in pdf]


def mle_t_value(pdf: Pdf, ref: float, t: float) -> Pdf:
    """Most likely distribution on the same support with t-value ``(mean-ref)/sigma = t``.

    Fixed-point iteration from the uniform distribution, as in fishtest (at most ten
    steps, stopping when no probability moves by more than 1e-9); each step solves
    a secular equation linearised around the current mean and deviation.
    """
    n = len(pdf)
    fit: Pdf = [(a, 1 / n) for a, _ in pdf]
    for _ in range(_T_VALUE_MAX_ITERATIONS):
        previous = fit
        mu, var = mean_var(fit)
        sigma = var**0.5
        shifted = [(a - ref - t * sigma * (1 + ((mu - a) / sigma) ** 2) / 2, p) for a, p in pdf]
        x = solve_secular(shifted)
        fit = [(pdf[i][0], pdf[i][1] / (1 + x * shifted[i][0])) for i in range(n)]
        if max(abs(previous[i][1] - fit[i][1]) for i in range(n)) < _T_VALUE_CONVERGENCE:
            break
    return fit
