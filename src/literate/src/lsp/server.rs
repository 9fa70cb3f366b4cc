//! The server's loop: messages from the editor about chapters, and from rust-analyzer about the
//! mirror, each turned into the other's terms.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::Instant;

use crossbeam_channel::{Receiver, at, never, select};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use serde_json::{Value, json};

use crate::lsp::analyzer::{Analyzer, find_rust_analyzer};
use crate::lsp::book::EditedBook;
use crate::lsp::chunks::{
    chunk_named_at, chunk_text, completions, name_being_typed, part_headers, parts_in,
};
use crate::lsp::mirror::Mirror;
use crate::lsp::pending::{Cancelled, Pending, Restarts};
use crate::lsp::positions::{Located, Position, chars_before, utf16_len};
use crate::lsp::rewrite::{Rewriter, from_lsp, lsp};
use crate::lsp::uri::{path_of, uri_of};
use crate::{Place, Project, TangledFile, Web};

/// The methods whose requests go on to rust-analyzer when they are not about a chunk marker.
const FORWARDED: [&str; 6] = [
    "textDocument/hover",
    "textDocument/definition",
    "textDocument/references",
    "textDocument/completion",
    "textDocument/signatureHelp",
    "textDocument/rename",
];

/// The id of the request that initializes rust-analyzer.
const ANALYZER_INIT: i32 = 0;

/// rust-analyzer as the server knows it.
enum AnalyzerState {
    /// Not started yet: the book has not tangled since the server started.
    NotStarted,
    /// Started; `ready` once it has answered `initialize`.
    Running {
        analyzer: Analyzer,
        mirror: Mirror,
        ready: bool,
    },
    /// Stopped; to be started again at this time.
    Restarting(Instant),
    /// Cannot be had; the reason was shown to the editor.
    Missing,
}

pub struct Server {
    editor: Connection,
    book: EditedBook,
    analyzer: AnalyzerState,
    /// What rust-analyzer has of each tangled file: (version, text).
    sent: HashMap<String, (i32, String)>,
    /// The editor's requests still owed an answer.
    pending: Pending,
    restarts: Restarts,
    next_id: i32,
    /// Whether the editor changed a chapter since the book was last tangled.
    dirty: bool,
    /// rust-analyzer's latest diagnostics, by tangled file.
    analyzer_diagnostics: BTreeMap<String, Vec<Value>>,
    /// What was last published, by chapter URI.
    published: HashMap<String, Vec<Value>>,
    /// Whether rust-analyzer has said it finished loading.
    announced_ready: bool,
    /// The editor's capabilities, parts of which are passed on to rust-analyzer.
    editor_capabilities: Value,
}

impl Server {
    pub fn new(editor: Connection, project: Project, editor_capabilities: Value) -> Server {
        let mut server = Server {
            editor,
            book: EditedBook::new(project),
            analyzer: AnalyzerState::NotStarted,
            sent: HashMap::new(),
            pending: Pending::default(),
            restarts: Restarts::default(),
            next_id: ANALYZER_INIT + 1,
            dirty: false,
            analyzer_diagnostics: BTreeMap::new(),
            published: HashMap::new(),
            announced_ready: false,
            editor_capabilities,
        };
        if server.book.problems.is_empty() {
            let files: Vec<TangledFile> = server.book.positions.files().cloned().collect();
            server.start_analyzer(&files);
        }
        server.publish();
        server
    }

    /// Serves until the editor shuts the server down or goes away. Edits are coalesced: the book is
    /// tangled again once no more messages from the editor are queued, or before a request needs it.
    pub fn serve(mut self) -> Result<(), String> {
        loop {
            if self.dirty && self.editor.receiver.is_empty() {
                self.retangle();
            }
            let from_analyzer: Receiver<Message> = match &self.analyzer {
                AnalyzerState::Running { analyzer, .. } => analyzer.receiver.clone(),
                _ => never(),
            };
            let restart = match self.analyzer {
                AnalyzerState::Restarting(time) => Some(time),
                _ => None,
            };
            let next = [restart, self.pending.next_due()]
                .into_iter()
                .flatten()
                .min();
            let timer = next.map_or_else(never, at);
            select! {
                recv(self.editor.receiver) -> message => {
                    let Ok(message) = message else { return Ok(()) };
                    if !self.editor_message(message)? {
                        return Ok(());
                    }
                }
                recv(from_analyzer) -> message => match message {
                    Ok(message) => self.analyzer_message(message),
                    Err(_) => self.analyzer_stopped(),
                },
                recv(timer) -> _ => self.time_passed(),
            }
        }
    }

