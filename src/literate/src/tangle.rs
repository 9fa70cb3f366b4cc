use std::collections::{HashMap, HashSet, VecDeque};
use std::io;
use std::path::Path;

use crate::{Diagnostic, LineMap, Part, PartKind, Place, Web, root_file};

/// One file made from a root chunk, with the Markdown origin of each of its lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TangledFile {
    pub name: String,
    pub text: String,
    pub map: LineMap,
}

/// Checks the web as a whole (definitions, references, roots, cycles, reachability) and, when it is
/// sound, expands every root into its file. All problems are reported together.
pub fn tangle(web: &Web) -> Result<Vec<TangledFile>, Vec<Diagnostic>> {
    let mut problems = Vec::new();
    check_definitions(web, &mut problems);
    check_references(web, &mut problems);
    check_roots(web, &mut problems);
    check_cycles(web, &mut problems);
    check_reachability(web, &mut problems);
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(roots(web)
        .map(|(name, file)| expand_root(web, name, file))
        .collect())
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
    for (part, reference) in web.references() {
        let name = &reference.name;
        if !web.is_defined(name) {
            let mut message = format!("undefined chunk ⟨{name}⟩");
            if let Some(near) = nearest_name(web, name) {
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

/// The defined name closest to a misspelt one, if any is close enough to be a likely typo.
fn nearest_name<'w>(web: &'w Web, name: &str) -> Option<&'w str> {
    let wanted = name.to_lowercase();
    let (distance, near) = web
        .names()
        .iter()
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

/// The chunks each chunk uses, with the place of each use, in book order.
fn uses(web: &Web) -> HashMap<&str, Vec<(&str, &Place)>> {
    let mut uses: HashMap<&str, Vec<(&str, &Place)>> = HashMap::new();
    for (part, reference) in web.references() {
        if web.is_defined(&reference.name) && root_file(&reference.name).is_none() {
            uses.entry(part.name.as_str())
                .or_default()
                .push((reference.name.as_str(), &reference.place));
        }
    }
    uses
}

/// No chunk contains itself, directly or through others. Each cycle is reported once, at the use that
/// closes it, with every step of it.
fn check_cycles(web: &Web, problems: &mut Vec<Diagnostic>) {
    let uses = uses(web);
    let mut done: HashSet<&str> = HashSet::new();
    for name in web.names() {
        let mut path = Vec::new();
        visit(name, &uses, &mut path, &mut done, problems);
    }
}

fn visit<'w>(
    name: &'w str,
    uses: &HashMap<&'w str, Vec<(&'w str, &'w Place)>>,
    path: &mut Vec<(&'w str, &'w Place)>,
    done: &mut HashSet<&'w str>,
    problems: &mut Vec<Diagnostic>,
) {
    if done.contains(name) {
        return;
    }
    for &(used, place) in uses.get(name).into_iter().flatten() {
        path.push((name, place));
        match path.iter().position(|&(n, _)| n == used) {
            Some(start) => problems.push(cycle_diagnostic(&path[start..])),
            None => visit(used, uses, path, done, problems),
        }
        path.pop();
    }
    done.insert(name);
}

/// `steps` are the chunks of a cycle, each with the place where it uses the next (the last one uses the
/// first); the cycle is reported where it closes.
fn cycle_diagnostic(steps: &[(&str, &Place)]) -> Diagnostic {
    let first = steps[0].0;
    let chain: Vec<String> = steps
        .iter()
        .map(|&(n, _)| n)
        .chain([first])
        .map(|n| format!("⟨{n}⟩"))
        .collect();
    let closing = steps[steps.len() - 1].1;
    let mut diagnostic = Diagnostic::new(
        closing.clone(),
        format!("cycle: ⟨{first}⟩ contains itself: {}", chain.join(" → ")),
    );
    for (i, &(from, place)) in steps.iter().enumerate() {
        let to = steps.get(i + 1).map_or(first, |&(n, _)| n);
        diagnostic = diagnostic.with_note(place.clone(), format!("⟨{from}⟩ uses ⟨{to}⟩"));
    }
    diagnostic
}

/// Every chunk is reached from some root; one that is not would silently be left out of the program.
fn check_reachability(web: &Web, problems: &mut Vec<Diagnostic>) {
    let uses = uses(web);
    let mut reached: HashSet<&str> = roots(web).map(|(name, _)| name).collect();
    let mut queue: VecDeque<&str> = reached.iter().copied().collect();
    while let Some(name) = queue.pop_front() {
        for &(used, _) in uses.get(name).into_iter().flatten() {
            if reached.insert(used) {
                queue.push_back(used);
            }
        }
    }
    for name in web.names().iter().filter(|n| !reached.contains(n.as_str())) {
        let users: Vec<String> = web
            .names()
            .iter()
            .filter(|user| {
                uses.get(user.as_str())
                    .is_some_and(|u| u.iter().any(|&(n, _)| n == name))
            })
            .map(|user| format!("⟨{user}⟩"))
            .collect();
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

/// Expands a root into its file: every reference replaced by its chunk's parts, each line indented like
/// the reference, and each part announced by a comment naming its Markdown place.
fn expand_root(web: &Web, name: &str, file: &str) -> TangledFile {
    let mut out = TangledFile {
        name: file.to_string(),
        text: String::new(),
        map: LineMap::default(),
    };
    let first = web.parts_of(name).next().expect("a root has parts");
    push_line(
        &mut out,
        "",
        "// Tangled from the book by build.rs: edit the Markdown chunks, not this file.",
        &first.header,
    );
    expand(web, name, "", &mut out);
    out
}

fn expand(web: &Web, name: &str, indent: &str, out: &mut TangledFile) {
    for part in web.parts_of(name) {
        let sign = if part.kind == PartKind::Define {
            "="
        } else {
            "+="
        };
        let announce = format!(
            "// ⟨{name}⟩{sign} {}:{}",
            part.header.file, part.header.line
        );
        push_line(out, indent, &announce, &part.header);
        for line in &part.body {
            match &line.reference {
                Some(reference) => {
                    let deeper = format!("{indent}{}", reference.indent);
                    expand(web, &reference.name, &deeper, out);
                }
                None => push_line(out, indent, &line.text, &line.place),
            }
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
