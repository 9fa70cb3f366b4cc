//! "Run this test" from a chapter: a code lens over every test function in a chunk, whose command
//! runs the test with cargo (on the chapters as they are saved, as rust-analyzer's own "Run" does in
//! a `.rs` file) in a thread of its own. Cargo's output goes through the line maps, as `litbook
//! test`'s does, and a failure comes back as a diagnostic at the chapter line where the test failed.

use std::path::{Path, PathBuf};
use std::thread;

use anyhow::{Context, bail};
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
pub const RUN_TEST: &str = "litbook.runTest";

/// What a run of one test gave.
pub struct TestRun {
    pub name: String,
    pub passed: bool,
    /// Where each failing test panicked, with what it said.
    pub failures: Vec<(Place, String)>,
    /// The end of cargo's output, to show when the run went wrong before any test ran.
    pub tail: String,
}

/// A code lens over each test function of a chapter's chunks: a function marked `#[test]`, found by
/// parsing each part of a chunk as Rust (so a test written on one line, or with a doc comment or
/// other attributes between `#[test]` and its `fn`, is found as rustc finds it). A part that does not
/// parse on its own, as a part that holds statements does not, has no test function to run.
pub fn lenses(book: &EditedBook, chapter: &str, uri: &str) -> Value {
    let mut found = Vec::new();
    for part in parts_in(&book.web, chapter) {
        let text: String = part
            .body
            .iter()
            .map(|line| format!("{}\n", line.text))
            .collect();
        for (name, line) in test_functions(&text) {
            let Some(body_line) = part.body.get(line - 1) else {
                continue;
            };
            let line_number = body_line.place.line - 1;
            let end = utf16_len(&body_line.text, usize::MAX);
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

/// The test functions of `code`, at any depth of modules: each one's name and the 1-based line of
/// its `fn`, by its module path (`tests::adds`), as the test harness names it.
fn test_functions(code: &str) -> Vec<(String, usize)> {
    let Ok(file) = syn::parse_file(code) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    gather_tests(&file.items, "", &mut found);
    found
}

fn gather_tests(items: &[syn::Item], path: &str, found: &mut Vec<(String, usize)>) {
    for item in items {
        match item {
            syn::Item::Fn(function) if is_a_test(&function.attrs) => {
                let name = format!("{path}{}", function.sig.ident);
                found.push((name, function.sig.fn_token.span.start().line));
            }
            syn::Item::Mod(module) => {
                if let Some((_, inner)) = &module.content {
                    gather_tests(inner, &format!("{path}{}::", module.ident), found);
                }
            }
            _ => {}
        }
    }
}

/// Whether a function's attributes mark it a test: `#[test]`, or a test attribute of a test
/// framework's (`#[tokio::test]`), whose last segment is `test`.
fn is_a_test(attributes: &[syn::Attribute]) -> bool {
    attributes.iter().any(|attribute| {
        let path = attribute.path();
        path.segments
            .last()
            .is_some_and(|segment| segment.ident == "test")
    })
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
            let message = format!("litbook lsp has no command {}", request.params["command"]);
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

/// Runs the test named `name` of the crate in `crate_dir` with cargo, in a thread of its own, and
/// sends what it gave to `done`. `name` is the test's path within its chunk (`tests::adds`); the
/// harness knows it by its path from the crate's root, which the chunk does not tell, so the tests
/// are listed first and each whose path ends with `name` is run, exactly: no other test whose name
/// merely contains it.
pub fn start(crate_dir: PathBuf, name: String, done: Sender<TestRun>) {
    thread::spawn(move || {
        let run = match run_exactly(&crate_dir, &name) {
            Ok((passed, output)) => TestRun {
                passed,
                failures: failures(&output),
                tail: tail(&output),
                name,
            },
            Err(why) => TestRun {
                passed: false,
                failures: Vec::new(),
                tail: format!("{why:#}"),
                name,
            },
        };
        let _ = done.send(run);
    });
}

/// Lists the crate's tests, and runs those whose path is `name` or ends with `::name`, exactly:
/// whether they passed, and cargo's output; or why they could not be run.
fn run_exactly(crate_dir: &Path, name: &str) -> anyhow::Result<(bool, String)> {
    let to_list = ["--", "--list"].map(String::from);
    let (listed, listing) =
        run_captured("test", &to_list, crate_dir).context("cannot run cargo")?;
    if !listed {
        return Ok((false, listing));
    }
    let paths = tests_named(&listing, name);
    if paths.is_empty() {
        bail!("cargo test lists no test named {name}");
    }
    let args: Vec<String> = ["--", "--exact"]
        .into_iter()
        .chain(paths)
        .map(String::from)
        .collect();
    run_captured("test", &args, crate_dir).context("cannot run cargo")
}

/// The paths of the tests `cargo test -- --list` lists (`PATH: test` lines) that are `name` or end
/// with `::name`.
fn tests_named<'a>(listing: &'a str, name: &str) -> Vec<&'a str> {
    let ending = format!("::{name}");
    listing
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .filter(|path| *path == name || path.ends_with(&ending))
        .collect()
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
    fn tests_are_found_as_rustc_finds_them() {
        let code = "#[test] fn on_one_line() {}\n\n#[test]\n/// Documented.\n#[should_panic]\nfn with_a_doc_comment_between() {}\n\nfn not_a_test() {}\n\nmod tests {\n    #[tokio::test]\n    async fn nested() {}\n}\n";
        assert_eq!(
            test_functions(code),
            [
                ("on_one_line".to_string(), 1),
                ("with_a_doc_comment_between".to_string(), 6),
                ("tests::nested".to_string(), 12),
            ]
        );
        assert!(test_functions("let x = 1;\nx + 1\n").is_empty());
    }

    #[test]
    fn a_test_is_run_by_its_whole_path_and_no_other_that_contains_its_name() {
        let listing = "play::adds: test\nplay::adds_more: test\nsolve::tests::adds: test\n\
                       plays_adds: test\nadds: benchmark\n3 tests, 1 benchmark\n";
        assert_eq!(
            tests_named(listing, "adds"),
            ["play::adds", "solve::tests::adds"]
        );
        assert_eq!(tests_named(listing, "tests::adds"), ["solve::tests::adds"]);
    }
}
