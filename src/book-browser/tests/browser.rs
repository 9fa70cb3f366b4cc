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

use headless_chrome::browser::tab::ModifierKey;
use headless_chrome::protocol::cdp::{
    Accessibility, Browser as Permissions, Emulation, Input, Page,
};
use headless_chrome::{Browser, Element, LaunchOptions, Tab};
use litbook::{SourceText, Web};
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
        litbook::cargo_command::forget_the_program_cargo_ran(&mut mdbook);
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

/// Debian's Chromium, or the browser `CHROMIUM` names. The book is built first: a browser left idle
/// while another test builds it would close its connection.
fn browser() -> Browser {
    book();
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
    litbook::chapter_links(&SourceText::new("SUMMARY.md", summary))
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

    go(&tab, "files.html");
    let appendix = "a.chunk-ref[data-where^='The original']";
    let reference = tab
        .find_element(appendix)
        .expect("a reference to a chunk of the appendix The original's tests");
    let title = title_of(&reference);
    assert!(title.ends_with("⟩ in The original's tests"), "{title}");
    let text = reference.get_inner_text().unwrap();
    assert!(text.starts_with("// <<") && text.ends_with(">>"), "{text}");
    assert_names_its_chapter(&tab, appendix, false);
    follow(&tab, &reference, "original-tests.html#chunk-");
}

/// Each linked identifier of a page that is not linked to what it certainly names: a field
/// (`.name` with no call), a method the standard library's types have too (`.map(`), or
/// `Type::name` linked to another type's item.
const UNCERTAIN_LINKS: &str = "JSON.stringify([...document.querySelectorAll('a.chunk-ident')]
    .map((a) => {
        const code = a.closest('code');
        const range = document.createRange();
        range.setStart(code, 0);
        range.setEndBefore(a);
        const before = range.toString().trimEnd();
        range.setStartAfter(a);
        range.setEnd(code, code.childNodes.length);
        const after = range.toString().trimStart();
        const name = a.textContent;
        const owner = before.match(/([A-Z][A-Za-z0-9_]*)\\s*::$/);
        if (before.endsWith('.') && !after.startsWith('(') && !after.startsWith('::<')) {
            return 'a field .' + name + ' linked as ' + a.title;
        }
        if (before.endsWith('.') && ['map', 'push', 'pop', 'new', 'iter', 'get'].includes(name)) {
            return 'a call .' + name + '( linked as ' + a.title;
        }
        if (owner && owner[1] !== 'Self' && !a.title.includes(owner[1] + '::' + name)) {
            return owner[1] + '::' + name + ' linked as ' + a.title;
        }
        return null;
    })
    .filter((wrong) => wrong))";

#[test]
#[ignore = "needs mdbook and chromium: bash .ci/run installs them"]
fn identifiers_are_linked_only_to_what_they_certainly_name() {
    let browser = browser();
    let tab = open(&browser, "world.html");
    let mut wrong = Vec::new();
    let pages = [
        "world",
        "graph",
        "bfs",
        "images",
        "placing",
        "perfect-cats-escape",
        "solver",
    ];
    for page in pages {
        go(&tab, &format!("{page}.html"));
        wrong.extend(found_on(&tab, page, UNCERTAIN_LINKS));
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    go(&tab, "graph.html");
    let calls = eval(
        &tab,
        "[...document.querySelectorAll('code')].filter((c) => /\\.map\\(/.test(c.textContent)).length",
    );
    assert_ne!(
        calls,
        Value::from(0),
        "Board to Graph calls .map(, which is left unlinked"
    );
}

#[test]
#[ignore = "needs mdbook and chromium: bash .ci/run installs them"]
fn the_copy_button_copies_the_whole_chunk_as_written() {
    let chapter = fs::read_to_string(crate_dir().join("book/src/files.md")).unwrap();
    let (web, _) = Web::parse(vec![SourceText::new("files.md", chapter)]);
    let part = web
        .parts_of("file:input.rs")
        .next()
        .expect("the root of input.rs");
    let written: Vec<&str> = part.body.iter().map(|line| line.text.as_str()).collect();
    let expected = written.join("\n").trim().to_string();
    assert!(expected.contains("// <<key presses>>"));

    let browser = browser();
    let tab = open(&browser, "files.html");
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
    let tab = open(&browser, "files.html");
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
    fs::write(screenshots().join("files.pdf"), pdf).unwrap();
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
/// the sides of the text column (where `main`'s paragraphs stand, and never past the window; a
/// picture that keeps its own size may be wider, inside a box that fits and scrolls), code
/// blocks too wide for themselves that do not scroll, and a page wider than the window.
const OVERFLOWS: &str = r#"(() => {
    const text = (document.querySelector("main > p") || document.querySelector("main")).getBoundingClientRect();
    const column = { left: Math.max(text.left, 0), right: Math.min(text.right, window.innerWidth) };
    const outside = (e) => { const r = e.getBoundingClientRect(); return r.left < column.left - 1 || r.right > column.right + 1; };
    const found = [];
    document.querySelectorAll("figure.chunk-figure svg").forEach((svg, i) => {
        const scroller = svg.closest(".at-its-own-size");
        const scrolls = scroller && ["auto", "scroll"].includes(getComputedStyle(scroller).overflowX);
        if (outside(scrolls ? scroller : svg)) found.push("figure " + (i + 1) + " reaches past the column");
    });
    document.querySelectorAll("pre").forEach((pre, i) => {
        if (outside(pre)) found.push("code block " + (i + 1) + " reaches past the column");
        const scrolls = ["auto", "scroll"].includes(getComputedStyle(pre).overflowX);
        if (pre.scrollWidth > pre.clientWidth && !scrolls) found.push("code block " + (i + 1) + " is cut, not scrolled");
    });
    document.querySelectorAll("main table").forEach((table, i) => {
        const box = table.closest(".table-wrapper") || table;
        const scrolls = ["auto", "scroll"].includes(getComputedStyle(box).overflowX);
        if (outside(box)) found.push("table " + (i + 1) + " reaches past the column");
        if (box.scrollWidth > box.clientWidth + 1 && !scrolls) found.push("table " + (i + 1) + " is cut, not scrolled");
        table.querySelectorAll("tr").forEach((row, j) => {
            const height = row.getBoundingClientRect().height;
            if (height > 120) found.push("row " + (j + 1) + " of table " + (i + 1) + " is " + Math.round(height) + " px tall");
        });
    });
    if (document.documentElement.scrollWidth > window.innerWidth) found.push("the page is " + document.documentElement.scrollWidth + " px wide");
    return JSON.stringify(found);
})()"#;

/// The code blocks of a page that scroll sideways, each with its widest line's length in characters
/// and how many characters the block shows.
const SIDEWAYS_CODE: &str = r#"(() => {
    const found = [];
    document.querySelectorAll("main pre").forEach((pre, i) => {
        const code = pre.querySelector("code") || pre;
        if (code.scrollWidth <= code.clientWidth + 1) return;
        const probe = document.createElement("span");
        probe.textContent = "x".repeat(100);
        code.appendChild(probe);
        const character = probe.getBoundingClientRect().width / 100;
        probe.remove();
        const style = getComputedStyle(code);
        const room = code.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        const widest = Math.max(...code.textContent.split("\n").map((line) => line.length));
        found.push("code block " + (i + 1) + " scrolls: a line of " + widest + " characters where " + Math.floor(room / character) + " show");
    });
    return JSON.stringify(found);
})()"#;

#[test]
#[ignore = "needs mdbook and chromium: bash .ci/run installs them"]
fn at_a_phone_width_every_figure_fits_and_code_scrolls_inside_itself() {
    let browser = browser();
    let tab = open(&browser, "index.html");
    book_browser::window_size(&tab, (390, 844));
    let mut overflows = Vec::new();
    for page in pages() {
        go(&tab, &page);
        overflows.extend(found_on(&tab, &page, OVERFLOWS));
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
    go(&tab, "study-found.html");
    let whole = "(t => t.scrollWidth <= t.clientWidth + 1)(
        document.querySelector('main table').closest('.table-wrapper'))";
    assert_eq!(
        eval(&tab, whole),
        Value::Bool(true),
        "What was found's table scrolls at 390 px"
    );
}

/// What `script` (one of the checks above, which answer a JSON list) finds on `page`, open in
/// `tab`, each as "PAGE: WHAT".
fn found_on(tab: &Tab, page: &str, script: &str) -> Vec<String> {
    let found = eval(tab, script);
    let found: Vec<String> = serde_json::from_str(found.as_str().expect("a JSON list"))
        .expect("a list of what the check found");
    found
        .into_iter()
        .map(|what| format!("{page}: {what}"))
        .collect()
}