    /// A restart or a request fell due.
    fn time_passed(&mut self) {
        let now = Instant::now();
        if matches!(self.analyzer, AnalyzerState::Restarting(time) if time <= now) {
            let files: Vec<TangledFile> = self.book.positions.files().cloned().collect();
            self.log("starting rust-analyzer again");
            self.start_analyzer(&files);
        }
        let (late, analyzer_ids) = self.pending.overdue(now);
        for id in analyzer_ids {
            self.send_analyzer(
                Notification::new("$/cancelRequest".into(), json!({"id": id})).into(),
            );
        }
        for id in late {
            let message = "rust-analyzer did not answer in time (still loading?); ask again";
            self.send_error(id, ErrorCode::ContentModified, message);
        }
    }

    fn editor_message(&mut self, message: Message) -> Result<bool, String> {
        match message {
            Message::Request(request) => {
                if self
                    .editor
                    .handle_shutdown(&request)
                    .map_err(|e| e.to_string())?
                {
                    self.shut_down_analyzer();
                    return Ok(false);
                }
                self.request(request);
            }
            Message::Notification(notification) => self.notification(notification),
            Message::Response(_) => {}
        }
        Ok(true)
    }

    fn request(&mut self, request: Request) {
        if self.dirty {
            self.retangle();
        }
        let Some(at) = self.chapter_position(&request.params) else {
            return self.respond(request.id, Value::Null);
        };
        let chunk = chunk_named_at(&self.book.web, &at.file, at.position.line);
        let answer = match (request.method.as_str(), chunk) {
            ("textDocument/documentSymbol", _) => Some(self.document_symbols(&at.file)),
            ("textDocument/definition", Some(name)) => Some(self.chunk_locations(&name)),
            ("textDocument/references", Some(name)) => Some(self.chunk_references(&name)),
            ("textDocument/hover", Some(name)) => Some(self.chunk_hover(&name)),
            ("textDocument/completion", _) => self.chunk_completion(&at),
            (method, _) if FORWARDED.contains(&method) => None,
            _ => {
                let response = Response::new_err(
                    request.id,
                    ErrorCode::MethodNotFound as i32,
                    format!("literate lsp does not answer {}", request.method),
                );
                return self.send_editor(response.into());
            }
        };
        match answer {
            Some(answer) => self.respond(request.id, answer),
            None => self.forward(request, &at),
        }
    }

    /// The chapter and position a request is about (a document symbol request has no position).
    fn chapter_position(&self, params: &Value) -> Option<Located> {
        let path = path_of(params["textDocument"]["uri"].as_str()?)?;
        let file = self.book.chapter_name(&path)?;
        let position = from_lsp(&params["position"]).unwrap_or(Position {
            line: 0,
            character: 0,
        });
        Some(Located { file, position })
    }

    fn forward(&mut self, request: Request, at: &Located) {
        let mirror = match &self.analyzer {
            AnalyzerState::Running {
                ready: true,
                mirror,
                ..
            } => mirror,
            AnalyzerState::Running { .. } | AnalyzerState::Restarting(_) => {
                return self.pending.wait(request);
            }
            AnalyzerState::NotStarted | AnalyzerState::Missing => {
                return self.respond(request.id, Value::Null);
            }
        };
        let Some(tangled) = self.book.positions.to_tangled(at) else {
            return self.respond(request.id, Value::Null);
        };
        let mut params = request.params.clone();
        params["textDocument"]["uri"] = uri_of(&mirror.path_of(&tangled.file)).into();
        params["position"] = lsp(tangled.position);
        let id = self.next_id;
        self.next_id += 1;
        self.pending
            .forwarded(id, request.id, request.method.clone(), tangled.file);
        self.send_analyzer(Request::new(id.into(), request.method, params).into());
    }

