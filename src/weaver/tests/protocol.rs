//! The weaver refuses, loudly and with a reason, what it was not written for: an mdbook of another
//! series, a book whose chapters are not where its protocol puts them, and a book from which a
//! chapter the tangler read is missing. Any of them would otherwise be published unwoven, or woven
//! without a chapter, with a successful exit.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn weave(context: serde_json::Value, book: serde_json::Value) -> Output {
    let mut weaver = Command::new(env!("CARGO_BIN_EXE_mdbook-litbook"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the weaver starts");
    let input = serde_json::json!([context, book]).to_string();
    let mut stdin = weaver.stdin.take().expect("stdin is piped");
    stdin.write_all(input.as_bytes()).expect("the weaver reads");
    drop(stdin);
    weaver.wait_with_output().expect("the weaver ends")
}

fn context(version: &str) -> serde_json::Value {
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../book");
    serde_json::json!({"root": book, "config": {}, "renderer": "html", "mdbook_version": version})
}

fn refused(output: &Output, reason: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(output.stdout.is_empty(), "no book is written");
    assert!(stderr.contains(reason), "{stderr}");
}

#[test]
fn another_mdbook_series_is_refused() {
    let output = weave(context("0.4.40"), serde_json::json!({"items": []}));
    refused(&output, "this is mdbook 0.4.40, so the book is not built");
    let output = weave(context("0.6.0"), serde_json::json!({"items": []}));
    refused(&output, "this is mdbook 0.6.0");
}

#[test]
fn a_book_without_its_chapters_list_is_refused() {
    let output = weave(context("0.5.4"), serde_json::json!({"sections": []}));
    refused(&output, "without an `items` list of chapters");
}

#[test]
fn a_chapter_mdbook_did_not_send_is_named_at_its_place() {
    let output = weave(context("0.5.4"), serde_json::json!({"items": []}));
    refused(
        &output,
        "error: book/src/world.md:1:1: mdbook did not send book/src/world.md",
    );
}
