"""How long games take, estimated from a run's configuration alone: the one speed estimate, used to
size batches by time (``--batch-seconds``), to refuse a batch longer than a task may take, and to
bound how long a worker may take for a batch before it is sent again (the Celery executor's lease).

An estimate from the configuration, never a measurement, so that the same command plans the same
batches on any machine.
"""

from __future__ import annotations

import engine

#: Plies of a typical game (docs/performance.md measures 106 and 41 plies at 2,000 nodes).
ESTIMATED_PLIES = {"congo": 110, "congress": 45}
#: A typical core's search speed in whole games (docs/performance.md: about 3.7 M nodes/s).
ESTIMATED_NODES_PER_SECOND = 3_500_000
#: How much slower than typical the slowest worker core may be (a busy or old machine).
SLOWEST_CORE = 20
#: Plies a game is assumed to last at most when the adjudication sets no ply limit.
LONGEST_GAME_PLIES = 1000
#: The largest batch: one task of a few minutes of work at most.
MAX_BATCH_PAIRS = 1_000


def _clock_seconds(control: engine.TimeControl, plies: int) -> float:
    """The most a game of ``plies`` plies can take under ``control``: each side's base time (once
    per period) and its increments."""
    moves = -(-plies // 2)  # per side
    periods = 1 if control.moves is None else -(-moves // control.moves)
    return 2 * (periods * control.base_ms + moves * control.increment_ms) / 1000


def move_seconds(limits: engine.Limits) -> float | None:
    """About how long one move takes on a typical core (None when only a depth bounds it)."""
    times = []
    if limits.nodes is not None:
        times.append(limits.nodes / ESTIMATED_NODES_PER_SECOND)
    if limits.movetime_ms is not None:
        times.append(limits.movetime_ms / 1000)
    return min(times) if times else None


def game_seconds(game: str, limits: engine.Limits) -> float | None:
    """About how long one game takes on a typical core under ``limits`` (None when only a depth
    bounds it). A clock is assumed to be used up to half its time."""
    plies = ESTIMATED_PLIES[game]
    each = move_seconds(limits)
    per_move = None if each is None else plies * each
    if limits.time_control is None:
        return per_move
    clock = _clock_seconds(limits.time_control, plies) / 2
    return clock if per_move is None else min(per_move, clock)


def longest_game_seconds(limits: engine.Limits, max_plies: int | None) -> float | None:
    """The most one game can take on the slowest core: every move at its full limit, the game at
    its ply limit (None when only a depth bounds it)."""
    plies = max_plies or LONGEST_GAME_PLIES
    each = move_seconds(limits)
    if each is not None and limits.nodes is not None and limits.movetime_ms is None:
        each *= SLOWEST_CORE  # nodes take longer on a slow core; a time limit does not
    per_move = None if each is None else plies * each
    if limits.time_control is None:
        return per_move
    clock = _clock_seconds(limits.time_control, plies) + plies * limits.time_margin_ms / 1000
    return clock if per_move is None else min(per_move, clock)


def pairs_for_seconds(game: str, limits: engine.Limits, seconds: float) -> int:
    """Game pairs that keep one worker core busy for about ``seconds`` under ``limits`` (as
    fishtest sizes its tasks by time). Only node and time limits say how long a game takes."""
    each = game_seconds(game, limits)
    if each is None:
        raise ValueError(
            "--batch-seconds needs --nodes, --movetime or --tc: a depth limit says nothing of time"
        )
    return max(1, min(MAX_BATCH_PAIRS, round(seconds / (2 * each))))