    fn notification(&mut self, notification: Notification) {
        let params = &notification.params;
        if notification.method == "$/cancelRequest" {
            return self.cancel(params);
        }
        let path = params["textDocument"]["uri"].as_str().and_then(path_of);
        let Some(path) = path.filter(|p| self.book.chapter_name(p).is_some()) else {
            return;
        };
        match notification.method.as_str() {
            "textDocument/didOpen" => {
                let text = params["textDocument"]["text"].as_str().unwrap_or_default();
                self.edited(path, Some(text.to_string()));
            }
            "textDocument/didChange" => {
                let changes = params["contentChanges"].as_array();
                let text = changes.and_then(|c| c.last()?["text"].as_str());
                if let Some(text) = text {
                    self.edited(path, Some(text.to_string()));
                }
            }
            "textDocument/didClose" => self.edited(path, None),
            "textDocument/didSave" => self.saved(),
            _ => {}
        }
    }

    /// The editor cancels a request: one still waiting is answered as cancelled at once; one
    /// rust-analyzer has is cancelled there too, and its answer (an error) passed on.
    fn cancel(&mut self, params: &Value) {
        let id = match &params["id"] {
            Value::Number(n) => n
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .map(RequestId::from),
            Value::String(s) => Some(RequestId::from(s.clone())),
            _ => None,
        };
        let Some(id) = id else { return };
        match self.pending.cancel(&id) {
            Cancelled::Waiting(id) => self.send_error(id, ErrorCode::RequestCanceled, "cancelled"),
            Cancelled::Forwarded(analyzer_id) => {
                let params = json!({"id": analyzer_id});
                self.send_analyzer(Notification::new("$/cancelRequest".into(), params).into());
            }
            Cancelled::Unknown => {}
        }
    }

    /// A chapter's text changed in the editor (`None`: it is closed, and the file on disk counts).
    fn edited(&mut self, path: PathBuf, text: Option<String>) {
        let unchanged = self.book.overlays.get(&path) == text.as_ref();
        match text {
            Some(text) => self.book.overlays.insert(path, text),
            None => self.book.overlays.remove(&path),
        };
        self.dirty |= !unchanged;
    }

    /// Tangles the book as the editor has it, gives rust-analyzer the files that changed, and
    /// publishes the diagnostics that changed.
    fn retangle(&mut self) {
        self.dirty = false;
        if let Some(files) = self.book.tangle() {
            match self.analyzer {
                AnalyzerState::NotStarted => self.start_analyzer(&files),
                _ => self.send_files(&files),
            }
        }
        self.publish();
    }

    /// The editor saved a chapter: rust-analyzer runs `cargo check` on the mirror, whose files are
    /// already written.
    fn saved(&mut self) {
        if self.dirty {
            self.retangle();
        }
        let AnalyzerState::Running { mirror, ready, .. } = &self.analyzer else {
            return;
        };
        let Some(name) = self.sent.keys().next().filter(|_| *ready) else {
            return;
        };
        let uri = uri_of(&mirror.path_of(name));
        let params = json!({"textDocument": {"uri": uri}});
        self.send_analyzer(Notification::new("textDocument/didSave".into(), params).into());
    }

    fn start_analyzer(&mut self, files: &[TangledFile]) {
        let started = find_rust_analyzer().and_then(|program| {
            let mirror = Mirror::create(self.book.crate_dir(), files)?;
            let target_dir = std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(|| self.book.crate_dir().join("target"), PathBuf::from);
            let analyzer = Analyzer::start(&program, &mirror.dir, &target_dir)?;
            Ok((analyzer, mirror))
        });
        match started {
            Ok((analyzer, mirror)) => {
                let params = self.analyzer_initialize(&mirror);
                analyzer
                    .send(Request::new(ANALYZER_INIT.into(), "initialize".into(), params).into());
                self.analyzer = AnalyzerState::Running {
                    analyzer,
                    mirror,
                    ready: false,
                };
            }
            Err(why) => {
                self.show_error(&format!(
                    "no rust-analyzer, so only chunks and the tangler's problems are understood: {why}"
                ));
                self.analyzer = AnalyzerState::Missing;
                for request in self.pending.take_waiting() {
                    self.respond(request.id, Value::Null);
                }
            }
        }
    }

