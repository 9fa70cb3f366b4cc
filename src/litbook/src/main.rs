//! `litbook`: the book's command-line tools.

use std::path::PathBuf;
use std::process::ExitCode;

use litbook::init::Tangler;

const USAGE: &str = "\
usage: litbook check [CARGO CHECK ARGUMENTS...]
       litbook test|run|bench|build [CARGO ARGUMENTS...] [-- PROGRAM ARGUMENTS...]
       litbook fmt [--check]
       litbook lsp [--stdio]
       litbook init [--litbook PATH]
       litbook mdbook [supports RENDERER]
       litbook --version

  check    runs `cargo check --message-format=json` (with --workspace --all-targets
           --all-features unless other arguments are given, so that code behind a
           feature is checked too) and prints every error and warning at its place
           in the book's Markdown, rustc-style.
  test, run, bench, build
           the cargo command of that name with these arguments, its output
           with every place in a tangled file put at its place in the book
           (compile errors and warnings rendered there; panics, failed
           assertions and backtrace frames rewritten, the tangled place kept
           in a note at the end of the line); cargo's exit status.
  fmt      formats the book's code as rustfmt formats the tangled files, by
           rewriting the chunks in the chapters; with --check, only reports
           what would change and fails if anything would.
  lsp      a language server for the chapters, on standard input and output:
           rust-analyzer's help inside chunks (it runs the first rust-analyzer
           on PATH that works, or the one LITBOOK_RUST_ANALYZER names), and
           definitions, hovers and completions of chunk names.
  init     makes the crate in the working directory a literate one: a book
           (book/book.toml, book/src/SUMMARY.md, book/src/introduction.md,
           and the indexes book/src/chunks.md and book/src/identifiers.md)
           whose first chapter holds the crate's code as its root chunk, the
           crate's src/lib.rs (or src/main.rs) as the shell that includes it, a
           build.rs that tangles the book, litbook as a build dependency (from
           PATH, the sources this program was built from, or crates.io for a
           program installed from there), and the woven book in .gitignore. It
           writes nothing over a file that is there already.
  mdbook   the book's mdbook preprocessor (command = \"litbook mdbook\" under
           [preprocessor.litbook] in book.toml): it tangles the book, stops with
           every problem at its place, and weaves the chapters (captions, links,
           indexes, figures). mdbook runs it; `mdbook-litbook` is the same.

