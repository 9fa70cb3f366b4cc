//! `litbook init`: makes a crate a literate one. The crate's book gets its `book.toml`, a
//! `SUMMARY.md` and a first chapter; the crate gets a build script that tangles the book and the
//! tangler as its build dependency; the crate's library (or program) moves into the first chapter as
//! its root chunk, and its file becomes the shell that includes the tangled root. Nothing is
//! overwritten: a file that is already there stops it before anything is written.

use std::fs;
use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, InlineTable, Item, Table, value};

use crate::manifest::Manifest;
use crate::project::join;
use crate::{Project, marker};

/// What `litbook init` writes, by path relative to the crate.
#[derive(Debug)]
pub struct Setup {
    pub files: Vec<(String, String)>,
}

/// Plans making the crate in `crate_dir` literate, with the tangler's source in `litbook`. Refuses,
/// naming every reason, a directory without a crate, a crate that has a book or a build script
/// already, or code that cannot be moved into a chunk as it is.
pub fn plan(crate_dir: &Path, literate: &Tangler) -> Result<Setup, Vec<String>> {
    if !crate_dir.join("Cargo.toml").is_file() {
        return Err(vec![format!(
            "no Cargo.toml in {}: make a crate first (`cargo new --lib NAME`), then run \
             `litbook init` in it",
            crate_dir.display()
        )]);
    }
    let manifest = Manifest::read(crate_dir).map_err(|problem| vec![problem.to_string()])?;
    let Some(package) = manifest.package() else {
        return Err(vec![no_package(&manifest)]);
    };
    let name = manifest.package_name().unwrap_or("the crate").to_string();
    let names_a_build_script = package.contains_key("build");
    let project = Project::open(crate_dir).map_err(|problem| vec![problem.to_string()])?;
    let root = RootFile::of(crate_dir);
    let mut refusals = Vec::new();
    let code = match fs::read_to_string(crate_dir.join(root.shell())) {
        Ok(code) => Some(code),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            refusals.push(format!(
                "{} cannot be read ({e}), so it is not moved into the book",
                root.shell()
            ));
            None
        }
    };
    let book_toml = join(&project.book_root, "book.toml");
    let summary = project.chapter_display("SUMMARY.md");
    let chapter = project.chapter_display("introduction.md");
    let chunk_index = project.chapter_display("chunks.md");
    let identifier_index = project.chapter_display("identifiers.md");
    let written = [
        &book_toml,
        &summary,
        &chapter,
        &chunk_index,
        &identifier_index,
    ];
    for path in written.into_iter().chain([&"build.rs".to_string()]) {
        if crate_dir.join(path).exists() {
            refusals.push(format!(
                "{path} exists already; litbook init writes nothing over it"
            ));
        }
    }
    if names_a_build_script {
        refusals.push(
            "Cargo.toml names a build script already; a literate crate's build script tangles \
             its book"
                .to_string(),
        );
    }
    let (attributes, body) = match &code {
        Some(code) => split_inner_attributes(code),
        None => (String::new(), sample(&root)),
    };
    let moved = if code.is_some() { body.as_str() } else { "" };
    refusals.extend(modules_in_files(crate_dir, &root, moved));
    for (number, line) in moved.lines().enumerate() {
        if marker(line).is_some() {
            refusals.push(format!(
                "{}:{}: this line reads as a chunk marker in a chapter; change it before the code \
                 moves into the book",
                root.shell(),
                number + 1 + attributes.lines().count()
            ));
        }
    }
    if !refusals.is_empty() {
        return Err(refusals);
    }
    let mut document = manifest.toml().editable();
    add_build_dependency(&mut document, crate_dir, literate);
    let files = vec![
        (book_toml, book_config(&name, &project)),
        (summary, SUMMARY.to_string()),
        (chapter, first_chapter(&name, &root, &body, code.is_some())),
        (chunk_index, CHUNK_INDEX.to_string()),
        (identifier_index, IDENTIFIER_INDEX.to_string()),
        ("build.rs".to_string(), BUILD_SCRIPT.to_string()),
        (root.shell(), shell(&attributes, &root)),
        ("Cargo.toml".to_string(), document.to_string()),
        (".gitignore".to_string(), gitignore(crate_dir, &project)),
    ];
    Ok(Setup { files })
}

/// Why a manifest with no `[package]` cannot be made literate, and what to do instead: a workspace
/// root is told its members.
fn no_package(manifest: &Manifest) -> String {
    let Some(members) = manifest.workspace_members() else {
        return "Cargo.toml has no [package]: make a crate first (`cargo new --lib NAME`), then \
                run `litbook init` in it"
            .to_string();
    };
    let which = if members.is_empty() {
        "it lists no members yet".to_string()
    } else {
        format!("its members: {}", members.join(", "))
    };
    format!(
        "Cargo.toml here is a workspace root with no package of its own ({which}): run \
         `litbook init` in a member's directory, or make a new member (`cargo new --lib NAME`) \
         and run it there"
    )
}