/// The pages of Part I, the game, as `SUMMARY.md` lists them.
fn part_one() -> Vec<String> {
    let summary = fs::read_to_string(crate_dir().join("book/src/SUMMARY.md")).unwrap();
    let part: String = summary
        .split("\n# ")
        .find(|part| part.starts_with("Part I "))
        .expect("SUMMARY.md has a Part I")
        .to_string();
    litbook::chapter_links(&SourceText::new("SUMMARY.md", part))
        .into_iter()
        .map(|(path, _)| path.replace(".md", ".html"))
        .collect()
}

/// The tallest a page of Part I may be at 1280 px, in CSS pixels: a chapter a reader gets through
/// at one sitting.
const PART_ONE_PAGE_HEIGHT: f64 = 8_000.0;

#[test]
#[ignore = "needs mdbook and chromium: bash .ci/run installs them"]
fn at_a_laptop_width_no_code_scrolls_sideways_and_part_one_s_pages_are_short() {
    let browser = browser();
    let tab = open(&browser, "index.html");
    book_browser::window_size(&tab, (1280, 800));
    let mut sideways = Vec::new();
    let part_one = part_one();
    assert!(part_one.len() >= 10, "Part I's chapters: {part_one:?}");
    for page in pages() {
        go(&tab, &page);
        sideways.extend(found_on(&tab, &page, SIDEWAYS_CODE));
        let height = eval(&tab, "document.documentElement.scrollHeight")
            .as_f64()
            .unwrap();
        if part_one.contains(&page) && height > PART_ONE_PAGE_HEIGHT {
            sideways.push(format!(
                "{page}: {height} px tall, more than Part I's {PART_ONE_PAGE_HEIGHT}"
            ));
        }
    }
    assert!(
        sideways.is_empty(),
        "at 1280 px wide, in the default theme:\n{}",
        sideways.join("\n")
    );
}

/// The built book, served over HTTP for as long as the tests run.
fn serve_the_book() -> u16 {
    static PORT: OnceLock<u16> = OnceLock::new();
    *PORT.get_or_init(|| book_browser::serve(&fs::canonicalize(book()).unwrap()))
}

/// Opens `path` (with its `#…`) of the served book in a new tab at `width` × `height`, and waits
/// for its first live board to draw.
fn open_served(browser: &Browser, path: &str, (width, height): (u32, u32)) -> Arc<Tab> {
    let wasm = crate_dir().join("book/src/play/chat_noir.wasm");
    assert!(
        wasm.is_file(),
        "{} is missing: `bash .ci/web --wasm-only` builds the game for the web",
        wasm.display()
    );
    let tab = browser.new_tab().expect("a tab");
    tab.call_method(Page::AddScriptToEvaluateOnNewDocument {
        source: WATCH.to_string(),
        world_name: None,
        include_command_line_api: None,
        run_immediately: None,
    })
    .expect("the watch script is installed");
    book_browser::window_size(&tab, (width, height));
    let url = format!("http://127.0.0.1:{}/{path}", serve_the_book());
    tab.navigate_to(&url).expect("the page loads");
    tab.wait_until_navigated().expect("the page loads");
    let drawn = "(() => { const c = document.querySelector('canvas.chat-noir-live'); return !!c && c.width > 0; })()";
    for _ in 0..3000 {
        if eval(&tab, drawn) == Value::Bool(true) {
            return tab;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!(
        "{path}: no live board within 30 s; problems: {:?}",
        problems(&tab)
    );
}

/// The canvas of the page's first live board: where it is in the page, and its size.
fn live_canvas(tab: &Tab) -> [f64; 4] {
    let rect = eval(
        tab,
        "(() => { const c = document.querySelector('canvas.chat-noir-live'); c.scrollIntoView({block: 'center'});
        const r = c.getBoundingClientRect(); return JSON.stringify([r.left, r.top, r.width, r.height]); })()",
    );
    serde_json::from_str(rect.as_str().expect("a JSON list")).expect("four numbers")
}

/// The world of the page's first live board, as `Debug` writes it.
fn page_world(tab: &Tab) -> String {
    let world = eval(
        tab,
        "document.querySelector('canvas.chat-noir-live').chatNoirWorld()",
    );
    world.as_str().expect("a world").to_string()
}

/// A page of the game, played natively beside the one in the browser: the same events at the same
/// points of a canvas of the same size.
struct Native {
    page: chat_noir::web::LiveBoard,
    canvas: [f64; 4],
    entered: bool,
}

impl Native {
    fn new(page: chat_noir::web::LiveBoard, canvas: [f64; 4]) -> Native {
        let mut native = Native {
            page,
            canvas,
            entered: false,
        };
        native
            .page
            .resize([canvas[2], canvas[3]], 1.0, chat_noir::image::WHITE)
            .expect("a canvas");
        native
    }

    /// The point of the page at the centre of cell `p`, for the browser; the native page takes
    /// the click there as the browser sends it: the pointer comes in, moves, presses and releases.
    fn click(&mut self, p: chat_noir::world::Posn) -> headless_chrome::browser::tab::point::Point {
        use chat_noir::input::MouseEvent;
        let at = self.centre(p);
        if !self.entered {
            self.page.mouse(at, MouseEvent::Enter);
            self.entered = true;
        }
        for evt in [
            MouseEvent::Move,
            MouseEvent::ButtonDown,
            MouseEvent::ButtonUp,
        ] {
            self.page.mouse(at, evt);
        }
        self.on_the_page(at)
    }

    /// The point of the page at the centre of cell `p`, tapped: a finger comes down on the canvas,
    /// and leaves it as it is lifted.
    fn tap(&mut self, p: chat_noir::world::Posn) -> headless_chrome::browser::tab::point::Point {
        use chat_noir::input::MouseEvent;
        let at = self.centre(p);
        for evt in [
            MouseEvent::Enter,
            MouseEvent::ButtonDown,
            MouseEvent::ButtonUp,
            MouseEvent::Leave,
        ] {
            self.page.mouse(at, evt);
        }
        self.on_the_page(at)
    }

    /// The centre of cell `p` on the canvas, in CSS pixels.
    fn centre(&self, p: chat_noir::world::Posn) -> [f64; 2] {
        use chat_noir::drawing::{cell_center_x, cell_center_y};
        let size = self.page.game().expect("a game").world.size;
        let view = chat_noir::play::fit(size, [self.canvas[2], self.canvas[3]]);
        [
            view.left + cell_center_x(p) * view.scale,
            view.top + cell_center_y(p) * view.scale,
        ]
    }

    /// A point of the canvas as a point of the page.
    fn on_the_page(&self, at: [f64; 2]) -> headless_chrome::browser::tab::point::Point {
        headless_chrome::browser::tab::point::Point {
            x: self.canvas[0] + at[0],
            y: self.canvas[1] + at[1],
        }
    }

    /// A free cell beside the cat, for the next click: the game goes on to its end.
    fn next_cell(&self) -> Option<chat_noir::world::Posn> {
        let world = &self.page.game().expect("a game").world;
        let free = |p: &chat_noir::world::Posn| {
            world.board.iter().any(|c| c.p == *p && !c.blocked) && *p != world.cat
        };
        chat_noir::graph::adjacent(world.cat).into_iter().find(free)
    }
}

/// How a cell is chosen in the page: with the mouse's button, or with a finger.
#[derive(Clone, Copy, PartialEq)]
enum Pointer {
    Mouse,
    Finger,
}

/// A finger's touch of `kind` at `point` (none when it is lifted), as a phone's screen sends it.
fn touch(
    tab: &Tab,
    kind: Input::DispatchTouchEventTypeOption,
    point: Option<headless_chrome::browser::tab::point::Point>,
) {
    let finger = |point: headless_chrome::browser::tab::point::Point| Input::TouchPoint {
        x: point.x,
        y: point.y,
        radius_x: None,
        radius_y: None,
        rotation_angle: None,
        force: None,
        tangential_pressure: None,
        tilt_x: None,
        tilt_y: None,
        twist: None,
        id: None,
    };
    tab.call_method(Input::DispatchTouchEvent {
        Type: kind,
        touch_points: point.map(finger).into_iter().collect(),
        modifiers: None,
        timestamp: None,
    })
    .expect("a touch");
}

/// A tap of a finger at `point`.
fn tap(tab: &Tab, point: headless_chrome::browser::tab::point::Point) {
    touch(
        tab,
        Input::DispatchTouchEventTypeOption::TouchStart,
        Some(point),
    );
    touch(tab, Input::DispatchTouchEventTypeOption::TouchEnd, None);
}

