//! What tangling makes of a sound book: chunks in book order, references indented, a map from every
//! line back to the Markdown, the same bytes every time.

use litbook::{Place, SourceText, Web, tangle};

fn tangled(chapters: &[(&str, &str)]) -> Vec<litbook::TangledFile> {
    let sources = chapters
        .iter()
        .map(|(name, text)| SourceText::new(format!("book/src/{name}"), *text))
        .collect();
    let (web, problems) = Web::parse(sources);
    assert!(problems.is_empty(), "{problems:?}");
    tangle(&web).expect("a sound web")
}

const A: &str = "# A\n\n```rust\n// <<file:lib.rs>>=\nfn f() {\n    // <<body>>\n}\n```\n\n```rust\n// <<body>>=\nlet x = 1;\n\nlet y = 2;\n```\n";
const B: &str = "Later.\n\n```rust\n// <<body>>+=\nif x < y {\n    // <<inner>>\n}\n```\n\n```rust,ignore\n// <<inner>>=\ndone();\n```\n";

#[test]
fn references_expand_in_book_order_with_their_indentation() {
    let files = tangled(&[("a.md", A), ("b.md", B)]);
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].name, "lib.rs");
    assert_eq!(
        files[0].text,
        "// Tangled from the book by build.rs: edit the Markdown chunks, not this file.\n\
         // ⟨file:lib.rs⟩= book/src/a.md\n\
         fn f() {\n    \
             // ⟨body⟩= book/src/a.md\n    \
             let x = 1;\n\
             \n    \
             let y = 2;\n    \
             // ⟨body⟩+= book/src/b.md\n    \
             if x < y {\n        \
                 // ⟨inner⟩= book/src/b.md\n        \
                 done();\n    \
             }\n\
         }\n"
    );
}

#[test]
fn every_tangled_line_maps_back_to_its_markdown_place() {
    let files = tangled(&[("a.md", A), ("b.md", B)]);
    let map = &files[0].map;
    assert_eq!(map.place(3, 1), Some(Place::new("book/src/a.md", 5, 1)));
    // `x` of `let x = 1;`, column 9 in the tangled file, column 5 in the chapter.
    assert_eq!(map.place(5, 9), Some(Place::new("book/src/a.md", 12, 5)));
    // `done();` sits 8 columns in, put there by two references; it starts line 12 of b.md.
    assert_eq!(map.place(11, 9), Some(Place::new("book/src/b.md", 12, 1)));
    assert_eq!(map.place(11, 11), Some(Place::new("book/src/b.md", 12, 3)));
}

#[test]
fn the_same_book_tangles_to_the_same_bytes() {
    let first = tangled(&[("a.md", A), ("b.md", B)]);
    let second = tangled(&[("a.md", A), ("b.md", B)]);
    assert_eq!(first, second);
}

#[test]
fn chunks_inside_lists_and_quotes_keep_their_columns() {
    let text = "- item\n\n  ```rust\n  // <<file:lib.rs>>=\n  fn f() {}\n  ```\n";
    let files = tangled(&[("a.md", text)]);
    assert!(files[0].text.contains("\nfn f() {}\n"), "{}", files[0].text);
    assert_eq!(
        files[0].map.place(3, 4),
        Some(Place::new("book/src/a.md", 5, 6))
    );
}

#[test]
fn indented_lines_inside_a_list_keep_their_columns() {
    let text =
        "- item\n\n  ```rust\n  // <<file:lib.rs>>=\n  fn f() {\n      let x = 1;\n  }\n  ```\n";
    let files = tangled(&[("a.md", text)]);
    assert!(
        files[0].text.contains("\n    let x = 1;\n"),
        "{}",
        files[0].text
    );
    // `l` of `let` is column 5 of tangled line 4, and column 7 of line 6 of the chapter.
    assert_eq!(
        files[0].map.place(4, 5),
        Some(Place::new("book/src/a.md", 6, 7))
    );
}

#[test]
fn illustrations_and_other_languages_are_not_tangled() {
    let text = "```rust\n// <<file:lib.rs>>=\nfn f() {}\n```\n\n```rust\nfn shown_only() {}\n```\n\n````markdown\n```rust\n// <<example>>=\n```\n````\n";
    let files = tangled(&[("a.md", text)]);
    assert!(!files[0].text.contains("shown_only"));
    assert!(!files[0].text.contains("example"));
}

#[test]
fn write_if_changed_keeps_an_unchanged_file_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out/lib.rs");
    assert!(litbook::write_if_changed(&path, "a").unwrap());
    assert!(!litbook::write_if_changed(&path, "a").unwrap());
    assert!(litbook::write_if_changed(&path, "b").unwrap());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "b");
}

/// The real book's chapters, copied to a temporary directory so that they can be edited (without
/// what a build put beside them, such as the game built for the web in `play/`).
fn copy_of_the_book() -> tempfile::TempDir {
    let from = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../book/src");
    let dir = tempfile::tempdir().expect("a temporary directory");
    for entry in std::fs::read_dir(from)
        .expect("the book's chapters")
        .flatten()
        .filter(|entry| entry.path().is_file())
    {
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).expect("copy a chapter");
    }
    dir
}

#[test]
fn prose_added_anywhere_leaves_every_tangled_file_unchanged() {
    let book = copy_of_the_book();
    let before = litbook::tangle_book(book.path(), "book/src");
    assert!(before.problems.is_empty(), "{:?}", before.problems);
    for chapter in ["world.md", "bfs.md", "input.md"] {
        let path = book.path().join(chapter);
        let text = std::fs::read_to_string(&path).unwrap();
        let code: Vec<_> = litbook::fenced_blocks(&text)
            .into_iter()
            .map(|b| b.range)
            .collect();
        let paragraph = text
            .match_indices("\n\n")
            .map(|(at, _)| at + 1)
            .find(|at| *at > text.len() / 2 && !code.iter().any(|block| block.contains(at)))
            .expect("a paragraph break in the second half, outside code");
        let edited = format!(
            "{}A sentence added to the prose.\n\nAnd a paragraph.\n{}",
            &text[..paragraph],
            &text[paragraph..]
        );
        std::fs::write(&path, edited).unwrap();
    }
    let after = litbook::tangle_book(book.path(), "book/src");
    assert!(after.problems.is_empty(), "{:?}", after.problems);
    assert_eq!(before.files.len(), after.files.len());
    for (old, new) in before.files.iter().zip(&after.files) {
        assert_eq!(old.text, new.text, "{} changed", old.name);
    }
    assert!(
        before
            .files
            .iter()
            .zip(&after.files)
            .any(|(old, new)| old.map != new.map),
        "the line maps follow the chunks to their new lines"
    );
}
