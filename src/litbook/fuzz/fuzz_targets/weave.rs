//! Two chapters of arbitrary bytes (split at the first NUL; the second one's path taken from the
//! text after a second NUL, so that paths with spaces, `#` and `/` come up too), woven as the book's
//! preprocessor weaves them, with figures that always fail. Any outcome is fine except a panic, a
//! crash or a hang; and every woven chapter must come back, one for each chapter given.

#![no_main]

use libfuzzer_sys::fuzz_target;
use litbook::weave::{Chapter, Roles, weave};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut pieces = text.splitn(3, '\0');
    let first = pieces.next().unwrap_or_default();
    let second = pieces.next().unwrap_or_default();
    let path: String = pieces.next().unwrap_or("b").chars().take(40).collect();
    let chapters = [
        Chapter {
            path: "a.md".into(),
            title: "A".into(),
            content: first.into(),
        },
        Chapter {
            path: format!("{path}.md"),
            title: path,
            content: second.into(),
        },
    ];
    let mut figures = |words: &[&str]| Err(format!("no figure {words:?}"));
    let (woven, _) = weave(&chapters, "book/src", &Roles::new(), &mut figures);
    assert_eq!(woven.len(), chapters.len());
});
