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

from coordinator.stats.numeric import NoSignChange, brent_root

Pdf = list[tuple[float, float]]

#: Count that replaces an empty cell, so every outcome keeps a positive probability
#: (fishtest's ``LLRcalc.regularize``).
REGULARIZATION_EPSILON = 1e-3

#: fishtest's distance of the secular root's bracket from the poles.
_SECULAR_MARGIN = 1e-9
#: Closest distance from a pole searched when the root lies within the margin.
_SECULAR_CLOSEST = 1e-300
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


def secular_denominators(pdf: Pdf) -> list[float]:
    """``1 + x a_i`` at the root ``x`` of ``sum_i p_i a_i / (1 + x a_i) = 0``.

    The left side decreases strictly between its poles ``-1/max(a)`` and
    ``-1/min(a)``, so there is exactly one root there when the ``a_i`` take both
    signs.  (Lagrange-multiplier condition of the constrained MLE.)  The root is
    searched in fishtest's bracket, 1e-9 inside the poles.  A lopsided sample (an
    empty, regularized cell beside millions of counts) has its root closer to a pole
    than that; it is then solved for as its distance from that pole, which keeps the
    pole cell's own denominator exact where ``1 + x a`` would lose every digit.
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

    try:
        x = brent_root(secular, -1 / high + _SECULAR_MARGIN, -1 / low - _SECULAR_MARGIN)
        return [1 + x * a for a in values]
    except NoSignChange:
        pass
    # Positive just inside the right pole -1/low: the root lies beyond, nearer that pole.
    pole, side = (low, -1.0) if secular(-1 / low - _SECULAR_MARGIN) > 0 else (high, 1.0)
    base = [1 - a / pole for a in values]  # 1 + x a at the pole: exactly 0 for the pole's cell

    def denominators(distance: float) -> list[float]:
        return [b + side * distance * a for b, a in zip(base, values, strict=True)]

    def near_pole(distance: float) -> float:
        return sum(p * a / d for (a, p), d in zip(pdf, denominators(distance), strict=True))

    try:
        distance = brent_root(near_pole, _SECULAR_CLOSEST, _SECULAR_MARGIN, xtol=0.0)
    except NoSignChange:
        raise ValueError(
            "counts: too lopsided to fit (the maximum-likelihood fit lies closer to the edge of "
            "its domain than floating point resolves)"
        ) from None
    return denominators(distance)


def mle_expected(pdf: Pdf, score: float) -> Pdf:
    """Most likely distribution on the same support with mean ``score``.

    Reweights the empirical probabilities: ``p_i / (1 + x (a_i - score))``.
    """
    shifted = [(a - score, p) for a, p in pdf]
    return [(a, p / d) for (a, p), d in zip(pdf, secular_denominators(shifted), strict=True)]


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
        fit = [(a, p / d) for (a, p), d in zip(pdf, secular_denominators(shifted), strict=True)]
        if max(abs(previous[i][1] - fit[i][1]) for i in range(n)) < _T_VALUE_CONVERGENCE:
            break
    return fit
