//! What limits a move: the limits of a match (nodes, depth, time per move, a time control) and the
//! limits of one search (the same, with the side to move's clock in place of the time control).

use std::fmt;

/// The most nodes a move may be given (minutes of search on any machine).
pub const MAX_NODES: u64 = 100_000_000;
/// The deepest iteration of the search.
pub const MAX_DEPTH: u32 = 64;
/// The longest fixed time a move may be given, and the longest base time of a control (ms).
pub const MAX_MOVETIME_MS: u64 = 60_000;
pub const MAX_BASE_MS: u64 = 24 * 3_600_000;

/// The inclusive range a limit's value must lie in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    /// The field's name, as in the JSON form of limits and time controls.
    pub field: &'static str,
    pub min: u64,
    pub max: u64,
}

impl Bound {
    pub fn contains(&self, value: u64) -> bool {
        (self.min..=self.max).contains(&value)
    }
}

pub const NODES: Bound = Bound { field: "nodes", min: 1, max: MAX_NODES };
pub const DEPTH: Bound = Bound { field: "depth", min: 1, max: MAX_DEPTH as u64 };
pub const MOVETIME_MS: Bound = Bound { field: "movetime_ms", min: 1, max: MAX_MOVETIME_MS };
pub const TIME_MARGIN_MS: Bound = Bound { field: "time_margin_ms", min: 0, max: MAX_TIME_MARGIN_MS };
pub const BASE_MS: Bound = Bound { field: "base_ms", min: 1, max: MAX_BASE_MS };
pub const INCREMENT_MS: Bound = Bound { field: "increment_ms", min: 0, max: MAX_MOVETIME_MS };
pub const PERIOD_MOVES: Bound = Bound { field: "moves", min: 1, max: 1000 };
/// Every bound, for those who check values before they reach the core (the command line).
pub const BOUNDS: [Bound; 7] = [NODES, DEPTH, MOVETIME_MS, TIME_MARGIN_MS, BASE_MS, INCREMENT_MS, PERIOD_MOVES];

/// Why a limit cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitError {
    /// The limit's name: `nodes`, `depth`, `movetime_ms`, `time_control`, ...
    pub field: &'static str,
    pub expected: String,
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: expected {}", self.field, self.expected)
    }
}

impl std::error::Error for LimitError {}

/// A time control, as cutechess and fastchess write it: `10+0.1` (10 s, then 0.1 s per move),
/// `40/60+0.5` (60 s for every 40 moves of a side, 0.5 s per move), `60` (60 s, no increment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// Its fields are private: a `TimeControl` is made only by `new` or `parse`, so it always holds a
/// control within the bounds.
pub struct TimeControl {
    moves: Option<u32>,
    base_ms: u64,
    increment_ms: u64,
}

/// Seconds as text (`10`, `0.1`, `1.5`) to whole milliseconds.
fn seconds_to_ms(text: &str) -> Option<u64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() && fraction.is_empty() || fraction.len() > 3 {
        return None;
    }
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(fraction) || whole.len() > 9 {
        return None;
    }
    let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let fraction: u64 = format!("{fraction:0<3}").parse().ok()?;
    Some(whole * 1000 + fraction)
}

/// Milliseconds as the seconds text `seconds_to_ms` reads (`10`, `0.1`).
fn ms_to_seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}", ms / 1000)
    } else {
        format!("{}.{:03}", ms / 1000, ms % 1000).trim_end_matches('0').to_string()
    }
}

impl TimeControl {
    /// A checked time control: a positive base of at most a day, an increment of at most a minute,
    /// and a period of 1 to 1,000 moves.
    pub fn new(moves: Option<u32>, base_ms: u64, increment_ms: u64) -> Result<TimeControl, LimitError> {
        let bad = |expected: String| Err(LimitError { field: "time_control", expected });
        if !BASE_MS.contains(base_ms) {
            return bad(format!("a base time from 1 ms to {} s, got {base_ms} ms", MAX_BASE_MS / 1000));
        }
        if !INCREMENT_MS.contains(increment_ms) {
            return bad(format!("an increment of at most {} s, got {increment_ms} ms", MAX_MOVETIME_MS / 1000));
        }
        if moves.is_some_and(|m| !PERIOD_MOVES.contains(u64::from(m))) {
            return bad(format!("1 to {} moves per period, got {}", PERIOD_MOVES.max, moves.unwrap_or(0)));
        }
        Ok(TimeControl { moves, base_ms, increment_ms })
    }

