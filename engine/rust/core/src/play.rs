//! Whole games in Rust: two searchers play from an opening until the rules or an adjudication
//! rule end the game. No Python runs per move.

use crate::eval::Evaluate;
use crate::replay::EndWatch;
use crate::search::{white_view, Limits, Searcher};
use crate::types::Color;

/// Tournament rules that end games the game rules would not end (all off by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    /// Draw after this many plies.
    pub max_plies: Option<u32>,
    /// Draw on the third occurrence of a position with the same side to move.
    pub repetition: bool,
    /// Congo: draw when only the two lions are left and the side to move cannot capture.
    pub bare_lions: bool,
    /// Resign when both engines agree, for `resign_plies` consecutive plies, that the side to
    /// move is behind by at least this many centipawns.
    pub resign_score: Option<i32>,
    pub resign_plies: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
}

impl GameResult {
    pub const fn text(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }
    pub fn win_for(c: Color) -> GameResult {
        match c {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord<M> {
    pub opening: String,
    pub moves: Vec<M>,
    pub result: GameResult,
    /// `lion_captured`, `kings_captured`, `no_legal_move`, `ply_limit`, `repetition`,
    /// `bare_lions` or `resign`.
    pub reason: &'static str,
    /// Nodes searched by White and by Black.
    pub nodes: [u64; 2],
}

/// Plays one game from `opening` with a searcher per side (index 0 plays White).
pub fn play_game<P: Evaluate>(
    opening: &P,
    engines: &mut [Searcher<P>; 2],
    limits: Limits,
    adjudication: Adjudication,
) -> GameRecord<P::Move> {
    let mut pos = *opening;
    let mut history = vec![pos.hash()];
    let mut watch = EndWatch::new(&pos, adjudication);
    let mut moves = Vec::new();
    let mut nodes = [0u64; 2];
    // Consecutive plies in which both sides' last scores agree that White (+) or Black (-) is lost.
    let mut resign_streak = 0u32;
    let mut last_white_view: [Option<i32>; 2] = [None, None];
    let (result, reason) = loop {
        if let Some(end) = watch.end(&pos) {
            break end;
        }
        let side = pos.turn();
        let found = engines[side.index()].search(&pos, limits, &history);
        nodes[side.index()] += found.nodes;
        let Some(mv) = found.best_move else {
            break (GameResult::win_for(side.other()), "no_legal_move");
        };
        if let Some(threshold) = adjudication.resign_score {
            last_white_view[side.index()] = Some(white_view(found.score, side));
            let agree = |sign: i32| last_white_view.iter().all(|s| s.is_some_and(|v| sign * v >= threshold));
            if agree(1) || agree(-1) {
                resign_streak += 1;
            } else {
                resign_streak = 0;
            }
            if resign_streak >= adjudication.resign_plies.max(1) {
                let white_ahead = last_white_view[0].unwrap_or(0) > 0;
                break (GameResult::win_for(if white_ahead { Color::White } else { Color::Black }), "resign");
            }
        }
        pos = pos.play(&mv);
        moves.push(mv);
        history.push(pos.hash());
        watch.played(&pos);
    };
    GameRecord { opening: opening.fen(), moves, result, reason, nodes }
}
