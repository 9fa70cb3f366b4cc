//! Books written to hurt the tangler: deep nesting, long chains of chunks, thousands of problems,
//! chunks that double at every level. Each gets its errors, promptly, and never a crash. The time
//! limit is a guard against a crawl (the work is linear and takes milliseconds), not a measure of
//! speed; the benchmarks measure that.

use std::fmt::Write as _;
use std::fs;
use std::time::{Duration, Instant};

use litbook::{MAX_NESTING, Outcome, check_shells, tangle_book};

/// Far more than any of these books needs; a quadratic step or a recursion would blow through it.
const PROMPTLY: Duration = Duration::from_secs(2);

/// Tangles a one-chapter book, checking that the answer comes promptly.
fn tangle_chapter(chapter: &str) -> Outcome {
    let dir = tempfile::tempdir().expect("a temporary directory");
    fs::write(dir.path().join("SUMMARY.md"), "- [A](a.md)\n").unwrap();
    fs::write(dir.path().join("a.md"), chapter).unwrap();
    let start = Instant::now();
    let outcome = tangle_book(dir.path(), "book/src");
    let took = start.elapsed();
    assert!(took < PROMPTLY, "tangling took {took:?}");
    outcome
}

fn problems(chapter: &str) -> Vec<String> {
    let outcome = tangle_chapter(chapter);
    outcome.problems.iter().map(ToString::to_string).collect()
}

/// A chunk of `depth` nested blocks inside a function, with `inner` in the middle.
fn nested(depth: usize, inner: &str) -> String {
    format!(
        "```rust\n// <<file:lib.rs>>=\nfn f() {{\n{}{inner}\n{}\n}}\n```\n",
        "{".repeat(depth),
        "}".repeat(depth)
    )
}

#[test]
fn nesting_past_the_limit_is_an_error_at_the_first_bracket_too_deep() {
    let problems = problems(&nested(1000, "let x = 1;"));
    // Line 4 holds the nested braces; the function's own brace is the first level.
    let column = MAX_NESTING;
    assert_eq!(
        problems,
        [format!(
            "book/src/a.md:4:{column}: syntax error in tangled Rust (lib.rs): brackets nest more than {MAX_NESTING} deep here; split the code into functions"
        )]
    );
}

#[test]
fn deep_nesting_within_the_limit_is_checked_to_its_innermost_line() {
    let depth = MAX_NESTING - 10;
    assert_eq!(problems(&nested(depth, "let x = 1;")), Vec::<String>::new());
    assert_eq!(
        problems(&nested(depth, "let x = ;")),
        ["book/src/a.md:4:".to_string()
            + &(depth + 9).to_string()
            + ": syntax error in tangled Rust (lib.rs): expected an expression"]
    );
}

/// A chain of `n` chunks, each using the next; the last uses `last_uses` if given.
fn chain(n: usize, last_uses: Option<usize>) -> String {
    let mut text = String::from("```rust\n// <<file:lib.rs>>=\n// <<c0>>\n```\n");
    for i in 0..n {
        let body = match (i + 1 < n, last_uses) {
            (true, _) => format!("// <<c{}>>", i + 1),
            (false, Some(target)) => format!("// <<c{target}>>"),
            (false, None) => "fn f() {}".to_string(),
        };
        let _ = write!(text, "\n```rust\n// <<c{i}>>=\n{body}\n```\n");
    }
    text
}

#[test]
fn a_chain_of_twenty_thousand_chunks_tangles_without_overflowing() {
    let outcome = tangle_chapter(&chain(20_000, None));
    assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
    assert!(outcome.files[0].text.contains("fn f() {}"));
}

#[test]
fn a_cycle_twenty_thousand_chunks_long_is_one_error_shown_in_part() {
    let problems = problems(&chain(20_000, Some(0)));
    assert_eq!(problems.len(), 1, "{problems:?}");
    let problem = &problems[0];
    assert!(
        problem.starts_with(
            "book/src/a.md:100003:1: cycle: ⟨c0⟩ contains itself: ⟨c0⟩ → ⟨c1⟩ → ⟨c2⟩ → ⟨c3⟩ → ⟨c4⟩ → ⟨c5⟩ → … 19988 more … → ⟨c19994⟩"
        ),
        "{problem}"
    );
    assert_eq!(
        problem.lines().count(),
        1 + 12,
        "one line for each step shown"
    );
}

