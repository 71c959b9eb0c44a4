"""One-call summary of a test's statistics, as the rest of arbiter consumes them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from coordinator.stats.elo import fixed_elo
from coordinator.stats.inputs import check_counts, check_length
from coordinator.stats.nelo import nelo
from coordinator.stats.sprt import Verdict, decide
from coordinator.stats.sprt_elo import sprt_elo


class StatsSummary(TypedDict):
    """Result of :func:`sprt_summary` (JSON-serialisable)."""

    llr: float
    lower_bound: float
    upper_bound: float
    state: Verdict
    elo: float
    elo95: float
    los: float
    sprt_elo: float
    sprt_elo_ci: list[float]
    sprt_los: float
    nelo: float
    nelo_ci: list[float]


#: Keys of :func:`sprt_summary`'s result, in order.
SUMMARY_KEYS: tuple[str, ...] = tuple(StatsSummary.__annotations__)


def wdl_to_ldw(wdl: Sequence[float]) -> list[float]:
    """Reorder user-facing ``(wins, draws, losses)`` into ascending-score ``[L, D, W]``."""
    wdl = check_counts(wdl, "wdl")
    check_length(wdl, 3, "wdl")
    wins, draws, losses = wdl
    return [losses, draws, wins]


def sprt_summary(
    *,
    pentanomial: Sequence[float] | None = None,
    wdl: Sequence[float] | None = None,
    elo0: float = 0.0,
    elo1: float = 2.0,
    elo_model: str = "normalized",
    alpha: float = 0.05,
    beta: float = 0.05,
) -> StatsSummary:
    """Every statistic of a test in one dict (keys :data:`SUMMARY_KEYS`).

    Give ``pentanomial`` counts ``[LL, LD, DD+WL, WD, WW]`` (game pairs) or ``wdl``
    = ``(wins, draws, losses)`` (games), from the candidate's view.  With both, the
    pentanomial counts drive every statistic and the W/D/L counts only supply the
    draw-elo of the ``BayesElo`` model (which pentanomial counts alone cannot).

    ``state`` is the decision for this single evaluation (no overshoot history;
    use :func:`coordinator.stats.sprt.update_sprt` for batch-by-batch updates).
    ``elo``/``elo95``/``los`` are the fixed-sample estimates; ``sprt_elo``,
    ``sprt_elo_ci`` and ``sprt_los`` the stopping-rule-aware ones (logistic Elo);
    ``nelo``/``nelo_ci`` normalized Elo with its 95% interval.
    """
    if pentanomial is None and wdl is None:
        raise ValueError(
            "counts: expected pentanomial counts [LL, LD, DD+WL, WD, WW] or wdl counts (W, D, L), got neither"
        )
    ldw = wdl_to_ldw(wdl) if wdl is not None else None
    if pentanomial is not None:
        results = check_counts(pentanomial, "pentanomial")
        check_length(results, 5, "pentanomial")
    else:
        assert ldw is not None
        results = ldw

    estimate = sprt_elo(results, elo0, elo1, elo_model, alpha, beta, ldw=ldw)
    fixed = fixed_elo(results)
    normalized = nelo(results)
    return {
        "llr": estimate.llr,
        "lower_bound": estimate.lower_bound,
        "upper_bound": estimate.upper_bound,
        "state": decide(estimate.llr, estimate.lower_bound, estimate.upper_bound),
        "elo": fixed.elo,
        "elo95": fixed.elo95,
        "los": fixed.los,
        "sprt_elo": estimate.elo,
        "sprt_elo_ci": [estimate.ci_low, estimate.ci_high],
        "sprt_los": estimate.los,
        "nelo": normalized.nelo,
        "nelo_ci": [normalized.ci_low, normalized.ci_high],
    }