/// Makes `tab`'s screen a touch screen, as a phone's.
fn a_touch_screen(tab: &Tab) {
    tab.call_method(Emulation::SetTouchEmulationEnabled {
        enabled: true,
        max_touch_points: Some(1),
    })
    .expect("a touch screen");
}

/// A game played in page `path` with `pointer` and the keys, at `width`, and natively beside it:
/// the deal, every cat's step, the cursor's keys, undo, redo and help give the same world; the
/// game's code is shown, in view, and put in the address; the code opened from the address replays the same
/// game.
fn play_in_the_page(browser: &Browser, path: &str, (width, height): (u32, u32), pointer: Pointer) {
    let code = "11-1-";
    let tab = open_served(browser, &format!("{path}#game={code}"), (width, height));
    if pointer == Pointer::Finger {
        a_touch_screen(&tab);
    }
    let canvas = live_canvas(&tab);
    let mut native = Native::new(chat_noir::web::LiveBoard::replay(code).unwrap(), canvas);
    assert_eq!(page_world(&tab), native.page.world(), "the deal of {code}");
    eval(
        &tab,
        "document.querySelector('canvas.chat-noir-live').focus()",
    );
    for key in ["ArrowRight", "ArrowUp", " ", "ArrowLeft", "Enter"] {
        tab.press_key(key).expect("a key");
        native.page.key(key, false, false);
        assert_eq!(
            page_world(&tab),
            native.page.world(),
            "after the key {key:?}"
        );
    }
    tab.press_key_with_modifiers("z", Some(&[ModifierKey::Ctrl]))
        .expect("Ctrl+Z");
    native.page.key("z", true, false);
    assert_eq!(page_world(&tab), native.page.world(), "after Ctrl+Z");
    let mut moves = 0;
    while let Some(cell) = native.next_cell().filter(|_| moves < 8) {
        let point = match pointer {
            Pointer::Mouse => {
                let point = native.click(cell);
                tab.click_point(point).expect("a click");
                point
            }
            Pointer::Finger => {
                let point = native.tap(cell);
                tap(&tab, point);
                point
            }
        };
        moves += 1;
        assert_eq!(
            page_world(&tab),
            native.page.world(),
            "after click {moves} at {cell:?} ({point:?})"
        );
    }
    for key in ["u", "u", "r", "h"] {
        tab.press_key(key).expect("a key");
        native.page.key(key, false, false);
        assert_eq!(page_world(&tab), native.page.world(), "after the key {key}");
    }
    eval(&tab, "window.scrollTo({ top: 0, behavior: 'instant' })");
    tab.press_key("s").expect("the key s");
    let in_view = "(() => { const r = document.querySelector('.chat-noir-code')
        .getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()";
    assert!(
        wait_until(&tab, in_view),
        "the code s shows is out of view at {width} px"
    );
    let shown = native.page.code();
    let said = eval(
        &tab,
        "document.querySelector('.chat-noir-code').textContent",
    );
    assert!(
        said.as_str().is_some_and(|s| s.contains(&shown)),
        "{said} shows {shown}"
    );
    let address = eval(&tab, "location.hash");
    assert_eq!(address.as_str(), Some(format!("#game={shown}").as_str()));
    let status = eval(
        &tab,
        "document.querySelector('.chat-noir-status').textContent",
    );
    let coarse = eval(&tab, "matchMedia('(pointer: coarse)').matches") == Value::Bool(true);
    assert_eq!(
        coarse,
        pointer == Pointer::Finger,
        "a touch screen's pointer is coarse"
    );
    assert_eq!(status.as_str(), Some(native.page.status(!coarse).as_str()));
    let png = tab
        .capture_screenshot(Page::CaptureScreenshotFormatOption::Png, None, None, true)
        .expect("a screenshot");
    let name = path.trim_end_matches(".html");
    fs::write(
        screenshots().join(format!("game-{name}-{width}px.png")),
        png,
    )
    .unwrap();
    assert_eq!(problems(&tab), Vec::<String>::new(), "at {width} px");
    let shared = open_served(browser, &format!("{path}#game={shown}"), (width, height));
    let replayed = chat_noir::web::LiveBoard::replay(&shown).unwrap();
    assert_eq!(
        page_world(&shared),
        replayed.world(),
        "the shared game {shown}"
    );
    assert_eq!(problems(&shared), Vec::<String>::new(), "at {width} px");
}

/// What the page last told a listener of the game (its live region).
fn said(tab: &Tab) -> String {
    let said = eval(tab, "document.querySelector('.chat-noir-said').textContent");
    said.as_str().expect("words").to_string()
}

/// The role and the name the accessibility tree gives the element `selector` finds. (Only its
/// own node is asked for: the whole tree holds properties of ignored nodes that this version of
/// the protocol's types cannot read.)
fn role_and_name(tab: &Tab, selector: &str) -> (String, String) {
    let element = tab.find_element(selector).expect("the element");
    let nodes = tab
        .call_method(Accessibility::GetPartialAXTree {
            node_id: None,
            backend_node_id: Some(element.backend_node_id),
            object_id: None,
            fetch_relatives: Some(false),
        })
        .expect("the element's accessibility node")
        .nodes;
    let value = |v: &Option<Accessibility::AXValue>| {
        (v.as_ref().and_then(|v| v.value.as_ref()))
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    };
    let node = nodes.first().expect("a node");
    (value(&node.role), value(&node.name))
}

/// Presses `key` on the page and on the native game beside it; what the page then tells a
/// listener, which must be what the native game tells.
fn press_and_hear(tab: &Tab, native: &mut chat_noir::web::LiveBoard, key: &str) -> String {
    tab.press_key(key).expect("a key");
    native.key(key, false, false);
    let told = native.tell();
    assert_eq!(said(tab), told, "after the key {key:?}");
    assert_eq!(page_world(tab), native.world(), "after the key {key:?}");
    told
}

/// "row R, column C", as the page names a cell for a listener.
fn heard_cell(p: chat_noir::world::Posn) -> String {
    format!("row {}, column {}", p.y + 1, p.x + 1)
}

/// A reader who cannot see the board plays a game to its end with the keyboard alone: the first Tab
/// reaches a link to the board and Enter takes the focus there; the accessibility tree names the
/// board with its keys; `h` is told showing and hiding the cat's paths, `?` the keys and Esc their
/// putting away, `m` the moves shown still and moving again; the arrows walk the cursor to a
/// free cell beside the cat, each step told, and Space blocks it, told with the cat's step; the end
/// is told. Then Tab reaches the button that copies the game's link, which Enter presses: the link
/// that replays the game is on the clipboard, and the listener is told; a new game from the button
/// is told as well.
#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn a_game_plays_by_the_keyboard_alone_and_every_move_is_told() {
    let browser = browser();
    let code = "11-1-";
    let tab = open_served(&browser, &format!("index.html#game={code}"), (1200, 1400));
    let (role, name) = role_and_name(&tab, "canvas.chat-noir-live");
    assert_eq!(role, "application");
    assert!(
        name.contains("Arrow keys") && name.contains("Space"),
        "{name}"
    );
    let on_the_board = "document.activeElement.matches('canvas.chat-noir-live')";
    tab.press_key("Tab").expect("Tab");
    let (role, name) = role_and_name(&tab, "a.chat-noir-skip");
    assert_eq!(
        (role.as_str(), name.as_str()),
        ("link", "Skip to the game's board")
    );
    let on_the_link = "document.activeElement.matches('a.chat-noir-skip')";
    assert_eq!(eval(&tab, on_the_link), Value::Bool(true), "the first Tab");
    tab.press_key("Enter").expect("Enter");
    assert_eq!(
        eval(&tab, on_the_board),
        Value::Bool(true),
        "Enter on the link"
    );
    let mut native = chat_noir::web::LiveBoard::replay(code).unwrap();
    native.tell();
    for shown in ["shown", "hidden"] {
        let told = press_and_hear(&tab, &mut native, "h");
        assert_eq!(told, format!("The cat's shortest paths are {shown}."));
    }
    let keys = press_and_hear(&tab, &mut native, "?");
    assert!(keys.contains("hide these keys"), "{keys}");
    let put_away = press_and_hear(&tab, &mut native, "Escape");
    assert_eq!(put_away, "The keys are put away.");
    for shown in ["still", "moving"] {
        let told = press_and_hear(&tab, &mut native, "m");
        assert_eq!(told, format!("The moves are shown {shown}."));
    }
    let mut moves = 0;
    while native.game().unwrap().world.state == chat_noir::world::State::Playing {
        let world = &native.game().unwrap().world;
        let free = |p: &chat_noir::world::Posn| {
            world.board.iter().any(|c| c.p == *p && !c.blocked) && *p != world.cat
        };
        let Some(target) = chat_noir::graph::adjacent(world.cat).into_iter().find(free) else {
            break;
        };
        for _ in 0..40 {
            let cursor = native.game().unwrap().cursor().0;
            let key = match () {
                _ if target.y < cursor.y => "ArrowUp",
                _ if target.y > cursor.y => "ArrowDown",
                _ if target.x < cursor.x => "ArrowLeft",
                _ if target.x > cursor.x => "ArrowRight",
                _ => break,
            };
            let told = press_and_hear(&tab, &mut native, key);
            let now = native.game().unwrap().cursor().0;
            assert!(
                told.starts_with("Row") && told.contains(&heard_cell(now)[1..]),
                "{told}"
            );
        }
        let told = press_and_hear(&tab, &mut native, " ");
        let cat = native.game().unwrap().world.cat;
        assert!(
            told.contains(&format!("blocked {}", heard_cell(target)))
                && told.contains(&heard_cell(cat)),
            "{told}"
        );
        moves += 1;
        assert!(moves < 60, "the game never ended");
    }
    let end = said(&tab);
    assert!(end.contains("trapped") || end.contains("escaped"), "{end}");
    copy_the_link_by_keyboard(&tab, &native.game().unwrap().code().to_string());
    eval(&tab, "document.querySelector('.chat-noir-new').click()");
    wait_for_status(&tab, "Chat Noir: move 1,").expect("a new game from the button");
    let new_game = said(&tab);
    assert!(
        new_game.starts_with("A new game: the cat is on"),
        "{new_game}"
    );
    assert_eq!(problems(&tab), Vec::<String>::new());
}

