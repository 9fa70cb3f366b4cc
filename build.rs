//! Tangles the book: every root chunk of `book/src` becomes a Rust file in `OUT_DIR`, which the shells
//! in `src/` and `tests/` include. Problems are reported at their Markdown places and stop the build.

use std::collections::HashSet;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let outcome = literate::tangle_crate(&manifest_dir);
    for input in &outcome.inputs {
        println!("cargo::rerun-if-changed={}", input.display());
    }
    if !outcome.problems.is_empty() {
        for problem in &outcome.problems {
            for line in problem.to_string().lines() {
                println!("cargo::error={line}");
            }
        }
        return;
    }
    let mut written = HashSet::new();
    for file in &outcome.files {
        let map_name = format!("{}.map", file.name);
        write(&out_dir, &file.name, &file.text);
        write(&out_dir, &map_name, &file.map.to_text());
        written.extend([PathBuf::from(&file.name), PathBuf::from(map_name)]);
    }
    remove_stale(&out_dir, &written);
}

fn write(out_dir: &Path, name: &str, text: &str) {
    let path = out_dir.join(name);
    if let Err(e) = literate::write_if_changed(&path, text) {
        println!("cargo::error=cannot write {}: {e}", path.display());
    }
}

/// Removes tangled files that no root makes any more, so that a renamed root cannot leave an old
/// module behind to be included.
fn remove_stale(out_dir: &Path, written: &HashSet<PathBuf>) {
    let Ok(entries) = fs::read_dir(out_dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = PathBuf::from(entry.file_name());
        let tangled = name.extension().is_some_and(|e| e == "rs" || e == "map");
        if tangled && !written.contains(&name) {
            let _ = fs::remove_file(entry.path());
        }
    }
}
