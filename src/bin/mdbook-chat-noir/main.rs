//! `mdbook-chat-noir`: the mdbook preprocessor that weaves the Chat Noir book.
//!
//! mdbook runs it (see `book/book.toml`) with the book as JSON on standard input and reads the woven
//! book from standard output. The weaving itself is the `literate` crate's; this program only carries
//! chapters between mdbook's types and the weaver, and draws the figures with the game's own code.

mod figures;

use std::collections::HashMap;
use std::io;
use std::process::ExitCode;

use literate::weave::{Chapter, weave};
use mdbook_preprocessor::book::{Book, BookItem};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("supports") {
        return ExitCode::SUCCESS;
    }
    let (_context, mut book) = match mdbook_preprocessor::parse_input(io::stdin()) {
        Ok(input) => input,
        Err(error) => {
            eprintln!("mdbook-chat-noir: cannot read the book from mdbook: {error:#}");
            return ExitCode::FAILURE;
        }
    };
    weave_book(&mut book);
    match serde_json::to_writer(io::stdout(), &book) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mdbook-chat-noir: cannot write the woven book: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Replaces every chapter's content with its woven form; problems are reported, not fatal.
fn weave_book(book: &mut Book) {
    let chapters: Vec<Chapter> = book
        .iter()
        .filter_map(|item| match item {
            BookItem::Chapter(chapter) => Some(Chapter {
                path: chapter.path.as_ref()?.to_string_lossy().replace('\\', "/"),
                title: chapter.name.clone(),
                content: chapter.content.clone(),
            }),
            _ => None,
        })
        .collect();
    let (woven, problems) = weave(&chapters, "book/src", &mut figures::figure);
    for problem in &problems {
        eprintln!("mdbook-chat-noir: {problem}");
    }
    let mut by_path: HashMap<String, String> =
        chapters.into_iter().map(|c| c.path).zip(woven).collect();
    book.for_each_chapter_mut(|chapter| {
        let path = chapter
            .path
            .as_ref()
            .map(|p| p.to_string_lossy().replace('\\', "/"));
        if let Some(content) = path.and_then(|p| by_path.remove(&p)) {
            chapter.content = content;
        }
    });
}
