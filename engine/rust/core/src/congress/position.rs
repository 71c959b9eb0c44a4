//! The Congress position and how a move changes it.

use super::tables::{self, LEFT_WING};
use crate::board::{self, Board, PieceKind};
use crate::moves::GameMove;
use crate::types::{EndReason, GameKind, Square};
use crate::zobrist::{self, Keys};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Kind {
    King = 0,
    Pawn = 1,
    Politician = 2,
}

impl PieceKind for Kind {
    const GAME: GameKind = GameKind::Congress;
    const WIDTH: u8 = tables::W as u8;
    const HEIGHT: u8 = tables::H as u8;
    const ROYAL: Kind = Kind::King;
    const ROYAL_CAPTURED: EndReason = EndReason::KingsCaptured;
    const KEYS: &'static Keys = &zobrist::CONGRESS;

    #[inline]
    fn index(self) -> usize {
        self as usize
    }
    /// A politician is written `H` (horse) or `B` (bishop); either letter is accepted anywhere.
    fn from_letter(c: char) -> Option<Kind> {
        match c.to_ascii_uppercase() {
            'K' => Some(Kind::King),
            'P' => Some(Kind::Pawn),
            'H' | 'B' => Some(Kind::Politician),
            _ => None,
        }
    }
    /// A politician is printed `H` on the left wing and `B` on the right.
    fn letter(self, sq: Square) -> char {
        match self {
            Kind::King => 'K',
            Kind::Pawn => 'P',
            Kind::Politician if LEFT_WING.contains(sq) => 'H',
            Kind::Politician => 'B',
        }
    }
}

pub type Piece = board::Piece<Kind>;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    pub from: Square,
    pub to: Square,
}

impl GameMove for Move {
    #[inline]
    fn simple(from: Square, to: Square) -> Move {
        Move { from, to }
    }
    #[inline]
    fn origin(&self) -> Square {
        self.from
    }
    #[inline]
    fn destination(&self) -> Square {
        self.to
    }
    fn landings(&self) -> Vec<Square> {
        vec![self.to]
    }
}

/// Three kinds on 48 squares.
pub type Position = Board<Kind, 3, { tables::SQUARES }>;

impl Position {
    pub fn play_unchecked(&self, m: &Move) -> Position {
        let mut next = *self;
        if let Some(p) = self.board[m.from.index()] {
            next.remove(m.from);
            next.remove(m.to);
            next.put(m.to, p);
        }
        next.pass_turn();
        next
    }
}
