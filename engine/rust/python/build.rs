//! Stamps the engine version Python sees with a hash of everything that decides the games a
//! worker plays from a payload: the core's sources, this binding's, and the Python code on the way
//! from a payload to `play_game` (parsing, pair limits, the batch loop), the referee of engine
//! programs (its Python and its Rust crate) and `arbiter-engine` (the built-in engine as a program, when it meets one). Two builds
//! that could play differently never share a version: workers take only the batches of their own
//! version, and a coordinator whose version no worker shares sends nothing instead of blaming the
//! fleet.

use std::fs;
use std::path::{Path, PathBuf};

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

fn visit(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            visit(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "py") {
            files.push(path);
        }
    }
}

fn main() {
    let root = Path::new("../../..");
    let mut files = Vec::new();
    visit(Path::new("../core/src"), &mut files);
    visit(Path::new("src"), &mut files);
    visit(Path::new("../uci/src"), &mut files);
    visit(Path::new("../referee/src"), &mut files);
    for folder in PYTHON_FOLDERS {
        visit(&root.join(folder), &mut files);
    }
    files.sort();
    files.extend(PYTHON.iter().map(|p| root.join(p)));
    // FNV-1a over every file's path and contents.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let name = file.to_string_lossy().replace('\\', "/");
        for byte in name.bytes().chain(fs::read(file).unwrap_or_default()) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo:rerun-if-changed=../core/src");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=../uci/src");
    println!("cargo:rerun-if-changed=../referee/src");
    println!("cargo:rustc-env=ARBITER_BUILD_HASH={:08x}", hash >> 32);
}
