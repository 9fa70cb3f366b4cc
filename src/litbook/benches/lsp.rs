//! How long the language server takes over a keystroke in a chapter of the Chat Noir book: the
//! editor's `didChange` of `input.md`, then a request that needs the book as changed (the chapter's
//! outline, which the server answers itself), until its answer. The server runs on an in-memory
//! connection, without rust-analyzer (what it adds, handing the changed files over, is a channel send
//! per file and the mirror's write).

use std::path::{Path, PathBuf};
use std::thread;

use lsp_server::{Connection, Message, Notification, Request};
use serde_json::{Value, json};

fn main() {
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
}

impl Editor {
    fn start() -> Editor {
        // SAFETY: set before the server's thread starts, and read only by it.
        unsafe { std::env::set_var("LITBOOK_RUST_ANALYZER", "/nonexistent/rust-analyzer") };
        let (server, editor) = Connection::memory();
        let dir = crate_dir();
        thread::spawn(move || litbook::lsp::serve_book(server, &dir, json!({})));
        Editor {
            connection: editor,
            next_id: 1,
        }
    }

    fn notify(&self, method: &str, params: Value) {
        let message = Notification::new(method.into(), params).into();
        self.connection.sender.send(message).unwrap();
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
                _ => {}
            }
        }
    }
}

#[divan::bench(sample_count = 200)]
fn a_keystroke_in_input_md(bencher: divan::Bencher) {
    let mut editor = Editor::start();
    let path = crate_dir().join("book/src/input.md");
    let uri = format!("file://{}", path.display());
    let text = std::fs::read_to_string(&path).unwrap();
    let document = json!({"uri": uri, "languageId": "markdown", "version": 1, "text": text});
    editor.notify("textDocument/didOpen", json!({"textDocument": document}));
    let outline = json!({"textDocument": {"uri": uri}});
    let mut version = 1;
    bencher.bench_local(|| {
        version += 1;
        let typed = format!("{text}{}", "x".repeat(version % 2));
        let document = json!({"uri": uri, "version": version});
        let changes = json!([{"text": typed}]);
        editor.notify(
            "textDocument/didChange",
            json!({"textDocument": document, "contentChanges": changes}),
        );
        editor.request("textDocument/documentSymbol", outline.clone())
    });
}
