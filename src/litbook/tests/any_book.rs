//! The tools serve any literate Rust book, not only Chat Noir's: a second book (`tests/books/roman`,
//! Roman numerals), with its book in `docs/`, its chapters in `docs/chapters`, edition 2021 and no
//! figures, is tangled and tested by cargo, checked, woven by mdbook, and formatted, each with the
//! same command as Chat Noir's (the language server's tests serve it too). And `litbook init`
//! makes a crate from `cargo new` into a book that does all of that.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

// This file builds no copy of Chat Noir, so it tells none apart.
#[allow(dead_code)]
#[path = "support/shared_build.rs"]
mod shared_build;
mod support;

use support::{literate_dir, roman, roman_with_a_failing_test};

/// Runs a command in `dir`, compiling only the crates there (its dependencies from crates.io are
/// compiled already, by the build of these tests); `PATH` starts with the weaver's directory.
fn run(mut command: Command, dir: &Path) -> Output {
    let tests_tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    shared_build::share_compiled_dependencies(&mut command, tests_tmp, "fixture-target");
    let literate_dir = Path::new(env!("CARGO_BIN_EXE_litbook")).parent().unwrap();
    let path = std::env::join_paths(
        [weaver_dir(), literate_dir]
            .into_iter()
            .map(Path::to_path_buf)
            .chain(std::env::split_paths(
                &std::env::var_os("PATH").unwrap_or_default(),
            )),
    )
    .unwrap();
    command
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .expect("the command runs")
}

fn literate(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_litbook"));
    command.args(args);
    command
}

fn cargo(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO"));
    command.args(args);
    command
}

/// The directory of `mdbook-litbook`, built from this workspace once for all these tests.
fn weaver_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let output = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--package", "mdbook-litbook"])
            .args(["--message-format", "json"])
            .current_dir(literate_dir())
            .env_remove("CARGO_MAKEFLAGS")
            .output()
            .expect("cargo builds the weaver");
        assert!(output.status.success(), "{}", stderr(&output));
        let stdout = String::from_utf8_lossy(&output.stdout);
        let executable = stdout
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .find_map(|message| {
                let built = message["target"]["name"] == "mdbook-litbook";
                built.then(|| message["executable"].as_str().map(PathBuf::from))?
            })
            .expect("cargo names the weaver it built");
        executable.parent().unwrap().to_path_buf()
    })
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn succeeded(output: &Output) {
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        stderr(output)
    );
}

/// The 1-based number of the line of `text` that holds `needle`.
fn line_number(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn the_second_book_is_tangled_and_its_tests_pass() {
    let book = roman();
    let output = run(cargo(&["test"]), book.path());
    succeeded(&output);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("test result: ok. 2 passed"), "{stdout}");
}

#[test]
fn its_mistakes_are_reported_at_its_own_chapter_lines() {
    let book = roman();
    let chapter = book.path().join("docs/chapters/writing.md");
    let text = fs::read_to_string(&chapter).unwrap();
    let typed = text.replace("numeral.push_str(symbol);", "numeral.push_str(value);");
    fs::write(&chapter, &typed).unwrap();
    let output = run(literate(&["check"]), book.path());
    assert!(!output.status.success());
    let line = line_number(&typed, "numeral.push_str(value);");
    let place = format!("--> docs/chapters/writing.md:{line}:30");
    let shown = String::from_utf8_lossy(&output.stdout);
    assert_eq!(shown.matches(&place).count(), 1, "{shown}");
    let tested = run(literate(&["test"]), book.path());
    assert!(!tested.status.success());
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&tested.stdout),
        stderr(&tested)
    );
    assert_eq!(
        shown.matches(&place).count(),
        1,
        "shown once, though the library and its tests both report it: {shown}"
    );

    let broken = text.replace("// <<reading a numeral>>\n", "// <<reading a numeal>>\n");
    fs::write(&chapter, &broken).unwrap();
    let output = run(cargo(&["build"]), book.path());
    assert!(!output.status.success());
    let line = line_number(&broken, "<<reading a numeal>>");
    let place = format!("docs/chapters/writing.md:{line}:");
    assert!(stderr(&output).contains(&place), "{}", stderr(&output));
}

