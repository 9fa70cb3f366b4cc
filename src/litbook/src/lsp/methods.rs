//! Every request the server answers, in one table: its method, what its parameters must name, what
//! the server answers itself, and how rust-analyzer's answer is put back into the chapters. The
//! server looks each request up here and nowhere else, so a method is added with one row (and its
//! capability, in `capabilities`).

use lsp_types::request::{
    CallHierarchyIncomingCalls, CallHierarchyOutgoingCalls, CallHierarchyPrepare,
    CodeActionRequest, CodeLensRequest, Completion, DocumentHighlightRequest,
    DocumentSymbolRequest, ExecuteCommand, FoldingRangeRequest, Formatting, GotoDefinition,
    GotoImplementation, GotoTypeDefinition, HoverRequest, InlayHintRequest, PrepareRenameRequest,
    RangeFormatting, References, Rename, Request, SelectionRangeRequest,
    SemanticTokensFullDeltaRequest, SemanticTokensFullRequest, SignatureHelpRequest,
    WorkspaceSymbolRequest,
};
use serde_json::Value;

use crate::lsp::actions::code_actions;
use crate::lsp::book::EditedBook;
use crate::lsp::chunk_answers;
use crate::lsp::pending::Forwarded;
use crate::lsp::positions::Located;
use crate::lsp::rewrite::Rewriter;
use crate::lsp::structure;

/// A request the server answers.
pub struct Method {
    pub name: &'static str,
    pub route: Route,
}

/// How a request is answered.
#[derive(Clone, Copy)]
pub enum Route {
    /// `workspace/executeCommand`: the server runs the command (a test) itself.
    Command,
    /// About no place in a chapter: rust-analyzer's answer, placed in the chapters.
    Unplaced(Unplaced),
    /// About a chapter, or a position in one.
    Chapter(Names, ChapterAnswer),
}

/// The requests about no place in a chapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unplaced {
    /// A search of the workspace's symbols; the chunks whose names match are found too, with or
    /// without rust-analyzer.
    Symbols,
    /// The calls of a call hierarchy item rust-analyzer gave, from it (`"to"`, its callees) or to
    /// it (`"from"`, its callers): the key of each call's item in rust-analyzer's answer.
    Calls(&'static str),
}

/// How a request names its place in a chapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Names {
    /// The chapter: `textDocument.uri` (and perhaps a range).
    Chapter,
    /// A position in it: `textDocument.uri` and `position`.
    Position,
}

/// Who answers a request about a chapter.
#[derive(Clone, Copy)]
pub enum ChapterAnswer {
    /// The server, from the book: a chapter's outline, its folds, its lenses.
    Server(ServerAnswer),
    /// The server when it has an answer (about a chunk marker), rust-analyzer about the Rust code
    /// there otherwise, its answer put back in the chapters.
    ServerOrAnalyzer(Option<ServerAnswer>, PutBack),
    /// rust-analyzer about every tangled file with code of the chapter, asked in pieces and put
    /// together.
    Gathered(Gathering),
    /// rustfmt, through the server's formatting of chunks.
    Formatter,
}

/// What a gathered request gathers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gathering {
    InlayHints,
    SemanticTokens,
}

/// The server's own answer at a place of a chapter, if it has one.
pub type ServerAnswer = fn(&EditedBook, &Located) -> Option<Value>;

/// rust-analyzer's answer to a request, its places moved into the chapters, with a warning to show
/// when part of it could not be placed.
pub type PutBack = fn(&Rewriter, &Forwarded, Value) -> (Value, Option<String>);

