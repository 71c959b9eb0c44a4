//! Stamps the engine version with a hash of the crate's sources, so that two builds that could
//! play differently never share a version (workers must match the coordinator exactly).

use std::fs;
use std::path::Path;

fn visit(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            visit(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

fn main() {
    let mut files = Vec::new();
    visit(Path::new("src"), &mut files);
    files.sort();
    // FNV-1a over every source file's path and contents.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let name = file.to_string_lossy().replace('\\', "/");
        for byte in name.bytes().chain(fs::read(file).unwrap_or_default()) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rustc-env=ARBITER_SOURCE_HASH={:08x}", hash >> 32);
}
