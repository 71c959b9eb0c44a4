//! Perft: leaf counts of the legal move tree, the standard test of move generation.

use crate::rules::Rules;

/// Leaf nodes at `depth`. A finished game (lion or last king captured, or no move) has no
/// children; the last ply is counted without playing it.
pub fn perft<P: Rules>(pos: &P, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(),
        _ => pos.legal_moves().iter().map(|m| perft(&pos.play(m), depth - 1)).sum(),
    }
}

/// Perft split by first move, in move-generation order.
pub fn divide<P: Rules>(pos: &P, depth: u32) -> Vec<(String, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves().iter().map(|m| (m.to_string(), perft(&pos.play(m), depth - 1))).collect()
}
