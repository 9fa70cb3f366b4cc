//! rust-analyzer's life behind the server: started on the mirror once the book first tangles,
//! initialized with what the editor can show, given every tangled file that changed once it has
//! loaded, and started again after a back-off when it stops ([`Restarts`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crossbeam_channel::{Receiver, never};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::MessageType;
use serde_json::{Value, json};

use crate::TangledFile;
use crate::lsp::analyzer::{Analyzer, find_rust_analyzer};
use crate::lsp::analyzer_settings::{initialize_params, settings};
use crate::lsp::checks::{Checks, is_check_token};
use crate::lsp::editor::Editor;
use crate::lsp::mirror::Mirror;
use crate::lsp::pending::Restarts;
use crate::lsp::progress::Progress;
use crate::lsp::tokens::Translation;
use crate::lsp::uri::uri_of;

/// The id of the request that initializes rust-analyzer.
pub const ANALYZER_INIT: i32 = 0;

/// rust-analyzer as the server knows it.
enum State {
    /// Not started yet: the book has not tangled since the server started.
    NotStarted,
    /// Started; `loaded` once it has said it finished loading the workspace (see
    /// [`RustAnalyzer::status`]): only then is it asked anything or given the tangled files to
    /// open, which until then it reads from the mirror on disk. `ready` while it says it is
    /// neither loading nor reloading.
    Running {
        analyzer: Analyzer,
        mirror: Mirror,
        loaded: bool,
        ready: bool,
    },
    /// Stopped; to be started again at this time.
    Restarting(Instant),
    /// Cannot be had; the reason was shown to the editor.
    Missing,
}

/// What a request about Rust code can expect of rust-analyzer now.
pub enum Availability<'a> {
    /// It answers, about the files of this mirror.
    Ready(&'a Mirror),
    /// It is loading or about to be started again: the request waits.
    Later,
    /// There is none: the request gets no answer from it.
    Never,
}

pub struct RustAnalyzer {
    state: State,
    /// Each tangled file as the mirror on disk has it, with its version as rust-analyzer has it
    /// open (0 while it is not open there yet).
    sent: HashMap<String, (i32, String)>,
    restarts: Restarts,
    next_id: i32,
    /// The editor's capabilities, parts of which are passed on to rust-analyzer.
    editor_capabilities: Value,
    /// rust-analyzer's semantic token legend, translated into the server's.
    translation: Translation,
    /// The crate's features rust-analyzer analyses and checks with, beyond its defaults.
    features: Vec<String>,
    /// The work it reports, passed on to the editor.
    progress: Progress,
    /// The `cargo check`s owed to the editor.
    checks: Checks,
}

impl RustAnalyzer {
    pub fn new(editor_capabilities: Value) -> RustAnalyzer {
        RustAnalyzer {
            state: State::NotStarted,
            sent: HashMap::new(),
            restarts: Restarts::default(),
            next_id: ANALYZER_INIT + 1,
            progress: Progress::new(&editor_capabilities),
            checks: Checks::new(&editor_capabilities),
            editor_capabilities,
            translation: Translation::default(),
            features: Vec::new(),
        }
    }

    /// Where rust-analyzer's messages arrive (nowhere while it does not run).
    pub fn receiver(&self) -> Receiver<Message> {
        match &self.state {
            State::Running { analyzer, .. } => analyzer.receiver.clone(),
            _ => never(),
        }
    }

    /// When it is to be started again, if it stopped.
    pub fn restart_due(&self) -> Option<Instant> {
        match self.state {
            State::Restarting(time) => Some(time),
            _ => None,
        }
    }

    pub fn is_started(&self) -> bool {
        !matches!(self.state, State::NotStarted)
    }

