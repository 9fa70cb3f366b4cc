//! Where a crate keeps its book, and how the tools are to treat it: read from the crate's own
//! configuration, so that no layout is assumed.
//!
//! - The book's root is `book` beside `Cargo.toml`, or the directory that the manifest names with
//!   `[package.metadata.litbook] book = "DIR"`.
//! - The chapters are in the book root's `src`, or where `book.toml` puts them (`[book] src`), as
//!   mdbook reads them; a book without a `book.toml` is read as mdbook reads one.
//! - rustfmt formats the chunks for the crate's edition (`package.edition`, 2015 if the manifest
//!   names none, as for cargo), unless `[preprocessor.litbook] edition` in `book.toml` says
//!   otherwise, and with the settings of the book root's `rustfmt.toml` (or `.rustfmt.toml`) if it
//!   has one, so that a book can keep its code narrower than the rest of the crate: its pages show
//!   fewer columns than an editor.
//! - The book's figures are drawn by the program whose package directory `[preprocessor.litbook]
//!   figures` names, relative to the book's root; a book without one has no figures.
//! - The weaver keeps its script and style sheet in the book's `theme` directory, or the one
//!   `[preprocessor.litbook] theme` names, relative to the book's root.

use std::path::{Path, PathBuf};

use crate::manifest::{Manifest, TomlFile};
use crate::{Diagnostic, Place};

/// A crate with a book, as its configuration describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Project {
    /// The crate's directory, where its `Cargo.toml` is.
    pub crate_dir: PathBuf,
    /// The book's root, where `book.toml` is or would be, relative to the crate (`book`).
    pub book_root: String,
    /// The chapters' directory relative to the crate, with `/` between names: the prefix of every
    /// place in the book (`book/src`).
    pub src: String,
    /// The Rust edition rustfmt formats the chunks for.
    pub edition: String,
    /// The program that draws the book's figures, if it has figures.
    pub figures: Option<Figures>,
    /// The directory of the weaver's script and style sheet, relative to the crate (`book/theme`).
    pub theme: String,
}

/// The workspace `start` is in (its root: the nearest directory at or above it whose manifest has
/// `[workspace] members`) and its members with a book.
#[cfg(feature = "tools")]
fn workspace_books(start: &Path) -> Option<(PathBuf, Vec<Project>)> {
    let (root, manifest) = start.ancestors().find_map(|dir| {
        let manifest = TomlFile::read(dir, "Cargo.toml").ok()??;
        let members = manifest.strings(&["workspace", "members"]);
        (!members.is_empty()).then(|| (dir.to_path_buf(), manifest))
    })?;
    let excluded: Vec<PathBuf> = (manifest.strings(&["workspace", "exclude"]).iter())
        .map(|path| root.join(path))
        .collect();
    let mut members: Vec<PathBuf> = (manifest.strings(&["workspace", "members"]).iter())
        .flat_map(|pattern| directories_matching(&root, pattern))
        .filter(|member| *member != root && !excluded.contains(member))
        .collect();
    members.sort();
    members.dedup();
    let books = members
        .iter()
        .filter(|member| member.join("Cargo.toml").is_file())
        .filter_map(|member| Project::open(member).ok())
        .filter(|project| project.src_dir().join("SUMMARY.md").is_file())
        .collect();
    Some((root, books))
}

/// The directories under `root` a workspace's member pattern names (`stack`, `crates/*`), with `*`
/// and `?` standing for any letters of one name, as cargo reads them.
#[cfg(feature = "tools")]
fn directories_matching(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut found = vec![root.to_path_buf()];
    for name in pattern
        .split('/')
        .filter(|name| !name.is_empty() && *name != ".")
    {
        found = found
            .into_iter()
            .flat_map(|dir| -> Vec<PathBuf> {
                if !name.contains(['*', '?']) {
                    return vec![dir.join(name)];
                }
                let entries = std::fs::read_dir(&dir).into_iter().flatten().flatten();
                entries
                    .filter(|entry| wildcard(name, &entry.file_name().to_string_lossy()))
                    .map(|entry| entry.path())
                    .collect()
            })
            .collect();
    }
    found.into_iter().filter(|dir| dir.is_dir()).collect()
}

