"""Reference data copied from the rules pages, shared by the oracle and engine tests."""

from __future__ import annotations

CONGO_START = "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w"
CONGO_SECOND = "1melec1/ppppp1p/2g2zp/5C1/2G2ZP/PPPPP1P/1MELE2 b"
CONGO_START_PERFT = [24, 576, 14_332, 356_456, 9_404_326, 247_900_251]
CONGO_SECOND_PERFT = [33, 1_325, 44_701, 1_779_478, 59_428_257]

# (position, [perft d1, d2, d3]) from "Positions that isolate one rule each".
CONGO_ISOLATING = [
    ("3l3/7/7/7/7/P6/3L3 w", [8, 38, 256]),  # facing lions on a file
    ("7/7/4l2/7/2L4/P6/7 w", [6, 17, 109]),  # facing lions on a diagonal
    ("7/7/2l4/2Z4/2L4/P6/7 w", [13, 50, 360]),  # drowning opens the file
    ("3l3/7/P5S/2P4/7/7/3L3 w", [20, 109, 1_662]),  # pawns, river, superpawn
    ("3l3/7/3p3/2p4/1G5/7/3L3 w", [16, 158, 2_586]),  # giraffe
    ("3l3/6p/7/3pp2/2Mp3/7/3L3 w", [18, 230, 2_771]),  # monkey chains
]
CONGO_REFERENCE = [CONGO_START, CONGO_SECOND] + [fen for fen, _ in CONGO_ISOLATING]

CONGRESS_START = "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w"
CONGRESS_START_PERFT = [12, 144, 1_854, 23_966, 327_346, 4_479_282, 63_438_398]
CONGRESS_FIRST_MOVES = {
    "b2b3", "c2c3", "d2d3", "e2e3", "f2f3", "g2g3",
    "a1b3", "b1a3", "b1c3", "g1h2", "d1c1", "e1f1",
}  # fmt: skip
CONGRESS_TRAP = ["g1h2", "e5e4", "h2d6"]
CONGRESS_TRAP_POSITION = "hh1kk1bb/1ppp1pp1/4p3/8/1PPPPPPB/HH1KK2B w"  # before h2d6
CONGRESS_REFERENCE = [CONGRESS_START, CONGRESS_TRAP_POSITION]

CONGO_EVENTS = {
    "capture", "monkey_chain", "monkey_jump", "drowning", "facing_lions",
    "promotion", "lion_captured", "crocodile_slide", "pawn_retreat", "superpawn_move",
}  # fmt: skip
CONGRESS_EVENTS = {
    "capture", "wing_change", "senior_capture",
    "king_captured", "kings_captured", "king_move",
}  # fmt: skip

CONGO_MALFORMED = [
    "",
    "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ",  # no side to move
    "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ x",  # bad side
    "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w extra",  # extra field
    "gmelecz/ppppppp/7/7/PPPPPPP/GMELECZ w",  # 6 ranks
    "gmelecz/ppppppp/7/7/7/7/PPPPPPP/GMELECZ w",  # 8 ranks
    "gmelecz/pppppppp/7/7/7/PPPPPPP/GMELECZ w",  # rank too long
    "gmelecz/pppppp/7/7/7/PPPPPPP/GMELECZ w",  # rank too short
    "gmelecz/ppppppp/8/7/7/PPPPPPP/GMELECZ w",  # run too long
    "gmelecz/ppppppp/7/7/7/PPPPPPP/GMEKECZ w",  # unknown letter
    "gmelecz/ppppppp/7/7/7/PPPPPPP/GMEEECZ w",  # White has no lion
    "gmelecz/ppppppp/7/7/7/PPPPPPP/GMLLECZ w",  # White has two lions
    "gmelecz/ppppppp/7/7/7/PPPPPPP/GLEMECZ w",  # White lion outside its castle
    "gmeMecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w",  # Black has no lion
    "gmelecz/ppppppp/7/3l3/7/PPPPPPP/GMELECZ w",  # second black lion, in the river
    "gmelecP/ppppppp/7/7/7/PPPPPPP/GMELECZ w",  # White pawn on its last rank
    "gmelecz/ppppppp/7/7/7/PPPPPPP/pMELECZ w",  # Black pawn on its last rank
]
# Rejected by the oracle as a literal reading; the page does not say it outright.
CONGO_MALFORMED_BY_READING = [
    "gmelecz/ppppppp/34/7/7/PPPPPPP/GMELECZ w",  # two digits for one run
    "gmelecz/ppppppp/07/7/7/PPPPPPP/GMELECZ w",  # zero-length run
]

