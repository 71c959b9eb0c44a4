//! `GameClock` for Python: the core's clock of a timed game, for the referee of engine programs
//! (the same arithmetic `play_game` keeps, so a refereed game and an in-process one are timed
//! alike).

use arbiter_core::clock::GameClock as CoreGameClock;
use arbiter_core::Color;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::limits::TimeControl;

/// "white" or "black" as a colour.
fn side(name: &str) -> PyResult<Color> {
    match name {
        "white" => Ok(Color::White),
        "black" => Ok(Color::Black),
        _ => Err(PyValueError::new_err(format!("side: expected 'white' or 'black', got '{name}'"))),
    }
}

/// Both sides' clocks of one game, kept as fastchess keeps them: each move's time comes off its
/// side's clock, then the increment (and, at the end of a period, the base time) is added back;
/// a move that takes more than the time left plus the margin loses on time.
#[pyclass(module = "engine._engine")]
pub struct GameClock {
    inner: CoreGameClock,
    margin_ms: u64,
}

#[pymethods]
impl GameClock {
    #[new]
    #[pyo3(signature = (time_control, margin_ms=100))]
    fn new(time_control: PyRef<'_, TimeControl>, margin_ms: u64) -> GameClock {
        GameClock { inner: CoreGameClock::new(time_control.core, margin_ms), margin_ms }
    }

    /// Milliseconds `side` has left.
    fn remaining_ms(&self, side_name: &str) -> PyResult<u64> {
        Ok(self.inner.remaining_ms(side(side_name)?))
    }

    /// How long `side` may take over its move before it loses on time (ms): its time left plus
    /// the margin.
    fn limit_ms(&self, side_name: &str) -> PyResult<u64> {
        Ok(self.inner.remaining_ms(side(side_name)?).saturating_add(self.margin_ms))
    }

    /// What `go` is told when `side` is to move: wtime, btime, winc, binc and, under a repeating
    /// control, movestogo (whole milliseconds).
    fn go_fields<'py>(&self, py: Python<'py>, side_name: &str) -> PyResult<Bound<'py, PyDict>> {
        let to_move = side(side_name)?;
        let fields = PyDict::new(py);
        let increment = self.inner.control().increment_ms();
        fields.set_item("wtime", self.inner.remaining_ms(Color::White))?;
        fields.set_item("btime", self.inner.remaining_ms(Color::Black))?;
        fields.set_item("winc", increment)?;
        fields.set_item("binc", increment)?;
        if let Some(to_go) = self.inner.for_move(to_move).moves_to_go {
            fields.set_item("movestogo", to_go)?;
        }
        Ok(fields)
    }

    /// Charges `side` with a move that took `elapsed_ms`; True if it lost on time by it.
    fn charge(&mut self, side_name: &str, elapsed_ms: u64) -> PyResult<bool> {
        Ok(self.inner.charge(side(side_name)?, elapsed_ms).is_err())
    }

    fn __repr__(&self) -> String {
        format!(
            "GameClock(white={} ms, black={} ms)",
            self.inner.remaining_ms(Color::White),
            self.inner.remaining_ms(Color::Black)
        )
    }
}
