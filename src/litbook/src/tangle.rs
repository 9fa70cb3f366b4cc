//! Tangling: the web checked as a whole (one definition for each chunk, every reference defined, no
//! cycle, every chunk used) and each root expanded into its file, with the line map that leads every
//! line back to its chapter. Nothing recurses, so no book can make it overflow its stack.

use std::collections::{HashMap, HashSet};
use std::io;
use std::ops::ControlFlow;
use std::path::Path;

use crate::{Diagnostic, Line, LineMap, Part, PartKind, Place, Uses, Web, root_file};

/// The most lines a tangled file may have. The book's largest file has a few thousand; a web that
/// would make more has a chunk used many times over, many levels deep, which doubles the text at
/// every level, and is reported instead of expanded.
pub const MAX_LINES: u64 = 1_000_000;
/// The most bytes a tangled file may have, for the same reason; indentation added by deep chains of
/// references counts too.
pub const MAX_BYTES: u64 = 64 << 20;
/// How many misspelt names get a "did you mean" suggestion; each one is compared with every name,
/// so a book with thousands of undefined references is reported without them past this many.
const MAX_SUGGESTIONS: usize = 20;
/// How many steps of a cycle its report lists; a longer cycle is shown with its middle left out.
const MAX_CYCLE_STEPS: usize = 12;

/// How the comment that announces a chunk part in a tangled file begins.
const ANNOUNCEMENT: &str = "// ⟨";

/// The first line of every tangled file.
const BANNER: &str =
    "// Tangled from the book by build.rs: edit the Markdown chunks, not this file.";

/// One file made from a root chunk, with the Markdown origin of each of its lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TangledFile {
    /// Its name in `OUT_DIR` (`world.rs`), from its root chunk `file:world.rs`.
    pub name: String,
    /// Its text.
    pub text: String,
    /// Where each of its lines came from in the Markdown.
    pub map: LineMap,
}

