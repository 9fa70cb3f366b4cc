//! The shells: the few Rust files of a crate that pull the tangled roots in with
//! `include!(concat!(env!("OUT_DIR"), "/NAME.rs"))`. A root that no shell includes would be tangled
//! and never compiled, its mistakes unseen; a shell that includes a file no root makes fails with
//! a message about `OUT_DIR`. Both are reported at places a reader can fix.

use std::collections::HashMap;
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

/// What each tangled file becomes in the crate in `crate_dir`, in words for the woven book's captions:
/// a module of the library (`src/lib.rs` includes it in `mod NAME`), a program or a benchmark (a
/// `[[bin]]` or `[[bench]]` of `Cargo.toml` whose shell includes it), or an integration test.
pub fn root_roles(crate_dir: &Path) -> HashMap<String, String> {
    let manifest = fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap_or_default();
    let targets = manifest_targets(&manifest);
    let mut roles = HashMap::new();
    for path in shell_paths(crate_dir) {
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let relative = path.strip_prefix(crate_dir).unwrap_or(&path);
        let relative = relative.to_string_lossy().replace('\\', "/");
        let shell = SourceText::new(relative.clone(), text);
        for (file, place) in includes(&shell) {
            let role = match relative.as_str() {
                "src/lib.rs" => library_module(&shell, place.line)
                    .map(|module| format!("the library's module <code>{module}</code>")),
                _ => targets
                    .iter()
                    .find(|(_, _, target_path)| *target_path == relative)
                    .map(|(kind, name, _)| format!("the {kind} <code>{name}</code>")),
            };
            let role = role.or_else(|| {
                let test = relative.strip_prefix("tests/")?.strip_suffix(".rs")?;
                Some(format!("the integration test <code>{test}</code>"))
            });
            if let Some(role) = role {
                roles.insert(file, role);
            }
        }
    }
    roles
}

/// The name of the module whose `mod NAME {` line stands just above a library shell's 1-based line.
fn library_module(shell: &SourceText, line: usize) -> Option<String> {
    let above = shell.line(line.checked_sub(1)?)?;
    let name = above
        .trim()
        .trim_start_matches("pub ")
        .strip_prefix("mod ")?;
    Some(name.trim_end_matches('{').trim().to_string())
}

/// The programs and benchmarks a manifest declares: (kind in words, name, path).
fn manifest_targets(manifest: &str) -> Vec<(&'static str, String, String)> {
    let mut targets = Vec::new();
    let mut current: Option<(&'static str, Option<String>, Option<String>)> = None;
    let quoted = |line: &str, key: &str| -> Option<String> {
        let value = line.strip_prefix(key)?.trim_start().strip_prefix('=')?;
        Some(value.trim().trim_matches('"').to_string())
    };
    for line in manifest.lines().map(str::trim).chain(["[end]"]) {
        if line.starts_with('[') {
            if let Some((kind, Some(name), Some(path))) = current.take() {
                targets.push((kind, name, path));
            }
            current = match line {
                "[[bin]]" => Some(("program", None, None)),
                "[[bench]]" => Some(("benchmark", None, None)),
                _ => None,
            };
        } else if let Some((_, name, path)) = &mut current {
            *name = name.take().or_else(|| quoted(line, "name"));
            *path = path.take().or_else(|| quoted(line, "path"));
        }
    }
    targets
}