#[test]
fn twenty_thousand_unused_chunks_are_each_reported() {
    let mut text = String::from("```rust\n// <<file:lib.rs>>=\nfn f() {}\n```\n");
    for i in 0..20_000 {
        let _ = write!(
            text,
            "\n```rust\n// <<unused {i}>>=\n// <<unused {}>>\n```\n",
            i + 1
        );
    }
    let _ = write!(text, "\n```rust\n// <<unused 20000>>=\n```\n");
    let problems = problems(&text);
    assert_eq!(problems.len(), 20_001);
    assert_eq!(
        problems[1],
        "book/src/a.md:12:1: ⟨unused 1⟩ is never used: no root (`// <<file:NAME.rs>>=`) reaches it (only ⟨unused 0⟩ uses it, and no root reaches that either)"
    );
}

#[test]
fn twenty_thousand_undefined_references_are_each_reported() {
    let mut text = String::from("```rust\n// <<file:lib.rs>>=\n");
    for i in 0..20_000 {
        let _ = writeln!(text, "// <<chunc {i}>>");
    }
    text.push_str("```\n");
    for i in 0..20_000 {
        let _ = write!(text, "\n```rust\n// <<chunk {i}>>=\n```\n");
    }
    let problems = problems(&text);
    assert_eq!(
        problems.len(),
        40_000,
        "each reference and each unused chunk"
    );
    assert_eq!(
        problems[0],
        "book/src/a.md:3:1: undefined chunk ⟨chunc 0⟩; did you mean ⟨chunk 0⟩?"
    );
    assert_eq!(
        problems[19_999], "book/src/a.md:20002:1: undefined chunk ⟨chunc 19999⟩",
        "past the first twenty, no suggestion is looked for"
    );
}

#[test]
fn a_chunk_that_doubles_at_every_level_is_stopped_where_it_grows_too_big() {
    let mut text = String::from("```rust\n// <<file:lib.rs>>=\n// <<level 24>>\n```\n");
    text.push_str("\n```rust\n// <<level 0>>=\nlet x = 1;\n```\n");
    for i in 1..=24 {
        let _ = write!(
            text,
            "\n```rust\n// <<level {i}>>=\n// <<level {}>>\n// <<level {}>>\n```\n",
            i - 1,
            i - 1
        );
    }
    let problems = problems(&text);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("book/src/a.md:120:1: ⟨level 19⟩ expands to 1572863 lines"),
        "{}",
        problems[0]
    );
    assert!(
        problems[0].ends_with("it uses ⟨level 18⟩ 2 time(s), 786431 lines each"),
        "{}",
        problems[0]
    );
}

#[test]
fn a_chapter_with_chunks_missing_from_the_summary_is_named() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    fs::write(dir.path().join("SUMMARY.md"), "- [A](a.md)\n").unwrap();
    fs::write(
        dir.path().join("a.md"),
        "```rust\n// <<file:lib.rs>>=\nfn f() {}\n```\n",
    )
    .unwrap();
    fs::create_dir(dir.path().join("more")).unwrap();
    fs::write(
        dir.path().join("more/b.md"),
        "# B\n\n```rust\n// <<file:b.rs>>=\nfn g() {}\n```\n",
    )
    .unwrap();
    fs::write(
        dir.path().join("notes.md"),
        "Only prose.\n\n```rust\nfn shown() {}\n```\n",
    )
    .unwrap();
    let outcome = tangle_book(dir.path(), "book/src");
    let problems: Vec<String> = outcome.problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        [
            "book/src/more/b.md:4:1: this chapter holds chunks, but SUMMARY.md does not list it, so they are not part of the program; list it in SUMMARY.md: `- [Title](more/b.md)`"
        ]
    );
}

#[test]
fn every_root_must_be_included_and_every_include_made() {
    let outcome = tangle_chapter(
        "```rust\n// <<file:lib.rs>>=\nfn f() {}\n```\n\n```rust\n// <<file:extra.rs>>=\nfn g() {}\n```\n",
    );
    assert!(outcome.problems.is_empty());
    let crate_dir = tempfile::tempdir().expect("a temporary directory");
    fs::create_dir(crate_dir.path().join("src")).unwrap();
    fs::write(
        crate_dir.path().join("src/lib.rs"),
        "include!(concat!(env!(\"OUT_DIR\"), \"/lib.rs\"));\n\nmod old {\n    include!(concat!(env!(\"OUT_DIR\"), \"/old.rs\"));\n}\n",
    )
    .unwrap();
    let problems: Vec<String> = check_shells(crate_dir.path(), &outcome.files, &mut litbook::Disk)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        problems,
        [
            "book/src/a.md:7:1: this root becomes `extra.rs`, but no file in src/ or tests/ includes it, so it would never be compiled; add to src/lib.rs: `pub mod extra { include!(concat!(env!(\"OUT_DIR\"), \"/extra.rs\")); }`",
            "src/lib.rs:4:41: this includes `old.rs`, but no root of the book makes it; write one with `// <<file:old.rs>>=`, or remove the include",
        ]
    );
}
