"""Every error path of the Python API (engine.Position), plus its small value semantics.

Errors: an unknown game is a ValueError naming it; a malformed position string is an
InvalidPositionError naming the game, the string and the bad field; a malformed move is an
InvalidMoveError and an illegal one an IllegalMoveError, both naming the move and the position.
All three are ValueError subclasses.
"""

from __future__ import annotations

import pytest

import engine
from engine import IllegalMoveError, InvalidMoveError, InvalidPositionError, Outcome, Position

CONGO_START = "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w"
CONGRESS_START = "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w"
START = {"congo": CONGO_START, "congress": CONGRESS_START}


# --- unknown games --------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["chess", "shogi", "", "congo7", "congress-chess"])
def test_start_unknown_game_is_a_value_error_naming_it(game: str) -> None:
    with pytest.raises(ValueError, match="unknown game") as info:
        Position.start(game)
    assert f'"{game}"' in str(info.value)
    assert "congo" in str(info.value) and "congress" in str(info.value)


@pytest.mark.parametrize("game", ["chess", "", "xiangqi"])
def test_from_fen_unknown_game_is_a_value_error_naming_it(game: str) -> None:
    with pytest.raises(ValueError, match="unknown game") as info:
        Position.from_fen(game, CONGO_START)
    assert f'"{game}"' in str(info.value)


def test_games_are_listed() -> None:
    assert set(engine.GAMES) == {"congo", "congress"}
    for game in engine.GAMES:
        assert Position.start(game).game == game


# --- malformed position strings ---------------------------------------------------------------

MALFORMED = [
    # (game, text, field as named in the message, a phrase the message must contain)
    ("congo", "", "layout", "found 0"),
    ("congo", "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ", "layout", "found 1"),
    ("congo", "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w 0 1", "layout", "found 4"),
    ("congo", "gmelecz/ppppppp/7/7/PPPPPPP/GMELECZ w", "board", "found 6"),
    ("congo", "gmelecz/pppppppp/7/7/7/PPPPPPP/GMELECZ w", "board", "rank 6"),
    ("congo", "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELEC w", "board", "rank 1"),
    ("congo", "gmelecz/ppppppp/7/7/7/PPPPPPP/GMEKECZ w", "board", "'K'"),
    ("congo", "3l2P/7/7/7/7/7/3L3 w", "board", "last rank"),
    ("congo", "3l3/7/7/7/7/7/p2L3 w", "board", "last rank"),
    ("congo", "l6/7/7/7/7/7/3L3 w", "board", "castle"),
    ("congo", "7/7/7/7/7/7/3L3 w", "board", "exactly one lion"),
    ("congo", "2ll3/7/7/7/7/7/3L3 w", "board", "exactly one lion"),
    ("congo", "gmelecz/ppppppp/34/7/7/PPPPPPP/GMELECZ w", "board", "two digits"),
    ("congo", "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ x", "side to move", "'w' or 'b'"),
    ("congo", "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ white", "side to move", "'w' or 'b'"),
    ("congress", "", "layout", "found 0"),
    ("congress", "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w -", "layout", "found 3"),
    ("congress", "hh1kk1bb/1pppppp1/8/1PPPPPP1/HH1KK1BB w", "board", "found 5"),
    ("congress", "hh1kk1bb/1pppppp1/9/8/1PPPPPP1/HH1KK1BB w", "board", "rank 4"),
    ("congress", "hh1kk1b/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w", "board", "rank 6"),
    ("congress", "hh1kq1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w", "board", "'q'"),
    ("congress", "hhkkk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w", "board", "3 kings"),
    ("congress", "hh2bb2/8/8/8/8/HH2BB2 w", "board", "king"),
    ("congress", "hh1kk1bb/1pppppp1/44/8/1PPPPPP1/HH1KK1BB w", "board", "two digits"),
    ("congress", "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB B", "side to move", "'w' or 'b'"),
]


@pytest.mark.parametrize(("game", "text", "field", "phrase"), MALFORMED)
def test_malformed_position_names_game_input_and_field(game: str, text: str, field: str, phrase: str) -> None:
    with pytest.raises(InvalidPositionError) as info:
        Position.from_fen(game, text)
    message = str(info.value)
    assert f"invalid {game} position" in message
    assert f'"{text}"' in message
    assert f"{field} field" in message
    assert phrase in message


def test_error_classes_are_value_errors() -> None:
    for cls in (InvalidPositionError, InvalidMoveError, IllegalMoveError):
        assert issubclass(cls, ValueError)
    assert not issubclass(InvalidMoveError, IllegalMoveError)
    assert not issubclass(IllegalMoveError, InvalidMoveError)
    with pytest.raises(ValueError):
        Position.from_fen("congo", "nonsense")


def test_position_strings_of_one_game_are_rejected_by_the_other() -> None:
    with pytest.raises(InvalidPositionError, match="invalid congo position"):
        Position.from_fen("congo", CONGRESS_START)
    with pytest.raises(InvalidPositionError, match="invalid congress position"):
        Position.from_fen("congress", CONGO_START)


