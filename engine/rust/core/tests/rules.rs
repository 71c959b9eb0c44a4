//! Rules, notation and error tests through the crate's public API: incremental hashes, position
//! string round trips, every parse error, move parsing in every accepted form, rule examples from
//! the rules pages (shared/rules/congo.md, congress.md), and garbage input that must never panic.

use std::collections::HashMap;

use arbiter_core::perft::perft;
use arbiter_core::{congo, congress, Color, EndReason, MoveError, Outcome, PositionField, Rules, Square};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// xorshift64*: a tiny deterministic RNG (no crates).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next() % den < num
    }
}

const CONGO_STARTS: [&str; 8] = [
    "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w",
    "1melec1/ppppp1p/2g2zp/5C1/2G2ZP/PPPPP1P/1MELE2 b",
    "3l3/7/7/7/7/P6/3L3 w",
    "7/7/4l2/7/2L4/P6/7 w",
    "7/7/2l4/2Z4/2L4/P6/7 w",
    "3l3/7/P5S/2P4/7/7/3L3 w",
    "3l3/7/3p3/2p4/1G5/7/3L3 w",
    "3l3/6p/7/3pp2/2Mp3/7/3L3 w",
];

const CONGRESS_STARTS: [&str; 3] = [
    "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w",
    "hh1kk1bb/1ppp1pp1/4p3/8/1PPPPPPB/HH1KK2B w",
    // The start position mirrored: Black moves first.
    "HH1KK1BB/1PPPPPP1/8/8/1pppppp1/hh1kk1bb b",
];

const GAMES_PER_START: u64 = 80;
const MAX_PLIES: usize = 240;

