//! Search tests through the crate's public API: tactical positions of both games built from the
//! rules pages (shared/rules/congo.md, congress.md), forced-win scores, determinism with depth and
//! node limits, weight resolution errors, and the pinned bench signature.
//!
//! Every tactical position is small enough to check by hand; the reasoning is written next to it
//! and the legal move lists are asserted so a rules change cannot silently turn a test into a
//! different puzzle.

use arbiter_core::bench::bench;
use arbiter_core::eval::{default_weights, resolve_weights, weight_table, Evaluate, WeightError};
use arbiter_core::limits::SearchLimits;
use arbiter_core::search::{SearchResult, Searcher, MATE, MATE_BOUND};
use arbiter_core::{congo, congress, GameKind, Rules};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn parse<P: Rules>(fen: &str) -> P {
    P::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn searcher<P: Evaluate>() -> Searcher<P> {
    Searcher::new(default_weights(P::GAME), 16)
}

fn depth(d: u32) -> SearchLimits {
    SearchLimits::depth(d)
}

fn search<P: Evaluate>(fen: &str, d: u32) -> SearchResult<P::Move> {
    searcher::<P>().search(&parse::<P>(fen), depth(d), &[])
}

fn best<P: Evaluate>(r: &SearchResult<P::Move>) -> String {
    r.best_move.as_ref().map(|m| m.to_string()).unwrap_or_else(|| "(none)".into())
}

fn sorted_moves<P: Rules>(pos: &P) -> Vec<String> {
    let mut out: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    out.sort();
    out
}

fn sorted(moves: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = moves.iter().map(|s| s.to_string()).collect();
    out.sort();
    out
}

fn play<P: Rules>(pos: &P, text: &str) -> P {
    let m = pos.parse_move(text).unwrap_or_else(|e| panic!("{text} in {}: {e}", pos.fen()));
    pos.play(&m)
}

/// Moves of the side to move that capture the enemy lion / last king at once.
fn winning_captures<P: Rules>(pos: &P) -> Vec<String> {
    let mut out: Vec<String> =
        pos.legal_moves().iter().filter(|m| pos.play(m).is_decided()).map(|m| m.to_string()).collect();
    out.sort();
    out
}

/// Reverses the ranks, swaps case and the side to move (the rules pages' mirror symmetry).
fn mirror_fen(fen: &str) -> String {
    let (board, turn) = fen.split_once(' ').expect("two fields");
    let ranks: Vec<String> = board
        .split('/')
        .rev()
        .map(|r| {
            r.chars()
                .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                .collect()
        })
        .collect();
    format!("{} {}", ranks.join("/"), if turn == "w" { "b" } else { "w" })
}

/// The mirror of a move written as squares (`d3e5`): every rank r becomes ranks + 1 - r.
fn mirror_move(text: &str, ranks: u32) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(2).map(|sq| format!("{}{}", sq[0], ranks + 1 - sq[1].to_digit(10).expect("rank digit"))).collect()
}

/// A forced win in `plies`: the expected first move, the score MATE - plies, a principal
/// variation that really ends the game after `plies` moves, and the same for the mirror image.
fn assert_forced_win<P: Evaluate>(fen: &str, d: u32, first: &str, plies: u32, ranks: u32) {
    for (fen, first) in [(fen.to_string(), first.to_string()), (mirror_fen(fen), mirror_move(first, ranks))] {
        let r = search::<P>(&fen, d);
        assert_eq!(best::<P>(&r), first, "{fen}: pv {:?}", r.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>());
        assert_eq!(r.score, MATE - plies as i32, "{fen}");
        assert!(r.score > MATE_BOUND);
        assert_eq!(r.pv.len(), plies as usize, "{fen}");
        let mut pos = parse::<P>(&fen);
        for (i, m) in r.pv.iter().enumerate() {
            assert!(!pos.is_decided(), "{fen}: decided before ply {i}");
            assert!(pos.legal_moves().contains(m), "{fen}: pv move {m} is illegal");
            pos = pos.play(m);
        }
        assert!(pos.is_decided(), "{fen}: pv does not end the game");
        // Iterative deepening stops once the mate is proven within the depth searched.
        assert_eq!(r.depth, plies, "{fen}");
    }
}

