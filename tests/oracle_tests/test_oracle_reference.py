"""The rules oracle reproduces the rules pages' reference numbers and rulings."""

from __future__ import annotations

import pytest
from rules_oracle import congo, congress, playouts
from rules_oracle import reference as ref

CONGO_SECOND = ref.CONGO_SECOND
CONGO_ISOLATING = ref.CONGO_ISOLATING
CONGO_START_NUMBERS = ref.CONGO_START_PERFT[:4]
CONGO_SECOND_NUMBERS = ref.CONGO_SECOND_PERFT[:4]
CONGRESS_START_NUMBERS = ref.CONGRESS_START_PERFT[:5]
CONGO_REFERENCE = ref.CONGO_REFERENCE
CONGRESS_REFERENCE = ref.CONGRESS_REFERENCE

# A board full of white monkeys: White has no move (no empty square to step or land on).
CONGO_STUCK = ref.CONGO_STUCK


# ---------------------------------------------------------------- reference perft


@pytest.mark.parametrize("depth", [1, 2, 3, pytest.param(4, marks=pytest.mark.slow)])
def test_congo_start_perft(depth: int) -> None:
    assert congo.perft(congo.parse(congo.START), depth) == CONGO_START_NUMBERS[depth - 1]


@pytest.mark.parametrize("depth", [1, 2, 3, pytest.param(4, marks=pytest.mark.slow)])
def test_congo_second_row_perft(depth: int) -> None:
    assert congo.perft(congo.parse(CONGO_SECOND), depth) == CONGO_SECOND_NUMBERS[depth - 1]


@pytest.mark.parametrize(("position", "numbers"), CONGO_ISOLATING)
def test_congo_isolating_perft(position: str, numbers: list[int]) -> None:
    state = congo.parse(position)
    assert [congo.perft(state, depth) for depth in (1, 2, 3)] == numbers


@pytest.mark.parametrize("depth", [1, 2, 3, 4, pytest.param(5, marks=pytest.mark.slow)])
def test_congress_start_perft(depth: int) -> None:
    assert congress.perft(congress.parse(congress.START), depth) == CONGRESS_START_NUMBERS[depth - 1]


def test_start_constants_match_the_rules_pages() -> None:
    assert congo.START == ref.CONGO_START
    assert congress.START == ref.CONGRESS_START


def test_congo_start_moves() -> None:
    moves = congo.legal_moves(congo.parse(congo.START))
    assert len(moves) == 24
    assert "d2d3" in moves and "g1f3" in moves and "a1a3" in moves


def test_congress_twelve_first_moves() -> None:
    moves = congress.legal_moves(congress.parse(congress.START))
    assert len(moves) == 12
    assert set(moves) == ref.CONGRESS_FIRST_MOVES


def test_congress_trap_line_takes_a_king_on_ply_three() -> None:
    state = congress.parse(congress.START)
    state = congress.play(state, "g1h2")
    state = congress.play(state, "e5e4")
    assert "h2d6" in congress.legal_moves(state)
    events = congress.move_events(state, "h2d6")
    assert {"capture", "king_captured", "wing_change"} <= events
    assert "kings_captured" not in events
    state = congress.play(state, "h2d6")
    assert congress.fen(state) == "hh1Hk1bb/1ppp1pp1/4p3/8/1PPPPPP1/HH1KK2B b"
    assert congress.king_count(state.board, "b") == 1
    assert congress.outcome(state) is None  # losing one king does not end the game


# ---------------------------------------------------------------- notation


@pytest.mark.parametrize("position", [*CONGO_REFERENCE, CONGO_STUCK])
def test_congo_round_trip(position: str) -> None:
    assert congo.fen(congo.parse(position)) == position


@pytest.mark.parametrize("position", CONGRESS_REFERENCE)
def test_congress_round_trip(position: str) -> None:
    assert congress.fen(congress.parse(position)) == position


def test_congress_politician_letter_follows_the_file() -> None:
    swapped = "bb1kk1hh/1pppppp1/8/8/1PPPPPP1/BB1KK1HH w"
    assert congress.fen(congress.parse(swapped)) == congress.START


def test_round_trip_over_random_positions() -> None:
    for game, starts in ((congo, CONGO_REFERENCE), (congress, [congress.START])):
        games = playouts.random_games(game, starts, seed=7, min_positions=300)
        checked = 0
        for recorded in games:
            for ply in recorded.plies:
                assert game.fen(game.parse(ply.fen)) == ply.fen
                assert game.mirror(game.mirror(ply.fen)) == ply.fen
                checked += 1
        assert checked >= 250


