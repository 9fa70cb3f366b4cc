//! Positions in the chapters and in the tangled files, each turned into the other through the line
//! maps of one tangle. LSP positions count lines from 0 and characters in UTF-16 code units; the line
//! maps count both from 1, characters as Unicode scalar values.

use std::collections::HashMap;

use similar::{DiffOp, TextDiff};

use crate::{SourceText, TangledFile, is_announcement};

/// A position in a text file: a 0-based line, and a 0-based character in UTF-16 code units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub line: usize,
    pub character: usize,
}

/// A position in a named file: a chapter (`book/src/x.md`) or a tangled file (`x.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub file: String,
    pub position: Position,
}

/// The two-way map between the chapters and the tangled files of one tangle.
#[derive(Debug, Default)]
pub struct Positions {
    files: Vec<TangledFile>,
    /// Where each line of each file starts, by file index.
    line_starts: Vec<Vec<usize>>,
    /// Each file's index in `files`, by name.
    by_name: HashMap<String, usize>,
    chapters: HashMap<String, SourceText>,
    /// For each chapter, by 1-based line, the code lines made from it: (index in `files`, 1-based
    /// line), in book order.
    made_from: HashMap<String, Vec<Vec<(usize, usize)>>>,
    /// For each chapter edited since the tangle, how its lines then and now match.
    drift: HashMap<String, Drift>,
}

/// How the lines of a chapter as it was tangled match its lines now: each 0-based line of either
/// text, the same line in the other, if the line is unchanged and was not moved.
#[derive(Debug, Default)]
struct Drift {
    to_then: Vec<Option<usize>>,
    to_now: Vec<Option<usize>>,
}

impl Drift {
    fn between(then: &[&str], now: &[&str]) -> Drift {
        let mut drift = Drift {
            to_then: vec![None; now.len()],
            to_now: vec![None; then.len()],
        };
        for op in TextDiff::from_slices(then, now).ops() {
            if let DiffOp::Equal {
                old_index,
                new_index,
                len,
            } = *op
            {
                for k in 0..len {
                    drift.to_then[new_index + k] = Some(old_index + k);
                    drift.to_now[old_index + k] = Some(new_index + k);
                }
            }
        }
        drift
    }
}

impl Positions {
    /// The map of a tangle: its files, and the text of the chapters they were tangled from, by the
    /// name places use (`book/src/x.md`).
    pub fn new(files: &[TangledFile], chapters: &[(String, String)]) -> Positions {
        let mut made_from: HashMap<String, Vec<Vec<(usize, usize)>>> = HashMap::new();
        for (index, file) in files.iter().enumerate() {
            for (line_index, text) in file.text.lines().enumerate() {
                let line = line_index + 1;
                if is_announcement(text) {
                    continue;
                }
                let Some((chapter, chapter_line)) = file.map.source(line) else {
                    continue;
                };
                let lines = match made_from.get_mut(chapter) {
                    Some(lines) => lines,
                    None => made_from.entry(chapter.to_string()).or_default(),
                };
                if lines.len() <= chapter_line {
                    lines.resize(chapter_line + 1, Vec::new());
                }
                lines[chapter_line].push((index, line));
            }
        }
        Positions {
            files: files.to_vec(),
            line_starts: files
                .iter()
                .map(|f| {
                    let ends = f.text.match_indices('\n').map(|(i, _)| i + 1);
                    std::iter::once(0).chain(ends).collect()
                })
                .collect(),
            by_name: files
                .iter()
                .enumerate()
                .map(|(i, f)| (f.name.clone(), i))
                .collect(),
            chapters: chapters
                .iter()
                .map(|(name, text)| (name.clone(), SourceText::new(name.clone(), text.clone())))
                .collect(),
            made_from,
            drift: HashMap::new(),
        }
    }

    /// Follows the chapters' texts as they are now, while they do not tangle: a position on a line
    /// that is as it was at the tangle maps through the tangle from that line; a position on a line
    /// typed since maps nowhere. So no answer lands on a line the edits since have moved.
    pub fn follow(&mut self, chapters: &[(String, String)]) {
        self.drift.clear();
        for (name, text) in chapters {
            let Some(then) = self.chapters.get(name) else {
                continue;
            };
            if then.text != *text {
                let then: Vec<&str> = then.text.lines().collect();
                let now: Vec<&str> = text.lines().collect();
                self.drift.insert(name.clone(), Drift::between(&then, &now));
            }
        }
    }

