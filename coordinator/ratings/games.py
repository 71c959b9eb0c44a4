"""Rated games: their checks, and the same games as arrays for the fit.

A game is two engine names and White's score; games sharing a pair id are one game pair (one
opening, colours swapped). :func:`tabulate` checks every game and pair once and turns the list
into index arrays, so that the fit and the counts are vectorized.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

SCORES = (0.0, 0.5, 1.0)

IntArray = npt.NDArray[np.intp]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class RatedGame:
    """One game: White (the side that moved first), Black, and White's score (1, 0.5 or 0).

    Games sharing a ``pair`` id form a game pair: one opening, played once with each colour. Pair
    ids are unique across the whole list (not per pairing); None for a game outside any pair.
    """

    white: str
    black: str
    score: float
    pair: int | None = None


@dataclass(frozen=True)
class GameTable:
    """Checked games as arrays: engine indices into ``names``, White's scores, each game's cluster.

    A cluster is a game pair (both its games) or a single game without a pair id; clusters are
    numbered from 0 in order of first appearance.
    """

    names: tuple[str, ...]
    white: IntArray
    black: IntArray
    score: FloatArray
    cluster: IntArray

    @property
    def games(self) -> int:
        """The number of games."""
        return len(self.score)

    @property
    def clusters(self) -> int:
        """The number of clusters (pairs and unpaired games)."""
        return int(self.cluster.max()) + 1 if self.games else 0

    def pairings(self) -> tuple[IntArray, IntArray]:
        """Every two engines that met, once each: (lower index, higher index) arrays."""
        engines = len(self.names)
        low, high = np.minimum(self.white, self.black), np.maximum(self.white, self.black)
        keys = np.unique(low * engines + high)
        return (keys // engines).astype(np.intp), (keys % engines).astype(np.intp)

    def prefix(self, count: int) -> GameTable:
        """The first ``count`` games, with only the engines and clusters they contain."""
        white, black, cluster = self.white[:count], self.black[:count], self.cluster[:count]
        present, engines = np.unique(np.concatenate([white, black]), return_inverse=True)
        _, clusters = np.unique(cluster, return_inverse=True)
        return GameTable(
            names=tuple(self.names[i] for i in present),
            white=engines[:count].astype(np.intp),
            black=engines[count:].astype(np.intp),
            score=self.score[:count],
            cluster=clusters.astype(np.intp),
        )


def _check_game(index: int, game: RatedGame) -> None:
    if not isinstance(game, RatedGame):
        raise ValueError(f"games[{index}]: expected a RatedGame, got {type(game).__name__}")
    white, black, score, pair = game.white, game.black, game.score, game.pair
    if not isinstance(white, str) or not white:
        raise ValueError(f"games[{index}].white: expected an engine name, got {white!r}")
    if not isinstance(black, str) or not black:
        raise ValueError(f"games[{index}].black: expected an engine name, got {black!r}")
    if white == black:
        raise ValueError(f"games[{index}]: expected two different engines, got {white!r} twice")
    if score not in SCORES or isinstance(score, bool) or not isinstance(score, (int, float)):
        raise ValueError(f"games[{index}].score: expected White's score 1, 0.5 or 0, got {score!r}")
    if pair is not None and (isinstance(pair, bool) or not isinstance(pair, int)):
        raise ValueError(f"games[{index}].pair: expected an integer pair id or None, got {pair!r}")


def _check_pair(pair: int, first: RatedGame, second: RatedGame) -> None:
    if (second.white, second.black) != (first.black, first.white):
        raise ValueError(
            f"games: pair {pair} expected one game each way between two engines (colours swapped), "
            f"got {first.white} vs {first.black} and {second.white} vs {second.black}"
        )


def tabulate(games: Sequence[RatedGame]) -> GameTable:
    """Check ``games`` and return them as a :class:`GameTable` (engines sorted by name).

    Raises :class:`ValueError` naming the first bad game: a missing name, an engine playing
    itself, a score other than 1, 0.5 or 0, or a pair id shared by other than one game each way
    between the same two engines. A pair with one game so far is a cluster of one.
    """
    first_of_pair: dict[int, RatedGame | None] = {}
    cluster_of: dict[tuple[bool, int], int] = {}
    clusters: list[int] = []
    for index, game in enumerate(games):
        _check_game(index, game)
        if game.pair is not None:
            if game.pair not in first_of_pair:
                first_of_pair[game.pair] = game
            else:
                first = first_of_pair[game.pair]
                if first is None:
                    raise ValueError(
                        f"games: pair {game.pair} expected two games, got a third at games[{index}]"
                    )
                _check_pair(game.pair, first, game)
                first_of_pair[game.pair] = None
        key = (True, game.pair) if game.pair is not None else (False, index)
        clusters.append(cluster_of.setdefault(key, len(cluster_of)))
    names = tuple(sorted({g.white for g in games} | {g.black for g in games}))
    index_of = {name: i for i, name in enumerate(names)}
    count = len(games)
    return GameTable(
        names=names,
        white=np.fromiter((index_of[g.white] for g in games), dtype=np.intp, count=count),
        black=np.fromiter((index_of[g.black] for g in games), dtype=np.intp, count=count),
        score=np.fromiter((float(g.score) for g in games), dtype=np.float64, count=count),
        cluster=np.asarray(clusters, dtype=np.intp),
    )
