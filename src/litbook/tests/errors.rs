//! Every kind of problem the tangler reports, each shown on a small book written to a temporary
//! directory, with the exact `file:line:col: message` a reader sees.

use std::fs;

use litbook::tangle_book;

/// Writes a book whose SUMMARY.md lists the given chapters in order, and tangles it.
fn problems(chapters: &[(&str, &str)]) -> Vec<String> {
    let summary: String = chapters
        .iter()
        .map(|(name, _)| format!("- [{name}]({name})\n"))
        .collect();
    problems_with_summary(&format!("# Summary\n\n{summary}"), chapters)
}

fn problems_with_summary(summary: &str, chapters: &[(&str, &str)]) -> Vec<String> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    fs::write(dir.path().join("SUMMARY.md"), summary).expect("write SUMMARY.md");
    for (name, text) in chapters {
        fs::write(dir.path().join(name), text).expect("write a chapter");
    }
    let outcome = tangle_book(dir.path(), "book/src");
    outcome.problems.iter().map(ToString::to_string).collect()
}

const ROOT: &str = "```rust\n// <<file:lib.rs>>=\n// <<body>>\n```\n";

#[test]
fn a_sound_book_has_no_problems() {
    let body = "```rust\n// <<body>>=\nfn f() {}\n```\n";
    assert_eq!(
        problems(&[("a.md", ROOT), ("b.md", body)]),
        Vec::<String>::new()
    );
}

#[test]
fn undefined_reference_suggests_the_nearest_name() {
    let text = "# A\n\n```rust\n// <<file:lib.rs>>=\nfn f() {\n    // <<the bodyy>>\n}\n```\n\n```rust\n// <<the body>>=\nlet x = 1;\n```\n";
    assert_eq!(
        problems(&[("a.md", text)]),
        [
            "book/src/a.md:6:5: undefined chunk ⟨the bodyy⟩; did you mean ⟨the body⟩?",
            "book/src/a.md:11:1: ⟨the body⟩ is never used: no root (`// <<file:NAME.rs>>=`) reaches it",
        ]
    );
}

#[test]
fn undefined_reference_with_nothing_near_has_no_suggestion() {
    let text = "```rust\n// <<file:lib.rs>>=\n// <<something else entirely>>\n```\n";
    assert_eq!(
        problems(&[("a.md", text)]),
        ["book/src/a.md:3:1: undefined chunk ⟨something else entirely⟩"]
    );
}

#[test]
fn a_cycle_is_shown_whole_with_each_step() {
    let a = "```rust\n// <<file:lib.rs>>=\n// <<first>>\n```\n\n```rust\n// <<first>>=\n  // <<second>>\n```\n";
    let b = "Text.\n\n```rust\n// <<second>>=\n// <<first>>\n```\n";
    assert_eq!(
        problems(&[("a.md", a), ("b.md", b)]),
        [
            "book/src/b.md:5:1: cycle: ⟨first⟩ contains itself: ⟨first⟩ → ⟨second⟩ → ⟨first⟩\n    \
          book/src/a.md:8:3: ⟨first⟩ uses ⟨second⟩\n    \
          book/src/b.md:5:1: ⟨second⟩ uses ⟨first⟩"
        ]
    );
}

#[test]
fn a_chunk_that_uses_itself_is_a_cycle() {
    let a = "```rust\n// <<file:lib.rs>>=\n// <<loop>>\n```\n\n```rust\n// <<loop>>=\n// <<loop>>\n```\n";
    assert_eq!(
        problems(&[("a.md", a)]),
        [
            "book/src/a.md:8:1: cycle: ⟨loop⟩ contains itself: ⟨loop⟩ → ⟨loop⟩\n    \
          book/src/a.md:8:1: ⟨loop⟩ uses ⟨loop⟩"
        ]
    );
}

