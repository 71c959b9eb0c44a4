//! `GameJudge` for Python: a game refereed one move at a time, for engines outside the process.
//!
//! The referee asks it after every move whether the game has ended, so it keeps the state that
//! [`EndWatch`] needs instead of replaying the whole record each time (which would be quadratic).
//! The rules, the notation and the end conditions (and their order) are the core crate's: a game
//! judged here ends exactly where `replay_game` of the same moves says it ends.
//!
//! `GameJudge.referee` plays a game without a time limit (fixed nodes or depth) between two
//! engine programs to its end in one call: the referee's whole per-move path (position and go,
//! the answer, the move checked and played) in Rust, with no Python between the moves.

use std::time::Instant;

use arbiter_core::ending::{reasons, Adjudication as CoreAdjudication, EndWatch, GameResult, ResignWatch};
use arbiter_core::eval::Evaluate;
use arbiter_core::rules::find_legal;
use arbiter_core::search::{MATE, MATE_BOUND};
use arbiter_core::{congo, congress, MoveError};
use arbiter_referee::search::Waits;
use arbiter_referee::AtDeadline;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::limits::Adjudication;
use crate::position::{game_kind, move_error, AnyPosition, Position};
use crate::referee::{fault_parts, wait, EnginePipe};

/// What the referee is told when a move's text is not in the wire form.
const COMPACT: &str = "a move in compact notation: the start square, then every square it lands on, lower case \
                       (like d2d3 or b1d3f5d7)";

/// One game's state for the judge: the position, the end conditions' memory, the end if reached.
struct Judge<P: Evaluate> {
    opening: P,
    pos: P,
    watch: EndWatch,
    resign: ResignWatch,
    plies: usize,
    end: Option<(GameResult, &'static str)>,
}

/// Why a move cannot be played.
enum Refusal {
    Move(MoveError),
    Ended(&'static str),
}

impl<P: Evaluate> Judge<P> {
    fn new(opening: P, adjudication: CoreAdjudication) -> Judge<P> {
        let watch = EndWatch::new(&opening, adjudication);
        let end = watch.end(&opening);
        Judge { opening, pos: opening, watch, resign: ResignWatch::new(&adjudication), plies: 0, end }
    }

    /// The side to move searched and scored `score` (its own point of view; None: no score):
    /// the game ends here if that makes a resignation.
    fn searched(&mut self, score: Option<i32>) -> Option<GameResult> {
        if self.end.is_some() {
            return None;
        }
        let result = self.resign.searched(self.pos.turn(), score)?;
        self.end = Some((result, reasons::RESIGN));
        Some(result)
    }

    /// The legal move written exactly as `text` (the compact wire form only).
    fn find(&self, text: &str) -> Result<P::Move, Refusal> {
        if let Some((_, reason)) = self.end {
            return Err(Refusal::Ended(reason));
        }
        let Some(squares) = P::compact_squares(text.as_bytes()) else {
            return Err(Refusal::Move(MoveError::Invalid { input: text.to_string(), expected: COMPACT.to_string() }));
        };
        find_legal(&self.pos, &squares)
            .ok_or_else(|| Refusal::Move(MoveError::Illegal { input: text.to_string(), position: self.pos.fen() }))
    }

    fn play(&mut self, text: &str) -> Result<String, Refusal> {
        let mv = self.find(text)?;
        Ok(self.play_found(&mv))
    }

    /// Plays `mv`, a move `find` returned, and gives its compact text.
    fn play_found(&mut self, mv: &P::Move) -> String {
        self.pos = self.pos.play(mv);
        self.watch.played(&self.pos);
        self.plies += 1;
        self.end = self.watch.end(&self.pos);
        // A move's Display form is its compact notation (what `legal_moves` prints).
        mv.to_string()
    }

