//! Lines in and out of one engine process, with deadlines and bounds.
//!
//! The pipes' file descriptors belong to the caller, which made them non-blocking and closes
//! them. Anything the engine does (exits, closes its output, floods, writes an over-long line,
//! stops reading) is a `Fault`, never a panic.

use std::collections::VecDeque;
use std::mem::MaybeUninit;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

/// A line of engine output longer than this is a protocol violation.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// More output than this while the referee waits for one answer is a flood.
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;
/// The last lines of stderr kept, and the characters kept of each.
pub const STDERR_LINES: usize = 20;
pub const STDERR_LINE_CHARS: usize = 300;
const READ_CHUNK: usize = 64 * 1024;

/// What went wrong with the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Its output ended or its input broke: how it exited tells the reason.
    Gone,
    /// It took no input, or gave no answer, in the time it had.
    Hang,
    /// Its clock ran out (it answered `stop` in time).
    TimeForfeit,
    /// A protocol violation, with what it was.
    Protocol(String),
}

impl Fault {
    fn line_too_long() -> Fault {
        Fault::Protocol(format!("a line longer than {MAX_LINE_BYTES} bytes"))
    }
}

/// One engine process's stdin, stdout and stderr, and its pidfd where there is one.
pub struct EnginePipe {
    stdin: RawFd,
    stdout: RawFd,
    stderr: RawFd,
    pidfd: Option<RawFd>,
    out: Vec<u8>,
    pos: usize,
    answer_bytes: usize,
    out_open: bool,
    err_open: bool,
    leader_open: bool,
    err_lines: VecDeque<String>,
    err_partial: String,
}

/// A stderr line for a report: control characters removed, tabs as spaces, bounded.
fn clean(text: &str) -> String {
    text.chars().map(|c| if c == '\t' { ' ' } else { c }).filter(|c| !c.is_control()).take(STDERR_LINE_CHARS).collect()
}

enum Read {
    Data,
    Nothing,
}

/// Reads into `buf` (not zeroed first: a read per engine line must not clear 64 KiB); the first
/// `n` bytes of `buf` are then initialised.
fn read_fd(fd: RawFd, buf: &mut [MaybeUninit<u8>]) -> Option<usize> {
    // SAFETY: buf is a valid writable buffer of buf.len() bytes.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n >= 0 {
        return Some(n as usize);
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EAGAIN) | Some(libc::EINTR) => None,
        _ => Some(0), // an error ends the stream, as an end of file does
    }
}

impl EnginePipe {
    pub fn new(stdin: RawFd, stdout: RawFd, stderr: RawFd, pidfd: Option<RawFd>) -> EnginePipe {
        EnginePipe {
            stdin,
            stdout,
            stderr,
            pidfd,
            out: Vec::new(),
            pos: 0,
            answer_bytes: 0,
            out_open: true,
            err_open: true,
            leader_open: pidfd.is_some(),
            err_lines: VecDeque::new(),
            err_partial: String::new(),
        }
    }

    /// Never touches the file descriptors again: the caller is closing them (and the numbers
    /// may soon name other files). Reading then finds the output ended; writing fails.
    pub fn forget(&mut self) {
        (self.stdin, self.stdout, self.stderr, self.pidfd) = (-1, -1, -1, None);
        (self.out_open, self.err_open, self.leader_open) = (false, false, false);
    }

    /// Output read and not yet taken as lines.
    pub fn buffered_bytes(&self) -> usize {
        self.out.len() - self.pos
    }

    /// Starts counting output afresh: the flood bound applies to each answer waited for.
    pub fn begin_answer(&mut self) {
        self.answer_bytes = 0;
    }

    /// Drops the output read and not taken, and restarts the count (an engine being waited for,
    /// not listened to).
    pub fn discard_output(&mut self) {
        self.out.clear();
        self.pos = 0;
        self.answer_bytes = 0;
    }

    /// The next line of output, without its line end (lossy UTF-8), or None if `deadline`
    /// passes first.
    pub fn read_line(&mut self, deadline: Instant) -> Result<Option<String>, Fault> {
        loop {
            if let Some(end) = self.out[self.pos..].iter().position(|&b| b == b'\n') {
                if end > MAX_LINE_BYTES {
                    return Err(Fault::line_too_long());
                }
                let raw = &self.out[self.pos..self.pos + end];
                let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
                let line = String::from_utf8_lossy(raw).into_owned();
                self.pos += end + 1;
                return Ok(Some(line));
            }
            if !self.out_open {
                return Err(Fault::Gone);
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            self.pump(deadline - now, false)?;
        }
    }

    /// Writes `data` whole; Gone if the engine's input is closed, Hang if it has not taken it
    /// within `timeout`.
    pub fn send(&mut self, data: &[u8], timeout: Duration) -> Result<(), Fault> {
        let deadline = Instant::now() + timeout;
        let mut rest = data;
        loop {
            // SAFETY: rest is a valid readable buffer of rest.len() bytes.
            let n = unsafe { libc::write(self.stdin, rest.as_ptr().cast(), rest.len()) };
            if n >= 0 {
                rest = &rest[n as usize..];
            } else {
                match std::io::Error::last_os_error().raw_os_error() {
                    Some(libc::EAGAIN) | Some(libc::EINTR) => {}
                    _ => return Err(Fault::Gone),
                }
            }
            if rest.is_empty() {
                return Ok(());
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Fault::Hang);
            }
            self.pump(deadline - now, true)?;
        }
    }

