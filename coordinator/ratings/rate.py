"""Rating lists from games: the fit anchored, error bars, LOS, counts; and ratings over games."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from coordinator.ratings.games import FloatArray, GameTable, RatedGame, tabulate
from coordinator.ratings.headtohead import head_to_head
from coordinator.ratings.model import Matrix, fit
from coordinator.ratings.ratinglist import Rating, RatingList

MODEL = "ordo"
#: Virtual games per pairing that met (BayesElo's default of two virtual draws).
DEFAULT_PRIOR = 2.0
#: Fewer virtual games would let a sweep's fitted score reach 1 in floating point.
MIN_PRIOR = 0.1


class NotRatable(ValueError):
    """The games cannot give one rating list: none, the anchor absent, or engines never linked."""


@dataclass(frozen=True)
class Checkpoint:
    """The rating list of the first ``games`` games."""

    games: int
    ratings: RatingList


def _check_options(anchor: str | None, anchor_elo: float, confidence: float, prior: float) -> None:
    if anchor is not None and (not isinstance(anchor, str) or not anchor):
        raise ValueError(f"anchor: expected an engine name or None, got {anchor!r}")
    if (
        isinstance(anchor_elo, bool)
        or not isinstance(anchor_elo, (int, float))
        or not math.isfinite(anchor_elo)
    ):
        raise ValueError(f"anchor_elo: expected a finite number, got {anchor_elo!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise ValueError(f"confidence: expected a probability strictly between 0 and 1, got {confidence!r}")
    if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not MIN_PRIOR <= prior < math.inf:
        raise ValueError(f"prior: expected a finite number of virtual games from {MIN_PRIOR}, got {prior!r}")


def _check_connected(table: GameTable) -> None:
    """Raise :class:`NotRatable` unless every engine is linked to every other by games."""
    engines = len(table.names)
    group = list(range(engines))

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    first, second = table.pairings()
    for a, b in zip(first.tolist(), second.tolist(), strict=True):
        group[root(a)] = root(b)
    roots = {root(i) for i in range(engines)}
    if len(roots) > 1:
        apart = [next(table.names[i] for i in range(engines) if root(i) == r) for r in sorted(roots)]
        raise NotRatable(
            f"games: expected every engine linked to every other by games, got {len(roots)} groups "
            f"that never met (e.g. {apart[0]!r} and {apart[1]!r}); their ratings are not comparable"
        )


def _contrasts(engines: int, anchor: int | None) -> Matrix:
    """Rows: each rating minus the anchor's (or the mean), over ``(ratings..., white_advantage)``."""
    contrasts = np.zeros((engines, engines + 1))
    contrasts[:, :engines] = np.eye(engines)
    if anchor is None:
        contrasts[:, :engines] -= 1.0 / engines
    else:
        contrasts[:, anchor] -= 1.0
    return contrasts


def _rate_table(
    table: GameTable, anchor: str | None, anchor_elo: float, confidence: float, prior: float
) -> RatingList:
    if table.games == 0:
        raise NotRatable("games: expected at least one game to rate, got none")
    if anchor is not None and anchor not in table.names:
        raise NotRatable(
            f"anchor: expected one of the rated engines ({', '.join(table.names)}), got {anchor!r}"
        )
    _check_connected(table)
    result = fit(table, prior)
    engines = len(table.names)
    anchor_index = table.names.index(anchor) if anchor is not None else None
    contrasts = _contrasts(engines, anchor_index)
    params = np.concatenate([result.ratings, [result.white_advantage]])
    elos = anchor_elo + contrasts @ params
    variances = np.diag(contrasts @ result.covariance @ contrasts.T).clip(min=0.0)
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    points = np.bincount(table.white, weights=table.score, minlength=engines) + np.bincount(
        table.black, weights=1 - table.score, minlength=engines
    )
    games = np.bincount(table.white, minlength=engines) + np.bincount(table.black, minlength=engines)
    drawn = table.score == 0.5
    draws = np.bincount(table.white[drawn], minlength=engines) + np.bincount(
        table.black[drawn], minlength=engines
    )
    ratings = [
        Rating(
            name=table.names[i],
            elo=float(elos[i]),
            error=float(z * math.sqrt(variances[i])),
            games=int(games[i]),
            points=float(points[i]),
            draws=int(draws[i]),
        )
        for i in range(engines)
    ]
    ratings.sort(key=lambda r: (-r.elo, r.name))
    return RatingList(
        ratings=tuple(ratings),
        anchor=anchor,
        anchor_elo=float(anchor_elo),
        confidence=float(confidence),
        model=MODEL,
        white_advantage=result.white_advantage,
        draw_elo=None,
        los=_los(table.names, result.ratings, result.covariance),
        head_to_head=head_to_head(table),
        white_advantage_error=float(z * math.sqrt(max(result.covariance[-1, -1], 0.0))),
        prior=float(prior),
    )


def _los(names: Sequence[str], ratings: FloatArray, covariance: Matrix) -> dict[tuple[str, str], float]:
    """P(a stronger than b) for every ordered pair: the normal law of the fitted difference."""
    normal = NormalDist()
    los: dict[tuple[str, str], float] = {}
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            variance = covariance[a, a] + covariance[b, b] - 2 * covariance[a, b]
            p = normal.cdf(float(ratings[a] - ratings[b]) / math.sqrt(max(variance, 1e-300)))
            los[names[a], names[b]] = p
            los[names[b], names[a]] = 1.0 - p
    return los


def rate(
    games: Sequence[RatedGame],
    *,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    confidence: float = 0.95,
    prior: float = DEFAULT_PRIOR,
) -> RatingList:
    """Rate the engines of ``games`` by maximum likelihood with Ordo's model.

    Ratings are relative to ``anchor`` (rated ``anchor_elo``, error 0), or to their mean (then
    ``anchor_elo``) when no anchor is given; error bars are ``confidence`` intervals. Raises
    :class:`ValueError` with one line for a bad game or option, and :class:`NotRatable` (a
    ValueError) for no games, an anchor that did not play, or engines not linked by games.
    """
    _check_options(anchor, anchor_elo, confidence, prior)
    return _rate_table(tabulate(games), anchor, anchor_elo, confidence, prior)


def rate_over(
    games: Sequence[RatedGame],
    checkpoints: Sequence[int],
    *,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    confidence: float = 0.95,
    prior: float = DEFAULT_PRIOR,
) -> tuple[Checkpoint, ...]:
    """The rating list of the first ``n`` games for each ``n`` in ``checkpoints`` (rating over games).

    A prefix that cannot be rated yet (:class:`NotRatable`: the anchor has not played, or some
    engines are not linked by games yet) is left out. Every game is checked, as by :func:`rate`.
    """
    _check_options(anchor, anchor_elo, confidence, prior)
    table = tabulate(games)
    result: list[Checkpoint] = []
    for n in checkpoints:
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= table.games:
            raise ValueError(f"checkpoints: expected game counts from 1 to {table.games}, got {n!r}")
        try:
            result.append(Checkpoint(n, _rate_table(table.prefix(n), anchor, anchor_elo, confidence, prior)))
        except NotRatable:
            continue
    return tuple(result)
