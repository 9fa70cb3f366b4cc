//! Weaving: the chapters as mdbook renders them. Every chunk part becomes one code block under a
//! caption with its name, an anchor and links to all its parts, with a note of where it is used below;
//! the references and the identifiers inside the code are linked (by `book/theme/chunks.js`, after
//! mdbook's highlighting, from data the weaver puts on each chunk); figure directives become
//! pictures; and the index directives become the index of chunks and the index of identifiers.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::ops::Range;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value, json};

use crate::identifiers::{Definition, identifiers, names};
use crate::{Diagnostic, Part, PartKind, Place, SourceText, Web, fenced_blocks, root_file, tangle};

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
/// The line that asks for the index of all identifiers.
const IDENTIFIER_INDEX: &str = "{{#identifier-index}}";

/// What a line of prose standing alone asks the weaver for.
enum Directive<'t> {
    Index,
    IdentifierIndex,
    Figure(Vec<&'t str>),
}

/// The directive a line of prose is, if it is one.
fn directive(line: &str) -> Option<Directive<'_>> {
    let line = line.trim();
    if line == INDEX {
        return Some(Directive::Index);
    }
    if line == IDENTIFIER_INDEX {
        return Some(Directive::IdentifierIndex);
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
    let weaver = Weaver::new(&web, chapters, roles);
    let woven = (0..chapters.len())
        .map(|i| weaver.chapter(i, figures, &mut problems))
        .collect();
    (woven, problems)
}

struct Weaver<'w> {
    web: &'w Web,
    chapters: &'w [Chapter],
    roles: &'w Roles,
    /// The anchor of each part, by its index in `web.parts`.
    anchors: Vec<String>,
    /// The parts that use each chunk, by the chunk's name, as indices into `web.parts`.
    users: HashMap<&'w str, Vec<usize>>,
    identifiers: Identifiers,
    /// The chapter that holds the index of identifiers, if one does.
    identifier_index: Option<usize>,
}

/// The items the book defines, each with the part that defines it, and the parts that use each name.
#[derive(Default)]
struct Identifiers {
    definitions: Vec<(Definition, usize)>,
    /// Indices into `definitions`, by name.
    defined: BTreeMap<String, Vec<usize>>,
    /// The parts whose code uses each defined name, in book order.
    uses: BTreeMap<String, Vec<usize>>,
    /// The names each part binds locally and does not call, which in that part are not the items
    /// of those names.
    bound: HashSet<(usize, String)>,
}

impl Identifiers {
    fn new(web: &Web) -> Identifiers {
        let Ok(files) = tangle(web) else {
            return Identifiers::default();
        };
        let mut found = Identifiers::default();
        let names = names(&files);
        for definition in names.definitions {
            if let Some(part) = part_at(web, &definition.place) {
                let index = found.definitions.len();
                found
                    .defined
                    .entry(definition.name.clone())
                    .or_default()
                    .push(index);
                found.definitions.push((definition, part));
            }
        }
        for (name, place) in names.bindings {
            if let Some(part) = part_at(web, &place)
                && !calls(&web.parts[part], &name)
            {
                found.bound.insert((part, name));
            }
        }
        for (i, part) in web.parts.iter().enumerate() {
            let code = part.body.iter().filter(|line| line.reference.is_none());
            for line in code {
                for (name, qualified) in identifiers(&line.text) {
                    if found.names(name, qualified).is_empty() || found.is_local(i, name) {
                        continue;
                    }
                    let parts = found.uses.entry(name.to_string()).or_default();
                    if parts.last() != Some(&i) {
                        parts.push(i);
                    }
                }
            }
        }
        found
    }

    /// Whether part `i` binds `name` itself, as a parameter or in a pattern, and does not call it.
    fn is_local(&self, i: usize, name: &str) -> bool {
        self.bound.contains(&(i, name.to_string()))
    }

    /// The definitions a word of code may name: all of its name's, or, for a word after neither `.`
    /// nor `::`, those that are not methods or associated items.
    fn names(&self, name: &str, qualified: bool) -> Vec<&(Definition, usize)> {
        let all = self.defined.get(name).map_or(&[][..], Vec::as_slice);
        all.iter()
            .map(|&d| &self.definitions[d])
            .filter(|(definition, _)| qualified || !definition.is_qualified())
            .collect()
    }
}

/// Whether a part's code calls a function named `name` (`name(`), as in `let world = world(11)`,
/// where the call is still linked.
fn calls(part: &Part, name: &str) -> bool {
    part.body.iter().any(|line| {
        line.text.match_indices(name).any(|(at, _)| {
            let before = line.text[..at].chars().next_back();
            let after = line.text[at + name.len()..].trim_start();
            !before.is_some_and(|c| c == '_' || c.is_alphanumeric()) && after.starts_with('(')
        })
    })
}

/// The part whose code holds a place of a chapter.
fn part_at(web: &Web, place: &Place) -> Option<usize> {
    web.parts.iter().position(|part| {
        part.header.file == place.file
            && part.header.line < place.line
            && place.line <= part.header.line + part.body.len()
    })
}