/// The side to move is threatened with losing its lion / last king next ply and has a defence.
/// The engine must pick one of `saving`, after which the opponent has no immediate win.
fn assert_defends<P: Evaluate>(fen: &str, d: u32, saving: &[&str]) -> SearchResult<P::Move> {
    let pos = parse::<P>(fen);
    let r = search::<P>(fen, d);
    let mv = best::<P>(&r);
    assert!(saving.contains(&mv.as_str()), "{fen}: engine played {mv}, expected one of {saving:?}");
    assert!(r.score > -MATE_BOUND, "{fen}: score {} says the defence fails", r.score);
    assert!(winning_captures(&play(&pos, &mv)).is_empty(), "{fen}: {mv} still loses at once");
    // And every other move really loses at once: the test is about the defence, not luck.
    for m in pos.legal_moves() {
        let text = m.to_string();
        if !saving.contains(&text.as_str()) {
            assert!(!winning_captures(&pos.play(&m)).is_empty(), "{fen}: {text} would also defend");
        }
    }
    r
}

// ---------------------------------------------------------------------------------------------
// Congo tactics
// ---------------------------------------------------------------------------------------------

/// Facing lions on an open file: d1-d7 with d2-d6 empty. The black crocodile on c2 (next to the
/// white lion, worth material) is a decoy: taking it (a1c2 or d1c2) would let Black take first.
#[test]
fn congo_win_in_1_facing_lions_on_file() {
    let fen = "3l3/7/7/7/7/2c4/Z2L3 w";
    let pos = parse::<congo::Position>(fen);
    assert_eq!(winning_captures(&pos), ["d1d7"]);
    assert!(sorted_moves(&pos).contains(&"a1c2".to_string()));
    assert!(sorted_moves(&pos).contains(&"d1c2".to_string()));
    assert_forced_win::<congo::Position>(fen, 4, "d1d7", 1, 7);
}

/// Facing lions on a diagonal (the rules page's example): c3-e5 through an empty d4.
#[test]
fn congo_win_in_1_facing_lions_on_diagonal() {
    let fen = "7/7/4l2/7/2L4/P6/7 w";
    let pos = parse::<congo::Position>(fen);
    assert_eq!(sorted_moves(&pos), sorted(&["a2a3", "a2b3", "c3c2", "c3d2", "c3d3", "c3e5"]));
    assert_eq!(winning_captures(&pos), ["c3e5"]);
    assert_forced_win::<congo::Position>(fen, 4, "c3e5", 1, 7);
}

/// A monkey captures the lion by jumping it (d5 over d6 to d7); the jump ends the game.
#[test]
fn congo_win_in_1_monkey_jumps_lion() {
    let fen = "7/3l3/3M3/7/7/7/3L3 w";
    let pos = parse::<congo::Position>(fen);
    assert_eq!(winning_captures(&pos), ["d5d7"]);
    assert_forced_win::<congo::Position>(fen, 3, "d5d7", 1, 7);
}

/// Win in 3 plies. White: lion e1, zebra d3, giraffe c5, elephant f6; Black: lion d7, pawn c6.
/// Zd3-e5 attacks d7 (knight jump e5-d7). The black lion's castle squares are all covered:
/// c7 and e7 by the giraffe's two-square leaps from c5, d6 and e6 by the elephant on f6, c6 holds
/// its own pawn. The pawn cannot touch e5 (c6xc5, c6-b5, c6-d5 leave d7 attacked), and no line
/// links the lions (e1 / d7), so White takes the lion on ply 3. No other first move wins as fast:
/// nothing attacks d7 now, and the giraffe or elephant moves that attack d7 uncover c7/e7 or d6.
#[test]
fn congo_win_in_3_zebra_fork() {
    let fen = "3l3/2p2E1/2G4/7/3Z3/7/4L2 w";
    let pos = parse::<congo::Position>(fen);
    assert!(winning_captures(&pos).is_empty());
    let after = play(&pos, "d3e5");
    assert_eq!(sorted_moves(&after), sorted(&["c6b5", "c6c5", "c6d5", "d7d6", "d7e6", "d7c7", "d7e7"]));
    for reply in after.legal_moves() {
        assert!(!winning_captures(&after.play(&reply)).is_empty(), "{reply} escapes");
    }
    assert_forced_win::<congo::Position>(fen, 6, "d3e5", 3, 7);
}

