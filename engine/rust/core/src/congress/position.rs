//! The Congress position and how a move changes it.

use super::tables::LEFT_WING;
use crate::bitboard::Bitboard;
use crate::types::{Color, EndReason, Outcome, Square};
use crate::zobrist::CONGRESS as KEYS;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Kind {
    King = 0,
    Pawn = 1,
    Politician = 2,
}

impl Kind {
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    pub color: Color,
    pub kind: Kind,
}

impl Piece {
    /// The letter printed on `sq`: a politician is `H` on the left wing and `B` on the right.
    pub fn letter(self, sq: Square) -> char {
        let c = match self.kind {
            Kind::King => 'K',
            Kind::Pawn => 'P',
            Kind::Politician if LEFT_WING.contains(sq) => 'H',
            Kind::Politician => 'B',
        };
        match self.color {
            Color::White => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    pub from: Square,
    pub to: Square,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Position {
    pub(super) by_color: [Bitboard; 2],
    pub(super) by_kind: [Bitboard; 3],
    pub(super) board: [Option<Piece>; 48],
    pub(super) turn: Color,
    pub(super) hash: u64,
}

impl Position {
    pub(super) fn empty(turn: Color) -> Position {
        Position {
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; 3],
            board: [None; 48],
            turn,
            hash: if turn == Color::Black { KEYS.black_to_move } else { 0 },
        }
    }

    pub fn start() -> Position {
        Position::from_fen(super::notation::START).expect("start position parses")
    }

    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }
    /// Sets the side to move (hash kept consistent); used to look at the other side's options.
    pub fn set_turn(&mut self, c: Color) {
        if c != self.turn {
            self.turn = c;
            self.hash ^= KEYS.black_to_move;
        }
    }
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }
    #[inline]
    pub fn color_bb(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }
    #[inline]
    pub fn pieces(&self, c: Color, k: Kind) -> Bitboard {
        self.by_color[c.index()] & self.by_kind[k.index()]
    }

    #[inline]
    pub(super) fn put(&mut self, sq: Square, p: Piece) {
        self.by_color[p.color.index()].set(sq);
        self.by_kind[p.kind.index()].set(sq);
        self.board[sq.index()] = Some(p);
        self.hash ^= KEYS.piece[p.color.index()][p.kind.index()][sq.index()];
    }

    #[inline]
    pub(super) fn remove(&mut self, sq: Square) {
        if let Some(p) = self.board[sq.index()].take() {
            self.by_color[p.color.index()].clear(sq);
            self.by_kind[p.kind.index()].clear(sq);
            self.hash ^= KEYS.piece[p.color.index()][p.kind.index()][sq.index()];
        }
    }

    pub fn compute_hash(&self) -> u64 {
        let mut h = if self.turn == Color::Black { KEYS.black_to_move } else { 0 };
        for (i, p) in self.board.iter().enumerate() {
            if let Some(p) = p {
                h ^= KEYS.piece[p.color.index()][p.kind.index()][i];
            }
        }
        h
    }

    /// True once either side has lost both kings.
    pub fn kings_gone(&self) -> bool {
        self.pieces(Color::White, Kind::King).is_empty() || self.pieces(Color::Black, Kind::King).is_empty()
    }

    pub fn outcome(&self) -> Option<Outcome> {
        if self.pieces(self.turn, Kind::King).is_empty() {
            return Some(Outcome { winner: self.turn.other(), reason: EndReason::KingsCaptured });
        }
        if self.pieces(self.turn.other(), Kind::King).is_empty() {
            return Some(Outcome { winner: self.turn, reason: EndReason::KingsCaptured });
        }
        if !self.has_legal_move() {
            return Some(Outcome { winner: self.turn.other(), reason: EndReason::NoLegalMove });
        }
        None
    }

    pub fn play_unchecked(&self, m: &Move) -> Position {
        let mut next = *self;
        if let Some(p) = self.board[m.from.index()] {
            next.remove(m.from);
            next.remove(m.to);
            next.put(m.to, p);
        }
        next.turn = self.turn.other();
        next.hash ^= KEYS.black_to_move;
        next
    }
}
