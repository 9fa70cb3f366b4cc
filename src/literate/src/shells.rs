//! The shells: the few Rust files of a crate that pull the tangled roots in with
//! `include!(concat!(env!("OUT_DIR"), "/NAME.rs"))`. A root that no shell includes would be tangled
//! and never compiled, its mistakes unseen; a shell that includes a file no root makes fails with
//! a message about `OUT_DIR`. Both are reported at places a reader can fix.

use std::collections::HashMap;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::{Item, ItemMod, Visibility};

use crate::syntax::nests_too_deep;
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

/// An `include!(concat!(env!("OUT_DIR"), "/NAME.rs"))` of a shell, as syn reads the shell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Include {
    /// The tangled file's name (`world.rs`).
    pub file: String,
    /// Where the name is written.
    pub place: Place,
    /// The inline modules the include stands in, outermost first (`solve`, `board`).
    pub modules: Vec<String>,
    /// When the include is all a module holds: the bytes of that module's item from its visibility
    /// to its closing brace, and the bytes before its opening brace (`pub mod world`).
    pub module_item: Option<(Range<usize>, Range<usize>)>,
}

/// The tangled files a shell includes, in the order they are written, at any depth of inline
/// modules. A shell that syn cannot parse (or that nests deeper than syn may go) includes nothing
/// that can be read; the compiler reports it.
pub(crate) fn includes(shell: &SourceText) -> Vec<Include> {
    if nests_too_deep(&shell.text) {
        return Vec::new();
    }
    let Ok(file) = syn::parse_file(&shell.text) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut pending: Vec<(&[Item], Vec<String>)> = vec![(&file.items, Vec::new())];
    while let Some((items, modules)) = pending.pop() {
        for item in items {
            match item {
                Item::Macro(item) => found.extend(include_of(&item.mac, shell, &modules)),
                Item::Mod(module) => {
                    let Some((_, inner)) = &module.content else {
                        continue;
                    };
                    let mut path = modules.clone();
                    path.push(module.ident.to_string());
                    match inner.as_slice() {
                        [Item::Macro(only)] => {
                            found.extend(include_of(&only.mac, shell, &path).map(|include| {
                                Include {
                                    module_item: Some(module_bytes(module)),
                                    ..include
                                }
                            }))
                        }
                        _ => pending.push((inner, path)),
                    }
                }
                _ => {}
            }
        }
    }
    found.sort_by_key(|include| (include.place.line, include.place.col));
    found
}

/// The include a macro is, if it is `include!` of a file in `OUT_DIR`: the string literal in it that
/// starts with `/` names the file.
fn include_of(mac: &syn::Macro, shell: &SourceText, modules: &[String]) -> Option<Include> {
    if !mac.path.is_ident("include") || !mac.tokens.to_string().contains("OUT_DIR") {
        return None;
    }
    let mut streams: Vec<TokenStream> = vec![mac.tokens.clone()];
    while let Some(stream) = streams.pop() {
        for token in stream {
            match token {
                TokenTree::Group(group) => streams.push(group.stream()),
                TokenTree::Literal(literal) => {
                    let span = literal.span();
                    let parsed = syn::parse2::<syn::LitStr>(TokenTree::Literal(literal).into());
                    let Some(name) = parsed
                        .ok()
                        .and_then(|l| l.value().strip_prefix('/').map(String::from))
                    else {
                        continue;
                    };
                    return Some(Include {
                        file: name,
                        place: shell.place(span.byte_range().start + 2),
                        modules: modules.to_vec(),
                        module_item: None,
                    });
                }
                _ => {}
            }
        }
    }
    None
}

/// The bytes of an inline module's item from its visibility (doc comments and attributes stay
/// outside) to its closing brace, and the bytes of it before the opening brace.
fn module_bytes(module: &ItemMod) -> (Range<usize>, Range<usize>) {
    let start = match &module.vis {
        Visibility::Public(token) => token.span.byte_range().start,
        Visibility::Restricted(restricted) => restricted.pub_token.span.byte_range().start,
        Visibility::Inherited => module.mod_token.span.byte_range().start,
    };
    let (brace, _) = module.content.as_ref().expect("an inline module");
    let open = brace.span.open().byte_range().start;
    let end = brace.span.close().byte_range().end;
    (start..end, start..open)
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
        for include in includes(&shell) {
            let role = match relative.as_str() {
                "src/lib.rs" => (!include.modules.is_empty()).then(|| {
                    let module = include.modules.join("::");
                    format!("the library's module <code>{module}</code>")
                }),
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
                roles.insert(include.file, role);
            }
        }
    }
    roles
}

/// The features each tangled file needs, by file name: those its shell's target requires
/// (`required-features` of a `[[bin]]`, `[[test]]`, `[[bench]]` or `[[example]]` of the manifest).
/// Files of the library and of targets that require nothing are not listed.
pub fn gated_files(crate_dir: &Path) -> HashMap<String, Vec<String>> {
    let manifest = fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap_or_default();
    let mut gated = HashMap::new();
    for (path, features) in required_features(&manifest) {
        let Ok(text) = fs::read_to_string(crate_dir.join(&path)) else {
            continue;
        };
        for include in includes(&SourceText::new(path.clone(), text)) {
            gated.insert(include.file, features.clone());
        }
    }
    gated
}

