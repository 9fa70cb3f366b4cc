//! `litbook fmt` on generated books, written to disk and formatted as the command does it: chunks in
//! lists, quotes and quoted lists, line endings LF or CRLF, a chunk used at two indentations, code at
//! odd indentation, Unicode in prose and code, prose with Markdown and HTML specials. For every book:
//! the prose comes back byte for byte, every line keeps the book's line ending, the tangled code
//! afterwards is rustfmt's text of the tangled code before (or, for a file `fmt` says it leaves alone,
//! exactly what it was), and a second `fmt` changes nothing.
//!
//! `LITBOOK_FMT_BOOKS` sets how many books (1,000 by default, so that the run stays in CI's budget);
//! the closing note of the change that added this test gives the figures of a 10,000-book run.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use litbook::fmt::plan_book;
use litbook::{Marker, Project, fenced_blocks, marker, tangle_book, write_chapters};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Where a chunk's code block stands: what goes before its opening fence, and before each of its
/// other lines.
#[derive(Clone, Copy, Debug)]
enum Container {
    Plain,
    Bullet,
    Ordered,
    Quote,
    QuotedBullet,
}

impl Container {
    fn prefixes(self) -> (&'static str, &'static str) {
        match self {
            Container::Plain => ("", ""),
            Container::Bullet => ("- ", "  "),
            Container::Ordered => ("1. ", "   "),
            Container::Quote => ("> ", "> "),
            Container::QuotedBullet => ("> - ", ">   "),
        }
    }
}

fn container() -> impl Strategy<Value = Container> {
    prop::sample::select(vec![
        Container::Plain,
        Container::Bullet,
        Container::Ordered,
        Container::Quote,
        Container::QuotedBullet,
    ])
}

fn words() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "plain",
        "é✓ ünïcode",
        "日本語のテキスト",
        "<div>",
        "</div>",
        "{#x}",
        "a * b",
        "_under_",
        "\\t",
    ])
}

fn name() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "x",
        "été",
        "count",
        "a_rather_long_variable_name_indeed",
    ])
}

/// A statement as a writer might leave it: rustfmt respaces, reindents, splits or joins it.
fn statement() -> impl Strategy<Value = String> {
    (0..8usize, name(), words(), 0..1000u32, 0..7usize).prop_map(|(kind, name, text, n, indent)| {
        let code = match kind {
            0 => format!("let {name}={n};"),
            1 => format!("let  {name} : u32 = {n} ;"),
            2 => format!("let {name} = \"{text}\";"),
            3 => format!("f( {n},{name} );"),
            4 => format!(
                "let {name} = some_function_with_a_long_name({n}, another_argument_{n}, \"{text}\", yet_another_argument, and_one_more);"
            ),
            5 => format!("if {name} {{ g({n}); }}"),
            6 => String::new(),
            _ => format!("// note: {text}"),
        };
        if code.is_empty() { code } else { format!("{}{code}", " ".repeat(indent)) }
    })
}

fn item() -> impl Strategy<Value = String> {
    (0..5usize, name(), words(), 0..1000u32, 0..3usize).prop_map(|(kind, name, text, n, indent)| {
        let code = match kind {
            0 => format!("use  {name}::{{io,fmt}};"),
            1 => format!("fn f_{n}(){{}}"),
            2 => format!("const LIMIT_{n}:u32={n};"),
            3 => String::new(),
            _ => format!("// {text}"),
        };
        if code.is_empty() {
            code
        } else {
            format!("{}{code}", " ".repeat(indent))
        }
    })
}

fn prose() -> impl Strategy<Value = String> {
    (prop::collection::vec(words(), 1..6), any::<bool>()).prop_map(|(words, trailing)| {
        let mut line = words.join(" ");
        if trailing {
            line.push_str("  \t");
        }
        line
    })
}

/// The indentation of a reference: nine times in ten `usual`, where rustfmt puts its code, else
/// `odd`, which rustfmt would change on the reference's own line (a change `fmt` cannot make in a
/// chunk, so it leaves such a file alone).
fn mostly(usual: usize, odd: usize) -> impl Strategy<Value = usize> {
    prop::sample::select(vec![
        usual, usual, usual, usual, usual, usual, usual, usual, usual, odd,
    ])
}

/// One code block of a chunk: where it stands, which chapter, its header and body lines.
#[derive(Clone, Debug)]
struct Block {
    chapter: usize,
    container: Container,
    header: String,
    body: Vec<String>,
    /// Whether a blank body line keeps its container's full prefix (with trailing spaces).
    full_blank_prefix: bool,
}

