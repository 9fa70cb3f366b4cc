//! `litbook lsp` as an editor meets it: the real server started as a process and spoken to in
//! JSON-RPC over its standard input and output, on the real book. Without rust-analyzer it answers
//! about chunks and the tangler's problems; with the real rust-analyzer behind it (the ignored tests,
//! which `bash .ci/run` runs after installing one) it answers about the Rust in the chapters.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use litbook::lsp::MIRROR_DIR;
use litbook::{Project, SourceText, Web, chapter_links};

mod support;

use lsp_server::{Message, Notification, Request, Response, ResponseError};
use serde_json::{Value, json};
use support::{copy_tree, literate_dir, roman, roman_with_a_failing_test};

/// How long rust-analyzer may take to load the book's crate and check it, on a busy machine.
const LOADING: Duration = Duration::from_secs(900);
/// How long any one answer may take.
const ANSWER: Duration = Duration::from_secs(120);
/// LSP's error code for a request whose document changed while it was being answered.
const CONTENT_MODIFIED: i32 = -32801;
/// How many times such a request is sent.
const CONTENT_MODIFIED_RETRIES: usize = 10;

/// The crate whose book these tests read.
fn real_crate() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where the servers of these tests write their logs (appended to, since tests run side by side).
fn server_log() -> Stdio {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lsp-server.log");
    let file = fs::OpenOptions::new().create(true).append(true).open(&path);
    file.map_or_else(|_| Stdio::inherit(), Stdio::from)
}

/// An editor's side of a connection to `litbook lsp`.
struct Editor {
    server: Child,
    stdin: ChildStdin,
    messages: Receiver<Message>,
    next_id: i32,
    notifications: Vec<Notification>,
    /// The methods of the requests the server sent, in order.
    server_requests: Vec<String>,
    /// The book's chapters.
    chapters: PathBuf,
    /// What the server said it can do.
    capabilities: Value,
    /// This editor's turn to run a rust-analyzer, if its server runs one.
    _turn: Option<MutexGuard<'static, ()>>,
}

/// Whose turn it is to run a rust-analyzer: one at a time, as one editor does, so that the
/// rust-analyzer tests do not compete for two cores and one target directory.
static ANALYZER_TURN: Mutex<()> = Mutex::new(());

impl Editor {
    /// Starts the server in `crate_dir` with `env` added, and initializes it. What the server and
    /// rust-analyzer write to their standard error goes to `target/tmp/lsp-server.log`.
    fn start(crate_dir: &Path, env: &[(&str, &std::ffi::OsStr)]) -> Editor {
        let analyzer = !env.iter().any(|(name, _)| *name == "LITBOOK_RUST_ANALYZER");
        let turn = analyzer.then(|| ANALYZER_TURN.lock().unwrap_or_else(|e| e.into_inner()));
        let mut server = Command::new(env!("CARGO_BIN_EXE_litbook"))
            .arg("lsp")
            .current_dir(crate_dir)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(server_log())
            .spawn()
            .expect("litbook lsp starts");
        let stdin = server.stdin.take().expect("stdin is piped");
        let stdout = server.stdout.take().expect("stdout is piped");
        let (sender, messages) = channel();
        std::thread::spawn(move || {
            let mut stdout = BufReader::new(stdout);
            while let Ok(Some(message)) = Message::read(&mut stdout) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        let mut editor = Editor {
            server,
            stdin,
            messages,
            next_id: 1,
            notifications: Vec::new(),
            server_requests: Vec::new(),
            chapters: Project::locate(crate_dir).unwrap().src_dir(),
            capabilities: Value::Null,
            _turn: turn,
        };
        let capabilities = json!({
            "textDocument": {
                "hover": {"contentFormat": ["markdown", "plaintext"]},
                "completion": {"completionItem": {"snippetSupport": false}},
            },
            "window": {"workDoneProgress": true},
            "workspace": {
                "inlayHint": {"refreshSupport": true},
                "semanticTokens": {"refreshSupport": true},
            },
        });
        let root = uri(crate_dir);
        let initialized = editor.request(
            "initialize",
            json!({"processId": null, "rootUri": root, "capabilities": capabilities}),
        );
        editor.capabilities = initialized["capabilities"].clone();
        editor.notify("initialized", json!({}));
        editor
    }

    fn send(&mut self, message: Message) {
        message.write(&mut self.stdin).expect("the server reads");
        self.stdin.flush().expect("the server reads");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(Notification::new(method.into(), params).into());
    }

    /// Sends a request and waits for its answer, keeping the notifications that come meanwhile. A
    /// request that rust-analyzer drops because the code changed under it ("content modified") is
    /// sent again, as editors do.
    fn request(&mut self, method: &str, params: Value) -> Value {
        for _ in 0..CONTENT_MODIFIED_RETRIES {
            match self.try_request(method, params.clone()) {
                Ok(result) => return result,
                Err(error) if error.code == CONTENT_MODIFIED => continue,
                Err(error) => panic!("{method}: {error:?}"),
            }
        }
        panic!("{method}: content modified {CONTENT_MODIFIED_RETRIES} times over")
    }

    fn try_request(&mut self, method: &str, params: Value) -> Result<Value, ResponseError> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(Request::new(id.into(), method.into(), params).into());
        let deadline = Instant::now() + ANSWER;
        loop {
            match self.next_message(deadline) {
                Some(Message::Response(response)) if response.id == id.into() => {
                    return match response.error {
                        Some(error) => Err(error),
                        None => Ok(response.result.unwrap_or(Value::Null)),
                    };
                }
                Some(_) => {}
                None => panic!("no answer to {method} within {ANSWER:?}"),
            }
        }
    }

    /// The next message, answering the server's own requests and keeping notifications.
    fn next_message(&mut self, deadline: Instant) -> Option<Message> {
        let wait = deadline.saturating_duration_since(Instant::now());
        let message = match self.messages.recv_timeout(wait) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => return None,
            Err(RecvTimeoutError::Disconnected) => panic!("the server stopped"),
        };
        match &message {
            Message::Request(request) => {
                self.server_requests.push(request.method.clone());
                let answer = Response::new_ok(request.id.clone(), Value::Null);
                self.send(answer.into());
            }
            Message::Notification(notification) => self.notifications.push(notification.clone()),
            Message::Response(_) => {}
        }
        Some(message)
    }

    /// Waits for a notification that `wanted` accepts, among those kept and those to come.
    fn wait_for(
        &mut self,
        within: Duration,
        wanted: impl Fn(&Notification) -> bool,
    ) -> Notification {
        let deadline = Instant::now() + within;
        loop {
            if let Some(at) = self.notifications.iter().position(&wanted) {
                return self.notifications.remove(at);
            }
            if self.next_message(deadline).is_none() {
                let methods: Vec<&str> = self
                    .notifications
                    .iter()
                    .map(|n| n.method.as_str())
                    .collect();
                panic!("the notification did not come within {within:?}; came: {methods:?}");
            }
        }
    }

    /// Asks for `hover` every half second until rust-analyzer answers it (it has loaded); `why`
    /// says what did not happen if it does not within the loading time.
    fn hover_once_answered(&mut self, hover: &Value, why: &str) {
        let deadline = Instant::now() + LOADING;
        while self
            .try_request("textDocument/hover", hover.clone())
            .map_or(true, |answer| answer.is_null())
        {
            assert!(Instant::now() < deadline, "{why}");
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// The diagnostics next published for a chapter that `wanted` accepts.
    fn diagnostics(
        &mut self,
        chapter: &str,
        within: Duration,
        wanted: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let uri = self.chapter_uri(chapter);
        let notification = self.wait_for(within, |n| {
            n.method == "textDocument/publishDiagnostics"
                && n.params["uri"] == uri
                && wanted(
                    n.params["diagnostics"]
                        .as_array()
                        .map_or(&[], Vec::as_slice),
                )
        });
        notification.params["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    fn chapter_uri(&self, chapter: &str) -> String {
        uri(&self.chapters.join(chapter))
    }

    /// Opens a chapter as it is on disk, and returns its text.
    fn open(&mut self, chapter: &str) -> String {
        let text = fs::read_to_string(self.chapters.join(chapter)).unwrap();
        let document = json!({"uri": self.chapter_uri(chapter), "languageId": "markdown", "version": 1, "text": text});
        self.notify("textDocument/didOpen", json!({"textDocument": document}));
        text
    }

    fn change(&mut self, chapter: &str, version: i32, text: &str) {
        let document = json!({"uri": self.chapter_uri(chapter), "version": version});
        let changes = json!([{"text": text}]);
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": document, "contentChanges": changes}),
        );
    }

    /// A request about a position in a chapter.
    fn at(&mut self, method: &str, chapter: &str, position: Value) -> Value {
        let params =
            json!({"textDocument": {"uri": self.chapter_uri(chapter)}, "position": position});
        self.request(method, params)
    }
}

impl Editor {
    /// Shuts the server down as an editor does when it closes, and waits until the server and its
    /// rust-analyzer have exited.
    fn shut_down(mut self) {
        let analyzer = analyzer_pid(self.server.id());
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + ANSWER;
        while self.server.try_wait().unwrap().is_none()
            || analyzer.is_some_and(|pid| Path::new(&format!("/proc/{pid}")).exists())
        {
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// What came since the `from`th notification, for a failure's message: rust-analyzer's progress
    /// (begun and ended, by title) and how many diagnostics each publication for `uri` held.
    fn history_since(&self, from: usize, uri: &str) -> String {
        let mut titles = BTreeMap::new();
        let mut events = Vec::new();
        for notification in &self.notifications[from..] {
            let params = &notification.params;
            if notification.method == "$/progress" {
                let value = &params["value"];
                if let Some(title) = value["title"].as_str() {
                    titles.insert(params["token"].to_string(), title.to_string());
                }
                let title = titles.get(&params["token"].to_string()).cloned();
                if let Some(kind @ ("begin" | "end")) = value["kind"].as_str() {
                    events.push(format!("{kind} {}", title.unwrap_or_default()));
                }
            } else if notification.method == "textDocument/publishDiagnostics"
                && params["uri"] == uri
            {
                let count = params["diagnostics"].as_array().map_or(0, Vec::len);
                events.push(format!("{count} diagnostic(s)"));
            }
        }
        events.join(", ")
    }

    /// The work reported begun and not ended, by token, after the notifications from the `from`th
    /// on; and whether the last `cargo check` begun among them has ended. The server reports each
    /// check under a token of its own, from the save that asks for it to the publication of its
    /// diagnostics.
    fn progress_since(&self, from: usize) -> (BTreeSet<String>, bool) {
        let mut going = BTreeSet::new();
        let mut last_check = None;
        for notification in &self.notifications[from..] {
            if notification.method != "$/progress" {
                continue;
            }
            let token = notification.params["token"].to_string();
            let value = &notification.params["value"];
            match value["kind"].as_str() {
                Some("begin") => {
                    if value["title"] == "cargo check" {
                        last_check = Some(token.clone());
                    }
                    going.insert(token);
                }
                Some("end") => {
                    going.remove(&token);
                }
                _ => {}
            }
        }
        let checked = last_check.is_some_and(|token| !going.contains(&token));
        (going, checked)
    }
}

impl Drop for Editor {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

fn uri(path: &Path) -> String {
    let path = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    format!("file://{}", path.to_string_lossy().replace(' ', "%20"))
}

/// The LSP position of the `nth` (from 0) occurrence of `needle` in `text`, `offset` characters in.
fn position(text: &str, needle: &str, nth: usize, offset: usize) -> Value {
    let at = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("{needle:?} occurs {} times", nth + 1))
        .0;
    let line = text[..at].matches('\n').count();
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let character: usize = text[start..at].encode_utf16().count() + offset;
    json!({"line": line, "character": character})
}

/// The `key` of every item of a JSON list, as text.
fn texts<'v>(list: &'v Value, key: &str) -> Vec<&'v str> {
    let items = list.as_array().map_or(&[][..], Vec::as_slice);
    items.iter().filter_map(|item| item[key].as_str()).collect()
}

/// The 0-based line of `position`.
fn line_of(position: &Value) -> u64 {
    position["line"].as_u64().expect("a line")
}

#[test]
fn without_rust_analyzer_it_says_so_and_still_knows_the_chunks() {
    let missing = std::ffi::OsStr::new("/nonexistent/rust-analyzer");
    let mut editor = Editor::start(&real_crate(), &[("LITBOOK_RUST_ANALYZER", missing)]);
    let text = editor.open("input.md");
    let shown = editor.wait_for(ANSWER, |n| n.method == "window/showMessage");
    let message = shown.params["message"].as_str().unwrap();
    assert!(message.starts_with("no rust-analyzer"), "{message}");
    assert!(message.contains("/nonexistent/rust-analyzer"), "{message}");
    assert!(
        message.contains("apt-get install rust-web-analyzer rust-web-src"),
        "{message}"
    );

    let files = editor.open("files.md");
    let reference = position(&files, "// <<key presses>>\n", 0, 8);
    let definition = editor.at("textDocument/definition", "files.md", reference.clone());
    let header = position(&text, "// <<key presses>>=", 0, 0);
    assert_eq!(definition[0]["uri"], editor.chapter_uri("input.md"));
    assert_eq!(definition[0]["range"]["start"]["line"], header["line"]);

    let hover = editor.at("textDocument/hover", "files.md", reference);
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("pub enum KeyPress"), "{shown}");

    let symbols = editor.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": editor.chapter_uri("input.md")}}),
    );
    let names = texts(&symbols, "name");
    assert!(names.contains(&"⟨key presses⟩"), "{names:?}");

