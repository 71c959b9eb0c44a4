//! Legal move generation for Congress Chess (no check: every generated move is legal).

use super::position::{Kind, Move, Position};
use super::tables::{home, ALL, DOWN_RAYS, HORSE_BACKWARD, HORSE_FORWARD, LEFT_WING, PAWN_CAPTURE, PAWN_PUSH, UP_RAYS};
use crate::bitboard::Bitboard;
use crate::moves::MoveSink;
use crate::types::{Color, Square};

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
    /// Generates moves into `sink` (only captures with `captures_only`). A finished game (a side
    /// without kings) has no moves.
    #[inline]
    pub fn generate<S: MoveSink<Move>>(&self, sink: &mut S, captures_only: bool) {
        self.generate_for(self.turn, sink, ALL, captures_only);
    }

    /// [`Position::generate`] for the pieces of the side to move that stand on `pieces` only.
    pub fn generate_pieces<S: MoveSink<Move>>(&self, sink: &mut S, pieces: Bitboard, captures_only: bool) {
        self.generate_for(self.turn, sink, pieces, captures_only);
    }

    /// The moves of side `us`'s pieces on `pieces` if it were its turn (all of them: the
    /// evaluation's mobility).
    pub fn generate_for<S: MoveSink<Move>>(&self, us: Color, sink: &mut S, pieces: Bitboard, captures_only: bool) {
        if self.royal_captured() {
            return;
        }
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
        for from in own & pieces {
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
