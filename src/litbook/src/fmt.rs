//! `litbook fmt`: rustfmt for the book. The tangled files are formatted by rustfmt; every line it
//! would change is traced back to its chunk in the Markdown, and either reported (`--check`) or
//! rewritten there, so that the book's code stays formatted as rustfmt wants it in its tangled place.

use std::collections::BTreeMap;
use std::io::Write;
use std::ops::Range;
use std::process::{Command, Stdio};

use anyhow::{Context, bail};
use similar::{DiffOp, TextDiff};

pub use crate::splice::Edit;
use crate::splice::{NewChapter, splice};
use crate::{
    Diagnostic, Disk, Marker, Place, Project, Reading, SourceText, TangledFile, Web, fenced_blocks,
    is_announcement, marker, tangle,
};

/// Runs rustfmt on a text of `project`'s book, for its edition and with its book's settings
/// ([`Project::rustfmt_config`]), returning the formatted text.
pub fn rustfmt(text: &str, project: &Project) -> anyhow::Result<String> {
    let mut command = Command::new("rustfmt");
    command.args(["--edition", &project.edition, "--emit", "stdout", "--quiet"]);
    if let Some(config) = project.rustfmt_config() {
        command.arg("--config-path").arg(config);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run rustfmt")?;
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(text.as_bytes())
        .context("cannot write to rustfmt")?;
    let output = child.wait_with_output().context("rustfmt did not finish")?;
    if !output.status.success() {
        bail!("{}", String::from_utf8_lossy(&output.stderr));
    }
    String::from_utf8(output.stdout).context("rustfmt's output is not UTF-8")
}

/// What `litbook fmt` makes of a book: the new text of every chapter it changes, the edits that
/// make them, and what it leaves alone, with why.
#[derive(Debug, Default)]
pub struct Plan {
    /// By index into the web's chapters.
    pub chapters: Vec<(usize, String)>,
    pub edits: Vec<Edit>,
    pub notes: Vec<Diagnostic>,
}

/// What rustfmt wants of one tangled file, traced to the book: edits, or, when any change cannot be
/// traced, notes saying so for every change, and no edits at all (rustfmt may have moved a line from
/// one chunk into another, and making only the traceable half of such a move would lose the line).
#[derive(Debug, Default)]
struct FileChanges {
    edits: Vec<Edit>,
    notes: Vec<Diagnostic>,
}

/// A file left alone, by index, with why.
type LeftAlone = BTreeMap<usize, Vec<Diagnostic>>;

/// A crate's book on disk, planned: the book is tangled and checked as every tool does
/// ([`crate::tangle_project`]), each file is run through rustfmt for the crate's edition, and
/// [`plan`] proves the edits. `Err` when the book has problems or rustfmt fails, each a line to
/// show.
pub fn plan_book(project: &Project) -> Result<(Plan, Vec<NewChapter>), Vec<String>> {
    let mut reading = Reading {
        files: &mut Disk,
        kept: None,
        checked_before: &|_| false,
    };
    let outcome = crate::tangle_project(project, &mut reading);
    if !outcome.problems.is_empty() {
        return Err(outcome.problems.iter().map(ToString::to_string).collect());
    }
    let mut formatted = Vec::new();
    for file in outcome.files {
        match rustfmt(&file.text, project) {
            Ok(text) => formatted.push((file, text)),
            Err(message) => {
                return Err(vec![format!(
                    "rustfmt failed on {}: {message:#}",
                    file.name
                )]);
            }
        }
    }
    let plan = plan(&outcome.web, &formatted);
    let chapters = plan
        .chapters
        .iter()
        .map(|(index, text)| {
            let chapter = &outcome.web.chapters[*index];
            NewChapter {
                path: project.crate_dir.join(&chapter.display),
                display: chapter.display.clone(),
                read: chapter.text.clone(),
                text: text.clone(),
            }
        })
        .collect();
    Ok((plan, chapters))
}

/// Plans the edits that make each tangled file of `web` its formatted text, and proves them before
/// it returns them: the chapters they give are tangled again, and every file must come out as rustfmt's
/// text (or, if it is left alone, exactly as it was), with every byte outside the chunks' code as
/// it was. A file whose edits fail any of this is left alone, with a note, and the rest is tried
/// again; each round leaves at least one more file alone, so planning ends.
pub fn plan(web: &Web, files: &[(TangledFile, String)]) -> Plan {
    let changes: Vec<FileChanges> = files
        .iter()
        .map(|(f, text)| file_changes(web, f, text))
        .collect();
    let mut alone: LeftAlone = changes
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.notes.is_empty())
        .map(|(i, c)| (i, c.notes.clone()))
        .collect();
    loop {
        match attempt(web, files, &changes, &alone) {
            Ok(mut plan) => {
                plan.notes = alone.into_values().flatten().collect();
                return plan;
            }
            Err(more) => {
                let before = alone.len();
                for (file, notes) in more {
                    alone.entry(file).or_insert(notes);
                }
                assert!(
                    alone.len() > before,
                    "a round of planning left no more files alone"
                );
            }
        }
    }
}

