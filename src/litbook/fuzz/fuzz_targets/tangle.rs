//! One chapter of arbitrary bytes (read as UTF-8 with bad bytes replaced, as the tangler reads a
//! chapter), split in two at the first NUL so that references can cross chapters: parsed, tangled
//! and syntax-checked. Any outcome is fine except a panic, a crash or a hang.

#![no_main]

use libfuzzer_sys::fuzz_target;
use litbook::{SourceText, Web, chapter_links, check_syntax_of_all, tangle};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (first, second) = text.split_once('\0').unwrap_or((&text, ""));
    let _ = chapter_links(&SourceText::new("book/src/SUMMARY.md", first));
    let chapters = vec![
        SourceText::new("book/src/a.md", first),
        SourceText::new("book/src/b.md", second),
    ];
    let (web, _) = Web::parse(chapters);
    if let Ok(files) = tangle(&web) {
        let _ = check_syntax_of_all(&files);
    }
});
