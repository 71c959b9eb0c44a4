//! `Limits`, `TimeControl` and `Adjudication` for Python: the core's types as frozen values, read
//! from and written to the JSON form that crosses the broker and is stored with every run.
//!
//! `from_json` is the one place where these values coming from outside (a stored run, a worker's
//! payload) are checked: every error is a ValueError naming the field (`limits.nodes: ...`).

use arbiter_core::ending::Adjudication as CoreAdjudication;
use arbiter_core::limits::{
    Bound as LimitBound, LimitError, Limits as CoreLimits, TimeControl as CoreTimeControl, BASE_MS, BOUNDS,
    DEFAULT_TIME_MARGIN_MS, DEPTH, INCREMENT_MS, MOVETIME_MS, NODES, PERIOD_MOVES, TIME_MARGIN_MS,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt};

fn limit_error(e: LimitError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// `{field: (min, max)}` of every limit: the one source of the bounds that the command line checks
/// before a value reaches the core (`engine.LIMIT_BOUNDS`).
pub fn bounds(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for b in BOUNDS {
        d.set_item(b.field, (b.min, b.max))?;
    }
    Ok(d)
}

/// A value within `bound` from a JSON value (never a bool), or a ValueError naming `name`.
fn bounded(value: &Bound<'_, PyAny>, name: &str, bound: LimitBound) -> PyResult<u64> {
    whole(value, name, i128::from(bound.min), i128::from(bound.max)).map(|n| n as u64)
}

/// A whole number from a JSON value (never a bool), or a ValueError naming `name`.
fn whole(value: &Bound<'_, PyAny>, name: &str, min: i128, max: i128) -> PyResult<i128> {
    let bad = || {
        let got = value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "a value".into());
        PyValueError::new_err(format!("{name}: expected a whole number from {min} to {max}, got {got}"))
    };
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(bad());
    }
    let n: i128 = value.extract().map_err(|_| bad())?;
    if n < min || n > max {
        return Err(bad());
    }
    Ok(n)
}

/// The entries of a JSON object, refusing keys outside `known`.
fn object<'py>(value: &Bound<'py, PyAny>, name: &str, known: &[&str]) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
    let dict = value
        .cast::<PyDict>()
        .map_err(|_| PyValueError::new_err(format!("{name}: expected a JSON object, got {}", type_name(value))))?;
    let mut out = Vec::with_capacity(dict.len());
    let mut unknown = Vec::new();
    for (k, v) in dict.iter() {
        let key: String = k.extract().map_err(|_| PyValueError::new_err(format!("{name}: keys must be strings")))?;
        if known.contains(&key.as_str()) {
            out.push((key, v));
        } else {
            unknown.push(key);
        }
    }
    if !unknown.is_empty() {
        unknown.sort();
        return Err(PyValueError::new_err(format!(
            "{name}: unknown field(s) {}; expected {}",
            unknown.join(", "),
            known.join(", ")
        )));
    }
    Ok(out)
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "a value".into())
}

/// A time control: `TimeControl(base_ms, increment_ms=0, moves=None)`, or `TimeControl.parse("10+0.1")`
/// (also `40/60+0.5`: 60 s for every 40 moves, and `60`).
#[pyclass(module = "engine._engine", frozen, eq, hash, from_py_object)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct TimeControl {
    pub core: CoreTimeControl,
}