/// The modules the crate's root declares with their code in files of their own (`mod util;` with
/// `src/util.rs`). The tangled root is compiled from `OUT_DIR`, where those files are not, so each is
/// a refusal that says how to bring its code along.
fn modules_in_files(crate_dir: &Path, root: &RootFile, code: &str) -> Vec<String> {
    let Ok(file) = syn::parse_file(code) else {
        return Vec::new();
    };
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(module) if module.content.is_none() => Some(module.ident.to_string()),
            _ => None,
        })
        .filter_map(|name| {
            let files = [format!("src/{name}.rs"), format!("src/{name}/mod.rs")];
            let found = files.into_iter().find(|f| crate_dir.join(f).exists())?;
            Some(format!(
                "{} declares `mod {name};`, whose code is in {found}: the tangled code is \
                 compiled where that file is not, so the build would not find it. Move the \
                 module into {} as `mod {name} {{ … }}` (or into a chapter of its own once the \
                 book is made), then run `litbook init` again",
                root.shell(),
                root.shell(),
            ))
        })
        .collect()
}

/// `to` as a path from `from`, so that the dependency survives moving both together (a repository
/// that holds both, cloned elsewhere); `to` itself when they share no directory but the file
/// system's root, where a path up to the root and down again would only break sooner.
fn relative_to(from: &Path, to: &Path) -> PathBuf {
    let (Ok(from), Ok(to)) = (from.canonicalize(), to.canonicalize()) else {
        return to.to_path_buf();
    };
    let shared = from
        .components()
        .zip(to.components())
        .take_while(|(a, b)| a == b)
        .count();
    let only_the_root = from.components().take(shared).all(|c| {
        matches!(
            c,
            std::path::Component::RootDir | std::path::Component::Prefix(_)
        )
    });
    if only_the_root {
        return to;
    }
    let up = from.components().skip(shared).map(|_| Path::new(".."));
    let down = to
        .components()
        .skip(shared)
        .map(|c| Path::new(c.as_os_str()));
    let relative: PathBuf = up.chain(down).collect();
    if relative.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        relative
    }
}

/// Writes what [`plan`] planned; the paths written.
pub fn write(crate_dir: &Path, setup: &Setup) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    for (path, text) in &setup.files {
        let path = crate_dir.join(path);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// Which of the crate's files becomes the shell of its root chunk: the library's, or the program's
/// when the crate has only a program.
enum RootFile {
    Library,
    Program,
}

impl RootFile {
    fn of(crate_dir: &Path) -> RootFile {
        let program_only =
            !crate_dir.join("src/lib.rs").exists() && crate_dir.join("src/main.rs").exists();
        if program_only {
            RootFile::Program
        } else {
            RootFile::Library
        }
    }

    /// The shell's path in the crate.
    fn shell(&self) -> String {
        format!("src/{}", self.tangled())
    }

    /// The tangled file's name.
    fn tangled(&self) -> &'static str {
        match self {
            RootFile::Library => "lib.rs",
            RootFile::Program => "main.rs",
        }
    }
}

/// The leading inner attributes and inner doc comments of a crate's root file (which must stay in
/// the shell: an included file cannot have them), and the rest of it.
fn split_inner_attributes(code: &str) -> (String, String) {
    let mut split = 0;
    for line in code.split_inclusive('\n') {
        let trimmed = line.trim();
        let inner = trimmed.starts_with("//!") || trimmed.starts_with("#![") || trimmed.is_empty();
        if !inner {
            break;
        }
        split += line.len();
    }
    let (attributes, body) = code.split_at(split);
    (attributes.trim_end().to_string(), body.to_string())
}

/// The code of a new crate's first chapter, when it had none.
fn sample(root: &RootFile) -> String {
    let main = match root {
        RootFile::Library => "",
        RootFile::Program => "\nfn main() {\n    println!(\"{}\", greeting(\"world\"));\n}\n",
    };
    format!(
        "/// A greeting for `name`.\npub fn greeting(name: &str) -> String {{\n    // <<the greeting's words>>\n}}\n{main}\n// <<tests of the greeting>>\n"
    )
}

