//! Congo evaluation features and their weight table.

use super::{Evaluate, WeightSpec, GAME_WINNING_CAPTURE};
use crate::bitboard::Bitboard;
use crate::congo::tables::{CASTLES, ELEPHANT, GIRAFFE_LEAP, JUMP, KING, KNIGHT, RIVER, STEP};
use crate::congo::{Kind, Move, Position};
use crate::types::{Color, Square};

weight_table! {
    static TABLE;
    PAWN = ("pawn", 147, 20, 300, "value of a pawn"),
    SUPERPAWN = ("superpawn", 240, 50, 700, "value of a superpawn"),
    MONKEY = ("monkey", 241, 50, 900, "value of a monkey"),
    ZEBRA = ("zebra", 214, 50, 900, "value of a zebra"),
    GIRAFFE = ("giraffe", 366, 50, 900, "value of a giraffe"),
    ELEPHANT_V = ("elephant", 368, 50, 900, "value of an elephant"),
    CROCODILE = ("crocodile", 407, 50, 900, "value of a crocodile"),
    PAWN_ADVANCE = ("pawn_advance", -2, -30, 60, "bonus per rank a pawn has advanced"),
    RIVER_PIECE = ("river_piece", -94, -300, 100, "per non-crocodile piece in the river (it must leave or drown)"),
    CROCODILE_RIVER = ("crocodile_river", 2, -100, 150, "per crocodile in the river"),
    LION_SHELTER = ("lion_shelter", 0, -50, 100, "per friendly piece next to the lion"),
    CASTLE_ATTACKERS = ("castle_attackers", -42, -150, 50, "per enemy piece in or next to the own castle"),
    MOBILITY = ("mobility", 6, 0, 30, "per square a zebra, elephant, giraffe or crocodile can step or leap to"),
    MONKEY_THREAT = ("monkey_threat", 32, -50, 200, "per enemy piece a monkey can jump right now"),
    LION_OPEN_LINES = ("lion_open_lines", -4, -200, 50, "per open forward line (file, diagonals) from the lion to the enemy side"),
}

/// The three forward directions (straight, two diagonals) as indices into `DIRS`.
const fn forward_dirs(c: Color) -> [usize; 3] {
    match c {
        Color::White => [2, 4, 6],
        Color::Black => [3, 5, 7],
    }
}

fn piece_value(kind: Kind, w: &[i32]) -> i32 {
    match kind {
        Kind::Lion => 0,
        Kind::Pawn => w[PAWN],
        Kind::Superpawn => w[SUPERPAWN],
        Kind::Monkey => w[MONKEY],
        Kind::Zebra => w[ZEBRA],
        Kind::Giraffe => w[GIRAFFE],
        Kind::Elephant => w[ELEPHANT_V],
        Kind::Crocodile => w[CROCODILE],
    }
}

fn side_score(pos: &Position, c: Color, w: &[i32]) -> i32 {
    let own = pos.color_bb(c);
    let enemy = pos.color_bb(c.other());
    let occ = own | enemy;
    let mut s = 0;
    for kind in [Kind::Pawn, Kind::Superpawn, Kind::Monkey, Kind::Zebra, Kind::Giraffe, Kind::Elephant, Kind::Crocodile]
    {
        s += pos.pieces(c, kind).count() as i32 * piece_value(kind, w);
    }
    let mut advance = 0;
    for sq in pos.pieces(c, Kind::Pawn) {
        let rank = (sq.0 / 7) as i32;
        advance += if c == Color::White { rank - 1 } else { 5 - rank };
    }
    s += advance * w[PAWN_ADVANCE];
    let crocs = pos.pieces(c, Kind::Crocodile);
    s += (own & RIVER & !crocs).count() as i32 * w[RIVER_PIECE];
    s += (crocs & RIVER).count() as i32 * w[CROCODILE_RIVER];

    let mut mobility = 0;
    for sq in pos.pieces(c, Kind::Zebra) {
        mobility += (KNIGHT[sq.index()] & !own).count();
    }
    for sq in pos.pieces(c, Kind::Elephant) {
        mobility += (ELEPHANT[sq.index()] & !own).count();
    }
    for sq in pos.pieces(c, Kind::Giraffe) {
        mobility += ((GIRAFFE_LEAP[sq.index()] & !own) | (KING[sq.index()] & !occ)).count();
    }
    for sq in crocs {
        mobility += (KING[sq.index()] & !own).count();
    }
    s += mobility as i32 * w[MOBILITY];

    let mut threats = 0;
    for sq in pos.pieces(c, Kind::Monkey) {
        for &(over, land) in &JUMP[sq.index()] {
            if land != u8::MAX && enemy.contains(Square(over)) && !occ.contains(Square(land)) {
                threats += 1;
            }
        }
    }
    s += threats * w[MONKEY_THREAT];

    if let Some(lion) = pos.lion(c) {
        s += (KING[lion.index()] & own).count() as i32 * w[LION_SHELTER];
        let castle = CASTLES[c.index()];
        let zone = castle | neighbours(castle);
        s += (enemy & zone).count() as i32 * w[CASTLE_ATTACKERS];
        let mut open = 0;
        for dir in forward_dirs(c) {
            let mut cur = STEP[dir][lion.index()];
            let mut clear = cur != u8::MAX;
            while cur != u8::MAX {
                if occ.contains(Square(cur)) {
                    clear = false;
                    break;
                }
                cur = STEP[dir][cur as usize];
            }
            open += clear as i32;
        }
        s += open * w[LION_OPEN_LINES];
    }
    s
}

fn neighbours(bb: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for sq in bb {
        out |= KING[sq.index()];
    }
    out
}

impl Evaluate for Position {
    const WEIGHTS: &'static [WeightSpec] = &TABLE;

    fn side_score(&self, c: Color, w: &[i32]) -> i32 {
        side_score(self, c, w)
    }

    fn capture_value(&self, m: &Move, w: &[i32]) -> i32 {
        let victims =
            if m.jumps > 0 { m.jumped() } else { Bitboard::from_square(m.to) & self.color_bb(self.turn().other()) };
        victims
            .map(|sq| match self.piece_at(sq) {
                Some(p) if p.kind == Kind::Lion => GAME_WINNING_CAPTURE,
                Some(p) => piece_value(p.kind, w),
                None => 0,
            })
            .sum()
    }

    fn bare_lions(&self) -> bool {
        self.occupied().count() == 2
    }
}