fn file_changes(web: &Web, file: &TangledFile, formatted: &str) -> FileChanges {
    let old: Vec<&str> = file.text.lines().collect();
    let new: Vec<&str> = formatted.lines().collect();
    let mut traced = Vec::new();
    let mut notes = Vec::new();
    let changes = changes(&old, &new)
        .into_iter()
        .flat_map(|(old_range, new_range)| by_part(file, &old, &new, old_range, new_range));
    for (old_range, new_range) in changes {
        let (old, new) = (&old[old_range.clone()], &new[new_range]);
        match trace(file, old, old_range.start, new) {
            Ok(edit) => traced.push((edit, old, new)),
            Err(place) => notes.push(describe(web, file, place, old, new)),
        }
    }
    if notes.is_empty() {
        let edits = traced.into_iter().map(|(edit, _, _)| edit).collect();
        return FileChanges { edits, notes };
    }
    notes.extend(
        traced
            .into_iter()
            .map(|(edit, old, new)| held_back(file, &edit, old, new)),
    );
    FileChanges {
        edits: Vec::new(),
        notes,
    }
}

/// One round of [`plan`]: the plan if the edits of the files not left alone pass every proof,
/// otherwise the files to leave alone now.
fn attempt(
    web: &Web,
    files: &[(TangledFile, String)],
    changes: &[FileChanges],
    alone: &LeftAlone,
) -> Result<Plan, LeftAlone> {
    // The same edit from several files (a chunk used alike in each) is one edit.
    let mut edits: BTreeMap<&Edit, Vec<usize>> = BTreeMap::new();
    for (index, change) in changes.iter().enumerate() {
        if !alone.contains_key(&index) {
            for edit in &change.edits {
                edits.entry(edit).or_default().push(index);
            }
        }
    }
    let edits: Vec<(&Edit, Vec<usize>)> = edits.into_iter().collect();
    if let Some(conflict) = first_conflict(files, &edits) {
        return Err(conflict);
    }
    let mut chapters = Vec::new();
    for (chapter_index, chapter) in web.chapters.iter().enumerate() {
        let mine: Vec<&(&Edit, Vec<usize>)> = edits
            .iter()
            .filter(|(e, _)| e.file == chapter.display)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let list: Vec<Edit> = mine.iter().map(|(e, _)| (*e).clone()).collect();
        match splice(chapter, &list) {
            Ok(text) => chapters.push((chapter_index, text)),
            Err((bad, why)) => {
                let note = left_alone(
                    &list[bad],
                    format!("rustfmt's text cannot be written here: {why}"),
                );
                return Err(mine[bad]
                    .1
                    .iter()
                    .map(|&i| (i, vec![note.clone()]))
                    .collect());
            }
        }
    }
    prove(web, files, alone, &edits, &chapters)?;
    Ok(Plan {
        chapters,
        edits: edits.into_iter().map(|(e, _)| e.clone()).collect(),
        notes: Vec::new(),
    })
}

/// Two different edits of the same lines: a chunk used at two indentations that rustfmt formats
/// differently in its two places. Both files are left alone.
fn first_conflict(
    files: &[(TangledFile, String)],
    edits: &[(&Edit, Vec<usize>)],
) -> Option<LeftAlone> {
    for (n, (edit, users)) in edits.iter().enumerate() {
        for (other, other_users) in &edits[n + 1..] {
            if other.file != edit.file || other.first > edit.last + 1 {
                continue;
            }
            if !edit.overlaps(other) {
                continue;
            }
            let involved: Vec<usize> = users.iter().chain(other_users).copied().collect();
            let mut names: Vec<&str> = involved.iter().map(|&i| files[i].0.name.as_str()).collect();
            names.sort();
            names.dedup();
            let note = left_alone(
                edit,
                format!(
                    "this chunk is used at more than one indentation (in {}), and rustfmt formats \
                     its uses differently; indent its uses alike, or format it by hand",
                    names.join(", ")
                ),
            );
            return Some(
                involved
                    .into_iter()
                    .map(|i| (i, vec![note.clone()]))
                    .collect(),
            );
        }
    }
    None
}

