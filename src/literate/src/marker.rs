//! The chunk markers: the comment lines in a chapter's code that define a chunk, continue one, or
//! stand for one, read from one line at a time.

/// What a chunk marker line says: `// <<name>>=` defines a chunk, `// <<name>>+=` continues it and
/// `// <<name>>` alone on a line stands for its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Marker {
    Define(String),
    Append(String),
    Reference(String),
}

/// Reads a marker from one line of code, after any indentation. `None` when the line is no marker at
/// all (ordinary code, or a doc comment); an error message when it starts like one (`// <<`) but is
/// malformed. Names are free text; runs of white space in them count as one space.
pub fn marker(line: &str) -> Option<Result<Marker, String>> {
    let comment = line.trim_start().strip_prefix("//")?;
    if comment.starts_with(['/', '!']) {
        return None;
    }
    let body = comment.trim_start().strip_prefix("<<")?;
    Some(parse_marker_body(body))
}

fn parse_marker_body(body: &str) -> Result<Marker, String> {
    let Some(close) = body.rfind(">>") else {
        return Err("chunk marker is not closed: expected `>>` after the name".to_string());
    };
    let name = body[..close]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if name.is_empty() {
        return Err("chunk marker has an empty name".to_string());
    }
    match body[close + 2..].trim_end() {
        "" => Ok(Marker::Reference(name)),
        "=" => Ok(Marker::Define(name)),
        "+=" => Ok(Marker::Append(name)),
        rest => Err(format!(
            "unexpected `{}` after the chunk name: a header ends in `>>=` or `>>+=`, a reference in `>>`",
            rest.trim()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Marker {
        marker(line).expect("a marker").expect("well formed")
    }

    #[test]
    fn reads_the_three_kinds_of_marker() {
        assert_eq!(ok("// <<neighbors>>="), Marker::Define("neighbors".into()));
        assert_eq!(ok("// <<neighbors>>+="), Marker::Append("neighbors".into()));
        assert_eq!(
            ok("    // <<neighbors>>"),
            Marker::Reference("neighbors".into())
        );
    }

    #[test]
    fn names_are_free_text_with_white_space_folded() {
        assert_eq!(
            ok("//<<  find the   cat's best moves >>  "),
            Marker::Reference("find the cat's best moves".into())
        );
        assert_eq!(
            ok("// <<board->graph>>="),
            Marker::Define("board->graph".into())
        );
        assert_eq!(
            ok("// <<file:world.rs>>="),
            Marker::Define("file:world.rs".into())
        );
    }

    #[test]
    fn ordinary_code_and_doc_comments_are_no_markers() {
        assert_eq!(marker("let x = 1 << 2;"), None);
        assert_eq!(marker("// a comment"), None);
        assert_eq!(marker("/// <<not a chunk>>"), None);
        assert_eq!(marker("//! <<not a chunk>>"), None);
        assert_eq!(marker("x; // <<trailing>>"), None);
    }

    #[test]
    fn malformed_markers_say_what_is_wrong() {
        assert_eq!(
            marker("// <<name>").unwrap().unwrap_err(),
            "chunk marker is not closed: expected `>>` after the name"
        );
        assert_eq!(
            marker("// <<  >>=").unwrap().unwrap_err(),
            "chunk marker has an empty name"
        );
        assert_eq!(
            marker("// <<name>> = x").unwrap().unwrap_err(),
            "unexpected `= x` after the chunk name: a header ends in `>>=` or `>>+=`, a reference in `>>`"
        );
    }
}