/// Checks the web as a whole (definitions, references, roots, cycles, reachability) and, when it is
/// sound, expands every root into its file. All problems are reported together.
///
/// Every check takes time in proportion to the size of the book, and none recurses, so that no book,
/// however large or deeply nested, can make the tangler crawl or overflow its stack.
pub fn tangle(web: &Web) -> Result<Vec<TangledFile>, Vec<Diagnostic>> {
    let mut problems = Vec::new();
    check_definitions(web, &mut problems);
    check_references(web, &mut problems);
    check_languages(web, &mut problems);
    check_roots(web, &mut problems);
    let uses = web.uses();
    check_cycles(web, &uses, &mut problems);
    check_reachability(web, &uses, &mut problems);
    if problems.is_empty() {
        check_sizes(web, &mut problems);
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(roots(web)
        .map(|(name, file)| expand_root(web, name, file))
        .collect())
}

/// Whether a line of a tangled file is one the tangler wrote itself: the banner on the first line, or
/// the comment that announces a chunk part (`// ⟨name⟩= book/src/world.md`). `litbook fmt` leaves
/// such lines alone.
pub fn is_announcement(line: &str) -> bool {
    line == BANNER || line.trim_start().starts_with(ANNOUNCEMENT)
}

/// Writes `text` to `path` only when the file does not already hold it, so that an unchanged file
/// keeps its modification time. Returns whether it wrote.
pub fn write_if_changed(path: &Path, text: &str) -> io::Result<bool> {
    if std::fs::read(path).is_ok_and(|old| old == text.as_bytes()) {
        return Ok(false);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)?;
    Ok(true)
}

fn roots(web: &Web) -> impl Iterator<Item = (&str, &str)> {
    web.names()
        .iter()
        .filter_map(|name| Some((name.as_str(), root_file(name)?)))
}

/// A chunk has one definition (`=`), and its continuations (`+=`) come after it in book order.
fn check_definitions(web: &Web, problems: &mut Vec<Diagnostic>) {
    for name in web.names() {
        let first = web.parts_of(name).find(|p| p.kind == PartKind::Define);
        let mut defined = false;
        for part in web.parts_of(name) {
            let place = part.header.clone();
            match (part.kind, first) {
                (PartKind::Define, Some(first)) if defined => problems.push(
                    Diagnostic::new(
                        place,
                        format!("⟨{name}⟩ is defined twice; continue a chunk with `// <<{name}>>+=`"),
                    )
                    .with_note(first.header.clone(), "first defined here"),
                ),
                (PartKind::Define, _) => defined = true,
                (PartKind::Append, None) => problems.push(Diagnostic::new(
                    place,
                    format!("`+=` continues ⟨{name}⟩, which is never defined with `// <<{name}>>=`"),
                )),
                (PartKind::Append, Some(first)) if !defined => problems.push(
                    Diagnostic::new(
                        place,
                        format!(
                            "⟨{name}⟩ is continued before it is defined; `+=` must come after `=` in book order"
                        ),
                    )
                    .with_note(first.header.clone(), "defined here"),
                ),
                (PartKind::Append, Some(_)) => {}
            }
        }
    }
}

/// Every reference names a chunk that exists, and never a root.
fn check_references(web: &Web, problems: &mut Vec<Diagnostic>) {
    let mut suggestions: HashMap<&str, Option<&str>> = HashMap::new();
    for (part, reference) in web.references() {
        let name = &reference.name;
        if !web.is_defined(name) {
            let mut message = format!("undefined chunk ⟨{name}⟩");
            let room = suggestions.len() < MAX_SUGGESTIONS;
            let near = match suggestions.get(name.as_str()) {
                Some(&near) => near,
                None if room => *suggestions
                    .entry(name)
                    .or_insert_with(|| nearest_name(web, name)),
                None => None,
            };
            if let Some(near) = near {
                message.push_str(&format!("; did you mean ⟨{near}⟩?"));
            }
            problems.push(Diagnostic::new(reference.place.clone(), message));
        } else if root_file(name).is_some() {
            problems.push(Diagnostic::new(
                reference.place.clone(),
                format!(
                    "⟨{name}⟩ is a root, a file of its own; it cannot also be used inside ⟨{}⟩",
                    part.name
                ),
            ));
        }
    }
}

/// A chunk is written in one language, and is used only in chunks of that language: a JavaScript
/// chunk's lines cannot stand in a Rust file, nor Rust's in a JavaScript one.
fn check_languages(web: &Web, problems: &mut Vec<Diagnostic>) {
    for name in web.names() {
        let mut parts = web.parts_of(name);
        let first = parts.next().expect("a listed name has parts");
        for part in parts.filter(|part| part.language != first.language) {
            problems.push(
                Diagnostic::new(
                    part.header.clone(),
                    format!(
                        "this part of ⟨{name}⟩ is {}, but the chunk is {}; a chunk is written in one language",
                        part.language.name(),
                        first.language.name()
                    ),
                )
                .with_note(first.header.clone(), "its first part is here"),
            );
        }
    }
    for (part, reference) in web.references() {
        let Some(used) = web.parts_of(&reference.name).next() else {
            continue;
        };
        if used.language != part.language {
            problems.push(
                Diagnostic::new(
                    reference.place.clone(),
                    format!(
                        "⟨{}⟩ is {}; it cannot be used inside ⟨{}⟩, which is {}",
                        reference.name,
                        used.language.name(),
                        part.name,
                        part.language.name()
                    ),
                )
                .with_note(used.header.clone(), "defined here"),
            );
        }
    }
}

/// The defined name closest to a misspelt one, if any is close enough to be a likely typo.
/// Names longer than a line are not compared.
fn nearest_name<'w>(web: &'w Web, name: &str) -> Option<&'w str> {
    const LONGEST: usize = 200;
    if name.len() > LONGEST {
        return None;
    }
    let wanted = name.to_lowercase();
    let (distance, near) = web
        .names()
        .iter()
        .filter(|n| n.len() <= LONGEST)
        .map(|n| (strsim::levenshtein(&wanted, &n.to_lowercase()), n.as_str()))
        .min_by_key(|&(d, _)| d)?;
    (distance <= (name.chars().count() / 3).max(2)).then_some(near)
}

