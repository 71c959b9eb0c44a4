"""Ordo's rating model, fitted by maximum likelihood, with cluster-robust covariance.

The model (Ordo, M. Ballicora): White's expected score against Black is the logistic curve of
their rating difference plus a White advantage ``w``, in Elo::

    E = 1 / (1 + 10 ** (-(r_white - r_black + w) / 400))

and each game adds ``s log E + (1 - s) log(1 - E)`` to the log-likelihood (a draw is half a win and
half a loss). The ratings and ``w`` maximize the sum over all games. The log-likelihood is concave,
so Newton's method from zero converges; the games are first summed per (White, Black) cell, so a
fit costs the same for 100 or 100,000 games.

**The prior** (as BayesElo's virtual draws): every two engines that met get ``prior`` virtual
games, half with each colour, each half won and half lost. In the likelihood they are exactly
BayesElo's virtual draws: they keep every rating and ``w`` finite when an engine won or lost all its
games or White won everything. In the variance they are decisive games, so that a list of draws
only still has error bars. Their pull is ``prior`` games' worth per pairing: small against any
real pairing's count.

**Errors** come from the sandwich (cluster-robust) covariance ``H^-1 M H^-1``: ``H`` is the Fisher
information of the fit, ``M`` the sum over clusters of the outer product of each cluster's score
(gradient), times ``G / (G - 1)`` for ``G`` clusters. A cluster is one game pair, or one game
without a pair. Per game this is the observed (trinomial) variance of the results, so many draws
narrow the bars as they should; per pair it is the pentanomial variance, which fishtest uses for the
same reason: both games of a pair share an opening, so their results are correlated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from coordinator.ratings.games import FloatArray, GameTable

#: d(ln odds) / d(Elo): Elo differences are in units of 400 / ln(10) natural-log odds.
ELO_SLOPE = math.log(10) / 400
#: Newton stops when no parameter moves by more than this (Elo).
TOLERANCE = 1e-9
MAX_ITERATIONS = 100

Matrix = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Fit:
    """Fitted ratings (engine 0 at 0) and White advantage, both in Elo.

    ``covariance`` is over ``(ratings..., white_advantage)``; row and column 0 are zero (engine 0
    is the fixed reference of the fit), so only contrasts of ratings are meaningful.
    """

    ratings: FloatArray
    white_advantage: float
    covariance: Matrix


@dataclass(frozen=True)
class _Cells:
    """Games summed per (White, Black): design rows, game counts and White's points."""

    design: Matrix
    games: FloatArray
    points: FloatArray


def _design(white: npt.NDArray[np.intp], black: npt.NDArray[np.intp], engines: int) -> Matrix:
    """Rows ``+1`` at White, ``-1`` at Black, ``+1`` at the White advantage; engine 0 dropped."""
    rows = np.arange(len(white))
    design = np.zeros((len(white), engines + 1))
    design[rows, white] = 1.0
    design[rows, black] = -1.0
    design[:, engines] = 1.0
    return design[:, 1:]


def _cells(table: GameTable) -> tuple[_Cells, npt.NDArray[np.intp]]:
    """The games summed per cell, and each game's cell."""
    engines = len(table.names)
    keys, cell_of_game = np.unique(table.white * engines + table.black, return_inverse=True)
    cells = _Cells(
        design=_design(keys // engines, keys % engines, engines),
        games=np.bincount(cell_of_game).astype(np.float64),
        points=np.bincount(cell_of_game, weights=table.score).astype(np.float64),
    )
    return cells, cell_of_game.astype(np.intp)


def _prior_cells(table: GameTable, prior: float) -> _Cells:
    """``prior`` virtual games per pairing that met, half each way, scoring 1/2."""
    engines = len(table.names)
    low = np.minimum(table.white, table.black)
    high = np.maximum(table.white, table.black)
    pairings = np.unique(low * engines + high)
    first, second = pairings // engines, pairings % engines
    white = np.concatenate([first, second])
    black = np.concatenate([second, first])
    games = np.full(len(white), prior / 2, dtype=np.float64)
    return _Cells(design=_design(white, black, engines), games=games, points=games / 2)


def _expected(design: Matrix, params: FloatArray) -> FloatArray:
    """White's expected score in each row."""
    result: FloatArray = np.exp(-np.logaddexp(0.0, -ELO_SLOPE * (design @ params)))
    return result


def _log_likelihood(cells: _Cells, params: FloatArray) -> float:
    logit = ELO_SLOPE * (cells.design @ params)
    terms = cells.points * np.logaddexp(0.0, -logit) + (cells.games - cells.points) * np.logaddexp(0.0, logit)
    return -float(terms.sum())


def _information(cells: _Cells, expected: FloatArray) -> Matrix:
    """Fisher information (minus the Hessian of the log-likelihood) of the cells."""
    weights = ELO_SLOPE**2 * cells.games * expected * (1 - expected)
    information: Matrix = cells.design.T @ (cells.design * weights[:, None])
    return information


def _maximize(cells: _Cells) -> FloatArray:
    """Newton's method with step halving on the concave log-likelihood."""
    params = np.zeros(cells.design.shape[1])
    current = _log_likelihood(cells, params)
    for _ in range(MAX_ITERATIONS):
        expected = _expected(cells.design, params)
        gradient = ELO_SLOPE * cells.design.T @ (cells.points - cells.games * expected)
        step = np.linalg.solve(_information(cells, expected), gradient)
        for _ in range(60):
            candidate = _log_likelihood(cells, params + step)
            if candidate >= current - 1e-12 * abs(current):
                break
            step /= 2
        params = params + step
        current = candidate
        if np.max(np.abs(step)) < TOLERANCE:
            break
    return params


def _cluster_scores(table: GameTable, residual: FloatArray) -> Matrix:
    """Each cluster's gradient of the log-likelihood (rows), engine 0 dropped."""
    engines = len(table.names)
    scores = np.zeros((table.clusters, engines + 1))
    np.add.at(scores, (table.cluster, table.white), residual)
    np.add.at(scores, (table.cluster, table.black), -residual)
    np.add.at(scores, (table.cluster, np.full(table.games, engines)), residual)
    result: Matrix = ELO_SLOPE * scores[:, 1:]
    return result


def fit(table: GameTable, prior: float) -> Fit:
    """Fit Ordo's model to ``table`` (at least one game) with ``prior`` virtual games per pairing."""
    data, cell_of_game = _cells(table)
    virtual = _prior_cells(table, prior)
    both = _Cells(
        design=np.vstack([data.design, virtual.design]),
        games=np.concatenate([data.games, virtual.games]),
        points=np.concatenate([data.points, virtual.points]),
    )
    params = _maximize(both)
    expected = _expected(data.design, params)
    clusters = table.clusters
    scores = _cluster_scores(table, table.score - expected[cell_of_game])
    correction = clusters / (clusters - 1) if clusters > 1 else 1.0
    virtual_expected = _expected(virtual.design, params)
    virtual_variance = virtual.games * (virtual_expected**2 + (1 - virtual_expected) ** 2) / 2
    meat = correction * scores.T @ scores
    meat += ELO_SLOPE**2 * virtual.design.T @ (virtual.design * virtual_variance[:, None])
    bread = np.linalg.inv(_information(both, _expected(both.design, params)))
    reduced = bread @ meat @ bread
    covariance = np.zeros((len(params) + 1, len(params) + 1))
    covariance[1:, 1:] = reduced
    return Fit(
        ratings=np.concatenate([[0.0], params[:-1]]),
        white_advantage=float(params[-1]),
        covariance=covariance,
    )
