//! At fixed nodes, a game played through the protocol (one `arbiter-engine` process per side,
//! `ucinewgame`, then `position fen <opening> moves ...` + `go nodes N` for every move, as the
//! referee sends them) is the game `arbiter_core::play::play_game` plays in-process with the same
//! weights, parameters and table size: move for move, and node for node.

mod common;

use arbiter_core::bench::{CONGO_POSITIONS, CONGRESS_POSITIONS};
use arbiter_core::ending::Adjudication;
use arbiter_core::eval::{resolve_weights, Evaluate};
use arbiter_core::limits::Limits;
use arbiter_core::params::resolve_params;
use arbiter_core::play::play_game;
use arbiter_core::search::Searcher;
use arbiter_core::{congo, congress, GameKind};

use common::{info_nodes, Engine};

const NODES: u64 = 3000;
const HASH_MB: usize = 2;
const MAX_PLIES: u32 = 80;

/// One side: its weight and parameter overrides (named as in the core's tables).
struct Side {
    weights: Vec<(&'static str, i64)>,
    params: Vec<(&'static str, i64)>,
}

fn owned(pairs: &[(&str, i64)]) -> Vec<(String, i64)> {
    pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

fn check_game<P: Evaluate>(opening: &str, sides: [&Side; 2]) {
    let game = P::GAME;
    let start = P::from_fen(opening).unwrap();
    let mut engines = sides.map(|side| {
        let weights = resolve_weights(game, &owned(&side.weights)).unwrap();
        let params = resolve_params(&owned(&side.params)).unwrap();
        if side.params.is_empty() {
            Searcher::<P>::new(weights, HASH_MB)
        } else {
            Searcher::<P>::with_params(weights, params, HASH_MB)
        }
    });
    let limits = Limits::fixed_nodes(NODES).expect("a node limit");
    let adjudication = Adjudication { max_plies: Some(MAX_PLIES), ..Adjudication::default() };
    let record = play_game(&start, &mut engines, limits, adjudication);
    assert!(record.moves.len() >= 10, "{opening}: a game of {} plies tests little", record.moves.len());

    // The same game through the protocol: a two-game engine, weights with the game's prefix.
    let mut processes = sides.map(|side| {
        let mut engine = Engine::start(&[]);
        let mut options = vec![("UCI_Variant".to_string(), game.to_string()), ("Hash".into(), HASH_MB.to_string())];
        options.extend(side.weights.iter().map(|(n, v)| (format!("{game}_{n}"), v.to_string())));
        options.extend(side.params.iter().map(|(n, v)| (n.to_string(), v.to_string())));
        let options: Vec<(&str, String)> = options.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
        engine.new_game(&options);
        engine
    });
    let mut position = start;
    let mut played: Vec<String> = Vec::new();
    let mut nodes = [0u64; 2];
    for (ply, want) in record.moves.iter().enumerate() {
        let side = position.turn().index();
        let command = if played.is_empty() {
            format!("position fen {opening}")
        } else {
            format!("position fen {opening} moves {}", played.join(" "))
        };
        let (got, lines) = processes[side].best_move(&command, &format!("go nodes {NODES}"));
        assert_eq!(got, want.to_string(), "{game} {opening}: ply {} differs after {played:?}", ply + 1);
        let last_info = lines.iter().rev().find(|l| l.starts_with("info depth")).expect("an info line");
        nodes[side] += info_nodes(last_info).expect("info has nodes");
        position = position.play(want);
        played.push(got);
    }
    assert_eq!(nodes, record.nodes, "{game} {opening}: nodes per side");
}

fn plain() -> Side {
    Side { weights: vec![], params: vec![] }
}

#[test]
fn congo_games_match_core_play() {
    let tuned = Side { weights: vec![("pawn", 120), ("mobility", 6)], params: vec![] };
    let searchy = Side { weights: vec![], params: vec![("lmr_min_move", 4), ("aspiration_window", 30)] };
    check_game::<congo::Position>(congo::START, [&plain(), &tuned]);
    check_game::<congo::Position>(CONGO_POSITIONS[1], [&searchy, &plain()]);
    check_game::<congo::Position>(CONGO_POSITIONS[3], [&plain(), &plain()]);
    assert_eq!(GameKind::Congo, <congo::Position as arbiter_core::Rules>::GAME);
}

#[test]
fn congress_games_match_core_play() {
    let tuned = Side { weights: vec![("king_safety", -20), ("mobility", 3)], params: vec![] };
    let searchy = Side { weights: vec![], params: vec![("futility_margin", 120), ("history_depth1", 8)] };
    check_game::<congress::Position>(congress::START, [&tuned, &plain()]);
    check_game::<congress::Position>(CONGRESS_POSITIONS[1], [&plain(), &searchy]);
    check_game::<congress::Position>(CONGRESS_POSITIONS[4], [&plain(), &plain()]);
}
