//! The shells: the few Rust files of a crate that pull the tangled roots in with
//! `include!(concat!(env!("OUT_DIR"), "/NAME.rs"))`. A root that no shell includes would be tangled
//! and never compiled, its mistakes unseen; a shell that includes a file no root makes fails with
//! a message about `OUT_DIR`. Both are reported at places a reader can fix.
//!
//! This module finds the shells and checks them; [`includes`] reads what a shell includes, for this
//! check and for the tools that need to know which target compiles which tangled file.

mod includes;

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

pub use includes::{Include, includes};

use crate::{Diagnostic, Files, Place, SourceText, TangledFile};

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

/// The includes of each shell as last read, for a reader that reads the same crate again and again
/// (the language server, on every keystroke): a shell whose text is the same is not parsed again.
#[derive(Default)]
pub struct ShellCache(HashMap<String, (String, Vec<Include>)>);

impl ShellCache {
    /// The includes of `shell`, kept from the last reading while its text is the same.
    fn includes(&mut self, shell: SourceText) -> Vec<Include> {
        if let Some((text, found)) = self.0.get(&shell.display)
            && *text == shell.text
        {
            return found.clone();
        }
        let found = includes(&shell);
        self.0.insert(shell.display, (shell.text, found.clone()));
        found
    }
}

/// Checks that the shells of `crate_dir`, read through `reader`, include every tangled file and
/// nothing else.
pub fn check_shells(
    crate_dir: &Path,
    files: &[TangledFile],
    reader: &mut dyn Files,
) -> Vec<Diagnostic> {
    check_shells_kept(crate_dir, files, reader, &mut ShellCache::default())
}

/// [`check_shells`], with the includes of shells that did not change kept in `cache`.
pub fn check_shells_kept(
    crate_dir: &Path,
    files: &[TangledFile],
    reader: &mut dyn Files,
    cache: &mut ShellCache,
) -> Vec<Diagnostic> {
    let mut included: Vec<(String, Place)> = Vec::new();
    for path in shell_paths(crate_dir) {
        let Some(text) = reader
            .read(&path)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
        else {
            continue;
        };
        let display = path.strip_prefix(crate_dir).unwrap_or(&path);
        let shell = SourceText::new(display.to_string_lossy(), text);
        let found = cache.includes(shell);
        included.extend(
            found
                .into_iter()
                .map(|include| (include.file, include.place)),
        );
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_shell_is_read_again_when_its_text_changes() {
        let mut cache = ShellCache::default();
        let shell = |name: &str| {
            let text = format!("include!(concat!(env!(\"OUT_DIR\"), \"/{name}\"));\n");
            SourceText::new("src/lib.rs", text)
        };
        let files =
            |found: Vec<Include>| -> Vec<String> { found.into_iter().map(|i| i.file).collect() };
        assert_eq!(files(cache.includes(shell("a.rs"))), ["a.rs"]);
        assert_eq!(files(cache.includes(shell("a.rs"))), ["a.rs"]);
        assert_eq!(files(cache.includes(shell("b.rs"))), ["b.rs"]);
    }
}
