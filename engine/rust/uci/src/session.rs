//! One game as the engine plays it: the position and the game's position hashes, and ONE
//! `Searcher` kept across the game's moves (table, killers, history), as core play keeps one per
//! side. A search runs on the search thread with the searcher lent to it; the main thread keeps
//! reading commands.

use std::fmt::Write;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::thread::{self, Thread};
use std::time::Duration;

use arbiter_core::eval::Evaluate;
use arbiter_core::limits::{Clock, SearchLimits};
use arbiter_core::search::{SearchParams, Searcher, MATE, MATE_BOUND};
use arbiter_core::{Color, GameKind};

use crate::command::{Go, Start};
use crate::options::Settings;
use crate::search_thread::SearchThread;
use crate::wire::{hold, info_string, send};

/// The `info` of iterations that end within this time of the search's start waits for the next
/// line the search writes (at the latest its `bestmove`): live output where it can be watched,
/// and one write for a short search.
const HOLD_INFO: Duration = Duration::from_millis(50);

/// The longest time passed to the core (about 35 years): a deadline is an `Instant`, which cannot
/// hold any `u64` of milliseconds on every platform.
const MAX_TIME_MS: u64 = 1 << 40;

/// A game of either kind, driven by the protocol.
pub trait Session {
    fn game(&self) -> GameKind;
    /// Sets the position; on an error the previous one is kept.
    fn set_position(&mut self, start: &Start, moves: &[&str]) -> Result<(), String>;
    /// Starts searching the position on `thread` (after `wait`ing for any search before); with
    /// no thread, answers the first legal move.
    fn go(&mut self, go: &Go, settings: &Settings, thread: Option<&SearchThread>);
    /// Asks a running search to stop; it then prints `bestmove`.
    fn stop(&mut self);
    /// Waits for a running search to end and takes its searcher back.
    fn wait(&mut self);
    /// Starts a new game at the start position with the searcher cleared, as a new session
    /// would have it, if `settings` still make that searcher (after `wait`); false when a new
    /// session is needed. Clearing the table reuses its memory: a new one on every
    /// `ucinewgame` page-faulted 16 MiB afresh until the allocator kept it.
    fn new_game(&mut self, settings: &Settings) -> bool;
}

/// A new game of `settings.variant` at its start position, with a fresh searcher.
pub fn new_session(settings: &Settings) -> Box<dyn Session> {
    match settings.variant {
        GameKind::Congo => Box::new(Game::<arbiter_core::congo::Position>::new(settings)),
        GameKind::Congress => Box::new(Game::<arbiter_core::congress::Position>::new(settings)),
    }
}

/// What a searcher is made from; when the options change it, the next search gets a new one.
#[derive(Clone, PartialEq, Eq)]
struct Recipe {
    weights: Vec<i32>,
    params: SearchParams,
    hash_mb: usize,
}

impl Recipe {
    fn new(settings: &Settings, game: GameKind) -> Recipe {
        Recipe { weights: settings.weights(game).to_vec(), params: settings.params, hash_mb: settings.hash_mb }
    }

    /// Whether `settings` make this recipe for `game` (compared in place: asked every move).
    fn is_of(&self, settings: &Settings, game: GameKind) -> bool {
        self.hash_mb == settings.hash_mb && self.params == settings.params && self.weights == settings.weights(game)
    }

    /// `Searcher::with_params`, as `Searcher::new(weights, hash_mb)` with default parameters,
    /// plus the live `info` output of each iteration.
    fn make<P: Evaluate>(&self) -> Searcher<P> {
        let mut searcher = Searcher::with_params(self.weights.clone(), self.params, self.hash_mb);
        searcher.set_iteration_hook(Some(Box::new(|it| {
            let line = info_line(it.depth, it.score, it.nodes, it.elapsed, &it.pv);
            if it.elapsed < HOLD_INFO {
                hold(&line);
            } else {
                send(&line);
            }
        })));
        searcher
    }
}

struct Running<P: Evaluate> {
    stop: Arc<AtomicBool>,
    thread: Thread,
    /// The searcher, back when the search ends (closed if the search failed).
    done: Receiver<Searcher<P>>,
}

struct Game<P: Evaluate> {
    recipe: Recipe,
    /// None while a search thread holds it (or after a search thread failed).
    searcher: Option<Searcher<P>>,
    position: P,
    /// Hashes of the game's positions, the current one last: what core play passes as `history`.
    history: Vec<u64>,
    /// The `position` command that set the position (its start and moves), so that the next one,
    /// the same game a move or two on, plays only the new moves: a referee resends every move of
    /// the game each time, and parsing them all again made the protocol's cost grow with the game.
    start: Option<Start>,
    moves: Vec<String>,
    running: Option<Running<P>>,
}

