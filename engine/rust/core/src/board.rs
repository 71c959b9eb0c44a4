//! The board representation both games share: bitboards by colour and by kind, a square-indexed
//! piece array, the side to move and an incrementally kept Zobrist hash.
//!
//! Each game's `Position` is an instantiation (`Board<congo::Kind, 8, 49>`,
//! `Board<congress::Kind, 3, 48>`) and adds its own rules in inherent impls. The board is generic
//! over the kind type and const sizes rather than a trait over two structs, so the shared code is
//! written once, monomorphised per game (no indirection), and the arrays keep their exact sizes.

use crate::bitboard::Bitboard;
use crate::types::{Color, EndReason, GameKind, Square};
use crate::zobrist::Keys;

/// A game's piece kinds. The kind type also names the game: its board size, its Zobrist keys
/// and the royal piece whose capture ends it.
pub trait PieceKind: Copy + Eq + std::fmt::Debug + Send + Sync + 'static {
    const GAME: GameKind;
    const WIDTH: u8;
    const HEIGHT: u8;
    /// Congo's lion, Congress's king: a side left without one has lost.
    const ROYAL: Self;
    const ROYAL_CAPTURED: EndReason;
    const KEYS: &'static Keys;

    fn index(self) -> usize;
    /// The kind written as `letter` (either case).
    fn from_letter(letter: char) -> Option<Self>;
    /// The upper-case letter of this kind standing on `sq`.
    fn letter(self, sq: Square) -> char;
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece<K> {
    pub color: Color,
    pub kind: K,
}

impl<K: PieceKind> Piece<K> {
    /// The letter printed for this piece on `sq`: upper case for White, lower case for Black.
    pub fn letter(self, sq: Square) -> char {
        let c = self.kind.letter(sq);
        match self.color {
            Color::White => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Board<K, const KINDS: usize, const SQUARES: usize> {
    pub(crate) by_color: [Bitboard; 2],
    pub(crate) by_kind: [Bitboard; KINDS],
    pub(crate) board: [Option<Piece<K>>; SQUARES],
    pub(crate) turn: Color,
    pub(crate) hash: u64,
}

impl<K: PieceKind, const KINDS: usize, const SQUARES: usize> Board<K, KINDS, SQUARES> {
    pub(crate) fn empty(turn: Color) -> Self {
        debug_assert_eq!(SQUARES, K::WIDTH as usize * K::HEIGHT as usize);
        Board {
            by_color: [Bitboard::EMPTY; 2],
            by_kind: [Bitboard::EMPTY; KINDS],
            board: [None; SQUARES],
            turn,
            hash: if turn == Color::Black { K::KEYS.black_to_move } else { 0 },
        }
    }

    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }
    /// Sets the side to move (hash kept consistent); used to look at the other side's options.
    #[inline]
    pub fn set_turn(&mut self, c: Color) {
        if c != self.turn {
            self.pass_turn();
        }
    }
    /// Hands the move to the other side.
    #[inline]
    pub(crate) fn pass_turn(&mut self) {
        self.turn = self.turn.other();
        self.hash ^= K::KEYS.black_to_move;
    }
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece<K>> {
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
    pub fn kind_bb(&self, k: K) -> Bitboard {
        self.by_kind[k.index()]
    }
    #[inline]
    pub fn pieces(&self, c: Color, k: K) -> Bitboard {
        self.by_color[c.index()] & self.by_kind[k.index()]
    }

    #[inline]
    pub(crate) fn put(&mut self, sq: Square, p: Piece<K>) {
        self.by_color[p.color.index()].set(sq);
        self.by_kind[p.kind.index()].set(sq);
        self.board[sq.index()] = Some(p);
        self.hash ^= K::KEYS.piece[p.color.index()][p.kind.index()][sq.index()];
    }

    #[inline]
    pub(crate) fn remove(&mut self, sq: Square) {
        if let Some(p) = self.board[sq.index()].take() {
            self.by_color[p.color.index()].clear(sq);
            self.by_kind[p.kind.index()].clear(sq);
            self.hash ^= K::KEYS.piece[p.color.index()][p.kind.index()][sq.index()];
        }
    }

    /// The hash computed from scratch (the incremental one must always equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut h = if self.turn == Color::Black { K::KEYS.black_to_move } else { 0 };
        for (i, p) in self.board.iter().enumerate() {
            if let Some(p) = p {
                h ^= K::KEYS.piece[p.color.index()][p.kind.index()][i];
            }
        }
        h
    }

    /// True once a side has no royal piece left (the game is over).
    #[inline]
    pub fn royal_captured(&self) -> bool {
        self.pieces(Color::White, K::ROYAL).is_empty() || self.pieces(Color::Black, K::ROYAL).is_empty()
    }
}
