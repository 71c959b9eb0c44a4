//! Precomputed attack tables for the 7x7 Congo board, built at compile time.

use crate::bitboard::Bitboard;
use crate::tables;
use crate::types::Color;

pub const W: i8 = 7;
pub const H: i8 = 7;
pub const SQUARES: usize = 49;

/// The eight step directions as (file, rank) deltas; index is a jump direction code.
pub const DIRS: [(i8, i8); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT_DELTAS: [(i8, i8); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];

pub const RIVER_RANK: i8 = 3;
pub const RIVER: Bitboard = tables::ranks(W as u32, 3, 4);
pub const ALL: Bitboard = tables::ranks(W as u32, 0, H as u32);

const fn offset(sq: usize, df: i8, dr: i8) -> Option<usize> {
    tables::offset(W, H, sq, df, dr)
}

const fn leaper(deltas: &[(i8, i8)], scale: i8) -> [Bitboard; SQUARES] {
    tables::leaper(W, H, deltas, scale, scale)
}

const fn elephant() -> [Bitboard; SQUARES] {
    let one = leaper(&[(1, 0), (-1, 0), (0, 1), (0, -1)], 1);
    let two = leaper(&[(1, 0), (-1, 0), (0, 1), (0, -1)], 2);
    let mut out = [Bitboard(0); SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        out[sq] = Bitboard(one[sq].0 | two[sq].0);
        sq += 1;
    }
    out
}

/// Forward step squares (straight and both diagonals) per colour.
const fn pawn_forward() -> [[Bitboard; SQUARES]; 2] {
    [leaper(&[(0, 1), (1, 1), (-1, 1)], 1), leaper(&[(0, -1), (1, -1), (-1, -1)], 1)]
}

/// For each square and direction: the square stepped over and the landing square of a jump.
const fn jumps() -> [[(u8, u8); 8]; SQUARES] {
    let mut out = [[(u8::MAX, u8::MAX); 8]; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let mut d = 0;
        while d < 8 {
            if let (Some(over), Some(land)) =
                (offset(sq, DIRS[d].0, DIRS[d].1), offset(sq, 2 * DIRS[d].0, 2 * DIRS[d].1))
            {
                out[sq][d] = (over as u8, land as u8);
            }
            d += 1;
        }
        sq += 1;
    }
    out
}

/// Single steps in one direction: `STEP[dir][sq]` is the neighbour or `u8::MAX`.
const fn steps() -> [[u8; SQUARES]; 8] {
    let mut out = [[u8::MAX; SQUARES]; 8];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < SQUARES {
            if let Some(t) = offset(sq, DIRS[d].0, DIRS[d].1) {
                out[d][sq] = t as u8;
            }
            sq += 1;
        }
        d += 1;
    }
    out
}

const fn castle(rank0: usize) -> Bitboard {
    let mut bits = 0u64;
    let mut r = rank0;
    while r < rank0 + 3 {
        let mut f = 2;
        while f < 5 {
            bits |= 1 << (r * 7 + f);
            f += 1;
        }
        r += 1;
    }
    Bitboard(bits)
}

pub static KING: [Bitboard; SQUARES] = leaper(&DIRS, 1);
pub static KNIGHT: [Bitboard; SQUARES] = leaper(&KNIGHT_DELTAS, 1);
pub static ELEPHANT: [Bitboard; SQUARES] = elephant();
pub static GIRAFFE_LEAP: [Bitboard; SQUARES] = leaper(&DIRS, 2);
pub static PAWN_FORWARD: [[Bitboard; SQUARES]; 2] = pawn_forward();
pub static SIDEWAYS: [Bitboard; SQUARES] = leaper(&[(1, 0), (-1, 0)], 1);
pub static JUMP: [[(u8, u8); 8]; SQUARES] = jumps();
pub static STEP: [[u8; SQUARES]; 8] = steps();
pub const CASTLES: [Bitboard; 2] = [castle(0), castle(4)];

/// Direction codes (indices into `DIRS`) of "straight back" and the two "diagonally back" steps.
pub const fn back_dirs(color: Color) -> [usize; 3] {
    match color {
        Color::White => [3, 5, 7],
        Color::Black => [2, 4, 6],
    }
}

/// The rank a pawn of `color` promotes on.
pub const fn last_rank(color: Color) -> u8 {
    match color {
        Color::White => 6,
        Color::Black => 0,
    }
}

/// Ranks across the river, where a pawn may retreat.
pub const fn across_river(color: Color) -> Bitboard {
    match color {
        Color::White => tables::ranks(W as u32, 4, 7),
        Color::Black => tables::ranks(W as u32, 0, 3),
    }
}
