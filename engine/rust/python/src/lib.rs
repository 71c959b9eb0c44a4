//! engine._engine: the thin Python binding of arbiter-core. Python-facing names and errors only;
//! every rule lives in the core crate.

mod answer_json;
mod answers;
mod clock;
mod judge;
mod limits;
mod play;
mod position;
mod referee;

use pyo3::prelude::*;

pyo3::create_exception!(_engine, InvalidPositionError, pyo3::exceptions::PyValueError, "A malformed position string.");
pyo3::create_exception!(
    _engine,
    InvalidMoveError,
    pyo3::exceptions::PyValueError,
    "Text that is not a move in the game's notation."
);
pyo3::create_exception!(
    _engine,
    IllegalMoveError,
    pyo3::exceptions::PyValueError,
    "A well-formed move that is not legal in the position."
);

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("InvalidPositionError", py.get_type::<InvalidPositionError>())?;
    m.add("InvalidMoveError", py.get_type::<InvalidMoveError>())?;
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    m.add("EnginePipeFault", py.get_type::<referee::EnginePipeFault>())?;
    // The version that gates batches: the core's, with a hash of all that decides a worker's games.
    m.add("ENGINE_VERSION", concat!(env!("CARGO_PKG_VERSION"), "+", env!("ARBITER_BUILD_HASH")))?;
    m.add("GAMES", arbiter_core::GameKind::ALL.map(|g| g.name()))?;
    m.add("LIMIT_BOUNDS", limits::bounds(py)?)?;
    m.add_class::<position::Position>()?;
    m.add_class::<position::Outcome>()?;
    m.add_class::<judge::GameJudge>()?;
    m.add_class::<clock::GameClock>()?;
    m.add_class::<play::WeightSpec>()?;
    m.add_class::<limits::Limits>()?;
    m.add_class::<limits::TimeControl>()?;
    m.add_class::<limits::Adjudication>()?;
    m.add_class::<referee::EnginePipe>()?;
    m.add_function(wrap_pyfunction!(judge::resignation_score, m)?)?;
    m.add_function(wrap_pyfunction!(play::weights, m)?)?;
    m.add_function(wrap_pyfunction!(play::validate_weights, m)?)?;
    m.add_function(wrap_pyfunction!(play::search, m)?)?;
    m.add_function(wrap_pyfunction!(play::play_game, m)?)?;
    m.add_function(wrap_pyfunction!(play::moves_for_budgets, m)?)?;
    m.add_function(wrap_pyfunction!(play::bench, m)?)?;
    m.add_function(wrap_pyfunction!(play::replay_game, m)?)?;
    m.add_function(wrap_pyfunction!(answers::check_records, m)?)?;
    m.add_function(wrap_pyfunction!(answer_json::read_answer, m)?)?;
    m.add_class::<answer_json::Records>()?;
    // The shape of a game record (wire.protocol reads it from here): its fields, in the order the
    // store keeps them, and the longest strings it may hold, in characters.
    m.add("RECORD_FIELDS", pyo3::types::PyTuple::new(py, answers::FIELDS)?)?;
    m.add("MAX_OPENING", answers::MAX_OPENING)?;
    m.add("MAX_REASON", answers::MAX_REASON)?;
    m.add("MAX_MOVES_TEXT", answers::MAX_MOVES_TEXT)?;
    m.add("MAX_NUMBERS_TEXT", answers::MAX_NUMBERS_TEXT)?;
    m.add("BENCH_DEPTH", arbiter_core::bench::DEPTH)?;
    // A search score of MATE_SCORE - n (or -(MATE_SCORE - n)) is a win (loss) in n plies; every
    // score beyond MATE_BOUND is such a forced result.
    m.add("MATE_SCORE", arbiter_core::search::MATE)?;
    m.add("MATE_BOUND", arbiter_core::search::MATE_BOUND)?;
    Ok(())
}
