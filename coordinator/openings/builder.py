"""Building openings books: positions a few random plies from the start that a short search
scores near equal. Deterministic for a seed, so a book can always be rebuilt exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import engine


def random_walk(game: str, rng: random.Random, plies: int) -> engine.Position | None:
    """The position after `plies` random legal moves from the start; None if the game ended."""
    pos = engine.Position.start(game)
    for _ in range(plies):
        moves = pos.legal_moves()
        if not moves:
            return None
        pos = pos.play(rng.choice(moves))
        if pos.outcome() is not None:
            return None
    return pos


def generate_book(
    game: str,
    count: int,
    plies: int,
    seed: int,
    max_score: int,
    depth: int = 4,
    progress: Callable[[int, int], None] | None = None,
) -> list[str]:
    """`count` distinct positions reached by `plies` random plies and scored within +-`max_score`
    by a depth-`depth` search. Raises ValueError when the constraints cannot be met.
    """
    rng = random.Random(f"arbiter-book-{game}-{seed}")
    book: list[str] = []
    seen: set[str] = set()
    attempts, max_attempts = 0, max(1000, 200 * count)
    while len(book) < count:
        attempts += 1
        if attempts > max_attempts:
            raise ValueError(
                f"found only {len(book)} of {count} openings after {max_attempts} tries; "
                "raise --max-score or lower --plies"
            )
        pos = random_walk(game, rng, plies)
        if pos is None or pos.fen() in seen:
            continue
        seen.add(pos.fen())
        if abs(engine.search(pos, depth=depth)["score"]) > max_score:
            continue
        book.append(pos.fen())
        if progress is not None:
            progress(len(book), count)
    return book


def format_book(game: str, positions: list[str], header: str) -> str:
    """The book file text: a comment header, then one position string per line."""
    lines = [f"# arbiter openings book for {game}", f"# {header}", *positions]
    return "\n".join(lines) + "\n"
