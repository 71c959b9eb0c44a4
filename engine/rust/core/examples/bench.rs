//! `cargo run --release --example bench -- [DEPTH]`: bench both games without Python.

use arbiter_core::bench::bench;
use arbiter_core::GameKind;

fn main() {
    let depth = std::env::args().nth(1).and_then(|d| d.parse().ok());
    for game in GameKind::ALL {
        let r = bench(game, depth);
        let secs = r.elapsed.as_secs_f64();
        println!("{game}: nodes {} seconds {secs:.3} nodes/s {:.0}", r.nodes, r.nodes as f64 / secs);
    }
}