/// The targets of a manifest that require features: (the target's path, the features).
fn required_features(manifest: &str) -> Vec<(String, Vec<String>)> {
    let Ok(document) = manifest.parse::<toml_edit::DocumentMut>() else {
        return Vec::new();
    };
    let package = document["package"]["name"].as_str().unwrap_or_default();
    let mut found = Vec::new();
    for (key, directory) in [
        ("bin", "src/bin"),
        ("test", "tests"),
        ("bench", "benches"),
        ("example", "examples"),
    ] {
        for table in target_tables(&document, key) {
            let Some(features) = table.get("required-features").and_then(|f| f.as_array()) else {
                continue;
            };
            let name = table
                .get("name")
                .and_then(|n| n.as_str())
                .unwrap_or_default();
            let path = match table.get("path").and_then(|p| p.as_str()) {
                Some(path) => path.to_string(),
                None if key == "bin" && name == package => "src/main.rs".to_string(),
                None => format!("{directory}/{name}.rs"),
            };
            let features = features
                .iter()
                .filter_map(|f| f.as_str().map(str::to_string));
            found.push((path, features.collect()));
        }
    }
    found
}

/// The tables of a manifest's targets of one kind (`[[bin]]`, `[[test]]`, …); none when it has none.
fn target_tables<'d>(
    document: &'d toml_edit::DocumentMut,
    key: &str,
) -> impl Iterator<Item = &'d toml_edit::Table> {
    let tables = document
        .get(key)
        .and_then(toml_edit::Item::as_array_of_tables);
    tables.into_iter().flatten()
}

/// The programs and benchmarks a manifest declares: (kind in words, name, path). A manifest that
/// does not parse declares none (cargo reports it).
fn manifest_targets(manifest: &str) -> Vec<(&'static str, String, String)> {
    let Ok(document) = manifest.parse::<toml_edit::DocumentMut>() else {
        return Vec::new();
    };
    let mut targets = Vec::new();
    for (key, kind) in [("bin", "program"), ("bench", "benchmark")] {
        for table in target_tables(&document, key) {
            let text = |key: &str| table.get(key)?.as_str().map(str::to_string);
            if let (Some(name), Some(path)) = (text("name"), text("path")) {
                targets.push((kind, name, path));
            }
        }
    }
    targets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_are_found_in_modules_at_any_depth_with_their_items() {
        let text = "//! A shell.\n\n/// The world.\npub mod world {\n    include!(concat!(env!(\"OUT_DIR\"), \"/world.rs\"));\n}\n\npub mod solve {\n    pub(crate) mod board {\n        include!(concat!(env!(\"OUT_DIR\"), \"/solve_board.rs\"));\n    }\n    // include!(concat!(env!(\"OUT_DIR\"), \"/commented.rs\"));\n}\n";
        let shell = SourceText::new("src/lib.rs", text);
        let found = includes(&shell);
        let files: Vec<&str> = found.iter().map(|i| i.file.as_str()).collect();
        assert_eq!(
            files,
            ["world.rs", "solve_board.rs"],
            "a comment is no include"
        );
        assert_eq!(found[0].place, Place::new("src/lib.rs", 5, 41));
        assert_eq!(found[1].modules, ["solve", "board"]);
        let (item, head) = found[1].module_item.clone().unwrap();
        assert!(text[item].starts_with("pub(crate) mod board {"));
        assert_eq!(&text[head], "pub(crate) mod board ");
        let (item, _) = found[0].module_item.clone().unwrap();
        assert_eq!(&text[item.clone()][..14], "pub mod world ");
        assert!(text[item].ends_with("}"));
    }

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

    #[test]
    fn the_features_targets_require_are_read_from_the_manifest() {
        let manifest = "[package]\nname = 'game'\n\n[[bin]]\nname = 'game'\nrequired-features = ['window']\n\n[[test]]\nname = 'play'\nrequired-features = ['window', 'sound']\n\n[[bench]]\nname = 'speed'\n";
        assert_eq!(
            required_features(manifest),
            [
                ("src/main.rs".to_string(), vec!["window".to_string()]),
                (
                    "tests/play.rs".to_string(),
                    vec!["window".to_string(), "sound".to_string()]
                ),
            ]
        );
    }

    #[test]
    fn targets_are_read_from_the_manifest_as_toml() {
        let manifest = "[package]\nname = 'x' # a comment\n\n[[bin]]\n# the game\nname = 'chat-noir'\npath = \"src/main.rs\"\n\n[[bench]]\nname = \"speed\"\npath = 'src/speed.rs'\nharness = false\n";
        assert_eq!(
            manifest_targets(manifest),
            [
                (
                    "program",
                    "chat-noir".to_string(),
                    "src/main.rs".to_string()
                ),
                ("benchmark", "speed".to_string(), "src/speed.rs".to_string()),
            ]
        );
    }
}