Each serves the nearest crate, from the working directory upwards (lsp: from
the editor's workspace folder), whose book has a SUMMARY.md. The book is in
`book` beside Cargo.toml, or where `[package.metadata.litbook] book = \"DIR\"`
puts it; its chapters are where its book.toml's `[book] src` says.
";

/// The commands that pass their arguments on to cargo's command of the same name.
const CARGO_COMMANDS: [&str; 4] = ["test", "run", "bench", "build"];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(command) = help_asked_of_a_command(&args) {
        print!("{USAGE}");
        if CARGO_COMMANDS.contains(&command) {
            println!(
                "\n`cargo {command} --help` tells cargo's own arguments, which `litbook \
                 {command}` passes on."
            );
        }
        return ExitCode::SUCCESS;
    }
    match args.first().map(String::as_str) {
        Some("check") => {
            let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
            if let Err(why) = litbook::Project::locate(&here) {
                eprintln!("litbook check: {why}");
                return ExitCode::FAILURE;
            }
            let rest = &args[1..];
            let defaults = ["--workspace", "--all-targets", "--all-features"].map(String::from);
            litbook::cargo_check::run(if rest.is_empty() { &defaults } else { rest })
        }
        Some(command) if CARGO_COMMANDS.contains(&command) => {
            let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
            if let Err(why) = litbook::Project::locate(&here) {
                eprintln!("litbook {command}: {why}");
                return ExitCode::FAILURE;
            }
            litbook::cargo_run::run(command, &args[1..])
        }
        Some("fmt") => fmt(&args[1..]),
        Some("lsp") => match &args[1..] {
            [] => litbook::lsp::run(),
            [stdio] if stdio == "--stdio" => litbook::lsp::run(),
            [first, ..] => usage_error(
                "lsp",
                &format!(
                    "`{first}`: lsp speaks on standard input and output and takes no other \
                     arguments (--stdio, which editors pass, says the same)"
                ),
            ),
        },
        Some("init") => init(&args[1..]),
        Some("mdbook") => litbook::preprocessor::run("litbook mdbook", &args[1..]),
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some("-V" | "--version") => {
            println!("litbook {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some(other) => usage_error(
            "",
            &format!(
                "no command `{other}`; the commands are check, test, run, bench, build, fmt, lsp, \
                 init and mdbook"
            ),
        ),
        None => usage_error(
            "",
            "no command given; the commands are check, test, run, bench, build, fmt, lsp, init and mdbook",
        ),
    }
}

/// The command of `litbook COMMAND ... --help` (or `-h`), the help asked before any `--`, after
/// which the arguments are the program's.
fn help_asked_of_a_command(args: &[String]) -> Option<&str> {
    let (command, rest) = args.split_first()?;
    let mut ours = rest.iter().take_while(|arg| *arg != "--");
    let asked = ours.any(|arg| arg == "--help" || arg == "-h");
    let known = ["check", "fmt", "lsp", "init", "mdbook"].contains(&command.as_str())
        || CARGO_COMMANDS.contains(&command.as_str());
    (asked && known).then_some(command.as_str())
}

/// Bad usage of `litbook COMMAND`: one line saying what was wrong and where the usage is told,
/// and exit status 2. Nothing is written.
fn usage_error(command: &str, what: &str) -> ExitCode {
    let who = if command.is_empty() {
        "litbook".to_string()
    } else {
        format!("litbook {command}")
    };
    eprintln!("{who}: {what} (`litbook --help` tells every command and its arguments)");
    ExitCode::from(2)
}

/// `litbook init [--litbook PATH]`.
fn init(args: &[String]) -> ExitCode {
    let sources = env!("CARGO_MANIFEST_DIR");
    let literate = match args {
        [] => match Tangler::of_this_program(sources.as_ref(), env!("CARGO_PKG_VERSION")) {
            Tangler::Sources(path) => path,
            registry => return init_with(&registry),
        },
        [flag, path] if flag == "--litbook" => PathBuf::from(path),
        [flag] if flag == "--litbook" => {
            return usage_error("init", "--litbook needs the path of the litbook crate");
        }
        [flag, _, extra, ..] if flag == "--litbook" => {
            return usage_error(
                "init",
                &format!("unexpected `{extra}`; init takes only --litbook PATH"),
            );
        }
        [flag, ..] => {
            return usage_error(
                "init",
                &format!("unknown argument `{flag}`; init takes only --litbook PATH"),
            );
        }
    };
    let Ok(literate) = literate.join("Cargo.toml").canonicalize() else {
        eprintln!(
            "litbook init: no Cargo.toml in {}: pass the litbook crate's directory (src/litbook \
             of its repository) with --litbook PATH",
            literate.display()
        );
        return ExitCode::FAILURE;
    };
    let literate = literate.parent().expect("a manifest is in a directory");
    init_with(&Tangler::Sources(literate.to_path_buf()))
}

/// `litbook init` with the tangler from `literate`.
fn init_with(literate: &Tangler) -> ExitCode {
    let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let setup = match litbook::init::plan(&here, literate) {
        Ok(setup) => setup,
        Err(refusals) => {
            for refusal in refusals {
                eprintln!("litbook init: {refusal}");
            }
            eprintln!("litbook init: nothing was written");
            return ExitCode::FAILURE;
        }
    };
    match litbook::init::write(&here, &setup) {
        Ok(written) => {
            for path in written {
                println!(
                    "wrote {}",
                    path.strip_prefix(&here).unwrap_or(&path).display()
                );
            }
            println!("{NEXT_STEPS}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("litbook init: {why}");
            ExitCode::FAILURE
        }
    }
}

/// What to do after `litbook init`.
const NEXT_STEPS: &str = "
Next:
  cargo test                  tangles the book and runs its test
  mdbook build book           weaves it (needs mdbook 0.5.4: cargo install mdbook --version
                              0.5.4 --locked; its preprocessor is this program, litbook mdbook)
  litbook lsp                the language server for your editor
  litbook fmt                formats the chunks as rustfmt formats the tangled code";

/// `litbook fmt [--check]`.
fn fmt(args: &[String]) -> ExitCode {
    let check = match args {
        [] => false,
        [flag] if flag == "--check" => true,
        [flag] => {
            return usage_error(
                "fmt",
                &format!("unknown argument `{flag}`; fmt takes only --check"),
            );
        }
        [_, extra, ..] => {
            return usage_error(
                "fmt",
                &format!("unexpected `{extra}`; fmt takes only --check"),
            );
        }
    };
    let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let project = match litbook::Project::locate(&here) {
        Ok(project) => project,
        Err(why) => {
            eprintln!("litbook fmt: {why}");
            return ExitCode::FAILURE;
        }
    };
    let (plan, chapters) = match litbook::fmt::plan_book(&project) {
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
    if let Err(e) = litbook::write_chapters(&chapters) {
        eprintln!("litbook fmt: {e}");
        return ExitCode::FAILURE;
    }
    println!(
        "litbook fmt: {} change(s) in {} file(s)",
        plan.edits.len(),
        chapters.len()
    );
    if plan.notes.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
