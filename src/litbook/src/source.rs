//! A Markdown file's text as the tools hold it: with the path the reader knows it by, and where its
//! lines start, so that any byte of it can be named as a line and column.

use crate::Place;

/// A Markdown file's text, with the path a reader knows it by and an index of where its lines start,
/// so that any byte offset can be turned into a [`Place`].
#[derive(Clone, Debug)]
pub struct SourceText {
    /// The name it is shown by in problems (`book/src/world.md`).
    pub display: String,
    /// Its text.
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceText {
    /// The text `text`, shown as `display`.
    pub fn new(display: impl Into<String>, text: impl Into<String>) -> SourceText {
        let text = text.into();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        SourceText {
            display: display.into(),
            text,
            line_starts,
        }
    }

    /// The place of a byte offset; an offset past the end or inside a character is clamped, never a panic.
    pub fn place(&self, offset: usize) -> Place {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let start = self.line_starts[line - 1];
        let col = match self.text.get(start..offset) {
            Some(prefix) => prefix.chars().count(),
            None => offset - start,
        };
        Place::new(self.display.clone(), line, col + 1)
    }

    /// The text of a 1-based line without its line ending, if the file has that line.
    pub fn line(&self, line: usize) -> Option<&str> {
        let start = *self.line_starts.get(line.checked_sub(1)?)?;
        let end = self
            .line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len());
        let text = self.text.get(start..end)?;
        Some(text.trim_end_matches(['\n', '\r']))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_count_lines_and_characters_from_one() {
        let src = SourceText::new("a.md", "ab\nçd\n");
        assert_eq!(src.place(0), Place::new("a.md", 1, 1));
        assert_eq!(src.place(3), Place::new("a.md", 2, 1));
        assert_eq!(src.place(5), Place::new("a.md", 2, 2));
        assert_eq!(src.place(4), Place::new("a.md", 2, 2), "inside a character");
        assert_eq!(src.place(99), Place::new("a.md", 3, 1), "past the end");
    }

    #[test]
    fn lines_come_without_their_endings() {
        let src = SourceText::new("a.md", "one\r\ntwo");
        assert_eq!(src.line(1), Some("one"));
        assert_eq!(src.line(2), Some("two"));
        assert_eq!(src.line(3), None);
        assert_eq!(src.line(0), None);
    }
}
