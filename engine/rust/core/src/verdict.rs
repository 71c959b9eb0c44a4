//! Checking a batch's game records, as a coordinator does with every answer: each pair played
//! from the opening sent, the candidate white then black; the claimed counts those of the records;
//! each fault on a game its side lost by a fault; and every record's moves legal and its result and
//! reason exactly how the rules, the adjudication or what the batch allows end that game.
//!
//! The records' shape (types, lengths) is the caller's to check; [`spaced_badly`] and
//! [`numbers_badly`] are the checks of its strings.

use std::fmt;

use crate::ending::{Adjudication, GameResult};
use crate::eval::Evaluate;
use crate::limits::Limits;
use crate::replay::{replay_text, Replayed};

/// One game record as a worker states it (its shape already checked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    pub opening: &'a str,
    /// The moves, separated by single spaces.
    pub moves: &'a str,
    pub result: GameResult,
    pub reason: &'a str,
    pub candidate_white: bool,
    /// Per move, the node budget and the milliseconds (whole numbers separated by single spaces).
    pub budgets: &'a str,
    pub times: &'a str,
}

/// A fault a result reports: the game it lost, and whether the candidate's side is to blame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub game: usize,
    pub candidate: bool,
}

/// What a batch allows beyond the rules and the adjudication.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchRules {
    pub adjudication: Adjudication,
    /// A side may lose on time (a clock, or a program's movetime).
    pub forfeits: bool,
    /// A side is played by an engine program, whose faults can end games.
    pub programs: bool,
}

impl BatchRules {
    /// The rules of a batch under `limits` and `adjudication`; `programs`: a side is played by an
    /// engine program. The built-in engine loses on time only to a clock; a program also by
    /// overstepping its movetime.
    pub fn new(adjudication: Adjudication, limits: &Limits, programs: bool) -> BatchRules {
        let forfeits = limits.time_control().is_some() || (programs && limits.movetime_ms().is_some());
        BatchRules { adjudication, forfeits, programs }
    }
}

/// Pentanomial `[LL, LD, DD+WL, WD, WW]` and `[W, D, L]` counts of the candidate's games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub pentanomial: [u64; 5],
    pub wdl: [u64; 3],
}

/// The end reasons of a game lost by an engine program's fault.
pub const FAULT_REASONS: [&str; 6] = ["crash", "illegal_move", "time_forfeit", "hang", "protocol", "no_answer"];
/// A loss on time, which the built-in engine can also suffer under a clock.
pub const TIME_FORFEIT: &str = "time_forfeit";

