//! `literate`: the book's command-line tools.

use std::path::Path;
use std::process::ExitCode;

const USAGE: &str = "\
usage: literate check [CARGO CHECK ARGUMENTS...]
       literate fmt [--check]
       literate lsp

  check    runs `cargo check --message-format=json` (with --workspace --all-targets
           --all-features unless other arguments are given, so that code behind a
           feature is checked too) and prints every error and warning at its place
           in the book's Markdown, rustc-style.
  fmt      formats the book's code as rustfmt formats the tangled files, by
           rewriting the chunks in book/src; with --check, only reports what
           would change and fails if anything would.
  lsp      a language server for the chapters, on standard input and output:
           rust-analyzer's help inside chunks (it runs the first rust-analyzer
           on PATH that works, or the one LITERATE_RUST_ANALYZER names), and
           definitions, hovers and completions of chunk names.

Run them from the directory that holds book/src (lsp also finds it from the
editor's workspace folder).
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("check") => {
            let rest = &args[1..];
            let defaults = ["--workspace", "--all-targets", "--all-features"].map(String::from);
            literate::cargo_check::run(if rest.is_empty() { &defaults } else { rest })
        }
        Some("fmt") => fmt(&args[1..]),
        Some("lsp") if args.len() == 1 => literate::lsp::run(),
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprint!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// `literate fmt [--check]`.
fn fmt(args: &[String]) -> ExitCode {
    let check = match args {
        [] => false,
        [flag] if flag == "--check" => true,
        _ => {
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let outcome = literate::tangle_book(Path::new("book/src"), "book/src");
    if !outcome.problems.is_empty() {
        for problem in &outcome.problems {
            eprintln!("{problem}");
        }
        return ExitCode::FAILURE;
    }
    let mut formatted = Vec::new();
    for file in outcome.files {
        match literate::fmt::rustfmt(&file.text) {
            Ok(text) => formatted.push((file, text)),
            Err(message) => {
                eprintln!("literate fmt: rustfmt failed on {}: {message}", file.name);
                return ExitCode::FAILURE;
            }
        }
    }
    let formatting = literate::fmt::formatting(&formatted);
    for problem in &formatting.unfixable {
        eprintln!("{problem}");
    }
    if check {
        for edit in &formatting.edits {
            eprintln!(
                "{}:{}:1: rustfmt would reformat lines {} to {}",
                edit.file, edit.first, edit.first, edit.last
            );
        }
        let clean = formatting.edits.is_empty() && formatting.unfixable.is_empty();
        return if clean {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    match literate::fmt::apply(Path::new("."), &formatting.edits) {
        Ok(files) => {
            println!(
                "literate fmt: {} change(s) in {files} file(s)",
                formatting.edits.len()
            );
            if formatting.unfixable.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("literate fmt: cannot write the book: {e}");
            ExitCode::FAILURE
        }
    }
}