#[test]
fn a_chunk_no_root_reaches_is_reported_with_who_uses_it() {
    let a = format!(
        "{ROOT}\n```rust\n// <<body>>=\n```\n\n```rust\n// <<orphan>>=\n// <<helper>>\n```\n\n```rust\n// <<helper>>=\nfn h() {{}}\n```\n"
    );
    assert_eq!(
        problems(&[("a.md", &a)]),
        [
            "book/src/a.md:11:1: ⟨orphan⟩ is never used: no root (`// <<file:NAME.rs>>=`) reaches it",
            "book/src/a.md:16:1: ⟨helper⟩ is never used: no root (`// <<file:NAME.rs>>=`) reaches it (only ⟨orphan⟩ uses it, and no root reaches that either)",
        ]
    );
}

#[test]
fn a_second_definition_names_both_places() {
    let a = format!("{ROOT}\n```rust\n// <<body>>=\nfn a() {{}}\n```\n");
    let b = "```rust\n// <<body>>=\nfn b() {}\n```\n";
    assert_eq!(
        problems(&[("a.md", &a), ("b.md", b)]),
        [
            "book/src/b.md:2:1: ⟨body⟩ is defined twice; continue a chunk with `// <<body>>+=`\n    \
          book/src/a.md:7:1: first defined here"
        ]
    );
}

#[test]
fn a_continuation_with_no_definition() {
    let a = "```rust\n// <<file:lib.rs>>=\n// <<body>>\n```\n\n```rust\n// <<body>>+=\nfn b() {}\n```\n";
    assert_eq!(
        problems(&[("a.md", a)]),
        ["book/src/a.md:7:1: `+=` continues ⟨body⟩, which is never defined with `// <<body>>=`"]
    );
}

#[test]
fn a_continuation_before_its_definition() {
    let a = format!("{ROOT}\n```rust\n// <<body>>+=\nfn b() {{}}\n```\n");
    let b = "```rust\n// <<body>>=\nfn a() {}\n```\n";
    assert_eq!(
        problems(&[("a.md", &a), ("b.md", b)]),
        [
            "book/src/a.md:7:1: ⟨body⟩ is continued before it is defined; `+=` must come after `=` in book order\n    \
          book/src/b.md:2:1: defined here"
        ]
    );
}

#[test]
fn an_unterminated_fence_is_reported_where_it_opens() {
    let a = format!("{ROOT}\nSome text.\n\n```rust\n// <<body>>=\nfn f() {{}}\n");
    assert_eq!(
        problems(&[("a.md", &a)]),
        [
            "book/src/a.md:8:1: unterminated fence: this code block has no closing fence and runs to the end of the file"
        ]
    );
}

#[test]
fn a_fence_left_open_before_the_next_chunk_is_reported_where_it_opens() {
    let a = format!(
        "{ROOT}\n```rust\n// <<body>>=\nfn f() {{}}\n\nSome prose, meant to follow the code.\n\n```rust\n// <<more>>=\nfn g() {{}}\n```\n"
    );
    let opened = a.lines().position(|l| l == "// <<body>>=").unwrap();
    let inner = a.lines().position(|l| l == "// <<more>>=").unwrap();
    let fence = "\u{60}\u{60}\u{60}";
    assert_eq!(
        problems(&[("a.md", &a)]),
        [
            format!(
                "book/src/a.md:{opened}:1: unclosed fence: this code block runs on past line \
                 {inner}, where {fence}rust seems to open another; close it with {fence} on a \
                 line of its own before the prose that follows it"
            ),
            "book/src/a.md:3:1: undefined chunk ⟨body⟩".to_string(),
        ]
    );
}

#[test]
fn malformed_headers_and_references() {
    let a = "```rust\n// <<file:lib.rs>\n```\n\n```rust\n// <<file:lib.rs>>=\n    // <<body>> and more\n// <<body>>=\n```\n\n```rust,ignore extra\n// <<x>>=\n```\n";
    assert_eq!(
        problems(&[("a.md", a)]),
        [
            "book/src/a.md:2:1: malformed header: chunk marker is not closed: expected `>>` after the name",
            "book/src/a.md:7:1: malformed reference: unexpected `and more` after the chunk name: a header ends in `>>=` or `>>+=`, a reference in `>>`",
            "book/src/a.md:8:1: malformed header: the header of ⟨body⟩ must be the first line of its own code block",
            "book/src/a.md:11:1: malformed fence `rust,ignore extra`: a chunk's fence is plain `rust`, with extra flags after a comma and no space (`rust,ignore`)",
            "book/src/a.md:12:1: ⟨x⟩ is never used: no root (`// <<file:NAME.rs>>=`) reaches it",
        ]
    );
}

