//! `GameJudge` for Python: a game refereed one move at a time, for engines outside the process.
//!
//! The referee asks it after every move whether the game has ended, so it keeps the state that
//! [`EndWatch`] needs instead of replaying the whole record each time (which would be quadratic).
//! The rules, the notation and the end conditions (and their order) are the core crate's: a game
//! judged here ends exactly where `replay_game` of the same moves says it ends.

use arbiter_core::ending::{reasons, Adjudication as CoreAdjudication, EndWatch, GameResult, ResignWatch};
use arbiter_core::eval::Evaluate;
use arbiter_core::rules::find_legal;
use arbiter_core::{congo, congress, MoveError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::limits::Adjudication;
use crate::position::{game_kind, move_error, AnyPosition, Position};

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
        self.pos = self.pos.play(&mv);
        self.watch.played(&self.pos);
        self.plies += 1;
        self.end = self.watch.end(&self.pos);
        // A move's Display form is its compact notation (what `legal_moves` prints).
        Ok(mv.to_string())
    }
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

    fn __repr__(&self) -> String {
        format!("GameJudge({:?}, {:?}, plies={})", self.game, self.fen(), self.plies())
    }
}