/// Every request the server answers.
const METHODS: [Method; 25] = [
    Method {
        name: ExecuteCommand::METHOD,
        route: Route::Command,
    },
    Method {
        name: WorkspaceSymbolRequest::METHOD,
        route: Route::Unplaced(Unplaced::Symbols),
    },
    Method {
        name: CallHierarchyIncomingCalls::METHOD,
        route: Route::Unplaced(Unplaced::Calls("from")),
    },
    Method {
        name: CallHierarchyOutgoingCalls::METHOD,
        route: Route::Unplaced(Unplaced::Calls("to")),
    },
    of_a_chapter(
        DocumentSymbolRequest::METHOD,
        ChapterAnswer::Server(chunk_answers::document_symbols),
    ),
    of_a_chapter(
        FoldingRangeRequest::METHOD,
        ChapterAnswer::Server(chunk_answers::folding_ranges),
    ),
    of_a_chapter(
        CodeLensRequest::METHOD,
        ChapterAnswer::Server(chunk_answers::test_lenses),
    ),
    of_a_chapter(Formatting::METHOD, ChapterAnswer::Formatter),
    of_a_chapter(RangeFormatting::METHOD, ChapterAnswer::Formatter),
    of_a_chapter(
        InlayHintRequest::METHOD,
        ChapterAnswer::Gathered(Gathering::InlayHints),
    ),
    of_a_chapter(
        SemanticTokensFullRequest::METHOD,
        ChapterAnswer::Gathered(Gathering::SemanticTokens),
    ),
    of_a_chapter(
        SemanticTokensFullDeltaRequest::METHOD,
        ChapterAnswer::Gathered(Gathering::SemanticTokens),
    ),
    of_a_chapter(
        SelectionRangeRequest::METHOD,
        ChapterAnswer::ServerOrAnalyzer(None, selection_ranges),
    ),
    of_a_chapter(
        CodeActionRequest::METHOD,
        ChapterAnswer::ServerOrAnalyzer(None, |rewriter, _, result| {
            (code_actions(rewriter, &result), None)
        }),
    ),
    at_a_position(
        HoverRequest::METHOD,
        ChapterAnswer::ServerOrAnalyzer(
            Some(chunk_answers::chunk_hover),
            |rewriter, asked, result| (rewriter.hover(&asked.tangled, result), None),
        ),
    ),
    at_a_position(
        GotoDefinition::METHOD,
        ChapterAnswer::ServerOrAnalyzer(Some(chunk_answers::chunk_parts), locations),
    ),
    at_a_position(
        References::METHOD,
        ChapterAnswer::ServerOrAnalyzer(Some(chunk_answers::chunk_references), locations),
    ),
    at_a_position(
        Completion::METHOD,
        ChapterAnswer::ServerOrAnalyzer(
            Some(chunk_answers::chunk_names),
            |rewriter, asked, result| (rewriter.completion(&asked.tangled, result), None),
        ),
    ),
    at_a_position(
        SignatureHelpRequest::METHOD,
        ChapterAnswer::ServerOrAnalyzer(None, as_it_is),
    ),
    at_a_position(
        Rename::METHOD,
        ChapterAnswer::ServerOrAnalyzer(None, rename),
    ),
    at_a_position(
        PrepareRenameRequest::METHOD,
        ChapterAnswer::ServerOrAnalyzer(None, prepare_rename),
    ),
    at_a_position(
        GotoTypeDefinition::METHOD,
        ChapterAnswer::ServerOrAnalyzer(None, locations),
    ),
    at_a_position(
        GotoImplementation::METHOD,
        ChapterAnswer::ServerOrAnalyzer(None, locations),
    ),
    at_a_position(
        DocumentHighlightRequest::METHOD,
        ChapterAnswer::ServerOrAnalyzer(None, |rewriter, asked, result| {
            let highlights =
                structure::highlights(rewriter, &asked.tangled, &asked.chapter_uri, &result);
            (highlights, None)
        }),
    ),
    at_a_position(
        CallHierarchyPrepare::METHOD,
        ChapterAnswer::ServerOrAnalyzer(None, |rewriter, _, result| {
            (structure::hierarchy_items(rewriter, &result), None)
        }),
    ),
];

/// The request `name`, if the server answers it.
pub fn method(name: &str) -> Option<&'static Method> {
    METHODS.iter().find(|method| method.name == name)
}

/// A request about a chapter as a whole.
const fn of_a_chapter(name: &'static str, answer: ChapterAnswer) -> Method {
    Method {
        name,
        route: Route::Chapter(Names::Chapter, answer),
    }
}

/// A request about a position in a chapter.
const fn at_a_position(name: &'static str, answer: ChapterAnswer) -> Method {
    Method {
        name,
        route: Route::Chapter(Names::Position, answer),
    }
}

/// rust-analyzer's answer as it gave it: it holds no place (signature help).
fn as_it_is(_: &Rewriter, _: &Forwarded, result: Value) -> (Value, Option<String>) {
    (result, None)
}

/// Places in files (definitions, references, implementations), each moved into its chapter.
fn locations(rewriter: &Rewriter, _: &Forwarded, result: Value) -> (Value, Option<String>) {
    (rewriter.locations(&result), None)
}

fn selection_ranges(
    rewriter: &Rewriter,
    asked: &Forwarded,
    result: Value,
) -> (Value, Option<String>) {
    (
        structure::selection_ranges(rewriter, &asked.tangled, &result),
        None,
    )
}

fn prepare_rename(
    rewriter: &Rewriter,
    asked: &Forwarded,
    result: Value,
) -> (Value, Option<String>) {
    if result.is_null() {
        return (result, None);
    }
    (
        structure::prepare_rename(rewriter, &asked.tangled, result),
        None,
    )
}

/// A rename's edits in the chapters; edits in code that no chapter holds are left out, and said.
fn rename(rewriter: &Rewriter, _: &Forwarded, result: Value) -> (Value, Option<String>) {
    if result.is_null() {
        return (result, None);
    }
    let (edit, left_out) = rewriter.workspace_edit(&result);
    let warning = (left_out > 0)
        .then(|| format!("rename: {left_out} edit(s) in code that no chapter holds were left out"));
    (edit, warning)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_is_in_the_table_once() {
        for method in &METHODS {
            let rows = METHODS.iter().filter(|m| m.name == method.name).count();
            assert_eq!(rows, 1, "{}", method.name);
        }
        assert!(method("textDocument/hover").is_some());
        assert!(method("textDocument/moniker").is_none());
    }
}
