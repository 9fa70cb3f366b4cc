//! The server's loop: messages from the editor about chapters, and from rust-analyzer about the
//! mirror, each turned into the other's terms. The loop keeps the book in step with the editor
//! (document sync, with keystrokes coalesced) and routes each request: to the chunk answers, or to
//! rust-analyzer through the line maps.

use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, at, never, select, unbounded};
use lsp_server::{ErrorCode, Message, Notification, Request};
use serde_json::Value;

use crate::lsp::book::EditedBook;
use crate::lsp::diagnostics::Diagnostics;
use crate::lsp::editor::Editor;
use crate::lsp::formatting::format;
use crate::lsp::forward::Forwarder;
use crate::lsp::methods::{self, ChapterAnswer, Names, Route};
use crate::lsp::pending::{Cancelled, Pending, request_id};
use crate::lsp::rewrite::{Rewriter, from_lsp};
use crate::lsp::run_test::{self, TestRun};
use crate::lsp::rust_analyzer::{ANALYZER_INIT, RustAnalyzer, response_id};
use crate::lsp::tokens::TokenResults;
use crate::lsp::uri::path_of;
use crate::{Project, TangledFile};

pub struct Server {
    editor: Editor,
    book: EditedBook,
    analyzer: RustAnalyzer,
    /// The editor's requests still owed an answer.
    pending: Pending,
    /// The semantic tokens last sent for each chapter.
    tokens: TokenResults,
    /// Where test runs send what they gave, and where the loop hears it.
    test_runs: (Sender<TestRun>, Receiver<TestRun>),
    diagnostics: Diagnostics,
}

impl Server {
    pub fn new(editor: Editor, project: Project, editor_capabilities: Value) -> Server {
        let mut server = Server {
            editor,
            book: EditedBook::new(project),
            analyzer: RustAnalyzer::new(editor_capabilities),
            pending: Pending::default(),
            tokens: TokenResults::default(),
            test_runs: unbounded(),
            diagnostics: Diagnostics::default(),
        };
        if server.book.problems.is_empty() {
            server.start_analyzer();
        }
        server.publish();
        server
    }