    /// The line of a chapter at the tangle that a 0-based line now is, if it is unchanged.
    fn line_then(&self, chapter: &str, now: usize) -> Option<usize> {
        match self.drift.get(chapter) {
            Some(drift) => drift.to_then.get(now).copied().flatten(),
            None => Some(now),
        }
    }

    /// Where a 0-based line of a chapter at the tangle is now, if it is still there, unchanged.
    fn line_now(&self, chapter: &str, then: usize) -> Option<usize> {
        match self.drift.get(chapter) {
            Some(drift) => drift.to_now.get(then).copied().flatten(),
            None => Some(then),
        }
    }

    /// The tangled files of the tangle.
    pub fn files(&self) -> impl Iterator<Item = &TangledFile> {
        self.files.iter()
    }

    /// Where the code at a chapter position was tangled to: its first use, in book order.
    pub fn to_tangled(&self, at: &Located) -> Option<Located> {
        self.all_tangled(at).into_iter().next()
    }

    /// Every place the code at a chapter position was tangled to (a chunk used twice is in two).
    pub fn all_tangled(&self, at: &Located) -> Vec<Located> {
        let Some(line_then) = self.line_then(&at.file, at.position.line) else {
            return Vec::new();
        };
        let uses = self
            .made_from
            .get(&at.file)
            .and_then(|lines| lines.get(line_then + 1));
        let Some(uses) = uses else {
            return Vec::new();
        };
        let Some(chapter_line) = self.chapter_line(&at.file, line_then) else {
            return Vec::new();
        };
        let chars = chars_before(chapter_line, at.position.character);
        uses.iter()
            .filter_map(|&(index, line)| {
                let file = &self.files[index];
                let code_start = file.map.place(line, 1)?.col - 1;
                let indent = file.map.indent(line)?;
                let text = self.tangled_line(index, line - 1)?;
                let character = utf16_len(text, indent + chars.saturating_sub(code_start));
                Some(Located {
                    file: file.name.clone(),
                    position: Position {
                        line: line - 1,
                        character,
                    },
                })
            })
            .collect()
    }

    /// The lines of each tangled file made from the chapter's lines `first..=last` (0-based, as
    /// the chapter is now): by file name, the first and last such line (0-based).
    pub fn tangled_lines(
        &self,
        chapter: &str,
        first: usize,
        last: usize,
    ) -> HashMap<&str, (usize, usize)> {
        let mut found: HashMap<&str, (usize, usize)> = HashMap::new();
        let Some(made) = self.made_from.get(chapter) else {
            return found;
        };
        for now in first..=last {
            let Some(then) = self.line_then(chapter, now) else {
                continue;
            };
            for &(index, line) in made.get(then + 1).into_iter().flatten() {
                let span = found
                    .entry(self.files[index].name.as_str())
                    .or_insert((line - 1, line - 1));
                *span = (span.0.min(line - 1), span.1.max(line - 1));
            }
        }
        found
    }

    /// The chapter position a tangled position came from.
    pub fn to_chapter(&self, at: &Located) -> Option<Located> {
        let index = *self.by_name.get(&at.file)?;
        let file = &self.files[index];
        let text = self.tangled_line(index, at.position.line)?;
        if is_announcement(text) {
            return None;
        }
        let chars = chars_before(text, at.position.character);
        let place = file.map.place(at.position.line + 1, chars + 1)?;
        let chapter_line = self.chapter_line(&place.file, place.line - 1)?;
        Some(Located {
            position: Position {
                line: self.line_now(&place.file, place.line - 1)?,
                character: utf16_len(chapter_line, place.col - 1),
            },
            file: place.file,
        })
    }

    /// What stands in a chapter's line (0-based, as the chapter is now) before the start of the code
    /// a tangled line (0-based) came from: the list indentation or `>` markers of the block, and the
    /// line's ending (`\r\n` or `\n`); `None` when the tangled line has no chapter line.
    pub fn line_frame(&self, tangled: &str, line: usize) -> Option<(String, &'static str)> {
        let index = *self.by_name.get(tangled)?;
        let text = self.tangled_line(index, line)?;
        if is_announcement(text) {
            return None;
        }
        let place = self.files[index].map.place(line + 1, 1)?;
        let source = self.chapters.get(&place.file)?;
        let whole = source.line(place.line)?;
        let prefix: String = whole.chars().take(place.col - 1).collect();
        let crlf = source.text.split('\n').nth(place.line - 1)?.ends_with('\r');
        Some((prefix, if crlf { "\r\n" } else { "\n" }))
    }