#[test]
fn check_says_in_one_line_why_cargo_stopped_before_the_compiler() {
    let book = roman();
    for (args, said) in [
        (
            &["check", "--bogus"][..],
            "litbook check: cargo refused the arguments",
        ),
        (
            &["build", "--release", "--bogus"],
            "litbook build: cargo refused the arguments",
        ),
    ] {
        let refused = run(literate(args), book.path());
        assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
        let all = stderr(&refused);
        let last = all.lines().last().unwrap_or_default();
        assert!(last.starts_with(said), "{all}");
        assert!(!String::from_utf8_lossy(&refused.stdout).contains("error(s)"));
    }

    let chapter = book.path().join("docs/chapters/writing.md");
    let text = fs::read_to_string(&chapter).unwrap();
    let broken = text.replace("// <<reading a numeral>>\n", "// <<reading a numeal>>\n");
    fs::write(&chapter, &broken).unwrap();
    let stopped = run(literate(&["check"]), book.path());
    assert_eq!(stopped.status.code(), Some(1), "{}", stderr(&stopped));
    let said = stderr(&stopped);
    let line = line_number(&broken, "<<reading a numeal>>");
    assert!(
        said.contains(&format!("docs/chapters/writing.md:{line}:")),
        "{said}"
    );
    let last = said.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("litbook check: cargo stopped before the compiler"),
        "{said}"
    );
    assert!(!String::from_utf8_lossy(&stopped.stdout).contains("error(s)"));
}

