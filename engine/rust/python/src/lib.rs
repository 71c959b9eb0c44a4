//! engine._engine: the thin Python binding of arbiter-core. Python-facing names and errors only;
//! every rule lives in the core crate.

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
    m.add("BENCH_DEPTH", arbiter_core::bench::DEPTH)?;
    // A search score of MATE_SCORE - n (or -(MATE_SCORE - n)) is a win (loss) in n plies; every
    // score beyond MATE_BOUND is such a forced result.
    m.add("MATE_SCORE", arbiter_core::search::MATE)?;
    m.add("MATE_BOUND", arbiter_core::search::MATE_BOUND)?;
    Ok(())
}
