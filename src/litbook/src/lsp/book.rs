//! The book as the editor has it: the chapters on disk with the editor's unsaved texts in their
//! place, tangled on every change. A tangle that fails leaves the last good one in use. What a
//! keystroke does not change is kept: the texts of the files on disk (read again only when their
//! modification time or length changed) and the chunks of every chapter whose text is the same.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

use crate::lsp::positions::{Located, Position, Positions};
use crate::lsp::rewrite::from_lsp;
use crate::lsp::uri::path_of;
use crate::manifest::Manifest;
use crate::shells::includes;
use crate::{
    Diagnostic, Files, Kept, Overlays, Project, Reading, SourceText, TangledFile, Web,
    tangle_project,
};

/// The book of one crate, as last tangled.
pub struct EditedBook {
    pub project: Project,
    pub overlays: Overlays,
    /// Whether the editor changed a chapter since the book was last tangled.
    pub dirty: bool,
    /// The chunks of the latest texts, whether or not they tangled.
    pub web: Web,
    /// What kept the latest texts from tangling; empty when they tangled.
    pub problems: Vec<Diagnostic>,
    /// The last good tangle.
    pub positions: Positions,
    /// The book's files in other languages (JavaScript) of the last good tangle, which a chunk
    /// may read from a build's `OUT_DIR` as it reads a Rust file there.
    pub scripts: Vec<TangledFile>,
    disk: DiskTexts,
    kept: Kept,
    /// The features each tangled file needs (those the targets that include it require).
    gated: HashMap<String, Vec<String>>,
}

/// The bytes of the book's files on disk as last read, each with the modification time and length
/// its file had then.
#[derive(Default)]
struct DiskTexts(HashMap<PathBuf, (Option<SystemTime>, u64, Vec<u8>)>);

impl DiskTexts {
    /// The bytes of a file on disk: kept from the last reading while the file's stamp is the same,
    /// read again otherwise. A file that changed while being read is read once more, and then
    /// taken as read, not kept.
    fn read(&mut self, path: &Path) -> std::io::Result<Vec<u8>> {
        let before = stamp(path)?;
        if let Some((modified, len, bytes)) = self.0.get(path)
            && (*modified, *len) == before
        {
            return Ok(bytes.clone());
        }
        self.0.remove(path);
        let bytes = fs::read(path)?;
        if stamp(path).ok() == Some(before) {
            self.0
                .insert(path.to_path_buf(), (before.0, before.1, bytes.clone()));
        }
        Ok(bytes)
    }
}

/// A file's modification time (if the file system keeps one) and length.
fn stamp(path: &Path) -> std::io::Result<(Option<SystemTime>, u64)> {
    let metadata = fs::metadata(path)?;
    Ok((metadata.modified().ok(), metadata.len()))
}

/// The book's files as the editor has them: its texts where it has them, the disk's otherwise,
/// noting which files were read.
struct EditorFiles<'a> {
    overlays: &'a Overlays,
    disk: &'a mut DiskTexts,
    read: HashSet<PathBuf>,
}

impl Files for EditorFiles<'_> {
    fn read(&mut self, path: &Path) -> std::io::Result<Vec<u8>> {
        if let Some(text) = self.overlays.get(path) {
            return Ok(text.clone().into_bytes());
        }
        self.read.insert(path.to_path_buf());
        self.disk.read(path)
    }
}

impl EditedBook {
    pub fn new(project: Project) -> EditedBook {
        let mut book = EditedBook {
            gated: gated_files(&project.crate_dir),
            project,
            overlays: Overlays::new(),
            dirty: false,
            web: Web::default(),
            problems: Vec::new(),
            positions: Positions::default(),
            scripts: Vec::new(),
            disk: DiskTexts::default(),
            kept: Kept::default(),
        };
        book.tangle();
        book
    }

    pub fn crate_dir(&self) -> &Path {
        &self.project.crate_dir
    }

