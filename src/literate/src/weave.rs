//! Weaving: the chapters as mdbook renders them. Every chunk gets a caption with its name and an
//! anchor, links to its other parts, and a note of where it is used; every reference inside code
//! becomes a link to the chunk it names; figure directives become pictures; and the index directive
//! becomes a list of all chunks.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Range;

use crate::{Diagnostic, PartKind, SourceText, Web, fenced_blocks, root_file};

/// A chapter as the weaver gets it: its path within the book's source (`world.md`), its title, and its
/// Markdown.
#[derive(Clone, Debug)]
pub struct Chapter {
    pub path: String,
    pub title: String,
    pub content: String,
}

/// Makes the picture a figure directive asks for, as HTML (an inline SVG), from the directive's words:
/// `{{#figure cat-faces}}` asks for `["cat-faces"]`.
pub type Figures<'a> = dyn FnMut(&[&str]) -> Result<String, String> + 'a;

/// The line that asks for a figure: `{{#figure NAME ARGS…}}`, alone on its line.
const FIGURE: &str = "{{#figure";
/// The line that asks for the index of all chunks.
const INDEX: &str = "{{#chunk-index}}";

/// What a line of prose standing alone asks the weaver for.
enum Directive<'t> {
    Index,
    Figure(Vec<&'t str>),
}

/// The directive a line of prose is, if it is one.
fn directive(line: &str) -> Option<Directive<'_>> {
    let line = line.trim();
    if line == INDEX {
        return Some(Directive::Index);
    }
    let words = line.strip_prefix(FIGURE)?.strip_suffix("}}")?;
    Some(Directive::Figure(words.split_whitespace().collect()))
}

/// The lines of a chapter's text in `span` that stand outside its code blocks, each with its offset.
fn prose_lines<'t>(
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

/// Weaves every chapter; returns their new Markdown, in the same order, and the problems found. The
/// weaving goes on past a problem so that all of them are found at once; the book's preprocessor then
/// refuses a book that has any.
pub fn weave(
    chapters: &[Chapter],
    display_dir: &str,
    figures: &mut Figures,
) -> (Vec<String>, Vec<Diagnostic>) {
    let sources = chapters
        .iter()
        .map(|c| SourceText::new(format!("{display_dir}/{}", c.path), c.content.clone()))
        .collect();
    let (web, mut problems) = Web::parse(sources);
    let weaver = Weaver::new(&web, chapters);
    let woven = (0..chapters.len())
        .map(|i| weaver.chapter(i, figures, &mut problems))
        .collect();
    (woven, problems)
}

struct Weaver<'w> {
    web: &'w Web,
    chapters: &'w [Chapter],
    /// The anchor of each part, by its index in `web.parts`.
    anchors: Vec<String>,
    /// The parts that use each chunk, by the chunk's name, as indices into `web.parts`.
    users: HashMap<&'w str, Vec<usize>>,
}

