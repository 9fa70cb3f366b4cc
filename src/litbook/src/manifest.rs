//! The crate's configuration files as every tool reads them, through one model: `Cargo.toml` and
//! `book.toml`, parsed with the places of their values, so that a setting of the wrong kind is
//! reported where it is written. Cargo's rules for where a declared target's file is when the
//! manifest does not say (the common ones: `src/main.rs`, `src/bin/NAME.rs`, `tests/NAME.rs`,
//! `benches/NAME.rs`, `examples/NAME.rs`) are kept here. (`cargo metadata` would answer the same questions, but
//! it is a process of its own that resolves every dependency, on every build of every literate
//! crate; the tangler only needs the manifest's own words.)

use std::fs;
use std::path::Path;

use toml_edit::{Document, Item};
#[cfg(feature = "tools")]
use toml_edit::{DocumentMut, TableLike};

use crate::{Diagnostic, Place, SourceText};

/// A TOML file of the crate, read with the spans of its values.
pub struct TomlFile {
    source: SourceText,
    document: Document<String>,
}

impl TomlFile {
    /// The file `name` of the crate in `crate_dir` (relative, with `/`), or `None` if there is none.
    /// A file that cannot be read, is not UTF-8 or is not TOML is reported at its place.
    pub fn read(crate_dir: &Path, name: &str) -> Result<Option<TomlFile>, Diagnostic> {
        let text = match fs::read(crate_dir.join(name)) {
            Ok(bytes) => String::from_utf8(bytes).map_err(|e| {
                Diagnostic::new(Place::new(name, 1, 1), format!("{name} is not UTF-8: {e}"))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(Diagnostic::new(
                    Place::new(name, 1, 1),
                    format!("cannot read {name}: {e}"),
                ));
            }
        };
        TomlFile::parse(SourceText::new(name, text)).map(Some)
    }

    /// The TOML text of `source`, or where it stops being TOML.
    pub fn parse(source: SourceText) -> Result<TomlFile, Diagnostic> {
        match Document::parse(source.text.clone()) {
            Ok(document) => Ok(TomlFile { source, document }),
            Err(e) => {
                let at = e.span().map_or(0, |span| span.start);
                let message = e.message().trim_end();
                Err(Diagnostic::new(
                    source.place(at),
                    format!("{} is not valid TOML: {message}", source.display),
                ))
            }
        }
    }

    /// The string at a path of keys, `None` if any key is missing; an error, at the value, if it is
    /// there but not a string.
    pub fn string(&self, keys: &[&str]) -> Result<Option<String>, Diagnostic> {
        let Some(item) = self.item(keys) else {
            return Ok(None);
        };
        match item.as_str() {
            Some(text) => Ok(Some(text.to_string())),
            None => Err(Diagnostic::new(
                self.source.place(item.span().map_or(0, |span| span.start)),
                format!("`{}` must be a string", keys.join(".")),
            )),
        }
    }

    /// The item at a path of keys, if every key is there.
    fn item(&self, keys: &[&str]) -> Option<&Item> {
        let mut item: &Item = self.document.as_item();
        for key in keys {
            item = item.get(key)?;
        }
        Some(item)
    }
}

// What only the tools ask of a TOML file: the tangler reads strings alone.
#[cfg(feature = "tools")]
impl TomlFile {
    /// The strings of the array at a path of keys; none when it is missing or not an array, and
    /// only the strings of one that holds other values too.
    pub(crate) fn strings(&self, keys: &[&str]) -> Vec<String> {
        let array = self.item(keys).and_then(Item::as_array);
        let strings = array
            .into_iter()
            .flatten()
            .filter_map(|value| value.as_str());
        strings.map(str::to_string).collect()
    }

    /// The file as a document to change, keeping its comments and layout (`litbook init` adds the
    /// build dependency; the language server's mirror rewrites the targets).
    pub fn editable(&self) -> DocumentMut {
        self.document.clone().into_mut()
    }
}

/// A crate's `Cargo.toml`.
pub struct Manifest {
    toml: TomlFile,
}

/// What a crate's target is, as the manifest's tables name them.
#[cfg(feature = "tools")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    Program,
    Test,
    Benchmark,
    Example,
}

