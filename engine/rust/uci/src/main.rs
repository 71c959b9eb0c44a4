//! `arbiter-engine`: arbiter's built-in engine (arbiter-core's search) as a program speaking
//! arbiter's UCI dialect on stdin/stdout, so that the referee tests it like any other engine.

mod command;
mod options;
mod search_thread;
mod session;
mod wire;

use std::io;
use std::time::Instant;

use arbiter_core::bench::{bench_with, positions, DEPTH};
use arbiter_core::{GameKind, ENGINE_VERSION};

use command::{parse, Command};
use options::{Options, Settings};
use search_thread::SearchThread;
use session::{new_session, Session};
use wire::{info_string, read_line, send, Read, MAX_LINE};

const HELP: &str = "\
arbiter-engine: arbiter's built-in engine for Congo and Congress Chess, speaking arbiter's UCI
dialect (docs/protocol.md) on stdin and stdout.

USAGE:
    arbiter-engine [--variant congo|congress]            play: read protocol commands on stdin
    arbiter-engine [--variant congo|congress] bench [DEPTH]
    arbiter-engine --help | --version

--variant GAME
    A one-game engine: UCI_Variant lists only GAME and the evaluation weights are declared under
    their plain names (`pawn`, `mobility`). Without it the engine plays both games (UCI_Variant
    congo, the default, or congress) and declares each game's weights with the game's name first
    (`congo_pawn`, `congress_pawn`): the two games' tables share names with different defaults and
    ranges, and options are declared once, before any setoption.

OPTIONS (all spins but UCI_Variant; names match in any case):
    UCI_Variant   combo: the game of the next ucinewgame / position
    Hash          table size in MiB, default 16, 1..4096
    <weight>      every evaluation weight of the game's table (`arbiter weights GAME`)
    <parameter>   every search parameter (lmr_min_depth, history_max, aspiration_window, ...)
Options take effect when the game's searcher is made: at ucinewgame, or at the next go if they
changed since. One searcher (table, killers, history) serves all the moves of a game, so at fixed
nodes a game played through the protocol is move for move the game the core plays in-process
with the same weights and table size. A bad option, position or move is answered with an
`info string` saying why and otherwise ignored.

COMMANDS: uci (ugi), isready, setoption, ucinewgame, position, go (wtime btime winc binc
movestogo movetime nodes depth infinite), stop, quit, and bench [DEPTH].

bench [DEPTH]
    Searches the core's bench positions (of both games, or of --variant's) to DEPTH (default 9)
    with fresh tables and prints a line per game and `Bench: <total nodes> nodes <nps> nps`: the
    build's signature. Inside the protocol it uses the options as set.
";

enum Flow {
    Continue,
    Quit,
}

struct Engine {
    options: Options,
    settings: Settings,
    session: Option<Box<dyn Session>>,
    /// Started at the first `go`; None until then, or if it could not be started.
    search_thread: Option<SearchThread>,
}

impl Engine {
    fn new(only: Option<GameKind>) -> Engine {
        let options = Options::new(only);
        Engine { settings: options.defaults(), options, session: None, search_thread: None }
    }

    fn handle(&mut self, line: &str) -> Flow {
        let command = match parse(line) {
            Ok(Some(command)) => command,
            Ok(None) => return Flow::Continue,
            Err(e) => {
                info_string(&e.to_string());
                return Flow::Continue;
            }
        };
        match command {
            Command::Uci | Command::Ugi => {
                send(&format!("id name arbiter-engine {ENGINE_VERSION}"));
                send("id author arbiter");
                for line in self.options.declarations() {
                    send(&line);
                }
                send(if command == Command::Ugi { "ugiok" } else { "uciok" });
            }
            Command::IsReady => send("readyok"),
            Command::SetOption { name, value } => {
                if let Err(e) = self.options.set(&mut self.settings, &name, value.as_deref()) {
                    info_string(&e.to_string());
                }
            }
            Command::UciNewGame => {
                self.stop_and_wait();
                let variant = self.settings.variant;
                if !self.session.as_mut().is_some_and(|s| s.game() == variant && s.new_game(&self.settings)) {
                    // The old table goes before the new one is made: never two at once.
                    self.session = None;
                    self.session = Some(new_session(&self.settings));
                }
            }
            Command::Position { start, moves } => {
                if let Err(e) = self.session().set_position(&start, &moves) {
                    info_string(&e);
                }
            }
            Command::Go(go) => {
                self.stop_and_wait();
                if self.search_thread.is_none() {
                    match SearchThread::spawn() {
                        Ok(thread) => self.search_thread = Some(thread),
                        Err(e) => info_string(&format!("cannot start the search thread: {e}")),
                    }
                }
                self.session();
                if let Some(session) = &mut self.session {
                    session.go(&go, &self.settings, self.search_thread.as_ref());
                }
            }
            Command::Stop => {
                if let Some(session) = &mut self.session {
                    session.stop();
                }
            }
            Command::Quit => return Flow::Quit,
            Command::Bench { depth } => {
                self.stop_and_wait();
                bench(self.options.games(), depth, &self.settings);
            }
            Command::Debug | Command::Register | Command::PonderHit => {}
        }
        Flow::Continue
    }

