//! The web: every chunk of the book, read from the chapters' code blocks in book order, each part with
//! its lines and references, and the graph of who uses whom. Problems of single blocks (a malformed
//! header, a fence left open, a fence a letter off) are found here; problems of the web as a whole
//! are the tangler's.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use crate::{CodeBlock, Diagnostic, Marker, Place, SourceText, fenced_blocks, marker};

/// Whether a chunk's code block starts it (`=`) or continues it (`+=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// The chunk's definition, `// <<name>>=`.
    Define,
    /// A continuation, `// <<name>>+=`.
    Append,
}

/// The language of a chunk's code block: Rust (a `rust` fence), or JavaScript (`js`) for a program's
/// part that runs in a web page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// Rust, in a `rust` block.
    Rust,
    /// JavaScript, in a `js` block.
    JavaScript,
}

impl Language {
    /// The language a fence's first word names, if a chunk can be written in it.
    fn of_fence(word: &str) -> Option<Language> {
        match word {
            "rust" => Some(Language::Rust),
            "js" | "javascript" => Some(Language::JavaScript),
            _ => None,
        }
    }

    /// The ending of the files a root in this language becomes.
    pub fn extension(self) -> &'static str {
        match self {
            Language::Rust => ".rs",
            Language::JavaScript => ".js",
        }
    }

    /// The language's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Language::Rust => "Rust",
            Language::JavaScript => "JavaScript",
        }
    }

    /// The language of a tangled file, by its name's ending.
    pub fn of_file(name: &str) -> Language {
        if name.ends_with(Language::JavaScript.extension()) {
            Language::JavaScript
        } else {
            Language::Rust
        }
    }
}

/// One code block of a chunk: the chunk's definition or one of its continuations.
#[derive(Clone, Debug)]
pub struct Part {
    /// The chunk's name.
    pub name: String,
    /// Whether it defines the chunk or continues it.
    pub kind: PartKind,
    /// The language of its block.
    pub language: Language,
    /// Index of the chapter in [`Web::chapters`].
    pub chapter: usize,
    /// Where the header comment stands.
    pub header: Place,
    /// The bytes of the whole fenced block in its chapter.
    pub block: Range<usize>,
    /// The lines after the header.
    pub body: Vec<Line>,
}

/// A line of a chunk's body: code, or a reference to another chunk.
#[derive(Clone, Debug)]
pub struct Line {
    /// The line's text.
    pub text: String,
    /// Where it is in its chapter.
    pub place: Place,
    /// The chunk it stands for, if it is a reference.
    pub reference: Option<Reference>,
}

/// A line that stands for a chunk's text: `// <<name>>`.
#[derive(Clone, Debug)]
pub struct Reference {
    /// The chunk's name.
    pub name: String,
    /// Where the marker (`//`) stands.
    pub place: Place,
    /// The reference line's indentation, which every line of the chunk gets when it is put there.
    pub indent: String,
}

/// All the chunks of a book, in book order: the order of the chapters, then top to bottom.
#[derive(Clone, Debug, Default)]
pub struct Web {
    /// The chapters, in book order.
    pub chapters: Vec<SourceText>,
    /// Every chunk part, in book order.
    pub parts: Vec<Part>,
    by_name: HashMap<String, Vec<usize>>,
    names: Vec<String>,
}

/// The file a root chunk (`file:NAME.rs`) becomes, or `None` for an ordinary chunk.
pub fn root_file(name: &str) -> Option<&str> {
    let file = name.strip_prefix("file:")?.trim();
    Some(file.strip_prefix("./").unwrap_or(file))
}

impl Web {
    /// Reads the chunks of every chapter, with a diagnostic for each malformed block.
    pub fn parse(chapters: Vec<SourceText>) -> (Web, Vec<Diagnostic>) {
        let parsed = chapters
            .iter()
            .enumerate()
            .map(|(index, source)| ChapterChunks::parse(index, source))
            .collect();
        Web::from_chapters(chapters, parsed)
    }

    /// The web of chapters whose chunks were read already, one [`ChapterChunks`] per chapter, in
    /// order: what [`Web::parse`] gives, for a reader that keeps the chunks of chapters that did not
    /// change (the language server, on every keystroke).
    pub fn from_chapters(
        chapters: Vec<SourceText>,
        parsed: Vec<ChapterChunks>,
    ) -> (Web, Vec<Diagnostic>) {
        let mut web = Web {
            chapters,
            ..Web::default()
        };
        let mut problems = Vec::new();
        for chapter in parsed {
            problems.extend(chapter.problems);
            for part in chapter.parts {
                web.add(part);
            }
        }
        (web, problems)
    }