#[cfg(feature = "tools")]
impl TargetKind {
    /// The kind, its table in the manifest (`[[bin]]`) and the directory Cargo looks in for a
    /// target of it whose path the manifest does not give.
    const TABLES: [(TargetKind, &'static str, &'static str); 4] = [
        (TargetKind::Program, "bin", "src/bin"),
        (TargetKind::Test, "test", "tests"),
        (TargetKind::Benchmark, "bench", "benches"),
        (TargetKind::Example, "example", "examples"),
    ];

    /// The kind in words, for the book's captions: "program", "benchmark".
    pub fn words(self) -> &'static str {
        match self {
            TargetKind::Program => "program",
            TargetKind::Test => "integration test",
            TargetKind::Benchmark => "benchmark",
            TargetKind::Example => "example",
        }
    }
}

/// One program, test, benchmark or example of a crate.
#[cfg(feature = "tools")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub kind: TargetKind,
    pub name: String,
    /// The root file, relative to the crate, with `/` between names.
    pub path: String,
    /// The features the target needs (`required-features`).
    pub required_features: Vec<String>,
}

/// The words for a directory with no manifest.
const NO_MANIFEST: &str = "no Cargo.toml here: the literate tools serve a crate whose book is in \
                           `book` beside its manifest, or where `[package.metadata.litbook] book` \
                           puts it";

impl Manifest {
    /// The manifest of the crate in `crate_dir`; a missing one is reported as [`NO_MANIFEST`].
    pub fn read(crate_dir: &Path) -> Result<Manifest, Diagnostic> {
        let toml = TomlFile::read(crate_dir, "Cargo.toml")?
            .ok_or_else(|| Diagnostic::new(Place::new("Cargo.toml", 1, 1), NO_MANIFEST))?;
        Ok(Manifest { toml })
    }

    /// The manifest's TOML, for settings of its own (`[package.metadata.litbook]`) and for tools
    /// that rewrite it.
    pub fn toml(&self) -> &TomlFile {
        &self.toml
    }
}

// What only the tools ask of a manifest: the tangler reads the settings of the book alone.
#[cfg(feature = "tools")]
impl Manifest {
    /// The manifest in `text`.
    #[cfg(test)]
    pub fn parse(text: &str) -> Result<Manifest, Diagnostic> {
        let toml = TomlFile::parse(SourceText::new("Cargo.toml", text))?;
        Ok(Manifest { toml })
    }

    /// The package's table (or inline table), if the manifest has one (a workspace's root may not).
    pub fn package(&self) -> Option<&dyn TableLike> {
        self.toml.item(&["package"])?.as_table_like()
    }

    /// The package's name, if it has a package.
    pub fn package_name(&self) -> Option<&str> {
        self.toml.item(&["package", "name"])?.as_str()
    }

    /// The members a workspace root lists, or `None` when the manifest is no workspace's root.
    pub fn workspace_members(&self) -> Option<Vec<String>> {
        self.toml.item(&["workspace"])?;
        Some(self.toml.strings(&["workspace", "members"]))
    }

    /// [`Manifest::targets`] of the crate in `crate_dir`; none when its manifest cannot be read (the
    /// build reports it).
    pub fn targets_of(crate_dir: &Path) -> Vec<Target> {
        Manifest::read(crate_dir)
            .map(|manifest| manifest.targets(crate_dir))
            .unwrap_or_default()
    }

    /// The crate's programs, tests, benchmarks and examples that the manifest declares, each with
    /// its root file where Cargo looks for it, and the program of `src/main.rs` that Cargo finds by
    /// itself when no `[[bin]]` claims that file.
    pub fn targets(&self, crate_dir: &Path) -> Vec<Target> {
        self.targets_with_main(crate_dir.join("src/main.rs").is_file())
    }

