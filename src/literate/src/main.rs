//! `literate`: the book's command-line tools.

use std::process::ExitCode;

const USAGE: &str = "\
usage: literate check [CARGO CHECK ARGUMENTS...]

  check    runs `cargo check --message-format=json` (with --workspace --all-targets
           unless other arguments are given) and prints every error and warning at
           its place in the book's Markdown, rustc-style.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("check") => {
            let rest = &args[1..];
            let defaults = ["--workspace".to_string(), "--all-targets".to_string()];
            literate::cargo_check::run(if rest.is_empty() { &defaults } else { rest })
        }
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
