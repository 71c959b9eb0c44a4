"""How long games take, estimated from a run's configuration alone: the one speed estimate, used to
size batches by time (``--batch-seconds``), to refuse a batch longer than a task may take, and to
bound how long a worker may take for a batch before it is sent again (the Celery executor's lease).

An estimate from the configuration, never a measurement, so that the same command plans the same
batches on any machine. That matters: a batch's seed and openings, and the points where the SPRT
may stop, follow from the batch size, so a node-limited run's default batch size is a function of
its configuration alone (never of the fleet or the machine's speed), like its games.
"""

from __future__ import annotations

import math

import engine
from coordinator.stats import SprtParams

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
#: A batch sized by default is about this much work for one worker core (seconds): long enough that
#: the coordinator's cost per batch (send, mark, poll, count) is small per game (docs/performance.md).
DEFAULT_BATCH_SECONDS = 60.0
#: ... but at most this share of the SPRT's expected length: the run counts whole batches, so it
#: plays on at most one batch (half a batch on average) past the point where it would have decided.
OVERSHOOT_SHARE = 0.04
#: The standard deviation of one game's score assumed to turn logistic and BayesElo bounds into
#: normalized ones (0.5 without draws; smaller with them, which shortens the SPRT and the cap).
GAME_SCORE_SIGMA = 0.4


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


def expected_sprt_pairs(params: SprtParams) -> float:
    """About how many game pairs the SPRT of ``params`` plays when the truth is one of its two
    hypotheses (Wald's approximation: the nearer bound over the LLR's drift per pair, the shorter of
    the two; a truth between them takes about 1.5 times longer, one far outside much less). In
    normalized Elo a pair's t-value is ``sqrt(2) * nElo * ln(10) / 800``; logistic and BayesElo
    bounds are turned into normalized ones with :data:`GAME_SCORE_SIGMA`."""
    width = params.elo1 - params.elo0
    if params.elo_model != "normalized":  # the logistic curve's slope at an even score, over sigma
        width *= 800 / math.log(10) * (math.log(10) / 1600) / GAME_SCORE_SIGMA
    t_width = math.sqrt(2) * width * math.log(10) / 800
    lower, upper = params.bounds
    return min(-lower, upper) / (t_width**2 / 2)


def default_batch_pairs(
    game: str, limits: engine.Limits, sprt: SprtParams | None, max_pairs: int | None = None
) -> int:
    """The pairs per batch when the command is given neither ``--batch-pairs`` nor
    ``--batch-seconds``: about :data:`DEFAULT_BATCH_SECONDS` of work for one worker core (as
    fishtest sizes its tasks from the time control), at most :data:`OVERSHOOT_SHARE` of the run's
    expected length (the SPRT's, ``sprt``, when the run has one, and at most its budget of
    ``max_pairs``, so that a short run is still many batches) and :data:`MAX_BATCH_PAIRS`.

    A function of the configuration alone, so that a node-limited run plays the same games on any
    machine and any fleet. The fleet does not enter: a batch is played by one worker process on
    one core, so its length does not depend on the fleet's size (a fishtest task spans all of a
    worker's cores, hence its factor of the worker's concurrency). A depth limit says nothing of
    time: such a run is sized by the SPRT's cap alone."""
    pairs = MAX_BATCH_PAIRS
    if game_seconds(game, limits) is not None:
        pairs = pairs_for_seconds(game, limits, DEFAULT_BATCH_SECONDS)
    length = math.inf if sprt is None else expected_sprt_pairs(sprt)
    if max_pairs is not None:
        length = min(length, max_pairs)
    if length < math.inf:
        pairs = min(pairs, math.floor(OVERSHOOT_SHARE * length))
    return max(1, pairs)
