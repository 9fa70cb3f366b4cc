//! Requests that go on to rust-analyzer, moved from the chapters to the mirror's tangled files, and
//! its answers moved back: with each method's own function from the table of methods
//! ([`methods`](crate::lsp::methods)), or gathered from pieces and put together here.

use serde_json::{Value, json};

use lsp_server::{Request, Response};
use lsp_types::MessageType;
use lsp_types::request::{InlayHintRequest, Request as _, SemanticTokensRangeRequest};

use crate::lsp::book::EditedBook;
use crate::lsp::chunk_answers;
use crate::lsp::editor::Editor;
use crate::lsp::hints::hints_in_chapter;
use crate::lsp::methods::{self, ChapterAnswer, Gathering, Route, Unplaced};
use crate::lsp::mirror::Mirror;
use crate::lsp::pending::{Pending, Sent};
use crate::lsp::positions::{Located, Positions};
use crate::lsp::rewrite::{Rewriter, from_lsp, lsp};
use crate::lsp::rust_analyzer::{Availability, RustAnalyzer, response_id};
use crate::lsp::structure;
use crate::lsp::tokens::{TokenResults, encode, marker_tokens};
use crate::lsp::uri::uri_of;

/// What sends the editor's requests on to rust-analyzer and its answers back: the server's parts it
/// needs, borrowed.
pub struct Forwarder<'a> {
    pub editor: &'a Editor,
    pub book: &'a EditedBook,
    pub analyzer: &'a mut RustAnalyzer,
    pub pending: &'a mut Pending,
    pub tokens: &'a mut TokenResults,
}