/// Avoid a loss in 2 by blocking. The black crocodile on d1 slides along its file toward the
/// river and would take the white lion on d3 through the empty d2. The lion's only free castle
/// square is d2 (the crocodile takes it there); the pawns on c2 c3 e2 e3 cannot reach d2 or d1.
/// Only Zb3-d2 interposes, and the crocodile then cannot reach d3 in one move.
#[test]
fn congo_avoid_loss_in_2_block() {
    let fen = "4l2/7/7/7/1ZPLP2/2P1P2/3c3 w";
    let pos = parse::<congo::Position>(fen);
    // With a white pass the crocodile could take the lion: the threat is real.
    let passed = parse::<congo::Position>("4l2/7/7/7/1ZPLP2/2P1P2/3c3 b");
    assert_eq!(winning_captures(&passed), ["d1d3"]);
    assert!(winning_captures(&pos).is_empty());
    let r = assert_defends::<congo::Position>(fen, 6, &["b3d2"]);
    assert_eq!(best::<congo::Position>(&r), "b3d2");
}

/// A non-crocodile piece of the side to move in the river must leave it or drown: any other move
/// loses the elephant for nothing. The engine moves the elephant off rank 4.
#[test]
fn congo_river_piece_leaves_river() {
    let fen = "4l2/p5p/7/2E4/7/P6/2L4 w";
    let pos = parse::<congo::Position>(fen);
    let e = arbiter_core::Square(3 * 7 + 2); // c4
    assert!(pos.must_leave_river().contains(e));
    // Sanity: a pawn move instead drowns the elephant at the end of White's move.
    assert!(play(&pos, "a2a3").piece_at(e).is_none());
    // Moving along the river is not leaving it: the elephant drowns as well.
    let along = play(&pos, "c4b4");
    assert!(along.piece_at(arbiter_core::Square(3 * 7 + 1)).is_none());
    for fen in [fen.to_string(), mirror_fen(fen)] {
        let r = search::<congo::Position>(&fen, 6);
        let mv = best::<congo::Position>(&r);
        assert_eq!(&mv[..2], "c4", "{fen}: engine played {mv}");
        assert_ne!(&mv[3..4], "4", "{fen}: {mv} stays in the river and drowns");
        assert!(r.score > 100, "{fen}: score {} (the elephant is worth keeping)", r.score);
    }
}

/// A side whose lion is gone has lost: the search returns no move and a lost score.
#[test]
fn congo_decided_position_has_no_move() {
    // Black to move after White took the lion: the game is decided.
    let pos = play(&parse::<congo::Position>("3l3/7/7/7/7/7/3L3 w"), "d1d7");
    assert!(pos.is_decided());
    let r = searcher::<congo::Position>().search(&pos, depth(4), &[]);
    assert_eq!(r.best_move, None);
    assert!(r.pv.is_empty());
    assert!(r.score < -MATE_BOUND);
}

// ---------------------------------------------------------------------------------------------
// Congress tactics
// ---------------------------------------------------------------------------------------------

/// Black's last king on f6; the white bishop h4 slides up the forward diagonal g5-f6 and takes it.
/// The black horse on d3 (takeable by the pawn c2) is a decoy.
#[test]
fn congress_win_in_1_last_king() {
    let fen = "5k2/8/7B/3h4/2P5/3K4 w";
    let pos = parse::<congress::Position>(fen);
    assert_eq!(winning_captures(&pos), ["h4f6"]);
    assert!(sorted_moves(&pos).contains(&"c2d3".to_string()));
    assert_forced_win::<congress::Position>(fen, 4, "h4f6", 1, 6);
}

/// Win in 3 plies. The black king f6 can only step to g6 (right wing: toward h), which the white
/// pawn h5 covers. Be3-g5 (f4 empty) attacks f6; Black's pawn tempo a5-a4 does not help, Kg6
/// runs into hxg6, and nothing black can reach g5. No white piece attacks f6 now.
#[test]
fn congress_win_in_3_bishop_and_pawn() {
    let fen = "5k2/p6P/8/4B3/8/K7 w";
    let pos = parse::<congress::Position>(fen);
    assert!(winning_captures(&pos).is_empty());
    assert_eq!(sorted_moves(&pos), sorted(&["e3d4", "e3f4", "e3c5", "e3g5", "e3b6", "e3h6", "h5h6"]));
    let after = play(&pos, "e3g5");
    assert_eq!(sorted_moves(&after), sorted(&["a5a4", "f6g6"]));
    for reply in after.legal_moves() {
        assert!(!winning_captures(&after.play(&reply)).is_empty(), "{reply} escapes");
    }
    assert_forced_win::<congress::Position>(fen, 6, "e3g5", 3, 6);
}

