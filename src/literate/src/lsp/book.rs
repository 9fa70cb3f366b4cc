//! The book as the editor has it: the chapters on disk with the editor's unsaved texts in their
//! place, tangled on every change. A tangle that fails leaves the last good one in use.

use std::path::{Path, PathBuf};

use crate::lsp::positions::Positions;
use crate::{Diagnostic, Overlays, TangledFile, Web, check_shells, load_book_with, tangle};

/// Where the chapters are, relative to the crate, as places name them.
pub const BOOK_DIR: &str = "book/src";

/// The book of one crate, as last tangled.
pub struct EditedBook {
    pub crate_dir: PathBuf,
    pub overlays: Overlays,
    /// The chunks of the latest texts, whether or not they tangled.
    pub web: Web,
    /// What kept the latest texts from tangling; empty when they tangled.
    pub problems: Vec<Diagnostic>,
    /// The last good tangle.
    pub positions: Positions,
}

impl EditedBook {
    pub fn new(crate_dir: &Path) -> EditedBook {
        let mut book = EditedBook {
            crate_dir: crate_dir.to_path_buf(),
            overlays: Overlays::new(),
            web: Web::default(),
            problems: Vec::new(),
            positions: Positions::default(),
        };
        book.tangle();
        book
    }

    /// Tangles the latest texts. Returns the files when they tangled; otherwise keeps the last good
    /// tangle and records the problems.
    pub fn tangle(&mut self) -> Option<Vec<TangledFile>> {
        let src = self.crate_dir.join(BOOK_DIR);
        let (book, mut problems) = load_book_with(&src, BOOK_DIR, &self.overlays);
        let chapters: Vec<(String, String)> = book
            .chapters
            .iter()
            .map(|c| (c.display.clone(), c.text.clone()))
            .collect();
        let (web, parse_problems) = Web::parse(book.chapters);
        problems.extend(parse_problems);
        let files = match tangle(&web) {
            Ok(files) if problems.is_empty() => {
                problems.extend(check_shells(&self.crate_dir, &files));
                Some(files)
            }
            Ok(_) => None,
            Err(tangle_problems) => {
                problems.extend(tangle_problems);
                None
            }
        };
        self.web = web;
        self.problems = problems;
        let Some(files) = files.filter(|_| self.problems.is_empty()) else {
            self.positions.follow(&chapters);
            return None;
        };
        self.positions = Positions::new(&files, &chapters);
        Some(files)
    }

    /// The name places give a file of the book (`book/src/x.md`), if it is one.
    pub fn chapter_name(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(&self.crate_dir).ok()?;
        relative
            .starts_with(BOOK_DIR)
            .then(|| relative.to_string_lossy().replace('\\', "/"))
    }

    /// The path of a file of the book from its name in places.
    pub fn chapter_path(&self, name: &str) -> PathBuf {
        self.crate_dir.join(name)
    }

    /// The text of a 0-based line of a chapter as the editor has it now.
    pub fn current_line(&self, chapter: &str, line: usize) -> Option<String> {
        let path = self.chapter_path(chapter);
        let text = match self.overlays.get(&path) {
            Some(text) => text.clone(),
            None => std::fs::read_to_string(&path).ok()?,
        };
        text.lines().nth(line).map(str::to_string)
    }
}
