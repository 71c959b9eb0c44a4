//! Whole games in Rust: two searchers play from an opening until the rules, an adjudication rule
//! or the clock end the game. No Python runs per move.

use std::time::Instant;

use crate::clock::GameClock;
use crate::ending::{reasons, Adjudication, EndWatch, GameResult, ResignWatch};
use crate::eval::Evaluate;
use crate::limits::{Limits, SearchLimits};
use crate::search::Searcher;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord<M> {
    pub opening: String,
    pub moves: Vec<M>,
    pub result: GameResult,
    /// `lion_captured`, `kings_captured`, `no_legal_move`, or one of [`reasons`].
    pub reason: &'static str,
    /// Nodes searched by White and by Black.
    pub nodes: [u64; 2],
    /// Per move, the node limit under which its search repeats exactly (see
    /// [`crate::search::SearchResult::budget`]): what makes a timed game checkable.
    pub budgets: Vec<u64>,
    /// Per move, the milliseconds it took.
    pub times_ms: Vec<u64>,
}

/// Plays one game from `opening` with a searcher per side (index 0 plays White) under `limits`
/// (a time control is kept on a [`GameClock`]).
pub fn play_game<P: Evaluate>(
    opening: &P,
    engines: &mut [Searcher<P>; 2],
    limits: Limits,
    adjudication: Adjudication,
) -> GameRecord<P::Move> {
    let mut clock = limits.time_control().map(|tc| GameClock::new(tc, limits.time_margin_ms()));
    let mut pos = *opening;
    let mut history = vec![pos.hash()];
    let mut watch = EndWatch::new(&pos, adjudication);
    let mut record = GameRecord {
        opening: opening.fen(),
        moves: Vec::new(),
        result: GameResult::Draw,
        reason: "",
        nodes: [0; 2],
        budgets: Vec::new(),
        times_ms: Vec::new(),
    };
    let mut resign = ResignWatch::new(&adjudication);
    let (result, reason) = loop {
        if let Some(end) = watch.end(&pos) {
            break end;
        }
        let side = pos.turn();
        let search = SearchLimits { clock: clock.map(|c| c.for_move(side)), ..limits.per_move() };
        let started = Instant::now();
        let found = engines[side.index()].search(&pos, search, &history);
        let elapsed_ms = started.elapsed().as_millis() as u64;
        record.nodes[side.index()] += found.nodes;
        if let Some(clock) = clock.as_mut() {
            if clock.charge(side, elapsed_ms).is_err() {
                break (GameResult::win_for(side.other()), reasons::TIME_FORFEIT);
            }
        }
        let Some(mv) = found.best_move else {
            break (GameResult::win_for(side.other()), "no_legal_move");
        };
        if let Some(result) = resign.searched(side, Some(found.score)) {
            break (result, reasons::RESIGN);
        }
        pos = pos.play(&mv);
        record.moves.push(mv);
        record.budgets.push(found.budget);
        record.times_ms.push(elapsed_ms);
        history.push(pos.hash());
        watch.played(&pos);
    };
    record.result = result;
    record.reason = reason;
    record
}

/// The moves two searchers choose from `opening` when move `i` is searched with a node limit of
/// exactly `budgets[i]` and nothing else: a timed game repeated move for move (as long as the
/// searchers are what the game's were). Stops early where a side has no move.
pub fn moves_for_budgets<P: Evaluate>(opening: &P, engines: &mut [Searcher<P>; 2], budgets: &[u64]) -> Vec<P::Move> {
    let mut pos = *opening;
    let mut history = vec![pos.hash()];
    let mut moves = Vec::with_capacity(budgets.len());
    for &budget in budgets {
        let side = pos.turn();
        let found = engines[side.index()].search(&pos, SearchLimits::nodes(budget.max(1)), &history);
        let Some(mv) = found.best_move else { break };
        pos = pos.play(&mv);
        moves.push(mv);
        history.push(pos.hash());
    }
    moves
}