#[test]
fn a_header_after_the_first_line_of_an_illustration() {
    let a = format!(
        "{ROOT}\n```rust\n// <<body>>=\n```\n\n```rust\nfn shown() {{}}\n// <<late>>=\n```\n"
    );
    assert_eq!(
        problems(&[("a.md", &a)]),
        [
            "book/src/a.md:12:1: malformed header: the header of ⟨late⟩ must be the first line of its code block"
        ]
    );
}

#[test]
fn a_root_outside_the_output_directory_or_not_rust() {
    let a = "```rust\n// <<file:../escape.rs>>=\n```\n\n```rust\n// <<file:notes.txt>>=\n```\n";
    assert_eq!(
        problems(&[("a.md", a)]),
        [
            "book/src/a.md:2:1: malformed header: root file `../escape.rs` must be a relative path inside the output directory",
            "book/src/a.md:6:1: malformed header: root file `notes.txt` must end in `.rs`: a `rust` block makes a Rust file; a JavaScript one is written in a `js` block",
        ]
    );
}

#[test]
fn a_root_in_the_wrong_language_for_its_block() {
    let a = "```js\n// <<file:page.rs>>=\n```\n\n```rust\n// <<file:page.js>>=\n```\n";
    assert_eq!(
        problems(&[("a.md", a)]),
        [
            "book/src/a.md:2:1: malformed header: root file `page.rs` must end in `.js`: a `js` block makes a JavaScript file; a Rust one is written in a `rust` block",
            "book/src/a.md:6:1: malformed header: root file `page.js` must end in `.rs`: a `rust` block makes a Rust file; a JavaScript one is written in a `js` block",
        ]
    );
}

#[test]
fn a_chunk_of_one_language_used_in_another() {
    let a = format!(
        "{ROOT}\n```rust\n// <<body>>=\n// <<the page's part>>\n```\n\n```js\n// <<file:page.js>>=\n// <<the page's part>>\n```\n\n```js\n// <<the page's part>>=\nlet x = 1;\n```\n"
    );
    assert_eq!(
        problems(&[("a.md", &a)]),
        [
            "book/src/a.md:8:1: ⟨the page's part⟩ is JavaScript; it cannot be used inside ⟨body⟩, which is Rust\n    \
          book/src/a.md:17:1: defined here"
        ]
    );
}

#[test]
fn a_chunk_continued_in_another_language() {
    let a = "```js\n// <<file:page.js>>=\n// <<greeting>>\n```\n\n```js\n// <<greeting>>=\nlet x = 1;\n```\n\n```rust\n// <<greeting>>+=\nfn f() {}\n```\n";
    assert_eq!(
        problems(&[("a.md", a)]),
        [
            "book/src/a.md:12:1: this part of ⟨greeting⟩ is Rust, but the chunk is JavaScript; a chunk is written in one language\n    \
          book/src/a.md:7:1: its first part is here"
        ]
    );
}

#[test]
fn a_javascript_root_is_a_script_beside_the_rust_files() {
    let a = format!(
        "{ROOT}\n```rust\n// <<body>>=\npub fn f() {{}}\n```\n\n```js\n// <<file:page.js>>=\n# not a Rust attribute, and no Rust syntax\n// <<greeting>>\n```\n\n```javascript\n// <<greeting>>=\nconsole.log(\"hello\");\n```\n"
    );
    let dir = tempfile::tempdir().expect("a temporary directory");
    fs::write(dir.path().join("SUMMARY.md"), "- [a](a.md)\n").expect("write SUMMARY.md");
    fs::write(dir.path().join("a.md"), &a).expect("write a chapter");
    let outcome = tangle_book(dir.path(), "book/src");
    assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
    let names = |files: &[litbook::TangledFile]| -> Vec<String> {
        files.iter().map(|f| f.name.clone()).collect()
    };
    assert_eq!(names(&outcome.files), ["lib.rs"]);
    assert_eq!(names(&outcome.scripts), ["page.js"]);
    let script = &outcome.scripts[0].text;
    assert!(
        script.ends_with("# not a Rust attribute, and no Rust syntax\n// ⟨greeting⟩= book/src/a.md\nconsole.log(\"hello\");\n"),
        "{script}"
    );
}

