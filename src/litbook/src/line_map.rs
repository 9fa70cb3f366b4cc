//! The line map of a tangled file: for each of its lines, the Markdown place it came from and the
//! indentation the references added in front of it. The build script writes it beside the file as
//! text (`NAME.rs.map`); every tool that reports a problem in tangled code reads it to report the
//! problem in the book instead.

use crate::Place;

/// Where each line of a tangled file came from: a Markdown place, and how much indentation the
/// references that put it there added in front of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineMap {
    files: Vec<String>,
    lines: Vec<Origin>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Origin {
    file: usize,
    line: usize,
    col: usize,
    indent: usize,
}

impl LineMap {
    /// The Markdown files the tangled lines come from.
    pub fn sources(&self) -> &[String] {
        &self.files
    }

    /// Records the origin of the next tangled line.
    pub fn push(&mut self, place: &Place, indent: usize) {
        let file = match self.files.iter().position(|f| *f == place.file) {
            Some(i) => i,
            None => {
                self.files.push(place.file.clone());
                self.files.len() - 1
            }
        };
        self.lines.push(Origin {
            file,
            line: place.line,
            col: place.col,
            indent,
        });
    }

    /// The Markdown place of a 1-based line and column of the tangled file. A column inside the
    /// indentation a reference added maps to the start of the chunk's line.
    pub fn place(&self, line: usize, col: usize) -> Option<Place> {
        let origin = self.lines.get(line.checked_sub(1)?)?;
        let col = origin.col + col.saturating_sub(1 + origin.indent);
        Some(Place::new(
            self.files[origin.file].clone(),
            origin.line,
            col,
        ))
    }

    /// The Markdown file and 1-based line of a 1-based tangled line, without copying the file's name.
    pub fn source(&self, line: usize) -> Option<(&str, usize)> {
        let origin = self.lines.get(line.checked_sub(1)?)?;
        Some((&self.files[origin.file], origin.line))
    }

    /// How much indentation references added in front of a 1-based tangled line.
    pub fn indent(&self, line: usize) -> Option<usize> {
        Some(self.lines.get(line.checked_sub(1)?)?.indent)
    }

    /// A plain-text form, written beside each tangled file for the tools that read diagnostics:
    /// one `file PATH` line per Markdown file, then `FILE LINE COL INDENT` per tangled line.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        for file in &self.files {
            text.push_str(&format!("file {file}\n"));
        }
        for o in &self.lines {
            text.push_str(&format!("{} {} {} {}\n", o.file, o.line, o.col, o.indent));
        }
        text
    }

    /// Reads [`LineMap::to_text`]'s form back; `None` if the text is not such a map.
    pub fn from_text(text: &str) -> Option<LineMap> {
        let mut map = LineMap::default();
        for line in text.lines() {
            if let Some(file) = line.strip_prefix("file ") {
                map.files.push(file.to_string());
                continue;
            }
            let numbers: Vec<usize> = line
                .split(' ')
                .map(str::parse)
                .collect::<Result<_, _>>()
                .ok()?;
            let [file, line, col, indent] = numbers[..] else {
                return None;
            };
            if file >= map.files.len() {
                return None;
            }
            map.lines.push(Origin {
                file,
                line,
                col,
                indent,
            });
        }
        Some(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_past_the_added_indentation_shift_back_to_the_markdown() {
        let mut map = LineMap::default();
        map.push(&Place::new("book/src/a.md", 10, 1), 0);
        map.push(&Place::new("book/src/b.md", 4, 3), 8);
        assert_eq!(map.place(1, 5), Some(Place::new("book/src/a.md", 10, 5)));
        assert_eq!(map.place(2, 9), Some(Place::new("book/src/b.md", 4, 3)));
        assert_eq!(map.place(2, 12), Some(Place::new("book/src/b.md", 4, 6)));
        assert_eq!(map.place(2, 1), Some(Place::new("book/src/b.md", 4, 3)));
        assert_eq!(map.place(3, 1), None);
        assert_eq!(map.place(0, 1), None);
    }

    #[test]
    fn the_text_form_reads_back_the_same() {
        let mut map = LineMap::default();
        map.push(&Place::new("book/src/a b.md", 10, 1), 0);
        map.push(&Place::new("book/src/c.md", 4, 3), 8);
        assert_eq!(LineMap::from_text(&map.to_text()), Some(map));
        assert_eq!(LineMap::from_text("0 1 2"), None);
        assert_eq!(LineMap::from_text("0 1 2 3"), None, "no such file");
    }
}
