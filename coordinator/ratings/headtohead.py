"""Head-to-head counts: each engine's wins, draws and losses against each other, and its pairs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from coordinator.ratings.games import GameTable


@dataclass(frozen=True)
class HeadToHead:
    """The first engine's results against the second.

    ``pentanomial`` counts the first engine's complete game pairs by its score in the pair:
    0, 0.5, 1, 1.5 and 2 points; None when none of their games form a complete pair.
    """

    wins: int
    draws: int
    losses: int
    pentanomial: tuple[int, int, int, int, int] | None


def _pentanomials(table: GameTable) -> npt.NDArray[np.intp]:
    """Pair-score counts ``[first, second, 0..4]`` of each ordered pairing, complete pairs only."""
    engines = len(table.names)
    sizes = np.bincount(table.cluster, minlength=table.clusters)
    paired = sizes[table.cluster] == 2
    order = np.argsort(table.cluster[paired], kind="stable")
    white = table.white[paired][order].reshape(-1, 2)[:, 0]
    black = table.black[paired][order].reshape(-1, 2)[:, 0]
    score = table.score[paired][order].reshape(-1, 2)
    halves = np.rint(2 * (score[:, 0] + 1 - score[:, 1])).astype(np.intp)
    cells = np.concatenate(
        [(white * engines + black) * 5 + halves, (black * engines + white) * 5 + 4 - halves]
    )
    counts: npt.NDArray[np.intp] = np.bincount(cells, minlength=engines * engines * 5).reshape(
        engines, engines, 5
    )
    return counts


def head_to_head(table: GameTable) -> dict[tuple[str, str], HeadToHead]:
    """Every ordered pair of engines that met, both ways, with the first engine's results."""
    engines = len(table.names)
    first = np.concatenate([table.white, table.black])
    second = np.concatenate([table.black, table.white])
    score = np.concatenate([table.score, 1 - table.score])
    keys, cell = np.unique(first * engines + second, return_inverse=True)
    wins = np.bincount(cell, weights=score == 1.0)
    draws = np.bincount(cell, weights=score == 0.5)
    losses = np.bincount(cell, weights=score == 0.0)
    pentanomials = _pentanomials(table)
    result: dict[tuple[str, str], HeadToHead] = {}
    for i, key in enumerate(keys.tolist()):
        a, b = divmod(key, engines)
        counts = pentanomials[a, b].tolist()
        result[table.names[a], table.names[b]] = HeadToHead(
            wins=int(wins[i]),
            draws=int(draws[i]),
            losses=int(losses[i]),
            pentanomial=(counts[0], counts[1], counts[2], counts[3], counts[4]) if any(counts) else None,
        )
    return result
