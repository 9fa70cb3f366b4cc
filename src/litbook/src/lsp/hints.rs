//! Inlay hints in the chapters: rust-analyzer's hints (types of bindings, parameter names, chained
//! types) of every tangled file with code from a chapter, each moved to the chapter place its code
//! came from.

use serde_json::Value;

use crate::lsp::rewrite::{Rewriter, lsp};

/// rust-analyzer's hints of the tangled file `tangled`, those that came from `chapter` and lie in
/// its lines `first..=last` (0-based), at their chapter places. A hint's label locations and edits
/// are moved too; those that have no place in a chapter are left out of it. A chunk used twice
/// gives its hints twice: the caller puts the hints of all files together, each once.
pub fn hints_in_chapter(
    rewriter: &Rewriter,
    tangled: &str,
    result: &Value,
    chapter: &str,
    (first, last): (usize, usize),
) -> Vec<Value> {
    let mut found = Vec::new();
    for hint in result.as_array().into_iter().flatten() {
        let Some(at) = rewriter.to_chapter(tangled, &hint["position"]) else {
            continue;
        };
        if at.file != chapter || at.position.line < first || at.position.line > last {
            continue;
        }
        let mut hint = hint.clone();
        hint["position"] = lsp(at.position);
        if let Some(Value::Array(parts)) = hint.get_mut("label") {
            for part in parts.iter_mut().filter_map(Value::as_object_mut) {
                if let Some(location) = part.remove("location") {
                    let moved = rewriter.locations(&location);
                    if !moved.is_null() {
                        part.insert("location".into(), moved);
                    }
                }
            }
        }
        if let Some(object) = hint.as_object_mut()
            && let Some(Value::Array(edits)) = object.remove("textEdits")
        {
            let moved: Option<Vec<Value>> = edits
                .iter()
                .map(|e| rewriter.text_edit(tangled, e))
                .collect();
            if let Some(moved) = moved {
                object.insert("textEdits".into(), Value::Array(moved));
            }
        }
        found.push(hint);
    }
    found
}
