//! The woven book's script and style sheet, `chunks.js` and `chunks.css`: they finish in the
//! reader's browser what the weaver can only prepare, once mdbook has highlighted the code. The
//! weaver writes them into the book's theme directory (see [`crate::Project`]) whenever they are
//! missing or not its own, so a book never runs with a script older than its weaver; the book's
//! `book.toml` names them to mdbook's HTML renderer:
//!
//! ```toml
//! [output.html]
//! additional-css = ["theme/chunks.css"]
//! additional-js = ["theme/chunks.js"]
//! ```
//!
//! # What the weaver writes for them
//!
//! Every chunk part is a `<div class="chunk">` holding, in order, a caption
//! (`<div class="chunk-caption">`), the code as one `rust` block and a footer
//! (`<div class="chunk-footer">`, where the chunk is used). Its attributes, each HTML-escaped JSON:
//!
//! - `data-refs`: an object from each chunk name the code references (`// <<name>>`) to
//!   `{"href", "chapter", "number", "where"}`: the link to the chunk's first part, its chapter's
//!   title, its number (`§N`), and, when it is in another chapter, that chapter's file (absent in
//!   the same chapter). The script makes each reference line a link `a.chunk-ref` with
//!   `data-number` and `data-where`.
//! - `data-idents`: an object from each identifier the book defines and the code uses to where
//!   it leads by how it is written, each way a `{"href", "title"}` (the link to its definition, or
//!   to the index of identifiers when there are several, and a title saying what and where it is)
//!   or absent: `free` for the word alone or after a module's path, `owners` (an object by type)
//!   for `Type::name` (and `Self::name` when one type has it), `method` for a call `.name(` of a
//!   method no common standard type has. A field (`.name` with no call) is not linked, nor are
//!   identifiers inside comments and strings.
//!
//! The caption holds the chunk's name as a heading of level 6 (`.chunk-heading`, whose anchor the
//! script marks `.chunk-name`), then `.chunk-caption-rest`: `.chunk-sign` (`≡` for a definition,
//! `+≡` for a continuation), `.chunk-number` (`§N`), `.chunk-file` (what a root becomes), and, for a
//! chunk with parts in other chapters, `<span class="chunk-nav" data-parts>`, a JSON list of
//! `{"n", "href", "title", "current"}`, one per part, which the script draws as links (the current
//! part as `.chunk-part-current`). The chunk index is `ul.chunk-index`; the identifier index is
//! `div.identifier-index` with `p.identifier-letters`, `p.identifier-initial` and
//! `span.identifier-definition`.
//!
//! The script changes no text of the code, so that mdbook's copy button copies a chunk as it is
//! written; the style sheet takes its colours from mdbook's theme variables, so every built-in
//! theme styles chunks its own way.

use std::path::{Path, PathBuf};

use crate::{Project, write_if_changed};

/// The theme files, by name, as this weaver writes them.
pub const FILES: [(&str, &str); 2] = [
    ("chunks.css", include_str!("../theme/chunks.css")),
    ("chunks.js", include_str!("../theme/chunks.js")),
];

/// Writes the theme files of `project` that are missing or differ from this weaver's; the paths
/// written.
pub fn write_theme(project: &Project) -> Result<Vec<PathBuf>, String> {
    let dir = project.crate_dir.join(&project.theme);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut written = Vec::new();
    for (name, text) in FILES {
        let path = dir.join(name);
        let changed = write_if_changed(&path, text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        if changed {
            written.push(path);
        }
    }
    Ok(written)
}

/// The theme files that the HTML renderer's configuration (`output.html` of `book.toml`, as
/// `additional-css` and `additional-js` lists relative to the book's root) does not name, each with
/// the setting that would, for a book in `book_root`.
pub fn unnamed_theme_files(
    project: &Project,
    additional_css: &[String],
    additional_js: &[String],
) -> Vec<String> {
    let relative = Path::new(&project.theme)
        .strip_prefix(&project.book_root)
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_else(|_| project.theme.clone());
    FILES
        .iter()
        .filter_map(|(name, _)| {
            let path = format!("{relative}/{name}");
            let (key, named) = if name.ends_with(".css") {
                ("additional-css", additional_css)
            } else {
                ("additional-js", additional_js)
            };
            let clean = |p: &String| p.trim_start_matches("./").to_string();
            (!named.iter().map(clean).any(|p| p == path))
                .then(|| format!("`{key} = [\"{path}\"]` under [output.html]"))
        })
        .collect()
}
