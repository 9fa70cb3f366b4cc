//! The shells: the few Rust files of a crate that pull the tangled roots in with
//! `include!(concat!(env!("OUT_DIR"), "/NAME.rs"))`. A root that no shell includes would be tangled
//! and never compiled, its mistakes unseen; a shell that includes a file no root makes fails with
//! a message about `OUT_DIR`. Both are reported at places a reader can fix.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{Diagnostic, Place, SourceText, TangledFile};

/// What a shell writes just before the name of a tangled file it includes.
const INCLUDE: &str = "env!(\"OUT_DIR\"), \"/";

/// The shells of the crate in `crate_dir`: the Rust files directly in `src/` and in `tests/`, in
/// name order.
pub fn shell_paths(crate_dir: &Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for directory in ["src", "tests"] {
        let Ok(entries) = fs::read_dir(crate_dir.join(directory)) else {
            continue;
        };
        paths.extend(
            entries
                .flatten()
                .map(|entry| entry.path())
                .filter(|path| path.is_file() && path.extension().is_some_and(|e| e == "rs")),
        );
    }
    paths.sort();
    paths
}

/// Checks that the shells of `crate_dir` include every tangled file and nothing else.
pub fn check_shells(crate_dir: &Path, files: &[TangledFile]) -> Vec<Diagnostic> {
    let shells: Vec<SourceText> = shell_paths(crate_dir)
        .iter()
        .filter_map(|path| {
            let text = fs::read_to_string(path).ok()?;
            let display = path.strip_prefix(crate_dir).unwrap_or(path);
            Some(SourceText::new(display.to_string_lossy(), text))
        })
        .collect();
    let included: Vec<(String, Place)> = shells.iter().flat_map(includes).collect();
    let mut problems = Vec::new();
    for file in files {
        if !included.iter().any(|(name, _)| *name == file.name) {
            let place = file
                .map
                .place(1, 1)
                .unwrap_or_else(|| Place::new(&file.name, 1, 1));
            let module = file.name.trim_end_matches(".rs").replace('/', "_");
            problems.push(Diagnostic::new(
                place,
                format!(
                    "this root becomes `{}`, but no file in src/ or tests/ includes it, so it would never be compiled; add to src/lib.rs: `pub mod {module} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{}\")); }}`",
                    file.name, file.name
                ),
            ));
        }
    }
    for (name, place) in included {
        if !files.iter().any(|file| file.name == name) {
            problems.push(Diagnostic::new(
                place,
                format!(
                    "this includes `{name}`, but no root of the book makes it; write one with `// <<file:{name}>>=`, or remove the include"
                ),
            ));
        }
    }
    problems
}

/// The tangled files a shell includes, each with the place of its name.
pub(crate) fn includes(shell: &SourceText) -> Vec<(String, Place)> {
    shell
        .text
        .match_indices(INCLUDE)
        .filter_map(|(at, _)| {
            let start = at + INCLUDE.len();
            let name = &shell.text[start..];
            let name = &name[..name.find('"')?];
            Some((name.to_string(), shell.place(start)))
        })
        .collect()
}
