//! `bench`: a fixed set of positions searched to a fixed depth with fresh tables. The total node
//! count is the engine's signature: it changes only when search or evaluation behaviour changes.

use std::time::{Duration, Instant};

use crate::eval::{default_weights, Evaluate};
use crate::limits::SearchLimits;
use crate::search::{SearchParams, Searcher};
use crate::types::GameKind;
use crate::{congo, congress};

pub const CONGO_POSITIONS: &[&str] = &[
    "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w",
    "1melec1/ppppp1p/2g2zp/5C1/2G2ZP/PPPPP1P/1MELE2 b",
    "gm1lecz/pp1pppp/2pe3/7/2PE3/PP1PPPP/GM1LECZ w",
    "g1elecz/p1pp1pp/1p2p2/1m5/3PP2/PPP2PP/GMEL1CZ b",
    "2el1cz/pp1pppp/2m4/1g1P3/7/PPP1PPP/GMEL1CZ w",
    "3l3/6p/7/3pp2/2Mp3/7/3L3 w",
    "3l3/7/P5S/2P4/7/7/3L3 w",
    "g2le1z/p1p1p1p/1p1p1p1/7/1P1P1P1/P1P1P1P/G2LE1Z w",
];

pub const CONGRESS_POSITIONS: &[&str] = &[
    "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w",
    "hh1kk1bb/1ppp1pp1/4p3/8/1PPPPPP1/HH1KK1B1 b",
    "h2kk1b1/1pp1pp2/3p2pb/2P5/1P1PPP2/HH1KK2B w",
    "1h1kk1bb/2pppp2/1p4p1/1H4P1/1PPPPP2/H2KK1B1 b",
    "hh1k2bb/1p1ppp2/2p3pk/8/1PP1PP2/H2KKB1B w",
    "h3k1b1/1p2p3/2pp1pB1/1H6/2PP1P2/H2K3B b",
];

pub const DEPTH: u32 = 9;
/// The table size of every bench search, in MiB.
pub const HASH_MB: usize = 16;

#[derive(Clone, Copy, Debug)]
pub struct BenchResult {
    pub nodes: u64,
    pub elapsed: Duration,
}

fn run<P: Evaluate>(
    positions: &[&str],
    depth: u32,
    weights: &[i32],
    params: SearchParams,
    hash_mb: usize,
) -> BenchResult {
    let start = Instant::now();
    let mut nodes = 0;
    for fen in positions {
        let pos = P::from_fen(fen).expect("bench positions are valid");
        let mut searcher = Searcher::<P>::with_params(weights.to_vec(), params, hash_mb);
        nodes += searcher.search(&pos, SearchLimits::depth(depth), &[]).nodes;
    }
    BenchResult { nodes, elapsed: start.elapsed() }
}

/// Searches the game's bench positions to `depth` (default `DEPTH`) with default weights and
/// parameters.
pub fn bench(game: GameKind, depth: Option<u32>) -> BenchResult {
    bench_with(game, depth, &default_weights(game), SearchParams::default(), HASH_MB)
}

/// [`bench`] with the game's full weight vector `weights`, `params` and a `hash_mb` table (fresh
/// for each position): what an engine with non-default options would bench.
pub fn bench_with(
    game: GameKind,
    depth: Option<u32>,
    weights: &[i32],
    params: SearchParams,
    hash_mb: usize,
) -> BenchResult {
    let depth = depth.unwrap_or(DEPTH);
    match game {
        GameKind::Congo => run::<congo::Position>(CONGO_POSITIONS, depth, weights, params, hash_mb),
        GameKind::Congress => run::<congress::Position>(CONGRESS_POSITIONS, depth, weights, params, hash_mb),
    }
}

/// The game's bench positions.
pub fn positions(game: GameKind) -> &'static [&'static str] {
    match game {
        GameKind::Congo => CONGO_POSITIONS,
        GameKind::Congress => CONGRESS_POSITIONS,
    }
}