#[pymethods]
impl TimeControl {
    #[new]
    #[pyo3(signature = (base_ms, increment_ms=None, moves=None))]
    fn new(
        py: Python<'_>,
        base_ms: &Bound<'_, PyAny>,
        increment_ms: Option<&Bound<'_, PyAny>>,
        moves: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<TimeControl> {
        let d = PyDict::new(py);
        d.set_item("base_ms", base_ms)?;
        if let Some(v) = increment_ms {
            d.set_item("increment_ms", v)?;
        }
        if let Some(v) = moves {
            d.set_item("moves", v)?;
        }
        TimeControl::from_json(d.as_any(), "time_control")
    }

    /// Parses `[moves/]base[+increment]`, times in seconds.
    #[staticmethod]
    fn parse(text: &str) -> PyResult<TimeControl> {
        CoreTimeControl::parse(text).map(|core| TimeControl { core }).map_err(limit_error)
    }

    #[getter]
    fn base_ms(&self) -> u64 {
        self.core.base_ms()
    }

    #[getter]
    fn increment_ms(&self) -> u64 {
        self.core.increment_ms()
    }

    /// Moves of a side per period (None: the whole game).
    #[getter]
    fn moves(&self) -> Option<u32> {
        self.core.moves()
    }

    /// The control scaled by `factor` (base and increment; a worker's speed, say), in whole ms.
    fn scaled(&self, factor: f64) -> PyResult<TimeControl> {
        if !(factor.is_finite() && factor > 0.0) {
            return Err(PyValueError::new_err(format!("scale factor must be a positive number, got {factor}")));
        }
        let scale = |ms: u64| (ms as f64 * factor).round() as u64;
        CoreTimeControl::new(self.core.moves(), scale(self.core.base_ms()).max(1), scale(self.core.increment_ms()))
            .map(|core| TimeControl { core })
            .map_err(limit_error)
    }

    /// Pickled (and copied) as its JSON form.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyDict>,))> {
        Ok((py.get_type::<TimeControl>().getattr("from_json")?, (self.to_json(py)?,)))
    }

    fn to_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("moves", self.core.moves())?;
        d.set_item("base_ms", self.core.base_ms())?;
        d.set_item("increment_ms", self.core.increment_ms())?;
        Ok(d)
    }

    /// The control from its JSON object (see `to_json`); ValueError naming the bad field.
    #[staticmethod]
    #[pyo3(signature = (value, name="time_control"))]
    fn from_json(value: &Bound<'_, PyAny>, name: &str) -> PyResult<TimeControl> {
        let (mut moves, mut base, mut increment) = (None, None, 0);
        for (key, v) in object(value, name, &["moves", "base_ms", "increment_ms"])? {
            let field = format!("{name}.{key}");
            match key.as_str() {
                "moves" if !v.is_none() => moves = Some(bounded(&v, &field, PERIOD_MOVES)? as u32),
                "moves" => {}
                "base_ms" => base = Some(bounded(&v, &field, BASE_MS)?),
                _ => increment = bounded(&v, &field, INCREMENT_MS)?,
            }
        }
        let base = base.ok_or_else(|| PyValueError::new_err(format!("{name}: missing base_ms")))?;
        CoreTimeControl::new(moves, base, increment)
            .map(|core| TimeControl { core })
            .map_err(|e| PyValueError::new_err(format!("{name}: expected {}", e.expected)))
    }

    fn __str__(&self) -> String {
        self.core.to_string()
    }

    fn __repr__(&self) -> String {
        format!("TimeControl.parse({:?})", self.core.to_string())
    }
}

/// The limits of every move of a match: `Limits(nodes=, depth=, movetime_ms=, time_control=,
/// time_margin_ms=100)`, at least one of the first four. A search stops at the first one reached.
#[pyclass(module = "engine._engine", frozen, eq, hash, from_py_object)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Limits {
    pub core: CoreLimits,
}

#[pymethods]
impl Limits {
    #[new]
    #[pyo3(signature = (**values))]
    fn new(values: Option<&Bound<'_, PyDict>>) -> PyResult<Limits> {
        match values {
            Some(values) => Limits::from_json(values.as_any(), "limits"),
            None => Err(PyValueError::new_err("limits: expected nodes, depth, movetime_ms or a time_control")),
        }
    }

    #[getter]
    fn nodes(&self) -> Option<u64> {
        self.core.nodes()
    }

    #[getter]
    fn depth(&self) -> Option<u32> {
        self.core.depth()
    }

    #[getter]
    fn movetime_ms(&self) -> Option<u64> {
        self.core.movetime_ms()
    }

    #[getter]
    fn time_control(&self) -> Option<TimeControl> {
        self.core.time_control().map(|core| TimeControl { core })
    }

    #[getter]
    fn time_margin_ms(&self) -> u64 {
        self.core.time_margin_ms()
    }