    /// Waits up to `timeout` for output (kept), stderr (kept in the ring), the engine's exit, or
    /// room in its input (with `want_write`), and takes what came.
    pub fn pump(&mut self, timeout: Duration, want_write: bool) -> Result<(), Fault> {
        let mut fds = [libc::pollfd { fd: -1, events: 0, revents: 0 }; 4];
        let mut what = [0u8; 4];
        let mut count = 0;
        let mut watch = |fd: RawFd, events: libc::c_short, tag: u8| {
            fds[count] = libc::pollfd { fd, events, revents: 0 };
            what[count] = tag;
            count += 1;
        };
        if self.out_open {
            watch(self.stdout, libc::POLLIN, b'o');
        }
        if self.err_open {
            watch(self.stderr, libc::POLLIN, b'e');
        }
        if let (true, Some(fd)) = (self.leader_open, self.pidfd) {
            watch(fd, libc::POLLIN, b'x');
        }
        if want_write {
            watch(self.stdin, libc::POLLOUT, b'i');
        }
        // Rounded up, so that a wait never ends just before its deadline and spins.
        let ms = timeout.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
        // SAFETY: fds is a valid array of at least count pollfd structs.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), count as libc::nfds_t, ms) };
        if ready <= 0 {
            return Ok(()); // a timeout, or a signal: the caller looks at its deadline again
        }
        for (fd, &tag) in fds[..count].iter().zip(&what) {
            if fd.revents == 0 {
                continue;
            }
            match tag {
                b'o' => {
                    self.read_out()?;
                }
                b'e' => self.read_err(),
                b'x' => self.leader_exited()?,
                _ => {}
            }
        }
        Ok(())
    }

    fn read_out(&mut self) -> Result<Read, Fault> {
        if self.pos > 0 {
            self.out.drain(..self.pos);
            self.pos = 0;
        }
        self.out.reserve(READ_CHUNK);
        let Some(n) = read_fd(self.stdout, &mut self.out.spare_capacity_mut()[..READ_CHUNK]) else {
            return Ok(Read::Nothing);
        };
        // SAFETY: read_fd initialised the n bytes after the vector's length.
        unsafe { self.out.set_len(self.out.len() + n) };
        if n == 0 {
            self.out_open = false;
            return Ok(Read::Nothing);
        }
        self.answer_bytes += n;
        if self.answer_bytes > MAX_ANSWER_BYTES {
            return Err(Fault::Protocol(format!("more than {MAX_ANSWER_BYTES} bytes of output for one answer")));
        }
        let line_start = self.out.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if self.out.len() - line_start > MAX_LINE_BYTES {
            return Err(Fault::line_too_long());
        }
        Ok(Read::Data)
    }

    fn read_err(&mut self) {
        let mut buf = [MaybeUninit::<u8>::uninit(); READ_CHUNK];
        let Some(n) = read_fd(self.stderr, &mut buf) else { return };
        // SAFETY: read_fd initialised the first n bytes.
        let chunk = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), n) };
        if n == 0 {
            self.err_open = false;
            if !self.err_partial.is_empty() {
                let line = clean(&std::mem::take(&mut self.err_partial));
                self.keep_err(line);
            }
            return;
        }
        let text = String::from_utf8_lossy(chunk);
        let mut pieces = text.split('\n').collect::<Vec<_>>();
        let rest = pieces.pop().unwrap_or("");
        for piece in pieces {
            let line = clean(&(std::mem::take(&mut self.err_partial) + piece));
            if !line.trim().is_empty() {
                self.keep_err(line);
            }
        }
        self.err_partial.push_str(rest);
        if let Some((cut, _)) = self.err_partial.char_indices().nth(STDERR_LINE_CHARS + 1) {
            self.err_partial.truncate(cut);
        }
    }

    fn keep_err(&mut self, line: String) {
        if self.err_lines.len() == STDERR_LINES {
            self.err_lines.pop_front();
        }
        self.err_lines.push_back(line);
    }

    /// The engine's process ended: its output is what it wrote until then (a child of it that
    /// keeps the pipe open must not keep the referee waiting).
    fn leader_exited(&mut self) -> Result<(), Fault> {
        self.leader_open = false;
        for _ in 0..=MAX_ANSWER_BYTES / READ_CHUNK {
            if !self.out_open || matches!(self.read_out()?, Read::Nothing) {
                break;
            }
        }
        for _ in 0..STDERR_LINES {
            if !self.err_open {
                break;
            }
            self.read_err();
        }
        self.out_open = false;
        Ok(())
    }

    /// Forgets the stderr lines kept so far: the tail starts again from here.
    pub fn forget_stderr(&mut self) {
        self.err_lines.clear();
        self.err_partial.clear();
    }

    /// The last lines the engine wrote to stderr (control characters removed, bounded).
    pub fn stderr_tail(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.err_lines.iter().cloned().collect();
        if !self.err_partial.trim().is_empty() {
            lines.push(clean(&self.err_partial));
        }
        let skip = lines.len().saturating_sub(STDERR_LINES);
        lines.split_off(skip)
    }
}
