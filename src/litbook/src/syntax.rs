//! The syntax check: every tangled file parsed as Rust with syn, its first error reported at the
//! Markdown place it came from, before the compiler sees the file (which would report it in
//! `OUT_DIR`). The files are parsed side by side, on threads with stacks deep enough for the deepest
//! nesting the check allows.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use proc_macro2::{TokenStream, TokenTree};

use crate::{Diagnostic, LineMap, Place, TangledFile};

/// How deep brackets may nest in a tangled file. Real code nests a few dozen levels at most (rustc
/// takes a few hundred); syn, which checks the syntax, recurses at every level, so a limit keeps a
/// hostile book from overflowing the tangler's stack.
pub const MAX_NESTING: usize = 512;

/// The stack the syntax check runs on. Unoptimised, syn takes about 20 KB of stack a level, so
/// [`MAX_NESTING`] levels need about 10 MB; this is six times that. Only the pages used are allocated.
const STACK_BYTES: usize = 64 << 20;

/// Parses a tangled file as Rust and reports its first syntax error at the Markdown place it came from.
///
/// A tangled file is pulled into its module with `include!`, which rejects inner attributes and inner
/// doc comments (`#![…]`, `//!`); those are reported too, since they belong on the `mod` in `src/`.
/// Brackets nested deeper than [`MAX_NESTING`] are reported at the first one too deep, before syn
/// sees them.
pub fn check_syntax(text: &str, map: &LineMap, file_name: &str) -> Result<(), Diagnostic> {
    let error = syntax_errors(&[text]).pop().flatten();
    at_markdown_place(error, map, file_name)
}

/// [`check_syntax`] for every file at once: the files are independent, and the syntax check is most
/// of the tangler's work. The problems come in the order of the files.
pub fn check_syntax_of_all<'a>(
    files: impl IntoIterator<Item = &'a TangledFile>,
) -> Vec<Diagnostic> {
    let files: Vec<&TangledFile> = files.into_iter().collect();
    let texts: Vec<&str> = files.iter().map(|file| file.text.as_str()).collect();
    syntax_errors(&texts)
        .into_iter()
        .zip(files)
        .filter_map(|(error, file)| at_markdown_place(error, &file.map, &file.name).err())
        .collect()
}

/// The first syntax error of each text, found on [`on_big_stacks`].
fn syntax_errors(texts: &[&str]) -> Vec<Option<(usize, usize, String)>> {
    on_big_stacks(texts, |text| syntax_error(text))
}

/// The most threads [`on_big_stacks`] starts, however many cores the machine has.
const MAX_THREADS: usize = 8;

/// `work` done on every input, the results in the order of the inputs, on as many threads as the
/// machine has cores (at most [`MAX_THREADS`], and no more than there are inputs), each with
/// [`STACK_BYTES`] of stack, for work that recurses as deep as its input nests (syn's parser). Each
/// thread takes the next input not yet taken. If no thread can be started, the work is done on this
/// thread.
pub(crate) fn on_big_stacks<T: Sync, R: Send>(
    inputs: &[T],
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = cores.min(MAX_THREADS).min(inputs.len());
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<R>>> = inputs.iter().map(|_| Mutex::new(None)).collect();
    let worker = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(input) = inputs.get(i) else { break };
            let result = work(input);
            *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
        }
    };
    std::thread::scope(|scope| {
        let started: Vec<_> = (0..threads)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .name("syn parser".into())
                    .stack_size(STACK_BYTES)
                    .spawn_scoped(scope, worker)
                    .ok()
            })
            .collect();
        for thread in started {
            thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
    });
    results
        .into_iter()
        .zip(inputs)
        .map(|(result, input)| {
            let result = result.into_inner().unwrap_or_else(|e| e.into_inner());
            result.unwrap_or_else(|| work(input))
        })
        .collect()
}

/// Whether a text's brackets nest deeper than [`MAX_NESTING`] (or it does not lex): a text no syn
/// parse should be given.
pub(crate) fn nests_too_deep(text: &str) -> bool {
    text.parse::<TokenStream>()
        .map_or(true, |tokens| too_deep(tokens).is_some())
}

/// A syntax error found at `line` and `column` of a tangled file, as a diagnostic at its Markdown
/// place.
fn at_markdown_place(
    error: Option<(usize, usize, String)>,
    map: &LineMap,
    file_name: &str,
) -> Result<(), Diagnostic> {
    let Some((line, column, message)) = error else {
        return Ok(());
    };
    let place = map
        .place(line, column)
        .unwrap_or_else(|| Place::new(file_name, line, column));
    Err(Diagnostic::new(
        place,
        format!("syntax error in tangled Rust ({file_name}): {message}"),
    ))
}

/// The first syntax error of a file, at its 1-based line and column.
fn syntax_error(text: &str) -> Option<(usize, usize, String)> {
    let error = match text.parse::<TokenStream>() {
        Ok(tokens) => match too_deep(tokens.clone()) {
            Some(error) => error,
            None => match syn::parse2::<syn::File>(tokens) {
                Ok(file) => syn::Error::new(
                    file.attrs.first()?.pound_token.spans[0],
                    "inner attributes and `//!` comments cannot be included with `include!`; put them on the `mod` in src/",
                ),
                Err(error) => error,
            },
        },
        // A bracket left open or closed by the wrong partner is the commonest reason a text does
        // not lex, and the lexer says only "cannot parse string into token stream" at the bracket
        // after it: it is named at the bracket left open instead.
        Err(_) => match unbalanced(text) {
            Some(error) => return Some(error),
            // syn reports any other lexing error better than the bare lexer does.
            None => syn::parse_file(text).err()?,
        },
    };
    let start = error.span().start();
    // syn counts lines from 1 and columns from 0.
    Some((start.line, start.column + 1, error.to_string()))
}

