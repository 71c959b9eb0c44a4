"""engine.GameJudge: a game judged move by move ends exactly where replay_game ends it."""

from __future__ import annotations

import random
from typing import Any

import pytest
from referee_testkit import START

import engine

CHAIN = "2l4/4p2/7/4p2/7/2p4/1M1L3 w"  # the monkey on b1 can jump c2, e4 and e6 in one move


def test_legal_moves_are_played_and_named_compactly() -> None:
    judge = engine.GameJudge("congo", START["congo"])
    assert (judge.turn, judge.plies, judge.end()) == ("white", 0, None)
    assert judge.check("d2d3") == "d2d3"
    assert judge.plies == 0, "check plays nothing"
    assert judge.play("d2d3") == "d2d3"
    assert (judge.turn, judge.plies) == ("black", 1)
    assert judge.fen() == engine.Position.start("congo").play("d2d3").fen()
    assert judge.position() == engine.Position.start("congo").play("d2d3")
    assert judge.opening == START["congo"]


@pytest.mark.parametrize("text", ["xyz", "D2D3", "d2-d3", "d2d3 ", "d2", "d2d9", ""])
def test_text_that_is_not_compact_notation_is_invalid(text: str) -> None:
    judge = engine.GameJudge("congo", START["congo"])
    with pytest.raises(engine.InvalidMoveError, match="compact notation"):
        judge.play(text)
    assert judge.plies == 0


def test_a_well_formed_illegal_move_is_illegal_and_named() -> None:
    judge = engine.GameJudge("congress", START["congress"])
    with pytest.raises(engine.IllegalMoveError, match='illegal move "d2d5"'):
        judge.play("d2d5")
    with pytest.raises(ValueError, match="b5b4"):
        judge.check("b5b4")  # black's move, white to move


def test_a_monkey_chain_is_one_move() -> None:
    judge = engine.GameJudge("congo", CHAIN)
    assert judge.play("b1d3f5d7") == "b1d3f5d7"
    assert judge.plies == 1
    assert judge.fen() == "2lM3/7/7/7/7/7/3L3 b"
    judge = engine.GameJudge("congo", CHAIN)
    assert judge.play("b1d3f5d7b7") == "b1d3f5d7b7"  # the last jump takes the lion
    assert judge.end() == ("1-0", "lion_captured")


def test_ply_limit() -> None:
    judge = engine.GameJudge("congress", START["congress"], engine.Adjudication(max_plies=2))
    judge.play("b2b3")
    assert judge.end() is None
    judge.play("b5b4")
    assert judge.end() == ("1/2-1/2", "ply_limit")
    with pytest.raises(ValueError, match="ended"):
        judge.play("c2c3")


def test_threefold_repetition_only_when_adjudicated() -> None:
    shuffle = ["c1c2", "e7e6", "c2c1", "e6e7"] * 2
    lions = "4l2/7/7/7/7/7/2L4 w"
    judged = engine.GameJudge("congo", lions, engine.Adjudication(repetition=True))
    plain = engine.GameJudge("congo", lions)
    for move in shuffle:
        assert judged.end() is None
        judged.play(move)
        plain.play(move)
    assert judged.end() == ("1/2-1/2", "repetition")
    assert plain.end() is None


def test_bare_lions() -> None:
    assert engine.GameJudge("congo", "4l2/7/7/7/7/7/2L4 w", engine.Adjudication(bare_lions=True)).end() == (
        "1/2-1/2",
        "bare_lions",
    )
    # Facing lions on a file: the side to move can capture, so not yet a draw.
    assert (
        engine.GameJudge("congo", "3l3/7/7/7/7/7/3L3 w", engine.Adjudication(bare_lions=True)).end() is None
    )
    # A capture that leaves the lions bare ends the game at once.
    judge = engine.GameJudge("congo", "4l2/7/7/7/7/2p4/2L4 w", engine.Adjudication(bare_lions=True))
    assert judge.end() is None
    judge.play("c1c2")
    assert judge.end() == ("1/2-1/2", "bare_lions")