impl Forwarder<'_> {
    /// Sends a request about Rust code on to rust-analyzer, at its tangled place.
    pub fn forward(&mut self, request: Request, at: &Located) {
        let mirror = match self.analyzer.availability() {
            Availability::Ready(mirror) => mirror,
            Availability::Later => return self.pending.wait(request),
            Availability::Never => return self.editor.respond(request.id, Value::Null),
        };
        let moved = analyzer_params(&self.book.positions, mirror, &request.params, at);
        let Some((tangled, params)) = moved else {
            return self.editor.respond(request.id, Value::Null);
        };
        let chapter_uri = uri_of(&self.book.chapter_path(&at.file));
        self.send_on(request, params, tangled, chapter_uri, Value::Null);
    }

    /// Sends a request about no chapter place on to rust-analyzer: a search of the workspace's
    /// symbols, or the calls of a call hierarchy item it gave (handed back as it gave it).
    pub fn forward_unplaced(&mut self, request: Request, unplaced: Unplaced) {
        match self.analyzer.availability() {
            Availability::Ready(_) => {}
            Availability::Later => return self.pending.wait(request),
            Availability::Never if unplaced == Unplaced::Symbols => {
                let chunks = chunk_symbols(self.book, &request.params);
                return self.editor.respond(request.id, Value::Array(chunks));
            }
            Availability::Never => return self.editor.respond(request.id, Value::Null),
        }
        let mut params = request.params.clone();
        let asked = match unplaced {
            Unplaced::Symbols => params.clone(),
            Unplaced::Calls(_) => match structure::analyzer_item(&params["item"]) {
                Some(item) => {
                    params["item"] = item.clone();
                    item
                }
                None => return self.editor.respond(request.id, Value::Null),
            },
        };
        self.send_on(request, params, String::new(), String::new(), asked);
    }

    fn send_on(
        &mut self,
        request: Request,
        params: Value,
        tangled: String,
        chapter_uri: String,
        asked: Value,
    ) {
        let id = self.analyzer.request(request.method.clone(), params);
        let sent = Sent {
            editor_id: request.id,
            method: request.method,
            tangled,
            chapter_uri,
            asked,
        };
        self.pending.forwarded(id, sent);
    }

    /// Asks rust-analyzer about every tangled file with code from `chapter`, in pieces of lines
    /// all sent at once; the editor's request is answered once all have answered (or at once, with
    /// what the server knows itself, when there is no rust-analyzer).
    pub fn gather(&mut self, request: Request, chapter: &str, gathering: Gathering) {
        let range = &request.params["range"];
        let line = |key: &str| range[key]["line"].as_u64().map(|l| l as usize);
        let lines = match (line("start"), line("end")) {
            (Some(first), Some(last)) => (first, last),
            _ => (0, usize::MAX - 1),
        };
        let last = lines.1.min(self.book.current_lines(chapter));
        let spans = self.book.positions.tangled_lines(chapter, lines.0, last);
        let asked = json!({"chapter": chapter, "params": request.params});
        match self.analyzer.availability() {
            Availability::Ready(mirror) => {
                let method = match gathering {
                    Gathering::InlayHints => InlayHintRequest::METHOD,
                    Gathering::SemanticTokens => SemanticTokensRangeRequest::METHOD,
                };
                let threads = std::thread::available_parallelism().map_or(1, usize::from);
                let mut asks = Vec::new();
                for (file, span) in spans {
                    let Some(tangled) = self.book.positions.files().find(|f| f.name == file) else {
                        continue;
                    };
                    let document = json!({"uri": uri_of(&mirror.path_of(file))});
                    for range in piece_ranges(&tangled.text, span, threads) {
                        let params = json!({"textDocument": document, "range": range});
                        asks.push((file.to_string(), params));
                    }
                }
                if asks.is_empty() {
                    let answer = self.put_together(gathering, &asked, &[]);
                    return self.editor.respond(request.id, answer);
                }
                self.pending.gather(request.id.clone(), asked, asks.len());
                for (tangled, params) in asks {
                    let id = self.analyzer.request(method.into(), params);
                    let sent = Sent {
                        editor_id: request.id.clone(),
                        method: request.method.clone(),
                        tangled,
                        chapter_uri: String::new(),
                        asked: Value::Null,
                    };
                    self.pending.forwarded(id, sent);
                }
            }
            Availability::Later => self.pending.wait(request),
            _ => {
                let answer = self.put_together(gathering, &asked, &[]);
                self.editor.respond(request.id, answer);
            }
        }
    }

    /// The answer to a gathered request, from rust-analyzer's answers about each piece (tangled
    /// file, result), moved into the chapter (and, for semantic tokens, the chunk markers' own).
    fn put_together(
        &mut self,
        gathering: Gathering,
        asked: &Value,
        gathered: &[(String, Value)],
    ) -> Value {
        let chapter = asked["chapter"].as_str().unwrap_or_default();
        let positions = &self.book.positions;
        if gathering == Gathering::InlayHints {
            let Some(mirror) = self.analyzer.mirror() else {
                return json!([]);
            };
            let rewriter = Rewriter {
                positions,
                mirror,
                crate_dir: self.book.crate_dir(),
            };
            let range = &asked["params"]["range"];
            let line = |key: &str| range[key]["line"].as_u64().unwrap_or(0) as usize;
            let lines = (line("start"), line("end"));
            let mut hints = Vec::new();
            for (tangled, result) in gathered {
                hints.extend(hints_in_chapter(&rewriter, tangled, result, chapter, lines));
            }
            hints.sort_by_key(|h| {
                (
                    h["position"]["line"].as_u64(),
                    h["position"]["character"].as_u64(),
                )
            });
            hints.dedup();
            return Value::Array(hints);
        }
        let mut found = marker_tokens(&self.book.web, chapter);
        let translation = self.analyzer.translation();
        for (tangled, result) in gathered {
            let data: Vec<u64> = result["data"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_u64)
                .collect();
            found.extend(translation.tokens_in_chapter(positions, tangled, &data, chapter));
        }
        let previous = asked["params"]["previousResultId"].as_str();
        self.tokens.answer(chapter, encode(found), previous)
    }

    /// rust-analyzer answered a request of the editor's: the answer is passed on, its places in the
    /// chapters.
    pub fn answered(&mut self, response: Response) {
        let Some(id) = response_id(&response.id) else {
            return;
        };
        let Some(forwarded) = self.pending.answered(id) else {
            return;
        };
        let route = methods::method(&forwarded.method).map(|method| method.route);
        let gathering = match route {
            Some(Route::Chapter(_, ChapterAnswer::Gathered(gathering))) => Some(gathering),
            _ => None,
        };
        if response.error.is_some() && gathering.is_some() {
            for piece in self.pending.give_up(&forwarded.editor_id) {
                self.analyzer.cancel(piece);
            }
        }
        if let Some(error) = response.error {
            let response = Response::new_err(forwarded.editor_id, error.code, error.message);
            return self.editor.send(response.into());
        }
        let Some(mirror) = self.analyzer.mirror() else {
            return;
        };
        let rewriter = Rewriter {
            positions: &self.book.positions,
            mirror,
            crate_dir: self.book.crate_dir(),
        };
        let result = response.result.unwrap_or(Value::Null);
        if let Some(gathering) = gathering {
            let editor_id = forwarded.editor_id;
            let gathering_so_far =
                self.pending
                    .piece_answered(&editor_id, forwarded.tangled, result);
            if let Some(whole) = gathering_so_far {
                let answer = self.put_together(gathering, &whole.asked, &whole.answers);
                self.editor.respond(editor_id, answer);
            }
            return;
        }
        let (result, warning) = match route {
            Some(Route::Chapter(_, ChapterAnswer::ServerOrAnalyzer(_, put_back))) => {
                put_back(&rewriter, &forwarded, result)
            }
            Some(Route::Unplaced(Unplaced::Symbols)) => {
                let chunks = chunk_symbols(self.book, &forwarded.asked);
                (
                    structure::workspace_symbols(&rewriter, &result, chunks),
                    None,
                )
            }
            Some(Route::Unplaced(Unplaced::Calls(side))) => {
                let calls = structure::calls(&rewriter, &result, side, &forwarded.asked);
                (calls, None)
            }
            _ => (result, None),
        };
        if let Some(warning) = warning {
            self.editor.show_message(MessageType::WARNING, &warning);
        }
        self.editor.respond(forwarded.editor_id, result);
    }
}