    /// Plays on to the end of the game, each side's engine asked for its move with `go` (fixed
    /// nodes or depth: no time limit) as `EnginePlayer.play` asks it, every answer checked as
    /// the Python referee checks it: a fault of the pipe or an illegal move ends the game for
    /// that side (the second item of the result). The first item: each move played, with its
    /// time and what its info lines said.
    fn referee(&mut self, py: Python<'_>, go: &str, sides: &mut [RefereeSide<'_>; 2]) -> PyResult<Refereed> {
        if self.plies != 0 {
            return Err(PyValueError::new_err("referee plays a game from its opening: moves were played already"));
        }
        let mut stats = Vec::new();
        let mut position = format!("position fen {}", self.opening.fen());
        while self.end.is_none() {
            // A signal (Ctrl-C) is taken between moves, as the Python loop took it.
            py.check_signals()?;
            let turn = self.pos.turn();
            let side = &mut sides[turn.index()];
            let commands = format!("{position}\n{go}\n");
            side.log(">", [position.as_str(), go])?;
            let started = Instant::now();
            let pipe = &mut side.pipe.pipe;
            let answer = py.detach(|| pipe.search(&commands, side.waits, AtDeadline::Hang));
            let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
            let answer = match answer {
                Ok(answer) => answer,
                Err(f) => {
                    let (kind, text) = fault_parts(f);
                    return Ok((stats, Some((turn.name(), kind, text))));
                }
            };
            side.log("<", answer.lines.iter().map(String::as_str))?;
            let Ok(mv) = self.find(&answer.best) else {
                return Ok((stats, Some((turn.name(), "illegal", answer.best))));
            };
            if self.searched(resignation_score(answer.info.score_cp, answer.info.score_mate)).is_some() {
                break;
            }
            let text = self.play_found(&mv);
            position.push_str(if self.plies == 1 { " moves " } else { " " });
            position.push_str(&text);
            let info = answer.info;
            stats.push((text, elapsed_ms, info.nodes, info.depth, info.score_cp, info.score_mate));
        }
        Ok((stats, None))
    }
}

/// One move's stats: compact move, milliseconds, and the info's nodes, depth, score cp and mate.
type MoveStat = (String, f64, Option<i64>, Option<i64>, Option<i64>, Option<i64>);

/// The moves a refereed game played, and the fault that ended it, if one did: (side, kind, text),
/// kind as `EnginePipeFault`'s or "illegal" (the text is then the move as the engine wrote it).
type Refereed = (Vec<MoveStat>, Option<(&'static str, &'static str, String)>);

/// One side as `GameJudge.referee` takes it: (pipe, move_s, stop_s, write_s, log).
type SideArgs<'py> = (PyRefMut<'py, EnginePipe>, f64, f64, f64, Option<Bound<'py, PyAny>>);

/// One side of a refereed game: its engine's pipe, how long it waits for what, and the
/// transcript it logs to (a callable taking a direction and a line), if any.
struct RefereeSide<'py> {
    pipe: PyRefMut<'py, EnginePipe>,
    waits: Waits,
    log: Option<Bound<'py, PyAny>>,
}

impl RefereeSide<'_> {
    fn log<'a>(&self, direction: &str, lines: impl IntoIterator<Item = &'a str>) -> PyResult<()> {
        if let Some(log) = &self.log {
            for line in lines {
                log.call1((direction, line))?;
            }
        }
        Ok(())
    }
}

/// A move's score for resignation, from the side to move's view: its info's `score cp`, or a
/// `score mate` n as the search's own mate score (past any resignation threshold), held within
/// the mate scores (an engine may claim any number); None when it gave neither. The timed
/// Python loop reads its scores through this too, so both paths judge resignations alike.
#[pyfunction]
#[pyo3(signature = (score_cp, score_mate))]
pub fn resignation_score(score_cp: Option<i64>, score_mate: Option<i64>) -> Option<i32> {
    if let Some(cp) = score_cp {
        return Some(cp.clamp(i64::from(-MATE), i64::from(MATE)) as i32);
    }
    let mate = score_mate?;
    // A mate further off than the search's scores reach is still a mate score.
    let longest = i64::from(MATE - MATE_BOUND - 1);
    let plies = if mate > 0 { 2 * mate.min(longest) - 1 } else { 2 * mate.saturating_neg().min(longest) }.min(longest);
    let score = i64::from(MATE) - plies;
    Some((if mate > 0 { score } else { -score }) as i32)
}

enum AnyJudge {
    Congo(Judge<congo::Position>),
    Congress(Judge<congress::Position>),
}

/// Runs `$body` with `$j` bound to the judge of either game.
macro_rules! with_judge {
    ($value:expr, $j:ident => $body:expr) => {
        match $value {
            AnyJudge::Congo($j) => $body,
            AnyJudge::Congress($j) => $body,
        }
    };
}

/// A game judged move by move: every move checked against the rules, and the end of the game
/// (the rules first, then repetition, bare lions and the ply limit, as `play_game` and
/// `replay_game` judge it) known after each move.
#[pyclass(module = "engine._engine")]
pub struct GameJudge {
    game: &'static str,
    judge: AnyJudge,
}

impl GameJudge {
    fn refused(&self, refusal: Refusal) -> PyErr {
        match refusal {
            Refusal::Move(e) => move_error(e, &self.fen()),
            Refusal::Ended(reason) => {
                PyValueError::new_err(format!("the game has ended ({reason}): no move may be played"))
            }
        }
    }
}

