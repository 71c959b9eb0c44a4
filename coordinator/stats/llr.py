"""Generalized SPRT (GSPRT) log-likelihood ratios of game results.

The GSPRT compares the data's likelihood under the most likely distribution with
Elo ``elo1`` against the most likely one with Elo ``elo0`` (fishtest's LLRcalc).
Results are counts in ascending-score order: trinomial ``[L, D, W]`` (games) or
pentanomial ``[LL, LD, DD+WL, WD, WW]`` (game pairs), from the candidate's view.

* ``logistic``: hypotheses on the expected score, ``s = 1/(1 + 10^(-elo/400))``.
* ``normalized``: hypotheses on the t-value ``(s - 1/2)/sigma`` (normalized Elo).
* ``BayesElo``: BayesElo bounds converted to logistic Elo at the sample draw-elo,
  then the logistic GSPRT (what fishtest does for legacy tests).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from coordinator.stats.bayeselo import bayeselo_to_elo, bayeselo_to_proba, draw_elo
from coordinator.stats.elo import elo_to_score
from coordinator.stats.inputs import (
    check_counts,
    check_hypotheses,
    check_length,
    check_model,
)
from coordinator.stats.pdf import (
    Pdf,
    mean_var,
    mle_expected,
    mle_t_value,
    regularize,
    results_to_pdf,
)

#: Normalized Elo per unit of normalized t-value: 800 / ln(10) = 347.4355855...
NELO_PER_NT = 800 / math.log(10)


def _llr_per_sample(pdf: Pdf, fit0: Pdf, fit1: Pdf) -> float:
    """Mean over the data of log(fit1 / fit0): the GSPRT LLR divided by the sample size."""
    return sum(p * (math.log(fit1[i][1]) - math.log(fit0[i][1])) for i, (_, p) in enumerate(pdf))


def llr_logistic(elo0: float, elo1: float, results: Sequence[float]) -> float:
    """GSPRT LLR of H1: elo = elo1 against H0: elo = elo0, in logistic Elo."""
    results = check_counts(results, "results")
    n, pdf = results_to_pdf(results)
    fit0 = mle_expected(pdf, elo_to_score(elo0))
    fit1 = mle_expected(pdf, elo_to_score(elo1))
    return n * _llr_per_sample(pdf, fit0, fit1)


def llr_normalized(nelo0: float, nelo1: float, results: Sequence[float]) -> float:
    """GSPRT LLR of H1: nelo = nelo1 against H0: nelo = nelo0, in normalized Elo.

    Normalized Elo is a t-value per game; for pentanomial data the per-pair
    t-value is sqrt(2) times larger (two games per pair).
    """
    results = check_counts(results, "results")
    scale = 1.0 if len(results) == 3 else 2**0.5
    t0, t1 = (nelo / NELO_PER_NT * scale for nelo in (nelo0, nelo1))
    n, pdf = results_to_pdf(results)
    fit0 = mle_t_value(pdf, 0.5, t0)
    fit1 = mle_t_value(pdf, 0.5, t1)
    return n * _llr_per_sample(pdf, fit0, fit1)


def bayeselo_bounds_to_logistic(belo0: float, belo1: float, ldw: Sequence[float]) -> tuple[float, float]:
    """Convert BayesElo hypotheses to logistic Elo at the draw-elo of ``[L, D, W]``.

    Empty cells are regularized first, as in fishtest.
    """
    ldw = check_counts(ldw, "wdl")
    check_length(ldw, 3, "wdl")
    drawelo = draw_elo(regularize(ldw))
    return bayeselo_to_elo(belo0, drawelo), bayeselo_to_elo(belo1, drawelo)


def llr_legacy_bayeselo(belo0: float, belo1: float, ldw: Sequence[float]) -> float:
    """Pre-2019 plain BayesElo trinomial SPRT LLR (fishtest's ``LLRlegacy``).

    ``ldw`` = ``[L, D, W]``, regularized first; the draw-elo is estimated from the
    sample and both hypotheses are evaluated as exact trinomial probabilities.
    """
    ldw = check_counts(ldw, "wdl")
    check_length(ldw, 3, "wdl")
    ldw = regularize(ldw)
    drawelo = draw_elo(ldw)
    p0 = bayeselo_to_proba(belo0, drawelo)
    p1 = bayeselo_to_proba(belo1, drawelo)
    return sum(ldw[i] * math.log(p1[i] / p0[i]) for i in range(3))


def llr(
    results: Sequence[float],
    elo0: float,
    elo1: float,
    elo_model: str = "normalized",
    *,
    ldw: Sequence[float] | None = None,
) -> float:
    """GSPRT LLR of ``results`` for H0: elo0 vs H1: elo1 in the units of ``elo_model``.

    For ``BayesElo`` the draw-elo comes from ``ldw`` (``[L, D, W]``) or, for
    trinomial ``results``, from ``results`` itself; pentanomial data alone does not
    determine a draw rate, so ``ldw`` is required then.
    """
    model = check_model(elo_model)
    results = check_counts(results, "results")
    elo0, elo1 = check_hypotheses(elo0, elo1, model)
    if model == "normalized":
        return llr_normalized(elo0, elo1, results)
    if model == "BayesElo":
        elo0, elo1 = bayeselo_bounds_to_logistic(elo0, elo1, draw_counts(results, ldw))
    return llr_logistic(elo0, elo1, results)


def draw_counts(results: Sequence[float], ldw: Sequence[float] | None) -> Sequence[float]:
    """Counts ``[L, D, W]`` from which the BayesElo draw-elo is estimated (``ldw`` first)."""
    if ldw is not None:
        return ldw
    if len(results) == 3:
        return results
    raise ValueError(
        "elo_model: BayesElo needs win/draw/loss counts to estimate the draw-elo; "
        "pentanomial counts alone do not determine it (pass W/D/L counts too, or "
        "use the logistic or normalized model)"
    )


def sigma_per_game(pdf: Pdf, cells: int) -> float:
    """Per-game standard deviation of the score from a trinomial or pentanomial pdf.

    For pentanomial data the pdf holds per-pair averages, whose variance is half a
    single game's (when games were independent): hence ``sqrt(2 var)``.
    """
    _, var = mean_var(pdf)
    return math.sqrt(2 * var) if cells == 5 else math.sqrt(var)
