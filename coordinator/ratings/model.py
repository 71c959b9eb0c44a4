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

from coordinator.ratings.games import FloatArray, GameTable, IntArray

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
    """Games summed per (White, Black): the engines, game counts and White's points."""

    white: IntArray
    black: IntArray
    games: FloatArray
    points: FloatArray

    def logits(self, params: FloatArray) -> FloatArray:
        """White's log-odds in each cell; ``params`` is ``(ratings..., white_advantage)``."""
        logits: FloatArray = ELO_SLOPE * (params[self.white] - params[self.black] + params[-1])
        return logits

    def expected(self, params: FloatArray) -> FloatArray:
        """White's expected score in each cell."""
        expected: FloatArray = np.exp(-np.logaddexp(0.0, -self.logits(params)))
        return expected

    def log_likelihood(self, params: FloatArray) -> float:
        logits = self.logits(params)
        losses = self.games - self.points
        return -float((self.points * np.logaddexp(0.0, -logits) + losses * np.logaddexp(0.0, logits)).sum())


def _join(first: _Cells, second: _Cells) -> _Cells:
    return _Cells(
        white=np.concatenate([first.white, second.white]),
        black=np.concatenate([first.black, second.black]),
        games=np.concatenate([first.games, second.games]),
        points=np.concatenate([first.points, second.points]),
    )


def _data_cells(table: GameTable) -> tuple[_Cells, IntArray]:
    """The games summed per cell, and each game's cell."""
    engines = len(table.names)
    keys, cell_of_game = np.unique(table.white * engines + table.black, return_inverse=True)
    cells = _Cells(
        white=(keys // engines).astype(np.intp),
        black=(keys % engines).astype(np.intp),
        games=np.bincount(cell_of_game).astype(np.float64),
        points=np.bincount(cell_of_game, weights=table.score).astype(np.float64),
    )
    return cells, cell_of_game.astype(np.intp)


def _prior_cells(table: GameTable, prior: float) -> _Cells:
    """``prior`` virtual games per pairing that met, half each way, scoring 1/2."""
    first, second = table.pairings()
    games = np.full(2 * len(first), prior / 2, dtype=np.float64)
    return _Cells(
        white=np.concatenate([first, second]),
        black=np.concatenate([second, first]),
        games=games,
        points=games / 2,
    )


def _sums(index: IntArray, weights: FloatArray, size: int) -> FloatArray:
    """``weights`` summed per ``index`` into ``size`` bins."""
    return np.bincount(index, weights, size).astype(np.float64, copy=False)


def _gradient(cells: _Cells, residuals: FloatArray, size: int) -> FloatArray:
    """Sum over cells of ``residual * (e_white - e_black + e_advantage)``, times the Elo slope."""
    gradient = _sums(cells.white, residuals, size) - _sums(cells.black, residuals, size)
    gradient[-1] += residuals.sum()
    result: FloatArray = ELO_SLOPE * gradient
    return result


def _sum_outer(first: IntArray, second: IntArray, a: FloatArray, b: FloatArray, size: int) -> Matrix:
    """Sum of ``v v^T`` over rows, ``v = a (e_first - e_second) + b e_advantage`` (Elo slope squared).

    Every game, cell and cluster is such a vector (a cluster's games are between the same two
    engines), so the sum is built by index from nine coefficient products, never densely.
    """
    advantage = np.full(len(first), size - 1)
    indices = (first, second, advantage)
    coefficients = (a, -a, b)
    flat = np.concatenate([row * size + column for row in indices for column in indices])
    weights = np.concatenate([p * q for p in coefficients for q in coefficients])
    result: Matrix = ELO_SLOPE**2 * _sums(flat, weights, size * size).reshape(size, size)
    return result


def _information(cells: _Cells, params: FloatArray, size: int) -> Matrix:
    """Fisher information (minus the Hessian of the log-likelihood) of ``cells``."""
    expected = cells.expected(params)
    root = np.sqrt(cells.games * expected * (1 - expected))
    return _sum_outer(cells.white, cells.black, root, root, size)


def _maximize(cells: _Cells, size: int) -> FloatArray:
    """Newton's method with step halving on the concave log-likelihood; engine 0 stays at 0."""
    params = np.zeros(size)
    current = cells.log_likelihood(params)
    for _ in range(MAX_ITERATIONS):
        residuals = cells.points - cells.games * cells.expected(params)
        step = np.zeros(size)
        step[1:] = np.linalg.solve(
            _information(cells, params, size)[1:, 1:], _gradient(cells, residuals, size)[1:]
        )
        for _ in range(60):
            candidate = cells.log_likelihood(params + step)
            if candidate >= current - 1e-12 * abs(current):
                break
            step /= 2
        params = params + step
        current = candidate
        if np.max(np.abs(step)) < TOLERANCE:
            break
    return params


def _meat(table: GameTable, residuals: FloatArray, size: int) -> Matrix:
    """Sum over clusters of the outer product of each cluster's score, with ``G / (G - 1)``."""
    clusters = table.clusters
    _, first_game = np.unique(table.cluster, return_index=True)
    first, second = table.white[first_game], table.black[first_game]
    sign = np.where(table.white == first[table.cluster], 1.0, -1.0)
    a = _sums(table.cluster, residuals * sign, clusters)
    b = _sums(table.cluster, residuals, clusters)
    correction = clusters / (clusters - 1) if clusters > 1 else 1.0
    return correction * _sum_outer(first.astype(np.intp), second.astype(np.intp), a, b, size)


def fit(table: GameTable, prior: float) -> Fit:
    """Fit Ordo's model to ``table`` (at least one game) with ``prior`` virtual games per pairing."""
    size = len(table.names) + 1
    data, cell_of_game = _data_cells(table)
    virtual = _prior_cells(table, prior)
    both = _join(data, virtual)
    params = _maximize(both, size)
    meat = _meat(table, table.score - data.expected(params)[cell_of_game], size)
    # Virtual games as decisive ones: half won, half lost, each its own cluster.
    expected = virtual.expected(params)
    spread = np.sqrt(virtual.games * (expected**2 + (1 - expected) ** 2) / 2)
    meat += _sum_outer(virtual.white, virtual.black, spread, spread, size)
    bread = np.linalg.inv(_information(both, params, size)[1:, 1:])
    covariance = np.zeros((size, size))
    covariance[1:, 1:] = bread @ meat[1:, 1:] @ bread
    return Fit(ratings=params[:-1].copy(), white_advantage=float(params[-1]), covariance=covariance)
