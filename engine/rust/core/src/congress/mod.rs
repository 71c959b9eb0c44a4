//! Congress Chess (8x6): position, move generation, playing moves, notation.

mod movegen;
mod notation;
mod position;
pub mod tables;

pub use notation::START;
pub use position::{Kind, Move, Piece, Position};

crate::rules::board_rules!(Position, Move, Kind, START);
