//! `mdbook-litbook`: the mdbook preprocessor that weaves a literate Rust book. It is
//! `litbook mdbook` under a name of its own, for a `book.toml` that names it so; the preprocessor
//! itself is the literate library's, `litbook::preprocessor`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    litbook::preprocessor::run("mdbook-litbook", &args)
}
