//! The lines of prose that ask the weaver for something: a figure, the index of chunks, the index
//! of identifiers. Each stands alone on its line, outside code blocks.

use std::ops::Range;

use crate::fenced_blocks;
use crate::weave::Chapter;

/// The line that asks for a figure: `{{#figure NAME ARGS…}}`, alone on its line.
const FIGURE: &str = "{{#figure";
/// The line that asks for the index of all chunks.
const INDEX: &str = "{{#chunk-index}}";
/// The line that asks for the index of all identifiers.
pub(super) const IDENTIFIER_INDEX: &str = "{{#identifier-index}}";

/// What a line of prose standing alone asks the weaver for.
pub(super) enum Directive<'t> {
    Index,
    IdentifierIndex,
    Figure(Vec<&'t str>),
}

/// The directive a line of prose is, if it is one.
pub(super) fn directive(line: &str) -> Option<Directive<'_>> {
    let line = line.trim();
    if line == INDEX {
        return Some(Directive::Index);
    }
    if line == IDENTIFIER_INDEX {
        return Some(Directive::IdentifierIndex);
    }
    let words = line.strip_prefix(FIGURE)?.strip_suffix("}}")?;
    Some(Directive::Figure(words.split_whitespace().collect()))
}

/// The lines of a chapter's text in `span` that stand outside its code blocks, each with its offset.
pub(super) fn prose_lines<'t>(
    text: &'t str,
    span: Range<usize>,
    blocks: &[Range<usize>],
) -> impl Iterator<Item = (usize, &'t str)> {
    let mut position = span.start;
    text[span]
        .split_inclusive('\n')
        .map(move |line| {
            let start = position;
            position += line.len();
            (start, line)
        })
        .filter(|(start, _)| !blocks.iter().any(|b| b.contains(start)))
}

/// Every figure the chapters ask for, as the words of its directive, in book order: what the figures
/// program must draw before the book can be woven.
pub fn figure_requests(chapters: &[Chapter]) -> Vec<Vec<String>> {
    let mut requests = Vec::new();
    for chapter in chapters {
        let text = &chapter.content;
        let blocks: Vec<Range<usize>> = fenced_blocks(text).into_iter().map(|b| b.range).collect();
        for (_, line) in prose_lines(text, 0..text.len(), &blocks) {
            if let Some(Directive::Figure(words)) = directive(line) {
                requests.push(words.iter().map(ToString::to_string).collect());
            }
        }
    }
    requests
}
