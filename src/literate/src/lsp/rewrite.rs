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

    /// The chapter URI and range of a range in a tangled file.
    pub fn chapter_range(&self, tangled: &str, range: &Value) -> Option<(String, Value)> {
        let start = self.to_chapter(tangled, &range["start"])?;
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

    /// A rename's `WorkspaceEdit`, as edits of chapters: an edit made through a chunk used twice
    /// appears once. Edits with no place in a chapter are left out and counted.
    pub fn workspace_edit(&self, edit: &Value) -> (Value, usize) {
        let mut by_uri: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        let mut left_out = 0;
        for (uri, edits) in document_edits(edit) {
            for text_edit in edits {
                let rewritten = self
                    .location(&uri, &text_edit["range"])
                    .map(|(uri, range)| {
                        (
                            uri,
                            json!({"range": range, "newText": text_edit["newText"]}),
                        )
                    });
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
