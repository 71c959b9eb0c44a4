//! The binary through its pipes: handshake and options, searching on a thread (isready, stop,
//! quit), timed and limited `go`, bad input, the command line, and bench.

mod common;

use std::time::{Duration, Instant};

use arbiter_core::bench::bench;
use arbiter_core::eval::{default_weights, resolve_weights, weight_table};
use arbiter_core::limits::SearchLimits;
use arbiter_core::params::{resolve_params, PARAM_TABLE};
use arbiter_core::search::Searcher;
use arbiter_core::{congo, congress, GameKind, Rules, ENGINE_VERSION};

use common::{info_nodes, run, Engine, WAIT};

const SECOND: Duration = Duration::from_secs(1);

fn is_legal<P: Rules>(fen: &str, moves: &[&str], mv: &str) -> bool {
    let mut pos = P::from_fen(fen).unwrap();
    for m in moves {
        pos = pos.play(&pos.parse_move(m).unwrap());
    }
    pos.legal_moves().iter().any(|m| m.to_string() == mv)
}

#[test]
fn handshake_of_a_two_game_engine() {
    let mut engine = Engine::start(&[]);
    engine.send("uci");
    let lines = engine.until("uciok", WAIT);
    assert_eq!(lines[0], format!("id name arbiter-engine {ENGINE_VERSION}"));
    assert_eq!(lines[1], "id author arbiter");
    assert_eq!(lines[2], "option name UCI_Variant type combo default congo var congo var congress");
    assert_eq!(lines[3], "option name Hash type spin default 16 min 1 max 4096");
    let options: Vec<&String> = lines.iter().filter(|l| l.starts_with("option name ")).collect();
    let weights = weight_table(GameKind::Congo).len() + weight_table(GameKind::Congress).len();
    assert_eq!(options.len(), 2 + weights + PARAM_TABLE.len());
    assert_eq!(lines.len(), 2 + options.len() + 1, "only id, options and uciok: {lines:#?}");
    for game in GameKind::ALL {
        for w in weight_table(game) {
            let want =
                format!("option name {game}_{} type spin default {} min {} max {}", w.name, w.default, w.min, w.max);
            assert!(lines.contains(&want), "{want}");
        }
    }
    for p in &PARAM_TABLE {
        let want = format!("option name {} type spin default {} min {} max {}", p.name, p.default, p.min, p.max);
        assert!(lines.contains(&want), "{want}");
    }
    engine.send("ugi");
    let again = engine.until("ugiok", WAIT);
    assert_eq!(again.len(), lines.len());
    engine.send("isready");
    assert_eq!(engine.until("readyok", WAIT), ["readyok"]);
}

#[test]
fn handshake_of_a_one_game_engine() {
    for game in GameKind::ALL {
        let mut engine = Engine::start(&["--variant", game.name()]);
        engine.send("uci");
        let lines = engine.until("uciok", WAIT);
        assert!(lines.contains(&format!("option name UCI_Variant type combo default {game} var {game}")));
        let pawn = weight_table(game).iter().find(|w| w.name == "pawn").unwrap();
        let want = format!("option name pawn type spin default {} min {} max {}", pawn.default, pawn.min, pawn.max);
        assert!(lines.contains(&want), "{game}: {want}");
        assert!(!lines.iter().any(|l| l.contains("congo_") || l.contains("congress_")));
        // The one game's start position is the default.
        let (mv, _) = engine.best_move("position startpos", "go depth 2");
        let start = match game {
            GameKind::Congo => congo::START,
            GameKind::Congress => congress::START,
        };
        let legal = match game {
            GameKind::Congo => is_legal::<congo::Position>(start, &[], &mv),
            GameKind::Congress => is_legal::<congress::Position>(start, &[], &mv),
        };
        assert!(legal, "{game}: {mv}");
    }
}