/// Tabs from the board to the button that copies the game's link, shown now that the game is
/// over, and presses it with Enter; the clipboard must hold the link that replays the game whose
/// `code` is given, and the listener be told.
fn copy_the_link_by_keyboard(tab: &Tab, code: &str) {
    let clipboard = [
        Permissions::PermissionType::ClipboardReadWrite,
        Permissions::PermissionType::ClipboardSanitizedWrite,
    ];
    tab.call_method(Permissions::GrantPermissions {
        permissions: clipboard.to_vec(),
        origin: None,
        browser_context_id: None,
    })
    .expect("the clipboard allowed");
    let (role, name) = role_and_name(tab, "button.chat-noir-copy");
    assert_eq!(
        (role.as_str(), name.as_str()),
        ("button", "Copy the link to this game")
    );
    let on_the_button = "document.activeElement.matches('button.chat-noir-copy')";
    for _ in 0..10 {
        if eval(tab, on_the_button) == Value::Bool(true) {
            break;
        }
        tab.press_key("Tab").expect("Tab");
    }
    assert_eq!(
        eval(tab, on_the_button),
        Value::Bool(true),
        "Tab reaches the button"
    );
    tab.press_key("Enter").expect("Enter");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(said(tab), "The link to this game is copied.");
    let copied = tab
        .evaluate("navigator.clipboard.readText()", true)
        .expect("the clipboard read")
        .value;
    let link = copied.as_ref().and_then(Value::as_str).unwrap_or_default();
    assert!(link.ends_with(&format!("index.html#game={code}")), "{link}");
}

/// On a phone's page, played with a finger: a tap in the gap under a free cell beside the cat
/// blocks that cell, as the library takes it natively; the sizes offered are those with cells 24
/// CSS pixels apart at least; and nothing scrolls the page sideways.
#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn a_phone_s_board_takes_a_finger_s_taps_and_offers_the_sizes_it_can_play() {
    use chat_noir::drawing::{CIRCLE_RADIUS, cell_center_x, cell_center_y};
    use chat_noir::input::MouseEvent;
    let browser = browser();
    let code = "11-1-";
    let tab = open_served(&browser, &format!("index.html#game={code}"), (390, 844));
    a_touch_screen(&tab);
    let canvas = live_canvas(&tab);
    let mut native = Native::new(chat_noir::web::LiveBoard::replay(code).unwrap(), canvas);
    let cell = native.next_cell().expect("a free cell beside the cat");
    let view = chat_noir::play::fit(11, [canvas[2], canvas[3]]);
    let gap = [
        view.left + view.scale * cell_center_x(cell),
        view.top + view.scale * (cell_center_y(cell) + CIRCLE_RADIUS + 1.0),
    ];
    let reached = native.page.within_reach(gap);
    for evt in [
        MouseEvent::Enter,
        MouseEvent::ButtonDown,
        MouseEvent::ButtonUp,
        MouseEvent::Leave,
    ] {
        native.page.mouse(reached, evt);
    }
    tap(&tab, native.on_the_page(gap));
    assert_eq!(
        page_world(&tab),
        native.page.world(),
        "after a tap in the gap"
    );
    let world = &native.page.game().unwrap().world;
    assert!(
        world.board.iter().any(|c| c.p == cell && c.blocked),
        "{cell:?} blocked"
    );
    let offered = offered_sizes(&tab);
    let playable = |size: &f64| canvas[2] / (size + 0.5) >= 24.0;
    assert!(
        offered.contains(&11.0) && offered.iter().all(playable),
        "{offered:?}"
    );
    assert!(!offered.contains(&101.0), "{offered:?}");
    let sideways = "document.documentElement.scrollWidth > document.documentElement.clientWidth";
    assert_eq!(
        eval(&tab, sideways),
        Value::Bool(false),
        "the page scrolls sideways"
    );
    assert_eq!(problems(&tab), Vec::<String>::new());
}

/// When the reader zooms to 200 %, the page's CSS pixels are twice as large: the window is half as
/// many of them wide, and each is two of the screen's. The board is drawn again with two of the
/// canvas's pixels to each of its CSS pixels, so it stays sharp.
#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn a_board_stays_sharp_when_the_reader_zooms() {
    let browser = browser();
    let tab = open_served(&browser, "index.html", (1200, 1400));
    let pixels = || {
        eval(
            &tab,
            "document.querySelector('canvas.chat-noir-live').width",
        )
    };
    assert_eq!(pixels().as_f64(), Some(live_canvas(&tab)[2].round()));
    book_browser::window_size_and_density(&tab, (600, 700), 2.0);
    std::thread::sleep(Duration::from_millis(500));
    let zoomed = live_canvas(&tab)[2];
    assert_eq!(
        pixels().as_f64(),
        Some((zoomed * 2.0).round()),
        "{zoomed} CSS pixels"
    );
    assert_eq!(problems(&tab), Vec::<String>::new());
}

/// How many pixels of the live canvas have exactly the colour `color`, and the colour of its
/// top left corner.
fn canvas_colours(tab: &Tab, color: chat_noir::image::Color) -> (u64, [u8; 3]) {
    let (r, g, b) = (color.r, color.g, color.b);
    let script = format!(
        "(() => {{ const c = document.querySelector('canvas.chat-noir-live');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let n = 0;
            for (let i = 0; i < d.length; i += 4) {{
                if (d[i] === {r} && d[i + 1] === {g} && d[i + 2] === {b}) n += 1;
            }}
            return JSON.stringify([n, [d[0], d[1], d[2]]]); }})()"
    );
    let found = eval(tab, &script);
    serde_json::from_str(found.as_str().expect("numbers")).expect("numbers")
}

/// Clicks the middle of the element `selector` finds, as a pointer would.
fn click_the_middle_of(tab: &Tab, selector: &str) {
    let script = format!(
        "JSON.stringify((r => [r.x + r.width / 2, r.y + r.height / 2])(\
            document.querySelector('{selector}').getBoundingClientRect()))"
    );
    let found = eval(tab, &script);
    let [x, y]: [f64; 2] = serde_json::from_str(found.as_str().expect("a place")).unwrap();
    let point = headless_chrome::browser::tab::point::Point { x, y };
    tab.click_point(point).expect("a click");
}