CONGRESS_MALFORMED = [
    "",
    "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB",  # no side to move
    "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB W",  # bad side
    "hh1kk1bb/1pppppp1/8/1PPPPPP1/HH1KK1BB w",  # 5 ranks
    "hh1kk1bb/1pppppp1/8/8/8/1PPPPPP1/HH1KK1BB w",  # 7 ranks
    "hh1kk1bb/1pppppp1/9/8/1PPPPPP1/HH1KK1BB w",  # run too long
    "hh1kk1bbb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w",  # rank too long
    "hh1kk1b/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w",  # rank too short
    "hh1kq1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w",  # unknown letter
    "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w 1",  # extra field
]
CONGRESS_MALFORMED_BY_READING = [
    "hh1kk1bb/1pppppp1/44/8/1PPPPPP1/HH1KK1BB w",  # two digits for one run
    "hh2bb2/8/8/8/8/HH2BB2 w",  # no king on either side
]

# Small hand-made positions, one ruling each (not from the rules pages' tables; their
# expected behaviour is spelled out in tests/oracle_tests/test_oracle_reference.py).
CONGO_STUCK = "MMMlMMM/MMMMMMM/MMMMMMM/MMMMMMM/MMMMMMM/MMMMMMM/MMLMMMM w"  # White has no move
CONGO_RULINGS = [
    "3l3/7/7/3P3/7/7/3L3 w",  # a river piece blocks facing lions
    "3l3/7/7/1Ep4/7/7/3L3 w",  # moving within the river drowns, the capture stands
    "3l3/7/7/2p4/1E5/7/3L3 w",  # entering the river: may stay one turn
    "3l3/7/1pp4/M6/7/7/3L3 w",  # monkey starting in the river drowns even after land
    "3l3/7/7/7/1p5/M6/3L3 w",  # a piece is never jumped twice
    "7/2p4/3l3/2M4/7/7/3L3 w",  # jumping the lion ends the chain
    "3l3/7/7/7/7/7/2LC3 w",  # crocodile slides toward the river only
    "3l3/7/3C3/7/7/7/3L3 w",  # ... on the far half too
    "3l3/7/7/C2p2c/7/7/3L3 w",  # crocodile slides along the river, captures first piece
    "3l3/P6/7/7/7/7/3L3 w",  # promotion
    "3l3/1S5/7/7/7/7/3L3 w",  # superpawn retreats straight and diagonally back
    CONGO_STUCK,
]
CONGRESS_RULINGS = [
    "k6k/8/8/8/8/K2K4 w",  # kings move outward only (left wing)
    "k6k/8/8/8/8/4K2K w",  # kings move outward only (right wing)
    "k6k/8/8/8/8/K1K5 w",  # direction from the wing, even with both kings on one wing
    "P6k/8/8/8/8/3KK3 w",  # a pawn on the last rank is stuck
    "3k4/8/5B2/4p3/8/K7 w",  # senior bishop: backward captures only
    "3k4/8/8/5B2/4p3/K7 w",  # junior bishop: no backward capture
    "3k4/2H5/8/3p4/8/K7 w",  # senior horse: backward knight captures only
    "8/8/8/8/k7/1P1K4 w",  # capturing the last king
    "8/8/8/8/8/K6k w",  # no legal move
]
