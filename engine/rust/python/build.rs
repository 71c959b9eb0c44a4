//! Stamps the engine version Python sees with a hash of everything that decides the games a
//! worker plays from a payload: the core's sources, this binding's, and the Python code on the way
//! from a payload to `play_game` (parsing, pair limits, the batch loop), the referee of engine
//! programs (its Python and its Rust crate) and `arbiter-engine` (the built-in engine as a program, when it meets one). Two builds
//! that could play differently never share a version: workers take only the batches of their own
//! version, and a coordinator whose version no worker shares sends nothing instead of blaming the
//! fleet.

use std::path::Path;

include!("../core/build_hash.rs");

/// The Python files on the path from a payload to `play_game`, from the workspace root.
const PYTHON: &[&str] = &[
    "engine/__init__.py",
    "engine/weights.py",
    "wire/fields.py",
    "wire/programs.py",
    "wire/protocol.py",
    "wire/speed.py",
    "worker/games.py",
    "worker/program_batch.py",
    "worker/programs.py",
    "worker/speed.py",
];
/// Folders of Python files on that path (every file in them).
const PYTHON_FOLDERS: &[&str] = &["worker/referee"];

fn main() {
    let root = Path::new("../../..");
    let mut files = Vec::new();
    for dir in ["../core/src", "src", "../uci/src", "../referee/src"] {
        visit(Path::new(dir), &["rs", "py"], &mut files);
        println!("cargo:rerun-if-changed={dir}");
    }
    for folder in PYTHON_FOLDERS {
        visit(&root.join(folder), &["rs", "py"], &mut files);
    }
    files.sort();
    files.extend(PYTHON.iter().map(|p| root.join(p)));
    println!("cargo:rustc-env=ARBITER_BUILD_HASH={}", source_hash(&files));
}
