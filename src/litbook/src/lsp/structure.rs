//! rust-analyzer's answers about the structure of the code, rewritten to speak of the chapters:
//! highlights of a name, selection ranges, symbols of the workspace (with the chunks' names among
//! them), the call hierarchy, and the range a rename would change.

use lsp_types::SymbolKind;
use serde_json::{Value, json};

use crate::Web;
use crate::lsp::rewrite::Rewriter;

/// The highlights of a name in the tangled file `tangled`, those that land in the chapter the
/// editor asked about (`chapter_uri`); a chunk used twice gives each of its highlights once.
pub fn highlights(rewriter: &Rewriter, tangled: &str, chapter_uri: &str, result: &Value) -> Value {
    let mut found: Vec<Value> = Vec::new();
    for highlight in result.as_array().into_iter().flatten() {
        let Some((uri, range)) = rewriter.chapter_range(tangled, &highlight["range"]) else {
            continue;
        };
        let highlight = json!({"range": range, "kind": highlight["kind"]});
        if uri == chapter_uri && !found.contains(&highlight) {
            found.push(highlight);
        }
    }
    Value::Array(found)
}

/// The range a rename at the request's place would change (`Range`, or `{range, placeholder}`),
/// in the chapter; `null` (no rename here) when it has no place in the chapter.
pub fn prepare_rename(rewriter: &Rewriter, tangled: &str, result: Value) -> Value {
    let range = if result.get("range").is_some() {
        &result["range"]
    } else {
        &result
    };
    let Some((_, mapped)) = rewriter.chapter_range(tangled, range) else {
        return Value::Null;
    };
    match result.get("placeholder") {
        Some(placeholder) => json!({"range": mapped, "placeholder": placeholder}),
        None if result.get("start").is_some() => mapped,
        None => result,
    }
}

/// Selection ranges, one per position asked about, each a chain of ranges from the innermost out;
/// the chain stops at the first range that leaves the chapter or its chunk.
pub fn selection_ranges(rewriter: &Rewriter, tangled: &str, result: &Value) -> Value {
    let chains = result.as_array().into_iter().flatten();
    Value::Array(
        chains
            .map(|chain| selection_chain(rewriter, tangled, chain, None).unwrap_or(Value::Null))
            .collect(),
    )
}

fn selection_chain(
    rewriter: &Rewriter,
    tangled: &str,
    selection: &Value,
    chapter: Option<&str>,
) -> Option<Value> {
    let (uri, range) = rewriter.chapter_range(tangled, &selection["range"])?;
    if chapter.is_some_and(|c| c != uri) || !reaches_end(rewriter, tangled, &selection["range"]) {
        return None;
    }
    let parent = selection
        .get("parent")
        .and_then(|parent| selection_chain(rewriter, tangled, parent, Some(&uri)));
    Some(match parent {
        Some(parent) => json!({"range": range, "parent": parent}),
        None => json!({"range": range}),
    })
}

/// Whether a range's end, too, has a place in a chapter: a range over lines the tangler wrote (a
/// whole file, a whole function around a reference) has none there.
fn reaches_end(rewriter: &Rewriter, tangled: &str, range: &Value) -> bool {
    let end = json!({"start": range["end"], "end": range["end"]});
    rewriter.chapter_range(tangled, &end).is_some()
}

/// The workspace's symbols that match a query: rust-analyzer's, each at its chapter place (those
/// with none left out), and the chunks, each part at its header.
pub fn workspace_symbols(rewriter: &Rewriter, result: &Value, chunks: Vec<Value>) -> Value {
    let mut symbols: Vec<Value> = Vec::new();
    for symbol in result.as_array().into_iter().flatten() {
        let location = &symbol["location"];
        let Some(uri) = location["uri"].as_str() else {
            continue;
        };
        let Some((uri, range)) = rewriter.location(uri, &location["range"]) else {
            continue;
        };
        let mut symbol = symbol.clone();
        symbol["location"] = json!({"uri": uri, "range": range});
        symbols.push(symbol);
    }
    symbols.extend(chunks);
    Value::Array(symbols)
}

/// The chunks whose names hold every word of `query` (ignoring case), as symbols: one per part,
/// at its header. `location` gives a place's location in the editor's terms.
pub fn chunk_symbols(
    web: &Web,
    query: &str,
    location: impl Fn(&crate::Place) -> Value,
) -> Vec<Value> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let mut symbols = Vec::new();
    for name in web.names() {
        let lower = name.to_lowercase();
        if !words.iter().all(|word| lower.contains(word.as_str())) {
            continue;
        }
        for part in web.parts_of(name) {
            symbols.push(json!({
                "name": format!("⟨{name}⟩"),
                "kind": SymbolKind::MODULE,
                "location": location(&part.header),
                "containerName": "chunk",
            }));
        }
    }
    symbols
}

/// Call hierarchy items at their chapter places, each keeping rust-analyzer's own item in its
/// `data`, to be handed back when the editor asks for its calls; items with no place in a chapter
/// are left out.
pub fn hierarchy_items(rewriter: &Rewriter, result: &Value) -> Value {
    let items = result.as_array().into_iter().flatten();
    Value::Array(
        items
            .filter_map(|item| hierarchy_item(rewriter, item))
            .collect(),
    )
}

fn hierarchy_item(rewriter: &Rewriter, item: &Value) -> Option<Value> {
    let uri = item["uri"].as_str()?;
    let (chapter_uri, range) = rewriter.location(uri, &item["range"])?;
    let (_, selection) = rewriter.location(uri, &item["selectionRange"])?;
    let mut mapped = item.clone();
    mapped["uri"] = chapter_uri.into();
    mapped["range"] = range;
    mapped["selectionRange"] = selection;
    mapped["data"] = json!({"litbook": item});
    Some(mapped)
}

/// rust-analyzer's own item behind an item the editor hands back.
pub fn analyzer_item(item: &Value) -> Option<Value> {
    item["data"].get("litbook").cloned()
}

/// Incoming or outgoing calls (`side`: `from` or `to`): each call's item at its chapter place, and
/// the ranges of the calls in the file that holds them: the caller's (`from`), or, for outgoing
/// calls, the file of the item asked about (`asked`).
pub fn calls(rewriter: &Rewriter, result: &Value, side: &str, asked: &Value) -> Value {
    let mut found = Vec::new();
    for call in result.as_array().into_iter().flatten() {
        let Some(item) = hierarchy_item(rewriter, &call[side]) else {
            continue;
        };
        let holder = if side == "from" { &call[side] } else { asked };
        let Some(tangled) = holder["uri"].as_str().and_then(|u| rewriter.tangled_of(u)) else {
            continue;
        };
        let ranges: Vec<Value> = call["fromRanges"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|range| Some(rewriter.chapter_range(&tangled, range)?.1))
            .collect();
        found.push(json!({side: item, "fromRanges": ranges}));
    }
    Value::Array(found)
}
