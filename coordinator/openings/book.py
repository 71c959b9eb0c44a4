"""Openings books: load and validate a file of start positions for game pairs.

A book is plain text with one position string per line (the notation of ``shared/rules/*.md``);
``#`` starts a comment line and blank lines are ignored. Every position is parsed by the rules core
when the book is loaded, so a typo fails before a run is created rather than inside a worker.
"""

from __future__ import annotations

from pathlib import Path

import engine


def default_book_path(game: str) -> Path:
    """The book that ships with the package for ``game``: ``engine/books/{game}.txt``."""
    return Path(engine.__file__).resolve().parent / "books" / f"{game.lower()}.txt"


def _check_position(game: str | None, line: str) -> None:
    """Parse ``line`` as a position of ``game`` (of any game when None); ValueError if it is not."""
    games = (game,) if game is not None else engine.GAMES
    error: ValueError | None = None
    for name in games:
        try:
            engine.Position.from_fen(name, line)
            return
        except ValueError as e:
            error = error or e
    what = f"a {game}" if game is not None else "a"
    raise ValueError(f"not {what} position string: {error}")


def parse_book(game: str | None, text: str, source: str) -> list[str]:
    """Position strings of a book's ``text``; a malformed line is a ValueError naming ``source:line``."""
    positions: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            _check_position(game, line)
        except ValueError as e:
            raise ValueError(f"{source}:{number}: {e}") from None
        positions.append(line)
    if not positions:
        raise ValueError(f"{source}: the openings book has no positions")
    return positions


def load_book(path: str | Path, game: str | None = None) -> list[str]:
    """Read and validate the book at ``path`` (errors name the file and line).

    With ``game`` every line must be a position of that game; without it, of some game.
    """
    path = Path(path)
    if game is not None and game not in engine.GAMES:
        raise ValueError(f"game: unknown game {game!r}; expected one of {', '.join(engine.GAMES)}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: the openings book is not UTF-8 text") from None
    except OSError as e:
        raise ValueError(f"{path}: cannot read the openings book: {e.strerror or e}") from None
    return parse_book(game, text, str(path))
