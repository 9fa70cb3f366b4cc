//! Places in the book and the problems found at them: what every part of the tools reports, shown as
//! `FILE:LINE:COL: message` as compilers show theirs, so that editors and terminals link them.

use std::fmt;

/// A place in the book as a reader finds it: the Markdown file's path as shown to the reader
/// (`book/src/world.md`), and a 1-based line and column (the column counts characters).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Place {
    /// The file, as the reader knows it (`book/src/world.md`).
    pub file: String,
    /// The line, counted from 1.
    pub line: usize,
    /// The column in characters, counted from 1.
    pub col: usize,
}

impl Place {
    /// The place at `line` and `col` of `file`.
    pub fn new(file: impl Into<String>, line: usize, col: usize) -> Place {
        Place {
            file: file.into(),
            line,
            col,
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// One problem found in the book, at the place a reader fixes it, with further places that explain it
/// (the first definition of a doubly defined chunk, each step of a cycle).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where the problem is.
    pub place: Place,
    /// What is wrong, in one line.
    pub message: String,
    /// Other places the problem involves (the first definition of a chunk defined twice), each with what it says there.
    pub notes: Vec<(Place, String)>,
}

impl Diagnostic {
    /// A problem at `place`.
    pub fn new(place: Place, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            place,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// The problem with a note at another place.
    pub fn with_note(mut self, place: Place, note: impl Into<String>) -> Diagnostic {
        self.notes.push((place, note.into()));
        self
    }
}

/// A problem is an error of its own, for the tools that pass it on with others.
impl std::error::Error for Diagnostic {}

/// `FILE:LINE:COL: message`, then one indented line for each note.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place, self.message)?;
        for (place, note) in &self.notes {
            write!(f, "\n    {place}: {note}")?;
        }
        Ok(())
    }
}
