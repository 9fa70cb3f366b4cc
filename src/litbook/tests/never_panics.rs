//! The tangler meets whatever a person types. These properties feed it arbitrary text, and text built
//! from the pieces its grammar is made of (fences, markers, names, indentation, quotes and lists), and
//! ask only that it answers: files or diagnostics, never a panic.

use litbook::{SourceText, Web, chapter_links, check_syntax, tangle};
use proptest::prelude::*;

/// How many inputs each property runs; the README quotes this figure.
const CASES: u32 = 4096;

fn fragment() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "```",
        "```rust\n",
        "~~~rust\n",
        "````\n",
        "```\n",
        "```rust,ignore\n",
        "```rust x\n",
        "// <<",
        ">>",
        ">>=",
        ">>+=",
        "=",
        "+",
        "file:",
        "file:a.rs",
        "file:../b.rs",
        "a",
        "b",
        "name",
        " ",
        "    ",
        "\t",
        "\n",
        "\r\n",
        "> ",
        "- ",
        "1. ",
        "#",
        "# ",
        "é",
        "⟨",
        "{",
        "}",
        "fn f() {",
        "let x = 1;",
        "[x](a.md)",
        "<!--",
        "-->",
        "\u{0}",
    ])
}

fn book_text() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 0..80).prop_map(|pieces| pieces.concat())
}

fn run(chapters: Vec<String>) {
    let sources = chapters
        .into_iter()
        .enumerate()
        .map(|(i, text)| SourceText::new(format!("book/src/{i}.md"), text))
        .collect::<Vec<_>>();
    for source in &sources {
        for (_, place) in chapter_links(source) {
            assert!(place.line >= 1 && place.col >= 1);
        }
    }
    let (web, problems) = Web::parse(sources);
    for problem in &problems {
        assert!(problem.place.line >= 1 && problem.place.col >= 1);
    }
    if let Ok(files) = tangle(&web) {
        for file in files {
            let _ = check_syntax(&file.text, &file.map, &file.name);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn arbitrary_text_never_panics(chapters in prop::collection::vec(any::<String>(), 1..3)) {
        run(chapters);
    }

    #[test]
    fn text_made_of_the_grammar_never_panics(chapters in prop::collection::vec(book_text(), 1..4)) {
        run(chapters);
    }
}
