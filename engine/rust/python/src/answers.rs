//! A batch's game records checked for Python in one call: each record's shape (as a worker's JSON
//! object), then `arbiter_core::verdict` (pairs, claimed counts, faults, replays), and the records
//! returned in the form the store keeps. The coordinator checks tens of thousands of records a
//! second: one call per batch, no Python object made per record.

use arbiter_core::ending::GameResult;
use arbiter_core::verdict::{
    check_records as core_check_records, numbers_badly, ply_count, spaced_badly, stored_json, BatchRules, CheckError,
    Fault, Record, Tally,
};
use arbiter_core::{congo, congress, GameKind};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::answer_json::{RawRecord, Records, Stored};
use crate::limits::{Adjudication, Limits};
use crate::position::game_kind;

/// A record's fields, in the order the store keeps them (wire.protocol.RECORD_FIELDS reads them
/// from here).
pub const FIELDS: [&str; 7] = ["opening", "moves", "result", "reason", "candidate_color", "budgets", "times"];
/// The longest strings of a record, in characters (wire.protocol reads them from here): an
/// opening (a position string), an end reason, the moves, and the per-move numbers (budgets,
/// times).
pub const MAX_OPENING: usize = 256;
pub const MAX_REASON: usize = 32;
pub const MAX_MOVES_TEXT: usize = 1_000_000;
pub const MAX_NUMBERS_TEXT: usize = 2_000_000;

/// One field's value of a record, from either form a batch's records come in: a string read in
/// place, or any other value (a string that is not Unicode, a number, ...).
#[derive(Clone, Copy)]
enum FieldValue<'a, 'py> {
    Text(&'a str),
    Other(&'a Bound<'py, PyAny>),
}

impl<'a> FieldValue<'a, '_> {
    fn as_str(self) -> Option<&'a str> {
        match self {
            FieldValue::Text(s) => Some(s),
            FieldValue::Other(v) => v.cast::<PyString>().ok().and_then(|s| s.to_str().ok()),
        }
    }

    /// Python's repr of the value (for a message).
    fn repr(self, py: Python<'_>) -> String {
        match self {
            FieldValue::Text(s) => repr(&PyString::new(py, s).into_any()),
            FieldValue::Other(v) => repr(v),
        }
    }
}

fn bad(message: String) -> PyErr {
    PyValueError::new_err(message)
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "a value".into())
}

fn repr(value: &Bound<'_, PyAny>) -> String {
    value.repr().map(|r| r.to_string()).unwrap_or_else(|_| "a value".into())
}

/// Field `field` of record `i` as a string of at most `max` characters (wire.fields.check_str's
/// messages).
fn text<'a>(value: FieldValue<'a, '_>, i: usize, field: &str, max: usize) -> PyResult<&'a str> {
    let s = match value {
        FieldValue::Text(s) => s,
        FieldValue::Other(value) => {
            let Ok(s) = value.cast::<PyString>() else {
                return Err(bad(format!("games[{i}]: {field}: expected a string, got {}", type_name(value))));
            };
            s.to_str().map_err(|_| bad(format!("games[{i}]: {field}: expected a string of Unicode characters")))?
        }
    };
    if s.len() > max && s.chars().count() > max {
        return Err(bad(format!("games[{i}]: {field}: longer than {max} characters")));
    }
    Ok(s)
}

