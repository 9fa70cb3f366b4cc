//! The items the book defines, as the tangled code declares them, each traced to the chunk part
//! that defines it, with the parts that use each name: what links a name in the code to its
//! definition.

use std::collections::{BTreeMap, HashSet};

use serde_json::{Value, json};

use crate::identifiers::{Definition, identifiers, names};
use crate::weave::html::{identifier_anchor, relative_html};
use crate::weave::links::Links;
use crate::{Part, Place, TangledFile, Web};

/// The items the book defines, each with the part that defines it, and the parts that use each name.
#[derive(Default)]
pub(super) struct Identifiers {
    pub definitions: Vec<(Definition, usize)>,
    /// Indices into `definitions`, by name.
    pub defined: BTreeMap<String, Vec<usize>>,
    /// The parts whose code uses each defined name, in book order.
    pub uses: BTreeMap<String, Vec<usize>>,
    /// The names each part binds locally and does not call, which in that part are not the items
    /// of those names.
    bound: HashSet<(usize, String)>,
}

impl Identifiers {
    /// The items the tangled `files` of `web` define, and their uses in its parts.
    pub(super) fn new(web: &Web, files: &[TangledFile]) -> Identifiers {
        let mut found = Identifiers::default();
        let names = names(files);
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

    /// Where a link to some of a name's definitions goes, and what hovering it says: the one
    /// definition, or the name's entry in the index of identifiers when there are several.
    pub(super) fn target(
        &self,
        links: &Links,
        from: usize,
        name: &str,
        definitions: &[&(Definition, usize)],
    ) -> Value {
        let href = match (definitions, links.identifier_index) {
            ([(_, part)], _) | ([(_, part), ..], None) => links.href(from, *part),
            (_, Some(index)) => format!(
                "{}#{}",
                relative_html(&links.chapters[from].path, &links.chapters[index].path),
                identifier_anchor(name)
            ),
            ([], _) => String::new(),
        };
        let title = self.title_of(links, definitions);
        json!({"href": href, "title": title})
    }

    /// What hovering a name written for `definitions` says: what each is and where it is defined.
    fn title_of(&self, links: &Links, definitions: &[&(Definition, usize)]) -> String {
        let lines: Vec<String> = definitions
            .iter()
            .map(|(definition, part)| {
                let part = &links.web.parts[*part];
                format!(
                    "{} {}: ⟨{}⟩ in {}",
                    definition.kind,
                    definition.path(),
                    part.name,
                    links.chapters[part.chapter].title
                )
            })
            .collect();
        lines.join("\n")
    }

    /// Whether part `i` binds `name` itself, as a parameter or in a pattern, and does not call it.
    pub(super) fn is_local(&self, i: usize, name: &str) -> bool {
        self.bound.contains(&(i, name.to_string()))
    }

    /// The definitions a word of code may name: all of its name's, or, for a word after neither `.`
    /// nor `::`, those that are not methods or associated items.
    pub(super) fn names(&self, name: &str, qualified: bool) -> Vec<&(Definition, usize)> {
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