    /// [`Manifest::targets`] of a crate that has `src/main.rs` or not.
    fn targets_with_main(&self, has_main: bool) -> Vec<Target> {
        let package = self.package_name().unwrap_or_default();
        let mut targets = Vec::new();
        for (kind, key, directory) in TargetKind::TABLES {
            let tables = self.toml.item(&[key]).and_then(Item::as_array_of_tables);
            for table in tables.into_iter().flatten() {
                let text = |key: &str| table.get(key)?.as_str().map(str::to_string);
                let name = text("name").unwrap_or_default();
                let path = match text("path") {
                    Some(path) => path.trim_start_matches("./").to_string(),
                    None if kind == TargetKind::Program && name == package => {
                        "src/main.rs".to_string()
                    }
                    None => format!("{directory}/{name}.rs"),
                };
                let features = table.get("required-features").and_then(Item::as_array);
                let features = features.into_iter().flatten().filter_map(|f| f.as_str());
                targets.push(Target {
                    kind,
                    name,
                    path,
                    required_features: features.map(str::to_string).collect(),
                });
            }
        }
        let autobins = self
            .toml
            .item(&["package", "autobins"])
            .and_then(Item::as_bool);
        let main_declared = targets.iter().any(|target| target.path == "src/main.rs");
        if has_main && autobins != Some(false) && !main_declared {
            targets.push(Target {
                kind: TargetKind::Program,
                name: package.to_string(),
                path: "src/main.rs".to_string(),
                required_features: Vec::new(),
            });
        }
        targets
    }
}

#[cfg(all(test, feature = "tools"))]
mod tests {
    use super::*;

    fn targets_of(text: &str, has_main: bool) -> Vec<Target> {
        Manifest::parse(text).unwrap().targets_with_main(has_main)
    }

    #[test]
    fn targets_are_found_where_cargo_looks_for_them() {
        let text = "[package]\nname = 'game' # a comment\n\n[[bin]]\nname = 'game'\nrequired-features = ['window']\n\n[[bin]]\nname = 'tool'\n\n[[test]]\nname = 'play'\nrequired-features = ['window', 'sound']\n\n[[bench]]\n# the speed\nname = \"speed\"\npath = './src/speed.rs'\nharness = false\n";
        let targets = targets_of(text, true);
        let found: Vec<(TargetKind, &str, &str, usize)> = targets
            .iter()
            .map(|t| {
                let features = t.required_features.len();
                (t.kind, t.name.as_str(), t.path.as_str(), features)
            })
            .collect();
        assert_eq!(
            found,
            [
                (TargetKind::Program, "game", "src/main.rs", 1),
                (TargetKind::Program, "tool", "src/bin/tool.rs", 0),
                (TargetKind::Test, "play", "tests/play.rs", 2),
                (TargetKind::Benchmark, "speed", "src/speed.rs", 0),
            ]
        );
        assert_eq!(targets[2].required_features, ["window", "sound"]);
    }

    #[test]
    fn the_main_program_is_found_without_a_table() {
        let text = "[package]\nname = 'game'\n";
        let targets = targets_of(text, true);
        assert_eq!(targets.len(), 1);
        assert_eq!(
            (targets[0].name.as_str(), targets[0].path.as_str()),
            ("game", "src/main.rs")
        );
        assert!(targets_of(text, false).is_empty());
        let off = "[package]\nname = 'game'\nautobins = false\n";
        assert!(targets_of(off, true).is_empty());
    }

    #[test]
    fn a_workspace_root_lists_its_members() {
        let root = Manifest::parse("[workspace]\nmembers = [\"game\", \"tools\"]\n").unwrap();
        assert_eq!(root.workspace_members().unwrap(), ["game", "tools"]);
        assert!(root.package().is_none());
        let crate_only = Manifest::parse("[package]\nname = 'a'\n").unwrap();
        assert_eq!(crate_only.workspace_members(), None);
        assert_eq!(crate_only.package_name(), Some("a"));
    }
}
