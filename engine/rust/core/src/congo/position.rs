//! The Congo position and how a move changes it (captures, promotion, drowning).

use super::tables::{self, CASTLES, JUMP, RIVER};
use crate::bitboard::Bitboard;
use crate::types::{Color, EndReason, Outcome, Square};
use crate::zobrist::CONGO as KEYS;

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
    pub const fn letter(self) -> char {
        ['L', 'Z', 'E', 'G', 'C', 'M', 'P', 'S'][self as usize]
    }
    pub fn from_letter(c: char) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.letter() == c.to_ascii_uppercase())
    }
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
    pub fn letter(self) -> char {
        match self.color {
            Color::White => self.kind.letter(),
            Color::Black => self.kind.letter().to_ascii_lowercase(),
        }
    }
}

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

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Position {
    pub(super) by_color: [Bitboard; 2],
    pub(super) by_kind: [Bitboard; 8],
    pub(super) board: [Option<Piece>; 49],
    pub(super) turn: Color,
    pub(super) hash: u64,
}

impl Position {
    pub(super) fn empty(turn: Color) -> Position {
        Position {
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; 8],
            board: [None; 49],
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
    pub fn kind_bb(&self, k: Kind) -> Bitboard {
        self.by_kind[k.index()]
    }
    #[inline]
    pub fn pieces(&self, c: Color, k: Kind) -> Bitboard {
        self.by_color[c.index()] & self.by_kind[k.index()]
    }
    pub fn lion(&self, c: Color) -> Option<Square> {
        self.pieces(c, Kind::Lion).first()
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

    /// The hash computed from scratch (the incremental one must always equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut h = if self.turn == Color::Black { KEYS.black_to_move } else { 0 };
        for (i, p) in self.board.iter().enumerate() {
            if let Some(p) = p {
                h ^= KEYS.piece[p.color.index()][p.kind.index()][i];
            }
        }
        h
    }

    /// The game is won when a lion has been captured; the side to move is the loser then.
    pub fn lion_captured(&self) -> bool {
        self.pieces(self.turn, Kind::Lion).is_empty() || self.pieces(self.turn.other(), Kind::Lion).is_empty()
    }

    /// Winner and reason if the game is over under the rules (no adjudication).
    pub fn outcome(&self) -> Option<Outcome> {
        if self.pieces(self.turn, Kind::Lion).is_empty() {
            return Some(Outcome { winner: self.turn.other(), reason: EndReason::LionCaptured });
        }
        if self.pieces(self.turn.other(), Kind::Lion).is_empty() {
            return Some(Outcome { winner: self.turn, reason: EndReason::LionCaptured });
        }
        if !self.has_legal_move() {
            return Some(Outcome { winner: self.turn.other(), reason: EndReason::NoLegalMove });
        }
        None
    }

    /// Plays a move generated for this position and returns the new position.
    pub fn play_unchecked(&self, m: &Move) -> Position {
        let mut next = *self;
        let us = self.turn;
        let them = us.other();
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
        next.turn = them;
        next.hash ^= KEYS.black_to_move;
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