/// The first chapter: what the book is, and the crate's code as its root chunk.
fn first_chapter(name: &str, root: &RootFile, code: &str, moved: bool) -> String {
    let fence = fence_for(code);
    let root_chunk = format!(
        "{fence}rust\n// <<file:{}>>=\n{}\n{fence}\n",
        root.tangled(),
        code.trim_end(),
    );
    let intro = format!(
        "# {name}\n\nThis book is the source of the crate `{name}`: its code is written in named chunks \
         between the paragraphs that explain it. `cargo build` tangles the chunks into Rust files, \
         `mdbook build book` weaves the chapters into a book to read, and `litbook lsp` gives an \
         editor rust-analyzer's help inside the chunks.\n\n"
    );
    if moved {
        return format!(
            "{intro}The crate's code, as it was when the book began; split it into chunks of its \
             own as the book explains it.\n\n{root_chunk}"
        );
    }
    format!(
        "{intro}The crate is one function, with its words and its test in chunks of their own:\n\n\
         {root_chunk}\nThe words are built from the name:\n\n\
         ```rust\n// <<the greeting's words>>=\nformat!(\"Hello, {{name}}!\")\n```\n\n\
         The test says what a greeting looks like:\n\n\
         ```rust\n// <<tests of the greeting>>=\n#[cfg(test)]\nmod tests {{\n    use super::*;\n\n    \
         #[test]\n    fn a_greeting_names_its_reader() {{\n        assert_eq!(greeting(\"Ada\"), \"Hello, Ada!\");\n    }}\n}}\n```\n"
    )
}

