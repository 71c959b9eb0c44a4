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
pub struct TimeControl {
    /// Moves of a side per period; the base time is added again after each period.
    pub moves: Option<u32>,
    pub base_ms: u64,
    pub increment_ms: u64,
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
        if base_ms == 0 || base_ms > MAX_BASE_MS {
            return bad(format!("a base time from 1 ms to {} s, got {base_ms} ms", MAX_BASE_MS / 1000));
        }
        if increment_ms > MAX_MOVETIME_MS {
            return bad(format!("an increment of at most {} s, got {increment_ms} ms", MAX_MOVETIME_MS / 1000));
        }
        if moves.is_some_and(|m| m == 0 || m > 1000) {
            return bad(format!("1 to 1000 moves per period, got {}", moves.unwrap_or(0)));
        }
        Ok(TimeControl { moves, base_ms, increment_ms })
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub movetime_ms: Option<u64>,
    pub time_control: Option<TimeControl>,
    /// With a time control: how far past zero a side's clock may go before it loses on time.
    pub time_margin_ms: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            nodes: None,
            depth: None,
            movetime_ms: None,
            time_control: None,
            time_margin_ms: DEFAULT_TIME_MARGIN_MS,
        }
    }
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
        let range = |field, value: Option<u64>, max: u64| match value {
            Some(v) if v == 0 || v > max => Err(LimitError { field, expected: format!("1 to {max}, got {v}") }),
            _ => Ok(()),
        };
        range("nodes", nodes, MAX_NODES)?;
        range("depth", depth.map(u64::from), u64::from(MAX_DEPTH))?;
        range("movetime_ms", movetime_ms, MAX_MOVETIME_MS)?;
        if let Some(tc) = time_control {
            TimeControl::new(tc.moves, tc.base_ms, tc.increment_ms)?;
        }
        if time_margin_ms > MAX_TIME_MARGIN_MS {
            return Err(LimitError {
                field: "time_margin_ms",
                expected: format!("0 to {MAX_TIME_MARGIN_MS}, got {time_margin_ms}"),
            });
        }
        let limits = Limits { nodes, depth, movetime_ms, time_control, time_margin_ms };
        if nodes.is_none() && depth.is_none() && movetime_ms.is_none() && time_control.is_none() {
            return Err(LimitError { field: "limits", expected: "nodes, depth, movetime_ms or a time_control".into() });
        }
        Ok(limits)
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
