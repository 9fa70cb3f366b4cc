//! What a shell includes: its `include!`s of files in `OUT_DIR`, as syn reads the shell, with the
//! inline modules each stands in. The shell check, the weaver's captions, the language server's
//! mirror and its features all read shells through this.

use std::ops::Range;

use proc_macro2::{TokenStream, TokenTree};
use syn::{Item, ItemMod, Visibility};

use crate::syntax::nests_too_deep;
use crate::{Place, SourceText};

/// An `include!(concat!(env!("OUT_DIR"), "/NAME.rs"))` of a shell, as syn reads the shell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Include {
    /// The tangled file's name (`world.rs`).
    pub file: String,
    /// Where the name is written.
    pub place: Place,
    /// The inline modules the include stands in, outermost first (`solve`, `board`).
    pub modules: Vec<String>,
    /// When the include is all a module holds: the bytes of that module's item from its visibility
    /// to its closing brace, and the bytes before its opening brace (`pub mod world`).
    pub module_item: Option<(Range<usize>, Range<usize>)>,
    /// The bytes of the macro's invocation, `include!(…)` without the `;` after it.
    pub invocation: Range<usize>,
}

/// The tangled files a shell includes, in the order they are written, at any depth of inline
/// modules. A shell that syn cannot parse (or that nests deeper than syn may go) includes nothing
/// that can be read; the compiler reports it.
pub fn includes(shell: &SourceText) -> Vec<Include> {
    if nests_too_deep(&shell.text) {
        return Vec::new();
    }
    let Ok(file) = syn::parse_file(&shell.text) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut pending: Vec<(&[Item], Vec<String>)> = vec![(&file.items, Vec::new())];
    while let Some((items, modules)) = pending.pop() {
        for item in items {
            match item {
                Item::Macro(item) => found.extend(include_of(&item.mac, shell, &modules)),
                Item::Mod(module) => {
                    let Some((_, inner)) = &module.content else {
                        continue;
                    };
                    let mut path = modules.clone();
                    path.push(module.ident.to_string());
                    match inner.as_slice() {
                        [Item::Macro(only)] => {
                            found.extend(include_of(&only.mac, shell, &path).map(|include| {
                                Include {
                                    module_item: Some(module_bytes(module)),
                                    ..include
                                }
                            }))
                        }
                        _ => pending.push((inner, path)),
                    }
                }
                _ => {}
            }
        }
    }
    found.sort_by_key(|include| (include.place.line, include.place.col));
    found
}

/// The include a macro is, if it is `include!` of a file in `OUT_DIR`: the string literal in it that
/// starts with `/` names the file.
fn include_of(mac: &syn::Macro, shell: &SourceText, modules: &[String]) -> Option<Include> {
    if !mac.path.is_ident("include") || !mac.tokens.to_string().contains("OUT_DIR") {
        return None;
    }
    let mut streams: Vec<TokenStream> = vec![mac.tokens.clone()];
    while let Some(stream) = streams.pop() {
        for token in stream {
            match token {
                TokenTree::Group(group) => streams.push(group.stream()),
                TokenTree::Literal(literal) => {
                    let span = literal.span();
                    let parsed = syn::parse2::<syn::LitStr>(TokenTree::Literal(literal).into());
                    let Some(name) = parsed
                        .ok()
                        .and_then(|l| l.value().strip_prefix('/').map(String::from))
                    else {
                        continue;
                    };
                    return Some(Include {
                        file: name,
                        place: shell.place(span.byte_range().start + 2),
                        modules: modules.to_vec(),
                        module_item: None,
                        invocation: invocation_bytes(mac),
                    });
                }
                _ => {}
            }
        }
    }
    None
}

/// The bytes of a macro's invocation, from its path to its closing delimiter.
fn invocation_bytes(mac: &syn::Macro) -> Range<usize> {
    let start = mac.path.segments[0].ident.span().byte_range().start;
    let end = mac.delimiter.span().close().byte_range().end;
    start..end
}

/// The bytes of an inline module's item from its visibility (doc comments and attributes stay
/// outside) to its closing brace, and the bytes of it before the opening brace.
fn module_bytes(module: &ItemMod) -> (Range<usize>, Range<usize>) {
    let start = match &module.vis {
        Visibility::Public(token) => token.span.byte_range().start,
        Visibility::Restricted(restricted) => restricted.pub_token.span.byte_range().start,
        Visibility::Inherited => module.mod_token.span.byte_range().start,
    };
    let (brace, _) = module.content.as_ref().expect("an inline module");
    let open = brace.span.open().byte_range().start;
    let end = brace.span.close().byte_range().end;
    (start..end, start..open)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_are_found_in_modules_at_any_depth_with_their_items() {
        let text = "//! A shell.\n\n/// The world.\npub mod world {\n    include!(concat!(env!(\"OUT_DIR\"), \"/world.rs\"));\n}\n\npub mod solve {\n    pub(crate) mod board {\n        include!(concat!(env!(\"OUT_DIR\"), \"/solve_board.rs\"));\n    }\n    // include!(concat!(env!(\"OUT_DIR\"), \"/commented.rs\"));\n}\n";
        let shell = SourceText::new("src/lib.rs", text);
        let found = includes(&shell);
        let files: Vec<&str> = found.iter().map(|i| i.file.as_str()).collect();
        assert_eq!(
            files,
            ["world.rs", "solve_board.rs"],
            "a comment is no include"
        );
        assert_eq!(found[0].place, Place::new("src/lib.rs", 5, 41));
        assert_eq!(found[1].modules, ["solve", "board"]);
        let (item, head) = found[1].module_item.clone().unwrap();
        assert!(text[item].starts_with("pub(crate) mod board {"));
        assert_eq!(&text[head], "pub(crate) mod board ");
        assert_eq!(
            &text[found[0].invocation.clone()],
            "include!(concat!(env!(\"OUT_DIR\"), \"/world.rs\"))"
        );
        let (item, _) = found[0].module_item.clone().unwrap();
        assert_eq!(&text[item.clone()][..14], "pub mod world ");
        assert!(text[item].ends_with("}"));
    }
}