    fn add(&mut self, part: Part) {
        let index = self.parts.len();
        match self.by_name.get_mut(&part.name) {
            Some(parts) => parts.push(index),
            None => {
                self.names.push(part.name.clone());
                self.by_name.insert(part.name.clone(), vec![index]);
            }
        }
        self.parts.push(part);
    }

    /// Chunk names in the order they first appear in the book.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The parts of a chunk in book order (empty for an unknown name).
    pub fn parts_of(&self, name: &str) -> impl Iterator<Item = &Part> {
        self.part_indices(name).iter().map(|&i| &self.parts[i])
    }

    /// The parts of a chunk in book order, as indices into [`Web::parts`].
    pub fn part_indices(&self, name: &str) -> &[usize] {
        self.by_name.get(name).map_or(&[], Vec::as_slice)
    }

    /// Whether a chunk of this name has a definition.
    pub fn is_defined(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// Every reference in the book, with the part it stands in.
    pub fn references(&self) -> impl Iterator<Item = (&Part, &Reference)> {
        self.parts.iter().flat_map(|part| {
            part.body
                .iter()
                .filter_map(move |line| Some((part, line.reference.as_ref()?)))
        })
    }
}

/// Who uses whom: the web's references as a graph, built once for every reader that follows them
/// (the tangler's checks, the weaver's "used in" lines, the book's own tests).
#[derive(Debug, Default)]
pub struct Uses<'w> {
    /// For each chunk, the defined chunks it uses (roots, which nothing expands, left out), each with
    /// the place of the use, in book order.
    uses: HashMap<&'w str, Vec<(&'w str, &'w Place)>>,
    /// For each name referenced, the parts whose code references it, each once, in book order, as
    /// indices into [`Web::parts`].
    users: HashMap<&'w str, Vec<usize>>,
}

impl Web {
    /// The web's references as a graph.
    pub fn uses(&self) -> Uses<'_> {
        let mut graph = Uses::default();
        for (i, part) in self.parts.iter().enumerate() {
            for reference in part.body.iter().filter_map(|line| line.reference.as_ref()) {
                let name = reference.name.as_str();
                let users = graph.users.entry(name).or_default();
                if users.last() != Some(&i) {
                    users.push(i);
                }
                if self.is_defined(name) && root_file(name).is_none() {
                    let uses = graph.uses.entry(part.name.as_str()).or_default();
                    uses.push((name, &reference.place));
                }
            }
        }
        graph
    }
}

impl<'w> Uses<'w> {
    /// The defined chunks `name` uses, each with the place of the use, in book order.
    pub fn of(&self, name: &str) -> &[(&'w str, &'w Place)] {
        self.uses.get(name).map_or(&[], Vec::as_slice)
    }

    /// The parts that reference `name`, in book order.
    pub fn users(&self, name: &str) -> &[usize] {
        self.users.get(name).map_or(&[], Vec::as_slice)
    }

