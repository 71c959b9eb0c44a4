"""The dashboard's game replay and board drawing: positions move by move from the rules core, move
numbers, and an SVG (parsed as XML) with one layer per position, the right pieces and squares."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import engine
from coordinator.board_view import GEOMETRY, board_cells
from coordinator.web.board import PIECES, game_svg
from coordinator.web.replay import move_squares, numbered, replay

SVG = "{http://www.w3.org/2000/svg}"


def played(game: str) -> tuple[str, list[str]]:
    """A real game of ``game`` (the engine against itself at a small node count)."""
    opening = engine.Position.start(game).fen()
    record = engine.play_game(
        game, None, None, opening, engine.Limits(nodes=200), engine.Adjudication(max_plies=60)
    )
    return opening, list(record["moves"])


@pytest.mark.parametrize("game", engine.GAMES)
def test_replay_gives_the_position_after_every_ply(game: str) -> None:
    opening, moves = played(game)
    r = replay(game, opening, moves)
    assert r.error is None and r.plies == len(moves) > 0 and r.moves == moves
    position = engine.Position.from_fen(game, opening)
    assert r.positions[0] == position.fen()
    for ply, move in enumerate(moves, start=1):
        position = position.play(move)
        assert r.positions[ply] == position.fen()


def test_replay_stops_at_an_illegal_move() -> None:
    start = engine.Position.start("congo").fen()
    r = replay("congo", start, ["d2d3", "a1a5", "e6e5"])
    assert r.plies == 1 and r.moves == ["d2d3"]
    assert r.error is not None and r.error.startswith("ply 2 (a1a5):")


def test_move_numbers_and_squares() -> None:
    assert numbered("x w", 5) == [(1, 1, 2), (2, 3, 4), (3, 5, None)]
    assert numbered("x b", 4) == [(1, None, 1), (2, 2, 3), (3, 4, None)]
    assert numbered("x w", 0) == []
    assert move_squares("b1d3f5d7") == ["b1", "d3", "f5", "d7"]
    assert move_squares("b1-d3-f5-d7x") == ["b1", "d3", "f5", "d7"]


@pytest.mark.parametrize("game", engine.GAMES)
def test_board_svg_draws_every_position(game: str) -> None:
    opening, moves = played(game)
    r = replay(game, opening, moves)
    shown = len(moves) // 2
    root = ET.fromstring(game_svg(r, shown))
    width, height = GEOMETRY[game]
    squares = [e for e in root.findall(f"{SVG}rect") if e.get("class") != "edge"]
    assert len(squares) == width * height
    classes = [e.get("class", "").split()[0] for e in squares]
    if game == "congo":
        assert classes.count("river") == 7 and classes.count("castle") == 18
    else:
        assert root.find(f"{SVG}line[@class='wing']") is not None
    layers = root.findall(f"{SVG}g[@class='ply']")
    assert [int(g.get("data-ply", -1)) for g in layers] == list(range(r.plies + 1))
    assert [g.get("display") for g in layers].count("inline") == 1
    assert layers[shown].get("display") == "inline"
    for ply, layer in enumerate(layers):
        fen = r.positions[ply]
        assert layer.get("data-fen") == fen
        pieces = [c for row in board_cells(game, fen) for c in row if c != "."]
        letters = [t.text for t in layer.findall(f"{SVG}text")]
        assert sorted(letters) == sorted(p.upper() for p in pieces)  # type: ignore[type-var]
        assert set(letters) <= set(PIECES[game])
        sides = [c.get("class") for c in layer.findall(f"{SVG}circle")]
        assert sides.count("w") == sum(p.isupper() for p in pieces)
        marked = len(layer.findall(f"{SVG}rect[@class='mark']"))
        assert marked == (len(move_squares(r.moves[ply - 1])) if ply else 0)
