//! `file://` URIs and the paths they name.

use std::path::{Path, PathBuf};

/// The `file://` URI of an absolute path, with every byte outside the unreserved set and `/`
/// percent-encoded.
pub fn uri_of(path: &Path) -> String {
    let mut uri = String::from("file://");
    for &byte in path.to_string_lossy().as_bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            uri.push(byte as char);
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// The path a `file://` URI names, if it is one.
pub fn path_of(uri: &str) -> Option<PathBuf> {
    let encoded = uri.strip_prefix("file://")?;
    let mut bytes = Vec::with_capacity(encoded.len());
    let mut rest = encoded.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        match (byte, tail) {
            (b'%', [high, low, tail @ ..]) => {
                let hex = std::str::from_utf8(&[*high, *low]).ok()?.to_string();
                bytes.push(u8::from_str_radix(&hex, 16).ok()?);
                rest = tail;
            }
            _ => {
                bytes.push(byte);
                rest = tail;
            }
        }
    }
    Some(PathBuf::from(String::from_utf8(bytes).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_survive_the_round_trip_through_uris() {
        let path = Path::new("/work/a b/ç#1.md");
        let uri = uri_of(path);
        assert_eq!(uri, "file:///work/a%20b/%C3%A7%231.md");
        assert_eq!(path_of(&uri).as_deref(), Some(path));
        assert_eq!(path_of("https://example.com"), None);
    }
}
