//! Legal move generation for Congress Chess (no check: every generated move is legal).

use super::position::{Kind, Move, Position};
use super::tables::{home, ALL, DOWN_RAYS, HORSE_BACKWARD, HORSE_FORWARD, LEFT_WING, PAWN_CAPTURE, PAWN_PUSH, UP_RAYS};
use crate::bitboard::Bitboard;
use crate::types::{Color, Square};

pub trait MoveSink {
    fn targets(&mut self, from: Square, targets: Bitboard);
}

#[derive(Default)]
pub struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline]
    fn targets(&mut self, _: Square, targets: Bitboard) {
        self.0 += targets.count() as u64;
    }
}

impl MoveSink for Vec<Move> {
    #[inline]
    fn targets(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.push(Move { from, to });
        }
    }
}

struct AnyMove(bool);

impl MoveSink for AnyMove {
    fn targets(&mut self, _: Square, targets: Bitboard) {
        self.0 |= targets.any();
    }
}

/// Squares of the rays in `rays` from `from`: empty squares (if `quiet`) and the first piece met
/// (the caller keeps only enemy ones).
#[inline]
fn slide(rays: &[[u8; 6]; 2], occ: Bitboard, quiet: bool) -> Bitboard {
    let mut t = Bitboard::EMPTY;
    for ray in rays {
        for &sq in ray {
            if sq == u8::MAX {
                break;
            }
            let sq = Square(sq);
            if occ.contains(sq) {
                t.set(sq);
                break;
            }
            if quiet {
                t.set(sq);
            }
        }
    }
    t
}

impl Position {
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut list = Vec::with_capacity(32);
        self.generate(&mut list, false);
        list
    }

    pub fn capture_moves(&self) -> Vec<Move> {
        let mut list = Vec::with_capacity(8);
        self.generate(&mut list, true);
        list
    }

    pub fn count_moves(&self) -> u64 {
        let mut counter = MoveCounter(0);
        self.generate(&mut counter, false);
        counter.0
    }

    pub fn has_legal_move(&self) -> bool {
        let mut any = AnyMove(false);
        self.generate(&mut any, false);
        any.0
    }

    /// Generates moves into `sink` (only captures with `captures_only`). A finished game (a side
    /// without kings) has no moves.
    pub fn generate<S: MoveSink>(&self, sink: &mut S, captures_only: bool) {
        if self.kings_gone() {
            return;
        }
        let us = self.turn;
        let c = us.index();
        let own = self.by_color[c];
        let enemy = self.by_color[us.other().index()];
        let occ = own | enemy;
        let empty = !occ & ALL;
        let open = if captures_only { enemy } else { enemy | empty };
        let quiet = if captures_only { Bitboard::EMPTY } else { empty };
        let (forward, backward) = match us {
            Color::White => (&UP_RAYS, &DOWN_RAYS),
            Color::Black => (&DOWN_RAYS, &UP_RAYS),
        };
        for from in own {
            let Some(piece) = self.board[from.index()] else { continue };
            let i = from.index();
            let targets = match piece.kind {
                Kind::Pawn => (PAWN_PUSH[c][i] & quiet) | (PAWN_CAPTURE[c][i] & enemy),
                Kind::King => {
                    let file = from.0 % 8;
                    let target = if LEFT_WING.contains(from) {
                        (file > 0).then(|| Square(from.0 - 1))
                    } else {
                        (file < 7).then(|| Square(from.0 + 1))
                    };
                    target.map_or(Bitboard::EMPTY, |t| Bitboard::from_square(t) & open)
                }
                Kind::Politician => {
                    let senior = !home(us).contains(from);
                    if LEFT_WING.contains(from) {
                        let mut t = HORSE_FORWARD[c][i] & open;
                        if senior {
                            t |= HORSE_BACKWARD[c][i] & enemy;
                        }
                        t
                    } else {
                        let mut t = slide(&[forward[0][i], forward[1][i]], occ, !captures_only) & (enemy | quiet);
                        if senior {
                            t |= slide(&[backward[0][i], backward[1][i]], occ, false) & enemy;
                        }
                        t
                    }
                }
            };
            sink.targets(from, targets);
        }
    }
}
