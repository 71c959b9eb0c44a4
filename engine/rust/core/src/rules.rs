//! One interface over both games, so perft, search and game play are written once.

use std::fmt;
use std::hash::Hash;

use crate::bitboard::Bitboard;
use crate::board::PieceKind;
use crate::error::{MoveError, PositionError};
use crate::notation::MoveSquares;
use crate::types::{Color, GameKind, Outcome, Square};
use crate::{congo, congress};

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
struct AnyMove(bool);

impl<M> MoveSink<M> for AnyMove {
    fn targets(&mut self, _: Square, targets: Bitboard) {
        self.0 |= targets.any();
    }
    fn push_move(&mut self, _: M) {
        self.0 = true;
    }
}

pub trait Rules: Copy + Send + Sync + 'static {
    type Move: GameMove;

    const GAME: GameKind;
    /// The start position string.
    const START: &'static str;

    fn from_fen(text: &str) -> Result<Self, PositionError>;
    fn fen(&self) -> String;
    fn turn(&self) -> Color;
    fn hash(&self) -> u64;
    fn compute_hash(&self) -> u64;
    /// Generates the legal moves into `sink` in a fixed order (by piece square, then target);
    /// with `captures_only`, only moves that capture. A finished game has no moves.
    fn generate<S: MoveSink<Self::Move>>(&self, sink: &mut S, captures_only: bool);
    /// [`Rules::generate`] for the side to move's pieces on `pieces` only.
    fn generate_pieces<S: MoveSink<Self::Move>>(&self, sink: &mut S, pieces: Bitboard, captures_only: bool);
    fn play(&self, m: &Self::Move) -> Self;
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError>;
    /// The squares a move's text names, if it is a move in the game's notation at all.
    fn move_squares(text: &str) -> Option<MoveSquares>;
    /// The squares of a move in the exact compact form the engine prints (`d2d3`), or None.
    fn compact_squares(bytes: &[u8]) -> Option<MoveSquares>;
    fn outcome(&self) -> Option<Outcome>;
    /// True when a lion (Congo) or the last king of a side (Congress) has been captured.
    fn is_decided(&self) -> bool;

    fn start() -> Self {
        Self::from_fen(Self::START).expect("start position parses")
    }

    /// Every legal move, in generation order.
    fn legal_moves(&self) -> Vec<Self::Move> {
        let mut list = Vec::with_capacity(64);
        self.generate(&mut list, false);
        list
    }

    /// The legal moves that capture something.
    fn capture_moves(&self) -> Vec<Self::Move> {
        let mut list = Vec::with_capacity(16);
        self.generate(&mut list, true);
        list
    }

    fn count_moves(&self) -> u64 {
        let mut counter = MoveCounter(0);
        self.generate(&mut counter, false);
        counter.0
    }

    fn has_legal_move(&self) -> bool {
        let mut any = AnyMove(false);
        self.generate(&mut any, false);
        any.0
    }
}

/// Both games' positions are `Board` instantiations with the same inherent API, so one body wires
/// each to `Rules`; the game-specific work happens in the inherent methods it calls.
macro_rules! board_rules {
    ($game:ident) => {
        impl Rules for $game::Position {
            type Move = $game::Move;
            const GAME: GameKind = <$game::Kind as PieceKind>::GAME;
            const START: &'static str = $game::START;

            fn from_fen(text: &str) -> Result<Self, PositionError> {
                $game::Position::from_fen(text)
            }
            fn fen(&self) -> String {
                $game::Position::fen(self)
            }
            fn turn(&self) -> Color {
                $game::Position::turn(self)
            }
            fn hash(&self) -> u64 {
                $game::Position::hash(self)
            }
            fn compute_hash(&self) -> u64 {
                $game::Position::compute_hash(self)
            }
            fn generate<S: MoveSink<Self::Move>>(&self, sink: &mut S, captures_only: bool) {
                $game::Position::generate(self, sink, captures_only)
            }
            fn generate_pieces<S: MoveSink<Self::Move>>(&self, sink: &mut S, pieces: Bitboard, captures_only: bool) {
                $game::Position::generate_pieces(self, sink, pieces, captures_only)
            }
            fn play(&self, m: &Self::Move) -> Self {
                self.play_unchecked(m)
            }
            fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError> {
                $game::Position::parse_move(self, text)
            }
            fn move_squares(text: &str) -> Option<MoveSquares> {
                $game::Position::move_squares(text)
            }
            fn compact_squares(bytes: &[u8]) -> Option<MoveSquares> {
                $game::Position::compact_squares(bytes)
            }
            fn outcome(&self) -> Option<Outcome> {
                $game::Position::outcome(self)
            }
            fn is_decided(&self) -> bool {
                self.royal_captured()
            }
        }
    };
}

board_rules!(congo);
board_rules!(congress);