#[derive(Clone, Debug)]
struct GeneratedBook {
    chapters: usize,
    crlf: bool,
    final_newline: bool,
    blocks: Vec<Block>,
    prose: Vec<String>,
}

fn block(
    chapters: usize,
    header: String,
    body: impl Strategy<Value = Vec<String>>,
) -> impl Strategy<Value = Block> {
    (0..chapters, container(), body, any::<bool>()).prop_map(
        move |(chapter, container, body, full)| Block {
            chapter,
            container,
            header: header.clone(),
            body,
            full_blank_prefix: full,
        },
    )
}

fn book() -> impl Strategy<Value = GeneratedBook> {
    (1..=3usize).prop_flat_map(|chapters| {
        let root_body = (any::<bool>(), mostly(8, 6)).prop_map(|(twice, second_indent)| {
            let mut lines = vec![
                "// <<items>>".to_string(),
                "fn main() {".into(),
                "    // <<body>>".into(),
                "}".into(),
            ];
            if twice {
                lines.extend([
                    "mod inner {".into(),
                    "    fn g() {".into(),
                    format!("{}// <<body>>", " ".repeat(second_indent)),
                    "    }".into(),
                    "}".into(),
                ]);
            }
            lines
        });
        let body = (
            prop::collection::vec(statement(), 1..6),
            mostly(0, 3),
            0..6usize,
        )
            .prop_map(|(mut lines, indent, at)| {
                let at = at.min(lines.len());
                lines.insert(at, format!("{}// <<step>>", " ".repeat(indent)));
                lines
            });
        (
            block(chapters, "// <<file:a.rs>>=".into(), root_body),
            block(
                chapters,
                "// <<items>>=".into(),
                prop::collection::vec(item(), 1..4),
            ),
            prop::collection::vec(
                block(
                    chapters,
                    "// <<items>>+=".into(),
                    prop::collection::vec(item(), 1..3),
                ),
                0..2,
            ),
            block(chapters, "// <<body>>=".into(), body),
            block(
                chapters,
                "// <<step>>=".into(),
                prop::collection::vec(statement(), 1..4),
            ),
            (any::<bool>(), any::<bool>()),
            prop::collection::vec(prose(), 12),
        )
            .prop_map(
                move |(root, items, more_items, body, step, (crlf, final_newline), prose)| {
                    let first = items.chapter;
                    let mut blocks = vec![root, items];
                    blocks.extend(more_items.into_iter().map(|mut more| {
                        more.chapter = more.chapter.max(first);
                        more
                    }));
                    blocks.extend([body, step]);
                    GeneratedBook {
                        chapters,
                        crlf,
                        final_newline,
                        blocks,
                        prose,
                    }
                },
            )
    })
}

impl GeneratedBook {
    /// Each chapter's text: a title, then for each block a paragraph of prose and the block.
    fn chapter_texts(&self) -> Vec<String> {
        let eol = if self.crlf { "\r\n" } else { "\n" };
        let mut prose = self.prose.iter().cycle();
        (0..self.chapters)
            .map(|chapter| {
                let mut lines = vec![format!("# Chapter {chapter}"), String::new()];
                for block in self.blocks.iter().filter(|b| b.chapter == chapter) {
                    let (first, rest) = block.container.prefixes();
                    lines.push(prose.next().unwrap().clone());
                    lines.push(String::new());
                    lines.push(format!("{first}```rust"));
                    lines.push(format!("{rest}{}", block.header));
                    for code in &block.body {
                        lines.push(match (code.is_empty(), block.full_blank_prefix) {
                            (true, true) => rest.to_string(),
                            (true, false) => rest.trim_end().to_string(),
                            _ => format!("{rest}{code}"),
                        });
                    }
                    lines.push(format!("{rest}```"));
                    lines.push(String::new());
                }
                lines.push(prose.next().unwrap().clone());
                let mut text = lines.join(eol);
                if self.final_newline {
                    text.push_str(eol);
                }
                text
            })
            .collect()
    }

    fn write(&self, dir: &Path) {
        let manifest = "[package]\nname = \"book\"\nversion = \"0.1.0\"\nedition = \"2024\"\n";
        fs::write(dir.join("Cargo.toml"), manifest).unwrap();
        fs::create_dir_all(dir.join("src")).unwrap();
        let shell = "mod a {\n    include!(concat!(env!(\"OUT_DIR\"), \"/a.rs\"));\n}\n";
        fs::write(dir.join("src/lib.rs"), shell).unwrap();
        let src = dir.join("book/src");
        fs::create_dir_all(&src).unwrap();
        let summary: String = (0..self.chapters)
            .map(|c| format!("- [Chapter {c}](c{c}.md)\n"))
            .collect();
        fs::write(src.join("SUMMARY.md"), format!("# Summary\n\n{summary}")).unwrap();
        for (c, text) in self.chapter_texts().iter().enumerate() {
            fs::write(src.join(format!("c{c}.md")), text).unwrap();
        }
    }
}