fn left_alone(edit: &Edit, why: String) -> Diagnostic {
    Diagnostic::new(
        Place::new(&edit.file, edit.first.max(1), 1),
        format!("left alone: {why}"),
    )
}

/// The proof that the planned chapters are what `litbook fmt` promises: the same bytes outside the
/// chunks' code, and tangled again, each file rustfmt's text (or its old text, if left alone).
fn prove(
    web: &Web,
    files: &[(TangledFile, String)],
    alone: &LeftAlone,
    edits: &[(&Edit, Vec<usize>)],
    chapters: &[(usize, String)],
) -> Result<(), LeftAlone> {
    let editing = |chapter: &str| -> Vec<usize> {
        let mut users: Vec<usize> = edits
            .iter()
            .filter(|(e, _)| e.file == chapter)
            .flat_map(|(_, users)| users.iter().copied())
            .collect();
        users.sort();
        users.dedup();
        users
    };
    let mut sources = web.chapters.clone();
    for (index, text) in chapters {
        let old = &web.chapters[*index];
        if skeleton(&old.text) != skeleton(text) {
            let note = Diagnostic::new(
                Place::new(&old.display, 1, 1),
                "left alone: rustfmt's edits would change this chapter outside its chunks' code",
            );
            return Err(editing(&old.display)
                .into_iter()
                .map(|i| (i, vec![note.clone()]))
                .collect());
        }
        sources[*index] = SourceText::new(old.display.clone(), text.clone());
    }
    let every_editor = || -> LeftAlone {
        chapters
            .iter()
            .flat_map(|(i, _)| editing(&web.chapters[*i].display))
            .map(|i| (i, Vec::new()))
            .collect()
    };
    let (new_web, problems) = Web::parse(sources);
    let tangled = if problems.is_empty() {
        tangle(&new_web)
    } else {
        Err(problems)
    };
    let tangled = match tangled {
        Ok(tangled) => tangled,
        Err(problems) => {
            let mut all = every_editor();
            let note = Diagnostic::new(
                problems[0].place.clone(),
                format!(
                    "left alone: with rustfmt's edits the book would not tangle: {}",
                    problems[0].message
                ),
            );
            all.values_mut().for_each(|notes| notes.push(note.clone()));
            return Err(all);
        }
    };
    for (index, (file, formatted)) in files.iter().enumerate() {
        let expected = if alone.contains_key(&index) {
            &file.text
        } else {
            formatted
        };
        let now = tangled
            .iter()
            .find(|t| t.name == file.name)
            .map(|t| &t.text);
        if now == Some(expected) {
            continue;
        }
        let note = Diagnostic::new(
            file.map
                .place(1, 1)
                .unwrap_or_else(|| Place::new(&file.name, 1, 1)),
            match maps_a_line_twice(file) {
                true => format!(
                    "left alone: {} uses a chunk more than once, and rustfmt's edits for one use \
                     would change the others; format its uses by hand",
                    file.name
                ),
                false => format!(
                    "left alone: rustfmt's edits, made in the chapters, would not give rustfmt's \
                     text of {}",
                    file.name
                ),
            },
        );
        let touching = touching(file, edits, alone);
        let culprits = if touching.is_empty() {
            every_editor().into_keys().collect()
        } else {
            touching
        };
        return Err(culprits
            .into_iter()
            .map(|i| (i, vec![note.clone()]))
            .collect());
    }
    Ok(())
}

/// Whether some Markdown line stands at more than one place of a file: a chunk used twice.
fn maps_a_line_twice(file: &TangledFile) -> bool {
    let mut seen = std::collections::HashSet::new();
    (1..=file.text.lines().count())
        .filter_map(|n| file.map.place(n, 1))
        .any(|place| !seen.insert((place.file, place.line)))
}

/// The files, not yet left alone, with an edit on or beside a Markdown line that `file` is made of.
fn touching(file: &TangledFile, edits: &[(&Edit, Vec<usize>)], alone: &LeftAlone) -> Vec<usize> {
    let lines: std::collections::HashSet<(String, usize)> = (1..=file.text.lines().count())
        .filter_map(|n| file.map.place(n, 1))
        .map(|p| (p.file, p.line))
        .collect();
    let mut found: Vec<usize> = edits
        .iter()
        .filter(|(e, _)| {
            (e.first.saturating_sub(1)..=e.last + 1).any(|n| lines.contains(&(e.file.clone(), n)))
        })
        .flat_map(|(_, users)| users.iter().copied())
        .filter(|i| !alone.contains_key(i))
        .collect();
    found.sort();
    found.dedup();
    found
}

