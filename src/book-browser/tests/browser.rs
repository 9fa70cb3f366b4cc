//! The woven book in a real browser: the book built with mdbook, opened in Chromium through the
//! DevTools protocol, and looked at as a reader would: no script errors, links in code that land on
//! what they name, a copy button that copies a whole chunk, readable colours in every theme, and
//! captions kept with their code on paper. Screenshots of each theme are left in
//! `target/tmp/book-screenshots` for a person to look at.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use headless_chrome::protocol::cdp::{Emulation, Page};
use headless_chrome::{Browser, Element, LaunchOptions, Tab};
use literate::{SourceText, Web};
use serde_json::Value;

/// The themes mdbook offers.
const THEMES: [&str; 5] = ["light", "rust", "coal", "navy", "ayu"];
/// WCAG AA's least contrast for text.
const READABLE: f64 = 4.5;

/// Watches every page from its first script on: errors and `console.error` calls, and what a copy
/// puts on the clipboard (mdbook's copy button copies the text of a hidden text area it selects).
const WATCH: &str = r#"
window.__problems = [];
window.addEventListener("error", (e) => window.__problems.push(String(e.message)));
const reportError = console.error.bind(console);
console.error = (...args) => { window.__problems.push(args.join(" ")); reportError(...args); };
document.addEventListener("copy", () => {
    const area = document.activeElement;
    window.__copied = area && "value" in area
        ? area.value.substring(area.selectionStart, area.selectionEnd)
        : String(document.getSelection());
}, true);
"#;

/// The contrast of an element's text against what lies behind it, computed in the page.
const CONTRAST: &str = r#"
function luminance(rgb) {
    const [r, g, b] = rgb.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function rgba(colour) { return colour.match(/[\d.]+/g).map(Number); }
function background(element) {
    for (let e = element; e; e = e.parentElement) {
        const c = rgba(getComputedStyle(e).backgroundColor);
        if (c.length < 4 || c[3] > 0) { return c.slice(0, 3); }
    }
    return [255, 255, 255];
}
function contrast(element) {
    const a = luminance(rgba(getComputedStyle(element).color).slice(0, 3));
    const b = luminance(background(element));
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}
"#;

fn crate_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The book, built once for all the tests of this file.
fn book() -> &'static Path {
    static BOOK: OnceLock<PathBuf> = OnceLock::new();
    BOOK.get_or_init(|| {
        let dest = Path::new(env!("CARGO_TARGET_TMPDIR")).join("book-in-browser");
        let _ = fs::remove_dir_all(&dest);
        let mut mdbook = Command::new("mdbook");
        literate::cargo_command::forget_the_program_cargo_ran(&mut mdbook);
        let output = mdbook
            .args(["build", "book", "--dest-dir"])
            .arg(&dest)
            .current_dir(crate_dir())
            .output()
            .expect("mdbook runs (bash .ci/run installs it)");
        assert!(
            output.status.success(),
            "mdbook build failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        dest
    })
}

fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("book-screenshots");
    fs::create_dir_all(&dir).expect("a directory for screenshots");
    dir
}