#[test]
fn a_root_written_twice() {
    let a = "```rust\n// <<file:lib.rs>>=\n```\n\n```rust\n// <<file:./lib.rs>>=\n```\n";
    assert_eq!(
        problems(&[("a.md", a)]),
        [
            "book/src/a.md:6:1: ⟨file:./lib.rs⟩ writes `lib.rs`, which another root already writes\n    \
          book/src/a.md:2:1: ⟨file:lib.rs⟩ writes it here"
        ]
    );
}

#[test]
fn a_root_used_inside_another_chunk() {
    let a = "```rust\n// <<file:lib.rs>>=\n// <<file:other.rs>>\n```\n\n```rust\n// <<file:other.rs>>=\n```\n";
    assert_eq!(
        problems(&[("a.md", a)]),
        [
            "book/src/a.md:3:1: ⟨file:other.rs⟩ is a root, a file of its own; it cannot also be used inside ⟨file:lib.rs⟩"
        ]
    );
}

#[test]
fn a_missing_chapter_is_reported_at_its_summary_link() {
    let summary = "# Summary\n\n- [Present](a.md)\n- [Missing](gone.md)\n- [Draft]()\n";
    assert_eq!(
        problems_with_summary(summary, &[("a.md", "```rust\n// <<file:lib.rs>>=\n```\n")]),
        [
            "book/src/SUMMARY.md:4:3: chapter `gone.md` listed in SUMMARY.md cannot be read: no such file"
        ]
    );
}

#[test]
fn a_missing_summary_is_reported() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let outcome = tangle_book(dir.path(), "book/src");
    let problems: Vec<String> = outcome.problems.iter().map(ToString::to_string).collect();
    assert_eq!(problems, ["book/src/SUMMARY.md:1:1: no such file"]);
}

#[test]
fn a_line_mdbook_would_hide() {
    let a = "```rust\n// <<file:lib.rs>>=\n# [allow(dead_code)]\nfn f() {}\n```\n";
    assert_eq!(
        problems(&[("a.md", a)]),
        [
            "book/src/a.md:3:1: a line of a Rust block starts with `#`, which mdbook hides from readers; write attributes as `#[…]`"
        ]
    );
}

#[test]
fn a_syntax_error_is_reported_at_its_markdown_line_and_column() {
    let a = "# A\n\n```rust\n// <<file:lib.rs>>=\nfn f() {\n    // <<body>>\n}\n```\n";
    let b = "```rust\n// <<body>>=\nlet x = 1 +;\n```\n";
    assert_eq!(
        problems(&[("a.md", a), ("b.md", b)]),
        ["book/src/b.md:3:12: syntax error in tangled Rust (lib.rs): expected an expression"]
    );
}