/// Why a batch's records cannot count; each names the record (`games[i]`) or fault
/// (`faults[i]`) at fault, the first one in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckError {
    /// Not one record per game of the pairs sent.
    Count {
        expected: usize,
        got: usize,
    },
    /// A record's candidate colour is not its place's in the pair.
    Color {
        game: usize,
        candidate_white: bool,
    },
    /// A record's opening is not its pair's.
    Opening {
        game: usize,
    },
    /// The claimed counts are not the records'.
    Pentanomial {
        claimed: [u64; 5],
        counted: [u64; 5],
    },
    Wdl {
        claimed: [u64; 3],
        counted: [u64; 3],
    },
    /// A fault names a game beyond the batch, or one with a fault already.
    FaultGame {
        fault: usize,
        game: usize,
    },
    FaultAgain {
        fault: usize,
        game: usize,
    },
    /// A fault's game did not end by a fault's reason.
    FaultReason {
        fault: usize,
        game: usize,
        reason: String,
    },
    /// A fault's side did not lose its game.
    FaultNotLost {
        fault: usize,
        game: usize,
        candidate: bool,
    },
    /// A game lost by a fault that no fault reports (a batch with programs).
    Unreported {
        game: usize,
    },
    /// The moves are not a game from the opening.
    Replay {
        game: usize,
        error: String,
    },
    /// The moves end the game otherwise than the record says.
    EndDiffers {
        game: usize,
        end: (GameResult, &'static str),
        stated: String,
    },
    /// The moves do not end the game, and nothing the batch allows explains its end.
    NotEnded {
        game: usize,
        plies: usize,
        stated: String,
    },
    /// A resignation, a loss on time or a fault, yet by the side not to move.
    WrongLoser {
        game: usize,
        plies: usize,
        stated: String,
    },
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Count { expected, got } => write!(f, "games: expected {expected} game records, got {got}"),
            CheckError::Color { game, candidate_white } => {
                write!(
                    f,
                    "games[{game}]: candidate_color should be '{}'",
                    if *candidate_white { "white" } else { "black" }
                )
            }
            CheckError::Opening { game } => {
                write!(f, "games[{game}]: opening differs from the one sent for pair {}", game / 2)
            }
            CheckError::Pentanomial { claimed, counted } => {
                write!(f, "pentanomial: {claimed:?} does not match the game records ({counted:?})")
            }
            CheckError::Wdl { claimed, counted } => {
                write!(f, "wdl: {claimed:?} does not match the game records ({counted:?})")
            }
            CheckError::FaultGame { fault, game } => {
                write!(f, "faults[{fault}]: game {game} is not a game of the batch")
            }
            CheckError::FaultAgain { fault, game } => write!(f, "faults[{fault}]: game {game} has a fault already"),
            CheckError::FaultReason { fault, game, reason } => {
                write!(f, "faults[{fault}]: game {game} ended by {reason:?}, not by a fault")
            }
            CheckError::FaultNotLost { fault, game, candidate } => {
                let side = if *candidate { "candidate" } else { "baseline" };
                write!(f, "faults[{fault}]: the {side} did not lose game {game}")
            }
            CheckError::Unreported { game } => {
                write!(f, "games[{game}]: lost by a fault that the result does not report")
            }
            CheckError::Replay { game, error } => write!(f, "games[{game}]: {error}"),
            CheckError::EndDiffers { game, end: (result, reason), stated } => {
                write!(f, "games[{game}]: the moves end the game {} ({reason}), yet it says {stated}", result.text())
            }
            CheckError::NotEnded { game, plies, stated } => {
                write!(f, "games[{game}]: the game has not ended after {plies} plies, yet it says {stated}")
            }
            CheckError::WrongLoser { game, plies, stated } => {
                write!(f, "games[{game}]: {stated}, yet the side to move after {plies} plies is the other")
            }
        }
    }
}

impl std::error::Error for CheckError {}

/// True unless `moves` are separated by single spaces, with none around them.
pub fn spaced_badly(moves: &str) -> bool {
    moves.starts_with(' ') || moves.ends_with(' ') || moves.contains("  ")
}

/// True unless `text` is whole numbers (no leading zero, at most 18 digits each) separated by
/// single spaces; the empty string is none.
pub fn numbers_badly(text: &str) -> bool {
    !text.is_empty()
        && text.split(' ').any(|n| {
            n.is_empty()
                || n.len() > 18
                || !n.bytes().all(|b| b.is_ascii_digit())
                || (n.len() > 1 && n.starts_with('0'))
        })
}

/// Plies in a record's moves.
pub fn ply_count(moves: &str) -> usize {
    if moves.is_empty() {
        0
    } else {
        moves.bytes().filter(|&b| b == b' ').count() + 1
    }
}

