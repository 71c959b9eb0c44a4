"""Seeded, capture-biased random playouts driven by an oracle module.

Used by the oracle's own tests (event coverage) and by the differential tests,
which replay the recorded games through the engine and compare every position.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class Ply:
    """One recorded position and the move played from it."""

    fen: str  # position before the move
    legal: frozenset[str]  # every legal move there, per the oracle
    outcome: tuple[str, str] | None  # outcome of the position before the move (None here)
    move: str  # the move chosen
    events: frozenset[str]  # what that move did
    fen_after: str  # position after the move
    successors: tuple[tuple[str, str], ...]  # (move, position after it) for every legal move


@dataclass(frozen=True)
class Game:
    """A recorded playout: its start, its plies and the final position's outcome."""

    start: str
    plies: tuple[Ply, ...]
    final_fen: str
    final_legal: frozenset[str]
    final_outcome: tuple[str, str] | None


def play_random_game(
    game: ModuleType,
    start: str,
    rng: random.Random,
    capture_bias: float = 0.7,
    max_plies: int = 150,
) -> Game:
    """Play one game from `start`; prefer a capture with probability `capture_bias`."""
    state = game.parse(start)
    plies = []
    for _ in range(max_plies):
        options = sorted(game.children(state), key=lambda item: item[0])
        if not options:
            break
        captures = [item for item in options if "capture" in item[2]]
        pool = captures if captures and rng.random() < capture_bias else options
        move, new_state, events = rng.choice(pool)
        plies.append(
            Ply(
                fen=game.fen(state),
                legal=frozenset(item[0] for item in options),
                outcome=game.outcome(state),
                move=move,
                events=frozenset(events),
                fen_after=game.fen(new_state),
                successors=tuple((item[0], game.fen(item[1])) for item in options),
            )
        )
        state = new_state
    return Game(
        start=start,
        plies=tuple(plies),
        final_fen=game.fen(state),
        final_legal=frozenset(game.legal_moves(state)),
        final_outcome=game.outcome(state),
    )


def random_games(
    game: ModuleType,
    starts: list[str],
    seed: int,
    min_positions: int,
    capture_bias: float = 0.7,
    max_plies: int = 150,
) -> list[Game]:
    """Games from `starts` in rotation until `min_positions` positions are recorded."""
    rng = random.Random(seed)
    games: list[Game] = []
    positions = 0
    index = 0
    while positions < min_positions:
        start = starts[index % len(starts)]
        index += 1
        recorded = play_random_game(game, start, rng, capture_bias, max_plies)
        games.append(recorded)
        positions += len(recorded.plies) + 1
    return games


def all_events(games: list[Game]) -> set[str]:
    """Union of the labels of every move played in `games`."""
    return {label for g in games for ply in g.plies for label in ply.events}