    /// The text of a 0-based line of the tangled file at `index`, without its line ending.
    fn tangled_line(&self, index: usize, line: usize) -> Option<&str> {
        let starts = &self.line_starts[index];
        let text = &self.files[index].text;
        let start = *starts.get(line)?;
        let end = starts.get(line + 1).copied().unwrap_or(text.len());
        (start < text.len()).then(|| text[start..end].trim_end_matches(['\n', '\r']))
    }

    /// The text of a 0-based line of a chapter, as it was tangled.
    pub fn chapter_line(&self, chapter: &str, line: usize) -> Option<&str> {
        self.chapters.get(chapter)?.line(line + 1)
    }
}

/// How many characters of `text` lie before the UTF-16 offset `utf16` (clamped to the line).
pub fn chars_before(text: &str, utf16: usize) -> usize {
    let mut units = 0;
    for (count, c) in text.chars().enumerate() {
        if units >= utf16 {
            return count;
        }
        units += c.len_utf16();
    }
    text.chars().count()
}

/// The UTF-16 length of the first `chars` characters of `text` (clamped to the line).
pub fn utf16_len(text: &str, chars: usize) -> usize {
    text.chars().take(chars).map(char::len_utf16).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SourceText, Web, tangle};

    const CHAPTER: &str = "# A\n\n```rust\n// <<file:a.rs>>=\nfn f() {\n    // <<body>>\n}\n```\n\nProse ✓.\n\n```rust\n// <<body>>=\nlet é = 1; g(é);\n```\n";

    fn positions() -> Positions {
        let (web, problems) = Web::parse(vec![SourceText::new("book/src/a.md", CHAPTER)]);
        assert!(problems.is_empty(), "{problems:?}");
        let files = tangle(&web).expect("a sound web");
        Positions::new(&files, &[("book/src/a.md".into(), CHAPTER.into())])
    }

    fn at(file: &str, line: usize, character: usize) -> Located {
        Located {
            file: file.into(),
            position: Position { line, character },
        }
    }

    #[test]
    fn a_position_in_an_included_chunk_maps_to_its_indented_line_and_back() {
        let positions = positions();
        // `g` in `let é = 1; g(é);`, chapter line 14, after a character that is one UTF-16 unit.
        let chapter = at("book/src/a.md", 13, 11);
        let tangled = positions.to_tangled(&chapter).expect("the line is code");
        assert_eq!(tangled.file, "a.rs");
        let text = positions.files[positions.by_name["a.rs"]]
            .text
            .lines()
            .nth(tangled.position.line);
        assert_eq!(text, Some("    let é = 1; g(é);"));
        assert_eq!(tangled.position.character, 15);
        assert_eq!(positions.to_chapter(&tangled), Some(chapter));
    }

    #[test]
    fn prose_and_announcements_have_no_tangled_place() {
        let positions = positions();
        assert_eq!(positions.to_tangled(&at("book/src/a.md", 9, 2)), None);
        assert_eq!(positions.to_tangled(&at("book/src/a.md", 5, 6)), None);
    }

    #[test]
    fn while_a_chapter_does_not_tangle_positions_follow_its_unchanged_lines() {
        let mut positions = positions();
        let typed = CHAPTER.replace("Prose ✓.\n", "Prose ✓.\n// <<ke\nmore prose\n");
        positions.follow(&[("book/src/a.md".into(), typed.clone())]);
        // `g` is on line 16 now; it maps to where it was tangled, and back to line 16.
        let chapter = at("book/src/a.md", 15, 11);
        let tangled = positions
            .to_tangled(&chapter)
            .expect("the line is unchanged");
        assert_eq!(tangled.position.line, 4);
        assert_eq!(positions.to_chapter(&tangled), Some(chapter));
        assert_eq!(
            positions.to_tangled(&at("book/src/a.md", 10, 3)),
            None,
            "typed since"
        );
        let changed = typed.replace("let é = 1; g(é);", "let é = 1; g(é, 2);");
        positions.follow(&[("book/src/a.md".into(), changed)]);
        assert_eq!(positions.to_chapter(&tangled), None, "the line changed");
    }

    #[test]
    fn utf16_offsets_count_characters_outside_the_basic_plane_twice() {
        assert_eq!(chars_before("a😀b", 3), 2);
        assert_eq!(utf16_len("a😀b", 2), 3);
        assert_eq!(chars_before("ab", 9), 2);
    }
}
