//! How games end: results, the tournament's adjudication rules, and the watch that applies the
//! rules' ends and the adjudication in one order, shared by game play and replay (so a replayed
//! record ends exactly where its game did).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::eval::Evaluate;
use crate::rules::Rules;
use crate::types::{Color, EndReason, Outcome};

/// Tournament rules that end games the game rules would not end (all off by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Adjudication {
    /// Draw after this many plies.
    pub max_plies: Option<u32>,
    /// Draw on the third occurrence of a position with the same side to move.
    pub repetition: bool,
    /// Congo: draw when only the two lions are left and the side to move cannot capture.
    pub bare_lions: bool,
    /// Resign when both engines agree, for `resign_plies` consecutive plies, that the side to
    /// move is behind by at least this many centipawns.
    pub resign_score: Option<i32>,
    pub resign_plies: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
}

impl GameResult {
    pub const fn text(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    pub fn win_for(c: Color) -> GameResult {
        match c {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

/// The reasons a game can end for, beyond the rules' own ([`EndReason`]).
pub mod reasons {
    pub const PLY_LIMIT: &str = "ply_limit";
    pub const REPETITION: &str = "repetition";
    pub const BARE_LIONS: &str = "bare_lions";
    pub const RESIGN: &str = "resign";
    /// A side used more than its clock (and the referee's margin).
    pub const TIME_FORFEIT: &str = "time_forfeit";
}

/// Resignation from the engines' own scores: once both sides' last scores agree, for
/// `resign_plies` consecutive plies, that one side is behind by at least `resign_score`
/// centipawns, that side resigns. A side that reported no score agrees with nothing.
#[derive(Clone, Copy, Debug)]
pub struct ResignWatch {
    threshold: Option<i32>,
    plies: u32,
    streak: u32,
    /// Each side's last score, from White's point of view.
    white_view: [Option<i32>; 2],
}

impl ResignWatch {
    pub fn new(adjudication: &Adjudication) -> ResignWatch {
        ResignWatch {
            threshold: adjudication.resign_score,
            plies: adjudication.resign_plies.max(1),
            streak: 0,
            white_view: [None, None],
        }
    }

    /// After `side`'s search scored `score` (from its own point of view), before its move is
    /// played: the result if the game ends by resignation.
    pub fn searched(&mut self, side: Color, score: Option<i32>) -> Option<GameResult> {
        let threshold = self.threshold?;
        self.white_view[side.index()] = score.map(|s| if side == Color::White { s } else { -s });
        let agree = |sign: i32| self.white_view.iter().all(|v| v.is_some_and(|v| sign * v >= threshold));
        self.streak = if agree(1) || agree(-1) { self.streak + 1 } else { 0 };
        if self.streak < self.plies {
            return None;
        }
        let white_ahead = self.white_view[0].unwrap_or(0) > 0;
        Some(GameResult::win_for(if white_ahead { Color::White } else { Color::Black }))
    }
}

/// Hashes a Zobrist key by itself: the keys are random already.
#[derive(Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// Tracks what the end conditions need: positions seen (for repetition) and plies played.
pub struct EndWatch {
    seen: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
    plies: usize,
    adjudication: Adjudication,
}

impl EndWatch {
    pub fn new<P: Rules>(start: &P, adjudication: Adjudication) -> EndWatch {
        let mut seen = HashMap::with_capacity_and_hasher(256, BuildHasherDefault::default());
        seen.insert(start.hash(), 1);
        EndWatch { seen, plies: 0, adjudication }
    }

    /// Records that `pos` was reached by one more move.
    pub fn played<P: Rules>(&mut self, pos: &P) {
        self.plies += 1;
        *self.seen.entry(pos.hash()).or_insert(0) += 1;
    }

    /// Plies played since the start.
    pub fn plies(&self) -> usize {
        self.plies
    }

    /// How the game ends in `pos`, if it does: the rules first, then repetition, bare lions and
    /// the ply limit.
    pub fn end<P: Evaluate>(&self, pos: &P) -> Option<(GameResult, &'static str)> {
        self.end_given(pos, pos.has_legal_move())
    }

    /// [`EndWatch::end`] for a position whose side to move has a legal move or not (`has_move`),
    /// as a generation of its moves already told.
    pub fn end_given<P: Evaluate>(&self, pos: &P, has_move: bool) -> Option<(GameResult, &'static str)> {
        let by_rules = if pos.is_decided() {
            pos.outcome()
        } else {
            (!has_move).then(|| Outcome { winner: pos.turn().other(), reason: EndReason::NoLegalMove })
        };
        if let Some(outcome) = by_rules {
            return Some((GameResult::win_for(outcome.winner), outcome.reason.code()));
        }
        let a = self.adjudication;
        if a.repetition && self.seen.get(&pos.hash()).copied().unwrap_or(0) >= 3 {
            return Some((GameResult::Draw, reasons::REPETITION));
        }
        if a.bare_lions && pos.bare_lions() && pos.capture_moves().is_empty() {
            return Some((GameResult::Draw, reasons::BARE_LIONS));
        }
        if a.max_plies.is_some_and(|limit| self.plies as u64 >= u64::from(limit)) {
            return Some((GameResult::Draw, reasons::PLY_LIMIT));
        }
        None
    }
}