    /// The chunks `roots` reach, themselves included, through any number of uses.
    pub fn reached_from(&self, roots: impl IntoIterator<Item = &'w str>) -> HashSet<&'w str> {
        let mut reached: HashSet<&str> = HashSet::new();
        let mut next: Vec<&str> = Vec::new();
        for root in roots {
            if reached.insert(root) {
                next.push(root);
            }
        }
        while let Some(name) = next.pop() {
            for &(used, _) in self.of(name) {
                if reached.insert(used) {
                    next.push(used);
                }
            }
        }
        reached
    }
}

/// The chunk parts of one chapter, and the problems of its blocks.
#[derive(Clone, Debug)]
pub struct ChapterChunks {
    /// The chapter's chunk parts, in order.
    pub parts: Vec<Part>,
    /// The problems of its code blocks.
    pub problems: Vec<Diagnostic>,
}

impl ChapterChunks {
    /// Reads the chunks of chapter number `chapter` (its index in the book).
    pub fn parse(chapter: usize, source: &SourceText) -> ChapterChunks {
        let mut problems = Vec::new();
        let parts = fenced_blocks(&source.text)
            .iter()
            .filter_map(|block| read_block(chapter, source, block, &mut problems))
            .collect();
        ChapterChunks { parts, problems }
    }
}

/// The chunks of each chapter as last read, for a reader that reads the same book again and again
/// (the language server, on every keystroke): a chapter whose text and place in the book are the
/// same is not read again.
#[derive(Default)]
pub struct ChunkCache(HashMap<String, (usize, String, ChapterChunks)>);

impl ChunkCache {
    /// The chunks of each of `chapters`, in order; the cache then holds these chapters only.
    pub fn read(&mut self, chapters: &[SourceText]) -> Vec<ChapterChunks> {
        let read: Vec<ChapterChunks> = chapters
            .iter()
            .enumerate()
            .map(|(index, chapter)| match self.0.get(&chapter.display) {
                Some((i, text, chunks)) if *i == index && *text == chapter.text => chunks.clone(),
                _ => {
                    let chunks = ChapterChunks::parse(index, chapter);
                    let kept = (index, chapter.text.clone(), chunks.clone());
                    self.0.insert(chapter.display.clone(), kept);
                    chunks
                }
            })
            .collect();
        self.0
            .retain(|display, _| chapters.iter().any(|c| c.display == *display));
        read
    }
}

/// Reads one fenced block: a chunk part when it is a `rust` (or `js`) block that starts with a header,
/// nothing when it is an illustration. Problems go to `problems`.
fn read_block(
    chapter: usize,
    source: &SourceText,
    block: &CodeBlock,
    problems: &mut Vec<Diagnostic>,
) -> Option<Part> {
    let fence = source.place(block.range.start);
    if !block.terminated {
        problems.push(Diagnostic::new(
            fence.clone(),
            "unterminated fence: this code block has no closing fence and runs to the end of the file",
        ));
    }
    let fence_word = block.info.split([',', ' ', '\t']).next().unwrap_or("");
    let Some(language) = Language::of_fence(fence_word) else {
        report_a_chunk_in_another_case(fence_word, block, source, problems);
        return None;
    };
    let lines: Vec<(Place, &str)> = block
        .lines
        .iter()
        .map(|line| (source.place(line.offset), line.text.as_str()))
        .collect();
    if let Some((place, opening)) = lines.iter().skip(1).find(|(_, text)| opens_a_block(text)) {
        problems.push(Diagnostic::new(
            fence,
            format!(
                "unclosed fence: this code block runs on past line {}, where {} seems to open \
                 another; close it with ``` on a line of its own before the prose that follows it",
                place.line,
                opening.trim()
            ),
        ));
        return None;
    }
    for (place, text) in &lines {
        if language == Language::Rust && is_hidden_by_mdbook(text) {
            problems.push(Diagnostic::new(
                place.clone(),
                "a line of a Rust block starts with `#`, which mdbook hides from readers; write attributes as `#[…]`",
            ));
        }
    }
    let (header_place, header_text) = lines.first()?.clone();
    let header = match marker(header_text) {
        Some(Ok(Marker::Define(name))) => (name, PartKind::Define),
        Some(Ok(Marker::Append(name))) => (name, PartKind::Append),
        Some(Ok(Marker::Reference(name))) => {
            problems.push(Diagnostic::new(
                header_place,
                format!(
                    "malformed header: a chunk's first line must be `// <<{name}>>=` or `// <<{name}>>+=`"
                ),
            ));
            return None;
        }
        Some(Err(message)) => {
            problems.push(Diagnostic::new(
                header_place,
                format!("malformed header: {message}"),
            ));
            return None;
        }
        None => {
            report_misplaced_headers(&lines, problems);
            return None;
        }
    };
    if block.info.contains([' ', '\t']) {
        problems.push(Diagnostic::new(
            fence,
            format!(
                "malformed fence `{}`: a chunk's fence is plain `{fence_word}`, with extra flags after a comma and no space (`{fence_word},ignore`)",
                block.info
            ),
        ));
    }
    let (name, kind) = header;
    if let Some(Err(message)) = root_file(&name).map(|file| check_root_file(file, language)) {
        problems.push(Diagnostic::new(header_place.clone(), message));
    }
    let body = lines[1..]
        .iter()
        .filter_map(|(place, text)| read_body_line(place, text, problems))
        .collect();
    Some(Part {
        name,
        kind,
        language,
        chapter,
        header: header_place,
        block: block.range.clone(),
        body,
    })
}

/// A block fenced with another word than a chunk's language (```` ```Rust ````, ```` ```rs ````, or
/// no word at all) is an illustration, never tangled; when its first line is a chunk's header, its
/// writer meant a chunk, and hears why it is not one instead of losing it silently.
fn report_a_chunk_in_another_case(
    fence_word: &str,
    block: &CodeBlock,
    source: &SourceText,
    problems: &mut Vec<Diagnostic>,
) {
    let Some(first) = block.lines.first() else {
        return;
    };
    let is_header = matches!(
        marker(&first.text),
        Some(Ok(Marker::Define(_) | Marker::Append(_)))
    );
    let Some(meant) = language_meant(fence_word).filter(|_| is_header) else {
        return;
    };
    let fence = match fence_word {
        "" => "no language".to_string(),
        word => format!("`{word}`"),
    };
    problems.push(Diagnostic::new(
        source.place(block.range.start),
        format!(
            "a fence of {fence} makes an illustration, never tangled, yet its first line is a \
             chunk's header: write `{meant}` after the fence to make it a chunk"
        ),
    ));
}

/// The chunk language's fence word a writer meant by another (`rust` for `Rust`, `rs` or none).
fn language_meant(fence_word: &str) -> Option<&'static str> {
    match fence_word.to_lowercase().as_str() {
        "" | "rs" | "rust" => Some("rust"),
        "js" | "javascript" | "mjs" => Some("js"),
        _ => None,
    }
}

