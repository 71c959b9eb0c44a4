//! Precomputed tables for the 8x6 Congress board, built at compile time.

use crate::bitboard::Bitboard;
use crate::types::Color;

pub const W: i8 = 8;
pub const H: i8 = 6;
pub const SQUARES: usize = 48;
pub const ALL: Bitboard = Bitboard((1u64 << 48) - 1);
/// Files a-d.
pub const LEFT_WING: Bitboard = Bitboard(0x0f0f_0f0f_0f0f);

const fn offset(sq: usize, df: i8, dr: i8) -> Option<usize> {
    let f = (sq % 8) as i8 + df;
    let r = (sq / 8) as i8 + dr;
    if f < 0 || f >= W || r < 0 || r >= H {
        None
    } else {
        Some((r * W + f) as usize)
    }
}

/// Leaper targets for White's orientation; Black's are the same deltas with the rank negated.
const fn leaper(deltas: &[(i8, i8)]) -> [[Bitboard; SQUARES]; 2] {
    let mut out = [[Bitboard(0); SQUARES]; 2];
    let mut c = 0;
    while c < 2 {
        let sign = if c == 0 { 1 } else { -1 };
        let mut sq = 0;
        while sq < SQUARES {
            let mut bits = 0u64;
            let mut i = 0;
            while i < deltas.len() {
                if let Some(t) = offset(sq, deltas[i].0, deltas[i].1 * sign) {
                    bits |= 1 << t;
                }
                i += 1;
            }
            out[c][sq] = Bitboard(bits);
            sq += 1;
        }
        c += 1;
    }
    out
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
        Color::White => Bitboard((1u64 << 24) - 1),
        Color::Black => Bitboard(((1u64 << 48) - 1) & !((1u64 << 24) - 1)),
    }
}
