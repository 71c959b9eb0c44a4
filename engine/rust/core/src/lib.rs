//! arbiter-core: rules, notation and perft for Congo (7x7) and Congress Chess (8x6).
//!
//! Pure Rust with no Python dependency; `engine/rust/python` binds it for Python.

pub mod bench;
pub mod bitboard;
pub mod board;
pub mod congo;
pub mod congress;
pub mod error;
pub mod eval;
pub mod notation;
pub mod params;
pub mod perft;
pub mod play;
pub mod replay;
pub mod rules;
pub mod search;
mod tables;
pub mod types;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use board::{Board, PieceKind};
pub use error::{MoveError, PositionError, PositionField};
pub use rules::{GameMove, MoveSink, Rules};
pub use types::{Color, EndReason, GameKind, Outcome, Square};

/// The version of the rules and search behaviour: the crate version and a hash of its sources.
/// Workers must match the coordinator's exactly.
pub const ENGINE_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("ARBITER_SOURCE_HASH"));