    pub fn availability(&self) -> Availability<'_> {
        match &self.state {
            State::Running {
                loaded: true,
                mirror,
                ..
            } => Availability::Ready(mirror),
            State::Running { .. } | State::Restarting(_) => Availability::Later,
            State::NotStarted | State::Missing => Availability::Never,
        }
    }

    /// rust-analyzer's semantic token legend, in the server's terms.
    pub fn translation(&self) -> &Translation {
        &self.translation
    }

    /// The mirror rust-analyzer reads, while it runs.
    pub fn mirror(&self) -> Option<&Mirror> {
        match &self.state {
            State::Running { mirror, .. } => Some(mirror),
            _ => None,
        }
    }

    /// Starts rust-analyzer on a mirror of the crate in `crate_dir` with the Rust `files` written
    /// into it (opened with rust-analyzer once it has loaded) and the `scripts` beside them; the
    /// reason when there is none to start, which the editor is shown.
    pub fn start(
        &mut self,
        crate_dir: &Path,
        files: &[TangledFile],
        scripts: &[TangledFile],
        editor: &Editor,
    ) -> bool {
        let started = find_rust_analyzer()
            .map_err(anyhow::Error::msg)
            .and_then(|program| {
                let mirror = Mirror::create(crate_dir, files, scripts)?;
                let target_dir = std::env::var_os("CARGO_TARGET_DIR")
                    .map_or_else(|| crate_dir.join("target"), PathBuf::from);
                let analyzer = Analyzer::start(&program, &mirror.dir, &target_dir)?;
                Ok((analyzer, mirror))
            });
        match started {
            Ok((analyzer, mirror)) => {
                if !mirror.unfollowed.is_empty() {
                    editor.show_message(
                        MessageType::WARNING,
                        &format!(
                            "rust-analyzer sees none of the code included at {}: the language \
                             server follows an `include!` of a tangled file at the top of a shell \
                             or alone in a `mod {{ … }}`; move it there to have rust-analyzer's \
                             help with that code",
                            mirror.unfollowed.join(", ")
                        ),
                    );
                }
                self.sent = files
                    .iter()
                    .map(|file| (file.name.clone(), (0, file.text.clone())))
                    .collect();
                let params = initialize_params(&self.editor_capabilities, &self.features, &mirror);
                analyzer
                    .send(Request::new(ANALYZER_INIT.into(), "initialize".into(), params).into());
                self.state = State::Running {
                    analyzer,
                    mirror,
                    loaded: false,
                    ready: false,
                };
                self.checks.want(editor);
                true
            }
            Err(why) => {
                editor.show_error(&format!(
                    "no rust-analyzer, so only chunks and the tangler's problems are understood: {why:#}"
                ));
                self.state = State::Missing;
                false
            }
        }
    }

    /// Turns on `features` for rust-analyzer (it is told its settings changed, and asks for them)
    /// if some are not on yet; whether any was new.
    pub fn enable_features(&mut self, features: &[String], editor: &Editor) -> bool {
        let new: Vec<&String> = features
            .iter()
            .filter(|f| !self.features.contains(f))
            .collect();
        if new.is_empty() {
            return false;
        }
        let names: Vec<String> = new.iter().map(|f| f.to_string()).collect();
        self.features.extend(names.iter().cloned());
        editor.log(&format!(
            "checking with the feature(s) {} too",
            names.join(", ")
        ));
        let params = json!({"settings": null});
        self.send(Notification::new("workspace/didChangeConfiguration".into(), params).into());
        self.checks.disturbed();
        true
    }

    /// rust-analyzer answered `initialize` with `result`: it is told so, and loads the mirror from
    /// disk.
    pub fn initialized(&mut self, result: &Value) {
        self.translation = Translation::from_initialize(result);
        self.send(Notification::new("initialized".into(), json!({})).into());
    }

    /// rust-analyzer has gone away: it is started again after a back-off, or, after too many stops,
    /// not any more; the editor is told which.
    pub fn stopped(&mut self, editor: &Editor) {
        self.sent.clear();
        self.progress.abandon(editor);
        self.checks.stopped(editor);
        match self.restarts.stopped(Instant::now()) {
            Some(wait) => {
                let message = format!(
                    "rust-analyzer stopped; starting it again in {} s",
                    wait.as_secs()
                );
                editor.show_message(MessageType::WARNING, &message);
                self.state = State::Restarting(Instant::now() + wait);
            }
            None => {
                editor.show_error(
                    "rust-analyzer stopped again and again, so it is not started any more; chunk \
                     features and the tangler's problems go on without it",
                );
                self.checks.given_up();
                self.state = State::Missing;
            }
        }
    }

    /// rust-analyzer says how it is (`experimental/serverStatus`): whether it is ready (neither
    /// loading nor reloading its workspace, which cancels a check it runs); and so whether it says,
    /// for the first time since it started, that it has loaded. The tangled files are to be opened
    /// with it then, not before: a file opened while it loads the workspace can stay outside the
    /// crate's module tree for good ("unlinked", though the library includes it, and analysed
    /// alone), as rust-analyzer 0.0.349 often did on a busy machine. And it is asked nothing
    /// before, when it could answer about a file on disk it has not yet read again since the
    /// editor changed it.
    pub fn status(&mut self, status: &Value) -> bool {
        let State::Running { loaded, ready, .. } = &mut self.state else {
            return false;
        };
        *ready = status["quiescent"].as_bool() == Some(true);
        if !*ready {
            self.checks.disturbed();
        }
        let first = *ready && !*loaded;
        *loaded |= first;
        first
    }

    /// Writes every tangled file that changed into the mirror on disk, and, once rust-analyzer has
    /// loaded, opens it with rust-analyzer or gives it the change; a file as it is on disk and with
    /// rust-analyzer is neither written nor read. The `scripts` are written where their text
    /// differs from the mirror's copy, and never opened: they are not Rust, and reach
    /// rust-analyzer only as the bytes a chunk reads from `OUT_DIR`.
    pub fn send_files(&mut self, files: &[TangledFile], scripts: &[TangledFile], editor: &Editor) {
        let State::Running { mirror, loaded, .. } = &self.state else {
            return;
        };
        for script in scripts {
            if let Err(e) = mirror.write(script) {
                editor.show_error(&format!("cannot write the mirror's {}: {e}", script.name));
            }
        }
        let mut messages = Vec::new();
        for file in files {
            let had = self.sent.get(&file.name);
            let written = had.is_some_and(|(_, text)| *text == file.text);
            let opened = had.is_some_and(|(version, _)| *version > 0);
            if written && (opened || !loaded) {
                continue;
            }
            if !written && let Err(e) = mirror.write(file) {
                editor.show_error(&format!("cannot write the mirror's {}: {e}", file.name));
            }
            let version = match had {
                _ if !loaded => 0,
                Some((version, _)) => version + 1,
                None => 1,
            };
            self.sent
                .insert(file.name.clone(), (version, file.text.clone()));
            if version == 0 {
                continue;
            }
            let uri = uri_of(&mirror.path_of(&file.name));
            let message = if version == 1 {
                let document =
                    json!({"uri": uri, "languageId": "rust", "version": 1, "text": file.text});
                Notification::new(
                    "textDocument/didOpen".into(),
                    json!({"textDocument": document}),
                )
            } else {
                Notification::new(
                    "textDocument/didChange".into(),
                    json!({
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"text": file.text}],
                    }),
                )
            };
            messages.push(message);
        }
        for message in messages {
            self.send(message.into());
        }
    }

    /// Sends a request about the mirror; its id.
    pub fn request(&mut self, method: String, params: Value) -> i32 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(Request::new(id.into(), method, params).into());
        id
    }

    pub fn cancel(&self, id: i32) {
        self.send(Notification::new("$/cancelRequest".into(), json!({"id": id})).into());
    }

    /// A chapter was saved: a `cargo check` of the mirror, whose files are already written, is
    /// owed, and asked of rust-analyzer as soon as it is ready.
    pub fn saved(&mut self, editor: &Editor) {
        self.checks.want(editor);
        self.check_if_owed();
    }

    /// Asks rust-analyzer for a `cargo check` of the whole mirror if one is owed and it is ready.
    pub fn check_if_owed(&mut self) {
        let ready = matches!(self.state, State::Running { ready: true, .. });
        if self.checks.ask_now(ready) {
            let params = json!({"textDocument": null});
            self.send(Notification::new("rust-analyzer/runFlycheck".into(), params).into());
        }
    }

    /// When a check asked for is to have begun.
    pub fn check_due(&self) -> Option<Instant> {
        self.checks.begin_due()
    }

    /// A check asked for is overdue: see [`Checks::not_begun`].
    pub fn check_overdue(&mut self, editor: &Editor) {
        if self
            .checks
            .begin_due()
            .is_some_and(|due| due <= Instant::now())
        {
            self.checks.not_begun(editor);
        }
    }

    /// rust-analyzer answered the server's request `id`: whether it was one the checks sent, to
    /// learn when a check's diagnostics are all in.
    pub fn answered(&mut self, id: i32, editor: &Editor) -> bool {
        self.checks.answered(id, editor)
    }

    pub fn shut_down(&self) {
        self.send(Request::new(i32::MAX.into(), "shutdown".into(), Value::Null).into());
        self.send(Notification::new("exit".into(), Value::Null).into());
    }

    /// rust-analyzer reports work begun, going on or ended: the editor sees it too, a check's as
    /// the checks show it. A check that ended whole is followed by a request, whose answer comes
    /// after the check's diagnostics, which rust-analyzer publishes before it reads its next
    /// message. (Any request would do; the selection range at the start of the mirror's library
    /// root is answered on rust-analyzer's main thread as soon as it is read, at next to no cost.)
    pub fn report_progress(&mut self, params: Value, editor: &Editor) {
        if !is_check_token(&params["token"]) {
            return self.progress.report(params, editor);
        }
        if let Some(covers) = self.checks.report(&params, editor) {
            let Some(mirror) = self.mirror() else { return };
            let lib = json!({
                "textDocument": {"uri": uri_of(&mirror.dir.join("lib.rs"))},
                "positions": [{"line": 0, "character": 0}],
            });
            let id = self.request("textDocument/selectionRange".into(), lib);
            self.checks.settle(id, covers);
        }
        self.check_if_owed();
    }

    /// Answers a request rust-analyzer sends its client; its settings it asks for are the server's;
    /// a progress token it creates is created in the editor too, and when it asks for its hints,
    /// tokens or lenses to be asked for again (as after loading), so is the editor, if it can.
    pub fn answer(&mut self, request: Request, editor: &Editor) {
        if request.method == "window/workDoneProgress/create"
            && !is_check_token(&request.params["token"])
        {
            self.progress.create(&request.params, editor);
        }
        if let Some(capability) = refreshed(&request.method)
            && self.editor_capabilities["workspace"][capability]["refreshSupport"] == true
        {
            editor.request(&request.method, Value::Null);
        }
        let settings = self
            .mirror()
            .map_or(Value::Null, |mirror| settings(&self.features, mirror));
        let response = match answer_analyzer(&request, &settings) {
            Ok(result) => Response::new_ok(request.id, result),
            Err(message) => {
                Response::new_err(request.id, ErrorCode::MethodNotFound as i32, message)
            }
        };
        self.send(response.into());
    }

    fn send(&self, message: Message) {
        if let State::Running { analyzer, .. } = &self.state {
            analyzer.send(message);
        }
    }
}

