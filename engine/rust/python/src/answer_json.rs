//! A worker's answer read from its JSON text for Python: every value as the Python object JSON
//! makes of it, except a top-level object's `games` array, whose records stay in Rust
//! ([`Records`]) until `check_records` reads them. A batch's answer holds a thousand records of
//! seven fields: made into Python dicts and strings, they cost the coordinator more than their
//! parsing here.

use std::fmt;

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::answers::FIELDS;

/// One field's value of a record read from JSON: a string, as it stands in the answer's text
/// (where it has no escape: the bytes `start..end` of [`Records::text`]) or decoded, or any other
/// value as the Python object JSON makes of it (only a bad record has one).
pub enum Stored {
    Span(usize, usize),
    Text(String),
    Other(Py<PyAny>),
}

/// One element of a result's `games` array.
pub enum RawRecord {
    /// A JSON object: its known fields in [`FIELDS`] order (None: missing), and any other keys.
    Object { fields: [Option<Stored>; 7], unknown: Vec<(String, Py<PyAny>)> },
    /// Anything else, as Python made it.
    Other(Py<PyAny>),
}

/// The records of a result's `games` array, read from JSON and kept in Rust: `check_records`
/// reads them in place. A sequence of the records as JSON objects (dicts) for the rare readers
/// in Python (a spot check, a fault's reason).
#[pyclass(module = "engine._engine", frozen)]
pub struct Records {
    /// The answer's text, which the records' strings are read from in place.
    pub text: Py<PyString>,
    pub records: Vec<RawRecord>,
}

impl Records {
    /// A stored string value: in place in the answer's text, or decoded; None for another value.
    pub fn text_of<'a>(text: &'a str, value: &'a Stored) -> Option<&'a str> {
        match value {
            Stored::Span(start, end) => text.get(*start..*end),
            Stored::Text(s) => Some(s),
            Stored::Other(_) => None,
        }
    }
}

fn stored_object<'py>(py: Python<'py>, text: &str, value: &Stored) -> Bound<'py, PyAny> {
    match (value, Records::text_of(text, value)) {
        (Stored::Other(v), _) => v.bind(py).clone(),
        (_, s) => PyString::new(py, s.unwrap_or_default()).into_any(),
    }
}

fn record_object<'py>(py: Python<'py>, text: &str, record: &RawRecord) -> PyResult<Bound<'py, PyAny>> {
    match record {
        RawRecord::Object { fields, unknown } => {
            let d = PyDict::new(py);
            for (name, value) in FIELDS.iter().zip(fields) {
                if let Some(value) = value {
                    d.set_item(name, stored_object(py, text, value))?;
                }
            }
            for (name, value) in unknown {
                d.set_item(name, value.bind(py))?;
            }
            Ok(d.into_any())
        }
        RawRecord::Other(v) => Ok(v.bind(py).clone()),
    }
}

#[pymethods]
impl Records {
    fn __len__(&self) -> usize {
        self.records.len()
    }

    /// Record `index` as a dict (a fresh one each time).
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyAny>> {
        let n = self.records.len() as isize;
        let i = if index < 0 { index + n } else { index };
        if i < 0 || i >= n {
            return Err(PyIndexError::new_err("record index out of range"));
        }
        record_object(py, self.text.bind(py).to_str()?, &self.records[i as usize])
    }

    /// The records as dicts, one after the other.
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = self.text.bind(py).to_str()?;
        let all = self.records.iter().map(|r| record_object(py, text, r)).collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(py, all)?.try_iter()?.into_any())
    }
}

/// What a value being read becomes.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Its Python object.
    Plain,
    /// The answer itself: an object's `games` is read as [`Mode::Games`].
    Answer,
    /// A `games` value: an array's records are kept in Rust.
    Games,
}

/// Reads one JSON value of `text` into a Python object.
#[derive(Clone, Copy)]
struct Value<'a, 'py> {
    py: Python<'py>,
    text: &'a Bound<'py, PyString>,
    base: usize,
    mode: Mode,
}

impl<'a, 'py> Value<'a, 'py> {
    fn with(self, mode: Mode) -> Self {
        Value { mode, ..self }
    }
}

fn python_error<E: de::Error>(error: PyErr) -> E {
    E::custom(error)
}

