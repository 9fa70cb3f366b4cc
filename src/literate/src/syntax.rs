use crate::{Diagnostic, LineMap, Place};

/// Parses a tangled file as Rust and reports its first syntax error at the Markdown place it came from.
pub fn check_syntax(text: &str, map: &LineMap, file_name: &str) -> Result<(), Diagnostic> {
    let error = match syn::parse_file(text) {
        Ok(_) => return Ok(()),
        Err(error) => error,
    };
    let start = error.span().start();
    // syn counts lines from 1 and columns from 0.
    let place = map
        .place(start.line, start.column + 1)
        .unwrap_or_else(|| Place::new(file_name, start.line, start.column + 1));
    Err(Diagnostic::new(
        place,
        format!("syntax error in tangled Rust ({file_name}): {error}"),
    ))
}