    fn analyzer_initialize(&self, mirror: &Mirror) -> Value {
        let editor = &self.editor_capabilities["textDocument"];
        let mut text_document = json!({
            "synchronization": {"didSave": true},
            "publishDiagnostics": {"relatedInformation": true},
            "definition": {"linkSupport": false},
            "rename": {"prepareSupport": false},
        });
        for key in ["hover", "completion", "signatureHelp"] {
            if !editor[key].is_null() {
                text_document[key] = editor[key].clone();
            }
        }
        let manifest = mirror.dir.join("Cargo.toml");
        json!({
            "processId": std::process::id(),
            "rootUri": uri_of(&mirror.dir),
            "workspaceFolders": [{"uri": uri_of(&mirror.dir), "name": "literate-lsp"}],
            "capabilities": {
                "textDocument": text_document,
                "workspace": {"workspaceEdit": {"documentChanges": false}},
                "experimental": {"serverStatusNotification": true},
            },
            "initializationOptions": {
                "linkedProjects": [manifest.to_string_lossy()],
                "checkOnSave": true,
                "check": {"command": "check", "allTargets": true},
                // Code behind a feature (the game's window) is code of the book too.
                "cargo": {"features": "all"},
                "files": {"watcher": "server"},
            },
        })
    }

    /// rust-analyzer has gone away: every request owed is answered with an error at once, its
    /// diagnostics are withdrawn, and it is started again after a back-off ([`Restarts`]), or, after
    /// too many stops, the server goes on with what it knows itself.
    fn analyzer_stopped(&mut self) {
        for id in self.pending.drain() {
            self.send_error(
                id,
                ErrorCode::ContentModified,
                "rust-analyzer stopped; ask again",
            );
        }
        self.sent.clear();
        self.analyzer_diagnostics.clear();
        self.announced_ready = false;
        self.publish();
        match self.restarts.stopped(Instant::now()) {
            Some(wait) => {
                self.show_message(
                    2,
                    &format!(
                        "rust-analyzer stopped; starting it again in {} s",
                        wait.as_secs()
                    ),
                );
                self.analyzer = AnalyzerState::Restarting(Instant::now() + wait);
            }
            None => {
                self.show_error(
                    "rust-analyzer stopped again and again, so it is not started any more; chunk \
                     features and the tangler's problems go on without it",
                );
                self.analyzer = AnalyzerState::Missing;
            }
        }
    }

    fn analyzer_message(&mut self, message: Message) {
        match message {
            Message::Response(response) if response.id == ANALYZER_INIT.into() => {
                self.analyzer_ready();
            }
            Message::Response(response) => self.answered(response),
            Message::Request(request) => {
                let response = match answer_analyzer(&request) {
                    Ok(result) => Response::new_ok(request.id, result),
                    Err(message) => {
                        Response::new_err(request.id, ErrorCode::MethodNotFound as i32, message)
                    }
                };
                self.send_analyzer(response.into());
            }
            Message::Notification(notification) => self.analyzer_notification(notification),
        }
    }

    fn analyzer_ready(&mut self) {
        let AnalyzerState::Running { ready, .. } = &mut self.analyzer else {
            return;
        };
        *ready = true;
        self.send_analyzer(Notification::new("initialized".into(), json!({})).into());
        let files: Vec<TangledFile> = self.book.positions.files().cloned().collect();
        self.send_files(&files);
        for request in self.pending.take_waiting() {
            self.request(request);
        }
    }

    /// Gives rust-analyzer (and the mirror on disk) every tangled file that changed since it was
    /// last given; a file it has as it is now is neither written nor read.
    fn send_files(&mut self, files: &[TangledFile]) {
        let AnalyzerState::Running { mirror, ready, .. } = &self.analyzer else {
            return;
        };
        let mut messages = Vec::new();
        for file in files {
            let unchanged = self
                .sent
                .get(&file.name)
                .is_some_and(|(_, t)| *t == file.text);
            if unchanged {
                continue;
            }
            if let Err(e) = mirror.write(file) {
                self.show_error(&format!("cannot write the mirror's {}: {e}", file.name));
            }
            if !ready {
                continue;
            }
            let uri = uri_of(&mirror.path_of(&file.name));
            let message = match self.sent.get(&file.name) {
                Some((version, _)) => {
                    let version = version + 1;
                    self.sent
                        .insert(file.name.clone(), (version, file.text.clone()));
                    Notification::new(
                        "textDocument/didChange".into(),
                        json!({
                            "textDocument": {"uri": uri, "version": version},
                            "contentChanges": [{"text": file.text}],
                        }),
                    )
                }
                None => {
                    self.sent.insert(file.name.clone(), (1, file.text.clone()));
                    Notification::new(
                        "textDocument/didOpen".into(),
                        json!({"textDocument": {
                            "uri": uri, "languageId": "rust", "version": 1, "text": file.text,
                        }}),
                    )
                }
            };
            messages.push(message);
        }
        for message in messages {
            self.send_analyzer(message.into());
        }
    }

