//! Writing new code into a chapter without touching anything else of it.
//!
//! A chunk's code block can stand inside a list item or a `>` quote, so each of its Markdown lines is a
//! *container prefix* (the list's indentation, the quote's markers) followed by the code the tangler
//! reads. An edit names whole Markdown lines but gives only their code: [`splice`] writes each new
//! line behind the container prefix of its block, with the chapter's own line ending, and leaves
//! every other byte as it was. [`write_chapters`] then puts the new texts on disk atomically, and only
//! if no chapter changed since it was read.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::{CodeBlock, SourceText, fenced_blocks};

/// New code for the Markdown lines `first..=last` of a chapter (1-based), or, when `last` is
/// `first - 1`, new lines to insert before line `first`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edit {
    /// The chapter, as its display name.
    pub file: String,
    /// The first line replaced, from 1.
    pub first: usize,
    /// The last line replaced.
    pub last: usize,
    /// The new lines, without line ends.
    pub lines: Vec<String>,
}

impl Edit {
    /// The boundaries between Markdown lines the edit spans: a replacement from before `first` to
    /// after `last`, an insertion the single boundary before `first`.
    fn span(&self) -> (usize, usize) {
        (self.first, self.last + 1)
    }

    /// Whether two edits of one chapter would touch the same lines, or insert at the same place, so
    /// that making both has no one right order.
    pub fn overlaps(&self, other: &Edit) -> bool {
        let ((a0, a1), (b0, b1)) = (self.span(), other.span());
        if a0 == a1 && b0 == b1 {
            return a0 == b0;
        }
        if a0 == a1 {
            return b0 < a0 && a0 < b1;
        }
        if b0 == b1 {
            return a0 < b0 && b0 < a1;
        }
        a0 < b1 && b0 < a1
    }
}

/// A code line of a chunk's block, as found on its Markdown line.
struct Found<'a> {
    block: usize,
    /// The line's container prefix: the bytes before the code.
    prefix: Option<&'a str>,
    is_header: bool,
}

/// The chapter's text with `edits` made. The edits must not overlap ([`Edit::overlaps`]); each must lie
/// among the code lines of one chunk block (never on its header, never on a fence). `Err` names the
/// edit (by index) that cannot be made, and why; nothing is made then.
pub fn splice(chapter: &SourceText, edits: &[Edit]) -> Result<String, (usize, String)> {
    let blocks = fenced_blocks(&chapter.text);
    let found = code_lines(chapter, &blocks);
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (edits[i].first, edits[i].last));
    for pair in order.windows(2) {
        if edits[pair[0]].overlaps(&edits[pair[1]]) {
            return Err((pair[1], "it overlaps another edit of the same lines".into()));
        }
    }
    let mut planned: HashMap<usize, (usize, Vec<String>)> = HashMap::new();
    for &i in &order {
        let lines = new_lines(chapter, &found, &blocks, &edits[i]).map_err(|why| (i, why))?;
        planned.insert(edits[i].first, (edits[i].last, lines));
    }
    let ending = line_ending(&chapter.text);
    let mut out = String::with_capacity(chapter.text.len());
    let mut skip_through = 0;
    for (index, line) in chapter.text.split_inclusive('\n').enumerate() {
        let number = index + 1;
        if let Some((last, lines)) = planned.remove(&number) {
            for new in lines {
                out.push_str(&new);
                out.push_str(ending);
            }
            skip_through = last;
        }
        if number > skip_through {
            out.push_str(line);
        }
    }
    if let Some((_, lines)) = planned.remove(&(chapter.text.split_inclusive('\n').count() + 1)) {
        for new in lines {
            out.push_str(&new);
            out.push_str(ending);
        }
    }
    Ok(out)
}

/// Every code line of every `rust` block, by its 1-based Markdown line.
fn code_lines<'a>(chapter: &'a SourceText, blocks: &[CodeBlock]) -> HashMap<usize, Found<'a>> {
    let mut found = HashMap::new();
    for (index, block) in blocks.iter().enumerate() {
        if block.info.split([',', ' ', '\t']).next() != Some("rust") {
            continue;
        }
        for (n, line) in block.lines.iter().enumerate() {
            let number = chapter.place(line.offset).line;
            let prefix = chapter
                .line(number)
                .and_then(|source| source.strip_suffix(line.text.as_str()));
            found.insert(
                number,
                Found {
                    block: index,
                    prefix,
                    is_header: n == 0,
                },
            );
        }
    }
    found
}