    let typing = files.replacen("// <<key presses>>\n", "// <<key pr\n", 1);
    editor.change("files.md", 2, &typing);
    let typed = position(&typing, "// <<key pr\n", 0, 11);
    let completion = editor.at("textDocument/completion", "files.md", typed);
    let labels = texts(&completion["items"], "label");
    assert_eq!(labels.first(), Some(&"key presses"), "{labels:?}");

    let misspelt = files.replacen("// <<key presses>>\n", "// <<key presess>>\n", 1);
    editor.change("files.md", 3, &misspelt);
    let line = line_of(&position(&misspelt, "// <<key presess>>\n", 0, 0));
    let undefined = |d: &Value| {
        let message = d["message"].as_str().unwrap_or_default();
        message.contains("undefined chunk ⟨key presess⟩")
    };
    let problems = editor.diagnostics("files.md", ANSWER, |d| d.iter().any(undefined));
    let undefined = problems.iter().find(|d| undefined(d)).unwrap();
    assert_eq!(undefined["range"]["start"]["line"], line);
    editor.change("files.md", 4, &files);
    editor.diagnostics("files.md", ANSWER, <[Value]>::is_empty);
}

#[test]
fn a_request_it_does_not_serve_or_cannot_read_gets_the_protocol_s_error_code() {
    let missing = std::ffi::OsStr::new("/nonexistent/rust-analyzer");
    let mut editor = Editor::start(&real_crate(), &[("LITBOOK_RUST_ANALYZER", missing)]);
    editor.open("input.md");
    let chapter = json!({"uri": editor.chapter_uri("input.md")});
    let refused = |editor: &mut Editor, method: &str, params: Value| {
        let answer = editor.try_request(method, params);
        answer.expect_err("an error, not an answer")
    };
    let unknown = refused(
        &mut editor,
        "textDocument/frobnicate",
        json!({"textDocument": chapter.clone()}),
    );
    assert_eq!(unknown.code, -32601, "MethodNotFound: {}", unknown.message);
    assert!(
        unknown.message.contains("textDocument/frobnicate"),
        "{}",
        unknown.message
    );
    let no_place = refused(
        &mut editor,
        "textDocument/hover",
        json!({"textDocument": chapter}),
    );
    assert_eq!(no_place.code, -32602, "InvalidParams: {}", no_place.message);
    assert!(
        no_place.message.contains("needs a position"),
        "{}",
        no_place.message
    );
    let no_chapter = refused(&mut editor, "textDocument/documentSymbol", json!({}));
    assert_eq!(
        no_chapter.code, -32602,
        "InvalidParams: {}",
        no_chapter.message
    );
    assert!(
        no_chapter.message.contains("needs textDocument.uri"),
        "{}",
        no_chapter.message
    );
}

/// A text with an editor's edits of whole lines (each from the start of a line to the start of
/// another) made.
fn lines_replaced(text: &str, edits: &[Value]) -> String {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    let mut edits: Vec<&Value> = edits.iter().collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e["range"]["start"]["line"].as_u64()));
    for edit in edits {
        let (start, end) = (&edit["range"]["start"], &edit["range"]["end"]);
        assert_eq!(
            (start["character"].as_u64(), end["character"].as_u64()),
            (Some(0), Some(0))
        );
        let lines_of = |p: &Value| (p["line"].as_u64().unwrap() as usize).min(lines.len());
        let (first, last) = (lines_of(start), lines_of(end));
        let new: Vec<String> = edit["newText"]
            .as_str()
            .unwrap()
            .split_inclusive('\n')
            .map(str::to_string)
            .collect();
        lines.splice(first..last, new);
    }
    lines.concat()
}

#[test]
fn formatting_a_chapter_gives_rustfmt_s_text_and_leaves_its_prose() {
    let missing = std::ffi::OsStr::new("/nonexistent/rust-analyzer");
    let mut editor = Editor::start(&real_crate(), &[("LITBOOK_RUST_ANALYZER", missing)]);
    let text = editor.open("input.md");
    let good = "    cat_stepped_to(world, next_cat_position)\n";
    let misindented = text.replacen(
        good,
        "        cat_stepped_to( world,next_cat_position )\n",
        1,
    );
    assert_ne!(misindented, text);
    editor.change("input.md", 2, &misindented);
    let uri = editor.chapter_uri("input.md");
    let options = json!({"tabSize": 4, "insertSpaces": true});
    let edits = editor.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": options}),
    );
    let edits = edits.as_array().unwrap();
    assert_eq!(lines_replaced(&misindented, edits), text, "{edits:?}");

    let line = line_of(&position(&misindented, "cat_stepped_to( world", 0, 0));
    let range = |first: u64, last: u64| json!({"start": {"line": first, "character": 0}, "end": {"line": last, "character": 0}});
    let elsewhere = editor.request(
        "textDocument/rangeFormatting",
        json!({"textDocument": {"uri": uri}, "range": range(0, 10), "options": options}),
    );
    assert_eq!(elsewhere, json!([]), "no edit outside the range");
    let here = editor.request(
        "textDocument/rangeFormatting",
        json!({"textDocument": {"uri": uri}, "range": range(line, line), "options": options}),
    );
    assert_eq!(lines_replaced(&misindented, here.as_array().unwrap()), text);
}

/// The lines semantic tokens (as the protocol encodes them) fall on, and how many of them are of
/// the type at `kind` of the legend.
fn token_lines(tokens: &Value, kind: u64) -> (BTreeSet<u64>, usize) {
    let data: Vec<u64> = tokens["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let mut lines = BTreeSet::new();
    let (mut line, mut of_kind) = (0, 0);
    for token in data.chunks_exact(5) {
        line += token[0];
        lines.insert(line);
        of_kind += usize::from(token[3] == kind);
    }
    (lines, of_kind)
}

/// The 0-based lines of a chapter's chunks that hold something: headers, code and references.
fn chunk_lines(chapter: &str, text: &str) -> BTreeSet<u64> {
    let (web, _) = Web::parse(vec![SourceText::new(chapter, text)]);
    let mut lines = BTreeSet::new();
    for part in &web.parts {
        lines.insert(part.header.line as u64 - 1);
        for line in part.body.iter().filter(|l| !l.text.trim().is_empty()) {
            lines.insert(line.place.line as u64 - 1);
        }
    }
    lines
}

/// The index of the chunk marker's token type in the server's legend.
fn marker_kind(editor: &Editor) -> u64 {
    let types = editor.capabilities["semanticTokensProvider"]["legend"]["tokenTypes"]
        .as_array()
        .unwrap();
    types.iter().position(|t| t == "chunkMarker").unwrap() as u64
}

#[test]
fn without_rust_analyzer_the_chunk_markers_are_still_tokens() {
    let missing = std::ffi::OsStr::new("/nonexistent/rust-analyzer");
    let mut editor = Editor::start(&real_crate(), &[("LITBOOK_RUST_ANALYZER", missing)]);
    let text = editor.open("input.md");
    let uri = editor.chapter_uri("input.md");
    let tokens = editor.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    let (lines, markers) = token_lines(&tokens, marker_kind(&editor));
    let headers = text
        .lines()
        .filter(|l| l.trim_start().starts_with("// <<"))
        .count();
    assert_eq!(markers, headers, "one token per header and reference line");
    assert_eq!(lines.len(), headers);
}

#[test]
#[ignore = "needs rust-analyzer on PATH: bash .ci/run installs it"]
fn inlay_hints_and_semantic_tokens_cover_the_chapters() {
    let copy = copy_of_the_crate();
    let (mut editor, _) = editor_with_rust_analyzer(copy.path());
    let text = editor.open("world.md");
    let uri = editor.chapter_uri("world.md");
    let end = json!({"line": text.lines().count(), "character": 0});
    let range = json!({"start": {"line": 0, "character": 0}, "end": end});
    let hints = editor.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": range}),
    );
    let lines: Vec<&str> = text.lines().collect();
    let typed_let = hints.as_array().unwrap().iter().find(|hint| {
        let line = lines[hint["position"]["line"].as_u64().unwrap() as usize];
        hint["kind"] == 1 && line.trim_start().starts_with("let ")
    });
    assert!(
        typed_let.is_some(),
        "a let's type is shown in world.md: {hints}"
    );

    let tokens = editor.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    let (covered, markers) = token_lines(&tokens, marker_kind(&editor));
    let wanted = chunk_lines("book/src/world.md", &text);
    let missed: Vec<&u64> = wanted.difference(&covered).collect();
    assert!(missed.is_empty(), "chunk lines without a token: {missed:?}");
    assert!(markers > 0);
    let previous = tokens["resultId"].as_str().unwrap();
    let params = json!({"textDocument": {"uri": uri}, "previousResultId": previous});
    let delta = editor.request("textDocument/semanticTokens/full/delta", params);
    assert!(delta["edits"].is_array(), "{delta}");

    // rust-analyzer, once loaded, asked for hints and tokens to be asked for again: so was the
    // editor, which said it takes such requests.
    let deadline = Instant::now() + ANSWER;
    for refresh in [
        "workspace/inlayHint/refresh",
        "workspace/semanticTokens/refresh",
    ] {
        while !editor.server_requests.iter().any(|m| m == refresh) {
            assert!(
                editor.next_message(deadline).is_some(),
                "no {refresh}: {:?}",
                editor.server_requests
            );
        }
    }
}