/// A chapter's text without the code of its chunks: every byte that `litbook fmt` must leave as
/// it was. The chunks' headers and fences stay, so a block cannot move or vanish unseen.
fn skeleton(text: &str) -> String {
    let mut kept = String::new();
    let mut from = 0;
    for block in fenced_blocks(text) {
        let is_chunk = block.info.split([',', ' ', '\t']).next() == Some("rust")
            && block.lines.first().is_some_and(|l| {
                matches!(
                    marker(&l.text),
                    Some(Ok(Marker::Define(_) | Marker::Append(_)))
                )
            });
        if !is_chunk || block.lines.len() < 2 {
            continue;
        }
        let body_start = line_start(text, block.lines[1].offset);
        let closing = line_start(
            text,
            text[..block.range.end].trim_end_matches(['\n', '\r']).len(),
        );
        if body_start < from || closing < body_start {
            continue;
        }
        kept.push_str(&text[from..body_start]);
        from = closing;
    }
    kept.push_str(&text[from..]);
    kept
}

fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

/// The lines that differ between a tangled file and its formatted text: ranges of old lines, each
/// with the range of new lines that replaces it, in the order of the old lines. An insertion is
/// placed after whatever old lines the operations before it covered: `similar` can report an
/// insertion that follows a run of equal lines with the index where that run starts.
fn changes(old: &[&str], new: &[&str]) -> Vec<(Range<usize>, Range<usize>)> {
    let diff = TextDiff::from_slices(old, new);
    let mut found = Vec::new();
    let mut covered = 0;
    for op in diff.ops() {
        match *op {
            DiffOp::Equal { old_index, len, .. } => covered = old_index + len,
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } => {
                found.push((old_index..old_index + old_len, new_index..new_index));
                covered = old_index + old_len;
            }
            DiffOp::Insert {
                new_index, new_len, ..
            } => found.push((covered..covered, new_index..new_index + new_len)),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                found.push((
                    old_index..old_index + old_len,
                    new_index..new_index + new_len,
                ));
                covered = old_index + old_len;
            }
        }
    }
    found
}

/// A change whose old lines come from several chunk parts, split into one change per part, so that
/// each can be traced to its own chunk. The characters other than whitespace are aligned by a diff:
/// each new line belongs to the part its characters come from (a character rustfmt adds, such as a
/// trailing comma, to the part of the character before it). Unchanged pieces are left out. The whole
/// change comes back when it lies in one part, or when a new line mixes parts (rustfmt joined lines
/// of two chunks) or the parts would come out of order.
fn by_part(
    file: &TangledFile,
    old: &[&str],
    new: &[&str],
    old_range: Range<usize>,
    new_range: Range<usize>,
) -> Vec<(Range<usize>, Range<usize>)> {
    let part = parts_of(file, old, old_range.clone());
    if part.last().is_none_or(|&last| last == 0) {
        return vec![(old_range, new_range)];
    }
    match split_by_part(old, new, &old_range, &new_range, &part) {
        Some(split) => split
            .into_iter()
            .filter(|(o, n)| old[o.clone()] != new[n.clone()])
            .collect(),
        None => vec![(old_range, new_range)],
    }
}

/// For each old line of a change, the number of the chunk part it comes from, counting from 0: a new
/// part starts where the Markdown lines stop following each other, the indentation the references
/// added changes, or an announcement stands.
fn parts_of(file: &TangledFile, old: &[&str], range: Range<usize>) -> Vec<usize> {
    let origin = |i: usize| {
        let place = file.map.place(i + 1, 1)?;
        Some((place.file, place.line, file.map.indent(i + 1)?))
    };
    let mut part = Vec::with_capacity(range.len());
    let mut previous: Option<(String, usize, usize)> = None;
    let mut previous_announces = false;
    for i in range {
        let here = origin(i);
        let announces = is_announcement(old[i]);
        let follows = match (&previous, &here) {
            (Some((f0, l0, i0)), Some((f1, l1, i1))) => f0 == f1 && *l1 == l0 + 1 && i0 == i1,
            _ => false,
        };
        let number = match part.last() {
            None => 0,
            Some(&n) if follows && !announces && !previous_announces => n,
            Some(&n) => n + 1,
        };
        part.push(number);
        previous = here;
        previous_announces = announces;
    }
    part
}

