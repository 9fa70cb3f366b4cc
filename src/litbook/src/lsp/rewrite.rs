//! rust-analyzer's answers, which speak of the mirror's tangled files, rewritten to speak of the
//! chapters: every location, range and edit goes through the line maps, and whatever has no place in
//! a chapter (the mirror's generated `lib.rs`) is left out.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::lsp::mirror::Mirror;
use crate::lsp::positions::{Located, Position, Positions};
use crate::lsp::uri::{path_of, uri_of};

/// What the rewriting needs: the maps, the mirror, and where the chapters live.
pub struct Rewriter<'a> {
    pub positions: &'a Positions,
    pub mirror: &'a Mirror,
    pub crate_dir: &'a Path,
}

/// Where a URI points once rewritten.
enum Target {
    /// A tangled file of the mirror, by name.
    Tangled(String),
    /// Outside the mirror (a dependency's source): kept as it is.
    Elsewhere,
    /// Inside the mirror but in no chapter.
    Nowhere,
}

impl Rewriter<'_> {
    /// The tangled file a URI of the mirror names, if it names one.
    pub fn tangled_of(&self, uri: &str) -> Option<String> {
        match self.target(uri) {
            Target::Tangled(name) => Some(name),
            _ => None,
        }
    }

    fn target(&self, uri: &str) -> Target {
        let Some(path) = path_of(uri) else {
            return Target::Elsewhere;
        };
        match self.mirror.tangled_name(&path) {
            Some(name) => Target::Tangled(name),
            None if path.starts_with(&self.mirror.dir) => Target::Nowhere,
            None => Target::Elsewhere,
        }
    }

    /// The chapter URI and range of a range in a tangled file, to be shown: a range that starts on
    /// lines the tangler wrote (an item's range takes in the announcement comment above it) starts
    /// at the first line after them that the chapter's code made; an end with no place in the
    /// chapter ends the range where it starts.
    pub fn chapter_range(&self, tangled: &str, range: &Value) -> Option<(String, Value)> {
        let start = from_lsp(&range["start"])?;
        let last = from_lsp(&range["end"]).map_or(start.line, |end| end.line);
        let start = std::iter::once(start)
            .chain((start.line + 1..=last).map(|line| Position { line, character: 0 }))
            .find_map(|position| self.positions.to_chapter(&self.located(tangled, position)))?;
        let end = self
            .to_chapter(tangled, &range["end"])
            .filter(|end| end.file == start.file && end.position >= start.position)
            .unwrap_or_else(|| start.clone());
        let uri = uri_of(&self.crate_dir.join(&start.file));
        Some((
            uri,
            json!({"start": lsp(start.position), "end": lsp(end.position)}),
        ))
    }

    pub fn to_chapter(&self, tangled: &str, position: &Value) -> Option<Located> {
        self.positions.to_chapter(&Located {
            file: tangled.to_string(),
            position: from_lsp(position)?,
        })
    }

    /// A `{uri, range}` pair rewritten; `None` if it has no place in a chapter.
    pub fn location(&self, uri: &str, range: &Value) -> Option<(String, Value)> {
        match self.target(uri) {
            Target::Tangled(name) => self.chapter_range(&name, range),
            Target::Elsewhere => Some((uri.to_string(), range.clone())),
            Target::Nowhere => None,
        }
    }

    /// A `Location`, a `LocationLink`, or a list of either, as definition and references answer.
    pub fn locations(&self, result: &Value) -> Value {
        match result {
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|item| self.locations(item))
                    .filter(|item| !item.is_null())
                    .collect(),
            ),
            Value::Object(item) if item.contains_key("targetUri") => {
                self.location_link(result).unwrap_or(Value::Null)
            }
            Value::Object(_) => {
                let uri = result["uri"].as_str().unwrap_or_default();
                self.location(uri, &result["range"]).map_or(
                    Value::Null,
                    |(uri, range)| json!({"uri": uri, "range": range}),
                )
            }
            _ => Value::Null,
        }
    }

    fn location_link(&self, link: &Value) -> Option<Value> {
        let uri = link["targetUri"].as_str()?;
        let (target_uri, target_range) = self.location(uri, &link["targetRange"])?;
        let (_, selection) = self.location(uri, &link["targetSelectionRange"])?;
        Some(json!({
            "targetUri": target_uri,
            "targetRange": target_range,
            "targetSelectionRange": selection,
        }))
    }

    /// A hover, its range (in the tangled file `tangled`) moved into the chapter.
    pub fn hover(&self, tangled: &str, mut hover: Value) -> Value {
        if let Some(object) = hover.as_object_mut()
            && let Some(range) = object.remove("range")
            && let Some((_, range)) = self.chapter_range(tangled, &range)
        {
            object.insert("range".into(), range);
        }
        hover
    }

    /// A completion list: each item's edits moved into the chapter, or dropped where they cannot be
    /// (the item then inserts its label).
    pub fn completion(&self, tangled: &str, mut result: Value) -> Value {
        let items = match &mut result {
            Value::Array(items) => items,
            Value::Object(list) => match list.get_mut("items") {
                Some(Value::Array(items)) => items,
                _ => return result,
            },
            _ => return result,
        };
        for item in items.iter_mut().filter_map(Value::as_object_mut) {
            if let Some(edit) = item.remove("textEdit")
                && let Some(edit) = self.text_edit(tangled, &edit)
            {
                item.insert("textEdit".into(), edit);
            }
            if let Some(Value::Array(edits)) = item.remove("additionalTextEdits") {
                let edits: Vec<Value> = edits
                    .iter()
                    .filter_map(|edit| self.text_edit(tangled, edit))
                    .collect();
                item.insert("additionalTextEdits".into(), Value::Array(edits));
            }
        }
        result
    }

    /// A `TextEdit` or `InsertReplaceEdit` in a tangled file, moved into the chapter.
    pub fn text_edit(&self, tangled: &str, edit: &Value) -> Option<Value> {
        let mut edit = edit.clone();
        for key in ["range", "insert", "replace"] {
            if let Some(range) = edit.get(key) {
                let (_, range) = self.chapter_range(tangled, range)?;
                edit[key] = range;
            }
        }
        Some(edit)
    }

    /// An edit of a tangled file as an edit of its chapter, exactly, or `None`. The range must lie on
    /// lines made from the chapter's code that follow one another in the chapter as in the file (so
    /// an edit never reaches across a chunk's edge into prose, nor onto a line the tangler wrote);
    /// an end at the start of a line stands for the end of the line before, with its line break.
    /// Each line break the edit writes is the chapter's (`\r\n` in a CRLF chapter), followed by
    /// what stands before the code on the edited line (a list's indentation, a quote's `>`).
    pub fn chapter_edit(&self, tangled: &str, edit: &Value) -> Option<(String, Value)> {
        let start = from_lsp(&edit["range"]["start"])?;
        let end = from_lsp(&edit["range"]["end"])?;
        let first = self.positions.to_chapter(&self.located(tangled, start))?;
        let ends_line_before = end.character == 0 && end.line > start.line;
        let last_line = if ends_line_before {
            end.line - 1
        } else {
            end.line
        };
        for (k, line) in (start.line..=last_line).enumerate() {
            let origin = self
                .positions
                .to_chapter(&self.located(tangled, Position { line, character: 0 }))?;
            if origin.file != first.file || origin.position.line != first.position.line + k {
                return None;
            }
        }
        let end = if ends_line_before {
            let line = first.position.line + (last_line - start.line) + 1;
            Position { line, character: 0 }
        } else {
            self.positions
                .to_chapter(&self.located(tangled, end))?
                .position
        };
        if end < first.position {
            return None;
        }
        let (prefix, ending) = self.positions.line_frame(tangled, start.line)?;
        let text = edit["newText"]
            .as_str()?
            .replace('\n', &format!("{ending}{prefix}"));
        let uri = uri_of(&self.crate_dir.join(&first.file));
        let range = json!({"start": lsp(first.position), "end": lsp(end)});
        Some((uri, json!({"range": range, "newText": text})))
    }

    fn located(&self, tangled: &str, position: Position) -> Located {
        Located {
            file: tangled.to_string(),
            position,
        }
    }

    /// A `WorkspaceEdit` (a rename's, a code action's) as edits of chapters, each made exactly
    /// ([`Rewriter::chapter_edit`]): an edit made through a chunk used twice appears once. Edits
    /// with no exact place in a chapter are left out and counted.
    pub fn workspace_edit(&self, edit: &Value) -> (Value, usize) {
        let mut by_uri: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        let mut left_out = 0;
        for (uri, edits) in document_edits(edit) {
            for text_edit in edits {
                let rewritten = match self.target(&uri) {
                    Target::Tangled(name) => self.chapter_edit(&name, &text_edit),
                    Target::Elsewhere => Some((uri.clone(), text_edit.clone())),
                    Target::Nowhere => None,
                };
                match rewritten {
                    Some((uri, text_edit)) => {
                        let list = by_uri.entry(uri).or_default();
                        if !list.contains(&text_edit) {
                            list.push(text_edit);
                        }
                    }
                    None => left_out += 1,
                }
            }
        }
        (json!({"changes": by_uri}), left_out)
    }

    /// A diagnostic of a tangled file, placed in its chapter: (chapter URI, diagnostic).
    pub fn diagnostic(&self, tangled: &str, diagnostic: &Value) -> Option<(String, Value)> {
        let (uri, range) = self.chapter_range(tangled, &diagnostic["range"])?;
        let mut diagnostic = diagnostic.clone();
        diagnostic["range"] = range;
        if let Some(Value::Array(related)) = diagnostic.get("relatedInformation") {
            let related: Vec<Value> = related
                .iter()
                .filter_map(|info| {
                    let location = self.locations(&info["location"]);
                    (!location.is_null())
                        .then(|| json!({"location": location, "message": info["message"]}))
                })
                .collect();
            diagnostic["relatedInformation"] = Value::Array(related);
        }
        Some((uri, diagnostic))
    }
}

/// The text edits of a `WorkspaceEdit` by document URI, from `changes` or `documentChanges` (whose
/// file operations are left out).
fn document_edits(edit: &Value) -> Vec<(String, Vec<Value>)> {
    let mut found = Vec::new();
    if let Some(changes) = edit["changes"].as_object() {
        for (uri, edits) in changes {
            found.push((uri.clone(), edits.as_array().cloned().unwrap_or_default()));
        }
    }
    if let Some(changes) = edit["documentChanges"].as_array() {
        for change in changes {
            if let (Some(uri), Some(edits)) = (
                change["textDocument"]["uri"].as_str(),
                change["edits"].as_array(),
            ) {
                found.push((uri.to_string(), edits.clone()));
            }
        }
    }
    found
}

/// A position as LSP writes it.
pub fn lsp(position: Position) -> Value {
    json!({"line": position.line, "character": position.character})
}

/// A position LSP wrote.
pub fn from_lsp(position: &Value) -> Option<Position> {
    Some(Position {
        line: usize::try_from(position["line"].as_u64()?).ok()?,
        character: usize::try_from(position["character"].as_u64()?).ok()?,
    })
}