/// Debian's Chromium, or the browser `CHROMIUM` names.
fn browser() -> Browser {
    let path = std::env::var_os("CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    let options = LaunchOptions::default_builder()
        .path(Some(path))
        .sandbox(false)
        .window_size(Some((1200, 1400)))
        .idle_browser_timeout(Duration::from_secs(120))
        .build()
        .expect("launch options");
    Browser::new(options).expect("Chromium starts (bash .ci/run installs it)")
}

/// A tab that watches for problems and copies, on page `path` of the book.
fn open(browser: &Browser, path: &str) -> Arc<Tab> {
    let tab = browser.new_tab().expect("a tab");
    tab.call_method(Page::AddScriptToEvaluateOnNewDocument {
        source: WATCH.to_string(),
        world_name: None,
        include_command_line_api: None,
        run_immediately: None,
    })
    .expect("the watch script is installed");
    go(&tab, path);
    tab
}

/// Opens page `path` of the book in `tab`, and waits until it has loaded: its document is a new
/// one, at that page, and complete (every script of the page has run, the weaver's links included).
/// The tab's own wait for a navigation would also wait for the network to be idle for half a
/// second, which a book of local files never needs, on every one of the hundreds of pages these
/// tests open.
fn go(tab: &Tab, path: &str) {
    let url = format!(
        "file://{}/{path}",
        fs::canonicalize(book()).unwrap().display()
    );
    eval(tab, "window.__left = true");
    tab.navigate_to(&url).expect("the page loads");
    let loaded = format!(
        "!window.__left && document.readyState === 'complete' && decodeURIComponent(location.pathname).endsWith({:?})",
        format!("/{path}")
    );
    for _ in 0..3000 {
        if tab.evaluate(&loaded, false).ok().and_then(|r| r.value) == Some(Value::Bool(true)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("{path} did not load within 30 s");
}

fn eval(tab: &Tab, expression: &str) -> Value {
    let result = tab
        .evaluate(expression, false)
        .unwrap_or_else(|e| panic!("{expression}: {e}"));
    result.value.unwrap_or(Value::Null)
}

fn problems(tab: &Tab) -> Vec<String> {
    let value = eval(
        tab,
        "JSON.stringify(window.__problems || ['the watch script did not run'])",
    );
    serde_json::from_str(value.as_str().unwrap_or("[]")).unwrap_or_default()
}

/// Whether the element the page's address points at (`#id`) is on screen, waiting a little for the
/// browser to scroll there.
fn target_is_visible(tab: &Tab) -> bool {
    let check =
        "(() => { const e = document.getElementById(decodeURIComponent(location.hash.slice(1)));
        if (!e) { return 'no element ' + location.hash; }
        const r = e.getBoundingClientRect();
        return r.height > 0 && r.bottom > 0 && r.top < innerHeight ? true
            : 'at ' + r.top + '..' + r.bottom + ' of ' + innerHeight; })()";
    for _ in 0..20 {
        if eval(tab, check) == Value::Bool(true) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    eprintln!("{}: {}", tab.get_url(), eval(tab, check));
    false
}

/// What hovering an element shows: its `title`.
fn title_of(element: &Element) -> String {
    let title = element
        .get_attribute_value("title")
        .expect("the element's title");
    title.unwrap_or_default()
}

/// Clicks a link and checks that the page it opens is at `address` (a part of its URL), with the
/// element the address names on screen, and no script error.
fn follow(tab: &Tab, link: &Element, address: &str) {
    link.click().expect("a click");
    for _ in 0..50 {
        if tab.get_url().contains(address) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    tab.wait_until_navigated().expect("the page loads");
    assert!(
        tab.get_url().contains(address),
        "{} is not at {address}",
        tab.get_url()
    );
    assert!(
        target_is_visible(tab),
        "{address}: the element is on screen"
    );
    assert_eq!(problems(tab), Vec::<String>::new(), "{address}");
}

/// Checks that the reference `selector` finds is followed by its chunk's chapter, as its `::after`
/// content, and on paper (`printed`) by the chunk's number too.
fn assert_names_its_chapter(tab: &Tab, selector: &str, printed: bool) {
    let expected = if printed {
        "'\" (' + e.dataset.where + ', §' + e.dataset.number + ')\"'"
    } else {
        "'\" (' + e.dataset.where + ')\"'"
    };
    let check = format!(
        "(() => {{ const e = document.querySelector(\"{selector}\");
            const after = getComputedStyle(e, '::after').content;
            return after === {expected} ? true : after; }})()"
    );
    let answer = eval(tab, &check);
    assert_eq!(answer, Value::Bool(true), "{selector}");
}

/// The pages of the book, from SUMMARY.md, as `.html` paths.
fn pages() -> Vec<String> {
    let summary = fs::read_to_string(crate_dir().join("book/src/SUMMARY.md")).unwrap();
    literate::chapter_links(&SourceText::new("SUMMARY.md", summary))
        .into_iter()
        .map(|(path, _)| path.replace(".md", ".html"))
        .collect()
}

#[test]
#[ignore = "needs mdbook and chromium: bash .ci/run installs them"]
fn every_page_loads_without_a_script_error_and_links_its_code() {
    let browser = browser();
    let tab = open(&browser, "index.html");
    for page in pages() {
        go(&tab, &page);
        assert_eq!(problems(&tab), Vec::<String>::new(), "{page}");
        let chunks = eval(&tab, "document.querySelectorAll('.chunk').length")
            .as_u64()
            .unwrap();
        let unlinked = eval(
            &tab,
            "Array.from(document.querySelectorAll('.chunk code .hljs-comment'))
                .filter((c) => /^\\/\\/\\s*<</.test(c.textContent) && !c.querySelector('a.chunk-ref'))
                .length",
        );
        assert_eq!(
            unlinked,
            Value::from(0),
            "{page}: {chunks} chunks, a reference left unlinked"
        );
    }
}

