//! Iterative-deepening principal variation search with a transposition table, quiescence on
//! captures, and move ordering (TT move, captures by victim value, killers, history). Its numbers
//! are the named parameters of `crate::params`.
//!
//! With a depth or node limit and a fresh `Searcher` the result is the same on every run and
//! machine: nothing depends on time unless a time limit is given. A timed search can be repeated
//! exactly all the same: [`SearchResult::budget`] is the node limit under which the same search
//! (from the same searcher state) stops where it stopped, because the only thing time decides is
//! the node at which the search stops, and a stopped iteration leaves no trace in the searcher.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::eval::Evaluate;
use crate::limits::SearchLimits;
use crate::line_aligned::LineAligned;
pub use crate::params::SearchParams;
use crate::timeman::{self, Allotment};
use crate::types::Color;

pub const MATE: i32 = 30_000;
/// Scores beyond this are wins or losses in a known number of plies.
pub const MATE_BOUND: i32 = MATE - 1_000;
const INF: i32 = MATE + 1;
const MAX_PLY: usize = 128;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Iteration<M> {
    pub depth: u32,
    pub score: i32,
    pub nodes: u64,
    pub elapsed: Duration,
    pub pv: Vec<M>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult<M> {
    pub best_move: Option<M>,
    /// Centipawns from the side to move's view; beyond `MATE_BOUND` a forced win or loss.
    pub score: i32,
    pub depth: u32,
    pub nodes: u64,
    pub pv: Vec<M>,
    pub elapsed: Duration,
    pub iterations: Vec<Iteration<M>>,
    /// The node limit that repeats this search exactly from the same searcher state: the node
    /// at which it was stopped, or one more than it searched when it ended by itself (a depth
    /// reached, a mate found, or no time to start another iteration).
    pub budget: u64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

/// A table entry. Its score fits 16 bits (scores lie within `-INF..=INF`), which makes a
/// Congress entry 16 bytes: four to a cache line, none across two (`line_aligned`).
#[derive(Clone, Copy)]
struct Entry<M> {
    key: u64,
    mv: Option<M>,
    score: i16,
    depth: i8,
    bound: Bound,
}

/// Called with each completed iteration of a search, as it completes.
pub type IterationHook<M> = Box<dyn FnMut(&Iteration<M>) + Send>;

/// One engine's search state: transposition table, killers and history. Reuse it across the
/// moves of one game; create a new one (or `clear`) for a deterministic fresh search.
pub struct Searcher<P: Evaluate> {
    table: LineAligned<Option<Entry<P::Move>>>,
    killers: Vec<[Option<P::Move>; 2]>,
    history: Vec<i32>,
    weights: Vec<i32>,
    params: SearchParams,
    nodes: u64,
    stop: bool,
    /// The node count at which `stop` was set.
    stopped_at: u64,
    /// Set by another thread to stop the search (read with the clock, every 1024 nodes).
    external_stop: Option<Arc<AtomicBool>>,
    on_iteration: Option<IterationHook<P::Move>>,
    node_limit: u64,
    /// Stop wherever the search is (hard) / start no new iteration (soft).
    deadline: Option<Instant>,
    soft_deadline: Option<Instant>,
    /// Hashes of the game so far and of the current search path, for repetition detection.
    path: Vec<u64>,
    /// Each ply's move lists, kept from node to node: a node allocates nothing.
    lists: Vec<PlyLists<P::Move>>,
}

/// One ply's moves as generated, their ordering keys (key, index), and the moves in order.
struct PlyLists<M> {
    moves: Vec<M>,
    keys: Vec<(i32, u32)>,
    sorted: Vec<M>,
}

impl<M> Default for PlyLists<M> {
    fn default() -> Self {
        PlyLists { moves: Vec::new(), keys: Vec::new(), sorted: Vec::new() }
    }
}

impl<M: Copy> PlyLists<M> {
    /// `sorted` becomes `moves` by ascending `key`, ties in generation order: the order
    /// `sort_by_cached_key` gives, with no allocation once the lists have grown.
    fn sort_by_key(&mut self, key: impl Fn(&M) -> i32) {
        self.keys.clear();
        self.keys.extend(self.moves.iter().enumerate().map(|(i, m)| (key(m), i as u32)));
        self.keys.sort_unstable();
        self.sorted.clear();
        self.sorted.extend(self.keys.iter().map(|&(_, i)| self.moves[i as usize]));
    }
}

impl<P: Evaluate> Searcher<P> {
    /// A searcher with the default parameters and a table of at most `hash_mb` MiB.
    pub fn new(weights: Vec<i32>, hash_mb: usize) -> Searcher<P> {
        Searcher::with_params(weights, SearchParams::default(), hash_mb)
    }

    /// A searcher with the parameters `params` and a table of at most `hash_mb` MiB.
    pub fn with_params(weights: Vec<i32>, params: SearchParams, hash_mb: usize) -> Searcher<P> {
        let entry = std::mem::size_of::<Option<Entry<P::Move>>>().max(1);
        let mut searcher = Searcher::with_entries(weights, ((hash_mb.max(1) << 20) / entry).next_power_of_two() / 2);
        searcher.params = params;
        searcher
    }

    /// A searcher whose table has `entries` slots (rounded to a power of two, at least 1024).
    /// Small node-limited searches use a small table: allocating a large one costs more than the
    /// search itself.
    pub fn with_entries(weights: Vec<i32>, entries: usize) -> Searcher<P> {
        let size = entries.max(1024).next_power_of_two();
        Searcher {
            table: LineAligned::new(size, None),
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![0; 64 * 64],
            weights,
            params: SearchParams::default(),
            nodes: 0,
            stop: false,
            stopped_at: 0,
            external_stop: None,
            on_iteration: None,
            node_limit: u64::MAX,
            deadline: None,
            soft_deadline: None,
            path: Vec::with_capacity(512),
            lists: std::iter::repeat_with(PlyLists::default).take(MAX_PLY + 1).collect(),
        }
    }

    pub fn clear(&mut self) {
        self.table.iter_mut().for_each(|e| *e = None);
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        self.history.iter_mut().for_each(|h| *h = 0);
    }

    pub fn weights(&self) -> &[i32] {
        &self.weights
    }

    pub fn params(&self) -> &SearchParams {
        &self.params
    }

    /// Replaces the parameters (the table, killers and history are kept).
    pub fn set_params(&mut self, params: SearchParams) {
        self.params = params;
    }

    /// A flag another thread sets to stop the search; it acts like a time limit (the last
    /// completed iteration's move is returned). The searcher never resets it.
    pub fn set_stop_flag(&mut self, flag: Option<Arc<AtomicBool>>) {
        self.external_stop = flag;
    }

    /// A hook called with every completed iteration (for live output); it does not change the
    /// search.
    pub fn set_iteration_hook(&mut self, hook: Option<IterationHook<P::Move>>) {
        self.on_iteration = hook;
    }

    /// Searches `pos`; `history` holds the hashes of earlier positions of the game (a position
    /// repeated on the board or in the search counts as a draw).
    pub fn search(&mut self, pos: &P, limits: SearchLimits, history: &[u64]) -> SearchResult<P::Move> {
        let start = Instant::now();
        self.nodes = 0;
        self.stop = false;
        self.stopped_at = 0;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        let time: Option<Allotment> = match (limits.clock, limits.movetime_ms) {
            (Some(clock), movetime) => Some(timeman::allot(clock, movetime)),
            (None, Some(ms)) => Some(timeman::fixed(ms)),
            (None, None) => None,
        };
        self.deadline = time.map(|t| start + t.hard);
        self.soft_deadline = time.map(|t| start + t.soft);
        self.path.clear();
        self.path.extend_from_slice(history);
        if self.path.last() != Some(&pos.hash()) {
            self.path.push(pos.hash());
        }
        let max_depth = limits.depth.unwrap_or(if limits.unbounded() { 6 } else { 64 });
        let max_depth = max_depth.clamp(1, MAX_PLY as u32 - 8);

        let moves = pos.legal_moves();
        let mut result = SearchResult {
            best_move: moves.first().copied(),
            score: if moves.is_empty() { -MATE } else { 0 },
            depth: 0,
            nodes: 0,
            pv: moves.first().copied().into_iter().collect(),
            elapsed: Duration::ZERO,
            iterations: Vec::new(),
            budget: 1,
        };
        if moves.is_empty() || pos.is_decided() {
            result.best_move = None;
            result.pv.clear();
            return result;
        }
        let root_path = self.path.len();
        for depth in 1..=max_depth {
            let score = self.root_search(pos, depth as i32, (depth > 1).then_some(result.score));
            debug_assert_eq!(self.path.len(), root_path, "every move made in the search was undone");
            debug_assert!((-MATE..=MATE).contains(&score));
            if self.stop && depth > 1 {
                break;
            }
            let pv = self.principal_variation(pos, depth as usize);
            result.score = score;
            result.depth = depth;
            if let Some(&first) = pv.first() {
                result.best_move = Some(first);
            }
            result.pv = pv.clone();
            result.iterations.push(Iteration { depth, score, nodes: self.nodes, elapsed: start.elapsed(), pv });
            if let (Some(hook), Some(it)) = (self.on_iteration.as_mut(), result.iterations.last()) {
                hook(it);
            }
            if self.stop || score.abs() > MATE_BOUND && (MATE - score.abs()) as u32 <= depth {
                break;
            }
            if self.soft_deadline.is_some_and(|soft| Instant::now() >= soft) {
                break;
            }
        }
        result.nodes = self.nodes;
        result.elapsed = start.elapsed();
        result.budget = if self.stop { self.stopped_at } else { self.nodes + 1 };
        result
    }

    /// The root search of one iteration: with an aspiration window around the previous
    /// iteration's score, widened on the side that fails until the score falls inside it.
    fn root_search(&mut self, pos: &P, depth: i32, previous: Option<i32>) -> i32 {
        let mut delta = self.params.aspiration_window;
        let Some(prev) = previous.filter(|s| delta > 0 && s.abs() < MATE_BOUND) else {
            return self.negamax(pos, depth, 0, -INF, INF);
        };
        let (mut alpha, mut beta) = ((prev - delta).max(-INF), (prev + delta).min(INF));
        loop {
            let score = self.negamax(pos, depth, 0, alpha, beta);
            if self.stop {
                return score;
            }
            if score <= alpha && alpha > -INF {
                alpha = (score - delta).max(-INF);
            } else if score >= beta && beta < INF {
                beta = (score + delta).min(INF);
            } else {
                return score;
            }
            delta = delta.saturating_mul(2);
        }
    }

    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.table.len() - 1)
    }

    fn probe(&self, key: u64) -> Option<Entry<P::Move>> {
        self.table[self.slot(key)].filter(|e| e.key == key)
    }

    fn principal_variation(&self, pos: &P, depth: usize) -> Vec<P::Move> {
        let mut pv = Vec::new();
        let mut cur = *pos;
        let mut seen = Vec::new();
        while pv.len() < depth.max(1) {
            let Some(mv) = self.probe(cur.hash()).and_then(|e| e.mv) else { break };
            if !cur.legal_moves().contains(&mv) || seen.contains(&cur.hash()) {
                break;
            }
            seen.push(cur.hash());
            pv.push(mv);
            cur = cur.play(&mv);
        }
        pv
    }

    /// Counts a node, and decides whether the search stops here: only at a node, so that a
    /// node limit can stand in for a time limit (see [`SearchResult::budget`]).
    #[inline]
    fn tick(&mut self) {
        self.nodes += 1;
        if self.stop {
            return;
        }
        // An external stop acts like the clock: checked as often, and at a node too.
        let out_of_time = || {
            self.deadline.is_some_and(|deadline| Instant::now() >= deadline)
                || self.external_stop.as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed))
        };
        if self.nodes >= self.node_limit || (self.nodes & 1023 == 0 && out_of_time()) {
            self.stop = true;
            self.stopped_at = self.nodes;
        }
    }

    fn is_repetition(&self, key: u64) -> bool {
        // Moves of both games never restore a position in fewer than 4 plies in practice; checking
        // the whole path is cheap and exact.
        self.path.iter().rev().skip(1).any(|&h| h == key)
    }

    /// Fail-soft principal variation search of `pos` to `depth`, `ply` plies from the root. A PV
    /// node (window wider than one) searches its first move with the full window; every other call
    /// has a null window (`beta == alpha + 1`).
    fn negamax(&mut self, pos: &P, depth: i32, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        let pv_node = beta - alpha > 1;
        debug_assert!(-INF <= alpha && alpha < beta && beta <= INF);
        debug_assert!(pv_node || alpha == beta - 1);

        // Step 1. Dive into quiescence search at the horizon or the ply limit
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return self.quiescence(pos, ply, alpha, beta);
        }
        debug_assert!(0 < depth && depth < MAX_PLY as i32);

        // Step 2. Count the node; check for a finished game and a repetition (a draw)
        self.tick();
        if pos.is_decided() {
            return -MATE + ply as i32;
        }
        let key = pos.hash();
        debug_assert_eq!(self.path.last(), Some(&key), "the path ends with the searched position");
        if ply > 0 && self.is_repetition(key) {
            return 0;
        }

        // Step 3. Transposition table lookup: cut off at non-PV nodes when the entry is deep
        // enough and its bound decides the window
        let tt = self.probe(key);
        if let Some(e) = tt {
            if ply > 0 && !pv_node && e.depth as i32 >= depth {
                let s = from_tt(i32::from(e.score), ply);
                match e.bound {
                    Bound::Exact => return s,
                    Bound::Lower if s >= beta => return s,
                    Bound::Upper if s <= alpha => return s,
                    _ => {}
                }
            }
        }

        // Step 4. Generate moves (into this ply's lists): a side without a legal move has lost
        let mut lists = std::mem::take(&mut self.lists[ply]);
        lists.moves.clear();
        pos.generate(&mut lists.moves, false);
        if lists.moves.is_empty() {
            self.lists[ply] = lists;
            return -MATE + ply as i32;
        }

        // Step 5. Order moves: TT move, captures by victim value, killers, history
        self.order(pos, &mut lists, tt.and_then(|e| e.mv), ply);

        // Step 6. Futility: near the horizon of a non-PV node, when the static evaluation plus a
        // margin cannot reach alpha, only captures (and the first move) are searched
        let p = self.params;
        let futile = p.futility_margin > 0
            && !pv_node
            && depth <= p.futility_depth
            && alpha.abs() < MATE_BOUND
            && pos.evaluate(&self.weights) + p.futility_margin * depth <= alpha;

        // Step 7. Loop through all legal moves until none remain or one fails high
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = None;
        for (i, m) in lists.sorted.iter().enumerate() {
            let quiet = pos.capture_value(m, &self.weights) == 0;
            if futile && quiet && i > 0 {
                continue;
            }

            // Step 8. Make the move
            let child = pos.play(m);
            self.path.push(child.hash());

            // Step 9. Search it: the first move with the full window, later ones with a null
            // window, reduced (LMR) when late and quiet at a non-PV node; a reduced move that beats
            // alpha is searched again at full depth, then with the full window if inside it
            let score = if i == 0 {
                -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha)
            } else {
                let late = depth >= p.lmr_min_depth && i >= p.lmr_min_move as usize && quiet && !pv_node;
                let reduction = if late { self.reduction(depth, i) } else { 0 };
                let mut s = -self.negamax(&child, depth - 1 - reduction, ply + 1, -alpha - 1, -alpha);
                if s > alpha && reduction > 0 {
                    s = -self.negamax(&child, depth - 1, ply + 1, -alpha - 1, -alpha);
                }
                if s > alpha && s < beta {
                    debug_assert!(pv_node, "a null-window node never re-searches");
                    s = -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha);
                }
                s
            };
            debug_assert!((-MATE..=MATE).contains(&score));

            // Step 10. Undo the move
            self.path.pop();

            // Step 11. Check for an aborted search: return at once and store nothing
            if self.stop {
                return best.max(score);
            }

            // Step 12. Check for a new best move; a beta cutoff by a quiet move updates the
            // killers and the history
            if score > best {
                best = score;
                best_move = Some(*m);
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                if quiet {
                    let k = &mut self.killers[ply];
                    if k[0] != Some(*m) {
                        k[1] = k[0];
                        k[0] = Some(*m);
                    }
                    let bonus = p.history_depth2 * depth * depth + p.history_depth1 * depth;
                    let h = &mut self.history[P::move_key(m)];
                    *h = (*h + bonus).min(p.history_max);
                }
                break;
            }
        }
        debug_assert!(best_move.is_some() && (-MATE..=MATE).contains(&best));
        self.lists[ply] = lists;

        // Step 13. Store the result in the transposition table
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let slot = self.slot(key);
        let stored = to_tt(best, ply);
        debug_assert!((-INF..=INF).contains(&stored), "a table score {stored} out of range");
        let score = stored.clamp(-INF, INF) as i16;
        self.table[slot] = Some(Entry { key, mv: best_move, score, depth: depth as i8, bound });
        best
    }

    /// Fail-soft search of captures only, so that the evaluation is taken in quiet positions.
    fn quiescence(&mut self, pos: &P, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        debug_assert!(-INF <= alpha && alpha < beta && beta <= INF);
        debug_assert!(ply < MAX_PLY);

        // Step 1. Count the node; check for a finished game
        self.tick();
        if pos.is_decided() {
            return -MATE + ply as i32;
        }

        // Step 2. Stand pat: the side to move may decline every capture (it must at the ply limit)
        let stand_pat = pos.evaluate(&self.weights);
        debug_assert!(stand_pat.abs() < MATE_BOUND, "evaluation {stand_pat} reaches the mate scores");
        if stand_pat >= beta || ply >= MAX_PLY - 1 {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);

        // Step 3. Generate captures (into this ply's lists), the most valuable victim first
        let mut lists = std::mem::take(&mut self.lists[ply]);
        lists.moves.clear();
        pos.generate(&mut lists.moves, true);
        let w = &self.weights;
        lists.sort_by_key(|m| -pos.capture_value(m, w));

        // Step 4. Loop through the captures until none remain or one fails high; with delta
        // pruning, stop at the first capture too small to lift the score to alpha (the rest are
        // smaller)
        let mut best = stand_pat;
        let delta = self.params.delta_margin;
        for m in &lists.sorted {
            if delta > 0 && stand_pat + pos.capture_value(m, &self.weights) + delta <= alpha {
                break;
            }
            let score = -self.quiescence(&pos.play(m), ply + 1, -beta, -alpha);
            debug_assert!((-MATE..=MATE).contains(&score));
            if self.stop {
                return best.max(score);
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
                if alpha >= beta {
                    break;
                }
            }
        }
        self.lists[ply] = lists;
        best
    }

    /// Plies to reduce the late quiet move `i` at `depth` by; it leaves at least the horizon.
    fn reduction(&self, depth: i32, i: usize) -> i32 {
        let p = &self.params;
        let mut r = p.lmr_reduction;
        if i >= p.lmr_late_move as usize {
            r += p.lmr_late_reduction;
        }
        if p.lmr_depth_divisor > 0 {
            r += depth / p.lmr_depth_divisor;
        }
        r.min(depth - 1)
    }

    /// Puts this ply's moves in search order into `lists.sorted` (ordering score highest first,
    /// ties as generated): the TT move, captures,
    /// killers, then quiet moves by history.
    fn order(&self, pos: &P, lists: &mut PlyLists<P::Move>, tt_move: Option<P::Move>, ply: usize) {
        let killers = self.killers[ply];
        let w = &self.weights;
        let p = &self.params;
        lists.sort_by_key(|m| {
            if Some(*m) == tt_move {
                return i32::MIN;
            }
            let victim = pos.capture_value(m, w);
            if victim > 0 {
                return -p.order_capture - victim;
            }
            if killers[0] == Some(*m) {
                return -p.order_killer1;
            }
            if killers[1] == Some(*m) {
                return -p.order_killer2;
            }
            -self.history[P::move_key(m)]
        });
    }
}

/// A score as stored in the table: mate scores count plies from the stored node, not the root.
fn to_tt(score: i32, ply: usize) -> i32 {
    debug_assert!((-MATE..=MATE).contains(&score));
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// A stored score seen `ply` plies from the root.
fn from_tt(score: i32, ply: usize) -> i32 {
    debug_assert!((-MATE..=MATE).contains(&score));
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The score from White's point of view.
pub fn white_view(score: i32, turn: Color) -> i32 {
    if turn == Color::White {
        score
    } else {
        -score
    }
}

#[cfg(test)]
mod tests {
    use super::Entry;
    use crate::line_aligned::LINE_BYTES;

    /// Table entries never straddle two cache lines of the line-aligned table: a Congo entry
    /// fills one line, four Congress entries share one.
    #[test]
    fn entries_fit_cache_lines() {
        assert_eq!(std::mem::size_of::<Option<Entry<crate::congo::Move>>>(), LINE_BYTES);
        assert_eq!(std::mem::size_of::<Option<Entry<crate::congress::Move>>>(), LINE_BYTES / 4);
    }
}
