use crate::{Diagnostic, LineMap, Place};

/// Parses a tangled file as Rust and reports its first syntax error at the Markdown place it came from.
///
/// A tangled file is pulled into its module with `include!`, which rejects inner attributes and inner
/// doc comments (`#![…]`, `//!`); those are reported too, since they belong on the `mod` in `src/`.
pub fn check_syntax(text: &str, map: &LineMap, file_name: &str) -> Result<(), Diagnostic> {
    let error = match syn::parse_file(text) {
        Ok(file) => match file.attrs.first() {
            None => return Ok(()),
            Some(attribute) => syn::Error::new(
                attribute.pound_token.spans[0],
                "inner attributes and `//!` comments cannot be included with `include!`; put them on the `mod` in src/",
            ),
        },
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