    fn answered(&mut self, response: Response) {
        let Some(id) = response_id(&response.id) else {
            return;
        };
        let Some(forwarded) = self.pending.answered(id) else {
            return;
        };
        if let Some(error) = response.error {
            let response = Response::new_err(forwarded.editor_id, error.code, error.message);
            return self.send_editor(response.into());
        }
        let result = response.result.unwrap_or(Value::Null);
        let AnalyzerState::Running { mirror, .. } = &self.analyzer else {
            return;
        };
        let rewriter = Rewriter {
            positions: &self.book.positions,
            mirror,
            crate_dir: self.book.crate_dir(),
        };
        let tangled = &forwarded.tangled;
        let (result, warning) = match forwarded.method.as_str() {
            "textDocument/hover" => (rewriter.hover(tangled, result), None),
            "textDocument/definition" | "textDocument/references" => {
                (rewriter.locations(&result), None)
            }
            "textDocument/completion" => (rewriter.completion(tangled, result), None),
            "textDocument/rename" if !result.is_null() => {
                let (edit, left_out) = rewriter.workspace_edit(&result);
                let warning = (left_out > 0).then(|| {
                    format!(
                        "rename: {left_out} edit(s) in code that no chapter holds were left out"
                    )
                });
                (edit, warning)
            }
            _ => (result, None),
        };
        if let Some(warning) = warning {
            self.show_message(2, &warning);
        }
        self.respond(forwarded.editor_id, result);
    }

    fn analyzer_notification(&mut self, notification: Notification) {
        let params = notification.params;
        match notification.method.as_str() {
            "textDocument/publishDiagnostics" => {
                let AnalyzerState::Running { mirror, .. } = &self.analyzer else {
                    return;
                };
                let path = params["uri"].as_str().and_then(path_of);
                let Some(name) = path.and_then(|p| mirror.tangled_name(&p)) else {
                    return;
                };
                let diagnostics = params["diagnostics"].as_array().cloned();
                self.analyzer_diagnostics
                    .insert(name, diagnostics.unwrap_or_default());
                self.publish();
            }
            "experimental/serverStatus"
                if params["quiescent"].as_bool() == Some(true) && !self.announced_ready =>
            {
                self.announced_ready = true;
                self.log("rust-analyzer has loaded the book's code");
            }
            "window/showMessage" | "window/logMessage" => {
                let mut params = params;
                let message = params["message"].as_str().unwrap_or_default();
                params["message"] = format!("rust-analyzer: {message}").into();
                self.send_editor(Notification::new(notification.method, params).into());
            }
            _ => {}
        }
    }

    /// Publishes every chapter's diagnostics that changed: the tangler's problems, and
    /// rust-analyzer's placed in the chapters.
    fn publish(&mut self) {
        let mut by_uri: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for chapter in &self.book.web.chapters {
            by_uri.insert(
                uri_of(&self.book.chapter_path(&chapter.display)),
                Vec::new(),
            );
        }
        for problem in &self.book.problems {
            let (uri, diagnostic) = self.tangle_diagnostic(problem);
            by_uri.entry(uri).or_default().push(diagnostic);
        }
        if let AnalyzerState::Running { mirror, .. } = &self.analyzer {
            let rewriter = Rewriter {
                positions: &self.book.positions,
                mirror,
                crate_dir: self.book.crate_dir(),
            };
            for (tangled, diagnostics) in &self.analyzer_diagnostics {
                for diagnostic in diagnostics {
                    if let Some((uri, diagnostic)) = rewriter.diagnostic(tangled, diagnostic) {
                        let list = by_uri.entry(uri).or_default();
                        if !list.contains(&diagnostic) {
                            list.push(diagnostic);
                        }
                    }
                }
            }
        }
        for uri in self.published.keys() {
            by_uri.entry(uri.clone()).or_default();
        }
        for (uri, diagnostics) in by_uri {
            let last = self.published.get(&uri);
            if last.map_or(diagnostics.is_empty(), |last| *last == diagnostics) {
                continue;
            }
            let params = json!({"uri": uri, "diagnostics": diagnostics});
            self.send_editor(
                Notification::new("textDocument/publishDiagnostics".into(), params).into(),
            );
            self.published.insert(uri, diagnostics);
        }
    }

