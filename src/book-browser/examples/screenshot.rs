//! Takes a screenshot of a page of the built book, as a reader sees it, in a chosen theme and
//! width: the way to look at a change to the book before asking a reader to. The book is served
//! from `book/book` (build it first with `mdbook build book`, or `bash .ci/web` for the game).
//!
//! ```text
//! cargo run -p book-browser --example screenshot -- PAGE[#ANCHOR] WIDTH THEME OUT.png
//! cargo run -p book-browser --example screenshot -- placing.html#two-pictures-in-one 1280 light a.png
//! ```
//!
//! The themes are mdbook's: light, rust, coal, navy, ayu. With an anchor (an element's id, or
//! `figure-N` for the page's Nth figure), the screenshot shows that element in the middle of the
//! window; without one, the top of the page.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use headless_chrome::protocol::cdp::Page;
use headless_chrome::{Browser, LaunchOptions};

const USAGE: &str = "usage: screenshot PAGE[#ANCHOR] WIDTH THEME OUT.png \
                     (THEME: light, rust, coal, navy or ayu)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [page, width, theme, out] = args.as_slice() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let Ok(width) = width.parse::<u32>() else {
        eprintln!("the width `{width}` is not a whole number of pixels; {USAGE}");
        return ExitCode::from(2);
    };
    if !["light", "rust", "coal", "navy", "ayu"].contains(&theme.as_str()) {
        eprintln!("no theme `{theme}`; {USAGE}");
        return ExitCode::from(2);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../book/book");
    if !root.join("index.html").is_file() {
        eprintln!(
            "{} has no book: run `mdbook build book` first",
            root.display()
        );
        return ExitCode::FAILURE;
    }
    match screenshot(&root, page, width, theme, Path::new(out)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("no screenshot of {page}: {why}");
            ExitCode::FAILURE
        }
    }
}

/// Writes to `out` the window at `width` × 1000 pixels on `page` of the book under `root`, in
/// `theme`.
fn screenshot(root: &Path, page: &str, width: u32, theme: &str, out: &Path) -> Result<(), String> {
    let port = book_browser::serve(&root.canonicalize().map_err(|e| e.to_string())?);
    let browser = Browser::new(
        LaunchOptions::default_builder()
            .path(Some(
                std::env::var_os("CHROMIUM").map_or("/usr/bin/chromium".into(), Into::into),
            ))
            .sandbox(false)
            .build()
            .map_err(|e| e.to_string())?,
    )
    .map_err(|e| format!("Chromium does not start: {e}"))?;
    let tab = browser.new_tab().map_err(|e| e.to_string())?;
    book_browser::window_size(&tab, (width, 1000));
    let (path, anchor) = page.split_once('#').unwrap_or((page, ""));
    tab.navigate_to(&format!("http://127.0.0.1:{port}/{path}"))
        .and_then(|tab| tab.wait_until_navigated())
        .map_err(|e| e.to_string())?;
    let theme_and_place = format!(
        "localStorage.setItem('mdbook-theme', '{theme}'); \
         document.documentElement.className = document.documentElement.className \
             .replace(/\\b(light|rust|coal|navy|ayu)\\b/, '{theme}'); \
         const figure = '{anchor}'.match(/^figure-([0-9]+)$/); \
         const target = figure ? document.querySelectorAll('main figure')[figure[1] - 1] \
             : document.getElementById('{anchor}'); \
         if (target) target.scrollIntoView({{ block: 'center' }}); \
         Boolean(target) || '{anchor}' === ''"
    );
    let found = tab
        .evaluate(&theme_and_place, false)
        .map_err(|e| e.to_string())?
        .value
        .and_then(|value| value.as_bool())
        .unwrap_or(false);
    if !found {
        return Err(format!(
            "the page has no element `{anchor}` (an id, or figure-N)"
        ));
    }
    std::thread::sleep(Duration::from_millis(300));
    let png = tab
        .capture_screenshot(Page::CaptureScreenshotFormatOption::Png, None, None, true)
        .map_err(|e| e.to_string())?;
    std::fs::write(out, png).map_err(|e| format!("cannot write {}: {e}", out.display()))
}
