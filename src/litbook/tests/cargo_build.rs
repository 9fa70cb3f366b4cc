//! The promises a person editing the book relies on, shown on a real crate: a small book built by
//! the project's own `build.rs` with `cargo build`, and checked with `litbook check`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "support/shared_build.rs"]
mod shared_build;
// This file copies a crate with the shared helper, and needs none of the others.
#[allow(dead_code)]
mod support;

/// The chat-noir crate this tooling serves.
fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A crate built exactly like chat-noir (its build.rs, its shell, its lock file) around one chapter.
fn fixture(chapter: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = project_root();
    let literate = Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap();
    let manifest = format!(
        "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
         {}\n[workspace]\n",
        build_dependencies(&root, &literate)
    );
    fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    fs::copy(root.join("build.rs"), dir.path().join("build.rs")).unwrap();
    fs::copy(root.join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
    fs::create_dir_all(dir.path().join("src")).unwrap();
    fs::write(
        dir.path().join("src/lib.rs"),
        "include!(concat!(env!(\"OUT_DIR\"), \"/lib.rs\"));\n",
    )
    .unwrap();
    fs::create_dir_all(dir.path().join("book/src")).unwrap();
    fs::write(dir.path().join("book/src/SUMMARY.md"), "- [A](a.md)\n").unwrap();
    fs::write(dir.path().join("book/src/a.md"), chapter).unwrap();
    dir
}

/// The `[build-dependencies]` of chat-noir's manifest, which its build script uses, with the path
/// to `litbook` made absolute: the fixture's build script is chat-noir's.
fn build_dependencies(root: &Path, literate: &Path) -> String {
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let from = manifest
        .find("[build-dependencies]")
        .expect("chat-noir's manifest has build dependencies");
    let section = &manifest[from..];
    let end = section[1..].find("\n[").map_or(section.len(), |at| at + 2);
    let relative = "path = \"src/litbook\"";
    assert!(section[..end].contains(relative), "{}", &section[..end]);
    section[..end].replace(
        relative,
        &format!("path = {:?}", literate.display().to_string()),
    )
}

/// Runs a command in the fixture, compiling only the crates there (their dependencies from
/// crates.io are compiled already, by the build of these tests).
fn run(mut command: Command, dir: &Path) -> Output {
    let tests_tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    shared_build::share_compiled_dependencies(&mut command, tests_tmp, "fixture-target");
    command.current_dir(dir).output().expect("cargo runs")
}

fn cargo_build(dir: &Path) -> Output {
    let mut command = Command::new(env!("CARGO"));
    command.args(["build", "--offline", "--quiet"]);
    run(command, dir)
}

const GOOD: &str = "# A\n\n```rust\n// <<file:lib.rs>>=\npub fn answer() -> u32 {\n    // <<the answer>>\n}\n```\n\n```rust\n// <<the answer>>=\n42\n```\n";

#[test]
fn an_undefined_reference_stops_cargo_build_at_its_markdown_line() {
    let dir = fixture(&GOOD.replace(
        "    // <<the answer>>",
        "    // <<the answer>>\n    // <<no such chunk>>",
    ));
    let output = cargo_build(dir.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("error: fixture@0.1.0: book/src/a.md:7:5: undefined chunk ⟨no such chunk⟩"),
        "{stderr}"
    );
}

#[test]
fn a_syntax_error_stops_cargo_build_at_its_markdown_line() {
    let dir = fixture(&GOOD.replace("\n42\n", "\n42 +\n"));
    let output = cargo_build(dir.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("book/src/a.md:7:1: syntax error in tangled Rust (lib.rs): unexpected end of input, expected an expression"),
        "{stderr}"
    );
}

#[test]
fn a_type_error_is_shown_at_its_markdown_line_by_literate_check() {
    let dir = fixture(&GOOD.replace("\n42\n", "\n\"42\"\n"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_litbook"));
    command.args(["check", "--offline"]).env("NO_COLOR", "1");
    let output = run(command, dir.path());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "{stdout}");
    assert!(
        stdout.contains("error[E0308]: mismatched types\n  --> book/src/a.md:12:1\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("12 | \"42\"\n   | ^^^^ expected `u32`, found `&str`"),
        "{stdout}"
    );
    assert!(
        stdout.contains("litbook check: 1 error(s), 0 warning(s)"),
        "{stdout}"
    );
}

#[test]
fn a_sound_book_builds() {
    let dir = fixture(GOOD);
    let output = cargo_build(dir.path());
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn after_a_good_build_a_syntax_error_still_stops_it_and_its_fix_builds() {
    let dir = fixture(GOOD);
    let chapter = dir.path().join("book/src/a.md");
    let built = |dir: &Path| {
        let output = cargo_build(dir);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        (output.status.success(), stderr)
    };
    assert!(built(dir.path()).0);
    fs::write(&chapter, GOOD.replace("\n42\n", "\n42 +\n")).unwrap();
    let (success, stderr) = built(dir.path());
    assert!(!success, "{stderr}");
    assert!(
        stderr.contains("book/src/a.md:7:1: syntax error"),
        "{stderr}"
    );
    fs::write(
        &chapter,
        GOOD.replace("# A\n", "# A\n\nA sentence of prose.\n"),
    )
    .unwrap();
    let (success, stderr) = built(dir.path());
    assert!(success, "{stderr}");
}

#[test]
fn only_files_not_vouched_for_are_parsed_again() {
    let dir = fixture(&GOOD.replace("\n42\n", "\n42 +\n"));
    let vouched = litbook::tangle_crate_trusting(dir.path(), &|_| true);
    assert!(vouched.problems.is_empty(), "{:?}", vouched.problems);
    let parsed = litbook::tangle_crate_trusting(dir.path(), &|_| false);
    let problems: Vec<String> = parsed.problems.iter().map(ToString::to_string).collect();
    assert!(
        problems.len() == 1 && problems[0].contains("syntax error"),
        "{problems:?}"
    );
}

/// A copy of the Chat Noir crate itself (its manifest, lock file, build script, shells, tools and
/// book), to be built; `copy` tells its compiled files apart from the crate's and the other copies'.
fn copy_of_chat_noir(copy: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = project_root();
    for file in ["Cargo.toml", "Cargo.lock", "build.rs"] {
        fs::copy(root.join(file), dir.path().join(file)).unwrap();
    }
    for tree in ["src", "tests", "book/src"] {
        support::copy_tree(&root.join(tree), &dir.path().join(tree));
    }
    fs::copy(
        root.join("book/book.toml"),
        dir.path().join("book/book.toml"),
    )
    .unwrap();
    shared_build::tell_apart(dir.path(), copy);
    dir
}

#[test]
#[ignore = "long, it builds a copy of Chat Noir: bash .ci/run runs it"]
fn a_failing_test_of_the_book_is_reported_at_its_line_in_our_tests_md() {
    let copy = copy_of_chat_noir("failing");
    let chapter = copy.path().join("book/src/our-tests.md");
    let text = fs::read_to_string(&chapter).unwrap();
    let wrong = "assert_eq!(board.iter().filter(|c| c.blocked).count(), 7);";
    let failing = text.replacen(
        "assert_eq!(board.iter().filter(|c| c.blocked).count(), 6);",
        wrong,
        1,
    );
    assert_ne!(failing, text, "our-tests.md has the assertion");
    fs::write(&chapter, &failing).unwrap();
    let mut test = Command::new(env!("CARGO_BIN_EXE_litbook"));
    test.args([
        "test",
        "--lib",
        "--",
        "random_blocking_never_blocks_the_middle_cell",
    ]);
    let output = run(test, copy.path());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(101), "{stdout}");
    let line = failing.lines().position(|l| l.contains(wrong)).unwrap() + 1;
    let place = format!("panicked at book/src/our-tests.md:{line}:5:  [tangled: OUT_DIR/tests.rs:");
    assert!(stdout.contains(&place), "{stdout}");
    assert!(!stdout.contains("/out/tests.rs"), "{stdout}");
}

#[test]
#[ignore = "long, it builds a copy of Chat Noir and its window: bash .ci/run runs it"]
fn a_panic_in_the_game_s_program_is_reported_at_its_line_in_window_md() {
    let copy = copy_of_chat_noir("panicking");
    let chapter = copy.path().join("book/src/window.md");
    let text = fs::read_to_string(&chapter).unwrap();
    let parse = "    let options = Options::parse();\n";
    let wrong = "assert!(options.size < 5, \"a board of {} cells a side\", options.size);";
    let panicking = text.replacen(parse, &format!("{parse}    {wrong}\n"), 1);
    assert_ne!(panicking, text, "window.md's main parses the options");
    fs::write(&chapter, &panicking).unwrap();
    let mut program = Command::new(env!("CARGO_BIN_EXE_litbook"));
    program.args(["run", "--features", "window", "--", "--seed", "1"]);
    program.env("RUST_BACKTRACE", "1");
    let output = run(program, copy.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(101), "{stderr}");
    let line = panicking.lines().position(|l| l.contains(wrong)).unwrap() + 1;
    let place = format!("panicked at book/src/window.md:{line}:5:  [tangled: OUT_DIR/main.rs:");
    assert!(stderr.contains(&place), "{stderr}");
    let frame = format!("at book/src/window.md:{line}:5  [tangled: OUT_DIR/main.rs:");
    assert!(stderr.contains(&frame), "a backtrace frame: {stderr}");
    assert!(!stderr.contains("/out/main.rs"), "{stderr}");
}
