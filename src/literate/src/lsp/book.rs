//! The book as the editor has it: the chapters on disk with the editor's unsaved texts in their
//! place, tangled on every change. A tangle that fails leaves the last good one in use. What a
//! keystroke does not change is kept: the texts of the files on disk (read again only when their
//! modification time or length changed) and the chunks of every chapter whose text is the same.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::lsp::positions::Positions;
use crate::{
    ChapterChunks, Diagnostic, Overlays, SourceText, TangledFile, Web, chapter_links, check_shells,
    load_book_with, tangle,
};

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
    disk: DiskTexts,
    /// The chunks of each chapter as last read: its index in the book, its text, and its chunks.
    chunks: HashMap<String, (usize, String, ChapterChunks)>,
}

/// The texts of the book's files on disk as last read, each with the modification time and length
/// its file had then.
#[derive(Default)]
struct DiskTexts(HashMap<PathBuf, (Option<SystemTime>, u64, String)>);

impl DiskTexts {
    /// The text of a file on disk: kept from the last reading while the file's stamp is the same,
    /// read again otherwise. `None` when it cannot be read as UTF-8, or changed while being read:
    /// then the book's loader reads it, and says what is wrong with it.
    fn text(&mut self, path: &Path) -> Option<String> {
        let before = stamp(path)?;
        if let Some((modified, len, text)) = self.0.get(path)
            && (*modified, *len) == before
        {
            return Some(text.clone());
        }
        self.0.remove(path);
        let text = String::from_utf8(fs::read(path).ok()?).ok()?;
        if stamp(path) != Some(before) {
            return None;
        }
        self.0
            .insert(path.to_path_buf(), (before.0, before.1, text.clone()));
        Some(text)
    }
}

/// A file's modification time (if the file system keeps one) and length.
fn stamp(path: &Path) -> Option<(Option<SystemTime>, u64)> {
    let metadata = fs::metadata(path).ok()?;
    Some((metadata.modified().ok(), metadata.len()))
}

impl EditedBook {
    pub fn new(crate_dir: &Path) -> EditedBook {
        let mut book = EditedBook {
            crate_dir: crate_dir.to_path_buf(),
            overlays: Overlays::new(),
            web: Web::default(),
            problems: Vec::new(),
            positions: Positions::default(),
            disk: DiskTexts::default(),
            chunks: HashMap::new(),
        };
        book.tangle();
        book
    }

    /// Tangles the latest texts. Returns the files when they tangled; otherwise keeps the last good
    /// tangle and records the problems.
    pub fn tangle(&mut self) -> Option<Vec<TangledFile>> {
        let src = self.crate_dir.join(BOOK_DIR);
        let texts = self.texts(&src);
        let (book, mut problems) = load_book_with(&src, BOOK_DIR, &texts);
        let chapters: Vec<(String, String)> = book
            .chapters
            .iter()
            .map(|c| (c.display.clone(), c.text.clone()))
            .collect();
        let parsed = self.chunks_of(&book.chapters);
        let (web, parse_problems) = Web::from_chapters(book.chapters, parsed);
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

    /// The texts of `SUMMARY.md` and every chapter it lists: the editor's where it has them, and
    /// the files' on disk otherwise, each read only if it changed since it was last read.
    fn texts(&mut self, src: &Path) -> Overlays {
        let mut texts = self.overlays.clone();
        let summary = src.join("SUMMARY.md");
        let summary_text = match texts.get(&summary) {
            Some(text) => Some(text.clone()),
            None => self.disk.text(&summary),
        };
        let Some(summary_text) = summary_text else {
            return texts;
        };
        let listed = chapter_links(&SourceText::new("SUMMARY.md", summary_text.clone()));
        texts.insert(summary, summary_text);
        for (path, _) in listed {
            let path = src.join(path);
            if !texts.contains_key(&path)
                && let Some(text) = self.disk.text(&path)
            {
                texts.insert(path, text);
            }
        }
        let known: Vec<PathBuf> = texts.keys().cloned().collect();
        self.disk.0.retain(|path, _| known.contains(path));
        texts
    }

    /// The chunks of each chapter: kept from the last reading where the chapter's text and place in
    /// the book are the same, read again otherwise.
    fn chunks_of(&mut self, chapters: &[SourceText]) -> Vec<ChapterChunks> {
        let read: Vec<ChapterChunks> = chapters
            .iter()
            .enumerate()
            .map(|(index, chapter)| match self.chunks.get(&chapter.display) {
                Some((i, text, chunks)) if *i == index && *text == chapter.text => chunks.clone(),
                _ => {
                    let chunks = ChapterChunks::parse(index, chapter);
                    let kept = (index, chapter.text.clone(), chunks.clone());
                    self.chunks.insert(chapter.display.clone(), kept);
                    chunks
                }
            })
            .collect();
        self.chunks
            .retain(|display, _| chapters.iter().any(|c| c.display == *display));
        read
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