    /// True when a game under these limits is the same on every machine (no time limit).
    #[getter]
    fn deterministic(&self) -> bool {
        self.core.deterministic()
    }

    /// These limits with some fields changed (keyword arguments as in the constructor; None
    /// clears a limit).
    #[pyo3(signature = (**changes))]
    fn replace<'py>(&self, py: Python<'py>, changes: Option<&Bound<'py, PyDict>>) -> PyResult<Limits> {
        let merged = self.to_json(py)?;
        if let Some(tc) = self.core.time_control() {
            merged.set_item("time_control", TimeControl { core: tc })?;
        }
        if let Some(changes) = changes {
            merged.update(changes.as_mapping())?;
        }
        Limits::from_json(merged.as_any(), "limits")
    }

    /// The JSON object of the limits: only the limits set (`{"nodes": 2000}`), and the time margin
    /// only beside a time control.
    /// Pickled (and copied) as its JSON form.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyDict>,))> {
        Ok((py.get_type::<Limits>().getattr("from_json")?, (self.to_json(py)?,)))
    }

    fn to_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let c = self.core;
        if let Some(n) = c.nodes() {
            d.set_item("nodes", n)?;
        }
        if let Some(n) = c.depth() {
            d.set_item("depth", n)?;
        }
        if let Some(n) = c.movetime_ms() {
            d.set_item("movetime_ms", n)?;
        }
        if let Some(tc) = c.time_control() {
            d.set_item("time_control", TimeControl { core: tc }.to_json(py)?)?;
            d.set_item("time_margin_ms", c.time_margin_ms())?;
        }
        Ok(d)
    }

    /// Limits from their JSON object (see `to_json`); ValueError naming the bad field.
    #[staticmethod]
    #[pyo3(signature = (value, name="limits"))]
    fn from_json(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Limits> {
        let (mut nodes, mut depth, mut movetime_ms, mut time_control) = (None, None, None, None);
        let mut time_margin_ms = DEFAULT_TIME_MARGIN_MS;
        for (key, v) in object(value, name, FIELDS)? {
            let field = format!("{name}.{key}");
            if v.is_none() {
                continue;
            }
            match key.as_str() {
                "nodes" => nodes = Some(bounded(&v, &field, NODES)?),
                "depth" => depth = Some(bounded(&v, &field, DEPTH)? as u32),
                "movetime_ms" => movetime_ms = Some(bounded(&v, &field, MOVETIME_MS)?),
                "time_control" => {
                    let given = v.extract::<TimeControl>();
                    time_control = Some(match given {
                        Ok(tc) => tc.core,
                        Err(_) => TimeControl::from_json(&v, &field)?.core,
                    });
                }
                _ => time_margin_ms = bounded(&v, &field, TIME_MARGIN_MS)?,
            }
        }
        CoreLimits::new(nodes, depth, movetime_ms, time_control, time_margin_ms)
            .map(|core| Limits { core })
            .map_err(|e| match e.field {
                "limits" => PyValueError::new_err(format!("{name}: expected {}", e.expected)),
                field => PyValueError::new_err(format!("{name}.{field}: expected {}", e.expected)),
            })
    }

    /// `2000 nodes`, `depth 8`, `100 ms/move`, `tc 10+0.1`.
    fn __str__(&self) -> String {
        self.core.to_string()
    }

    fn __repr__(&self) -> String {
        let c = self.core;
        let mut parts = Vec::new();
        if let Some(n) = c.nodes() {
            parts.push(format!("nodes={n}"));
        }
        if let Some(n) = c.depth() {
            parts.push(format!("depth={n}"));
        }
        if let Some(n) = c.movetime_ms() {
            parts.push(format!("movetime_ms={n}"));
        }
        if let Some(tc) = c.time_control() {
            parts.push(format!(
                "time_control=TimeControl.parse({:?}), time_margin_ms={}",
                tc.to_string(),
                c.time_margin_ms()
            ));
        }
        format!("Limits({})", parts.join(", "))
    }
}