def test_no_legal_move_at_the_opening() -> None:
    # White's only piece, a king on a1 of the left wing, cannot move.
    judge = engine.GameJudge("congress", "3kk3/8/8/8/8/K7 w")
    assert judge.end() == ("0-1", "no_legal_move")


def test_bad_arguments_raise_value_errors() -> None:
    with pytest.raises(engine.InvalidPositionError):
        engine.GameJudge("congo", "not a position")
    with pytest.raises(ValueError, match="unknown game"):
        engine.GameJudge("chess", START["congo"])
    with pytest.raises(TypeError):
        engine.GameJudge("congo", START["congo"], {"max_plies": 3})  # type: ignore[arg-type]


SPARSE = {
    "congo": [
        START["congo"],
        "4l2/7/7/7/7/7/2L4 w",
        "1z1l3/7/7/7/7/7/3L1Z1 w",
        "2l4/1e5/7/7/7/5E1/4L2 b",
        CHAIN,
    ],
    "congress": [START["congress"], "hh1kk3/8/8/8/8/HH1KK3 w", "3kk1bb/1p6/8/8/6P1/3KK1BB b"],
}
ADJUDICATION: dict[str, Any] = {
    "max_plies": 120,
    "repetition": True,
    "bare_lions": True,
    "resign_score": 500,
    "resign_plies": 4,
}


@pytest.mark.parametrize("game", ["congo", "congress"])
def test_random_playouts_end_where_replay_game_ends_them(game: str) -> None:
    rng = random.Random(f"judge:{game}")
    ends: set[str] = set()
    for i in range(160):
        opening = SPARSE[game][i % len(SPARSE[game])]
        settings = {**ADJUDICATION, "max_plies": 20 + i % 100, "bare_lions": i % 3 == 1} if i % 3 else {}
        adjudication = engine.Adjudication(**settings)
        judge = engine.GameJudge(game, opening, adjudication)
        position = engine.Position.from_fen(game, opening)
        moves: list[str] = []
        while judge.end() is None and len(moves) < 150:
            move = rng.choice(position.legal_moves())
            assert judge.play(move) == move
            position = position.play(move)
            moves.append(move)
            assert judge.fen() == position.fen()
        replayed = engine.replay_game(game, opening, moves, adjudication)
        end = judge.end()
        assert (replayed["result"], replayed["reason"]) == (end or (None, None)), (opening, moves)
        assert replayed["plies"] == judge.plies == len(moves)
        ends.add(end[1] if end else "none")
    assert {"ply_limit", "no_legal_move" if game == "congress" else "repetition"} <= ends, ends


def test_resignation_needs_both_engines_to_agree_for_the_plies_asked() -> None:
    judge = engine.GameJudge("congo", START["congo"], engine.Adjudication(resign_score=400, resign_plies=3))
    moves = iter(["a2a3", "a6a5", "b2b3", "b6b5", "c2c3", "c6c5", "d2d3"])

    def searched(score: int | None) -> str | None:
        result = judge.searched(score)
        if result is None:
            judge.play(next(moves))
        return result

    assert searched(-500) is None  # white is lost by its own word; black has said nothing yet
    assert searched(450) is None  # agree: 1
    assert searched(-420) is None  # agree: 2
    assert searched(None) is None  # no score: the streak is broken
    assert searched(-420) is None
    assert searched(engine.MATE_SCORE - 5) is None  # agree: 1 (a mate for black)
    assert searched(-(engine.MATE_SCORE - 4)) is None  # agree: 2
    assert searched(401) == "0-1"  # agree: 3, black is ahead
    assert judge.end() == ("0-1", "resign")
    assert engine.GameJudge("congo", START["congo"]).searched(-10_000) is None  # no resign rule
