//! The Congo position and how a move changes it (captures, promotion, drowning).

use super::tables::{self, CASTLES, JUMP, RIVER};
use crate::bitboard::Bitboard;
use crate::board::{self, Board, PieceKind};
use crate::moves::GameMove;
use crate::types::{Color, EndReason, GameKind, Square};
use crate::zobrist::{self, Keys};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Kind {
    Lion = 0,
    Zebra = 1,
    Elephant = 2,
    Giraffe = 3,
    Crocodile = 4,
    Monkey = 5,
    Pawn = 6,
    Superpawn = 7,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::Lion,
        Kind::Zebra,
        Kind::Elephant,
        Kind::Giraffe,
        Kind::Crocodile,
        Kind::Monkey,
        Kind::Pawn,
        Kind::Superpawn,
    ];
    const LETTERS: [char; 8] = ['L', 'Z', 'E', 'G', 'C', 'M', 'P', 'S'];
}

impl PieceKind for Kind {
    const GAME: GameKind = GameKind::Congo;
    const WIDTH: u8 = tables::W as u8;
    const HEIGHT: u8 = tables::H as u8;
    const ROYAL: Kind = Kind::Lion;
    const ROYAL_CAPTURED: EndReason = EndReason::LionCaptured;
    const KEYS: &'static Keys = &zobrist::CONGO;

    #[inline]
    fn index(self) -> usize {
        self as usize
    }
    fn from_letter(c: char) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| Kind::LETTERS[k.index()] == c.to_ascii_uppercase())
    }
    fn letter(self, _: Square) -> char {
        Kind::LETTERS[self.index()]
    }
}

pub type Piece = board::Piece<Kind>;

/// A move: start square, final square, and for a monkey chain the jump directions in order.
///
/// `jumps == 0` for every move that is not a monkey jump. Direction `i` of the chain is
/// `(dirs >> 3 * i) & 7`, an index into `tables::DIRS`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    pub from: Square,
    pub to: Square,
    pub jumps: u8,
    pub dirs: u128,
}

/// The longest chain a move can encode; more than any position on 49 squares allows.
pub const MAX_JUMPS: u8 = 42;

impl Move {
    pub const fn simple(from: Square, to: Square) -> Move {
        Move { from, to, jumps: 0, dirs: 0 }
    }

    /// The squares the move lands on after its start square (one square unless a chain).
    pub fn landings(&self) -> Vec<Square> {
        if self.jumps == 0 {
            return vec![self.to];
        }
        let mut out = Vec::with_capacity(self.jumps as usize);
        let mut cur = self.from.index();
        for i in 0..self.jumps {
            let dir = ((self.dirs >> (3 * i as u32)) & 7) as usize;
            cur = JUMP[cur][dir].1 as usize;
            out.push(Square(cur as u8));
        }
        out
    }

    /// The squares jumped over by a monkey chain.
    pub fn jumped(&self) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        let mut cur = self.from.index();
        for i in 0..self.jumps {
            let dir = ((self.dirs >> (3 * i as u32)) & 7) as usize;
            let (over, land) = JUMP[cur][dir];
            out.set(Square(over));
            cur = land as usize;
        }
        out
    }
}

/// Eight kinds on 49 squares.
pub type Position = Board<Kind, { Kind::ALL.len() }, { tables::SQUARES }>;

impl Position {
    pub fn lion(&self, c: Color) -> Option<Square> {
        self.pieces(c, Kind::Lion).first()
    }

    /// Plays a move generated for this position and returns the new position.
    pub fn play_unchecked(&self, m: &Move) -> Position {
        let mut next = *self;
        let us = self.turn;
        let Some(moving) = self.board[m.from.index()] else { return next };
        next.remove(m.from);
        let mut won = false;
        if m.jumps > 0 {
            for sq in m.jumped() {
                won |= next.board[sq.index()].map(|p| p.kind) == Some(Kind::Lion);
                next.remove(sq);
            }
        } else if let Some(victim) = next.board[m.to.index()] {
            won = victim.kind == Kind::Lion;
            next.remove(m.to);
        }
        let kind = if moving.kind == Kind::Pawn && m.to.0 / 7 == tables::last_rank(us) {
            Kind::Superpawn
        } else {
            moving.kind
        };
        next.put(m.to, Piece { color: us, kind });
        if !won {
            let mut drowning = next.by_color[us.index()] & RIVER & !next.by_kind[Kind::Crocodile.index()];
            if !RIVER.contains(m.from) {
                drowning.clear(m.to);
            }
            for sq in drowning {
                next.remove(sq);
            }
        }
        next.pass_turn();
        next
    }

    /// Pieces of the side to move that will drown unless they leave the river now.
    pub fn must_leave_river(&self) -> Bitboard {
        self.by_color[self.turn.index()] & RIVER & !self.by_kind[Kind::Crocodile.index()]
    }

    /// Whether `sq` lies in `color`'s castle.
    pub fn in_castle(color: Color, sq: Square) -> bool {
        CASTLES[color.index()].contains(sq)
    }
}

impl GameMove for Move {
    #[inline]
    fn simple(from: Square, to: Square) -> Move {
        Move::simple(from, to)
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
        Move::landings(self)
    }
}