/// The board takes each theme the reader picks from mdbook's menu: its background is the page's,
/// and its free and blocked cells are in the palette the library gives that background; back in
/// the light theme it is the original's again.
#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn the_live_board_takes_every_theme_the_reader_picks() {
    use chat_noir::palette::Palette;
    let browser = browser();
    let tab = open_served(&browser, "index.html", (1200, 1400));
    for theme in ["navy", "ayu", "coal", "rust", "light"] {
        eval(&tab, "window.scrollTo(0, 0)");
        click_the_middle_of(&tab, "#mdbook-theme-toggle");
        std::thread::sleep(Duration::from_millis(200));
        click_the_middle_of(&tab, &format!("#mdbook-theme-{theme}"));
        std::thread::sleep(Duration::from_millis(300));
        let page = eval(
            &tab,
            "getComputedStyle(document.documentElement).backgroundColor",
        );
        let numbers: Vec<u8> = (page.as_str().unwrap().split(|c: char| !c.is_ascii_digit()))
            .filter_map(|n| n.parse().ok())
            .collect();
        let background = chat_noir::image::Color::rgb(numbers[0], numbers[1], numbers[2]);
        let palette = Palette::for_background(background);
        let (_, corner) = canvas_colours(&tab, palette.background);
        assert_eq!(
            corner,
            [background.r, background.g, background.b],
            "{theme}"
        );
        for (cells, color) in [("free", palette.free), ("blocked", palette.blocked)] {
            let (pixels, _) = canvas_colours(&tab, color);
            assert!(
                pixels > 1_000,
                "{theme}: {pixels} pixels of the {cells} cells' colour"
            );
        }
    }
    assert_eq!(problems(&tab), Vec::<String>::new());
}

#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn the_game_plays_on_the_first_page_as_the_window_plays_it() {
    let browser = browser();
    play_in_the_page(&browser, "index.html", (1200, 1400), Pointer::Mouse);
    play_in_the_page(&browser, "index.html", (390, 844), Pointer::Finger);
    play_in_the_page(&browser, "web.html", (1200, 1400), Pointer::Mouse);
    play_in_the_page(&browser, "web.html", (390, 844), Pointer::Finger);
}

/// Clicks cell `cell` of the live figure `words` on `path`, and checks the page's world against the
/// same figure's, clicked natively; the world after the click.
fn click_a_live_figure(
    browser: &Browser,
    path: &str,
    words: &str,
    cell: chat_noir::world::Posn,
) -> String {
    use chat_noir::input::MouseEvent;
    let tab = open_served(browser, path, (1200, 1400));
    let canvas = live_canvas(&tab);
    let mut native = chat_noir::web::LiveBoard::figure(words).unwrap();
    native
        .resize([canvas[2], canvas[3]], 1.0, chat_noir::image::WHITE)
        .unwrap();
    assert_eq!(page_world(&tab), native.world(), "{words} as printed");
    let size: i32 = words.split(' ').nth(1).unwrap().parse().unwrap();
    let view = chat_noir::play::fit(size, [canvas[2], canvas[3]]);
    let at = [
        view.left + chat_noir::drawing::cell_center_x(cell) * view.scale,
        view.top + chat_noir::drawing::cell_center_y(cell) * view.scale,
    ];
    for evt in [
        MouseEvent::Enter,
        MouseEvent::Move,
        MouseEvent::ButtonDown,
        MouseEvent::ButtonUp,
    ] {
        native.mouse(at, evt);
    }
    let point = headless_chrome::browser::tab::point::Point {
        x: canvas[0] + at[0],
        y: canvas[1] + at[1],
    };
    tab.click_point(point).expect("a click");
    let world = page_world(&tab);
    assert_eq!(world, native.world(), "{words} after a click on {cell:?}");
    let caption = eval(
        &tab,
        "document.querySelector('figure[data-live] figcaption').textContent",
    );
    assert!(
        caption.as_str().is_some_and(|c| c.contains("Live:")),
        "{caption}"
    );
    assert_eq!(problems(&tab), Vec::<String>::new());
    world
}

#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn the_live_figures_of_part_one_block_a_cell_where_it_is_clicked() {
    let browser = browser();
    let cell = chat_noir::world::Posn::new(3, 2);
    for (path, words) in [
        ("cats-path.html", "cats-path 7 2 2"),
        ("bfs.html", "distance-map 7 3"),
    ] {
        let world = click_a_live_figure(&browser, path, words, cell);
        assert!(
            world.contains("Cell { p: Posn { x: 3, y: 2 }, blocked: true }"),
            "{path}: {world}"
        );
    }
}

/// A live figure with the focus takes the arrows, Space and Enter as the game's board does, rather
/// than let mdBook turn the page on an arrow: its world is the one the same keys make natively. Its
/// board is named for a listener with the keys it answers.
#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn a_live_figure_with_the_focus_takes_the_arrows_rather_than_turn_the_page() {
    use chat_noir::web::LiveBoard;
    let browser = browser();
    for (path, words) in [
        ("cats-path.html", "cats-path 7 2 2"),
        ("bfs.html", "distance-map 7 3"),
    ] {
        let tab = open_served(&browser, path, (1200, 1400));
        live_canvas(&tab);
        let (role, name) = role_and_name(&tab, "canvas.chat-noir-live");
        assert_eq!(role, "application", "{words}");
        assert!(
            name.contains("Arrow keys") && name.contains("Space"),
            "{words}: {name}"
        );
        eval(
            &tab,
            "document.querySelector('canvas.chat-noir-live').focus()",
        );
        let mut native = LiveBoard::figure(words).unwrap();
        for key in [
            "ArrowRight",
            "ArrowRight",
            "ArrowUp",
            " ",
            "ArrowLeft",
            "Enter",
        ] {
            tab.press_key(key).expect("a key");
            native.key(key, false, false);
            assert_eq!(
                eval(&tab, "location.pathname").as_str(),
                Some(format!("/{path}").as_str()),
                "{words}: the key {key:?} turned the page"
            );
        }
        assert_eq!(page_world(&tab), native.world(), "{words} after the keys");
        let untouched = LiveBoard::figure(words).unwrap().world();
        assert_ne!(
            native.world(),
            untouched,
            "{words}: the keys blocked nothing"
        );
        assert_eq!(problems(&tab), Vec::<String>::new());
    }
}

#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn a_live_figure_prints_as_its_printed_figure() {
    let browser = browser();
    let tab = open_served(&browser, "cats-path.html", (1200, 1400));
    let shown = |what: &str| {
        let style =
            format!("getComputedStyle(document.querySelector('figure[data-live] {what}')).display");
        eval(&tab, &style).as_str().unwrap_or_default().to_string()
    };
    let on_the_screen = (shown("svg"), shown("canvas"));
    assert_eq!(on_the_screen, ("none".into(), "block".into()));
    tab.call_method(Emulation::SetEmulatedMedia {
        media: Some("print".into()),
        features: None,
    })
    .expect("print");
    let on_paper = (shown("svg"), shown("canvas"));
    assert_eq!(on_paper, ("block".into(), "none".into()));
}

