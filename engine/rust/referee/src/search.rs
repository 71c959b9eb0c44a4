//! One move: `go` (with the lines before it, in one write) up to `bestmove`, judged at its
//! deadline as docs/protocol.md's failure table says.

use std::time::{Duration, Instant};

use crate::info::SearchInfo;
use crate::pipe::{EnginePipe, Fault};

/// What a search that has not answered by its deadline means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtDeadline {
    /// A clock or movetime ran out: `stop`; a bestmove within the stop wait is a time forfeit,
    /// none is a hang.
    Forfeit,
    /// The referee ends the search (`go infinite`): `stop`, and the bestmove that follows within
    /// the stop wait is the answer; none is a hang.
    Stop,
    /// Fixed nodes or depth took longer than any search may: a hang.
    Hang,
}

/// An engine's answer to `go`: its move and ponder move as written, what its info lines said,
/// and every line read meanwhile (for a transcript).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestMove {
    pub best: String,
    pub ponder: Option<String>,
    pub info: SearchInfo,
    pub lines: Vec<String>,
}

/// (move, ponder) of a `bestmove` line; a protocol violation if it names no move.
pub fn parse_bestmove(line: &str) -> Result<(String, Option<String>), Fault> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some(&best) = tokens.get(1) else {
        return Err(Fault::Protocol("bestmove without a move".into()));
    };
    if best == "(none)" || best == "0000" {
        return Err(Fault::Protocol(format!("bestmove {best}")));
    }
    let ponder = if tokens.len() >= 4 && tokens[2] == "ponder" { Some(tokens[3].to_string()) } else { None };
    Ok((best.to_string(), ponder))
}

/// How long the referee waits for what.
#[derive(Clone, Copy, Debug)]
pub struct Waits {
    /// From writing `go` to judging the search by `AtDeadline`.
    pub deadline: Duration,
    /// For bestmove after `stop`.
    pub stop: Duration,
    /// For the engine to take a line on its input.
    pub write: Duration,
}

impl EnginePipe {
    /// Writes `commands` (lines, each ending in a line end; `go ...` last) and reads up to the
    /// `bestmove`, as the failure table judges it.
    pub fn search(&mut self, commands: &str, waits: Waits, at_deadline: AtDeadline) -> Result<BestMove, Fault> {
        self.send(commands.as_bytes(), waits.write)?;
        let deadline = Instant::now() + waits.deadline;
        self.begin_answer();
        let mut lines = Vec::new();
        let mut found = self.until_bestmove(deadline, &mut lines)?;
        if found.is_none() {
            if at_deadline == AtDeadline::Hang {
                return Err(Fault::Hang);
            }
            self.send(b"stop\n", waits.write)?;
            self.begin_answer();
            found = self.until_bestmove(Instant::now() + waits.stop, &mut lines)?;
            if found.is_none() {
                return Err(Fault::Hang);
            }
            if at_deadline == AtDeadline::Forfeit {
                return Err(Fault::TimeForfeit);
            }
        }
        let at = found.unwrap_or_default();
        let (best, ponder) = parse_bestmove(&lines[at])?;
        let info_lines: Vec<&str> = lines.iter().map(String::as_str).filter(|l| first_word(l) == "info").collect();
        let info = SearchInfo::of_lines(&info_lines);
        Ok(BestMove { best, ponder, info, lines })
    }

    /// Reads lines onto `lines` up to a `bestmove` line (its index), or None at `deadline`.
    fn until_bestmove(&mut self, deadline: Instant, lines: &mut Vec<String>) -> Result<Option<usize>, Fault> {
        while let Some(line) = self.read_line(deadline)? {
            let bestmove = first_word(&line) == "bestmove";
            lines.push(line);
            if bestmove {
                return Ok(Some(lines.len() - 1));
            }
        }
        Ok(None)
    }
}

fn first_word(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bestmove_lines() {
        assert_eq!(parse_bestmove("bestmove a2a3"), Ok(("a2a3".into(), None)));
        assert_eq!(parse_bestmove("bestmove a2a3 ponder a7a6"), Ok(("a2a3".into(), Some("a7a6".into()))));
        assert_eq!(parse_bestmove("bestmove\td2d3  "), Ok(("d2d3".into(), None)));
        assert_eq!(parse_bestmove("bestmove"), Err(Fault::Protocol("bestmove without a move".into())));
        assert_eq!(parse_bestmove("bestmove (none)"), Err(Fault::Protocol("bestmove (none)".into())));
        assert_eq!(parse_bestmove("bestmove 0000"), Err(Fault::Protocol("bestmove 0000".into())));
    }
}