    /// Moves of a side per period; the base time is added again after each period.
    pub fn moves(&self) -> Option<u32> {
        self.moves
    }

    pub fn base_ms(&self) -> u64 {
        self.base_ms
    }

    pub fn increment_ms(&self) -> u64 {
        self.increment_ms
    }

    /// Parses `[moves/]base[+increment]` with times in seconds (`10+0.1`, `40/60+0.5`, `60`).
    pub fn parse(text: &str) -> Result<TimeControl, LimitError> {
        let bad = || LimitError {
            field: "time_control",
            expected: format!(
                "a time control like 10+0.1, 40/60+0.5 or 60 (seconds, at most 3 decimals), got {text:?}"
            ),
        };
        let (moves, rest) = match text.trim().split_once('/') {
            Some((moves, rest)) => (Some(moves.parse::<u32>().map_err(|_| bad())?), rest),
            None => (None, text.trim()),
        };
        let (base, increment) = rest.split_once('+').unwrap_or((rest, "0"));
        let base_ms = seconds_to_ms(base).ok_or_else(bad)?;
        let increment_ms = seconds_to_ms(increment).ok_or_else(bad)?;
        TimeControl::new(moves, base_ms, increment_ms)
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(moves) = self.moves {
            write!(f, "{moves}/")?;
        }
        write!(f, "{}+{}", ms_to_seconds(self.base_ms), ms_to_seconds(self.increment_ms))
    }
}

/// The grace past zero on a side's clock before it loses on time, unless a match says otherwise
/// (ms): scheduling jitter of a busy machine must not decide games.
pub const DEFAULT_TIME_MARGIN_MS: u64 = 100;
/// The largest time margin (ms).
pub const MAX_TIME_MARGIN_MS: u64 = 60_000;

/// The limits of every move of a match. When several are set, a search stops at the first one
/// reached. Only node and depth limits make a game the same on every machine.
///
/// Its fields are private: `Limits` are made only by `new` (or `fixed_nodes`), so they always hold at
/// least one limit, each within its bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    nodes: Option<u64>,
    depth: Option<u32>,
    movetime_ms: Option<u64>,
    time_control: Option<TimeControl>,
    time_margin_ms: u64,
}

impl Limits {
    /// Checked limits: at least one set, each within its range.
    pub fn new(
        nodes: Option<u64>,
        depth: Option<u32>,
        movetime_ms: Option<u64>,
        time_control: Option<TimeControl>,
        time_margin_ms: u64,
    ) -> Result<Limits, LimitError> {
        let range = |bound: Bound, value: Option<u64>| match value {
            Some(v) if !bound.contains(v) => {
                Err(LimitError { field: bound.field, expected: format!("{} to {}, got {v}", bound.min, bound.max) })
            }
            _ => Ok(()),
        };
        range(NODES, nodes)?;
        range(DEPTH, depth.map(u64::from))?;
        range(MOVETIME_MS, movetime_ms)?;
        range(TIME_MARGIN_MS, Some(time_margin_ms))?;
        let limits = Limits { nodes, depth, movetime_ms, time_control, time_margin_ms };
        if nodes.is_none() && depth.is_none() && movetime_ms.is_none() && time_control.is_none() {
            return Err(LimitError { field: "limits", expected: "nodes, depth, movetime_ms or a time_control".into() });
        }
        Ok(limits)
    }

    /// A fixed node count a move, nothing else.
    pub fn fixed_nodes(nodes: u64) -> Result<Limits, LimitError> {
        Limits::new(Some(nodes), None, None, None, DEFAULT_TIME_MARGIN_MS)
    }

    pub fn nodes(&self) -> Option<u64> {
        self.nodes
    }

    pub fn depth(&self) -> Option<u32> {
        self.depth
    }

    pub fn movetime_ms(&self) -> Option<u64> {
        self.movetime_ms
    }

    pub fn time_control(&self) -> Option<TimeControl> {
        self.time_control
    }

    /// With a time control: how far past zero a side's clock may go before it loses on time.
    pub fn time_margin_ms(&self) -> u64 {
        self.time_margin_ms
    }

    /// The limits of one move's search without a clock (a match's limits other than its time
    /// control).
    pub fn per_move(&self) -> SearchLimits {
        SearchLimits { nodes: self.nodes, depth: self.depth, movetime_ms: self.movetime_ms, clock: None }
    }

    /// True when a move's search depends on nothing but the position and the limits: no time.
    pub fn deterministic(&self) -> bool {
        self.movetime_ms.is_none() && self.time_control.is_none()
    }
}