    /// Serves until the editor shuts the server down or goes away. Edits are coalesced: the book is
    /// tangled again once no more messages from the editor are queued, or before a request needs it.
    pub fn serve(mut self) -> anyhow::Result<()> {
        loop {
            if self.book.dirty && self.editor.receiver().is_empty() {
                self.retangle();
            }
            let from_editor = self.editor.receiver().clone();
            let from_analyzer = self.analyzer.receiver();
            let next = [
                self.analyzer.restart_due(),
                self.analyzer.check_due(),
                self.pending.next_due(),
            ]
            .into_iter()
            .flatten()
            .min();
            let timer = next.map_or_else(never, at);
            let tests_done = self.test_runs.1.clone();
            select! {
                recv(from_editor) -> message => {
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
                recv(tests_done) -> run => {
                    if let Ok(run) = run {
                        self.test_finished(run);
                    }
                }
            }
        }
    }

    /// A restart or a request fell due.
    fn time_passed(&mut self) {
        let now = Instant::now();
        if self.analyzer.restart_due().is_some_and(|time| time <= now) {
            self.editor.log("starting rust-analyzer again");
            self.start_analyzer();
        }
        self.analyzer.check_overdue(&self.editor);
        let (late, analyzer_ids) = self.pending.overdue(now);
        for id in analyzer_ids {
            self.analyzer.cancel(id);
        }
        for id in late {
            let message = "rust-analyzer did not answer in time (still loading?); ask again";
            self.editor
                .send_error(id, ErrorCode::ContentModified, message);
        }
    }

    fn editor_message(&mut self, message: Message) -> anyhow::Result<bool> {
        match message {
            Message::Request(request) => {
                let shutdown = self.editor.handle_shutdown(&request);
                if shutdown? {
                    self.analyzer.shut_down();
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
        if self.book.dirty {
            self.retangle();
        }
        let Some(method) = methods::method(&request.method) else {
            let message = format!("litbook lsp does not answer {}", request.method);
            return self
                .editor
                .send_error(request.id, ErrorCode::MethodNotFound, &message);
        };
        let (names, answer) = match method.route {
            Route::Command => return self.execute(request),
            Route::Unplaced(unplaced) => {
                return self.forwarder().forward_unplaced(request, unplaced);
            }
            Route::Chapter(names, answer) => (names, answer),
        };
        if let Err(missing) = place_named(&request.params, names) {
            let message = format!("{} needs {missing}", request.method);
            return self
                .editor
                .send_error(request.id, ErrorCode::InvalidParams, &message);
        }
        let Some(at) = self.book.located(&request.params) else {
            return self.editor.respond(request.id, Value::Null);
        };
        match answer {
            ChapterAnswer::Formatter => format(&self.editor, &self.book, request, &at.file),
            ChapterAnswer::Gathered(gathering) => {
                self.forwarder().gather(request, &at.file, gathering)
            }
            ChapterAnswer::Server(server) => {
                let answer = server(&self.book, &at).unwrap_or(Value::Null);
                self.editor.respond(request.id, answer);
            }
            ChapterAnswer::ServerOrAnalyzer(server, _) => {
                match server.and_then(|server| server(&self.book, &at)) {
                    Some(answer) => self.editor.respond(request.id, answer),
                    None => self.forwarder().forward(request, &at),
                }
            }
        }
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
                self.book.edited(path.clone(), Some(text.to_string()));
                let features = self.book.features_needed(&path);
                self.analyzer.enable_features(&features, &self.editor);
            }
            "textDocument/didChange" => {
                let changes = params["contentChanges"].as_array();
                let text = changes.and_then(|c| c.last()?["text"].as_str());
                if let Some(text) = text {
                    self.book.edited(path, Some(text.to_string()));
                }
            }
            "textDocument/didClose" => self.book.edited(path, None),
            "textDocument/didSave" => self.saved(),
            _ => {}
        }
    }

    /// The editor cancels a request: one still waiting is answered as cancelled at once; one
    /// rust-analyzer has is cancelled there too, and its answer (an error) passed on.
    fn cancel(&mut self, params: &Value) {
        let Some(id) = request_id(&params["id"]) else {
            return;
        };
        match self.pending.cancel(&id) {
            Cancelled::Waiting(id) => {
                self.editor
                    .send_error(id, ErrorCode::RequestCanceled, "cancelled");
            }
            Cancelled::Forwarded(pieces) => {
                for analyzer_id in pieces {
                    self.analyzer.cancel(analyzer_id);
                }
            }
            Cancelled::Unknown => {}
        }
    }

    /// Tangles the book as the editor has it, gives rust-analyzer the files that changed, and
    /// publishes the diagnostics that changed.
    fn retangle(&mut self) {
        if let Some(files) = self.book.tangle() {
            if self.analyzer.is_started() {
                self.analyzer
                    .send_files(&files, &self.book.scripts, &self.editor);
            } else {
                self.start_analyzer();
            }
        }
        self.publish();
    }

    /// The editor saved a chapter: rust-analyzer checks the book as the editor has it, the
    /// chapters it does not have open as they are on disk now (read again if they changed, as after
    /// a keystroke).
    fn saved(&mut self) {
        self.retangle();
        self.analyzer.saved(&self.editor);
    }

    /// Starts rust-analyzer on the last good tangle; without one, the requests waiting for it get
    /// no answer from it.
    fn start_analyzer(&mut self) {
        let files: Vec<TangledFile> = self.book.positions.files().cloned().collect();
        let crate_dir = self.book.crate_dir().to_path_buf();
        let started = self
            .analyzer
            .start(&crate_dir, &files, &self.book.scripts, &self.editor);
        if !started {
            for request in self.pending.take_waiting() {
                self.editor.respond(request.id, Value::Null);
            }
        }
    }

    /// rust-analyzer has gone away: every request owed is answered with an error at once, its
    /// diagnostics are withdrawn, and it is started again after a back-off, or, after too many
    /// stops, the server goes on with what it knows itself.
    fn analyzer_stopped(&mut self) {
        for id in self.pending.drain() {
            let message = "rust-analyzer stopped; ask again";
            self.editor
                .send_error(id, ErrorCode::ContentModified, message);
        }
        self.diagnostics.clear_analyzer();
        self.analyzer.stopped(&self.editor);
        self.publish();
    }

    fn analyzer_message(&mut self, message: Message) {
        match message {
            Message::Response(response) if response.id == ANALYZER_INIT.into() => {
                let result = response.result.unwrap_or(Value::Null);
                self.analyzer.initialized(&result);
            }
            Message::Response(response)
                if response_id(&response.id)
                    .is_some_and(|id| self.analyzer.answered(id, &self.editor)) => {}
            Message::Response(response) => self.forwarder().answered(response),
            Message::Request(request) => self.analyzer.answer(request, &self.editor),
            Message::Notification(notification) => self.analyzer_notification(notification),
        }
    }

    fn analyzer_notification(&mut self, notification: Notification) {
        let params = notification.params;
        match notification.method.as_str() {
            "textDocument/publishDiagnostics" => {
                let path = params["uri"].as_str().and_then(path_of);
                let mirror = self.analyzer.mirror();
                let Some(name) = path.and_then(|p| mirror?.tangled_name(&p)) else {
                    return;
                };
                let diagnostics = params["diagnostics"].as_array().cloned();
                self.diagnostics
                    .set_analyzer(name, diagnostics.unwrap_or_default());
                self.publish();
            }
            "$/progress" => self.analyzer.report_progress(params, &self.editor),
            "experimental/serverStatus" => {
                if self.analyzer.status(&params) {
                    let files: Vec<TangledFile> = self.book.positions.files().cloned().collect();
                    self.analyzer
                        .send_files(&files, &self.book.scripts, &self.editor);
                    self.editor.log("rust-analyzer has loaded the book's code");
                    for request in self.pending.take_waiting() {
                        self.request(request);
                    }
                }
                self.analyzer.check_if_owed();
            }
            "window/showMessage" | "window/logMessage" => {
                let mut params = params;
                let message = params["message"].as_str().unwrap_or_default();
                params["message"] = format!("rust-analyzer: {message}").into();
                self.editor.notify(&notification.method, params);
            }
            _ => {}
        }
    }

    /// Runs a command of a code lens: a test, in a thread of its own; its result comes later.
    fn execute(&mut self, request: Request) {
        let crate_dir = self.book.crate_dir().to_path_buf();
        run_test::execute(&self.editor, request, crate_dir, &self.test_runs.0);
    }

    /// A test run ended: the editor is told, and its failures are diagnostics at their lines.
    fn test_finished(&mut self, run: TestRun) {
        let failures = run_test::report(run, &self.editor);
        self.diagnostics.set_tests(failures);
        self.publish();
    }

    /// What sends requests on to rust-analyzer and its answers back, borrowing the server's parts.
    fn forwarder(&mut self) -> Forwarder<'_> {
        Forwarder {
            editor: &self.editor,
            book: &self.book,
            analyzer: &mut self.analyzer,
            pending: &mut self.pending,
            tokens: &mut self.tokens,
        }
    }

    /// Publishes every chapter's diagnostics that changed.
    fn publish(&mut self) {
        let rewriter = self.analyzer.mirror().map(|mirror| Rewriter {
            positions: &self.book.positions,
            mirror,
            crate_dir: self.book.crate_dir(),
        });
        self.diagnostics
            .publish(&self.book, rewriter.as_ref(), &self.editor);
    }
}

/// Whether `params` name a place as a request that `names` one must: what is missing, if anything.
fn place_named(params: &Value, names: Names) -> Result<(), &'static str> {
    if params["textDocument"]["uri"].as_str().is_none() {
        return Err("textDocument.uri, the chapter's URI");
    }
    if names == Names::Position && from_lsp(&params["position"]).is_none() {
        return Err("a position: { line, character }, each a number from 0");
    }
    Ok(())
}
