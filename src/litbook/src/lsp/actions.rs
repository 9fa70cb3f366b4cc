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

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::lsp::mirror::Mirror;
    use crate::lsp::positions::Positions;
    use crate::lsp::uri::uri_of;
    use crate::{SourceText, Web, tangle};

    const CHAPTER: &str = "# A\n\n```rust\n// <<file:a.rs>>=\nfn f() -> u8 {\n    1\n}\n```\n";

    /// The positions of a one-chapter book whose root `a.rs` has `fn f` on its third line.
    fn positions_of(chapter: &str) -> Positions {
        let (web, _) = Web::parse(vec![SourceText::new("book/src/a.md", chapter)]);
        let files = tangle(&web).unwrap();
        assert!(files[0].text.lines().nth(2).unwrap().starts_with("fn f()"));
        Positions::new(&files, &[("book/src/a.md".into(), chapter.into())])
    }

    /// A rewriter for a mirror in `/m` of a crate in `/c`.
    fn rewriter<'a>(positions: &'a Positions, mirror: &'a Mirror) -> Rewriter<'a> {
        Rewriter {
            positions,
            mirror,
            crate_dir: Path::new("/c"),
        }
    }

    fn action(line: u64, text: &str) -> Value {
        let range =
            json!({"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}});
        let uri = uri_of(Path::new("/m/tangled/a.rs"));
        json!({"title": "fix", "kind": "quickfix", "edit": {"changes": {uri: [{"range": range, "newText": text}]}}})
    }

    #[test]
    fn an_action_is_moved_into_the_chapter_or_offered_disabled_with_why() {
        let positions = positions_of(CHAPTER);
        let mirror = Mirror {
            dir: PathBuf::from("/m"),
            unfollowed: Vec::new(),
        };
        let rewriter = rewriter(&positions, &mirror);
        let result = json!([action(2, "// f\n"), action(0, "use x;\n"), {"title": "run", "command": "rust-analyzer.runSingle"}]);
        let actions = code_actions(&rewriter, &result);
        let actions = actions.as_array().unwrap();
        assert_eq!(actions.len(), 2, "a bare command is left out");
        let chapter = uri_of(Path::new("/c/book/src/a.md"));
        let edits = &actions[0]["edit"]["changes"][&chapter];
        assert_eq!(
            edits[0]["range"]["start"]["line"], 4,
            "on the chapter's line of fn f"
        );
        assert!(
            actions[1].get("edit").is_none(),
            "an edit of the tangler's line is not offered: {}",
            actions[1]
        );
        let reason = actions[1]["disabled"]["reason"].as_str().unwrap();
        assert!(reason.contains("the tangler writes"), "{reason}");
    }

    #[test]
    fn a_new_line_in_a_quoted_crlf_chunk_keeps_the_quote_and_the_line_ending() {
        let chapter = "# A\r\n\r\n> ```rust\r\n> // <<file:a.rs>>=\r\n> fn f() -> u8 {\r\n>     1\r\n> }\r\n> ```\r\n";
        let positions = positions_of(chapter);
        let mirror = Mirror {
            dir: PathBuf::from("/m"),
            unfollowed: Vec::new(),
        };
        let rewriter = rewriter(&positions, &mirror);
        let actions = code_actions(&rewriter, &json!([action(2, "fn g() {}\n")]));
        let chapter_uri = uri_of(Path::new("/c/book/src/a.md"));
        let edit = &actions[0]["edit"]["changes"][&chapter_uri][0];
        assert_eq!(edit["newText"], "fn g() {}\r\n> ");
        assert_eq!(edit["range"]["start"], json!({"line": 4, "character": 2}));
    }
}
