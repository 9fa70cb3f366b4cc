//! `litbook fmt` on small books: what rustfmt wants is written back into the chunks, and a file whose
//! changes cannot all be written back is left as it was, so that no line is ever lost.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

/// Writes a crate into `dir` whose book has one chapter, `a.md`, with the root `file:a.rs`.
fn write_book(dir: &Path, chapter: &str) {
    write_crate_around(dir, "a.rs");
    fs::create_dir_all(dir.join("book/src")).unwrap();
    fs::write(
        dir.join("book/src/SUMMARY.md"),
        "# Summary\n\n- [A](a.md)\n",
    )
    .unwrap();
    fs::write(dir.join("book/src/a.md"), chapter).unwrap();
}

/// The manifest and library shell of a crate whose book has one root, `file:NAME`.
fn write_crate_around(dir: &Path, name: &str) {
    let manifest = "[package]\nname = \"book\"\nversion = \"0.1.0\"\nedition = \"2024\"\n";
    fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    fs::create_dir_all(dir.join("src")).unwrap();
    let shell = format!("mod a {{\n    include!(concat!(env!(\"OUT_DIR\"), \"/{name}\"));\n}}\n");
    fs::write(dir.join("src/lib.rs"), shell).unwrap();
}

fn literate_fmt(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_litbook"))
        .arg("fmt")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("litbook runs")
}

fn chapter(dir: &Path) -> String {
    fs::read_to_string(dir.join("book/src/a.md")).unwrap()
}

#[test]
fn imports_rustfmt_reorders_are_reordered_in_the_chunk_with_none_lost() {
    let dir = tempfile::tempdir().unwrap();
    write_book(
        dir.path(),
        "# A\n\nImports.\n\n```rust\n// <<file:a.rs>>=\nuse c::z;\nuse b::y;\nuse d::w;\nuse a::x;\n```\n",
    );
    let output = literate_fmt(dir.path(), &[]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        chapter(dir.path()),
        "# A\n\nImports.\n\n```rust\n// <<file:a.rs>>=\nuse a::x;\nuse b::y;\nuse c::z;\nuse d::w;\n```\n"
    );
    assert!(literate_fmt(dir.path(), &["--check"]).status.success());
}

#[test]
fn a_file_with_a_change_across_chunks_is_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let text = "# A\n\nA function.\n\n```rust\n// <<file:a.rs>>=\nuse  b::y;\n\nfn f() {\n// <<body>>\n}\n```\n\nIts body.\n\n```rust\n// <<body>>=\nlet x = 1;\n```\n";
    write_book(dir.path(), text);
    let output = literate_fmt(dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert_eq!(chapter(dir.path()), text, "nothing is written");
    assert!(stderr.contains("across chunks"), "{stderr}");
    assert!(
        stderr.contains("book/src/a.md:7:1: rustfmt formats this differently too; left alone"),
        "{stderr}"
    );
}

#[test]
fn a_line_rustfmt_splits_keeps_its_place_among_its_neighbours() {
    let dir = tempfile::tempdir().unwrap();
    let code = "fn f() {\n    for (args, reason) in [\n        ([\"--size\", \"-3\"], \"-3 is not between 3 and 101\"),\n        ([\"--seed\", \"-1\"], \"-1 is not between 0 and 18446744073709551615\"),\n        (\n            [\"--seed\", \"18446744073709551616\"],\n            \"18446744073709551616 is not between 0 and 18446744073709551615\",\n        ),\n    ] {\n        g(args, reason);\n    }\n}\n";
    let written = |code: &str| format!("# A\n\nTests.\n\n```rust\n// <<file:a.rs>>=\n{code}```\n");
    write_book(dir.path(), &written(code));
    let output = literate_fmt(dir.path(), &[]);
    assert!(output.status.success(), "{output:?}");
    let split = code.replace(
        "        ([\"--seed\", \"-1\"], \"-1 is not between 0 and 18446744073709551615\"),\n",
        "        (\n            [\"--seed\", \"-1\"],\n            \"-1 is not between 0 and 18446744073709551615\",\n        ),\n",
    );
    assert_eq!(chapter(dir.path()), written(&split));
}