#[test]
#[ignore = "needs mdbook and chromium: bash .ci/run installs them"]
fn an_identifier_and_a_reference_land_on_what_they_name() {
    let browser = browser();
    let tab = open(&browser, "input.html");
    let identifier = tab
        .find_element("a.chunk-ident[title*='build_bfs_table']")
        .expect("build_bfs_table is linked in Handling Input");
    let title = title_of(&identifier);
    assert!(
        title.contains("⟨build the distance map⟩ in Searching Fast"),
        "{title}"
    );
    follow(
        &tab,
        &identifier,
        "search.html#chunk-build-the-distance-map-1",
    );

    go(&tab, "input.html");
    let reference = tab
        .find_element("a.chunk-ref[data-where='Tests']")
        .expect("a reference to a chunk of Tests");
    let title = title_of(&reference);
    assert!(title.ends_with("⟩ in Tests"), "{title}");
    let text = reference.get_inner_text().unwrap();
    assert!(text.starts_with("// <<") && text.ends_with(">>"), "{text}");
    assert_names_its_chapter(&tab, "a.chunk-ref[data-where='Tests']", false);
    follow(&tab, &reference, "tests.html#chunk-");
}

#[test]
#[ignore = "needs mdbook and chromium: bash .ci/run installs them"]
fn the_copy_button_copies_the_whole_chunk_as_written() {
    let chapter = fs::read_to_string(crate_dir().join("book/src/input.md")).unwrap();
    let (web, _) = Web::parse(vec![SourceText::new("input.md", chapter)]);
    let part = web
        .parts_of("file:input.rs")
        .next()
        .expect("the root of input.rs");
    let written: Vec<&str> = part.body.iter().map(|line| line.text.as_str()).collect();
    let expected = written.join("\n").trim().to_string();
    assert!(expected.contains("// <<key presses>>"));

    let browser = browser();
    let tab = open(&browser, "input.html");
    let button = tab
        .find_element(".chunk:has(#chunk-file-input-rs-1) .clip-button")
        .expect("the chunk has a copy button");
    button.click().expect("a click");
    std::thread::sleep(Duration::from_millis(300));
    let copied = eval(&tab, "window.__copied || ''");
    assert_eq!(copied.as_str().unwrap_or_default().trim(), expected);
}

#[test]
#[ignore = "needs mdbook and chromium: bash .ci/run installs them"]
fn captions_references_and_links_are_readable_in_every_theme() {
    let browser = browser();
    let tab = open(&browser, "input.html");
    let selectors = [
        ".chunk-caption a.chunk-name",
        ".chunk-caption a.chunk-part",
        ".chunk-caption .chunk-file",
        ".chunk-footer a",
        "a.chunk-ref",
        ".chunk-index a",
        ".identifier-index a",
    ];
    for theme in THEMES {
        for page in [
            "input.html",
            "chunks.html",
            "identifiers.html",
            "world.html",
        ] {
            eval(
                &tab,
                &format!("localStorage.setItem('mdbook-theme', '{theme}')"),
            );
            go(&tab, page);
            let applied = eval(
                &tab,
                &format!("document.documentElement.classList.contains('{theme}')"),
            );
            assert_eq!(applied, Value::Bool(true), "{page} in {theme}");
            for selector in selectors {
                let least = eval(
                    &tab,
                    &format!(
                        "{CONTRAST} Math.min(...Array.from(document.querySelectorAll('{selector}')).slice(0, 200).map(contrast))"
                    ),
                );
                let Some(least) = least.as_f64() else {
                    continue;
                };
                assert!(
                    least >= READABLE,
                    "{selector} in {theme} on {page}: {least:.2}:1"
                );
            }
            let padding = eval(
                &tab,
                "(() => { const f = document.querySelector('figure.chunk-figure svg');
                    return f ? parseFloat(getComputedStyle(f).paddingLeft) : 1; })()",
            );
            assert!(
                padding.as_f64().unwrap_or(0.0) > 0.0,
                "figures sit on a card with room in {theme}"
            );
        }
        go(&tab, "world.html");
        let png = tab
            .capture_screenshot(Page::CaptureScreenshotFormatOption::Png, None, None, true)
            .expect("a screenshot");
        fs::write(screenshots().join(format!("world-{theme}.png")), png).unwrap();
    }
    eval(&tab, "localStorage.removeItem('mdbook-theme')");
}

#[test]
#[ignore = "needs mdbook and chromium: bash .ci/run installs them"]
fn on_paper_a_caption_stays_with_its_code_and_references_name_their_chapter() {
    let browser = browser();
    let tab = open(&browser, "input.html");
    tab.call_method(Emulation::SetEmulatedMedia {
        media: Some("print".to_string()),
        features: None,
    })
    .expect("print media");
    let style = |selector: &str, property: &str| {
        eval(
            &tab,
            &format!("getComputedStyle(document.querySelector('{selector}')).{property}"),
        )
    };
    assert_eq!(style(".chunk-caption", "breakAfter"), Value::from("avoid"));
    assert_eq!(style(".chunk", "breakInside"), Value::from("avoid"));
    assert_eq!(style(".chunk pre", "breakBefore"), Value::from("avoid"));
    assert_names_its_chapter(&tab, "a.chunk-ref[data-where]", true);
    let pdf = tab.print_to_pdf(None).expect("a PDF");
    fs::write(screenshots().join("input.pdf"), pdf).unwrap();
}