const FIELDS: &[&str] = &["nodes", "depth", "movetime_ms", "time_control", "time_margin_ms"];
const ADJUDICATION_FIELDS: &[&str] = &["max_plies", "repetition", "bare_lions", "resign_score", "resign_plies"];

/// Tournament rules that end games the game rules would not (all off by default):
/// `Adjudication(max_plies=None, repetition=False, bare_lions=False, resign_score=None, resign_plies=0)`.
#[pyclass(module = "engine._engine", frozen, eq, hash, from_py_object)]
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Adjudication {
    pub core: CoreAdjudication,
}

/// The longest ply limit a run may set.
const MAX_PLY_LIMIT: i128 = 100_000;
/// Scores beyond this are mate scores, not a resignation threshold.
const MAX_RESIGN_SCORE: i128 = 29_000;

#[pymethods]
impl Adjudication {
    #[new]
    #[pyo3(signature = (**values))]
    fn new(py: Python<'_>, values: Option<&Bound<'_, PyDict>>) -> PyResult<Adjudication> {
        Adjudication::from_json(values.cloned().unwrap_or_else(|| PyDict::new(py)).as_any(), "adjudication")
    }

    #[getter]
    fn max_plies(&self) -> Option<u32> {
        self.core.max_plies
    }

    #[getter]
    fn repetition(&self) -> bool {
        self.core.repetition
    }

    #[getter]
    fn bare_lions(&self) -> bool {
        self.core.bare_lions
    }

    #[getter]
    fn resign_score(&self) -> Option<i32> {
        self.core.resign_score
    }

    #[getter]
    fn resign_plies(&self) -> u32 {
        self.core.resign_plies
    }

    /// Every field, always (the form stored with runs).
    /// Pickled (and copied) as its JSON form.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyDict>,))> {
        Ok((py.get_type::<Adjudication>().getattr("from_json")?, (self.to_json(py)?,)))
    }

    fn to_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let a = self.core;
        let d = PyDict::new(py);
        d.set_item("max_plies", a.max_plies)?;
        d.set_item("repetition", a.repetition)?;
        d.set_item("bare_lions", a.bare_lions)?;
        d.set_item("resign_score", a.resign_score)?;
        d.set_item("resign_plies", a.resign_plies)?;
        Ok(d)
    }

    /// Adjudication from its JSON object (missing fields are off); ValueError naming the bad field.
    #[staticmethod]
    #[pyo3(signature = (value, name="adjudication"))]
    fn from_json(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Adjudication> {
        let mut a = CoreAdjudication::default();
        for (key, v) in object(value, name, ADJUDICATION_FIELDS)? {
            let field = format!("{name}.{key}");
            let flag = |v: &Bound<'_, PyAny>| -> PyResult<bool> {
                v.cast::<PyBool>()
                    .map(|b| b.is_true())
                    .map_err(|_| PyValueError::new_err(format!("{field}: expected true or false, got {v}")))
            };
            match key.as_str() {
                "max_plies" if !v.is_none() => a.max_plies = Some(whole(&v, &field, 1, MAX_PLY_LIMIT)? as u32),
                "resign_score" if !v.is_none() => {
                    a.resign_score = Some(whole(&v, &field, 1, MAX_RESIGN_SCORE)? as i32);
                }
                "max_plies" | "resign_score" => {}
                "repetition" => a.repetition = flag(&v)?,
                "bare_lions" => a.bare_lions = flag(&v)?,
                _ => a.resign_plies = whole(&v, &field, 0, MAX_PLY_LIMIT)? as u32,
            }
        }
        Ok(Adjudication { core: a })
    }

    fn __repr__(&self) -> String {
        let a = self.core;
        let show = |o: Option<i64>| o.map_or("None".to_string(), |v| v.to_string());
        format!(
            "Adjudication(max_plies={}, repetition={}, bare_lions={}, resign_score={}, resign_plies={})",
            show(a.max_plies.map(i64::from)),
            if a.repetition { "True" } else { "False" },
            if a.bare_lions { "True" } else { "False" },
            show(a.resign_score.map(i64::from)),
            a.resign_plies
        )
    }
}
