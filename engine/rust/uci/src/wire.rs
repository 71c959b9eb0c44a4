//! Lines in and out: bounded reading of stdin, and whole lines written to stdout under its lock
//! (the search thread and the main thread both write).

use std::cell::RefCell;
use std::io::{self, BufRead, Write};

/// The longest input line read; a longer one is skipped whole (a `position` of a 10,000-ply game
/// is about 60 KB).
pub const MAX_LINE: usize = 1 << 20;

/// The longest `info string` text written (the referee refuses lines over 64 KiB).
const MAX_INFO: usize = 500;

#[derive(Debug, PartialEq, Eq)]
pub enum Read {
    /// A line is in the buffer, without its `\n`.
    Line,
    /// The line was longer than the limit; it was read to its end and dropped.
    TooLong,
    Eof,
}

/// Reads one line into `buf` (cleared first), keeping at most `max` bytes of it in memory.
pub fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<Read> {
    buf.clear();
    let mut any = false;
    let mut too_long = false;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match (any, too_long) {
                (false, _) => Read::Eof,
                (true, true) => Read::TooLong,
                (true, false) => Read::Line,
            });
        }
        any = true;
        let newline = available.iter().position(|&b| b == b'\n');
        let chunk = &available[..newline.unwrap_or(available.len())];
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let used = newline.map_or(available.len(), |i| i + 1);
        input.consume(used);
        if newline.is_some() {
            return Ok(if too_long { Read::TooLong } else { Read::Line });
        }
    }
}

thread_local! {
    /// Lines this thread holds back, to go out with its next `send` (see `hold`).
    static HELD: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Writes one line to stdout, after any lines this thread held back, in one write, and flushes
/// it. A closed stdout means the referee has gone: the engine exits.
pub fn send(line: &str) {
    // The held buffer is written and emptied in place: its room is kept for the next move's lines.
    let written = HELD.with_borrow_mut(|text| {
        text.push_str(line);
        text.push('\n');
        let mut out = io::stdout().lock();
        let written = out.write_all(text.as_bytes()).and_then(|()| out.flush());
        text.clear();
        written
    });
    if written.is_err() {
        std::process::exit(0);
    }
}

/// Holds `line` back until this thread's next `send`, which writes both at once: the `info` of a
/// search's first iterations goes out with the next line rather than a write each, so that a
/// referee reading them wakes up once per short search instead of once per iteration.
pub fn hold(line: &str) {
    HELD.with_borrow_mut(|held| {
        held.push_str(line);
        held.push('\n');
    });
}

/// `info string <text>`, with the text cut short and on one line.
pub fn info_string(text: &str) {
    let mut text: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if let Some((end, _)) = text.char_indices().nth(MAX_INFO) {
        text.truncate(end);
        text.push_str("...");
    }
    send(&format!("info string {text}"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<(Read, String)> {
        // A tiny buffer makes lines span many reads.
        let mut reader = io::BufReader::with_capacity(3, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let r = read_line(&mut reader, &mut buf, max).unwrap();
            if r == Read::Eof {
                return out;
            }
            out.push((r, String::from_utf8_lossy(&buf).into_owned()));
        }
    }

    #[test]
    fn reads_lines() {
        let got = lines(b"uci\nisready\r\n\nlast", 100);
        let want = [(Read::Line, "uci"), (Read::Line, "isready\r"), (Read::Line, ""), (Read::Line, "last")];
        assert_eq!(got, want.map(|(r, s)| (r, s.to_string())));
        assert!(lines(b"", 100).is_empty());
    }

    #[test]
    fn drops_over_long_lines() {
        let mut input = b"isready\n".to_vec();
        input.extend(vec![b'x'; 5000]);
        input.extend(b"\nquit\n");
        input.extend(vec![b'y'; 5000]);
        let got = lines(&input, 1000);
        let want = [(Read::Line, "isready"), (Read::TooLong, ""), (Read::Line, "quit"), (Read::TooLong, "")];
        assert_eq!(got, want.map(|(r, s)| (r, s.to_string())));
        // Exactly at the limit is fine.
        assert_eq!(lines(b"abcd\n", 4), [(Read::Line, "abcd".to_string())]);
    }
}
