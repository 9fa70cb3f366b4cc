//! The book's cross-reference model: every chunk part's anchor and number, who uses each chunk,
//! and the links between chapters' pages that follow from them.

use std::collections::HashMap;

use crate::weave::Chapter;
use crate::weave::directives::IDENTIFIER_INDEX;
use crate::weave::html::{escape, relative_html, slug};
use crate::{Uses, Web};

/// Where every part of the book is, and who uses it.
pub(super) struct Links<'w> {
    pub web: &'w Web,
    pub chapters: &'w [Chapter],
    /// The anchor of each part, by its index in `web.parts`.
    pub anchors: Vec<String>,
    pub uses: Uses<'w>,
    /// The chapter that holds the index of identifiers, if one does.
    pub identifier_index: Option<usize>,
}

impl<'w> Links<'w> {
    pub(super) fn new(web: &'w Web, chapters: &'w [Chapter]) -> Links<'w> {
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
        let identifier_index = chapters.iter().position(|chapter| {
            chapter
                .content
                .lines()
                .any(|line| line.trim() == IDENTIFIER_INDEX)
        });
        Links {
            web,
            chapters,
            anchors,
            uses: web.uses(),
            identifier_index,
        }
    }

    /// A link from chapter `from` to part `to`.
    pub(super) fn href(&self, from: usize, to: usize) -> String {
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

    /// A chunk's number: its place among the book's chunks in the order they are first shown, which
    /// captions show and printed references give, so that a reader on paper can find a chunk.
    pub(super) fn number(&self, name: &str) -> usize {
        self.web
            .names()
            .iter()
            .position(|n| n == name)
            .map_or(0, |i| i + 1)
    }

    /// Links to the parts that use the chunk `name`, or `None` if nothing uses it.
    pub(super) fn user_links(&self, chapter: usize, name: &str) -> Option<String> {
        let users = self.uses.users(name);
        (!users.is_empty()).then(|| self.part_links(chapter, users))
    }

    /// Links, by name, to the parts `parts`, from a page of `chapter`.
    pub(super) fn part_links(&self, chapter: usize, parts: &[usize]) -> String {
        let links: Vec<String> = parts
            .iter()
            .map(|&u| {
                format!(
                    "<a href=\"{}\">⟨{}⟩</a>",
                    self.href(chapter, u),
                    escape(&self.web.parts[u].name)
                )
            })
            .collect();
        links.join(", ")
    }
}
