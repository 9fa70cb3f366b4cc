//! The Rust items a book defines, found in its tangled files and placed in its chapters through the
//! line maps, and the identifiers a line of code uses: what the woven book links and indexes.

use syn::{ImplItem, Item, TraitItem};

use crate::syntax::{nests_too_deep, on_big_stacks};
use crate::{Place, TangledFile};

/// One item the book defines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    pub name: String,
    /// What it is, in words: `function`, `method`, `struct`, `enum`, `variant`, `constant`,
    /// `static`, `trait`, `type`, `macro`, `module`.
    pub kind: &'static str,
    /// The type or trait it belongs to, for methods, variants and associated items.
    pub owner: Option<String>,
    /// Where its name is written in the chapters.
    pub place: Place,
}

impl Definition {
    /// Its name as a reader would write it: `Graph::new`, `Node::Cell`, `build_bfs_table`.
    pub fn path(&self) -> String {
        match &self.owner {
            Some(owner) => format!("{owner}::{}", self.name),
            None => self.name.clone(),
        }
    }

    /// Whether it is named only after a `.` or `::` (a method or an associated item), so that a bare
    /// word of the same name elsewhere is something else.
    pub fn is_qualified(&self) -> bool {
        self.owner.is_some() && self.kind != "variant"
    }
}

/// What the tangled files name: the items they define and the names they bind locally.
#[derive(Debug, Default)]
pub struct Names {
    /// Every item the files define, except test functions, in file order.
    pub definitions: Vec<Definition>,
    /// The names the files bind locally (parameters, `let`, closure, `for` and `match` patterns),
    /// each where it is bound: inside the code that binds it, such a name is a local, not the item of
    /// the same name defined elsewhere. Names that begin with a capital are left out, as a bare
    /// capitalised name in a pattern is an enum's variant rather than a binding.
    pub bindings: Vec<(String, Place)>,
}

/// The items and the local bindings of the tangled files, each file parsed once, on threads with
/// stack enough for syn (`on_big_stacks`). A file that does not parse, or nests too deep to be
/// parsed safely, contributes nothing (the build reports it).
pub fn names(files: &[TangledFile]) -> Names {
    let mut names = Names::default();
    for found in on_big_stacks(files, names_in) {
        names.definitions.extend(found.definitions);
        names.bindings.extend(found.bindings);
    }
    names
}

fn names_in(file: &TangledFile) -> Names {
    let mut names = Names::default();
    if nests_too_deep(&file.text) {
        return names;
    }
    if let Ok(parsed) = syn::parse_file(&file.text) {
        let mut collector = Collector {
            file,
            found: &mut names.definitions,
        };
        collector.items(&parsed.items, None);
        let mut bindings = Bindings {
            file,
            found: &mut names.bindings,
        };
        syn::visit::Visit::visit_file(&mut bindings, &parsed);
    }
    names
}

struct Bindings<'a> {
    file: &'a TangledFile,
    found: &'a mut Vec<(String, Place)>,
}

impl<'ast> syn::visit::Visit<'ast> for Bindings<'_> {
    fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
        let name = pat.ident.to_string();
        let start = pat.ident.span().start();
        if name.starts_with(|c: char| c.is_lowercase() || c == '_')
            && let Some(place) = self.file.map.place(start.line, start.column + 1)
        {
            self.found.push((name, place));
        }
        syn::visit::visit_pat_ident(self, pat);
    }
}

struct Collector<'a> {
    file: &'a TangledFile,
    found: &'a mut Vec<Definition>,
}

impl Collector<'_> {
    fn add(&mut self, ident: &syn::Ident, kind: &'static str, owner: Option<&str>) {
        let start = ident.span().start();
        if let Some(place) = self.file.map.place(start.line, start.column + 1) {
            self.found.push(Definition {
                name: ident.to_string(),
                kind,
                owner: owner.map(str::to_string),
                place,
            });
        }
    }

    fn items(&mut self, items: &[Item], owner: Option<&str>) {
        for item in items {
            match item {
                Item::Fn(f) if !is_test(&f.attrs) => self.add(&f.sig.ident, "function", owner),
                Item::Struct(s) => self.add(&s.ident, "struct", owner),
                Item::Enum(e) => {
                    self.add(&e.ident, "enum", owner);
                    let name = e.ident.to_string();
                    for variant in &e.variants {
                        self.add(&variant.ident, "variant", Some(&name));
                    }
                }
                Item::Const(c) => self.add(&c.ident, "constant", owner),
                Item::Static(s) => self.add(&s.ident, "static", owner),
                Item::Type(t) => self.add(&t.ident, "type", owner),
                Item::Macro(m) => {
                    if let Some(ident) = &m.ident {
                        self.add(ident, "macro", owner);
                    }
                }
                Item::Trait(t) => self.trait_items(t),
                Item::Impl(i) => self.impl_items(i),
                Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        self.items(items, None);
                    }
                }
                _ => {}
            }
        }
    }

    fn trait_items(&mut self, t: &syn::ItemTrait) {
        self.add(&t.ident, "trait", None);
        let name = t.ident.to_string();
        for item in &t.items {
            match item {
                TraitItem::Fn(f) => self.add(&f.sig.ident, "method", Some(&name)),
                TraitItem::Const(c) => self.add(&c.ident, "constant", Some(&name)),
                TraitItem::Type(ty) => self.add(&ty.ident, "type", Some(&name)),
                _ => {}
            }
        }
    }

    /// An impl's methods and associated constants (a trait impl's too: their names are the trait's,
    /// but each body is a definition a reader may look for); its associated types only when inherent.
    fn impl_items(&mut self, i: &syn::ItemImpl) {
        let owner = type_name(&i.self_ty);
        for item in &i.items {
            match item {
                ImplItem::Fn(f) if !is_test(&f.attrs) => {
                    self.add(&f.sig.ident, "method", owner.as_deref())
                }
                ImplItem::Const(c) => self.add(&c.ident, "constant", owner.as_deref()),
                ImplItem::Type(t) if i.trait_.is_none() => {
                    self.add(&t.ident, "type", owner.as_deref())
                }
                _ => {}
            }
        }
    }
}

