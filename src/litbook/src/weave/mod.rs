//! Weaving: the chapters as mdbook renders them. Every chunk part becomes one code block under a
//! caption with its name, an anchor and links to all its parts, with a note of where it is used below;
//! the references and the identifiers inside the code are linked (by `chunks.js`, see
//! [`crate::theme`], after mdbook's highlighting, from data the weaver puts on each chunk); figure
//! directives become pictures; and the index directives become the index of chunks and the index of
//! identifiers.

mod chunk_html;
mod definitions;
mod directives;
mod html;
mod indexes;
mod links;
mod roles;

use std::collections::HashMap;
use std::ops::Range;

use crate::{Diagnostic, SourceText, TangledFile, Web, fenced_blocks, tangle};
use chunk_html::ChunkHtml;
use definitions::Identifiers;
pub use directives::figure_requests;
use directives::{Directive, directive, prose_lines};
pub use html::escape;
use indexes::Indexes;
use links::Links;
pub use roles::root_roles;

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

/// What each root file becomes in the crate (`world.rs`: "the library's module `world`"), for the
/// captions of roots; a root it does not name is captioned by its file.
pub type Roles = HashMap<String, String>;

/// Weaves every chapter; returns their new Markdown, in the same order, and the problems found. The
/// weaving goes on past a problem so that all of them are found at once; the book's preprocessor then
/// refuses a book that has any.
pub fn weave(
    chapters: &[Chapter],
    display_dir: &str,
    roles: &Roles,
    figures: &mut Figures,
) -> (Vec<String>, Vec<Diagnostic>) {
    let sources = chapters
        .iter()
        .map(|c| SourceText::new(format!("{display_dir}/{}", c.path), c.content.clone()))
        .collect();
    let (web, mut problems) = Web::parse(sources);
    let files = tangle(&web).unwrap_or_default();
    let (woven, weaving_problems) = weave_tangled(chapters, &web, &files, roles, figures);
    problems.extend(weaving_problems);
    (woven, problems)
}

/// [`weave`] of chapters the tangler has read already: `web` is theirs, chapter for chapter in the
/// same order, and `files` are what it tangled into (none if it did not tangle), so that a book is
/// parsed and tangled once for both. Only the weaving's own problems are returned.
pub fn weave_tangled(
    chapters: &[Chapter],
    web: &Web,
    files: &[TangledFile],
    roles: &Roles,
    figures: &mut Figures,
) -> (Vec<String>, Vec<Diagnostic>) {
    let weaver = Weaver {
        links: Links::new(web, chapters),
        identifiers: Identifiers::new(web, files),
        roles,
    };
    let mut problems = Vec::new();
    let woven = (0..chapters.len())
        .map(|i| weaver.chapter(i, figures, &mut problems))
        .collect();
    (woven, problems)
}

/// The weaving of one book: its links and identifiers, read once, and the roles of its roots.
struct Weaver<'w> {
    links: Links<'w>,
    identifiers: Identifiers,
    roles: &'w Roles,
}

