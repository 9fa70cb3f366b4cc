//! The book's two indexes: every chunk with its parts and users, and every identifier the book
//! defines with where it is defined and which chapters use it.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::weave::definitions::Identifiers;
use crate::weave::html::{escape, identifier_anchor};
use crate::weave::links::Links;

/// The indexes, from the book's links and identifiers.
pub(super) struct Indexes<'a> {
    pub links: &'a Links<'a>,
    pub identifiers: &'a Identifiers,
}

impl Indexes<'_> {
    /// Every chunk in alphabetical order, with its chapter, links to all its parts and to the parts
    /// that use it.
    pub(super) fn chunks(&self, chapter: usize) -> String {
        let mut names: Vec<&String> = self.links.web.names().iter().collect();
        names.sort_by_key(|name| (name.to_lowercase(), name.as_str()));
        let mut out = String::from("<ul class=\"chunk-index\">\n");
        for name in names {
            let parts = self.links.web.part_indices(name);
            let Some(&first) = parts.first() else {
                continue;
            };
            let title = escape(&self.links.chapters[self.links.web.parts[first].chapter].title);
            let _ = write!(
                out,
                "<li><a href=\"{}\">⟨{}⟩</a> in {title}",
                self.links.href(chapter, first),
                escape(name)
            );
            if parts.len() > 1 {
                let links: Vec<String> = parts
                    .iter()
                    .enumerate()
                    .map(|(n, &p)| {
                        format!("<a href=\"{}\">{}</a>", self.links.href(chapter, p), n + 1)
                    })
                    .collect();
                let _ = write!(out, "; parts {}", links.join(" "));
            }
            if let Some(links) = self.links.user_links(chapter, name) {
                let _ = write!(out, "; used in {links}");
            }
            out.push_str("</li>\n");
        }
        out.push_str("</ul>\n");
        out
    }

    /// Every defined name in alphabetical order, under its initial: where it is defined (marked),
    /// then the chapters that use it (each once, linked to the first of its parts that does).
    pub(super) fn identifiers(&self, chapter: usize) -> String {
        let mut names: Vec<&String> = self.identifiers.defined.keys().collect();
        names.sort_by_key(|name| (name.to_lowercase(), name.as_str()));
        let mut out = String::from("<div class=\"identifier-index\">\n");
        out.push_str(&letter_row(&names));
        let mut initial = None;
        for name in names {
            let first = name.chars().next().map(initial_of);
            if first != initial {
                if initial.is_some() {
                    out.push_str("</ul>\n");
                }
                initial = first;
                let letter = first.unwrap_or('_');
                let _ = write!(
                    out,
                    "<p class=\"identifier-initial\" id=\"identifiers-{letter}\">{letter}</p>\n<ul>\n"
                );
            }
            out.push_str(&self.identifier_entry(chapter, name));
        }
        if initial.is_some() {
            out.push_str("</ul>\n");
        }
        out.push_str("</div>\n");
        out
    }

    fn identifier_entry(&self, chapter: usize, name: &str) -> String {
        let defining: BTreeSet<usize> = self
            .identifiers
            .names(name, true)
            .iter()
            .map(|(_, part)| *part)
            .collect();
        let definitions: Vec<String> = self
            .identifiers
            .names(name, true)
            .iter()
            .map(|(definition, part)| {
                let path = definition.path();
                let path = if path == name {
                    String::new()
                } else {
                    format!(" <code>{}</code>", escape(&path))
                };
                format!(
                    "<span class=\"identifier-definition\">{}{path} in <a href=\"{}\"><strong>⟨{}⟩</strong></a> ({})</span>",
                    definition.kind,
                    self.links.href(chapter, *part),
                    escape(&self.links.web.parts[*part].name),
                    escape(&self.links.chapters[self.links.web.parts[*part].chapter].title)
                )
            })
            .collect();
        let mut chapters_using = BTreeSet::new();
        let uses: Vec<String> = self
            .identifiers
            .uses
            .get(name)
            .into_iter()
            .flatten()
            .filter(|part| !defining.contains(part))
            .filter(|&&part| chapters_using.insert(self.links.web.parts[part].chapter))
            .map(|&part| {
                format!(
                    "<a href=\"{}\">{}</a>",
                    self.links.href(chapter, part),
                    escape(&self.links.chapters[self.links.web.parts[part].chapter].title)
                )
            })
            .collect();
        let used = if uses.is_empty() {
            String::new()
        } else {
            format!("; used in {}", uses.join(", "))
        };
        format!(
            "<li id=\"{}\"><code>{}</code>: {}{used}</li>\n",
            identifier_anchor(name),
            escape(name),
            definitions.join("; ")
        )
    }
}

/// The letter a name is listed under in the index of identifiers.
fn initial_of(first: char) -> char {
    first.to_ascii_uppercase()
}

/// A row of the initials of `names` (sorted), each a link to its letter in the index of identifiers.
fn letter_row(names: &[&String]) -> String {
    let mut letters: Vec<char> = names
        .iter()
        .filter_map(|name| name.chars().next())
        .map(initial_of)
        .collect();
    letters.dedup();
    let links: Vec<String> = letters
        .iter()
        .map(|letter| format!("<a href=\"#identifiers-{letter}\">{letter}</a>"))
        .collect();
    format!("<p class=\"identifier-letters\">{}</p>\n", links.join(" "))
}
