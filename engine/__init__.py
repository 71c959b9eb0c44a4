"""The rules and search core of arbiter, as Python sees it.

Everything here runs in Rust (``engine._engine``); this module is the curated public API and
accepts weights as a dict of named numbers or as the path of a JSON file holding one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import _engine
from engine._engine import (
    BENCH_DEPTH,
    ENGINE_VERSION,
    GAMES,
    LIMIT_BOUNDS,
    MATE_BOUND,
    MATE_SCORE,
    MAX_MOVES_TEXT,
    MAX_NUMBERS_TEXT,
    MAX_OPENING,
    MAX_REASON,
    RECORD_FIELDS,
    Adjudication,
    EnginePipe,
    EnginePipeFault,
    GameClock,
    GameJudge,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Limits,
    Outcome,
    Position,
    Records,
    TimeControl,
    WeightSpec,
    read_answer,
    resignation_score,
)
from engine.results import GameRecord, Iteration, ReplayedEnd, SearchResult
from engine.weights import WeightsSource, read_weights_file, resolve_weights


def weights(game: str) -> list[WeightSpec]:
    """The tunable evaluation weights of `game`: name, default, min, max, description."""
    return _engine.weights(game)


def validate_weights(game: str, source: WeightsSource) -> dict[str, int]:
    """Full weights from a dict or JSON file; omitted names default, bad names or values raise."""
    return resolve_weights(game, source)


def search(
    position: Position,
    weights: WeightsSource = None,
    *,
    depth: int | None = None,
    nodes: int | None = None,
    movetime_ms: int | None = None,
    hash_mb: int = 16,
) -> SearchResult:
    """Best move, score, depth, nodes, pv, time_ms and per-iteration lines for `position`.

    Without any limit it searches to depth 6. With a depth or node limit the answer is the same
    on every run and machine (a fresh table is used for each call).
    """
    given = depth is not None or nodes is not None or movetime_ms is not None
    limits = Limits(depth=depth, nodes=nodes, movetime_ms=movetime_ms) if given else None
    return _engine.search(position, resolve_weights(position.game, weights), limits, hash_mb)


def play_game(
    game: str,
    white_weights: WeightsSource,
    black_weights: WeightsSource,
    opening: str,
    limits: Limits,
    adjudication: Adjudication | None = None,
    hash_mb: int | None = None,
) -> GameRecord:
    """Plays a whole game in Rust; returns opening, moves, result, reason, plies, nodes per side,
    and per move the node budget that repeats its search (``budgets``) and its milliseconds.

    `adjudication` is off unless given. `hash_mb` sets each side's table size; by default it is
    sized to the node limit (16 MiB without one). Under a time control the game is kept on a
    referee's clock; a side over its time and the limits' margin loses (``time_forfeit``).
    """
    return _engine.play_game(
        game,
        resolve_weights(game, white_weights),
        resolve_weights(game, black_weights),
        opening,
        limits,
        adjudication,
        hash_mb,
    )


def moves_for_budgets(
    game: str,
    white_weights: WeightsSource,
    black_weights: WeightsSource,
    opening: str,
    limits: Limits,
    budgets: Sequence[int],
    hash_mb: int | None = None,
) -> list[str]:
    """The moves of a game replayed with every move searched under exactly its node budget (the
    ``budgets`` of :func:`play_game`), by searchers set up as :func:`play_game` sets them up for
    ``limits`` and ``hash_mb``: a timed game, repeated move for move on any machine."""
    return _engine.moves_for_budgets(
        game,
        resolve_weights(game, white_weights),
        resolve_weights(game, black_weights),
        opening,
        limits,
        list(budgets),
        hash_mb,
    )


def replay_game(
    game: str, opening: str, moves: list[str], adjudication: Adjudication | None = None
) -> ReplayedEnd:
    """How a recorded game ends: ``{"result", "reason", "plies"}``, from its moves replayed through
    the rules under ``adjudication`` (the end conditions of :func:`play_game`, in its order).

    ``result`` and ``reason`` are None when nothing ends the game after the last move. A malformed
    opening, an illegal move, or a move after the game ended raises ValueError naming the ply.
    """
    return _engine.replay_game(game, opening, list(moves), adjudication)


def check_records(
    game: str,
    games: list[Any] | Records,
    openings: Sequence[str],
    pentanomial: Sequence[int],
    wdl: Sequence[int],
    faults: Sequence[tuple[int, bool]],
    adjudication: Adjudication,
    limits: Limits,
    programs: bool,
) -> tuple[list[int], list[int], str]:
    """A batch's game records, as a worker sent them (``games``: JSON objects, or the
    :class:`Records` that :func:`read_answer` keeps of them), checked in one call
    to the rules core: each record's shape, one record per game in pair order (candidate white
    then black) from the ``openings`` sent, the claimed ``pentanomial`` and ``wdl`` equal to the
    records' counts, each of the ``faults`` (game, whether the candidate's) on a game its side lost
    by a fault, and every distinct game replayed to its stated end under ``adjudication``,
    ``limits`` and ``programs`` (a side played by an engine program). Returns the pentanomial,
    the W/D/L and the records in the store's form (a JSON array of arrays); ValueError naming
    the first bad record (``games[i]: ...``) or fault (``faults[i]: ...``)."""
    return _engine.check_records(
        game,
        games,
        list(openings),
        list(pentanomial),
        list(wdl),
        list(faults),
        adjudication,
        limits,
        programs,
    )


def bench(game: str, depth: int | None = None) -> tuple[int, float]:
    """(total nodes, seconds) of the fixed bench; the node count is the engine's signature."""
    return _engine.bench(game, depth)


__all__ = [
    "BENCH_DEPTH",
    "ENGINE_VERSION",
    "GAMES",
    "LIMIT_BOUNDS",
    "MATE_BOUND",
    "MATE_SCORE",
    "MAX_MOVES_TEXT",
    "MAX_NUMBERS_TEXT",
    "MAX_OPENING",
    "MAX_REASON",
    "RECORD_FIELDS",
    "Adjudication",
    "EnginePipe",
    "EnginePipeFault",
    "GameClock",
    "GameJudge",
    "GameRecord",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "Iteration",
    "Limits",
    "Outcome",
    "Position",
    "Records",
    "ReplayedEnd",
    "SearchResult",
    "TimeControl",
    "WeightSpec",
    "bench",
    "check_records",
    "moves_for_budgets",
    "play_game",
    "read_answer",
    "read_weights_file",
    "replay_game",
    "resignation_score",
    "search",
    "validate_weights",
    "weights",
]
