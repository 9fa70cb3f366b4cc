//! The diagnostics the editor sees in each chapter: the tangler's problems, and rust-analyzer's
//! placed where the code is written; published only when a chapter's list changed.

use std::collections::{BTreeMap, HashMap};

use lsp_types::DiagnosticSeverity;
use lsp_types::notification::{Notification as _, PublishDiagnostics};
use serde_json::{Value, json};

use crate::Place;
use crate::lsp::book::EditedBook;
use crate::lsp::chunk_answers::{line_range, location};
use crate::lsp::editor::Editor;
use crate::lsp::rewrite::Rewriter;
use crate::lsp::uri::uri_of;

/// rust-analyzer's latest diagnostics, and what was last published.
#[derive(Default)]
pub struct Diagnostics {
    /// rust-analyzer's latest, by tangled file.
    analyzer: BTreeMap<String, Vec<Value>>,
    /// The failures of the last test run, each at its chapter place.
    tests: Vec<(Place, String)>,
    /// What was last published, by chapter URI.
    published: HashMap<String, Vec<Value>>,
}

impl Diagnostics {
    /// rust-analyzer's diagnostics of a tangled file, in place of its last.
    pub fn set_analyzer(&mut self, tangled: String, diagnostics: Vec<Value>) {
        self.analyzer.insert(tangled, diagnostics);
    }

    /// The failures of a test run, in place of the last run's.
    pub fn set_tests(&mut self, failures: Vec<(Place, String)>) {
        self.tests = failures;
    }

    /// Forgets rust-analyzer's diagnostics (it stopped).
    pub fn clear_analyzer(&mut self) {
        self.analyzer.clear();
    }

    /// Publishes every chapter's diagnostics that changed; rust-analyzer's are placed through
    /// `rewriter` when it runs.
    pub fn publish(&mut self, book: &EditedBook, rewriter: Option<&Rewriter>, editor: &Editor) {
        let mut by_uri: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for chapter in &book.web.chapters {
            by_uri.insert(uri_of(&book.chapter_path(&chapter.display)), Vec::new());
        }
        for problem in &book.problems {
            let (uri, diagnostic) = tangle_diagnostic(book, problem);
            by_uri.entry(uri).or_default().push(diagnostic);
        }
        for (place, message) in &self.tests {
            let uri = uri_of(&book.chapter_path(&place.file));
            let diagnostic = json!({
                "range": line_range(book, place),
                "severity": DiagnosticSeverity::ERROR,
                "source": "litbook test",
                "message": message,
            });
            by_uri.entry(uri).or_default().push(diagnostic);
        }
        if let Some(rewriter) = rewriter {
            for (tangled, diagnostics) in &self.analyzer {
                for diagnostic in diagnostics {
                    if let Some((uri, diagnostic)) = rewriter.diagnostic(tangled, diagnostic) {
                        let list = by_uri.entry(uri).or_default();
                        if !list.contains(&diagnostic) {
                            list.push(diagnostic);
                        }
                    }
                }
            }
        }
        for uri in self.published.keys() {
            by_uri.entry(uri.clone()).or_default();
        }
        for (uri, diagnostics) in by_uri {
            let last = self.published.get(&uri);
            if last.map_or(diagnostics.is_empty(), |last| *last == diagnostics) {
                continue;
            }
            let params = json!({"uri": uri, "diagnostics": diagnostics});
            editor.notify(PublishDiagnostics::METHOD, params);
            self.published.insert(uri, diagnostics);
        }
    }
}

/// A problem of the tangler as an LSP diagnostic, to the end of its line.
fn tangle_diagnostic(book: &EditedBook, problem: &crate::Diagnostic) -> (String, Value) {
    let related: Vec<Value> = problem
        .notes
        .iter()
        .map(|(place, message)| json!({"location": location(book, place), "message": message}))
        .collect();
    let uri = uri_of(&book.chapter_path(&problem.place.file));
    let diagnostic = json!({
        "range": line_range(book, &problem.place),
        "severity": DiagnosticSeverity::ERROR,
        "source": "litbook",
        "message": problem.message,
        "relatedInformation": related,
    });
    (uri, diagnostic)
}