    /// Tangles the latest texts, as every tool does ([`tangle_project`]) but for the syntax check:
    /// rust-analyzer reports syntax errors itself, and needs to see half-typed code to complete it.
    /// Returns the files when they tangled; otherwise keeps the last good tangle and records the
    /// problems.
    pub fn tangle(&mut self) -> Option<Vec<TangledFile>> {
        self.dirty = false;
        let mut files = EditorFiles {
            overlays: &self.overlays,
            disk: &mut self.disk,
            read: HashSet::new(),
        };
        let mut reading = Reading {
            files: &mut files,
            kept: Some(&mut self.kept),
            checked_before: &|_| true,
        };
        let outcome = tangle_project(&self.project, &mut reading);
        let read = files.read;
        self.disk.0.retain(|path, _| read.contains(path));
        let chapters: Vec<(String, String)> = outcome
            .web
            .chapters
            .iter()
            .map(|c| (c.display.clone(), c.text.clone()))
            .collect();
        self.web = outcome.web;
        self.problems = outcome.problems;
        if !self.problems.is_empty() {
            self.positions.follow(&chapters);
            return None;
        }
        self.positions = Positions::new(&outcome.files, &chapters);
        self.scripts = outcome.scripts;
        Some(outcome.files)
    }

    /// The features the code of a chapter needs (its tangled files' targets require them).
    pub fn features_needed(&self, path: &Path) -> Vec<String> {
        let Some(chapter) = self.chapter_name(path) else {
            return Vec::new();
        };
        let mut needed: Vec<String> = self
            .positions
            .files()
            .filter(|file| file.map.sources().contains(&chapter))
            .filter_map(|file| self.gated.get(&file.name))
            .flatten()
            .cloned()
            .collect();
        needed.sort();
        needed.dedup();
        needed
    }

    /// A chapter's text changed in the editor (`None`: it is closed, and the file on disk counts).
    pub fn edited(&mut self, path: PathBuf, text: Option<String>) {
        let unchanged = self.overlays.get(&path) == text.as_ref();
        match text {
            Some(text) => self.overlays.insert(path, text),
            None => self.overlays.remove(&path),
        };
        self.dirty |= !unchanged;
    }

    /// The chapter and position a request is about (a document symbol request has no position).
    pub fn located(&self, params: &Value) -> Option<Located> {
        let path = path_of(params["textDocument"]["uri"].as_str()?)?;
        let file = self.chapter_name(&path)?;
        let position = from_lsp(&params["position"]).unwrap_or(Position {
            line: 0,
            character: 0,
        });
        Some(Located { file, position })
    }

    /// The name places give a file of the book (`book/src/x.md`), if it is one.
    pub fn chapter_name(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(&self.project.crate_dir).ok()?;
        relative
            .starts_with(&self.project.src)
            .then(|| relative.to_string_lossy().replace('\\', "/"))
    }

    /// The path of a file of the book from its name in places.
    pub fn chapter_path(&self, name: &str) -> PathBuf {
        self.project.crate_dir.join(name)
    }

    /// The index of a chapter's last line as the editor has it now (0 for an unknown chapter).
    pub fn current_lines(&self, chapter: &str) -> usize {
        let source = self.web.chapters.iter().find(|c| c.display == chapter);
        source.map_or(0, |c| c.text.lines().count().saturating_sub(1))
    }

    /// The text of a 0-based line of a chapter as the editor has it now.
    pub fn current_line(&self, chapter: &str, line: usize) -> Option<String> {
        let path = self.chapter_path(chapter);
        let text = match self.overlays.get(&path) {
            Some(text) => text.clone(),
            None => std::fs::read_to_string(&path).ok()?,
        };
        text.lines().nth(line).map(str::to_string)
    }
}

/// The features each tangled file needs, by file name: those that the target whose root is the
/// shell that includes it requires (`required-features`). Files of the library and of targets that
/// require nothing are not listed; nor is anything when the manifest cannot be read.
fn gated_files(crate_dir: &Path) -> HashMap<String, Vec<String>> {
    let targets = Manifest::targets_of(crate_dir);
    let mut gated = HashMap::new();
    for target in targets.iter().filter(|t| !t.required_features.is_empty()) {
        let Ok(text) = fs::read_to_string(crate_dir.join(&target.path)) else {
            continue;
        };
        for include in includes(&SourceText::new(target.path.as_str(), text)) {
            gated.insert(include.file, target.required_features.clone());
        }
    }
    gated
}
