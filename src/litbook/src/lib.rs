//! A literate Rust crate keeps its source in a book: Markdown chapters, listed in mdBook's
//! `SUMMARY.md`, whose prose explains the code in the order a reader needs it, and whose code
//! blocks are named chunks that the build puts together into the crate's Rust files.
//!
//! ````markdown
//! The stack keeps its numbers in a vector, the top at the end.
//!
//! ```rust
//! // <<file:lib.rs>>=
//! pub struct Stack {
//!     items: Vec<i32>,
//! }
//! // <<pushing a number>>
//! ```
//! ````
//!
//! A block whose first line is `// <<name>>=` defines a chunk (`// <<name>>+=` continues it, in the
//! same chapter or a later one), a line `// <<name>>` inside a chunk stands for that chunk's text,
//! indented as the line is, and a root `// <<file:NAME.rs>>=` becomes a file. A chunk's fence is
//! plain `rust` (`js` for a web page's script); any other block is an illustration. Names are free
//! text. Every problem of the book (a chunk used but never defined, a syntax error in the tangled
//! Rust) stops the build at its line of the Markdown; `litbook check` and `litbook test` put the
//! compiler's errors, panics and backtraces there too, where plain `cargo` names the tangled file.
//!
//! # Start a book
//!
//! ```sh
//! cargo install litbook            # the program, with mdBook's preprocessor in it
//! cargo install mdbook --version 0.5.4 --locked
//! cargo new --lib my-book && cd my-book
//! # write some code, then:
//! litbook init                     # the crate's code moves into the book's first chapter
//! litbook test                     # cargo test, every place in the chapters
//! mdbook build book                # the woven book, in book/book
//! ```
//!
//! A new chapter is a Markdown file listed in `book/src/SUMMARY.md`; its chunks join the others by
//! name. `litbook fmt` formats the chunks as rustfmt would, and `litbook lsp` serves an editor with
//! rust-analyzer's help inside the chapters ([`lsp::run`]); `litbook --help` tells every command.
//!
//! # What makes a crate literate
//!
//! `litbook init` writes three lines, which a crate can have by hand as well. In `Cargo.toml`, the
//! tangler as a build dependency, without the tools a build never runs:
//!
//! ```toml
//! [build-dependencies]
//! litbook = { version = "0.1", default-features = false }
//! ```
//!
//! In `build.rs`, [`build_script::run`], which tangles the book into `OUT_DIR` and stops the build
//! with every problem at its place:
//!
//! ```no_run
//! fn main() {
//!     litbook::build_script::run();
//! }
//! ```
//!
//! And in `src/lib.rs` (or `src/main.rs`), the shell that compiles the tangled file:
//!
//! ```ignore
//! include!(concat!(env!("OUT_DIR"), "/lib.rs"));
//! ```
//!
//! `init` also writes the book's `book.toml`, which names the preprocessor (`litbook mdbook`:
//! [`preprocessor::run`]) that weaves the chapters with links between chunks and indexes.
//!
//! The library's public face is those entry points and what the tangler gives: [`tangle_book`] and
//! its [`Outcome`], the [`TangledFile`]s with their [`LineMap`]s back to the Markdown, and the
//! [`Diagnostic`]s at their [`Place`]s. The crate's other modules are public only because the
//! `litbook` program, the weaver's shell and the tools' own tests reach into them, and so are left
//! out of this documentation: they are not an API and may change in any release.

#![warn(missing_docs)]
// The front page shows build.rs as the whole file a user writes, its `main` included.
#![allow(clippy::needless_doctest_main)]

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
// on, and none of the tools' own dependencies. Those hidden are for the `litbook` program and the
// tools' tests (see the crate's documentation).
#[cfg(feature = "tools")]
#[doc(hidden)]
pub mod cargo_check;
#[cfg(feature = "tools")]
#[doc(hidden)]
pub mod cargo_command;
#[cfg(feature = "tools")]
mod cargo_messages;
#[cfg(feature = "tools")]
#[doc(hidden)]
pub mod cargo_run;
#[cfg(feature = "tools")]
#[doc(hidden)]
pub mod fmt;
#[cfg(feature = "tools")]
#[doc(hidden)]
pub mod identifiers;
#[cfg(feature = "tools")]
#[doc(hidden)]
pub mod init;
#[cfg(feature = "tools")]
pub mod lsp;
#[cfg(feature = "tools")]
pub mod preprocessor;
#[cfg(feature = "tools")]
mod splice;
#[cfg(feature = "tools")]
#[doc(hidden)]
pub mod theme;
#[cfg(feature = "tools")]
#[doc(hidden)]
pub mod weave;

pub use diagnostic::{Diagnostic, Place};
pub use line_map::LineMap;
pub use tangle::TangledFile;
pub use web::Web;

#[doc(hidden)]
pub use book::{Book, Disk, Files, Overlays, chapter_links, load_book, load_book_with};
#[doc(hidden)]
pub use markdown::{CodeBlock, CodeLine, fenced_blocks};
#[doc(hidden)]
pub use marker::{Marker, marker};
#[doc(hidden)]
pub use project::{Figures, PREPROCESSOR, Project};
#[doc(hidden)]
pub use shells::{ShellCache, check_shells, check_shells_kept, shell_paths};
#[doc(hidden)]
pub use source::SourceText;
#[cfg(feature = "tools")]
#[doc(hidden)]
pub use splice::{NewChapter, WriteError, write_chapters};
#[doc(hidden)]
pub use syntax::{MAX_NESTING, check_syntax, check_syntax_of_all};
#[doc(hidden)]
pub use tangle::{MAX_BYTES, MAX_LINES, is_announcement, tangle, write_if_changed};
#[doc(hidden)]
pub use web::{
    ChapterChunks, ChunkCache, Language, Line, Part, PartKind, Reference, Uses, root_file,
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
    /// Every problem found, at its place in the Markdown; a sound book has none.
    pub problems: Vec<Diagnostic>,
    /// Every file the result depends on, for a build script's `rerun-if-changed`.
    pub inputs: Vec<PathBuf>,
}

/// Whether a tangled file, exactly as it is, passed the syntax check before.
pub type Trusted<'a> = &'a dyn Fn(&TangledFile) -> bool;

/// How a book is read: through which files (the disk, or an editor's texts in front of it), with
/// or without keeping what did not change since the last reading, and which tangled files need no
/// syntax check (those that passed it before, exactly as they are).
pub struct Reading<'a> {
    /// Where the chapters are read from.
    pub files: &'a mut dyn Files,
    /// What is kept from the last reading, if anything is.
    pub kept: Option<&'a mut Kept>,
    /// Which tangled files need no syntax check.
    pub checked_before: Trusted<'a>,
}

/// What a reader that reads the same book again and again keeps between readings: the chunks of
/// each chapter and the includes of each shell, each read again only when its text changed.
#[derive(Default)]
pub struct Kept {
    /// The chunks of each chapter, by its text.
    pub chunks: ChunkCache,
    /// The includes of each shell, by its text.
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
/// book's chapters (where the crate's configuration puts them, see `Project`) tangled and checked
/// as [`tangle_book`] does, and the crate's shells checked to include every tangled file and
/// nothing else (`check_shells`). The inputs are every file the result depends on, the
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
