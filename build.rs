//! Tangles the book: every root chunk of `book/src` becomes a Rust file in `OUT_DIR`, which the shells
//! in `src/` and `tests/` include. Problems are reported at their Markdown places and stop the build.

fn main() {
    literate::build_script::run();
}