impl<P: Evaluate> Game<P> {
    fn new(settings: &Settings) -> Game<P> {
        let recipe = Recipe::new(settings, P::GAME);
        let position = P::start();
        Game {
            searcher: Some(recipe.make()),
            recipe,
            history: vec![position.hash()],
            position,
            start: None,
            moves: Vec::new(),
            running: None,
        }
    }

    /// Plays `moves` on from the current position (the first of them numbered `first` in the
    /// `position` command); on an error nothing changes.
    fn play_on(&mut self, moves: &[&str], first: usize) -> Result<(), String> {
        let mut position = self.position;
        let played = self.history.len();
        for (i, text) in moves.iter().enumerate() {
            match position.parse_move(text) {
                Ok(m) => position = position.play(&m),
                Err(e) => {
                    self.history.truncate(played);
                    return Err(format!("position ignored: move {}: {e}", first + i));
                }
            }
            self.history.push(position.hash());
        }
        self.position = position;
        self.moves.extend(moves.iter().map(|m| m.to_string()));
        Ok(())
    }
}

impl<P: Evaluate> Session for Game<P> {
    fn game(&self) -> GameKind {
        P::GAME
    }

    fn set_position(&mut self, start: &Start, moves: &[&str]) -> Result<(), String> {
        let known = moves.len() >= self.moves.len() && self.moves.iter().zip(moves).all(|(a, b)| a == b);
        if self.start.as_ref() == Some(start) && known {
            let played = self.moves.len();
            return self.play_on(&moves[played..], played + 1);
        }
        let position = match start {
            Start::StartPos => P::start(),
            Start::Fen(text) => P::from_fen(text).map_err(|e| format!("position ignored: {e}"))?,
        };
        let (old_position, old_history, old_moves) = (
            self.position,
            std::mem::replace(&mut self.history, vec![position.hash()]),
            std::mem::take(&mut self.moves),
        );
        self.position = position;
        if let Err(e) = self.play_on(moves, 1) {
            (self.position, self.history, self.moves) = (old_position, old_history, old_moves);
            return Err(e);
        }
        self.start = Some(start.clone());
        Ok(())
    }

