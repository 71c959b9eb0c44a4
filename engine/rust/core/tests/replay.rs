//! Replaying game records: a played game replays to its own end; a forged one does not.

use arbiter_core::ending::{Adjudication, GameResult};
use arbiter_core::eval::Evaluate;
use arbiter_core::limits::{Limits, TimeControl};
use arbiter_core::play::{moves_for_budgets, play_game};
use arbiter_core::replay::{replay, replay_text, ReplayError};
use arbiter_core::search::Searcher;
use arbiter_core::{congo, congress, Rules};

fn adjudication() -> Adjudication {
    Adjudication { max_plies: Some(120), repetition: true, bare_lions: true, resign_score: None, resign_plies: 0 }
}

fn played<P: Evaluate>(nodes: u64) -> (P, Vec<String>, GameResult, &'static str) {
    let start = P::start();
    let weights = P::WEIGHTS.iter().map(|w| w.default).collect::<Vec<_>>();
    let mut engines = [Searcher::new(weights.clone(), 1), Searcher::new(weights, 1)];
    let limits = Limits::fixed_nodes(nodes).expect("a node limit");
    let record = play_game(&start, &mut engines, limits, adjudication());
    let moves = record.moves.iter().map(|m| m.to_string()).collect();
    (start, moves, record.result, record.reason)
}

fn replays_to_its_own_end<P: Evaluate>() {
    for nodes in [200, 500, 900] {
        let (start, moves, result, reason) = played::<P>(nodes);
        let replayed = replay(&start, &moves, adjudication()).expect("a played game replays");
        assert_eq!(replayed.end, Some((result, reason)));
        assert_eq!(replayed.plies, moves.len());
    }
}

#[test]
fn played_games_replay_to_their_result() {
    replays_to_its_own_end::<congo::Position>();
    replays_to_its_own_end::<congress::Position>();
}

#[test]
fn forged_records_are_refused() {
    let (start, moves, _, _) = played::<congo::Position>(300);
    // An illegal move names its ply.
    let mut illegal = moves.clone();
    illegal.insert(1, "a1a1".to_string());
    assert!(matches!(replay(&start, &illegal, adjudication()), Err(ReplayError::BadMove { ply: 2, .. })));
    // A move after the end is refused.
    let mut after = moves.clone();
    let next = congo::Position::start().legal_moves()[0].to_string();
    after.push(next);
    assert!(replay(&start, &after, adjudication()).is_err());
    // No moves at all: the game has not ended.
    let none: Vec<String> = Vec::new();
    assert_eq!(replay(&start, &none, adjudication()).expect("the start replays").end, None);
}

#[test]
fn the_ply_limit_ends_a_replay() {
    let (start, moves, _, _) = played::<congress::Position>(300);
    let limit = Adjudication { max_plies: Some(4), ..adjudication() };
    assert_eq!(replay(&start, &moves[..4], limit).expect("4 plies").end, Some((GameResult::Draw, "ply_limit")));
    assert!(matches!(replay(&start, &moves[..5], limit), Err(ReplayError::AfterEnd { ply: 5, reason: "ply_limit" })));
}

#[test]
fn text_replay_equals_list_replay() {
    fn check<P: Evaluate>() {
        for nodes in [200, 700] {
            let (start, moves, result, reason) = played::<P>(nodes);
            let text = moves.join(" ");
            let replayed = replay_text(&start, &text, adjudication()).expect("a played game replays");
            assert_eq!(replayed, replay(&start, &moves, adjudication()).expect("as a list too"));
            assert_eq!(replayed.end, Some((result, reason)));
        }
        let start = P::start();
        assert_eq!(replay_text(&start, "", adjudication()).expect("no moves").plies, 0);
        // Two spaces make an empty move, which is no move at all.
        let first = start.legal_moves()[0].to_string();
        let doubled = format!("{first}  {first}");
        assert!(matches!(replay_text(&start, &doubled, adjudication()), Err(ReplayError::BadMove { ply: 2, .. })));
    }
    check::<congo::Position>();
    check::<congress::Position>();
}

#[test]
fn every_legal_move_is_found_from_its_text() {
    // Random walks: each legal move's printed form (and Congo's Mindsports form) parses back to it.
    fn walk<P: Rules>(seed: u64) {
        let mut pos = P::start();
        let mut state = seed;
        for _ in 0..120 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            for m in &moves {
                assert_eq!(pos.parse_move(&m.to_string()).as_ref(), Ok(m));
                assert_eq!(pos.parse_move(&m.to_string().to_uppercase()).as_ref(), Ok(m));
            }
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            pos = pos.play(&moves[(state >> 33) as usize % moves.len()]);
        }
    }
    for seed in 0..20 {
        walk::<congo::Position>(seed);
        walk::<congress::Position>(seed);
    }
}

#[test]
fn timed_games_repeat_move_for_move_under_their_budgets() {
    // A timed game depends on the machine; its searches stopped at nodes, and repeating each move
    // with its recorded node budget (fresh searchers of the same size) repeats the whole game.
    fn check<P: Evaluate>(control: &str, movetime_ms: Option<u64>) {
        let start = P::start();
        let weights = P::WEIGHTS.iter().map(|w| w.default).collect::<Vec<_>>();
        let fresh = || [Searcher::new(weights.clone(), 1), Searcher::new(weights.clone(), 1)];
        let time_control = Some(TimeControl::parse(control).expect("a time control"));
        let limits = Limits::new(None, None, movetime_ms, time_control, 1_000).expect("timed limits");
        let record = play_game(&start, &mut fresh(), limits, adjudication());
        assert!(!record.moves.is_empty());
        assert_eq!(record.budgets.len(), record.moves.len());
        assert_eq!(record.times_ms.len(), record.moves.len());
        assert_ne!(record.reason, "time_forfeit", "{control}");
        assert_eq!(moves_for_budgets(&start, &mut fresh(), &record.budgets), record.moves, "{control}");
        // One budget off by one node changes the game somewhere (or at least may): the check has teeth.
        let replayed = replay(&start, &record.moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(), adjudication());
        assert_eq!(replayed.expect("a timed game replays").end, Some((record.result, record.reason)));
    }
    check::<congo::Position>("0.2+0.01", None);
    check::<congress::Position>("0.2+0.01", None);
    check::<congo::Position>("4/0.1+0", Some(5));
}

#[test]
fn a_game_over_its_clock_is_lost_on_time() {
    // A 1 ms clock and no margin: sooner or later a move takes longer than what is left, and the
    // side to move then loses on time (the clock's own tests cover the rule exactly).
    let start = congress::Position::start();
    let weights = congress::Position::WEIGHTS.iter().map(|w| w.default).collect::<Vec<_>>();
    let mut engines = [Searcher::new(weights.clone(), 1), Searcher::new(weights, 1)];
    let time_control = Some(TimeControl::new(None, 1, 0).expect("1 ms"));
    let limits = Limits::new(None, Some(64), None, time_control, 0).expect("depth and a clock");
    let record = play_game(&start, &mut engines, limits, adjudication());
    if record.reason == "time_forfeit" {
        let loser_is_white = record.moves.len() % 2 == 0;
        let winner = if loser_is_white { GameResult::BlackWins } else { GameResult::WhiteWins };
        assert_eq!(record.result, winner);
    } else {
        // A machine fast enough to play every move in the millisecond never flags.
        assert!(record.times_ms.iter().all(|&t| t <= 1));
    }
}
