//! Loading a book: `SUMMARY.md` and the chapters it lists, read from disk or through an editor's
//! unsaved texts, each problem (a chapter that cannot be read, bytes that are not UTF-8, a chapter
//! with chunks that the summary leaves out) at the place a reader fixes it.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Parser, Tag};

use crate::{Diagnostic, Marker, Place, SourceText, fenced_blocks, marker};

/// The chapters of a book, in the order `SUMMARY.md` lists them.
#[derive(Clone, Debug)]
pub struct Book {
    /// The chapters, in the order `SUMMARY.md` lists them.
    pub chapters: Vec<SourceText>,
    /// What a build depends on: the book's source directory (so that a chapter added to it counts),
    /// `SUMMARY.md` and every chapter it lists, present or not.
    pub inputs: Vec<PathBuf>,
}

/// Reads `SUMMARY.md` in `src_dir` and every chapter it links to. `display_dir` is how the reader
/// knows `src_dir` (`book/src`), the prefix of every place reported. A chapter that cannot be read is
/// reported at its link and left out; the others are still read, so that all problems show at once.
/// A chapter that is not valid UTF-8 is reported where the bad bytes start, and read with them
/// replaced, so that its chunks still count. A Markdown file in `src_dir` that holds chunks but is
/// not listed is reported too: its chunks would silently be left out of the program.
pub fn load_book(src_dir: &Path, display_dir: &str) -> (Book, Vec<Diagnostic>) {
    load_book_with(src_dir, display_dir, &mut Disk)
}

/// Where the tools read a book's files: the disk ([`Disk`]), or an editor's texts in front of it.
pub trait Files {
    /// The bytes of the file at `path`.
    fn read(&mut self, path: &Path) -> std::io::Result<Vec<u8>>;
}

/// The files as they are on disk.
pub struct Disk;

impl Files for Disk {
    fn read(&mut self, path: &Path) -> std::io::Result<Vec<u8>> {
        fs::read(path)
    }
}

/// Texts that stand in for files on disk, by path: an editor's unsaved chapters.
pub type Overlays = HashMap<PathBuf, String>;

impl Files for Overlays {
    fn read(&mut self, path: &Path) -> std::io::Result<Vec<u8>> {
        match self.get(path) {
            Some(text) => Ok(text.clone().into_bytes()),
            None => fs::read(path),
        }
    }
}

/// [`load_book`], reading every file through `files`.
pub fn load_book_with(
    src_dir: &Path,
    display_dir: &str,
    files: &mut dyn Files,
) -> (Book, Vec<Diagnostic>) {
    let summary_path = src_dir.join("SUMMARY.md");
    let mut book = Book {
        chapters: Vec::new(),
        inputs: vec![src_dir.to_path_buf(), summary_path.clone()],
    };
    let mut problems = Vec::new();
    let summary = match read_source(&summary_path, format!("{display_dir}/SUMMARY.md"), files) {
        Ok((summary, problem)) => {
            problems.extend(problem);
            summary
        }
        Err(problem) => return (book, vec![problem]),
    };
    let mut listed: Vec<(String, Place)> = Vec::new();
    for (path, place) in chapter_links(&summary) {
        if let Some((_, first)) = listed.iter().find(|(p, _)| *p == path) {
            problems.push(
                Diagnostic::new(
                    place,
                    format!("chapter `{path}` is listed twice in SUMMARY.md"),
                )
                .with_note(first.clone(), "first listed here"),
            );
            continue;
        }
        let file = src_dir.join(&path);
        book.inputs.push(file.clone());
        match read_source(&file, format!("{display_dir}/{path}"), files) {
            Ok((chapter, problem)) => {
                book.chapters.push(chapter);
                problems.extend(problem);
            }
            Err(problem) => problems.push(Diagnostic::new(
                place.clone(),
                format!(
                    "chapter `{path}` listed in SUMMARY.md cannot be read: {}",
                    problem.message
                ),
            )),
        }
        listed.push((path, place));
    }
    let listed: Vec<PathBuf> = listed.iter().map(|(path, _)| src_dir.join(path)).collect();
    problems.extend(unlisted_chapters(src_dir, display_dir, &listed, files));
    (book, problems)
}

/// A file's text, with a diagnostic if it is not valid UTF-8 (its text then has the bad bytes
/// replaced), or a diagnostic saying why it cannot be had at all.
fn read_source(
    path: &Path,
    display: String,
    files: &mut dyn Files,
) -> Result<(SourceText, Option<Diagnostic>), Diagnostic> {
    let bytes = files.read(path).map_err(|e| {
        let reason = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => e.to_string(),
        };
        Diagnostic::new(Place::new(display.clone(), 1, 1), reason)
    })?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok((SourceText::new(display, text), None)),
        Err(e) => {
            let valid_up_to = e.utf8_error().valid_up_to();
            let source = SourceText::new(display, String::from_utf8_lossy(e.as_bytes()));
            let place = source.place(valid_up_to);
            let problem = Diagnostic::new(place, "the file is not valid UTF-8 here");
            Ok((source, Some(problem)))
        }
    }
}

/// A problem for every Markdown file under `src_dir` that holds a chunk but is not among the
/// `listed` chapters (nor `SUMMARY.md`), at its first chunk's header. Directories are walked with a
/// list of their own, and links to directories are not followed, so no layout of files can loop.
fn unlisted_chapters(
    src_dir: &Path,
    display_dir: &str,
    listed: &[PathBuf],
    files: &mut dyn Files,
) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    let mut directories = vec![src_dir.to_path_buf()];
    while let Some(directory) = directories.pop() {
        let Ok(entries) = fs::read_dir(&directory) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                directories.push(path);
                continue;
            }
            let markdown = path.extension().is_some_and(|e| e == "md");
            if !markdown || path == src_dir.join("SUMMARY.md") || listed.contains(&path) {
                continue;
            }
            let relative = path.strip_prefix(src_dir).unwrap_or(&path);
            let display = format!("{display_dir}/{}", relative.to_string_lossy());
            let Ok((chapter, _)) = read_source(&path, display, files) else {
                continue;
            };
            if let Some(header) = first_header(&chapter) {
                problems.push(Diagnostic::new(
                    header,
                    format!(
                        "this chapter holds chunks, but SUMMARY.md does not list it, so they are not part of the program; list it in SUMMARY.md: `- [Title]({})`",
                        relative.to_string_lossy()
                    ),
                ));
            }
        }
    }
    problems
}

/// The place of the first chunk header of a chapter, if it has a chunk.
fn first_header(chapter: &SourceText) -> Option<Place> {
    fenced_blocks(&chapter.text).into_iter().find_map(|block| {
        let rust = block.info.split([',', ' ', '\t']).next() == Some("rust");
        let first = block.lines.first()?;
        let header = matches!(
            marker(&first.text),
            Some(Ok(Marker::Define(_) | Marker::Append(_)))
        );
        (rust && header).then(|| chapter.place(first.offset))
    })
}

/// The chapter files `SUMMARY.md` links to, in order, each with the place of its link. Draft chapters
/// (empty links) and links elsewhere (`https://…`, `#anchor`) are no chapters.
pub fn chapter_links(summary: &SourceText) -> Vec<(String, Place)> {
    Parser::new(&summary.text)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::Link { dest_url, .. }) => {
                let path = dest_url.split('#').next().unwrap_or("").to_string();
                let is_chapter = !path.is_empty() && !path.contains("://");
                is_chapter.then(|| (path, summary.place(range.start)))
            }
            _ => None,
        })
        .collect()
}