impl Weaver<'_> {
    fn chunks(&self) -> ChunkHtml<'_> {
        ChunkHtml {
            links: &self.links,
            identifiers: &self.identifiers,
            roles: self.roles,
        }
    }

    fn indexes(&self) -> Indexes<'_> {
        Indexes {
            links: &self.links,
            identifiers: &self.identifiers,
        }
    }

    fn chapter(
        &self,
        index: usize,
        figures: &mut Figures,
        problems: &mut Vec<Diagnostic>,
    ) -> String {
        let text = &self.links.chapters[index].content;
        let mut parts: Vec<usize> = (0..self.links.web.parts.len())
            .filter(|&i| self.links.web.parts[i].chapter == index)
            .collect();
        parts.sort_by_key(|&i| self.links.web.parts[i].block.start);
        let blocks: Vec<Range<usize>> = fenced_blocks(text).into_iter().map(|b| b.range).collect();
        let mut out = String::new();
        let mut at = 0;
        for &i in &parts {
            let part = &self.links.web.parts[i];
            out.push_str(&self.prose(index, at..part.block.start, &blocks, figures, problems));
            out.push_str(&self.chunks().woven_part(index, i));
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
        let text = &self.links.chapters[chapter].content;
        let source = &self.links.web.chapters[chapter];
        let mut out = String::new();
        let mut at = span.start;
        for (start, line) in prose_lines(text, span.clone(), blocks) {
            out.push_str(&text[at..start]);
            at = start + line.len();
            match directive(line) {
                Some(Directive::Index) => out.push_str(&self.indexes().chunks(chapter)),
                Some(Directive::IdentifierIndex) => {
                    out.push_str(&self.indexes().identifiers(chapter));
                }
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
        let (woven, problems) = weave(&[a, b], "book/src", &Roles::new(), &mut no_figures);
        assert!(problems.is_empty(), "{problems:?}");
        assert_contains(
            &woven[0],
            "<div class=\"chunk\" data-refs=\"{&quot;the body&quot;:{&quot;chapter&quot;:&quot;b.md&quot;,&quot;href&quot;:&quot;b.html#chunk-the-body-1&quot;,&quot;number&quot;:2,&quot;where&quot;:&quot;b.md&quot;}}\"",
        );
        assert_contains(
            &woven[0],
            "###### ⟨file\\:lib\\.rs⟩ {#chunk-file-lib-rs-1 .chunk-heading}\n\n<div class=\"chunk-caption-rest\"><span class=\"chunk-sign\">≡</span><span class=\"chunk-number\">§1</span>",
        );
        assert_contains(
            &woven[0],
            "```rust,ignore,noplayground\nfn f() {\n    // <<the body>>\n}\n```",
        );
        assert!(
            !woven[1].contains("data-parts"),
            "parts side by side in one chapter need no links to each other:\n{}",
            woven[1]
        );
        assert_contains(&woven[1], "<span class=\"chunk-sign\">+≡</span>");
        assert!(
            !woven[1].contains("chunk-footer"),
            "a chunk used only by a root names no user:\n{}",
            woven[1]
        );
        assert!(
            !woven.iter().any(|w| w.contains(">>=")),
            "no header marker is left"
        );
    }

    #[test]
    fn a_caption_links_the_parts_of_a_chunk_continued_in_another_chapter() {
        let a = chapter(
            "a.md",
            "```rust\n// <<file:lib.rs>>=\n// <<the body>>\n```\n\nThe body.\n\n```rust\n// <<the body>>=\nfn f() {}\n```\n",
        );
        let b = chapter("b.md", "```rust\n// <<the body>>+=\nfn g() {}\n```\n");
        let (woven, problems) = weave(&[a, b], "book/src", &Roles::new(), &mut no_figures);
        assert!(problems.is_empty(), "{problems:?}");
        assert_contains(
            &woven[1],
            "data-parts=\"[{&quot;current&quot;:false,&quot;href&quot;:&quot;a.html#chunk-the-body-1&quot;,&quot;n&quot;:1,&quot;title&quot;:&quot;part 1, in a.md&quot;},{&quot;current&quot;:true,&quot;href&quot;:&quot;#chunk-the-body-2&quot;,&quot;n&quot;:2,&quot;title&quot;:&quot;this part&quot;}]\"",
        );
    }

    #[test]
    fn a_footer_names_the_chunks_that_use_a_chunk_never_a_root() {
        let a = chapter(
            "a.md",
            "```rust\n// <<file:lib.rs>>=\n// <<near>>\n```\n\nNear.\n\n```rust\n// <<near>>=\nfn near() {}\n// <<far>>\n```\n\nMore.\n\n```rust\n// <<near>>+=\nfn nearer() {}\n```\n",
        );
        let b = chapter(
            "b.md",
            "```rust\n// <<far>>=\nfn far() {}\n```\n\nMore.\n\n```rust\n// <<far>>+=\nfn farther() {}\n```\n",
        );
        let (woven, problems) = weave(&[a, b], "book/src", &Roles::new(), &mut no_figures);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(
            !woven[0].contains("chunk-footer"),
            "a chunk used only by a root has no footer:\n{}",
            woven[0]
        );
        assert_eq!(
            woven[1].matches("<div class=\"chunk-footer\">Used in <a href=\"a.html#chunk-near-1\">⟨near⟩</a>.</div>").count(),
            1,
            "a chunk used by another chunk says so once, under its first part:\n{}",
            woven[1]
        );
    }

    #[test]
    fn identifiers_link_to_their_definition_and_are_indexed() {
        let a = chapter(
            "a.md",
            "```rust\n// <<file:lib.rs>>=\npub struct Grid;\nimpl Grid {\n    pub fn new() -> Grid { Grid }\n}\n// <<uses>>\n```\n",
        );
        let b = chapter(
            "b.md",
            "```rust\n// <<uses>>=\nfn make() -> Grid { Grid::new() }\nfn new() {}\n```\n",
        );
        let index = chapter("index.md", "# Identifiers\n\n{{#identifier-index}}\n");
        let (woven, problems) = weave(&[a, b, index], "book/src", &Roles::new(), &mut no_figures);
        assert!(problems.is_empty(), "{problems:?}");
        assert_contains(
            &woven[1],
            "&quot;Grid&quot;:{&quot;free&quot;:{&quot;href&quot;:&quot;a.html#chunk-file-lib-rs-1&quot;,&quot;title&quot;:&quot;struct Grid: ⟨file:lib.rs⟩ in a.md&quot;}}",
        );
        assert_contains(
            &woven[1],
            "&quot;new&quot;:{&quot;free&quot;:{&quot;href&quot;:&quot;#chunk-uses-1&quot;,&quot;title&quot;:&quot;function new: ⟨uses⟩ in b.md&quot;},&quot;owners&quot;:{&quot;Grid&quot;:{&quot;href&quot;:&quot;a.html#chunk-file-lib-rs-1&quot;,&quot;title&quot;:&quot;method Grid::new: ⟨file:lib.rs⟩ in a.md&quot;}}}",
        );
        assert_contains(
            &woven[2],
            "<li id=\"ident-Grid\"><code>Grid</code>: <span class=\"identifier-definition\">struct in <a href=\"a.html#chunk-file-lib-rs-1\"><strong>⟨file:lib.rs⟩</strong></a> (a.md)</span>; used in <a href=\"b.html#chunk-uses-1\">b.md</a></li>",
        );
        assert_contains(
            &woven[2],
            "<p class=\"identifier-letters\"><a href=\"#identifiers-G\">G</a> <a href=\"#identifiers-M\">M</a> <a href=\"#identifiers-N\">N</a></p>",
        );
        assert_contains(&woven[2], "method <code>Grid::new</code>");
        assert_contains(&woven[2], "function in <a href=\"b.html#chunk-uses-1\">");
    }

    #[test]
    fn a_name_a_part_binds_and_does_not_call_is_not_linked_there() {
        let a = chapter(
            "a.md",
            "```rust\n// <<file:lib.rs>>=\npub fn cat() {}\n// <<uses>>\n// <<binds>>\n```\n",
        );
        let b = chapter(
            "b.md",
            "```rust\n// <<uses>>=\nfn call() { let cat = cat(); }\n```\n\n```rust\n// <<binds>>=\nfn step(cat: u32) -> u32 {\n    let next = cat + 1;\n    match Some(next) { Some(cat) => cat, None => 0 }\n}\n```\n",
        );
        let (woven, problems) = weave(&[a, b], "book/src", &Roles::new(), &mut no_figures);
        assert!(problems.is_empty(), "{problems:?}");
        let parts: Vec<&str> = woven[1].split("<div class=\"chunk\"").skip(1).collect();
        let [uses, binds] = parts.as_slice() else {
            panic!("two parts woven: {parts:?}");
        };
        assert_contains(
            uses,
            "&quot;cat&quot;:{&quot;free&quot;:{&quot;href&quot;:&quot;a.html#chunk-file-lib-rs-1&quot;",
        );
        assert!(!binds.contains("&quot;cat&quot;"), "{binds}");
    }

    #[test]
    fn figure_directives_on_their_own_line_become_figures() {
        let a = chapter(
            "a.md",
            "Text with `{{#figure inline}}` stays.\n\n{{#figure cat 7}}\n\n```text\n{{#figure shown}}\n```\n",
        );
        let mut asked = Vec::new();
        let (woven, problems) = weave(&[a], "book/src", &Roles::new(), &mut |words: &[&str]| {
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
        let (_, problems) = weave(&[a], "book/src", &Roles::new(), &mut no_figures);
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
        let (woven, _) = weave(&[a, index], "book/src", &Roles::new(), &mut no_figures);
        assert_contains(
            &woven[1],
            "<li><a href=\"a.html#chunk-x-1\">⟨x⟩</a> in a.md; parts <a href=\"a.html#chunk-x-1\">1</a> <a href=\"a.html#chunk-x-2\">2</a>; used in <a href=\"a.html#chunk-file-lib-rs-1\">⟨file:lib.rs⟩</a></li>",
        );
    }
}
