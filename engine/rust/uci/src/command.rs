//! One input line of the protocol -> one `Command`. Pure: no state, no output.
//!
//! As UCI says, unknown tokens before the command word are skipped (`joho isready` is `isready`)
//! and unknown tokens inside a command are ignored; a line with no command word is an error the
//! engine reports and otherwise ignores.

use std::fmt;

/// A command the engine understands (a `position`'s moves are words of the line it was read
/// from: no allocation per move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command<'a> {
    Uci,
    /// `ugi`: the UGI alias of `uci`, answered with `ugiok`.
    Ugi,
    /// `debug on|off`: accepted, no effect.
    Debug,
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    /// `register ...`: accepted, no effect.
    Register,
    UciNewGame,
    Position {
        start: Start,
        moves: Vec<&'a str>,
    },
    Go(Go),
    Stop,
    /// Accepted, no effect: the engine never ponders.
    PonderHit,
    Quit,
    /// Stockfish's `bench [depth]`.
    Bench {
        depth: Option<u32>,
    },
}

/// Where `position` starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    StartPos,
    /// The position string's tokens joined by single spaces (`<board> <side>`).
    Fen(String),
}

/// The limits of `go`, as given (times in milliseconds; a clock may be negative in a GUI's
/// bookkeeping and counts as 0).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    pub wtime: Option<i64>,
    pub btime: Option<i64>,
    pub winc: Option<i64>,
    pub binc: Option<i64>,
    pub movestogo: Option<u32>,
    pub movetime: Option<u64>,
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub infinite: bool,
}

/// Why a line is not a command the engine can follow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// No known command word on the line.
    Unknown { line: String },
    /// `key` at the end of the line, without its number.
    MissingValue { key: &'static str },
    /// `key` followed by something that is not a number of the expected kind.
    BadNumber { key: &'static str, text: String, expected: &'static str },
    /// `position` with neither `startpos` nor `fen`.
    MissingStart,
    /// `position fen` without a position string.
    MissingFen,
    /// `setoption` without `name <id>`.
    MissingName,
}

/// At most this many characters of input are quoted in an error (an echo must stay short).
const QUOTE: usize = 40;

/// `text`, cut to `QUOTE` characters.
pub fn clip(text: &str) -> String {
    match text.char_indices().nth(QUOTE) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Unknown { line } => write!(f, "unknown command: {line}"),
            ParseError::MissingValue { key } => write!(f, "{key} needs a value"),
            ParseError::BadNumber { key, text, expected } => write!(f, "{key} {text}: expected {expected}"),
            ParseError::MissingStart => f.write_str("position needs startpos or fen"),
            ParseError::MissingFen => f.write_str("position fen needs a position string"),
            ParseError::MissingName => f.write_str("setoption needs name <id>"),
        }
    }
}

impl std::error::Error for ParseError {}

/// Parses one line (without its line end); `Ok(None)` for a blank line.
pub fn parse(line: &str) -> Result<Option<Command<'_>>, ParseError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.is_empty() {
        return Ok(None);
    }
    for (i, word) in tokens.iter().enumerate() {
        let args = &tokens[i + 1..];
        let command = match *word {
            "uci" => Command::Uci,
            "ugi" => Command::Ugi,
            "debug" => Command::Debug,
            "isready" => Command::IsReady,
            "setoption" => parse_setoption(args)?,
            "register" => Command::Register,
            "ucinewgame" => Command::UciNewGame,
            "position" => parse_position(args)?,
            "go" => Command::Go(parse_go(args)?),
            "stop" => Command::Stop,
            "ponderhit" => Command::PonderHit,
            "quit" => Command::Quit,
            "bench" => Command::Bench { depth: args.first().map(|t| number("bench", t, "a depth")).transpose()? },
            _ => continue,
        };
        return Ok(Some(command));
    }
    Err(ParseError::Unknown { line: clip(line.trim()) })
}

fn number<T: std::str::FromStr>(key: &'static str, text: &str, expected: &'static str) -> Result<T, ParseError> {
    text.parse().map_err(|_| ParseError::BadNumber { key, text: clip(text), expected })
}

/// `name <id words> [value <words>]`: the name runs up to `value`, the value to the end of the
/// line (words joined by single spaces).
fn parse_setoption<'a>(args: &[&'a str]) -> Result<Command<'a>, ParseError> {
    let rest = match args.split_first() {
        Some((&"name", rest)) => rest,
        _ => return Err(ParseError::MissingName),
    };
    let (name, value) = match rest.iter().position(|t| *t == "value") {
        Some(i) => (&rest[..i], Some(rest[i + 1..].join(" "))),
        None => (rest, None),
    };
    if name.is_empty() {
        return Err(ParseError::MissingName);
    }
    Ok(Command::SetOption { name: name.join(" "), value })
}

