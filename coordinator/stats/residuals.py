"""Which workers' results do not look like the others': fishtest's chi-squared worker check.

Every worker plays games of the same two engines, so all of them should see the same distribution of
game-pair outcomes. fishtest (``server/fishtest/util.py``, ``get_chi2`` / ``update_residuals``) tests
this with a chi-squared test of homogeneity on a workers-by-outcomes table, and gives each worker a
"residual": how badly its row deviates from the pooled one, as a standard normal quantile. A worker
whose residual passes a Bonferroni-corrected threshold is flagged (a broken machine, a wrong
engine, a forged result). This module follows fishtest step by step, with the standard library only
(fishtest uses numpy and scipy):

1. Pentanomial counts are folded into three columns, ``[WW+WD, LL+LD, DD]`` (the outer cells are too
   rare for the test to be valid on their own).
2. Workers whose expected count in some column is at most 5 are set aside, repeatedly, until every
   remaining one qualifies; with fewer than two left there is no test.
3. ``chi2 = sum (observed - expected)^2 / expected`` over the table, with ``(rows-1)(columns-1)``
   degrees of freedom.
4. A worker's residual: its row's chi-squared divided by ``1 - row total / grand total`` (the
   chi-squared of the 2-row table "this worker against all the others", which has ``columns - 1``
   degrees of freedom under the null hypothesis), turned into a standard normal quantile via its
   p-value, and floored at 0.
5. Thresholds ``z_95`` / ``z_99``: the normal quantiles of ``1 - 0.05/rows`` and ``1 - 0.01/rows``.
   fishtest colours a residual below ``z_95`` green, below ``z_99`` yellow and beyond it red; here a
   worker is *flagged* at red.

The spot checks ask another question (:func:`outliers_against`): whether a worker's results differ
from a reference known to be true (the results the coordinator played again itself), since the
other workers, against whom fishtest measures, may lie alike.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal, NamedTuple

_NORMAL = NormalDist()
#: Expected counts at or below this make the chi-squared approximation invalid (fishtest's rule).
MIN_EXPECTED = 5.0
#: The smallest p-value turned into a residual (a residual of about 38.4); smaller ones underflow.
_MIN_P = 5e-324

Level = Literal["ok", "yellow", "red", "untested"]


class WorkerResidual(NamedTuple):
    """One worker's residual (None when it played too few games to be tested) and whether it is
    flagged as an outlier (beyond fishtest's red threshold ``z_99``)."""

    worker: str
    residual: float | None
    flagged: bool


@dataclass(frozen=True)
class WorkerCheck:
    """The whole chi-squared test: statistic, degrees of freedom, p-value (None without a test),
    the two residual thresholds and every worker's residual, in the order given."""

    chi2: float | None
    dof: int
    p: float | None
    z_95: float | None
    z_99: float | None
    residuals: list[WorkerResidual]

    def level(self, residual: float | None) -> Level:
        """fishtest's colour of a residual: ``ok`` (green), ``yellow``, ``red``, or ``untested``."""
        if residual is None or self.z_95 is None or self.z_99 is None:
            return "untested"
        if residual < self.z_95:
            return "ok"
        return "yellow" if residual < self.z_99 else "red"


def fold_pentanomial(pentanomial: Sequence[float]) -> list[float]:
    """``[LL, LD, DD+WL, WD, WW]`` folded into fishtest's three columns ``[WW+WD, LL+LD, DD]``."""
    if len(pentanomial) != 5:
        raise ValueError(f"pentanomial: expected 5 counts [LL, LD, DD+WL, WD, WW], got {len(pentanomial)}")
    for i, value in enumerate(pentanomial):
        if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
            raise ValueError(f"pentanomial[{i}]: expected a non-negative count, got {value!r}")
    ll, ld, dd, wd, ww = (float(v) for v in pentanomial)
    return [ww + wd, ll + ld, dd]


def _upper_gamma_regularized(a: float, x: float) -> float:
    """Q(a, x) = Gamma(a, x) / Gamma(a): a series below ``a + 1``, a continued fraction above
    (Numerical Recipes' ``gammq``)."""
    if x <= 0:
        return 1.0
    log_prefactor = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefactor))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-16:
            break
    return math.exp(log_prefactor) * h


def chi2_sf(x: float, dof: int) -> float:
    """P(X > x) for a chi-squared variable X with ``dof`` degrees of freedom."""
    if dof < 1:
        raise ValueError(f"dof: expected a positive number of degrees of freedom, got {dof}")
    return _upper_gamma_regularized(dof / 2, x / 2)


def _z_of_p(p: float) -> float:
    """The standard normal quantile with upper tail ``p`` (scipy's ``norm.isf``)."""
    return -_NORMAL.inv_cdf(min(max(p, _MIN_P), 1 - 1e-16))


