//! A chapter's fenced code blocks, found by the CommonMark parser mdbook renders with, each line with
//! its place in the Markdown: the tangler sees exactly the blocks a reader sees, in lists and block
//! quotes too.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// A fenced code block of a chapter, as mdbook will render it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeBlock {
    /// The fence's info string (`rust`, `rust,ignore`, `text`, …).
    pub info: String,
    /// The bytes of the whole block in the chapter, fences included.
    pub range: Range<usize>,
    /// The content lines, each with the byte offset where it starts in the chapter.
    pub lines: Vec<CodeLine>,
    /// False when no closing fence ends the block, so that it runs to the end of the file (or of the
    /// list or quote it stands in).
    pub terminated: bool,
}

/// One line of a fenced code block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeLine {
    /// The line's text, without its line end or a quote's `> `.
    pub text: String,
    /// The byte offset of the text in the chapter.
    pub offset: usize,
}

/// The options mdbook parses chapters with; code blocks are the same under all of them, but tables
/// and footnotes change where a block can start.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
}

/// Every fenced code block of a Markdown text, in order, found by the CommonMark parser mdbook uses.
pub fn fenced_blocks(text: &str) -> Vec<CodeBlock> {
    let mut blocks = Vec::new();
    let mut current: Option<CodeBlock> = None;
    let mut open = false;
    for (event, range) in Parser::new_ext(text, options()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                open = false;
                current = Some(CodeBlock {
                    info: info.to_string(),
                    terminated: is_terminated(text.get(range.clone()).unwrap_or("")),
                    range,
                    lines: Vec::new(),
                });
            }
            Event::Text(content) => {
                if let Some(block) = current.as_mut() {
                    add_lines(&mut block.lines, &mut open, &content, range, text);
                }
            }
            Event::End(TagEnd::CodeBlock) => blocks.extend(current.take()),
            _ => {}
        }
    }
    blocks
}

/// Appends the lines of one piece of code-block text. The parser hands a block's content over in
/// pieces whose source range usually holds exactly that text; where it does not (a tab expanded, a
/// list's indentation removed), each line is looked for on its own source line. A piece that does
/// not end in a newline leaves its last line open for the next piece to continue.
fn add_lines(
    lines: &mut Vec<CodeLine>,
    open: &mut bool,
    content: &str,
    range: Range<usize>,
    text: &str,
) {
    let verbatim = text.get(range.clone()) == Some(content);
    let mut offset = range.start;
    for piece in content.split_inclusive('\n') {
        let line_text = piece.trim_end_matches(['\n', '\r']);
        match lines.last_mut() {
            Some(last) if *open => last.text.push_str(line_text),
            _ => {
                let start = if verbatim {
                    offset
                } else {
                    locate_line(text, offset, line_text)
                };
                lines.push(CodeLine {
                    text: line_text.to_string(),
                    offset: start,
                });
            }
        }
        *open = !piece.ends_with('\n');
        offset = if verbatim {
            offset + piece.len()
        } else {
            next_line_start(text, offset)
        };
    }
}

/// Where a line of transformed code text starts in the source line at or after `from`: its own
/// indentation before the first character found there.
fn locate_line(text: &str, from: usize, line_text: &str) -> usize {
    let line_start = text
        .get(..from.min(text.len()))
        .and_then(|before| before.rfind('\n').map(|i| i + 1))
        .unwrap_or(0);
    let line_end = next_line_start(text, from);
    let source_line = text.get(line_start..line_end).unwrap_or("");
    let content = line_text.trim_start();
    let indentation = line_text.len() - content.len();
    match source_line.find(content) {
        Some(i) if !content.is_empty() && i >= indentation => line_start + i - indentation,
        _ => from.min(text.len()),
    }
}

fn next_line_start(text: &str, from: usize) -> usize {
    text.get(from..)
        .and_then(|rest| rest.find('\n'))
        .map_or(text.len(), |i| from + i + 1)
}

/// The fence character and length that open a block, ignoring indentation and quote markers.
fn fence(line: &str) -> Option<(char, usize)> {
    let line = line.trim_start_matches([' ', '\t', '>']);
    let c = line.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let n = line.chars().take_while(|&x| x == c).count();
    (n >= 3).then_some((c, n))
}

/// A fenced block is terminated when its last line is a fence of the same character, at least as long
/// as the opening one, with nothing after it.
fn is_terminated(block: &str) -> bool {
    let mut lines = block.lines();
    let Some((c, n)) = lines.next().and_then(fence) else {
        return false;
    };
    let Some(last) = lines.last() else {
        return false;
    };
    let last = last.trim_start_matches([' ', '\t', '>']).trim_end();
    last.chars().all(|x| x == c) && last.chars().count() >= n
}