#[test]
fn literate_test_reports_a_failing_test_and_its_backtrace_at_chapter_lines() {
    let (book, text, failing) = roman_with_a_failing_test();
    let mut test = literate(&["test", "--test", "round_trip"]);
    test.env("RUST_BACKTRACE", "1");
    let output = run(test, book.path());
    assert_eq!(output.status.code(), Some(101), "cargo test's own status");
    let line = line_number(&failing, "Some(String::new())");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let panicked = format!(
        "panicked at docs/chapters/there-and-back.md:{line}:5:  [tangled: OUT_DIR/round_trip.rs:"
    );
    assert!(stdout.contains(&panicked), "{stdout}");
    let frame = format!("at docs/chapters/there-and-back.md:{line}:5  [tangled:");
    assert!(stdout.contains(&frame), "a backtrace frame: {stdout}");
    assert!(
        stdout.contains("test result: FAILED. 1 passed; 1 failed"),
        "{stdout}"
    );
    assert!(!stdout.contains("/out/round_trip.rs"), "{stdout}");

    let broken = text.replace("for n in 1..=3999 {", "for n in 1..=3999u8 {");
    let chapter = book.path().join("docs/chapters/there-and-back.md");
    fs::write(&chapter, &broken).unwrap();
    let output = run(literate(&["build", "--tests"]), book.path());
    assert_eq!(output.status.code(), Some(101));
    let line = line_number(&broken, "to_roman(n).expect");
    let place = format!("--> docs/chapters/there-and-back.md:{line}:");
    assert!(stderr(&output).contains(&place), "{}", stderr(&output));
    assert!(
        !stderr(&output).contains("/out/round_trip.rs"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_second_book_is_woven_by_mdbook_with_the_weavers_theme() {
    let book = roman();
    let output = run(mdbook("docs"), book.path());
    succeeded(&output);
    let page = fs::read_to_string(book.path().join("docs/book/writing.html")).unwrap();
    assert_eq!(page.matches("<div class=\"chunk\"").count(), 3, "{page}");
    assert!(
        page.contains("reading.html#chunk-reading-a-numeral-1"),
        "the root's reference links to its chunk in the next chapter"
    );
    for (name, text) in litbook::theme::FILES {
        let written = fs::read_to_string(book.path().join("docs/theme").join(name)).unwrap();
        assert_eq!(written, text, "{name} is the weaver's own");
        let stem = name.split('.').next().unwrap();
        assert!(page.contains(&format!("theme/{stem}-")), "{name} is loaded");
    }

    let config = book.path().join("docs/book.toml");
    let text = fs::read_to_string(&config).unwrap();
    fs::write(&config, text.replace("additional-js", "additional-jsx")).unwrap();
    let output = run(mdbook("docs"), book.path());
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains(
            "docs/book.toml: the woven chunks need the weaver's theme files; add \
             `additional-js = [\"theme/chunks.js\"]` under [output.html]"
        ),
        "{}",
        stderr(&output)
    );
}

/// `mdbook build` of the book in `dir`.
fn mdbook(dir: &str) -> Command {
    let mut command = Command::new("mdbook");
    command.args(["build", dir]);
    command
}

/// A chunk name with every character that HTML or mdbook's Markdown would take for its own.
const HOSTILE: &str = "an odd </div> {#x} `tick` \"quoted\" <script";

#[test]
fn a_hostile_chapter_is_woven_by_the_real_mdbook_and_links_to_its_page() {
    let book = roman();
    let chapters = book.path().join("docs/chapters");
    let summary = fs::read_to_string(chapters.join("SUMMARY.md")).unwrap();
    fs::write(
        chapters.join("SUMMARY.md"),
        format!("{summary}- [Odd names](<odd names é.md>)\n"),
    )
    .unwrap();
    let chapter = format!(
        "# Odd names\n\nMore of reading, under a name of HTML.\n\n```rust\n// <<reading a numeral>>+=\n// <<{HOSTILE}>>\n```\n\n```rust\n// <<{HOSTILE}>>=\npub const ODD: u32 = 1;\n```\n"
    );
    fs::write(chapters.join("odd names é.md"), chapter).unwrap();
    let output = run(mdbook("docs"), book.path());
    succeeded(&output);

    let page = fs::read_to_string(book.path().join("docs/book/odd names é.html")).unwrap();
    assert!(!page.contains("</div> {#x}"), "the name is escaped");
    assert!(!page.contains("<script\""), "no script of the name's");
    let heading = "⟨an odd &lt;/div&gt; {#x} `tick` \"quoted\" &lt;script⟩</a></h6>";
    assert!(
        page.contains(heading),
        "the name is the caption's heading, as written"
    );
    let reading = fs::read_to_string(book.path().join("docs/book/reading.html")).unwrap();
    let link = "odd%20names%20%C3%A9.html#chunk-reading-a-numeral-2";
    assert!(
        reading.contains(link),
        "the part in the odd chapter is linked, encoded"
    );
    let anchor = "id=\"chunk-reading-a-numeral-2\"";
    assert!(
        page.contains(anchor),
        "and the link's anchor is on its page"
    );
}

#[test]
fn fmt_formats_its_chunks_for_its_edition_and_leaves_its_prose() {
    let book = roman();
    succeeded(&run(literate(&["fmt", "--check"]), book.path()));
    let chapter = book.path().join("docs/chapters/reading.md");
    let text = fs::read_to_string(&chapter).unwrap();
    let misindented = text.replace("    let mut n = 0;", "let mut n=0 ;");
    fs::write(&chapter, &misindented).unwrap();
    let output = run(literate(&["fmt", "--check"]), book.path());
    assert!(!output.status.success());
    let line = line_number(&misindented, "let mut n=0 ;");
    let reported = format!("docs/chapters/reading.md:{line}:1: rustfmt would reformat");
    assert!(stderr(&output).contains(&reported), "{}", stderr(&output));
    succeeded(&run(literate(&["fmt"]), book.path()));
    assert_eq!(fs::read_to_string(&chapter).unwrap(), text);
}

#[test]
fn init_makes_a_new_crate_a_book_that_builds_tests_and_weaves() {
    let dir = tempfile::tempdir().unwrap();
    let manifest =
        "[package]\nname = \"hello\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n";
    fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    fs::create_dir_all(dir.path().join("src")).unwrap();
    let code = "//! Adds.\n\npub fn add(left: u64, right: u64) -> u64 {\n    left + right\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn it_works() {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n";
    fs::write(dir.path().join("src/lib.rs"), code).unwrap();
    let lock = literate_dir().join("../../Cargo.lock");
    fs::copy(lock, dir.path().join("Cargo.lock")).unwrap();
    fs::write(
        dir.path().join("Cargo.toml"),
        format!("{manifest}\n[workspace]\n"),
    )
    .unwrap();

    succeeded(&run(literate(&["init"]), dir.path()));
    let chapter = fs::read_to_string(dir.path().join("book/src/introduction.md")).unwrap();
    assert!(
        chapter.contains("// <<file:lib.rs>>=\npub fn add"),
        "{chapter}"
    );
    let shell = fs::read_to_string(dir.path().join("src/lib.rs")).unwrap();
    assert!(shell.starts_with("//! Adds.\n\n"), "{shell}");

    let output = run(cargo(&["test"]), dir.path());
    succeeded(&output);
    assert!(String::from_utf8_lossy(&output.stdout).contains("test tests::it_works ... ok"));
    succeeded(&run(mdbook("book"), dir.path()));
    let identifiers = fs::read_to_string(dir.path().join("book/book/identifiers.html")).unwrap();
    assert!(
        identifiers.contains("<li id=\"ident-add\"><code>add</code>"),
        "{identifiers}"
    );
    let chunks = fs::read_to_string(dir.path().join("book/book/chunks.html")).unwrap();
    assert!(chunks.contains("file:lib.rs"), "{chunks}");
    succeeded(&run(literate(&["fmt", "--check"]), dir.path()));

    let again = run(literate(&["init"]), dir.path());
    assert!(!again.status.success());
    assert!(
        stderr(&again).contains("book/book.toml exists already")
            && stderr(&again).contains("nothing was written"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn init_sends_a_workspace_root_to_its_member_and_makes_the_member_a_book() {
    // Beside the literate sources, so that the dependency is written as a relative path.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = "[workspace]\nmembers = [\"adder\"]\nresolver = \"2\"\n";
    fs::write(dir.path().join("Cargo.toml"), root).unwrap();
    let member = dir.path().join("adder");
    fs::create_dir_all(member.join("src")).unwrap();
    let manifest = "[package]\nname = \"adder\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
    fs::write(member.join("Cargo.toml"), manifest).unwrap();
    let code = "pub fn add(a: u64, b: u64) -> u64 {\n    a + b\n}\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n";
    fs::write(member.join("src/lib.rs"), code).unwrap();
    fs::copy(
        literate_dir().join("../../Cargo.lock"),
        dir.path().join("Cargo.lock"),
    )
    .unwrap();

    let refused = run(literate(&["init"]), dir.path());
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    let said = stderr(&refused);
    assert!(
        said.starts_with("litbook init: Cargo.toml here is a workspace root")
            && said.contains("its members: adder")
            && said.contains("nothing was written"),
        "{said}"
    );
    assert!(!dir.path().join("book").exists() && !dir.path().join("build.rs").exists());

    succeeded(&run(literate(&["init"]), &member));
    let written = fs::read_to_string(member.join("Cargo.toml")).unwrap();
    assert!(
        written.contains("litbook = { path = \"../"),
        "the dependency is a path from the member: {written}"
    );
    let output = run(cargo(&["test"]), &member);
    succeeded(&output);
    assert!(String::from_utf8_lossy(&output.stdout).contains("test adds ... ok"));
}

#[test]
fn init_refuses_a_directory_without_a_crate() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(literate(&["init"]), dir.path());
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("make a crate first (`cargo new --lib NAME`)"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing written"
    );
}
