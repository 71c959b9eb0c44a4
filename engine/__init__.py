"""The rules and search core of arbiter, as Python sees it.

Everything here is implemented in Rust (``engine._engine``); this module is the curated public API.
"""

from engine._engine import (
    ENGINE_VERSION,
    GAMES,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Outcome,
    Position,
)

__all__ = [
    "ENGINE_VERSION",
    "GAMES",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "Outcome",
    "Position",
]
