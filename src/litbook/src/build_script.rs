//! The build script of a literate crate: every root chunk of the crate's book becomes a Rust file
//! in `OUT_DIR`, with a `.map` beside it that leads each line back to the Markdown, and the crate's
//! shells include them. The book's scripts (its JavaScript roots) are written there too, for code
//! that must know them (a web page's WebAssembly checks that it was built with its page's script). Problems are reported at their Markdown places and stop the build; cargo
//! runs the script again when a chapter, `SUMMARY.md`, a shell or the configuration changes.

use std::collections::HashSet;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};

use crate::{TangledFile, tangle_crate_trusting, write_if_changed};

/// What a literate crate's build script does: `fn main() { litbook::build_script::run() }`.
pub fn run() {
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let checker = checker_stamp();
    let trusted = fs::read_to_string(out_dir.join(CHECKED_BY)).is_ok_and(|by| by == checker);
    let checked_before = |file: &TangledFile| {
        trusted && fs::read_to_string(out_dir.join(&file.name)).is_ok_and(|text| text == file.text)
    };
    let outcome = tangle_crate_trusting(&manifest_dir, &checked_before);
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
    let mut all_written = true;
    for file in outcome.files.iter().chain(&outcome.scripts) {
        let map_name = format!("{}.map", file.name);
        all_written &= write(&out_dir, &file.name, &file.text);
        all_written &= write(&out_dir, &map_name, &file.map.to_text());
        written.extend([PathBuf::from(&file.name), PathBuf::from(map_name)]);
    }
    remove_stale(&out_dir, &written);
    if all_written {
        write(&out_dir, CHECKED_BY, &checker);
    }
}

/// The file in `OUT_DIR` that names the build script whose syntax check every tangled file there
/// passed. Files are written only when the whole book passed, so the next run of the same script
/// need not parse again a file whose text it finds there unchanged: after a prose edit, none.
const CHECKED_BY: &str = "syntax-checked-by";

/// This build script, as built: its path, size and time. A new tangler makes a new script, which
/// checks every file again.
fn checker_stamp() -> String {
    let exe = env::current_exe().expect("the build script knows where it is");
    let meta = fs::metadata(&exe).expect("the build script can look at itself");
    format!(
        "{} {} {:?}",
        exe.display(),
        meta.len(),
        meta.modified().ok()
    )
}

/// Writes a file unless it already holds `text`; whether it holds it now.
fn write(out_dir: &Path, name: &str, text: &str) -> bool {
    let path = out_dir.join(name);
    match write_if_changed(&path, text) {
        Ok(_) => true,
        Err(e) => {
            println!("cargo::error=cannot write {}: {e}", path.display());
            false
        }
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
        let tangled = name
            .extension()
            .is_some_and(|e| e == "rs" || e == "js" || e == "map");
        if tangled && !written.contains(&name) {
            let _ = fs::remove_file(entry.path());
        }
    }
}