/// The part of the editor's `workspace` capabilities that says whether it takes the refresh request
/// `method`, for the refreshes rust-analyzer asks for that the server passes on.
fn refreshed(method: &str) -> Option<&'static str> {
    match method {
        "workspace/semanticTokens/refresh" => Some("semanticTokens"),
        "workspace/inlayHint/refresh" => Some("inlayHint"),
        "workspace/codeLens/refresh" => Some("codeLens"),
        _ => None,
    }
}

/// The number of one of the server's own request ids.
pub fn response_id(id: &RequestId) -> Option<i32> {
    id.to_string().parse().ok()
}

/// The answer to a request rust-analyzer sends its client, as the protocol has it: the settings
/// asked for (`settings` for the section `rust-analyzer`, nothing for any other), an edit to apply
/// (declined: the mirror's files are not the chapters), and acknowledgements of what needs none.
/// `Err` for a method the server does not know.
fn answer_analyzer(request: &Request, settings: &Value) -> Result<Value, String> {
    match request.method.as_str() {
        "workspace/configuration" => {
            let items = request.params["items"].as_array().into_iter().flatten();
            let answers = items.map(|item| match item["section"].as_str() {
                Some("rust-analyzer") => settings.clone(),
                _ => Value::Null,
            });
            Ok(Value::Array(answers.collect()))
        }
        "workspace/applyEdit" => Ok(json!({
            "applied": false,
            "failureReason": "litbook lsp applies no edit to the mirror's tangled files",
        })),
        "window/showDocument" => Ok(json!({"success": false})),
        "client/registerCapability"
        | "client/unregisterCapability"
        | "window/workDoneProgress/create"
        | "window/showMessageRequest"
        | "workspace/semanticTokens/refresh"
        | "workspace/inlayHint/refresh"
        | "workspace/codeLens/refresh"
        | "workspace/diagnostic/refresh" => Ok(Value::Null),
        method => Err(format!("litbook lsp does not answer {method}")),
    }
}