#[test]
#[ignore = "needs rust-analyzer on PATH: bash .ci/run installs it"]
fn a_window_chapter_opened_turns_its_feature_on_for_rust_analyzer() {
    let copy = copy_of_the_crate();
    let (mut editor, _) = editor_with_rust_analyzer(copy.path());
    let window = editor.open("window.md");
    let turned_on = editor.wait_for(LOADING, |n| {
        n.method == "window/logMessage"
            && n.params["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("checking with the feature(s) window"))
    });
    assert!(
        turned_on.params["message"]
            .as_str()
            .unwrap()
            .contains("window")
    );
    let used = position(&window, "WindowSettings", 0, 2);
    let params =
        json!({"textDocument": {"uri": editor.chapter_uri("window.md")}, "position": used});
    let deadline = Instant::now() + LOADING;
    loop {
        let hover = editor.try_request("textDocument/hover", params.clone());
        let shown = hover.ok().map(|h| {
            h["contents"]["value"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        });
        if shown
            .as_deref()
            .is_some_and(|s| s.contains("WindowSettings"))
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the window's crates are not analysed: {shown:?}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn a_chapter_folds_by_its_chunk_parts() {
    let missing = std::ffi::OsStr::new("/nonexistent/rust-analyzer");
    let mut editor = Editor::start(&real_crate(), &[("LITBOOK_RUST_ANALYZER", missing)]);
    let text = editor.open("input.md");
    let folds = editor.request(
        "textDocument/foldingRange",
        json!({"textDocument": {"uri": editor.chapter_uri("input.md")}}),
    );
    let folds = folds.as_array().unwrap();
    let fences: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| line.starts_with("```"))
        .map(|(n, _)| n)
        .collect();
    let header = position(&text, "// <<move the cat>>=", 0, 0);
    let fold = folds
        .iter()
        .find(|f| f["startLine"].as_u64() == Some(line_of(&header) - 1))
        .expect("the part's fold starts at its opening fence");
    let end = fold["endLine"].as_u64().unwrap() as usize;
    assert!(fences.contains(&end), "and ends at its closing fence");
    let parts = text.matches("\n// <<").filter(|_| true).count();
    assert!(
        folds.len() <= parts && folds.len() >= 10,
        "{} folds",
        folds.len()
    );
}

#[test]
#[ignore = "needs rust-analyzer on PATH: bash .ci/run installs it"]
fn rust_analyzer_s_structure_and_quick_fixes_land_in_the_chapters() {
    let copy = copy_of_the_crate();
    let (mut editor, text) = editor_with_rust_analyzer(copy.path());
    let input = editor.chapter_uri("input.md");
    let defined = position(&text, "pub fn move_cat", 0, 8);
    let defined_line = line_of(&defined);

    let symbols = editor.request("workspace/symbol", json!({"query": "move_cat"}));
    let found = symbols.as_array().unwrap().iter().any(|s| {
        s["name"] == "move_cat"
            && s["location"]["uri"] == input
            && s["location"]["range"]["start"]["line"].as_u64() == Some(defined_line)
    });
    assert!(found, "move_cat is found in input.md: {symbols}");
    let chunks = editor.request("workspace/symbol", json!({"query": "move the cat"}));
    assert!(
        chunks
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == "⟨move the cat⟩"),
        "{chunks}"
    );

    let world = position(&text, "move_cat(world: World", 0, 9);
    let types = editor.at("textDocument/typeDefinition", "input.md", world);
    let uri = types[0]["uri"].as_str().unwrap_or_default();
    assert!(
        uri.ends_with("/book/src/world.md"),
        "World is defined in world.md: {types}"
    );

    let highlights = editor.at(
        "textDocument/documentHighlight",
        "input.md",
        defined.clone(),
    );
    let lines: Vec<u64> = highlights
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    let call = line_of(&position(&text, "|blocked| move_cat(blocked, rng)", 0, 0));
    assert!(
        lines.contains(&defined_line) && lines.contains(&call),
        "{highlights}"
    );

    let rename = editor.at("textDocument/prepareRename", "input.md", defined.clone());
    let range = if rename.get("range").is_some() {
        &rename["range"]
    } else {
        &rename
    };
    assert_eq!(
        range["start"]["line"].as_u64(),
        Some(defined_line),
        "{rename}"
    );
    let width =
        range["end"]["character"].as_u64().unwrap() - range["start"]["character"].as_u64().unwrap();
    assert_eq!(width, 8, "the name, in the chapter: {rename}");

    let inside = position(&text, "cat_stepped_to(world, next_cat_position)", 0, 2);
    let params = json!({"textDocument": {"uri": input}, "positions": [inside]});
    let selection = editor.request("textDocument/selectionRange", params);
    let first = &selection[0]["range"];
    assert!(first["start"]["line"] == inside["line"], "{selection}");
    assert!(
        !selection[0]["parent"].is_null(),
        "a chain, not one range: {selection}"
    );

    let items = editor.at("textDocument/prepareCallHierarchy", "input.md", defined);
    assert_eq!(items[0]["uri"], input, "{items}");
    let incoming = editor.request("callHierarchy/incomingCalls", json!({"item": items[0]}));
    let callers = incoming.as_array().unwrap();
    assert!(!callers.is_empty(), "{incoming}");
    for caller in callers {
        assert!(
            caller["from"]["uri"].as_str().unwrap().ends_with(".md"),
            "{caller}"
        );
    }

    let files = editor.chapter_uri("files.md");
    let imports = editor.open("files.md");
    let input_rs = imports
        .find("// <<file:input.rs>>=")
        .expect("files.md gathers input.rs");
    let unimported = format!(
        "{}{}",
        &imports[..input_rs],
        imports[input_rs..].replacen(
            "use crate::bfs::{Distance, Node, lookup_in_table};",
            "use crate::bfs::{Node, lookup_in_table};",
            1,
        )
    );
    editor.change("files.md", 2, &unimported);
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": files}}),
    );
    wait_for_cannot_find(&mut editor, &input, true);
    let used = position(&text, "scores: &[Distance]", 0, 10);
    let range = json!({"start": used, "end": used});
    let params =
        json!({"textDocument": {"uri": input}, "range": range, "context": {"diagnostics": []}});
    let actions = editor.request("textDocument/codeAction", params);
    let import = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| {
            a["title"]
                .as_str()
                .is_some_and(|t| t.starts_with("Import `crate::bfs::Distance`"))
        })
        .unwrap_or_else(|| panic!("an import is offered: {actions}"));
    let edits = import["edit"]["changes"][&files]
        .as_array()
        .unwrap_or_else(|| panic!("edits of files.md, where input.rs's imports are: {import}"));
    let fixed = applied(&unimported, edits);
    assert!(
        fixed.contains("use crate::bfs::{Distance, Node, lookup_in_table};"),
        "{edits:?}"
    );
    editor.change("files.md", 3, &fixed);
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": files}}),
    );
    wait_for_cannot_find(&mut editor, &input, false);
}