/// A request's parameters as rust-analyzer must have them, with the tangled file it is about: its
/// document, position, range, positions, and the ranges of the diagnostics it names, each moved to
/// where the chapter's code at `at` was tangled. `None` when the place has no tangled code.
pub fn analyzer_params(
    positions: &Positions,
    mirror: &Mirror,
    params: &Value,
    at: &Located,
) -> Option<(String, Value)> {
    let start = match (params.get("range"), params["positions"].get(0)) {
        (Some(range), _) => chapter_at(&at.file, &range["start"])?,
        (None, Some(first)) => chapter_at(&at.file, first)?,
        (None, None) => at.clone(),
    };
    let tangled = positions.to_tangled(&start)?;
    let file = tangled.file.clone();
    let to_tangled = |position: &Value| -> Option<Value> {
        let found = positions.to_tangled(&chapter_at(&at.file, position)?)?;
        (found.file == file).then(|| lsp(found.position))
    };
    let mut params = params.clone();
    params["textDocument"]["uri"] = uri_of(&mirror.path_of(&file)).into();
    if params.get("position").is_some() {
        params["position"] = lsp(tangled.position);
    }
    if let Some(range) = params.get("range").cloned() {
        params["range"] = tangled_range(&range, &to_tangled)?;
    }
    if let Some(list) = params["positions"].as_array() {
        let moved: Option<Vec<Value>> = list.iter().map(&to_tangled).collect();
        params["positions"] = Value::Array(moved?);
    }
    if let Some(diagnostics) = params["context"]["diagnostics"].as_array() {
        let moved: Vec<Value> = diagnostics
            .iter()
            .filter_map(|diagnostic| {
                let mut diagnostic = diagnostic.clone();
                diagnostic["range"] = tangled_range(&diagnostic["range"], &to_tangled)?;
                Some(diagnostic)
            })
            .collect();
        params["context"]["diagnostics"] = Value::Array(moved);
    }
    Some((file, params))
}

