//! What rust-analyzer is told of the editor and of the server's settings for it.

use serde_json::{Value, json};

use crate::lsp::mirror::Mirror;
use crate::lsp::tokens::{TOKEN_MODIFIERS, TOKEN_TYPES};
use crate::lsp::uri::uri_of;

/// What rust-analyzer is told when it starts on `mirror`: what the editor behind the server can show
/// (parts of `editor_capabilities`), and its settings.
pub fn initialize_params(
    editor_capabilities: &Value,
    features: &[String],
    mirror: &Mirror,
) -> Value {
    let editor = &editor_capabilities["textDocument"];
    let mut text_document = json!({
        "synchronization": {"didSave": true},
        "publishDiagnostics": {"relatedInformation": true},
        "definition": {"linkSupport": false},
        "typeDefinition": {"linkSupport": false},
        "implementation": {"linkSupport": false},
        "rename": {"prepareSupport": true},
        "documentHighlight": {},
        "selectionRange": {},
        "callHierarchy": {},
        "inlayHint": {},
        "semanticTokens": {
            "requests": {"full": true, "range": true},
            "tokenTypes": TOKEN_TYPES,
            "tokenModifiers": TOKEN_MODIFIERS,
            "formats": ["relative"],
        },
        // Actions come with their edits (no resolving later), as literals the server can move.
        "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": [
            "", "quickfix", "refactor", "refactor.extract", "refactor.inline",
            "refactor.rewrite", "source", "source.organizeImports",
        ]}}},
    });
    for key in ["hover", "completion", "signatureHelp"] {
        if !editor[key].is_null() {
            text_document[key] = editor[key].clone();
        }
    }
    json!({
        "processId": std::process::id(),
        "rootUri": uri_of(&mirror.dir),
        "workspaceFolders": [{"uri": uri_of(&mirror.dir), "name": "litbook-lsp"}],
        "capabilities": {
            "textDocument": text_document,
            "workspace": {
                "workspaceEdit": {"documentChanges": false},
                "configuration": true,
                // Passed on to an editor that takes them (see RustAnalyzer::answer).
                "semanticTokens": {"refreshSupport": true},
                "inlayHint": {"refreshSupport": true},
                "codeLens": {"refreshSupport": true},
            },
            "window": {"workDoneProgress": true},
            "experimental": {"serverStatusNotification": true},
        },
        "initializationOptions": settings(features, mirror),
    })
}

/// rust-analyzer's settings for `mirror`, with `features` on.
pub fn settings(features: &[String], mirror: &Mirror) -> Value {
    json!({
        "linkedProjects": [mirror.dir.join("Cargo.toml").to_string_lossy()],
        // rust-analyzer checks only when the server asks it to (see checks.rs), not on its own
        // on save or on loading: the server then knows of every check, and asks again for one
        // cut short.
        "checkOnSave": false,
        "check": {"command": "check", "allTargets": true, "workspace": true},
        // The crate's default features, and those the chapters open in the editor need (code
        // behind a feature, like the game's window, is code of the book too); checking a
        // feature's crates before a chapter needs them would make the first save's check wait.
        //
        // A build gives the crate its tangled files in `OUT_DIR`, and a chunk may read one there
        // itself (`include_bytes!(concat!(env!("OUT_DIR"), "/page.js"))`). The mirror has no build
        // script and so no `OUT_DIR`: its tangled files' directory stands in for it, in
        // rust-analyzer's reading of the code and in its `cargo check` alike, so that such a line
        // reads the file a build would give it instead of showing an error no build has.
        "cargo": {"features": features, "extraEnv": {"OUT_DIR": mirror.tangled_dir().to_string_lossy()}},
        "files": {"watcher": "server"},
        // Every token of the code has a type, brackets and punctuation included, so that a
        // chapter's chunks are highlighted by meaning line for line.
        "semanticHighlighting": {"punctuation": {"enable": true, "specialization": {"enable": true}}},
    })
}
