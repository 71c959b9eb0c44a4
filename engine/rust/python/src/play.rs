//! Weights, search, whole games and bench for Python. Searches release the GIL.

use arbiter_core::bench::bench as core_bench;
use arbiter_core::ending::Adjudication as CoreAdjudication;
use arbiter_core::eval::{resolve_weights, weight_table, Evaluate};
use arbiter_core::limits::{Limits as CoreLimits, SearchLimits};
use arbiter_core::play::{moves_for_budgets as core_budgets, play_game as core_play};
use arbiter_core::replay::replay as core_replay;
use arbiter_core::search::{SearchResult, Searcher};
use arbiter_core::{congo, congress, GameKind};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::limits::{Adjudication, Limits};
use crate::position::{game_kind, AnyPosition, Position};

/// One row of a game's weight table.
#[pyclass(module = "engine._engine", frozen, get_all)]
pub struct WeightSpec {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    pub description: &'static str,
}

#[pymethods]
impl WeightSpec {
    fn __repr__(&self) -> String {
        format!("WeightSpec({:?}, default={}, min={}, max={})", self.name, self.default, self.min, self.max)
    }
}

/// The tunable evaluation weights of `game`, in table order.
#[pyfunction]
pub fn weights(game: &str) -> PyResult<Vec<WeightSpec>> {
    Ok(weight_table(game_kind(game)?)
        .iter()
        .map(|s| WeightSpec { name: s.name, default: s.default, min: s.min, max: s.max, description: s.description })
        .collect())
}

/// Named values from a dict; each must be an integer (a float with no fraction is accepted).
fn named_values(values: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, i64)>> {
    let Some(values) = values else { return Ok(Vec::new()) };
    let mut out = Vec::with_capacity(values.len());
    for (k, v) in values.iter() {
        let name: String =
            k.extract().map_err(|_| PyValueError::new_err(format!("weight name {k} is not a string")))?;
        let value = if v.is_instance_of::<pyo3::types::PyBool>() {
            None
        } else if let Ok(i) = v.extract::<i64>() {
            Some(i)
        } else if let Ok(f) = v.extract::<f64>() {
            (f.fract() == 0.0 && f.abs() < 1e15).then_some(f as i64)
        } else {
            None
        };
        let value = value.ok_or_else(|| PyValueError::new_err(format!("weight {name} = {v} is not an integer")))?;
        out.push((name, value));
    }
    Ok(out)
}