@pytest.mark.parametrize("text", ref.CONGO_MALFORMED + ref.CONGO_MALFORMED_BY_READING)
def test_congo_malformed_rejected(text: str) -> None:
    with pytest.raises(ValueError):
        congo.parse(text)


@pytest.mark.parametrize("text", ref.CONGRESS_MALFORMED + ref.CONGRESS_MALFORMED_BY_READING)
def test_congress_malformed_rejected(text: str) -> None:
    with pytest.raises(ValueError):
        congress.parse(text)


def test_illegal_and_malformed_moves_rejected() -> None:
    congo_start = congo.parse(congo.START)
    congress_start = congress.parse(congress.START)
    for bad in ["d2d5", "d1d2", "a1", "", "zz99", "d2d3d4", "h1h2"]:
        with pytest.raises(ValueError):
            congo.play(congo_start, bad)
    for bad in ["b2b4", "d1e1", "a1a2", "", "b2", "i1i2", "g1h2h3"]:
        with pytest.raises(ValueError):
            congress.play(congress_start, bad)


def test_move_forms_accepted() -> None:
    state = congo.parse("3l3/6p/7/3pp2/2Mp3/7/3L3 w")
    compact = congo.fen(congo.play(state, "c3e3e5c3"))
    assert congo.fen(congo.play(state, "c3-e3-e5-c3x")) == compact
    assert congo.fen(congo.play(state, "C3E3E5C3")) == compact
    start = congress.parse(congress.START)
    assert congress.fen(congress.play(start, "G1H2")) == congress.fen(congress.play(start, "g1h2"))


# ---------------------------------------------------------------- mirror symmetry


@pytest.mark.parametrize("position", CONGO_REFERENCE)
def test_congo_mirror_symmetry(position: str) -> None:
    mirrored = congo.mirror(position)
    assert mirrored != position
    assert congo.mirror(mirrored) == position
    for depth in (1, 2, 3):
        assert congo.perft(congo.parse(mirrored), depth) == congo.perft(congo.parse(position), depth)


@pytest.mark.parametrize("position", CONGRESS_REFERENCE)
def test_congress_mirror_symmetry(position: str) -> None:
    mirrored = congress.mirror(position)
    assert mirrored != position
    assert congress.mirror(mirrored) == position
    for depth in (1, 2, 3, 4):
        assert congress.perft(congress.parse(mirrored), depth) == congress.perft(
            congress.parse(position), depth
        )


def test_mirror_of_start_positions() -> None:
    assert congo.mirror(congo.START) == "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ b"
    assert congress.mirror(congress.START) == "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB b"


# ---------------------------------------------------------------- Congo rulings


def test_facing_lions_on_file_and_diagonal() -> None:
    file_state = congo.parse("3l3/7/7/7/7/P6/3L3 w")
    assert "d1d7" in congo.legal_moves(file_state)
    assert {"facing_lions", "lion_captured", "capture"} <= congo.move_events(file_state, "d1d7")
    after = congo.play(file_state, "d1d7")
    assert congo.outcome(after) == ("white", "lion_captured")
    assert congo.legal_moves(after) == []
    assert congo.perft(after, 2) == 0
    diagonal = congo.parse("7/7/4l2/7/2L4/P6/7 w")
    assert "c3e5" in congo.legal_moves(diagonal)
    blocked = congo.parse("3l3/7/7/3P3/7/7/3L3 w")  # a river piece blocks the file
    assert "d1d7" not in congo.legal_moves(blocked)


def test_drowning_opens_the_file() -> None:
    state = congo.parse("7/7/2l4/2Z4/2L4/P6/7 w")
    assert "drowning" in congo.move_events(state, "a2a3")
    after = congo.play(state, "a2a3")
    assert congo.fen(after) == "7/7/2l4/7/P1L4/7/7 b"
    assert "c5c3" in congo.legal_moves(after)
    # the zebra leaving the river does not drown
    assert "drowning" not in congo.move_events(state, "c4e5")


def test_piece_moving_within_the_river_drowns_but_its_capture_stands() -> None:
    state = congo.parse("3l3/7/7/1Ep4/7/7/3L3 w")
    assert "b4c4" in congo.legal_moves(state)
    events = congo.move_events(state, "b4c4")
    assert {"capture", "drowning"} <= events
    assert congo.fen(congo.play(state, "b4c4")) == "3l3/7/7/7/7/7/3L3 b"
    # entering the river from land: may stay one turn
    entering = congo.parse("3l3/7/7/2p4/1E5/7/3L3 w")
    assert congo.fen(congo.play(entering, "b3b4")) == "3l3/7/7/1Ep4/7/7/3L3 b"
    # pieces of the other side are never removed on this turn
    assert congo.fen(congo.play(entering, "d1c1")) == "3l3/7/7/2p4/1E5/7/2L4 b"