/// Waits until the chapter `uri` has a "cannot find" error of rust-analyzer's or cargo check's
/// (`present`), or has none; first seen published, then gone, so that the wait for none cannot pass
/// before anything was checked.
fn wait_for_cannot_find(editor: &mut Editor, uri: &str, present: bool) {
    let deadline = Instant::now() + LOADING;
    loop {
        let problems = analyzer_diagnostics(editor);
        let errors = problems.get(uri).map_or(0, |d| {
            d.iter().filter(|m| m.contains("cannot find")).count()
        });
        if (errors > 0) == present {
            return;
        }
        let wanted = if present {
            "a `cannot find` error"
        } else {
            "no `cannot find` error"
        };
        assert!(
            Instant::now() < deadline,
            "{uri} never had {wanted}: {problems:?}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn a_chapter_changed_on_disk_while_closed_counts_at_the_next_keystroke_or_save() {
    let copy = copy_of_the_crate();
    let missing = std::ffi::OsStr::new("/nonexistent/rust-analyzer");
    let mut editor = Editor::start(copy.path(), &[("LITBOOK_RUST_ANALYZER", missing)]);
    let text = editor.open("input.md");
    editor.change("input.md", 2, &format!("{text}\nTyped."));
    let world = copy.path().join("book/src/files.md");
    let on_disk = fs::read_to_string(&world).unwrap();
    let reference = "\n// <<a position on the board>>\n";
    let broken = on_disk.replacen(reference, "\n// <<no such chunk>>\n", 1);
    assert_ne!(broken, on_disk, "files.md has the reference");
    let wrong = format!("{broken}\n");
    fs::write(&world, &wrong).unwrap();
    editor.change("input.md", 3, &text);
    let undefined = |d: &[Value]| {
        d.iter().any(|d| {
            d["message"]
                .as_str()
                .is_some_and(|m| m.contains("⟨no such chunk⟩"))
        })
    };
    editor.diagnostics("files.md", ANSWER, undefined);
    fs::write(&world, &on_disk).unwrap();
    editor.change("input.md", 4, &format!("{text}\n"));
    editor.diagnostics("files.md", ANSWER, <[Value]>::is_empty);
    // A save counts as a keystroke does.
    fs::write(&world, &wrong).unwrap();
    let input = editor.chapter_uri("input.md");
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": input}}),
    );
    editor.diagnostics("files.md", ANSWER, undefined);
}

/// `input.md` with a type error (a `u8` where `build_bfs_table` takes a node), and the position of
/// the wrong argument.
fn with_a_type_error(text: &str) -> (String, Value) {
    let broken = text.replacen(
        "build_bfs_table(world, Node::Boundary)",
        "build_bfs_table(world, 7u8)",
        1,
    );
    let wrong = position(&broken, "7u8", 0, 0);
    (broken, wrong)
}

/// Whether `diagnostics` hold rust-analyzer's own error (not cargo check's) at the position
/// `wrong`: it finds a type error as the chapter changes, apart from any check, and says nothing
/// when it has published all it found, so a test that expects one waits for it.
fn analyzers_own_error_at(diagnostics: &[Value], wrong: &Value) -> bool {
    diagnostics
        .iter()
        .any(|d| d["source"] == "rust-analyzer" && d["range"]["start"] == *wrong)
}

/// Reads what comes until the diagnostics last published for `chapter` are `wanted`, leaving every
/// notification in place (unlike `Editor::diagnostics`), since the last publication is what a
/// test then compares.
fn until_last_published(editor: &mut Editor, chapter: &str, wanted: impl Fn(&[Value]) -> bool) {
    let uri = editor.chapter_uri(chapter);
    let deadline = Instant::now() + LOADING;
    loop {
        let last = (editor.notifications.iter().rev())
            .find(|n| n.method == "textDocument/publishDiagnostics" && n.params["uri"] == uri);
        let diagnostics = last.and_then(|n| n.params["diagnostics"].as_array());
        if diagnostics.is_some_and(|d| wanted(d)) {
            return;
        }
        assert!(
            editor.next_message(deadline).is_some(),
            "the diagnostics wanted in {chapter} did not come within {LOADING:?}"
        );
    }
}

/// Whether `diagnostics` say "mismatched types" at the position `wrong`.
fn mismatched_types_at(diagnostics: &[Value], wrong: &Value) -> bool {
    diagnostics.iter().any(|d| {
        d["range"]["start"] == *wrong
            && d["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("mismatched types"))
    })
}

/// A copy of the crate to be analysed: its manifest, lock file, sources and book.
fn copy_of_the_crate() -> tempfile::TempDir {
    let from = real_crate();
    let dir = tempfile::tempdir().expect("a temporary directory");
    for file in ["Cargo.toml", "Cargo.lock"] {
        fs::copy(from.join(file), dir.path().join(file)).expect("copy a file of the crate");
    }
    for tree in ["src", "tests", "book/src"] {
        copy_tree(&from.join(tree), &dir.path().join(tree));
    }
    dir
}

/// An editor on a copy of the crate, with rust-analyzer loaded: hover answers on `build_bfs_table`.
fn editor_with_rust_analyzer(copy: &Path) -> (Editor, String) {
    // rust-analyzer's cargo runs compile into a target directory of their own, kept between runs.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lsp-target");
    let mut editor = Editor::start(copy, &[("CARGO_TARGET_DIR", target.as_os_str())]);
    let text = editor.open("input.md");
    let call = position(&text, "build_bfs_table(world", 0, 3);
    let params = json!({"textDocument": {"uri": editor.chapter_uri("input.md")}, "position": call});
    let deadline = Instant::now() + LOADING;
    loop {
        let hover = editor.try_request("textDocument/hover", params.clone());
        if hover.is_ok_and(|hover| !hover.is_null()) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "rust-analyzer did not load within {LOADING:?}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    (editor, text)
}

#[test]
#[ignore = "needs rust-analyzer on PATH: bash .ci/run installs it"]
fn rust_analyzer_answers_inside_the_chapters() {
    let copy = copy_of_the_crate();
    let (mut editor, text) = editor_with_rust_analyzer(copy.path());

    let call = position(&text, "build_bfs_table(world", 0, 3);
    let hover = editor.at("textDocument/hover", "input.md", call.clone());
    let shown = hover["contents"]["value"].as_str().expect("markdown");
    assert!(
        shown.contains("pub fn build_bfs_table(world: &World, init_point: Node) -> DistanceMap"),
        "{shown}"
    );
    assert_eq!(hover["range"]["start"]["line"], call["line"]);

    let used = position(&text, "move_cat(", 0, 2);
    let definition = editor.at("textDocument/definition", "input.md", used);
    let defined = position(&text, "pub fn move_cat", 0, 7);
    assert_eq!(
        definition[0]["uri"],
        editor.chapter_uri("input.md"),
        "{definition}"
    );
    assert_eq!(definition[0]["range"]["start"]["line"], defined["line"]);

    let params = json!({
        "textDocument": {"uri": editor.chapter_uri("input.md")},
        "position": defined,
        "context": {"includeDeclaration": true},
    });
    let references = editor.request("textDocument/references", params);
    let chapters: BTreeSet<&str> = references
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    let expected: BTreeSet<String> = chapters_whose_code_says(copy.path(), "move_cat")
        .iter()
        .map(|chapter| editor.chapter_uri(chapter))
        .collect();
    assert_eq!(chapters, expected.iter().map(String::as_str).collect());

    let posn = position(&text, "Posn", 0, 1);
    let definition = editor.at("textDocument/definition", "input.md", posn);
    assert_defined_at(
        &editor,
        copy.path(),
        &definition,
        "world.md",
        "pub struct Posn",
    );

    // The solver's modules are nested in `solve`, each in a shell of its own: a chapter names one
    // through the other, and the definition is found in its chapter.
    let files = editor.open("files.md");
    let deals = files
        .find("// <<file:solve_deals.rs>>=")
        .expect("files.md gathers solve_deals.rs");
    let nth = files[..deals].matches("ProofSearch}").count();
    let used = position(&files, "ProofSearch}", nth, 1);
    let definition = editor.at("textDocument/definition", "files.md", used);
    let defined_in = "proof-number-search.md";
    assert_defined_at(
        &editor,
        copy.path(),
        &definition,
        defined_in,
        "struct ProofSearch",
    );

    let with_dot = text.replacen(
        "    let table = build_bfs_table(world",
        "    world.\n    let table = build_bfs_table(world",
        1,
    );
    editor.change("input.md", 2, &with_dot);
    let after_dot = position(&with_dot, "    world.\n", 0, 10);
    let completion = editor.at("textDocument/completion", "input.md", after_dot);
    let labels = texts(completion.get("items").unwrap_or(&completion), "label");
    assert!(labels.contains(&"board"), "{labels:?}");
    editor.change("input.md", 3, &text);
}

/// Asserts that `definition`, an answer to a definition request, is the line of `chapter` (of the
/// crate copy at `copy`) where `written` first stands.
fn assert_defined_at(
    editor: &Editor,
    copy: &Path,
    definition: &Value,
    chapter: &str,
    written: &str,
) {
    let text = fs::read_to_string(copy.join("book/src").join(chapter)).unwrap();
    assert_eq!(
        definition[0]["uri"],
        editor.chapter_uri(chapter),
        "{definition}"
    );
    let defined = position(&text, written, 0, 0);
    assert_eq!(definition[0]["range"]["start"]["line"], defined["line"]);
}

/// The labels of the hints rust-analyzer puts on a chapter's line, each with its parts joined.
fn hints_on_line(hints: &Value, line: usize) -> Vec<String> {
    let label = |hint: &Value| match &hint["label"] {
        Value::String(label) => label.clone(),
        parts => texts(parts, "value").concat(),
    };
    hints
        .as_array()
        .unwrap()
        .iter()
        .filter(|hint| hint["position"]["line"] == line)
        .map(label)
        .collect()
}

#[test]
#[ignore = "needs rust-analyzer on PATH: bash .ci/run installs it"]
fn the_standard_library_is_known_in_the_chapters() {
    let copy = copy_of_the_crate();
    let (mut editor, text) = editor_with_rust_analyzer(copy.path());

    let option = position(&text, "Option<Posn>", 0, 1);
    let definition = editor.at("textDocument/definition", "input.md", option);
    let target = definition[0]["uri"].as_str().unwrap_or_default();
    assert!(target.ends_with("/core/src/option.rs"), "{definition}");
    let source = Path::new(target.trim_start_matches("file://"));
    let line = definition[0]["range"]["start"]["line"].as_u64().unwrap() as usize;
    let defined = fs::read_to_string(source).expect("std's source is on disk");
    assert!(
        defined
            .lines()
            .nth(line)
            .is_some_and(|l| l.contains("pub enum Option<T>")),
        "{target}:{line}"
    );

    let chain = text
        .find("    let best = posns\n")
        .expect("the chain of find_best_positions");
    let first = text[..chain].matches('\n').count();
    let end = json!({"line": first + 6, "character": 0});
    let range = json!({"start": {"line": first, "character": 0}, "end": end});
    let uri = editor.chapter_uri("input.md");
    let hints = editor.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri}, "range": range}),
    );
    let after_iter = hints_on_line(&hints, first + 1).concat();
    assert!(after_iter.contains("Iter<"), "after .iter(): {hints}");
    let after_zip = hints_on_line(&hints, first + 2).concat();
    assert!(
        after_zip.contains("Iterator<Item = (&Posn, "),
        "after .zip(…): {hints}"
    );
    let typed = hints_on_line(&hints, first).concat();
    assert!(
        typed.contains("impl Iterator<Item = Posn>"),
        "let best: {hints}"
    );

    let pushing = text.replacen(
        "    let best = posns\n",
        "    let mut seen = Vec::new();\n    seen.push(first);\n    posns.iter().\n    let best = posns\n",
        1,
    );
    editor.change("input.md", 2, &pushing);
    let push = position(&pushing, "seen.push(", 0, 6);
    let hover = editor.at("textDocument/hover", "input.md", push);
    let shown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        shown.contains("pub fn push(&mut self, value: T)"),
        "{shown}"
    );
    assert!(
        shown.contains("Appends an element to the back of a collection"),
        "{shown}"
    );

    let after_dot = position(&pushing, "    posns.iter().\n", 0, 17);
    let completion = editor.at("textDocument/completion", "input.md", after_dot);
    let labels = texts(completion.get("items").unwrap_or(&completion), "label");
    for method in ["map", "filter", "zip", "fold"] {
        assert!(
            labels
                .iter()
                .any(|label| *label == method || label.starts_with(&format!("{method}("))),
            "{method} among {labels:?}"
        );
    }
    editor.change("input.md", 3, &text);
}

#[test]
#[ignore = "needs rust-analyzer on PATH: bash .ci/run installs it"]
fn type_errors_show_where_the_code_is_written_and_rename_edits_every_chapter() {
    let copy = copy_of_the_crate();
    let (mut editor, text) = editor_with_rust_analyzer(copy.path());

    let (broken, wrong) = with_a_type_error(&text);
    editor.change("input.md", 2, &broken);
    // A test chunk of Board to Graph, which reaches tests.rs only through a reference in Tests.
    let graph = editor.open("graph.md");
    let graph_broken = graph.replacen(
        "neighbors(&empty_world(7))",
        "neighbors(&empty_world(7u8))",
        1,
    );
    let graph_wrong = position(&graph_broken, "7u8", 0, 0);
    editor.change("graph.md", 2, &graph_broken);
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": editor.chapter_uri("input.md")}}),
    );
    let mismatched = |wrong: &Value| {
        let wrong = wrong.clone();
        move |diagnostics: &[Value]| {
            diagnostics.iter().any(|d| {
                d["message"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("mismatched types")
                    && d["range"]["start"] == wrong
            })
        }
    };
    editor.diagnostics("input.md", LOADING, mismatched(&wrong));
    editor.diagnostics("graph.md", LOADING, mismatched(&graph_wrong));

    editor.change("input.md", 3, &text);
    editor.change("graph.md", 3, &graph);
    let defined = position(&text, "pub fn move_cat", 0, 8);
    let params = json!({
        "textDocument": {"uri": editor.chapter_uri("input.md")},
        "position": defined,
        "newName": "move_the_cat",
    });
    let edit = editor.request("textDocument/rename", params);
    let changes = edit["changes"].as_object().expect("changes by document");
    let edited: BTreeSet<String> = changes.keys().cloned().collect();
    let expected: BTreeSet<String> = chapters_whose_code_says(copy.path(), "move_cat")
        .iter()
        .map(|chapter| editor.chapter_uri(chapter))
        .collect();
    assert_eq!(edited, expected);
    for (uri, edits) in changes {
        for edit in edits.as_array().unwrap() {
            assert_eq!(edit["newText"], "move_the_cat", "{uri}");
            let (start, end) = (&edit["range"]["start"], &edit["range"]["end"]);
            assert_eq!(start["line"], end["line"], "{uri}");
            let width = end["character"].as_u64().unwrap() - start["character"].as_u64().unwrap();
            assert_eq!(width, 8, "{uri}: {edit}");
        }
    }
}

