"""coordinator.openings: books load, malformed lines are named by file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
from sprt_testkit import book_positions

import engine
from coordinator.openings.book import default_book_path, load_book


def test_load_book_skips_comments_and_blank_lines(tmp_path: Path) -> None:
    positions = book_positions("congress", 3)
    path = tmp_path / "book.txt"
    path.write_text("# a comment\n\n" + positions[0] + "\n   \n" + "\n".join(positions[1:]) + "\n")
    assert load_book(path, "congress") == positions
    assert load_book(path) == positions  # without a game: each line must be some game's position


def test_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("# header\n" + book_positions("congo", 1)[0] + "\nnot a position\n")
    with pytest.raises(ValueError, match=r"bad\.txt:3: not a congo position string") as info:
        load_book(path, "congo")
    assert "\n" not in str(info.value)


def test_position_of_the_other_game_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mixed.txt"
    path.write_text(book_positions("congress", 1)[0] + "\n")
    with pytest.raises(ValueError, match=r"mixed\.txt:1"):
        load_book(path, "congo")


def test_empty_or_missing_book_is_a_value_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n")
    with pytest.raises(ValueError, match="no positions"):
        load_book(empty, "congo")
    with pytest.raises(ValueError, match="cannot read"):
        load_book(tmp_path / "missing.txt", "congo")
    with pytest.raises(ValueError, match="unknown game"):
        load_book(empty, "chess")


@pytest.mark.parametrize("game", engine.GAMES)
def test_default_book_path_is_inside_the_package(game: str) -> None:
    path = default_book_path(game)
    assert path == Path(engine.__file__).resolve().parent / "books" / f"{game}.txt"
    if path.is_file():  # the shipped books, once generated, must load
        assert len(load_book(path, game)) >= 1