impl<'w> Weaver<'w> {
    fn new(web: &'w Web, chapters: &'w [Chapter], roles: &'w Roles) -> Weaver<'w> {
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
        let identifier_index = chapters.iter().position(|chapter| {
            chapter
                .content
                .lines()
                .any(|line| line.trim() == IDENTIFIER_INDEX)
        });
        Weaver {
            web,
            chapters,
            roles,
            anchors,
            users,
            identifiers: Identifiers::new(web),
            identifier_index,
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
                Some(Directive::IdentifierIndex) => {
                    out.push_str(&self.identifier_index(chapter));
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

    /// A chunk part as HTML and Markdown: its caption, its code as one block (references as they are
    /// written), and where the chunk is used. The chunk's element carries what `chunks.js` needs to
    /// link the references and identifiers in the highlighted code.
    fn woven_part(&self, chapter: usize, i: usize) -> String {
        let part = &self.web.parts[i];
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

    /// A chunk's number: its place among the book's chunks in the order they are first shown, which
    /// captions show and printed references give, so that a reader on paper can find a chunk.
    fn number(&self, name: &str) -> usize {
        self.web
            .names()
            .iter()
            .position(|n| n == name)
            .map_or(0, |i| i + 1)
    }

    /// Where each reference in part `i` leads: `{name: {href, where, chapter, number}}`, `chapter`
    /// being the target's chapter, `where` the same when it is not this one (and empty when it is),
    /// and `number` the target's chunk number.
    fn references_data(&self, chapter: usize, i: usize) -> Value {
        let mut data = Map::new();
        for line in &self.web.parts[i].body {
            let Some(reference) = &line.reference else {
                continue;
            };
            let Some(&target) = self.web.part_indices(&reference.name).first() else {
                continue;
            };
            let target_chapter = self.web.parts[target].chapter;
            let place = if target_chapter == chapter {
                String::new()
            } else {
                self.chapters[target_chapter].title.clone()
            };
            let entry = json!({
                "href": self.href(chapter, target),
                "where": place,
                "chapter": self.chapters[target_chapter].title,
                "number": self.number(&reference.name),
            });
            data.insert(reference.name.clone(), entry);
        }
        Value::Object(data)
    }

    /// Where each identifier that part `i` uses leads: `{name: {href, title, qualified}}`; a name
    /// with `qualified` is linked only after `.` or `::`.
    fn identifiers_data(&self, chapter: usize, i: usize) -> Value {
        let mut data = Map::new();
        let code = self.web.parts[i]
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
                    "href": self.identifier_href(chapter, name),
                    "title": self.identifier_title(name),
                    "qualified": qualified,
                });
                data.insert(name.to_string(), entry);
            }
        }
        Value::Object(data)
    }

    /// Where a link to a defined name goes: its one definition, or its entry in the index of
    /// identifiers when there are several.
    fn identifier_href(&self, from: usize, name: &str) -> String {
        let definitions = self.identifiers.names(name, true);
        match (definitions.as_slice(), self.identifier_index) {
            ([(_, part)], _) | ([(_, part), ..], None) => self.href(from, *part),
            (_, Some(index)) => format!(
                "{}#{}",
                relative_html(&self.chapters[from].path, &self.chapters[index].path),
                identifier_anchor(name)
            ),
            ([], _) => String::new(),
        }
    }

    /// What hovering a defined name says: what it is and where it is defined.
    fn identifier_title(&self, name: &str) -> String {
        let lines: Vec<String> = self
            .identifiers
            .names(name, true)
            .iter()
            .map(|(definition, part)| {
                let part = &self.web.parts[*part];
                format!(
                    "{} {}: ⟨{}⟩ in {}",
                    definition.kind,
                    definition.path(),
                    part.name,
                    self.chapters[part.chapter].title
                )
            })
            .collect();
        lines.join("\n")
    }

    /// A part's caption: its name as a Markdown heading (so that the book's search finds the chunk
    /// by its name and lands on it), the sign of a definition or continuation, what a root becomes,
    /// and, for a chunk with parts in other chapters, where its parts are (drawn by `chunks.js` from
    /// `data-parts`, so that the search's snippets are not full of part numbers); parts side by side
    /// in one chapter need no such links.
    fn caption(&self, chapter: usize, i: usize) -> String {
        let part = &self.web.parts[i];
        let sign = if part.kind == PartKind::Define {
            "≡"
        } else {
            "+≡"
        };
        let parts = self.web.part_indices(&part.name);
        let elsewhere = parts.iter().any(|&p| self.web.parts[p].chapter != chapter);
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
            self.anchors[i],
            self.number(&part.name),
        )
    }

    /// Part number `n` of a chunk (`p` in `web.parts`) as the caption of part `i` links it: where it
    /// is, what hovering it says, and whether it is `i` itself.
    fn part_data(&self, chapter: usize, i: usize, p: usize, n: usize) -> Value {
        let target = self.web.parts[p].chapter;
        let title = if p == i {
            "this part".to_string()
        } else if target == chapter {
            format!("part {n}, in this chapter")
        } else {
            format!("part {n}, in {}", self.chapters[target].title)
        };
        json!({"n": n, "href": self.href(chapter, p), "title": title, "current": p == i})
    }

