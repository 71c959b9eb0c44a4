//! Legal move generation for Congo. There is no check, so every generated move is legal.

use super::position::{Kind, Move, Position, MAX_JUMPS};
use super::tables::{
    across_river, back_dirs, CASTLES, DIRS, ELEPHANT, GIRAFFE_LEAP, JUMP, KING, KNIGHT, PAWN_FORWARD, RIVER,
    RIVER_RANK, SIDEWAYS, STEP,
};
use crate::bitboard::Bitboard;
use crate::board::PieceKind;
use crate::moves::MoveSink;
use crate::types::Square;

#[inline]
fn file(sq: Square) -> i8 {
    (sq.0 % 7) as i8
}
#[inline]
fn rank(sq: Square) -> i8 {
    (sq.0 / 7) as i8
}

/// Squares strictly between two squares on one line (file, rank or diagonal), or `None`.
fn between(a: Square, b: Square) -> Option<Bitboard> {
    let (df, dr) = (file(b) - file(a), rank(b) - rank(a));
    if !(df == 0 || dr == 0 || df.abs() == dr.abs()) || (df == 0 && dr == 0) {
        return None;
    }
    let dir = DIRS.iter().position(|&d| d == (df.signum(), dr.signum()))?;
    let mut out = Bitboard::EMPTY;
    let mut cur = STEP[dir][a.index()];
    while cur != u8::MAX && cur != b.0 {
        out.set(Square(cur));
        cur = STEP[dir][cur as usize];
    }
    Some(out)
}

impl Position {
    /// Generates moves into `sink`; with `captures_only`, only moves that capture (monkey jumps,
    /// captures by stepping, sliding or leaping). A finished game (a lion captured) has no moves.
    pub fn generate<S: MoveSink<Move>>(&self, sink: &mut S, captures_only: bool) {
        self.generate_pieces(sink, super::tables::ALL, captures_only);
    }

    /// [`Position::generate`] for the pieces of the side to move that stand on `pieces` only.
    pub fn generate_pieces<S: MoveSink<Move>>(&self, sink: &mut S, pieces: Bitboard, captures_only: bool) {
        if self.royal_captured() {
            return;
        }
        let us = self.turn;
        let own = self.by_color[us.index()];
        let enemy = self.by_color[us.other().index()];
        let occ = own | enemy;
        let empty = !occ & super::tables::ALL;
        // Where a moving-or-capturing piece may go, and where a move-only step may go.
        let (open, quiet) = if captures_only { (enemy, Bitboard::EMPTY) } else { (!own & super::tables::ALL, empty) };

        for from in own & pieces {
            let Some(piece) = self.board[from.index()] else { continue };
            let i = from.index();
            let targets = match piece.kind {
                Kind::Lion => {
                    let mut t = KING[i] & CASTLES[us.index()] & open;
                    if let Some(enemy_lion) = self.lion(us.other()) {
                        if between(from, enemy_lion).is_some_and(|b| (b & occ).is_empty()) {
                            t.set(enemy_lion);
                        }
                    }
                    t
                }
                Kind::Zebra => KNIGHT[i] & open,
                Kind::Elephant => ELEPHANT[i] & open,
                Kind::Giraffe => (GIRAFFE_LEAP[i] & open) | (KING[i] & quiet),
                Kind::Crocodile => (KING[i] & open) | self.crocodile_slide(from, occ) & open,
                Kind::Monkey => {
                    self.monkey_chains(sink, from, occ & !Bitboard::from_square(from), enemy);
                    KING[i] & quiet
                }
                Kind::Pawn => {
                    let mut t = PAWN_FORWARD[us.index()][i] & open;
                    if across_river(us).contains(from) && !captures_only {
                        t |= self.retreat(from, back_dirs(us)[0], empty);
                    }
                    t
                }
                Kind::Superpawn => {
                    let mut t = (PAWN_FORWARD[us.index()][i] | SIDEWAYS[i]) & open;
                    if !captures_only {
                        for dir in back_dirs(us) {
                            t |= self.retreat(from, dir, empty);
                        }
                    }
                    t
                }
            };
            sink.targets(from, targets);
        }
    }

    /// A non-capturing retreat of one or two squares in `dir`, over empty squares only.
    #[inline]
    fn retreat(&self, from: Square, dir: usize, empty: Bitboard) -> Bitboard {
        let mut t = Bitboard::EMPTY;
        let one = STEP[dir][from.index()];
        if one != u8::MAX && empty.contains(Square(one)) {
            t.set(Square(one));
            let two = STEP[dir][one as usize];
            if two != u8::MAX && empty.contains(Square(two)) {
                t.set(Square(two));
            }
        }
        t
    }

    /// Slide squares of a crocodile: toward the river along its file on land, along the river
    /// in it. Includes the first occupied square met (the caller masks out friendly pieces).
    fn crocodile_slide(&self, from: Square, occ: Bitboard) -> Bitboard {
        let r = rank(from);
        let dirs: &[usize] = if r == RIVER_RANK {
            &[0, 1]
        } else if r < RIVER_RANK {
            &[2]
        } else {
            &[3]
        };
        let mut t = Bitboard::EMPTY;
        for &dir in dirs {
            let mut cur = STEP[dir][from.index()];
            while cur != u8::MAX {
                let sq = Square(cur);
                t.set(sq);
                if occ.contains(sq) || (r != RIVER_RANK && RIVER.contains(sq)) {
                    break;
                }
                cur = STEP[dir][cur as usize];
            }
        }
        t
    }

    /// Every monkey chain from `from`: each prefix of each jump sequence is one move.
    /// `occ` excludes the monkey itself; jumped pieces stay in it until the move is complete.
    fn monkey_chains<S: MoveSink<Move>>(&self, sink: &mut S, from: Square, occ: Bitboard, enemy: Bitboard) {
        let enemy_lion = self.by_kind[Kind::Lion.index()] & enemy;
        let mut stack = ChainSearch { sink, from, occ, enemy, enemy_lion };
        stack.extend(from, Bitboard::EMPTY, 0, 0);
    }
}

struct ChainSearch<'a, S: MoveSink<Move>> {
    sink: &'a mut S,
    from: Square,
    occ: Bitboard,
    enemy: Bitboard,
    enemy_lion: Bitboard,
}

impl<S: MoveSink<Move>> ChainSearch<'_, S> {
    fn extend(&mut self, at: Square, jumped: Bitboard, jumps: u8, dirs: u128) {
        if jumps >= MAX_JUMPS {
            return;
        }
        for (dir, &(over, land)) in JUMP[at.index()].iter().enumerate() {
            if land == u8::MAX {
                continue;
            }
            let (over, land) = (Square(over), Square(land));
            if !self.enemy.contains(over) || jumped.contains(over) || self.occ.contains(land) {
                continue;
            }
            let dirs = dirs | (dir as u128) << (3 * jumps as u32);
            self.sink.push_move(Move { from: self.from, to: land, jumps: jumps + 1, dirs });
            if !self.enemy_lion.contains(over) {
                self.extend(land, jumped | Bitboard::from_square(over), jumps + 1, dirs);
            }
        }
    }
}