/// Whether `name` matches `pattern`, where `*` stands for any letters and `?` for one.
#[cfg(feature = "tools")]
fn wildcard(pattern: &str, name: &str) -> bool {
    let (pattern, name): (Vec<char>, Vec<char>) =
        (pattern.chars().collect(), name.chars().collect());
    fn matches(p: &[char], n: &[char]) -> bool {
        match (p.first(), n.first()) {
            (None, _) => n.is_empty(),
            (Some('*'), _) => matches(&p[1..], n) || (!n.is_empty() && matches(p, &n[1..])),
            (Some('?'), Some(_)) => matches(&p[1..], &n[1..]),
            (Some(a), Some(b)) => a == b && matches(&p[1..], &n[1..]),
            (Some(_), None) => false,
        }
    }
    matches(&pattern, &name)
}

/// `path` as written from `root` when it is inside it, else in full.
#[cfg(feature = "tools")]
fn relative_to(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative.to_string_lossy().replace('\\', "/")
}

/// The program that draws a book's figures: a package of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figures {
    /// The package's directory, relative to the crate.
    pub dir: String,
    /// The package's name, which is also its program's.
    pub package: String,
}

/// The name of the preprocessor's table in `book.toml`: `[preprocessor.litbook]`.
pub const PREPROCESSOR: &str = "litbook";

impl Project {
    /// Reads the configuration of the crate in `crate_dir`. A manifest or `book.toml` that cannot
    /// be read, or holds a setting of the wrong kind, is reported at its place.
    pub fn open(crate_dir: &Path) -> Result<Project, Diagnostic> {
        let manifest = Manifest::read(crate_dir)?;
        let manifest = manifest.toml();
        let book_root = manifest
            .string(&["package", "metadata", "litbook", "book"])?
            .unwrap_or_else(|| "book".to_string());
        let book_root = clean(&book_root);
        let config = TomlFile::read(crate_dir, &join(&book_root, "book.toml"))?;
        let setting = |keys: &[&str]| match &config {
            Some(config) => config.string(keys),
            None => Ok(None),
        };
        let src = setting(&["book", "src"])?.unwrap_or_else(|| "src".to_string());
        let edition = match setting(&["preprocessor", PREPROCESSOR, "edition"])? {
            Some(edition) => edition,
            None => manifest
                .string(&["package", "edition"])?
                .unwrap_or_else(|| "2015".to_string()),
        };
        let figures = match setting(&["preprocessor", PREPROCESSOR, "figures"])? {
            Some(dir) => Some(figures_at(crate_dir, &join(&book_root, &clean(&dir)))?),
            None => None,
        };
        let theme = setting(&["preprocessor", PREPROCESSOR, "theme"])?;
        Ok(Project {
            crate_dir: crate_dir.to_path_buf(),
            src: join(&book_root, &clean(&src)),
            theme: join(&book_root, &clean(theme.as_deref().unwrap_or("theme"))),
            figures,
            book_root,
            edition,
        })
    }

    /// The crate, in `start` or the nearest directory above it, whose book has a `SUMMARY.md`
    /// (crates without a book, such as a workspace's other members, are passed over). `Ok(None)`
    /// when there is none; an error when a crate's configuration on the way cannot be read.
    pub fn find(start: &Path) -> Result<Option<Project>, Diagnostic> {
        for dir in start.ancestors() {
            if !dir.join("Cargo.toml").is_file() {
                continue;
            }
            let project = Project::open(dir)?;
            if project.src_dir().join("SUMMARY.md").is_file() {
                return Ok(Some(project));
            }
        }
        Ok(None)
    }

    /// [`Project::find`], or else the one member with a book of the workspace `start` is in (a
    /// command run at a workspace's root serves its book), with a reason to show when there is no
    /// book or more than one.
    #[cfg(feature = "tools")]
    pub fn locate(start: &Path) -> Result<Project, String> {
        if let Some(found) = Project::find(start).map_err(|problem| problem.to_string())? {
            return Ok(found);
        }
        let (root, mut members) = workspace_books(start).unwrap_or_default();
        match members.len() {
            0 => Err(format!(
                "no book at or above {}: the literate tools serve a crate whose book (in `book` \
                 beside Cargo.toml, or where `[package.metadata.litbook] book` puts it) has a \
                 SUMMARY.md; `litbook init` starts one",
                start.display()
            )),
            1 => Ok(members.remove(0)),
            _ => {
                let named: Vec<String> = (members.iter())
                    .map(|member| relative_to(&root, &member.crate_dir))
                    .collect();
                Err(format!(
                    "the workspace at {} has {} books ({}): run the command in the member whose \
                     book it is",
                    root.display(),
                    members.len(),
                    named.join(", ")
                ))
            }
        }
    }