#[pymethods]
impl GameJudge {
    /// A judge for `game` from the `opening` position string under `adjudication` (as
    /// `play_game` takes it; its resignation rule is applied through `searched`).
    #[new]
    #[pyo3(signature = (game, opening, adjudication=None))]
    fn new(game: &str, opening: &str, adjudication: Option<PyRef<'_, Adjudication>>) -> PyResult<GameJudge> {
        let kind = game_kind(game)?;
        let adjudication = adjudication.map(|a| a.core).unwrap_or_default();
        let judge = match AnyPosition::from_fen(kind, opening)? {
            AnyPosition::Congo(p) => AnyJudge::Congo(Judge::new(p, adjudication)),
            AnyPosition::Congress(p) => AnyJudge::Congress(Judge::new(p, adjudication)),
        };
        Ok(GameJudge { game: kind.name(), judge })
    }

    #[getter]
    fn game(&self) -> &'static str {
        self.game
    }

    /// The canonical position string of the opening.
    #[getter]
    fn opening(&self) -> String {
        with_judge!(&self.judge, j => j.opening.fen())
    }

    /// "white" or "black": the side to move.
    #[getter]
    fn turn(&self) -> &'static str {
        with_judge!(&self.judge, j => j.pos.turn().name())
    }

    /// Moves played since the opening.
    #[getter]
    fn plies(&self) -> usize {
        with_judge!(&self.judge, j => j.plies)
    }

    /// The canonical position string of the current position.
    fn fen(&self) -> String {
        with_judge!(&self.judge, j => j.pos.fen())
    }

    /// The current position.
    fn position(&self) -> Position {
        match &self.judge {
            AnyJudge::Congo(j) => Position::new(AnyPosition::Congo(j.pos)),
            AnyJudge::Congress(j) => Position::new(AnyPosition::Congress(j.pos)),
        }
    }

    /// The compact text of `move` if it is legal now, without playing it. Raises
    /// InvalidMoveError (not the compact notation), IllegalMoveError, or ValueError once the
    /// game has ended.
    fn check(&self, r#move: &str) -> PyResult<String> {
        let found = with_judge!(&self.judge, j => j.find(r#move).map(|m| m.to_string()));
        found.map_err(|r| self.refused(r))
    }

    /// Plays `move` (compact notation only) and returns its compact text; raises as `check`.
    fn play(&mut self, r#move: &str) -> PyResult<String> {
        let played = with_judge!(&mut self.judge, j => j.play(r#move));
        played.map_err(|r| self.refused(r))
    }

    /// None while the game goes on, else (result, reason): result "1-0", "0-1" or "1/2-1/2";
    /// reason as in `replay_game` (lion_captured, kings_captured, no_legal_move, repetition,
    /// bare_lions, ply_limit).
    fn end(&self) -> Option<(&'static str, &'static str)> {
        with_judge!(&self.judge, j => j.end).map(|(result, reason)| (result.text(), reason))
    }

    /// The side to move has searched and reported `score` in centipawns from its own point of
    /// view (None: it reported none), before its move is played: the result ("1-0" or "0-1") if
    /// the run's resignation rule ends the game here (its reason is then "resign"), else None.
    #[pyo3(signature = (score))]
    fn searched(&mut self, score: Option<i32>) -> Option<&'static str> {
        with_judge!(&mut self.judge, j => j.searched(score)).map(|r| r.text())
    }

    /// Plays the rest of a game without a time limit (fixed nodes or depth) between two engine
    /// programs, each side a tuple (pipe, move_s, stop_s, write_s, log): the engine answers
    /// `position` and `go` (one write) within move_s, or it hangs; log (or None) is called with
    /// (">" or "<", line) for every line written and read. Returns (moves, fault): each move
    /// played as (move, ms, nodes, depth, score_cp, score_mate), and None if the game reached
    /// its end (`end` says how), else (side, kind, text) for the side whose fault ended it: kind
    /// as `EnginePipeFault`'s, or "illegal" with the engine's move as text.
    fn referee<'py>(
        &mut self,
        py: Python<'py>,
        go: &str,
        white: SideArgs<'py>,
        black: SideArgs<'py>,
    ) -> PyResult<Refereed> {
        let side = |(pipe, deadline, stop, write, log): SideArgs<'py>| RefereeSide {
            pipe,
            waits: Waits { deadline: wait(deadline), stop: wait(stop), write: wait(write) },
            log,
        };
        let mut sides = [side(white), side(black)];
        with_judge!(&mut self.judge, j => j.referee(py, go, &mut sides))
    }

    fn __repr__(&self) -> String {
        format!("GameJudge({:?}, {:?}, plies={})", self.game, self.fen(), self.plies())
    }
}