fn parse_position<'a>(args: &[&'a str]) -> Result<Command<'a>, ParseError> {
    let moves_at = args.iter().position(|t| *t == "moves").unwrap_or(args.len());
    let moves = args.get(moves_at + 1..).unwrap_or_default().to_vec();
    let start = match args.first() {
        Some(&"startpos") => Start::StartPos,
        Some(&"fen") if moves_at > 1 => Start::Fen(args[1..moves_at].join(" ")),
        Some(&"fen") => return Err(ParseError::MissingFen),
        _ => return Err(ParseError::MissingStart),
    };
    Ok(Command::Position { start, moves })
}

const GO_KEYS: [&str; 12] = [
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "nodes",
    "depth",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
];

fn parse_go(args: &[&str]) -> Result<Go, ParseError> {
    let mut go = Go::default();
    let mut i = 0;
    while i < args.len() {
        let Some(&key) = GO_KEYS.iter().find(|k| **k == args[i]) else {
            i += 1;
            continue;
        };
        i += 1;
        match key {
            "infinite" => go.infinite = true,
            "ponder" => {}
            // The moves to search are ignored: every legal move is searched.
            "searchmoves" => {
                while i < args.len() && !GO_KEYS.contains(&args[i]) {
                    i += 1;
                }
            }
            _ => {
                let text = *args.get(i).ok_or(ParseError::MissingValue { key })?;
                i += 1;
                match key {
                    "wtime" => go.wtime = Some(number(key, text, "milliseconds")?),
                    "btime" => go.btime = Some(number(key, text, "milliseconds")?),
                    "winc" => go.winc = Some(number(key, text, "milliseconds")?),
                    "binc" => go.binc = Some(number(key, text, "milliseconds")?),
                    "movestogo" => go.movestogo = Some(number(key, text, "a move count")?),
                    "movetime" => go.movetime = Some(number(key, text, "milliseconds, not negative")?),
                    "nodes" => go.nodes = Some(number(key, text, "a node count")?),
                    "depth" => go.depth = Some(number(key, text, "a depth")?),
                    // `mate n` is read and ignored: the search stops at a found mate anyway.
                    _ => {
                        number::<u32>(key, text, "a move count")?;
                    }
                }
            }
        }
    }
    Ok(go)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Command<'_> {
        match parse(line) {
            Ok(Some(c)) => c,
            other => panic!("{line:?}: {other:?}"),
        }
    }

    fn go(line: &str) -> Go {
        match ok(line) {
            Command::Go(g) => g,
            other => panic!("{line:?}: {other:?}"),
        }
    }

    #[test]
    fn simple_commands() {
        for (line, want) in [
            ("uci", Command::Uci),
            ("ugi", Command::Ugi),
            ("debug on", Command::Debug),
            ("isready", Command::IsReady),
            ("register later", Command::Register),
            ("ucinewgame", Command::UciNewGame),
            ("stop", Command::Stop),
            ("ponderhit", Command::PonderHit),
            ("quit", Command::Quit),
            ("bench", Command::Bench { depth: None }),
            ("bench 5", Command::Bench { depth: Some(5) }),
        ] {
            assert_eq!(ok(line), want, "{line}");
        }
    }

    #[test]
    fn blank_lines_and_odd_whitespace() {
        for line in ["", " ", "\t", "\r", " \t \r"] {
            assert_eq!(parse(line), Ok(None), "{line:?}");
        }
        assert_eq!(ok("  isready \r"), Command::IsReady);
        assert_eq!(ok("\tgo\t\tnodes  1000 \r"), Command::Go(Go { nodes: Some(1000), ..Go::default() }));
        assert_eq!(
            ok("position   fen \t gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ   w  moves  d2d3\td6d5 "),
            Command::Position {
                start: Start::Fen("gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w".into()),
                moves: vec!["d2d3", "d6d5"]
            }
        );
    }

    #[test]
    fn unknown_and_garbage() {
        assert!(matches!(parse("xyzzy"), Err(ParseError::Unknown { .. })));
        assert!(matches!(parse("\u{0}\u{7f}\u{fffd} é"), Err(ParseError::Unknown { .. })));
        // Case matters, as in UCI.
        assert!(matches!(parse("UCI"), Err(ParseError::Unknown { .. })));
        // Unknown leading tokens are skipped.
        assert_eq!(ok("joho debug on"), Command::Debug);
        assert_eq!(ok("1 2 3 isready"), Command::IsReady);
        let long = "x".repeat(100_000);
        let err = parse(&long).unwrap_err();
        assert!(err.to_string().len() < 100, "an error quotes a short part of the line");
    }

    #[test]
    fn over_long_lines() {
        let moves = vec!["d2d3"; 50_000].join(" ");
        match ok(&format!("position startpos moves {moves}")) {
            Command::Position { start: Start::StartPos, moves } => assert_eq!(moves.len(), 50_000),
            other => panic!("{other:?}"),
        }
        let err = parse(&format!("go nodes {}", "9".repeat(10_000))).unwrap_err();
        assert!(matches!(err, ParseError::BadNumber { key: "nodes", .. }));
        assert!(err.to_string().len() < 120, "{err}");
    }

    #[test]
    fn position() {
        assert_eq!(ok("position startpos"), Command::Position { start: Start::StartPos, moves: vec![] });
        assert_eq!(ok("position startpos moves"), Command::Position { start: Start::StartPos, moves: vec![] });
        assert_eq!(
            ok("position startpos moves b1d3f5d7 e6e5"),
            Command::Position { start: Start::StartPos, moves: vec!["b1d3f5d7", "e6e5"] }
        );
        assert_eq!(
            ok("position fen hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w"),
            Command::Position { start: Start::Fen("hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w".into()), moves: vec![] }
        );
        assert_eq!(parse("position"), Err(ParseError::MissingStart));
        assert_eq!(parse("position moves d2d3"), Err(ParseError::MissingStart));
        assert_eq!(parse("position fen"), Err(ParseError::MissingFen));
        assert_eq!(parse("position fen moves d2d3"), Err(ParseError::MissingFen));
    }

    #[test]
    fn go_limits() {
        assert_eq!(go("go"), Go::default());
        assert_eq!(go("go infinite"), Go { infinite: true, ..Go::default() });
        assert_eq!(
            go("go wtime 60000 btime -20 winc 500 binc 0 movestogo 40"),
            Go {
                wtime: Some(60000),
                btime: Some(-20),
                winc: Some(500),
                binc: Some(0),
                movestogo: Some(40),
                ..Go::default()
            }
        );
        assert_eq!(
            go("go movetime 100 nodes 5000 depth 7"),
            Go { movetime: Some(100), nodes: Some(5000), depth: Some(7), ..Go::default() }
        );
        // Unknown tokens, ponder, mate and searchmoves are read over.
        assert_eq!(go("go ponder foo depth 3 bar"), Go { depth: Some(3), ..Go::default() });
        assert_eq!(go("go searchmoves d2d3 e2e3 depth 4 mate 3"), Go { depth: Some(4), ..Go::default() });
        assert_eq!(parse("go depth"), Err(ParseError::MissingValue { key: "depth" }));
        assert!(matches!(parse("go depth x"), Err(ParseError::BadNumber { key: "depth", .. })));
        assert!(matches!(parse("go movetime -5"), Err(ParseError::BadNumber { key: "movetime", .. })));
        assert!(matches!(parse("go nodes 1.5"), Err(ParseError::BadNumber { key: "nodes", .. })));
        assert!(matches!(parse("bench deep"), Err(ParseError::BadNumber { key: "bench", .. })));
    }

    #[test]
    fn setoption() {
        let set =
            |name: &str, value: Option<&str>| Command::SetOption { name: name.into(), value: value.map(String::from) };
        assert_eq!(ok("setoption name Hash value 64"), set("Hash", Some("64")));
        assert_eq!(ok("setoption name UCI_Variant value congress"), set("UCI_Variant", Some("congress")));
        // Names and values with spaces; runs of whitespace become one space.
        assert_eq!(ok("setoption name Clear Hash"), set("Clear Hash", None));
        assert_eq!(ok("setoption  name  Skill   Level\tvalue  a  b "), set("Skill Level", Some("a b")));
        assert_eq!(ok("setoption name Empty value"), set("Empty", Some("")));
        assert_eq!(parse("setoption"), Err(ParseError::MissingName));
        assert_eq!(parse("setoption Hash value 3"), Err(ParseError::MissingName));
        assert_eq!(parse("setoption name value 3"), Err(ParseError::MissingName));
    }
}
