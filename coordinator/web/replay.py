"""A stored game replayed move by move through the rules core: the position after every ply.

Pure: a game record in, positions out (the engine plays each move, so a record that does not replay
says at which ply it stops instead of showing a board the rules never reached).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import engine

_SQUARE = re.compile(r"[a-h][1-8]")


@dataclass(frozen=True)
class Replay:
    """The positions of one game: ``positions[0]`` is the opening, ``positions[k]`` the one after
    ply ``k``; ``moves[k - 1]`` is the move of ply ``k``; ``error`` says why the replay stopped
    before the last move (None when every move was played)."""

    game: str
    positions: list[str]
    moves: list[str]
    error: str | None

    @property
    def plies(self) -> int:
        """Plies replayed."""
        return len(self.positions) - 1


def replay(game: str, opening: str, moves: list[str]) -> Replay:
    """Play ``moves`` from ``opening`` with the rules of ``game``."""
    position = engine.Position.from_fen(game, opening)
    positions = [position.fen()]
    error = None
    for ply, move in enumerate(moves, start=1):
        try:
            position = position.play(move)
        except ValueError as e:
            error = f"ply {ply} ({move}): {' '.join(str(e).split())}"
            break
        positions.append(position.fen())
    return Replay(game, positions, list(moves[: len(positions) - 1]), error)


def move_squares(move: str) -> list[str]:
    """The squares a move in the rules' notation starts from and lands on, in order."""
    return _SQUARE.findall(move)


def numbered(opening: str, plies: int) -> list[tuple[int, int | None, int | None]]:
    """Move numbers of a game's plies: ``(number, white's ply, black's ply)`` per row (a ply is
    None where that side has no move in the row: black first, or white last)."""
    black_first = opening.split()[-1:] == ["b"]
    rows: list[tuple[int, int | None, int | None]] = []
    ply = 1
    if black_first and plies:
        rows.append((1, None, 1))
        ply = 2
    while ply <= plies:
        rows.append((len(rows) + 1, ply, ply + 1 if ply + 1 <= plies else None))
        ply += 2
    return rows