/// No two roots write the same file.
fn check_roots(web: &Web, problems: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<&str, &Part> = HashMap::new();
    for (name, file) in roots(web) {
        let part = web.parts_of(name).next().expect("a listed name has parts");
        match seen.get(file) {
            Some(first) => problems.push(
                Diagnostic::new(
                    part.header.clone(),
                    format!("⟨{name}⟩ writes `{file}`, which another root already writes"),
                )
                .with_note(
                    first.header.clone(),
                    format!("⟨{}⟩ writes it here", first.name),
                ),
            ),
            None => {
                seen.insert(file, part);
            }
        }
    }
}

/// No chunk contains itself, directly or through others. Each cycle is reported once, at the use that
/// closes it, with its steps.
///
/// A depth-first search with its own stack: `path` holds the chunks being expanded, each with the
/// index of the next of its uses to follow; `on_path` finds a chunk's position in `path` at once, so
/// a use that leads back into the path closes a cycle.
fn check_cycles(web: &Web, uses: &Uses, problems: &mut Vec<Diagnostic>) {
    let uses_of = |name: &str| uses.of(name);
    let mut done: HashSet<&str> = HashSet::new();
    for start in web.names() {
        if done.contains(start.as_str()) {
            continue;
        }
        let mut path: Vec<(&str, usize)> = vec![(start, 0)];
        let mut on_path: HashMap<&str, usize> = HashMap::from([(start.as_str(), 0)]);
        while let Some(&mut (name, ref mut next)) = path.last_mut() {
            let Some(&(used, _)) = uses_of(name).get(*next) else {
                on_path.remove(name);
                done.insert(name);
                path.pop();
                continue;
            };
            *next += 1;
            if let Some(&at) = on_path.get(used) {
                let steps: Vec<(&str, &Place)> = path[at..]
                    .iter()
                    .map(|&(n, next)| (n, uses_of(n)[next - 1].1))
                    .collect();
                problems.push(cycle_diagnostic(&steps));
            } else if !done.contains(used) {
                on_path.insert(used, path.len());
                path.push((used, 0));
            }
        }
    }
}

/// `steps` are the chunks of a cycle, each with the place where it uses the next (the last one uses the
/// first); the cycle is reported where it closes.
/// A cycle of more than [`MAX_CYCLE_STEPS`] steps is shown by its first and last steps.
fn cycle_diagnostic(steps: &[(&str, &Place)]) -> Diagnostic {
    let first = steps[0].0;
    let shown: Vec<usize> = if steps.len() <= MAX_CYCLE_STEPS {
        (0..steps.len()).collect()
    } else {
        let half = MAX_CYCLE_STEPS / 2;
        (0..half).chain(steps.len() - half..steps.len()).collect()
    };
    let mut chain = Vec::new();
    for (k, &i) in shown.iter().enumerate() {
        if k > 0 && i != shown[k - 1] + 1 {
            chain.push(format!("… {} more …", i - shown[k - 1] - 1));
        }
        chain.push(format!("⟨{}⟩", steps[i].0));
    }
    chain.push(format!("⟨{first}⟩"));
    let closing = steps[steps.len() - 1].1;
    let mut diagnostic = Diagnostic::new(
        closing.clone(),
        format!("cycle: ⟨{first}⟩ contains itself: {}", chain.join(" → ")),
    );
    for &i in &shown {
        let (from, place) = steps[i];
        let to = steps.get(i + 1).map_or(first, |&(n, _)| n);
        diagnostic = diagnostic.with_note(place.clone(), format!("⟨{from}⟩ uses ⟨{to}⟩"));
    }
    diagnostic
}

/// Every chunk is reached from some root; one that is not would silently be left out of the program.
fn check_reachability(web: &Web, uses: &Uses, problems: &mut Vec<Diagnostic>) {
    let reached = uses.reached_from(roots(web).map(|(name, _)| name));
    for name in web.names().iter().filter(|n| !reached.contains(n.as_str())) {
        let mut users: Vec<String> = Vec::new();
        for &part in uses.users(name) {
            let user = format!("⟨{}⟩", web.parts[part].name);
            if !users.contains(&user) {
                users.push(user);
            }
        }
        let mut message =
            format!("⟨{name}⟩ is never used: no root (`// <<file:NAME.rs>>=`) reaches it");
        if !users.is_empty() {
            message.push_str(&format!(
                " (only {} uses it, and no root reaches that either)",
                users.join(", ")
            ));
        }
        let part = web.parts_of(name).next().expect("a listed name has parts");
        problems.push(Diagnostic::new(part.header.clone(), message));
    }
}