/// The values of record `i`'s fields in [`FIELDS`] order; ValueError unless it is an object
/// with exactly those keys.
fn fields<'py>(
    i: usize,
    data: &Bound<'py, PyAny>,
    keys: &[Bound<'py, PyString>; 7],
) -> PyResult<[Bound<'py, PyAny>; 7]> {
    let Ok(d) = data.cast::<PyDict>() else {
        return Err(bad(format!("games[{i}]: expected a JSON object, got {}", type_name(data))));
    };
    let mut values = Vec::with_capacity(FIELDS.len());
    let mut missing = Vec::new();
    for (key, name) in keys.iter().zip(FIELDS) {
        match d.get_item(key)? {
            Some(value) => values.push(value),
            None => missing.push(name),
        }
    }
    if !missing.is_empty() {
        return Err(bad(format!("games[{i}]: missing {}", missing.join(", "))));
    }
    if d.len() != FIELDS.len() {
        let mut unknown = Vec::new();
        for key in d.keys() {
            let name = key.str()?.to_string();
            if !FIELDS.contains(&name.as_str()) {
                unknown.push(name);
            }
        }
        unknown.sort();
        return Err(bad(format!("games[{i}]: unknown field(s) {}", unknown.join(", "))));
    }
    values.try_into().map_err(|_| bad(format!("games[{i}]: expected {} fields", FIELDS.len())))
}

/// The values of record `i` read from JSON in [`FIELDS`] order; ValueError unless it is an
/// object with exactly those keys (the messages of [`fields`]).
fn stored_fields<'a, 'py>(
    py: Python<'py>,
    text: &'a str,
    i: usize,
    record: &'a RawRecord,
) -> PyResult<[FieldValue<'a, 'py>; 7]>
where
    'py: 'a,
{
    let (fields, unknown) = match record {
        RawRecord::Object { fields, unknown } => (fields, unknown),
        RawRecord::Other(value) => {
            return Err(bad(format!("games[{i}]: expected a JSON object, got {}", type_name(value.bind(py)))));
        }
    };
    let missing: Vec<&str> = FIELDS.iter().zip(fields).filter(|(_, v)| v.is_none()).map(|(name, _)| *name).collect();
    if !missing.is_empty() {
        return Err(bad(format!("games[{i}]: missing {}", missing.join(", "))));
    }
    if !unknown.is_empty() {
        let mut names: Vec<&str> = unknown.iter().map(|(name, _)| name.as_str()).collect();
        names.sort();
        return Err(bad(format!("games[{i}]: unknown field(s) {}", names.join(", "))));
    }
    Ok(std::array::from_fn(|k| match &fields[k] {
        Some(Stored::Other(v)) => FieldValue::Other(v.bind(py)),
        Some(value) => FieldValue::Text(Records::text_of(text, value).unwrap_or_default()),
        None => unreachable!("a missing field was refused above"),
    }))
}

/// The values of a record as Python gave them (a string read in place where it is one).
fn python_fields<'a, 'py>(v: &'a [Bound<'py, PyAny>; 7]) -> [FieldValue<'a, 'py>; 7] {
    std::array::from_fn(|k| match v[k].cast::<PyString>().ok().and_then(|s| s.to_str().ok()) {
        Some(s) => FieldValue::Text(s),
        None => FieldValue::Other(&v[k]),
    })
}

/// One record's strings, checked as wire.protocol.GameRecord.from_json checks them.
fn check_record<'a>(py: Python<'_>, i: usize, v: [FieldValue<'a, '_>; 7]) -> PyResult<Record<'a>> {
    let result = match v[2].as_str() {
        Some("1-0") => GameResult::WhiteWins,
        Some("0-1") => GameResult::BlackWins,
        Some("1/2-1/2") => GameResult::Draw,
        _ => return Err(bad(format!("games[{i}]: result {} is not one of 1-0, 0-1, 1/2-1/2", v[2].repr(py)))),
    };
    let candidate_white = match v[4].as_str() {
        Some("white") => true,
        Some("black") => false,
        _ => return Err(bad(format!("games[{i}]: candidate_color {} is not 'white' or 'black'", v[4].repr(py)))),
    };
    let opening = text(v[0], i, "opening", MAX_OPENING)?;
    let reason = text(v[3], i, "reason", MAX_REASON)?;
    let moves = text(v[1], i, "moves", MAX_MOVES_TEXT)?;
    if !moves.is_empty() && spaced_badly(moves) {
        return Err(bad(format!("games[{i}]: moves: expected moves separated by single spaces")));
    }
    let numbers = |value: FieldValue<'a, '_>, field: &str| -> PyResult<&'a str> {
        let s = text(value, i, field, MAX_NUMBERS_TEXT)?;
        if numbers_badly(s) {
            return Err(bad(format!("games[{i}]: {field}: expected whole numbers separated by single spaces")));
        }
        Ok(s)
    };
    let budgets = numbers(v[5], "budgets")?;
    let times = numbers(v[6], "times")?;
    if !times.is_empty() && ply_count(times) != ply_count(moves) {
        return Err(bad(format!("games[{i}]: times: expected one per move ({}) or none", ply_count(moves))));
    }
    Ok(Record { opening, moves, result, reason, candidate_white, budgets, times })
}

