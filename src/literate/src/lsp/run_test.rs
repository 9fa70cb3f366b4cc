//! "Run this test" from a chapter: a code lens over every test function in a chunk, whose command
//! runs the test with cargo (on the chapters as they are saved, as rust-analyzer's own "Run" does in
//! a `.rs` file) in a thread of its own. Cargo's output goes through the line maps, as `literate
//! test`'s does, and a failure comes back as a diagnostic at the chapter line where the test failed.

use std::path::PathBuf;
use std::thread;

use crossbeam_channel::Sender;
use lsp_server::{ErrorCode, Request};
use lsp_types::MessageType;
use serde_json::{Value, json};

use crate::Place;
use crate::cargo_run::run_captured;
use crate::lsp::book::EditedBook;
use crate::lsp::chunks::parts_in;
use crate::lsp::editor::Editor;
use crate::lsp::positions::utf16_len;

/// The command a test's code lens runs, with the test's name and the chapter's URI.
pub const RUN_TEST: &str = "literate.runTest";

/// What a run of one test gave.
pub struct TestRun {
    pub name: String,
    pub passed: bool,
    /// Where each failing test panicked, with what it said.
    pub failures: Vec<(Place, String)>,
    /// The end of cargo's output, to show when the run went wrong before any test ran.
    pub tail: String,
}

/// A code lens over each test function of a chapter's chunks: `#[test]` and the `fn` it marks.
pub fn lenses(book: &EditedBook, chapter: &str, uri: &str) -> Value {
    let mut found = Vec::new();
    for part in parts_in(&book.web, chapter) {
        let mut marked = false;
        for line in &part.body {
            let code = line.text.trim();
            if code.starts_with("#[test]") {
                marked = true;
                continue;
            }
            if !marked || code.starts_with("#[") {
                continue;
            }
            marked = false;
            let Some(name) = test_name(code) else {
                continue;
            };
            let line_number = line.place.line - 1;
            let end = utf16_len(&line.text, usize::MAX);
            found.push(json!({
                "range": {
                    "start": {"line": line_number, "character": 0},
                    "end": {"line": line_number, "character": end},
                },
                "command": {
                    "title": format!("▶ Run test {name}"),
                    "command": RUN_TEST,
                    "arguments": [name, uri],
                },
            }));
        }
    }
    Value::Array(found)
}

/// The name of the function a line declares (`fn name(`, after any qualifiers).
fn test_name(code: &str) -> Option<String> {
    let after = code.split_once("fn ")?.1;
    let name: String = after
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Runs the command of a test's code lens (the test's name is its first argument): the test is
/// started, and the request answered at once; what the run gives goes to `done`.
pub fn execute(editor: &Editor, request: Request, crate_dir: PathBuf, done: &Sender<TestRun>) {
    let arguments = &request.params["arguments"];
    match (request.params["command"].as_str(), arguments[0].as_str()) {
        (Some(RUN_TEST), Some(name)) => {
            editor.log(&format!("running the test {name}"));
            start(crate_dir, name.to_string(), done.clone());
            editor.respond(request.id, Value::Null);
        }
        _ => {
            let message = format!("literate lsp has no command {}", request.params["command"]);
            editor.send_error(request.id, ErrorCode::InvalidParams, &message);
        }
    }
}

/// Tells the editor how a test run went; its failures, each at its chapter place with what the
/// test said, to be shown as diagnostics.
pub fn report(run: TestRun, editor: &Editor) -> Vec<(Place, String)> {
    let name = &run.name;
    let message = match (run.passed, run.failures.first()) {
        (true, _) => format!("test {name} passed"),
        (false, Some((place, _))) => format!("test {name} failed at {place}"),
        (false, None) => format!("test {name} did not run:\n{}", run.tail),
    };
    let kind = if run.passed {
        MessageType::INFO
    } else {
        MessageType::ERROR
    };
    editor.show_message(kind, &message);
    let failures = run.failures.into_iter();
    failures
        .map(|(place, said)| (place, format!("test {name} failed: {said}")))
        .collect()
}

/// Runs the tests named `name` of the crate in `crate_dir` with cargo, in a thread of its own, and
/// sends what it gave to `done`.
pub fn start(crate_dir: PathBuf, name: String, done: Sender<TestRun>) {
    thread::spawn(move || {
        let args = ["--".to_string(), name.clone()];
        let run = match run_captured("test", &args, &crate_dir) {
            Ok((passed, output)) => TestRun {
                passed,
                failures: failures(&output),
                tail: tail(&output),
                name,
            },
            Err(e) => TestRun {
                passed: false,
                failures: Vec::new(),
                tail: format!("cannot run cargo: {e}"),
                name,
            },
        };
        let _ = done.send(run);
    });
}

/// Every panic of a test in mapped output that names a chapter place, with what the test said.
fn failures(output: &str) -> Vec<(Place, String)> {
    let lines: Vec<&str> = output.lines().collect();
    let mut found = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let Some(place) = panic_place(line) else {
            continue;
        };
        let said: Vec<&str> = lines[n + 1..]
            .iter()
            .take_while(|l| !l.is_empty() && !l.starts_with("note:") && !l.starts_with("stack"))
            .copied()
            .collect();
        found.push((place, said.join("\n")));
    }
    found
}

/// The chapter place of a line `thread '…' panicked at FILE.md:LINE:COL:`.
fn panic_place(line: &str) -> Option<Place> {
    let rest = line.split_once(" panicked at ")?.1;
    let place = rest
        .split("  [tangled:")
        .next()?
        .trim_end()
        .trim_end_matches(':');
    let mut parts = place.rsplitn(3, ':');
    let col = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let file = parts.next()?;
    file.ends_with(".md").then(|| Place::new(file, line, col))
}

/// The last lines of cargo's output.
fn tail(output: &str) -> String {
    let lines: Vec<&str> = output.lines().collect();
    lines[lines.len().saturating_sub(12)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_read_at_its_chapter_place_with_what_it_said() {
        let output = "running 1 test\nthread 'tests::x' (12) panicked at book/src/tests.md:226:5:  [tangled: OUT_DIR/tests.rs:137:9]\nassertion `left == right` failed\n  left: 6\n right: 7\nnote: run with `RUST_BACKTRACE=1`\n";
        let found = failures(output);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, Place::new("book/src/tests.md", 226, 5));
        assert_eq!(
            found[0].1,
            "assertion `left == right` failed\n  left: 6\n right: 7"
        );
        assert!(failures("thread 'main' panicked at src/main.rs:3:5:\nboom\n").is_empty());
    }

    #[test]
    fn test_names_are_read_from_their_declaration() {
        assert_eq!(test_name("fn a_test() {").as_deref(), Some("a_test"));
        assert_eq!(
            test_name("async fn b() -> Result<(), E> {").as_deref(),
            Some("b")
        );
        assert_eq!(test_name("let x = 1;"), None);
    }
}
