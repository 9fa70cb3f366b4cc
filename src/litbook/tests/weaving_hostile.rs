//! The weaver meets books written to break it: chunk names full of HTML and Markdown specials,
//! chapter paths with spaces and `#`, ten thousand chunks, a chain of references a thousand deep and
//! code nested deeper than syn's parser may go. Each book is woven correctly, or refused with a
//! problem at a Markdown place; never a panic, a stack overflow, or a page broken by a name.

use std::time::{Duration, Instant};

use litbook::weave::{Chapter, Roles, weave};
use pulldown_cmark::{Event, Parser, Tag, TagEnd};

fn chapter(path: &str, content: String) -> Chapter {
    Chapter {
        path: path.into(),
        title: path.into(),
        content,
    }
}

fn no_figures(words: &[&str]) -> Result<String, String> {
    Err(format!("no figure {words:?}"))
}

fn woven(chapters: &[Chapter]) -> Vec<String> {
    let (woven, problems) = weave(chapters, "book/src", &Roles::new(), &mut no_figures);
    assert!(problems.is_empty(), "{problems:?}");
    woven
}

/// The text of every heading of a woven chapter, as mdbook's Markdown parser reads it.
fn headings(markdown: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut current: Option<String> = None;
    for event in Parser::new_ext(markdown, pulldown_cmark::Options::ENABLE_HEADING_ATTRIBUTES) {
        match event {
            Event::Start(Tag::Heading { .. }) => current = Some(String::new()),
            Event::Text(text) | Event::Code(text) => {
                if let Some(heading) = current.as_mut() {
                    heading.push_str(&text);
                }
            }
            Event::End(TagEnd::Heading(_)) => found.extend(current.take()),
            _ => {}
        }
    }
    found
}

/// The HTML the woven Markdown holds, in order, as mdbook's parser hands it on.
fn html(markdown: &str) -> String {
    Parser::new(markdown)
        .filter_map(|event| match event {
            Event::Html(html) | Event::InlineHtml(html) => Some(html.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn names_with_html_and_markdown_specials_stay_text() {
    let names = [
        "a </div> b",
        "x {#y}",
        "*star* & [link](z)",
        "<script>alert(1)</script>",
        "back`tick",
        "quote \" and ' apostrophe",
        "pipe | and \\ backslash",
    ];
    let uses: String = names.iter().map(|n| format!("// <<{n}>>\n")).collect();
    let defined: String = names
        .iter()
        .map(|n| format!("Its part.\n\n```rust\n// <<{n}>>=\nfn f() {{}}\n```\n\n"))
        .collect();
    let text = format!("# A\n\n```rust\n// <<file:lib.rs>>=\n{uses}```\n\n{defined}");
    let woven = woven(&[chapter("a.md", text)]);
    let found = headings(&woven[0]);
    for name in names {
        assert!(
            found.contains(&format!("⟨{name}⟩")),
            "no heading reads ⟨{name}⟩: {found:?}"
        );
    }
    let html = html(&woven[0]);
    assert_eq!(
        html.matches("<div").count(),
        html.matches("</div>").count(),
        "{html}"
    );
    assert!(!html.contains("<script>"), "{html}");
}

#[test]
fn links_to_chapters_with_spaces_and_hashes_in_their_paths_are_encoded() {
    let root = "```rust\n// <<file:lib.rs>>=\n// <<middle>>\n```\n\nThe middle.\n\n```rust\n// <<middle>>=\n// <<body>>\n```\n".to_string();
    let body = "```rust\n// <<body>>=\nfn f() {}\n```\n".to_string();
    let woven = woven(&[chapter("part one/a b.md", root), chapter("c#1 ü.md", body)]);
    assert!(
        woven[0].contains("../c%231%20%C3%BC.html#chunk-body-1"),
        "{}",
        woven[0]
    );
    assert!(
        woven[1].contains("part%20one/a%20b.html#chunk-middle-1"),
        "{}",
        woven[1]
    );
}

#[test]
fn ten_thousand_chunks_are_woven_in_seconds() {
    let count = 10_000;
    let uses: String = (0..count).map(|i| format!("// <<chunk {i}>>\n")).collect();
    let mut text = format!("```rust\n// <<file:lib.rs>>=\n{uses}```\n\n");
    for i in 0..count {
        text.push_str(&format!(
            "Part {i}.\n\n```rust\n// <<chunk {i}>>=\nfn f{i}() {{}}\n```\n\n"
        ));
    }
    let start = Instant::now();
    let woven = woven(&[chapter("a.md", text)]);
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(headings(&woven[0]).len(), count + 1);
}

#[test]
fn a_chain_a_thousand_deep_is_woven() {
    let depth = 1_000;
    let mut text = "```rust\n// <<file:lib.rs>>=\n// <<level 0>>\n```\n\n".to_string();
    for i in 0..depth {
        let next = if i + 1 < depth {
            format!("    // <<level {}>>", i + 1)
        } else {
            "    fn deepest() {}".to_string()
        };
        text.push_str(&format!(
            "```rust\n// <<level {i}>>=\nmod m{i} {{\n{next}\n}}\n```\n\n"
        ));
    }
    let woven = woven(&[chapter("a.md", text)]);
    assert!(woven[0].contains("Used in"), "{}", &woven[0][..200]);
    assert_eq!(headings(&woven[0]).len(), depth + 1);
}

#[test]
fn code_nested_deeper_than_the_parser_may_go_is_woven_without_its_names() {
    let depth = 5_000;
    let code = format!("fn f() {{ {}{} }}", "[".repeat(depth), "]".repeat(depth));
    let text = format!("```rust\n// <<file:lib.rs>>=\n{code}\n```\n");
    let woven = woven(&[chapter("a.md", text)]);
    assert_eq!(headings(&woven[0]), ["⟨file:lib.rs⟩"]);
}
