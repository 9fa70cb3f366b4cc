//! How long tangling the whole Chat Noir book takes: reading every chapter, parsing the chunks,
//! checking the web, expanding every root and parsing the result with syn, as `build.rs` does.

use std::path::Path;

fn main() {
    divan::main();
}

#[divan::bench]
fn tangle_the_whole_book() -> litbook::Outcome {
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../book/src");
    litbook::tangle_book(&book, "book/src")
}
