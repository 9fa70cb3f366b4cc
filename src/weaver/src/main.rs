//! `mdbook-literate`: the mdbook preprocessor that weaves a literate Rust book. It is
//! `literate mdbook` under a name of its own, for a `book.toml` that names it so; the preprocessor
//! itself is the literate library's, `literate::preprocessor`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    literate::preprocessor::run("mdbook-literate", &args)
}
