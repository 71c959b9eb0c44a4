//! arbiter-core: the rules, notation and perft of Congo (7x7) and Congress Chess (8x6), their
//! evaluation weight tables, an alpha-beta search, whole games between two searchers under node,
//! depth or time limits and a referee's clock, and the replay that checks a recorded game.
//!
//! Pure Rust with no Python dependency; `engine/rust/python` binds it for Python.
//!
//! The modules, from the board up: `bitboard`, `types`, `board` (the shared board), `moves`,
//! `notation` (position strings and moves as text), `rules` (one interface over both games),
//! `congo` and `congress` (each game's rules), `perft`; `eval` (weight tables, evaluation),
//! `params` (the search's parameter table), `limits`, `timeman`, `search`, `bench`; `ending`
//! (results, adjudication, the end of a game), `clock`, `play` (whole games), `replay` (records
//! checked move by move).

pub mod bench;
pub mod bitboard;
pub mod board;
pub mod clock;
pub mod congo;
pub mod congress;
pub mod ending;
pub mod error;
pub mod eval;
pub mod limits;
mod line_aligned;
pub mod moves;
pub mod notation;
pub mod params;
pub mod perft;
pub mod play;
pub mod replay;
pub mod rules;
pub mod search;
mod tables;
pub mod timeman;
pub mod types;
pub mod verdict;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use board::{Board, PieceKind};
pub use error::{MoveError, PositionError, PositionField};
pub use moves::{GameMove, MoveSink};
pub use rules::Rules;
pub use types::{Color, EndReason, GameKind, Outcome, Square};

/// The version of the rules and search behaviour: the crate version and a hash of its sources.
/// Workers must match the coordinator's exactly.
pub const ENGINE_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("ARBITER_SOURCE_HASH"));