/// Waits until the game's status beside the board says `words`; what it said last if it never does.
fn wait_for_status(tab: &Tab, words: &str) -> Result<String, String> {
    let mut said = String::new();
    for _ in 0..6000 {
        let status = eval(
            tab,
            "document.querySelector('.chat-noir-status').textContent",
        );
        said = status.as_str().unwrap_or_default().to_string();
        if said.contains(words) {
            return Ok(said);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Err(said)
}

/// A winnable deal asked for in the page is the window's certified deal for its seed, and the page
/// says so; the coach, turned on with `c`, answers from the page's worker, and its ring followed move
/// after move wins; the next new game keeps the coach on.
#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn the_coach_in_the_page_leads_to_a_win_on_a_certified_deal() {
    let browser = browser();
    follow_the_coach(&browser, (1200, 1400));
    follow_the_coach(&browser, (390, 844));
}

/// A certified deal asked for at `width`, won by following the coach's ring.
fn follow_the_coach(browser: &Browser, (width, height): (u32, u32)) {
    use chat_noir::solve::board::Cat;
    use chat_noir::solve::deals::{certified_deal_in_turn, deal_budget};
    let tab = open_served(browser, "index.html", (width, height));
    eval(
        &tab,
        "(() => { const select = (name, value) => { const s = document.querySelector('.chat-noir-' + name); s.value = value; };
        select('size', '7'); select('deal', 'winnable'); document.querySelector('.chat-noir-new').click(); })()",
    );
    wait_for_status(&tab, "Chat Noir: move 1,").expect("a new game on a certified deal");
    let deal_said = "document.querySelector('.chat-noir-code').textContent";
    let said = eval(&tab, deal_said);
    assert!(
        said.as_str()
            .is_some_and(|s| s.ends_with("is a winnable deal against the original's cat, proven.")),
        "{said}"
    );
    let heard = self::said(&tab);
    assert!(
        heard.starts_with("A new game: the cat is on") && heard.ends_with(said.as_str().unwrap()),
        "{heard}"
    );
    eval(
        &tab,
        "document.querySelector('canvas.chat-noir-live').focus()",
    );
    tab.press_key("s").expect("the key s");
    let code = eval(&tab, "location.hash.slice('#game='.length)");
    let code = code.as_str().expect("a code in the address").to_string();
    let mut native = Native::new(
        chat_noir::web::LiveBoard::replay(&code).unwrap(),
        live_canvas(&tab),
    );
    assert_eq!(page_world(&tab), native.page.world(), "the deal of {code}");
    let seed: u64 = code
        .split('-')
        .nth(1)
        .map(|s| u64::from_str_radix(s, 36).unwrap())
        .unwrap();
    let settings = (7, Cat::Classic, deal_budget(Cat::Classic));
    let certified = certified_deal_in_turn(settings, seed, None).expect("a certified deal");
    assert_eq!(
        certified.seed, seed,
        "the page's deal is the first certified from its seed"
    );
    tab.press_key("c").expect("the key c");
    native.page.key("c", false, false);
    for moves in 1..=49 {
        let said = wait_for_status(&tab, "coach: won").unwrap_or_else(|said| {
            panic!("the coach never said the game was won before move {moves}: {said}")
        });
        let question = native.page.ask_coach().expect("the coach has a question");
        let answer = chat_noir::worker::coach_answer(&question).expect("the coach answers");
        native.page.coach_heard(&answer).unwrap();
        assert_eq!(
            said,
            native.page.status(true),
            "the coach's words before move {moves}"
        );
        let ringed = native
            .page
            .game()
            .and_then(|g| g.coached_cell())
            .expect("a gold ring");
        let point = native.click(ringed);
        tab.click_point(point).expect("a click on the ring");
        assert_eq!(
            page_world(&tab),
            native.page.world(),
            "after move {moves} at {ringed:?}"
        );
        if native.page.status(true).contains("you trapped the cat") {
            let status = wait_for_status(&tab, "you trapped the cat").expect("a win");
            assert_eq!(status, native.page.status(true));
            let png = tab
                .capture_screenshot(Page::CaptureScreenshotFormatOption::Png, None, None, true)
                .expect("a screenshot");
            fs::write(screenshots().join(format!("coach-win-{width}px.png")), png).unwrap();
            assert_eq!(problems(&tab), Vec::<String>::new());
            eval(&tab, "document.querySelector('.chat-noir-new').click()");
            wait_for_status(&tab, "Chat Noir: move 1,").expect("a new certified deal");
            wait_for_status(&tab, "; coach: ").expect("the coach on in the new game");
            assert_ne!(eval(&tab, deal_said), said, "the new deal is said");
            return;
        }
    }
    panic!("the coach's moves did not win within 49 moves");
}

/// A game's link pasted into the address of the page already open replays that game, the controls
/// following its size; a code that does not parse is said as a problem, and the game stays.
#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn a_game_s_link_pasted_into_the_open_page_replays_its_game() {
    let browser = browser();
    let tab = open_served(&browser, "index.html", (1200, 1400));
    let pasted = "9-3-1a";
    eval(&tab, &format!("location.hash = '#game={pasted}'"));
    let replayed = chat_noir::web::LiveBoard::replay(pasted).unwrap();
    let expected = format!("{:?}", replayed.game().expect("a game").world);
    let mut world = String::new();
    for _ in 0..500 {
        world = page_world(&tab);
        if world == expected {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(world, expected, "the pasted link's game is not the board's");
    let size = eval(&tab, "document.querySelector('.chat-noir-size').value");
    assert_eq!(size.as_str(), Some("9"));
    eval(&tab, "location.hash = '#game=nonsense'");
    let problem = "document.querySelector('.chat-noir-problem').textContent";
    let mut said = Value::Null;
    for _ in 0..500 {
        said = eval(&tab, problem);
        if said.as_str().is_some_and(|s| !s.is_empty()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let said = said.as_str().unwrap_or_default().to_string();
    assert!(
        said.contains("nonsense cannot be played"),
        "no problem said: {said:?}"
    );
    assert_eq!(page_world(&tab), expected, "a bad code replaced the game");
}

/// The version of the page's script in the built book: its FNV-1a hash, as the page and the module
/// compute it.
fn script_version() -> u32 {
    let theme = book().join("theme");
    let script = fs::read_dir(&theme)
        .expect("the book's theme directory")
        .map(|entry| entry.unwrap().path())
        .find(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("chat-noir") && name.ends_with(".js")
        })
        .expect("the page's script in the built book");
    fs::read(&script)
        .unwrap()
        .iter()
        .fold(0x811c_9dc5_u32, |hash, &byte| {
            (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
        })
}

/// The page asks for the module by the version of its own script (`?v=` and the script's FNV-1a
/// hash, which the module carries too), so that no cache hands a new script an old module; and its
/// worker starts from the text the page fetched and checked, not from the server's address.
#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn the_module_is_asked_for_by_the_script_s_version_and_the_worker_runs_the_checked_script() {
    let version = script_version();
    let browser = browser();
    let tab = open_served(&browser, "index.html#game=11-2-", (1200, 1400));
    let asked = eval(
        &tab,
        "JSON.stringify(performance.getEntriesByType('resource').map((e) => e.name)
            .filter((n) => n.includes('chat_noir.wasm')))",
    );
    let asked: Vec<String> = serde_json::from_str(asked.as_str().unwrap()).unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].ends_with(&format!("play/chat_noir.wasm?v={version}")),
        "{asked:?} does not name the script's version {version}"
    );
    eval(
        &tab,
        "(() => { const Started = window.Worker; window.chatNoirWorkers = [];
        window.Worker = function (url, options) {
            window.chatNoirWorkers.push(String(url)); return new Started(url, options); };
        document.querySelector('canvas.chat-noir-live').dispatchEvent(
            new KeyboardEvent('keydown', {key: 'c', bubbles: true})); })()",
    );
    let status = wait_for_status(&tab, "coach: won");
    assert!(status.is_ok(), "the coach did not answer: {status:?}");
    let workers = eval(&tab, "JSON.stringify(window.chatNoirWorkers)");
    let workers: Vec<String> = serde_json::from_str(workers.as_str().unwrap()).unwrap();
    assert_eq!(workers.len(), 1, "{workers:?}");
    assert!(workers[0].starts_with("blob:"), "{workers:?}");
}

/// Watches the workers the page starts from now on: each is kept (`chatNoirWorkers`), with how
/// many were ended (`chatNoirEnded`) and the answers to a test's own messages, those numbered below
/// zero, which the page drops (`chatNoirHeard`).
const WATCH_WORKERS: &str = "(() => { const Started = window.Worker;
    Object.assign(window, { chatNoirWorkers: [], chatNoirEnded: 0, chatNoirHeard: [] });
    window.Worker = function (url, options) {
        const started = new Started(url, options);
        const end = started.terminate.bind(started);
        started.terminate = () => { window.chatNoirEnded += 1; end(); };
        started.addEventListener('message', ({ data }) => {
            if (data.id < 0) { window.chatNoirHeard.push(data); } });
        window.chatNoirWorkers.push(started);
        return started;
    }; })()";

/// What a panic of the test-only call says, as the page reports it, up to its place.
const TEST_PANIC: &str =
    "the game's WebAssembly panicked: a panic a test asked for at OUT_DIR/web.rs:";

/// The key `key` pressed on the first live board, as the browser hands it to the board.
fn key_on_the_board(tab: &Tab, key: &str) {
    eval(
        tab,
        &format!(
            "document.querySelector('canvas.chat-noir-live').dispatchEvent(
                new KeyboardEvent('keydown', {{key: {key:?}, bubbles: true}}))"
        ),
    );
}

