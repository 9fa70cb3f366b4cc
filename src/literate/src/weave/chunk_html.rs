//! A chunk part as the reader sees it: a caption with its name, number and parts, the code as one
//! block, where the chunk is used, and the data `chunks.js` links the highlighted code with.

use serde_json::{Map, Value, json};

use crate::identifiers::identifiers;
use crate::weave::Roles;
use crate::weave::definitions::Identifiers;
use crate::weave::html::{code_block, escape, markdown_text};
use crate::weave::links::Links;
use crate::{PartKind, root_file};

/// Weaves chunk parts, from the book's links and identifiers.
pub(super) struct ChunkHtml<'a> {
    pub links: &'a Links<'a>,
    pub identifiers: &'a Identifiers,
    pub roles: &'a Roles,
}

impl ChunkHtml<'_> {
    /// A chunk part as HTML and Markdown: its caption, its code as one block (references as they are
    /// written), and where the chunk is used. The chunk's element carries what `chunks.js` needs to
    /// link the references and identifiers in the highlighted code.
    pub(super) fn woven_part(&self, chapter: usize, i: usize) -> String {
        let part = &self.links.web.parts[i];
        let mut out = format!(
            "<div class=\"chunk\" data-refs=\"{}\" data-idents=\"{}\">\n",
            escape(&self.references_data(chapter, i).to_string()),
            escape(&self.identifiers_data(chapter, i).to_string()),
        );
        out.push_str(&self.caption(chapter, i));
        let code: Vec<&str> = part.body.iter().map(|line| line.text.as_str()).collect();
        out.push_str(&code_block(&code));
        out.push_str(&self.footer(chapter, i));
        out.push_str("</div>\n");
        out
    }

    /// Where each reference in part `i` leads: `{name: {href, where, chapter, number}}`, `chapter`
    /// being the target's chapter, `where` the same when it is not this one (and empty when it is),
    /// and `number` the target's chunk number.
    fn references_data(&self, chapter: usize, i: usize) -> Value {
        let mut data = Map::new();
        for line in &self.links.web.parts[i].body {
            let Some(reference) = &line.reference else {
                continue;
            };
            let Some(&target) = self.links.web.part_indices(&reference.name).first() else {
                continue;
            };
            let target_chapter = self.links.web.parts[target].chapter;
            let place = if target_chapter == chapter {
                String::new()
            } else {
                self.links.chapters[target_chapter].title.clone()
            };
            let entry = json!({
                "href": self.links.href(chapter, target),
                "where": place,
                "chapter": self.links.chapters[target_chapter].title,
                "number": self.links.number(&reference.name),
            });
            data.insert(reference.name.clone(), entry);
        }
        Value::Object(data)
    }

    /// Where each identifier that part `i` uses leads: `{name: {href, title, qualified}}`; a name
    /// with `qualified` is linked only after `.` or `::`.
    fn identifiers_data(&self, chapter: usize, i: usize) -> Value {
        let mut data = Map::new();
        let code = self.links.web.parts[i]
            .body
            .iter()
            .filter(|l| l.reference.is_none());
        for line in code {
            for (name, _) in identifiers(&line.text) {
                let all = self.identifiers.names(name, true);
                if all.is_empty() || data.contains_key(name) || self.identifiers.is_local(i, name) {
                    continue;
                }
                let qualified = self.identifiers.names(name, false).is_empty();
                let entry = json!({
                    "href": self.identifiers.href(self.links, chapter, name),
                    "title": self.identifiers.title(self.links, name),
                    "qualified": qualified,
                });
                data.insert(name.to_string(), entry);
            }
        }
        Value::Object(data)
    }

    /// A part's caption: its name as a Markdown heading (so that the book's search finds the chunk
    /// by its name and lands on it), the sign of a definition or continuation, what a root becomes,
    /// and, for a chunk with parts in other chapters, where its parts are (drawn by `chunks.js` from
    /// `data-parts`, so that the search's snippets are not full of part numbers); parts side by side
    /// in one chapter need no such links.
    fn caption(&self, chapter: usize, i: usize) -> String {
        let part = &self.links.web.parts[i];
        let sign = if part.kind == PartKind::Define {
            "≡"
        } else {
            "+≡"
        };
        let parts = self.links.web.part_indices(&part.name);
        let elsewhere = parts
            .iter()
            .any(|&p| self.links.web.parts[p].chapter != chapter);
        let nav = if elsewhere {
            let links: Vec<Value> = parts
                .iter()
                .enumerate()
                .map(|(n, &p)| self.part_data(chapter, i, p, n + 1))
                .collect();
            format!(
                "<span class=\"chunk-nav\" data-parts=\"{}\"></span>",
                escape(&Value::Array(links).to_string())
            )
        } else {
            String::new()
        };
        let file = root_file(&part.name)
            .map(|f| {
                let role = self
                    .roles
                    .get(f)
                    .cloned()
                    .unwrap_or_else(|| format!("the file <code>{}</code>", escape(f)));
                format!(" <span class=\"chunk-file\">{role}</span>")
            })
            .unwrap_or_default();
        format!(
            "<div class=\"chunk-caption\">\n\n###### ⟨{}⟩ {{#{} .chunk-heading}}\n\n<div class=\"chunk-caption-rest\"><span class=\"chunk-sign\">{sign}</span><span class=\"chunk-number\">§{}</span>{file}{nav}</div>\n</div>\n\n",
            markdown_text(&part.name),
            self.links.anchors[i],
            self.links.number(&part.name),
        )
    }

    /// Part number `n` of a chunk (`p` in `web.parts`) as the caption of part `i` links it: where it
    /// is, what hovering it says, and whether it is `i` itself.
    fn part_data(&self, chapter: usize, i: usize, p: usize, n: usize) -> Value {
        let target = self.links.web.parts[p].chapter;
        let title = if p == i {
            "this part".to_string()
        } else if target == chapter {
            format!("part {n}, in this chapter")
        } else {
            format!("part {n}, in {}", self.links.chapters[target].title)
        };
        json!({"n": n, "href": self.links.href(chapter, p), "title": title, "current": p == i})
    }

    /// Where a chunk is used, under its first part only, and only where that tells the reader
    /// something: the chunks that use it, never a root, which says only which file the code goes
    /// into (that is for the book's tools, and the root's own caption says it).
    fn footer(&self, chapter: usize, i: usize) -> String {
        let name = &self.links.web.parts[i].name;
        if self.links.web.part_indices(name).first() != Some(&i) {
            return String::new();
        }
        let users: Vec<usize> = self
            .links
            .uses
            .users(name)
            .iter()
            .copied()
            .filter(|&u| root_file(&self.links.web.parts[u].name).is_none())
            .collect();
        if users.is_empty() {
            return String::new();
        }
        format!(
            "<div class=\"chunk-footer\">Used in {}.</div>\n",
            self.links.part_links(chapter, &users)
        )
    }
}