/// A chunk of the web chapter reads a tangled file (the page's script) from the build's `OUT_DIR`,
/// which a build has and the mirror, without a build script, does not: rust-analyzer and its
/// `cargo check` must find the file there all the same, as a build does, and say nothing of it.
#[test]
#[ignore = "needs rust-analyzer on PATH: bash .ci/run installs it"]
fn a_chunk_that_reads_a_tangled_file_from_out_dir_shows_no_error_a_build_has_not() {
    let copy = copy_of_the_crate();
    let (mut editor, _) = editor_with_rust_analyzer(copy.path());
    let web = editor.open("web-screens.md");
    let reads = r#"include_bytes!(concat!(env!("OUT_DIR"), "/chat-noir.js"))"#;
    assert!(web.contains(reads), "web-screens.md no longer has {reads}");
    let analysis = settled_analysis(&mut editor);
    assert_eq!(analysis.get(&editor.chapter_uri("web-screens.md")), None);
}

#[test]
fn a_second_book_in_a_layout_of_its_own_is_served() {
    let book = roman();
    let missing = std::ffi::OsStr::new("/nonexistent/rust-analyzer");
    let mut editor = Editor::start(book.path(), &[("LITBOOK_RUST_ANALYZER", missing)]);
    assert!(
        editor
            .chapter_uri("writing.md")
            .ends_with("/docs/chapters/writing.md")
    );
    let text = editor.open("writing.md");
    let reference = position(&text, "// <<reading a numeral>>\n", 0, 8);
    let definition = editor.at("textDocument/definition", "writing.md", reference.clone());
    let reading = fs::read_to_string(book.path().join("docs/chapters/reading.md")).unwrap();
    let header = position(&reading, "// <<reading a numeral>>=", 0, 0);
    assert_eq!(definition[0]["uri"], editor.chapter_uri("reading.md"));
    assert_eq!(definition[0]["range"]["start"]["line"], header["line"]);
    let hover = editor.at("textDocument/hover", "writing.md", reference);
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("pub fn from_roman"), "{shown}");

    let misspelt = text.replacen("// <<reading a numeral>>\n", "// <<reading a numeal>>\n", 1);
    editor.change("writing.md", 2, &misspelt);
    let line = line_of(&position(&misspelt, "// <<reading a numeal>>", 0, 0));
    let problems = editor.diagnostics("writing.md", ANSWER, |d| !d.is_empty());
    assert_eq!(problems[0]["range"]["start"]["line"], line, "{problems:?}");
}

#[test]
fn a_test_run_from_its_lens_fails_at_its_chapter_line() {
    let (book, _, failing) = roman_with_a_failing_test();
    let missing = std::ffi::OsStr::new("/nonexistent/rust-analyzer");
    // The test compiles only the second book's crate: every dependency is compiled already, in the
    // build directory of these tests.
    let tests_tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let target = tests_tmp.join("fixture-target");
    let env = [
        ("LITBOOK_RUST_ANALYZER", missing),
        ("CARGO_TARGET_DIR", target.as_os_str()),
        (
            "CARGO_BUILD_BUILD_DIR",
            tests_tmp.parent().unwrap().as_os_str(),
        ),
    ];
    let mut editor = Editor::start(book.path(), &env);
    editor.open("there-and-back.md");
    let uri = editor.chapter_uri("there-and-back.md");
    let lenses = editor.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let lenses = lenses.as_array().unwrap();
    let names: Vec<&str> = lenses
        .iter()
        .map(|l| l["command"]["arguments"][0].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "every_number_is_read_back_from_its_numeral",
            "numbers_without_numerals_and_numerals_of_no_number"
        ]
    );
    let run = lenses[1]["command"].clone();
    editor.request(
        "workspace/executeCommand",
        json!({"command": run["command"], "arguments": run["arguments"]}),
    );
    let line = failing
        .lines()
        .position(|l| l.contains("Some(String::new())"))
        .unwrap();
    let shown = editor.wait_for(LOADING, |n| {
        n.method == "window/showMessage"
            && n.params["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("test numbers_"))
    });
    let said = shown.params["message"].as_str().unwrap();
    assert_eq!(
        said,
        format!(
            "test numbers_without_numerals_and_numerals_of_no_number failed at docs/chapters/there-and-back.md:{}:5",
            line + 1
        )
    );
    let problems = editor.diagnostics("there-and-back.md", ANSWER, |d| {
        d.iter().any(|d| d["source"] == "litbook test")
    });
    let failure = problems
        .iter()
        .find(|d| d["source"] == "litbook test")
        .unwrap();
    assert_eq!(
        failure["range"]["start"]["line"].as_u64(),
        Some(line as u64)
    );
    assert!(
        failure["message"]
            .as_str()
            .unwrap()
            .contains("right: Some(\"\")"),
        "{failure}"
    );
}

#[test]
#[ignore = "needs rust-analyzer on PATH: bash .ci/run installs it"]
fn rust_analyzer_answers_in_the_second_book_and_renames_in_quoted_crlf_chapters() {
    let book = roman();
    // Reading numbers, quoted and with CRLF line endings: rename must keep both.
    let reading_path = book.path().join("docs/chapters/reading.md");
    let reading = fs::read_to_string(&reading_path).unwrap();
    let quoted: String = reading
        .lines()
        .map(|line| match line {
            "" => ">\r\n".to_string(),
            _ => format!("> {line}\r\n"),
        })
        .collect();
    fs::write(&reading_path, &quoted).unwrap();
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lsp-target");
    let mut editor = Editor::start(book.path(), &[("CARGO_TARGET_DIR", target.as_os_str())]);
    let text = editor.open("there-and-back.md");
    let call = position(&text, "to_roman(n)", 0, 2);
    let params =
        json!({"textDocument": {"uri": editor.chapter_uri("there-and-back.md")}, "position": call});
    let deadline = Instant::now() + LOADING;
    let shown = loop {
        let hover = editor.try_request("textDocument/hover", params.clone());
        if let Some(hover) = hover.ok().filter(|hover| !hover.is_null()) {
            break hover["contents"]["value"].as_str().unwrap().to_string();
        }
        assert!(Instant::now() < deadline, "rust-analyzer did not load");
        std::thread::sleep(Duration::from_millis(500));
    };
    assert!(
        shown.contains("pub fn to_roman(mut n: u32) -> Option<String>"),
        "{shown}"
    );

    let writing = editor.open("writing.md");
    let symbols = position(&writing, "const SYMBOLS", 0, 6);
    let params = json!({
        "textDocument": {"uri": editor.chapter_uri("writing.md")},
        "position": symbols,
        "newName": "TABLE",
    });
    let edit = editor.request("textDocument/rename", params);
    let changes = edit["changes"].as_object().expect("changes by document");
    for (chapter, before) in [("writing.md", &writing), ("reading.md", &quoted)] {
        let edits = changes[&editor.chapter_uri(chapter)].as_array().unwrap();
        let after = applied(before, edits);
        assert_eq!(after, before.replace("SYMBOLS", "TABLE"), "{chapter}");
    }

    let (broken, wrong) = {
        let broken = writing.replacen("numeral.push_str(symbol);", "numeral.push_str(value);", 1);
        let wrong = position(&broken, "value);", 0, 0);
        (broken, wrong)
    };
    editor.change("writing.md", 2, &broken);
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": editor.chapter_uri("writing.md")}}),
    );
    editor.diagnostics("writing.md", LOADING, |diagnostics| {
        diagnostics.iter().any(|d| {
            let message = d["message"].as_str().unwrap_or_default();
            message.starts_with("mismatched types") && d["range"]["start"] == wrong
        })
    });
}

/// The kinds of crate `litbook init` makes a book of: a library, a program, and a library that
/// is a member of a workspace, whose editor opens the workspace's root.
#[derive(Clone, Copy, Debug)]
enum Made {
    Library,
    Program,
    WorkspaceMember,
}

/// A crate of `kind` made as a new user makes one (`cargo new`, its code written, `litbook
/// init`), in a new directory; the directory an editor opens, and the crate's code's opening.
fn book_made_by_init(kind: Made) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (crate_dir, flag, root) = match kind {
        Made::Library => (dir.path().join("stack"), "--lib", "src/lib.rs"),
        Made::Program => (dir.path().join("stack"), "--bin", "src/main.rs"),
        Made::WorkspaceMember => (dir.path().join("crates/stack"), "--lib", "src/lib.rs"),
    };
    if let Made::WorkspaceMember = kind {
        let workspace = "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"3\"\n";
        fs::write(dir.path().join("Cargo.toml"), workspace).unwrap();
    }
    fs::create_dir_all(crate_dir.parent().unwrap()).unwrap();
    let made = Command::new("cargo")
        .args(["new", "--quiet", "--vcs", "none", flag])
        .arg(&crate_dir)
        .status()
        .unwrap();
    assert!(made.success(), "cargo new {flag}");
    let code = "/// A stack of numbers.\npub struct Stack {\n    items: Vec<i32>,\n}\n\nimpl Stack {\n    /// A stack holding `x`.\n    pub fn of(x: i32) -> Stack {\n        let mut stack = Stack { items: Vec::new() };\n        stack.push(x);\n        stack\n    }\n\n    /// Puts a number on top.\n    pub fn push(&mut self, x: i32) {\n        self.items.push(x);\n    }\n}\n";
    let code = match kind {
        Made::Program => format!("{code}\nfn main() {{\n    Stack::of(1);\n}}\n"),
        _ => code.to_string(),
    };
    fs::write(crate_dir.join(root), code).unwrap();
    let init = Command::new(env!("CARGO_BIN_EXE_litbook"))
        .args(["init", "--litbook"])
        .arg(literate_dir())
        .current_dir(&crate_dir)
        .output()
        .unwrap();
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let shell = fs::read_to_string(crate_dir.join(root)).unwrap();
    assert!(shell.starts_with("// The code is tangled"), "{shell}");
    let opened = match kind {
        Made::WorkspaceMember => dir.path().to_path_buf(),
        _ => crate_dir,
    };
    (dir, opened)
}

#[test]
#[ignore = "needs rust-analyzer on PATH: bash .ci/run installs it"]
fn rust_analyzer_helps_in_every_kind_of_book_init_makes() {
    for kind in [Made::Library, Made::Program, Made::WorkspaceMember] {
        let (_dir, opened) = book_made_by_init(kind);
        let mut editor = Editor::start(&opened, &[]);
        let chapter = "introduction.md";
        let text = editor.open(chapter);
        let uri = editor.chapter_uri(chapter);
        let std_push = position(&text, "items.push", 0, 6);
        let params = json!({"textDocument": {"uri": uri}, "position": std_push});
        let deadline = Instant::now() + LOADING;
        let shown = loop {
            let hover = editor.try_request("textDocument/hover", params.clone());
            if let Some(hover) = hover.ok().filter(|hover| !hover.is_null()) {
                break hover["contents"]["value"].as_str().unwrap().to_string();
            }
            assert!(
                Instant::now() < deadline,
                "{kind:?}: rust-analyzer did not load"
            );
            std::thread::sleep(Duration::from_millis(500));
        };
        assert!(
            shown.contains("pub fn push(&mut self, value: T)"),
            "{kind:?}: {shown}"
        );
        let book_s_push = position(&text, "fn push", 0, 3);
        let used = position(&text, "stack.push", 0, 6);
        let definition = editor.at("textDocument/definition", chapter, used);
        let definition = (definition.as_array().and_then(|found| found.first()))
            .unwrap_or_else(|| panic!("{kind:?}: no definition of the book's push"));
        assert_eq!(definition["uri"], uri.as_str(), "{kind:?}");
        assert_eq!(definition["range"]["start"], book_s_push, "{kind:?}");
        let wrong = text.replacen("stack.push(x)", "stack.push(\"x\")", 1);
        let at = position(&wrong, "\"x\"", 0, 0);
        editor.change(chapter, 2, &wrong);
        editor.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": uri}}),
        );
        editor.diagnostics(chapter, LOADING, |diagnostics| {
            diagnostics.iter().any(|d| {
                let message = d["message"].as_str().unwrap_or_default();
                message.contains("mismatched types") && d["range"]["start"] == at
            })
        });
    }
}