fn split_by_part(
    old: &[&str],
    new: &[&str],
    old_range: &Range<usize>,
    new_range: &Range<usize>,
    part: &[usize],
) -> Option<Vec<(Range<usize>, Range<usize>)>> {
    let visible = |lines: &[&str], range: &Range<usize>| -> Vec<(char, usize)> {
        range
            .clone()
            .flat_map(|i| {
                let line = lines[i];
                line.chars()
                    .filter(|c| !c.is_whitespace())
                    .map(move |c| (c, i))
            })
            .collect()
    };
    let (old_chars, new_chars) = (visible(old, old_range), visible(new, new_range));
    let old_text: Vec<char> = old_chars.iter().map(|(c, _)| *c).collect();
    let new_text: Vec<char> = new_chars.iter().map(|(c, _)| *c).collect();
    let mut owner: Vec<Option<usize>> = vec![None; new_chars.len()];
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &old_text, &new_text) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                owner[new_index + k] = Some(part[old_chars[old_index + k].1 - old_range.start]);
            }
        }
    }
    fill_gaps(&mut owner)?;
    let mut line_part: Vec<Option<usize>> = vec![None; new_range.len()];
    for ((_, line), owner) in new_chars.iter().zip(&owner) {
        let slot = &mut line_part[line - new_range.start];
        match *slot {
            Some(p) if Some(p) != *owner => return None,
            _ => *slot = *owner,
        }
    }
    fill_gaps(&mut line_part)?;
    if line_part.windows(2).any(|w| w[1] < w[0]) {
        return None;
    }
    let parts = part.last().copied().unwrap_or(0) + 1;
    let lines_of = |numbers: &[usize], p: usize, start: usize| {
        let first = numbers
            .iter()
            .position(|&n| n == p)
            .map_or(numbers.len(), |i| i);
        let count = numbers.iter().filter(|&&n| n == p).count();
        start + first..start + first + count
    };
    let line_part: Vec<usize> = line_part.into_iter().flatten().collect();
    Some(
        (0..parts)
            .map(|p| {
                let old_lines = lines_of(part, p, old_range.start);
                let mut new_lines = lines_of(&line_part, p, new_range.start);
                if new_lines.is_empty() {
                    let at = new_range.start + line_part.iter().filter(|&&n| n < p).count();
                    new_lines = at..at;
                }
                (old_lines, new_lines)
            })
            .collect(),
    )
}

/// Gives every empty slot the value before it (or, at the start, the first value after it); `None` if
/// no slot has a value.
fn fill_gaps(slots: &mut [Option<usize>]) -> Option<()> {
    let first = slots.iter().flatten().next().copied()?;
    let mut last = first;
    for slot in slots.iter_mut() {
        last = *slot.get_or_insert(last);
    }
    Some(())
}

/// The Markdown edit that makes a change of `old` (tangled lines from `start`, 0-based) into `new`,
/// if the change lies within the body of one chunk part. Otherwise the place to report it at.
fn trace(file: &TangledFile, old: &[&str], start: usize, new: &[&str]) -> Result<Edit, Place> {
    let at = |i: usize| file.map.place(i + 1, 1);
    let anchor = at(start)
        .or_else(|| at(start.saturating_sub(1)))
        .unwrap_or_else(|| Place::new(&file.name, start + 1, 1));
    if old.is_empty() {
        return trace_insertion(file, start, new).ok_or(anchor);
    }
    let origins: Vec<(Place, usize)> = (0..old.len())
        .filter_map(|i| Some((at(start + i)?, file.map.indent(start + i + 1)?)))
        .collect();
    let consecutive = !old.is_empty()
        && origins.len() == old.len()
        && origins
            .windows(2)
            .all(|w| w[0].0.file == w[1].0.file && w[1].0.line == w[0].0.line + 1)
        && origins.iter().all(|(_, indent)| *indent == origins[0].1);
    let announces = old.iter().any(|line| is_announcement(line));
    if !consecutive || announces {
        return Err(anchor);
    }
    let indent = origins[0].1;
    let lines = new
        .iter()
        .map(|line| strip_indent(line, indent).map(str::to_string))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| anchor.clone())?;
    Ok(Edit {
        file: origins[0].0.file.clone(),
        first: origins[0].0.line,
        last: origins[old.len() - 1].0.line,
        lines,
    })
}