#[test]
fn isready_and_stop_while_searching() {
    let mut engine = Engine::start(&[]);
    engine.new_game(&[]);
    engine.send("position startpos moves c2c3");
    engine.send("go infinite");
    let first = engine.until("info depth", WAIT);
    assert!(first.iter().all(|l| !l.starts_with("bestmove")));
    let asked = Instant::now();
    engine.send("isready");
    let lines = engine.until("readyok", WAIT);
    assert!(asked.elapsed() < SECOND, "readyok took {:?}", asked.elapsed());
    assert!(lines[..lines.len() - 1].iter().all(|l| l.starts_with("info depth")), "{lines:?}");
    // `go infinite` holds its move until `stop`, then answers at once.
    std::thread::sleep(Duration::from_millis(300));
    assert!(engine.drain(Duration::from_millis(50)).iter().all(|l| !l.starts_with("bestmove")));
    let stopped = Instant::now();
    engine.send("stop");
    let lines = engine.until("bestmove", WAIT);
    assert!(stopped.elapsed() < SECOND, "bestmove took {:?} after stop", stopped.elapsed());
    let mv = lines.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
    assert!(is_legal::<congo::Position>(congo::START, &["c2c3"], &mv), "{mv}");
    // A stop with no search running changes nothing.
    engine.send("stop");
    engine.send("isready");
    assert_eq!(engine.until("readyok", WAIT), ["readyok"]);
}

#[test]
fn quit_while_searching() {
    let mut engine = Engine::start(&[]);
    engine.new_game(&[]);
    engine.send("go infinite");
    engine.until("info depth", WAIT);
    engine.send("quit");
    let status = engine.wait_exit(Duration::from_secs(5)).expect("quit exits");
    assert!(status.success(), "{status}");
}

#[test]
fn end_of_input_exits() {
    let mut engine = Engine::start(&[]);
    engine.send("isready");
    engine.until("readyok", WAIT);
    engine.close_stdin();
    let status = engine.wait_exit(Duration::from_secs(5)).expect("end of input exits");
    assert!(status.success(), "{status}");
}

#[test]
fn limits_of_go() {
    let mut engine = Engine::start(&[]);
    engine.new_game(&[]);
    // depth: one info line per iteration, the last at that depth.
    let (_, lines) = engine.best_move("position startpos", "go depth 4");
    let depths: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix("info depth ")?.split(' ').next()).collect();
    assert_eq!(depths, ["1", "2", "3", "4"], "{lines:?}");
    assert!(lines[..4].iter().all(|l| l.contains(" score cp ") && l.contains(" pv ")), "{lines:?}");
    // nodes: the last info counts every node of the search, just past the limit.
    let (_, lines) = engine.best_move("position startpos", "go nodes 5000");
    let nodes = info_nodes(&lines[lines.len() - 2]).unwrap();
    assert!((5000..5000 + 128).contains(&nodes), "{nodes}");
    // The first limit reached stops: depth 2 comes long before a million nodes.
    let (_, lines) = engine.best_move("position startpos", "go depth 2 nodes 1000000 movetime 60000");
    assert!(lines[lines.len() - 2].starts_with("info depth 2 "), "{lines:?}");
    // Extreme numbers are limits like any other.
    for go in [
        "go movetime 18446744073709551615 nodes 2000",
        "go wtime 9223372036854775807 btime -9223372036854775808 winc 9223372036854775807 nodes 2000",
        "go depth 4294967295 nodes 0",
    ] {
        let (mv, _) = engine.best_move("position startpos", go);
        assert!(is_legal::<congo::Position>(congo::START, &[], &mv), "{go}: {mv}");
    }
    // movetime
    let asked = Instant::now();
    engine.best_move("position startpos", "go movetime 200");
    let took = asked.elapsed();
    assert!(took >= Duration::from_millis(190) && took < Duration::from_secs(2), "{took:?}");
}

#[test]
fn timed_go_returns_in_time() {
    let mut engine = Engine::start(&[]);
    engine.new_game(&[("UCI_Variant", "congress".into())]);
    for (go, limit_ms) in [
        ("go wtime 1000 btime 1000 winc 0 binc 0", 1000),
        ("go wtime 300 btime 90000 winc 10 binc 10", 300),
        ("go wtime 2000 btime 2000 movestogo 1", 2000),
        ("go wtime 0 btime 0 winc 50 binc 50", 100),
    ] {
        let asked = Instant::now();
        let (mv, _) = engine.best_move("position startpos", go);
        let took = asked.elapsed();
        assert!(took < Duration::from_millis(limit_ms), "{go}: {took:?}");
        assert!(is_legal::<congress::Position>(congress::START, &[], &mv), "{mv}");
    }
    // Black's clock is the one read with Black to move.
    let asked = Instant::now();
    engine.best_move("position startpos moves b2b3", "go wtime 100000 btime 500");
    assert!(asked.elapsed() < Duration::from_millis(500), "{:?}", asked.elapsed());
}

