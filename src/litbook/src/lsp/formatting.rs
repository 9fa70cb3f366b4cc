//! Formatting a chapter from the editor, by the same machinery as `litbook fmt`: rustfmt's text
//! for every tangled file with code from the chapter, traced back into the chunks and proven before
//! anything is proposed (every byte outside the chunks' code stays, and the edited chapters tangle to
//! rustfmt's text). What cannot be formatted in the chunks is left alone, with notes saying why.

use serde_json::{Value, json};
use similar::{DiffOp, TextDiff};

use lsp_server::{ErrorCode, Request};
use lsp_types::MessageType;

use crate::fmt::{plan, rustfmt};
use crate::lsp::book::EditedBook;
use crate::lsp::editor::Editor;
use crate::splice::splice;
use crate::{Diagnostic, TangledFile};

/// Formats a chapter (or, for `rangeFormatting`, its lines in the range) as `litbook fmt`
/// would; what is left alone is shown with why.
pub fn format(editor: &Editor, book: &EditedBook, request: Request, chapter: &str) {
    let range = &request.params["range"];
    let lines = range["start"]["line"]
        .as_u64()
        .zip(range["end"]["line"].as_u64())
        .map(|(first, last)| (first as usize, last as usize));
    match format_chapter(book, chapter, lines) {
        Ok((edits, notes)) => {
            for note in notes {
                editor.show_message(MessageType::WARNING, &note.to_string());
            }
            editor.respond(request.id, Value::Array(edits));
        }
        Err(why) => editor.send_error(request.id, ErrorCode::RequestFailed, &why),
    }
}

/// The text edits that format `chapter` (a place name, `book/src/x.md`), or only its lines from
/// `lines.0` to `lines.1` (0-based; edits count Markdown lines from 1) for range formatting; with the notes of what is left alone.
/// `Err` with the reason when the book as the editor has it does not tangle, or rustfmt fails.
pub fn format_chapter(
    book: &EditedBook,
    chapter: &str,
    lines: Option<(usize, usize)>,
) -> Result<(Vec<Value>, Vec<Diagnostic>), String> {
    if let Some(problem) = book.problems.first() {
        return Err(format!(
            "the book does not tangle, so it is not formatted: {problem}"
        ));
    }
    let mut formatted: Vec<(TangledFile, String)> = Vec::new();
    for file in book.positions.files() {
        let text = if file.map.sources().iter().any(|s| s == chapter) {
            rustfmt(&file.text, &book.project)
                .map_err(|why| format!("rustfmt failed on {}: {why:#}", file.name))?
        } else {
            file.text.clone()
        };
        formatted.push((file.clone(), text));
    }
    let plan = plan(&book.web, &formatted);
    let Some(index) = book.web.chapters.iter().position(|c| c.display == chapter) else {
        return Ok((Vec::new(), plan.notes));
    };
    let source = &book.web.chapters[index];
    let new_text = match lines {
        None => plan
            .chapters
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, text)| text.clone()),
        Some((first, last)) => {
            let (from, to) = (first + 1, last + 1);
            let wanted: Vec<_> = plan
                .edits
                .iter()
                .filter(|e| e.file == chapter && e.first <= to && e.last >= from)
                .cloned()
                .collect();
            Some(splice(source, &wanted).map_err(|(_, why)| why)?)
        }
    };
    let notes = plan
        .notes
        .into_iter()
        .filter(|note| note.place.file == chapter)
        .collect();
    Ok((text_edits(&source.text, new_text.as_deref()), notes))
}

/// The edits that make `old` into `new`, a run of whole lines each.
fn text_edits(old: &str, new: Option<&str>) -> Vec<Value> {
    let Some(new) = new else {
        return Vec::new();
    };
    let diff = TextDiff::from_lines(old, new);
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    diff.ops()
        .iter()
        .filter(|op| !matches!(op, DiffOp::Equal { .. }))
        .map(|op| {
            let (old_range, new_range) = (op.old_range(), op.new_range());
            let range = json!({
                "start": {"line": old_range.start, "character": 0},
                "end": {"line": old_range.end, "character": 0},
            });
            json!({"range": range, "newText": new_lines[new_range].concat()})
        })
        .collect()
}
