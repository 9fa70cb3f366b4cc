//! `litbook lsp`: a language server for the book's chapters. It tangles the book from the editor's
//! unsaved texts on every change, keeps the tangled files in a mirror workspace under `target/`,
//! runs rust-analyzer on the mirror, and passes each request and answer between the two through the
//! tangler's line maps. Chunk markers it answers itself.

mod actions;
mod analyzer;
mod analyzer_settings;
mod book;
mod checks;
mod chunk_answers;
mod chunks;
mod diagnostics;
mod editor;
mod formatting;
mod forward;
mod hints;
mod methods;
mod mirror;
mod pending;
mod positions;
mod progress;
mod rewrite;
mod run_test;
mod rust_analyzer;
mod server;
mod structure;
mod tokens;
mod uri;

use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use lsp_server::{Connection, ErrorCode, Message, RequestId, Response, ResponseError};
use serde_json::{Value, json};

use crate::Project;

pub use analyzer::find_rust_analyzer;
pub use mirror::MIRROR_DIR;

/// Serves the editor on standard input and output until it shuts the server down.
pub fn run() -> ExitCode {
    let (connection, io_threads) = Connection::stdio();
    let served = serve(connection);
    // A server that stops for a reason of its own does not wait for the editor to close its side:
    // the reader, blocked on the editor's next message, ends with the process.
    let read = match served {
        Err(Stopped::Because(_)) => Ok(()),
        _ => io_threads.join(),
    };
    wait_for_the_writer();
    let why = match (served, read) {
        (Ok(()), Ok(())) => return ExitCode::SUCCESS,
        (Err(Stopped::Because(why)), _) => why,
        (_, Err(unreadable)) if unreadable.kind() == ErrorKind::InvalidData => {
            answer_unreadable(&unreadable);
            format!("cannot read the editor's messages: {unreadable}")
        }
        (_, Err(unreadable)) => format!("cannot read the editor's messages: {unreadable}"),
        (Err(Stopped::EditorGone), Ok(())) => {
            "the editor closed the connection before it initialized the server".to_string()
        }
    };
    eprintln!("litbook lsp: stopped: {why}");
    ExitCode::FAILURE
}

/// Waits until every message the server sent is written out. lsp_server's writer (0.7.9) holds
/// standard output locked until it has written them all and ends, once the connection is dropped.
/// Joining the connection's threads waits for it only when the reader ended well, and a server that
/// stops for a reason of its own does not join them: without this wait, its refusal of `initialize`
/// could be lost as the process ended. A test in `tests/usage.rs` would see a later lsp_server lose
/// it again.
fn wait_for_the_writer() {
    drop(std::io::stdout().lock());
}

/// Tells the editor, as JSON-RPC asks of a message that cannot be read (a malformed header, JSON
/// that does not parse), with a ParseError that answers no request (`id: null`); the connection is
/// over either way. Its reader has stopped, so the answer is written to standard output directly,
/// after everything its writer wrote.
fn answer_unreadable(error: &std::io::Error) {
    let answer = json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": ErrorCode::ParseError as i32,
            "message": format!("litbook lsp cannot read this message: {error}"),
        },
    })
    .to_string();
    let mut stdout = std::io::stdout().lock();
    // An editor that is gone hears nothing either way; the reason is also said on stderr.
    let _ = write!(stdout, "Content-Length: {}\r\n\r\n{answer}", answer.len());
    let _ = stdout.flush();
}

/// Why the server stopped before the editor shut it down.
enum Stopped {
    /// The editor's side of the connection is gone; the reason, if there is one, is the reader
    /// thread's.
    EditorGone,
    Because(String),
}

fn serve(connection: Connection) -> Result<(), Stopped> {
    let (id, params) = connection.initialize_start().map_err(|e| {
        if e.channel_is_disconnected() {
            Stopped::EditorGone
        } else {
            Stopped::Because(e.to_string())
        }
    })?;
    let project = match project(&params) {
        Ok(project) => project,
        Err(why) => {
            refuse_to_initialize(&connection, id, &why);
            return Err(Stopped::Because(why));
        }
    };
    let result = json!({
        "capabilities": capabilities(),
        "serverInfo": {"name": "litbook lsp", "version": env!("CARGO_PKG_VERSION")},
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| Stopped::Because(e.to_string()))?;
    let capabilities = params["capabilities"].clone();
    server::Server::new(editor::Editor::new(connection), project, capabilities)
        .serve()
        .map_err(|why| Stopped::Because(format!("{why:#}")))
}

/// Answers the editor's `initialize` with an error that says why there is nothing to serve (no book
/// here), for the editor to show its user, and that trying again will not help.
fn refuse_to_initialize(connection: &Connection, id: RequestId, why: &str) {
    let error = ResponseError {
        code: ErrorCode::RequestFailed as i32,
        message: format!("litbook lsp: {why}"),
        data: Some(json!({"retry": false})),
    };
    let answer = Response {
        id,
        result: None,
        error: Some(error),
    };
    // An editor that is gone hears nothing either way; the reason is also said on stderr.
    let _ = connection.sender.send(Message::Response(answer));
}

/// Serves the book of the crate in `crate_dir` on an initialized connection, for an editor with
/// `capabilities`, until it shuts the server down. [`run`] stands on this; a benchmark can run it on
/// an in-memory connection.
pub fn serve_book(
    connection: Connection,
    crate_dir: &Path,
    capabilities: Value,
) -> anyhow::Result<()> {
    let project = Project::open(crate_dir)?;
    server::Server::new(editor::Editor::new(connection), project, capabilities).serve()
}

/// What the server can do for an editor.
fn capabilities() -> Value {
    json!({
        "textDocumentSync": {"openClose": true, "change": 1, "save": true},
        "hoverProvider": true,
        "definitionProvider": true,
        "typeDefinitionProvider": true,
        "implementationProvider": true,
        "referencesProvider": true,
        "documentHighlightProvider": true,
        "completionProvider": {"triggerCharacters": [".", ":", "<"]},
        "signatureHelpProvider": {"triggerCharacters": ["(", ","]},
        "renameProvider": {"prepareProvider": true},
        "documentSymbolProvider": true,
        "workspaceSymbolProvider": true,
        "foldingRangeProvider": true,
        "selectionRangeProvider": true,
        "callHierarchyProvider": true,
        "codeActionProvider": true,
        "documentFormattingProvider": true,
        "documentRangeFormattingProvider": true,
        "inlayHintProvider": true,
        "codeLensProvider": {"resolveProvider": false},
        "executeCommandProvider": {"commands": [run_test::RUN_TEST]},
        "semanticTokensProvider": {"legend": tokens::legend(), "full": {"delta": true}},
    })
}

/// The crate whose book the editor edits: the nearest, from the editor's workspace (or the
/// server's working directory) upwards, whose book has a `SUMMARY.md`.
fn project(params: &Value) -> Result<Project, String> {
    let from_editor = params["workspaceFolders"][0]["uri"]
        .as_str()
        .or_else(|| params["rootUri"].as_str())
        .and_then(uri::path_of)
        .or_else(|| params["rootPath"].as_str().map(PathBuf::from));
    let start = match from_editor {
        Some(start) => start,
        None => std::env::current_dir().map_err(|e| e.to_string())?,
    };
    Project::locate(&start)
}
