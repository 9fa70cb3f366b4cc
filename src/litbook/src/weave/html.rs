//! Text made into HTML and Markdown that shows it as it is: code blocks, escaped names, slugs for
//! anchors and links between chapters' pages.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// A run of code lines as a fenced block that mdbook highlights as Rust, with no play button and not run
/// as a doctest; nothing for no lines.
pub(super) fn code_block(lines: &[&str]) -> String {
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return String::new();
    };
    let longest_fence = lines
        .iter()
        .map(|l| l.chars().take_while(|&c| c == '`').count())
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest_fence.max(2) + 1);
    format!(
        "{fence}rust,ignore,noplayground\n{}\n{fence}\n\n",
        lines[first..=last].join("\n")
    )
}

/// Text that Markdown shows as it is: every ASCII punctuation character escaped with a backslash.
pub(super) fn markdown_text(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A name as part of an HTML id: lower-case letters and digits, other runs as one dash.
pub(super) fn slug(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_matches('-').to_string();
    if slug.is_empty() {
        "chunk".to_string()
    } else {
        slug
    }
}

/// The path of the HTML page of chapter `to`, relative to the page of chapter `from`.
pub(super) fn relative_html(from: &str, to: &str) -> String {
    let depth = from.matches('/').count();
    let target = to.strip_suffix(".md").unwrap_or(to);
    let encoded: Vec<String> = target
        .split('/')
        .map(|segment| utf8_percent_encode(segment, PATH_SEGMENT).to_string())
        .collect();
    format!("{}{}.html", "../".repeat(depth), encoded.join("/"))
}

/// What a chapter's path must have percent-encoded in a link: everything but letters, digits and
/// `-._~`, so that a space, `#`, `?` or `%` in a file's name cannot end or change the link.
const PATH_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Text made safe inside HTML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The anchor of a name's entry in the index of identifiers.
pub(super) fn identifier_anchor(name: &str) -> String {
    format!("ident-{name}")
}
