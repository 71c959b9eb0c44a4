//! Perft against every number of the rules pages (mirrored positions too). Entries above the node
//! cap are left to `benchmarks/perft.py`; set ARBITER_PERFT_MAX_NODES to raise the cap.

use arbiter_core::perft::{divide, perft};
use arbiter_core::{congo, congress, Rules};

fn cap() -> u64 {
    std::env::var("ARBITER_PERFT_MAX_NODES").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000_000)
}

fn entries(text: &str) -> Vec<(String, Vec<u64>)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (fen, counts) = l.split_once('|').expect("line has a '|'");
            let counts = counts.split_whitespace().map(|n| n.parse().expect("count")).collect();
            (fen.trim().to_string(), counts)
        })
        .collect()
}

/// Reverses the ranks, swaps case and the side to move.
fn mirror(fen: &str) -> String {
    let (board, turn) = fen.split_once(' ').unwrap();
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

fn check<P: Rules>(data: &str) -> usize {
    let mut checked = 0;
    for (fen, counts) in entries(data) {
        for text in [fen.clone(), mirror(&fen)] {
            let pos = P::from_fen(&text).unwrap_or_else(|e| panic!("{e}"));
            for (i, &expected) in counts.iter().enumerate() {
                if expected > cap() {
                    continue;
                }
                assert_eq!(perft(&pos, i as u32 + 1), expected, "perft({}) of {text}", i + 1);
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn congo_reference_numbers() {
    assert!(check::<congo::Position>(include_str!("data/congo.perft")) >= 40);
}

#[test]
fn congress_reference_numbers() {
    assert!(check::<congress::Position>(include_str!("data/congress.perft")) >= 10);
}

#[test]
fn divide_sums_to_perft() {
    let pos = congo::Position::start();
    let split = divide(&pos, 3);
    assert_eq!(split.len(), 24);
    assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), 14_332);
}

#[test]
fn congress_first_moves_are_the_documented_twelve() {
    let pos = congress::Position::start();
    let mut moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    moves.sort();
    let mut expected =
        vec!["b2b3", "c2c3", "d2d3", "e2e3", "f2f3", "g2g3", "a1b3", "b1a3", "b1c3", "g1h2", "d1c1", "e1f1"];
    expected.sort();
    assert_eq!(moves, expected);
}

#[test]
fn congress_trap_takes_a_king_on_the_third_ply() {
    let mut pos = congress::Position::start();
    for text in ["g1h2", "e5e4", "h2d6"] {
        let m = pos.parse_move(text).unwrap();
        pos = pos.play(&m);
    }
    assert_eq!(pos.fen(), "hh1Hk1bb/1ppp1pp1/4p3/8/1PPPPPP1/HH1KK2B b");
}