/// Waits for `done` (a JavaScript expression) to be true in the page, for at most 30 s.
fn wait_until(tab: &Tab, done: &str) -> bool {
    for _ in 0..3000 {
        if eval(tab, done) == Value::Bool(true) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// The panic's place, `OUT_DIR/web.rs:LINE:COLUMN` after `TEST_PANIC`, is the test-only call's
/// `panic!` in the tangled web.rs, whose line the book's chapter on the page holds.
fn assert_names_the_panic_s_place(said: &str) {
    let at = said.find(TEST_PANIC).expect("the panic's words") + TEST_PANIC.len();
    let place: Vec<usize> = said[at..]
        .split(|c: char| !c.is_ascii_digit())
        .take(2)
        .map(|n| {
            n.parse()
                .unwrap_or_else(|_| panic!("no line and column in {said:?}"))
        })
        .collect();
    let outcome = litbook::tangle_book(&crate_dir().join("book/src"), "book/src");
    let web = outcome
        .files
        .iter()
        .find(|f| f.name == "web.rs")
        .expect("web.rs");
    let line = web.text.lines().nth(place[0] - 1).unwrap_or_default();
    assert!(
        line.contains("panic!(\"a panic a test asked for\")"),
        "{said:?}: {line:?}"
    );
    let book = web
        .map
        .place(place[0], place[1])
        .expect("a place in the book");
    assert!(book.to_string().contains("web-calls.md:"), "{book}");
}

/// The library's test-only call panics in the page; the trap is caught, every live board of the
/// page gives its place back to the printed figure and says what failed and where, and the game's
/// worker is ended with it; the same on a page of Part I with a live figure.
#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn a_panic_in_the_page_leaves_its_figures_printed_and_says_what_failed() {
    let browser = browser();
    let panic = "(() => { try { document.querySelector('canvas.chat-noir-live').chatNoirPanic();
        return 'no trap'; } catch (why) { return why.message; } })()";
    let shown_as_printed = "document.querySelectorAll('canvas.chat-noir-live').length === 0 &&
        getComputedStyle(document.querySelector('figure[data-live] svg')).display !== 'none' &&
        document.querySelector('.chat-noir-live-words') === null";
    let status = "document.querySelector('.chat-noir-status').textContent";
    let tab = open_served(&browser, "index.html#game=11-2-", (1200, 1400));
    let live_words = "document.querySelectorAll('.chat-noir-live-words').length";
    assert_eq!(
        eval(&tab, live_words),
        Value::from(1),
        "the caption says it is live"
    );
    eval(&tab, WATCH_WORKERS);
    key_on_the_board(&tab, "c");
    let coached = wait_for_status(&tab, "coach: won");
    assert!(coached.is_ok(), "the coach did not answer: {coached:?}");
    let thrown = eval(&tab, panic);
    let thrown = thrown.as_str().unwrap_or_default();
    assert!(thrown.starts_with(TEST_PANIC), "{thrown:?}");
    assert_names_the_panic_s_place(thrown);
    assert_eq!(eval(&tab, shown_as_printed), Value::Bool(true));
    let said = eval(&tab, status);
    let said = said.as_str().unwrap_or_default();
    assert!(
        said.starts_with(&format!("The game stopped: {TEST_PANIC}")),
        "{said:?}"
    );
    assert_eq!(
        eval(&tab, "document.querySelector('.chat-noir-new')"),
        Value::Null
    );
    let skip = "document.querySelector('.chat-noir-skip')";
    assert_eq!(
        eval(&tab, skip),
        Value::Null,
        "a link to a board that is gone"
    );
    assert_eq!(
        eval(&tab, "window.chatNoirEnded"),
        Value::from(1),
        "the worker ended"
    );
    let problems = problems(&tab);
    assert!(
        problems.iter().any(|p| p.contains(TEST_PANIC)),
        "{problems:?}"
    );
    let tab = open_served(&browser, "cats-path.html", (1200, 1400));
    eval(&tab, panic);
    assert_eq!(eval(&tab, shown_as_printed), Value::Bool(true));
    let said = eval(&tab, status);
    let said = said.as_str().unwrap_or_default();
    assert!(
        said.starts_with(&format!("This figure stopped: {TEST_PANIC}")),
        "{said:?}"
    );
}

/// The page's worker panics on a test's message: it answers that message with the panic's words,
/// starts again from the module it holds, and the coach answers the next move. Killed by an error
/// nothing caught, the worker is started afresh at the coach's next question.
#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn a_worker_that_panics_or_dies_starts_again_and_the_coach_goes_on() {
    let browser = browser();
    let code = "11-2-";
    let tab = open_served(&browser, &format!("index.html#game={code}"), (1200, 1400));
    eval(&tab, WATCH_WORKERS);
    let mut native = Native::new(
        chat_noir::web::LiveBoard::replay(code).unwrap(),
        live_canvas(&tab),
    );
    key_on_the_board(&tab, "c");
    native.page.key("c", false, false);
    let coached = wait_for_status(&tab, "coach: won");
    assert!(coached.is_ok(), "the coach did not answer: {coached:?}");
    eval(
        &tab,
        "window.chatNoirWorkers[0].postMessage({ id: -1, panic: true })",
    );
    assert!(
        wait_until(&tab, "window.chatNoirHeard.length === 1"),
        "no answer to the panic"
    );
    let heard = eval(&tab, "JSON.stringify(window.chatNoirHeard[0])");
    let heard: Value = serde_json::from_str(heard.as_str().unwrap()).unwrap();
    assert_eq!(heard["ok"], Value::Bool(false), "{heard}");
    let why = heard["error"].as_str().unwrap_or_default();
    assert!(why.starts_with(TEST_PANIC), "{heard}");
    let mut answered_after = |what: &str| {
        let cell = native.next_cell().expect("a free cell beside the cat");
        tab.click_point(native.click(cell)).expect("a click");
        assert_eq!(page_world(&tab), native.page.world(), "{what}");
        let status = "document.querySelector('.chat-noir-status').textContent";
        let answered = format!("(s => s.includes('coach: ') && !s.includes('thinking'))({status})");
        assert!(
            wait_until(&tab, &answered),
            "no answer from the coach {what}"
        );
        let said = eval(&tab, status);
        let said = said.as_str().unwrap_or_default().to_string();
        assert!(!said.contains("stopped"), "{what}: {said}");
    };
    answered_after("after the worker's panic");
    assert_eq!(eval(&tab, "window.chatNoirWorkers.length"), Value::from(1));
    eval(&tab, "window.chatNoirWorkers[0].postMessage(null)");
    assert!(
        wait_until(&tab, "window.chatNoirEnded === 1"),
        "the page did not end the worker that died"
    );
    answered_after("after the worker died");
    assert_eq!(eval(&tab, "window.chatNoirWorkers.length"), Value::from(2));
}

/// A finger that starts to scroll the page on the board hands the pointer to the browser, which
/// cancels it: the press ends without a release, blocks nothing, and leaves no cell marked.
#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn a_finger_that_scrolls_from_the_board_blocks_nothing() {
    let browser = browser();
    let code = "11-2-";
    let tab = open_served(&browser, &format!("index.html#game={code}"), (390, 844));
    a_touch_screen(&tab);
    let native = Native::new(
        chat_noir::web::LiveBoard::replay(code).unwrap(),
        live_canvas(&tab),
    );
    eval(
        &tab,
        "window.chatNoirCancelled = 0; document.querySelector('canvas.chat-noir-live')
            .addEventListener('pointercancel', () => { window.chatNoirCancelled += 1; })",
    );
    let scrolled = eval(&tab, "window.scrollY");
    let cell = native.next_cell().expect("a free cell beside the cat");
    let start = native.on_the_page(native.centre(cell));
    let at = |y: f64| Some(headless_chrome::browser::tab::point::Point { x: start.x, y });
    touch(
        &tab,
        Input::DispatchTouchEventTypeOption::TouchStart,
        at(start.y),
    );
    for step in 1..=10 {
        let y = start.y - 20.0 * f64::from(step);
        touch(&tab, Input::DispatchTouchEventTypeOption::TouchMove, at(y));
    }
    touch(&tab, Input::DispatchTouchEventTypeOption::TouchEnd, None);
    assert!(
        wait_until(&tab, "window.chatNoirCancelled > 0"),
        "the browser did not take the finger's pointer"
    );
    assert_ne!(
        eval(&tab, "window.scrollY"),
        scrolled,
        "the page did not scroll"
    );
    let untouched = chat_noir::web::LiveBoard::replay(code).unwrap();
    assert_eq!(
        page_world(&tab),
        untouched.world(),
        "the scroll changed the game"
    );
}

/// The keyboard's cursor is ringed while the board has the focus and the keys moved it; when the
/// focus goes elsewhere, the ring goes, since the board no longer hears the keys.
#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn a_board_that_loses_the_focus_rings_no_cursor() {
    let browser = browser();
    let tab = open_served(&browser, "index.html#game=11-2-", (1200, 1400));
    let pixels = "document.querySelector('canvas.chat-noir-live').toDataURL()";
    eval(
        &tab,
        "document.querySelector('canvas.chat-noir-live').focus()",
    );
    let unringed = eval(&tab, pixels);
    tab.press_key("ArrowRight").expect("the right arrow");
    assert_ne!(eval(&tab, pixels), unringed, "no ring after an arrow");
    tab.press_key("Tab").expect("the Tab key");
    let focused = eval(&tab, "document.activeElement.tagName");
    assert_ne!(
        focused.as_str(),
        Some("CANVAS"),
        "Tab left the focus on the board"
    );
    assert_eq!(eval(&tab, pixels), unringed, "a ring without the focus");
}

