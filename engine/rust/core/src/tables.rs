//! Compile-time builders for both boards' precomputed tables (`congo::tables`,
//! `congress::tables`): square arithmetic on a `width` x `height` board, rank masks, leapers.

use crate::bitboard::Bitboard;

/// The square `df` files and `dr` ranks away from `sq`, if it is on the board.
pub const fn offset(width: i8, height: i8, sq: usize, df: i8, dr: i8) -> Option<usize> {
    let f = (sq % width as usize) as i8 + df;
    let r = (sq / width as usize) as i8 + dr;
    if f < 0 || f >= width || r < 0 || r >= height {
        None
    } else {
        Some((r * width + f) as usize)
    }
}

/// Every square of ranks `from..to` (0-based) of a board `width` squares wide.
pub const fn ranks(width: u32, from: u32, to: u32) -> Bitboard {
    Bitboard(((1u64 << (to * width)) - 1) & !((1u64 << (from * width)) - 1))
}

/// For each square, the squares reached by the `(file, rank)` deltas scaled by `file_scale` and
/// `rank_scale` (a scale of -1 on ranks turns White's deltas into Black's).
pub const fn leaper<const SQUARES: usize>(
    width: i8,
    height: i8,
    deltas: &[(i8, i8)],
    file_scale: i8,
    rank_scale: i8,
) -> [Bitboard; SQUARES] {
    let mut out = [Bitboard(0); SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let mut bits = 0u64;
        let mut i = 0;
        while i < deltas.len() {
            if let Some(t) = offset(width, height, sq, deltas[i].0 * file_scale, deltas[i].1 * rank_scale) {
                bits |= 1 << t;
            }
            i += 1;
        }
        out[sq] = Bitboard(bits);
        sq += 1;
    }
    out
}
