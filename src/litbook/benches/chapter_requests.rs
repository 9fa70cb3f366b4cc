//! How long the language server takes, with the real rust-analyzer loaded and warm, over the
//! requests about a whole chapter that an editor sends as it shows one (inlay hints and semantic
//! tokens of the longest chapter, `solver-tests.md`), and over a code action's edit in `input.md`.
//! The server runs on an in-memory connection; rust-analyzer is the first on `PATH` (`bash .ci/run`
//! installs Debian's). Without one, nothing is measured and the benchmark says so.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use lsp_server::{Connection, Message, Notification, Request};
use serde_json::{Value, json};

fn main() {
    if litbook::lsp::find_rust_analyzer().is_err() {
        eprintln!("chapter_requests: no rust-analyzer on PATH, so nothing is measured");
        return;
    }
    divan::main();
}

fn crate_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

struct Editor {
    connection: Connection,
    next_id: i32,
    /// The work rust-analyzer has begun and not ended (loading, indexing, `cargo check`), by token.
    going: BTreeSet<String>,
}

impl Editor {
    /// A server on the book with rust-analyzer loaded and warm: it has answered a hover in
    /// `input.md`, and the work rust-analyzer began after loading (indexing, its first `cargo
    /// check`) has ended, with nothing begun for 3 s.
    fn loaded() -> Editor {
        let (server, editor) = Connection::memory();
        let dir = crate_dir();
        let capabilities = json!({"window": {"workDoneProgress": true}});
        thread::spawn(move || litbook::lsp::serve_book(server, &dir, capabilities));
        let mut editor = Editor {
            connection: editor,
            next_id: 1,
            going: BTreeSet::new(),
        };
        let text = editor.open("input.md");
        let line = text
            .lines()
            .position(|l| l.contains("build_bfs_table(world"))
            .unwrap();
        let at = json!({"line": line, "character": 8});
        let deadline = Instant::now() + Duration::from_secs(900);
        while editor
            .at("textDocument/hover", "input.md", at.clone())
            .is_null()
        {
            assert!(Instant::now() < deadline, "rust-analyzer did not load");
            thread::sleep(Duration::from_millis(500));
        }
        let quiet = Duration::from_secs(3);
        loop {
            match editor.connection.receiver.recv_timeout(quiet) {
                Ok(message) => editor.note(&message),
                Err(_) if editor.going.is_empty() => return editor,
                Err(_) => {}
            }
            assert!(Instant::now() < deadline, "rust-analyzer did not settle");
        }
    }

    /// Keeps track of the work rust-analyzer reports.
    fn note(&mut self, message: &Message) {
        let Message::Notification(notification) = message else {
            return;
        };
        if notification.method != "$/progress" {
            return;
        }
        let token = notification.params["token"].to_string();
        match notification.params["value"]["kind"].as_str() {
            Some("begin") => self.going.insert(token),
            Some("end") => self.going.remove(&token),
            _ => false,
        };
    }

    fn uri(chapter: &str) -> String {
        format!(
            "file://{}",
            crate_dir().join("book/src").join(chapter).display()
        )
    }

    fn open(&mut self, chapter: &str) -> String {
        let path = crate_dir().join("book/src").join(chapter);
        let text = std::fs::read_to_string(path).unwrap();
        let document = json!({"uri": Editor::uri(chapter), "languageId": "markdown", "version": 1, "text": text});
        let message = Notification::new(
            "textDocument/didOpen".into(),
            json!({"textDocument": document}),
        );
        self.connection.sender.send(message.into()).unwrap();
        text
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let message = Request::new(id.into(), method.into(), params).into();
        self.connection.sender.send(message).unwrap();
        loop {
            match self.connection.receiver.recv().unwrap() {
                Message::Response(response) if response.id == id.into() => {
                    return response.result.unwrap_or(Value::Null);
                }
                message => self.note(&message),
            }
        }
    }

    fn at(&mut self, method: &str, chapter: &str, position: Value) -> Value {
        let params = json!({"textDocument": {"uri": Editor::uri(chapter)}, "position": position});
        self.request(method, params)
    }
}

#[divan::bench(sample_count = 30)]
fn inlay_hints_of_the_longest_chapter(bencher: divan::Bencher) {
    let mut editor = Editor::loaded();
    let text = editor.open("solver-tests.md");
    let end = json!({"line": text.lines().count(), "character": 0});
    let range = json!({"start": {"line": 0, "character": 0}, "end": end});
    let params = json!({"textDocument": {"uri": Editor::uri("solver-tests.md")}, "range": range});
    bencher.bench_local(|| editor.request("textDocument/inlayHint", params.clone()));
}

#[divan::bench(sample_count = 30)]
fn semantic_tokens_of_the_longest_chapter(bencher: divan::Bencher) {
    let mut editor = Editor::loaded();
    editor.open("solver-tests.md");
    let params = json!({"textDocument": {"uri": Editor::uri("solver-tests.md")}});
    bencher.bench_local(|| editor.request("textDocument/semanticTokens/full", params.clone()));
}

#[divan::bench(sample_count = 30)]
fn a_code_action_s_edit_in_input_md(bencher: divan::Bencher) {
    let mut editor = Editor::loaded();
    let text = editor.open("input.md");
    let line = text
        .lines()
        .position(|l| l.contains("scores: &[Distance]"))
        .unwrap();
    let at = json!({"line": line, "character": 55});
    let range = json!({"start": at, "end": at});
    let params = json!({"textDocument": {"uri": Editor::uri("input.md")}, "range": range, "context": {"diagnostics": []}});
    bencher.bench_local(|| editor.request("textDocument/codeAction", params.clone()));
}

#[divan::bench(sample_count = 30)]
fn inlay_hints_of_a_screenful_of_the_longest_chapter(bencher: divan::Bencher) {
    let mut editor = Editor::loaded();
    editor.open("solver-tests.md");
    let range =
        json!({"start": {"line": 1000, "character": 0}, "end": {"line": 1060, "character": 0}});
    let params = json!({"textDocument": {"uri": Editor::uri("solver-tests.md")}, "range": range});
    bencher.bench_local(|| editor.request("textDocument/inlayHint", params.clone()));
}