/// The first bracket of a text that no partner closes, or a closing bracket with none to close, at
/// its 1-based line and column, with what is wrong in words; `None` when the brackets pair up.
/// Brackets in comments, strings and character literals are not counted.
fn unbalanced(text: &str) -> Option<(usize, usize, String)> {
    let mut open: Vec<(char, usize, usize)> = Vec::new();
    let mut chars = Scanned::new(text);
    while let Some((c, line, col)) = chars.next_code() {
        match c {
            '(' | '[' | '{' => open.push((c, line, col)),
            ')' | ']' | '}' => match open.pop() {
                Some((opener, ..)) if partner(opener) == c => {}
                Some((opener, at_line, at_col)) => {
                    let message = format!(
                        "this `{opener}` is not closed: a `{c}` comes after it where its `{}` \
                         belongs",
                        partner(opener)
                    );
                    return Some((at_line, at_col, message));
                }
                None => {
                    return Some((
                        line,
                        col,
                        format!("unexpected `{c}`: no bracket is open here"),
                    ));
                }
            },
            _ => {}
        }
    }
    let (opener, line, col) = open.pop()?;
    let message = format!(
        "this `{opener}` is never closed: add its `{}`",
        partner(opener)
    );
    Some((line, col, message))
}

/// The closing partner of an opening bracket.
fn partner(opener: char) -> char {
    match opener {
        '(' => ')',
        '[' => ']',
        _ => '}',
    }
}

/// The characters of Rust code with their 1-based lines and columns, comments and the insides of
/// string and character literals passed over.
struct Scanned<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    col: usize,
}

impl<'a> Scanned<'a> {
    fn new(text: &'a str) -> Scanned<'a> {
        Scanned {
            chars: text.chars().peekable(),
            line: 1,
            col: 0,
        }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.col = 0;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    /// The next character that is code, not in a comment or a literal.
    fn next_code(&mut self) -> Option<(char, usize, usize)> {
        loop {
            let c = self.bump()?;
            let at = (self.line, self.col);
            match (c, self.chars.peek()) {
                ('/', Some('/')) => self.skip_line(),
                ('/', Some('*')) => self.skip_block_comment(),
                ('"', _) => self.skip_string(),
                ('r', Some('#' | '"')) => self.skip_raw_string(),
                ('\'', _) => self.skip_char_or_lifetime(),
                _ => return Some((c, at.0, at.1)),
            }
        }
    }

    fn skip_line(&mut self) {
        while self.chars.peek().is_some_and(|&c| c != '\n') {
            self.bump();
        }
    }

    fn skip_block_comment(&mut self) {
        self.bump();
        let mut depth = 1;
        while depth > 0 {
            match (self.bump(), self.chars.peek()) {
                (None, _) => return,
                (Some('/'), Some('*')) => {
                    self.bump();
                    depth += 1;
                }
                (Some('*'), Some('/')) => {
                    self.bump();
                    depth -= 1;
                }
                _ => {}
            }
        }
    }

    fn skip_string(&mut self) {
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    self.bump();
                }
                '"' => return,
                _ => {}
            }
        }
    }

    fn skip_raw_string(&mut self) {
        let mut hashes = 0;
        while self.chars.peek() == Some(&'#') {
            self.bump();
            hashes += 1;
        }
        if self.chars.peek() != Some(&'"') {
            return;
        }
        self.bump();
        while let Some(c) = self.bump() {
            if c == '"' {
                let mut closing = 0;
                while closing < hashes && self.chars.peek() == Some(&'#') {
                    self.bump();
                    closing += 1;
                }
                if closing == hashes {
                    return;
                }
            }
        }
    }

    /// After a `'`: a character literal (`'x'`, `'\n'`, `'('`) is passed over; a lifetime (`'a`)
    /// is a name, nothing to pass over.
    fn skip_char_or_lifetime(&mut self) {
        let mut ahead = self.chars.clone();
        let literal = match ahead.next() {
            Some('\\') => true,
            Some(_) => ahead.next() == Some('\''),
            None => false,
        };
        if !literal {
            return;
        }
        if self.bump() == Some('\\') {
            self.bump();
            while self.chars.peek().is_some_and(|&c| c != '\'') {
                self.bump();
            }
        }
        self.bump();
    }
}

/// An error at the first bracket nested deeper than [`MAX_NESTING`], found without recursion.
fn too_deep(tokens: TokenStream) -> Option<syn::Error> {
    let mut open = vec![tokens.into_iter()];
    while let Some(tokens) = open.last_mut() {
        match tokens.next() {
            Some(TokenTree::Group(group)) => {
                if open.len() > MAX_NESTING {
                    return Some(syn::Error::new(
                        group.span_open(),
                        format!(
                            "brackets nest more than {MAX_NESTING} deep here; split the code into functions"
                        ),
                    ));
                }
                open.push(group.stream().into_iter());
            }
            Some(_) => {}
            None => {
                open.pop();
            }
        }
    }
    None
}