#[test]
#[ignore = "needs mdbook and chromium: bash .ci/run installs them"]
fn searching_for_a_chunks_name_lands_on_the_chunk() {
    let browser = browser();
    let tab = open(&browser, "world.html");
    tab.find_element("#mdbook-search-toggle")
        .expect("a search button")
        .click()
        .unwrap();
    tab.wait_until_visible("#mdbook-searchbar")
        .expect("the search bar opens")
        .click()
        .unwrap();
    tab.type_str("key presses").unwrap();
    let result = tab
        .wait_for_element("#mdbook-searchresults a[href*='#chunk-key-presses-1']")
        .expect("a result for the chunk ⟨key presses⟩");
    let teaser = eval(
        &tab,
        "document.querySelector(\"#mdbook-searchresults a[href*='#chunk-key-presses-1']\").closest('li').innerText",
    );
    let teaser = teaser.as_str().unwrap_or_default();
    assert!(teaser.contains("⟨key presses⟩"), "{teaser}");
    for noise in ["parts 1", "next ▸", "◂ previous", "OUT_DIR"] {
        assert!(
            !teaser.contains(noise),
            "the snippet says {noise:?}: {teaser}"
        );
    }
    follow(&tab, &result, "#chunk-key-presses-1");
    assert!(tab.get_url().contains("input.html"), "{}", tab.get_url());
}

/// What overflows the column at the width the page has: figures and code blocks that reach past
/// the sides of the text column (where `main`'s paragraphs stand, and never past the window), code
/// blocks too wide for themselves that do not scroll, and a page wider than the window.
const OVERFLOWS: &str = r#"(() => {
    const text = (document.querySelector("main > p") || document.querySelector("main")).getBoundingClientRect();
    const column = { left: Math.max(text.left, 0), right: Math.min(text.right, window.innerWidth) };
    const outside = (e) => { const r = e.getBoundingClientRect(); return r.left < column.left - 1 || r.right > column.right + 1; };
    const found = [];
    document.querySelectorAll("figure.chunk-figure svg").forEach((svg, i) => { if (outside(svg)) found.push("figure " + (i + 1) + " reaches past the column"); });
    document.querySelectorAll("pre").forEach((pre, i) => {
        if (outside(pre)) found.push("code block " + (i + 1) + " reaches past the column");
        const scrolls = ["auto", "scroll"].includes(getComputedStyle(pre).overflowX);
        if (pre.scrollWidth > pre.clientWidth && !scrolls) found.push("code block " + (i + 1) + " is cut, not scrolled");
    });
    if (document.documentElement.scrollWidth > window.innerWidth) found.push("the page is " + document.documentElement.scrollWidth + " px wide");
    return JSON.stringify(found);
})()"#;

#[test]
#[ignore = "needs mdbook and chromium: bash .ci/run installs them"]
fn at_a_phone_width_every_figure_fits_and_code_scrolls_inside_itself() {
    let browser = browser();
    let tab = open(&browser, "index.html");
    tab.call_method(Emulation::SetDeviceMetricsOverride {
        width: 390,
        height: 844,
        device_scale_factor: 1.0,
        mobile: true,
        scale: None,
        screen_width: None,
        screen_height: None,
        position_x: None,
        position_y: None,
        dont_set_visible_size: None,
        screen_orientation: None,
        viewport: None,
        display_feature: None,
        device_posture: None,
    })
    .expect("a phone's width");
    let mut overflows = Vec::new();
    for page in pages() {
        go(&tab, &page);
        let found = eval(&tab, OVERFLOWS);
        let found: Vec<String> = serde_json::from_str(found.as_str().expect("a JSON list"))
            .expect("a list of what overflows");
        overflows.extend(found.into_iter().map(|what| format!("{page}: {what}")));
    }
    go(&tab, "world.html");
    let png = tab
        .capture_screenshot(Page::CaptureScreenshotFormatOption::Png, None, None, true)
        .expect("a screenshot");
    fs::write(screenshots().join("world-390px.png"), png).unwrap();
    assert!(
        overflows.is_empty(),
        "at 390 px wide:\n{}",
        overflows.join("\n")
    );
}