# --- moves --------------------------------------------------------------------------------------

MALFORMED_MOVES = [
    ("congo", ""),
    ("congo", "d2"),
    ("congo", "h1h2"),
    ("congo", "d2d"),
    ("congo", "d2d3d"),
    ("congo", "e2e4!"),
    ("congo", "lion"),
    ("congress", ""),
    ("congress", "b2"),
    ("congress", "a7a6"),
    ("congress", "b2b3b4"),
    ("congress", "b2-b3"),
    ("congress", "i1i2"),
]

ILLEGAL_MOVES = [
    ("congo", "d2d4"),
    ("congo", "d1d7"),
    ("congo", "b1d3f5"),
    ("congo", "d7d6"),
    ("congress", "b2b4"),
    ("congress", "d1e1"),
    ("congress", "b5b4"),
    ("congress", "G1F2"),
]


@pytest.mark.parametrize(("game", "move"), MALFORMED_MOVES)
def test_malformed_move_is_invalid_move_error(game: str, move: str) -> None:
    pos = Position.start(game)
    with pytest.raises(InvalidMoveError) as info:
        pos.play(move)
    assert not isinstance(info.value, IllegalMoveError)
    message = str(info.value)
    assert f'invalid move "{move}"' in message
    assert f'"{START[game]}"' in message
    assert pos.fen() == START[game]  # positions are immutable


@pytest.mark.parametrize(("game", "move"), ILLEGAL_MOVES)
def test_illegal_move_is_illegal_move_error(game: str, move: str) -> None:
    pos = Position.start(game)
    with pytest.raises(IllegalMoveError) as info:
        pos.play(move)
    assert not isinstance(info.value, InvalidMoveError)
    message = str(info.value)
    assert f'illegal move "{move}"' in message
    assert f'"{START[game]}"' in message
    assert pos.fen() == START[game]


def test_move_errors_name_the_current_position_not_the_start() -> None:
    pos = Position.start("congo").play("d2d3")
    with pytest.raises(IllegalMoveError) as info:
        pos.play("d3d4")  # White's pawn, but Black is to move
    assert '"gmelecz/ppppppp/7/7/3P3/PPP1PPP/GMELECZ b"' in str(info.value)


def test_no_move_is_legal_once_the_game_is_over() -> None:
    over = Position.from_fen("congo", "3l3/7/7/7/7/P6/3L3 w").play("d1d7")
    assert over.legal_moves() == []
    with pytest.raises(IllegalMoveError):
        over.play("d7d6")


def test_accepted_move_forms() -> None:
    congo = Position.start("congo")
    assert congo.play("d2-d3") == congo.play("d2d3")
    monkey = Position.from_fen("congo", "3l3/6p/7/3pp2/2Mp3/7/3L3 w")
    assert monkey.play("c3-e3-e5x") == monkey.play("c3e3e5")
    assert "c3e3e5" in monkey.legal_moves()
    congress = Position.start("congress")
    assert congress.play("G1H2") == congress.play("g1h2")


# --- outcomes -----------------------------------------------------------------------------------


def test_outcome_after_a_lion_capture() -> None:
    pos = Position.from_fen("congo", "3l3/7/7/7/7/P6/3L3 w")
    assert pos.outcome() is None
    over = pos.play("d1d7")
    outcome = over.outcome()
    assert isinstance(outcome, Outcome)
    assert (outcome.winner, outcome.reason) == ("white", "lion_captured")
    assert over.turn == "black"
    assert over.perft(1) == 0 and over.perft(3) == 0
    assert "lion_captured" in repr(outcome)


def test_outcome_after_drowning_opens_the_file() -> None:
    pos = Position.from_fen("congo", "7/7/2l4/2Z4/2L4/P6/7 w").play("a2a3")
    assert "c5c3" in pos.legal_moves()
    outcome = pos.play("c5c3").outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == ("black", "lion_captured")


def test_outcome_after_both_kings_are_captured() -> None:
    pos = Position.start("congress")
    for move in ("g1h2", "e5e4", "h2d6"):
        pos = pos.play(move)
    assert pos.fen() == "hh1Hk1bb/1ppp1pp1/4p3/8/1PPPPPP1/HH1KK2B b"
    assert pos.outcome() is None  # one king lost is not the end
    last = Position.from_fen("congress", "3k4/8/8/6B1/8/3K4 w").play("g3d6")
    outcome = last.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == ("white", "kings_captured")
    assert last.legal_moves() == []


def test_outcome_when_the_side_to_move_has_no_move() -> None:
    outcome = Position.from_fen("congress", "3k4/8/8/8/8/K7 w").outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == ("black", "no_legal_move")
    full = "mmmlmmm/mmmmmmm/mmmmmmm/mmmmmmm/MMMMMMM/MMMMMMM/MMLMMMM b"
    outcome = Position.from_fen("congo", full).outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason) == ("white", "no_legal_move")


