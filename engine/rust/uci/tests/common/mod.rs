//! Drives the `arbiter-engine` binary over pipes. Every wait is bounded: a reader thread sends
//! the engine's lines over a channel that the test reads with `recv_timeout`.

#![allow(dead_code, reason = "each test file uses a part")]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::thread;
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_arbiter-engine");

/// A bound, not a pause: long enough for a 2-core machine busy with the whole suite beside these
/// tests (the bench takes about 4 s of CPU); a fixed-nodes move takes milliseconds.
pub const WAIT: Duration = Duration::from_secs(120);

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    pub fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the engine starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Engine { child, stdin, lines }
    }

    pub fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("the engine reads its input");
        stdin.flush().expect("the engine reads its input");
    }

    /// Closes the engine's stdin (end of input).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line, or None after `timeout` (or when the engine closed its stdout).
    pub fn next_line(&self, timeout: Duration) -> Option<String> {
        self.lines.recv_timeout(timeout).ok()
    }

    /// Every line up to and including the first that starts with `prefix`; panics after
    /// `timeout`.
    pub fn until(&self, prefix: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                None => panic!("no line starting with {prefix:?} within {timeout:?}; got {seen:#?}"),
            }
        }
    }

    /// The lines the engine writes within `quiet` of silence.
    pub fn drain(&self, quiet: Duration) -> Vec<String> {
        let mut seen = Vec::new();
        while let Some(line) = self.next_line(quiet) {
            seen.push(line);
        }
        seen
    }

    /// `uci` .. `uciok`, then the options, `ucinewgame` and `isready` .. `readyok`.
    pub fn new_game(&mut self, options: &[(&str, String)]) -> Vec<String> {
        self.send("uci");
        let handshake = self.until("uciok", WAIT);
        for (name, value) in options {
            self.send(&format!("setoption name {name} value {value}"));
        }
        self.send("ucinewgame");
        self.send("isready");
        let answers = self.until("readyok", WAIT);
        assert_eq!(answers, ["readyok"], "the options were accepted silently");
        handshake
    }

    /// `position` + `go`; returns the move and the lines before it.
    pub fn best_move(&mut self, position: &str, go: &str) -> (String, Vec<String>) {
        self.send(position);
        self.send(go);
        let lines = self.until("bestmove", WAIT);
        let last = lines.last().expect("a bestmove line");
        let mv = last.split_whitespace().nth(1).expect("bestmove has a move").to_string();
        (mv, lines)
    }

    /// Waits up to `timeout` for the process to exit; its exit status, or None.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs the engine with `args` and no input to its end; panics (after killing it) when it takes
/// longer than `timeout`.
pub fn run(args: &[&str], timeout: Duration) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the engine starts");
    let read = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = read(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = read(Box::new(child.stderr.take().expect("piped stderr")));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("arbiter-engine {args:?} did not end within {timeout:?}");
        }
        thread::sleep(Duration::from_millis(10));
    };
    Output { status, stdout: stdout.join().expect("stdout read"), stderr: stderr.join().expect("stderr read") }
}

/// The `nodes` field of an `info` line.
pub fn info_nodes(line: &str) -> Option<u64> {
    let mut tokens = line.split_whitespace();
    while let Some(t) = tokens.next() {
        if t == "nodes" {
            return tokens.next()?.parse().ok();
        }
    }
    None
}