/// The Markdown lines an edit writes, each behind its block's container prefix, or why it cannot.
fn new_lines(
    chapter: &SourceText,
    found: &HashMap<usize, Found>,
    blocks: &[CodeBlock],
    edit: &Edit,
) -> Result<Vec<String>, String> {
    let block = if edit.last < edit.first {
        let above = edit.first.checked_sub(1).and_then(|n| found.get(&n));
        let below = found.get(&edit.first).filter(|line| !line.is_header);
        above.or(below).map(|line| line.block)
    } else {
        found.get(&edit.first).map(|line| line.block)
    }
    .ok_or("its lines are not code of a chunk")?;
    for number in edit.first..=edit.last {
        let line = found
            .get(&number)
            .filter(|line| line.block == block)
            .ok_or("its lines are not all code of one chunk's block")?;
        if line.is_header {
            return Err("it would change the chunk's header".into());
        }
        if line.prefix.is_none() {
            return Err(unreadable_prefix(chapter, number));
        }
    }
    let header = chapter.place(blocks[block].lines[0].offset).line;
    let prefix = found[&header]
        .prefix
        .ok_or_else(|| unreadable_prefix(chapter, header))?;
    Ok(edit
        .lines
        .iter()
        .map(|code| match code.is_empty() {
            true => prefix.trim_end().to_string(),
            false => format!("{prefix}{code}"),
        })
        .collect())
}

fn unreadable_prefix(chapter: &SourceText, number: usize) -> String {
    format!(
        "line {number} of {} is not its code behind a plain prefix (a tab before the code, which \
         Markdown expands?)",
        chapter.display
    )
}

/// The line ending most of a text's lines have: `\r\n` or `\n`.
fn line_ending(text: &str) -> &'static str {
    let crlf = text.matches("\r\n").count();
    let lf = text.matches('\n').count() - crlf;
    if crlf > lf { "\r\n" } else { "\n" }
}

/// A chapter to write: where it is, the bytes it had when it was read, and its new text.
pub struct NewChapter {
    /// The chapter's file.
    pub path: PathBuf,
    /// Its name as the reader knows it.
    pub display: String,
    /// Its text when it was read, which it must still have to be written.
    pub read: String,
    /// Its new text.
    pub text: String,
}

/// Why chapters were not written.
#[derive(Debug)]
pub enum WriteError {
    /// A chapter is no longer what was read: someone saved it in the meantime. Nothing was written.
    Changed(String),
    /// A chapter is read-only: its owner has asked that it not be changed. Nothing was written.
    ReadOnly(String),
    /// The file system refused; chapters before `written` were written.
    Io {
        /// The chapter that could not be written.
        display: String,
        /// How many chapters were written before it.
        written: usize,
        /// Why not.
        error: io::Error,
    },
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Changed(display) => write!(
                f,
                "{display} changed on disk since it was read (saved by an editor?); nothing was \
                 written, run it again"
            ),
            WriteError::ReadOnly(display) => write!(
                f,
                "{display} is read-only; nothing was written (make it writable, for instance with \
                 chmod u+w, to let the tools change it)"
            ),
            WriteError::Io {
                display,
                written,
                error,
            } => write!(
                f,
                "cannot write {display}: {error} ({written} chapter(s) before it were written)"
            ),
        }
    }
}

/// Writes each chapter's new text, after checking that every one of them still holds the text it was
/// read with and may be written. Each write goes to a temporary file beside the chapter that is then
/// renamed over it, so a chapter is at every moment either its old text or its new one, never half
/// of each.
pub fn write_chapters(chapters: &[NewChapter]) -> Result<(), WriteError> {
    for chapter in chapters {
        let now = fs::read(&chapter.path).map_err(|error| WriteError::Io {
            display: chapter.display.clone(),
            written: 0,
            error,
        })?;
        if now != chapter.read.as_bytes() {
            return Err(WriteError::Changed(chapter.display.clone()));
        }
        if read_only(&chapter.path) {
            return Err(WriteError::ReadOnly(chapter.display.clone()));
        }
    }
    for (written, chapter) in chapters.iter().enumerate() {
        let io_error = |error| WriteError::Io {
            display: chapter.display.clone(),
            written,
            error,
        };
        if fs::read(&chapter.path).map_err(io_error)? != chapter.read.as_bytes() {
            return Err(WriteError::Changed(chapter.display.clone()));
        }
        replace_atomically(&chapter.path, &chapter.text).map_err(io_error)?;
    }
    Ok(())
}

/// Whether `path` is marked read-only. The write goes to a new file renamed over the old, which the
/// file's own permissions never stop (only its directory's), and root may write anything, so the
/// permissions are asked rather than left to the write to refuse.
fn read_only(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|metadata| metadata.permissions().readonly())
}

