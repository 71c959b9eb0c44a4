"""BayesElo (Coulom's win/draw/loss model) and its link to logistic Elo.

In BayesElo a result depends on the Elo difference and a "draw-elo" that sets the
draw rate.  Legacy SPRT bounds were given in BayesElo; fishtest converts them to
logistic Elo with the draw-elo estimated from the sample itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from coordinator.stats.elo import elo_to_score, score_to_elo


def bayeselo_to_proba(belo: float, drawelo: float) -> tuple[float, float, float]:
    """Probabilities ``(loss, draw, win)`` for BayesElo ``belo`` at ``drawelo``."""
    win = 1.0 / (1.0 + 10.0 ** ((-belo + drawelo) / 400.0))
    loss = 1.0 / (1.0 + 10.0 ** ((belo + drawelo) / 400.0))
    return loss, 1.0 - win - loss, win


def proba_to_bayeselo(loss: float, win: float) -> tuple[float, float]:
    """BayesElo and draw-elo ``(belo, drawelo)`` reproducing given loss/win rates."""
    if not (0 < win < 1 and 0 < loss < 1):
        raise ValueError(
            f"win/loss probabilities: expected both strictly in (0, 1), got win={win!r}, loss={loss!r}"
        )
    belo = 200 * math.log10(win / loss * (1 - loss) / (1 - win))
    drawelo = 200 * math.log10((1 - loss) / loss * (1 - win) / win)
    return belo, drawelo


def draw_elo(ldw: Sequence[float]) -> float:
    """Draw-elo estimated from (regularized, non-zero) counts ``[L, D, W]``."""
    total = sum(ldw)
    return proba_to_bayeselo(ldw[0] / total, ldw[2] / total)[1]


def bayeselo_to_elo(belo: float, drawelo: float) -> float:
    """Logistic Elo with the same expected score as BayesElo ``belo`` at ``drawelo``."""
    _, draw, win = bayeselo_to_proba(belo, drawelo)
    return score_to_elo(win + 0.5 * draw)


def elo_to_bayeselo(elo: float, draw_ratio: float) -> tuple[float, float]:
    """``(belo, drawelo)`` for logistic ``elo`` at a given draw ratio; NaNs if impossible."""
    if draw_ratio < 0:
        raise ValueError(f"draw_ratio: expected a value >= 0, got {draw_ratio!r}")
    score = elo_to_score(elo)
    win = score - draw_ratio / 2.0
    loss = 1 - draw_ratio - win
    if loss <= 0 or win <= 0:
        return math.nan, math.nan
    return proba_to_bayeselo(loss, win)
