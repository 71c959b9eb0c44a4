//! The referee's side of arbiter's engine protocol (docs/protocol.md) over an engine's pipes.
//!
//! `pipe`: lines in and out of one engine process with deadlines, bounded lines and a bounded
//! amount of output per answer, stderr kept as a small ring. `info`: what a search's `info` lines
//! say. `search`: one move, from `go` to `bestmove`. Starting and killing the process, the
//! handshake and the game stay with the caller (the worker's Python); this is the per-move path.

pub mod info;
pub mod pipe;
pub mod search;

pub use info::SearchInfo;
pub use pipe::{EnginePipe, Fault};
pub use search::{AtDeadline, BestMove};
