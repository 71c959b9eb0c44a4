//! Moves as the rules generate them: one move of either game, and where generated moves go (a
//! list, a counter, a search for one written move).

use std::fmt;
use std::hash::Hash;

use crate::bitboard::Bitboard;
use crate::types::Square;

/// A move of either game.
pub trait GameMove: Copy + PartialEq + Eq + Hash + fmt::Debug + fmt::Display + Send {
    /// The move of one piece from `from` to `to` in one leg.
    fn simple(from: Square, to: Square) -> Self;
    fn origin(&self) -> Square;
    fn destination(&self) -> Square;
    /// The squares the move lands on after its start square (one square unless a Congo monkey
    /// chain).
    fn landings(&self) -> Vec<Square>;
}

/// Receives generated moves: whole target sets of one piece, or single moves built whole.
pub trait MoveSink<M> {
    /// Every square of `targets` is the destination of a one-leg move from `from`.
    fn targets(&mut self, from: Square, targets: Bitboard);
    /// One move that a target set cannot express (a Congo monkey chain).
    fn push_move(&mut self, m: M);
}

impl<M: GameMove> MoveSink<M> for Vec<M> {
    #[inline]
    fn targets(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.push(M::simple(from, to));
        }
    }
    #[inline]
    fn push_move(&mut self, m: M) {
        self.push(m);
    }
}

/// Counts moves without building them (perft's last ply).
#[derive(Default)]
pub struct MoveCounter(pub u64);

impl<M> MoveSink<M> for MoveCounter {
    #[inline]
    fn targets(&mut self, _: Square, targets: Bitboard) {
        self.0 += targets.count() as u64;
    }
    #[inline]
    fn push_move(&mut self, _: M) {
        self.0 += 1;
    }
}

/// Records whether any move was generated.
pub(crate) struct AnyMove(pub(crate) bool);

impl<M> MoveSink<M> for AnyMove {
    fn targets(&mut self, _: Square, targets: Bitboard) {
        self.0 |= targets.any();
    }
    fn push_move(&mut self, _: M) {
        self.0 = true;
    }
}