/// The last segment of a type's path (`Graph` for `crate::search::Graph<'a>`).
fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(path) => path.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("test"))
}

/// The identifiers a line of Rust uses, in order, leaving out comments, string and character
/// literals, lifetimes, and the modules of paths (a lower-case word before `::`); each with whether a
/// `.` or `::` stands right before it.
pub fn identifiers(line: &str) -> Vec<(&str, bool)> {
    let bytes = line.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'/' if bytes.get(i + 1) == Some(&b'/') => break,
            b'"' => i = end_of_string(bytes, i + 1),
            b'\'' => i = end_of_char_or_lifetime(bytes, i + 1),
            c if c == b'_' || c.is_ascii_alphabetic() => {
                let start = i;
                while i < bytes.len() && (bytes[i] == b'_' || bytes[i].is_ascii_alphanumeric()) {
                    i += 1;
                }
                let word = &line[start..i];
                let before = line[..start].trim_end();
                let qualified = before.ends_with('.') || before.ends_with("::");
                let module =
                    line[i..].starts_with("::") && word.starts_with(|c: char| c.is_lowercase());
                if !module {
                    found.push((word, qualified));
                }
            }
            c if c.is_ascii_digit() => {
                while i < bytes.len() && (bytes[i] == b'_' || bytes[i].is_ascii_alphanumeric()) {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    found
}

/// The index just past a string literal's closing quote (or the line's end), from inside it.
fn end_of_string(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Past a character literal (`'a'`, `'\n'`), or past the quote of a lifetime (`'a`), from after the
/// quote.
fn end_of_char_or_lifetime(bytes: &[u8], i: usize) -> usize {
    match (bytes.get(i), bytes.get(i + 1), bytes.get(i + 2)) {
        (Some(b'\\'), _, _) => {
            let from = (i + 2).min(bytes.len());
            let close = bytes[from..].iter().position(|&b| b == b'\'');
            close.map_or(bytes.len(), |at| from + at + 1)
        }
        (Some(_), Some(b'\''), _) => i + 2,
        _ => {
            let mut j = i;
            while j < bytes.len() && (bytes[j] == b'_' || bytes[j].is_ascii_alphanumeric()) {
                j += 1;
            }
            j
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SourceText, Web, tangle};

    #[test]
    fn items_are_found_at_their_chapter_places() {
        let chapter = "# A\n\n```rust\n// <<file:a.rs>>=\npub enum Node { Boundary, Cell(u8) }\n// <<impl>>\n#[test]\nfn a_test() {}\n```\n\nMore.\n\n```rust\n// <<impl>>=\nimpl Node {\n    pub fn new() -> Node { Node::Boundary }\n}\nconst LIMIT: u32 = 1;\n```\n";
        let (web, _) = Web::parse(vec![SourceText::new("book/src/a.md", chapter)]);
        let files = tangle(&web).unwrap();
        let found: Vec<(String, &str, u32)> = names(&files)
            .definitions
            .into_iter()
            .map(|d| (d.path(), d.kind, d.place.line as u32))
            .collect();
        assert_eq!(
            found,
            [
                ("Node".to_string(), "enum", 5),
                ("Node::Boundary".to_string(), "variant", 5),
                ("Node::Cell".to_string(), "variant", 5),
                ("Node::new".to_string(), "method", 16),
                ("LIMIT".to_string(), "constant", 18),
            ]
        );
    }

    #[test]
    fn a_lines_identifiers_leave_out_comments_strings_and_lifetimes() {
        let line = r#"let x: &'a str = a.len() + crate::Node::new("n // x", '\'', 'c', '\u{41}'); // Node"#;
        assert_eq!(
            identifiers(line),
            [
                ("let", false),
                ("x", false),
                ("str", false),
                ("a", false),
                ("len", true),
                ("Node", true),
                ("new", true),
            ]
        );
    }
}
