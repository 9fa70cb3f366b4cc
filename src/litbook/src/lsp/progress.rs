//! rust-analyzer's work in progress (loading the workspace, indexing), shown in the editor as it
//! would be for a `.rs` file: each piece of work rust-analyzer reports is reported to the editor
//! under the same token, and work still going when rust-analyzer stops is ended there, so that no
//! progress is left spinning. Its `cargo check`s are shown as the server's checks (see checks.rs).

use std::collections::BTreeMap;

use lsp_types::notification::{Notification as _, Progress as ProgressNotification};
use lsp_types::request::{Request as _, WorkDoneProgressCreate};
use serde_json::{Value, json};

use crate::lsp::editor::Editor;

/// The work rust-analyzer has begun and not yet ended, kept for an editor that shows progress.
pub struct Progress {
    /// Whether the editor said it shows work done progress.
    shown: bool,
    /// The work begun and not ended, by its token (as JSON text): its token.
    going: BTreeMap<String, Value>,
}

impl Progress {
    pub fn new(editor_capabilities: &Value) -> Progress {
        Progress {
            shown: editor_capabilities["window"]["workDoneProgress"] == true,
            going: BTreeMap::new(),
        }
    }

    /// rust-analyzer asks for a token to report work under: the editor is asked for the same one.
    pub fn create(&self, params: &Value, editor: &Editor) {
        if self.shown {
            editor.request(WorkDoneProgressCreate::METHOD, params.clone());
        }
    }

    /// rust-analyzer reports work begun, going on or ended: the editor is told the same.
    pub fn report(&mut self, params: Value, editor: &Editor) {
        if !self.shown {
            return;
        }
        let token = &params["token"];
        match params["value"]["kind"].as_str() {
            Some("begin") => {
                self.going.insert(token.to_string(), token.clone());
            }
            Some("end") => {
                self.going.remove(&token.to_string());
            }
            _ => {}
        }
        editor.notify(ProgressNotification::METHOD, params);
    }

    /// rust-analyzer stopped: the work it had going is ended in the editor.
    pub fn abandon(&mut self, editor: &Editor) {
        for token in std::mem::take(&mut self.going).into_values() {
            let end = json!({"kind": "end", "message": "rust-analyzer stopped"});
            editor.notify(
                ProgressNotification::METHOD,
                json!({"token": token, "value": end}),
            );
        }
    }
}
