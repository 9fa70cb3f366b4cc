//! `literate lsp` as an editor meets it: the real server started as a process and spoken to in
//! JSON-RPC over its standard input and output, on the real book. Without rust-analyzer it answers
//! about chunks and the tangler's problems; with the real rust-analyzer behind it (the ignored tests,
//! which `bash .ci/run` runs after installing one) it answers about the Rust in the chapters.

use std::collections::BTreeSet;
use std::fs;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use literate::{SourceText, Web, chapter_links};
use lsp_server::{Message, Notification, Request, Response, ResponseError};
use serde_json::{Value, json};

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

/// An editor's side of a connection to `literate lsp`.
struct Editor {
    server: Child,
    stdin: ChildStdin,
    messages: Receiver<Message>,
    next_id: i32,
    notifications: Vec<Notification>,
    crate_dir: PathBuf,
}

impl Editor {
    /// Starts the server in `crate_dir` with `env` added, and initializes it. What the server and
    /// rust-analyzer write to their standard error goes to `target/tmp/lsp-server.log`.
    fn start(crate_dir: &Path, env: &[(&str, &std::ffi::OsStr)]) -> Editor {
        let mut server = Command::new(env!("CARGO_BIN_EXE_literate"))
            .arg("lsp")
            .current_dir(crate_dir)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(server_log())
            .spawn()
            .expect("literate lsp starts");
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
            crate_dir: crate_dir.to_path_buf(),
        };
        let capabilities = json!({"textDocument": {
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "completion": {"completionItem": {"snippetSupport": false}},
        }});
        let root = uri(crate_dir);
        editor.request(
            "initialize",
            json!({"processId": null, "rootUri": root, "capabilities": capabilities}),
        );
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
        uri(&self.crate_dir.join("book/src").join(chapter))
    }

    /// Opens a chapter as it is on disk, and returns its text.
    fn open(&mut self, chapter: &str) -> String {
        let text = fs::read_to_string(self.crate_dir.join("book/src").join(chapter)).unwrap();
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
    let mut editor = Editor::start(&real_crate(), &[("LITERATE_RUST_ANALYZER", missing)]);
    let text = editor.open("input.md");
    let shown = editor.wait_for(ANSWER, |n| n.method == "window/showMessage");
    let message = shown.params["message"].as_str().unwrap();
    assert!(message.starts_with("no rust-analyzer"), "{message}");
    assert!(message.contains("/nonexistent/rust-analyzer"), "{message}");
    assert!(
        message.contains("cargo +nightly install ra_ap_rust-analyzer"),
        "{message}"
    );

    let reference = position(&text, "// <<key presses>>\n", 0, 8);
    let definition = editor.at("textDocument/definition", "input.md", reference.clone());
    let header = position(&text, "// <<key presses>>=", 0, 0);
    assert_eq!(definition[0]["uri"], editor.chapter_uri("input.md"));
    assert_eq!(definition[0]["range"]["start"]["line"], header["line"]);

    let hover = editor.at("textDocument/hover", "input.md", reference);
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("pub enum KeyPress"), "{shown}");

    let symbols = editor.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": editor.chapter_uri("input.md")}}),
    );
    let names = texts(&symbols, "name");
    assert!(names.contains(&"⟨key presses⟩"), "{names:?}");

    let typing = text.replacen("// <<key presses>>\n", "// <<key pr\n", 1);
    editor.change("input.md", 2, &typing);
    let typed = position(&typing, "// <<key pr\n", 0, 11);
    let completion = editor.at("textDocument/completion", "input.md", typed);
    let labels = texts(&completion["items"], "label");
    assert_eq!(labels.first(), Some(&"key presses"), "{labels:?}");

    let misspelt = text.replacen("// <<key presses>>\n", "// <<key presess>>\n", 1);
    editor.change("input.md", 3, &misspelt);
    let line = line_of(&position(&misspelt, "// <<key presess>>\n", 0, 0));
    let undefined = |d: &Value| {
        let message = d["message"].as_str().unwrap_or_default();
        message.contains("undefined chunk ⟨key presess⟩")
    };
    let problems = editor.diagnostics("input.md", ANSWER, |d| d.iter().any(undefined));
    let undefined = problems.iter().find(|d| undefined(d)).unwrap();
    assert_eq!(undefined["range"]["start"]["line"], line);
    editor.change("input.md", 4, &text);
    editor.diagnostics("input.md", ANSWER, <[Value]>::is_empty);
}