    /// The chapters' directory.
    pub fn src_dir(&self) -> PathBuf {
        self.crate_dir.join(&self.src)
    }

    /// The rustfmt settings for the book's chunks: the book root's `rustfmt.toml` or
    /// `.rustfmt.toml`, if it has one.
    pub fn rustfmt_config(&self) -> Option<PathBuf> {
        ["rustfmt.toml", ".rustfmt.toml"]
            .iter()
            .map(|name| self.book_dir().join(name))
            .find(|path| path.is_file())
    }

    /// The book's root directory.
    pub fn book_dir(&self) -> PathBuf {
        self.crate_dir.join(&self.book_root)
    }

    /// The files this configuration is read from, whether or not they exist.
    pub fn config_files(&self) -> Vec<PathBuf> {
        vec![
            self.crate_dir.join("Cargo.toml"),
            self.book_dir().join("book.toml"),
        ]
    }

    /// The crate-relative place name of a chapter, from its path in the chapters' directory.
    pub fn chapter_display(&self, chapter: &str) -> String {
        join(&self.src, chapter)
    }
}

/// The figures program in the package directory `dir` of the crate: its name from its manifest.
fn figures_at(crate_dir: &Path, dir: &str) -> Result<Figures, Diagnostic> {
    let manifest = join(dir, "Cargo.toml");
    let missing = || {
        Diagnostic::new(
            Place::new(&manifest, 1, 1),
            format!(
                "`[preprocessor.{PREPROCESSOR}] figures` names {dir}, which has no Cargo.toml: it \
                 must be the package directory of the program that draws the book's figures"
            ),
        )
    };
    let package = TomlFile::read(crate_dir, &manifest)?.ok_or_else(missing)?;
    let name = package.string(&["package", "name"])?.ok_or_else(missing)?;
    Ok(Figures {
        dir: dir.to_string(),
        package: name,
    })
}

/// A relative path as the tools name it: `/` between names, no `.` parts, no trailing `/`.
fn clean(path: &str) -> String {
    let parts: Vec<&str> = path
        .split(['/', '\\'])
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    parts.join("/")
}

