//! The mirror workspace: a crate under `target/` made of the tangled files, which rust-analyzer
//! analyses in place of the real crate. The real crate includes its tangled files from Cargo's
//! `OUT_DIR`, which only a build knows; the mirror has them as ordinary source files, rewritten on
//! every edit, with the real crate's dependencies and profiles, so that rust-analyzer and its
//! `cargo check` see exactly the code a build compiles.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

use crate::manifest::{Manifest, Target, TargetKind};
use crate::shells::{includes, shell_paths};
use crate::{SourceText, TangledFile, write_if_changed};

/// The directory, under the crate's `target/`, that holds the mirror.
pub const MIRROR_DIR: &str = "target/litbook-lsp";

/// The real crate's lock file as last copied into the mirror, beside the mirror's own.
const COPIED_LOCK: &str = "Cargo.lock.copied";

/// The mirror of one crate.
#[derive(Debug)]
pub struct Mirror {
    pub dir: PathBuf,
    /// Where a shell includes a tangled file in a way the mirror does not follow, so that
    /// rust-analyzer sees none of that file's code (see [`includes_not_followed`]).
    pub unfollowed: Vec<String>,
}

impl Mirror {
    /// Writes the mirror of the crate in `crate_dir` with the tangled Rust `files` and `scripts`:
    /// its manifest, lock file, library root and the files themselves.
    pub fn create(
        crate_dir: &Path,
        files: &[TangledFile],
        scripts: &[TangledFile],
    ) -> anyhow::Result<Mirror> {
        let shells = Shells::read(crate_dir)?;
        let mirror = Mirror {
            dir: crate_dir.join(MIRROR_DIR),
            unfollowed: shells.unfollowed.clone(),
        };
        let manifest = Manifest::read(crate_dir)?;
        let manifest = mirror_manifest(&manifest, crate_dir, &shells)?;
        for dir in std::iter::once("tangled").chain(shells.module_dirs.iter().map(String::as_str)) {
            let dir = mirror.dir.join(dir);
            fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let write = |name: &str, text: &str| {
            write_if_changed(&mirror.dir.join(name), text)
                .with_context(|| format!("cannot write the mirror's {name}"))
        };
        write("Cargo.toml", &manifest)?;
        if let Some(library) = &shells.library {
            write("lib.rs", library)?;
        }
        if let Ok(lock) = fs::read_to_string(crate_dir.join("Cargo.lock")) {
            mirror.copy_lock(&lock)?;
        }
        for file in files.iter().chain(scripts) {
            mirror
                .write(file)
                .with_context(|| format!("cannot write the mirror's {}", file.name))?;
        }
        Ok(mirror)
    }

    /// Gives the mirror the real crate's lock file `lock`, so that it is checked with the same
    /// versions of its dependencies, unless the mirror has it already as last copied. Cargo trims
    /// the mirror's copy (the mirror has none of the real crate's build dependencies and workspace
    /// members): a copy written again at each start of rust-analyzer would be trimmed again, and
    /// rust-analyzer, seeing its lock file change, would reload its workspace, cancelling the check
    /// it runs.
    fn copy_lock(&self, lock: &str) -> anyhow::Result<()> {
        let copied = self.dir.join(COPIED_LOCK);
        let mirror_lock = self.dir.join("Cargo.lock");
        if mirror_lock.exists() && fs::read_to_string(&copied).is_ok_and(|last| last == lock) {
            return Ok(());
        }
        for path in [&mirror_lock, &copied] {
            write_if_changed(path, lock)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    }

    /// The directory of the tangled files in the mirror, which stands in for a build's `OUT_DIR`.
    pub fn tangled_dir(&self) -> PathBuf {
        self.dir.join("tangled")
    }

    /// Where a tangled file lives in the mirror.
    pub fn path_of(&self, name: &str) -> PathBuf {
        self.tangled_dir().join(name)
    }

    /// The tangled file at a path in the mirror, if it is one.
    pub fn tangled_name(&self, path: &Path) -> Option<String> {
        let name = path.strip_prefix(self.tangled_dir()).ok()?;
        Some(name.to_str()?.to_string())
    }

    /// Writes one tangled file into the mirror, if its text changed.
    pub fn write(&self, file: &TangledFile) -> std::io::Result<bool> {
        write_if_changed(&self.path_of(&file.name), &file.text)
    }
}

/// The crate's shells, read for the mirror: the library root with its includes turned into modules
/// of tangled files, and which shell includes which tangled file as a whole.
struct Shells {
    /// None for a crate with no library, only programs.
    library: Option<String>,
    /// The directories the library's inline modules that hold modules of tangled files would have
    /// (`solve` for `mod solve { mod board { include!(…) } }`): the compiler reads the module's
    /// `#[path = "../tangled/…"]` through them, so they must exist.
    module_dirs: Vec<String>,
    /// (shell path relative to the crate, the tangled file it consists of).
    whole: Vec<(String, String)>,
    /// The places (`src/lib.rs:12`) of includes of tangled files the mirror cannot follow: one
    /// inside a function or another item's body, or a second include in a program's shell.
    unfollowed: Vec<String>,
}

impl Shells {
    fn read(crate_dir: &Path) -> anyhow::Result<Shells> {
        let mut library = None;
        let mut module_dirs = Vec::new();
        let mut whole = Vec::new();
        let mut unfollowed = Vec::new();
        for path in shell_paths(crate_dir) {
            let text = fs::read_to_string(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let relative = path.strip_prefix(crate_dir).unwrap_or(&path);
            let relative = relative.to_string_lossy().replace('\\', "/");
            unfollowed.extend(includes_not_followed(&relative, &text));
            if relative == "src/lib.rs" {
                library = Some(library_root(&text));
                module_dirs = includes(&SourceText::new("src/lib.rs", text.as_str()))
                    .into_iter()
                    .filter(|include| include.modules.len() > 1)
                    .map(|include| include.modules[..include.modules.len() - 1].join("/"))
                    .collect();
            } else if let Some(file) = included_files(&text).into_iter().next() {
                whole.push((relative, file));
            }
        }
        Ok(Shells {
            library,
            module_dirs,
            whole,
            unfollowed,
        })
    }

    fn tangled_file_of(&self, shell: &str) -> Option<&str> {
        let shell = shell.strip_prefix("./").unwrap_or(shell);
        let (_, file) = self.whole.iter().find(|(path, _)| path == shell)?;
        Some(file)
    }
}

/// The places of a shell's includes of tangled files (`include!` of a path in `OUT_DIR`, anywhere
/// in its code) that the mirror does not follow: every one the shell's items do not hold (one in
/// a function's body), and in a shell other than the library's, every one after the first.
fn includes_not_followed(shell: &str, text: &str) -> Vec<String> {
    let followed: Vec<usize> = includes(&SourceText::new(shell, text))
        .into_iter()
        .map(|include| text[..include.invocation.start].matches('\n').count() + 1)
        .take(if shell == "src/lib.rs" { usize::MAX } else { 1 })
        .collect();
    let Ok(file) = syn::parse_file(text) else {
        return Vec::new();
    };
    let mut all = IncludeLines(Vec::new());
    syn::visit::visit_file(&mut all, &file);
    (all.0.into_iter())
        .filter(|line| !followed.contains(line))
        .map(|line| format!("{shell}:{line}"))
        .collect()
}

/// The lines of every `include!` of a path in `OUT_DIR` that a visit passes.
struct IncludeLines(Vec<usize>);

impl<'ast> syn::visit::Visit<'ast> for IncludeLines {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if mac.path.is_ident("include") && mac.tokens.to_string().contains("OUT_DIR") {
            self.0.push(mac.path.segments[0].ident.span().start().line);
        }
    }
}

/// The tangled files a shell includes, in order.
fn included_files(text: &str) -> Vec<String> {
    includes(&SourceText::new("", text))
        .into_iter()
        .map(|include| include.file)
        .collect()
}

/// The mirror's library root: `src/lib.rs` with every inline module that holds nothing but an
/// include of a tangled file (at any depth: `mod solve { pub mod board { include!(…) } }` too) turned
/// into a module of that file, `#[path = "tangled/FILE.rs"] pub mod board;`, every other include of
/// a tangled file (`include!(concat!(env!("OUT_DIR"), "/lib.rs"))` at the top, as `init` writes it)
/// turned into `include!("tangled/FILE.rs")`, and everything else as it is. Inside inline modules a
/// `#[path]` is read from the directory the modules would have (`solve/`), so the path climbs out
/// of it first: `"../tangled/FILE.rs"`; an `include!`'s path is read from the file it is in.
/// (rust-analyzer follows neither an absolute path nor `OUT_DIR`, which a build alone knows.)
fn library_root(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for include in includes(&SourceText::new("src/lib.rs", text)) {
        let (replaced, by) = match include.module_item {
            Some((item, head)) => {
                let climb = "../".repeat(include.modules.len().saturating_sub(1));
                let module = format!(
                    "#[path = \"{climb}tangled/{}\"] {};",
                    include.file,
                    text[head].trim_end()
                );
                (item, module)
            }
            None => (
                include.invocation,
                format!("include!(\"tangled/{}\")", include.file),
            ),
        };
        out.push_str(&text[from..replaced.start]);
        out.push_str(&by);
        from = replaced.end;
    }
    out.push_str(&text[from..]);
    out
}

/// The mirror's manifest: the real one's package, features, dependencies and profiles, a workspace
/// of its own, path dependencies made absolute, and targets rooted at the tangled files: the
/// programs, benchmarks and tests the manifest declares, each with its settings (the features it
/// requires), and the tests Cargo finds by itself in `tests/`.
fn mirror_manifest(real: &Manifest, crate_dir: &Path, shells: &Shells) -> anyhow::Result<String> {
    let mut doc = real.toml().editable();
    let targets = real.targets(crate_dir);
    let mut bins = take_targets(&mut doc, "bin");
    let mut benches = take_targets(&mut doc, "bench");
    let mut tests = take_targets(&mut doc, "test");
    for key in ["workspace", "lib", "example", "build-dependencies"] {
        doc.remove(key);
    }
    let package = doc
        .get_mut("package")
        .and_then(Item::as_table_mut)
        .context("Cargo.toml has no [package]")?;
    for key in ["build", "default-run", "workspace"] {
        package.remove(key);
    }
    for key in ["autobins", "autotests", "autobenches", "autoexamples"] {
        package.insert(key, value(false));
    }
    for key in ["dependencies", "dev-dependencies"] {
        if let Some(table) = doc.get_mut(key).and_then(Item::as_table_like_mut) {
            absolute_paths(table, crate_dir);
        }
    }
    doc.insert("workspace", Item::Table(Table::new()));
    if shells.library.is_some() {
        let mut lib = Table::new();
        lib.insert("path", value("lib.rs"));
        doc.insert("lib", Item::Table(lib));
    }
    retarget(&mut bins, TargetKind::Program, &targets, shells);
    retarget(&mut benches, TargetKind::Benchmark, &targets, shells);
    retarget(&mut tests, TargetKind::Test, &targets, shells);
    let declared: Vec<&str> = (targets.iter())
        .filter(|target| target.kind == TargetKind::Test)
        .map(|target| target.path.as_str())
        .collect();
    for (shell, file) in shells
        .whole
        .iter()
        .filter(|(shell, _)| !declared.contains(&shell.as_str()))
    {
        if let Some(name) = shell
            .strip_prefix("tests/")
            .and_then(|s| s.strip_suffix(".rs"))
        {
            let mut test = Table::new();
            test.insert("name", value(name));
            test.insert("path", value(format!("tangled/{file}")));
            tests.push(test);
        }
    }
    for (key, targets) in [("bin", bins), ("bench", benches), ("test", tests)] {
        if !targets.is_empty() {
            doc.insert(key, Item::ArrayOfTables(targets));
        }
    }
    Ok(doc.to_string())
}

fn take_targets(doc: &mut DocumentMut, key: &str) -> ArrayOfTables {
    match doc.remove(key) {
        Some(Item::ArrayOfTables(targets)) => targets,
        _ => ArrayOfTables::new(),
    }
}

/// The tables of the targets of one kind whose shell is one tangled file, each pointed at that
/// file (the others hold no code of the book), and a table for a program Cargo finds by itself
/// (`src/main.rs`), which the mirror has to declare. `tables` are the manifest's own, in the order
/// `targets` lists their kind.
fn retarget(tables: &mut ArrayOfTables, kind: TargetKind, targets: &[Target], shells: &Shells) {
    let of_kind = targets.iter().filter(|target| target.kind == kind);
    let declared = tables
        .iter()
        .cloned()
        .map(Some)
        .chain(std::iter::repeat(None));
    let mut kept = ArrayOfTables::new();
    for (target, table) in of_kind.zip(declared) {
        let Some(file) = shells.tangled_file_of(&target.path) else {
            continue;
        };
        let mut table = table.unwrap_or_else(|| {
            let mut found_by_cargo = Table::new();
            found_by_cargo.insert("name", value(&target.name));
            found_by_cargo
        });
        table.insert("path", value(format!("tangled/{file}")));
        kept.push(table);
    }
    *tables = kept;
}

/// Makes every `path = "…"` of a dependency table absolute, relative to the real crate.
fn absolute_paths(dependencies: &mut dyn toml_edit::TableLike, crate_dir: &Path) {
    for (_, dependency) in dependencies.iter_mut() {
        let Some(table) = dependency.as_table_like_mut() else {
            continue;
        };
        let Some(path) = table.get("path").and_then(Item::as_str) else {
            continue;
        };
        let absolute = crate_dir.join(path).to_string_lossy().into_owned();
        table.insert("path", value(absolute));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_file_is_copied_once_and_again_only_when_the_crate_s_changes() {
        let dir = tempfile::tempdir().unwrap();
        let mirror = Mirror {
            dir: dir.path().to_path_buf(),
            unfollowed: Vec::new(),
        };
        let lock = dir.path().join("Cargo.lock");
        mirror.copy_lock("real").unwrap();
        assert_eq!(fs::read_to_string(&lock).unwrap(), "real");
        fs::write(&lock, "trimmed by cargo").unwrap();
        let trimmed = fs::metadata(&lock).unwrap().modified().unwrap();
        mirror.copy_lock("real").unwrap();
        assert_eq!(fs::read_to_string(&lock).unwrap(), "trimmed by cargo");
        assert_eq!(fs::metadata(&lock).unwrap().modified().unwrap(), trimmed);
        mirror.copy_lock("real, updated").unwrap();
        assert_eq!(fs::read_to_string(&lock).unwrap(), "real, updated");
        fs::remove_file(&lock).unwrap();
        mirror.copy_lock("real, updated").unwrap();
        assert_eq!(fs::read_to_string(&lock).unwrap(), "real, updated");
    }

    #[test]
    fn a_library_root_gets_modules_of_tangled_files_at_any_depth() {
        let lib = "//! Doc.\n\n/// World.\npub mod world {\n    include!(concat!(env!(\"OUT_DIR\"), \"/world.rs\"));\n}\n\n#[cfg(test)]\nmod tests {\n    include!(concat!(env!(\"OUT_DIR\"), \"/tests.rs\"));\n}\n\npub mod solve {\n    pub use board::*;\n    pub(crate) mod board {\n        include!(concat!(env!(\"OUT_DIR\"), \"/solve_board.rs\"));\n    }\n}\n";
        assert_eq!(
            library_root(lib),
            "//! Doc.\n\n/// World.\n#[path = \"tangled/world.rs\"] pub mod world;\n\n#[cfg(test)]\n#[path = \"tangled/tests.rs\"] mod tests;\n\npub mod solve {\n    pub use board::*;\n    #[path = \"../tangled/solve_board.rs\"] pub(crate) mod board;\n}\n"
        );
    }

    #[test]
    fn an_include_inside_a_function_is_one_the_mirror_does_not_follow() {
        let lib = "pub mod a {\n    include!(concat!(env!(\"OUT_DIR\"), \"/a.rs\"));\n}\n// include!(concat!(env!(\"OUT_DIR\"), \"/c.rs\"));\nfn f() {\n    include!(concat!(env!(\"OUT_DIR\"), \"/b.rs\"));\n}\n";
        assert_eq!(includes_not_followed("src/lib.rs", lib), ["src/lib.rs:6"]);
        let main = "//! A program.\ninclude!(concat!(env!(\"OUT_DIR\"), \"/main.rs\"));\ninclude!(concat!(env!(\"OUT_DIR\"), \"/more.rs\"));\nconst S: &str = \"include!(env!(\\\"OUT_DIR\\\"))\";\n";
        assert_eq!(
            includes_not_followed("src/main.rs", main),
            ["src/main.rs:3"]
        );
    }

    #[test]
    fn a_library_root_that_includes_its_code_at_the_top_includes_it_from_the_mirror() {
        let lib = "#![warn(missing_docs)]\n\n// Tangled.\ninclude!(concat!(env!(\"OUT_DIR\"), \"/lib.rs\"));\n\nmod extra {\n    pub fn f() {}\n    include!(concat!(env!(\"OUT_DIR\"), \"/extra.rs\"));\n}\n";
        assert_eq!(
            library_root(lib),
            "#![warn(missing_docs)]\n\n// Tangled.\ninclude!(\"tangled/lib.rs\");\n\nmod extra {\n    pub fn f() {}\n    include!(\"tangled/extra.rs\");\n}\n"
        );
    }

    #[test]
    fn the_manifest_keeps_dependencies_and_roots_targets_at_tangled_files() {
        let shells = Shells {
            library: Some(String::new()),
            module_dirs: Vec::new(),
            whole: vec![
                ("src/main.rs".into(), "main.rs".into()),
                ("tests/end_to_end.rs".into(), "end_to_end.rs".into()),
            ],
            unfollowed: Vec::new(),
        };
        let real = "[workspace]\nmembers = [\".\"]\n\n[package]\nname = \"game\"\nedition = \"2024\"\nbuild = \"build.rs\"\n\n[[bin]]\nname = \"game\"\npath = \"src/main.rs\"\nrequired-features = [\"window\"]\n\n[[bench]]\nname = \"other\"\npath = \"src/other.rs\"\n\n[[test]]\nname = \"end_to_end\"\nrequired-features = [\"window\"]\n\n[dependencies]\nrand = \"0.10\"\n\n[build-dependencies]\nlit = { path = \"lit\" }\n\n[dev-dependencies]\nlit = { path = \"lit\" }\n";
        let real = Manifest::parse(real).unwrap();
        let manifest = mirror_manifest(&real, Path::new("/crate"), &shells).unwrap();
        let doc: DocumentMut = manifest.parse().unwrap();
        assert!(doc["workspace"].as_table().unwrap().is_empty());
        assert!(doc.get("build-dependencies").is_none());
        assert!(doc["package"].get("build").is_none());
        assert_eq!(doc["dependencies"]["rand"].as_str(), Some("0.10"));
        assert_eq!(
            doc["dev-dependencies"]["lit"]["path"].as_str(),
            Some("/crate/lit")
        );
        assert_eq!(doc["lib"]["path"].as_str(), Some("lib.rs"));
        let bins = doc["bin"].as_array_of_tables().unwrap();
        assert_eq!(bins.len(), 1);
        assert_eq!(
            bins.get(0).unwrap()["path"].as_str(),
            Some("tangled/main.rs")
        );
        assert!(
            doc.get("bench").is_none(),
            "a bench with no book code is left out"
        );
        let tests = doc["test"].as_array_of_tables().unwrap();
        assert_eq!(tests.len(), 1);
        let test = tests.get(0).unwrap();
        assert_eq!(test["name"].as_str(), Some("end_to_end"));
        assert_eq!(test["path"].as_str(), Some("tangled/end_to_end.rs"));
        assert_eq!(
            test["required-features"]
                .as_array()
                .unwrap()
                .get(0)
                .unwrap()
                .as_str(),
            Some("window"),
            "a declared test keeps what it requires"
        );
    }

    #[test]
    fn a_program_cargo_finds_by_itself_is_declared_in_the_mirror() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("src")).unwrap();
        fs::write(dir.path().join("src/main.rs"), "").unwrap();
        let shells = Shells {
            library: Some(String::new()),
            module_dirs: Vec::new(),
            whole: vec![("src/main.rs".into(), "main.rs".into())],
            unfollowed: Vec::new(),
        };
        let real = Manifest::parse("[package]\nname = \"game\"\n").unwrap();
        let manifest = mirror_manifest(&real, dir.path(), &shells).unwrap();
        let doc: DocumentMut = manifest.parse().unwrap();
        let bins = doc["bin"].as_array_of_tables().unwrap();
        assert_eq!(bins.get(0).unwrap()["name"].as_str(), Some("game"));
        assert_eq!(
            bins.get(0).unwrap()["path"].as_str(),
            Some("tangled/main.rs")
        );
    }
}