#[test]
fn a_chunk_in_a_quoted_list_keeps_its_prefix_and_its_crlf() {
    let dir = tempfile::tempdir().unwrap();
    let text = "# A\r\n\r\n> - A quoted item:\r\n>\r\n>   ```rust\r\n>   // <<file:a.rs>>=\r\n>   fn f(){let  x=1;}\r\n>   ```\r\n\r\nAfter.\r\n";
    write_book(dir.path(), text);
    let output = literate_fmt(dir.path(), &[]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        chapter(dir.path()),
        "# A\r\n\r\n> - A quoted item:\r\n>\r\n>   ```rust\r\n>   // <<file:a.rs>>=\r\n>   fn f() {\r\n>       let x = 1;\r\n>   }\r\n>   ```\r\n\r\nAfter.\r\n"
    );
}

#[test]
fn a_reference_indented_otherwise_than_rustfmt_indents_is_reported_with_the_mend() {
    let dir = tempfile::tempdir().unwrap();
    let text = "# A\n\n```rust\n// <<file:a.rs>>=\nfn f() {\n      // <<body>>\n}\n```\n\nIts body.\n\n```rust\n// <<body>>=\nlet x = 1;\n```\n";
    write_book(dir.path(), text);
    let output = literate_fmt(dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert_eq!(chapter(dir.path()), text, "nothing is written");
    assert!(
        stderr.contains(
            "book/src/a.md:6:7: this reference to ⟨body⟩ is indented by 6 spaces, where rustfmt \
             indents code by 4 spaces here; indent it so, then run `litbook fmt` again"
        ),
        "{stderr}"
    );

    let tabbed = text.replace("      // <<body>>", "\t// <<body>>");
    fs::write(dir.path().join("book/src/a.md"), &tabbed).unwrap();
    let output = literate_fmt(dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains(
            "book/src/a.md:6:2: this reference to ⟨body⟩ is indented by 1 tab, where rustfmt \
             indents code by 4 spaces here"
        ),
        "{stderr}"
    );
}

#[test]
fn the_book_s_own_rustfmt_settings_narrow_its_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let call = "pub fn f() -> u32 {\n    first_argument_name(second_argument_name, third_argument_name)\n}\n";
    write_book(
        dir.path(),
        &format!("# A\n\nA call.\n\n```rust\n// <<file:a.rs>>=\n{call}```\n"),
    );
    let output = literate_fmt(dir.path(), &["--check"]);
    assert!(
        output.status.success(),
        "at rustfmt's width the call fits: {output:?}"
    );

    fs::write(dir.path().join("book/rustfmt.toml"), "max_width = 60\n").unwrap();
    let output = literate_fmt(dir.path(), &["--check"]);
    assert!(!output.status.success(), "at the book's width it does not");
    assert!(literate_fmt(dir.path(), &[]).status.success());
    let narrowed = "pub fn f() -> u32 {\n    first_argument_name(\n        second_argument_name,\n        third_argument_name,\n    )\n}\n";
    assert_eq!(
        chapter(dir.path()),
        format!("# A\n\nA call.\n\n```rust\n// <<file:a.rs>>=\n{narrowed}```\n")
    );
}

#[test]
fn a_read_only_chapter_is_refused_and_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let unformatted = "# A\n\nImports.\n\n```rust\n// <<file:a.rs>>=\nuse c::z;\nuse a::x;\n```\n";
    write_book(dir.path(), unformatted);
    let path = dir.path().join("book/src/a.md");
    let mut permissions = fs::metadata(&path).unwrap().permissions();
    permissions.set_readonly(true);
    fs::set_permissions(&path, permissions).unwrap();
    let output = literate_fmt(dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("litbook fmt: book/src/a.md is read-only; nothing was written"),
        "{stderr}"
    );
    assert_eq!(chapter(dir.path()), unformatted);
    assert!(fs::metadata(&path).unwrap().permissions().readonly());
}