/// Avoid a loss in 2 by blocking: the black bishop e4 slides down f3-g2 onto the last white king
/// on h1, which has no move (a king on the h-file cannot go further right). Only f2-f3 blocks.
#[test]
fn congress_avoid_loss_in_2_block() {
    let fen = "3k4/8/4b3/8/4PP2/7K w";
    assert_eq!(winning_captures(&parse::<congress::Position>("3k4/8/4b3/8/4PP2/7K b")), ["e4h1"]);
    assert_eq!(sorted_moves(&parse::<congress::Position>(fen)), sorted(&["e2e3", "f2f3"]));
    assert_defends::<congress::Position>(fen, 6, &["f2f3"]);
}

/// The same threat with a white horse on d2 that can take the bishop (d2-e4, a forward knight
/// move): capturing removes the threat and wins a politician, so the engine prefers it to f2-f3.
#[test]
fn congress_avoid_loss_in_2_capture() {
    let fen = "3k4/8/4b3/8/3HPP2/7K w";
    let r = assert_defends::<congress::Position>(fen, 6, &["d2e4", "f2f3", "d2f3"]);
    assert_eq!(best::<congress::Position>(&r), "d2e4");
}

/// White's only king on a1 (left wing) has no move and neither has anything else: no best move.
#[test]
fn congress_no_legal_move() {
    let pos = parse::<congress::Position>("3k4/8/8/8/8/K7 w");
    assert!(pos.legal_moves().is_empty());
    let r = searcher::<congress::Position>().search(&pos, depth(4), &[]);
    assert_eq!(r.best_move, None);
    assert_eq!(r.score, -MATE);
}

// ---------------------------------------------------------------------------------------------
// Determinism
// ---------------------------------------------------------------------------------------------

/// best move, score, depth, nodes, pv and (depth, score, nodes) per iteration.
type Signature = (String, i32, u32, u64, Vec<String>, Vec<(u32, i32, u64)>);

/// What must be identical between two runs (elapsed times may differ).
fn signature<M: std::fmt::Display>(r: &SearchResult<M>) -> Signature {
    (
        r.best_move.as_ref().map(|m| m.to_string()).unwrap_or_default(),
        r.score,
        r.depth,
        r.nodes,
        r.pv.iter().map(|m| m.to_string()).collect(),
        r.iterations.iter().map(|it| (it.depth, it.score, it.nodes)).collect(),
    )
}

fn check_deterministic<P: Evaluate>(fen: &str, limits: SearchLimits) {
    let pos = parse::<P>(fen);
    let first = signature(&searcher::<P>().search(&pos, limits, &[]));
    let second = signature(&searcher::<P>().search(&pos, limits, &[]));
    assert_eq!(first, second, "{fen}: two fresh searchers differ");
    assert!(first.3 > 0);
    // One searcher reused: the warm table changes the work, `clear` restores the fresh result.
    let mut reused = searcher::<P>();
    let _ = reused.search(&pos, limits, &[]);
    reused.clear();
    assert_eq!(signature(&reused.search(&pos, limits, &[])), first, "{fen}: after clear()");
    if let Some(n) = limits.nodes {
        assert_node_limit(first.3, n);
    }
}

#[test]
fn deterministic_with_depth_limit() {
    check_deterministic::<congo::Position>("gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w", depth(6));
    check_deterministic::<congo::Position>("1melec1/ppppp1p/2g2zp/5C1/2G2ZP/PPPPP1P/1MELE2 b", depth(5));
    check_deterministic::<congress::Position>("hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w", depth(7));
}

#[test]
fn deterministic_with_node_limit() {
    let nodes = SearchLimits::nodes(20_000);
    check_deterministic::<congo::Position>("gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w", nodes);
    check_deterministic::<congress::Position>("hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w", nodes);
}

/// The node limit is soft: the search notices it at the node that reaches it and then unwinds,
/// which costs at most a node per ply of the current path (so far below MAX_PLY = 128).
fn assert_node_limit(nodes: u64, limit: u64) {
    assert!(nodes >= limit, "{nodes} nodes: stopped before the limit {limit}");
    assert!(nodes < limit + 128, "{nodes} nodes: overshoots the limit {limit}");
}

/// A node limit stops the search in the middle of an iteration: the result still holds a legal
/// move and the completed iterations only.
#[test]
fn node_limit_stops_search() {
    let pos = congo::Position::start();
    let r = searcher::<congo::Position>().search(&pos, SearchLimits::nodes(3_000), &[]);
    assert_node_limit(r.nodes, 3_000);
    assert!(pos.legal_moves().contains(&r.best_move.expect("a move")));
    assert_eq!(r.iterations.last().map(|it| it.depth), Some(r.depth));
    assert!(r.depth >= 1);
}