fn parse<P: Rules>(text: &str) -> P {
    P::from_fen(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn mv<P: Rules>(pos: &P, text: &str) -> P::Move {
    pos.parse_move(text).unwrap_or_else(|e| panic!("{text} in {}: {e}", pos.fen()))
}

fn play_all<P: Rules>(mut pos: P, moves: &[&str]) -> P {
    for text in moves {
        let m = mv(&pos, text);
        pos = pos.play(&m);
    }
    pos
}

fn move_texts<P: Rules>(pos: &P) -> Vec<String> {
    let mut out: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    out.sort();
    out
}

fn sorted(moves: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = moves.iter().map(|s| s.to_string()).collect();
    out.sort();
    out
}

/// One seeded random game from `start`; every position along it, the start included. Captures
/// are preferred half of the time so games reach lion/king captures, drownings and chains.
fn random_game<P: Rules>(start: P, rng: &mut Rng) -> Vec<P> {
    let mut out = vec![start];
    let mut pos = start;
    for _ in 0..MAX_PLIES {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let captures = pos.capture_moves();
        let m = if !captures.is_empty() && rng.chance(1, 2) {
            captures[rng.below(captures.len())]
        } else {
            moves[rng.below(moves.len())]
        };
        pos = pos.play(&m);
        out.push(pos);
    }
    out
}

/// Every position of every seeded random game from each start.
fn positions<P: Rules>(starts: &[&str], seed: u64) -> Vec<P> {
    let mut out = Vec::new();
    for (i, fen) in starts.iter().enumerate() {
        for g in 0..GAMES_PER_START {
            let mut rng = Rng::new(seed ^ ((i as u64) << 32) ^ g);
            out.extend(random_game(parse::<P>(fen), &mut rng));
        }
    }
    out
}

fn with_turn(fen: &str, turn: char) -> String {
    let (board, _) = fen.split_once(' ').expect("two fields");
    format!("{board} {turn}")
}

fn flip_turn(fen: &str) -> String {
    with_turn(fen, if fen.ends_with(" w") { 'b' } else { 'w' })
}

// ---------------------------------------------------------------------------------------------
// Hash consistency
// ---------------------------------------------------------------------------------------------

fn check_hashes<P: Rules>(starts: &[&str], seed: u64) -> usize {
    let all = positions::<P>(starts, seed);
    let mut seen: HashMap<u64, String> = HashMap::new();
    for pos in &all {
        assert_eq!(pos.hash(), pos.compute_hash(), "incremental hash of {}", pos.fen());
        // Distinct positions (same side to move included) get distinct hashes.
        let fen = pos.fen();
        if let Some(other) = seen.insert(pos.hash(), fen.clone()) {
            assert_eq!(other, fen, "hash collision");
        }
        if !pos.is_decided() {
            let flipped = parse::<P>(&flip_turn(&fen));
            assert_ne!(flipped.hash(), pos.hash(), "side to move is not hashed: {fen}");
            assert_eq!(flipped.hash(), flipped.compute_hash());
        }
    }
    all.len()
}

#[test]
fn congo_hash_is_incremental_along_random_games() {
    let n = check_hashes::<congo::Position>(&CONGO_STARTS, 0xC0C0);
    assert!(n > 5_000, "only {n} positions visited");
}

#[test]
fn congress_hash_is_incremental_along_random_games() {
    let n = check_hashes::<congress::Position>(&CONGRESS_STARTS, 0xC0C5);
    assert!(n > 1_000, "only {n} positions visited");
}

#[test]
fn hash_depends_on_side_to_move_at_the_start() {
    for fen in [CONGO_STARTS[0], CONGO_STARTS[2]] {
        let w = parse::<congo::Position>(&with_turn(fen, 'w'));
        let b = parse::<congo::Position>(&with_turn(fen, 'b'));
        assert_ne!(w.hash(), b.hash());
        assert_ne!(w, b);
        assert_eq!(b.turn(), Color::Black);
    }
    let w = parse::<congress::Position>(CONGRESS_STARTS[0]);
    let b = parse::<congress::Position>(&with_turn(CONGRESS_STARTS[0], 'b'));
    assert_ne!(w.hash(), b.hash());
    assert_eq!(w.hash(), congress::Position::start().hash());
}

#[test]
fn transpositions_reach_the_same_position_and_hash() {
    let a = play_all(congo::Position::start(), &["d2d3", "d6d5", "c2c3"]);
    let b = play_all(congo::Position::start(), &["c2c3", "d6d5", "d2d3"]);
    assert_eq!(a, b);
    assert_eq!(a.hash(), b.hash());
    let a = play_all(congress::Position::start(), &["b2b3", "c5c4", "g2g3"]);
    let b = play_all(congress::Position::start(), &["g2g3", "c5c4", "b2b3"]);
    assert_eq!(a, b);
    assert_eq!(a.hash(), b.hash());
    let c = play_all(congress::Position::start(), &["b2b3", "c5c4", "f2f3"]);
    assert_ne!(a.hash(), c.hash());
}

// ---------------------------------------------------------------------------------------------
// Position strings and move texts round trip
// ---------------------------------------------------------------------------------------------

fn check_round_trips<P: Rules + PartialEq>(starts: &[&str], seed: u64) -> (usize, usize) {
    let (mut positions_checked, mut moves_checked) = (0, 0);
    for pos in positions::<P>(starts, seed) {
        // consistency of outcome and move generation
        assert_eq!(pos.outcome().is_some(), pos.legal_moves().is_empty(), "{}", pos.fen());
        assert_eq!(pos.count_moves(), pos.legal_moves().len() as u64);
        if pos.is_decided() {
            // Congo: a position without a lion is not a valid position string.
            continue;
        }
        let fen = pos.fen();
        let back = P::from_fen(&fen).unwrap_or_else(|e| panic!("{fen} does not parse back: {e}"));
        assert!(back == pos, "{fen} parses to a different position");
        assert_eq!(back.fen(), fen);
        assert_eq!(back.hash(), pos.hash());
        positions_checked += 1;
        // Every printed move parses back to the same move, and is legal.
        for m in pos.legal_moves() {
            let text = m.to_string();
            assert_eq!(pos.parse_move(&text), Ok(m), "{text} in {fen}");
            moves_checked += 1;
        }
        for m in pos.capture_moves() {
            assert!(pos.legal_moves().contains(&m), "capture {m} not among the legal moves of {fen}");
        }
    }
    (positions_checked, moves_checked)
}

#[test]
fn congo_position_strings_and_moves_round_trip() {
    let (p, m) = check_round_trips::<congo::Position>(&CONGO_STARTS, 0xF00D);
    assert!(p > 5_000 && m > 50_000, "{p} positions, {m} moves");
}

#[test]
fn congress_position_strings_and_moves_round_trip() {
    let (p, m) = check_round_trips::<congress::Position>(&CONGRESS_STARTS, 0xBEEF);
    assert!(p > 1_000 && m > 10_000, "{p} positions, {m} moves");
}

#[test]
fn random_games_end_by_the_rules() {
    // Congress: every game ends (all moves are irreversible); the last position has an outcome.
    for seed in 0..50 {
        let mut rng = Rng::new(seed);
        let game = random_game(congress::Position::start(), &mut rng);
        let last = game.last().unwrap();
        assert!(game.len() <= 100, "congress game of {} plies", game.len());
        let outcome = last.outcome().expect("finished congress game has an outcome");
        match outcome.reason {
            EndReason::KingsCaptured => assert!(last.is_decided()),
            EndReason::NoLegalMove => assert_eq!(outcome.winner, last.turn().other()),
            EndReason::LionCaptured => panic!("lion in congress"),
        }
    }
    // Congo: a game ended by a lion capture names the capturer (who just moved) as winner.
    let mut lion_captures = 0;
    for seed in 0..50 {
        let mut rng = Rng::new(seed);
        let game = random_game(congo::Position::start(), &mut rng);
        let last = game.last().unwrap();
        if last.is_decided() {
            lion_captures += 1;
            assert_eq!(last.outcome(), Some(Outcome { winner: last.turn().other(), reason: EndReason::LionCaptured }));
            assert_eq!(last.count_moves(), 0);
        }
    }
    assert!(lion_captures > 10, "only {lion_captures} of 50 capture-biased congo games took a lion");
}

#[test]
fn congress_politician_letter_follows_the_file() {
    // Either letter is accepted on any file; the canonical string prints H on a-d, B on e-h.
    let pos = parse::<congress::Position>("bb1kk1hh/1pppppp1/8/8/1PPPPPP1/BH1KK1HB w");
    assert_eq!(pos.fen(), "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w");
    assert_eq!(pos, congress::Position::start());
    // A bishop that slides onto the left wing prints as a horse.
    let pos = play_all(congress::Position::start(), &["g1h2", "e5e4", "h2d6"]);
    assert_eq!(pos.fen(), "hh1Hk1bb/1ppp1pp1/4p3/8/1PPPPPP1/HH1KK2B b");
}

// ---------------------------------------------------------------------------------------------
// Parse errors
// ---------------------------------------------------------------------------------------------

fn expect_error<P: Rules>(text: &str, field: PositionField, mentions: &str) {
    match P::from_fen(text) {
        Ok(p) => panic!("{text:?} parsed as {}", p.fen()),
        Err(e) => {
            let shown = e.to_string();
            assert_eq!(e.field, field, "{text:?}: {shown}");
            assert_eq!(e.input, text);
            assert_eq!(e.game, P::GAME.name());
            assert!(shown.contains(&format!("{text:?}")), "message does not name the input: {shown}");
            assert!(shown.contains(field.name()), "message does not name the field: {shown}");
            assert!(shown.contains(P::GAME.name()), "message does not name the game: {shown}");
            assert!(
                shown.to_lowercase().contains(&mentions.to_lowercase()),
                "message does not mention {mentions:?}: {shown}"
            );
        }
    }
}

#[test]
fn congo_layout_errors() {
    use PositionField::Layout;
    expect_error::<congo::Position>("", Layout, "found 0");
    expect_error::<congo::Position>("   ", Layout, "found 0");
    expect_error::<congo::Position>("gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ", Layout, "found 1");
    expect_error::<congo::Position>("gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w 0", Layout, "found 3");
    expect_error::<congo::Position>("gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w 0 1", Layout, "found 4");
    expect_error::<congo::Position>("gmelecz ppppppp/7/7/7/PPPPPPP/GMELECZ w", Layout, "found 3");
}

#[test]
fn congo_board_errors() {
    use PositionField::Board;
    // rank counts
    expect_error::<congo::Position>("gmelecz/ppppppp/7/7/PPPPPPP/GMELECZ w", Board, "found 6");
    expect_error::<congo::Position>("gmelecz/ppppppp/7/7/7/7/PPPPPPP/GMELECZ w", Board, "found 8");
    expect_error::<congo::Position>("gmelecz w", Board, "found 1");
    expect_error::<congo::Position>("gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ/ w", Board, "found 8");
    // squares per rank
    expect_error::<congo::Position>("gmelecz/pppppppp/7/7/7/PPPPPPP/GMELECZ w", Board, "rank 6");
    expect_error::<congo::Position>("gmelecz/pppppp/7/7/7/PPPPPPP/GMELECZ w", Board, "rank 6");
    expect_error::<congo::Position>("gmelecz/ppppppp/8/7/7/PPPPPPP/GMELECZ w", Board, "rank 5");
    expect_error::<congo::Position>("gmelecz/ppppppp/6/7/7/PPPPPPP/GMELECZ w", Board, "rank 5");
    expect_error::<congo::Position>("gmelecz/ppppppp/7//7/PPPPPPP/GMELECZ w", Board, "rank 4");
    expect_error::<congo::Position>("gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ1 w", Board, "rank 1");
    // unknown letters (K is a Congress letter, not a Congo one)
    expect_error::<congo::Position>("gmelecz/ppppppp/7/7/7/PPPPPPP/GMEKECZ w", Board, "'K'");
    expect_error::<congo::Position>("gmelecx/ppppppp/7/7/7/PPPPPPP/GMELECZ w", Board, "'x'");
    expect_error::<congo::Position>("gmelecz/ppppppp/7/3?3/7/PPPPPPP/GMELECZ w", Board, "'?'");
    expect_error::<congo::Position>("gmelecz/ppppppp/07/7/7/PPPPPPP/GMELECZ w", Board, "'0'");
    // one digit per run of empty squares
    expect_error::<congo::Position>("gmelecz/ppppppp/34/7/7/PPPPPPP/GMELECZ w", Board, "two digits");
    expect_error::<congo::Position>("gmelecz/ppppppp/7/7/11p1111/PPPPPPP/GMELECZ w", Board, "two digits");
    // pawns on their last rank
    expect_error::<congo::Position>("3l2P/7/7/7/7/7/3L3 w", Board, "last rank");
    expect_error::<congo::Position>("3l3/7/7/7/7/7/p2L3 b", Board, "last rank");
    // lions outside their castle
    expect_error::<congo::Position>("l6/7/7/7/7/7/3L3 w", Board, "castle");
    expect_error::<congo::Position>("3l3/7/7/3L3/7/7/7 w", Board, "castle");
    expect_error::<congo::Position>("3l3/3L3/7/7/7/7/7 w", Board, "castle");
    expect_error::<congo::Position>("7/7/7/7/3l3/7/3L3 w", Board, "castle");
    // not exactly one lion per side
    expect_error::<congo::Position>("7/7/7/7/7/7/3L3 w", Board, "found 0");
    expect_error::<congo::Position>("3l3/7/7/7/7/7/7 w", Board, "found 0");
    expect_error::<congo::Position>("2ll3/7/7/7/7/7/3L3 w", Board, "found 2");
    expect_error::<congo::Position>("3l3/7/7/7/7/2L4/3L3 b", Board, "found 2");
    expect_error::<congo::Position>("7/7/7/7/7/7/7 w", Board, "lion");
}

#[test]
fn congo_turn_errors() {
    use PositionField::Turn;
    for turn in ["x", "W", "B", "white", "wb", "-", "1"] {
        expect_error::<congo::Position>(&format!("gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ {turn}"), Turn, turn);
    }
}

#[test]
fn congress_layout_errors() {
    use PositionField::Layout;
    expect_error::<congress::Position>("", Layout, "found 0");
    expect_error::<congress::Position>("hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB", Layout, "found 1");
    expect_error::<congress::Position>("hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w 1", Layout, "found 3");
}

#[test]
fn congress_board_errors() {
    use PositionField::Board;
    expect_error::<congress::Position>("hh1kk1bb/1pppppp1/8/1PPPPPP1/HH1KK1BB w", Board, "found 5");
    expect_error::<congress::Position>("hh1kk1bb/1pppppp1/8/8/8/1PPPPPP1/HH1KK1BB w", Board, "found 7");
    expect_error::<congress::Position>("hh1kk1bbb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w", Board, "rank 6");
    expect_error::<congress::Position>("hh1kk1b/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w", Board, "rank 6");
    expect_error::<congress::Position>("hh1kk1bb/1pppppp1/9/8/1PPPPPP1/HH1KK1BB w", Board, "rank 4");
    expect_error::<congress::Position>("hh1kk1bb/1pppppp1/8/7/1PPPPPP1/HH1KK1BB w", Board, "rank 3");
    expect_error::<congress::Position>("hh1kq1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w", Board, "'q'");
    // Congo letters are not Congress pieces.
    expect_error::<congress::Position>("hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1LK1BB w", Board, "'L'");
    expect_error::<congress::Position>("hh1kk1bb/1pppppp1/8/8/1PPPPPP1/MH1KK1BB w", Board, "'M'");
    // one digit per run of empty squares
    expect_error::<congress::Position>("hh1kk1bb/1pppppp1/44/8/1PPPPPP1/HH1KK1BB w", Board, "two digits");
    // three kings of one side; no king on either side
    expect_error::<congress::Position>("hhkkk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w", Board, "3 kings");
    expect_error::<congress::Position>("hh1kk1bb/1pppppp1/8/8/1PPPKPP1/HH1KK1BB b", Board, "3 kings");
    expect_error::<congress::Position>("hh2bb2/8/8/8/8/HH2BB2 w", Board, "king");
    expect_error::<congress::Position>("8/8/8/8/8/8 b", Board, "king");
}

#[test]
fn congress_turn_errors() {
    use PositionField::Turn;
    for turn in ["x", "W", "white", "0"] {
        expect_error::<congress::Position>(&format!("hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB {turn}"), Turn, turn);
    }
}

#[test]
fn congress_accepts_positions_the_page_allows() {
    // A pawn on its last rank stays there (no promotion); one king is enough; one side without
    // kings is a finished game, not a malformed string.
    let pos = parse::<congress::Position>("hhPk2bb/1ppppp2/8/8/1PPPPPP1/HH1K2BB b");
    assert_eq!(pos.outcome(), None);
    let pos = parse::<congress::Position>("hh4bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB b");
    assert_eq!(pos.outcome(), Some(Outcome { winner: Color::White, reason: EndReason::KingsCaptured }));
}

// ---------------------------------------------------------------------------------------------
// Move parsing
// ---------------------------------------------------------------------------------------------

fn expect_invalid<P: Rules>(pos: &P, text: &str) {
    match pos.parse_move(text) {
        Err(MoveError::Invalid { input, expected }) => {
            assert_eq!(input, text);
            assert!(!expected.is_empty());
            let shown = MoveError::Invalid { input, expected }.to_string();
            assert!(shown.contains(&format!("{text:?}")), "{shown}");
        }
        other => panic!("{text:?} in {}: expected Invalid, got {other:?}", pos.fen()),
    }
}

fn expect_illegal<P: Rules>(pos: &P, text: &str) {
    match pos.parse_move(text) {
        Err(MoveError::Illegal { input, position }) => {
            assert_eq!(input, text);
            assert_eq!(position, pos.fen());
            let shown = MoveError::Illegal { input, position }.to_string();
            assert!(shown.contains(&format!("{text:?}")) && shown.contains(&pos.fen()), "{shown}");
        }
        other => panic!("{text:?} in {}: expected Illegal, got {other:?}", pos.fen()),
    }
}

#[test]
fn congo_malformed_moves_are_invalid() {
    let pos = congo::Position::start();
    for text in [
        "", " ", "d2", "h1h2", "a1a8", "a0a1", "d2d", "d2d3d", "d2d34", "hello", "zz99", "2d3d", "d2 d3", "--", "xx",
        "d2d3!", "é2d3",
    ] {
        expect_invalid(&pos, text);
    }
}

#[test]
fn congress_malformed_moves_are_invalid() {
    let pos = congress::Position::start();
    for text in ["", "b2", "a7a6", "b2b7", "i2i3", "b2b", "b2b3b4", "b2-b3", "b2b3x", "garbage", "22bb", "b0b1"] {
        expect_invalid(&pos, text);
    }
}

#[test]
fn well_formed_illegal_moves_are_illegal() {
    let congo_start = congo::Position::start();
    // pawn double step, onto own piece, from an empty square, the wrong side's piece, lion leaving
    // the castle, a monkey chain that does not exist
    for text in ["d2d4", "g1g2", "d4d5", "d6d5", "d1d3", "b1d3f5", "a1a1", "d2-d4", "d2d3d4"] {
        expect_illegal(&congo_start, text);
    }
    let congress_start = congress::Position::start();
    // double step, king toward the other king, horse backward, junior bishop backward, black piece
    for text in ["b2b4", "d1e1", "e1d1", "a1c2", "g1f2", "b5b4", "c3c4", "B2B4"] {
        expect_illegal(&congress_start, text);
    }
    // A finished game has no legal move at all.
    let over = play_all(parse::<congo::Position>("3l3/7/7/7/7/P6/3L3 w"), &["d1d7"]);
    expect_illegal(&over, "a2a3");
}

#[test]
fn congo_mindsports_forms_parse_to_the_compact_move() {
    let start = congo::Position::start();
    for (long, short) in [("d2-d3", "d2d3"), ("g1-f3", "g1f3"), ("g1-f3x", "g1f3")] {
        assert_eq!(start.parse_move(long), start.parse_move(short), "{long}");
        assert!(start.parse_move(long).is_ok(), "{long}");
    }
    // The rules page's monkey position: a monkey on c3 among black pawns d3, d4, e4.
    let pos = parse::<congo::Position>("3l3/6p/7/3pp2/2Mp3/7/3L3 w");
    let chain = mv(&pos, "c3e3e5");
    assert_eq!(chain.to_string(), "c3e3e5");
    for form in ["c3-e3-e5x", "c3-e3-e5", "c3xe3xe5", "c3e3e5x", "c3-e3xe5"] {
        assert_eq!(pos.parse_move(form), Ok(chain), "{form}");
    }
    // Prefixes are different legal moves; a chain back to its start square is legal too.
    let prefix = mv(&pos, "c3-e3x");
    assert_ne!(prefix, chain);
    assert_eq!(prefix.to_string(), "c3e3");
    let round = mv(&pos, "c3-e3-e5-c3x");
    assert_eq!(round.to_string(), "c3e3e5c3");
    // Ruling: the same pieces jumped in another order is another move (same result).
    let other_round = mv(&pos, "c3e5e3c3");
    assert_ne!(round, other_round);
    assert_eq!(pos.play(&round), pos.play(&other_round));
    // Jumping d3 and e4: both captured, the monkey ends on e5.
    let after = pos.play(&chain);
    assert_eq!(after.fen(), "3l3/6p/4M2/3p3/7/7/3L3 b");
    // Returning to the start square: d3, e4 and d4 are gone, the monkey is back on c3.
    assert_eq!(pos.play(&round).fen(), "3l3/6p/7/7/2M4/7/3L3 b");
    // Never the same piece twice: c3-e3-c3 would jump d3 twice, c3-e5-c3 d4 twice.
    expect_illegal(&pos, "c3e3c3");
    expect_illegal(&pos, "c3e5c3");
}

#[test]
fn congo_every_chain_prefix_is_a_legal_move() {
    let mut chains = 0;
    for pos in positions::<congo::Position>(&CONGO_STARTS, 0xAB) {
        for m in pos.legal_moves() {
            let text = m.to_string();
            if text.len() <= 4 {
                continue;
            }
            chains += 1;
            for end in (4..text.len()).step_by(2) {
                let prefix = &text[..end];
                let p = pos.parse_move(prefix).unwrap_or_else(|e| panic!("prefix {prefix} of {text}: {e}"));
                assert_eq!(p.to_string(), prefix);
            }
            // Mindsports form of the whole chain
            let dashed: Vec<&str> = (0..text.len()).step_by(2).map(|i| &text[i..i + 2]).collect();
            assert_eq!(pos.parse_move(&format!("{}x", dashed.join("-"))), Ok(m));
        }
    }
    assert!(chains > 20, "only {chains} multi-jump chains seen");
}

#[test]
fn congress_accepts_upper_case_squares() {
    let pos = congress::Position::start();
    for (upper, lower) in [("B2B3", "b2b3"), ("G1H2", "g1h2"), ("d1C1", "d1c1"), ("A1b3", "a1b3")] {
        let m = pos.parse_move(upper).unwrap_or_else(|e| panic!("{upper}: {e}"));
        assert_eq!(Ok(m), pos.parse_move(lower));
        assert_eq!(m.to_string(), lower);
    }
}

// ---------------------------------------------------------------------------------------------
// Congo rules examples
// ---------------------------------------------------------------------------------------------

fn congo(fen: &str) -> congo::Position {
    parse::<congo::Position>(fen)
}

fn sq(name: &str) -> Square {
    let b = name.as_bytes();
    let file = b[0] - b'a';
    let rank = b[1] - b'1';
    Square(rank * 7 + file)
}

#[test]
fn congo_facing_lions_on_a_file_capture_and_end_the_game() {
    let pos = congo("3l3/7/7/7/7/P6/3L3 w");
    assert!(move_texts(&pos).contains(&"d1d7".to_string()));
    let after = play_all(pos, &["d1d7"]);
    assert_eq!(after.outcome(), Some(Outcome { winner: Color::White, reason: EndReason::LionCaptured }));
    assert!(after.is_decided());
    assert!(after.legal_moves().is_empty());
    assert_eq!(perft(&after, 1), 0);
    assert_eq!(after.fen(), "3L3/7/7/7/7/P6/7 b");
    // Any piece between the lions blocks, a river square included, whoever owns it.
    expect_illegal(&congo("3l3/7/7/3P3/7/P6/3L3 w"), "d1d7");
    expect_illegal(&congo("3l3/7/7/3z3/7/P6/3L3 w"), "d1d7");
    expect_illegal(&congo("3l3/3p3/7/7/7/P6/3L3 w"), "d1d7");
    // Black may do the same.
    let pos = congo("3l3/7/7/7/7/P6/3L3 b");
    let after = play_all(pos, &["d7d1"]);
    assert_eq!(after.outcome(), Some(Outcome { winner: Color::Black, reason: EndReason::LionCaptured }));
}

#[test]
fn congo_facing_lions_on_a_diagonal() {
    let pos = congo("7/7/4l2/7/2L4/P6/7 w");
    let after = play_all(pos, &["c3e5"]);
    assert_eq!(after.outcome(), Some(Outcome { winner: Color::White, reason: EndReason::LionCaptured }));
    // Not on a line: no capture from c3 to d5 (a lion otherwise stays in its castle).
    let pos = congo("7/7/3l3/7/2L4/P6/7 w");
    expect_illegal(&pos, "c3d5");
    assert!(move_texts(&pos).iter().all(|m| m.starts_with("a2") || m.starts_with("c3")));
}

#[test]
fn congo_drowning_opens_the_file_for_the_enemy_lion() {
    // White zebra c4 stands in the river between the lions; if White does not move it, it
    // drowns at the end of White's move and the black lion takes the white lion.
    let pos = congo("7/7/2l4/2Z4/2L4/P6/7 w");
    assert_eq!(pos.must_leave_river().count(), 1);
    let after = play_all(pos, &["a2a3"]);
    assert_eq!(after.piece_at(sq("c4")), None, "the zebra drowned");
    assert_eq!(after.fen(), "7/7/2l4/7/P1L4/7/7 b");
    let end = play_all(after, &["c5c3"]);
    assert_eq!(end.outcome(), Some(Outcome { winner: Color::Black, reason: EndReason::LionCaptured }));
    // Leaving the river saves it.
    let saved = play_all(pos, &["c4e5"]);
    assert_eq!(saved.fen(), "7/7/2l1Z2/7/2L4/P6/7 b");
    // Moving the lion while the zebra stays: still drowns.
    let moved = play_all(pos, &["c3d2"]);
    assert_eq!(moved.piece_at(sq("c4")), None);
}

#[test]
fn congo_a_piece_entering_the_river_may_stay_one_turn() {
    let pos = play_all(congo::Position::start(), &["d2d3", "a6a5", "d3d4"]);
    // The pawn just entered the river: it survives this move.
    assert!(pos.piece_at(sq("d4")).is_some());
    assert_eq!(pos.fen(), "gmelecz/1pppppp/p6/3P3/7/PPP1PPP/GMELECZ b");
    // Black's move never removes White's pieces.
    let pos = play_all(pos, &["b6b5"]);
    assert!(pos.piece_at(sq("d4")).is_some());
    // White does not move it: it drowns at the end of White's move.
    let drowned = play_all(pos, &["a2a3"]);
    assert_eq!(drowned.piece_at(sq("d4")), None);
    assert_eq!(drowned.fen(), "gmelecz/2ppppp/pp5/7/P6/1PP1PPP/GMELECZ b");
    // Leaving it (forward) saves it.
    let saved = play_all(pos, &["d4d5"]);
    assert!(saved.piece_at(sq("d5")).is_some());
}

#[test]
fn congo_moving_within_the_river_drowns_but_the_crocodile_never_does() {
    // A white superpawn in the river moving sideways stays in the river: it drowns; its capture
    // stands. The crocodile in the river slides along it and survives.
    let pos = congo("3l3/7/7/Sp3C1/7/7/3L3 w");
    let after = play_all(pos, &["a4b4"]);
    assert_eq!(after.fen(), "3l3/7/7/5C1/7/7/3L3 b");
    // The crocodile slides f4-c4 inside the river and stays; the superpawn, which did not leave,
    // drowns; Black's pawn in the river is never removed on White's move.
    let croc = play_all(pos, &["f4c4"]);
    assert_eq!(croc.fen(), "3l3/7/7/1pC4/7/7/3L3 b");
    // Black's pawn b4 did not leave the river on Black's move: it drowns then. The crocodile may
    // stay in the river move after move.
    let croc = play_all(croc, &["d7d6"]);
    assert_eq!(croc.fen(), "7/3l3/7/2C4/7/7/3L3 w");
    let croc = play_all(croc, &["d1d2"]);
    assert_eq!(croc.fen(), "7/3l3/7/2C4/7/3L3/7 b");
}

#[test]
fn congo_monkey_starting_in_the_river_drowns_if_its_chain_ends_there() {
    // Ruling: monkey b4 jumps c5 and e5, landing d6 then f4 (river): it drowns, captures stand.
    let pos = congo("3l3/7/2p1p2/1M4z/7/7/3L3 w");
    let after = play_all(pos, &["b4d6f4"]);
    assert_eq!(after.fen(), "3l3/7/7/6z/7/7/3L3 b", "monkey drowned, both pawns captured, black zebra kept");
    // Stopping on land after the first jump saves it.
    let after = play_all(pos, &["b4-d6x"]);
    assert_eq!(after.fen(), "3l3/3M3/4p2/6z/7/7/3L3 b");
}

#[test]
fn congo_jumping_the_lion_ends_the_chain_and_the_game() {
    // Monkey c4 jumps the lion on d5 to e6; from e6 it could jump f5 to g4, but the chain ends.
    let pos = congo("7/7/3l1p1/2M4/7/7/3L3 w");
    let after = play_all(pos, &["c4e6"]);
    assert_eq!(after.outcome(), Some(Outcome { winner: Color::White, reason: EndReason::LionCaptured }));
    expect_illegal(&pos, "c4e6g4");
    // The lion is removed and the monkey stands on e6; f5 was not jumped.
    assert_eq!(after.fen(), "7/4M2/5p1/7/7/7/3L3 b");
}

#[test]
fn congo_pawn_promotes_on_the_last_rank_and_superpawn_retreats() {
    let pos = congo("3l3/P6/7/7/7/7/3L3 w");
    let after = play_all(pos, &["a6a7"]);
    assert_eq!(after.fen(), "S2l3/7/7/7/7/7/3L3 b");
    // Promotion by capture too.
    let after = play_all(congo("1z1l3/P6/7/7/7/7/3L3 w"), &["a6b7"]);
    assert_eq!(after.fen(), "1S1l3/7/7/7/7/7/3L3 b");
    // A superpawn on b7: forward is off the board; sideways a7, c7; back b6, b5 straight, a6
    // (a5 would leave the board) and c6, d5 diagonally.
    let pos = congo("1S1l3/7/7/7/7/7/3L3 w");
    let moves: Vec<String> = move_texts(&pos).into_iter().filter(|m| m.starts_with("b7")).collect();
    assert_eq!(moves, sorted(&["b7a7", "b7c7", "b7b6", "b7b5", "b7a6", "b7c6", "b7d5"]));
    // Its retreat never captures and never jumps: a black piece on c6 blocks c6 and d5.
    let pos = congo("1S1l3/2z4/7/7/7/7/3L3 w");
    let moves: Vec<String> = move_texts(&pos).into_iter().filter(|m| m.starts_with("b7")).collect();
    assert_eq!(moves, sorted(&["b7a7", "b7c7", "b7b6", "b7b5", "b7a6"]));
}

#[test]
fn congo_pawn_retreats_only_across_the_river() {
    // White pawn a5 is across the river: forward a6, b6, back a4, a3. Pawn c4 is in the river:
    // no retreat.
    let pos = congo("3l3/7/P6/2P4/7/7/3L3 w");
    let a5: Vec<String> = move_texts(&pos).into_iter().filter(|m| m.starts_with("a5")).collect();
    assert_eq!(a5, sorted(&["a5a6", "a5b6", "a5a4", "a5a3"]));
    let c4: Vec<String> = move_texts(&pos).into_iter().filter(|m| m.starts_with("c4")).collect();
    assert_eq!(c4, sorted(&["c4b5", "c4c5", "c4d5"]));
    // The two-square retreat needs both squares empty; a retreat never captures.
    let pos = congo("3l3/7/P6/p6/7/7/3L3 w");
    let a5: Vec<String> = move_texts(&pos).into_iter().filter(|m| m.starts_with("a5")).collect();
    assert_eq!(a5, sorted(&["a5a6", "a5b6"]));
}

#[test]
fn congo_side_without_a_legal_move_loses() {
    // A full board of monkeys: no empty square to step or jump to; the lion's castle
    // neighbours are its own monkeys and the lions are not on a line.
    let full = "mmmlmmm/mmmmmmm/mmmmmmm/mmmmmmm/MMMMMMM/MMMMMMM/MMLMMMM";
    let pos = congo(&format!("{full} w"));
    assert!(pos.legal_moves().is_empty());
    assert_eq!(pos.count_moves(), 0);
    assert_eq!(pos.outcome(), Some(Outcome { winner: Color::Black, reason: EndReason::NoLegalMove }));
    assert!(!pos.is_decided());
    let pos = congo(&format!("{full} b"));
    assert_eq!(pos.outcome(), Some(Outcome { winner: Color::White, reason: EndReason::NoLegalMove }));
    assert_eq!(perft(&pos, 2), 0);
}

#[test]
fn congo_no_check_lion_may_stay_capturable() {
    // White lion d1 faces the black lion on an open file; White may play anything else.
    let pos = congo("3l3/7/7/7/7/P6/3L3 w");
    let moves = move_texts(&pos);
    assert!(moves.contains(&"a2a3".to_string()));
    let after = play_all(pos, &["a2a3"]);
    assert!(move_texts(&after).contains(&"d7d1".to_string()));
    assert_eq!(after.outcome(), None);
}

// ---------------------------------------------------------------------------------------------
// Congress rules examples
// ---------------------------------------------------------------------------------------------

fn congress(fen: &str) -> congress::Position {
    parse::<congress::Position>(fen)
}

#[test]
fn congress_side_without_kings_has_lost() {
    for turn in ['w', 'b'] {
        let pos = congress(&format!("hh4bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB {turn}"));
        assert!(pos.legal_moves().is_empty(), "finished game has no moves ({turn})");
        assert_eq!(pos.outcome(), Some(Outcome { winner: Color::White, reason: EndReason::KingsCaptured }));
        assert!(pos.is_decided());
        assert_eq!(perft(&pos, 3), 0);
    }
}

#[test]
fn congress_losing_one_king_is_not_the_end() {
    let pos = play_all(congress::Position::start(), &["g1h2", "e5e4", "h2d6"]);
    assert_eq!(pos.outcome(), None);
    assert!(!pos.is_decided());
    // Black's remaining king on e6 keeps moving toward h.
    let kings: Vec<String> = move_texts(&pos).into_iter().filter(|m| m.starts_with("e6")).collect();
    assert_eq!(kings, vec!["e6f6".to_string()]);
    // Taking the last king ends the game: junior bishop g3 slides g3-f4-e5-d6.
    let pos = congress("3k4/8/8/6B1/8/3K4 w");
    let end = play_all(pos, &["g3d6"]);
    assert_eq!(end.outcome(), Some(Outcome { winner: Color::White, reason: EndReason::KingsCaptured }));
    assert!(end.legal_moves().is_empty());
}

#[test]
fn congress_side_without_a_legal_move_loses() {
    // White's only piece is a king on a1 (left wing: moves only toward a, so not at all).
    let pos = congress("3k4/8/8/8/8/K7 w");
    assert!(pos.legal_moves().is_empty());
    assert_eq!(pos.outcome(), Some(Outcome { winner: Color::Black, reason: EndReason::NoLegalMove }));
    // A pawn on its last rank has no move either.
    let pos = congress("P2k4/8/8/8/8/K7 w");
    assert_eq!(pos.outcome(), Some(Outcome { winner: Color::Black, reason: EndReason::NoLegalMove }));
    // Black's king on h6 cannot move either.
    let pos = congress("7k/8/8/8/8/K7 b");
    assert_eq!(pos.outcome(), Some(Outcome { winner: Color::White, reason: EndReason::NoLegalMove }));
}

#[test]
fn congress_kings_move_away_from_each_other_and_capture() {
    let pos = congress("3kk3/8/8/8/8/1pK1Kp2 w");
    assert_eq!(move_texts(&pos), sorted(&["c1b1", "e1f1"]));
    let after = play_all(pos, &["c1b1"]);
    assert_eq!(after.fen(), "3kk3/8/8/8/8/1K2Kp2 b");
    // Black's kings: d6 toward a, e6 toward h.
    assert_eq!(move_texts(&after), sorted(&["d6c6", "e6f6"]));
}

#[test]
fn congress_politicians_change_with_wing_and_seniority() {
    // A junior bishop on f1: forward diagonals, capturing the first enemy met (g2).
    let pos = congress("3k4/8/8/8/6p1/3K1B2 w");
    let f1: Vec<String> = move_texts(&pos).into_iter().filter(|m| m.starts_with("f1")).collect();
    assert_eq!(f1, sorted(&["f1e2", "f1d3", "f1c4", "f1b5", "f1a6", "f1g2"]));
    // A junior bishop on f3 (White's home ranks) may not capture backward (e2).
    let pos = congress("3k4/8/8/5B2/4p3/3K4 w");
    let f3: Vec<String> = move_texts(&pos).into_iter().filter(|m| m.starts_with("f3")).collect();
    assert_eq!(f3, sorted(&["f3e4", "f3d5", "f3c6", "f3g4", "f3h5"]));
    // A senior bishop on f4 captures backward onto the first piece of the ray (h2), and only
    // captures that way.
    let pos = congress("3k4/8/5B2/8/7p/3K4 w");
    let f4: Vec<String> = move_texts(&pos).into_iter().filter(|m| m.starts_with("f4")).collect();
    assert_eq!(f4, sorted(&["f4e5", "f4d6", "f4g5", "f4h6", "f4h2"]));
    // A senior horse on c4 moves forward, and captures backward (b2, e3) but never moves
    // backward onto an empty square (d2, a3).
    let pos = congress("3k4/8/2H5/4p3/1p6/3K4 w");
    let c4: Vec<String> = move_texts(&pos).into_iter().filter(|m| m.starts_with("c4")).collect();
    assert_eq!(c4, sorted(&["c4b6", "c4d6", "c4a5", "c4e5", "c4b2", "c4e3"]));
    // The same horse on c3 is junior: no backward capture (b1, e2).
    let pos = congress("3k4/8/8/2H5/4p3/1p1K4 w");
    let c3: Vec<String> = move_texts(&pos).into_iter().filter(|m| m.starts_with("c3")).collect();
    assert_eq!(c3, sorted(&["c3b5", "c3d5", "c3a4", "c3e4"]));
}

// ---------------------------------------------------------------------------------------------
// Garbage input never panics
// ---------------------------------------------------------------------------------------------

const ALPHABET: &[char] = &[
    'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'k', 'l', 'm', 'p', 's', 'z', 'x', 'w', 'K', 'L', 'M', 'P', 'S', 'Z',
    'G', 'E', 'C', 'H', 'B', 'X', 'W', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '/', ' ', '-', '\t', '\n',
    '\0', 'é', '♞', '\u{7f}', '\\', '"',
];

fn random_text(rng: &mut Rng) -> String {
    let len = rng.below(24);
    (0..len).map(|_| ALPHABET[rng.below(ALPHABET.len())]).collect()
}

/// A valid position string with a few random edits: reaches the deeper checks of the parser.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(chars.len() + 1);
        match rng.below(3) {
            0 if at < chars.len() => {
                chars.remove(at);
            }
            1 if at < chars.len() => chars[at] = ALPHABET[rng.below(ALPHABET.len())],
            _ => chars.insert(at, ALPHABET[rng.below(ALPHABET.len())]),
        }
    }
    chars.into_iter().collect()
}