/// Writes `text` to a temporary file in `path`'s directory, with `path`'s permissions, flushed to
/// disk, and renames it over `path`.
fn replace_atomically(path: &Path, text: &str) -> io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("not a file"))?
        .to_string_lossy();
    let temporary = path.with_file_name(format!(".{name}.litbook-{}.tmp", std::process::id()));
    let result = (|| {
        fs::write(&temporary, text)?;
        fs::set_permissions(&temporary, fs::metadata(path)?.permissions())?;
        fs::File::open(&temporary)?.sync_all()?;
        fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(first: usize, last: usize, lines: &[&str]) -> Edit {
        Edit {
            file: "a.md".into(),
            first,
            last,
            lines: lines.iter().map(|l| l.to_string()).collect(),
        }
    }

    fn spliced(text: &str, edits: &[Edit]) -> Result<String, (usize, String)> {
        splice(&SourceText::new("a.md", text), edits)
    }

    #[test]
    fn a_quote_keeps_its_markers_and_a_list_its_indentation() {
        let quote = "> ```rust\n> // <<a>>=\n> let  x=1;\n>\n> ```\n";
        assert_eq!(
            spliced(quote, &[edit(3, 4, &["let x = 1;", "", "f();"])]).unwrap(),
            "> ```rust\n> // <<a>>=\n> let x = 1;\n>\n> f();\n> ```\n"
        );
        let list = "- item\n\n  ```rust\n  // <<a>>=\n  fn f() {\n  let x=1;\n  }\n  ```\n";
        assert_eq!(
            spliced(list, &[edit(6, 6, &["    let x = 1;"])]).unwrap(),
            "- item\n\n  ```rust\n  // <<a>>=\n  fn f() {\n      let x = 1;\n  }\n  ```\n"
        );
    }

    #[test]
    fn crlf_chapters_stay_crlf_and_insertions_go_before_their_line() {
        let text = "Prose.\r\n\r\n```rust\r\n// <<a>>=\r\nb();\r\n```\r\n";
        assert_eq!(
            spliced(text, &[edit(5, 4, &["a();"]), edit(6, 5, &["c();"])]).unwrap(),
            "Prose.\r\n\r\n```rust\r\n// <<a>>=\r\na();\r\nb();\r\nc();\r\n```\r\n"
        );
    }

    #[test]
    fn edits_off_the_code_or_on_top_of_each_other_are_refused() {
        let text = "Prose.\n\n```rust\n// <<a>>=\nb();\nc();\n```\n";
        assert!(spliced(text, &[edit(1, 1, &["x"])]).is_err(), "prose");
        assert!(spliced(text, &[edit(4, 4, &["x"])]).is_err(), "header");
        assert!(spliced(text, &[edit(5, 7, &["x"])]).is_err(), "fence");
        assert_eq!(
            spliced(text, &[edit(5, 6, &["x"]), edit(6, 6, &["y"])]),
            Err((1, "it overlaps another edit of the same lines".into()))
        );
        assert!(spliced(text, &[edit(5, 6, &["x"]), edit(7, 6, &["y"])]).is_ok());
    }

    #[test]
    fn a_tab_the_markdown_expands_before_the_code_is_refused() {
        let text = "- a\n\n  ```rust\n  // <<a>>=\n\t b();\n  ```\n";
        let (index, why) = spliced(text, &[edit(5, 5, &["c();"])]).unwrap_err();
        assert_eq!(index, 0);
        assert!(
            why.contains("line 5 of a.md") && why.contains("tab"),
            "{why}"
        );
    }

    #[test]
    fn a_chapter_changed_since_it_was_read_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.md"), dir.path().join("b.md"));
        fs::write(&a, "old a").unwrap();
        fs::write(&b, "saved by an editor").unwrap();
        let chapter = |path: &Path, read: &str| NewChapter {
            path: path.to_path_buf(),
            display: path.file_name().unwrap().to_string_lossy().into(),
            read: read.into(),
            text: "new".into(),
        };
        let result = write_chapters(&[chapter(&a, "old a"), chapter(&b, "old b")]);
        assert!(matches!(result, Err(WriteError::Changed(ref d)) if d == "b.md"));
        assert_eq!(fs::read_to_string(&a).unwrap(), "old a", "nothing written");
        write_chapters(&[chapter(&a, "old a")]).unwrap();
        assert_eq!(fs::read_to_string(&a).unwrap(), "new");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            2,
            "no temporary left"
        );
    }
}
