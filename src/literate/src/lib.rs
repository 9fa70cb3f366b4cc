//! The literate tooling of the Chat Noir book.
//!
//! The book's chapters are Markdown files listed in `SUMMARY.md`. Their plain `rust` code blocks that
//! begin with a header comment (`// <<name>>=` or `// <<name>>+=`) are named chunks; a line
//! `// <<name>>` inside a chunk stands for that chunk's text, and roots (`// <<file:NAME.rs>>=`)
//! become files. This crate reads that web ([`Web`]), tangles it into Rust files with a line map back
//! to the Markdown ([`tangle`]), checks the tangled Rust's syntax ([`check_syntax`]), maps the
//! compiler's diagnostics back to Markdown places ([`cargo_check`]) and weaves chapters for mdbook
//! ([`weave`]).

mod book;
pub mod cargo_check;
mod diagnostic;
pub mod fmt;
pub mod identifiers;
mod line_map;
#[cfg(feature = "lsp")]
pub mod lsp;
mod markdown;
mod marker;
mod shells;
mod source;
mod splice;
mod syntax;
mod tangle;
pub mod weave;
mod web;

pub use book::{Book, Overlays, chapter_links, load_book, load_book_with};
pub use diagnostic::{Diagnostic, Place};
pub use line_map::LineMap;
pub use markdown::{CodeBlock, CodeLine, fenced_blocks};
pub use marker::{Marker, marker};
pub use shells::{check_shells, root_roles, shell_paths};
pub use source::SourceText;
pub use splice::{NewChapter, WriteError, write_chapters};
pub use syntax::{MAX_NESTING, check_syntax, check_syntax_of_all};
pub use tangle::{MAX_BYTES, MAX_LINES, TangledFile, is_announcement, tangle, write_if_changed};
pub use web::{ChapterChunks, Line, Part, PartKind, Reference, Web, root_file};

use std::path::{Path, PathBuf};

/// What tangling a book on disk gives: the files (when the web is sound), every problem found, and
/// every file the result depends on.
#[derive(Debug)]
pub struct Outcome {
    /// The chunks of the book as read, sound or not.
    pub web: Web,
    pub files: Vec<TangledFile>,
    pub problems: Vec<Diagnostic>,
    pub inputs: Vec<PathBuf>,
}

/// Whether a tangled file, exactly as it is, passed the syntax check before.
pub type Trusted<'a> = &'a dyn Fn(&TangledFile) -> bool;

/// Loads the book in `src_dir` (known to the reader as `display_dir`), tangles it and checks the
/// syntax of every tangled file.
pub fn tangle_book(src_dir: &Path, display_dir: &str) -> Outcome {
    tangle_book_trusting(src_dir, display_dir, &|_| false)
}

/// [`tangle_book`], except that the syntax of the files `checked_before` vouches for is not checked
/// again.
fn tangle_book_trusting(src_dir: &Path, display_dir: &str, checked_before: Trusted) -> Outcome {
    let (book, mut problems) = load_book(src_dir, display_dir);
    let (web, parse_problems) = Web::parse(book.chapters);
    problems.extend(parse_problems);
    let files = match tangle(&web) {
        Ok(files) => files,
        Err(tangle_problems) => {
            problems.extend(tangle_problems);
            Vec::new()
        }
    };
    problems.extend(check_syntax_of_all(
        files.iter().filter(|file| !checked_before(file)),
    ));
    Outcome {
        web,
        files,
        problems,
        inputs: book.inputs,
    }
}

/// Tangles the book of the crate in `crate_dir` (its chapters in `book/src`), as [`tangle_book`]
/// does, and checks that the crate's shells include every tangled file and nothing else
/// ([`check_shells`]). The book's preprocessor and `literate check` stand on this call, and the build
/// script on [`tangle_crate_trusting`], which finds the same problems, so all three report them
/// alike.
pub fn tangle_crate(crate_dir: &Path) -> Outcome {
    tangle_crate_trusting(crate_dir, &|_| false)
}

/// [`tangle_crate`] for a build that keeps what it tangled last time: the files that
/// `checked_before` vouches for (the same text as a file written after a check that passed) are not
/// parsed again. Parsing is most of the tangler's work, and after a prose edit no file changes.
pub fn tangle_crate_trusting(crate_dir: &Path, checked_before: Trusted) -> Outcome {
    let mut outcome = tangle_book_trusting(&crate_dir.join("book/src"), "book/src", checked_before);
    if outcome.problems.is_empty() {
        outcome
            .problems
            .extend(check_shells(crate_dir, &outcome.files));
    }
    outcome.inputs.extend(shell_paths(crate_dir));
    outcome.inputs.push(crate_dir.join("tests"));
    outcome
}
