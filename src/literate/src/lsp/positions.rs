//! Positions in the chapters and in the tangled files, each turned into the other through the line
//! maps of one tangle. LSP positions count lines from 0 and characters in UTF-16 code units; the line
//! maps count both from 1, characters as Unicode scalar values.

use std::collections::HashMap;

use crate::{TangledFile, is_announcement};

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
    tangled: HashMap<String, TangledFile>,
    chapters: HashMap<String, Vec<String>>,
    /// For each chapter line (file, 1-based line), the code lines made from it: (tangled file,
    /// 1-based line), in book order.
    made_from: HashMap<(String, usize), Vec<(String, usize)>>,
}

impl Positions {
    /// The map of a tangle: its files, and the text of the chapters they were tangled from, by the
    /// name places use (`book/src/x.md`).
    pub fn new(files: &[TangledFile], chapters: &[(String, String)]) -> Positions {
        let mut made_from: HashMap<(String, usize), Vec<(String, usize)>> = HashMap::new();
        for file in files {
            for (index, text) in file.text.lines().enumerate() {
                let line = index + 1;
                if is_announcement(text) {
                    continue;
                }
                if let Some(place) = file.map.place(line, 1) {
                    made_from
                        .entry((place.file, place.line))
                        .or_default()
                        .push((file.name.clone(), line));
                }
            }
        }
        Positions {
            tangled: files.iter().map(|f| (f.name.clone(), f.clone())).collect(),
            chapters: chapters
                .iter()
                .map(|(name, text)| (name.clone(), text.lines().map(str::to_string).collect()))
                .collect(),
            made_from,
        }
    }

    /// The tangled files of the tangle.
    pub fn files(&self) -> impl Iterator<Item = &TangledFile> {
        self.tangled.values()
    }

    /// Where the code at a chapter position was tangled to: its first use, in book order.
    pub fn to_tangled(&self, at: &Located) -> Option<Located> {
        self.all_tangled(at).into_iter().next()
    }

    /// Every place the code at a chapter position was tangled to (a chunk used twice is in two).
    pub fn all_tangled(&self, at: &Located) -> Vec<Located> {
        let Some(uses) = self.made_from.get(&(at.file.clone(), at.position.line + 1)) else {
            return Vec::new();
        };
        let Some(chapter_line) = self.chapter_line(&at.file, at.position.line) else {
            return Vec::new();
        };
        let chars = chars_before(chapter_line, at.position.character);
        uses.iter()
            .filter_map(|(name, line)| {
                let file = &self.tangled[name];
                let code_start = file.map.place(*line, 1)?.col - 1;
                let indent = file.map.indent(*line)?;
                let text = file.text.lines().nth(line - 1)?;
                let character = utf16_len(text, indent + chars.saturating_sub(code_start));
                Some(Located {
                    file: name.clone(),
                    position: Position {
                        line: line - 1,
                        character,
                    },
                })
            })
            .collect()
    }

    /// The chapter position a tangled position came from.
    pub fn to_chapter(&self, at: &Located) -> Option<Located> {
        let file = self.tangled.get(&at.file)?;
        let text = file.text.lines().nth(at.position.line)?;
        let chars = chars_before(text, at.position.character);
        let place = file.map.place(at.position.line + 1, chars + 1)?;
        let chapter_line = self.chapter_line(&place.file, place.line - 1)?;
        Some(Located {
            position: Position {
                line: place.line - 1,
                character: utf16_len(chapter_line, place.col - 1),
            },
            file: place.file,
        })
    }

    /// The text of a 0-based line of a chapter, as it was tangled.
    pub fn chapter_line(&self, chapter: &str, line: usize) -> Option<&str> {
        self.chapters.get(chapter)?.get(line).map(String::as_str)
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
        let text = positions.tangled["a.rs"]
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
    fn utf16_offsets_count_characters_outside_the_basic_plane_twice() {
        assert_eq!(chars_before("a😀b", 3), 2);
        assert_eq!(utf16_len("a😀b", 2), 3);
        assert_eq!(chars_before("ab", 9), 2);
    }
}
