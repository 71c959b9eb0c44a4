"""Pure statistics for engine testing: GSPRT LLRs, SPRT state, Elo estimates.

Mirrors the formulas of fishtest's ``server/fishtest/stats`` (LLRcalc, stat_util,
sprt, brownian) with the standard library only.  Counts are given in
ascending-score order: ``[L, D, W]`` for games or ``[LL, LD, DD+WL, WD, WW]`` for
game pairs, from the candidate's view; :func:`sprt_summary` also takes the
user-facing ``(wins, draws, losses)`` order.
"""

from coordinator.stats.bayeselo import (
    bayeselo_to_elo,
    bayeselo_to_proba,
    draw_elo,
    elo_to_bayeselo,
    proba_to_bayeselo,
)
from coordinator.stats.elo import FixedElo, elo_to_score, fixed_elo, score_to_elo
from coordinator.stats.inputs import ELO_MODELS, EloModel
from coordinator.stats.llr import (
    NELO_PER_NT,
    bayeselo_bounds_to_logistic,
    llr,
    llr_legacy_bayeselo,
    llr_logistic,
    llr_normalized,
)
from coordinator.stats.nelo import NormalizedElo, nelo, nelo_pentanomial, nelo_trinomial
from coordinator.stats.sprt import (
    Overshoot,
    SprtParams,
    SprtState,
    Verdict,
    decide,
    run_sprt,
    sprt_bounds,
    update_sprt,
)
from coordinator.stats.sprt_elo import SprtElo, sprt_elo
from coordinator.stats.summary import (
    SUMMARY_KEYS,
    StatsSummary,
    sprt_summary,
    wdl_to_ldw,
)

__all__ = [
    "ELO_MODELS",
    "NELO_PER_NT",
    "SUMMARY_KEYS",
    "EloModel",
    "FixedElo",
    "NormalizedElo",
    "Overshoot",
    "SprtElo",
    "SprtParams",
    "SprtState",
    "StatsSummary",
    "Verdict",
    "bayeselo_bounds_to_logistic",
    "bayeselo_to_elo",
    "bayeselo_to_proba",
    "decide",
    "draw_elo",
    "elo_to_bayeselo",
    "elo_to_score",
    "fixed_elo",
    "llr",
    "llr_legacy_bayeselo",
    "llr_logistic",
    "llr_normalized",
    "nelo",
    "nelo_pentanomial",
    "nelo_trinomial",
    "proba_to_bayeselo",
    "run_sprt",
    "score_to_elo",
    "sprt_bounds",
    "sprt_elo",
    "sprt_summary",
    "update_sprt",
    "wdl_to_ldw",
]
