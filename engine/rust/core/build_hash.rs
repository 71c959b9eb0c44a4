// The source hash both build scripts stamp a version with (`include!`d by each: build scripts
// share no crate).

/// Every file below `dir` whose extension is one of `extensions`, appended to `files`.
fn visit(dir: &std::path::Path, extensions: &[&str], files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            visit(&path, extensions, files);
        } else if path.extension().is_some_and(|e| extensions.iter().any(|x| e == *x)) {
            files.push(path);
        }
    }
}

/// FNV-1a over every file's path and contents, in the order given, each file watched by cargo;
/// the top 32 bits as 8 hex digits.
fn source_hash(files: &[std::path::PathBuf]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for file in files {
        println!("cargo:rerun-if-changed={}", file.display());
        let name = file.to_string_lossy().replace('\\', "/");
        for byte in name.bytes().chain(std::fs::read(file).unwrap_or_default()) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{:08x}", hash >> 32)
}
