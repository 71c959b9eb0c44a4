//! `Position` and `Outcome` for Python: immutable values over either game.

use arbiter_core::perft::{divide, perft};
use arbiter_core::{congo, congress, GameKind, MoveError, Rules};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::{IllegalMoveError, InvalidMoveError, InvalidPositionError};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum AnyPosition {
    Congo(congo::Position),
    Congress(congress::Position),
}

/// Runs `$body` with `$p` bound to the concrete position of either game.
macro_rules! with_pos {
    ($value:expr, $p:ident => $body:expr) => {
        match $value {
            AnyPosition::Congo($p) => $body,
            AnyPosition::Congress($p) => $body,
        }
    };
}

pub fn game_kind(name: &str) -> PyResult<GameKind> {
    GameKind::from_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("unknown game {name:?}: expected one of congo, congress")))
}

impl AnyPosition {
    pub fn start(game: GameKind) -> AnyPosition {
        match game {
            GameKind::Congo => AnyPosition::Congo(congo::Position::start()),
            GameKind::Congress => AnyPosition::Congress(congress::Position::start()),
        }
    }

    pub fn from_fen(game: GameKind, text: &str) -> PyResult<AnyPosition> {
        let parsed = match game {
            GameKind::Congo => congo::Position::from_fen(text).map(AnyPosition::Congo),
            GameKind::Congress => congress::Position::from_fen(text).map(AnyPosition::Congress),
        };
        parsed.map_err(|e| InvalidPositionError::new_err(e.to_string()))
    }

    pub fn game(&self) -> GameKind {
        match self {
            AnyPosition::Congo(_) => GameKind::Congo,
            AnyPosition::Congress(_) => GameKind::Congress,
        }
    }
}

fn check_depth(depth: i64) -> PyResult<u32> {
    u32::try_from(depth)
        .ok()
        .filter(|&d| d <= 64)
        .ok_or_else(|| PyValueError::new_err(format!("perft depth {depth} is out of range, expected 0..=64")))
}

/// Maps a core move error to the matching Python exception, naming move and position.
pub fn move_error(e: MoveError, fen: &str) -> PyErr {
    match e {
        MoveError::Invalid { .. } => InvalidMoveError::new_err(format!("{e} (in position {fen:?})")),
        MoveError::Illegal { .. } => IllegalMoveError::new_err(e.to_string()),
    }
}

/// A position of Congo or Congress Chess. Immutable: `play` returns a new position.
#[pyclass(module = "engine._engine", frozen)]
#[derive(Clone)]
pub struct Position {
    pub pos: AnyPosition,
}

impl Position {
    pub fn new(pos: AnyPosition) -> Position {
        Position { pos }
    }

    pub fn core(&self) -> AnyPosition {
        self.pos
    }
}

#[pymethods]
impl Position {
    /// The start position of `game` ("congo" or "congress").
    #[staticmethod]
    fn start(game: &str) -> PyResult<Position> {
        Ok(Position::new(AnyPosition::start(game_kind(game)?)))
    }

    /// Parses a position string; raises InvalidPositionError naming the bad field.
    #[staticmethod]
    fn from_fen(game: &str, text: &str) -> PyResult<Position> {
        Ok(Position::new(AnyPosition::from_fen(game_kind(game)?, text)?))
    }

    /// The canonical position string.
    fn fen(&self) -> String {
        with_pos!(self.pos, p => p.fen())
    }

    #[getter]
    fn game(&self) -> &'static str {
        self.pos.game().name()
    }

    /// "white" or "black".
    #[getter]
    fn turn(&self) -> &'static str {
        with_pos!(self.core(), p => p.turn().name())
    }

    /// Zobrist hash (kept incrementally by the core; equal to one computed from scratch).
    #[getter]
    fn hash(&self) -> u64 {
        with_pos!(self.core(), p => p.hash())
    }

    /// Every legal move in compact notation, in generation order.
    fn legal_moves(&self) -> Vec<String> {
        with_pos!(self.core(), p => p.legal_moves().iter().map(|m| m.to_string()).collect())
    }

    /// The position after `move`; InvalidMoveError if malformed, IllegalMoveError if illegal.
    fn play(&self, r#move: &str) -> PyResult<Position> {
        let pos = self.core();
        let next = match pos {
            AnyPosition::Congo(p) => {
                AnyPosition::Congo(p.play(&p.parse_move(r#move).map_err(|e| move_error(e, &p.fen()))?))
            }
            AnyPosition::Congress(p) => {
                AnyPosition::Congress(p.play(&p.parse_move(r#move).map_err(|e| move_error(e, &p.fen()))?))
            }
        };
        Ok(Position::new(next))
    }

    /// None while the game goes on, else the winner and the reason.
    fn outcome(&self) -> Option<Outcome> {
        with_pos!(self.core(), p => p.outcome()).map(|o| Outcome { winner: o.winner.name(), reason: o.reason.code() })
    }

    /// Leaf nodes of the legal move tree at `depth` (the GIL is released while counting).
    fn perft(&self, py: Python<'_>, depth: i64) -> PyResult<u64> {
        let depth = check_depth(depth)?;
        let pos = self.core();
        Ok(py.detach(|| with_pos!(pos, p => perft(&p, depth))))
    }

    /// Perft split by first move: a list of (move, nodes).
    fn divide(&self, py: Python<'_>, depth: i64) -> PyResult<Vec<(String, u64)>> {
        let depth = check_depth(depth)?;
        let pos = self.core();
        Ok(py.detach(|| with_pos!(pos, p => divide(&p, depth))))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Position>().is_ok_and(|o| o.get().pos == self.pos)
    }

    fn __hash__(&self) -> u64 {
        with_pos!(self.pos, p => p.hash()) >> 1
    }

    fn __repr__(&self) -> String {
        format!("Position.from_fen({:?}, {:?})", self.game(), self.fen())
    }

    fn __str__(&self) -> String {
        self.fen()
    }
}

/// How a game ended under the rules: `winner` ("white"/"black") and `reason`.
#[pyclass(module = "engine._engine", frozen, eq, get_all)]
#[derive(Clone, PartialEq, Eq)]
pub struct Outcome {
    pub winner: &'static str,
    pub reason: &'static str,
}

#[pymethods]
impl Outcome {
    fn __repr__(&self) -> String {
        format!("Outcome(winner={:?}, reason={:?})", self.winner, self.reason)
    }
}