def test_outcomes_compare_by_value() -> None:
    a = Position.from_fen("congo", "3l3/7/7/7/7/P6/3L3 w").play("d1d7").outcome()
    b = Position.from_fen("congo", "3l3/7/7/7/7/P6/3L3 b").play("d7d1").outcome()
    c = Position.from_fen("congo", "7/7/4l2/7/2L4/P6/7 w").play("c3e5").outcome()
    assert a == c
    assert a != b


# --- value semantics ---------------------------------------------------------------------------


def test_turn_and_game() -> None:
    for game in ("congo", "congress"):
        pos = Position.start(game)
        assert pos.game == game
        assert pos.turn == "white"
        first = pos.legal_moves()[0]
        assert pos.play(first).turn == "black"
        assert pos.play(first).game == game
    assert Position.from_fen("congress", CONGRESS_START[:-1] + "b").turn == "black"


def test_hash_depends_on_position_and_side_to_move() -> None:
    pos = Position.start("congo")
    assert isinstance(pos.hash, int)
    assert pos.hash == Position.from_fen("congo", CONGO_START).hash
    assert pos.hash != Position.from_fen("congo", CONGO_START[:-1] + "b").hash
    assert pos.hash != pos.play("d2d3").hash
    a = pos.play("d2d3").play("d6d5").play("c2c3")
    b = pos.play("c2c3").play("d6d5").play("d2d3")
    assert a.hash == b.hash


def test_equality_and_hashing_of_positions() -> None:
    a = Position.start("congo").play("d2d3").play("d6d5").play("c2c3")
    b = Position.start("congo").play("c2c3").play("d6d5").play("d2d3")
    c = Position.start("congo").play("c2c3")
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert len({a, b, c}) == 2
    assert Position.start("congo") != Position.start("congress")
    assert Position.start("congo") != CONGO_START  # a string is not a position
    assert {Position.start("congress"): 1}[Position.from_fen("congress", CONGRESS_START)] == 1
    # Politician letters are canonical: either letter on any file is the same position.
    swapped = Position.from_fen("congress", "bb1kk1hh/1pppppp1/8/8/1PPPPPP1/BB1KK1HH w")
    assert swapped == Position.start("congress")
    assert swapped.fen() == CONGRESS_START


def test_str_and_repr() -> None:
    pos = Position.start("congress").play("g1h2")
    assert str(pos) == pos.fen()
    assert eval(repr(pos), {"Position": Position}) == pos


def test_positions_are_immutable() -> None:
    pos = Position.start("congo")
    with pytest.raises(AttributeError):
        pos.turn = "black"  # type: ignore[misc]
    pos.play("d2d3")
    assert pos.fen() == CONGO_START


# --- perft --------------------------------------------------------------------------------------

PERFT = [
    ("congo", CONGO_START, [1, 24, 576, 14_332]),
    ("congo", "1melec1/ppppp1p/2g2zp/5C1/2G2ZP/PPPPP1P/1MELE2 b", [1, 33, 1_325]),
    ("congo", "3l3/7/7/7/7/P6/3L3 w", [1, 8, 38, 256]),
    ("congo", "7/7/2l4/2Z4/2L4/P6/7 w", [1, 13, 50, 360]),
    ("congo", "3l3/6p/7/3pp2/2Mp3/7/3L3 w", [1, 18, 230, 2_771]),
    ("congress", CONGRESS_START, [1, 12, 144, 1_854]),
]


@pytest.mark.parametrize(("game", "fen", "counts"), PERFT)
def test_perft_reference_numbers(game: str, fen: str, counts: list[int]) -> None:
    pos = Position.from_fen(game, fen)
    assert [pos.perft(depth) for depth in range(len(counts))] == counts


@pytest.mark.parametrize(("game", "fen", "counts"), PERFT)
def test_divide_sums_to_perft(game: str, fen: str, counts: list[int]) -> None:
    pos = Position.from_fen(game, fen)
    depth = len(counts) - 1
    split = pos.divide(depth)
    assert [move for move, _ in split] == pos.legal_moves()
    assert sum(n for _, n in split) == counts[depth]
    for move, n in split:
        assert pos.play(move).perft(depth - 1) == n
    assert pos.divide(0) == []
    assert all(n == 1 for _, n in pos.divide(1))


def test_congress_first_moves_are_the_documented_twelve() -> None:
    assert sorted(Position.start("congress").legal_moves()) == sorted(
        ["b2b3", "c2c3", "d2d3", "e2e3", "f2f3", "g2g3", "a1b3", "b1a3", "b1c3", "g1h2", "d1c1", "e1f1"]
    )


@pytest.mark.parametrize("depth", [-1, -100, 2**64])
def test_perft_rejects_depths_out_of_range(depth: int) -> None:
    pos = Position.start("congress")
    with pytest.raises((OverflowError, ValueError)):
        pos.perft(depth)
    with pytest.raises((OverflowError, ValueError)):
        pos.divide(depth)