/// A batch's records as a worker sent them (`games`: the list of JSON objects, or the
/// [`Records`] read from an answer's text by `read_answer`) checked in one call: each record's
/// shape, then one record per game in pair order from the `openings` sent, the `pentanomial` and
/// `wdl` claimed equal to the records' counts, each of the `faults` (game, candidate's fault) on a
/// game its side lost by a fault, and every distinct game replayed to its stated end under
/// `adjudication`, `limits` and `programs` (a side played by an engine program). Returns the
/// counts and the records in the store's form (a JSON array of arrays); ValueError naming the
/// first bad record or fault. (The GIL stays held: the records are read in place.)
#[pyfunction]
#[pyo3(signature = (game, games, openings, pentanomial, wdl, faults, adjudication, limits, programs))]
#[allow(clippy::too_many_arguments)]
pub fn check_records(
    game: &str,
    games: &Bound<'_, PyAny>,
    openings: Vec<String>,
    pentanomial: [u64; 5],
    wdl: [u64; 3],
    faults: Vec<(usize, bool)>,
    adjudication: &Adjudication,
    limits: &Limits,
    programs: bool,
) -> PyResult<(Vec<u64>, Vec<u64>, String)> {
    let py = games.py();
    let kind = game_kind(game)?;
    let read = games.cast::<Records>().ok().map(|r| r.get());
    let read_text = read.map(|r| r.text.bind(py).clone());
    let python_values = if read.is_some() {
        Vec::new()
    } else {
        let list =
            games.cast::<PyList>().map_err(|_| bad(format!("games: expected a list, got {}", type_name(games))))?;
        let keys = FIELDS.map(|key| PyString::intern(py, key)); // hashed once, not per record
        list.iter().enumerate().map(|(i, data)| fields(i, &data, &keys)).collect::<PyResult<Vec<_>>>()?
    };
    let values: Vec<[FieldValue; 7]> = match read {
        Some(records) => {
            let text = read_text.as_ref().map(|t| t.to_str()).transpose()?.unwrap_or_default();
            records.records.iter().enumerate().map(|(i, r)| stored_fields(py, text, i, r)).collect::<PyResult<_>>()?
        }
        None => python_values.iter().map(python_fields).collect(),
    };
    let records = values.iter().enumerate().map(|(i, v)| check_record(py, i, *v)).collect::<PyResult<Vec<_>>>()?;
    let openings: Vec<&str> = openings.iter().map(String::as_str).collect();
    let faults: Vec<Fault> = faults.into_iter().map(|(game, candidate)| Fault { game, candidate }).collect();
    let rules = BatchRules::new(adjudication.core, &limits.core, programs);
    let claimed = Tally { pentanomial, wdl };
    let counted = match kind {
        GameKind::Congo => core_check_records::<congo::Position>(&records, &openings, &claimed, &faults, &rules),
        GameKind::Congress => core_check_records::<congress::Position>(&records, &openings, &claimed, &faults, &rules),
    };
    match counted {
        Ok(counts) => Ok((counts.pentanomial.to_vec(), counts.wdl.to_vec(), stored_json(&records))),
        Err(CheckError::FaultReason { fault, game, .. }) => Err(bad(format!(
            "faults[{fault}]: game {game} ended by {}, not by a fault",
            values[game][3].repr(py) // Python's repr of the reason, as the message always showed it
        ))),
        Err(error) => Err(bad(error.to_string())),
    }
}