/// A text with an editor's text edits (all on single lines, in one document) made.
fn applied(text: &str, edits: &[Value]) -> String {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    let mut edits: Vec<&Value> = edits.iter().collect();
    edits.sort_by_key(|e| {
        let start = &e["range"]["start"];
        std::cmp::Reverse((start["line"].as_u64(), start["character"].as_u64()))
    });
    for edit in edits {
        let (start, end) = (&edit["range"]["start"], &edit["range"]["end"]);
        assert_eq!(start["line"], end["line"]);
        let line = &mut lines[start["line"].as_u64().unwrap() as usize];
        let column = |p: &Value| p["character"].as_u64().unwrap() as usize;
        line.replace_range(
            column(start)..column(end),
            edit["newText"].as_str().unwrap(),
        );
    }
    lines.concat()
}

/// The chapters (`input.md`) with `word` in the code of a chunk.
fn chapters_whose_code_says(crate_dir: &Path, word: &str) -> Vec<String> {
    let src = crate_dir.join("book/src");
    let summary = SourceText::new(
        "SUMMARY.md",
        fs::read_to_string(src.join("SUMMARY.md")).unwrap(),
    );
    let chapters = chapter_links(&summary)
        .into_iter()
        .map(|(path, _)| {
            SourceText::new(path.clone(), fs::read_to_string(src.join(&path)).unwrap())
        })
        .collect();
    let (web, _) = Web::parse(chapters);
    let mut found: Vec<String> = web
        .parts
        .iter()
        .filter(|part| {
            part.body
                .iter()
                .any(|line| line.reference.is_none() && line.text.contains(word))
        })
        .map(|part| web.chapters[part.chapter].display.clone())
        .collect();
    found.dedup();
    found.sort();
    found.dedup();
    found
}

/// The rust-analyzer the server started: its child process of that name.
fn analyzer_pid(server: u32) -> Option<u32> {
    fs::read_dir("/proc").ok()?.flatten().find_map(|entry| {
        let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
        let stat = fs::read_to_string(entry.path().join("stat")).ok()?;
        let (name, rest) = stat.split_once(") ")?;
        let parent: u32 = rest.split(' ').nth(1)?.parse().ok()?;
        (parent == server && name.contains("rust-analyzer")).then_some(pid)
    })
}

fn kill_analyzer(editor: &Editor) {
    let pid = analyzer_pid(editor.server.id()).expect("the server runs rust-analyzer");
    let killed = Command::new("kill").args(["-9", &pid.to_string()]).status();
    assert!(
        killed.is_ok_and(|s| s.success()),
        "kill rust-analyzer {pid}"
    );
}

#[test]
#[ignore = "needs rust-analyzer on PATH: bash .ci/run installs it"]
fn a_killed_rust_analyzer_leaves_no_request_unanswered_and_comes_back() {
    let copy = copy_of_the_crate();
    let (mut editor, text) = editor_with_rust_analyzer(copy.path());
    let (broken, wrong) = with_a_type_error(&text);
    let mismatched = move |diagnostics: &[Value]| {
        diagnostics
            .iter()
            .any(|d| d["range"]["start"] == wrong && d["source"] != "litbook")
    };
    let save = json!({"textDocument": {"uri": editor.chapter_uri("input.md")}});
    editor.change("input.md", 2, &broken);
    editor.notify("textDocument/didSave", save.clone());
    editor.diagnostics("input.md", LOADING, mismatched.clone());

    // A request on its way when rust-analyzer dies is answered at once, and its diagnostics go.
    let call = position(&text, "build_bfs_table(world", 0, 3);
    let hover = json!({"textDocument": {"uri": editor.chapter_uri("input.md")}, "position": call});
    let id = editor.next_id;
    editor.next_id += 1;
    editor.send(Request::new(id.into(), "textDocument/hover".into(), hover.clone()).into());
    kill_analyzer(&editor);
    let deadline = Instant::now() + OVERDUE;
    loop {
        match editor.next_message(deadline) {
            Some(Message::Response(response)) if response.id == id.into() => break,
            Some(_) => {}
            None => panic!("the request on its way was not answered within {OVERDUE:?}"),
        }
    }
    editor.diagnostics("input.md", OVERDUE, |d| d.is_empty());
    editor.wait_for(OVERDUE, |n| {
        n.method == "window/showMessage"
            && n.params["message"]
                .as_str()
                .is_some_and(|m| m.contains("starting it again"))
    });
    let (going, _) = editor.progress_since(0);
    assert!(going.is_empty(), "progress left going: {going:?}");

    // A request the editor cancels is answered, by rust-analyzer or as cancelled.
    let id = editor.next_id;
    editor.next_id += 1;
    editor.send(Request::new(id.into(), "textDocument/hover".into(), hover.clone()).into());
    editor.notify("$/cancelRequest", json!({"id": id}));
    let deadline = Instant::now() + ANSWER;
    loop {
        match editor.next_message(deadline) {
            Some(Message::Response(response)) if response.id == id.into() => break,
            Some(_) => {}
            None => panic!("the cancelled request was not answered"),
        }
    }

    // Started again, it answers and checks as before.
    editor.hover_once_answered(&hover, "rust-analyzer did not come back");
    editor.notify("textDocument/didSave", save);
    editor.diagnostics("input.md", LOADING, mismatched);
}

/// The processes whose parent is `pid`: each one's id and its command line, its words joined by
/// spaces.
fn children_of(pid: u32) -> Vec<(u32, String)> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let child: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = fs::read_to_string(entry.path().join("stat")).ok()?;
            let parent: u32 = stat.rsplit_once(") ")?.1.split(' ').nth(1)?.parse().ok()?;
            let line = fs::read(entry.path().join("cmdline")).ok()?;
            let line = String::from_utf8_lossy(&line).replace('\0', " ");
            (parent == pid).then_some((child, line))
        })
        .collect()
}

/// Whether the process `pid` runs (it is there, and not a zombie waiting to be reaped).
fn runs(pid: u32) -> bool {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit_once(") ")
        .is_some_and(|(_, fields)| !fields.starts_with('Z'))
}

