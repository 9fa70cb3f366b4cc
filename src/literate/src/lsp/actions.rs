//! rust-analyzer's code actions (its quick fixes and assists), their edits moved into the chapters.
//! An action whose edit would change a line that no chapter holds (one the tangler writes: an
//! announcement, a reference line's expansion elsewhere) is never applied half: it is offered
//! disabled, with the reason.

use serde_json::{Value, json};

use crate::lsp::rewrite::Rewriter;

/// The code actions of rust-analyzer's answer, as the editor can apply them in the chapters.
/// Bare commands, which only rust-analyzer's own client can run, are left out.
pub fn code_actions(rewriter: &Rewriter, result: &Value) -> Value {
    let mut actions = Vec::new();
    for action in result.as_array().into_iter().flatten() {
        if action["command"].is_string() {
            continue;
        }
        let mut action = action.clone();
        let Some(object) = action.as_object_mut() else {
            continue;
        };
        object.remove("command");
        object.remove("diagnostics");
        if let Some(edit) = object.remove("edit") {
            let (mapped, left_out) = rewriter.workspace_edit(&edit);
            if left_out == 0 {
                object.insert("edit".into(), mapped);
            } else {
                let reason = format!(
                    "it would change {left_out} place(s) that the tangler writes and no chapter \
                     holds, so it is not applied half"
                );
                object.insert("disabled".into(), json!({"reason": reason}));
            }
        }
        actions.push(action);
    }
    Value::Array(actions)
}
