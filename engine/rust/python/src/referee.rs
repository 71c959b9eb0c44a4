//! `EnginePipe` for Python: the referee's per-move path over an engine's pipes
//! (arbiter-referee), waiting with the GIL released. The worker starts, handshakes and kills the
//! process; each move's `go` up to `bestmove` runs here, a Python loop per line less.

use std::time::{Duration, Instant};

use arbiter_referee::pipe::Fault;
use arbiter_referee::search::Waits;
use arbiter_referee::{AtDeadline, EnginePipe as Pipe, SearchInfo};
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    _engine,
    EnginePipeFault,
    PyException,
    "What an engine did wrong on its pipes: args (kind, text), kind gone, hang, time_forfeit or protocol."
);

/// A fault as `EnginePipeFault`'s args: kind (gone, hang, time_forfeit or protocol) and text.
pub fn fault_parts(f: Fault) -> (&'static str, String) {
    match f {
        Fault::Gone => ("gone", String::new()),
        Fault::Hang => ("hang", String::new()),
        Fault::TimeForfeit => ("time_forfeit", String::new()),
        Fault::Protocol(text) => ("protocol", text),
    }
}

fn fault(f: Fault) -> PyErr {
    PyErr::new::<EnginePipeFault, _>(fault_parts(f))
}

/// `seconds` as a wait: negative and NaN wait nothing, more than a year is a year.
pub fn wait(seconds: f64) -> Duration {
    if seconds > 0.0 {
        Duration::from_secs_f64(seconds.min(365.0 * 86_400.0))
    } else {
        Duration::ZERO
    }
}

/// The search's info fields: depth, seldepth, score_cp, score_mate, nodes, nps, time_ms, pv.
type InfoTuple =
    (Option<i64>, Option<i64>, Option<i64>, Option<i64>, Option<i64>, Option<i64>, Option<i64>, Vec<String>);

fn info_tuple(i: SearchInfo) -> InfoTuple {
    (i.depth, i.seldepth, i.score_cp, i.score_mate, i.nodes, i.nps, i.time_ms, i.pv)
}

/// One engine process's non-blocking stdin, stdout and stderr (and pidfd), which the caller
/// owns and closes; `forget` before closing them.
#[pyclass(module = "engine._engine")]
pub struct EnginePipe {
    pub(crate) pipe: Pipe,
}

#[pymethods]
impl EnginePipe {
    /// A line of engine output longer than this is a protocol violation.
    #[classattr]
    const MAX_LINE_BYTES: usize = arbiter_referee::pipe::MAX_LINE_BYTES;
    /// More output than this while the referee waits for one answer is a flood.
    #[classattr]
    const MAX_ANSWER_BYTES: usize = arbiter_referee::pipe::MAX_ANSWER_BYTES;
    /// The last lines of stderr kept, and the characters kept of each.
    #[classattr]
    const STDERR_LINES: usize = arbiter_referee::pipe::STDERR_LINES;
    #[classattr]
    const STDERR_LINE_CHARS: usize = arbiter_referee::pipe::STDERR_LINE_CHARS;

    #[new]
    #[pyo3(signature = (stdin, stdout, stderr, pidfd=None))]
    fn new(stdin: i32, stdout: i32, stderr: i32, pidfd: Option<i32>) -> EnginePipe {
        EnginePipe { pipe: Pipe::new(stdin, stdout, stderr, pidfd) }
    }

    /// Output read and not yet taken as lines.
    #[getter]
    fn buffered_bytes(&self) -> usize {
        self.pipe.buffered_bytes()
    }

    /// Starts counting output afresh: the flood bound applies to each answer waited for.
    fn begin_answer(&mut self) {
        self.pipe.begin_answer();
    }

    /// Drops the output read and not taken as lines.
    fn discard_output(&mut self) {
        self.pipe.discard_output();
    }

    /// Never touches the file descriptors again (they are about to be closed).
    fn forget(&mut self) {
        self.pipe.forget();
    }

    /// The next line of output, or None after `timeout_s`.
    fn read_line(&mut self, py: Python<'_>, timeout_s: f64) -> PyResult<Option<String>> {
        let deadline = Instant::now() + wait(timeout_s);
        py.detach(|| self.pipe.read_line(deadline)).map_err(fault)
    }

    /// Writes `data` whole within `timeout_s`.
    fn send(&mut self, py: Python<'_>, data: &str, timeout_s: f64) -> PyResult<()> {
        py.detach(|| self.pipe.send(data.as_bytes(), wait(timeout_s))).map_err(fault)
    }

    /// Waits up to `timeout_s` for output, stderr or the engine's exit, and takes what came.
    fn pump(&mut self, py: Python<'_>, timeout_s: f64) -> PyResult<()> {
        py.detach(|| self.pipe.pump(wait(timeout_s), false)).map_err(fault)
    }

    /// The last lines the engine wrote to stderr (control characters removed, bounded).
    fn stderr_tail(&self) -> Vec<String> {
        self.pipe.stderr_tail()
    }

    /// Forgets the stderr lines kept so far (an engine kept for another batch).
    fn forget_stderr(&mut self) {
        self.pipe.forget_stderr();
    }

    /// Writes `commands` (lines, `go` last) and reads up to `bestmove`: (move, ponder, info,
    /// every line read). `at_deadline` is forfeit, stop or hang (docs/protocol.md's failures).
    fn search(
        &mut self,
        py: Python<'_>,
        commands: &str,
        deadline_s: f64,
        at_deadline: &str,
        stop_s: f64,
        write_s: f64,
    ) -> PyResult<(String, Option<String>, InfoTuple, Vec<String>)> {
        let at = match at_deadline {
            "forfeit" => AtDeadline::Forfeit,
            "stop" => AtDeadline::Stop,
            "hang" => AtDeadline::Hang,
            other => {
                return Err(PyValueError::new_err(format!(
                    "at_deadline: expected forfeit, stop or hang, got {other:?}"
                )))
            }
        };
        let waits = Waits { deadline: wait(deadline_s), stop: wait(stop_s), write: wait(write_s) };
        let answer = py.detach(|| self.pipe.search(commands, waits, at)).map_err(fault)?;
        Ok((answer.best, answer.ponder, info_tuple(answer.info), answer.lines))
    }
}