/// A chapter without the lines of its chunks' code after each header: what `fmt` must never touch.
/// Worked out here from each code line's offset, not as `fmt` itself works it out.
fn prose_of(text: &str) -> Vec<String> {
    let mut code_lines = std::collections::HashSet::new();
    for block in fenced_blocks(text) {
        let header = block.lines.first().map(|l| marker(&l.text));
        if !matches!(
            header,
            Some(Some(Ok(Marker::Define(_) | Marker::Append(_))))
        ) {
            continue;
        }
        for line in &block.lines[1..] {
            code_lines.insert(text[..line.offset].matches('\n').count());
        }
    }
    text.split_inclusive('\n')
        .enumerate()
        .filter(|(n, _)| !code_lines.contains(n))
        .map(|(_, line)| line.to_string())
        .collect()
}

fn tangled(dir: &Path) -> Result<BTreeMap<String, String>, TestCaseError> {
    let outcome = tangle_book(&dir.join("book/src"), "book/src");
    prop_assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
    Ok(outcome
        .files
        .into_iter()
        .map(|f| (f.name, f.text))
        .collect())
}

fn chapters(dir: &Path, count: usize) -> Vec<String> {
    (0..count)
        .map(|c| fs::read_to_string(dir.join(format!("book/src/c{c}.md"))).unwrap())
        .collect()
}

/// What became of a book.
#[derive(Default, Debug)]
struct Tally {
    formatted: usize,
    already: usize,
    left_alone: usize,
}

fn format_twice(book: &GeneratedBook, tally: &mut Tally) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    book.write(dir.path());
    let project = Project::open(dir.path()).unwrap();
    let before_chapters = chapters(dir.path(), book.chapters);
    let before = tangled(dir.path())?;
    let wanted: BTreeMap<&String, String> = before
        .iter()
        .map(|(name, text)| (name, litbook::fmt::rustfmt(text, &project).unwrap()))
        .collect();

    let (plan, new) = plan_book(&project).map_err(|e| TestCaseError::fail(e.join("\n")))?;
    write_chapters(&new).map_err(|e| TestCaseError::fail(e.to_string()))?;

    let after_chapters = chapters(dir.path(), book.chapters);
    for (old, new) in before_chapters.iter().zip(&after_chapters) {
        prop_assert_eq!(prose_of(old), prose_of(new), "prose changed");
        if book.crlf {
            prop_assert_eq!(
                new.matches('\n').count(),
                new.matches("\r\n").count(),
                "a line lost its CRLF"
            );
        } else {
            prop_assert!(!new.contains('\r'));
        }
    }
    let after = tangled(dir.path())?;
    for (name, text) in &after {
        let (old, formatted) = (&before[name], &wanted[name]);
        prop_assert!(
            text == formatted || (text == old && !plan.notes.is_empty()),
            "{name}:\n{text}\nwanted:\n{formatted}\nnotes: {:?}",
            plan.notes
        );
    }
    let (second, rewritten) = plan_book(&project).map_err(|e| TestCaseError::fail(e.join("\n")))?;
    prop_assert!(
        rewritten.is_empty(),
        "a second fmt changes {:?}",
        second.edits
    );
    prop_assert_eq!(second.notes.len(), plan.notes.len());

    if !plan.notes.is_empty() {
        tally.left_alone += 1;
    } else if new.is_empty() {
        tally.already += 1;
    } else {
        tally.formatted += 1;
    }
    Ok(())
}

#[test]
#[ignore = "long, a thousand books: bash .ci/run runs it"]
fn fmt_keeps_every_byte_of_prose_and_gives_rustfmts_code() {
    let books = std::env::var("LITBOOK_FMT_BOOKS").map_or(1000, |n| n.parse().expect("a number"));
    let mut runner = TestRunner::new(Config {
        cases: books,
        failure_persistence: None,
        ..Config::default()
    });
    let tally = std::cell::RefCell::new(Tally::default());
    let result = runner.run(&book(), |book| format_twice(&book, &mut tally.borrow_mut()));
    if let Err(failure) = result {
        panic!("{failure}");
    }
    let tally = tally.into_inner();
    eprintln!("{books} books: {tally:?}");
    assert!(
        tally.formatted >= books as usize / 2,
        "too few books were formatted to prove much: {tally:?}"
    );
}