impl<'de, 'py> DeserializeSeed<'de> for Value<'_, 'py> {
    type Value = Bound<'py, PyAny>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, 'py> Visitor<'de> for Value<'_, 'py> {
    type Value = Bound<'py, PyAny>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(PyBool::new(self.py, v).to_owned().into_any())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        let Ok(n) = v.into_pyobject(self.py);
        Ok(n.into_any())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        let Ok(n) = v.into_pyobject(self.py);
        Ok(n.into_any())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(PyFloat::new(self.py, v).into_any())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(PyString::new(self.py, v).into_any())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(self.py.None().into_bound(self.py))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        if self.mode == Mode::Games {
            let mut records = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(record) = seq.next_element_seed(Record(self.with(Mode::Plain)))? {
                records.push(record);
            }
            let text = self.text.clone().unbind();
            return Ok(Bound::new(self.py, Records { text, records }).map_err(python_error)?.into_any());
        }
        let list = PyList::empty(self.py);
        let plain = self.with(Mode::Plain);
        while let Some(item) = seq.next_element_seed(plain)? {
            list.append(item).map_err(python_error)?;
        }
        Ok(list.into_any())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let d = PyDict::new(self.py);
        while let Some(key) = map.next_key::<String>()? {
            let mode = if self.mode == Mode::Answer && key == "games" { Mode::Games } else { Mode::Plain };
            let value = map.next_value_seed(self.with(mode))?;
            d.set_item(key, value).map_err(python_error)?;
        }
        Ok(d.into_any())
    }
}

/// Reads one element of `games` into a [`RawRecord`].
struct Record<'a, 'py>(Value<'a, 'py>);

/// Delegates a visit of a value that is not a JSON object to [`Value`] (as Python makes it).
macro_rules! other_values {
    ($wrap:expr) => {
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            self.plain().visit_bool(v).map($wrap)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            self.plain().visit_i64(v).map($wrap)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            self.plain().visit_u64(v).map($wrap)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            self.plain().visit_f64(v).map($wrap)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            self.plain().visit_unit().map($wrap)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            self.plain().visit_seq(seq).map($wrap)
        }
    };
}

impl<'a, 'py> Record<'a, 'py> {
    fn plain(&self) -> Value<'a, 'py> {
        self.0
    }
}

impl<'de> DeserializeSeed<'de> for Record<'_, '_> {
    type Value = RawRecord;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Record<'_, '_> {
    type Value = RawRecord;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a game record")
    }

    other_values!(|v: Bound<'_, PyAny>| RawRecord::Other(v.unbind()));

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.plain().visit_str(v).map(|v| RawRecord::Other(v.unbind()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields: [Option<Stored>; 7] = Default::default();
        let mut unknown: Vec<(String, Py<PyAny>)> = Vec::new();
        while let Some(key) = map.next_key_seed(Key)? {
            match key {
                Ok(i) => fields[i] = Some(map.next_value_seed(Field(self.0))?),
                Err(name) => {
                    let value = map.next_value_seed(self.plain())?.unbind();
                    unknown.retain(|(n, _)| *n != name); // the last of a repeated key, as Python's
                    unknown.push((name, value));
                }
            }
        }
        Ok(RawRecord::Object { fields, unknown })
    }
}

/// A record's key: the index of one of [`FIELDS`], or another name.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Result<usize, String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Result<usize, String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(FIELDS.iter().position(|f| *f == v).ok_or_else(|| v.to_owned()))
    }
}

/// A record field's value: a string kept where it stands in the text (or decoded, when it has an
/// escape), anything else as Python makes it.
struct Field<'a, 'py>(Value<'a, 'py>);

impl<'a, 'py> Field<'a, 'py> {
    fn plain(&self) -> Value<'a, 'py> {
        self.0
    }
}

impl<'de> DeserializeSeed<'de> for Field<'_, '_> {
    type Value = Stored;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Field<'_, '_> {
    type Value = Stored;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field value")
    }

    other_values!(|v: Bound<'_, PyAny>| Stored::Other(v.unbind()));

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        let start = v.as_ptr() as usize - self.0.base; // a slice of the text being read
        Ok(Stored::Span(start, start + v.len()))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Stored::Text(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Stored::Text(v))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.plain().visit_map(map).map(|v| Stored::Other(v.unbind()))
    }
}

/// A worker's answer (a result, a refusal, any JSON) from its JSON text: the Python object JSON
/// makes of it, except that a top-level object's `games` array is an [`Records`]. ValueError for
/// text that is not one JSON value.
#[pyfunction]
pub fn read_answer<'py>(text: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyAny>> {
    let py = text.py();
    let utf8 = text.to_str()?; // the string's own UTF-8, which lives as long as it does
    let mut reader = serde_json::Deserializer::from_str(utf8);
    let value = Value { py, text, base: utf8.as_ptr() as usize, mode: Mode::Answer }
        .deserialize(&mut reader)
        .and_then(|value| reader.end().map(|()| value))
        .map_err(|e| PyValueError::new_err(format!("not JSON: {e}")))?;
    Ok(value)
}