// ---------------------------------------------------------------------------------------------
// Weights
// ---------------------------------------------------------------------------------------------

fn named(pairs: &[(&str, i64)]) -> Vec<(String, i64)> {
    pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

#[test]
fn weights_defaults_and_overrides() {
    for game in GameKind::ALL {
        let table = weight_table(game);
        assert_eq!(resolve_weights(game, &[]).unwrap(), default_weights(game));
        assert_eq!(default_weights(game), table.iter().map(|s| s.default).collect::<Vec<_>>());
        for (i, spec) in table.iter().enumerate() {
            assert!(spec.min <= spec.default && spec.default <= spec.max, "{game} {}", spec.name);
            // Both bounds are accepted; only the named entry changes.
            for value in [spec.min, spec.max] {
                let got = resolve_weights(game, &named(&[(spec.name, value as i64)])).unwrap();
                let mut want = default_weights(game);
                want[i] = value;
                assert_eq!(got, want, "{game} {} = {value}", spec.name);
            }
        }
        let mut names: Vec<&str> = table.iter().map(|s| s.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), table.len(), "{game}: duplicate weight names");
    }
    assert_eq!(weight_table(GameKind::Congo).len(), 15);
    assert_eq!(weight_table(GameKind::Congress).len(), 12);
}

#[test]
fn weights_unknown_names() {
    let err = resolve_weights(GameKind::Congo, &named(&[("pawn", 120), ("bishop", 300), ("king", 500)])).unwrap_err();
    assert_eq!(err, WeightError::Unknown { game: GameKind::Congo, names: vec!["bishop".into(), "king".into()] });
    let text = err.to_string();
    assert!(text.contains("bishop, king") && text.contains("congo"), "{text}");
    // A Congo name is unknown to Congress.
    let err = resolve_weights(GameKind::Congress, &named(&[("crocodile", 300)])).unwrap_err();
    assert_eq!(err, WeightError::Unknown { game: GameKind::Congress, names: vec!["crocodile".into()] });
}

#[test]
fn weights_out_of_range() {
    for game in GameKind::ALL {
        let spec = weight_table(game)[0];
        for value in [spec.min as i64 - 1, spec.max as i64 + 1, i64::MIN, i64::MAX] {
            let err = resolve_weights(game, &named(&[(spec.name, value)])).unwrap_err();
            assert_eq!(err, WeightError::OutOfRange { name: spec.name.into(), value, min: spec.min, max: spec.max });
            let text = err.to_string();
            assert!(text.contains(spec.name) && text.contains(&value.to_string()), "{text}");
        }
    }
}

/// Weights change the evaluation and so the search: a different pawn value gives a different
/// node count on the same position (the weights really reach the search).
#[test]
fn weights_reach_the_search() {
    let pos = congo::Position::start();
    let plain = Searcher::<congo::Position>::new(default_weights(GameKind::Congo), 16).search(&pos, depth(5), &[]);
    let w = resolve_weights(GameKind::Congo, &named(&[("pawn", 250), ("mobility", 0)])).unwrap();
    let mut tuned = Searcher::<congo::Position>::new(w.clone(), 16);
    assert_eq!(tuned.weights(), &w[..]);
    let tuned = tuned.search(&pos, depth(5), &[]);
    assert_ne!((plain.score, plain.nodes), (tuned.score, tuned.nodes));
}

// ---------------------------------------------------------------------------------------------
// Bench signature
// ---------------------------------------------------------------------------------------------

/// The bench node counts are the engine's signature (what `arbiter bench` prints and workers
/// compare). A change of search or evaluation behaviour changes them: when it does, and the change
/// is meant, update these numbers deliberately in the same commit (and docs/performance.md).
/// Never update them to make an unexplained failure go away.
const CONGO_BENCH_NODES: u64 = 3_194_930;
const CONGRESS_BENCH_NODES: u64 = 358_802;

#[test]
fn bench_signature() {
    assert_eq!(bench(GameKind::Congo, None).nodes, CONGO_BENCH_NODES, "congo bench signature changed");
    assert_eq!(bench(GameKind::Congress, None).nodes, CONGRESS_BENCH_NODES, "congress bench signature changed");
}
