//! Congo (7x7): position, move generation, playing moves, notation.

mod movegen;
mod notation;
mod position;
pub mod tables;

pub use movegen::{MoveCounter, MoveList, MoveSink};
pub use position::{Kind, Move, Piece, Position};
