"""The shapes of what the core returns: a search, a whole game, a replayed record.

They are TypedDicts rather than classes because the core builds them as plain dicts in one call
and a game record goes on as JSON (to the broker, to the store) unchanged: the types check every
key read at no cost per game.
"""

from __future__ import annotations

from typing import TypedDict


class Iteration(TypedDict):
    """One iteration of iterative deepening."""

    depth: int
    score: int
    nodes: int
    time_ms: float
    pv: list[str]


class SearchResult(TypedDict):
    """A search of one position: the best move (None when the side to move has none), its score
    in centipawns for the side to move (beyond ``MATE_BOUND`` a forced result), the depth and
    nodes reached, the principal variation, the time taken and every iteration."""

    best_move: str | None
    score: int
    depth: int
    nodes: int
    pv: list[str]
    time_ms: float
    iterations: list[Iteration]


class GameRecord(TypedDict):
    """A whole game played by the core: its opening, moves, result (``1-0``, ``0-1``,
    ``1/2-1/2``) and reason, plies, nodes per side, and per move the node budget that repeats
    its search and the milliseconds it took."""

    opening: str
    moves: list[str]
    result: str
    reason: str
    plies: int
    nodes: list[int]
    budgets: list[int]
    times_ms: list[int]


class ReplayedEnd(TypedDict):
    """How a recorded game ends by the rules: both None when nothing ends it after its last move."""

    result: str | None
    reason: str | None
    plies: int