    /// The session of the selected variant: the current one, or a new game (a new variant
    /// starts a new game).
    fn session(&mut self) -> &mut Box<dyn Session> {
        if self.session.as_ref().is_some_and(|s| s.game() != self.settings.variant) {
            self.stop_and_wait();
            self.session = None;
        }
        self.session.get_or_insert_with(|| new_session(&self.settings))
    }

    fn stop_and_wait(&mut self) {
        if let Some(session) = &mut self.session {
            session.stop();
            session.wait();
        }
    }
}

/// Benches `games` with `settings`' weights, parameters and table size.
fn bench(games: &[GameKind], depth: Option<u32>, settings: &Settings) {
    let depth = depth.unwrap_or(DEPTH).clamp(1, 100);
    let start = Instant::now();
    let mut total = 0;
    for &game in games {
        let r = bench_with(game, Some(depth), settings.weights(game), settings.params, settings.hash_mb);
        let micros = r.elapsed.as_micros().max(1);
        send(&format!(
            "{game}: {} nodes {} ms {} nps ({} positions, depth {depth})",
            r.nodes,
            r.elapsed.as_millis(),
            u128::from(r.nodes) * 1_000_000 / micros,
            positions(game).len()
        ));
        total += r.nodes;
    }
    let micros = start.elapsed().as_micros().max(1);
    send(&format!("Bench: {total} nodes {} nps", u128::from(total) * 1_000_000 / micros));
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Action {
    Play,
    Bench(Option<u32>),
    Help,
    Version,
}

fn parse_args(args: &[String]) -> Result<(Option<GameKind>, Action), String> {
    let mut variant = None;
    let mut action = Action::Play;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        match arg {
            "-h" | "--help" => return Ok((variant, Action::Help)),
            "-V" | "--version" => return Ok((variant, Action::Version)),
            "--variant" => {
                let name = args.get(i).ok_or("--variant needs congo or congress")?;
                i += 1;
                variant =
                    Some(GameKind::from_name(name).ok_or(format!("--variant {name}: expected congo or congress"))?);
            }
            _ if arg.starts_with("--variant=") => {
                let name = &arg["--variant=".len()..];
                variant =
                    Some(GameKind::from_name(name).ok_or(format!("--variant {name}: expected congo or congress"))?);
            }
            "bench" if action == Action::Play => {
                let depth = match args.get(i) {
                    Some(d) if !d.starts_with('-') => {
                        i += 1;
                        Some(
                            d.parse()
                                .ok()
                                .filter(|&d| d >= 1)
                                .ok_or(format!("bench {d}: expected a depth of 1 or more"))?,
                        )
                    }
                    _ => None,
                };
                action = Action::Bench(depth);
            }
            _ => return Err(format!("unexpected argument {arg:?}")),
        }
    }
    Ok((variant, action))
}

fn main() {
    let mut args = Vec::new();
    for arg in std::env::args_os().skip(1) {
        match arg.into_string() {
            Ok(a) => args.push(a),
            Err(a) => {
                eprintln!("arbiter-engine: argument {a:?} is not UTF-8; see --help");
                std::process::exit(2);
            }
        }
    }
    let (variant, action) = match parse_args(&args) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("arbiter-engine: {e}; see --help");
            std::process::exit(2);
        }
    };
    match action {
        Action::Help => print!("{HELP}"),
        Action::Version => println!("arbiter-engine {ENGINE_VERSION}"),
        Action::Bench(depth) => {
            let options = Options::new(variant);
            bench(options.games(), depth, &options.defaults());
        }
        Action::Play => play(variant),
    }
}

/// Reads commands until `quit` or the end of input, then exits at once (a running search is
/// abandoned).
fn play(variant: Option<GameKind>) {
    let mut engine = Engine::new(variant);
    let mut input = io::stdin().lock();
    let mut buf = Vec::new();
    loop {
        match read_line(&mut input, &mut buf, MAX_LINE) {
            Ok(Read::Line) => {
                if let Flow::Quit = engine.handle(&String::from_utf8_lossy(&buf)) {
                    break;
                }
            }
            Ok(Read::TooLong) => info_string(&format!("input line longer than {MAX_LINE} bytes, ignored")),
            Ok(Read::Eof) => break,
            Err(e) => {
                eprintln!("arbiter-engine: cannot read stdin: {e}");
                break;
            }
        }
    }
    std::process::exit(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Result<(Option<GameKind>, Action), String> {
        parse_args(&text.split_whitespace().map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn command_line() {
        assert_eq!(args(""), Ok((None, Action::Play)));
        assert_eq!(args("--variant congress"), Ok((Some(GameKind::Congress), Action::Play)));
        assert_eq!(args("--variant=congo bench"), Ok((Some(GameKind::Congo), Action::Bench(None))));
        assert_eq!(args("bench 5 --variant congo"), Ok((Some(GameKind::Congo), Action::Bench(Some(5)))));
        assert_eq!(args("--help"), Ok((None, Action::Help)));
        assert_eq!(args("-V"), Ok((None, Action::Version)));
        for bad in ["--variant", "--variant chess", "bench 0", "bench x", "bench 3 4", "--hash 3", "play"] {
            assert!(args(bad).is_err(), "{bad}");
        }
    }
}
