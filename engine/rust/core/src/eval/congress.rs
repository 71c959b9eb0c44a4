//! Congress Chess evaluation features and their weight table.

use super::{Evaluate, WeightSpec, GAME_WINNING_CAPTURE};
use crate::bitboard::Bitboard;
use crate::congress::tables::{home, ALL, LEFT_WING};
use crate::congress::{Kind, Move, Position};
use crate::moves::MoveCounter;
use crate::types::{Color, Square};

weight_table! {
    static TABLE;
    PAWN = ("pawn", 96, 20, 300, "value of a pawn"),
    POLITICIAN = ("politician", 426, 50, 900, "value of a politician (horse or bishop)"),
    KING = ("king", 191, 50, 2000, "value of a king"),
    LAST_KING = ("last_king", -12, -2000, 0, "extra penalty when only one king is left"),
    PAWN_ADVANCE = ("pawn_advance", 4, -30, 60, "bonus per rank a pawn has advanced"),
    PAWN_STUCK = ("pawn_stuck", -12, -150, 50, "per pawn that cannot move (blocked or on the last rank)"),
    SENIOR = ("senior_politician", -13, -100, 200, "per politician on the enemy half (senior: gains backward captures)"),
    HORSE_PLACEMENT = ("horse_placement", -9, -100, 100, "per politician on files b or c (a horse near the centre)"),
    BISHOP_PLACEMENT = ("bishop_placement", 7, -100, 100, "per politician on files f or g (a bishop near the centre)"),
    KING_ROOM = ("king_room", 7, -60, 60, "per square a king can still move toward its edge"),
    KING_SAFETY = ("king_safety", -11, -150, 50, "per enemy piece within two squares of a king"),
    MOBILITY = ("mobility", 20, 0, 40, "per legal move"),
}

const FILE_BC: Bitboard = Bitboard(0x0606_0606_0606);
const FILE_FG: Bitboard = Bitboard(0x6060_6060_6060);

fn chebyshev2(sq: Square) -> Bitboard {
    let (f, r) = ((sq.0 % 8) as i32, (sq.0 / 8) as i32);
    let mut out = Bitboard::EMPTY;
    for df in -2..=2 {
        for dr in -2..=2 {
            let (nf, nr) = (f + df, r + dr);
            if (0..8).contains(&nf) && (0..6).contains(&nr) && (df, dr) != (0, 0) {
                out.set(Square((nr * 8 + nf) as u8));
            }
        }
    }
    out
}

fn side_score(pos: &Position, c: Color, w: &[i32]) -> i32 {
    let own = pos.color_bb(c);
    let enemy = pos.color_bb(c.other());
    let occ = own | enemy;
    let pawns = pos.pieces(c, Kind::Pawn);
    let politicians = pos.pieces(c, Kind::Politician);
    let kings = pos.pieces(c, Kind::King);
    let mut s =
        pawns.count() as i32 * w[PAWN] + politicians.count() as i32 * w[POLITICIAN] + kings.count() as i32 * w[KING];
    if kings.count() == 1 {
        s += w[LAST_KING];
    }
    let (advance, stuck) = pawns.fold((0, 0), |(adv, stuck), sq| {
        let rank = (sq.0 / 8) as i32;
        let (progress, ahead) = if c == Color::White { (rank - 1, rank + 1) } else { (4 - rank, rank - 1) };
        let file = (sq.0 % 8) as i32;
        let blocked = !(0..6).contains(&ahead)
            || (occ.contains(Square((ahead * 8 + file) as u8))
                && ![file - 1, file + 1]
                    .iter()
                    .any(|&f| (0..8).contains(&f) && enemy.contains(Square((ahead * 8 + f) as u8))));
        (adv + progress, stuck + blocked as i32)
    });
    s += advance * w[PAWN_ADVANCE] + stuck * w[PAWN_STUCK];
    let enemy_half = home(c.other());
    s += (politicians & enemy_half).count() as i32 * w[SENIOR];
    s += (politicians & FILE_BC).count() as i32 * w[HORSE_PLACEMENT];
    s += (politicians & FILE_FG).count() as i32 * w[BISHOP_PLACEMENT];
    for k in kings {
        let file = (k.0 % 8) as i32;
        s += if LEFT_WING.contains(k) { file } else { 7 - file } * w[KING_ROOM];
        s += (chebyshev2(k) & enemy).count() as i32 * w[KING_SAFETY];
    }
    let mut mobility = MoveCounter(0);
    pos.generate_for(c, &mut mobility, ALL, false);
    s += mobility.0 as i32 * w[MOBILITY];
    s
}

impl Evaluate for Position {
    const WEIGHTS: &'static [WeightSpec] = &TABLE;

    fn side_score(&self, c: Color, w: &[i32]) -> i32 {
        side_score(self, c, w)
    }

    fn capture_value(&self, m: &Move, w: &[i32]) -> i32 {
        match self.piece_at(m.to) {
            Some(p) if p.color != self.turn() => match p.kind {
                Kind::Pawn => w[PAWN],
                Kind::Politician => w[POLITICIAN],
                Kind::King if self.pieces(p.color, Kind::King).count() == 1 => GAME_WINNING_CAPTURE,
                Kind::King => w[KING],
            },
            _ => 0,
        }
    }
}