#[test]
fn a_bracket_left_open_is_named_at_its_place() {
    let a =
        "# A\n\n```rust\n// <<file:lib.rs>>=\nfn f(v: &mut Vec<char>) {\n    // <<body>>\n}\n```\n";
    let b = "```rust\n// <<body>>=\n// a ( in a comment, /* ( */ and a string \")\"\nv.push(')'); v.push('\\''); v.push(r#\"(\"#);\nv.push('x';\n```\n";
    assert_eq!(
        problems(&[("a.md", a), ("b.md", b)]),
        [
            "book/src/b.md:5:7: syntax error in tangled Rust (lib.rs): this `(` is not closed: a \
             `}` comes after it where its `)` belongs"
        ]
    );
    let c = "```rust\n// <<body>>=\nlet s: &'static str = \"{\";\n}\n```\n";
    assert_eq!(
        problems(&[("a.md", a), ("b.md", c)]),
        [
            "book/src/a.md:7:1: syntax error in tangled Rust (lib.rs): unexpected `}`: no bracket is open here"
        ],
        "the `}}` of b.md closes the function's `{{`, so the function's own is the one too many"
    );
    let d = "```rust\n// <<file:lib.rs>>=\nfn f(v: &mut Vec<char>) {\n    v.push('{');\n```\n";
    assert_eq!(
        problems(&[("a.md", d)]),
        [
            "book/src/a.md:3:25: syntax error in tangled Rust (lib.rs): this `{` is never closed: add its `}`"
        ]
    );
}

#[test]
fn chapters_that_are_not_utf8_are_reported_where_the_bad_byte_is() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    fs::write(dir.path().join("SUMMARY.md"), "- [A](a.md)\n").unwrap();
    fs::write(
        dir.path().join("a.md"),
        b"ok\nab\xffc\n\n```rust\n// <<file:lib.rs>>=\n// <<body>>\n```\n\n```rust\n// <<body>>=\n```\n",
    )
    .unwrap();
    let outcome = tangle_book(dir.path(), "book/src");
    let problems: Vec<String> = outcome.problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        ["book/src/a.md:2:3: the file is not valid UTF-8 here"],
        "the chapter's chunks are still read, so nothing else is reported"
    );
}

#[test]
fn an_inner_doc_comment_in_a_root_is_reported() {
    let a = "```rust\n// <<file:lib.rs>>=\n//! Docs.\nfn f() {}\n```\n";
    assert_eq!(
        problems(&[("a.md", a)]),
        [
            "book/src/a.md:3:1: syntax error in tangled Rust (lib.rs): inner attributes and `//!` comments cannot be included with `include!`; put them on the `mod` in src/"
        ]
    );
}

#[test]
fn a_chunk_fenced_with_another_word_for_its_language_is_reported_at_its_fence() {
    for (word, said) in [("Rust", "`Rust`"), ("rs", "`rs`"), ("", "no language")] {
        let a = format!(
            "{ROOT}\n```rust\n// <<body>>=\n```\n\n```{word}\n// <<more>>=\nfn f() {{}}\n```\n"
        );
        let found = problems(&[("a.md", &a)]);
        let fence = a.lines().position(|l| l == "// <<more>>=").unwrap();
        assert_eq!(
            found,
            [format!(
                "book/src/a.md:{fence}:1: a fence of {said} makes an illustration, never tangled, \
                 yet its first line is a chunk's header: write `rust` after the fence to make it a \
                 chunk"
            )]
        );
    }
    for word in ["Rust", "text", ""] {
        let shown =
            format!("{ROOT}\n```rust\n// <<body>>=\n```\n\n```{word}\nfn shown() {{}}\n```\n");
        let none = problems(&[("a.md", &shown)]);
        assert!(
            none.is_empty(),
            "an illustration with no header is no problem: {none:?}"
        );
    }
    let syntax = format!("{ROOT}\n```rust\n// <<body>>=\n```\n\n```text\n// <<more>>=\n```\n");
    assert!(
        problems(&[("a.md", &syntax)]).is_empty(),
        "a header shown as text is an illustration of the syntax"
    );
}

#[test]
fn a_test_chunk_whose_header_opens_with_one_bracket_is_reported_at_its_line() {
    let a = format!(
        "{ROOT}\n```rust\n// <<body>>=\nfn f() {{}}\n```\n\n```rust\n// <body>>+=\n#[test]\nfn t() {{}}\n```\n"
    );
    let line = a.lines().position(|l| l == "// <body>>+=").unwrap() + 1;
    assert_eq!(
        problems(&[("a.md", &a)]),
        [format!(
            "book/src/a.md:{line}:1: malformed header: this comment reads as a chunk marker with \
             one `<`: write `// <<body>>+=`"
        )]
    );
}