#[test]
fn mate_scores() {
    // Congress: the bishop takes Black's last king (tests/search.rs in the core).
    let mut engine = Engine::start(&["--variant", "congress"]);
    engine.new_game(&[]);
    let (mv, lines) = engine.best_move("position fen 5k2/8/7B/3h4/2P5/3K4 w", "go depth 4");
    assert_eq!(mv, "h4f6");
    assert!(lines[lines.len() - 2].contains(" score mate 1 "), "{lines:?}");
    // Congo: after the zebra fork every black reply loses the lion on the next ply.
    let mut engine = Engine::start(&["--variant", "congo"]);
    engine.new_game(&[]);
    let (_, lines) = engine.best_move("position fen 3l3/2p2E1/2G4/7/3Z3/7/4L2 w moves d3e5", "go depth 4");
    assert!(lines[lines.len() - 2].contains(" score mate -1 "), "{lines:?}");
}

#[test]
fn bad_input_is_answered_and_ignored() {
    let mut engine = Engine::start(&[]);
    engine.new_game(&[]);
    engine.send("position startpos moves d2d3");
    let bad: &[&[u8]] = &[
        b"xyzzy plugh",
        b"setoption name NoSuchOption value 1",
        b"setoption name Hash value 0",
        b"setoption name congo_pawn value many",
        b"setoption name UCI_Variant value chess",
        b"setoption name Skill Level value 3",
        b"setoption",
        b"position fen not/a/position w",
        b"position startpos moves d2d3 d2d3",
        b"position startpos moves z9z9",
        b"position",
        b"go depth x",
        b"go nodes",
        b"\xff\xfe\x00garbage \xc3\x28",
        b"bench -1",
    ];
    for line in bad {
        engine.send_bytes(line);
        engine.send_bytes(b"\n");
    }
    // An over-long line (2 MiB) and Windows line ends.
    engine.send_bytes(&vec![b'x'; 2 << 20]);
    engine.send_bytes(b"\r\nisready\r\n");
    let lines = engine.until("readyok", WAIT);
    let info: Vec<&String> = lines.iter().filter(|l| l.starts_with("info string ")).collect();
    assert_eq!(info.len(), bad.len() + 1, "{lines:#?}");
    assert!(lines.iter().all(|l| l.len() < 1000), "{lines:#?}");
    // The last good position (after d2d3) is still the one searched.
    engine.send("go depth 3");
    let lines = engine.until("bestmove", WAIT);
    let mv = lines.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
    assert!(is_legal::<congo::Position>(congo::START, &["d2d3"], &mv), "{mv}");
}

#[test]
fn variants_switch_games() {
    let mut engine = Engine::start(&[]);
    engine.new_game(&[("UCI_Variant", "congress".into())]);
    let (mv, _) = engine.best_move("position startpos moves b2b3", "go depth 3");
    assert!(is_legal::<congress::Position>(congress::START, &["b2b3"], &mv), "{mv}");
    // A Congo move is not a Congress move here; a Congo position string is not a Congress one.
    engine.send(&format!("position fen {}", congo::START));
    assert!(engine.until("info string", WAIT)[0].contains("congress"));
    engine.send("setoption name UCI_Variant value congo");
    engine.send("ucinewgame");
    let (mv, _) = engine.best_move("position startpos moves d2d3", "go depth 3");
    assert!(is_legal::<congo::Position>(congo::START, &["d2d3"], &mv), "{mv}");
}

/// `position ... moves` keeps the game's positions for repetition detection as core play passes
/// them: the search of a position reached by shuffling pieces out and back is the core's with
/// the game's hashes (and differs from a search without them).
#[test]
fn game_history_reaches_the_search() {
    let shuffle = ["a1a3", "a7a5", "a3a1", "a5a7", "a1a3", "a7a5"];
    let mut pos = congo::Position::start();
    let mut history = vec![pos.hash()];
    for m in shuffle {
        pos = pos.play(&pos.parse_move(m).unwrap());
        history.push(pos.hash());
    }
    let limits = SearchLimits::depth(6);
    let search = |history: &[u64]| {
        Searcher::<congo::Position>::new(default_weights(GameKind::Congo), 16).search(&pos, limits, history)
    };
    let (with, without) = (search(&history), search(&[]));
    assert_ne!(with.nodes, without.nodes, "the repetitions change the search");
    let mut engine = Engine::start(&[]);
    engine.new_game(&[]);
    let (mv, lines) = engine.best_move(&format!("position startpos moves {}", shuffle.join(" ")), "go depth 6");
    assert_eq!(info_nodes(&lines[lines.len() - 2]), Some(with.nodes), "{lines:?}");
    assert_eq!(mv, with.best_move.unwrap().to_string());
}

