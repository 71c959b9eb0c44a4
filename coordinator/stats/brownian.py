"""Brownian motion with drift between two absorbing barriers.

The SPRT's LLR, as a function of the number of samples, is approximated by a
Brownian motion with drift ``mu`` and diffusion ``sigma`` started at 0 and stopped
at ``a < 0`` or ``b > 0``.  :func:`outcome_cdf` is the distribution function of
the test's outcome: the probability that a path does worse than an observed end
point ``(T, y)``, outcomes being ordered faster fail < slower fail < lower LLR at
time T < higher LLR at time T < slower pass < faster pass.  That ordering is what
lets the SPRT-aware Elo estimate account for the stopping rule (fishtest's
brownian.py).
"""

from __future__ import annotations

import math

from coordinator.stats.numeric import phi

_SERIES_TOLERANCE = 1e-9
_SIEGMUND_TIME = 1e-2
_SIEGMUND_GAMMA = 15
_ASYMPTOTIC_PHI = 5


def _u(n: int, gamma: float, width: float, y: float) -> float:
    """Primitive of ``e^(gamma y) sin(n pi y / width)`` times ``2/width e^(-gamma y)``."""
    angle = math.pi * n * y / width
    return (2 * width * gamma * math.sin(angle) - 2 * math.pi * n * math.cos(angle)) / (
        width**2 * gamma**2 + math.pi**2 * n**2
    )


def outcome_cdf(a: float, b: float, mu: float, sigma: float, t: float, y: float) -> float:
    """Probability that the motion's outcome is worse than ending at LLR ``y`` at time ``t``.

    Uses the exact eigenfunction series, or Siegmund's approximation when the
    series would converge slowly (short times or a strong drift).
    """
    sigma2 = sigma**2
    gamma = mu / sigma2
    width = b - a
    if sigma2 * t / width**2 < _SIEGMUND_TIME or abs(gamma * width) > _SIEGMUND_GAMMA:
        return _outcome_cdf_siegmund(a, b, mu, sigma2, t, y)
    return _outcome_cdf_series(a, b, mu, sigma2, t, y)


def _outcome_cdf_series(a: float, b: float, mu: float, sigma2: float, t: float, y: float) -> float:
    """Exact outcome probability as an eigenfunction series (barriers shifted to 0, A)."""
    width = b - a
    x = -a
    y = y - a
    gamma = mu / sigma2
    drift_term = (mu**2 / sigma2) / 2
    lambda_1 = (math.pi / width) ** 2 * sigma2 / 2 + drift_term
    t0 = math.exp(-lambda_1 * t - x * gamma + y * gamma)
    total = 0.0
    n = 1
    while True:
        lambda_n = (n * math.pi / width) ** 2 * sigma2 / 2 + drift_term
        t1 = math.exp(-(lambda_n - lambda_1) * t)
        t3 = _u(n, gamma, width, y)
        total += t1 * t3 * math.sin(n * math.pi * x / width)
        if abs(t0 * t1 * t3) <= _SERIES_TOLERANCE:
            break
        n += 1
    if gamma * width > 30:  # avoid overflow
        pre = math.exp(-2 * gamma * x)
    elif abs(gamma * width) < 1e-8:  # avoid division by zero
        pre = (width - x) / width
    else:
        pre = (1 - math.exp(2 * gamma * (width - x))) / (1 - math.exp(2 * gamma * width))
    return pre + t0 * total


def _tail_term(z: float, two_gamma_bound: float, gamma_bound: float) -> float:
    """``exp(2 gamma bound) Phi(z)``, via Phi's asymptotic expansion when it would overflow."""
    if gamma_bound >= _ASYMPTOTIC_PHI:
        return -math.exp(-(z**2) / 2 + two_gamma_bound) / math.sqrt(2 * math.pi) * (1 / z - 1 / z**3)
    return math.exp(two_gamma_bound) * phi(z)


def _outcome_cdf_siegmund(a: float, b: float, mu: float, sigma2: float, t: float, y: float) -> float:
    """Siegmund's approximation of the outcome probability (robust fallback)."""
    denom = math.sqrt(t * sigma2)
    offset = mu * t
    gamma = mu / sigma2
    z = (y - offset) / denom
    za = (-y + offset + 2 * a) / denom
    zb = (y - offset - 2 * b) / denom
    return phi(z) + _tail_term(za, 2 * gamma * a, gamma * a) - _tail_term(zb, 2 * gamma * b, gamma * b)
