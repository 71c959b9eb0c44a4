//! Evaluation: a weighted sum of named features per game. Each game declares one weight table
//! (name, default, min, max, meaning); it is the single source for search, tuning and files.

use std::fmt;

use crate::moves::GameMove;
use crate::rules::Rules;
use crate::types::{Color, GameKind};

/// Declares a game's weight table once: each row `INDEX = ("name", default, min, max, "meaning")`
/// becomes a `WeightSpec` of `static $table` and a `const INDEX: usize`, its position in the
/// table (the index into weight vectors).
macro_rules! weight_table {
    (static $table:ident; $($index:ident = ($name:literal, $default:expr, $min:expr, $max:expr, $meaning:literal),)+) => {
        weight_table!(@indices 0; $($index)+);
        static $table: [WeightSpec; [$($index),+].len()] =
            [$(WeightSpec::new($name, $default, $min, $max, $meaning)),+];
    };
    (@indices $i:expr; $index:ident $($rest:ident)*) => {
        const $index: usize = $i;
        weight_table!(@indices $i + 1; $($rest)*);
    };
    (@indices $i:expr;) => {};
}

mod congo;
mod congress;

/// One tunable number: an evaluation weight (centipawn-like units) or a search parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeightSpec {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    pub description: &'static str,
}

impl WeightSpec {
    pub const fn new(name: &'static str, default: i32, min: i32, max: i32, description: &'static str) -> Self {
        WeightSpec { name, default, min, max, description }
    }
}

/// The ordering value of a capture that wins the game (a lion, or a side's last king).
const GAME_WINNING_CAPTURE: i32 = 20_000;

/// A game whose positions can be evaluated with its weight table.
pub trait Evaluate: Rules {
    const WEIGHTS: &'static [WeightSpec];
    /// The features of side `c`, weighted by `w`.
    fn side_score(&self, c: Color, w: &[i32]) -> i32;
    /// Material captured by a move (for move ordering); 0 for a quiet move.
    fn capture_value(&self, m: &Self::Move, w: &[i32]) -> i32;

    /// Score from the side to move's point of view.
    fn evaluate(&self, w: &[i32]) -> i32 {
        let us = self.turn();
        self.side_score(us, w) - self.side_score(us.other(), w)
    }
    /// A small integer key of a move for history tables (below 64 * 64).
    fn move_key(m: &Self::Move) -> usize {
        m.origin().index() * 64 + m.destination().index()
    }
    /// True when only the lions are left (Congo's bare-lions adjudication).
    fn bare_lions(&self) -> bool {
        false
    }
}

pub fn weight_table(game: GameKind) -> &'static [WeightSpec] {
    match game {
        GameKind::Congo => <crate::congo::Position as Evaluate>::WEIGHTS,
        GameKind::Congress => <crate::congress::Position as Evaluate>::WEIGHTS,
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightError {
    Unknown { game: GameKind, names: Vec<String> },
    OutOfRange { name: String, value: i64, min: i32, max: i32 },
}

impl fmt::Display for WeightError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightError::Unknown { game, names } => {
                write!(f, "unknown {game} weight name(s): {}; see `arbiter weights {game}`", names.join(", "))
            }
            WeightError::OutOfRange { name, value, min, max } => {
                write!(f, "weight {name} = {value} is out of range, expected {min}..={max}")
            }
        }
    }
}

impl std::error::Error for WeightError {}

/// The full weight vector for `game` from named values; omitted names take their default.
pub fn resolve_weights(game: GameKind, named: &[(String, i64)]) -> Result<Vec<i32>, WeightError> {
    let table = weight_table(game);
    let unknown: Vec<String> =
        named.iter().filter(|(n, _)| !table.iter().any(|s| s.name == n)).map(|(n, _)| n.clone()).collect();
    if !unknown.is_empty() {
        return Err(WeightError::Unknown { game, names: unknown });
    }
    let mut values: Vec<i32> = table.iter().map(|s| s.default).collect();
    for (name, value) in named {
        let i = table.iter().position(|s| s.name == name).expect("checked above");
        let spec = table[i];
        if *value < spec.min as i64 || *value > spec.max as i64 {
            return Err(WeightError::OutOfRange { name: name.clone(), value: *value, min: spec.min, max: spec.max });
        }
        values[i] = *value as i32;
    }
    Ok(values)
}

pub fn default_weights(game: GameKind) -> Vec<i32> {
    weight_table(game).iter().map(|s| s.default).collect()
}