impl fmt::Display for Limits {
    /// `2000 nodes`, `depth 8`, `100 ms/move`, `tc 10+0.1`, joined by `, `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(n) = self.nodes {
            parts.push(format!("{n} nodes"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth {d}"));
        }
        if let Some(ms) = self.movetime_ms {
            parts.push(format!("{ms} ms/move"));
        }
        if let Some(tc) = self.time_control {
            parts.push(format!("tc {tc}"));
        }
        f.write_str(&parts.join(", "))
    }
}

/// The side to move's clock for one search (UCI's `wtime`/`winc`/`movestogo` of that side).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    pub remaining_ms: u64,
    pub increment_ms: u64,
    /// Moves left to the next time control, under a repeating control.
    pub moves_to_go: Option<u32>,
}

/// The limits of one search. Without any, the search goes to depth 6.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub movetime_ms: Option<u64>,
    pub clock: Option<Clock>,
}

impl SearchLimits {
    pub fn nodes(n: u64) -> SearchLimits {
        SearchLimits { nodes: Some(n), ..SearchLimits::default() }
    }

    pub fn depth(d: u32) -> SearchLimits {
        SearchLimits { depth: Some(d), ..SearchLimits::default() }
    }

    /// True when nothing but a depth bounds the search (no nodes, no time).
    pub fn unbounded(&self) -> bool {
        self.nodes.is_none() && self.movetime_ms.is_none() && self.clock.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_parse_and_print() {
        let cases = [
            ("10+0.1", None, 10_000, 100, "10+0.1"),
            ("40/60+0.5", Some(40), 60_000, 500, "40/60+0.5"),
            ("60", None, 60_000, 0, "60+0"),
            ("0.5+0.01", None, 500, 10, "0.5+0.01"),
            (" 2+.05 ", None, 2_000, 50, "2+0.05"),
        ];
        for (text, moves, base_ms, increment_ms, shown) in cases {
            let tc = TimeControl::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(tc, TimeControl { moves, base_ms, increment_ms }, "{text}");
            assert_eq!(tc.to_string(), shown);
            assert_eq!(TimeControl::parse(&tc.to_string()), Ok(tc));
        }
    }

    #[test]
    fn bounds_are_what_the_checks_use() {
        for bound in BOUNDS {
            assert!(bound.contains(bound.min) && bound.contains(bound.max), "{bound:?}");
            assert!(!bound.contains(bound.max + 1), "{bound:?}");
        }
        assert!(TimeControl::new(Some(PERIOD_MOVES.max as u32 + 1), 1000, 0).is_err());
        assert!(TimeControl::new(None, BASE_MS.max, INCREMENT_MS.max).is_ok());
    }

    #[test]
    fn bad_time_controls_say_what_is_expected() {
        for text in ["", "+", "10+", "a+1", "0+1", "1.2345+0", "0/10+1", "10+-1", "1e3", "40/+1", "99999999999"] {
            let err = TimeControl::parse(text).expect_err(text);
            assert_eq!(err.field, "time_control", "{text}");
        }
    }

    #[test]
    fn limits_are_checked() {
        let m = DEFAULT_TIME_MARGIN_MS;
        assert!(Limits::new(None, None, None, None, m).is_err());
        assert_eq!(Limits::fixed_nodes(MAX_NODES + 1).unwrap_err().field, "nodes");
        assert_eq!(Limits::fixed_nodes(2000).map(|l| l.nodes()), Ok(Some(2000)));
        assert_eq!(Limits::new(Some(0), None, None, None, m).unwrap_err().field, "nodes");
        assert_eq!(Limits::new(None, Some(65), None, None, m).unwrap_err().field, "depth");
        assert_eq!(Limits::new(None, None, Some(60_001), None, m).unwrap_err().field, "movetime_ms");
        assert_eq!(Limits::new(Some(1), None, None, None, 60_001).unwrap_err().field, "time_margin_ms");
        let both = Limits::new(Some(2000), None, Some(100), None, m).expect("nodes and movetime");
        assert!(!both.deterministic());
        assert_eq!(both.to_string(), "2000 nodes, 100 ms/move");
        let tc = TimeControl::parse("10+0.1").ok();
        assert_eq!(Limits::new(None, None, None, tc, m).expect("tc").to_string(), "tc 10+0.1");
        assert!(Limits::new(None, Some(8), None, None, m).expect("depth").deterministic());
    }
}
