//! Semantic tokens in the chapters: rust-analyzer's tokens of every tangled file with code from a
//! chapter, each moved to the chapter line its code came from, and the chunk markers (headers and
//! references) as tokens of a type of their own, `chunkMarker`. The server's legend is fixed (it is
//! announced before rust-analyzer starts), and rust-analyzer's token types and modifiers are
//! translated into it by name; full results are kept per chapter so that a delta can be answered.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::Web;
use crate::lsp::chunks::parts_in;
use crate::lsp::positions::{Located, Position, Positions, utf16_len};

/// The token types the server announces: the protocol's, rust-analyzer's own, and the chunk marker.
pub const TOKEN_TYPES: &[&str] = &[
    "namespace",
    "type",
    "class",
    "enum",
    "interface",
    "struct",
    "typeParameter",
    "parameter",
    "variable",
    "property",
    "enumMember",
    "event",
    "function",
    "method",
    "macro",
    "keyword",
    "modifier",
    "comment",
    "string",
    "number",
    "regexp",
    "operator",
    "decorator",
    "angle",
    "arithmetic",
    "attribute",
    "attributeBracket",
    "bitwise",
    "boolean",
    "brace",
    "bracket",
    "builtinAttribute",
    "builtinType",
    "character",
    "colon",
    "comma",
    "comparison",
    "constParameter",
    "const",
    "derive",
    "deriveHelper",
    "dot",
    "escapeSequence",
    "formatSpecifier",
    "generic",
    "invalidEscapeSequence",
    "label",
    "lifetime",
    "logical",
    "macroBang",
    "parenthesis",
    "procMacro",
    "punctuation",
    "selfKeyword",
    "selfTypeKeyword",
    "semicolon",
    "static",
    "toolModule",
    "typeAlias",
    "union",
    "unresolvedReference",
    CHUNK_MARKER,
];

/// The token type of a chunk's header or reference line.
pub const CHUNK_MARKER: &str = "chunkMarker";

/// The token modifiers the server announces: the protocol's and rust-analyzer's own.
pub const TOKEN_MODIFIERS: &[&str] = &[
    "declaration",
    "definition",
    "readonly",
    "static",
    "deprecated",
    "abstract",
    "async",
    "modification",
    "documentation",
    "defaultLibrary",
    "associated",
    "attribute",
    "callable",
    "constant",
    "consuming",
    "controlFlow",
    "crateRoot",
    "injected",
    "intraDocLink",
    "library",
    "macro",
    "mutable",
    "procMacro",
    "public",
    "reference",
    "trait",
    "unsafe",
];

/// The legend the server announces to the editor.
pub fn legend() -> Value {
    json!({"tokenTypes": TOKEN_TYPES, "tokenModifiers": TOKEN_MODIFIERS})
}

/// One token at an absolute place: line, start and length in UTF-16 units, type and modifier bits,
/// in the server's legend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Token {
    line: usize,
    start: usize,
    length: usize,
    kind: usize,
    modifiers: u32,
}

/// rust-analyzer's legend, as its `initialize` answer gave it, translated into the server's.
#[derive(Clone, Debug, Default)]
pub struct Translation {
    kinds: Vec<Option<usize>>,
    modifiers: Vec<Option<u32>>,
}

impl Translation {
    /// The translation of the legend in rust-analyzer's `initialize` result.
    pub fn from_initialize(result: &Value) -> Translation {
        let legend = &result["capabilities"]["semanticTokensProvider"]["legend"];
        let names = |key: &str| -> Vec<String> {
            let list = legend[key].as_array().into_iter().flatten();
            list.filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        };
        Translation {
            kinds: names("tokenTypes")
                .iter()
                .map(|name| TOKEN_TYPES.iter().position(|t| t == name))
                .collect(),
            modifiers: names("tokenModifiers")
                .iter()
                .map(|name| {
                    let at = TOKEN_MODIFIERS.iter().position(|m| m == name)?;
                    Some(1 << at)
                })
                .collect(),
        }
    }

    /// rust-analyzer's tokens of the tangled file `tangled` (relative data), those that came from
    /// `chapter`, at their chapter places.
    pub fn tokens_in_chapter(
        &self,
        positions: &Positions,
        tangled: &str,
        data: &[u64],
        chapter: &str,
    ) -> Vec<Token> {
        let mut found = Vec::new();
        let (mut line, mut start) = (0_usize, 0_usize);
        for token in data.chunks_exact(5) {
            let (delta_line, delta_start) = (token[0] as usize, token[1] as usize);
            line += delta_line;
            start = if delta_line == 0 {
                start + delta_start
            } else {
                delta_start
            };
            let Some(kind) = self.kinds.get(token[3] as usize).copied().flatten() else {
                continue;
            };
            let modifiers = (0..self.modifiers.len())
                .filter(|bit| token[4] & (1 << bit) != 0)
                .filter_map(|bit| self.modifiers[bit])
                .fold(0, |all, bit| all | bit);
            let at = Located {
                file: tangled.to_string(),
                position: Position {
                    line,
                    character: start,
                },
            };
            let Some(placed) = positions.to_chapter(&at).filter(|p| p.file == chapter) else {
                continue;
            };
            found.push(Token {
                line: placed.position.line,
                start: placed.position.character,
                length: token[2] as usize,
                kind,
                modifiers,
            });
        }
        found
    }
}

