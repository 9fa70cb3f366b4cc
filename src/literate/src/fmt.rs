//! `literate fmt`: rustfmt for the book. The tangled files are formatted by rustfmt; every line it
//! would change is traced back to its chunk in the Markdown, and either reported (`--check`) or
//! rewritten there, so that the book's code stays formatted as rustfmt wants it in its tangled place.

use std::collections::BTreeMap;
use std::io::Write;
use std::ops::Range;
use std::path::Path;
use std::process::{Command, Stdio};

use similar::{DiffOp, TextDiff};

use crate::{Diagnostic, Place, TangledFile, is_announcement};

/// One change rustfmt wants, at the Markdown lines it replaces (both ends included), with the text
/// to put there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub file: String,
    pub first: usize,
    pub last: usize,
    pub lines: Vec<String>,
}

/// What formatting the book found: edits that can be made in the Markdown, and changes that cannot
/// (they cross from one chunk into another), as diagnostics.
#[derive(Debug, Default)]
pub struct Formatting {
    pub edits: Vec<Edit>,
    pub unfixable: Vec<Diagnostic>,
}

/// Runs rustfmt (edition 2024) on a text, returning the formatted text.
pub fn rustfmt(text: &str) -> Result<String, String> {
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run rustfmt: {e}"))?;
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(text.as_bytes())
        .map_err(|e| format!("cannot write to rustfmt: {e}"))?;
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    String::from_utf8(output.stdout).map_err(|e| e.to_string())
}

/// Compares each tangled file with its formatted text and traces every difference to the book. A
/// file with any change that cannot be traced gets no edits at all: rustfmt may have moved a line from
/// one chunk into another, and making only the traceable half of such a move would lose the line.
pub fn formatting(files: &[(TangledFile, String)]) -> Formatting {
    let mut result = Formatting::default();
    for (file, formatted) in files {
        let old: Vec<&str> = file.text.lines().collect();
        let new: Vec<&str> = formatted.lines().collect();
        let mut edits = Vec::new();
        let mut unfixable = Vec::new();
        for (old_range, new_range) in changes(&old, &new) {
            let (old, new) = (&old[old_range.clone()], &new[new_range]);
            match trace(file, old, old_range.start, new) {
                Ok(edit) => edits.push((edit, old, new)),
                Err(place) => unfixable.push(describe(file, place, old, new)),
            }
        }
        if unfixable.is_empty() {
            result
                .edits
                .extend(edits.into_iter().map(|(edit, _, _)| edit));
        } else {
            result.unfixable.extend(unfixable);
            result.unfixable.extend(
                edits
                    .into_iter()
                    .map(|(edit, old, new)| held_back(file, &edit, old, new)),
            );
        }
    }
    result
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

fn describe(file: &TangledFile, place: Place, old: &[&str], new: &[&str]) -> Diagnostic {
    let change = shown_change(old, new);
    Diagnostic::new(
        place,
        format!(
            "rustfmt formats this differently in {}, across chunks; reformat by hand:{change}",
            file.name
        ),
    )
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

/// Applies edits to the Markdown files under `root` (the directory the places are relative to).
/// Returns how many files changed.
pub fn apply(root: &Path, edits: &[Edit]) -> std::io::Result<usize> {
    let mut by_file: BTreeMap<&str, Vec<&Edit>> = BTreeMap::new();
    for edit in edits {
        by_file.entry(edit.file.as_str()).or_default().push(edit);
    }
    for (file, mut edits) in by_file.iter_mut().map(|(f, e)| (*f, std::mem::take(e))) {
        let path = root.join(file);
        let text = std::fs::read_to_string(&path)?;
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        // From the bottom up, so that no edit moves the lines of one still to come; at the same line,
        // a replacement before an insertion, which then lands in front of what replaced the line.
        edits.sort_by_key(|e| (std::cmp::Reverse(e.first), std::cmp::Reverse(e.last)));
        edits.dedup();
        for edit in edits {
            lines.splice(edit.first - 1..edit.last, edit.lines.iter().cloned());
        }
        let mut new_text = lines.join("\n");
        if text.ends_with('\n') {
            new_text.push('\n');
        }
        std::fs::write(&path, new_text)?;
    }
    Ok(by_file.len())
}
