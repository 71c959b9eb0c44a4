//! Typed errors for bad input: they name what was wrong and never panic.

use std::fmt;

/// Which part of a position string was malformed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PositionField {
    /// The whole string (wrong number of space-separated fields).
    Layout,
    /// The piece placement field.
    Board,
    /// The side-to-move field.
    Turn,
}

impl PositionField {
    pub const fn name(self) -> &'static str {
        match self {
            PositionField::Layout => "layout",
            PositionField::Board => "board",
            PositionField::Turn => "side to move",
        }
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PositionError {
    pub game: &'static str,
    pub field: PositionField,
    pub input: String,
    pub expected: String,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid {} position {:?}: {} field: {}", self.game, self.input, self.field.name(), self.expected)
    }
}

impl std::error::Error for PositionError {}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum MoveError {
    /// The text is not a move in the game's notation.
    Invalid { input: String, expected: String },
    /// A well-formed move that is not legal in the position.
    Illegal { input: String, position: String },
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Invalid { input, expected } => {
                write!(f, "invalid move {input:?}: expected {expected}")
            }
            MoveError::Illegal { input, position } => {
                write!(f, "illegal move {input:?} in position {position:?}")
            }
        }
    }
}

impl std::error::Error for MoveError {}