/// The size of a chunk's text once every reference in it is expanded, with no indentation added:
/// what it adds to a file, and how many of its lines are not blank (each of those gets the
/// indentation of a reference that puts the chunk somewhere).
#[derive(Clone, Copy, Debug, Default)]
struct Size {
    lines: u64,
    bytes: u64,
    filled: u64,
}

impl Size {
    fn line(text: &str) -> Size {
        let blank = text.trim().is_empty();
        Size {
            lines: 1,
            bytes: if blank { 1 } else { text.len() as u64 + 1 },
            filled: u64::from(!blank),
        }
    }

    /// This size with `other` added, put there by a reference indented by `indent` bytes.
    fn plus(self, other: Size, indent: usize) -> Size {
        Size {
            lines: self.lines.saturating_add(other.lines),
            bytes: self
                .bytes
                .saturating_add(other.bytes)
                .saturating_add(other.filled.saturating_mul(indent as u64)),
            filled: self.filled.saturating_add(other.filled),
        }
    }

    fn too_big(self) -> bool {
        self.lines > MAX_LINES || self.bytes > MAX_BYTES
    }
}

/// No root expands past [`MAX_LINES`] or [`MAX_BYTES`]. The sizes are worked out without expanding
/// anything, each chunk's from the sizes of the chunks it uses (the web has no cycle by now), so a
/// web that would explode is caught at once. The chunk reported is the one that first grows too big:
/// too big itself, although every chunk it uses is not.
fn check_sizes(web: &Web, problems: &mut Vec<Diagnostic>) {
    let sizes = sizes(web);
    for name in web.names() {
        let size = sizes[name.as_str()];
        let uses: Vec<&str> = web
            .parts_of(name)
            .flat_map(|part| &part.body)
            .filter_map(|line| Some(line.reference.as_ref()?.name.as_str()))
            .collect();
        if !size.too_big() || uses.iter().any(|used| sizes[used].too_big()) {
            continue;
        }
        let mut message = format!(
            "⟨{name}⟩ expands to {} lines ({} bytes), more than a tangled file may hold ({MAX_LINES} lines, {MAX_BYTES} bytes)",
            size.lines, size.bytes
        );
        if let Some(&biggest) = uses.iter().max_by_key(|used| sizes[*used].bytes) {
            let times = uses.iter().filter(|&&used| used == biggest).count();
            let each = sizes[biggest];
            message.push_str(&format!(
                ": it uses ⟨{biggest}⟩ {times} time(s), {} lines each",
                each.lines
            ));
        }
        let part = web.parts_of(name).next().expect("a listed name has parts");
        problems.push(Diagnostic::new(part.header.clone(), message));
    }
}

/// The expanded size of every chunk, worked out in an order where each chunk comes after every chunk
/// it uses (found by a depth-first search with its own stack).
fn sizes(web: &Web) -> HashMap<&str, Size> {
    let mut sizes: HashMap<&str, Size> = HashMap::new();
    for start in web.names() {
        let mut stack: Vec<(&str, bool)> = vec![(start, false)];
        while let Some((name, ready)) = stack.pop() {
            if sizes.contains_key(name) {
                continue;
            }
            let references = web
                .parts_of(name)
                .flat_map(|part| &part.body)
                .filter_map(|line| line.reference.as_ref());
            if ready {
                let size = chunk_size(web, name, &sizes);
                sizes.insert(name, size);
            } else {
                stack.push((name, true));
                stack.extend(
                    references
                        .filter(|r| !sizes.contains_key(r.name.as_str()))
                        .map(|r| (r.name.as_str(), false)),
                );
            }
        }
    }
    sizes
}

/// A chunk's expanded size, from the sizes of the chunks it uses.
fn chunk_size(web: &Web, name: &str, sizes: &HashMap<&str, Size>) -> Size {
    let mut size = Size::default();
    for part in web.parts_of(name) {
        size = size.plus(Size::line(&announcement(part)), 0);
        for line in &part.body {
            size = match &line.reference {
                Some(r) => size.plus(
                    sizes.get(r.name.as_str()).copied().unwrap_or_default(),
                    r.indent.len(),
                ),
                None => size.plus(Size::line(&line.text), 0),
            };
        }
    }
    size
}