def test_monkey_starting_in_the_river_drowns_even_after_visiting_land() -> None:
    # White monkey a4 jumps b5 -> c6, then c5 -> c4 (back into the river).
    state = congo.parse("3l3/7/1pp4/M6/7/7/3L3 w")
    moves = congo.legal_moves(state)
    assert "a4c6c4" in moves
    events = congo.move_events(state, "a4c6c4")
    assert {"monkey_chain", "monkey_jump", "capture", "drowning"} <= events
    assert congo.fen(congo.play(state, "a4c6c4")) == "3l3/7/7/7/7/7/3L3 b"
    # stopping on land after the first jump: no drowning
    assert congo.fen(congo.play(state, "a4c6")) == "3l3/2M4/2p4/7/7/7/3L3 b"


def test_monkey_chain_may_return_to_its_start_and_orders_differ() -> None:
    state = congo.parse("3l3/6p/7/3pp2/2Mp3/7/3L3 w")
    moves = congo.legal_moves(state)
    assert "c3e3e5c3" in moves and "c3e5e3c3" in moves
    assert congo.fen(congo.play(state, "c3e3e5c3")) == congo.fen(congo.play(state, "c3e5e3c3"))
    # every prefix is a move
    assert "c3e3" in moves and "c3e3e5" in moves
    # the monkey never captures by stepping
    assert "c3d3" not in moves and "c3d4" not in moves


def test_monkey_cannot_land_on_a_jumped_piece_or_jump_it_twice() -> None:
    # a2 monkey: jump b3 -> c4, then jump b3 again back to a2 is forbidden.
    state = congo.parse("3l3/7/7/7/1p5/M6/3L3 w")
    moves = congo.legal_moves(state)
    assert "a2c4" in moves
    assert all(not m.startswith("a2c4a2") for m in moves)


def test_jumping_the_lion_ends_the_chain() -> None:
    state = congo.parse("7/2p4/3l3/2M4/7/7/3L3 w")  # c4 jumps d5 (lion) to e6
    moves = congo.legal_moves(state)
    assert "c4e6" in moves
    assert all(not m.startswith("c4e6") or m == "c4e6" for m in moves)
    events = congo.move_events(state, "c4e6")
    assert "lion_captured" in events and "drowning" not in events
    assert congo.outcome(congo.play(state, "c4e6")) == ("white", "lion_captured")


def test_crocodile_slides_toward_the_river_only() -> None:
    state = congo.parse("3l3/7/7/7/7/7/2LC3 w")  # crocodile d1
    moves = congo.legal_moves(state)
    assert {"d1d2", "d1d3", "d1d4"} <= set(moves)
    assert "d1d5" not in moves
    assert "crocodile_slide" in congo.move_events(state, "d1d4")
    assert "crocodile_slide" not in congo.move_events(state, "d1d2")
    # the crocodile never drowns
    after = congo.play(state, "d1d4")
    after = congo.play(after, "d7e7")
    assert congo.fen(congo.play(after, "d4g4")) == "4l2/7/7/6C/7/7/2L4 b"
    # black half: slides down toward the river, not up
    black_half = congo.parse("3l3/7/3C3/7/7/7/3L3 w")
    moves = congo.legal_moves(black_half)
    assert "d5d4" in moves and "d5d7" not in moves and "d5d3" not in moves
    assert "d5d6" in moves  # one-square step is always allowed


def test_pawns_retreat_only_across_the_river_and_promote() -> None:
    state = congo.parse("3l3/7/P5S/2P4/7/7/3L3 w")
    moves = congo.legal_moves(state)
    assert {"a5a4", "a5a3"} <= set(moves)
    assert "pawn_retreat" in congo.move_events(state, "a5a3")
    assert not any(m.startswith("c4c3") or m == "c4c2" for m in moves)  # in the river: not across
    assert {"g5g4", "g5g3", "g5f4", "g5e3", "g5f5"} <= set(moves)  # superpawn retreats / sideways
    assert "superpawn_move" in congo.move_events(state, "g5f4")
    promoting = congo.parse("3l3/P6/7/7/7/7/3L3 w")
    assert "promotion" in congo.move_events(promoting, "a6a7")
    assert congo.fen(congo.play(promoting, "a6a7")) == "S2l3/7/7/7/7/7/3L3 b"