/// Two relative paths as one.
pub(crate) fn join(first: &str, second: &str) -> String {
    match (first.is_empty(), second.is_empty()) {
        (true, _) => second.to_string(),
        (_, true) => first.to_string(),
        _ => format!("{first}/{second}"),
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn crate_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        dir
    }

    const MANIFEST: &str = "[package]\nname = \"a\"\nedition = \"2021\"\n";

    #[test]
    fn a_book_without_book_toml_is_read_as_mdbook_reads_it() {
        let dir = crate_with(&[("Cargo.toml", MANIFEST)]);
        let project = Project::open(dir.path()).unwrap();
        assert_eq!(project.src, "book/src");
        assert_eq!(project.edition, "2021");
        assert_eq!(project.figures, None);
        assert_eq!(project.theme, "book/theme");
    }

    #[test]
    fn the_manifest_and_book_toml_place_the_chapters() {
        let manifest = format!("{MANIFEST}\n[package.metadata.litbook]\nbook = \"./docs/\"\n");
        let config = "[book]\nsrc = \"chapters\"\n\n[preprocessor.litbook]\nedition = \"2024\"\nfigures = \"../draw\"\ntheme = \"look\"\n";
        let draw = "[package]\nname = \"draw-it\"\n";
        let dir = crate_with(&[
            ("Cargo.toml", &manifest),
            ("docs/book.toml", config),
            ("draw/Cargo.toml", draw),
        ]);
        let project = Project::open(dir.path()).unwrap();
        assert_eq!(project.book_root, "docs");
        assert_eq!(project.src, "docs/chapters");
        assert_eq!(project.edition, "2024");
        assert_eq!(project.theme, "docs/look");
        assert_eq!(project.chapter_display("a.md"), "docs/chapters/a.md");
        let figures = project.figures.unwrap();
        assert_eq!(figures.dir, "docs/../draw");
        assert_eq!(figures.package, "draw-it");
    }

    #[test]
    fn a_book_at_the_crate_root_has_no_prefix() {
        let manifest = format!("{MANIFEST}\n[package.metadata.litbook]\nbook = \".\"\n");
        let dir = crate_with(&[("Cargo.toml", &manifest)]);
        let project = Project::open(dir.path()).unwrap();
        assert_eq!(project.src, "src");
        assert_eq!(project.chapter_display("a.md"), "src/a.md");
    }

    #[test]
    fn settings_of_the_wrong_kind_are_reported_at_their_place() {
        let config = "[book]\ntitle = \"x\"\nsrc = 3\n";
        let dir = crate_with(&[("Cargo.toml", MANIFEST), ("book/book.toml", config)]);
        let problem = Project::open(dir.path()).unwrap_err();
        assert_eq!(
            problem.to_string(),
            "book/book.toml:3:7: `book.src` must be a string"
        );
        let dir = crate_with(&[("Cargo.toml", MANIFEST), ("book/book.toml", "[book\n")]);
        let problem = Project::open(dir.path()).unwrap_err().to_string();
        assert!(
            problem.starts_with("book/book.toml:1:6: book/book.toml is not valid TOML"),
            "{problem}"
        );
    }

    #[test]
    fn a_figures_directory_without_a_package_is_refused() {
        let config = "[preprocessor.litbook]\nfigures = \"../nowhere\"\n";
        let dir = crate_with(&[("Cargo.toml", MANIFEST), ("book/book.toml", config)]);
        let problem = Project::open(dir.path()).unwrap_err().to_string();
        assert!(
            problem.starts_with("book/../nowhere/Cargo.toml:1:1: `[preprocessor.litbook] figures`"),
            "{problem}"
        );
    }

    #[test]
    fn a_crate_without_a_manifest_is_refused() {
        let dir = crate_with(&[]);
        let problem = Project::open(dir.path()).unwrap_err().to_string();
        assert!(problem.contains("no Cargo.toml here"), "{problem}");
    }

    #[test]
    fn the_nearest_crate_with_a_summary_is_found() {
        let dir = crate_with(&[
            ("Cargo.toml", MANIFEST),
            ("book/src/SUMMARY.md", "- [A](a.md)\n"),
            ("inner/Cargo.toml", MANIFEST),
        ]);
        let found = Project::find(&dir.path().join("inner/x")).unwrap().unwrap();
        assert_eq!(found.crate_dir, dir.path());
        let elsewhere = tempfile::tempdir().unwrap();
        assert_eq!(Project::find(elsewhere.path()).unwrap(), None);
    }

    #[cfg(feature = "tools")]
    #[test]
    fn at_a_workspace_s_root_its_one_member_with_a_book_is_served() {
        let workspace =
            "[workspace]\nmembers = [\"crates/*\", \"tool\"]\nexclude = [\"crates/old\"]\n";
        let dir = crate_with(&[
            ("Cargo.toml", workspace),
            ("crates/stack/Cargo.toml", MANIFEST),
            ("crates/stack/book/src/SUMMARY.md", "- [A](a.md)\n"),
            ("crates/plain/Cargo.toml", MANIFEST),
            ("crates/old/Cargo.toml", MANIFEST),
            ("crates/old/book/src/SUMMARY.md", "- [A](a.md)\n"),
            ("tool/Cargo.toml", MANIFEST),
        ]);
        let found = Project::locate(dir.path()).unwrap();
        assert_eq!(found.crate_dir, dir.path().join("crates/stack"));
        let summary = dir.path().join("tool/book/src/SUMMARY.md");
        std::fs::create_dir_all(summary.parent().unwrap()).unwrap();
        std::fs::write(&summary, "- [A](a.md)\n").unwrap();
        let two = Project::locate(dir.path()).unwrap_err();
        assert!(two.contains("has 2 books (crates/stack, tool)"), "{two}");
        assert!(wildcard("c?a*s", "crates") && !wildcard("c*z", "crates"));
    }
}
