//! The book as a reader gets it: built with mdbook into a temporary directory, with every chapter
//! there, every chunk captioned, every link between chunks landing on an anchor, no chunk marker left
//! raw in the code, and every figure drawn.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use literate::{SourceText, Web, chapter_links, fenced_blocks};

fn book_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src")
}

/// The chapters SUMMARY.md lists, as (path, text).
fn chapters() -> Vec<(String, String)> {
    let summary = fs::read_to_string(book_src().join("SUMMARY.md")).expect("SUMMARY.md");
    chapter_links(&SourceText::new("SUMMARY.md", summary))
        .into_iter()
        .map(|(path, _)| {
            let text = fs::read_to_string(book_src().join(&path)).expect("a listed chapter");
            (path, text)
        })
        .collect()
}

fn build(dest: &Path) {
    let output = Command::new("mdbook")
        .args(["build", "book", "--dest-dir"])
        .arg(dest)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("mdbook runs (bash .ci/run installs it)");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "mdbook build failed:\n{stderr}");
    assert!(
        !stderr.contains("mdbook-chat-noir:"),
        "the weaver reported problems:\n{stderr}"
    );
}

/// Every `href="…"` of a page.
fn hrefs(html: &str) -> Vec<&str> {
    html.split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect()
}

/// The text of every Rust code block of a page.
fn rust_code(html: &str) -> Vec<&str> {
    html.split("<code class=\"language-rust")
        .skip(1)
        .filter_map(|rest| rest.split("</code>").next())
        .collect()
}

/// A page without its code elements, where the book shows directives as examples.
fn outside_code(html: &str) -> String {
    let mut rest = html;
    let mut out = String::new();
    while let Some(start) = rest.find("<code") {
        out.push_str(&rest[..start]);
        rest = rest[start..]
            .split_once("</code>")
            .map_or("", |(_, after)| after);
    }
    out.push_str(rest);
    out
}

#[test]
#[ignore = "needs mdbook 0.5.4: bash .ci/run installs it"]
fn the_built_book_has_every_chapter_caption_link_and_figure() {
    let dest = tempfile::tempdir().expect("a temporary directory");
    build(dest.path());
    let chapters = chapters();
    let page = |path: &str| dest.path().join(path.replace(".md", ".html"));
    let pages: Vec<(String, String)> = chapters
        .iter()
        .map(|(path, _)| {
            let html = fs::read_to_string(page(path))
                .unwrap_or_else(|_| panic!("{path} is in the built book"));
            (path.clone(), html)
        })
        .collect();

    let sources = chapters
        .iter()
        .map(|(p, t)| SourceText::new(p.clone(), t.clone()))
        .collect();
    let (web, problems) = Web::parse(sources);
    assert!(problems.is_empty(), "{problems:?}");
    let captions: usize = pages
        .iter()
        .map(|(_, html)| html.matches("<div class=\"chunk-caption\">").count())
        .sum();
    assert_eq!(
        captions,
        web.parts.len(),
        "every part of every chunk has a caption"
    );

    let mut links = 0;
    for (path, html) in &pages {
        for href in hrefs(html).into_iter().filter(|h| h.contains("#chunk-")) {
            let (file, anchor) = href.split_once('#').expect("an anchor");
            let target = if file.is_empty() {
                html.clone()
            } else {
                fs::read_to_string(dest.path().join(file)).unwrap_or_default()
            };
            assert!(
                target.contains(&format!("id=\"{anchor}\"")),
                "{path}: the link {href} lands on no anchor"
            );
            links += 1;
        }
        for code in rust_code(html) {
            assert!(
                !code.contains("// &lt;&lt;"),
                "{path}: a raw chunk marker is left in the code"
            );
        }
    }
    let references: usize = web
        .parts
        .iter()
        .flat_map(|p| &p.body)
        .filter(|l| l.reference.is_some())
        .count();
    assert!(
        links >= references + web.parts.len(),
        "{links} links for {references} references"
    );

    for ((path, text), (_, html)) in chapters.iter().zip(&pages) {
        let code: Vec<_> = fenced_blocks(text).into_iter().map(|b| b.range).collect();
        let mut offset = 0;
        let mut asked = 0;
        for line in text.split_inclusive('\n') {
            let in_code = code.iter().any(|r| r.contains(&offset));
            asked += usize::from(!in_code && line.trim().starts_with("{{#figure"));
            offset += line.len();
        }
        let drawn = html.matches("<figure class=\"chunk-figure\">").count();
        assert_eq!(drawn, asked, "{path}: every figure asked for is drawn");
        assert!(
            !outside_code(html).contains("{{#figure"),
            "{path}: a figure directive is left"
        );
    }
    let index = pages
        .iter()
        .find(|(p, _)| p == "chunks.md")
        .map(|(_, h)| h)
        .expect("the index");
    for name in web.names() {
        let escaped = literate::weave::escape(name);
        assert!(
            index.contains(&format!("⟨{escaped}⟩</a> in ")),
            "the index lists ⟨{name}⟩"
        );
    }
}
