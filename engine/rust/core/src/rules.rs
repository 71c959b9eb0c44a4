//! One interface over both games, so perft, search and game play are written once.

use crate::bitboard::Bitboard;
use crate::board::{Board, PieceKind};
use crate::error::{MoveError, PositionError};
use crate::moves::{AnyMove, GameMove, MoveCounter, MoveSink};
use crate::notation::MoveSquares;
use crate::types::{Color, EndReason, GameKind, Outcome, Square};

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
/// each to `Rules`; the game-specific work happens in the inherent methods it calls. Each game's
/// module invokes it for its own types.
macro_rules! board_rules {
    ($position:ty, $move:ty, $kind:ty, $start:expr) => {
        impl $crate::rules::Rules for $position {
            type Move = $move;
            const GAME: $crate::types::GameKind = <$kind as $crate::board::PieceKind>::GAME;
            const START: &'static str = $start;

            fn from_fen(text: &str) -> Result<Self, $crate::error::PositionError> {
                <$position>::from_fen(text)
            }
            fn fen(&self) -> String {
                <$position>::fen(self)
            }
            fn turn(&self) -> $crate::types::Color {
                <$position>::turn(self)
            }
            fn hash(&self) -> u64 {
                <$position>::hash(self)
            }
            fn compute_hash(&self) -> u64 {
                <$position>::compute_hash(self)
            }
            fn generate<S: $crate::moves::MoveSink<Self::Move>>(&self, sink: &mut S, captures_only: bool) {
                <$position>::generate(self, sink, captures_only)
            }
            fn generate_pieces<S: $crate::moves::MoveSink<Self::Move>>(
                &self,
                sink: &mut S,
                pieces: $crate::bitboard::Bitboard,
                captures_only: bool,
            ) {
                <$position>::generate_pieces(self, sink, pieces, captures_only)
            }
            fn play(&self, m: &Self::Move) -> Self {
                self.play_unchecked(m)
            }
            fn parse_move(&self, text: &str) -> Result<Self::Move, $crate::error::MoveError> {
                <$position>::parse_move(self, text)
            }
            fn move_squares(text: &str) -> Option<$crate::notation::MoveSquares> {
                <$position>::move_squares(text)
            }
            fn compact_squares(bytes: &[u8]) -> Option<$crate::notation::MoveSquares> {
                <$position>::compact_squares(bytes)
            }
            fn outcome(&self) -> Option<$crate::types::Outcome> {
                <$position>::outcome(self)
            }
            fn is_decided(&self) -> bool {
                self.royal_captured()
            }
        }
    };
}

pub(crate) use board_rules;

/// Receives generated legal moves and keeps the first one written as `squares` (a one-leg move is
/// matched against whole target sets, unbuilt).
struct FindMove<'a, M> {
    squares: &'a [Square],
    found: Option<M>,
}

impl<M: GameMove> MoveSink<M> for FindMove<'_, M> {
    #[inline]
    fn targets(&mut self, from: Square, targets: Bitboard) {
        if self.found.is_none()
            && self.squares.len() == 2
            && from == self.squares[0]
            && targets.contains(self.squares[1])
        {
            self.found = Some(M::simple(from, self.squares[1]));
        }
    }
    #[inline]
    fn push_move(&mut self, m: M) {
        if self.found.is_none() && m.origin() == self.squares[0] && m.landings() == self.squares[1..] {
            self.found = Some(m);
        }
    }
}

/// The legal move of `pos` written as `squares`, if there is one: only the moves of the piece on
/// its start square are generated.
pub fn find_legal<P: Rules>(pos: &P, squares: &MoveSquares) -> Option<P::Move> {
    let squares = squares.as_slice();
    let mut sink = FindMove { squares, found: None };
    pos.generate_pieces(&mut sink, Bitboard::from_square(squares[0]), false);
    sink.found
}

/// The legal move of `pos` written as `squares` (its start square, then each landing square);
/// `None` means `text` was malformed, and the error says what was `expected`.
pub fn find_move<P: Rules>(
    pos: &P,
    text: &str,
    squares: Option<MoveSquares>,
    expected: &str,
) -> Result<P::Move, MoveError> {
    let squares =
        squares.ok_or_else(|| MoveError::Invalid { input: text.to_string(), expected: expected.to_string() })?;
    find_legal(pos, &squares).ok_or_else(|| MoveError::Illegal { input: text.to_string(), position: pos.fen() })
}

impl<K: PieceKind, const KINDS: usize, const SQUARES: usize> Board<K, KINDS, SQUARES>
where
    Self: Rules,
{
    /// Winner and reason if the game is over under the rules (no adjudication).
    pub fn outcome(&self) -> Option<Outcome> {
        if self.pieces(self.turn, K::ROYAL).is_empty() {
            return Some(Outcome { winner: self.turn.other(), reason: K::ROYAL_CAPTURED });
        }
        if self.pieces(self.turn.other(), K::ROYAL).is_empty() {
            return Some(Outcome { winner: self.turn, reason: K::ROYAL_CAPTURED });
        }
        if !self.has_legal_move() {
            return Some(Outcome { winner: self.turn.other(), reason: EndReason::NoLegalMove });
        }
        None
    }
}