fn resolve(game: GameKind, values: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<i32>> {
    resolve_weights(game, &named_values(values)?).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The full weights of `game` from a dict of named values (omitted names take their default).
/// Unknown names and out-of-range values raise ValueError naming them.
#[pyfunction]
#[pyo3(signature = (game, values=None))]
pub fn validate_weights(game: &str, values: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(&'static str, i32)>> {
    let game = game_kind(game)?;
    let full = resolve(game, values)?;
    Ok(weight_table(game).iter().map(|s| s.name).zip(full).collect())
}

fn result_dict<'py, M: std::fmt::Display>(py: Python<'py>, r: &SearchResult<M>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("best_move", r.best_move.as_ref().map(|m| m.to_string()))?;
    d.set_item("score", r.score)?;
    d.set_item("depth", r.depth)?;
    d.set_item("nodes", r.nodes)?;
    d.set_item("pv", r.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>())?;
    d.set_item("time_ms", r.elapsed.as_secs_f64() * 1000.0)?;
    let iterations = PyList::empty(py);
    for it in &r.iterations {
        let row = PyDict::new(py);
        row.set_item("depth", it.depth)?;
        row.set_item("score", it.score)?;
        row.set_item("nodes", it.nodes)?;
        row.set_item("time_ms", it.elapsed.as_secs_f64() * 1000.0)?;
        row.set_item("pv", it.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>())?;
        iterations.append(row)?;
    }
    d.set_item("iterations", iterations)?;
    Ok(d)
}

fn search_one<P: Evaluate>(
    py: Python<'_>,
    pos: P,
    w: Vec<i32>,
    limits: SearchLimits,
    hash_mb: usize,
) -> SearchResult<P::Move> {
    py.detach(|| Searcher::<P>::new(w, hash_mb).search(&pos, limits, &[]))
}

/// Searches `position` with a fresh table under `limits` (None: to depth 6; a time control is
/// for games, not one search); returns best_move, score (centipawns for the side to move; beyond
/// `MATE_BOUND` a forced win in `MATE_SCORE - score` plies), depth, nodes, pv, time_ms and the
/// iterations.
#[pyfunction]
#[pyo3(signature = (position, weights=None, limits=None, hash_mb=16))]
pub fn search<'py>(
    py: Python<'py>,
    position: &Position,
    weights: Option<&Bound<'py, PyDict>>,
    limits: Option<Limits>,
    hash_mb: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let pos = position.core();
    let w = resolve(pos.game(), weights)?;
    let limits = match limits.map(|l| l.core) {
        None => SearchLimits::depth(6),
        Some(l) if l.time_control().is_some() => {
            return Err(PyValueError::new_err("limits: a time control is for games, not for one search"))
        }
        Some(l) => l.per_move(),
    };
    match pos {
        AnyPosition::Congo(p) => result_dict(py, &search_one(py, p, w, limits, hash_mb)),
        AnyPosition::Congress(p) => result_dict(py, &search_one(py, p, w, limits, hash_mb)),
    }
}

/// A searcher for one side of a game: `hash_mb` if given, else a table sized to the node limit
/// (16 MiB without one).
fn game_searcher<P: Evaluate>(weights: Vec<i32>, limits: CoreLimits, hash_mb: Option<usize>) -> Searcher<P> {
    match (hash_mb, limits.nodes()) {
        (Some(mb), _) => Searcher::new(weights, mb),
        (None, Some(nodes)) => Searcher::with_entries(weights, (nodes as usize).saturating_mul(2).min(1 << 22)),
        (None, None) => Searcher::new(weights, 16),
    }
}

fn play_one<'py, P: Evaluate>(
    py: Python<'py>,
    opening: P,
    weights: [Vec<i32>; 2],
    limits: CoreLimits,
    adjudication: CoreAdjudication,
    hash_mb: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let [white, black] = weights;
    let record = py.detach(|| {
        let mut engines = [game_searcher::<P>(white, limits, hash_mb), game_searcher::<P>(black, limits, hash_mb)];
        core_play(&opening, &mut engines, limits, adjudication)
    });
    let d = PyDict::new(py);
    d.set_item("opening", &record.opening)?;
    d.set_item("moves", record.moves.iter().map(|m| m.to_string()).collect::<Vec<_>>())?;
    d.set_item("result", record.result.text())?;
    d.set_item("reason", record.reason)?;
    d.set_item("plies", record.moves.len())?;
    d.set_item("nodes", record.nodes.to_vec())?;
    d.set_item("budgets", record.budgets)?;
    d.set_item("times_ms", record.times_ms)?;
    Ok(d)
}

/// Plays one whole game in Rust from the `opening` position string and returns its record:
/// opening, moves, result ("1-0", "0-1", "1/2-1/2"), reason, plies, nodes per side, and per move
/// the node budget that repeats its search and the milliseconds it took.
#[pyfunction]
#[pyo3(signature = (game, white_weights, black_weights, opening, limits, adjudication=None, hash_mb=None))]
#[allow(clippy::too_many_arguments, reason = "the signature is the Python API (keyword arguments)")]
pub fn play_game<'py>(
    py: Python<'py>,
    game: &str,
    white_weights: Option<&Bound<'py, PyDict>>,
    black_weights: Option<&Bound<'py, PyDict>>,
    opening: &str,
    limits: Limits,
    adjudication: Option<Adjudication>,
    hash_mb: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let kind = game_kind(game)?;
    let weights = [resolve(kind, white_weights)?, resolve(kind, black_weights)?];
    let (limits, adjudication) = (limits.core, adjudication.unwrap_or_default().core);
    match AnyPosition::from_fen(kind, opening)? {
        AnyPosition::Congo(p) => play_one::<congo::Position>(py, p, weights, limits, adjudication, hash_mb),
        AnyPosition::Congress(p) => play_one::<congress::Position>(py, p, weights, limits, adjudication, hash_mb),
    }
}