impl<'w> Weaver<'w> {
    fn new(web: &'w Web, chapters: &'w [Chapter]) -> Weaver<'w> {
        let mut slugs: HashMap<String, usize> = HashMap::new();
        let mut slug_of: HashMap<&str, String> = HashMap::new();
        for name in web.names() {
            let base = slug(name);
            let seen = slugs.entry(base.clone()).or_insert(0);
            *seen += 1;
            let unique = if *seen == 1 {
                base
            } else {
                format!("{base}-{seen}")
            };
            slug_of.insert(name, unique);
        }
        let mut counts: HashMap<&str, usize> = HashMap::new();
        let anchors = web
            .parts
            .iter()
            .map(|part| {
                let n = counts.entry(part.name.as_str()).or_insert(0);
                *n += 1;
                format!("chunk-{}-{n}", slug_of[part.name.as_str()])
            })
            .collect();
        let mut users: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, part) in web.parts.iter().enumerate() {
            for line in &part.body {
                if let Some(reference) = &line.reference {
                    let list = users.entry(reference.name.as_str()).or_default();
                    if !list.contains(&i) {
                        list.push(i);
                    }
                }
            }
        }
        Weaver {
            web,
            chapters,
            anchors,
            users,
        }
    }

    /// A link from chapter `from` to part `to`.
    fn href(&self, from: usize, to: usize) -> String {
        let target = self.web.parts[to].chapter;
        let anchor = &self.anchors[to];
        if target == from {
            format!("#{anchor}")
        } else {
            format!(
                "{}#{anchor}",
                relative_html(&self.chapters[from].path, &self.chapters[target].path)
            )
        }
    }

    fn chapter(
        &self,
        index: usize,
        figures: &mut Figures,
        problems: &mut Vec<Diagnostic>,
    ) -> String {
        let text = &self.chapters[index].content;
        let mut parts: Vec<usize> = (0..self.web.parts.len())
            .filter(|&i| self.web.parts[i].chapter == index)
            .collect();
        parts.sort_by_key(|&i| self.web.parts[i].block.start);
        let blocks: Vec<Range<usize>> = fenced_blocks(text).into_iter().map(|b| b.range).collect();
        let mut out = String::new();
        let mut at = 0;
        for &i in &parts {
            let part = &self.web.parts[i];
            out.push_str(&self.prose(index, at..part.block.start, &blocks, figures, problems));
            out.push_str(&self.woven_part(index, i));
            at = part.block.end;
        }
        out.push_str(&self.prose(index, at..text.len(), &blocks, figures, problems));
        out
    }

    /// The chapter's text in `span` (between chunks), with its directives replaced; the code blocks
    /// in it (`blocks`) are left as they are.
    fn prose(
        &self,
        chapter: usize,
        span: Range<usize>,
        blocks: &[Range<usize>],
        figures: &mut Figures,
        problems: &mut Vec<Diagnostic>,
    ) -> String {
        let text = &self.chapters[chapter].content;
        let source = &self.web.chapters[chapter];
        let mut out = String::new();
        let mut at = span.start;
        for (start, line) in prose_lines(text, span.clone(), blocks) {
            out.push_str(&text[at..start]);
            at = start + line.len();
            match directive(line) {
                Some(Directive::Index) => out.push_str(&self.index(chapter)),
                Some(Directive::Figure(words)) => match figures(&words) {
                    Ok(html) => {
                        out.push_str(&html);
                        out.push_str("\n\n");
                    }
                    Err(message) => {
                        problems.push(Diagnostic::new(
                            source.place(start),
                            format!("figure: {message}"),
                        ));
                        out.push_str(line);
                    }
                },
                None => out.push_str(line),
            }
        }
        out.push_str(&text[at..span.end]);
        out
    }

    /// A chunk part as HTML and Markdown: its caption, its code split at each reference (which becomes
    /// a link), and where the chunk is used.
    fn woven_part(&self, chapter: usize, i: usize) -> String {
        let part = &self.web.parts[i];
        let mut out = format!("<div class=\"chunk\" id=\"{}\">\n", self.anchors[i]);
        out.push_str(&self.caption(chapter, i));
        let mut code: Vec<&str> = Vec::new();
        for line in &part.body {
            match &line.reference {
                None => code.push(&line.text),
                Some(reference) => {
                    out.push_str(&code_block(&code));
                    code.clear();
                    let target = self
                        .web
                        .part_indices(&reference.name)
                        .first()
                        .map(|&t| self.href(chapter, t));
                    let name = format!("⟨{}⟩", escape(&reference.name));
                    let link = match target {
                        Some(href) => format!("<a href=\"{href}\">{name}</a>"),
                        None => format!("<span class=\"chunk-undefined\">{name}</span>"),
                    };
                    let _ = writeln!(
                        out,
                        "<div class=\"chunk-use hljs\">{}{link}</div>\n",
                        escape(&reference.indent)
                    );
                }
            }
        }
        out.push_str(&code_block(&code));
        out.push_str(&self.footer(chapter, i));
        out.push_str("</div>\n");
        out
    }

    fn caption(&self, chapter: usize, i: usize) -> String {
        let part = &self.web.parts[i];
        let sign = if part.kind == PartKind::Define {
            "≡"
        } else {
            "+≡"
        };
        let parts = self.web.part_indices(&part.name);
        let position = parts.iter().position(|&p| p == i).unwrap_or(0);
        let mut nav = Vec::new();
        if let Some(&previous) = position.checked_sub(1).and_then(|p| parts.get(p)) {
            nav.push(format!("<a class=\"chunk-previous\" href=\"{}\" title=\"the previous part\">◂ previous</a>", self.href(chapter, previous)));
        }
        if let Some(&next) = parts.get(position + 1) {
            nav.push(format!(
                "<a class=\"chunk-next\" href=\"{}\" title=\"the next part\">next ▸</a>",
                self.href(chapter, next)
            ));
        }
        if parts.len() > 1 {
            nav.insert(0, format!("part {} of {}", position + 1, parts.len()));
        }
        let file = root_file(&part.name)
            .map(|f| {
                format!(
                    " <span class=\"chunk-file\">the file <code>{}</code></span>",
                    escape(f)
                )
            })
            .unwrap_or_default();
        format!(
            "<div class=\"chunk-caption\"><a class=\"chunk-name\" href=\"#{}\">⟨{}⟩</a>&nbsp;<span class=\"chunk-sign\">{sign}</span>{file}<span class=\"chunk-nav\">{}</span></div>\n\n",
            self.anchors[i],
            escape(&part.name),
            nav.join(" · ")
        )
    }

    /// Links to the parts that use the chunk `name`, or `None` if nothing uses it.
    fn user_links(&self, chapter: usize, name: &str) -> Option<String> {
        let users = self.users.get(name)?;
        let links: Vec<String> = users
            .iter()
            .map(|&u| {
                let part = &self.web.parts[u];
                format!(
                    "<a href=\"{}\">⟨{}⟩</a>",
                    self.href(chapter, u),
                    escape(&part.name)
                )
            })
            .collect();
        Some(links.join(", "))
    }

    fn footer(&self, chapter: usize, i: usize) -> String {
        match self.user_links(chapter, &self.web.parts[i].name) {
            Some(links) => format!("<div class=\"chunk-footer\">Used in {links}.</div>\n"),
            None => String::new(),
        }
    }

    /// Every chunk in book order, with links to all its parts and to the parts that use it.
    fn index(&self, chapter: usize) -> String {
        let mut out = String::from("<ul class=\"chunk-index\">\n");
        for name in self.web.names() {
            let parts = self.web.part_indices(name);
            let Some(&first) = parts.first() else {
                continue;
            };
            let title = escape(&self.chapters[self.web.parts[first].chapter].title);
            let _ = write!(
                out,
                "<li><a href=\"{}\">⟨{}⟩</a> in {title}",
                self.href(chapter, first),
                escape(name)
            );
            if parts.len() > 1 {
                let links: Vec<String> = parts
                    .iter()
                    .enumerate()
                    .map(|(n, &p)| format!("<a href=\"{}\">{}</a>", self.href(chapter, p), n + 1))
                    .collect();
                let _ = write!(out, "; parts {}", links.join(" "));
            }
            if let Some(links) = self.user_links(chapter, name) {
                let _ = write!(out, "; used in {links}");
            }
            out.push_str("</li>\n");
        }
        out.push_str("</ul>\n");
        out
    }
}