/// A chapter range moved into a tangled file: its end as far as it has a place there, or its
/// start.
fn tangled_range(range: &Value, to_tangled: &dyn Fn(&Value) -> Option<Value>) -> Option<Value> {
    let start = to_tangled(&range["start"])?;
    let end = to_tangled(&range["end"]).unwrap_or_else(|| start.clone());
    Some(json!({"start": start, "end": end}))
}

fn chapter_at(file: &str, position: &Value) -> Option<Located> {
    Some(Located {
        file: file.to_string(),
        position: from_lsp(position)?,
    })
}

/// The chunks a symbol search finds, at the editor's places.
fn chunk_symbols(book: &EditedBook, params: &Value) -> Vec<Value> {
    let query = params["query"].as_str().unwrap_or_default();
    structure::chunk_symbols(&book.web, query, |place| {
        chunk_answers::location(book, place)
    })
}

/// The ranges, at most `pieces` of about equal length and none shorter than [`PIECE_LINES`], that
/// the lines `first..=last` (0-based) of the tangled `text` are asked about in. The last ends at the
/// end of the text if `last` is its last line (a range past it is an error to rust-analyzer).
fn piece_ranges(text: &str, (first, last): (usize, usize), pieces: usize) -> Vec<Value> {
    let lines: Vec<&str> = text.split('\n').collect();
    let last = last.min(lines.len() - 1);
    let first = first.min(last);
    let length = last + 1 - first;
    let count = length.div_ceil(PIECE_LINES).clamp(1, pieces.max(1));
    let size = length.div_ceil(count);
    (0..count)
        .map(|n| {
            let start = first + n * size;
            let end = (start + size).min(last + 1);
            let end = if end < lines.len() {
                json!({"line": end, "character": 0})
            } else {
                let width: usize = lines[last].chars().map(char::len_utf16).sum();
                json!({"line": last, "character": width})
            };
            json!({"start": {"line": start, "character": 0}, "end": end})
        })
        .collect()
}

/// The fewest lines a piece of a whole-chapter request is worth asking about on its own.
const PIECE_LINES: usize = 200;

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(range: &Value) -> (u64, u64, u64) {
        let line = |key: &str| range[key]["line"].as_u64().unwrap();
        (
            line("start"),
            line("end"),
            range["end"]["character"].as_u64().unwrap(),
        )
    }

    #[test]
    fn a_long_span_is_asked_in_pieces_and_a_short_one_whole() {
        let text = "let x = 1;\n".repeat(1000);
        let halves: Vec<_> = piece_ranges(&text, (0, 999), 2)
            .iter()
            .map(lines_of)
            .collect();
        assert_eq!(halves, [(0, 500, 0), (500, 1000, 0)]);
        let screenful: Vec<_> = piece_ranges(&text, (100, 159), 8)
            .iter()
            .map(lines_of)
            .collect();
        assert_eq!(screenful, [(100, 160, 0)]);
        let capped: Vec<_> = piece_ranges(&text, (0, 999), 64)
            .iter()
            .map(lines_of)
            .collect();
        assert_eq!(capped.len(), 5, "no piece under {PIECE_LINES} lines");
    }

    #[test]
    fn the_last_piece_ends_where_the_text_does() {
        let text = "fn a() {}\nfn é() {}";
        let ranges: Vec<_> = piece_ranges(text, (0, 5), 2).iter().map(lines_of).collect();
        assert_eq!(ranges, [(0, 1, 9)]);
    }
}