/// A code fence longer than any run of backticks in `code`.
fn fence_for(code: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// The book's configuration: the weaver as its preprocessor, and the weaver's theme files.
fn book_config(name: &str, project: &Project) -> String {
    let depth = project
        .book_root
        .split('/')
        .filter(|p| !p.is_empty())
        .count();
    let crate_from_book = if depth == 0 {
        ".".to_string()
    } else {
        vec![".."; depth].join("/")
    };
    let src = project
        .src
        .strip_prefix(&project.book_root)
        .unwrap_or(&project.src)
        .trim_start_matches('/');
    format!(
        "[book]\ntitle = {}\nsrc = {}\n\n\
         # Weaves the chapters: chunk captions, links between chunks and the chunk index. The weaver\n\
         # tangles the book first and fails, with every problem at its place, if anything is wrong.\n\
         # It is the `litbook` program itself (`cargo install litbook`, or `--path` to its sources).\n\
         [preprocessor.litbook]\ncommand = \"litbook mdbook\"\n\
         # The crate the book belongs to, from this directory.\ncrate = \"{crate_from_book}\"\n\n\
         # The weaver writes its style sheet and script into theme/, to be copied into the book.\n\
         [output.html]\nadditional-css = [\"theme/chunks.css\"]\nadditional-js = [\"theme/chunks.js\"]\n",
        toml_edit::Value::from(name),
        toml_edit::Value::from(src),
    )
}

/// The crate's root file once its code is in the book: its inner attributes, and the tangled root.
fn shell(attributes: &str, root: &RootFile) -> String {
    let attributes = if attributes.is_empty() {
        String::new()
    } else {
        format!("{attributes}\n\n")
    };
    format!(
        "{attributes}// The code is tangled from the book's chunk `file:{0}`; edit it there.\ninclude!(concat!(env!(\"OUT_DIR\"), \"/{0}\"));\n",
        root.tangled()
    )
}

/// A new book's table of contents: its first chapter, and the indexes after the chapters.
const SUMMARY: &str = "# Summary\n\n- [Introduction](introduction.md)\n\n---\n\n\
                       [Index of chunks](chunks.md)\n[Index of identifiers](identifiers.md)\n";

/// The page of the index of chunks, which the weaver fills in where the directive stands.
const CHUNK_INDEX: &str = "# Index of chunks\n\nEvery chunk of the book in alphabetical order, \
                           with links to each of its parts and to the chunks that use it.\n\n\
                           {{#chunk-index}}\n";

/// The page of the index of identifiers: every item the book's code defines, with its uses.
const IDENTIFIER_INDEX: &str = "# Index of identifiers\n\nEvery function, method, type, variant, \
                                constant and trait the book defines, where it is defined and \
                                where it is used.\n\n{{#identifier-index}}\n";

/// The build script of a literate crate.
const BUILD_SCRIPT: &str = "//! Tangles the book into `OUT_DIR`, with every problem at its place in the Markdown.\n\n\
                            fn main() {\n    litbook::build_script::run();\n}\n";

/// Where a new book's build dependency on the tangler comes from.
#[derive(Clone, Debug)]
pub enum Tangler {
    /// The sources at a path (a checkout of litbook's repository), written relative to the crate.
    Sources(PathBuf),
    /// crates.io, at a version (`0.1`), for a program installed from there.
    Registry(String),
}

impl Tangler {
    /// Where the tangler of this program comes from: the sources it was built from, unless they
    /// are a package downloaded from a registry (cargo writes `.cargo_vcs_info.json` into a
    /// package, and a checkout has none), when the book depends on the registry's at its version.
    pub fn of_this_program(sources: &Path, version: &str) -> Tangler {
        if sources.join(".cargo_vcs_info.json").is_file() {
            let release = version
                .rsplit_once('.')
                .map_or(version, |(major_minor, _)| major_minor);
            Tangler::Registry(release.to_string())
        } else {
            Tangler::Sources(sources.to_path_buf())
        }
    }
}

/// The manifest with the tangler as a build dependency, without the tools that a build never runs.
fn add_build_dependency(document: &mut DocumentMut, crate_dir: &Path, literate: &Tangler) {
    let dependencies = document
        .entry("build-dependencies")
        .or_insert_with(|| Item::Table(Table::new()));
    let mut entry = InlineTable::new();
    match literate {
        Tangler::Sources(path) => {
            let path = relative_to(crate_dir, path);
            entry.insert("path", path.display().to_string().into())
        }
        Tangler::Registry(version) => entry.insert("version", version.as_str().into()),
    };
    entry.insert("default-features", false.into());
    dependencies["litbook"] = value(entry);
}

/// The crate's `.gitignore` with the woven book and the weaver's theme files ignored.
fn gitignore(crate_dir: &Path, project: &Project) -> String {
    let mut text = fs::read_to_string(crate_dir.join(".gitignore")).unwrap_or_default();
    let woven = format!("/{}", join(&project.book_root, "book"));
    let theme = format!("/{}", project.theme);
    for line in [woven, theme] {
        if !text.lines().any(|l| l.trim() == line) {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&line);
            text.push('\n');
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_attributes_stay_in_the_shell() {
        let (attributes, body) =
            split_inner_attributes("//! A crate.\n#![deny(missing_docs)]\n\npub fn f() {}\n");
        assert_eq!(attributes, "//! A crate.\n#![deny(missing_docs)]");
        assert_eq!(body, "pub fn f() {}\n");
    }

    #[test]
    fn a_program_installed_from_a_registry_gives_books_the_registry_s_tangler() {
        let package = tempfile::tempdir().unwrap();
        let checkout = Tangler::of_this_program(package.path(), "0.1.0");
        assert!(matches!(checkout, Tangler::Sources(path) if path == package.path()));
        fs::write(package.path().join(".cargo_vcs_info.json"), "{}").unwrap();
        let registry = Tangler::of_this_program(package.path(), "0.1.3");
        assert!(matches!(&registry, Tangler::Registry(version) if version == "0.1"));
        let mut document = DocumentMut::new();
        add_build_dependency(&mut document, package.path(), &registry);
        assert_eq!(
            document.to_string(),
            "[build-dependencies]\nlitbook = { version = \"0.1\", default-features = false }\n"
        );
    }

    #[test]
    fn a_path_is_written_from_the_crate_so_that_it_survives_a_move() {
        let dir = tempfile::tempdir().unwrap();
        let (book, tool) = (dir.path().join("books/a"), dir.path().join("tools/litbook"));
        fs::create_dir_all(&book).unwrap();
        fs::create_dir_all(&tool).unwrap();
        assert_eq!(
            relative_to(&book, &tool),
            PathBuf::from("../../tools/litbook")
        );
        assert_eq!(relative_to(&tool, &tool), PathBuf::from("."));
        let (root, tmp) = (Path::new("/"), std::env::temp_dir().canonicalize().unwrap());
        assert_eq!(
            relative_to(root, &tmp),
            tmp,
            "from the root, the path is absolute"
        );
    }

    #[test]
    fn a_workspace_root_is_told_its_members() {
        let root = Manifest::parse("[workspace]\nmembers = [\"game\", \"tools\"]\n").unwrap();
        let said = no_package(&root);
        assert!(said.contains("workspace root"), "{said}");
        assert!(said.contains("its members: game, tools"), "{said}");
        let empty = Manifest::parse("[dependencies]\n").unwrap();
        assert!(no_package(&empty).starts_with("Cargo.toml has no [package]"));
    }

    #[test]
    fn a_module_in_a_file_of_its_own_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("src/net")).unwrap();
        fs::write(dir.path().join("src/util.rs"), "pub fn f() {}\n").unwrap();
        fs::write(dir.path().join("src/net/mod.rs"), "").unwrap();
        let code = "mod util;\nmod net;\nmod inline { pub fn g() {} }\nfn main() {}\n";
        let refusals = modules_in_files(dir.path(), &RootFile::Program, code);
        assert_eq!(refusals.len(), 2, "{refusals:?}");
        assert!(
            refusals[0]
                .starts_with("src/main.rs declares `mod util;`, whose code is in src/util.rs")
        );
        assert!(refusals[1].contains("whose code is in src/net/mod.rs"));
    }

    #[test]
    fn a_fence_is_longer_than_the_code_s_backticks() {
        assert_eq!(fence_for("let x = 1;"), "```");
        assert_eq!(fence_for("/// ```\n/// f();\n/// ```\n"), "````");
    }
}