fn budget_moves<P: Evaluate>(
    py: Python<'_>,
    opening: P,
    weights: [Vec<i32>; 2],
    limits: CoreLimits,
    budgets: &[u64],
    hash_mb: Option<usize>,
) -> Vec<String> {
    let [white, black] = weights;
    py.detach(|| {
        let mut engines = [game_searcher::<P>(white, limits, hash_mb), game_searcher::<P>(black, limits, hash_mb)];
        core_budgets(&opening, &mut engines, budgets).iter().map(|m| m.to_string()).collect()
    })
}

/// The moves of a game played from `opening` with each move searched under exactly its node
/// budget (`play_game`'s `budgets`), by searchers set up as `play_game` sets them up for `limits`
/// and `hash_mb`: a timed game, repeated move for move on any machine.
#[pyfunction]
#[pyo3(signature = (game, white_weights, black_weights, opening, limits, budgets, hash_mb=None))]
#[allow(clippy::too_many_arguments, reason = "the signature is the Python API (keyword arguments)")]
pub fn moves_for_budgets(
    py: Python<'_>,
    game: &str,
    white_weights: Option<&Bound<'_, PyDict>>,
    black_weights: Option<&Bound<'_, PyDict>>,
    opening: &str,
    limits: Limits,
    budgets: Vec<u64>,
    hash_mb: Option<usize>,
) -> PyResult<Vec<String>> {
    let kind = game_kind(game)?;
    let weights = [resolve(kind, white_weights)?, resolve(kind, black_weights)?];
    match AnyPosition::from_fen(kind, opening)? {
        AnyPosition::Congo(p) => Ok(budget_moves::<congo::Position>(py, p, weights, limits.core, &budgets, hash_mb)),
        AnyPosition::Congress(p) => {
            Ok(budget_moves::<congress::Position>(py, p, weights, limits.core, &budgets, hash_mb))
        }
    }
}

/// Searches the game's fixed bench positions to a fixed depth; returns (nodes, seconds).
#[pyfunction]
#[pyo3(signature = (game, depth=None))]
pub fn bench(py: Python<'_>, game: &str, depth: Option<u32>) -> PyResult<(u64, f64)> {
    let kind = game_kind(game)?;
    let r = py.detach(|| core_bench(kind, depth));
    Ok((r.nodes, r.elapsed.as_secs_f64()))
}

/// Replays a game record: `{"result", "reason", "plies"}` with the result and reason the moves
/// and the adjudication give (both None when nothing ends the game there). A malformed opening,
/// an illegal move or a move after the end raises ValueError naming the ply.
#[pyfunction]
#[pyo3(signature = (game, opening, moves, adjudication=None))]
pub fn replay_game<'py>(
    py: Python<'py>,
    game: &str,
    opening: &str,
    moves: Vec<String>,
    adjudication: Option<Adjudication>,
) -> PyResult<Bound<'py, PyDict>> {
    let adjudication = adjudication.unwrap_or_default().core;
    let replayed = match AnyPosition::from_fen(game_kind(game)?, opening)? {
        AnyPosition::Congo(p) => core_replay::<congo::Position, _>(&p, &moves, adjudication),
        AnyPosition::Congress(p) => core_replay::<congress::Position, _>(&p, &moves, adjudication),
    }
    .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let d = PyDict::new(py);
    d.set_item("result", replayed.end.map(|(r, _)| r.text()))?;
    d.set_item("reason", replayed.end.map(|(_, reason)| reason))?;
    d.set_item("plies", replayed.plies)?;
    Ok(d)
}
