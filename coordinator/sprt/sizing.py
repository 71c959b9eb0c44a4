"""How many game pairs make a batch of about N seconds of work (``--batch-seconds``)."""

from __future__ import annotations

#: What sizing batches by time assumes of a game (docs/performance.md measures 106 and 41 plies at
#: 2,000 nodes, and about 3.7 M nodes/s per core in whole games): an estimate from the
#: configuration alone, so that the same command plans the same batches on any machine.
ESTIMATED_PLIES = {"congo": 110, "congress": 45}
ESTIMATED_NODES_PER_SECOND = 3_500_000
#: The largest batch: one task of a few minutes of work at most.
MAX_BATCH_PAIRS = 1_000


def game_seconds(game: str, limits: dict[str, int]) -> float | None:
    """About how long one game takes on one core under ``limits`` (None for a depth limit)."""
    plies = ESTIMATED_PLIES[game]
    if limits.get("nodes"):
        return plies * limits["nodes"] / ESTIMATED_NODES_PER_SECOND
    if limits.get("movetime_ms"):
        return plies * limits["movetime_ms"] / 1000
    return None


def pairs_for_seconds(game: str, limits: dict[str, int], seconds: float) -> int:
    """Game pairs that keep one worker core busy for about ``seconds`` under ``limits`` (as
    fishtest sizes its tasks by time). Only node and time limits say how long a game takes."""
    each = game_seconds(game, limits)
    if each is None:
        raise ValueError("--batch-seconds needs --nodes or --movetime: a depth limit says nothing of time")
    return max(1, min(MAX_BATCH_PAIRS, round(seconds / (2 * each))))
