"""Numerical building blocks: the standard normal law and a bracketing root finder.

These replace the two scipy calls fishtest relies on (``scipy.stats.norm`` and
``scipy.optimize.brentq``) so that the statistics package needs only the standard
library.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist

_STANDARD_NORMAL = NormalDist()

# scipy.optimize.brentq's default tolerances, so roots land where fishtest's do.
_XTOL = 2e-12
_RTOL = 4 * 2.220446049250313e-16
_MAXITER = 200


class NoSignChange(ValueError):
    """Raised when a root is requested on an interval whose ends do not bracket one."""


def phi(x: float) -> float:
    """Cumulative distribution function of the standard normal law (quantile -> probability)."""
    return _STANDARD_NORMAL.cdf(x)


def phi_inv(p: float) -> float:
    """Quantile function of the standard normal law (probability -> quantile), 0 < p < 1."""
    return _STANDARD_NORMAL.inv_cdf(p)


def brent_root(
    f: Callable[[float], float],
    lo: float,
    hi: float,
    *,
    xtol: float = _XTOL,
    rtol: float = _RTOL,
    maxiter: int = _MAXITER,
) -> float:
    """Find a zero of ``f`` in ``[lo, hi]`` with Brent's method.

    Brent's method combines bisection (always safe) with secant and inverse
    quadratic interpolation (fast near the root).  ``f(lo)`` and ``f(hi)`` must have
    opposite signs (or one of them be zero); otherwise :class:`NoSignChange` is
    raised, mirroring the ``ValueError`` of ``scipy.optimize.brentq`` that fishtest
    catches to widen its search interval.
    """
    a, b = lo, hi
    fa, fb = f(a), f(b)
    if fa == 0.0:
        return a
    if fb == 0.0:
        return b
    if (fa > 0.0) == (fb > 0.0):
        raise NoSignChange(f"f({lo!r}) and f({hi!r}) have the same sign")

    # b is the best estimate, a the previous one, c the counter-point (f(b), f(c)
    # of opposite signs).
    c, fc = a, fa
    d = e = b - a
    for _ in range(maxiter):
        if (fb > 0.0) == (fc > 0.0):
            c, fc = a, fa
            d = e = b - a
        if abs(fc) < abs(fb):
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol = 0.5 * (xtol + rtol * abs(b))
        half = 0.5 * (c - b)
        if fb == 0.0 or abs(half) <= tol:
            return b
        if abs(e) >= tol and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:  # secant step
                p = 2.0 * half * s
                q = 1.0 - s
            else:  # inverse quadratic interpolation
                q_ = fa / fc
                r = fb / fc
                p = s * (2.0 * half * q_ * (q_ - r) - (b - a) * (r - 1.0))
                q = (q_ - 1.0) * (r - 1.0) * (s - 1.0)
            if p > 0.0:
                q = -q
            else:
                p = -p
            if 2.0 * p < min(3.0 * half * q - abs(tol * q), abs(e * q)):
                e, d = d, p / q
            else:
                d = e = half
        else:
            d = e = half
        a, fa = b, fb
        b += d if abs(d) > tol else math.copysign(tol, half)
        fb = f(b)
    return b