/// The chunk markers of a chapter (each part's header, and each reference line) as tokens, from
/// their first character to the end of their line.
pub fn marker_tokens(web: &Web, chapter: &str) -> Vec<Token> {
    let kind = TOKEN_TYPES.len() - 1;
    let mut found = Vec::new();
    let Some(source) = web.chapters.iter().find(|c| c.display == chapter) else {
        return found;
    };
    let mut places = Vec::new();
    for part in parts_in(web, chapter) {
        places.push(&part.header);
        let references = part.body.iter().filter_map(|line| line.reference.as_ref());
        places.extend(references.map(|reference| &reference.place));
    }
    for place in places {
        let Some(text) = source.line(place.line) else {
            continue;
        };
        let start = utf16_len(text, place.col - 1);
        found.push(Token {
            line: place.line - 1,
            start,
            length: utf16_len(text, usize::MAX) - start,
            kind,
            modifiers: 0,
        });
    }
    found
}

/// Tokens as the protocol sends them: sorted, without overlaps, each relative to the one before.
pub fn encode(mut tokens: Vec<Token>) -> Vec<u64> {
    tokens.sort();
    tokens.dedup();
    let mut data = Vec::with_capacity(tokens.len() * 5);
    let (mut line, mut start, mut end) = (0, 0, 0);
    let mut first = true;
    for token in tokens {
        if !first && token.line == line && token.start < end {
            continue;
        }
        let delta_line = token.line - line;
        let delta_start = if delta_line == 0 && !first {
            token.start - start
        } else {
            token.start
        };
        data.extend([
            delta_line as u64,
            delta_start as u64,
            token.length as u64,
            token.kind as u64,
            u64::from(token.modifiers),
        ]);
        (line, start, end, first) = (token.line, token.start, token.start + token.length, false);
    }
    data
}

/// The last full result sent for each chapter, so that a delta can be answered.
#[derive(Default)]
pub struct TokenResults {
    next_id: u64,
    by_chapter: HashMap<String, (String, Vec<u64>)>,
}

impl TokenResults {
    /// The answer for a chapter's tokens `data`: in full, or, when the editor has the result
    /// `previous`, as the one edit that makes it this one.
    pub fn answer(&mut self, chapter: &str, data: Vec<u64>, previous: Option<&str>) -> Value {
        self.next_id += 1;
        let id = self.next_id.to_string();
        let before = self
            .by_chapter
            .get(chapter)
            .filter(|(last, _)| Some(last.as_str()) == previous)
            .map(|(_, data)| data.clone());
        self.by_chapter
            .insert(chapter.to_string(), (id.clone(), data.clone()));
        match before {
            Some(before) => json!({"resultId": id, "edits": [delta(&before, &data)]}),
            None => json!({"resultId": id, "data": data}),
        }
    }
}

/// The one edit that makes `before` into `after`: what lies between their common start and end.
fn delta(before: &[u64], after: &[u64]) -> Value {
    let common_start = before.iter().zip(after).take_while(|(a, b)| a == b).count();
    let rest = (before.len() - common_start).min(after.len() - common_start);
    let common_end = before
        .iter()
        .rev()
        .zip(after.iter().rev())
        .take(rest)
        .take_while(|(a, b)| a == b)
        .count();
    json!({
        "start": common_start,
        "deleteCount": before.len() - common_start - common_end,
        "data": &after[common_start..after.len() - common_end],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(line: usize, start: usize, length: usize) -> Token {
        Token {
            line,
            start,
            length,
            kind: 0,
            modifiers: 0,
        }
    }

    #[test]
    fn tokens_are_sent_sorted_relative_and_without_overlaps() {
        let data = encode(vec![
            token(2, 4, 3),
            token(0, 1, 2),
            token(2, 5, 1),
            token(2, 9, 1),
        ]);
        assert_eq!(data, [0, 1, 2, 0, 0, 2, 4, 3, 0, 0, 0, 5, 1, 0, 0]);
    }

    #[test]
    fn a_delta_replaces_only_what_changed() {
        let mut sent = TokenResults::default();
        let first = sent.answer("a.md", vec![1, 2, 3, 4, 5], None);
        let id = first["resultId"].as_str().unwrap().to_string();
        let second = sent.answer("a.md", vec![1, 2, 9, 4, 5], Some(&id));
        assert_eq!(
            second["edits"],
            json!([{"start": 2, "deleteCount": 1, "data": [9]}])
        );
        let unknown = sent.answer("a.md", vec![1], Some("nonsense"));
        assert_eq!(unknown["data"], json!([1]));
    }

    #[test]
    fn rust_analyzer_s_legend_is_translated_by_name() {
        let result = json!({"capabilities": {"semanticTokensProvider": {"legend": {
            "tokenTypes": ["function", "noSuchType", "keyword"],
            "tokenModifiers": ["mutable", "declaration"],
        }}}});
        let translation = Translation::from_initialize(&result);
        let function = TOKEN_TYPES.iter().position(|t| *t == "function");
        assert_eq!(
            translation.kinds,
            [
                function,
                None,
                TOKEN_TYPES.iter().position(|t| *t == "keyword")
            ]
        );
        let mutable = TOKEN_MODIFIERS
            .iter()
            .position(|m| *m == "mutable")
            .unwrap();
        assert_eq!(translation.modifiers, [Some(1 << mutable), Some(1)]);
    }
}