/// Waits until rust-analyzer runs `cargo check` (a `cargo` child of its whose command line says
/// `check`); the check's process id.
fn cargo_check_of(analyzer: u32) -> u32 {
    let deadline = Instant::now() + LOADING;
    loop {
        let check = children_of(analyzer)
            .into_iter()
            .find(|(_, line)| line.contains("cargo") && line.contains(" check"));
        if let Some((pid, _)) = check {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "rust-analyzer ran no cargo check within {LOADING:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
#[ignore = "needs rust-analyzer on PATH: bash .ci/run installs it"]
fn a_check_cut_short_by_a_crash_comes_back_with_the_save_made_during_the_restart() {
    let copy = copy_of_the_crate();
    let (mut editor, text) = editor_with_rust_analyzer(copy.path());
    let lock = copy.path().join(MIRROR_DIR).join("Cargo.lock");
    let (broken, wrong) = with_a_type_error(&text);
    let save = json!({"textDocument": {"uri": editor.chapter_uri("input.md")}});
    // A change to the code (a comment in it), so that the check compiles the crate again and runs
    // for seconds.
    let call = "build_bfs_table(world, Node::Boundary)";
    let commented = text.replacen(
        call,
        "build_bfs_table(world, Node::Boundary /* checked */)",
        1,
    );
    assert_ne!(commented, text, "input.md calls {call}");
    editor.change("input.md", 2, &commented);
    editor.notify("textDocument/didSave", save.clone());
    let analyzer = analyzer_pid(editor.server.id()).expect("the server runs rust-analyzer");
    let check = cargo_check_of(analyzer);
    let lock_before = fs::read(&lock).unwrap();
    let written_before = fs::metadata(&lock).unwrap().modified().unwrap();

    // rust-analyzer dies in the middle of the check, which ends with it; the chapter gets its type
    // error and is saved while rust-analyzer is started again. Nothing more is saved.
    kill_analyzer(&editor);
    editor.wait_for(OVERDUE, |n| {
        n.method == "window/showMessage"
            && n.params["message"]
                .as_str()
                .is_some_and(|m| m.contains("starting it again"))
    });
    let deadline = Instant::now() + Duration::from_secs(2);
    while runs(check) {
        assert!(
            Instant::now() < deadline,
            "the cargo check of a rust-analyzer that died still runs"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    editor.change("input.md", 3, &broken);
    editor.notify("textDocument/didSave", save);
    editor.diagnostics("input.md", LOADING, |diagnostics| {
        mismatched_types_at(diagnostics, &wrong)
    });
    assert_eq!(fs::read(&lock).unwrap(), lock_before);
    assert_eq!(
        fs::metadata(&lock).unwrap().modified().unwrap(),
        written_before,
        "the mirror's Cargo.lock was written again when rust-analyzer started again"
    );
}

/// A small seeded random number generator (xorshift), so that a failing soak can be run again with
/// the seed it printed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// An answer this late is a hang, not a busy machine: the server answers every request it passes
/// to rust-analyzer by its own deadline of 1.5 s (as "content modified" if need be), and that
/// answer was seen to come 1.2 s late on a busy machine. How quickly it answers is measured by the
/// benchmarks (`cargo bench -p litbook --bench lsp` without rust-analyzer, `--bench
/// chapter_requests` with it), not asserted.
const OVERDUE: Duration = Duration::from_secs(15);

/// The chapters a soak edits.
const SOAKED: [&str; 4] = ["input.md", "world.md", "cats-path.md", "graph.md"];

/// An editor typing at random: characters typed and deleted in prose and code, chunk markers broken
/// and mended, chapters opened, saved and closed; asking as it goes, and checking every answer.
struct Soak {
    editor: Editor,
    rng: Rng,
    /// The open chapters: version and text.
    open: BTreeMap<String, (i32, String)>,
    /// Lines broken in a marker: (chapter, the line as broken, the line as it was).
    broken: Vec<(String, String, String)>,
    /// The slowest answer so far.
    slowest: Duration,
    /// How many ranges were checked: in all, against a chunk's name, against the identifier asked about.
    checked: (usize, usize, usize),
}

impl Soak {
    fn text_of(&self, chapter: &str) -> String {
        match self.open.get(chapter) {
            Some((_, text)) => text.clone(),
            None => fs::read_to_string(self.editor.chapters.join(chapter)).unwrap(),
        }
    }

    fn edit(&mut self) {
        let open: Vec<String> = self.open.keys().cloned().collect();
        let chapter = open[self.rng.below(open.len())].clone();
        let (version, mut text) = self.open[&chapter].clone();
        match self.rng.below(10) {
            0..=3 => {
                let typed = ['a', 'x', '{', '}', '(', ';', ' ', '<', '>', '/', '\n', 'é'];
                let at = self.char_boundary(&text);
                text.insert(at, typed[self.rng.below(typed.len())]);
            }
            4 | 5 => {
                let at = self.char_boundary(&text);
                if at < text.len() {
                    text.remove(at);
                }
            }
            6 => {
                let markers: Vec<&str> = text.lines().filter(|l| l.contains("// <<")).collect();
                if !markers.is_empty() {
                    let line = markers[self.rng.below(markers.len())].to_string();
                    let broken = line.replacen(">>", ">", 1);
                    text = text.replacen(&line, &broken, 1);
                    self.broken.push((chapter.clone(), broken, line));
                }
            }
            7 => {
                if let Some(i) = self
                    .broken
                    .iter()
                    .position(|(c, b, _)| *c == chapter && text.contains(b.as_str()))
                {
                    let (_, broken, line) = self.broken.remove(i);
                    text = text.replacen(&broken, &line, 1);
                }
            }
            8 if open.len() > 1 => {
                self.open.remove(&chapter);
                let uri = self.editor.chapter_uri(&chapter);
                self.editor.notify(
                    "textDocument/didClose",
                    json!({"textDocument": {"uri": uri}}),
                );
                return;
            }
            _ => {
                let closed: Vec<&str> = SOAKED
                    .iter()
                    .copied()
                    .filter(|c| !self.open.contains_key(*c))
                    .collect();
                if let Some(&other) = closed.get(self.rng.below(closed.len())) {
                    let opened = self.editor.open(other);
                    self.open.insert(other.to_string(), (1, opened));
                }
                return;
            }
        }
        self.editor.change(&chapter, version + 1, &text);
        self.open.insert(chapter, (version + 1, text));
    }

    /// Saves an open chapter: its text is written and the server told.
    fn save(&mut self) {
        let open: Vec<String> = self.open.keys().cloned().collect();
        let chapter = &open[self.rng.below(open.len())];
        fs::write(self.editor.chapters.join(chapter), &self.open[chapter].1).unwrap();
        let uri = self.editor.chapter_uri(chapter);
        self.editor.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": uri}}),
        );
    }

    fn char_boundary(&mut self, text: &str) -> usize {
        let mut at = self.rng.below(text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    /// Asks about a random place of an open chapter, or about a chunk marker on it, and checks the
    /// answer: it comes (within [`OVERDUE`]), every range in it lies inside its document, and the
    /// answers about a marker land on lines that hold that chunk's name.
    fn ask(&mut self) {
        let open: Vec<String> = self.open.keys().cloned().collect();
        let chapter = open[self.rng.below(open.len())].clone();
        let text = self.open[&chapter].1.clone();
        let lines: Vec<&str> = text.split('\n').collect();
        let markers: Vec<(usize, &str)> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.trim_start().starts_with("// <<") && l.contains(">>"))
            .map(|(n, l)| (n, *l))
            .collect();
        let methods = [
            "textDocument/hover",
            "textDocument/definition",
            "textDocument/references",
            "textDocument/completion",
        ];
        let method = methods[self.rng.below(methods.len())];
        let (position, name) =
            if !markers.is_empty() && self.rng.below(2) == 0 && method != "textDocument/completion"
            {
                let (line, text) = markers[self.rng.below(markers.len())];
                let start = text.find("// <<").unwrap() + 5;
                let character = text[..start].encode_utf16().count() + 1;
                (
                    json!({"line": line, "character": character}),
                    marker_name(text),
                )
            } else {
                let code: Vec<usize> = (0..lines.len())
                    .filter(|&n| lines[n].contains("let ") && !lines[n].contains("<<"))
                    .collect();
                let line = match (code.is_empty(), self.rng.below(2)) {
                    (false, 0) => code[self.rng.below(code.len())],
                    _ => self.rng.below(lines.len()),
                };
                let character = self.rng.below(lines[line].encode_utf16().count() + 1);
                (json!({"line": line, "character": character}), None)
            };
        let uri = self.editor.chapter_uri(&chapter);
        let params = json!({
            "textDocument": {"uri": uri},
            "position": position,
            "context": {"includeDeclaration": true},
        });
        let asked = Instant::now();
        let answer = self.editor.try_request(method, params);
        let took = asked.elapsed();
        self.slowest = self.slowest.max(took);
        assert!(took < OVERDUE, "{method} took {took:?}");
        let Ok(answer) = answer else { return };
        let on_marker = lines[position["line"].as_u64().unwrap() as usize].contains("<<");
        let word = word_at(&lines, &position).filter(|_| !on_marker);
        let book = uri.trim_end_matches(&chapter).to_string();
        for (uri, range) in ranges(&answer, &uri) {
            let Some(chapter) = uri.strip_prefix(&book).map(str::to_string) else {
                continue;
            };
            let text = self.text_of(&chapter);
            let line = range["start"]["line"].as_u64().unwrap() as usize;
            let lines: Vec<&str> = text.split('\n').collect();
            self.checked.0 += 1;
            assert!(
                line < lines.len(),
                "{method} at {position}: line {line} of {chapter} (of {})",
                lines.len()
            );
            let width = lines[line].encode_utf16().count() as u64;
            assert!(
                range["start"]["character"].as_u64().unwrap() <= width,
                "{method} at {position}: {range} on {:?}",
                lines[line]
            );
            if let (None, Some(word), "textDocument/references") = (&name, &word, method) {
                let end = range["end"]["character"].as_u64().unwrap() as usize;
                let start = range["start"]["character"].as_u64().unwrap() as usize;
                let units: Vec<u16> = lines[line].encode_utf16().collect();
                let named =
                    String::from_utf16_lossy(&units[start.min(units.len())..end.min(units.len())]);
                self.checked.2 += 1;
                assert_eq!(
                    &named, word,
                    "references of `{word}` landed on {:?}",
                    lines[line]
                );
            }
            if let (Some(name), "textDocument/definition" | "textDocument/references") =
                (&name, method)
            {
                self.checked.1 += 1;
                assert_eq!(
                    marker_name(lines[line]).as_deref(),
                    Some(name.as_str()),
                    "{method} of ⟨{name}⟩ landed on {:?}",
                    lines[line]
                );
            }
        }
    }
}

/// The chunk a marker line names, read as the book's convention has it: everything between the
/// `<<` after `//` and the line's last `>>`, runs of white space as one space. A name may hold `>>`
/// or `// <<` itself (the soak types such names), so the first `>>` is not the end of it.
fn marker_name(line: &str) -> Option<String> {
    let after = line.trim_start().strip_prefix("//")?.trim_start();
    let body = after.strip_prefix("<<")?;
    let inside = &body[..body.rfind(">>")?];
    Some(inside.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The identifier a position stands in, if it stands in one that is not a keyword.
fn word_at(lines: &[&str], position: &Value) -> Option<String> {
    let line: Vec<char> = lines[position["line"].as_u64()? as usize].chars().collect();
    let units = position["character"].as_u64()? as usize;
    let mut at = 0;
    let mut counted = 0;
    while at < line.len() && counted + line[at].len_utf16() <= units {
        counted += line[at].len_utf16();
        at += 1;
    }
    let is_word = |c: &char| c.is_alphanumeric() || *c == '_';
    if !line.get(at).is_some_and(is_word) {
        return None;
    }
    let start = (0..=at).rev().take_while(|&i| is_word(&line[i])).last()?;
    let end = (at..line.len()).take_while(|&i| is_word(&line[i])).last()? + 1;
    let word: String = line[start..end].iter().collect();
    let keyword = [
        "fn", "let", "mut", "pub", "use", "mod", "impl", "self", "Self", "crate", "super", "for",
        "in", "if", "else", "match", "return", "struct", "enum", "const", "static", "type",
        "where", "as", "ref", "move", "loop", "while", "break", "continue", "true", "false", "dyn",
        "trait", "unsafe", "async", "await",
    ];
    let plain =
        !word.starts_with(|c: char| c.is_ascii_digit()) && !keyword.contains(&word.as_str());
    plain.then_some(word)
}

/// Every (uri, range) an answer holds: of locations, location links, a hover, completion edits.
fn ranges(answer: &Value, asked: &str) -> Vec<(String, Value)> {
    let mut found = Vec::new();
    let mut stack = vec![answer];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                let uri = map
                    .get("uri")
                    .or(map.get("targetUri"))
                    .and_then(Value::as_str);
                let range = map.get("range").or(map.get("targetSelectionRange"));
                if let Some(range) = range.filter(|r| r.get("start").is_some()) {
                    found.push((uri.unwrap_or(asked).to_string(), range.clone()));
                }
                for (key, inner) in map {
                    if key != "range" && key != "targetSelectionRange" {
                        stack.push(inner);
                    }
                }
            }
            _ => {}
        }
    }
    found
}

/// The diagnostics last published for each chapter, once the server has answered a request sent
/// after every edit (so that it has tangled the book as it is).
fn settled_diagnostics(editor: &mut Editor) -> BTreeMap<String, Vec<Value>> {
    let uri = editor.chapter_uri("input.md");
    editor.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    last_published(editor, |_, d| (d["source"] == "litbook").then(|| d.clone()))
}

/// The diagnostics last published for each chapter that are not the tangler's (rust-analyzer's and
/// cargo check's), as `line:character: message`, once every message that has come is read.
fn analyzer_diagnostics(editor: &mut Editor) -> BTreeMap<String, BTreeSet<String>> {
    read_what_came(editor);
    last_published(editor, |_, d| {
        let start = &d["range"]["start"];
        let (line, character) = (&start["line"], &start["character"]);
        (d["source"] != "litbook").then(|| format!("{line}:{character}: {}", d["message"]))
    })
}

/// Reads every message that has come, until none comes for 50 ms.
fn read_what_came(editor: &mut Editor) {
    while editor
        .next_message(Instant::now() + Duration::from_millis(50))
        .is_some()
    {}
}

/// How long no diagnostics must come for rust-analyzer's own to be taken as all published: it
/// works them out for the open files apart from any check, and says nothing when it is done.
const DIAGNOSTICS_QUIET: Duration = Duration::from_secs(3);

/// Every diagnostic published for each chapter, as `line:character source: message`, once
/// rust-analyzer answers, the `cargo check` asked for by a save has published its diagnostics, with
/// no other work going, and then no diagnostics have come for [`DIAGNOSTICS_QUIET`] (rust-analyzer's
/// own); none may say that rust-analyzer left a tangled file out of the crate.
fn settled_analysis(editor: &mut Editor) -> BTreeMap<String, BTreeSet<String>> {
    let input = editor.chapter_uri("input.md");
    let text = fs::read_to_string(editor.chapters.join("input.md")).unwrap();
    let call = position(&text, "build_bfs_table(world", 0, 3);
    let hover = json!({"textDocument": {"uri": input}, "position": call});
    editor.hover_once_answered(&hover, "rust-analyzer did not load");
    let deadline = Instant::now() + LOADING;
    let from = editor.notifications.len();
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": input}}),
    );
    loop {
        let (going, checked) = editor.progress_since(from);
        if checked && going.is_empty() {
            break;
        }
        assert!(
            editor.next_message(deadline).is_some(),
            "rust-analyzer did not check the book after a save within {LOADING:?}"
        );
    }
    let mut quiet_from = Instant::now();
    while quiet_from.elapsed() < DIAGNOSTICS_QUIET {
        let seen = editor.notifications.len();
        editor.next_message(quiet_from + DIAGNOSTICS_QUIET);
        let published = editor.notifications[seen.min(editor.notifications.len())..]
            .iter()
            .any(|n| n.method == "textDocument/publishDiagnostics");
        if published {
            quiet_from = Instant::now();
        }
        assert!(
            Instant::now() < deadline,
            "rust-analyzer's diagnostics did not settle within {LOADING:?}"
        );
    }
    last_published(editor, |uri, d| {
        assert_ne!(d["code"], "unlinked-file", "in {uri}: {d}");
        let start = &d["range"]["start"];
        let (line, character) = (&start["line"], &start["character"]);
        Some(format!(
            "{line}:{character} {}: {}",
            d["source"], d["message"]
        ))
    })
}

/// The diagnostics last published for each chapter that has some, each as `take` makes it of the
/// chapter's URI and the diagnostic (`None` leaves it out).
fn last_published<T, C: FromIterator<T>>(
    editor: &Editor,
    take: impl Fn(&str, &Value) -> Option<T>,
) -> BTreeMap<String, C> {
    let mut last = BTreeMap::new();
    for notification in &editor.notifications {
        if notification.method == "textDocument/publishDiagnostics" {
            let uri = notification.params["uri"].as_str().unwrap();
            let diagnostics = notification.params["diagnostics"].as_array().unwrap();
            let taken: Vec<T> = diagnostics.iter().filter_map(|d| take(uri, d)).collect();
            last.insert(uri.to_string(), taken);
        }
    }
    last.into_iter()
        .filter(|(_, taken)| !taken.is_empty())
        .map(|(uri, taken)| (uri, taken.into_iter().collect()))
        .collect()
}

/// The seeds that once made the soak without rust-analyzer fail (a marker line whose chunk name
/// holds `>>` and `// <<`, read two ways by the soak's own checks).
const SOAK_FAILED_WITH: [u64; 1] = [1795782807258632567];
/// The seeds that once made the soak with rust-analyzer fail: the first two, its files left outside
/// the crate's module tree after a restart, before the server waited for it to load; then, now and
/// then, a diagnostic of `cargo check` missing after restarts, before the server asked for every
/// check. The third, a closed chapter typed back after the last keystroke, which the server did not
/// read again before the soak's last save. The fourth, a whole check of the fresh server without
/// cargo check's error at `env!("OUT_DIR")` in `web.md`, which the soaked server's check had (why,
/// not found); now that the mirror has an `OUT_DIR`, no check raises that error. The fifth, on a
/// machine also compiling a benchmark, rust-analyzer's own type error in `input.md` still to come
/// when the soaked server had been quiet for `DIAGNOSTICS_QUIET`; the soak now waits for it.
const ANALYZER_SOAK_FAILED_WITH: [u64; 5] = [
    1795708815847578339,
    1795696786532038153,
    1795885874651973341,
    1795892023312617543,
    1795898690241697207,
];

/// The seeds a soak runs, in order: the one `LITBOOK_SOAK_SEED` names alone; else every seed that
/// once failed it, or, given `LITBOOK_SOAK_TURN`, the one that number picks (the soak with
/// rust-analyzer takes two minutes a seed, so CI runs one of its seeds a commit, picked by the
/// commit's hash, and so all of them, by chance, over commits); then, except under `CI=true`, a new one from the
/// clock, so that each run on a developer's machine explores a little more, while CI, which must
/// not fail by the draw, runs the same seeds for the same commit every time. A seed that fails is
/// printed, and belongs in the list once its bug is fixed.
fn soak_seeds(failed_with: &[u64]) -> Vec<u64> {
    if let Ok(seed) = std::env::var("LITBOOK_SOAK_SEED") {
        return vec![seed.parse().expect("LITBOOK_SOAK_SEED is a number")];
    }
    let mut seeds = failed_with.to_vec();
    if let Ok(turn) = std::env::var("LITBOOK_SOAK_TURN") {
        let turn: u64 = turn.parse().expect("LITBOOK_SOAK_TURN is a number");
        let seed = failed_with[(turn % failed_with.len() as u64) as usize];
        eprintln!(
            "soak: seed {seed}, the turn of LITBOOK_SOAK_TURN={turn} among the {} seeds that once failed it",
            failed_with.len()
        );
        seeds = vec![seed];
    }
    if std::env::var("CI").as_deref() != Ok("true") {
        let clock = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        seeds.push(clock.as_nanos() as u64 | 1);
    }
    seeds
}

/// Says at which edit a soak failed, should it fail: a seed that fails only late is cheap to run
/// again with as many edits (`LITBOOK_SOAK_EDITS`).
struct AtEdit(usize);

impl Drop for AtEdit {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("soak: failed at edit {} of its seed", self.0 + 1);
        }
    }
}

/// How many edits a soak makes: `LITBOOK_SOAK_EDITS`, or `usual`. The usual sizes keep the soaks
/// within CI's budget: 2,000 edits without rust-analyzer (the seed that failed it did so at its
/// 780th), 1,000 with it (as many as when its seeds failed). Longer runs are a developer's to
/// start, with `LITBOOK_SOAK_EDITS=10000`.
fn soak_edits(usual: usize) -> usize {
    std::env::var("LITBOOK_SOAK_EDITS").map_or(usual, |n| n.parse().expect("a number"))
}

/// Types, asks and checks `edits` times from `seed` on a copy of the crate, killing rust-analyzer
/// `kills` times along the way if it runs; then the tangler's diagnostics must be those a server
/// started afresh on the chapters as they ended gives. With rust-analyzer, the chapters are then typed (or, closed,
/// written) back to what they were, with one type error in `input.md`, and saved; every diagnostic,
/// rust-analyzer's and `cargo check`'s included, must be what a server started afresh (once the
/// soaked one has shut down, as an editor restarts its server) gives on them.
fn soak(seed: u64, edits: usize, analyzer: bool, kills: usize) {
    let copy = copy_of_the_crate();
    let missing = std::ffi::OsStr::new("/nonexistent/rust-analyzer");
    let editor = if analyzer {
        editor_with_rust_analyzer(copy.path()).0
    } else {
        Editor::start(copy.path(), &[("LITBOOK_RUST_ANALYZER", missing)])
    };
    eprintln!("soak: {edits} edits, seed {seed} (LITBOOK_SOAK_SEED={seed} runs it again)");
    let mut soak = Soak {
        editor,
        rng: Rng(seed),
        open: BTreeMap::new(),
        broken: Vec::new(),
        slowest: Duration::ZERO,
        checked: (0, 0, 0),
    };
    let opened = soak.editor.open("input.md");
    soak.open.insert("input.md".into(), (1, opened));
    let started = Instant::now();
    for n in 0..edits {
        let _at = AtEdit(n);
        soak.edit();
        if soak.rng.below(2) == 0 {
            soak.ask();
        }
        if soak.rng.below(50) == 0 {
            soak.save();
        }
        let kill_now = analyzer && kills > 0 && n > 0 && n % (edits / (kills + 1)).max(1) == 0;
        if kill_now && let Some(pid) = analyzer_pid(soak.editor.server.id()) {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
    }
    let soaked = settled_diagnostics(&mut soak.editor);
    eprintln!(
        "soak: {edits} edits in {:?}, slowest answer {:?}; {} ranges checked, {} against a chunk's name, {} against an identifier; {} chapter(s) end with problems",
        started.elapsed(),
        soak.slowest,
        soak.checked.0,
        soak.checked.1,
        soak.checked.2,
        soaked.len()
    );
    assert!(
        soak.checked.0 > edits / 10,
        "too few answers had ranges to check"
    );
    let chapters = copy.path().join("book/src");
    for (chapter, (_, text)) in &soak.open {
        fs::write(chapters.join(chapter), text).unwrap();
    }
    let mut fresh = Editor::start(copy.path(), &[("LITBOOK_RUST_ANALYZER", missing)]);
    assert_eq!(soaked, settled_diagnostics(&mut fresh), "seed {seed}");
    drop(fresh);
    if analyzer {
        let original = real_crate().join("book/src");
        soak.open.entry("input.md".into()).or_insert_with(|| {
            let text = soak.editor.open("input.md");
            (1, text)
        });
        // Every chapter is written before the open ones are typed back, so that the last
        // keystroke finds the closed ones on disk as they now are (one written after it would
        // be read at the next keystroke or save only).
        let mut typed_back = Vec::new();
        let mut wrong = Value::Null;
        for chapter in SOAKED {
            let mut text = fs::read_to_string(original.join(chapter)).unwrap();
            if chapter == "input.md" {
                (text, wrong) = with_a_type_error(&text);
            }
            fs::write(chapters.join(chapter), &text).unwrap();
            typed_back.push((chapter, text));
        }
        for (chapter, text) in typed_back {
            if let Some((version, _)) = soak.open.get(chapter) {
                soak.editor.change(chapter, version + 1, &text);
            }
        }
        let from = soak.editor.notifications.len();
        let own_error = |d: &[Value]| analyzers_own_error_at(d, &wrong);
        until_last_published(&mut soak.editor, "input.md", own_error);
        let soaked = settled_analysis(&mut soak.editor);
        let input = soak.editor.chapter_uri("input.md");
        assert!(
            soaked
                .get(&input)
                .is_some_and(|d| d.iter().any(|d| d.contains("mismatched types"))),
            "the type error typed into input.md is not among {soaked:?}; since the chapters were typed back: {}",
            soak.editor.history_since(from, &input)
        );
        soak.editor.shut_down();
        let mut fresh = editor_with_rust_analyzer(copy.path()).0;
        for chapter in soak.open.keys().filter(|c| *c != "input.md") {
            fresh.open(chapter);
        }
        until_last_published(&mut fresh, "input.md", own_error);
        assert_eq!(soaked, settled_analysis(&mut fresh), "seed {seed}");
    }
}

#[test]
#[ignore = "long, 2,000 edits a seed: bash .ci/run runs it"]
fn a_soak_of_random_edits_gets_every_answer_in_time_and_in_place() {
    for seed in soak_seeds(&SOAK_FAILED_WITH) {
        soak(seed, soak_edits(2_000), false, 0);
    }
}

#[test]
#[ignore = "needs rust-analyzer on PATH: bash .ci/run installs it"]
fn a_soak_with_rust_analyzer_killed_along_the_way() {
    for seed in soak_seeds(&ANALYZER_SOAK_FAILED_WITH) {
        soak(seed, soak_edits(1_000), true, 3);
    }
}

#[test]
#[ignore = "needs rust-analyzer on PATH: bash .ci/run installs it"]
fn a_module_nested_in_the_library_shell_still_gets_its_type_errors() {
    let copy = copy_of_the_crate();
    let lib = copy.path().join("src/lib.rs");
    let shell = fs::read_to_string(&lib).unwrap();
    let flat = "pub mod input {\n    include!(concat!(env!(\"OUT_DIR\"), \"/input.rs\"));\n}\n";
    let nested = "pub mod controls {\n    /// Keys and the mouse.\n    pub mod input {\n        include!(concat!(env!(\"OUT_DIR\"), \"/input.rs\"));\n    }\n}\npub use controls::input;\n";
    assert!(shell.contains(flat), "src/lib.rs has the input module");
    fs::write(&lib, shell.replacen(flat, nested, 1)).unwrap();
    let (mut editor, text) = editor_with_rust_analyzer(copy.path());
    let (broken, wrong) = with_a_type_error(&text);
    editor.change("input.md", 2, &broken);
    editor.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": editor.chapter_uri("input.md")}}),
    );
    editor.diagnostics("input.md", LOADING, |diagnostics| {
        mismatched_types_at(diagnostics, &wrong)
    });
}