    fn go(&mut self, go: &Go, settings: &Settings, thread: Option<&SearchThread>) {
        self.wait();
        let mut searcher = match self.searcher.take() {
            Some(s) if self.recipe.is_of(settings, P::GAME) => s,
            old => {
                if old.is_some() {
                    info_string("options changed since ucinewgame: a new searcher with a fresh table");
                }
                // The old table goes before the new one is made: never two at once.
                drop(old);
                self.recipe = Recipe::new(settings, P::GAME);
                self.recipe.make()
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        searcher.set_stop_flag(Some(stop.clone()));
        let (limits, infinite) = limits(go, self.position.turn());
        let (position, history, flag) = (self.position, self.history.clone(), stop.clone());
        let (give_back, done) = mpsc::sync_channel(1);
        let job = Box::new(move || {
            let _ = give_back.send(run_search(searcher, position, history, limits, infinite, flag));
        });
        match thread.map(|t| (t.thread().clone(), t.run(job))) {
            Some((thread, Ok(()))) => self.running = Some(Running { stop, thread, done }),
            _ => {
                // The searcher went with the job: the next `go` makes a new one.
                info_string("no search thread: playing the first legal move");
                send(&bestmove(self.position.legal_moves().first()));
            }
        }
    }

    fn stop(&mut self) {
        if let Some(running) = &self.running {
            running.stop.store(true, Ordering::Relaxed);
            running.thread.unpark();
        }
    }

    fn new_game(&mut self, settings: &Settings) -> bool {
        self.wait();
        let Some(searcher) = self.searcher.as_mut().filter(|_| self.recipe.is_of(settings, P::GAME)) else {
            return false;
        };
        searcher.clear();
        self.position = P::start();
        self.history = vec![self.position.hash()];
        self.start = None;
        self.moves.clear();
        true
    }

    fn wait(&mut self) {
        if let Some(running) = self.running.take() {
            match running.done.recv() {
                Ok(searcher) => self.searcher = Some(searcher),
                Err(_) => info_string("the search thread failed: the next search gets a new searcher"),
            }
        }
    }
}

/// The search thread: searches, reports, and (under `go infinite`) holds `bestmove` until `stop`.
fn run_search<P: Evaluate>(
    mut searcher: Searcher<P>,
    position: P,
    history: Vec<u64>,
    limits: SearchLimits,
    infinite: bool,
    stop: Arc<AtomicBool>,
) -> Searcher<P> {
    // A failure inside the search (a bug) still answers with a legal move: the referee would
    // otherwise wait for one until it declares a hang.
    let searched = panic::catch_unwind(AssertUnwindSafe(|| searcher.search(&position, limits, &history)));
    let Ok(result) = searched else {
        info_string("the search failed: playing the first legal move");
        send(&bestmove(position.legal_moves().first()));
        return searcher;
    };
    // The last `info` before `bestmove` states the move's nodes, which the referee records: every
    // node searched, or, when a clock or movetime ended the search, its budget (the node limit
    // under which `go nodes` plays it again move for move, as a timed game's replay does: the
    // node it stopped at, or one more than it searched if it ended after an iteration). One more
    // line when the last iteration's does not say it; it goes out with `bestmove`, unless that
    // waits for `stop`.
    let timed = limits.clock.is_some() || limits.movetime_ms.is_some();
    let nodes = if timed { result.budget } else { result.nodes };
    if result.best_move.is_some() && result.iterations.last().is_none_or(|it| it.nodes != nodes) {
        let line = info_line(result.depth, result.score, nodes, result.elapsed, &result.pv);
        if infinite {
            send(&line);
        } else {
            hold(&line);
        }
    }
    while infinite && !stop.load(Ordering::Relaxed) {
        thread::park_timeout(Duration::from_millis(100));
    }
    if result.best_move.is_none() {
        info_string("no legal move: the game is over");
    }
    send(&bestmove(result.best_move.as_ref()));
    searcher
}

fn bestmove<M: std::fmt::Display>(m: Option<&M>) -> String {
    match m {
        Some(m) => format!("bestmove {m}"),
        None => "bestmove 0000".to_string(),
    }
}

/// `info depth D score cp S|mate N nodes N nps N time MS pv ...`, the score from the side to
/// move's view.
pub fn info_line<M: std::fmt::Display>(depth: u32, score: i32, nodes: u64, elapsed: Duration, pv: &[M]) -> String {
    let micros = elapsed.as_micros().max(1);
    let nps = u128::from(nodes) * 1_000_000 / micros;
    let mut line =
        format!("info depth {depth} score {} nodes {nodes} nps {nps} time {}", score_text(score), elapsed.as_millis());
    if !pv.is_empty() {
        line.push_str(" pv");
        for m in pv {
            let _ = write!(line, " {m}"); // writing to a String cannot fail
        }
    }
    line
}

/// `cp <x>`, or `mate <n>` in moves (negative when being mated) for the core's mate scores:
/// `MATE - p` wins on ply `p`, `-(MATE - p)` loses on ply `p`.
pub fn score_text(score: i32) -> String {
    if score.abs() <= MATE_BOUND {
        return format!("cp {score}");
    }
    let plies = MATE - score.abs();
    if score > 0 {
        format!("mate {}", (plies + 1) / 2)
    } else {
        format!("mate -{}", plies / 2)
    }
}

/// The core's limits for `go` with `turn` to move, and whether the search must wait for `stop`
/// (`go infinite`; a bare `go` also searches until `stop`, but then answers when done). The side
/// to move's clock goes to the core, whose time management (`timeman`) shares it out.
pub fn limits(go: &Go, turn: Color) -> (SearchLimits, bool) {
    let ms = |t: i64| u64::try_from(t).unwrap_or(0).min(MAX_TIME_MS);
    let (time, inc) = match turn {
        Color::White => (go.wtime.or(go.btime), go.winc),
        Color::Black => (go.btime.or(go.wtime), go.binc),
    };
    let mut limits = SearchLimits {
        nodes: go.nodes.map(|n| n.max(1)),
        depth: go.depth.map(|d| d.max(1)),
        movetime_ms: go.movetime.map(|t| t.min(MAX_TIME_MS)),
        clock: time.map(|t| Clock {
            remaining_ms: ms(t),
            increment_ms: inc.map_or(0, ms),
            moves_to_go: go.movestogo.filter(|&m| m > 0),
        }),
    };
    if go.infinite || limits == SearchLimits::default() {
        // No limit of its own: as deep as the search goes, until `stop`.
        limits.depth = limits.depth.or(Some(u32::MAX));
    }
    (limits, go.infinite)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game of `plies` moves (the first legal move each time, while there is one).
    fn first_moves<P: Evaluate>(plies: usize) -> Vec<String> {
        let mut position = P::start();
        let mut moves = Vec::new();
        for _ in 0..plies {
            let Some(m) = position.legal_moves().first().cloned() else { break };
            moves.push(m.to_string());
            position = position.play(&m);
        }
        moves
    }

    #[test]
    fn positions_move_by_move_are_the_positions_of_the_whole_list() {
        use arbiter_core::congo::Position;
        let settings = crate::options::Options::new(None).defaults();
        let owned = first_moves::<Position>(12);
        let moves: Vec<&str> = owned.iter().map(String::as_str).collect();
        let mut whole = Game::<Position>::new(&settings);
        whole.set_position(&Start::StartPos, &moves).unwrap();
        let mut stepped = Game::<Position>::new(&settings);
        for n in 0..=moves.len() {
            stepped.set_position(&Start::StartPos, &moves[..n]).unwrap();
        }
        assert_eq!((stepped.position.hash(), &stepped.history), (whole.position.hash(), &whole.history));
        assert_eq!(stepped.history.len(), moves.len() + 1);
        // A bad move on from the known ones changes nothing, and says which move it was.
        let mut bad = moves.clone();
        bad.push("a1a1");
        let e = stepped.set_position(&Start::StartPos, &bad).unwrap_err();
        assert!(e.contains(&format!("move {}", moves.len() + 1)), "{e}");
        assert_eq!((stepped.position.hash(), &stepped.history), (whole.position.hash(), &whole.history));
        // Going back (another game from the same start) parses the list afresh.
        stepped.set_position(&Start::StartPos, &moves[..3]).unwrap();
        let mut three = Game::<Position>::new(&settings);
        three.set_position(&Start::StartPos, &moves[..3]).unwrap();
        assert_eq!(stepped.history, three.history);
        // A bad move in a fresh list keeps the position before it.
        let e = stepped.set_position(&Start::StartPos, &["a1a1"]).unwrap_err();
        assert!(e.contains("move 1"), "{e}");
        assert_eq!(stepped.history, three.history);
    }

    #[test]
    fn scores() {
        assert_eq!(score_text(0), "cp 0");
        assert_eq!(score_text(-123), "cp -123");
        assert_eq!(score_text(MATE_BOUND), format!("cp {MATE_BOUND}"));
        // The side to move captures the lion on its first move (ply 1): mate in 1.
        assert_eq!(score_text(MATE - 1), "mate 1");
        assert_eq!(score_text(MATE - 3), "mate 2");
        // The opponent captures on ply 2: mated in 1.
        assert_eq!(score_text(-(MATE - 2)), "mate -1");
        assert_eq!(score_text(-(MATE - 4)), "mate -2");
        assert_eq!(score_text(-MATE), "mate -0");
    }

    #[test]
    fn info_lines() {
        let pv = ["d2d3", "d6d5"];
        assert_eq!(
            info_line(3, 25, 1000, Duration::from_millis(10), &pv),
            "info depth 3 score cp 25 nodes 1000 nps 100000 time 10 pv d2d3 d6d5"
        );
        assert_eq!(
            info_line::<&str>(1, MATE - 1, 5, Duration::ZERO, &[]),
            "info depth 1 score mate 1 nodes 5 nps 5000000 time 0"
        );
    }

    #[test]
    fn limits_of_go() {
        let go = |g: Go| limits(&g, Color::White);
        assert_eq!(go(Go { nodes: Some(1000), ..Go::default() }), (SearchLimits::nodes(1000), false));
        assert_eq!(go(Go { depth: Some(0), ..Go::default() }).0.depth, Some(1));
        assert_eq!(go(Go::default()), (SearchLimits::depth(u32::MAX), false));
        let (l, infinite) = go(Go { infinite: true, ..Go::default() });
        assert!(infinite && l.depth == Some(u32::MAX));
        let (l, infinite) = go(Go { infinite: true, nodes: Some(5), ..Go::default() });
        assert!(infinite && l.nodes == Some(5));
        // The clock of the side to move.
        let clock = Go {
            wtime: Some(60_000),
            btime: Some(-5),
            winc: Some(100),
            binc: Some(200),
            movestogo: Some(0),
            ..Go::default()
        };
        let white = Clock { remaining_ms: 60_000, increment_ms: 100, moves_to_go: None };
        let black = Clock { remaining_ms: 0, increment_ms: 200, moves_to_go: None };
        assert_eq!(limits(&clock, Color::White).0.clock, Some(white));
        assert_eq!(limits(&clock, Color::Black).0.clock, Some(black));
        let (l, _) = go(Go { movetime: Some(5), movestogo: Some(12), ..clock.clone() });
        assert_eq!((l.movetime_ms, l.clock.map(|c| c.moves_to_go)), (Some(5), Some(Some(12))));
        // Only the other side's clock: it stands in.
        assert_eq!(go(Go { btime: Some(700), ..Go::default() }).0.clock.map(|c| c.remaining_ms), Some(700));
        // Numbers beyond any real clock are cut to what an `Instant` holds.
        let (l, _) = go(Go { movetime: Some(u64::MAX), wtime: Some(i64::MAX), winc: Some(i64::MAX), ..Go::default() });
        assert_eq!(l.movetime_ms, Some(MAX_TIME_MS));
        assert_eq!(l.clock, Some(Clock { remaining_ms: MAX_TIME_MS, increment_ms: MAX_TIME_MS, moves_to_go: None }));
    }
}