    /// A problem of the tangler as an LSP diagnostic, to the end of its line.
    fn tangle_diagnostic(&self, problem: &crate::Diagnostic) -> (String, Value) {
        let range = self.line_range(&problem.place);
        let related: Vec<Value> = problem
            .notes
            .iter()
            .map(|(place, message)| {
                let uri = uri_of(&self.book.chapter_path(&place.file));
                json!({"location": {"uri": uri, "range": self.line_range(place)}, "message": message})
            })
            .collect();
        let uri = uri_of(&self.book.chapter_path(&problem.place.file));
        let diagnostic = json!({
            "range": range,
            "severity": 1,
            "source": "literate",
            "message": problem.message,
            "relatedInformation": related,
        });
        (uri, diagnostic)
    }

    /// The range from a place to the end of its line, in the text the editor has.
    fn line_range(&self, place: &Place) -> Value {
        let line = place.line.saturating_sub(1);
        let text = self
            .book
            .current_line(&place.file, line)
            .unwrap_or_default();
        let start = utf16_len(&text, place.col.saturating_sub(1));
        let end = utf16_len(&text, usize::MAX).max(start);
        json!({
            "start": {"line": line, "character": start},
            "end": {"line": line, "character": end},
        })
    }

    fn chunk_locations(&self, name: &str) -> Value {
        let locations: Vec<Value> = part_headers(&self.book.web, name)
            .iter()
            .map(|place| self.place_location(place))
            .collect();
        Value::Array(locations)
    }

    /// Every part of a chunk and every reference to it.
    fn chunk_references(&self, name: &str) -> Value {
        let web = &self.book.web;
        let references = web
            .references()
            .filter(|(_, reference)| reference.name == name)
            .map(|(_, reference)| &reference.place);
        let headers = part_headers(web, name);
        let locations: Vec<Value> = headers
            .iter()
            .chain(references)
            .map(|place| self.place_location(place))
            .collect();
        Value::Array(locations)
    }

    fn place_location(&self, place: &Place) -> Value {
        let uri = uri_of(&self.book.chapter_path(&place.file));
        json!({"uri": uri, "range": self.line_range(place)})
    }

    fn chunk_hover(&self, name: &str) -> Value {
        let web = &self.book.web;
        let parts = web.parts_of(name).count();
        if parts == 0 {
            return json!({"contents": {"kind": "markdown", "value": format!("⟨{name}⟩ is not defined")}});
        }
        let chapters = chapters_of(web, name, &self.book.project.src);
        let value = format!(
            "⟨{name}⟩: {parts} part(s), in {}\n\n```rust\n{}\n```",
            chapters.join(", "),
            chunk_text(web, name)
        );
        json!({"contents": {"kind": "markdown", "value": value}})
    }

    /// The names of chunks to complete after `// <<`, if the cursor stands in such a marker.
    fn chunk_completion(&self, at: &Located) -> Option<Value> {
        let line = self.book.current_line(&at.file, at.position.line)?;
        let cursor = chars_before(&line, at.position.character);
        let before: String = line.chars().take(cursor).collect();
        let (typed, start) = name_being_typed(&before)?;
        let closed = line
            .chars()
            .skip(cursor)
            .collect::<String>()
            .starts_with(">>");
        let range = json!({
            "start": {"line": at.position.line, "character": utf16_len(&line, start)},
            "end": {"line": at.position.line, "character": utf16_len(&line, cursor)},
        });
        let items: Vec<Value> = completions(&self.book.web, &typed)
            .into_iter()
            .map(|name| {
                let text = if closed {
                    name.to_string()
                } else {
                    format!("{name}>>")
                };
                json!({
                    "label": name,
                    "kind": 9,
                    "detail": "chunk",
                    "filterText": name,
                    "textEdit": {"range": range, "newText": text},
                })
            })
            .collect();
        Some(json!({"isIncomplete": false, "items": items}))
    }

