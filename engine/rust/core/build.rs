//! Stamps the engine version with a hash of the crate's sources, so that two builds that could
//! play differently never share a version (workers must match the coordinator exactly).

include!("build_hash.rs");

fn main() {
    let mut files = Vec::new();
    visit(std::path::Path::new("src"), &["rs"], &mut files);
    files.sort();
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rustc-env=ARBITER_SOURCE_HASH={}", source_hash(&files));
}
