//! What the tests that need a copy of a crate share.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The literate crate's directory.
pub fn literate_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap()
}

/// Copies a directory tree, but for build output (`target`) and the fuzzing harness (`fuzz`).
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("make a directory");
    for entry in fs::read_dir(from).expect("read a directory").flatten() {
        let (path, name) = (entry.path(), entry.file_name());
        if name == "target" || name == "fuzz" {
            continue;
        } else if path.is_dir() {
            copy_tree(&path, &to.join(name));
        } else {
            fs::copy(&path, to.join(name)).expect("copy a file");
        }
    }
}

/// A copy of the second book's crate (`tests/books/roman`, Roman numerals, its book in `docs/`
/// and its chapters in `docs/chapters`), its tangler found where it is, with the workspace's lock
/// file so that nothing new is resolved. Each copy has a version of its own (`0.1.0-copy…`), so
/// that copies built at the same time in one build directory (the tests' shared one, see
/// `shared_build.rs`) never take each other's compiled files.
pub fn roman() -> tempfile::TempDir {
    static COPIES: AtomicUsize = AtomicUsize::new(0);
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&literate_dir().join("tests/books/roman"), dir.path());
    let manifest = dir.path().join("Cargo.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    let located = format!("path = {:?}", literate_dir().display().to_string());
    let copy = format!(
        "{}-{}",
        std::process::id(),
        COPIES.fetch_add(1, Ordering::Relaxed)
    );
    let text = text.replace("path = \"../../..\"", &located).replacen(
        "\nversion = \"0.1.0\"\n",
        &format!("\nversion = \"0.1.0-copy{copy}\"\n"),
        1,
    );
    fs::write(&manifest, text).unwrap();
    let lock = literate_dir().join("../../Cargo.lock");
    fs::copy(lock, dir.path().join("Cargo.lock")).unwrap();
    dir
}

/// A copy of the second book whose test `numbers_without_numerals_and_numerals_of_no_number` fails
/// (in `docs/chapters/there-and-back.md`), with that chapter's text before and after.
pub fn roman_with_a_failing_test() -> (tempfile::TempDir, String, String) {
    let book = roman();
    let chapter = book.path().join("docs/chapters/there-and-back.md");
    let text = fs::read_to_string(&chapter).unwrap();
    let failing = text.replace(
        "assert_eq!(to_roman(0), None);",
        "assert_eq!(to_roman(0), Some(String::new()));",
    );
    fs::write(&chapter, &failing).unwrap();
    (book, text, failing)
}