def test_giraffe_step_never_captures() -> None:
    state = congo.parse("3l3/7/3p3/2p4/1G5/7/3L3 w")
    moves = congo.legal_moves(state)
    assert "b3c4" not in moves  # step onto an enemy
    assert "b3d5" in moves  # leap capture
    assert "b3b4" in moves  # step onto empty


def test_no_legal_move_loses() -> None:
    state = congo.parse(CONGO_STUCK)
    assert congo.legal_moves(state) == []
    assert congo.outcome(state) == ("black", "no_legal_move")
    mirrored = congo.parse(congo.mirror(CONGO_STUCK))
    assert congo.outcome(mirrored) == ("white", "no_legal_move")


# ---------------------------------------------------------------- Congress rulings


def test_congress_kings_move_outward_only() -> None:
    left = congress.parse("k6k/8/8/8/8/K2K4 w")  # a1 has no move, d1 goes to c1
    assert congress.legal_moves(left) == ["d1c1"]
    assert congress.move_events(left, "d1c1") == {"king_move"}
    right = congress.parse("k6k/8/8/8/8/4K2K w")  # e1 goes to f1, h1 has no move
    assert congress.legal_moves(right) == ["e1f1"]
    # the direction comes from the wing, not from where the other king stands:
    # c1 moves toward a even though the other king is on a1
    both_left = congress.parse("k6k/8/8/8/8/K1K5 w")
    assert congress.legal_moves(both_left) == ["c1b1"]


def test_congress_pawn_on_last_rank_is_stuck() -> None:
    state = congress.parse("P6k/8/8/8/8/3KK3 w")
    assert "a6a7" not in congress.legal_moves(state)
    assert sorted(congress.legal_moves(state)) == ["d1c1", "e1f1"]


def test_congress_senior_politicians_capture_backward_only() -> None:
    # White bishop on f4 (senior): backward diagonal capture of e3 pawn only.
    state = congress.parse("3k4/8/5B2/4p3/8/K7 w")
    moves = set(congress.legal_moves(state))
    assert "f4e3" in moves
    assert "f4g3" not in moves and "f4h2" not in moves  # backward moves need a capture
    assert congress.move_events(state, "f4e3") == {"senior_capture", "capture"}
    # the same bishop as a junior (f3) has no backward capture
    junior = congress.parse("3k4/8/8/8/5B2/K3p3 w")
    assert "f3e2" not in congress.legal_moves(junior)
    # senior horse on c5: backward knight capture of d3, no backward quiet move
    horse = congress.parse("3k4/2H5/8/3p4/8/K7 w")
    moves = set(congress.legal_moves(horse))
    assert "c5d3" in moves and "c5b3" not in moves
    assert "senior_capture" in congress.move_events(horse, "c5d3")


def test_congress_last_king_ends_the_game() -> None:
    state = congress.parse("8/8/8/8/k7/1P1K4 w")
    assert congress.outcome(state) is None
    assert "b1a2" in congress.legal_moves(state)
    events = congress.move_events(state, "b1a2")
    assert {"king_captured", "kings_captured"} <= events
    after = congress.play(state, "b1a2")
    assert congress.outcome(after) == ("white", "kings_captured")
    assert congress.legal_moves(after) == []


def test_congress_no_legal_move_loses() -> None:
    state = congress.parse("8/8/8/8/8/K6k w")  # a1 king has no move
    assert congress.legal_moves(state) == []
    assert congress.outcome(state) == ("black", "no_legal_move")


# ---------------------------------------------------------------- playout coverage


def test_capture_biased_playouts_cover_every_event() -> None:
    congo_games = playouts.random_games(congo, CONGO_REFERENCE, seed=1, min_positions=1000)
    assert playouts.all_events(congo_games) == ref.CONGO_EVENTS
    congress_games = playouts.random_games(congress, [congress.START], seed=1, min_positions=1000)
    assert playouts.all_events(congress_games) == ref.CONGRESS_EVENTS
    reasons = {g.final_outcome[1] for g in congress_games if g.final_outcome}
    assert reasons == {"kings_captured", "no_legal_move"}


@pytest.mark.parametrize("position", ref.CONGO_RULINGS + ref.CONGRESS_RULINGS)
def test_ruling_positions_round_trip_and_mirror(position: str) -> None:
    game = congo if position in ref.CONGO_RULINGS else congress
    state = game.parse(position)
    assert game.fen(state) == position
    mirrored = game.parse(game.mirror(position))
    for depth in (1, 2, 3):
        assert game.perft(mirrored, depth) == game.perft(state, depth)