/// A letter key pressed while the focus is nowhere is the game's when its board is in view: `?`
/// shows the game's keys and gives the board the focus, with no move made, and mdBook's own help
/// stays closed; Esc puts the keys away, and `?` shows them again; the right arrow moves the game's cursor rather than turning the page; a key the game has no use for goes on to the page, and with the board out of
/// view, `?` is mdBook's again. A mouse is offered no size whose cells stand closer than 12 CSS
/// pixels, and a size greyed says why. The perfect cat chosen greys the sizes its solver cannot
/// take, saying so, and a larger size chosen gives way to the largest it takes; the original's cat
/// chosen again offers them again.
#[test]
#[ignore = "needs mdbook and chromium: bash .ci/run installs them"]
fn the_game_s_letter_keys_reach_its_board_in_view_before_mdbook() {
    let browser = browser();
    let tab = open_served(&browser, "index.html#game=11-2-", (1200, 1400));
    let focused = "document.activeElement.tagName";
    let help = "getComputedStyle(document.getElementById('mdbook-help-container')).display";
    let pixels = "document.querySelector('canvas.chat-noir-live').toDataURL()";
    let (world, unshown) = (page_world(&tab), eval(&tab, pixels));
    assert_eq!(eval(&tab, focused).as_str(), Some("BODY"));
    tab.press_key("x").expect("x");
    assert_eq!(
        eval(&tab, focused).as_str(),
        Some("BODY"),
        "x is not the game's"
    );
    tab.press_key("?").expect("the question mark");
    assert_eq!(eval(&tab, focused).as_str(), Some("CANVAS"));
    assert_eq!(
        eval(&tab, help).as_str(),
        Some("none"),
        "mdBook's help opened"
    );
    let shown = eval(&tab, pixels);
    assert_ne!(shown, unshown, "the keys are not shown");
    assert_eq!(page_world(&tab), world, "a key made a move");
    tab.press_key("Escape").expect("Esc");
    assert_ne!(eval(&tab, pixels), shown, "Esc left the keys shown");
    assert_eq!(eval(&tab, focused).as_str(), Some("CANVAS"));
    tab.press_key("?").expect("the question mark");
    assert_eq!(eval(&tab, pixels), shown, "? showed the keys otherwise");
    eval(&tab, "document.activeElement.blur()");
    let address = tab.get_url();
    tab.press_key("ArrowRight").expect("the right arrow");
    assert_eq!(tab.get_url(), address, "the right arrow turned the page");
    assert_eq!(eval(&tab, focused).as_str(), Some("CANVAS"));

    eval(&tab, "document.activeElement.blur()");
    eval(&tab, "window.scrollTo(0, document.body.scrollHeight)");
    tab.press_key("?").expect("the question mark");
    assert_eq!(eval(&tab, focused).as_str(), Some("BODY"));
    assert_ne!(
        eval(&tab, help).as_str(),
        Some("none"),
        "mdBook's help is closed"
    );

    let width = eval(
        &tab,
        "document.querySelector('canvas.chat-noir-live').getBoundingClientRect().width",
    );
    let offered = offered_sizes(&tab);
    let width = width.as_f64().unwrap();
    assert!(
        offered.contains(&61.0) && offered.iter().all(|size| width / (size + 0.5) >= 12.0),
        "{width}: {offered:?}"
    );
    assert!(!offered.contains(&101.0), "{offered:?}");
    let greyed = eval(
        &tab,
        "document.querySelector('.chat-noir-size option[value=\"101\"]').text",
    );
    assert_eq!(greyed.as_str(), Some("101×101 (cells too small here)"));

    let largest = chat_noir::solve::board::LARGEST_SOLVED_BOARD;
    eval(
        &tab,
        "document.querySelector('.chat-noir-size').value = '61'",
    );
    assert_eq!(choose_the_cat(&tab, "perfect"), largest.to_string());
    let offered = offered_sizes(&tab);
    assert!(
        offered.contains(&f64::from(largest))
            && offered.iter().all(|&size| size <= f64::from(largest)),
        "against the perfect cat: {offered:?}"
    );
    let option_text = |size: u32| {
        let text = eval(
            &tab,
            &format!("document.querySelector('.chat-noir-size option[value=\"{size}\"]').text"),
        );
        text.as_str().unwrap().to_string()
    };
    assert_eq!(
        option_text(13),
        format!("13×13 (the perfect cat: {largest}×{largest} at most)")
    );
    assert_eq!(option_text(101), "101×101 (cells too small here)");
    assert_eq!(choose_the_cat(&tab, "classic"), largest.to_string());
    assert!(
        offered_sizes(&tab).contains(&61.0),
        "{:?}",
        offered_sizes(&tab)
    );
    assert_eq!(option_text(13), "13×13");
}

/// Chooses `cat` in the game's controls, as the reader does; the size chosen then.
fn choose_the_cat(tab: &Tab, cat: &str) -> String {
    let chosen = eval(
        tab,
        &format!(
            "(() => {{ const cat = document.querySelector('.chat-noir-cat');
                cat.value = '{cat}';
                cat.dispatchEvent(new Event('change'));
                return document.querySelector('.chat-noir-size').value; }})()"
        ),
    );
    chosen.as_str().expect("a size").to_string()
}

/// The sizes the game's controls offer, greyed ones left out.
fn offered_sizes(tab: &Tab) -> Vec<f64> {
    let offered = eval(
        tab,
        "JSON.stringify(Array.from(document.querySelector('.chat-noir-size').options)
            .filter((o) => !o.disabled).map((o) => Number(o.value)))",
    );
    serde_json::from_str(offered.as_str().unwrap()).unwrap()
}

/// Signed LEB128, WebAssembly's encoding of an `i32.const`'s number.
fn signed_leb128(mut value: i64) -> Vec<u8> {
    let mut bytes = Vec::new();
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        let done = (value == 0 && byte & 0x40 == 0) || (value == -1 && byte & 0x40 != 0);
        bytes.push(if done { byte } else { byte | 0x80 });
        if done {
            return bytes;
        }
    }
}

/// A server with a module built from another script than the page's (the one of the built book
/// with the hash it carries changed, as a cache or a stale upload would serve it): the page
/// refuses it, says why, and its figures stay as printed.
#[test]
#[ignore = "needs mdbook, chromium and the game built for the web: bash .ci/run makes them"]
fn a_module_from_another_script_leaves_the_figures_printed() {
    let stale = tempfile::tempdir().expect("a temporary directory");
    let served = fs::canonicalize(book()).unwrap();
    for entry in fs::read_dir(&served).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() != "play" {
            std::os::unix::fs::symlink(entry.path(), stale.path().join(entry.file_name())).unwrap();
        }
    }
    let mut module = fs::read(served.join("play/chat_noir.wasm")).expect("the built module");
    let hash = signed_leb128(i64::from(script_version() as i32));
    let at: Vec<usize> = (0..module.len())
        .filter(|&at| module[at..].starts_with(&hash))
        .collect();
    assert_eq!(
        at.len(),
        1,
        "the module's hash {hash:02x?} is not found once"
    );
    module[at[0]] ^= 1;
    fs::create_dir(stale.path().join("play")).unwrap();
    fs::write(stale.path().join("play/chat_noir.wasm"), module).unwrap();
    let port = book_browser::serve(stale.path());
    let browser = browser();
    let tab = browser.new_tab().expect("a tab");
    tab.call_method(Page::AddScriptToEvaluateOnNewDocument {
        source: WATCH.to_string(),
        world_name: None,
        include_command_line_api: None,
        run_immediately: None,
    })
    .expect("the watch script is installed");
    book_browser::window_size(&tab, (1200, 1400));
    let url = format!("http://127.0.0.1:{port}/index.html");
    tab.navigate_to(&url).expect("the page loads");
    let refused = "window.__problems.some((p) => p.includes('built from another version'))";
    assert!(
        wait_until(&tab, refused),
        "no refusal: {:?}",
        problems(&tab)
    );
    let printed = "document.querySelectorAll('canvas.chat-noir-live').length === 0 &&
        getComputedStyle(document.querySelector('figure[data-live] svg')).display !== 'none'";
    assert_eq!(eval(&tab, printed), Value::Bool(true));
}
