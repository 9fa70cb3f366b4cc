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
    let (plan, chapters) = match literate::fmt::plan_book(Path::new("book/src"), "book/src") {
        Ok(planned) => planned,
        Err(problems) => {
            for problem in problems {
                eprintln!("{problem}");
            }
            return ExitCode::FAILURE;
        }
    };
    for note in &plan.notes {
        eprintln!("{note}");
    }
    if check {
        for edit in &plan.edits {
            eprintln!(
                "{}:{}:1: rustfmt would reformat lines {} to {}",
                edit.file, edit.first, edit.first, edit.last
            );
        }
        let clean = plan.edits.is_empty() && plan.notes.is_empty();
        return if clean {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    if let Err(e) = literate::write_chapters(&chapters) {
        eprintln!("literate fmt: {e}");
        return ExitCode::FAILURE;
    }
    println!(
        "literate fmt: {} change(s) in {} file(s)",
        plan.edits.len(),
        chapters.len()
    );
    if plan.notes.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