#[test]
fn a_chapter_changed_on_disk_while_closed_counts_at_the_next_keystroke() {
    let copy = copy_of_the_crate();
    let missing = std::ffi::OsStr::new("/nonexistent/rust-analyzer");
    let mut editor = Editor::start(copy.path(), &[("LITERATE_RUST_ANALYZER", missing)]);
    let text = editor.open("input.md");
    editor.change("input.md", 2, &format!("{text}\nTyped."));
    let world = copy.path().join("book/src/world.md");
    let on_disk = fs::read_to_string(&world).unwrap();
    let reference = "\n// <<a position on the board>>\n";
    let broken = on_disk.replacen(reference, "\n// <<no such chunk>>\n", 1);
    assert_ne!(broken, on_disk, "world.md has the reference");
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
    editor.diagnostics("world.md", ANSWER, undefined);
    fs::write(&world, &on_disk).unwrap();
    editor.change("input.md", 4, &format!("{text}\n"));
    editor.diagnostics("world.md", ANSWER, <[Value]>::is_empty);
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

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("make a directory");
    for entry in fs::read_dir(from).expect("read a directory").flatten() {
        let (path, name) = (entry.path(), entry.file_name());
        if name == "target" || name == "fuzz" {
            continue;
        } else if path.is_dir() {
            copy_tree(&path, &to.join(name));
        } else {
            fs::copy(&path, to.join(name)).expect("copy a file");
        }
    }
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
    let world = fs::read_to_string(copy.path().join("book/src/world.md")).unwrap();
    assert_eq!(
        definition[0]["uri"],
        editor.chapter_uri("world.md"),
        "{definition}"
    );
    let defined = position(&world, "pub struct Posn", 0, 0);
    assert_eq!(definition[0]["range"]["start"]["line"], defined["line"]);

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

#[test]
#[ignore = "needs rust-analyzer on PATH: bash .ci/run installs it"]
fn type_errors_show_where_the_code_is_written_and_rename_edits_every_chapter() {
    let copy = copy_of_the_crate();
    let (mut editor, text) = editor_with_rust_analyzer(copy.path());

    let broken = text.replacen(
        "build_bfs_table(world, Node::Boundary)",
        "build_bfs_table(world, 7u8)",
        1,
    );
    let wrong = position(&broken, "7u8", 0, 0);
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
    let broken = text.replacen(
        "build_bfs_table(world, Node::Boundary)",
        "build_bfs_table(world, 7u8)",
        1,
    );
    let wrong = position(&broken, "7u8", 0, 0);
    let mismatched = move |diagnostics: &[Value]| {
        diagnostics
            .iter()
            .any(|d| d["range"]["start"] == wrong && d["source"] != "literate")
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
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        match editor.next_message(deadline) {
            Some(Message::Response(response)) if response.id == id.into() => break,
            Some(_) => {}
            None => panic!("the request on its way was not answered within 3 s"),
        }
    }
    editor.diagnostics("input.md", Duration::from_secs(3), |d| d.is_empty());
    editor.wait_for(Duration::from_secs(3), |n| {
        n.method == "window/showMessage"
            && n.params["message"]
                .as_str()
                .is_some_and(|m| m.contains("starting it again"))
    });

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
    let deadline = Instant::now() + LOADING;
    while editor
        .try_request("textDocument/hover", hover.clone())
        .map_or(true, |answer| answer.is_null())
    {
        assert!(Instant::now() < deadline, "rust-analyzer did not come back");
        std::thread::sleep(Duration::from_millis(500));
    }
    editor.notify("textDocument/didSave", save);
    editor.diagnostics("input.md", LOADING, mismatched);
}
