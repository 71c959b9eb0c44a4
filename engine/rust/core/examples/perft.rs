//! `cargo run --release --example perft -- GAME DEPTH [FEN]`: timed perft without Python.

use std::time::Instant;

use arbiter_core::perft::perft;
use arbiter_core::{congo, congress, Rules};

fn run<P: Rules>(depth: u32, fen: Option<&str>) {
    let pos = fen.map_or_else(P::start, |f| P::from_fen(f).expect("valid position"));
    let t = Instant::now();
    let nodes = perft(&pos, depth);
    let secs = t.elapsed().as_secs_f64();
    println!("nodes {nodes} seconds {secs:.3} nodes/s {:.0}", nodes as f64 / secs);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let depth = args[2].parse().expect("depth");
    match args[1].as_str() {
        "congo" => run::<congo::Position>(depth, args.get(3).map(String::as_str)),
        _ => run::<congress::Position>(depth, args.get(3).map(String::as_str)),
    }
}