def worker_chi2(per_worker: Mapping[str, Sequence[float]]) -> WorkerCheck:
    """fishtest's chi-squared worker check of per-worker pentanomial counts (see the module text).

    Workers are reported in the order of ``per_worker``; one set aside for too few games has
    residual None and is never flagged. Without two qualifying workers nothing is tested.
    """
    table = {worker: fold_pentanomial(counts) for worker, counts in per_worker.items()}
    rows = dict(table)
    observed: list[list[float]] = []
    expected: list[list[float]] = []
    while True:
        if len(rows) <= 1:
            return _untested(table)
        observed = list(rows.values())
        column_sums = [sum(col) for col in zip(*observed, strict=True)]
        row_sums = [sum(row) for row in observed]
        grand = sum(row_sums)
        if grand == 0:
            return _untested(table)
        expected = [[r * c / grand for c in column_sums] for r in row_sums]
        small = [w for w, e in zip(rows, expected, strict=True) if min(e) <= MIN_EXPECTED]
        if not small:
            break
        for worker in small:
            del rows[worker]
    columns = 3
    n_rows = len(rows)
    dof = (n_rows - 1) * (columns - 1)
    row_chi2 = [
        sum((o - e) ** 2 / e for o, e in zip(obs, exp, strict=True))
        for obs, exp in zip(observed, expected, strict=True)
    ]
    chi2 = sum(row_chi2)
    grand = sum(sum(row) for row in observed)
    z_95, z_99 = (_z_of_p(p / n_rows) for p in (0.05, 0.01))
    residual: dict[str, float] = {}
    for worker, obs, value in zip(rows, observed, row_chi2, strict=True):
        adjusted = value / (1 - sum(obs) / grand)
        residual[worker] = max(0.0, _z_of_p(chi2_sf(adjusted, columns - 1)))
    return WorkerCheck(
        chi2=chi2,
        dof=dof,
        p=chi2_sf(chi2, dof),
        z_95=z_95,
        z_99=z_99,
        residuals=[WorkerResidual(w, residual.get(w), w in residual and residual[w] >= z_99) for w in table],
    )


def _untested(table: Mapping[str, Sequence[float]]) -> WorkerCheck:
    """The answer when there is no test: every worker untested."""
    return WorkerCheck(None, 0, None, None, None, [WorkerResidual(w, None, False) for w in table])


def worker_residuals(per_worker: Mapping[str, Sequence[float]]) -> list[WorkerResidual]:
    """``(worker, residual, flagged)`` for every worker of ``{worker: pentanomial counts}``: the
    residuals of :func:`worker_chi2`, flagged beyond fishtest's red threshold."""
    return worker_chi2(per_worker).residuals


#: A worker's pair scores are compared with a reference from this many pairs on.
MIN_SCORE_PAIRS = 4
#: The smallest variance of a pair score taken (a worker whose pairs all scored alike).
_MIN_PAIR_VARIANCE = 0.01


def _pair_mean_var(pentanomial: Sequence[float]) -> tuple[float, float, float]:
    """Pairs, mean pair score (0 to 1) and its per-pair variance, of pentanomial counts."""
    pairs = float(sum(pentanomial))
    if pairs <= 0:
        return 0.0, 0.0, 0.0
    mean = sum(count * slot / 4 for slot, count in enumerate(pentanomial)) / pairs
    var = sum(count * (slot / 4 - mean) ** 2 for slot, count in enumerate(pentanomial)) / pairs
    return pairs, mean, var


def outliers_against(
    reference: Sequence[float], per_worker: Mapping[str, Sequence[float]], p: float = 0.01
) -> dict[str, float]:
    """The workers whose results differ beyond chance from ``reference``, pentanomial counts known
    to be true (results the coordinator played again itself), with the z of each one's mean pair
    score against the reference's. Each worker is tested against the reference alone, never
    against the other workers (who may lie alike): a two-sample test of the mean pair score, and
    fishtest's chi-squared of the two-row table (worker, reference) where its expected counts
    allow it, at two-sided level ``p`` corrected for the number of workers and the two tests
    (Bonferroni). Workers (and a reference) with fewer than :data:`MIN_SCORE_PAIRS` pairs are not
    tested."""
    if sum(reference) < MIN_SCORE_PAIRS:
        return {}
    tested = {w: counts for w, counts in per_worker.items() if sum(counts) >= MIN_SCORE_PAIRS}
    level = p / (2 * len(tested)) if tested else p
    n2, m2, v2 = _pair_mean_var(reference)
    out: dict[str, float] = {}
    for worker, counts in tested.items():
        n1, m1, v1 = _pair_mean_var(counts)
        se = math.sqrt(max(v1, _MIN_PAIR_VARIANCE) / n1 + max(v2, _MIN_PAIR_VARIANCE) / n2)
        z = (m1 - m2) / se
        p_score = 2 * _NORMAL.cdf(-abs(z))
        rows = [fold_pentanomial(counts), fold_pentanomial(reference)]
        p_shape = _two_row_p(rows)
        if min(p_score, p_shape) < level:
            out[worker] = z
    return out


def _two_row_p(rows: Sequence[Sequence[float]]) -> float:
    """The p-value of the chi-squared test of homogeneity of two rows of folded counts (1 where
    an expected count is at most :data:`MIN_EXPECTED`: the test is not valid there)."""
    columns = [sum(col) for col in zip(*rows, strict=True)]
    grand = sum(columns)
    chi2 = 0.0
    for row in rows:
        total = sum(row)
        for observed, column in zip(row, columns, strict=True):
            expected = total * column / grand
            if expected <= MIN_EXPECTED:
                return 1.0
            chi2 += (observed - expected) ** 2 / expected
    return chi2_sf(chi2, len(columns) - 1)