/// Options changed within a game make a new searcher at the next search, with a note.
#[test]
fn options_take_effect_at_the_next_search() {
    let mut engine = Engine::start(&[]);
    engine.new_game(&[]);
    engine.best_move("position startpos", "go depth 5");
    engine.send("setoption name congo_pawn value 250");
    engine.send("setoption name lmr_min_move value 2");
    let (_, tuned) = engine.best_move("position startpos", "go depth 5");
    assert!(tuned[0].starts_with("info string options changed"), "{tuned:?}");
    // The search is a fresh searcher's with the new options.
    let weights = resolve_weights(GameKind::Congo, &[("pawn".into(), 250)]).unwrap();
    let params = resolve_params(&[("lmr_min_move".into(), 2)]).unwrap();
    let want = Searcher::<congo::Position>::with_params(weights, params, 16).search(
        &congo::Position::start(),
        SearchLimits::depth(5),
        &[],
    );
    assert_eq!(info_nodes(&tuned[tuned.len() - 2]), Some(want.nodes), "{tuned:?}");
    assert_eq!(tuned.last().unwrap(), &format!("bestmove {}", want.best_move.unwrap()));
}

#[test]
fn command_line() {
    let out = run(&["--version"], WAIT);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("arbiter-engine {ENGINE_VERSION}\n"));
    let out = run(&["--help"], WAIT);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for word in ["--variant", "congo_pawn", "UCI_Variant", "Hash", "bench", "Bench:"] {
        assert!(help.contains(word), "--help does not mention {word}");
    }
    for bad in [&["--variant", "chess"][..], &["--frobnicate"], &["bench", "zero"]] {
        let out = run(bad, WAIT);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(out.stdout.is_empty() && !out.stderr.is_empty(), "{bad:?}");
    }
}

fn bench_total(lines: &[String]) -> u64 {
    let last = lines.last().expect("a Bench line");
    let tokens: Vec<&str> = last.split_whitespace().collect();
    assert_eq!((tokens[0], tokens[2], tokens[4]), ("Bench:", "nodes", "nps"), "{last}");
    tokens[1].parse().unwrap()
}

/// `arbiter-engine bench` is the core bench: the same signature with the default options.
#[test]
fn bench_signature() {
    let out = run(&["bench"], WAIT);
    assert!(out.status.success());
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(String::from).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].starts_with("congo: 3194930 nodes "), "{}", lines[0]);
    assert!(lines[1].starts_with("congress: 358802 nodes "), "{}", lines[1]);
    assert_eq!(bench_total(&lines), 3_194_930 + 358_802);
}

#[test]
fn bench_in_the_protocol() {
    let mut engine = Engine::start(&["--variant", "congress"]);
    engine.send("bench 5");
    let lines = engine.until("Bench:", WAIT);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(bench_total(&lines), bench(GameKind::Congress, Some(5)).nodes);
    // The options as set reach the bench.
    engine.send("setoption name lmr_min_move value 2");
    engine.send("bench 5");
    assert_ne!(bench_total(&engine.until("Bench:", WAIT)), bench(GameKind::Congress, Some(5)).nodes);
    let out = run(&["--variant", "congo", "bench", "4"], WAIT);
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(String::from).collect();
    assert_eq!(bench_total(&lines), bench(GameKind::Congo, Some(4)).nodes);
}

/// A timed move's last `info` states the node budget that plays it again: the referee replays
/// timed games under `go nodes` with it (`arbiter engine check`'s replay probe).
#[test]
fn timed_moves_replay_under_their_reported_nodes() {
    for variant in ["congo", "congress"] {
        let mut engine = Engine::start(&[]);
        engine.new_game(&[("UCI_Variant", variant.into())]);
        for movetime in [5, 20, 60] {
            let (timed, lines) = engine.best_move("position startpos", &format!("go movetime {movetime}"));
            let nodes = lines.iter().rev().find_map(|l| info_nodes(l)).expect("an info line with nodes");
            engine.send("ucinewgame");
            engine.send("isready");
            engine.until("readyok", WAIT);
            let (again, _) = engine.best_move("position startpos", &format!("go nodes {nodes}"));
            assert_eq!(timed, again, "{variant}: go movetime {movetime} then go nodes {nodes}");
            engine.send("ucinewgame");
        }
    }
}
