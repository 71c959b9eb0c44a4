//! Replaying a game record: the coordinator's check that a worker's game is a real one.
//!
//! A record is an opening and a list of moves. Replaying it plays every move through the rules
//! and applies the same end conditions, in the same order, as [`crate::play::play_game`] (both
//! through [`EndWatch`]): a game must not go on after the rules or an adjudication ended it, and
//! the replay says how it ended.

use std::fmt;

use crate::ending::{Adjudication, EndWatch, GameResult};
use crate::eval::Evaluate;
use crate::notation::{find_legal, MoveSquares};
use crate::{MoveError, Rules};

/// How a replayed game ended: by the rules or an adjudication, or not at all (the moves stop in
/// a position where nothing ends the game: only a resignation or a time forfeit can explain that).
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

/// Replays `moves` from `opening` under `adjudication` (moves in any form the notation reads).
pub fn replay<P: Evaluate, S: AsRef<str>>(
    opening: &P,
    moves: &[S],
    adjudication: Adjudication,
) -> Result<Replayed, ReplayError> {
    let lenient = |word: &[u8]| std::str::from_utf8(word).ok().and_then(P::move_squares);
    replay_moves(opening, moves.iter().map(|m| m.as_ref().as_bytes()), adjudication, lenient)
}

/// Replays a record's moves written as one string, separated by single spaces: the wire form of a
/// game record, each move exactly as the engine prints it (an empty string is a game with no move).
pub fn replay_text<P: Evaluate>(opening: &P, moves: &str, adjudication: Adjudication) -> Result<Replayed, ReplayError> {
    let words = (!moves.is_empty()).then(|| moves.as_bytes().split(|&b| b == b' ')).into_iter().flatten();
    replay_moves(opening, words, adjudication, P::compact_squares)
}

/// Replays moves one by one, reading each with `squares_of`. Per ply only the moves of the piece
/// the text names are generated: a legal move found means the side to move had one, so the game
/// had not ended for want of moves.
fn replay_moves<'a, P: Evaluate>(
    opening: &P,
    moves: impl Iterator<Item = &'a [u8]>,
    adjudication: Adjudication,
    squares_of: impl Fn(&[u8]) -> Option<MoveSquares>,
) -> Result<Replayed, ReplayError> {
    let mut pos = *opening;
    let mut watch = EndWatch::new(&pos, adjudication);
    let mut plies = 0;
    for word in moves {
        let ply = plies + 1;
        let found = squares_of(word).and_then(|squares| find_legal(&pos, &squares));
        let has_move = found.is_some() || pos.has_legal_move();
        if let Some((_, reason)) = watch.end_given(&pos, has_move) {
            return Err(ReplayError::AfterEnd { ply, reason });
        }
        let Some(mv) = found else {
            return Err(ReplayError::BadMove { ply, error: why_not_a_move(&pos, word) });
        };
        pos = pos.play(&mv);
        watch.played(&pos);
        plies = ply;
    }
    Ok(Replayed { end: watch.end(&pos), plies })
}

/// Why `word` is no move here: the notation's own error, or, for a move the notation reads but
/// the wire form does not (another case, Mindsports dashes, spaces), that it is not compact.
fn why_not_a_move<P: Rules>(pos: &P, word: &[u8]) -> MoveError {
    let text = String::from_utf8_lossy(word);
    match pos.parse_move(&text) {
        Err(error) => error,
        Ok(_) => MoveError::Invalid {
            input: text.into_owned(),
            expected: "the move exactly as the engine prints it, like d2d3 or b1d3f5".to_string(),
        },
    }
}
