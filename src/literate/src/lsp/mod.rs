//! `literate lsp`: a language server for the book's chapters. It tangles the book from the editor's
//! unsaved texts on every change, keeps the tangled files in a mirror workspace under `target/`,
//! runs rust-analyzer on the mirror, and passes each request and answer between the two through the
//! tangler's line maps. Chunk markers it answers itself.

mod analyzer;
mod book;
mod chunks;
mod mirror;
mod pending;
mod positions;
mod rewrite;
mod server;
mod uri;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use lsp_server::Connection;
use serde_json::{Value, json};

pub use analyzer::find_rust_analyzer;
pub use mirror::MIRROR_DIR;

/// Serves the editor on standard input and output until it shuts the server down.
pub fn run() -> ExitCode {
    let (connection, io_threads) = Connection::stdio();
    let served = serve(connection);
    let joined = io_threads.join().map_err(|e| e.to_string());
    match served.and(joined) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("literate lsp: {e}");
            ExitCode::FAILURE
        }
    }
}

fn serve(connection: Connection) -> Result<(), String> {
    let (id, params) = connection.initialize_start().map_err(|e| e.to_string())?;
    let crate_dir = crate_dir(&params).ok_or(
        "no book here: literate lsp serves a crate with book/src/SUMMARY.md, found from the \
         editor's workspace folder or the directory it was started in",
    )?;
    let result = json!({
        "capabilities": capabilities(),
        "serverInfo": {"name": "literate lsp", "version": env!("CARGO_PKG_VERSION")},
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    let capabilities = params["capabilities"].clone();
    serve_book(connection, &crate_dir, capabilities)
}

/// Serves the book of the crate in `crate_dir` on an initialized connection, for an editor with
/// `capabilities`, until it shuts the server down. [`run`] stands on this; a benchmark can run it on
/// an in-memory connection.
pub fn serve_book(
    connection: Connection,
    crate_dir: &Path,
    capabilities: Value,
) -> Result<(), String> {
    server::Server::new(connection, crate_dir, capabilities).serve()
}

/// What the server can do for an editor.
fn capabilities() -> Value {
    json!({
        "textDocumentSync": {"openClose": true, "change": 1, "save": true},
        "hoverProvider": true,
        "definitionProvider": true,
        "referencesProvider": true,
        "completionProvider": {"triggerCharacters": [".", ":", "<"]},
        "signatureHelpProvider": {"triggerCharacters": ["(", ","]},
        "renameProvider": true,
        "documentSymbolProvider": true,
    })
}

/// The crate whose book the editor edits: the first directory, from the editor's workspace (or the
/// server's working directory) upwards, that has `book/src/SUMMARY.md`.
fn crate_dir(params: &Value) -> Option<PathBuf> {
    let from_editor = params["workspaceFolders"][0]["uri"]
        .as_str()
        .or_else(|| params["rootUri"].as_str())
        .and_then(uri::path_of)
        .or_else(|| params["rootPath"].as_str().map(PathBuf::from));
    let start = from_editor.or_else(|| std::env::current_dir().ok())?;
    let has_book = |dir: &&Path| dir.join(book::BOOK_DIR).join("SUMMARY.md").is_file();
    start.ancestors().find(has_book).map(Path::to_path_buf)
}
