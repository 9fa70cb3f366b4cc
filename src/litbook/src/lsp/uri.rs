//! `file://` URIs and the paths they name, as the `url` crate writes and reads them on every
//! platform.

use std::path::{Path, PathBuf};

use url::Url;

/// The `file://` URI of a path (a relative one taken from the working directory).
pub fn uri_of(path: &Path) -> String {
    let absolute = match std::env::current_dir() {
        Ok(here) if path.is_relative() => here.join(path),
        _ => path.to_path_buf(),
    };
    match Url::from_file_path(&absolute) {
        Ok(url) => url.into(),
        Err(()) => format!("file://{}", absolute.display()),
    }
}

/// The path a `file://` URI names, if it is one.
pub fn path_of(uri: &str) -> Option<PathBuf> {
    Url::parse(uri).ok()?.to_file_path().ok()
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