/// Whether a line inside a code block looks like the opening fence of another (```` ```rust ````,
/// `~~~js`): a fence with a language, which cannot close a block, so the block before it was never
/// closed.
fn opens_a_block(text: &str) -> bool {
    let text = text.trim_start();
    ["```", "~~~"].iter().any(|fence| {
        text.strip_prefix(fence).is_some_and(|info| {
            let word = info
                .trim_start_matches(['`', '~'])
                .split([',', ' ', '\t'])
                .next();
            word.is_some_and(|word| Language::of_fence(&word.to_lowercase()).is_some())
        })
    })
}

/// mdbook hides a Rust block's lines that start with `# ` (or are a lone `#`).
fn is_hidden_by_mdbook(text: &str) -> bool {
    let text = text.trim_start();
    text == "#" || text.starts_with("# ")
}

/// A header anywhere but on a block's first line is a mistake the reader should hear about.
fn report_misplaced_headers(lines: &[(Place, &str)], problems: &mut Vec<Diagnostic>) {
    for (place, text) in lines {
        if let Some(Ok(Marker::Define(name) | Marker::Append(name))) = marker(text) {
            problems.push(Diagnostic::new(
                place.clone(),
                format!(
                    "malformed header: the header of ⟨{name}⟩ must be the first line of its code block"
                ),
            ));
        }
    }
}

fn read_body_line(place: &Place, text: &str, problems: &mut Vec<Diagnostic>) -> Option<Line> {
    let reference = match marker(text) {
        None => None,
        Some(Ok(Marker::Reference(name))) => {
            let indent = &text[..text.len() - text.trim_start().len()];
            let mut marker_place = place.clone();
            marker_place.col += indent.chars().count();
            Some(Reference {
                name,
                place: marker_place,
                indent: indent.to_string(),
            })
        }
        Some(Ok(Marker::Define(name) | Marker::Append(name))) => {
            problems.push(Diagnostic::new(
                place.clone(),
                format!(
                    "malformed header: the header of ⟨{name}⟩ must be the first line of its own code block"
                ),
            ));
            return None;
        }
        Some(Err(message)) => {
            problems.push(Diagnostic::new(
                place.clone(),
                format!("malformed reference: {message}"),
            ));
            return None;
        }
    };
    Some(Line {
        text: text.to_string(),
        place: place.clone(),
        reference,
    })
}

/// A root's file must land inside `OUT_DIR` and be a file of its block's language: Rust's `.rs`, or
/// JavaScript's `.js`.
fn check_root_file(file: &str, language: Language) -> Result<(), String> {
    let inside = !file.is_empty()
        && !file.starts_with(['/', '\\'])
        && file
            .split(['/', '\\'])
            .all(|part| !part.is_empty() && part != "." && part != "..");
    if !inside {
        return Err(format!(
            "malformed header: root file `{file}` must be a relative path inside the output directory"
        ));
    }
    let extension = language.extension();
    if !file.ends_with(extension) {
        let fence = match language {
            Language::Rust => {
                "a `rust` block makes a Rust file; a JavaScript one is written in a `js` block"
            }
            Language::JavaScript => {
                "a `js` block makes a JavaScript file; a Rust one is written in a `rust` block"
            }
        };
        return Err(format!(
            "malformed header: root file `{file}` must end in `{extension}`: {fence}"
        ));
    }
    Ok(())
}