/// Checks `records` against the batch's `openings` (one pair each), the `claimed` counts and the
/// reported `faults`, then replays every distinct game under `rules`; the counts of the records.
pub fn check_records<P: Evaluate>(
    records: &[Record<'_>],
    openings: &[&str],
    claimed: &Tally,
    faults: &[Fault],
    rules: &BatchRules,
) -> Result<Tally, CheckError> {
    check_pairs(records, openings)?;
    let counted = tally(records);
    if counted.pentanomial != claimed.pentanomial {
        return Err(CheckError::Pentanomial { claimed: claimed.pentanomial, counted: counted.pentanomial });
    }
    if counted.wdl != claimed.wdl {
        return Err(CheckError::Wdl { claimed: claimed.wdl, counted: counted.wdl });
    }
    check_faults(records, faults, rules.programs)?;
    check_replays::<P>(records, rules)?;
    Ok(counted)
}

/// One record per game, in pair order (candidate white then black) from the opening sent.
fn check_pairs(records: &[Record<'_>], openings: &[&str]) -> Result<(), CheckError> {
    if records.len() != 2 * openings.len() {
        return Err(CheckError::Count { expected: 2 * openings.len(), got: records.len() });
    }
    for (game, record) in records.iter().enumerate() {
        let white = game % 2 == 0;
        if record.candidate_white != white {
            return Err(CheckError::Color { game, candidate_white: white });
        }
        if record.opening != openings[game / 2] {
            return Err(CheckError::Opening { game });
        }
    }
    Ok(())
}

/// The candidate's score in half points (2 a win, 1 a draw, 0 a loss).
fn half_points(record: &Record<'_>) -> usize {
    match record.result {
        GameResult::Draw => 1,
        GameResult::WhiteWins => 2 * usize::from(record.candidate_white),
        GameResult::BlackWins => 2 * usize::from(!record.candidate_white),
    }
}

/// The counts of `records` taken two by two as pairs (an odd last record is not counted).
pub fn tally(records: &[Record<'_>]) -> Tally {
    let mut counts = Tally::default();
    for pair in records.chunks_exact(2) {
        let (first, second) = (half_points(&pair[0]), half_points(&pair[1]));
        counts.pentanomial[first + second] += 1;
        counts.wdl[2 - first] += 1;
        counts.wdl[2 - second] += 1;
    }
    counts
}

/// Each fault on a different game, ended by a fault's reason and lost by the fault's side; with
/// programs, every game lost by a fault has its fault.
fn check_faults(records: &[Record<'_>], faults: &[Fault], programs: bool) -> Result<(), CheckError> {
    let mut faulted = vec![false; records.len()];
    for (i, fault) in faults.iter().enumerate() {
        let game = fault.game;
        let Some(record) = records.get(game) else { return Err(CheckError::FaultGame { fault: i, game }) };
        if faulted[game] {
            return Err(CheckError::FaultAgain { fault: i, game });
        }
        faulted[game] = true;
        if !FAULT_REASONS.contains(&record.reason) {
            return Err(CheckError::FaultReason { fault: i, game, reason: record.reason.to_string() });
        }
        if half_points(record) != if fault.candidate { 0 } else { 2 } {
            return Err(CheckError::FaultNotLost { fault: i, game, candidate: fault.candidate });
        }
    }
    if programs {
        if let Some(game) = (0..records.len()).find(|&g| !faulted[g] && FAULT_REASONS.contains(&records[g].reason)) {
            return Err(CheckError::Unreported { game });
        }
    }
    Ok(())
}

/// Every record replays to its stated result and reason. A record the same as the one before it
/// is not replayed again (a pair's two games, when close sides play the same game as each other's
/// colour: half the games of a batch at 50 nodes), and a pair's opening is read once.
fn check_replays<P: Evaluate>(records: &[Record<'_>], rules: &BatchRules) -> Result<(), CheckError> {
    let mut start: Option<(&str, Result<P, String>)> = None;
    let mut last: Option<(&str, &str, Result<Replayed, String>)> = None;
    for (game, record) in records.iter().enumerate() {
        if !matches!(&last, Some((opening, moves, _)) if (*opening, *moves) == (record.opening, record.moves)) {
            if !matches!(&start, Some((opening, _)) if *opening == record.opening) {
                start = Some((record.opening, P::from_fen(record.opening).map_err(|e| e.to_string())));
            }
            let replayed = match &start {
                Some((_, Ok(position))) => {
                    replay_text(position, record.moves, rules.adjudication).map_err(|e| e.to_string())
                }
                Some((_, Err(error))) => Err(error.clone()),
                None => continue, // never: set above
            };
            last = Some((record.opening, record.moves, replayed));
        }
        if let Some((_, _, replayed)) = &last {
            verdict(game, record, replayed, rules)?;
        }
    }
    Ok(())
}

/// Whether one record's stated end is how its replay ends, or one the batch allows where the
/// moves end nothing (always by the side to move; a program may also fail before the first move).
fn verdict(
    game: usize,
    record: &Record<'_>,
    replayed: &Result<Replayed, String>,
    rules: &BatchRules,
) -> Result<(), CheckError> {
    let replayed = match replayed {
        Ok(replayed) => replayed,
        Err(error) => return Err(CheckError::Replay { game, error: error.clone() }),
    };
    let stated = || format!("{} ({})", record.result.text(), record.reason);
    if let Some(end) = replayed.end {
        return if end == (record.result, record.reason) {
            Ok(())
        } else {
            Err(CheckError::EndDiffers { game, end, stated: stated() })
        };
    }
    let plies = replayed.plies;
    if record.reason == "resign" && rules.adjudication.resign_score.is_some() {
        return Ok(());
    }
    let fault = rules.programs && FAULT_REASONS[..].contains(&record.reason) && record.reason != TIME_FORFEIT;
    if !(fault || (record.reason == TIME_FORFEIT && rules.forfeits)) {
        return Err(CheckError::NotEnded { game, plies, stated: stated() });
    }
    if fault && plies == 0 && record.result != GameResult::Draw {
        return Ok(());
    }
    let first = record.opening.rsplit(' ').next().unwrap_or("");
    let loser = match (first, plies % 2 == 0) {
        ("w", true) | ("b", false) => Some(GameResult::BlackWins),
        ("w", false) | ("b", true) => Some(GameResult::WhiteWins),
        _ => None,
    };
    if loser != Some(record.result) {
        return Err(CheckError::WrongLoser { game, plies, stated: stated() });
    }
    Ok(())
}

/// `s` as a JSON string (as orjson writes it: only quotes, backslashes and controls escaped).
fn push_json(out: &mut String, s: &str) {
    out.push('"');
    if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(s);
        out.push('"');
        return;
    }
    let mut start = 0;
    for (at, byte) in s.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..at]);
        if escape.is_empty() {
            out.push_str(&format!("\\u{byte:04x}"));
        } else {
            out.push_str(escape);
        }
        start = at + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// The records as the store keeps them: a JSON array of arrays, each `[opening, moves, result,
/// reason, candidate_color, budgets, times]` (as orjson writes them, without spaces).
pub fn stored_json(records: &[Record<'_>]) -> String {
    let size: usize =
        records.iter().map(|r| r.opening.len() + r.moves.len() + r.budgets.len() + r.times.len() + 64).sum();
    let mut out = String::with_capacity(size + 2);
    out.push('[');
    for (i, r) in records.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        push_json(&mut out, r.opening);
        out.push(',');
        push_json(&mut out, r.moves);
        out.push_str(",\"");
        out.push_str(r.result.text());
        out.push_str("\",");
        push_json(&mut out, r.reason);
        out.push_str(if r.candidate_white { ",\"white\"," } else { ",\"black\"," });
        push_json(&mut out, r.budgets);
        out.push(',');
        push_json(&mut out, r.times);
        out.push(']');
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::congo;

    const START: &str = congo::START;

    fn rules() -> BatchRules {
        BatchRules { adjudication: Adjudication::default(), forfeits: false, programs: false }
    }

    fn record<'a>(moves: &'a str, result: GameResult, reason: &'a str, white: bool) -> Record<'a> {
        Record { opening: START, moves, result, reason, candidate_white: white, budgets: "", times: "" }
    }

    fn check(
        records: &[Record<'_>],
        claimed: Tally,
        faults: &[Fault],
        rules: &BatchRules,
    ) -> Result<Tally, CheckError> {
        check_records::<congo::Position>(records, &[START], &claimed, faults, rules)
    }

    #[test]
    fn tallies_pairs() {
        let r = |result, white| record("", result, "x", white);
        let records = [
            r(GameResult::WhiteWins, true),
            r(GameResult::WhiteWins, false),
            r(GameResult::Draw, true),
            r(GameResult::WhiteWins, false),
            r(GameResult::BlackWins, true),
            r(GameResult::Draw, false),
        ];
        assert_eq!(tally(&records), Tally { pentanomial: [0, 2, 1, 0, 0], wdl: [1, 2, 3] });
    }

    #[test]
    fn stores_records_as_json_arrays() {
        let mut odd = record("d2d3 e6e5", GameResult::Draw, "a\"b\\c\n\u{1}é", false);
        odd.times = "1 2";
        let json = stored_json(&[record("", GameResult::WhiteWins, "x", true), odd]);
        let start = format!("[[\"{START}\",\"\",\"1-0\",\"x\",\"white\",\"\",\"\"],");
        assert_eq!(
            json,
            start
                + &format!(
                    "[\"{START}\",\"d2d3 e6e5\",\"1/2-1/2\",\"a\\\"b\\\\c\\n\\u0001é\",\"black\",\"\",\"1 2\"]]"
                )
        );
        assert_eq!(stored_json(&[]), "[]");
    }

    #[test]
    fn numbers_and_spacing() {
        assert!(!numbers_badly("") && !numbers_badly("0 12 300") && !numbers_badly("123456789012345678"));
        assert!(numbers_badly("01") && numbers_badly("1  2") && numbers_badly(" 1") && numbers_badly("1x"));
        assert!(numbers_badly("1234567890123456789"));
        assert!(spaced_badly(" a") && spaced_badly("a ") && spaced_badly("a  b") && !spaced_badly("a b"));
    }

    #[test]
    fn checks_pairs_and_claims() {
        let games = [record("", GameResult::Draw, "x", true), record("", GameResult::Draw, "x", true)];
        assert_eq!(
            check(&games, Tally::default(), &[], &rules()),
            Err(CheckError::Color { game: 1, candidate_white: false })
        );
        let count = check(&games[..1], Tally::default(), &[], &rules()).unwrap_err();
        assert_eq!(count.to_string(), "games: expected 2 game records, got 1");
        let games = [record("", GameResult::Draw, "x", true), record("", GameResult::Draw, "x", false)];
        let error = check(&games, Tally::default(), &[], &rules()).unwrap_err();
        assert_eq!(error.to_string(), "pentanomial: [0, 0, 0, 0, 0] does not match the game records ([0, 0, 1, 0, 0])");
    }

    #[test]
    fn replays_each_record() {
        let claimed = Tally { pentanomial: [0, 0, 1, 0, 0], wdl: [0, 2, 0] };
        let games = [record("", GameResult::Draw, "resign", true), record("", GameResult::Draw, "resign", false)];
        let error = check(&games, claimed, &[], &rules()).unwrap_err();
        assert_eq!(error.to_string(), "games[0]: the game has not ended after 0 plies, yet it says 1/2-1/2 (resign)");
        let bad = [record("", GameResult::Draw, "resign", true), record("z9z9", GameResult::Draw, "resign", false)];
        assert!(matches!(check(&bad, claimed, &[], &rules()), Err(CheckError::NotEnded { game: 0, .. })));
        let mut resigns = rules();
        resigns.adjudication.resign_score = Some(500);
        assert!(matches!(check(&bad, claimed, &[], &resigns), Err(CheckError::Replay { game: 1, .. })));
    }

    #[test]
    fn time_forfeits_by_the_side_to_move() {
        let timed = BatchRules { forfeits: true, ..rules() };
        let claimed = Tally { pentanomial: [0, 0, 1, 0, 0], wdl: [1, 0, 1] };
        // White to move at ply 0 loses on time: 0-1, a loss for the candidate as white.
        let games = [
            record("", GameResult::BlackWins, TIME_FORFEIT, true),
            record("", GameResult::BlackWins, TIME_FORFEIT, false),
        ];
        assert_eq!(check(&games, claimed, &[], &timed), Ok(claimed));
        let wrong = [
            record("", GameResult::WhiteWins, TIME_FORFEIT, true),
            record("", GameResult::WhiteWins, TIME_FORFEIT, false),
        ];
        let error = check(&wrong, claimed, &[], &timed).unwrap_err();
        assert_eq!(error.to_string(), "games[0]: 1-0 (time_forfeit), yet the side to move after 0 plies is the other");
    }

    #[test]
    fn faults_name_lost_games() {
        let programs = BatchRules { programs: true, ..rules() };
        let games =
            [record("", GameResult::WhiteWins, "crash", true), record("", GameResult::BlackWins, "crash", false)];
        let claimed = tally(&games);
        let unreported = check(&games, claimed, &[Fault { game: 0, candidate: false }], &programs).unwrap_err();
        assert_eq!(unreported, CheckError::Unreported { game: 1 });
        let both = [Fault { game: 0, candidate: false }, Fault { game: 1, candidate: false }];
        assert_eq!(check(&games, claimed, &both, &programs), Ok(claimed));
        let wrong = [Fault { game: 0, candidate: true }];
        assert_eq!(
            check(&games, claimed, &wrong, &programs).unwrap_err().to_string(),
            "faults[0]: the candidate did not lose game 0"
        );
        let again = [Fault { game: 0, candidate: false }, Fault { game: 0, candidate: false }];
        assert_eq!(check(&games, claimed, &again, &programs), Err(CheckError::FaultAgain { fault: 1, game: 0 }));
        assert_eq!(
            check(&games, claimed, &[Fault { game: 7, candidate: true }], &programs),
            Err(CheckError::FaultGame { fault: 0, game: 7 })
        );
    }
}
