//! The chunk markers: the comment lines in a chapter's code that define a chunk, continue one, or
//! stand for one, read from one line at a time.

/// What a chunk marker line says: `// <<name>>=` defines a chunk, `// <<name>>+=` continues it and
/// `// <<name>>` alone on a line stands for its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Marker {
    /// `// <<name>>=`: the chunk's definition starts here.
    Define(String),
    /// `// <<name>>+=`: the chunk continues here.
    Append(String),
    /// `// <<name>>`: the chunk's text goes here.
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
    let comment = comment.trim_start();
    match comment.strip_prefix("<<") {
        Some(body) => Some(parse_marker_body(body)),
        None => near_miss(comment).map(Err),
    }
}

/// A comment that reads as a chunk marker with one `<` where two belong (`// <name>>+=`): left as
/// a comment, it would drop the chunk it should define or the text it should stand for, silently.
fn near_miss(comment: &str) -> Option<String> {
    let body = comment.strip_prefix('<')?.trim_end();
    let (name, ending) = [">>+=", ">>=", ">>", ">+=", ">="]
        .iter()
        .find_map(|ending| Some((body.strip_suffix(ending)?, *ending)))?;
    let name = name.trim_end_matches('>').trim();
    if name.is_empty() || name.contains(['<', '>']) {
        return None;
    }
    let meant = match ending.trim_start_matches('>') {
        "" => ">>",
        "=" => ">>=",
        _ => ">>+=",
    };
    Some(format!(
        "this comment reads as a chunk marker with one `<`: write `// <<{name}{meant}`"
    ))
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
    fn a_marker_with_one_opening_bracket_is_an_error_not_a_comment() {
        for (line, meant) in [
            ("// <the stack>>+=", "// <<the stack>>+="),
            ("// <the stack>>=", "// <<the stack>>="),
            ("    // <the stack>>", "// <<the stack>>"),
            ("// <the stack>=", "// <<the stack>>="),
        ] {
            let message = marker(line).expect("a marker").expect_err("malformed");
            assert!(
                message.ends_with(&format!("write `{meant}`")),
                "{line}: {message}"
            );
        }
        for comment in [
            "// <T> is any type",
            "// a << b >>= c",
            "// <-- here",
            "// <>>=",
        ] {
            assert_eq!(marker(comment), None, "{comment}");
        }
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
