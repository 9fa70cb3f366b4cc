//! What the server answers itself about chunks, from the book as last read: where a chunk's parts
//! are, every reference to it, its text, the names to complete after `// <<`, and a chapter's
//! outline.

use lsp_types::{CompletionItemKind, SymbolKind};
use serde_json::{Value, json};

use crate::lsp::book::EditedBook;
use crate::lsp::chunks::{
    chunk_named_at, chunk_text, completions, name_being_typed, part_headers, parts_in,
};
use crate::lsp::positions::{Located, chars_before, utf16_len};
use crate::lsp::run_test;
use crate::lsp::uri::uri_of;
use crate::{Place, Web};

/// A chapter's outline: its chunk parts.
pub fn document_symbols(book: &EditedBook, at: &Located) -> Option<Value> {
    Some(outline(book, &at.file))
}

/// A chapter's chunk parts, to fold.
pub fn folding_ranges(book: &EditedBook, at: &Located) -> Option<Value> {
    Some(folds(book, &at.file))
}

/// A "run this test" lens over each test of a chapter's chunks.
pub fn test_lenses(book: &EditedBook, at: &Located) -> Option<Value> {
    let uri = uri_of(&book.chapter_path(&at.file));
    Some(run_test::lenses(book, &at.file, &uri))
}

/// On a chunk marker, the chunk's text and where its parts are.
pub fn chunk_hover(book: &EditedBook, at: &Located) -> Option<Value> {
    let name = chunk_named_at(&book.web, &at.file, at.position.line)?;
    Some(hover(book, &name))
}

/// On a chunk marker, every part of the chunk.
pub fn chunk_parts(book: &EditedBook, at: &Located) -> Option<Value> {
    let name = chunk_named_at(&book.web, &at.file, at.position.line)?;
    Some(locations(book, &name))
}

/// On a chunk marker, every part of the chunk and every reference to it.
pub fn chunk_references(book: &EditedBook, at: &Located) -> Option<Value> {
    let name = chunk_named_at(&book.web, &at.file, at.position.line)?;
    Some(references(book, &name))
}

/// In a chunk marker being typed (after `// <<`), the names of chunks to complete it with.
pub fn chunk_names(book: &EditedBook, at: &Located) -> Option<Value> {
    completion(book, at)
}

/// Every part of a chunk, as locations.
fn locations(book: &EditedBook, name: &str) -> Value {
    let locations: Vec<Value> = part_headers(&book.web, name)
        .iter()
        .map(|place| location(book, place))
        .collect();
    Value::Array(locations)
}

/// Every part of a chunk and every reference to it.
fn references(book: &EditedBook, name: &str) -> Value {
    let web = &book.web;
    let references = web
        .references()
        .filter(|(_, reference)| reference.name == name)
        .map(|(_, reference)| &reference.place);
    let headers = part_headers(web, name);
    let locations: Vec<Value> = headers
        .iter()
        .chain(references)
        .map(|place| location(book, place))
        .collect();
    Value::Array(locations)
}

/// A place of the book as a location, to the end of its line.
pub fn location(book: &EditedBook, place: &Place) -> Value {
    let uri = uri_of(&book.chapter_path(&place.file));
    json!({"uri": uri, "range": line_range(book, place)})
}

/// The range from a place to the end of its line, in the text the editor has.
pub fn line_range(book: &EditedBook, place: &Place) -> Value {
    let line = place.line.saturating_sub(1);
    let text = book.current_line(&place.file, line).unwrap_or_default();
    let start = utf16_len(&text, place.col.saturating_sub(1));
    let end = utf16_len(&text, usize::MAX).max(start);
    json!({
        "start": {"line": line, "character": start},
        "end": {"line": line, "character": end},
    })
}

/// A chunk's parts, chapters and text with its references expanded.
fn hover(book: &EditedBook, name: &str) -> Value {
    let web = &book.web;
    let parts = web.parts_of(name).count();
    if parts == 0 {
        let value = format!("⟨{name}⟩ is not defined");
        return json!({"contents": {"kind": "markdown", "value": value}});
    }
    let chapters = chapters_of(web, name, &book.project.src);
    let value = format!(
        "⟨{name}⟩: {parts} part(s), in {}\n\n```rust\n{}\n```",
        chapters.join(", "),
        chunk_text(web, name)
    );
    json!({"contents": {"kind": "markdown", "value": value}})
}

/// The names of chunks to complete after `// <<`, if the cursor stands in such a marker.
fn completion(book: &EditedBook, at: &Located) -> Option<Value> {
    let line = book.current_line(&at.file, at.position.line)?;
    let cursor = chars_before(&line, at.position.character);
    let before: String = line.chars().take(cursor).collect();
    let (typed, start) = name_being_typed(&before)?;
    let closed = line
        .chars()
        .skip(cursor)
        .collect::<String>()
        .starts_with(">>");
    let range = json!({
        "start": {"line": at.position.line, "character": utf16_len(&line, start)},
        "end": {"line": at.position.line, "character": utf16_len(&line, cursor)},
    });
    let items: Vec<Value> = completions(&book.web, &typed)
        .into_iter()
        .map(|name| {
            let text = if closed {
                name.to_string()
            } else {
                format!("{name}>>")
            };
            json!({
                "label": name,
                "kind": CompletionItemKind::MODULE,
                "detail": "chunk",
                "filterText": name,
                "textEdit": {"range": range, "newText": text},
            })
        })
        .collect();
    Some(json!({"isIncomplete": false, "items": items}))
}

/// A chapter's outline: its chunk parts, each from its header to the end of its block.
fn outline(book: &EditedBook, chapter: &str) -> Value {
    let web = &book.web;
    let symbols: Vec<Value> = parts_in(web, chapter)
        .map(|part| {
            let source = &web.chapters[part.chapter];
            let header = line_range(book, &part.header);
            let end = source.place(part.block.end.saturating_sub(1));
            let end_text = source.line(end.line).unwrap_or_default();
            let range = json!({
                "start": header["start"],
                "end": {"line": end.line - 1, "character": utf16_len(end_text, end.col)},
            });
            let count = web.parts_of(&part.name).count();
            let index = web
                .parts_of(&part.name)
                .position(|p| p.header == part.header);
            json!({
                "name": format!("⟨{}⟩", part.name),
                "detail": format!("part {} of {count}", index.unwrap_or(0) + 1),
                "kind": SymbolKind::MODULE,
                "range": range,
                "selectionRange": header,
            })
        })
        .collect();
    Value::Array(symbols)
}

/// A chapter's chunk parts as ranges to fold, each from its opening fence to its closing one.
fn folds(book: &EditedBook, chapter: &str) -> Value {
    let web = &book.web;
    let ranges: Vec<Value> = parts_in(web, chapter)
        .map(|part| {
            let source = &web.chapters[part.chapter];
            let first = source.place(part.block.start).line - 1;
            let last = source.place(part.block.end.saturating_sub(1)).line - 1;
            json!({"startLine": first, "endLine": last, "kind": "region"})
        })
        .collect();
    Value::Array(ranges)
}

/// The chapters that hold a chunk's parts, each once, in book order, named within the chapters'
/// directory `src`.
fn chapters_of(web: &Web, name: &str, src: &str) -> Vec<String> {
    let mut chapters: Vec<String> = Vec::new();
    for part in web.parts_of(name) {
        let file = part.header.file.trim_start_matches(&format!("{src}/"));
        if !chapters.iter().any(|c| c == file) {
            chapters.push(file.to_string());
        }
    }
    chapters
}