/// The comment that announces a part in the tangled file: its chunk and its chapter, without a line
/// number, so that editing prose above a chunk changes nothing in the tangled file. The exact place
/// of every line is in the line map.
fn announcement(part: &Part) -> String {
    let sign = match part.kind {
        PartKind::Define => "=",
        PartKind::Append => "+=",
    };
    format!("{ANNOUNCEMENT}{}⟩{sign} {}", part.name, part.header.file)
}

/// Expands a root into its file: every reference replaced by its chunk's parts, each line indented like
/// the reference, and each part announced by a comment naming its chunk and chapter.
fn expand_root(web: &Web, name: &str, file: &str) -> TangledFile {
    let mut out = TangledFile {
        name: file.to_string(),
        text: String::new(),
        map: LineMap::default(),
    };
    let first = web.parts_of(name).next().expect("a root has parts");
    push_line(&mut out, "", BANNER, &first.header);
    expand(web, name, |indent, met| {
        match met {
            Expanded::Part(part) => push_line(&mut out, indent, &announcement(part), &part.header),
            Expanded::Line(line) => push_line(&mut out, indent, &line.text, &line.place),
        }
        ControlFlow::Continue(())
    });
    out
}

/// What [`expand`] meets, in the order of the text it makes.
pub(crate) enum Expanded<'w> {
    /// The start of a chunk part.
    Part(&'w Part),
    /// A line of code.
    Line(&'w Line),
}

/// Expands a chunk: `visit` gets every part and every line of code the chunk's text is made of, in
/// order, each with the indentation the references that put it there add, until it breaks. This is
/// the one expansion of chunks: the tangler's files and the language server's hovers are made by it.
///
/// References can nest as deep as the book likes, so the expansion keeps its own stack: one frame per
/// chunk being expanded, with the part and line it has reached and the indentation its lines get. A
/// reference to a chunk already being expanded (a cycle, which the tangler reports before it ever
/// expands) and one to an undefined chunk expand to nothing.
pub(crate) fn expand<'w>(
    web: &'w Web,
    name: &'w str,
    mut visit: impl FnMut(&str, Expanded<'w>) -> ControlFlow<()>,
) {
    struct Frame<'w> {
        name: &'w str,
        parts: &'w [usize],
        part: usize,
        line: usize,
        indent: String,
    }
    let mut open: HashSet<&str> = HashSet::from([name]);
    let mut stack = vec![Frame {
        name,
        parts: web.part_indices(name),
        part: 0,
        line: 0,
        indent: String::new(),
    }];
    while let Some(frame) = stack.last_mut() {
        let Some(&index) = frame.parts.get(frame.part) else {
            open.remove(frame.name);
            stack.pop();
            continue;
        };
        let part = &web.parts[index];
        let line = frame.line;
        frame.line += 1;
        let met = match line.checked_sub(1).map(|n| part.body.get(n)) {
            None => Expanded::Part(part),
            Some(None) => {
                frame.part += 1;
                frame.line = 0;
                continue;
            }
            Some(Some(line)) => match &line.reference {
                Some(reference) => {
                    if open.insert(&reference.name) {
                        let indent = format!("{}{}", frame.indent, reference.indent);
                        stack.push(Frame {
                            name: &reference.name,
                            parts: web.part_indices(&reference.name),
                            part: 0,
                            line: 0,
                            indent,
                        });
                    }
                    continue;
                }
                None => Expanded::Line(line),
            },
        };
        let indent = &stack.last().expect("a frame").indent;
        if visit(indent, met).is_break() {
            return;
        }
    }
}

fn push_line(out: &mut TangledFile, indent: &str, text: &str, place: &Place) {
    if text.trim().is_empty() {
        out.text.push('\n');
    } else {
        out.text.push_str(indent);
        out.text.push_str(text);
        out.text.push('\n');
    }
    out.map.push(place, indent.chars().count());
}