/// A run of code lines as a fenced block that mdbook highlights as Rust, with no play button and not run
/// as a doctest; nothing for no lines.
fn code_block(lines: &[&str]) -> String {
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return String::new();
    };
    let longest_fence = lines
        .iter()
        .map(|l| l.chars().take_while(|&c| c == '`').count())
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest_fence.max(2) + 1);
    format!(
        "{fence}rust,ignore,noplayground\n{}\n{fence}\n\n",
        lines[first..=last].join("\n")
    )
}

/// A name as part of an HTML id: lower-case letters and digits, other runs as one dash.
fn slug(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_matches('-').to_string();
    if slug.is_empty() {
        "chunk".to_string()
    } else {
        slug
    }
}

/// The path of the HTML page of chapter `to`, relative to the page of chapter `from`.
fn relative_html(from: &str, to: &str) -> String {
    let depth = from.matches('/').count();
    let target = to.strip_suffix(".md").unwrap_or(to);
    format!("{}{target}.html", "../".repeat(depth))
}

/// Text made safe inside HTML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chapter(path: &str, content: &str) -> Chapter {
        Chapter {
            path: path.into(),
            title: path.into(),
            content: content.into(),
        }
    }

    fn assert_contains(haystack: &str, needle: &str) {
        assert!(
            haystack.contains(needle),
            "{needle:?} is not in:\n{haystack}"
        );
    }

    fn no_figures(words: &[&str]) -> Result<String, String> {
        Err(format!("no figure {words:?}"))
    }

    #[test]
    fn chunks_get_captions_links_and_uses() {
        let a = chapter(
            "a.md",
            "Intro.\n\n```rust\n// <<file:lib.rs>>=\nfn f() {\n    // <<the body>>\n}\n```\n",
        );
        let b = chapter(
            "b.md",
            "```rust\n// <<the body>>=\nlet x = 1;\n```\n\n```rust\n// <<the body>>+=\nlet y = 2;\n```\n",
        );
        let (woven, problems) = weave(&[a, b], "book/src", &mut no_figures);
        assert!(problems.is_empty(), "{problems:?}");
        assert_contains(
            &woven[0],
            "<div class=\"chunk\" id=\"chunk-file-lib-rs-1\">",
        );
        assert_contains(
            &woven[0],
            "⟨file:lib.rs⟩</a>&nbsp;<span class=\"chunk-sign\">≡</span>",
        );
        assert_contains(
            &woven[0],
            "<div class=\"chunk-use hljs\">    <a href=\"b.html#chunk-the-body-1\">⟨the body⟩</a></div>",
        );
        assert_contains(&woven[0], "```rust,ignore,noplayground\nfn f() {\n```");
        assert_contains(
            &woven[1],
            "part 1 of 2 · <a class=\"chunk-next\" href=\"#chunk-the-body-2\"",
        );
        assert_contains(&woven[1], "<span class=\"chunk-sign\">+≡</span>");
        assert_contains(
            &woven[1],
            "Used in <a href=\"a.html#chunk-file-lib-rs-1\">⟨file:lib.rs⟩</a>.",
        );
        assert!(
            !woven.iter().any(|w| w.contains("// <<")),
            "no raw marker is left"
        );
    }

    #[test]
    fn figure_directives_on_their_own_line_become_figures() {
        let a = chapter(
            "a.md",
            "Text with `{{#figure inline}}` stays.\n\n{{#figure cat 7}}\n\n```text\n{{#figure shown}}\n```\n",
        );
        let mut asked = Vec::new();
        let (woven, problems) = weave(&[a], "book/src", &mut |words: &[&str]| {
            asked.push(words.join(" "));
            Ok("<figure>made</figure>".to_string())
        });
        assert!(problems.is_empty());
        assert_eq!(asked, ["cat 7"]);
        assert!(woven[0].contains("<figure>made</figure>"));
        assert!(woven[0].contains("{{#figure shown}}"));
    }

    #[test]
    fn an_unknown_figure_is_reported_where_it_is_asked_for() {
        let a = chapter("a.md", "One.\n\n{{#figure nonsense}}\n");
        let (_, problems) = weave(&[a], "book/src", &mut no_figures);
        let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            problems,
            ["book/src/a.md:3:1: figure: no figure [\"nonsense\"]"]
        );
    }

    #[test]
    fn the_index_lists_every_chunk_with_its_parts_and_uses() {
        let a = chapter(
            "a.md",
            "```rust\n// <<file:lib.rs>>=\n// <<x>>\n```\n\n```rust\n// <<x>>=\n```\n\n```rust\n// <<x>>+=\n```\n",
        );
        let index = chapter("index.md", "# Index\n\n{{#chunk-index}}\n");
        let (woven, _) = weave(&[a, index], "book/src", &mut no_figures);
        assert_contains(
            &woven[1],
            "<li><a href=\"a.html#chunk-x-1\">⟨x⟩</a> in a.md; parts <a href=\"a.html#chunk-x-1\">1</a> <a href=\"a.html#chunk-x-2\">2</a>; used in <a href=\"a.html#chunk-file-lib-rs-1\">⟨file:lib.rs⟩</a></li>",
        );
    }
}
