//! What the server knows of chunks without rust-analyzer: which chunk a header or reference line
//! names, where its parts are, its text as the tangler puts it together, the names to complete after
//! `// <<`, and the chunks of a chapter as its outline.

use std::ops::ControlFlow;

use crate::tangle::{Expanded, expand};
use crate::{Part, Place, Web};

/// How many lines of a chunk's text a hover shows.
const HOVER_LINES: usize = 60;

/// The chunk named on a chapter's 0-based line, if the line is a chunk's header or a reference.
pub fn chunk_named_at(web: &Web, chapter: &str, line: usize) -> Option<String> {
    let on_line = |place: &Place| place.file == chapter && place.line == line + 1;
    web.parts.iter().find_map(|part| {
        if on_line(&part.header) {
            return Some(part.name.clone());
        }
        let reference = part.body.iter().find(|l| on_line(&l.place))?;
        Some(reference.reference.as_ref()?.name.clone())
    })
}

/// The header places of a chunk's parts, in book order.
pub fn part_headers(web: &Web, name: &str) -> Vec<Place> {
    web.parts_of(name).map(|part| part.header.clone()).collect()
}

/// A chunk's text with every reference in it expanded, as the tangler puts it into a file (without
/// the announcement lines), cut short after [`HOVER_LINES`] lines.
pub fn chunk_text(web: &Web, name: &str) -> String {
    let mut lines = Vec::new();
    let mut more = false;
    expand(web, name, |indent, met| {
        let Expanded::Line(line) = met else {
            return ControlFlow::Continue(());
        };
        if lines.len() == HOVER_LINES {
            more = true;
            return ControlFlow::Break(());
        }
        lines.push(match line.text.trim().is_empty() {
            true => String::new(),
            false => format!("{indent}{}", line.text),
        });
        ControlFlow::Continue(())
    });
    let mut text = lines.join("\n");
    if more {
        text.push_str("\n… more lines");
    }
    text
}

/// The start of a chunk name being typed after `// <<` before the cursor: the characters typed so
/// far, and where they start (in characters), if the line is such a marker.
pub fn name_being_typed(before_cursor: &str) -> Option<(String, usize)> {
    let comment = before_cursor.trim_start().strip_prefix("//")?;
    let after = comment.trim_start().strip_prefix("<<")?;
    if after.contains(">>") {
        return None;
    }
    let start = before_cursor.chars().count() - after.chars().count();
    Some((after.to_string(), start))
}

/// The chunk names that complete `typed`: those that start with it, then those that contain it.
pub fn completions<'w>(web: &'w Web, typed: &str) -> Vec<&'w str> {
    let typed = typed.trim_start().to_lowercase();
    let names = web.names().iter().map(String::as_str);
    let (starting, containing): (Vec<&str>, Vec<&str>) = names
        .filter(|name| name.to_lowercase().contains(&typed))
        .partition(|name| name.to_lowercase().starts_with(&typed));
    starting.into_iter().chain(containing).collect()
}

/// The parts of a chunk written in a chapter, in order.
pub fn parts_in<'w>(web: &'w Web, chapter: &str) -> impl Iterator<Item = &'w Part> {
    web.parts
        .iter()
        .filter(move |part| part.header.file == chapter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SourceText;

    const CHAPTER: &str = "# A\n\n```rust\n// <<file:a.rs>>=\nfn f() {\n    // <<the body>>\n}\n```\n\n```rust\n// <<the body>>=\nlet x = 1;\n// <<the end>>\n```\n\n```rust\n// <<the end>>=\nx\n```\n";

    fn web() -> Web {
        Web::parse(vec![SourceText::new("book/src/a.md", CHAPTER)]).0
    }

    #[test]
    fn headers_and_references_name_their_chunk() {
        let web = web();
        assert_eq!(
            chunk_named_at(&web, "book/src/a.md", 5).as_deref(),
            Some("the body")
        );
        assert_eq!(
            chunk_named_at(&web, "book/src/a.md", 10).as_deref(),
            Some("the body")
        );
        assert_eq!(chunk_named_at(&web, "book/src/a.md", 11), None);
        assert_eq!(part_headers(&web, "the end")[0].line, 17);
    }

    #[test]
    fn a_chunks_text_has_its_references_expanded_and_indented() {
        assert_eq!(
            chunk_text(&web(), "file:a.rs"),
            "fn f() {\n    let x = 1;\n    x\n}"
        );
    }

    #[test]
    fn a_chain_of_fifty_thousand_chunks_and_a_cycle_are_shown_without_recursion() {
        let depth = 50_000;
        let mut text = String::from("```rust\n// <<file:a.rs>>=\n// <<c0>>\n```\n");
        for i in 0..depth {
            text.push_str(&format!("```rust\n// <<c{i}>>=\n// <<c{}>>\n```\n", i + 1));
        }
        text.push_str(&format!(
            "```rust\n// <<c{depth}>>=\nfn deepest() {{}}\n// <<c0>>\n```\n"
        ));
        let (web, _) = Web::parse(vec![SourceText::new("book/src/a.md", text)]);
        assert_eq!(chunk_text(&web, "file:a.rs"), "fn deepest() {}");
    }

    #[test]
    fn a_long_chunk_is_cut_short() {
        let body: String = (0..100).map(|i| format!("let x{i} = {i};\n")).collect();
        let text = format!("```rust\n// <<file:a.rs>>=\n{body}```\n");
        let (web, _) = Web::parse(vec![SourceText::new("book/src/a.md", text)]);
        let shown = chunk_text(&web, "file:a.rs");
        assert_eq!(shown.lines().count(), HOVER_LINES + 1);
        assert!(shown.ends_with("\n… more lines"), "{shown}");
    }

    #[test]
    fn names_complete_after_the_opening_brackets() {
        assert_eq!(
            name_being_typed("    // <<the e"),
            Some(("the e".to_string(), 9))
        );
        assert_eq!(name_being_typed("    // <<done>> x"), None);
        assert_eq!(name_being_typed("let x = 1;"), None);
        assert_eq!(completions(&web(), "The"), ["the body", "the end"]);
        assert_eq!(completions(&web(), "a.rs"), ["file:a.rs"]);
    }
}