    /// A chapter's outline: its chunk parts, each from its header to the end of its block.
    fn document_symbols(&self, chapter: &str) -> Value {
        let web = &self.book.web;
        let symbols: Vec<Value> = parts_in(web, chapter)
            .map(|part| {
                let source = &web.chapters[part.chapter];
                let header = self.line_range(&part.header);
                let end = source.place(part.block.end.saturating_sub(1));
                let end_text = source.line(end.line).unwrap_or_default();
                let range = json!({
                    "start": header["start"],
                    "end": {"line": end.line - 1, "character": utf16_len(end_text, end.col)},
                });
                let count = web.parts_of(&part.name).count();
                let index = web
                    .parts_of(&part.name)
                    .position(|p| p.header == part.header);
                json!({
                    "name": format!("⟨{}⟩", part.name),
                    "detail": format!("part {} of {count}", index.unwrap_or(0) + 1),
                    "kind": 2,
                    "range": range,
                    "selectionRange": header,
                })
            })
            .collect();
        Value::Array(symbols)
    }

    fn shut_down_analyzer(&mut self) {
        if let AnalyzerState::Running { analyzer, .. } = &self.analyzer {
            analyzer.send(Request::new(i32::MAX.into(), "shutdown".into(), Value::Null).into());
            analyzer.send(Notification::new("exit".into(), Value::Null).into());
        }
    }

    fn respond(&self, id: RequestId, result: Value) {
        self.send_editor(Response::new_ok(id, result).into());
    }

    fn send_error(&self, id: RequestId, code: ErrorCode, message: &str) {
        self.send_editor(Response::new_err(id, code as i32, message.into()).into());
    }

    fn send_editor(&self, message: Message) {
        // An editor that has gone away is noticed when its receiver disconnects.
        let _ = self.editor.sender.send(message);
    }

    fn send_analyzer(&self, message: Message) {
        if let AnalyzerState::Running { analyzer, .. } = &self.analyzer {
            analyzer.send(message);
        }
    }

    fn show_error(&self, message: &str) {
        eprintln!("literate lsp: {message}");
        self.show_message(1, message);
    }

    fn show_message(&self, kind: u8, message: &str) {
        let params = json!({"type": kind, "message": message});
        self.send_editor(Notification::new("window/showMessage".into(), params).into());
    }

    fn log(&self, message: &str) {
        eprintln!("literate lsp: {message}");
        let params = json!({"type": 3, "message": message});
        self.send_editor(Notification::new("window/logMessage".into(), params).into());
    }
}

/// The chapters that hold a chunk's parts, each once, in book order, named within the chapters'
/// directory `src`.
fn chapters_of(web: &Web, name: &str, src: &str) -> Vec<String> {
    let mut chapters: Vec<String> = Vec::new();
    for part in web.parts_of(name) {
        let file = part.header.file.trim_start_matches(&format!("{src}/"));
        if !chapters.iter().any(|c| c == file) {
            chapters.push(file.to_string());
        }
    }
    chapters
}

/// The number of one of the server's own request ids.
fn response_id(id: &RequestId) -> Option<i32> {
    id.to_string().parse().ok()
}

/// The answer to a request rust-analyzer sends its client, as the protocol has it: the settings
/// asked for (none beyond those given at start: one `null` per item), an edit to apply (declined:
/// the mirror's files are not the chapters), and acknowledgements of what needs none. `Err` for a
/// method the server does not know.
fn answer_analyzer(request: &Request) -> Result<Value, String> {
    match request.method.as_str() {
        "workspace/configuration" => {
            let items = request.params["items"].as_array().map_or(0, Vec::len);
            Ok(Value::Array(vec![Value::Null; items]))
        }
        "workspace/applyEdit" => Ok(json!({
            "applied": false,
            "failureReason": "literate lsp applies no edit to the mirror's tangled files",
        })),
        "client/registerCapability"
        | "client/unregisterCapability"
        | "window/workDoneProgress/create"
        | "window/showMessageRequest"
        | "window/showDocument"
        | "workspace/semanticTokens/refresh"
        | "workspace/inlayHint/refresh"
        | "workspace/codeLens/refresh"
        | "workspace/diagnostic/refresh" => Ok(match request.method.as_str() {
            "window/showDocument" => json!({"success": false}),
            _ => Value::Null,
        }),
        method => Err(format!("literate lsp does not answer {method}")),
    }
}
