//! Precomputed tables for the 8x6 Congress board, built at compile time.

use crate::bitboard::Bitboard;
use crate::tables;
use crate::types::Color;

pub const W: i8 = 8;
pub const H: i8 = 6;
pub const SQUARES: usize = 48;
pub const ALL: Bitboard = tables::ranks(W as u32, 0, H as u32);
/// Files a-d.
pub const LEFT_WING: Bitboard = Bitboard(0x0f0f_0f0f_0f0f);

const fn offset(sq: usize, df: i8, dr: i8) -> Option<usize> {
    tables::offset(W, H, sq, df, dr)
}

/// Leaper targets for White's orientation; Black's are the same deltas with the rank negated.
const fn leaper(deltas: &[(i8, i8)]) -> [[Bitboard; SQUARES]; 2] {
    [tables::leaper(W, H, deltas, 1, 1), tables::leaper(W, H, deltas, 1, -1)]
}

/// Squares of a diagonal ray, nearest first, padded with `u8::MAX`.
const fn rays(dr: i8) -> [[[u8; 6]; SQUARES]; 2] {
    let mut out = [[[u8::MAX; 6]; SQUARES]; 2];
    let mut side = 0;
    while side < 2 {
        let df = if side == 0 { 1 } else { -1 };
        let mut sq = 0;
        while sq < SQUARES {
            let mut n = 1;
            while n <= 6 {
                match offset(sq, df * n, dr * n) {
                    Some(t) => out[side][sq][(n - 1) as usize] = t as u8,
                    None => break,
                }
                n += 1;
            }
            sq += 1;
        }
        side += 1;
    }
    out
}

pub static PAWN_PUSH: [[Bitboard; SQUARES]; 2] = leaper(&[(0, 1)]);
pub static PAWN_CAPTURE: [[Bitboard; SQUARES]; 2] = leaper(&[(1, 1), (-1, 1)]);
pub static HORSE_FORWARD: [[Bitboard; SQUARES]; 2] = leaper(&[(1, 2), (-1, 2), (2, 1), (-2, 1)]);
pub static HORSE_BACKWARD: [[Bitboard; SQUARES]; 2] = leaper(&[(1, -2), (-1, -2), (2, -1), (-2, -1)]);
/// `UP_RAYS[side][sq]` / `DOWN_RAYS[side][sq]`: the two diagonal rays toward rank 6 / rank 1.
pub static UP_RAYS: [[[u8; 6]; SQUARES]; 2] = rays(1);
pub static DOWN_RAYS: [[[u8; 6]; SQUARES]; 2] = rays(-1);

/// The three home ranks, where a politician is junior.
pub const fn home(color: Color) -> Bitboard {
    match color {
        Color::White => tables::ranks(W as u32, 0, 3),
        Color::Black => tables::ranks(W as u32, 3, 6),
    }
}
