//! Replaying a game record: the coordinator's check that a worker's game is a real one.
//!
//! A record is an opening and a list of moves. Replaying it plays every move through the rules
//! and applies the same end conditions, in the same order, as [`crate::play::play_game`]: a game
//! must not go on after the rules or an adjudication ended it, and the replay says how it ended.

use std::collections::HashMap;
use std::fmt;

use crate::eval::Evaluate;
use crate::play::{Adjudication, GameResult};
use crate::{MoveError, Rules};

/// How a replayed game ended: by the rules or an adjudication, or not at all (the moves stop in
/// a position where nothing ends the game: only a resignation can explain that).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Replayed {
    pub end: Option<(GameResult, &'static str)>,
    pub plies: usize,
}

/// Why a record cannot be a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// The move at `ply` (1-based) is not legal, or not a move at all.
    BadMove { ply: usize, error: MoveError },
    /// A move at `ply` comes after the game ended for `reason`.
    AfterEnd { ply: usize, reason: &'static str },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::BadMove { ply, error } => write!(f, "ply {ply}: {error}"),
            ReplayError::AfterEnd { ply, reason } => {
                write!(f, "ply {ply}: a move after the game ended ({reason})")
            }
        }
    }
}

impl std::error::Error for ReplayError {}

/// Tracks what the end conditions need: positions seen (for repetition) and plies played.
pub struct EndWatch {
    seen: HashMap<u64, u32>,
    plies: usize,
    adjudication: Adjudication,
}

impl EndWatch {
    pub fn new<P: Rules>(start: &P, adjudication: Adjudication) -> EndWatch {
        EndWatch { seen: HashMap::from([(start.hash(), 1)]), plies: 0, adjudication }
    }

    /// Records that `pos` was reached by one more move.
    pub fn played<P: Rules>(&mut self, pos: &P) {
        self.plies += 1;
        *self.seen.entry(pos.hash()).or_insert(0) += 1;
    }

    /// How the game ends in `pos`, if it does: the rules first, then repetition, bare lions and
    /// the ply limit (the order of `play_game`).
    pub fn end<P: Evaluate>(&self, pos: &P) -> Option<(GameResult, &'static str)> {
        if let Some(outcome) = pos.outcome() {
            return Some((GameResult::win_for(outcome.winner), outcome.reason.code()));
        }
        let a = self.adjudication;
        if a.repetition && self.seen.get(&pos.hash()).copied().unwrap_or(0) >= 3 {
            return Some((GameResult::Draw, "repetition"));
        }
        if a.bare_lions && pos.bare_lions() && pos.capture_moves().is_empty() {
            return Some((GameResult::Draw, "bare_lions"));
        }
        if a.max_plies.is_some_and(|limit| self.plies as u64 >= u64::from(limit)) {
            return Some((GameResult::Draw, "ply_limit"));
        }
        None
    }
}

/// Replays `moves` from `opening` under `adjudication`.
pub fn replay<P: Evaluate, S: AsRef<str>>(
    opening: &P,
    moves: &[S],
    adjudication: Adjudication,
) -> Result<Replayed, ReplayError> {
    let mut pos = *opening;
    let mut watch = EndWatch::new(&pos, adjudication);
    for (i, text) in moves.iter().enumerate() {
        let ply = i + 1;
        if let Some((_, reason)) = watch.end(&pos) {
            return Err(ReplayError::AfterEnd { ply, reason });
        }
        let mv = pos.parse_move(text.as_ref()).map_err(|error| ReplayError::BadMove { ply, error })?;
        pos = pos.play(&mv);
        watch.played(&pos);
    }
    // The searcher finds no move where there is none (`play_game`'s last way to end).
    let stuck = || (!pos.has_legal_move()).then(|| (GameResult::win_for(pos.turn().other()), "no_legal_move"));
    Ok(Replayed { end: watch.end(&pos).or_else(stuck), plies: moves.len() })
}
