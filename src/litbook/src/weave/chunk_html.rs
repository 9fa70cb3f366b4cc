//! A chunk part as the reader sees it: a caption with its name, number and parts, the code as one
//! block, where the chunk is used, and the data `chunks.js` links the highlighted code with.

use serde_json::{Map, Value, json};

use crate::identifiers::{Definition, identifiers};
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

    /// Where each identifier that part `i` uses leads, by how it is written, so that `chunks.js`
    /// links a word only to what it certainly names: `{name: {free, owners, method}}`, each a
    /// `{href, title}` or absent. `free` is for the word alone or after a module's path (a function,
    /// a type, a constant, a variant); `owners` for `Type::name`, by the type (and `Self`, for any
    /// of them); `method` for `.name(`, when the book's methods are the only ones of that name a
    /// reader may meet. A field (`.name` with no call) is never linked, and neither is a method
    /// that the standard library's common types have too (`.push(`, `.map(`), whose receiver
    /// only a type checker knows.
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
                data.insert(name.to_string(), self.ways_to(chapter, name, &all));
            }
        }
        Value::Object(data)
    }

    /// The links of one name's definitions `all`, by how the name is written (see
    /// [`ChunkHtml::identifiers_data`]).
    fn ways_to(&self, chapter: usize, name: &str, all: &[&(Definition, usize)]) -> Value {
        let target = |definitions: &[&(Definition, usize)]| {
            self.identifiers
                .target(self.links, chapter, name, definitions)
        };
        let mut entry = Map::new();
        let free: Vec<_> = (all.iter().copied())
            .filter(|(definition, _)| !definition.is_qualified())
            .collect();
        if !free.is_empty() {
            entry.insert("free".into(), target(&free));
        }
        let mut owners = Map::new();
        for (definition, _) in all {
            let Some(owner) = &definition.owner else {
                continue;
            };
            if owners.contains_key(owner) {
                continue;
            }
            let owned: Vec<_> = (all.iter().copied())
                .filter(|(d, _)| d.owner.as_ref() == Some(owner))
                .collect();
            owners.insert(owner.clone(), target(&owned));
        }
        if !owners.is_empty() {
            entry.insert("owners".into(), Value::Object(owners));
        }
        let methods: Vec<_> = (all.iter().copied())
            .filter(|(definition, _)| definition.kind == "method")
            .collect();
        if !methods.is_empty() && !STANDARD_METHODS.contains(&name) {
            entry.insert("method".into(), target(&methods));
        }
        Value::Object(entry)
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

/// Methods of the standard library's common types (`Vec`, slices, `str`, `String`, `Option`,
/// `Result`, iterators, maps and sets, numbers, `Clone`, `Default`, `Display`, `From`…): a call
/// `.name(` of one of these names may be on such a value as well as on the book's own type, and
/// only a type checker can tell which, so the woven book links it to neither.
const STANDARD_METHODS: &[&str] = &[
    "abs",
    "all",
    "any",
    "append",
    "as_mut",
    "as_ref",
    "as_slice",
    "as_str",
    "binary_search",
    "borrow",
    "borrow_mut",
    "bytes",
    "capacity",
    "chain",
    "chars",
    "checked_add",
    "checked_sub",
    "chunks",
    "clamp",
    "clear",
    "clone",
    "cloned",
    "cmp",
    "collect",
    "concat",
    "contains",
    "contains_key",
    "copied",
    "count",
    "cycle",
    "dedup",
    "default",
    "drain",
    "ends_with",
    "entry",
    "enumerate",
    "eq",
    "expect",
    "extend",
    "filter",
    "filter_map",
    "find",
    "find_map",
    "first",
    "flat_map",
    "flatten",
    "fmt",
    "fold",
    "for_each",
    "from",
    "get",
    "get_mut",
    "hash",
    "insert",
    "into",
    "into_iter",
    "is_empty",
    "is_none",
    "is_some",
    "is_ok",
    "is_err",
    "iter",
    "iter_mut",
    "join",
    "keys",
    "last",
    "len",
    "lines",
    "map",
    "map_err",
    "max",
    "max_by_key",
    "min",
    "min_by_key",
    "ne",
    "new",
    "next",
    "nth",
    "ok",
    "ok_or",
    "or_insert",
    "parse",
    "partial_cmp",
    "peek",
    "pop",
    "position",
    "pow",
    "push",
    "push_str",
    "rem_euclid",
    "remove",
    "repeat",
    "replace",
    "retain",
    "rev",
    "reverse",
    "saturating_sub",
    "skip",
    "sort",
    "sort_by",
    "sort_by_key",
    "split",
    "starts_with",
    "step_by",
    "sum",
    "swap",
    "take",
    "to_owned",
    "to_string",
    "to_vec",
    "trim",
    "truncate",
    "try_from",
    "try_into",
    "unwrap",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "values",
    "windows",
    "with_capacity",
    "write",
    "zip",
];
