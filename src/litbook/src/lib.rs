//! The literate tooling of the Chat Noir book.
//!
//! The book's chapters are Markdown files listed in `SUMMARY.md`. Their plain `rust` code blocks that
//! begin with a header comment (`// <<name>>=` or `// <<name>>+=`) are named chunks; a line
//! `// <<name>>` inside a chunk stands for that chunk's text, and roots (`// <<file:NAME.rs>>=`)
//! become files. `js` blocks are chunks too, in JavaScript, with roots `// <<file:NAME.js>>=`. This
//! crate reads that web ([`Web`]), tangles it into Rust files with a line map back to the Markdown
//! ([`tangle`]) and checks the tangled Rust's syntax ([`check_syntax`]): what a literate crate's
//! build script runs ([`build_script`]). With the `tools` feature (on by default; a build
//! dependency leaves it off) it also maps the compiler's diagnostics back to Markdown places
//! (`cargo_check`), weaves chapters for mdbook (`weave`), formats chunks (`fmt`), makes a crate
//! literate (`init`) and serves an editor (`lsp`).

mod book;
pub mod build_script;
mod diagnostic;
mod line_map;
mod manifest;
mod markdown;
mod marker;
mod project;
mod shells;
mod source;
mod syntax;
mod tangle;
mod web;

// The tools, which a build script never runs: a literate crate's build dependency leaves them off
// (`default-features = false`), so its first build compiles the tangler and the parsers it stands
// on, and none of the tools' own dependencies.
#[cfg(feature = "tools")]
pub mod cargo_check;
#[cfg(feature = "tools")]
pub mod cargo_command;
#[cfg(feature = "tools")]
mod cargo_messages;
#[cfg(feature = "tools")]
pub mod cargo_run;
#[cfg(feature = "tools")]
pub mod fmt;
#[cfg(feature = "tools")]
pub mod identifiers;
#[cfg(feature = "tools")]
pub mod init;
#[cfg(feature = "tools")]
pub mod lsp;
#[cfg(feature = "tools")]
pub mod preprocessor;
#[cfg(feature = "tools")]
mod splice;
#[cfg(feature = "tools")]
pub mod theme;
#[cfg(feature = "tools")]
pub mod weave;

pub use book::{Book, Disk, Files, Overlays, chapter_links, load_book, load_book_with};
pub use diagnostic::{Diagnostic, Place};
pub use line_map::LineMap;
pub use markdown::{CodeBlock, CodeLine, fenced_blocks};
pub use marker::{Marker, marker};
pub use project::{Figures, PREPROCESSOR, Project};
pub use shells::{ShellCache, check_shells, check_shells_kept, shell_paths};
pub use source::SourceText;
#[cfg(feature = "tools")]
pub use splice::{NewChapter, WriteError, write_chapters};
pub use syntax::{MAX_NESTING, check_syntax, check_syntax_of_all};
pub use tangle::{MAX_BYTES, MAX_LINES, TangledFile, is_announcement, tangle, write_if_changed};
pub use web::{
    ChapterChunks, ChunkCache, Language, Line, Part, PartKind, Reference, Uses, Web, root_file,
};

use std::path::{Path, PathBuf};

/// What tangling a book on disk gives: the files (when the web is sound), every problem found, and
/// every file the result depends on.
#[derive(Debug)]
pub struct Outcome {
    /// The chunks of the book as read, sound or not.
    pub web: Web,
    /// The Rust files: what the build compiles and every Rust tool (the syntax check, the shells,
    /// `fmt`, the language server) reads.
    pub files: Vec<TangledFile>,
    /// The files of the book's other languages (JavaScript, for a web page), written for whoever
    /// serves them: the weaver publishes them with the book.
    pub scripts: Vec<TangledFile>,
    pub problems: Vec<Diagnostic>,
    pub inputs: Vec<PathBuf>,
}

/// Whether a tangled file, exactly as it is, passed the syntax check before.
pub type Trusted<'a> = &'a dyn Fn(&TangledFile) -> bool;

/// How a book is read: through which files (the disk, or an editor's texts in front of it), with
/// or without keeping what did not change since the last reading, and which tangled files need no
/// syntax check (those that passed it before, exactly as they are).
pub struct Reading<'a> {
    pub files: &'a mut dyn Files,
    pub kept: Option<&'a mut Kept>,
    pub checked_before: Trusted<'a>,
}

