"""Type stubs for the Rust extension engine._engine."""

from collections.abc import Mapping
from typing import Any

ENGINE_VERSION: str
GAMES: tuple[str, ...]

class InvalidPositionError(ValueError): ...
class InvalidMoveError(ValueError): ...
class IllegalMoveError(ValueError): ...

class Outcome:
    winner: str
    reason: str

class Position:
    @staticmethod
    def start(game: str) -> Position: ...
    @staticmethod
    def from_fen(game: str, text: str) -> Position: ...
    def fen(self) -> str: ...
    @property
    def game(self) -> str: ...
    @property
    def turn(self) -> str: ...
    @property
    def hash(self) -> int: ...
    def legal_moves(self) -> list[str]: ...
    def play(self, move: str) -> Position: ...
    def outcome(self) -> Outcome | None: ...
    def perft(self, depth: int) -> int: ...
    def divide(self, depth: int) -> list[tuple[str, int]]: ...

BENCH_DEPTH: int
# A search score of MATE_SCORE - n is a forced win in n plies (its negation a loss in n plies).
MATE_SCORE: int
# Scores beyond +-MATE_BOUND are forced wins or losses.
MATE_BOUND: int

class WeightSpec:
    name: str
    default: int
    min: int
    max: int
    description: str

def weights(game: str) -> list[WeightSpec]: ...
def validate_weights(game: str, values: dict[str, float] | None = None) -> list[tuple[str, int]]: ...
def search(
    position: Position,
    weights: Mapping[str, float] | None = None,
    limits: dict[str, int | None] | None = None,
    hash_mb: int = 16,
) -> dict[str, Any]: ...
def play_game(
    game: str,
    white_weights: Mapping[str, float] | None,
    black_weights: Mapping[str, float] | None,
    opening: str,
    limits: dict[str, int],
    adjudication: dict[str, Any] | None = None,
    hash_mb: int | None = None,
) -> dict[str, Any]: ...
def bench(game: str, depth: int | None = None) -> tuple[int, float]: ...
def replay_game(
    game: str, opening: str, moves: list[str], adjudication: dict[str, Any] | None = None
) -> dict[str, Any]: ...
def replay_games(
    game: str, records: list[tuple[str, str]], adjudication: dict[str, Any] | None = None
) -> list[tuple[str | None, str | None, int, str | None]]: ...
