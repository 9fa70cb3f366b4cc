use std::fs;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Parser, Tag};

use crate::{Diagnostic, Place, SourceText};

/// The chapters of a book, in the order `SUMMARY.md` lists them.
#[derive(Clone, Debug)]
pub struct Book {
    pub chapters: Vec<SourceText>,
    /// `SUMMARY.md` and every chapter it lists, present or not: the files a build depends on.
    pub inputs: Vec<PathBuf>,
}

/// Reads `SUMMARY.md` in `src_dir` and every chapter it links to. `display_dir` is how the reader
/// knows `src_dir` (`book/src`), the prefix of every place reported. A chapter that cannot be read is
/// reported at its link and left out; the others are still read, so that all problems show at once.
pub fn load_book(src_dir: &Path, display_dir: &str) -> (Book, Vec<Diagnostic>) {
    let summary_path = src_dir.join("SUMMARY.md");
    let mut book = Book {
        chapters: Vec::new(),
        inputs: vec![summary_path.clone()],
    };
    let summary = match read_source(&summary_path, format!("{display_dir}/SUMMARY.md")) {
        Ok(summary) => summary,
        Err(problem) => return (book, vec![problem]),
    };
    let mut problems = Vec::new();
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
        match read_source(&file, format!("{display_dir}/{path}")) {
            Ok(chapter) => book.chapters.push(chapter),
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
    (book, problems)
}

/// A file's text, or a diagnostic saying why it cannot be had (missing, not UTF-8).
fn read_source(path: &Path, display: String) -> Result<SourceText, Diagnostic> {
    let bytes = fs::read(path).map_err(|e| {
        let reason = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => e.to_string(),
        };
        Diagnostic::new(Place::new(display.clone(), 1, 1), reason)
    })?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(SourceText::new(display, text)),
        Err(e) => {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let valid = SourceText::new(display, String::from_utf8_lossy(valid));
            let place = valid.place(valid.text.len());
            Err(Diagnostic::new(place, "the file is not valid UTF-8 here"))
        }
    }
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