/// The Markdown edit that inserts `new` before tangled line `start` (0-based): after the line above
/// it, or else before the line below it, whichever is code of a chunk that `new` fits the indentation of.
fn trace_insertion(file: &TangledFile, start: usize, new: &[&str]) -> Option<Edit> {
    let text: Vec<&str> = file.text.lines().collect();
    let insert_beside = |i: usize, after: bool| {
        text.get(i).filter(|line| !is_announcement(line))?;
        let place = file.map.place(i + 1, 1)?;
        let indent = file.map.indent(i + 1)?;
        let lines = new
            .iter()
            .map(|line| strip_indent(line, indent).map(str::to_string))
            .collect::<Option<Vec<_>>>()?;
        let first = place.line + usize::from(after);
        Some(Edit {
            file: place.file,
            first,
            last: first - 1,
            lines,
        })
    };
    let above = start.checked_sub(1).and_then(|i| insert_beside(i, true));
    above.or_else(|| insert_beside(start, false))
}

/// A formatted line without the indentation that references added, if it has that much.
fn strip_indent(line: &str, indent: usize) -> Option<&str> {
    if line.trim().is_empty() {
        return Some("");
    }
    let cut = line
        .char_indices()
        .nth(indent)
        .map_or(line.len(), |(i, _)| i);
    line[..cut].trim().is_empty().then(|| &line[cut..])
}

fn describe(web: &Web, file: &TangledFile, place: Place, old: &[&str], new: &[&str]) -> Diagnostic {
    if let Some(diagnostic) = reindented_reference(web, old, new) {
        return diagnostic;
    }
    let change = shown_change(old, new);
    Diagnostic::new(
        place,
        format!(
            "rustfmt formats this differently in {}, across chunks; reformat by hand:{change}",
            file.name
        ),
    )
}

/// What to say when all rustfmt changes is the indentation of the comment that announces a chunk:
/// then the reference that put the chunk there is indented otherwise than rustfmt indents code at
/// that place, which only its writer can mend (it moves every line of the chunk). Said at the
/// reference, found by its name and indentation.
fn reindented_reference(web: &Web, old: &[&str], new: &[&str]) -> Option<Diagnostic> {
    let ([old], [new]) = (old, new) else {
        return None;
    };
    let name = old.trim_start().strip_prefix("// ⟨")?.split('⟩').next()?;
    if !is_announcement(old) || old.trim_start() != new.trim_start() {
        return None;
    }
    let indent = |line: &str| line[..line.len() - line.trim_start().len()].to_string();
    let (was, wanted) = (indent(old), indent(new));
    let (_, reference) = web
        .references()
        .find(|(_, r)| r.name == name && r.indent == was)?;
    Some(Diagnostic::new(
        reference.place.clone(),
        format!(
            "this reference to ⟨{name}⟩ is indented {}, where rustfmt indents code {} here; \
             indent it so, then run `litbook fmt` again (every line of ⟨{name}⟩ takes its \
             reference's indentation, so only the reference's writer can mend it)",
            indentation_in_words(&was),
            indentation_in_words(&wanted)
        ),
    ))
}

/// An indentation as a reader counts it: "4 spaces", "1 tab", "a tab and 2 spaces", "none".
fn indentation_in_words(indent: &str) -> String {
    let counted = |n: usize, what: &str| match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    };
    let tabs = indent.chars().filter(|&c| c == '\t').count();
    let spaces = indent.chars().count() - tabs;
    match (tabs, spaces) {
        (0, 0) => "not at all".to_string(),
        (0, spaces) => format!("by {}", counted(spaces, "space")),
        (tabs, 0) => format!("by {}", counted(tabs, "tab")),
        (tabs, spaces) => format!(
            "by {} and {}",
            counted(tabs, "tab"),
            counted(spaces, "space")
        ),
    }
}

/// The lines a change removes and adds, one to a line, marked `-` and `+` like a diff.
fn shown_change(old: &[&str], new: &[&str]) -> String {
    let removed = old.iter().map(|l| format!("\n    -{l}"));
    let added = new.iter().map(|l| format!("\n    +{l}"));
    removed.chain(added).collect()
}

/// A change that could be made in the Markdown, reported instead because its file has others that
/// cannot.
fn held_back(file: &TangledFile, edit: &Edit, old: &[&str], new: &[&str]) -> Diagnostic {
    let change = shown_change(old, new);
    Diagnostic::new(
        Place::new(&edit.file, edit.first, 1),
        format!(
            "rustfmt formats this differently too; left alone, since {} has changes across \
             chunks that must be made by hand first:{change}",
            file.name
        ),
    )
}