fn fuzz<P: Rules + PartialEq>(valid: &[&str], seed: u64) -> (usize, usize) {
    let mut rng = Rng::new(seed);
    let start = parse::<P>(valid[0]);
    let (mut accepted, mut legal) = (0, 0);
    for i in 0..1_000 {
        let text = if i % 2 == 0 { random_text(&mut rng) } else { mutate(valid[rng.below(valid.len())], &mut rng) };
        match P::from_fen(&text) {
            Ok(pos) => {
                accepted += 1;
                // An accepted string describes a valid position: its canonical string parses back.
                let canon = pos.fen();
                assert!(P::from_fen(&canon).is_ok_and(|p| p == pos), "{text:?} -> {canon:?}");
                assert_eq!(pos.hash(), pos.compute_hash());
            }
            Err(e) => {
                assert_eq!(e.input, text);
                assert!(!e.to_string().is_empty());
            }
        }
        let move_text = if i % 3 == 0 { random_text(&mut rng) } else { mutate("b1d3f5d7", &mut rng) };
        match start.parse_move(&move_text) {
            Ok(m) => {
                legal += 1;
                assert!(start.legal_moves().contains(&m), "{move_text:?} parsed to a move not in the list");
            }
            Err(MoveError::Invalid { input, .. }) | Err(MoveError::Illegal { input, .. }) => {
                assert_eq!(input, move_text)
            }
        }
    }
    (accepted, legal)
}

#[test]
fn congo_garbage_never_panics() {
    let (accepted, _) = fuzz::<congo::Position>(&CONGO_STARTS, 1);
    // Some mutations (a changed side to move, a moved pawn) are still valid.
    assert!(accepted > 0);
}

#[test]
fn congress_garbage_never_panics() {
    let (accepted, _) = fuzz::<congress::Position>(&CONGRESS_STARTS, 2);
    assert!(accepted > 0);
}