    /// Links to the parts that use the chunk `name`, or `None` if nothing uses it.
    fn user_links(&self, chapter: usize, name: &str) -> Option<String> {
        let users = self.users.get(name)?;
        Some(self.part_links(chapter, users))
    }

    /// Links, by name, to the parts `parts`, from a page of `chapter`.
    fn part_links(&self, chapter: usize, parts: &[usize]) -> String {
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

    /// Where a chunk is used, under its first part only, and only where that tells the reader
    /// something: a root of the same chapter, which lists the chunk already, is left out.
    fn footer(&self, chapter: usize, i: usize) -> String {
        let name = &self.web.parts[i].name;
        if self.web.part_indices(name).first() != Some(&i) {
            return String::new();
        }
        let users: Vec<usize> = self
            .users
            .get(name.as_str())
            .into_iter()
            .flatten()
            .copied()
            .filter(|&u| {
                let user = &self.web.parts[u];
                !(root_file(&user.name).is_some() && user.chapter == chapter)
            })
            .collect();
        if users.is_empty() {
            return String::new();
        }
        format!(
            "<div class=\"chunk-footer\">Used in {}.</div>\n",
            self.part_links(chapter, &users)
        )
    }

    /// Every chunk in alphabetical order, with its chapter, links to all its parts and to the parts
    /// that use it.
    fn index(&self, chapter: usize) -> String {
        let mut names: Vec<&String> = self.web.names().iter().collect();
        names.sort_by_key(|name| (name.to_lowercase(), name.as_str()));
        let mut out = String::from("<ul class=\"chunk-index\">\n");
        for name in names {
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

    /// Every defined name in alphabetical order, under its initial: where it is defined (marked),
    /// then the chapters that use it (each once, linked to the first of its parts that does).
    fn identifier_index(&self, chapter: usize) -> String {
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
                    self.href(chapter, *part),
                    escape(&self.web.parts[*part].name),
                    escape(&self.chapters[self.web.parts[*part].chapter].title)
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
            .filter(|&&part| chapters_using.insert(self.web.parts[part].chapter))
            .map(|&part| {
                format!(
                    "<a href=\"{}\">{}</a>",
                    self.href(chapter, part),
                    escape(&self.chapters[self.web.parts[part].chapter].title)
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

/// The anchor of a name's entry in the index of identifiers.
fn identifier_anchor(name: &str) -> String {
    format!("ident-{name}")
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

/// Text that Markdown shows as it is: every ASCII punctuation character escaped with a backslash.
fn markdown_text(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
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
    let encoded: Vec<String> = target
        .split('/')
        .map(|segment| utf8_percent_encode(segment, PATH_SEGMENT).to_string())
        .collect();
    format!("{}{}.html", "../".repeat(depth), encoded.join("/"))
}

/// What a chapter's path must have percent-encoded in a link: everything but letters, digits and
/// `-._~`, so that a space, `#`, `?` or `%` in a file's name cannot end or change the link.
const PATH_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

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
        assert_contains(
            &woven[1],
            "Used in <a href=\"a.html#chunk-file-lib-rs-1\">⟨file:lib.rs⟩</a>.",
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
    fn a_footer_says_where_a_chunk_is_used_only_where_the_caption_and_root_do_not() {
        let a = chapter(
            "a.md",
            "```rust\n// <<file:lib.rs>>=\n// <<near>>\n// <<far>>\n```\n\nNear.\n\n```rust\n// <<near>>=\nfn near() {}\n```\n\nMore.\n\n```rust\n// <<near>>+=\nfn nearer() {}\n```\n",
        );
        let b = chapter(
            "b.md",
            "```rust\n// <<far>>=\nfn far() {}\n```\n\nMore.\n\n```rust\n// <<far>>+=\nfn farther() {}\n```\n",
        );
        let (woven, problems) = weave(&[a, b], "book/src", &Roles::new(), &mut no_figures);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(
            !woven[0].contains("chunk-footer"),
            "a chunk used only by its chapter's root has no footer:\n{}",
            woven[0]
        );
        assert_eq!(
            woven[1].matches("<div class=\"chunk-footer\">Used in <a href=\"a.html#chunk-file-lib-rs-1\">⟨file:lib.rs⟩</a>.</div>").count(),
            1,
            "a chunk used from another chapter says so once, under its first part:\n{}",
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
            "&quot;Grid&quot;:{&quot;href&quot;:&quot;a.html#chunk-file-lib-rs-1&quot;,&quot;qualified&quot;:false,&quot;title&quot;:&quot;struct Grid: ⟨file:lib.rs⟩ in a.md&quot;}",
        );
        assert_contains(
            &woven[1],
            "&quot;new&quot;:{&quot;href&quot;:&quot;index.html#ident-new&quot;,&quot;qualified&quot;:false",
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
            "&quot;cat&quot;:{&quot;href&quot;:&quot;a.html#chunk-file-lib-rs-1&quot;",
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