/// What a reader that reads the same book again and again keeps between readings: the chunks of
/// each chapter and the includes of each shell, each read again only when its text changed.
#[derive(Default)]
pub struct Kept {
    pub chunks: ChunkCache,
    pub shells: ShellCache,
}

/// Loads the book in `src_dir` (known to the reader as `display_dir`), tangles it and checks the
/// syntax of every tangled file.
pub fn tangle_book(src_dir: &Path, display_dir: &str) -> Outcome {
    let mut reading = Reading {
        files: &mut Disk,
        kept: None,
        checked_before: &|_| false,
    };
    tangle_chapters(src_dir, display_dir, &mut reading)
}

/// What every reader of a book stands on: from the chapters to tangled files whose syntax is
/// checked, with every problem at its Markdown place.
fn tangle_chapters(src_dir: &Path, display_dir: &str, reading: &mut Reading) -> Outcome {
    let (book, mut problems) = load_book_with(src_dir, display_dir, reading.files);
    let (web, parse_problems) = match reading.kept.as_deref_mut() {
        Some(kept) => {
            let parsed = kept.chunks.read(&book.chapters);
            Web::from_chapters(book.chapters, parsed)
        }
        None => Web::parse(book.chapters),
    };
    problems.extend(parse_problems);
    let (files, scripts) = match tangle(&web) {
        Ok(files) => files
            .into_iter()
            .partition(|file| Language::of_file(&file.name) == Language::Rust),
        Err(tangle_problems) => {
            problems.extend(tangle_problems);
            (Vec::new(), Vec::new())
        }
    };
    let checked_before = reading.checked_before;
    problems.extend(check_syntax_of_all(
        files.iter().filter(|file| !checked_before(file)),
    ));
    Outcome {
        web,
        files,
        scripts,
        problems,
        inputs: book.inputs,
    }
}

/// The one way from a crate's book to a checked crate, used by the build script, the book's
/// preprocessor, `litbook check` and `fmt`, the language server and the book's own tests: the
/// book's chapters (where the crate's configuration puts them, see [`Project`]) tangled and checked
/// as [`tangle_book`] does, and the crate's shells checked to include every tangled file and
/// nothing else ([`check_shells`]). The inputs are every file the result depends on, the
/// configuration included.
pub fn tangle_project(project: &Project, reading: &mut Reading) -> Outcome {
    let crate_dir = &project.crate_dir;
    let mut outcome = tangle_chapters(&project.src_dir(), &project.src, reading);
    if outcome.problems.is_empty() {
        let shells = match reading.kept.as_deref_mut() {
            Some(kept) => {
                check_shells_kept(crate_dir, &outcome.files, reading.files, &mut kept.shells)
            }
            None => check_shells(crate_dir, &outcome.files, reading.files),
        };
        outcome.problems.extend(shells);
    }
    outcome.inputs.extend(shell_paths(crate_dir));
    outcome.inputs.push(crate_dir.join("tests"));
    outcome.inputs.extend(project.config_files());
    outcome
}

/// [`tangle_project`] of the crate in `crate_dir`, read from disk.
pub fn tangle_crate(crate_dir: &Path) -> Outcome {
    tangle_crate_trusting(crate_dir, &|_| false)
}

/// [`tangle_crate`] for a build that keeps what it tangled last time: the files that
/// `checked_before` vouches for (the same text as a file written after a check that passed) are not
/// parsed again. Parsing is most of the tangler's work, and after a prose edit no file changes.
pub fn tangle_crate_trusting(crate_dir: &Path, checked_before: Trusted) -> Outcome {
    match Project::open(crate_dir) {
        Ok(project) => tangle_project_on_disk(&project, checked_before),
        Err(problem) => Outcome {
            web: Web::default(),
            files: Vec::new(),
            scripts: Vec::new(),
            problems: vec![problem],
            inputs: vec![crate_dir.join("Cargo.toml")],
        },
    }
}

/// [`tangle_project`] with the book read from disk, for a caller that has opened the project
/// already; the files that `checked_before` vouches for are not parsed again.
pub fn tangle_project_on_disk(project: &Project, checked_before: Trusted) -> Outcome {
    let mut reading = Reading {
        files: &mut Disk,
        kept: None,
        checked_before,
    };
    tangle_project(project, &mut reading)
}
